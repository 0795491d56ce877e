// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels=target=sm_90a --tilec-distribute-gemm-tiles %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-wgmma=0" --tilec-distribute-gemm-tiles %s | FileCheck %s --check-prefix=MMA

// The Hopper path (DistributeGemmTiles.cpp, runWgmma): 16-bit K-major
// operands with more than 64 rows get the wgmma schedule on sm_90a (block
// 128 x 256 x 64, 4 stages; block_n 128 for two products) and become a
// kernel of two warpgroups (256 threads), each owning 64 rows of the CTA tile:
//  * the dynamic shared memory is aligned to 1024 bytes (the 128-byte swizzle
//    atom) by hand: the panels start `pad` = (1024 - base % 1024) % 1024 bytes
//    in, base from memref.extract_aligned_pointer_as_index;
//  * A [4][128][64] at pad, each B [4][block_n][64] after it;
//  * cp.async copies (rows of 8 16-byte chunks, chunk c of row r at c ^ r % 8)
//    run stages - 2 = 2 k-steps ahead: wait for all but 1 group, then a proxy
//    fence (the copies are generic-proxy writes, wgmma reads through the
//    async proxy) and a barrier;
//  * wgmma.fence, 4 wgmma.mma_async m64nNk16 a k-step (block_k 64) per
//    product from shared-memory descriptors (start address >> 4, leading
//    byte offset 1, stride byte offset 1024 >> 4 = 64, 128-byte swizzle:
//    (1 << 16) | (64 << 32) | (1 << 62) = 4611686293305360384), then
//    commit_group and wait_group 1 (the previous step's MMAs are done before
//    its stage is refilled); wait_group 0 after the loop;
//  * the accumulator struct (block_n / 2 f32 a thread) has the mma.sync m16n8
//    layout per n8 tile: the mma.sync epilogue runs on it.
// With gemm-wgmma=0 the same kernels use mma.sync.

