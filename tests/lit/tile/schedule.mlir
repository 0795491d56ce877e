// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="row-chunks=4 few-rows=0" %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="row-chunks=4 few-rows=0 max-threads-per-block=256 min-threads-per-block=32" %s | FileCheck %s --check-prefix=OPTS
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="row-chunks=4 few-rows=0 elementwise-threads-per-block=512 elementwise-elements=16" %s | FileCheck %s --check-prefix=EW16
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="row-chunks=4 few-rows=0 elementwise-threads-per-block=64" %s | FileCheck %s --check-prefix=EW64
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="row-chunks=4 few-rows=0 elementwise-threads-per-block=1024" %s | FileCheck %s --check-prefix=EW1024

// tile.schedule for a few row shapes. The rule (ScheduleRowKernels.cpp):
//   V      = 16 bytes / widest element moved along the row, halved until it
//            divides C
//   target = vectors each thread aims to hold: row-chunks (4) in kernels
//            with a reduction (tile.reduce_sum/max), else
//            max(1, elementwise-elements / V) (default 8: ~8 elements, so 1
//            vector of bf16, 2 of f32); raised for windowed rows, see
//            schedule-windows.mlir
//   maxT   = max-threads-per-block (512) with a reduction, else
//            min(max-threads-per-block, elementwise-threads-per-block (256))
//   TPR    = clamp(PowerOf2Ceil(ceil(C / V / target)), 1, maxT)
//   chunks = ceil(C / V / TPR)
//   col_blocks = 1, except without reductions when chunks > target (TPR was
//            capped): col_blocks = ceil(chunks / target) CTAs share a row and
//            chunks = ceil(C / V / (TPR * col_blocks))
//   stream_blocks = 0, except with reductions when chunks > the resident
//            limit (max-chunks-per-thread, 16, for f32; 16 * 4 / (V * 2) = 4
//            for 16-bit rows): the row is streamed, see
//            schedule-streaming.mlir
//   rows_per_block = 1 if col_blocks > 1 or stream_blocks > 0, else
//            max(1, clamp(TPR, min(min-threads, maxT), maxT) / TPR)
// Defaults: max-threads-per-block 512, min-threads-per-block 128,
// elementwise-threads-per-block 256, elementwise-elements 8.
// EW16 runs the elementwise schedule before the measurements
// (elementwise-threads-per-block=512 elementwise-elements=16: ~16 elements a
// thread, CTAs of up to 512 threads); EW64 and EW1024 move the elementwise
// CTA cap (kernels with reductions ignore it).
// Kernels with at most few-rows rows use target 1 instead (see
// schedule-few-rows.mlir). few-rows defaults to 0 (off), but the domains here
// are small (some of 2-16 rows), so this file pins the rule above with an
// explicit few-rows=0.

// cols = 4096 bf16, no reduction: V = 8, target max(1, 8 / 8) = 1, C/V = 512,
// TPR would be 512, capped at 256 (elementwise CTAs), so chunks 2 > target:
// col_blocks 2 CTAs per row, one vector per thread. With
// max-threads-per-block=256 nothing changes.
// CHECK-LABEL: func.func @bf16_4096
//  CHECK-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// OPTS-LABEL: func.func @bf16_4096
//  OPTS-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// With EW16, target 2, TPR 256, chunks 2, the row in one CTA.
// EW16-LABEL: func.func @bf16_4096
//  EW16-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// With EW64, TPR 64, 8 > 1 vectors a thread, col_blocks 8.
// EW64-LABEL: func.func @bf16_4096
//  EW64-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 8 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 64 : i64, vector_width = 8 : i64}
// With EW1024 the cap is still max-threads-per-block (512): TPR 512, chunks 1,
// col_blocks 1.
// EW1024-LABEL: func.func @bf16_4096
//  EW1024-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @bf16_4096(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 8192, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  tile.store %t, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// cols = 4096 f32: V = 4, target 8 / 4 = 2, C/V = 1024, TPR would be 512,
// capped at 256: chunks 4 > 2, col_blocks 2, chunks 2. EW16 (target 4):
// TPR 256, chunks 4.
// CHECK-LABEL: func.func @f32_4096
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
// EW16-LABEL: func.func @f32_4096
//  EW16-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
func.func @f32_4096(%in: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 8192, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xf32> -> tensor<4096xf32>
  tile.store %t, %out[%r] : tensor<4096xf32> -> memref<?x4096xf32>
  return
}

// -----

