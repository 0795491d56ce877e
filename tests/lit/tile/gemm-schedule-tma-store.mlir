// The TMA-store decision of the wgmma schedule (gemm-tma-store, default
// on): one row store of a 16-bit or f32 output with 16-byte aligned rows
// and block_n a multiple of a unit's columns (64 16-bit, 32 f32) gets
// tma_store = 1, two 8 KB buffers an MMA warpgroup in shared_bytes, and
// the output's tensor map last in tile.tma: [rows, N] in [64, cols] boxes,
// or for a batched product [batch, rows / batch, N] in [1, 64, cols].
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-cluster-m=1" %s | FileCheck %s
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-cluster-m=1 gemm-block-n=48" %s 2>/dev/null | FileCheck %s --check-prefix=BN48 --implicit-check-not=tma_store
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-cluster-m=1 gemm-block-n=48" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=BN48-KN
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-cluster-m=1 gemm-pingpong=1" %s | FileCheck %s --check-prefix=PP

// A batched [4, K, N] rhs, 130 rows a batch, f32 output.
// CHECK-LABEL: func.func @batched_kn_f32
//  CHECK-SAME:   grid = 8 : i64
//  CHECK-SAME:   shared_bytes = 231424 : i64
//  CHECK-SAME:   tma_store = 1 : i64
//  CHECK-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 1, 128, 64>, dims = array<i64: 4, 130, 72>}, {arg = 1 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 4, 72, 136>}, {arg = 2 : i64, box = array<i64: 1, 64, 32>, dims = array<i64: 4, 130, 136>}]
// block_n 48 (a multiple of neither unit) is no schedule for a [K, N]
// rhs, which is read in 64-column blocks: an error (for [N, K] rhs below:
// direct stores).
// BN48-KN: error: 'func.func' op bad wgmma GEMM schedule: a [K, N] rhs is read in 64-column blocks, so block_n must be a multiple of 64, got 48 (gemm-block-n)
// BN48-KN-NEXT: func.func @batched_kn_f32
// Ping-pong (64-row tiles, two MMA warpgroups): 32 KB of buffers, and the
// stages as many as fit beside them: (232448 - 2048 - 32768) / ((64 +
// 256) * 128 + 16) -> 4 stages; 1024 + 4 * 40976 rounded up to 1024 +
// 32768 = 1024 + 164864 + 32768 = 198656.
// PP-LABEL: func.func @batched_kn_f32
//  PP-SAME:   pingpong = 1 : i64
//  PP-SAME:   shared_bytes = 198656 : i64
//  PP-SAME:   tma_store = 1 : i64
//  PP-SAME:   {arg = 2 : i64, box = array<i64: 1, 64, 32>, dims = array<i64: 4, 130, 136>}]
func.func @batched_kn_f32(%a: memref<?x72xbf16>, %b: memref<4x72x136xbf16>, %c: memref<?x136xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 4, 130, 136>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x72xbf16>, memref<4x72x136xbf16> -> tensor<136xf32>
  tile.store %p, %c[%r] : tensor<136xf32> -> memref<?x136xf32>
  return
}

// -----

// A batched [3, N, K] rhs, bf16 output.
// CHECK-LABEL: func.func @batched_nk_bf16
//  CHECK-SAME:   tma_store = 1 : i64
//  CHECK-SAME:   {arg = 2 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 3, 300, 520>}]
// BN48-LABEL: func.func @batched_nk_bf16
//  BN48-NOT:    tma_store
// PP-LABEL: func.func @batched_nk_bf16
//  PP-SAME:   tma_store = 1 : i64
//  PP-SAME:   {arg = 2 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 3, 300, 520>}]
func.func @batched_nk_bf16(%a: memref<?x128xbf16>, %b: memref<3x520x128xbf16>, %c: memref<?x520xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 3, 300, 520>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x128xbf16>, memref<3x520x128xbf16> -> tensor<520xf32>
  %t = arith.truncf %p : tensor<520xf32> to tensor<520xbf16>
  tile.store %t, %c[%r] : tensor<520xbf16> -> memref<?x520xbf16>
  return
}

// -----

// A batched rhs of one batch ([1, K, N]): the kernel is still a batched one
// (3-D maps for its operands), so the output's map is 3-D too.
// CHECK-LABEL: func.func @batch_of_one
//  CHECK-SAME:   tma_store = 1 : i64
//  CHECK-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 1, 128, 64>, dims = array<i64: 1, 70, 32>}, {arg = 1 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 1, 32, 128>}, {arg = 2 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 1, 70, 128>}]
// PP-LABEL: func.func @batch_of_one
//  PP-SAME:   {arg = 2 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 1, 70, 128>}]
func.func @batch_of_one(%a: memref<?x32xbf16>, %b: memref<1x32x128xbf16>, %c: memref<?x128xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 1, 70, 128>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x32xbf16>, memref<1x32x128xbf16> -> tensor<128xf32>
  %t = arith.truncf %p : tensor<128xf32> to tensor<128xbf16>
  tile.store %t, %c[%r] : tensor<128xbf16> -> memref<?x128xbf16>
  return
}

// -----

// An f32 output, unbatched, N = 1000 (a multiple of 8, not of 32).
// CHECK-LABEL: func.func @f32_n1000
//  CHECK-SAME:   tma_store = 1 : i64
//  CHECK-SAME:   {arg = 2 : i64, box = array<i64: 64, 32>, dims = array<i64: 1100, 1000>}]
func.func @f32_n1000(%a: memref<?x136xbf16>, %b: memref<1000x136xbf16>, %c: memref<?x1000xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 1100, 1000>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x136xbf16>, memref<1000x136xbf16> -> tensor<1000xf32>
  tile.store %p, %c[%r] : tensor<1000xf32> -> memref<?x1000xf32>
  return
}

// -----

// Direct stores: rows that do not split into the rhs's batches (700 rows,
// 3 batches: the distributor rejects the kernel, the scheduler adds no
// output map), and f32 rows of 1032 bytes (N = 258, not a multiple
// of 4).
// CHECK-LABEL: func.func @rows_not_batches
//  CHECK-NOT:    tma_store
//  CHECK-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 1, 128, 64>, dims = array<i64: 3, 700, 128>}, {arg = 1 : i64, box = array<i64: 1, 256, 64>, dims = array<i64: 3, 264, 128>}]}
func.func @rows_not_batches(%a: memref<?x128xbf16>, %b: memref<3x264x128xbf16>, %c: memref<?x264xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 700, 264>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x128xbf16>, memref<3x264x128xbf16> -> tensor<264xf32>
  %t = arith.truncf %p : tensor<264xf32> to tensor<264xbf16>
  tile.store %t, %c[%r] : tensor<264xbf16> -> memref<?x264xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @f32_unaligned
//  CHECK-NOT:    tma_store
//  CHECK-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 200, 256>}, {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 258, 256>}]}
func.func @f32_unaligned(%x: memref<?x256xbf16>, %w: memref<258x256xbf16>, %y: memref<?x258xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 200, 258>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x256xbf16>, memref<258x256xbf16> -> tensor<258xf32>
  tile.store %p, %y[%r] : tensor<258xf32> -> memref<?x258xf32>
  return
}
