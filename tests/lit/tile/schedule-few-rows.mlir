// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="row-chunks=4 few-rows=64 elementwise-threads-per-block=512 elementwise-elements=16" %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="row-chunks=4 few-rows=0 elementwise-threads-per-block=512 elementwise-elements=16" %s | FileCheck %s --check-prefix=OFF
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="row-chunks=4 elementwise-threads-per-block=512 elementwise-elements=16" %s | FileCheck %s --check-prefix=OFF
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="row-chunks=4 few-rows=16 elementwise-threads-per-block=512 elementwise-elements=16" %s | FileCheck %s --check-prefix=F16
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="row-chunks=4 few-rows=64 max-threads-per-block=1024 elementwise-threads-per-block=1024 elementwise-elements=16" %s | FileCheck %s --check-prefix=T1024
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels=row-chunks=4 %s | FileCheck %s --check-prefix=DEF
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="row-chunks=4 few-rows=64" %s | FileCheck %s --check-prefix=DEF64

// Few-rows (decode-size) schedules. When the kernel's row count R (the
// product of tile.domain's leading dimensions) is <= few-rows, the kernel
// cannot fill the GPU and is latency bound, so the chunk target becomes 1:
// each row is spread over as many threads as possible,
//   TPR    = clamp(PowerOf2Ceil(C / V), 1, maxT)
// (maxT: max-threads-per-block, for kernels without reductions also at most
// elementwise-threads-per-block)
//   chunks = ceil(C / V / TPR)
// The rest of the rule (see schedule.mlir) is unchanged: V, rows_per_block
// packing short rows, col_blocks when chunks > target (now 1) in kernels
// without reductions, streaming of reducing rows wider than
// max-chunks-per-thread. R > few-rows keeps the old schedule.
//
// few-rows defaults to 0 (off: on the H200 the rule gave no net gain over
// small shapes, some f32 cases were slower), so the CHECK and T1024 runs ask
// for few-rows=64 explicitly. The run without few-rows and few-rows=0 both
// give the many-row schedules everywhere (the OFF prefix), even for a single
// row.
//
// The CHECK, OFF, F16 and T1024 runs use the elementwise schedule from
// before the measurements (elementwise-elements=16, elementwise CTAs of up
// to 512 threads, 1024 for T1024): there bf16 elementwise rows aim at 2
// vectors a thread, so target 1 shows. With today's defaults (DEF; DEF64
// with few-rows=64) bf16 elementwise rows already aim at 8 / 8 = 1 vector
// in CTAs of at most 256 threads, so few-rows changes nothing for them; it
// still changes f32 elementwise rows (target 2 -> 1) and rows with a
// reduction (4 -> 1).

