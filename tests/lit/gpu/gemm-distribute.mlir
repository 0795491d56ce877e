// RUN: tilec-opt --split-input-file --tilec-distribute-gemm-tiles %s | FileCheck %s

// tilec-distribute-gemm-tiles turns each scheduled GEMM kernel (tile.gemm)
// into a gpu.func in gpu.module @tilec_kernels: a CTA computes a block_m x
// block_n tile. Operand panels go through `stages` buffers in dynamic shared
// memory (A panel first, then B), filled by 16-byte cp.async
// (nvgpu.device_async_copy {bypassL1}) `stages - 1` k-steps ahead; warps
// read fragments with ldmatrix (.trans where the panel is k-major for A or
// k-major for B) and issue mma.sync m16n8k16 into f32 accumulators; the row
// program is re-emitted on each pair of accumulator columns, its stores
// masked with scf.if; loads and stores of whole pairs say their alignment
// (4 bytes for 16-bit pairs, 8 for f32). Shared rows are XOR-swizzled by
// 16-byte chunk when their chunk count is a power of two. A kernel may hold
// several products of one lhs (SwiGLU): one A panel, a B panel and a set of
// accumulators each. Schedules here are small (32 x 32 tiles, one warp):
// warp tile 32 x 32 = mi 2 x ni 4 mma tiles, block_k 16 = one k step.

