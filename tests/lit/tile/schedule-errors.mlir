// RUN: tilec-opt --split-input-file --verify-diagnostics --tilec-schedule-row-kernels="few-rows=0 stream-shared=false" %s | FileCheck %s
// RUN: tilec-opt --split-input-file --verify-diagnostics --tilec-schedule-row-kernels="few-rows=0 max-chunks-per-thread=64 stream-shared=false" %s | FileCheck %s --check-prefix=C64

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
// vectors / 256 threads (the elementwise CTA cap) = 1024 per thread >
// target 8 / 4 = 2, so col_blocks = 1024 / 2 = 512 CTAs per row, 2 vectors
// per thread; never streamed.
// CHECK-LABEL: func.func @wide_elementwise
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 512 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
func.func @wide_elementwise(%in: memref<?x1048576xf32>, %out: memref<?x1048576xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 1048576>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1048576xf32> -> tensor<1048576xf32>
  tile.store %t, %out[%r] : tensor<1048576xf32> -> memref<?x1048576xf32>
  return
}

// -----

// 16-bit rows keep at most max-chunks-per-thread * 4 / (V * 2) vectors a
// thread in registers (their values are f32 in registers): 16 * 4 / 16 = 4
// for bf16 with V = 8 by default, 64 * 4 / 16 = 16 with
// max-chunks-per-thread=64 (C64). f32 rows keep max-chunks-per-thread (16).
//
// 16384 bf16 = 2048 vectors of 8 / 512 threads = 4 per thread: the largest
// reducing bf16 row that fits in registers by default (stream_blocks = 0).
// CHECK-LABEL: func.func @bf16_widest_that_fits
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// C64-LABEL: func.func @bf16_widest_that_fits
//  C64-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @bf16_widest_that_fits(%in: memref<?x16384xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 16384>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x16384xbf16> -> tensor<16384xbf16>
  %f = arith.extf %t : tensor<16384xbf16> to tensor<16384xf32>
  %s = tile.reduce_sum %f : tensor<16384xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// One vector more per thread (20480 = 512 * 5 * 8): 5 > 4, streamed in
// blocks of 512 * 4 = 2048 vectors: ceil(2560 / 2048) = 2 (the last
// partial). With C64 it fits (5 <= 16).
// CHECK-LABEL: func.func @bf16_one_chunk_too_many
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 2 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// C64-LABEL: func.func @bf16_one_chunk_too_many
//  C64-SAME:   tile.schedule = {chunks = 5 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @bf16_one_chunk_too_many(%in: memref<?x20480xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 20480>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x20480xbf16> -> tensor<20480xbf16>
  %f = arith.extf %t : tensor<20480xbf16> to tensor<20480xf32>
  %m = tile.reduce_max %f : tensor<20480xf32> -> f32
  tile.store %m, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// 32768 f32 = 8192 vectors of 4 / 512 threads = 16 per thread: the largest
// reducing f32 row that fits in registers, held by 1024 threads (8 each).
// CHECK-LABEL: func.func @f32_widest_that_fits
//  CHECK-SAME:   tile.schedule = {chunks = 8 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 1024 : i64, vector_width = 4 : i64}
func.func @f32_widest_that_fits(%in: memref<?x32768xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 32768>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x32768xf32> -> tensor<32768xf32>
  %s = tile.reduce_sum %t : tensor<32768xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// One vector more per thread (34816 = 512 * 17 * 4): 17 > 16, streamed:
// ceil(8704 / 2048) = 5 blocks.
// CHECK-LABEL: func.func @f32_one_chunk_too_many
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 5 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
func.func @f32_one_chunk_too_many(%in: memref<?x34816xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 34816>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x34816xf32> -> tensor<34816xf32>
  %m = tile.reduce_max %t : tensor<34816xf32> -> f32
  tile.store %m, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// 65536 bf16 = 8192 vectors of 8 / 512 threads = 16 per thread: streamed by
// default (16 > 4, 8192 / 2048 = 4 blocks); with C64 the largest reducing
// bf16 row that still fits in registers (stream_blocks = 0), on 1024
// threads (128 values a thread at 512).
// CHECK-LABEL: func.func @widest_that_fits
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 4 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// C64-LABEL: func.func @widest_that_fits
//  C64-SAME:   tile.schedule = {chunks = 8 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 1024 : i64, vector_width = 8 : i64}
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
// thread, one more than fits with C64, so the row is streamed (by default
// too): 8704 vectors in blocks of 512 * 4 = 2048 vectors, stream_blocks =
// ceil(8704 / 2048) = 5 (the last block is partial).
// CHECK-LABEL: func.func @one_chunk_too_many
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 5 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// C64-LABEL: func.func @one_chunk_too_many
//  C64-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 5 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
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