// cols = 7 f32 (odd), no reduction: V = 1, target 8,
// TPR = PowerOf2Ceil(ceil(7/8)) = 1, chunks 7, CTAs of 128 threads = 128
// rows. With min-threads-per-block=32: 32 rows. EW16 (target 16): the same.
// With EW64 the CTA minimum is capped by the elementwise maximum: 64 rows.
// CHECK-LABEL: func.func @f32_7
//  CHECK-SAME:   tile.schedule = {chunks = 7 : i64, col_blocks = 1 : i64, rows_per_block = 128 : i64, stream_blocks = 0 : i64, threads_per_row = 1 : i64, vector_width = 1 : i64}
// OPTS-LABEL: func.func @f32_7
//  OPTS-SAME:   tile.schedule = {chunks = 7 : i64, col_blocks = 1 : i64, rows_per_block = 32 : i64, stream_blocks = 0 : i64, threads_per_row = 1 : i64, vector_width = 1 : i64}
// EW16-LABEL: func.func @f32_7
//  EW16-SAME:   tile.schedule = {chunks = 7 : i64, col_blocks = 1 : i64, rows_per_block = 128 : i64, stream_blocks = 0 : i64, threads_per_row = 1 : i64, vector_width = 1 : i64}
// EW64-LABEL: func.func @f32_7
//  EW64-SAME:   tile.schedule = {chunks = 7 : i64, col_blocks = 1 : i64, rows_per_block = 64 : i64, stream_blocks = 0 : i64, threads_per_row = 1 : i64, vector_width = 1 : i64}
func.func @f32_7(%in: memref<?x7xf32>, %out: memref<?x7xf32>) attributes {tile.kernel, tile.domain = array<i64: 5, 7>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x7xf32> -> tensor<7xf32>
  tile.store %t, %out[%r] : tensor<7xf32> -> memref<?x7xf32>
  return
}

// -----

// cols = 1000 f32: V = 4, C/V = 250, target 2, TPR = PowerOf2Ceil(125) =
// 128, chunks = ceil(250/128) = 2 (the last chunk is partial), one row per
// CTA of 128 threads (also with min-threads-per-block=32). EW16 (target 4):
// TPR = PowerOf2Ceil(63) = 64, chunks 4, 2 rows per CTA.
// CHECK-LABEL: func.func @f32_1000
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 128 : i64, vector_width = 4 : i64}
// OPTS-LABEL: func.func @f32_1000
//  OPTS-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 128 : i64, vector_width = 4 : i64}
// EW16-LABEL: func.func @f32_1000
//  EW16-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 2 : i64, stream_blocks = 0 : i64, threads_per_row = 64 : i64, vector_width = 4 : i64}
func.func @f32_1000(%in: memref<?x1000xf32>, %out: memref<?x1000xf32>) attributes {tile.kernel, tile.domain = array<i64: 3, 1000>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1000xf32> -> tensor<1000xf32>
  tile.store %t, %out[%r] : tensor<1000xf32> -> memref<?x1000xf32>
  return
}

// -----