// bf16, rhs [N, K] (transpose_b), a bias, 40 rows (the last CTA row is
// partial), 4 stages.
// CHECK:       module attributes {gpu.container_module} {
// CHECK-NEXT:    gpu.module @tilec_kernels {
// CHECK-NEXT:      gpu.func @bias_tb(%[[X:[^:]+]]: memref<?x64xbf16>, %[[W:[^:]+]]: memref<64x64xbf16>, %[[B:[^:]+]]: memref<64xbf16>, %[[Y:[^:]+]]: memref<?x64xbf16>) kernel
// CHECK-SAME:        attributes {known_block_size = array<i32: 32, 1, 1>, tile.domain = array<i64: 40, 64>, tile.schedule = {block_k = 16 : i64, block_m = 32 : i64, block_n = 32 : i64, grid = 4 : i64, group_m = 8 : i64, shared_bytes = 8192 : i64, stages = 4 : i64, threads = 32 : i64, warps_m = 1 : i64, warps_n = 1 : i64}}
// CHECK:           gpu.thread_id x
// CHECK:           gpu.block_id x
// CHECK:           %[[SMEM:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// A panel [4][32 rows][16 k] at byte 0, B panel [4][32 n][16 k] at 4 * 32 * 16 * 2.
// CHECK:           %[[PA:.+]] = memref.view %[[SMEM]][%c0{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:           %[[PB:.+]] = memref.view %[[SMEM]][%c4096{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x32x16xbf16, #gpu.address_space<workgroup>>
// Prologue: stages - 1 = 3 k-steps, each 2 + 2 copies of 8 bf16 per thread
// (32 x 16 elements = 64 chunks over 32 threads) and a commit group.
// CHECK-COUNT-2:   nvgpu.device_async_copy %[[X]][{{.+}}], %[[PA]][{{.+}}], 8, %{{.+}} {bypassL1} : memref<?x64xbf16> to memref<4x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-2:   nvgpu.device_async_copy %[[W]][{{.+}}], %[[PB]][{{.+}}], 8, %{{.+}} {bypassL1} : memref<64x64xbf16> to memref<4x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:      nvgpu.device_async_create_group
// CHECK-COUNT-4:   nvgpu.device_async_copy
// CHECK-NEXT:      nvgpu.device_async_create_group
// CHECK-COUNT-4:   nvgpu.device_async_copy
// CHECK-NEXT:      %[[TOK:.+]] = nvgpu.device_async_create_group
// CHECK-NOT:       nvgpu.device_async_copy
// Main loop over K / block_k = 4 steps: 8 accumulators and the token.
// CHECK:           %[[ACC:.+]]:9 = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args({{.*}}%{{.+}} = %[[TOK]]) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, !nvgpu.device.async.token) {
// CHECK-NEXT:        nvgpu.device_async_wait %{{.+}} {numGroups = 2 : i32}
// CHECK-NEXT:        gpu.barrier
// Refill the stage freed by the previous step, if any k-step is left.
// CHECK:             scf.if %{{.+}} {
// CHECK-COUNT-4:       nvgpu.device_async_copy {{.+}} {bypassL1}
// CHECK-NEXT:        }
// CHECK-NEXT:        nvgpu.device_async_create_group
// A: mi = 2 ldmatrix.x4 of row-major [m][k]; B: ni / 2 = 2 of [n][k]: no transposes.
// CHECK-COUNT-2:     nvgpu.ldmatrix %[[PA]][{{.+}}] {numTiles = 4 : i32, transpose = false} : memref<4x32x16xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-COUNT-2:     nvgpu.ldmatrix %[[PB]][{{.+}}] {numTiles = 4 : i32, transpose = false} : memref<4x32x16xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-COUNT-8:     nvvm.mma.sync A[{{.+}}]  B[{{.+}}]  C[{{.+}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT:         nvvm.mma.sync
// CHECK:             scf.yield
// CHECK-NEXT:      }
// Epilogue, first pair: row m0 + lane / 4, columns n0 + 2 * (lane % 4) + {0, 1}.
// The pairs of all 2 * 2 * 4 = 16 fragments are taken first, then the loads
// of all fragments (so that no store comes between a load and its use), then
// the row programs: the bias pair is loaded (clamped to N - 2; an even
// column, so 4-byte aligned), the sum rounded to bf16 and stored where the
// row is below 40 and the column below 64.
// CHECK:           %[[PAIR:.+]] = vector.shuffle %[[ACC]]#0, %[[ACC]]#0 [0, 1] : vector<4xf32>, vector<4xf32>
// CHECK-COUNT-15:  vector.shuffle %[[ACC]]#{{[0-7]}}
// CHECK-NOT:       vector.shuffle
// CHECK:           %[[C40:.+]] = arith.constant 40 : index
// CHECK-NEXT:      arith.cmpi ult, %[[ROW:.+]], %[[C40]] : index
// Unbatched, the rows of memory are the rows of the product: offset 0.
// CHECK-NEXT:      %[[C39:.+]] = arith.constant 39 : index
// CHECK-NEXT:      %[[LROW:.+]] = arith.minui %[[ROW]], %[[C39]] : index
// CHECK-NEXT:      arith.addi %[[LROW]], %[[ZERO:c0(_[0-9]+)?]] : index
// CHECK-NEXT:      arith.addi %[[ROW]], %[[ZERO]] : index
// CHECK-NEXT:      %[[C62:.+]] = arith.constant 62 : index
// CHECK-NEXT:      %[[BCOL:.+]] = arith.minui %[[COL:.+]], %[[C62]] : index
// CHECK-NEXT:      %[[BV:.+]] = vector.load %[[B]][%[[BCOL]]] {alignment = 4 : i64} : memref<64xbf16>, vector<2xbf16>
// The bias depends on the column only: one load per column pair j (4), reused
// by the other rows.
// CHECK-COUNT-3:   vector.load %[[B]][{{.+}}] {alignment = 4 : i64}
// CHECK-NOT:       vector.load
// CHECK-NOT:       vector.store
// CHECK:           %[[BF:.+]] = arith.extf %[[BV]] : vector<2xbf16> to vector<2xf32>
// CHECK-NEXT:      %[[SUM:.+]] = arith.addf %[[PAIR]], %[[BF]] : vector<2xf32>
// CHECK-NEXT:      %[[OUT:.+]] = arith.truncf %[[SUM]] : vector<2xf32> to vector<2xbf16>
// CHECK-NEXT:      %[[C64:.+]] = arith.constant 64 : index
// CHECK-NEXT:      %[[COLOK:.+]] = arith.cmpi ult, %[[COL]], %[[C64]] : index
// CHECK-NEXT:      %[[OK:.+]] = arith.andi %{{.+}}, %[[COLOK]] : i1
// CHECK-NEXT:      scf.if %[[OK]] {
// CHECK-NEXT:        vector.store %[[OUT]], %[[Y]][%{{.+}}, %[[COL]]] {alignment = 4 : i64} : memref<?x64xbf16>, vector<2xbf16>
// CHECK-NEXT:      }
// 16 stores in all.
// CHECK-COUNT-15:  vector.store %{{.+}}, %[[Y]][{{.+}}] {alignment = 4 : i64}
// CHECK-NOT:       vector.load
// CHECK-NOT:       vector.store
// CHECK:           gpu.return
// The tile kernel is gone.
// CHECK-NOT:       func.func
func.func @bias_tb(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %b: memref<64xbf16>, %y: memref<?x64xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 40, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 4 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 8192 : i64}} {
  %r = tile.row_id
  %bt = tile.load %b : memref<64xbf16> -> tensor<64xbf16>
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  %be = arith.extf %bt : tensor<64xbf16> to tensor<64xf32>
  %s = arith.addf %p, %be : tensor<64xf32>
  %t = arith.truncf %s : tensor<64xf32> to tensor<64xbf16>
  tile.store %t, %y[%r] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// rhs [K, N]: the B panel is [k][n] and read with ldmatrix.trans; 3 stages
// wait for all but 1 group; tile.max_registers becomes nvvm.maxnreg; an f32
// product is stored as it is.
// CHECK-LABEL: gpu.func @kn_rhs
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x64xbf16>, %[[W:[^:]+]]: memref<64x64xbf16>, %[[Y:[^:]+]]: memref<?x64xf32>) kernel
// CHECK-SAME:    attributes {known_block_size = array<i32: 32, 1, 1>, nvvm.maxnreg = 96 : i64,
// CHECK:         %[[PA:.+]] = memref.view %{{.+}}[%c0{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[PB:.+]] = memref.view %{{.+}}[%c3072{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x16x32xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_copy %[[W]][{{.+}}], %[[PB]][{{.+}}], 8, %{{.+}} {bypassL1} : memref<64x64xbf16> to memref<3x16x32xbf16, #gpu.address_space<workgroup>>
// CHECK:         scf.for
// CHECK-NEXT:      nvgpu.device_async_wait %{{.+}} {numGroups = 1 : i32}
// CHECK-COUNT-2:   nvgpu.ldmatrix %[[PA]][{{.+}}] {numTiles = 4 : i32, transpose = false}
// CHECK-COUNT-2:   nvgpu.ldmatrix %[[PB]][{{.+}}] {numTiles = 4 : i32, transpose = true} : memref<3x16x32xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-COUNT-8:   nvvm.mma.sync
// CHECK:         %[[PAIR:.+]] = vector.shuffle
// CHECK-NOT:     arith.truncf
// CHECK:         scf.if
// CHECK-NEXT:      vector.store %[[PAIR]], %[[Y]][{{.+}}] {alignment = 8 : i64} : memref<?x64xf32>, vector<2xf32>
// CHECK:         gpu.return
func.func @kn_rhs(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.max_registers = 96 : i64, tile.domain = array<i64: 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 3 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 6144 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  tile.store %p, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// A transposed lhs [K, M]: the A panel is [k][m], read with ldmatrix.trans;
// B [N, K] without. 2 stages: wait for all groups.
// CHECK-LABEL: gpu.func @trans_a
// CHECK:         %[[PA:.+]] = memref.view %{{.+}}[%c0{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[PB:.+]] = memref.view %{{.+}}[%c2048{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_copy %arg0[{{.+}}], %[[PA]][{{.+}}], 8, %{{.+}} {bypassL1} : memref<64x64xbf16> to memref<2x16x32xbf16, #gpu.address_space<workgroup>>
// CHECK:         scf.for
// CHECK-NEXT:      nvgpu.device_async_wait %{{.+}} {numGroups = 0 : i32}
// CHECK-COUNT-2:   nvgpu.ldmatrix %[[PA]][{{.+}}] {numTiles = 4 : i32, transpose = true} : memref<2x16x32xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-COUNT-2:   nvgpu.ldmatrix %[[PB]][{{.+}}] {numTiles = 4 : i32, transpose = false} : memref<2x32x16xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-COUNT-8:   nvvm.mma.sync
func.func @trans_a(%a: memref<64x64xbf16>, %w: memref<64x64xbf16>, %y: memref<?x64xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %a, %w[%r] {transpose_a = true, transpose_b = true} : memref<64x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  %t = arith.truncf %p : tensor<64xf32> to tensor<64xbf16>
  tile.store %t, %y[%r] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// K = 35: rows of A [M, K] and B [N, K] of an odd number of elements fit
// no cp.async (it needs 4-byte aligned sources): each 8-element chunk is 8
// masked (clamped, selected) element loads, stored to shared memory as one
// vector<8>. The pipeline and the
// tensor-core loop are unchanged.
// CHECK-LABEL: gpu.func @k_odd
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x35xbf16>, %[[W:[^:]+]]: memref<64x35xbf16>, %{{[^:]+}}: memref<?x64xbf16>)
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         %[[PA:.+]] = memref.view {{.+}} to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[PB:.+]] = memref.view {{.+}} to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK-COUNT-8: memref.load %[[X]][{{.+}}] : memref<?x35xbf16>
// CHECK:         %[[V:.+]] = vector.from_elements {{.+}} : vector<8xbf16>
// CHECK-NEXT:    vector.store %[[V]], %[[PA]][{{.+}}] : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         memref.load %[[W]][{{.+}}] : memref<64x35xbf16>
// CHECK:         vector.store %{{.+}}, %[[PB]][{{.+}}] : memref<2x32x16xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         nvgpu.device_async_create_group
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         scf.for
// CHECK-NEXT:      nvgpu.device_async_wait
// CHECK-NOT:       nvgpu.device_async_copy
// CHECK:           memref.load %[[X]]
// CHECK-NOT:       nvgpu.device_async_copy
// CHECK:           nvgpu.ldmatrix
// CHECK-NOT:       nvgpu.device_async_copy
// CHECK:           nvvm.mma.sync
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         gpu.return
func.func @k_odd(%x: memref<?x35xbf16>, %w: memref<64x35xbf16>, %y: memref<?x64xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 32, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 2 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x35xbf16>, memref<64x35xbf16> -> tensor<64xf32>
  %t = arith.truncf %p : tensor<64xf32> to tensor<64xbf16>
  tile.store %t, %y[%r] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// K = 36: rows of 72 bytes, 8-byte aligned: each 8-element chunk is two
// cp.async of 4 elements (8 bytes, .ca: no bypassL1), each reading 4 or 0
// elements (past K) from an aligned address inside the row (the column
// clamped to K - 4), into the chunk's two halves.
// CHECK-LABEL: gpu.func @k_36
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x36xbf16>, %[[W:[^:]+]]: memref<64x36xbf16>, %{{[^:]+}}: memref<?x64xbf16>)
// CHECK-NOT:     memref.load %[[X]]
// CHECK:         %[[C:.+]] = arith.minui %{{.+}}, %c32
// CHECK:         nvgpu.device_async_copy %[[X]][%{{.+}}, %[[C]]], %{{.+}}, 4, %{{[a-z0-9_]+}} : memref<?x36xbf16> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[C4:.+]] = arith.minui %{{.+}}, %c32
// CHECK:         nvgpu.device_async_copy %[[X]][%{{.+}}, %[[C4]]], %{{.+}}, 4, %{{[a-z0-9_]+}} : memref<?x36xbf16>
// CHECK:         nvgpu.device_async_copy %[[W]]{{.+}}, 4, %{{[a-z0-9_]+}} : memref<64x36xbf16>
// CHECK-NOT:     memref.load %[[X]]
// CHECK:         gpu.return
func.func @k_36(%x: memref<?x36xbf16>, %w: memref<64x36xbf16>, %y: memref<?x64xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 32, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 2 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x36xbf16>, memref<64x36xbf16> -> tensor<64xf32>
  %t = arith.truncf %p : tensor<64xf32> to tensor<64xbf16>
  tile.store %t, %y[%r] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// f32 operands: no tensor cores (exact f32 products): 4-element cp.async
// into the same swizzled panels, then per k (16 a step) shared-memory loads
// and vector<2> FMAs in the mma accumulator layout: 2 row halves * mi 2 *
// ni 4 = 16 FMAs a k, 256 a step. The epilogue is the same.
// CHECK-LABEL: gpu.func @f32
// CHECK-NOT:     nvgpu.ldmatrix
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         %[[PA:.+]] = memref.view %{{.+}}[%c0{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x32x16xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[PB:.+]] = memref.view %{{.+}}[%c6144{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x16x32xf32, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_copy %arg0[{{.+}}], %[[PA]][{{.+}}], 4, %{{.+}} {bypassL1} : memref<?x32xf32> to memref<3x32x16xf32, #gpu.address_space<workgroup>>
// CHECK:         scf.for
// CHECK-NEXT:      nvgpu.device_async_wait %{{.+}} {numGroups = 1 : i32}
// CHECK-NOT:       nvgpu.ldmatrix
// CHECK-NOT:       nvvm.mma.sync
// CHECK:           memref.load %[[PA]][{{.+}}] : memref<3x32x16xf32, #gpu.address_space<workgroup>>
// CHECK:           memref.load %[[PB]][{{.+}}] : memref<3x16x32xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-256: vector.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<2xf32>
// CHECK-NOT:       vector.fma
// CHECK-NOT:       nvvm.mma.sync
// CHECK:           scf.yield
// CHECK:         math.exp %{{.+}} : vector<2xf32>
// CHECK:         scf.if
// CHECK-NEXT:      vector.store %{{.+}}, %arg2[{{.+}}] {alignment = 8 : i64} : memref<?x32xf32>, vector<2xf32>
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         gpu.return
func.func @f32(%x: memref<?x32xf32>, %w: memref<32x32xf32>, %y: memref<?x32xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 32, 32>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 3 : i64, group_m = 8 : i64, grid = 1 : i64, threads = 32 : i64, shared_bytes = 12288 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x32xf32>, memref<32x32xf32> -> tensor<32xf32>
  %e = math.exp %p : tensor<32xf32>
  tile.store %e, %y[%r] : tensor<32xf32> -> memref<?x32xf32>
  return
}

// -----

// N = 33 (odd): B rows [K, N] are not 16-byte aligned (masked loads), and the
// epilogue stores each element of a pair on its own, each masked by its own
// column; the per-row scale is one scalar load per row (reused across the
// column pairs), broadcast to the pair.
// CHECK-LABEL: gpu.func @odd_n
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x32xbf16>, %[[W:[^:]+]]: memref<32x33xbf16>, %[[S:[^:]+]]: memref<?x1xf32>, %[[Y:[^:]+]]: memref<?x33xf32>)
// CHECK-NOT:     nvgpu.device_async_copy %[[W]]
// CHECK:         nvgpu.device_async_copy %[[X]]
// CHECK-NOT:     nvgpu.device_async_copy %[[W]]
// CHECK:         memref.load %[[W]]
// CHECK-NOT:     nvgpu.device_async_copy %[[W]]
// CHECK:         scf.yield
// CHECK:         %[[PAIR:.+]] = vector.shuffle
// The loads of the epilogue go before its row programs: the scale of the
// first row, then (no store in between) its use.
// CHECK:         %[[SV:.+]] = memref.load %[[S]][%{{.+}}, %{{.+}}] : memref<?x1xf32>
// CHECK-NOT:     memref.store
// CHECK:         %[[SB:.+]] = vector.broadcast %[[SV]] : f32 to vector<2xf32>
// CHECK-NEXT:    %[[M:.+]] = arith.mulf %[[PAIR]], %[[SB]] : vector<2xf32>
// CHECK:         scf.if %{{.+}} {
// CHECK-NEXT:      %[[E0:.+]] = vector.extract %[[M]][0] : f32 from vector<2xf32>
// CHECK-NEXT:      memref.store %[[E0]], %[[Y]][%[[ROW:.+]], %[[COL:.+]]] : memref<?x33xf32>
// CHECK-NEXT:    }
// CHECK:         %[[COL1:.+]] = arith.addi %[[COL]], %{{.+}} : index
// CHECK-NEXT:    %[[C33:.+]] = arith.constant 33 : index
// CHECK-NEXT:    %[[OK1:.+]] = arith.cmpi ult, %[[COL1]], %[[C33]] : index
// CHECK-NEXT:    %{{.+}} = arith.andi %{{.+}}, %[[OK1]] : i1
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      %[[E1:.+]] = vector.extract %[[M]][1] : f32 from vector<2xf32>
// CHECK:           memref.store %[[E1]], %[[Y]][%[[ROW]], %{{.+}}] : memref<?x33xf32>
// Next column pair, same row: the scale is reused.
// CHECK:         vector.broadcast %[[SV]] : f32 to vector<2xf32>
// CHECK-NOT:     vector.store
// CHECK:         gpu.return
func.func @odd_n(%x: memref<?x32xbf16>, %w: memref<32x33xbf16>, %s: memref<?x1xf32>, %y: memref<?x33xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 16, 33>, tile.schedule = {block_m = 16 : i64, block_n = 16 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 3 : i64, threads = 32 : i64, shared_bytes = 2048 : i64}} {
  %r = tile.row_id
  %sv = tile.load %s[%r] : memref<?x1xf32> -> f32
  %p = tile.matmul %x, %w[%r] : memref<?x32xbf16>, memref<32x33xbf16> -> tensor<33xf32>
  %st = tile.splat %sv : f32 -> tensor<33xf32>
  %m = arith.mulf %p, %st : tensor<33xf32>
  tile.store %m, %y[%r] : tensor<33xf32> -> memref<?x33xf32>
  return
}

// -----

// block_k 48: A panel rows of 48 bf16 are 6 16-byte chunks, not a power of
// two, so XOR-ing the chunk index with the row bits could leave the row:
// the A panel is not swizzled (copies and ldmatrix use the chunk as is).
// The B panel [48 k][32 n] has 4 chunks a row and stays swizzled.
// CHECK-LABEL: gpu.func @chunks_not_pow2
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x96xbf16>, %[[W:[^:]+]]: memref<96x64xbf16>, %{{[^:]+}}: memref<?x64xf32>) kernel
// CHECK:         %[[PA:.+]] = memref.view %{{.+}}[%c0{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x32x48xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[PB:.+]] = memref.view %{{.+}}[%c6144{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x48x32xbf16, #gpu.address_space<workgroup>>
// CHECK-NOT:     arith.xori
// CHECK:         %[[CH:.+]] = arith.remui %{{.+}}, %c6{{(_[0-9]+)?}} : index
// CHECK-NOT:     arith.xori
// CHECK:         arith.muli %[[CH]]
// CHECK-NOT:     arith.xori
// CHECK:         %[[DST:.+]] = arith.muli %[[CH]], %{{.+}} : index
// CHECK-NOT:     arith.xori
// CHECK:         nvgpu.device_async_copy %[[X]][{{.+}}], %[[PA]][%{{.+}}, %{{.+}}, %[[DST]]]
// CHECK-NOT:     arith.xori
// CHECK-COUNT-5: nvgpu.device_async_copy %[[X]]
// CHECK-NOT:     nvgpu.device_async_copy %[[X]]
// CHECK:         %[[BCH:.+]] = arith.xori
// CHECK:         %[[BDST:.+]] = arith.muli %[[BCH]], %{{.+}} : index
// CHECK:         nvgpu.device_async_copy %[[W]][{{.+}}], %[[PB]][%{{.+}}, %{{.+}}, %[[BDST]]]
// CHECK:         scf.for
// CHECK:           nvgpu.device_async_create_group
// CHECK-NOT:       arith.xori
// CHECK-COUNT-2:   nvgpu.ldmatrix %[[PA]]
// CHECK:           arith.xori
// CHECK:           nvgpu.ldmatrix %[[PB]]
func.func @chunks_not_pow2(%x: memref<?x96xbf16>, %w: memref<96x64xbf16>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 32, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 48 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 2 : i64, threads = 32 : i64, shared_bytes = 12288 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x96xbf16>, memref<96x64xbf16> -> tensor<64xf32>
  tile.store %p, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// SwiGLU: two products of one lhs (x @ wg, x @ wu, both [N, K]). The A panel
// is loaded once; each product gets its own B panel, at consecutive offsets
// of the dynamic shared memory (3 stages: A at 0, the gate's B at
// 3 * 32 * 16 * 2 = 3072, the up projection's at 6144), and its own mi * ni
// = 8 accumulators: the gate's are loop results 0-7, the up projection's
// 8-15. The epilogue reads both products' pairs.
// CHECK-LABEL: gpu.func @swiglu
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x64xbf16>, %[[WG:[^:]+]]: memref<64x64xbf16>, %[[WU:[^:]+]]: memref<64x64xbf16>, %[[Y:[^:]+]]: memref<?x64xbf16>) kernel
// CHECK:         %[[PA:.+]] = memref.view %{{.+}}[%c0{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[PG:.+]] = memref.view %{{.+}}[%c3072{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[PU:.+]] = memref.view %{{.+}}[%c6144{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x32x16xbf16, #gpu.address_space<workgroup>>
// Prologue: 2 k-steps, each 2 copies into every panel.
// CHECK-COUNT-2: nvgpu.device_async_copy %[[X]][{{.+}}], %[[PA]][{{.+}}], 8, %{{.+}} {bypassL1}
// CHECK-COUNT-2: nvgpu.device_async_copy %[[WG]][{{.+}}], %[[PG]][{{.+}}], 8, %{{.+}} {bypassL1}
// CHECK-COUNT-2: nvgpu.device_async_copy %[[WU]][{{.+}}], %[[PU]][{{.+}}], 8, %{{.+}} {bypassL1}
// CHECK-NEXT:    nvgpu.device_async_create_group
// CHECK-COUNT-6: nvgpu.device_async_copy
// CHECK-NEXT:    nvgpu.device_async_create_group
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         %[[ACC:.+]]:17 = scf.for %{{.+}} iter_args(%[[G0:arg[0-9]+]] = %{{[^,]+}}, {{(([^,]+, ){7})}}%[[U0:arg[0-9]+]] = %{{[^,]+}}, {{.+}}) -> ({{((vector<4xf32>, ){16})}}!nvgpu.device.async.token) {
// CHECK:           scf.if
// CHECK-COUNT-2:     nvgpu.device_async_copy %[[X]][{{.+}}], %[[PA]]
// CHECK-COUNT-2:     nvgpu.device_async_copy %[[WG]][{{.+}}], %[[PG]]
// CHECK-COUNT-2:     nvgpu.device_async_copy %[[WU]][{{.+}}], %[[PU]][{{.+}}], 8, %{{.+}} {bypassL1}
// CHECK-NEXT:      }
// The gate: its B fragments from its panel, the first mma into accumulator 0.
// CHECK-COUNT-2:   nvgpu.ldmatrix %[[PA]]
// CHECK:           %[[FG:.+]] = nvgpu.ldmatrix %[[PG]][{{.+}}] {numTiles = 4 : i32, transpose = false}
// CHECK-NEXT:      %[[EG:.+]] = vector.extract %[[FG]][0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK-NEXT:      %[[IG:.+]] = vector.bitcast %[[EG]] : vector<2xbf16> to vector<1xi32>
// CHECK-NEXT:      %[[BG:.+]] = vector.extract %[[IG]][0] : i32 from vector<1xi32>
// CHECK:           nvgpu.ldmatrix %[[PG]]
// CHECK-NOT:       nvgpu.ldmatrix
// CHECK:           %[[CG:.+]] = vector.extract %[[G0]][0] : f32 from vector<4xf32>
// CHECK:           nvvm.mma.sync A[{{.+}}]  B[%[[BG]], %{{.+}}]  C[%[[CG]], %{{.+}}, %{{.+}}, %{{.+}}]
// CHECK-COUNT-7:   nvvm.mma.sync
// CHECK-NOT:       nvvm.mma.sync
// The up projection: A again (the same panel), B from its own panel, the first
// mma into accumulator 8.
// CHECK-COUNT-2:   nvgpu.ldmatrix %[[PA]]
// CHECK:           %[[FU:.+]] = nvgpu.ldmatrix %[[PU]][{{.+}}] {numTiles = 4 : i32, transpose = false}
// CHECK-NEXT:      %[[EU:.+]] = vector.extract %[[FU]][0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK-NEXT:      %[[IU:.+]] = vector.bitcast %[[EU]] : vector<2xbf16> to vector<1xi32>
// CHECK-NEXT:      %[[BU:.+]] = vector.extract %[[IU]][0] : i32 from vector<1xi32>
// CHECK:           nvgpu.ldmatrix %[[PU]]
// CHECK-NOT:       nvgpu.ldmatrix
// CHECK:           %[[CU:.+]] = vector.extract %[[U0]][0] : f32 from vector<4xf32>
// CHECK:           nvvm.mma.sync A[{{.+}}]  B[%[[BU]], %{{.+}}]  C[%[[CU]], %{{.+}}, %{{.+}}, %{{.+}}]
// CHECK-COUNT-7:   nvvm.mma.sync
// CHECK-NOT:       nvvm.mma.sync
// CHECK:           scf.yield
// CHECK-NEXT:    }
// First pair: silu-like exp(-g) * u on accumulators 0 (gate) and 8 (up).
// The pairs of all fragments come first: the next pair of the same row is
// accumulators 1 and 9. Then the row programs: 16 pairs, 16 stores.
// CHECK:         %[[GP:.+]] = vector.shuffle %[[ACC]]#0, %[[ACC]]#0 [0, 1] : vector<4xf32>, vector<4xf32>
// CHECK-NEXT:    %[[UP:.+]] = vector.shuffle %[[ACC]]#8, %[[ACC]]#8 [0, 1] : vector<4xf32>, vector<4xf32>
// CHECK:         vector.shuffle %[[ACC]]#1, %[[ACC]]#1 [0, 1]
// CHECK-NEXT:    vector.shuffle %[[ACC]]#9, %[[ACC]]#9 [0, 1]
// CHECK-NOT:     vector.store
// CHECK:         %[[N:.+]] = arith.negf %[[GP]] : vector<2xf32>
// CHECK-NEXT:    %[[E:.+]] = math.exp %[[N]] : vector<2xf32>
// CHECK-NEXT:    %[[M:.+]] = arith.mulf %[[E]], %[[UP]] : vector<2xf32>
// CHECK-NEXT:    %[[T:.+]] = arith.truncf %[[M]] : vector<2xf32> to vector<2xbf16>
// CHECK:         scf.if
// CHECK-NEXT:      vector.store %[[T]], %[[Y]][{{.+}}] {alignment = 4 : i64} : memref<?x64xbf16>, vector<2xbf16>
// CHECK-COUNT-15: vector.store %{{.+}}, %[[Y]]
// CHECK-NOT:     vector.store
// CHECK:         gpu.return
func.func @swiglu(%x: memref<?x64xbf16>, %wg: memref<64x64xbf16>, %wu: memref<64x64xbf16>, %y: memref<?x64xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 40, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 3 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 9216 : i64}} {
  %r = tile.row_id
  %g = tile.matmul %x, %wg[%r] {transpose_b = true} : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  %u = tile.matmul %x, %wu[%r] {transpose_b = true} : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  %n = arith.negf %g : tensor<64xf32>
  %e = math.exp %n : tensor<64xf32>
  %m = arith.mulf %e, %u : tensor<64xf32>
  %t = arith.truncf %m : tensor<64xf32> to tensor<64xbf16>
  tile.store %t, %y[%r] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// A batched rhs [2, N, K] (transpose_b), 2 batches of 40 rows: batches are
// runs of blocks_m * blocks_n = 2 * 2 = 4 CTAs. The batch is
// block_id / 4, its first row batch * 40, and the grouped order runs over
// block_id % 4. A rows are clamped to the batch's last row (39) and then
// offset by its first; B copies index the 3-D rhs at the batch first. The
// epilogue masks the row within the batch (< 40) and stores at the row
// offset by the batch's first.
// CHECK-LABEL: gpu.func @batched(
// CHECK-SAME:    %[[X:[^:]+]]: memref<?x64xbf16>, %[[W:[^:]+]]: memref<2x64x64xbf16>, %[[Y:[^:]+]]: memref<?x64xbf16>) kernel
// CHECK-SAME:    tile.domain = array<i64: 2, 40, 64>
// CHECK:         %[[BID:.+]] = gpu.block_id x
// CHECK:         %[[C4:.+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[BATCH:.+]] = arith.divui %[[BID]], %[[C4]] : index
// CHECK-NEXT:    %[[C40:.+]] = arith.constant 40 : index
// CHECK-NEXT:    %[[ROW0:.+]] = arith.muli %[[BATCH]], %[[C40]] : index
// CHECK-NEXT:    %[[C4B:.+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[PID:.+]] = arith.remui %[[BID]], %[[C4B]] : index
// Group of 8 block rows: 8 * 2 = 16 CTAs (more than a batch has).
// CHECK-NEXT:    %[[C16:.+]] = arith.constant 16 : index
// CHECK-NEXT:    arith.divui %[[PID]], %[[C16]] : index
// CHECK:         %[[PA:.+]] = memref.view %{{.+}}[%c0{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[PB:.+]] = memref.view %{{.+}}[%c2048{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[C39:.+]] = arith.constant 39 : index
// CHECK-NEXT:    %[[RA:.+]] = arith.minui %{{.+}}, %[[C39]] : index
// CHECK-NEXT:    %[[SA:.+]] = arith.addi %[[RA]], %[[ROW0]] : index
// CHECK:         nvgpu.device_async_copy %[[X]][%[[SA]], %{{[^],]+}}], %[[PA]][{{.+}}], 8, %{{.+}} {bypassL1} : memref<?x64xbf16> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_copy %[[X]][{{.+}}], %[[PA]]
// CHECK-COUNT-2: nvgpu.device_async_copy %[[W]][%[[BATCH]], %{{[^],]+}}, %{{[^],]+}}], %[[PB]][{{.+}}], 8, %{{.+}} {bypassL1} : memref<2x64x64xbf16> to memref<2x32x16xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    nvgpu.device_async_create_group
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK-COUNT-2:     nvgpu.device_async_copy %[[W]][%[[BATCH]], %{{[^],]+}}, %{{[^],]+}}], %[[PB]]
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK:         vector.shuffle
// CHECK:         %[[C40E:.+]] = arith.constant 40 : index
// CHECK-NEXT:    %[[ROWOK:.+]] = arith.cmpi ult, %[[ER:.+]], %[[C40E]] : index
// CHECK-NEXT:    %[[C39E:.+]] = arith.constant 39 : index
// CHECK-NEXT:    %[[LR:.+]] = arith.minui %[[ER]], %[[C39E]] : index
// CHECK-NEXT:    arith.addi %[[LR]], %[[ROW0]] : index
// CHECK-NEXT:    arith.addi %[[ER]], %[[ROW0]] : index
// (The row program recomputes that row for its store: the epilogue's loads
// went first.)
// CHECK:         scf.if
// CHECK-NEXT:      vector.store %{{.+}}, %[[Y]][%{{.+}}, %{{.+}}] {alignment = 4 : i64} : memref<?x64xbf16>, vector<2xbf16>
// CHECK:         gpu.return
func.func @batched(%x: memref<?x64xbf16>, %w: memref<2x64x64xbf16>, %y: memref<?x64xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 2, 40, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 8 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x64xbf16>, memref<2x64x64xbf16> -> tensor<64xf32>
  %t = arith.truncf %p : tensor<64xf32> to tensor<64xbf16>
  tile.store %t, %y[%r] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// A batched rhs [2, K, N] whose rows are of an odd number of elements (K =
// 35, N = 21): masked element loads, the rhs's at the batch first. One column block:
// a batch is 2 CTAs.
// CHECK-LABEL: gpu.func @batched_masked
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x35xbf16>, %[[W:[^:]+]]: memref<2x35x21xbf16>, %[[Y:[^:]+]]: memref<?x21xf32>) kernel
// CHECK:         %[[BID:.+]] = gpu.block_id x
// CHECK:         %[[C2:.+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[BATCH:.+]] = arith.divui %[[BID]], %[[C2]] : index
// CHECK-NEXT:    %[[C40:.+]] = arith.constant 40 : index
// CHECK-NEXT:    arith.muli %[[BATCH]], %[[C40]] : index
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         memref.load %[[X]][%{{[^],]+}}, %{{[^],]+}}] : memref<?x35xbf16>
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         memref.load %[[W]][%[[BATCH]], %{{[^],]+}}, %{{[^],]+}}] : memref<2x35x21xbf16>
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         gpu.return
func.func @batched_masked(%x: memref<?x35xbf16>, %w: memref<2x35x21xbf16>, %y: memref<?x21xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 2, 40, 21>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x35xbf16>, memref<2x35x21xbf16> -> tensor<21xf32>
  tile.store %p, %y[%r] : tensor<21xf32> -> memref<?x21xf32>
  return
}

