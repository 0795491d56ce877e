// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a stream-shared=false" %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_80 stream-shared=false" %s | FileCheck %s --check-prefix=ONE
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90 stream-shared=false" %s | FileCheck %s --check-prefix=ONE
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a row-cluster-max=1 stream-shared=false" %s | FileCheck %s --check-prefix=ONE
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a row-cluster-max=2 stream-shared=false" %s | FileCheck %s --check-prefix=TWO

// row-cluster-max is 1 to 8 (8: the portable cluster size); row-cluster
// (an exact size) 0 or 2 to 16 (above 8 the non-portable sizes).
// RUN: not tilec-opt --tilec-schedule-row-kernels="target=sm_90a row-cluster-max=16" %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not tilec-opt --tilec-schedule-row-kernels="target=sm_90a row-cluster-max=9" %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not tilec-opt --tilec-schedule-row-kernels="target=sm_90a row-cluster-max=0" %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not tilec-opt --tilec-schedule-row-kernels="target=sm_90a row-cluster=1" %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not tilec-opt --tilec-schedule-row-kernels="target=sm_90a row-cluster=17" %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: 'func.func' op bad schedule options: {{.*}}row-cluster-max 1 to 8, row-cluster 0 or 2 to 16
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a row-cluster=7 stream-shared=false" %s | FileCheck %s --check-prefix=SEVEN

// Rows with reductions split over a thread-block cluster (sm_90a only:
// other targets, sm_90 included, and row-cluster-max=1 keep one CTA a row,
// the ONE prefix). A kernel of R rows whose rows hold C / V = N vectors
// (V as usual) takes clusters of K CTAs a row, K the largest size (any,
// not only powers of two) with
//   K <= row-cluster-max (8),  R * K <= 132 (the SMs of an H100 / H200:
//   one wave),  ceil(N / K) >= 2 * max-threads-per-block (512)
// (each CTA keeps at least two vectors a thread of a full CTA), and, for
// heavy slices (ceil(N / K) >= 4 * 512), R <= the clusters of K that fit
// the H200 at once one CTA an SM: 132, 66, 39, 30, 22, 17, 15, 15 for K =
// 1..8 (the driver's count). Rows that also load a weight and a bias
// instead keep K a power of two, without the slot count. K > 1 gives col_blocks = cluster = K,
// rows_per_block 1, and each CTA's slice of ceil(N / K) vectors the usual
// threads and chunks: TPR = clamp(PowerOf2Ceil(slice / 4), 1, 512),
// chunks = ceil(slice / TPR); a slice too wide for registers (f32 16
// vectors a thread, 16-bit rows 4, or 8 in a cluster without a weight and
// a bias) is streamed (TPR 512, 4 vectors a block).
// The lowering is in gpu/distribute-cluster.mlir.

// [16, 131072] bf16 (softmax over a 128k vocabulary, 16 tokens): 16384
// vectors of 8. Slices of 8 and 7 are heavy (2048, 2341 vectors) and 16
// clusters of either do not fit (15): K = 6 (17 fit; 96 CTAs), slices of
// 2731 vectors: 512 threads of 6, in registers. One CTA a row streams it
// in 16384 / 2048 = 8 blocks; with row-cluster-max=2 the slices of 8192
// are streamed in 8192 / 2048 = 4; row-cluster=7 takes 7 all the same.
// CHECK-LABEL: func.func @bf16_16x131072
//  CHECK-SAME:   tile.schedule = {chunks = 6 : i64, cluster = 6 : i64, col_blocks = 6 : i64, l2_prefetch_first = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// ONE-LABEL: func.func @bf16_16x131072
//  ONE-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 8 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// TWO-LABEL: func.func @bf16_16x131072
//  TWO-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 4 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// SEVEN-LABEL: func.func @bf16_16x131072
//  SEVEN-SAME:   tile.schedule = {chunks = 5 : i64, cluster = 7 : i64, col_blocks = 7 : i64, l2_prefetch_first = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @bf16_16x131072(%in: memref<?x131072xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 16, 131072>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x131072xbf16> -> tensor<131072xbf16>
  %f = arith.extf %t : tensor<131072xbf16> to tensor<131072xf32>
  %s = tile.reduce_sum %f : tensor<131072xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// f32: 32768 vectors of 4, K = 6 likewise, 11 vectors a thread (f32 keeps
