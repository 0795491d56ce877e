// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a stream-shared=false" %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_80 stream-shared=false" %s | FileCheck %s --check-prefix=ONE
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90 stream-shared=false" %s | FileCheck %s --check-prefix=ONE
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a row-cluster-max=1 stream-shared=false" %s | FileCheck %s --check-prefix=ONE
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a row-cluster-max=2 stream-shared=false" %s | FileCheck %s --check-prefix=TWO

// row-cluster-max is a power of two up to 8 (the portable cluster size).
// RUN: not tilec-opt --tilec-schedule-row-kernels="target=sm_90a row-cluster-max=16" %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not tilec-opt --tilec-schedule-row-kernels="target=sm_90a row-cluster-max=3" %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not tilec-opt --tilec-schedule-row-kernels="target=sm_90a row-cluster-max=0" %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: 'func.func' op bad schedule options: {{.*}}row-cluster-max a power of two up to 8

// Rows with reductions split over a thread-block cluster (sm_90a only:
// other targets, sm_90 included, and row-cluster-max=1 keep one CTA a row,
// the ONE prefix). A kernel of R rows whose rows hold C / V = N vectors
// (V as usual) takes clusters of K CTAs a row, K the largest power of two
// with
//   K <= row-cluster-max (8),  R * K <= 132 (the SMs of an H100 / H200:
//   one wave),  N >= K * max-threads-per-block (512)
// (each CTA keeps at least one vector a thread of a full CTA). K > 1 gives
// col_blocks = cluster = K, rows_per_block 1, and each CTA's slice of
// ceil(N / K) vectors the usual threads and chunks: TPR =
// clamp(PowerOf2Ceil(slice / 4), 1, 512), chunks = ceil(slice / TPR); a
// slice still too wide for registers is streamed (TPR 512, 4 vectors a
// block, stream_blocks = ceil(N / (K * 2048))). The lowering is in
// gpu/distribute-cluster.mlir.

// [16, 131072] bf16 (softmax over a 128k vocabulary, 16 tokens): 16384
// vectors of 8. K = 8 (16 * 8 = 128 CTAs), slices of 2048 vectors: 512
// threads of 4 (the bf16 limit), in registers. One CTA a row streams it in
// 16384 / 2048 = 8 blocks; with row-cluster-max=2 the slices of 8192 are
// streamed in 8192 / 2048 = 4.
// CHECK-LABEL: func.func @bf16_16x131072
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 8 : i64, col_blocks = 8 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// ONE-LABEL: func.func @bf16_16x131072
//  ONE-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 8 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// TWO-LABEL: func.func @bf16_16x131072
//  TWO-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 4 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @bf16_16x131072(%in: memref<?x131072xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 16, 131072>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x131072xbf16> -> tensor<131072xbf16>
  %f = arith.extf %t : tensor<131072xbf16> to tensor<131072xf32>
  %s = tile.reduce_sum %f : tensor<131072xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// f32: 32768 vectors of 4, K = 8, 8 vectors a thread (f32 keeps up to 16).
// CHECK-LABEL: func.func @f32_16x131072
//  CHECK-SAME:   tile.schedule = {chunks = 8 : i64, cluster = 8 : i64, col_blocks = 8 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
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

// 66 rows of 32768 bf16 (4096 vectors): 66 * 2 = 132 CTAs fill one wave,
// K = 2 (4 would make 264): slices of 2048, in registers.
// CHECK-LABEL: func.func @rows_66
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// ONE-LABEL: func.func @rows_66
//  ONE-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 2 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// TWO-LABEL: func.func @rows_66
//  TWO-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
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
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// ONE-LABEL: func.func @bf16_16x16384
//  ONE-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// TWO-LABEL: func.func @bf16_16x16384
//  TWO-SAME:   tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
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