// -----

// The host function and row kernels are left alone; GEMM kernels join an
// existing gpu.module @tilec_kernels.
// CHECK-LABEL: func.func @row_kernel(
// CHECK-SAME:    tile.kernel
// CHECK-LABEL: func.func @host(
// CHECK-NEXT:    %[[G:.+]] = tile.launch @gemm(%{{.+}}, %{{.+}})
// CHECK-NEXT:    %[[R:.+]] = tile.launch @row_kernel(%[[G]])
// CHECK-NEXT:    return %[[R]]
// CHECK:       gpu.module @tilec_kernels {
// CHECK-NEXT:    gpu.func @existing() kernel {
// CHECK-NEXT:      gpu.return
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.func @gemm(
// CHECK-NOT:   gpu.module
// CHECK-NOT:   func.func @gemm
func.func @gemm(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  tile.store %p, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}
func.func @row_kernel(%in: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 64, 64>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x64xf32> -> tensor<64xf32>
  %e = math.exp %t : tensor<64xf32>
  tile.store %e, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}
func.func @host(%x: tensor<64x64xbf16>, %w: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %0 = tile.launch @gemm(%x, %w) : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  %1 = tile.launch @row_kernel(%0) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}
gpu.module @tilec_kernels {
  gpu.func @existing() kernel {
    gpu.return
  }
}

// -----

// Without GEMM kernels the module is unchanged.
// CHECK-LABEL: module {
// CHECK-NEXT:    func.func @only_rows(
// CHECK-NOT:   gpu.
func.func @only_rows(%in: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 64, 64>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x64xf32> -> tensor<64xf32>
  tile.store %t, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}
