// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-cluster-m=2 gemm-fill-sms=0 target=sm_90a gemm-tma-store=0" %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-cluster-m=1 gemm-tma-store=0" %s | FileCheck %s --check-prefix=ONE
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-cluster-m=2 gemm-fill-sms=0 target=sm_90a gemm-block-n=192 gemm-tma-store=0" %s | FileCheck %s --check-prefix=BN192
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-cluster-m=2 gemm-fill-sms=0 target=sm_90a gemm-persistent=0 gemm-tma-store=0" %s | FileCheck %s --check-prefix=NOPERS
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-cluster-m=2 gemm-fill-sms=0 target=sm_90a gemm-tma=0 gemm-tma-store=0" %s | FileCheck %s --check-prefix=NOTMA --implicit-check-not=tile.tma

// The cluster choice of the TMA wgmma schedule (gemm-schedule.mlir has the
// rules; ScheduleRowKernels.cpp): with gemm-cluster-m=2 (the default is 1 since run s32c) two CTAs a
// cluster when the kernel has more than block_m rows (of one batch) and its
// B panel halves into multicast boxes (block_n / 2 a multiple of 8 for an
// [N, K] rhs, an even count of 64-column blocks for a [K, N] rhs). Then
// cluster_m = 2, grid = B * ceil(rows / 256) * 2 * ceil(N / block_n) (an
// even number of CTAs), and the [N, K] box is [block_n / 2, 64].
// gemm-cluster-m=1 (ONE) and gemm-tma=0 (NOTMA) keep cluster_m = 1 and
// grid = B * ceil(rows / 128) * ceil(N / block_n); gemm-persistent=0 keeps
// the clusters.

// 300 rows (3 block rows, an odd count), [N, K] rhs 512 x 128: 2 pairs of
// block rows (the last CTA's rows 384 .. 511 lie past the matrix), 2 * 2 * 2
// = 8 CTAs instead of 3 * 2 = 6; w in 128 x 64 boxes.
// CHECK-LABEL: func.func @odd_rows
//  CHECK-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 2 : i64, grid = 8 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  CHECK-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 300, 128>}, {arg = 1 : i64, box = array<i64: 128, 64>, dims = array<i64: 512, 128>}]}
// ONE-LABEL: func.func @odd_rows
//  ONE-SAME:   block_n = 256 : i64, cluster_m = 1 : i64, grid = 6 : i64
//  ONE-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 300, 128>}, {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 512, 128>}]}
// block_n 192: 96-row halves (a multiple of 8): a cluster, ceil(512 / 192) =
// 3 block columns, grid 2 * 2 * 3 = 12, w in 96 x 64 boxes.
// BN192-LABEL: func.func @odd_rows
//  BN192-SAME:   block_n = 192 : i64, cluster_m = 2 : i64, grid = 12 : i64
//  BN192-SAME:   {arg = 1 : i64, box = array<i64: 96, 64>, dims = array<i64: 512, 128>}
// NOPERS-LABEL: func.func @odd_rows
//  NOPERS-SAME:   block_n = 256 : i64, cluster_m = 2 : i64, grid = 8 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64
//  NOPERS-SAME:   {arg = 1 : i64, box = array<i64: 128, 64>, dims = array<i64: 512, 128>}
// NOTMA-LABEL: func.func @odd_rows
//  NOTMA-SAME:   block_n = 256 : i64, cluster_m = 1 : i64, grid = 6 : i64
//  NOTMA-SAME:   tma = 0 : i64
func.func @odd_rows(%a: memref<?x128xbf16>, %b: memref<512x128xbf16>, %c: memref<?x512xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 300, 512>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x128xbf16>, memref<512x128xbf16> -> tensor<512xf32>
  %t = arith.truncf %p : tensor<512xf32> to tensor<512xbf16>
  tile.store %t, %c[%r] : tensor<512xbf16> -> memref<?x512xbf16>
  return
}

// -----

