// Streaming (multi-pass) schedules. A row with a reduction that needs more
// than max-chunks-per-thread vectors per thread at max-threads-per-block
// threads no longer fails ("too wide ... multi-pass schedule"): it is
// streamed over column blocks. Rows of 16-bit types (the widest element moved
// along the row narrower than 4 bytes) are streamed sooner, beyond
// clamp(max-chunks-per-thread * 4 / (V * bytes), 1, max-chunks-per-thread)
// vectors a thread (4 for bf16 with V = 8 by default). Streamed rows get
//   threads_per_row = max-threads-per-block, chunks = min(4, max-chunks-per-thread),
//   rows_per_block = 1, col_blocks = 1,
//   stream_blocks = ceil(C / V / (threads_per_row * chunks)).
// Register-resident rows, and kernels without reductions (which split the
// row over col_blocks CTAs instead), get stream_blocks = 0.

// The kernels below have 2 rows; few-rows=0 (also the default) pins the
// schedule of many-row kernels. With few-rows=64 streaming is unchanged (FEW),
// only wide rows without a reduction get target 1 (see
// schedule-few-rows.mlir).
// RUN: tilec-opt --tilec-schedule-row-kernels="few-rows=0 stream-shared=false" %s | FileCheck %s
// RUN: tilec-opt --tilec-schedule-row-kernels="few-rows=0 max-chunks-per-thread=8 stream-shared=false" %s | FileCheck %s --check-prefix=EIGHT
// RUN: tilec-opt --tilec-schedule-row-kernels="few-rows=0 max-chunks-per-thread=2 stream-shared=false" %s | FileCheck %s --check-prefix=TWO
// RUN: tilec-opt --tilec-schedule-row-kernels="few-rows=0 max-threads-per-block=256 stream-shared=false" %s | FileCheck %s --check-prefix=T256
// RUN: tilec-opt --tilec-schedule-row-kernels="few-rows=64 stream-shared=false" %s | FileCheck %s --check-prefix=FEW

// These RUN lines pin stream-shared=false (staging the row in shared memory
// does not change the streaming decisions). By default (stream-shared=auto)
// a streamed row whose CTA slices fit in 112 KB is also staged:
// @bf16_streamed (32768 bf16: 64 KB) gets stream_shared = 1 and its
// shared_bytes; the f32 rows of 1048576 (4 MB) do not (AUTO below).
// RUN: tilec-opt --tilec-schedule-row-kernels="few-rows=0" %s | FileCheck %s --check-prefix=AUTO
// RUN: not tilec-opt --tilec-schedule-row-kernels="stream-shared=yes" %s 2>&1 | FileCheck %s --check-prefix=BADSHARED
// BADSHARED: error: stream-shared must be auto, true or false, got 'yes'

// The limit must be at least 1; the elementwise CTA cap a power of two.
// RUN: not tilec-opt --tilec-schedule-row-kernels=max-chunks-per-thread=0 %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not tilec-opt --tilec-schedule-row-kernels=elementwise-threads-per-block=384 %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: 'func.func' op bad schedule options: need powers of two with 1 <= min-threads-per-block <= max-threads-per-block <= 1024 and max-chunks-per-thread, elementwise-elements >= 1, row-chunks >= 0, {{.*}}max-registers 0 or in [24, 255]

