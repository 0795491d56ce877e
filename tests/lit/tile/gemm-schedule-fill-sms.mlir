// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-split-k=1 gemm-tma-store=0" %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-split-k=1 gemm-tma-store=0 gemm-fill-sms=0" %s | FileCheck %s --check-prefix=OFF
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-split-k=1 gemm-tma-store=0 gemm-block-n=64 gemm-stages=4" %s | FileCheck %s --check-prefix=GIVEN
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-split-k=1 gemm-tma-store=0 gemm-wgmma-min-rows=65" %s | FileCheck %s --check-prefix=MMA

// gemm-fill-sms (the default): GEMM grids that would leave SMs of the H200
// (132) idle take narrower tiles or deeper pipelines (docs/perf.md,
// twentieth session); gemm-fill-sms=0 (OFF) keeps the tiles of
// gemm-schedule.mlir, and explicit block and stage options win (GIVEN).

// Decode of 16 rows, N = 4096: 64-column CTAs would be 64 (under half the
// SMs): 32 columns, 128 CTAs, and as one wave 8 stages of (32 + 32) x 128
// x 2 bytes = 131072.
// CHECK-LABEL: func.func @decode_4096
//  CHECK-SAME:   tile.max_registers = 255 : i64, tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 32 : i64, grid = 128 : i64, group_m = 8 : i64, shared_bytes = 131072 : i64, stages = 8 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
// OFF-LABEL: func.func @decode_4096
//  OFF-SAME:   tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 64 : i64, group_m = 8 : i64, shared_bytes = 98304 : i64, stages = 4 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
// GIVEN-LABEL: func.func @decode_4096
//  GIVEN-SAME:   block_n = 64 : i64, grid = 64 : i64, group_m = 8 : i64, shared_bytes = 98304 : i64, stages = 4 : i64
func.func @decode_4096(%a: memref<?x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<?x4096xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 16, 4096>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<4096x4096xbf16> -> tensor<4096xf32>
  %t = arith.truncf %p : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %t, %c[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// N = 6144: 96 CTAs of 64 columns, one wave: 8 stages of (32 + 64) x 128
// x 2 = 196608 bytes, the columns kept.
// CHECK-LABEL: func.func @decode_6144
//  CHECK-SAME:   block_n = 64 : i64, grid = 96 : i64, group_m = 8 : i64, shared_bytes = 196608 : i64, stages = 8 : i64
func.func @decode_6144(%a: memref<?x4096xbf16>, %b: memref<6144x4096xbf16>, %c: memref<?x6144xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 1, 6144>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<6144x4096xbf16> -> tensor<6144xf32>
  %t = arith.truncf %p : tensor<6144xf32> to tensor<6144xbf16>
  tile.store %t, %c[%r] : tensor<6144xbf16> -> memref<?x6144xbf16>
  return
}

// -----

// N = 14336: 224 CTAs, more than a wave: unchanged (4 stages, 98304).
// CHECK-LABEL: func.func @decode_14336
//  CHECK-NOT:    tile.max_registers
//  CHECK-SAME:   block_n = 64 : i64, grid = 224 : i64, group_m = 8 : i64, shared_bytes = 98304 : i64, stages = 4 : i64
func.func @decode_14336(%a: memref<?x4096xbf16>, %b: memref<14336x4096xbf16>, %c: memref<?x14336xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 16, 14336>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<14336x4096xbf16> -> tensor<14336xf32>
  %t = arith.truncf %p : tensor<14336xf32> to tensor<14336xbf16>
  tile.store %t, %c[%r] : tensor<14336xbf16> -> memref<?x14336xbf16>
  return
}

// -----

// 64 rows, N = 520, K = 1000. wgmma (the default from 33 rows): 64-row
// tiles, 128 then 64 columns while the grid fills at most half the SMs:
// 9 tiles of 64 x 64 at 14 stages (as many as fit, no staging buffers
// here). mma.sync (gemm-wgmma-min-rows=65,
// as before the twenty-fifth session): 64-column CTAs would be 9, 128 ones
// 5 (under half the SMs): 32 columns (warp tiles 64 x 16, two warps), 17
// CTAs, and as one wave 8 stages of (64 + 32) x 32 x 2 bytes = 49152.
// CHECK-LABEL: func.func @rows64_520
//  CHECK-SAME:   block_m = 64 : i64, block_n = 64 : i64, cluster_m = 1 : i64, grid = 9 : i64, {{.*}} stages = 14 : i64, threads = 256 : i64, tma = 1 : i64, {{.*}} wgmma = 1 : i64
// MMA-LABEL: func.func @rows64_520
//  MMA-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 64 : i64, block_n = 32 : i64, grid = 17 : i64, group_m = 8 : i64, shared_bytes = 49152 : i64, stages = 8 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
// OFF-LABEL: func.func @rows64_520
//  OFF-SAME:   block_m = 64 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 3 : i64, {{.*}} stages = 4 : i64, {{.*}} wgmma = 1 : i64
// GIVEN-LABEL: func.func @rows64_520
//  GIVEN-SAME:   block_m = 64 : i64, block_n = 64 : i64, cluster_m = 1 : i64, grid = 9 : i64, {{.*}} stages = 4 : i64, {{.*}} wgmma = 1 : i64
func.func @rows64_520(%a: memref<?x1000xbf16>, %b: memref<520x1000xbf16>, %c: memref<?x520xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 520>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x1000xbf16>, memref<520x1000xbf16> -> tensor<520xf32>
  %t = arith.truncf %p : tensor<520xf32> to tensor<520xbf16>
  tile.store %t, %c[%r] : tensor<520xbf16> -> memref<?x520xbf16>
  return
}

// -----

// 48 rows, N = 14336: wgmma tiles of 64 rows (not 128: no warpgroup on
// rows of zeros), 112 of 64 x 128 (over half the SMs: the columns stay) at
// 9 stages (as many as fit). mma.sync: 112 CTAs of 64 x 128, and as one wave 8 stages
// of (64 + 128) x 32 x 2 = 98304 bytes.
// CHECK-LABEL: func.func @rows48_14336
//  CHECK-SAME:   block_m = 64 : i64, block_n = 128 : i64, cluster_m = 1 : i64, grid = 112 : i64, {{.*}} stages = 9 : i64, threads = 256 : i64, {{.*}} wgmma = 1 : i64
// MMA-LABEL: func.func @rows48_14336
//  MMA-SAME:   block_n = 128 : i64, grid = 112 : i64, group_m = 8 : i64, shared_bytes = 98304 : i64, stages = 8 : i64, threads = 128 : i64
// OFF-LABEL: func.func @rows48_14336
//  OFF-SAME:   block_m = 64 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 56 : i64, {{.*}} stages = 4 : i64
func.func @rows48_14336(%a: memref<?x4096xbf16>, %b: memref<14336x4096xbf16>, %c: memref<?x14336xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 48, 14336>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<14336x4096xbf16> -> tensor<14336xf32>
  %t = arith.truncf %p : tensor<14336xf32> to tensor<14336xbf16>
  tile.store %t, %c[%r] : tensor<14336xbf16> -> memref<?x14336xbf16>
  return
}

// -----

// wgmma with N = 128 (attention's head_dim): 128 x 256 tiles would spend
// half of every MMA on columns past N; the tile halves to 128 columns (a
// grid of 128 tiles, over half the SMs: no further narrowing).
// CHECK-LABEL: func.func @wgmma_n128
//  CHECK-SAME:   block_m = 128 : i64, block_n = 128 : i64, cluster_m = 1 : i64, grid = 128 : i64
// OFF-LABEL: func.func @wgmma_n128
//  OFF-SAME:   block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 128 : i64
func.func @wgmma_n128(%a: memref<?x512xbf16>, %b: memref<8x512x128xbf16>, %c: memref<?x128xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 8, 2048, 128>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x512xbf16>, memref<8x512x128xbf16> -> tensor<128xf32>
  %t = arith.truncf %p : tensor<128xf32> to tensor<128xbf16>
  tile.store %t, %c[%r] : tensor<128xbf16> -> memref<?x128xbf16>
  return
}

// -----

// wgmma, 256 x 4096 x 4096: 128 x 256 tiles would be 32 (2 x 16), at most
// half the SMs: 128 columns make 64, still at most half, 64 columns 128,
// so the rows stay 128. One CTA a cluster (the default): the w box is 64 x 64.
// One wave of tiles: as many stages as fit, up to 16: 9 x (128 + 64) x 64
// x 2 bytes, 1024 of alignment and 9 x 16 of barriers (gemm-tma-store=0
// here: no staging) = 222352.
// CHECK-LABEL: func.func @wgmma_256
//  CHECK-SAME:   block_k = 64 : i64, block_m = 128 : i64, block_n = 64 : i64, cluster_m = 1 : i64, grid = 128 : i64
//  CHECK-SAME:   shared_bytes = 222352 : i64, stages = 9 : i64, threads = 384 : i64, tma = 1 : i64
//  CHECK-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 256, 4096>}, {arg = 1 : i64, box = array<i64: 64, 64>, dims = array<i64: 4096, 4096>}]
// OFF-LABEL: func.func @wgmma_256
//  OFF-SAME:   block_n = 256 : i64, cluster_m = 1 : i64, grid = 32 : i64
func.func @wgmma_256(%a: memref<?x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<?x4096xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 256, 4096>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<4096x4096xbf16> -> tensor<4096xf32>
  %t = arith.truncf %p : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %t, %c[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// wgmma, 512 x 512 x 512: 64-column tiles are 4 x 8 = 32, at most half the
// SMs: 64 x 64 tiles, 64, one MMA warpgroup and the producer (256
// threads), 14 stages.
// CHECK-LABEL: func.func @wgmma_512
//  CHECK-SAME:   block_k = 64 : i64, block_m = 64 : i64, block_n = 64 : i64, cluster_m = 1 : i64, grid = 64 : i64
//  CHECK-SAME:   stages = 14 : i64, threads = 256 : i64, tma = 1 : i64
// OFF-LABEL: func.func @wgmma_512
//  OFF-SAME:   block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 8 : i64
func.func @wgmma_512(%a: memref<?x512xbf16>, %b: memref<512x512xbf16>, %c: memref<?x512xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 512, 512>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x512xbf16>, memref<512x512xbf16> -> tensor<512xf32>
  %t = arith.truncf %p : tensor<512xf32> to tensor<512xbf16>
  tile.store %t, %c[%r] : tensor<512xbf16> -> memref<?x512xbf16>
  return
}

// -----

// More tiles than half the SMs keep 128 x 256: 4096^3 (512), and 4096 x
// 1024 (128, a wave: narrower tiles would make two).
// CHECK-LABEL: func.func @wgmma_large
//  CHECK-SAME:   block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 512 : i64
//  CHECK-SAME:   stages = 4 : i64
func.func @wgmma_large(%a: memref<?x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<?x4096xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 4096, 4096>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<4096x4096xbf16> -> tensor<4096xf32>
  %t = arith.truncf %p : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %t, %c[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @wgmma_one_wave
//  CHECK-SAME:   block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 128 : i64
//  CHECK-SAME:   stages = 4 : i64
func.func @wgmma_one_wave(%a: memref<?x512xbf16>, %b: memref<1024x512xbf16>, %c: memref<?x1024xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 4096, 1024>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x512xbf16>, memref<1024x512xbf16> -> tensor<1024xf32>
  %t = arith.truncf %p : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %t, %c[%r] : tensor<1024xbf16> -> memref<?x1024xbf16>
  return
}

// -----

// Waves: 512 x 6144 in 128 x 256 tiles is 96 tiles, 73% of one wave; 192
// columns make 128 (97%, at least 1.1x better): block_n 192 (OFF, without
// gemm-fill-sms: 256). GIVEN's block_n stays as given.
// CHECK-LABEL: func.func @wave_one_partial
//  CHECK-SAME:   block_m = 128 : i64, block_n = 192 : i64, cluster_m = 1 : i64, grid = 128 : i64
// OFF-LABEL: func.func @wave_one_partial
//  OFF-SAME:   block_n = 256 : i64, cluster_m = 1 : i64, grid = 96 : i64
// GIVEN-LABEL: func.func @wave_one_partial
//  GIVEN-SAME:   block_n = 64 : i64
func.func @wave_one_partial(%a: memref<?x4096xbf16>, %b: memref<6144x4096xbf16>, %c: memref<?x6144xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 512, 6144>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<6144x4096xbf16> -> tensor<6144xf32>
  %t = arith.truncf %p : tensor<6144xf32> to tensor<6144xbf16>
  tile.store %t, %c[%r] : tensor<6144xbf16> -> memref<?x6144xbf16>
  return
}

// -----

// 512 x 28672: 448 tiles of 128 x 256 fill 4 waves to 85%; 192 columns
// (600 tiles, 5 waves) only to 91%, less than 1.1x: 256 stays.
// CHECK-LABEL: func.func @wave_many
//  CHECK-SAME:   block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 448 : i64
func.func @wave_many(%a: memref<?x4096xbf16>, %b: memref<28672x4096xbf16>, %c: memref<?x28672xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 512, 28672>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<28672x4096xbf16> -> tensor<28672xf32>
  %t = arith.truncf %p : tensor<28672xf32> to tensor<28672xbf16>
  tile.store %t, %c[%r] : tensor<28672xbf16> -> memref<?x28672xbf16>
  return
}

// -----

// Two products of 512 rows over N = 14336: 448 tiles of 128 x 128 fill 4
// waves to 85%, 112 columns (512 tiles) to 97%: block_n 112 for [N, K]
// weights (swiglu_nk), while [K, N] weights, read in 64-column blocks,
// keep 128 (swiglu_kn).
// CHECK-LABEL: func.func @swiglu_nk
//  CHECK-SAME:   block_m = 128 : i64, block_n = 112 : i64, cluster_m = 1 : i64, grid = 512 : i64
func.func @swiglu_nk(%x: memref<?x4096xbf16>, %wg: memref<14336x4096xbf16>, %wu: memref<14336x4096xbf16>, %y: memref<?x14336xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 512, 14336>} {
  %r = tile.row_id
  %g = tile.matmul %x, %wg[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<14336x4096xbf16> -> tensor<14336xf32>
  %u = tile.matmul %x, %wu[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<14336x4096xbf16> -> tensor<14336xf32>
  %m = arith.mulf %g, %u : tensor<14336xf32>
  %t = arith.truncf %m : tensor<14336xf32> to tensor<14336xbf16>
  tile.store %t, %y[%r] : tensor<14336xbf16> -> memref<?x14336xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @swiglu_kn
//  CHECK-SAME:   block_m = 128 : i64, block_n = 128 : i64, cluster_m = 1 : i64, grid = 448 : i64
func.func @swiglu_kn(%x: memref<?x4096xbf16>, %wg: memref<4096x14336xbf16>, %wu: memref<4096x14336xbf16>, %y: memref<?x14336xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 512, 14336>} {
  %r = tile.row_id
  %g = tile.matmul %x, %wg[%r] : memref<?x4096xbf16>, memref<4096x14336xbf16> -> tensor<14336xf32>
  %u = tile.matmul %x, %wu[%r] : memref<?x4096xbf16>, memref<4096x14336xbf16> -> tensor<14336xf32>
  %m = arith.mulf %g, %u : tensor<14336xf32>
  %t = arith.truncf %m : tensor<14336xf32> to tensor<14336xbf16>
  tile.store %t, %y[%r] : tensor<14336xbf16> -> memref<?x14336xbf16>
  return
}