// up to 16).
// CHECK-LABEL: func.func @f32_16x131072
//  CHECK-SAME:   tile.schedule = {chunks = 11 : i64, cluster = 6 : i64, col_blocks = 6 : i64, l2_prefetch_first = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// ONE-LABEL: func.func @f32_16x131072
//  ONE-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 16 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// TWO-LABEL: func.func @f32_16x131072
//  TWO-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 8 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
func.func @f32_16x131072(%in: memref<?x131072xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 16, 131072>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x131072xf32> -> tensor<131072xf32>
  %s = tile.reduce_sum %t : tensor<131072xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// One row of 1048576 f32: 262144 vectors, K = 8, slices of 32768 still
// too wide: each CTA streams its slice in 32768 / 2048 = 16 blocks (one
// CTA: 128).
// CHECK-LABEL: func.func @f32_1x1048576
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 8 : i64, col_blocks = 8 : i64, rows_per_block = 1 : i64, stream_blocks = 16 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// ONE-LABEL: func.func @f32_1x1048576
//  ONE-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 128 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// TWO-LABEL: func.func @f32_1x1048576
//  TWO-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 64 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
func.func @f32_1x1048576(%in: memref<?x1048576xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 1, 1048576>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1048576xf32> -> tensor<1048576xf32>
  %s = tile.reduce_sum %t : tensor<1048576xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// An odd width: V = 1, 100003 vectors, K = 8 (40 CTAs), slices streamed in
// ceil(100003 / (8 * 2048)) = 7 blocks (the last CTA's slice lies past the
// row: all masked, it contributes zero).
// CHECK-LABEL: func.func @odd_5x100003
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 8 : i64, col_blocks = 8 : i64, rows_per_block = 1 : i64, stream_blocks = 7 : i64, threads_per_row = 512 : i64, vector_width = 1 : i64}
// ONE-LABEL: func.func @odd_5x100003
//  ONE-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 49 : i64, threads_per_row = 512 : i64, vector_width = 1 : i64}
// TWO-LABEL: func.func @odd_5x100003
//  TWO-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 25 : i64, threads_per_row = 512 : i64, vector_width = 1 : i64}
func.func @odd_5x100003(%in: memref<?x100003xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 5, 100003>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x100003xf32> -> tensor<100003xf32>
  %s = tile.reduce_sum %t : tensor<100003xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// 20 rows of 131072 f32 (32768 vectors): 20 clusters of 8, 7 or 6 do not
// fit, 22 of 5 do: K = 5 (100 CTAs), slices of 6554 vectors, 13 a thread.
// CHECK-LABEL: func.func @f32_20x131072
//  CHECK-SAME:   tile.schedule = {chunks = 13 : i64, cluster = 5 : i64, col_blocks = 5 : i64, l2_prefetch_first = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
func.func @f32_20x131072(%in: memref<?x131072xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 20, 131072>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x131072xf32> -> tensor<131072xf32>
  %s = tile.reduce_sum %t : tensor<131072xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// 32 rows of 65536 bf16 (8192 vectors): 32 clusters of 4 do not fit (30),
// 39 of 3 do: K = 3, slices of 2731 vectors, 6 a thread (a cluster's
// 16-bit rows keep up to 8 vectors a thread, not 4).
// CHECK-LABEL: func.func @bf16_32x65536
//  CHECK-SAME:   tile.schedule = {chunks = 6 : i64, cluster = 3 : i64, col_blocks = 3 : i64, l2_prefetch_first = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @bf16_32x65536(%in: memref<?x65536xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 32, 65536>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x65536xbf16> -> tensor<65536xbf16>
  %f = arith.extf %t : tensor<65536xbf16> to tensor<65536xf32>
  %s = tile.reduce_sum %f : tensor<65536xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// Light slices may exceed the clusters that fit: [16, 65536] bf16, 8192
// vectors, K = 8 with slices of 1024 (two vectors a thread; measured
// faster than clusters of 6).
// CHECK-LABEL: func.func @bf16_16x65536
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 8 : i64, col_blocks = 8 : i64, l2_prefetch_first = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
func.func @bf16_16x65536(%in: memref<?x65536xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 16, 65536>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x65536xbf16> -> tensor<65536xbf16>
  %f = arith.extf %t : tensor<65536xbf16> to tensor<65536xf32>
  %s = tile.reduce_sum %f : tensor<65536xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// A row that also loads a weight and a bias (layer_norm's shape) keeps the
// sizes chosen without the slot count (powers of two within a wave; the
// sizes that fit streamed or spilled and measured slower): [16, 131072]
// bf16 in clusters of 8, four vectors a thread.
// CHECK-LABEL: func.func @weights_16x131072
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 8 : i64, col_blocks = 8 : i64, l2_prefetch_first = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @weights_16x131072(%in: memref<?x131072xbf16>, %w: memref<131072xbf16>, %b: memref<131072xbf16>, %out: memref<?x131072xbf16>) attributes {tile.kernel, tile.domain = array<i64: 16, 131072>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x131072xbf16> -> tensor<131072xbf16>
  %f = arith.extf %t : tensor<131072xbf16> to tensor<131072xf32>
  %s = tile.reduce_sum %f : tensor<131072xf32> -> f32
  %sv = tile.splat %s : f32 -> tensor<131072xf32>
  %wt = tile.load %w : memref<131072xbf16> -> tensor<131072xbf16>
  %wf = arith.extf %wt : tensor<131072xbf16> to tensor<131072xf32>
  %bt = tile.load %b : memref<131072xbf16> -> tensor<131072xbf16>
  %bf = arith.extf %bt : tensor<131072xbf16> to tensor<131072xf32>
  %y0 = arith.mulf %f, %sv : tensor<131072xf32>
  %y1 = arith.mulf %y0, %wf : tensor<131072xf32>
  %y2 = arith.addf %y1, %bf : tensor<131072xf32>
  %y = arith.truncf %y2 : tensor<131072xf32> to tensor<131072xbf16>
  tile.store %y, %out[%r] : tensor<131072xbf16> -> memref<?x131072xbf16>
  return
}

// -----

// 66 rows of 32768 bf16 (4096 vectors): 66 * 2 = 132 CTAs fill one wave,
// K = 2 (4 would make 264): slices of 2048, in registers.
// CHECK-LABEL: func.func @rows_66
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, l2_prefetch_first = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// ONE-LABEL: func.func @rows_66
//  ONE-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 2 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// TWO-LABEL: func.func @rows_66
//  TWO-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, l2_prefetch_first = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @rows_66(%in: memref<?x32768xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 66, 32768>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x32768xbf16> -> tensor<32768xbf16>
  %f = arith.extf %t : tensor<32768xbf16> to tensor<32768xf32>
  %s = tile.reduce_sum %f : tensor<32768xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// 67 rows: 134 CTAs would exceed a wave, one CTA a row (streamed).
// CHECK-LABEL: func.func @rows_67
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 2 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// ONE-LABEL: func.func @rows_67
//  ONE-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 2 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// TWO-LABEL: func.func @rows_67
//  TWO-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 2 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @rows_67(%in: memref<?x32768xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 67, 32768>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x32768xbf16> -> tensor<32768xbf16>
  %f = arith.extf %t : tensor<32768xbf16> to tensor<32768xf32>
  %s = tile.reduce_sum %f : tensor<32768xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// The narrowest rows split: 16384 bf16 = 2048 vectors = 2 * 2 * 512 (two
// vectors a thread of a full CTA in each slice), K = 2, slices of 1024.
// (8192 wide, slices of 512 measured slower than one CTA a row.)
// CHECK-LABEL: func.func @bf16_16x16384
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, l2_prefetch_first = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// ONE-LABEL: func.func @bf16_16x16384
//  ONE-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// TWO-LABEL: func.func @bf16_16x16384
//  TWO-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, l2_prefetch_first = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
func.func @bf16_16x16384(%in: memref<?x16384xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 16, 16384>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x16384xbf16> -> tensor<16384xbf16>
  %f = arith.extf %t : tensor<16384xbf16> to tensor<16384xf32>
  %s = tile.reduce_sum %f : tensor<16384xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// 16376 bf16 = 2047 vectors < 2 * 2 * 512: one CTA a row.
// CHECK-LABEL: func.func @bf16_16x16376
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// ONE-LABEL: func.func @bf16_16x16376
//  ONE-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// TWO-LABEL: func.func @bf16_16x16376
//  TWO-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @bf16_16x16376(%in: memref<?x16376xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 16, 16376>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x16376xbf16> -> tensor<16376xbf16>
  %f = arith.extf %t : tensor<16376xbf16> to tensor<16376xf32>
  %s = tile.reduce_sum %f : tensor<16376xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// Kernels without reductions never take a cluster: their column blocks
// are independent CTAs (the schedule is the same on every target).
// CHECK-LABEL: func.func @wide_elementwise
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 512 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
// ONE-LABEL: func.func @wide_elementwise
//  ONE-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 512 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
func.func @wide_elementwise(%in: memref<?x1048576xf32>, %out: memref<?x1048576xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 1048576>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1048576xf32> -> tensor<1048576xf32>
  %y = math.exp %t : tensor<1048576xf32>
  tile.store %y, %out[%r] : tensor<1048576xf32> -> memref<?x1048576xf32>
  return
}
