// RUN: tilec-opt --tilec-schedule-row-kernels="target=sm_90a" %s | FileCheck %s --check-prefix=DEFAULT
// RUN: tilec-opt --tilec-schedule-row-kernels="target=sm_90a gemm-wgmma-min-rows=1" %s | FileCheck %s --check-prefix=WGMMA
// RUN: not tilec-opt --tilec-schedule-row-kernels="target=sm_90a gemm-wgmma-min-rows=0" %s 2>&1 | FileCheck %s --check-prefix=BAD

// gemm-wgmma-min-rows (default 65): GEMMs of fewer rows get mma.sync
// tiles (64 x 32 CTAs at 8 stages for 33-64 rows); 1 gives them wgmma
// tiles too (here 64 x 64, 64 tiles in 2 splits of a K of 4096, a TMA
// producer warpgroup).
// DEFAULT-LABEL: func.func @rows_64
//  DEFAULT-SAME:   block_m = 64 : i64, block_n = 32 : i64, grid = 128 : i64
//   DEFAULT-NOT:   wgmma
// WGMMA-LABEL: func.func @rows_64
//  WGMMA-SAME:   block_m = 64 : i64, block_n = 64 : i64, {{.*}} grid = 128 : i64, {{.*}} split_k = 2 : i64, {{.*}} threads = 256 : i64, tma = 1 : i64, {{.*}} wgmma = 1 : i64
// BAD: gemm-wgmma-min-rows must be >= 1, got 0
func.func @rows_64(%a: memref<?x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<?x4096xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 4096>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<4096x4096xbf16> -> tensor<4096xf32>
  %t = arith.truncf %p : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %t, %c[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}
