// RUN: tilec-opt --split-input-file --tilec-distribute-gemm-tiles %s | FileCheck %s

// A flash-attention kernel (tile.attention): q rows and stages of k and v
// blocks copied by cp.async, a loop over the key blocks carrying the
// output accumulators (16 rows x 32 columns a warp: 4 n8 tiles), each
// row's running max and sum (two row halves a thread); in it S = q k^T by
// mma.sync (64 keys: 8 n8 tiles, 4 k16 steps of the head dim 64), the
// scores' epilogue on pairs (scale, mask row loads), the max over a quad
// (two xor shuffles), exps, and P v by mma.sync (4 k16 steps of keys, v's
// fragments by ldmatrix.trans); after the loop the sums over the quad and
// the output's epilogue (O / l rounded and stored).
// CHECK-LABEL: gpu.func @attention_kernel0
//  CHECK-SAME:   known_block_size = array<i32: 96, 1, 1>
//       CHECK:   nvgpu.device_async_copy
//       CHECK:   %[[LOOP:.+]]:9 = scf.for {{.*}} iter_args
//       CHECK:     nvgpu.device_async_wait
//       CHECK:     gpu.barrier
//  CHECK-COUNT-32:     nvvm.mma.sync
//       CHECK:     vector.load
//       CHECK:     arith.select
//       CHECK:     gpu.shuffle  xor
//       CHECK:     gpu.shuffle  xor
//       CHECK:     math.exp
//       CHECK:     nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
//  CHECK-COUNT-16:     nvvm.mma.sync
//       CHECK:     scf.yield
//       CHECK:   gpu.shuffle  xor
//       CHECK:   arith.divf
//       CHECK:   arith.truncf {{.*}} : vector<2xf32> to vector<2xbf16>
//       CHECK:   vector.store
//       CHECK:   gpu.return
module {
  func.func @attention_kernel0(%arg0: memref<?x64xbf16>, %arg1: memref<2x72x64xbf16>, %arg2: memref<?x72xf32>, %arg3: memref<2x72x32xbf16>, %arg4: memref<?x32xbf16>) attributes {tile.attention, tile.domain = array<i64: 2, 40, 32>, tile.gemm, tile.kernel, tile.max_registers = 255 : i64, tile.schedule = {attention = 1 : i64, block_m = 48 : i64, block_n = 64 : i64, grid = 2 : i64, group_m = 1 : i64, shared_bytes = 30720 : i64, stages = 2 : i64, threads = 96 : i64, warps_m = 3 : i64}} {
    %c40 = arith.constant 40 : index
    %cst = arith.constant 1.250000e-01 : f32
    %0 = tile.row_id
    %1 = tile.matmul %arg0, %arg1[%0] {transpose_b = true} : memref<?x64xbf16>, memref<2x72x64xbf16> -> tensor<72xf32>
    %2 = tile.splat %cst : f32 -> tensor<72xf32>
    %3 = arith.mulf %1, %2 : tensor<72xf32>
    %4 = arith.remui %0, %c40 : index
    %5 = tile.load %arg2[%4] : memref<?x72xf32> -> tensor<72xf32>
    %6 = arith.addf %3, %5 : tensor<72xf32>
    %7 = tile.reduce_max %6 : tensor<72xf32> -> f32
    %8 = tile.splat %7 : f32 -> tensor<72xf32>
    %9 = arith.subf %6, %8 : tensor<72xf32>
    %10 = math.exp %9 : tensor<72xf32>
    %11 = tile.reduce_sum %10 : tensor<72xf32> -> f32
    %12 = tile.splat %11 : f32 -> tensor<72xf32>
    %13 = arith.divf %10, %12 : tensor<72xf32>
    %14 = arith.truncf %13 : tensor<72xf32> to tensor<72xbf16>
    %15 = tile.row_matmul %14, %arg3[%0] : tensor<72xbf16>, memref<2x72x32xbf16> -> tensor<32xf32>
    %16 = arith.truncf %15 : tensor<32xf32> to tensor<32xbf16>
    tile.store %16, %arg4[%0] : tensor<32xbf16> -> memref<?x32xbf16>
    return
  }
}


// -----