// cols = 64 f32: V = 4, 16 vectors, target 2, TPR = 8, chunks 2, 16 rows
// per CTA (4 with min-threads 32, 8 with EW64's CTAs of 64 threads). EW16
// (target 4): TPR 4, chunks 4, 32 rows per CTA.
// CHECK-LABEL: func.func @f32_64
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}
// OPTS-LABEL: func.func @f32_64
//  OPTS-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 4 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}
// EW16-LABEL: func.func @f32_64
//  EW16-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 32 : i64, stream_blocks = 0 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}
// EW64-LABEL: func.func @f32_64
//  EW64-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 8 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}
func.func @f32_64(%in: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x64xf32> -> tensor<64xf32>
  tile.store %t, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// cols = 6 bf16: V = 8 -> 4 -> 2, target 8 / 2 = 4 (8 with EW16), C/V = 3,
// TPR = 1, chunks 3, 128 rows/CTA.
// CHECK-LABEL: func.func @bf16_6
//  CHECK-SAME:   tile.schedule = {chunks = 3 : i64, col_blocks = 1 : i64, rows_per_block = 128 : i64, stream_blocks = 0 : i64, threads_per_row = 1 : i64, vector_width = 2 : i64}
// EW16-LABEL: func.func @bf16_6
//  EW16-SAME:   tile.schedule = {chunks = 3 : i64, col_blocks = 1 : i64, rows_per_block = 128 : i64, stream_blocks = 0 : i64, threads_per_row = 1 : i64, vector_width = 2 : i64}
func.func @bf16_6(%in: memref<?x6xbf16>, %out: memref<?x6xbf16>) attributes {tile.kernel, tile.domain = array<i64: 5, 6>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x6xbf16> -> tensor<6xbf16>
  tile.store %t, %out[%r] : tensor<6xbf16> -> memref<?x6xbf16>
  return
}

// -----

// The widest element type along the row sets V: bf16 rows with an f32
// weight vector get V = 4 (16 bytes of f32), not 8, and the schedule of
// @f32_4096 (target 2: TPR 256, col_blocks 2, chunks 2; chunks 4 with EW16).
// Per-row scalars (memref<?x1xT>) do not count.
// CHECK-LABEL: func.func @mixed_widths
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
// EW16-LABEL: func.func @mixed_widths
//  EW16-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
func.func @mixed_widths(%in: memref<?x4096xbf16>, %w: memref<4096xf32>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 16, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  tile.store %t, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @row_scalar_not_counted
//  CHECK-SAME:   threads_per_row = 256 : i64, vector_width = 8 : i64
func.func @row_scalar_not_counted(%in: memref<?x4096xbf16>, %s: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 16, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %x = tile.load %s[%r] : memref<?x1xf32> -> f32
  tile.store %x, %s[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// cols = 16384 f32, no reduction: C/V = 4096, target 2, TPR would be 2048;
// the elementwise cap (256) caps TPR, chunks would be 16 > target 2, so the
// row is split over col_blocks = 8 CTAs of 256 threads, 2 vectors each (the
// same with max-threads-per-block=256). With EW1024 (cap 512): 8 > 2,
// col_blocks 4. EW16 (target 4, cap 512): TPR 512, 8 > 4, col_blocks 2,
// chunks 4.
// CHECK-LABEL: func.func @f32_16384
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 8 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
// OPTS-LABEL: func.func @f32_16384
//  OPTS-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 8 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
// EW16-LABEL: func.func @f32_16384
//  EW16-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// EW1024-LABEL: func.func @f32_16384
//  EW1024-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 4 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
func.func @f32_16384(%in: memref<?x16384xf32>, %out: memref<?x16384xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 16384>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x16384xf32> -> tensor<16384xf32>
  tile.store %t, %out[%r] : tensor<16384xf32> -> memref<?x16384xf32>
  return
}

// -----

// Kernels with a reduction keep target 4 and a whole row in one CTA
// (col_blocks = 1). cols = 4096 bf16 (upcast to reduce): V = 8, TPR = 128,
// chunks 4 (the elementwise @bf16_4096 above gets TPR 256, col_blocks 2,
// chunks 1). 4 vectors is also the most a 16-bit row keeps in registers
// (16 * 4 / (8 * 2)): not streamed. The elementwise options change nothing.
// CHECK-LABEL: func.func @bf16_4096_reduce
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 128 : i64, vector_width = 8 : i64}
// OPTS-LABEL: func.func @bf16_4096_reduce
//  OPTS-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 128 : i64, vector_width = 8 : i64}
// EW16-LABEL: func.func @bf16_4096_reduce
//  EW16-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 128 : i64, vector_width = 8 : i64}
// EW64-LABEL: func.func @bf16_4096_reduce
//  EW64-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 128 : i64, vector_width = 8 : i64}
func.func @bf16_4096_reduce(%in: memref<?x4096xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 8192, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %f = arith.extf %t : tensor<4096xbf16> to tensor<4096xf32>
  %s = tile.reduce_sum %f : tensor<4096xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// tile.reduce_max counts as a reduction too. cols = 7 f32: V = 1, target 4,
// TPR = PowerOf2Ceil(ceil(7/4)) = 2, chunks 4, CTAs of 128 threads = 64 rows
// (16 with min-threads-per-block=32). EW64 does not cap its CTAs: 64 rows.
// CHECK-LABEL: func.func @f32_7_reduce_max
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 64 : i64, stream_blocks = 0 : i64, threads_per_row = 2 : i64, vector_width = 1 : i64}
// OPTS-LABEL: func.func @f32_7_reduce_max
//  OPTS-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 2 : i64, vector_width = 1 : i64}
// EW64-LABEL: func.func @f32_7_reduce_max
//  EW64-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 64 : i64, stream_blocks = 0 : i64, threads_per_row = 2 : i64, vector_width = 1 : i64}
func.func @f32_7_reduce_max(%in: memref<?x7xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 5, 7>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x7xf32> -> tensor<7xf32>
  %m = tile.reduce_max %t : tensor<7xf32> -> f32
  tile.store %m, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// cols = 16384 f32 with a reduction: TPR would be 1024, capped at 512, so
// each thread holds 8 vectors; the row stays in one CTA. With
// max-threads-per-block=256: 16 vectors (still within the limit of 16 for
// f32). EW64 does not apply: TPR 512.
// CHECK-LABEL: func.func @f32_16384_reduce
//  CHECK-SAME:   tile.schedule = {chunks = 8 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// OPTS-LABEL: func.func @f32_16384_reduce
//  OPTS-SAME:   tile.schedule = {chunks = 16 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}
// EW64-LABEL: func.func @f32_16384_reduce
//  EW64-SAME:   tile.schedule = {chunks = 8 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
func.func @f32_16384_reduce(%in: memref<?x16384xf32>, %out: memref<?x16384xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 16384>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x16384xf32> -> tensor<16384xf32>
  %s = tile.reduce_sum %t : tensor<16384xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<16384xf32>
  %y = arith.mulf %t, %b : tensor<16384xf32>
  tile.store %y, %out[%r] : tensor<16384xf32> -> memref<?x16384xf32>
  return
}

// -----

// Functions without tile.kernel (the host) are not scheduled.
// CHECK-LABEL: func.func @host
//   CHECK-NOT:   tile.schedule
//       CHECK:   return
func.func @host(%x: tensor<4x64xf32>) -> tensor<4x64xf32> attributes {tile.domain = array<i64: 4, 64>} {
  return %x : tensor<4x64xf32>
}