// The same with a [K, N] rhs: 4 column blocks of 64 (even): a cluster, grid
// 8, the box still 64 x 64. With block_n 192 (3 column blocks, odd) the
// panel does not halve: cluster_m = 1, grid 3 * 3 = 9.
// CHECK-LABEL: func.func @kn_rows
//  CHECK-SAME:   block_n = 256 : i64, cluster_m = 2 : i64, grid = 8 : i64
//  CHECK-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 300, 128>}, {arg = 1 : i64, box = array<i64: 64, 64>, dims = array<i64: 128, 512>}]}
// ONE-LABEL: func.func @kn_rows
//  ONE-SAME:   block_n = 256 : i64, cluster_m = 1 : i64, grid = 6 : i64
//  ONE-SAME:   {arg = 1 : i64, box = array<i64: 64, 64>, dims = array<i64: 128, 512>}
// BN192-LABEL: func.func @kn_rows
//  BN192-SAME:   block_n = 192 : i64, cluster_m = 1 : i64, grid = 9 : i64
//  BN192-SAME:   {arg = 1 : i64, box = array<i64: 64, 64>, dims = array<i64: 128, 512>}
// NOTMA-LABEL: func.func @kn_rows
//  NOTMA-SAME:   cluster_m = 1 : i64, grid = 6 : i64
func.func @kn_rows(%a: memref<?x128xbf16>, %b: memref<128x512xbf16>, %c: memref<?x512xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 300, 512>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x128xbf16>, memref<128x512xbf16> -> tensor<512xf32>
  %t = arith.truncf %p : tensor<512xf32> to tensor<512xbf16>
  tile.store %t, %c[%r] : tensor<512xbf16> -> memref<?x512xbf16>
  return
}

// -----

// A batched [3, N, K] rhs, 300 rows a batch: 3 * 2 * 2 * 2 = 24 CTAs (18
// without clusters), the rhs box [1, 128, 64] ([1, 96, 64] for block_n 192:
// 3 * 2 * 2 * 3 = 36 CTAs).
// CHECK-LABEL: func.func @batched_nk
//  CHECK-SAME:   block_n = 256 : i64, cluster_m = 2 : i64, grid = 24 : i64
//  CHECK-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 1, 128, 64>, dims = array<i64: 3, 300, 128>}, {arg = 1 : i64, box = array<i64: 1, 128, 64>, dims = array<i64: 3, 512, 128>}]}
// ONE-LABEL: func.func @batched_nk
//  ONE-SAME:   block_n = 256 : i64, cluster_m = 1 : i64, grid = 18 : i64
//  ONE-SAME:   {arg = 1 : i64, box = array<i64: 1, 256, 64>, dims = array<i64: 3, 512, 128>}
// BN192-LABEL: func.func @batched_nk
//  BN192-SAME:   block_n = 192 : i64, cluster_m = 2 : i64, grid = 36 : i64
//  BN192-SAME:   {arg = 1 : i64, box = array<i64: 1, 96, 64>, dims = array<i64: 3, 512, 128>}
// NOTMA-LABEL: func.func @batched_nk
//  NOTMA-SAME:   cluster_m = 1 : i64, grid = 18 : i64
func.func @batched_nk(%a: memref<?x128xbf16>, %b: memref<3x512x128xbf16>, %c: memref<?x512xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 3, 300, 512>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x128xbf16>, memref<3x512x128xbf16> -> tensor<512xf32>
  %t = arith.truncf %p : tensor<512xf32> to tensor<512xbf16>
  tile.store %t, %c[%r] : tensor<512xbf16> -> memref<?x512xbf16>
  return
}

// -----

// 128 rows (= block_m): no cluster even by default.
// CHECK-LABEL: func.func @rows_128
//  CHECK-SAME:   block_n = 256 : i64, cluster_m = 1 : i64, grid = 2 : i64
//  CHECK-SAME:   {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 512, 128>}
// 129 rows: a cluster (grid 2 * 2 = 4, as without one: ceil(129 / 128) = 2).
// CHECK-LABEL: func.func @rows_129
//  CHECK-SAME:   block_n = 256 : i64, cluster_m = 2 : i64, grid = 4 : i64
//  CHECK-SAME:   {arg = 1 : i64, box = array<i64: 128, 64>, dims = array<i64: 512, 128>}
func.func @rows_128(%a: memref<?x128xbf16>, %b: memref<512x128xbf16>, %c: memref<?x512xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 512>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x128xbf16>, memref<512x128xbf16> -> tensor<512xf32>
  %t = arith.truncf %p : tensor<512xf32> to tensor<512xbf16>
  tile.store %t, %c[%r] : tensor<512xbf16> -> memref<?x512xbf16>
  return
}

// -----

func.func @rows_129(%a: memref<?x128xbf16>, %b: memref<512x128xbf16>, %c: memref<?x512xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 129, 512>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x128xbf16>, memref<512x128xbf16> -> tensor<512xf32>
  %t = arith.truncf %p : tensor<512xf32> to tensor<512xbf16>
  tile.store %t, %c[%r] : tensor<512xbf16> -> memref<?x512xbf16>
  return
}