// One row (a single decode token), cols = 4096 bf16, no reduction: V = 8,
// C/V = 512 vectors, target 1: TPR = 512, chunks 1, one row per CTA.
// Old rule (OFF): target 2, TPR 256, chunks 2.
// CHECK-LABEL: func.func @bf16_4096_1_row(
//  CHECK-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// OFF-LABEL: func.func @bf16_4096_1_row(
//  OFF-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// F16-LABEL: func.func @bf16_4096_1_row(
//  F16-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// Defaults (DEF): target 8 / 8 = 1, but TPR is capped at 256, so col_blocks
// 2 of one vector a thread; with few-rows=64 (DEF64) the same (the target
// is 1 already).
// DEF-LABEL: func.func @bf16_4096_1_row(
//  DEF-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// DEF64-LABEL: func.func @bf16_4096_1_row(
//  DEF64-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
func.func @bf16_4096_1_row(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 1, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  tile.store %t, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// 16 rows: few (16 <= 64, and <= few-rows=16: the bound is inclusive).
// CHECK-LABEL: func.func @bf16_4096_16_rows(
//  CHECK-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// OFF-LABEL: func.func @bf16_4096_16_rows(
//  OFF-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// F16-LABEL: func.func @bf16_4096_16_rows(
//  F16-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// DEF-LABEL: func.func @bf16_4096_16_rows(
//  DEF-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
func.func @bf16_4096_16_rows(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 16, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  tile.store %t, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// Kernels with a reduction get target 1 too (not 4): TPR 512, chunks 1.
// Old rule: TPR 128, chunks 4.
// CHECK-LABEL: func.func @bf16_4096_16_rows_reduce(
//  CHECK-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// OFF-LABEL: func.func @bf16_4096_16_rows_reduce(
//  OFF-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 128 : i64, vector_width = 8 : i64}
// F16-LABEL: func.func @bf16_4096_16_rows_reduce(
//  F16-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// With DEF, TPR 128, chunks 4; with DEF64, TPR 512, chunks 1 (reductions
// ignore the elementwise options).
// DEF-LABEL: func.func @bf16_4096_16_rows_reduce(
//  DEF-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 128 : i64, vector_width = 8 : i64}
// DEF64-LABEL: func.func @bf16_4096_16_rows_reduce(
//  DEF64-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @bf16_4096_16_rows_reduce(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 16, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %f = arith.extf %t : tensor<4096xbf16> to tensor<4096xf32>
  %s = tile.reduce_sum %f : tensor<4096xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<4096xf32>
  %m = arith.mulf %f, %b : tensor<4096xf32>
  %y = arith.truncf %m : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %y, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// 64 rows = few-rows: still few. With few-rows=16 it is not.
// CHECK-LABEL: func.func @bf16_4096_64_rows(
//  CHECK-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// OFF-LABEL: func.func @bf16_4096_64_rows(
//  OFF-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// F16-LABEL: func.func @bf16_4096_64_rows(
//  F16-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// T1024-LABEL: func.func @bf16_4096_64_rows(
//  T1024-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// DEF-LABEL: func.func @bf16_4096_64_rows(
//  DEF-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
func.func @bf16_4096_64_rows(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 64, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  tile.store %t, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// 65 rows > few-rows: the old schedule (TPR 256, chunks 2) under every option.
// CHECK-LABEL: func.func @bf16_4096_65_rows(
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// OFF-LABEL: func.func @bf16_4096_65_rows(
//  OFF-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// F16-LABEL: func.func @bf16_4096_65_rows(
//  F16-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// T1024-LABEL: func.func @bf16_4096_65_rows(
//  T1024-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// DEF-LABEL: func.func @bf16_4096_65_rows(
//  DEF-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
func.func @bf16_4096_65_rows(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 65, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  tile.store %t, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// 65 rows with a reduction: the old schedule (TPR 128, chunks 4).
// CHECK-LABEL: func.func @bf16_4096_65_rows_reduce(
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 128 : i64, vector_width = 8 : i64}
// OFF-LABEL: func.func @bf16_4096_65_rows_reduce(
//  OFF-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 128 : i64, vector_width = 8 : i64}
// F16-LABEL: func.func @bf16_4096_65_rows_reduce(
//  F16-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 128 : i64, vector_width = 8 : i64}
// T1024-LABEL: func.func @bf16_4096_65_rows_reduce(
//  T1024-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 128 : i64, vector_width = 8 : i64}
// DEF-LABEL: func.func @bf16_4096_65_rows_reduce(
//  DEF-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 128 : i64, vector_width = 8 : i64}
func.func @bf16_4096_65_rows_reduce(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 65, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %f = arith.extf %t : tensor<4096xbf16> to tensor<4096xf32>
  %s = tile.reduce_sum %f : tensor<4096xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<4096xf32>
  %m = arith.mulf %f, %b : tensor<4096xf32>
  %y = arith.truncf %m : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %y, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// The row count is the product of all leading domain dimensions:
// [2, 8, 4096] is 16 rows, few.
// CHECK-LABEL: func.func @rank3_16_rows(
//  CHECK-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// OFF-LABEL: func.func @rank3_16_rows(
//  OFF-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// F16-LABEL: func.func @rank3_16_rows(
//  F16-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// DEF-LABEL: func.func @rank3_16_rows(
//  DEF-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
func.func @rank3_16_rows(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 2, 8, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  tile.store %t, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// [2, 40, 4096] is 80 rows (each dimension alone is <= 64): not few.
// CHECK-LABEL: func.func @rank3_80_rows(
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// OFF-LABEL: func.func @rank3_80_rows(
//  OFF-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// F16-LABEL: func.func @rank3_80_rows(
//  F16-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// DEF-LABEL: func.func @rank3_80_rows(
//  DEF-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
func.func @rank3_80_rows(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 2, 40, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  tile.store %t, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// Short rows still pack into CTAs of min-threads-per-block (128) threads:
// cols = 64 f32, V = 4, 16 vectors, TPR 16, chunks 1, 8 rows per CTA.
// Old rule: TPR 4, chunks 4, 32 rows per CTA.
// CHECK-LABEL: func.func @f32_64_4_rows(
//  CHECK-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 8 : i64, stream_blocks = 0 : i64, threads_per_row = 16 : i64, vector_width = 4 : i64}
// OFF-LABEL: func.func @f32_64_4_rows(
//  OFF-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 32 : i64, stream_blocks = 0 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}
// With DEF, target 8 / 4 = 2, TPR 8, chunks 2, 16 rows; with DEF64, target
// 1, TPR 16, chunks 1, 8 rows.
// DEF-LABEL: func.func @f32_64_4_rows(
//  DEF-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}
// DEF64-LABEL: func.func @f32_64_4_rows(
//  DEF64-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 8 : i64, stream_blocks = 0 : i64, threads_per_row = 16 : i64, vector_width = 4 : i64}
func.func @f32_64_4_rows(%in: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x64xf32> -> tensor<64xf32>
  tile.store %t, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// Odd row: cols = 7 f32, V = 1, TPR = PowerOf2Ceil(7) = 8, chunks 1 (the
// last lane idles), 16 rows per CTA. Old rule: TPR 1, chunks 7, 128 rows.
// CHECK-LABEL: func.func @f32_7_5_rows(
//  CHECK-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 1 : i64}
// OFF-LABEL: func.func @f32_7_5_rows(
//  OFF-SAME:   tile.schedule = {chunks = 7 : i64, col_blocks = 1 : i64, rows_per_block = 128 : i64, stream_blocks = 0 : i64, threads_per_row = 1 : i64, vector_width = 1 : i64}
// With DEF, target 8, TPR 1, chunks 7, 128 rows; with DEF64, TPR 8, chunks
// 1, 16 rows.
// DEF-LABEL: func.func @f32_7_5_rows(
//  DEF-SAME:   tile.schedule = {chunks = 7 : i64, col_blocks = 1 : i64, rows_per_block = 128 : i64, stream_blocks = 0 : i64, threads_per_row = 1 : i64, vector_width = 1 : i64}
// DEF64-LABEL: func.func @f32_7_5_rows(
//  DEF64-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 1 : i64}
func.func @f32_7_5_rows(%in: memref<?x7xf32>, %out: memref<?x7xf32>) attributes {tile.kernel, tile.domain = array<i64: 5, 7>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x7xf32> -> tensor<7xf32>
  tile.store %t, %out[%r] : tensor<7xf32> -> memref<?x7xf32>
  return
}

// -----

// TPR is capped at max-threads-per-block. cols = 16384 bf16: 2048 vectors,
// TPR 512, 4 vectors per thread > target 1, so without a reduction the row
// is split over col_blocks = 4 CTAs of one vector per thread. With
// max-threads-per-block=1024: TPR 1024, col_blocks 2. Old rule: target 2,
// col_blocks 2, chunks 2.
// CHECK-LABEL: func.func @bf16_16384_16_rows(
//  CHECK-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 4 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// OFF-LABEL: func.func @bf16_16384_16_rows(
//  OFF-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// T1024-LABEL: func.func @bf16_16384_16_rows(
//  T1024-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 1024 : i64, vector_width = 8 : i64}
// With DEF and DEF64, 2048 vectors, TPR 256, 8 > 1 vectors a thread,
// col_blocks 8.
// DEF-LABEL: func.func @bf16_16384_16_rows(
//  DEF-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 8 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
// DEF64-LABEL: func.func @bf16_16384_16_rows(
//  DEF64-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 8 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 8 : i64}
func.func @bf16_16384_16_rows(%in: memref<?x16384xbf16>, %out: memref<?x16384xbf16>) attributes {tile.kernel, tile.domain = array<i64: 16, 16384>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x16384xbf16> -> tensor<16384xbf16>
  tile.store %t, %out[%r] : tensor<16384xbf16> -> memref<?x16384xbf16>
  return
}

// -----

// With a reduction the row stays in one CTA: TPR 512, chunks 4 (the same as
// the old rule); with max-threads-per-block=1024: TPR 1024, chunks 2.
// CHECK-LABEL: func.func @bf16_16384_16_rows_reduce(
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// OFF-LABEL: func.func @bf16_16384_16_rows_reduce(
//  OFF-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// T1024-LABEL: func.func @bf16_16384_16_rows_reduce(
//  T1024-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 1024 : i64, vector_width = 8 : i64}
// With DEF and DEF64, 4 vectors a thread, exactly the bf16 register limit
// (16 * 4 / (8 * 2)): not streamed.
// DEF-LABEL: func.func @bf16_16384_16_rows_reduce(
//  DEF-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
// DEF64-LABEL: func.func @bf16_16384_16_rows_reduce(
//  DEF64-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}
func.func @bf16_16384_16_rows_reduce(%in: memref<?x16384xbf16>, %out: memref<?x16384xbf16>) attributes {tile.kernel, tile.domain = array<i64: 16, 16384>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x16384xbf16> -> tensor<16384xbf16>
  %f = arith.extf %t : tensor<16384xbf16> to tensor<16384xf32>
  %s = tile.reduce_sum %f : tensor<16384xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<16384xf32>
  %m = arith.mulf %f, %b : tensor<16384xf32>
  %y = arith.truncf %m : tensor<16384xf32> to tensor<16384xbf16>
  tile.store %y, %out[%r] : tensor<16384xbf16> -> memref<?x16384xbf16>
  return
}

// -----

// Streaming is unchanged: 1048576 f32 = 262144 vectors, 512 per thread > 16,
// streamed in 262144 / (512 * 4) = 128 blocks (64 with 1024 threads).
// CHECK-LABEL: func.func @f32_1048576_2_rows_reduce(
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 128 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// OFF-LABEL: func.func @f32_1048576_2_rows_reduce(
//  OFF-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 128 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
// T1024-LABEL: func.func @f32_1048576_2_rows_reduce(
//  T1024-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 64 : i64, threads_per_row = 1024 : i64, vector_width = 4 : i64}
// DEF-LABEL: func.func @f32_1048576_2_rows_reduce(
//  DEF-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 128 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
func.func @f32_1048576_2_rows_reduce(%in: memref<?x1048576xf32>, %out: memref<?x1048576xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 1048576>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1048576xf32> -> tensor<1048576xf32>
  %s = tile.reduce_sum %t : tensor<1048576xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<1048576xf32>
  %y = arith.mulf %t, %b : tensor<1048576xf32>
  tile.store %y, %out[%r] : tensor<1048576xf32> -> memref<?x1048576xf32>
  return
}
