// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a" %s | FileCheck %s --check-prefix=AUTO
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-split-k=0" %s | FileCheck %s --check-prefix=AUTO
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-split-k=1" %s | FileCheck %s --check-prefix=OFF
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-split-k=3" %s | FileCheck %s --check-prefix=THREE
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-split-k=-1" %s 2>&1 | FileCheck %s --check-prefix=BAD

// gemm-split-k: the k steps of a GEMM whose tiles are few split over CTAs.
// 0 (AUTO, the default) doubles the splits while twice the CTAs fit in one
// wave (132), the steps divide evenly and each split keeps 256 of K
// (decode: 2 steps of 128; wgmma: 4 of 64), and keeps them where that
// makes 4 splits or more of a K of 2048 or more, or (wgmma) 2 splits of a
// K of 4096 or more; 1 (OFF) never splits; N
// (THREE) takes N splits, at most the k steps. The workspace: a counter
// (i32) for each warp (mma.sync) or warpgroup (wgmma) of a tile, 256-byte
// aligned, then a slot of f32 partial sums for each tile and split.

// BAD: gemm-split-k must be >= 0

// Decode of 16 rows, N = 1024: 32 CTAs of 32 columns (gemm-fill-sms), 32
// k steps of 128: 4 splits of 8 steps, 128 CTAs. Workspace: 32 tiles x 2
// warps x 4 bytes (256), then 32 x 4 slots of 32 x 32 x 4 bytes: 524544.
// AUTO-LABEL: func.func @decode_1024
//  AUTO-SAME:   tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 32 : i64, grid = 128 : i64, group_m = 8 : i64, shared_bytes = 131072 : i64, split_k = 4 : i64, stages = 8 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64, workspace_bytes = 524544 : i64}
// OFF-LABEL: func.func @decode_1024
//  OFF-SAME:   tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 32 : i64, grid = 32 : i64, group_m = 8 : i64, shared_bytes = 131072 : i64, stages = 8 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
// THREE-LABEL: func.func @decode_1024
//  THREE-SAME:   grid = 96 : i64, {{.*}} split_k = 3 : i64, {{.*}} workspace_bytes = 393472 : i64}
func.func @decode_1024(%a: memref<?x4096xbf16>, %b: memref<1024x4096xbf16>, %c: memref<?x1024xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 16, 1024>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<1024x4096xbf16> -> tensor<1024xf32>
  %t = arith.truncf %p : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %t, %c[%r] : tensor<1024xbf16> -> memref<?x1024xbf16>
  return
}

// -----

// wgmma, 128 x 1024 x 4096: the tiles narrow to 64 x 64 (32 of them), 64
// k steps: 4 splits of 16, 128 CTAs, one wave (8 stages: split tiles take
// no more). Workspace: 32 tiles x 1 warpgroup x 4 bytes (256), then 32 x 4
// slots of 64 x 64 x 4 bytes: 2097408.
// AUTO-LABEL: func.func @wgmma_1024
//  AUTO-SAME:   block_m = 64 : i64, block_n = 64 : i64, cluster_m = 1 : i64, grid = 128 : i64, {{.*}} split_k = 4 : i64, stages = 8 : i64, {{.*}} workspace_bytes = 2097408 : i64}
// OFF-LABEL: func.func @wgmma_1024
//  OFF-SAME:   grid = 32 : i64
//  OFF-NOT:    split_k
// THREE-LABEL: func.func @wgmma_1024
//  THREE-SAME:   grid = 96 : i64, {{.*}} split_k = 3 : i64
func.func @wgmma_1024(%a: memref<?x4096xbf16>, %b: memref<1024x4096xbf16>, %c: memref<?x1024xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 1024>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<1024x4096xbf16> -> tensor<1024xf32>
  %t = arith.truncf %p : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %t, %c[%r] : tensor<1024xbf16> -> memref<?x1024xbf16>
  return
}

// -----

// K = 192: 3 k steps of 64, too few to split (AUTO); THREE takes one each.
// AUTO-LABEL: func.func @shallow
//  AUTO-NOT:   split_k
//  AUTO:       return
// THREE-LABEL: func.func @shallow
//  THREE-SAME:   split_k = 3 : i64
func.func @shallow(%a: memref<?x192xbf16>, %b: memref<1024x192xbf16>, %c: memref<?x1024xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 1024>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x192xbf16>, memref<1024x192xbf16> -> tensor<1024xf32>
  %t = arith.truncf %p : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %t, %c[%r] : tensor<1024xbf16> -> memref<?x1024xbf16>
  return
}

// -----

// Decode, N = 2048: 64 tiles of 32 columns, room for 2 splits only: none
// (AUTO).
// AUTO-LABEL: func.func @decode_2048
//  AUTO-NOT:   split_k
//  AUTO:       return
// THREE-LABEL: func.func @decode_2048
//  THREE-SAME:   grid = 192 : i64, {{.*}} split_k = 3 : i64
func.func @decode_2048(%a: memref<?x4096xbf16>, %b: memref<2048x4096xbf16>, %c: memref<?x2048xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 16, 2048>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<2048x4096xbf16> -> tensor<2048xf32>
  %t = arith.truncf %p : tensor<2048xf32> to tensor<2048xbf16>
  tile.store %t, %c[%r] : tensor<2048xbf16> -> memref<?x2048xbf16>
  return
}

// -----

// 512^3: 64 wgmma tiles of 64 x 64, 8 k steps; K = 512 is too shallow
// (AUTO).
// AUTO-LABEL: func.func @cube_512
//  AUTO-NOT:   split_k
//  AUTO:       return
func.func @cube_512(%a: memref<?x512xbf16>, %b: memref<512x512xbf16>, %c: memref<?x512xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 512, 512>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x512xbf16>, memref<512x512xbf16> -> tensor<512xf32>
  %t = arith.truncf %p : tensor<512xf32> to tensor<512xbf16>
  tile.store %t, %c[%r] : tensor<512xbf16> -> memref<?x512xbf16>
  return
}

// -----

// wgmma, 128 x 2048 x 4096: 64 tiles, room for 2 splits only; of a K of
// 4096, kept (run s25a: 1.33x faster than unsplit).
// AUTO-LABEL: func.func @wgmma_two_splits
//  AUTO-SAME:   grid = 128 : i64, {{.*}} split_k = 2 : i64
// OFF-LABEL: func.func @wgmma_two_splits
//  OFF-SAME:   grid = 64 : i64
//  OFF-NOT:    split_k
func.func @wgmma_two_splits(%a: memref<?x4096xbf16>, %b: memref<2048x4096xbf16>, %c: memref<?x2048xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 2048>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<2048x4096xbf16> -> tensor<2048xf32>
  %t = arith.truncf %p : tensor<2048xf32> to tensor<2048xbf16>
  tile.store %t, %c[%r] : tensor<2048xbf16> -> memref<?x2048xbf16>
  return
}

// -----

// The same over a K of 2048: 2 splits are not kept (AUTO).
// AUTO-LABEL: func.func @wgmma_two_splits_shallow
//  AUTO-NOT:   split_k
//  AUTO:       return
func.func @wgmma_two_splits_shallow(%a: memref<?x2048xbf16>, %b: memref<2048x2048xbf16>, %c: memref<?x2048xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 2048>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x2048xbf16>, memref<2048x2048xbf16> -> tensor<2048xf32>
  %t = arith.truncf %p : tensor<2048xf32> to tensor<2048xbf16>
  tile.store %t, %c[%r] : tensor<2048xbf16> -> memref<?x2048xbf16>
  return
}
