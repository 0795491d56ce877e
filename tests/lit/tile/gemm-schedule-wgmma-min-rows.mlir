// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a" %s | FileCheck %s --check-prefix=DEFAULT
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-wgmma-min-rows=1" %s | FileCheck %s --check-prefix=WGMMA
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-wgmma-min-rows=65" %s | FileCheck %s --check-prefix=MMA
// RUN: not tilec-opt --tilec-schedule-row-kernels="target=sm_90a gemm-wgmma-min-rows=0" %s 2>&1 | FileCheck %s --check-prefix=BAD

// gemm-wgmma-min-rows (default 33): GEMMs of fewer rows get mma.sync
// tiles (measured: wgmma 1.14x slower at 16 rows, 1.10-1.41x faster at
// 33-64; docs/perf.md, run s25b); 1 gives every GEMM wgmma tiles, 65 the
// mma.sync tiles up to 64 rows (before the twenty-fifth session).
// BAD: gemm-wgmma-min-rows must be >= 1, got 0

// 64 rows, 4096 x 4096: wgmma tiles of 64 x 64 (one MMA warpgroup and the
// TMA producer), 64 tiles in 2 splits of a K of 4096; mma.sync (65): 128
// CTAs of 64 x 32 at 8 stages.
// DEFAULT-LABEL: func.func @rows_64
//  DEFAULT-SAME:   block_m = 64 : i64, block_n = 64 : i64, {{.*}} grid = 128 : i64, {{.*}} split_k = 2 : i64, {{.*}} threads = 256 : i64, tma = 1 : i64, {{.*}} wgmma = 1 : i64
// WGMMA-LABEL: func.func @rows_64
//  WGMMA-SAME:   block_m = 64 : i64, block_n = 64 : i64, {{.*}} grid = 128 : i64, {{.*}} split_k = 2 : i64, {{.*}} wgmma = 1 : i64
// MMA-LABEL: func.func @rows_64
//  MMA-SAME:   block_m = 64 : i64, block_n = 32 : i64, grid = 128 : i64
//   MMA-NOT:   wgmma
func.func @rows_64(%a: memref<?x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<?x4096xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 4096>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<4096x4096xbf16> -> tensor<4096xf32>
  %t = arith.truncf %p : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %t, %c[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// 16 rows: mma.sync decode tiles by default (32 x 32, 128 CTAs); wgmma
// with 1.
// DEFAULT-LABEL: func.func @rows_16
//  DEFAULT-SAME:   block_m = 32 : i64
//   DEFAULT-NOT:   wgmma
// WGMMA-LABEL: func.func @rows_16
//  WGMMA-SAME:   block_m = 64 : i64, {{.*}} wgmma = 1 : i64
func.func @rows_16(%a: memref<?x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<?x4096xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 16, 4096>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<4096x4096xbf16> -> tensor<4096xf32>
  %t = arith.truncf %p : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %t, %c[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}