// 32768 f32 = 8192 vectors of 4 / 512 threads = 16 per thread: fits the
// default limit (16), in registers; 64 values a thread take 1024 threads
// instead (8 vectors each, half the registers). With a limit of 8 it is streamed in
// 8192 / (512 * 4) = 4 blocks; with a limit of 2, chunks = 2 and 8 blocks.
// With 256 threads per CTA: 32 vectors per thread > 16, 8192 / (256 * 4) = 8
// blocks.
// CHECK-LABEL: func.func @sixteen
//  CHECK-SAME:   tile.schedule = {chunks = 8 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 1024 : i64, vector_width = 4 : i64}
// EIGHT-LABEL: func.func @sixteen
//  EIGHT-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 4 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// TWO-LABEL: func.func @sixteen
//  TWO-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 8 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// T256-LABEL: func.func @sixteen
//  T256-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 8 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
// With few rows: 8192 vectors / 512 threads = 16 per thread, still in
// registers (target 1 only matters below the TPR cap), on 1024 threads.
// FEW-LABEL: func.func @sixteen
//  FEW-SAME:   tile.schedule = {chunks = 8 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 1024 : i64, vector_width = 4 : i64}
func.func @sixteen(%in: memref<?x32768xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 32768>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x32768xf32> -> tensor<32768xf32>
  %s = tile.reduce_sum %t : tensor<32768xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// 1048576 f32 = 262144 vectors / 512 threads = 512 per thread: streamed at
// any of these limits. 262144 / (512 * 4) = 128 blocks; 262144 / (512 * 2) =
// 256 with chunks = 2; 262144 / (256 * 4) = 256 with 256 threads.
// CHECK-LABEL: func.func @too_wide
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 128 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// AUTO-LABEL: func.func @too_wide
//  AUTO-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 128 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// EIGHT-LABEL: func.func @too_wide
//  EIGHT-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 128 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// TWO-LABEL: func.func @too_wide
//  TWO-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 256 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// T256-LABEL: func.func @too_wide
//  T256-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 256 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
// FEW-LABEL: func.func @too_wide
//  FEW-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 128 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
func.func @too_wide(%in: memref<?x1048576xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 1048576>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1048576xf32> -> tensor<1048576xf32>
  %s = tile.reduce_sum %t : tensor<1048576xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// An odd row, 32769 f32: V = 1, 32769 vectors, streamed in
// ceil(32769 / 2048) = 17 blocks (the last holds a single element);
// ceil(32769 / 1024) = 33 with chunks = 2 or with 256 threads.
// CHECK-LABEL: func.func @odd_width
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 17 : i64, threads_per_row = 512 : i64, vector_width = 1 : i64}
// EIGHT-LABEL: func.func @odd_width
//  EIGHT-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 17 : i64, threads_per_row = 512 : i64, vector_width = 1 : i64}
// TWO-LABEL: func.func @odd_width
//  TWO-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 33 : i64, threads_per_row = 512 : i64, vector_width = 1 : i64}
// T256-LABEL: func.func @odd_width
//  T256-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 33 : i64, threads_per_row = 256 : i64, vector_width = 1 : i64}
// FEW-LABEL: func.func @odd_width
//  FEW-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 17 : i64, threads_per_row = 512 : i64, vector_width = 1 : i64}
func.func @odd_width(%in: memref<?x32769xf32>, %out: memref<?x32769xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 32769>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x32769xf32> -> tensor<32769xf32>
  %m = tile.reduce_max %t : tensor<32769xf32> -> f32
  %b = tile.splat %m : f32 -> tensor<32769xf32>
  %y = arith.subf %t, %b : tensor<32769xf32>
  tile.store %y, %out[%r] : tensor<32769xf32> -> memref<?x32769xf32>
  return
}

// Without a reduction the same wide row is never streamed: it is split over
// col_blocks CTAs of at most elementwise-threads-per-block (256) threads,
// with target min(max(1, 8 / V), limit) = 2 vectors per thread under every
// limit here: 262144 / 256 = 1024 vectors a thread, col_blocks 512.
// CHECK-LABEL: func.func @wide_elementwise
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 512 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
// EIGHT-LABEL: func.func @wide_elementwise
//  EIGHT-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 512 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
// TWO-LABEL: func.func @wide_elementwise
//  TWO-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 512 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
// T256-LABEL: func.func @wide_elementwise
//  T256-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 512 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
// With few rows: target 1, so 1024 vectors per thread give col_blocks 1024
// CTAs of one vector per thread.
// FEW-LABEL: func.func @wide_elementwise
//  FEW-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1024 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
func.func @wide_elementwise(%in: memref<?x1048576xf32>, %out: memref<?x1048576xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 1048576>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1048576xf32> -> tensor<1048576xf32>
  %y = math.exp %t : tensor<1048576xf32>
  tile.store %y, %out[%r] : tensor<1048576xf32> -> memref<?x1048576xf32>
  return
}

// 16-bit rows. 16384 bf16 = 2048 vectors of 8 / 512 threads = 4 per thread:
// within the bf16 limit 16 * 4 / 16 = 4, in registers (also with few rows).
// With max-chunks-per-thread=8 the limit is 8 * 4 / 16 = 2: streamed in
// blocks of min(4, 2) = 2 vectors a thread (a streamed block never holds
// more than the 16-bit limit), 2048 / 1024 = 2 blocks; with 2 the limit is
// 2 * 4 / 16 = 0, clamped to 1: chunks 1, 2048 / 512 = 4 blocks. With 256 threads:
// 8 per thread > 4, 2048 / (256 * 4) = 2 blocks.
// CHECK-LABEL: func.func @bf16_resident
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// EIGHT-LABEL: func.func @bf16_resident
//  EIGHT-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 2 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// TWO-LABEL: func.func @bf16_resident
//  TWO-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 4 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// T256-LABEL: func.func @bf16_resident
//  T256-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 2 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// FEW-LABEL: func.func @bf16_resident
//  FEW-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @bf16_resident(%in: memref<?x16384xbf16>, %out: memref<?x16384xbf16>) attributes {tile.kernel, tile.domain = array<i64: 2, 16384>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x16384xbf16> -> tensor<16384xbf16>
  %f = arith.extf %t : tensor<16384xbf16> to tensor<16384xf32>
  %s = tile.reduce_sum %f : tensor<16384xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<16384xf32>
  %y = arith.mulf %f, %b : tensor<16384xf32>
  %o = arith.truncf %y : tensor<16384xf32> to tensor<16384xbf16>
  tile.store %o, %out[%r] : tensor<16384xbf16> -> memref<?x16384xbf16>
  return
}

// 32768 bf16 = 4096 vectors / 512 threads = 8 per thread > 4 (an f32 row of
// 8 vectors a thread stays in registers, see @sixteen): streamed in
// 4096 / 2048 = 2 blocks; 4096 / 1024 = 4 with chunks = 2 (limit 2) or
// with 256 threads; 4096 / 512 = 8 with chunks = 1 (limit 1).
// CHECK-LABEL: func.func @bf16_streamed
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 2 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// AUTO-LABEL: func.func @bf16_streamed
//  AUTO-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, shared_bytes = 65536 : i64, stream_blocks = 2 : i64, stream_shared = 1 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// EIGHT-LABEL: func.func @bf16_streamed
//  EIGHT-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 4 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// TWO-LABEL: func.func @bf16_streamed
//  TWO-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 8 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// T256-LABEL: func.func @bf16_streamed
//  T256-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 4 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// FEW-LABEL: func.func @bf16_streamed
//  FEW-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 2 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @bf16_streamed(%in: memref<?x32768xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 32768>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x32768xbf16> -> tensor<32768xbf16>
  %f = arith.extf %t : tensor<32768xbf16> to tensor<32768xf32>
  %s = tile.reduce_sum %f : tensor<32768xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}