// The keys split two ways (split_k, flash decoding): a workspace pointer
// after the buffers; each split's CTA walks its own key blocks, stores its
// partials (4 output n8 tiles and the max and sum: 5 x 2 halves), fences,
// counts itself in and learns from lane 0 whether it came last; the last
// fences (acquire), loads every split's maxima, weighs each split's sums and
// outputs by exp(max_split - max), and runs the output's epilogue.
// CHECK-LABEL: gpu.func @attention_split
//  CHECK-SAME:   %{{.+}}: !llvm.ptr<1>
//       CHECK:   scf.for
//       CHECK:   scf.yield
//  CHECK-COUNT-10:   llvm.store {{.*}} : vector<2xf32>, !llvm.ptr<1>
//       CHECK:   llvm.fence syncscope("device") release
//       CHECK:   llvm.atomicrmw add
//       CHECK:   gpu.shuffle  idx
//       CHECK:   scf.if
//       CHECK:     llvm.fence syncscope("device") acquire
//       CHECK:     llvm.load {{.*}} -> vector<2xf32>
//       CHECK:     arith.maximumf
//       CHECK:     math.exp
//       CHECK:     arith.divf
//       CHECK:     vector.store
func.func @attention_split(%arg0: memref<?x64xbf16>, %arg1: memref<2x72x64xbf16>, %arg2: memref<?x72xf32>, %arg3: memref<2x72x32xbf16>, %arg4: memref<?x32xbf16>) attributes {tile.attention, tile.domain = array<i64: 2, 40, 32>, tile.gemm, tile.kernel, tile.max_registers = 255 : i64, tile.schedule = {attention = 1 : i64, block_m = 48 : i64, block_n = 64 : i64, grid = 4 : i64, group_m = 1 : i64, shared_bytes = 30720 : i64, split_k = 2 : i64, stages = 2 : i64, threads = 96 : i64, warps_m = 3 : i64, workspace_bytes = 30976 : i64}} {
  %c40 = arith.constant 40 : index
  %cst = arith.constant 1.250000e-01 : f32
  %0 = tile.row_id
  %1 = tile.matmul %arg0, %arg1[%0] {transpose_b = true} : memref<?x64xbf16>, memref<2x72x64xbf16> -> tensor<72xf32>
  %2 = tile.splat %cst : f32 -> tensor<72xf32>
  %3 = arith.mulf %1, %2 : tensor<72xf32>
  %4 = arith.remui %0, %c40 : index
  %5 = tile.load %arg2[%4] : memref<?x72xf32> -> tensor<72xf32>
  %6 = arith.addf %3, %5 : tensor<72xf32>
  %7 = tile.reduce_max %6 : tensor<72xf32> -> f32
  %8 = tile.splat %7 : f32 -> tensor<72xf32>
  %9 = arith.subf %6, %8 : tensor<72xf32>
  %10 = math.exp %9 : tensor<72xf32>
  %11 = tile.reduce_sum %10 : tensor<72xf32> -> f32
  %12 = tile.splat %11 : f32 -> tensor<72xf32>
  %13 = arith.divf %10, %12 : tensor<72xf32>
  %14 = arith.truncf %13 : tensor<72xf32> to tensor<72xbf16>
  %15 = tile.row_matmul %14, %arg3[%0] : tensor<72xbf16>, memref<2x72x32xbf16> -> tensor<32xf32>
  %16 = arith.truncf %15 : tensor<32xf32> to tensor<32xbf16>
  tile.store %16, %arg4[%0] : tensor<32xbf16> -> memref<?x32xbf16>
  return
}

// -----

// Split keys at decode (4 query rows a batch, 48 a CTA): only rows of the
// batch hand over partials. A warp's second row half (rows 8-15 of its 16)
// holds none, so its stores are not emitted; the first half's are guarded
// by whether the warp's first row is one of the batch's (warp 0 only), the
// split's max and sum stored by all; the last split's combine runs in the
// warps the same guard lets in.
// CHECK-LABEL: gpu.func @attention_split_decode
//       CHECK:   scf.for
//       CHECK:   scf.yield
//       CHECK:   scf.if %[[LIVE:.+]] {
//  CHECK-COUNT-4:     llvm.store {{.*}} : vector<2xf32>, !llvm.ptr<1>
//  CHECK-NEXT:   }
//  CHECK-COUNT-2:   llvm.store {{.*}} : vector<2xf32>, !llvm.ptr<1>
//  CHECK-NEXT:   llvm.fence syncscope("device") release
//       CHECK:   llvm.atomicrmw add
//       CHECK:   llvm.fence syncscope("device") acquire
//  CHECK-NEXT:   scf.if %[[LIVE]] {
//       CHECK:     llvm.load {{.*}} -> vector<2xf32>
//       CHECK:     vector.store
func.func @attention_split_decode(%arg0: memref<?x64xbf16>, %arg1: memref<2x72x64xbf16>, %arg2: memref<?x72xf32>, %arg3: memref<2x72x32xbf16>, %arg4: memref<?x32xbf16>) attributes {tile.attention, tile.domain = array<i64: 2, 4, 32>, tile.gemm, tile.kernel, tile.max_registers = 255 : i64, tile.schedule = {attention = 1 : i64, block_m = 48 : i64, block_n = 64 : i64, grid = 4 : i64, group_m = 1 : i64, shared_bytes = 30720 : i64, split_k = 2 : i64, stages = 2 : i64, threads = 96 : i64, warps_m = 3 : i64, workspace_bytes = 30976 : i64}} {
  %c4 = arith.constant 4 : index
  %cst = arith.constant 1.250000e-01 : f32
  %0 = tile.row_id
  %1 = tile.matmul %arg0, %arg1[%0] {transpose_b = true} : memref<?x64xbf16>, memref<2x72x64xbf16> -> tensor<72xf32>
  %2 = tile.splat %cst : f32 -> tensor<72xf32>
  %3 = arith.mulf %1, %2 : tensor<72xf32>
  %4 = arith.remui %0, %c4 : index
  %5 = tile.load %arg2[%4] : memref<?x72xf32> -> tensor<72xf32>
  %6 = arith.addf %3, %5 : tensor<72xf32>
  %7 = tile.reduce_max %6 : tensor<72xf32> -> f32
  %8 = tile.splat %7 : f32 -> tensor<72xf32>
  %9 = arith.subf %6, %8 : tensor<72xf32>
  %10 = math.exp %9 : tensor<72xf32>
  %11 = tile.reduce_sum %10 : tensor<72xf32> -> f32
  %12 = tile.splat %11 : f32 -> tensor<72xf32>
  %13 = arith.divf %10, %12 : tensor<72xf32>
  %14 = arith.truncf %13 : tensor<72xf32> to tensor<72xbf16>
  %15 = tile.row_matmul %14, %arg3[%0] : tensor<72xbf16>, memref<2x72x32xbf16> -> tensor<32xf32>
  %16 = arith.truncf %15 : tensor<32xf32> to tensor<32xbf16>
  tile.store %16, %arg4[%0] : tensor<32xbf16> -> memref<?x32xbf16>
  return
}

