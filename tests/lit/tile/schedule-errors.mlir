// RUN: tilec-opt --split-input-file --verify-diagnostics --tilec-schedule-row-kernels="few-rows=0" %s | FileCheck %s

// few-rows=0: these 2-row kernels pin the schedule of many-row kernels
// (schedule-few-rows.mlir covers the few-rows rule).

// Only kernels with a reduction keep a whole row in one CTA, so only they can
// run out of registers. A row too long for the register-resident schedule:
// 1048576 f32 = 262144 vectors of 4, over at most 512 threads (the default
// max-threads-per-block) = 512 vectors per thread > 16 (max-chunks-per-thread).
// It is not an error: the row is streamed (multi-pass). TPR = 512, chunks =
// min(4, 16) = 4, one row per CTA, stream_blocks = 262144 / (512 * 4) = 128.
// CHECK-LABEL: func.func @too_wide
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 128 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
func.func @too_wide(%in: memref<?x1048576xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 1048576>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1048576xf32> -> tensor<1048576xf32>
  %s = tile.reduce_sum %t : tensor<1048576xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// The same row without a reduction is split over CTAs instead: 262144
// vectors / 512 threads = 512 per thread > target 4, so col_blocks =
// 512 / 4 = 128 CTAs per row, 4 vectors per thread; never streamed.
// CHECK-LABEL: func.func @wide_elementwise
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 128 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
func.func @wide_elementwise(%in: memref<?x1048576xf32>, %out: memref<?x1048576xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 1048576>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1048576xf32> -> tensor<1048576xf32>
  tile.store %t, %out[%r] : tensor<1048576xf32> -> memref<?x1048576xf32>
  return
}

// -----

// 65536 bf16 = 8192 vectors of 8 / 512 threads = 16 per thread: the largest
// reducing row that still fits in registers (stream_blocks = 0).
// CHECK-LABEL: func.func @widest_that_fits
//  CHECK-SAME:   tile.schedule = {chunks = 16 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @widest_that_fits(%in: memref<?x65536xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 65536>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x65536xbf16> -> tensor<65536xbf16>
  %f = arith.extf %t : tensor<65536xbf16> to tensor<65536xf32>
  %s = tile.reduce_sum %f : tensor<65536xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// One element more per vector lane (69632 = 512 * 17 * 8): 17 vectors per
// thread, one more than fits, so the row is streamed: 8704 vectors in blocks
// of 512 * 4 = 2048 vectors, stream_blocks = ceil(8704 / 2048) = 5 (the last
// block is partial).
// CHECK-LABEL: func.func @one_chunk_too_many
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 5 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @one_chunk_too_many(%in: memref<?x69632xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 69632>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x69632xbf16> -> tensor<69632xbf16>
  %f = arith.extf %t : tensor<69632xbf16> to tensor<69632xf32>
  %m = tile.reduce_max %f : tensor<69632xf32> -> f32
  tile.store %m, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// expected-error @+1 {{'func.func' op tile kernel has no tile.domain}}
func.func @no_domain(%in: memref<?x64xf32>) attributes {tile.kernel} {
  return
}