// One bf16 product, 128 x 256 x 256: one CTA, 4 k-steps.
// CHECK-LABEL: gpu.func @wgmma
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x256xbf16>, %[[W:[^:]+]]: memref<256x256xbf16>, %[[Y:[^:]+]]: memref<?x256xbf16>) kernel
// CHECK-SAME:    attributes {known_block_size = array<i32: 256, 1, 1>, tile.domain = array<i64: 128, 256>, tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, grid = 1 : i64, group_m = 8 : i64, {{(mma_pending = 1 : i64, )?}}shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}}
// CHECK:         %[[SMEM:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[RAW:.+]] = memref.extract_aligned_pointer_as_index %[[SMEM]] : memref<?xi8, #gpu.address_space<workgroup>> -> index
// CHECK-NEXT:    %[[C1024:.+]] = arith.constant 1024 : index
// CHECK-NEXT:    %[[MOD:.+]] = arith.remui %[[RAW]], %[[C1024]] : index
// CHECK-NEXT:    %[[C1024B:.+]] = arith.constant 1024 : index
// CHECK-NEXT:    %[[SUB:.+]] = arith.subi %[[C1024B]], %[[MOD]] : index
// CHECK-NEXT:    %[[C1024C:.+]] = arith.constant 1024 : index
// CHECK-NEXT:    %[[PAD:.+]] = arith.remui %[[SUB]], %[[C1024C]] : index
// CHECK-NEXT:    %[[PA:.+]] = memref.view %[[SMEM]][%[[PAD]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x64xbf16, #gpu.address_space<workgroup>>
// B at pad + 4 * 128 * 64 * 2 = pad + 65536.
// CHECK-NEXT:    %[[C65536:.+]] = arith.constant 65536 : index
// CHECK-NEXT:    %[[OFFB:.+]] = arith.addi %[[PAD]], %[[C65536]] : index
// CHECK-NEXT:    %[[PB:.+]] = memref.view %[[SMEM]][%[[OFFB]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x256x64xbf16, #gpu.address_space<workgroup>>
// The same offsets as shared addresses, for the descriptors.
// CHECK-NEXT:    %[[BASEA:.+]] = arith.addi %[[RAW]], %[[PAD]] : index
// CHECK-NEXT:    %[[C65536B:.+]] = arith.constant 65536 : index
// CHECK-NEXT:    %[[BASEB:.+]] = arith.addi %[[BASEA]], %[[C65536B]] : index
// Warpgroup tid / 128 reads A rows from 64 * wg on: 64 * 64 * 2 = 8192 bytes.
// CHECK:         %[[C8192:.+]] = arith.constant 8192 : index
// CHECK-NEXT:    %[[WGOFF:.+]] = arith.muli %{{.+}}, %[[C8192]] : index
// CHECK-NEXT:    %[[AWG:.+]] = arith.addi %[[BASEA]], %[[WGOFF]] : index
// Prologue: 2 k-steps of 4 A copies (128 rows x 8 chunks / 256 threads) and 8
// B copies, swizzled.
// CHECK:         arith.xori
// CHECK:         nvgpu.device_async_copy %[[X]][{{.+}}], %[[PA]][{{.+}}], 8, %{{.+}} {bypassL1} : memref<?x256xbf16> to memref<4x128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-3: nvgpu.device_async_copy %[[X]][{{.+}}], %[[PA]]
// CHECK-COUNT-8: nvgpu.device_async_copy %[[W]][{{.+}}], %[[PB]][{{.+}}], 8, %{{.+}} {bypassL1} : memref<256x256xbf16> to memref<4x256x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    nvgpu.device_async_create_group
// CHECK-COUNT-12: nvgpu.device_async_copy
// CHECK-NEXT:    %[[TOK:.+]] = nvgpu.device_async_create_group
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         %[[RES:.+]]:2 = scf.for %[[KT:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}}, %[[CARRIED:.+]] = %[[TOK]]) -> (!llvm.struct<({{((f32, ){127})}}f32)>, !nvgpu.device.async.token) {
// CHECK-NEXT:      nvgpu.device_async_wait %[[CARRIED]] {numGroups = 1 : i32}
// CHECK-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      gpu.barrier
// Refill stage (kt + 2) % 4 when kt + 2 < 4.
// CHECK-NEXT:      %[[C2:.+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[NEXT:.+]] = arith.addi %[[KT]], %[[C2]] : index
// CHECK-NEXT:      %[[C4:.+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[INRANGE:.+]] = arith.cmpi ult, %[[NEXT]], %[[C4]] : index
// CHECK-NEXT:      scf.if %[[INRANGE]] {
// CHECK-COUNT-12:    nvgpu.device_async_copy {{.+}} {bypassL1}
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[NEWTOK:.+]] = nvgpu.device_async_create_group
// CHECK-NEXT:      %[[C4B:.+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[STAGE:.+]] = arith.remui %[[KT]], %[[C4B]] : index
// A stage: 128 * 64 * 2 = 16384 bytes; B stage: 256 * 64 * 2 = 32768.
// CHECK-NEXT:      %[[C16384:.+]] = arith.constant 16384 : index
// CHECK-NEXT:      %[[AOFF:.+]] = arith.muli %[[STAGE]], %[[C16384]] : index
// CHECK-NEXT:      %[[ASTAGE:.+]] = arith.addi %[[AWG]], %[[AOFF]] : index
// CHECK-NEXT:      nvvm.wgmma.fence.aligned
// CHECK-NEXT:      %[[C32768:.+]] = arith.constant 32768 : index
// CHECK-NEXT:      %[[BOFF:.+]] = arith.muli %[[STAGE]], %[[C32768]] : index
// CHECK-NEXT:      %[[BSTAGE:.+]] = arith.addi %[[BASEB]], %[[BOFF]] : index
// CHECK-NEXT:      %[[AI:.+]] = arith.index_cast %[[ASTAGE]] : index to i64
// CHECK-NEXT:      %[[C4I:.+]] = arith.constant 4 : i64
// CHECK-NEXT:      %[[MASK:.+]] = arith.constant 262143 : i64
// CHECK-NEXT:      %[[AM:.+]] = arith.andi %[[AI]], %[[MASK]] : i64
// CHECK-NEXT:      %[[AS:.+]] = arith.shrui %[[AM]], %[[C4I]] : i64
// CHECK-NEXT:      %[[FIXED:.+]] = arith.constant 4611686293305360384 : i64
// CHECK-NEXT:      %[[DA:.+]] = arith.ori %[[AS]], %[[FIXED]] : i64
// CHECK-NEXT:      %[[BI:.+]] = arith.index_cast %[[BSTAGE]] : index to i64
// CHECK:           %[[DB:.+]] = arith.ori %{{.+}}, %{{.+}} : i64
// CHECK-NEXT:      %[[W0:.+]] = nvvm.wgmma.mma_async %[[DA]], %[[DB]], %[[ACC]], <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<({{((f32, ){127})}}f32)> -> !llvm.struct<({{((f32, ){127})}}f32)>
// The next k16 step: both descriptors 32 bytes (16 bf16) further.
// CHECK-NEXT:      %[[C32:.+]] = arith.constant 32 : index
// CHECK-NEXT:      %[[ANEXT:.+]] = arith.addi %[[ASTAGE]], %[[C32]] : index
// CHECK:           %[[C32B:.+]] = arith.constant 32 : index
// CHECK-NEXT:      %[[BNEXT:.+]] = arith.addi %[[BSTAGE]], %[[C32B]] : index
// CHECK:           %[[W1:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[W0]], <m = 64, n = 256, k = 16>
// CHECK:           %[[W2:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[W1]], <m = 64, n = 256, k = 16>
// CHECK:           %[[W3:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[W2]], <m = 64, n = 256, k = 16>
// CHECK-NEXT:      nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT:      scf.yield %[[W3]], %[[NEWTOK]] :
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// Epilogue: elements 4j .. 4j + 3 are n8 tile j; the first pair, rounded to
// bf16, stored 4-byte aligned; 32 tiles * 2 row halves = 64 stores.
// CHECK-NEXT:    %[[E0:.+]] = llvm.extractvalue %[[RES]]#0[0]
// CHECK-NEXT:    %[[E1:.+]] = llvm.extractvalue %[[RES]]#0[1]
// CHECK-NEXT:    %[[E2:.+]] = llvm.extractvalue %[[RES]]#0[2]
// CHECK-NEXT:    %[[E3:.+]] = llvm.extractvalue %[[RES]]#0[3]
// CHECK-NEXT:    %[[V0:.+]] = vector.from_elements %[[E0]], %[[E1]], %[[E2]], %[[E3]] : vector<4xf32>
// CHECK-NEXT:    llvm.extractvalue %[[RES]]#0[4]
// CHECK:         llvm.extractvalue %[[RES]]#0[127]
// CHECK-NOT:     llvm.extractvalue
// CHECK:         %[[PAIR:.+]] = vector.shuffle %[[V0]], %[[V0]] [0, 1] : vector<4xf32>, vector<4xf32>
// CHECK:         %[[T:.+]] = arith.truncf %[[PAIR]] : vector<2xf32> to vector<2xbf16>
// CHECK:         scf.if
// CHECK-NEXT:      vector.store %[[T]], %[[Y]][{{.+}}] {alignment = 4 : i64} : memref<?x256xbf16>, vector<2xbf16>
// CHECK-COUNT-63: vector.store %{{.+}}, %[[Y]][{{.+}}] {alignment = 4 : i64}
// CHECK-NOT:     vector.store
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         gpu.return
// MMA-LABEL: gpu.func @wgmma
// MMA-SAME:    known_block_size = array<i32: 128, 1, 1>
// MMA-NOT:     wgmma
// MMA:         nvgpu.ldmatrix
// MMA:         nvvm.mma.sync
// MMA-NOT:     wgmma
// MMA:         gpu.return
func.func @wgmma(%x: memref<?x256xbf16>, %w: memref<256x256xbf16>, %y: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 256>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x256xbf16>, memref<256x256xbf16> -> tensor<256xf32>
  %t = arith.truncf %p : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %y[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}

// -----

// SwiGLU on wgmma, 200 rows: block_n 128 (m64n128k16, 64 accumulators a
// product), two B panels after A: at pad + 65536 and pad + 131072 (4 * 128 *
// 64 * 2 = 65536 bytes each); one accumulator struct per product, both
// carried by the loop, one wgmma commit group for both.
// CHECK-LABEL: gpu.func @swiglu
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x256xbf16>, %[[WG:[^:]+]]: memref<256x256xbf16>, %[[WU:[^:]+]]: memref<256x256xbf16>, %[[Y:[^:]+]]: memref<?x256xbf16>) kernel
// CHECK-SAME:    tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 4 : i64, group_m = 8 : i64, {{(mma_pending = 1 : i64, )?}}shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
// CHECK:         %[[RAW:.+]] = memref.extract_aligned_pointer_as_index
// CHECK-NEXT:    arith.constant 1024 : index
// CHECK-NEXT:    arith.remui %[[RAW]]
// CHECK-NEXT:    arith.constant 1024 : index
// CHECK-NEXT:    arith.subi
// CHECK-NEXT:    arith.constant 1024 : index
// CHECK-NEXT:    %[[PAD:.+]] = arith.remui
// CHECK-NEXT:    %[[PA:.+]] = memref.view %{{.+}}[%[[PAD]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[C65536:.+]] = arith.constant 65536 : index
// CHECK-NEXT:    %[[OFFG:.+]] = arith.addi %[[PAD]], %[[C65536]] : index
// CHECK-NEXT:    %[[PG:.+]] = memref.view %{{.+}}[%[[OFFG]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[C131072:.+]] = arith.constant 131072 : index
// CHECK-NEXT:    %[[OFFU:.+]] = arith.addi %[[PAD]], %[[C131072]] : index
// CHECK-NEXT:    %[[PU:.+]] = memref.view %{{.+}}[%[[OFFU]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[BASEA:.+]] = arith.addi %[[RAW]], %[[PAD]] : index
// CHECK-NEXT:    arith.constant 65536 : index
// CHECK-NEXT:    %[[BASEG:.+]] = arith.addi %[[BASEA]], %{{.+}} : index
// CHECK-NEXT:    arith.constant 131072 : index
// CHECK-NEXT:    %[[BASEU:.+]] = arith.addi %[[BASEA]], %{{.+}} : index
// Prologue copies: A (4), the gate's B (4), the up projection's B (4).
// CHECK-COUNT-4: nvgpu.device_async_copy %[[X]][{{.+}}], %[[PA]]
// CHECK-COUNT-4: nvgpu.device_async_copy %[[WG]][{{.+}}], %[[PG]]
// CHECK-COUNT-4: nvgpu.device_async_copy %[[WU]][{{.+}}], %[[PU]]
// CHECK-NEXT:    nvgpu.device_async_create_group
// CHECK:         %[[RES:.+]]:3 = scf.for %{{.+}} iter_args(%[[ACCG:.+]] = %[[INIT:[^,]+]], %[[ACCU:.+]] = %[[INIT]], %{{.+}} = %{{.+}}) -> (!llvm.struct<({{((f32, ){63})}}f32)>, !llvm.struct<({{((f32, ){63})}}f32)>, !nvgpu.device.async.token) {
// CHECK:           nvvm.fence.proxy
// CHECK:           scf.if
// CHECK-COUNT-4:     nvgpu.device_async_copy %[[X]][{{.+}}], %[[PA]]
// CHECK-COUNT-4:     nvgpu.device_async_copy %[[WG]][{{.+}}], %[[PG]]
// CHECK-COUNT-4:     nvgpu.device_async_copy %[[WU]][{{.+}}], %[[PU]]
// One fence for both products.
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK-NOT:       nvvm.wgmma.fence.aligned
// The gate: B stage from its panel, 4 MMAs chained from its accumulator.
// CHECK:           %[[GSTAGE:.+]] = arith.addi %[[BASEG]], %{{.+}} : index
// CHECK:           arith.index_cast %[[GSTAGE]] : index to i64
// CHECK:           %[[G0:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[ACCG]], <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK:           %[[G1:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[G0]], <m = 64, n = 128, k = 16>
// CHECK:           %[[G2:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[G1]], <m = 64, n = 128, k = 16>
// CHECK:           %[[G3:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[G2]], <m = 64, n = 128, k = 16>
// The up projection: its own panel and accumulator.
// CHECK-NEXT:      %[[C16384:.+]] = arith.constant 16384 : index
// CHECK-NEXT:      %[[UOFF:.+]] = arith.muli %{{.+}}, %[[C16384]] : index
// CHECK-NEXT:      %[[USTAGE:.+]] = arith.addi %[[BASEU]], %[[UOFF]] : index
// CHECK:           arith.index_cast %[[USTAGE]] : index to i64
// CHECK:           %[[U0:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[ACCU]], <m = 64, n = 128, k = 16>
// CHECK:           %[[U1:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[U0]], <m = 64, n = 128, k = 16>
// CHECK:           %[[U2:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[U1]], <m = 64, n = 128, k = 16>
// CHECK:           %[[U3:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[U2]], <m = 64, n = 128, k = 16>
// CHECK-NEXT:      nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT:      scf.yield %[[G3]], %[[U3]], %{{.+}} :
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// 16 n8 tiles of the gate, then 16 of the up projection.
// CHECK-NEXT:    llvm.extractvalue %[[RES]]#0[0]
// CHECK:         llvm.extractvalue %[[RES]]#0[63]
// CHECK-NEXT:    %[[GV:.+]] = vector.from_elements
// CHECK-NEXT:    llvm.extractvalue %[[RES]]#1[0]
// CHECK:         llvm.extractvalue %[[RES]]#1[63]
// CHECK-NEXT:    %[[UV:.+]] = vector.from_elements
// CHECK-NOT:     llvm.extractvalue
// CHECK:         %[[GP:.+]] = vector.shuffle %{{.+}}, %{{.+}} [0, 1]
// CHECK-NEXT:    %[[UP:.+]] = vector.shuffle %{{.+}}, %{{.+}} [0, 1]
// CHECK:         arith.mulf %[[GP]], %[[UP]] : vector<2xf32>
// CHECK:         vector.store %{{.+}}, %[[Y]][{{.+}}] {alignment = 4 : i64}
// The last pair: tile 15 of both products.
// CHECK:         vector.shuffle %[[GV]], %[[GV]] [2, 3]
// CHECK-NEXT:    vector.shuffle %[[UV]], %[[UV]] [2, 3]
// CHECK:         gpu.return
// MMA-LABEL: gpu.func @swiglu
// MMA-SAME:    tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 64 : i64, grid = 8 : i64
// MMA-NOT:     wgmma
// MMA:         nvvm.mma.sync
// MMA-NOT:     wgmma
// MMA:         gpu.return
func.func @swiglu(%x: memref<?x256xbf16>, %wg: memref<256x256xbf16>, %wu: memref<256x256xbf16>, %y: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 200, 256>} {
  %r = tile.row_id
  %g = tile.matmul %x, %wg[%r] {transpose_b = true} : memref<?x256xbf16>, memref<256x256xbf16> -> tensor<256xf32>
  %u = tile.matmul %x, %wu[%r] {transpose_b = true} : memref<?x256xbf16>, memref<256x256xbf16> -> tensor<256xf32>
  %m = arith.mulf %g, %u : tensor<256xf32>
  %t = arith.truncf %m : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %y[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}

// -----

// f16 operands: wgmma with f16 multiplicands.
// CHECK-LABEL: gpu.func @f16
// CHECK:         nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK:         vector.store %{{.+}}, %{{.+}}[{{.+}}] {alignment = 8 : i64} : memref<?x512xf32>, vector<2xf32>
func.func @f16(%x: memref<?x64xf16>, %w: memref<512x64xf16>, %y: memref<?x512xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 256, 512>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x64xf16>, memref<512x64xf16> -> tensor<512xf32>
  tile.store %p, %y[%r] : tensor<512xf32> -> memref<?x512xf32>
  return
}

// -----

// A [K, N] rhs is read MN-major: its panel is block_n / 64 = 4 blocks of
// block_k = 64 rows of 64 columns (memref<4 x 256 x 64>), copied from the
// [K, N] rows, and wgmma reads B transposed (layout row) with a leading
// byte offset of 64 * 128 = 8192 between the 64-column blocks.
// CHECK-LABEL: gpu.func @kn_rhs
// CHECK-NOT:     nvgpu.ldmatrix
// CHECK:         memref.view {{.+}} to memref<4x256x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_copy %arg1[{{.+}}], %{{.+}}[{{.+}}], 8, {{.+}} {bypassL1} : memref<64x256xbf16> to memref<4x256x64xbf16
// CHECK:         arith.constant 4611686293338849280 : i64
// CHECK:         nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         gpu.return
func.func @kn_rhs(%x: memref<?x64xbf16>, %w: memref<64x256xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 256, 256>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<64x256xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}