// -----

// The Hopper flash kernel (wgmma = 1): panels aligned to 1024 bytes; q and
// k in 64-column blocks (K-major), v MN-major; in the loop the copies are
// fenced for the async proxy before the barrier, S = q k^T is one
// m64n64k16 wgmma a k16 step of the head dim (4), the first of them
// ignoring the accumulators; the online softmax as with mma.sync; P stored
// to the warpgroup's tile, fenced, a named barrier of the warpgroup's 128
// threads, then O += P v by m64n64k16 wgmma over the keys (4 k16 steps),
// B MN-major (layout row). No mma.sync anywhere.
// CHECK-LABEL: gpu.func @attention_wgmma
//  CHECK-SAME:   known_block_size = array<i32: 128, 1, 1>
//       CHECK:   memref.extract_aligned_pointer_as_index
//       CHECK:   nvgpu.device_async_copy
//       CHECK:   scf.for
//       CHECK:     nvgpu.device_async_wait
//       CHECK:     nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
//       CHECK:     gpu.barrier
//       CHECK:     nvvm.wgmma.fence.aligned
//       CHECK:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
//  CHECK-COUNT-3:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
//       CHECK:     nvvm.wgmma.commit.group.sync.aligned
//       CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:     gpu.shuffle  xor
//       CHECK:     math.exp
//       CHECK:     vector.store {{.*}} : memref<1x64x64xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
//       CHECK:     nvvm.fence.proxy
//       CHECK:     nvvm.barrier id = {{.*}} number_of_threads = {{.*}}
//  CHECK-COUNT-4:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
//       CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:     scf.yield
//       CHECK:   arith.divf
//   CHECK-NOT:   nvvm.mma.sync
//       CHECK:   gpu.return
func.func @attention_wgmma(%arg0: memref<?x64xbf16>, %arg1: memref<2x72x64xbf16>, %arg2: memref<?x72xf32>, %arg3: memref<2x72x64xbf16>, %arg4: memref<?x64xbf16>) attributes {tile.attention, tile.domain = array<i64: 2, 40, 64>, tile.gemm, tile.kernel, tile.max_registers = 255 : i64, tile.schedule = {attention = 1 : i64, block_m = 64 : i64, block_n = 64 : i64, grid = 2 : i64, group_m = 1 : i64, shared_bytes = 50176 : i64, stages = 2 : i64, threads = 128 : i64, warps_m = 4 : i64, wgmma = 1 : i64}} {
  %c40 = arith.constant 40 : index
  %cst = arith.constant 1.250000e-01 : f32
  %0 = tile.row_id
  %1 = tile.matmul %arg0, %arg1[%0] {transpose_b = true} : memref<?x64xbf16>, memref<2x72x64xbf16> -> tensor<72xf32>
  %2 = tile.splat %cst : f32 -> tensor<72xf32>
  %3 = arith.mulf %1, %2 : tensor<72xf32>
  %4 = arith.remui %0, %c40 : index
  %5 = tile.load %arg2[%4] : memref<?x72xf32> -> tensor<72xf32>
  %6 = arith.addf %3, %5 : tensor<72xf32>
  %7 = tile.reduce_max %6 : tensor<72xf32> -> f32
  %8 = tile.splat %7 : f32 -> tensor<72xf32>
  %9 = arith.subf %6, %8 : tensor<72xf32>
  %10 = math.exp %9 : tensor<72xf32>
  %11 = tile.reduce_sum %10 : tensor<72xf32> -> f32
  %12 = tile.splat %11 : f32 -> tensor<72xf32>
  %13 = arith.divf %10, %12 : tensor<72xf32>
  %14 = arith.truncf %13 : tensor<72xf32> to tensor<72xbf16>
  %15 = tile.row_matmul %14, %arg3[%0] : tensor<72xbf16>, memref<2x72x64xbf16> -> tensor<64xf32>
  %16 = arith.truncf %15 : tensor<64xf32> to tensor<64xbf16>
  tile.store %16, %arg4[%0] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// P from registers (p_regs = 1): no P tile, no store, proxy fence or
// warpgroup barrier after the softmax; the pairs rounded to bf16 and
// packed as i32 (all four k16 steps' fragments) before the wgmma fence,
// then O += P v as four tile.wgmma_rs, B MN-major.
// CHECK-LABEL: gpu.func @attention_p_regs
//       CHECK:   scf.for
//       CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:     math.exp
//   CHECK-NOT:     vector.store
//   CHECK-NOT:     nvvm.barrier
//       CHECK:     vector.bitcast {{.*}} : vector<2xbf16> to vector<1xi32>
//       CHECK:     %[[DESC:.+]] = arith.ori {{.*}} : i64
//       CHECK:     nvvm.wgmma.fence.aligned
//   CHECK-NOT:     vector.bitcast
//       CHECK:     tile.wgmma_rs {{.*}}, %[[DESC]] {b_mn = true, multiplicand = bf16} : !llvm.struct<(f32
// (Each k step's descriptor: the first's plus 16 keys of 128 bytes / 16.)
//       CHECK:     %[[D1:.+]] = arith.addi %[[DESC]], %c128_i64 : i64
//       CHECK:     tile.wgmma_rs {{.*}}, %[[D1]]
//       CHECK:     arith.addi %[[DESC]], %c256_i64 : i64
//       CHECK:     tile.wgmma_rs
//       CHECK:     arith.addi %[[DESC]], %c384_i64 : i64
//       CHECK:     tile.wgmma_rs
//   CHECK-NOT:     nvvm.wgmma.mma_async
//       CHECK:     nvvm.wgmma.commit.group.sync.aligned
//       CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:     scf.yield
func.func @attention_p_regs(%arg0: memref<?x64xbf16>, %arg1: memref<2x72x64xbf16>, %arg2: memref<?x72xf32>, %arg3: memref<2x72x64xbf16>, %arg4: memref<?x64xbf16>) attributes {tile.attention, tile.domain = array<i64: 2, 40, 64>, tile.gemm, tile.kernel, tile.max_registers = 255 : i64, tile.schedule = {attention = 1 : i64, block_m = 64 : i64, block_n = 64 : i64, grid = 2 : i64, group_m = 1 : i64, p_regs = 1 : i64, shared_bytes = 41984 : i64, stages = 2 : i64, threads = 128 : i64, warps_m = 4 : i64, wgmma = 1 : i64}} {
  %c40 = arith.constant 40 : index
  %cst = arith.constant 1.250000e-01 : f32
  %0 = tile.row_id
  %1 = tile.matmul %arg0, %arg1[%0] {transpose_b = true} : memref<?x64xbf16>, memref<2x72x64xbf16> -> tensor<72xf32>
  %2 = tile.splat %cst : f32 -> tensor<72xf32>
  %3 = arith.mulf %1, %2 : tensor<72xf32>
  %4 = arith.remui %0, %c40 : index
  %5 = tile.load %arg2[%4] : memref<?x72xf32> -> tensor<72xf32>
  %6 = arith.addf %3, %5 : tensor<72xf32>
  %7 = tile.reduce_max %6 : tensor<72xf32> -> f32
  %8 = tile.splat %7 : f32 -> tensor<72xf32>
  %9 = arith.subf %6, %8 : tensor<72xf32>
  %10 = math.exp %9 : tensor<72xf32>
  %11 = tile.reduce_sum %10 : tensor<72xf32> -> f32
  %12 = tile.splat %11 : f32 -> tensor<72xf32>
  %13 = arith.divf %10, %12 : tensor<72xf32>
  %14 = arith.truncf %13 : tensor<72xf32> to tensor<72xbf16>
  %15 = tile.row_matmul %14, %arg3[%0] : tensor<72xbf16>, memref<2x72x64xbf16> -> tensor<64xf32>
  %16 = arith.truncf %15 : tensor<64xf32> to tensor<64xbf16>
  tile.store %16, %arg4[%0] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// TMA copies (tma = 1, persistent = 1): three tensor maps after the
// buffers; thread 0 initializes the mbarriers (q's full, full and empty a
// stage, q's empty); CTA c takes tiles c, c + grid, ... (the loops over
// them carry the ring's position at the tile's first block and the count
// of tiles so far). Warpgroup 0 is the producer (setmaxnreg down): its first thread,
// for each tile and each key block of it, waits on the stage's `empty`,
// arms `full` with the block's bytes and copies k's and v's boxes; after
// a tile's first block it waits on q's `empty` and copies q. The consumers
// (setmaxnreg up), for each tile, wait on q's barrier, then in the loop on
// `full` (no cp.async, no CTA barrier); after P v each warp's lane 0
// arrives on `empty`, and after the tile's last block on q's `empty`. The
// blocks' stage and phase go on over the tiles, carried as one i32 word
// (stage * 2 + phase) and advanced without a division.
// CHECK-LABEL: gpu.func @attention_tma
//  CHECK-SAME:   %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr)
//  CHECK-SAME:   known_block_size = array<i32: 256, 1, 1>
//  CHECK-SAME:   tile.tma_params = 3
//   CHECK-NOT:   nvgpu.device_async_copy
//  CHECK-COUNT-6:   nvvm.mbarrier.init
//       CHECK:   nvvm.fence.mbarrier.init
//       CHECK:   gpu.barrier
//       CHECK:   %[[CTA:.+]] = gpu.block_id  x
//       CHECK:   %[[GRID:.+]] = gpu.grid_dim  x
//       CHECK:   scf.if
//       CHECK:     nvvm.setmaxregister  decrease 40
//       CHECK:     scf.for %{{.+}} = %[[CTA]] to %c2{{.*}} step %[[GRID]] iter_args(%[[W0:.+]] = %{{.+}}, %[[T:.+]] = %{{.+}}) -> (i32, index)
//       CHECK:       %[[BLOCKS:.+]] = scf.for %{{.+}} iter_args(%[[W:.+]] = %[[W0]]) -> (i32)
//   CHECK-NOT:         arith.divui
//       CHECK:         %[[SI:.+]] = arith.shrui %[[W]], %c1
//       CHECK:         arith.index_castui %[[SI]]
//       CHECK:         %[[P:.+]] = arith.andi %[[W]], %c1
//       CHECK:         %[[EMPTYP:.+]] = arith.xori %[[P]], %c1
//       CHECK:         nvvm.mbarrier.try_wait.parity %{{.+}}, %[[EMPTYP]]
//       CHECK:         nvvm.mbarrier.arrive.expect_tx
//  CHECK-COUNT-2:         nvvm.cp.async.bulk.tensor.shared.cluster.global
//       CHECK:         scf.if
//       CHECK:           nvvm.mbarrier.try_wait.parity
//       CHECK:           nvvm.mbarrier.arrive.expect_tx
//       CHECK:           nvvm.cp.async.bulk.tensor.shared.cluster.global
//       CHECK:         %[[W2:.+]] = arith.addi %[[W]], %c2
//       CHECK:         %[[WRAP:.+]] = arith.cmpi uge, %[[W2]], %c4
//       CHECK:         %[[PW:.+]] = arith.andi %[[W]], %c1
//       CHECK:         %[[FLIP:.+]] = arith.xori %[[PW]], %c1
//       CHECK:         %[[WN:.+]] = arith.select %[[WRAP]], %[[FLIP]], %[[W2]] : i32
//       CHECK:         scf.yield %[[WN]] : i32
//       CHECK:       %[[T1:.+]] = arith.addi %[[T]], %c1
//       CHECK:       scf.yield %[[BLOCKS]], %[[T1]] : i32, index
//       CHECK:   } else {
//       CHECK:     nvvm.setmaxregister  increase 232
//       CHECK:     scf.for %{{.+}} = %[[CTA]] to %c2{{.*}} step %[[GRID]] iter_args(%[[CW0:.+]] = %{{.+}}, %{{.+}} = %{{.+}}) -> (i32, index)
//       CHECK:       nvvm.mbarrier.try_wait.parity
//       CHECK:       %[[CBLOCKS:.+]]:13 = scf.for {{.*}} %[[CW:[^ ]+]] = %[[CW0]]) -> ({{.*}}, i32)
//       CHECK:         %[[CP:.+]] = arith.andi %[[CW]], %c1
//       CHECK:         nvvm.mbarrier.try_wait.parity %{{.+}}, %[[CP]],
//   CHECK-NOT:         gpu.barrier
//       CHECK:         nvvm.wgmma.mma_async
//       CHECK:         nvvm.barrier id
//       CHECK:         nvvm.wgmma.mma_async
//       CHECK:         nvvm.mbarrier.arrive
//       CHECK:         scf.yield
//       CHECK:       scf.if
//       CHECK:         nvvm.mbarrier.arrive
//       CHECK:       scf.yield %[[CBLOCKS]]#12, %{{.+}} : i32, index
//       CHECK:   gpu.return
func.func @attention_tma(%arg0: memref<?x64xbf16>, %arg1: memref<2x72x64xbf16>, %arg2: memref<?x72xf32>, %arg3: memref<2x72x64xbf16>, %arg4: memref<?x64xbf16>) attributes {tile.attention, tile.domain = array<i64: 2, 40, 64>, tile.gemm, tile.kernel, tile.max_registers = 168 : i64, tile.schedule = {attention = 1 : i64, block_m = 64 : i64, block_n = 64 : i64, grid = 2 : i64, group_m = 1 : i64, persistent = 1 : i64, shared_bytes = 50224 : i64, stages = 2 : i64, threads = 256 : i64, tma = 1 : i64, warps_m = 4 : i64, wgmma = 1 : i64}, tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 80, 64>}, {arg = 1 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 2, 72, 64>}, {arg = 3 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 2, 72, 64>}]} {
  %c40 = arith.constant 40 : index
  %cst = arith.constant 1.250000e-01 : f32
  %0 = tile.row_id
  %1 = tile.matmul %arg0, %arg1[%0] {transpose_b = true} : memref<?x64xbf16>, memref<2x72x64xbf16> -> tensor<72xf32>
  %2 = tile.splat %cst : f32 -> tensor<72xf32>
  %3 = arith.mulf %1, %2 : tensor<72xf32>
  %4 = arith.remui %0, %c40 : index
  %5 = tile.load %arg2[%4] : memref<?x72xf32> -> tensor<72xf32>
  %6 = arith.addf %3, %5 : tensor<72xf32>
  %7 = tile.reduce_max %6 : tensor<72xf32> -> f32
  %8 = tile.splat %7 : f32 -> tensor<72xf32>
  %9 = arith.subf %6, %8 : tensor<72xf32>
  %10 = math.exp %9 : tensor<72xf32>
  %11 = tile.reduce_sum %10 : tensor<72xf32> -> f32
  %12 = tile.splat %11 : f32 -> tensor<72xf32>
  %13 = arith.divf %10, %12 : tensor<72xf32>
  %14 = arith.truncf %13 : tensor<72xf32> to tensor<72xbf16>
  %15 = tile.row_matmul %14, %arg3[%0] : tensor<72xbf16>, memref<2x72x64xbf16> -> tensor<64xf32>
  %16 = arith.truncf %15 : tensor<64xf32> to tensor<64xbf16>
  tile.store %16, %arg4[%0] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// Turns (pingpong = 1, two consumer warpgroups of 64 rows): warpgroup 1
// arrives once at named barrier 3 before the loop over tiles (so 0 goes
// first); in the loop over key blocks each syncs at 3 + its warpgroup
// before issuing S, and after issuing it arrives at the other's (4 -
// warpgroup; warpgroup 1 not after its last block of the CTA's last tile).
// CHECK-LABEL: gpu.func @attention_turns
//  CHECK-SAME:   known_block_size = array<i32: 384, 1, 1>
//       CHECK:   } else {
//       CHECK:     nvvm.setmaxregister  increase 232
//       CHECK:     scf.if
//       CHECK:       nvvm.barrier.arrive id = %{{.+}} number_of_threads = %{{.+}}
//       CHECK:     scf.for %[[T:.+]] = %{{.+}} to %[[END:.+]] step %[[STEP:.+]] iter_args
//       CHECK:       nvvm.mbarrier.try_wait.parity
//       CHECK:       scf.for %[[I:.+]] = %{{.+}} to %[[COUNT:.+]] step
//       CHECK:         nvvm.mbarrier.try_wait.parity
//       CHECK:         nvvm.barrier id = %{{.+}} number_of_threads = %{{.+}}
//       CHECK:         nvvm.wgmma.mma_async
//       CHECK:         nvvm.wgmma.commit.group.sync.aligned
//       CHECK:         %[[I1:.+]] = arith.addi %[[I]], %c1
//       CHECK:         %[[MORE:.+]] = arith.cmpi ult, %[[I1]], %[[COUNT]]
//       CHECK:         %[[WG0:.+]] = arith.cmpi eq, %{{.+}}, %c0
//       CHECK:         %[[EITHER:.+]] = arith.ori %[[WG0]], %[[MORE]]
//       CHECK:         %[[T1:.+]] = arith.addi %[[T]], %[[STEP]]
//       CHECK:         %[[MORETILES:.+]] = arith.cmpi slt, %[[T1]], %[[END]]
//       CHECK:         %[[PASS:.+]] = arith.ori %[[EITHER]], %[[MORETILES]]
//       CHECK:         scf.if %[[PASS]]
//       CHECK:           nvvm.barrier.arrive id = %{{.+}} number_of_threads = %{{.+}}
//       CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:         nvvm.wgmma.mma_async
//       CHECK:         scf.yield
//       CHECK:   gpu.return
func.func @attention_turns(%arg0: memref<?x64xbf16>, %arg1: memref<2x72x64xbf16>, %arg2: memref<?x72xf32>, %arg3: memref<2x72x64xbf16>, %arg4: memref<?x64xbf16>) attributes {tile.attention, tile.domain = array<i64: 2, 40, 64>, tile.gemm, tile.kernel, tile.max_registers = 168 : i64, tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 64 : i64, grid = 2 : i64, group_m = 1 : i64, persistent = 1 : i64, pingpong = 1 : i64, shared_bytes = 90000 : i64, stages = 2 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, wgmma = 1 : i64}, tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 80, 64>}, {arg = 1 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 2, 72, 64>}, {arg = 3 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 2, 72, 64>}]} {
  %c40 = arith.constant 40 : index
  %cst = arith.constant 1.250000e-01 : f32
  %0 = tile.row_id
  %1 = tile.matmul %arg0, %arg1[%0] {transpose_b = true} : memref<?x64xbf16>, memref<2x72x64xbf16> -> tensor<72xf32>
  %2 = tile.splat %cst : f32 -> tensor<72xf32>
  %3 = arith.mulf %1, %2 : tensor<72xf32>
  %4 = arith.remui %0, %c40 : index
  %5 = tile.load %arg2[%4] : memref<?x72xf32> -> tensor<72xf32>
  %6 = arith.addf %3, %5 : tensor<72xf32>
  %7 = tile.reduce_max %6 : tensor<72xf32> -> f32
  %8 = tile.splat %7 : f32 -> tensor<72xf32>
  %9 = arith.subf %6, %8 : tensor<72xf32>
  %10 = math.exp %9 : tensor<72xf32>
  %11 = tile.reduce_sum %10 : tensor<72xf32> -> f32
  %12 = tile.splat %11 : f32 -> tensor<72xf32>
  %13 = arith.divf %10, %12 : tensor<72xf32>
  %14 = arith.truncf %13 : tensor<72xf32> to tensor<72xbf16>
  %15 = tile.row_matmul %14, %arg3[%0] : tensor<72xbf16>, memref<2x72x64xbf16> -> tensor<64xf32>
  %16 = arith.truncf %15 : tensor<64xf32> to tensor<64xbf16>
  tile.store %16, %arg4[%0] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// Overlap (TMA, P from registers, two consumers): in the loop, the block's
// S is issued and committed, then the previous block's P v (none before
// the first: an empty group), then wait_group 1 (S done, P v running)
// before the softmax and wait_group 0 after it, which frees the previous
// block's stage (mbarrier arrive) and lets O be rescaled; the last
// block's P v after the loop. (Not persistent: one tile a CTA, the
// block's; the loops over tiles have one trip, 0 to 1, which the
// canonicalizer folds.)
// CHECK-LABEL: gpu.func @attention_overlap
//   CHECK-NOT:   gpu.grid_dim
//       CHECK:   scf.for %{{.+}} = %c0{{.*}} to %c1{{.*}} step %c1
//   CHECK-NOT:   gpu.grid_dim
//       CHECK:   scf.for
//       CHECK:     nvvm.mbarrier.try_wait.parity
//       CHECK:     nvvm.wgmma.fence.aligned
//  CHECK-COUNT-4:     nvvm.wgmma.mma_async
//       CHECK:     nvvm.wgmma.commit.group.sync.aligned
//       CHECK:     scf.if
//       CHECK:       nvvm.wgmma.fence.aligned
//  CHECK-COUNT-4:       tile.wgmma_rs {{.*}} {b_mn = true, multiplicand = bf16}
//       CHECK:       nvvm.wgmma.commit.group.sync.aligned
//       CHECK:     } else {
//       CHECK:       nvvm.wgmma.commit.group.sync.aligned
//       CHECK:     nvvm.wgmma.wait.group.sync.aligned 1
//       CHECK:     math.exp
//       CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:     nvvm.mbarrier.arrive
//       CHECK:     scf.yield
//       CHECK:   scf.if
//  CHECK-COUNT-4:     tile.wgmma_rs
//       CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:     nvvm.mbarrier.arrive
func.func @attention_overlap(%arg0: memref<?x64xbf16>, %arg1: memref<2x72x64xbf16>, %arg2: memref<?x72xf32>, %arg3: memref<2x72x64xbf16>, %arg4: memref<?x64xbf16>) attributes {tile.attention, tile.domain = array<i64: 2, 40, 64>, tile.gemm, tile.kernel, tile.max_registers = 168 : i64, tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 64 : i64, grid = 2 : i64, group_m = 1 : i64, overlap = 1 : i64, p_regs = 1 : i64, shared_bytes = 90000 : i64, stages = 2 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, wgmma = 1 : i64}, tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 80, 64>}, {arg = 1 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 2, 72, 64>}, {arg = 3 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 2, 72, 64>}]} {
  %c40 = arith.constant 40 : index
  %cst = arith.constant 1.250000e-01 : f32
  %0 = tile.row_id
  %1 = tile.matmul %arg0, %arg1[%0] {transpose_b = true} : memref<?x64xbf16>, memref<2x72x64xbf16> -> tensor<72xf32>
  %2 = tile.splat %cst : f32 -> tensor<72xf32>
  %3 = arith.mulf %1, %2 : tensor<72xf32>
  %4 = arith.remui %0, %c40 : index
  %5 = tile.load %arg2[%4] : memref<?x72xf32> -> tensor<72xf32>
  %6 = arith.addf %3, %5 : tensor<72xf32>
  %7 = tile.reduce_max %6 : tensor<72xf32> -> f32
  %8 = tile.splat %7 : f32 -> tensor<72xf32>
  %9 = arith.subf %6, %8 : tensor<72xf32>
  %10 = math.exp %9 : tensor<72xf32>
  %11 = tile.reduce_sum %10 : tensor<72xf32> -> f32
  %12 = tile.splat %11 : f32 -> tensor<72xf32>
  %13 = arith.divf %10, %12 : tensor<72xf32>
  %14 = arith.truncf %13 : tensor<72xf32> to tensor<72xbf16>
  %15 = tile.row_matmul %14, %arg3[%0] : tensor<72xbf16>, memref<2x72x64xbf16> -> tensor<64xf32>
  %16 = arith.truncf %15 : tensor<64xf32> to tensor<64xbf16>
  tile.store %16, %arg4[%0] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// The scores' scale (q k^T times 0.125, then a causal mask) folded into the
// softmax: no multiplication of the score pairs between the product and
// the max (masked blocks add the mask, unmasked ones take the product as
// is); the max times 0.125 once a row half; each exp one fma by
// 0.125 log2 e (0.180336878) and ex2.
// CHECK-LABEL: gpu.func @attention_folded_scale
//       CHECK:   scf.for
//   CHECK-NOT:     arith.mulf {{.*}} : vector<2xf32>
//       CHECK:     arith.maximumf
//       CHECK:     arith.mulf {{.*}} : f32
//       CHECK:     gpu.shuffle  xor
//       CHECK:     arith.constant dense<0.180336878> : vector<2xf32>
//       CHECK:     math.fma
// (Under afn the exps flush, as the row kernels' softmax: ex2.approx.ftz.)
//       CHECK:     math.exp2 {{.*}} fastmath<afn> {tile.flush_exp} : vector<2xf32>
func.func @attention_folded_scale(%arg0: memref<?x64xbf16>, %arg1: memref<2x72x64xbf16>, %arg3: memref<2x72x32xbf16>, %arg4: memref<?x32xbf16>) attributes {tile.attention, tile.domain = array<i64: 2, 40, 32>, tile.gemm, tile.kernel, tile.max_registers = 255 : i64, tile.schedule = {attention = 1 : i64, block_m = 48 : i64, block_n = 64 : i64, grid = 2 : i64, group_m = 1 : i64, shared_bytes = 30720 : i64, stages = 2 : i64, threads = 96 : i64, warps_m = 3 : i64}} {
  %cst = arith.constant 1.250000e-01 : f32
  %0 = tile.row_id
  %1 = tile.matmul %arg0, %arg1[%0] {transpose_b = true} : memref<?x64xbf16>, memref<2x72x64xbf16> -> tensor<72xf32>
  %2 = tile.splat %cst : f32 -> tensor<72xf32>
  %3 = arith.mulf %2, %1 : tensor<72xf32>
  %4 = tile.causal_mask %0 {offset = 32 : i64, period = 40 : i64} : tensor<72xf32>
  %6 = arith.addf %3, %4 : tensor<72xf32>
  %7 = tile.reduce_max %6 : tensor<72xf32> -> f32
  %8 = tile.splat %7 : f32 -> tensor<72xf32>
  %9 = arith.subf %6, %8 : tensor<72xf32>
  %10 = math.exp %9 fastmath<afn> : tensor<72xf32>
  %11 = tile.reduce_sum %10 : tensor<72xf32> -> f32
  %12 = tile.splat %11 : f32 -> tensor<72xf32>
  %13 = arith.divf %10, %12 : tensor<72xf32>
  %14 = arith.truncf %13 : tensor<72xf32> to tensor<72xbf16>
  %15 = tile.row_matmul %14, %arg3[%0] : tensor<72xbf16>, memref<2x72x32xbf16> -> tensor<32xf32>
  %16 = arith.truncf %15 : tensor<32xf32> to tensor<32xbf16>
  tile.store %16, %arg4[%0] : tensor<32xbf16> -> memref<?x32xbf16>
  return
}

// -----

// unfolded_scale = 1 (attention-fold-scale=0): each pair multiplied by the
// scale before the max, the exps' fma by log2 e; unflushed_exps = 1
// (attention-flush-exps=0): the exps' IEEE form.
// CHECK-LABEL: gpu.func @attention_unfolded_scale
//       CHECK:   scf.for
//       CHECK:     arith.mulf {{.*}} : vector<2xf32>
//       CHECK:     gpu.shuffle  xor
//   CHECK-NOT:     dense<0.180336878>
//       CHECK:     math.exp2 {{.*}} fastmath<afn> : vector<2xf32>
//   CHECK-NOT:     tile.flush_exp
//       CHECK:   gpu.return
func.func @attention_unfolded_scale(%arg0: memref<?x64xbf16>, %arg1: memref<2x72x64xbf16>, %arg3: memref<2x72x32xbf16>, %arg4: memref<?x32xbf16>) attributes {tile.attention, tile.domain = array<i64: 2, 40, 32>, tile.gemm, tile.kernel, tile.max_registers = 255 : i64, tile.schedule = {attention = 1 : i64, block_m = 48 : i64, block_n = 64 : i64, grid = 2 : i64, group_m = 1 : i64, shared_bytes = 30720 : i64, stages = 2 : i64, threads = 96 : i64, unflushed_exps = 1 : i64, unfolded_scale = 1 : i64, warps_m = 3 : i64}} {
  %cst = arith.constant 1.250000e-01 : f32
  %0 = tile.row_id
  %1 = tile.matmul %arg0, %arg1[%0] {transpose_b = true} : memref<?x64xbf16>, memref<2x72x64xbf16> -> tensor<72xf32>
  %2 = tile.splat %cst : f32 -> tensor<72xf32>
  %3 = arith.mulf %2, %1 : tensor<72xf32>
  %4 = tile.causal_mask %0 {offset = 32 : i64, period = 40 : i64} : tensor<72xf32>
  %6 = arith.addf %3, %4 : tensor<72xf32>
  %7 = tile.reduce_max %6 : tensor<72xf32> -> f32
  %8 = tile.splat %7 : f32 -> tensor<72xf32>
  %9 = arith.subf %6, %8 : tensor<72xf32>
  %10 = math.exp %9 fastmath<afn> : tensor<72xf32>
  %11 = tile.reduce_sum %10 : tensor<72xf32> -> f32
  %12 = tile.splat %11 : f32 -> tensor<72xf32>
  %13 = arith.divf %10, %12 : tensor<72xf32>
  %14 = arith.truncf %13 : tensor<72xf32> to tensor<72xbf16>
  %15 = tile.row_matmul %14, %arg3[%0] : tensor<72xbf16>, memref<2x72x32xbf16> -> tensor<32xf32>
  %16 = arith.truncf %15 : tensor<32xf32> to tensor<32xbf16>
  tile.store %16, %arg4[%0] : tensor<32xbf16> -> memref<?x32xbf16>
  return
}
