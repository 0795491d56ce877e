// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="few-rows=0" %s | FileCheck %s

// The vector width V of a row kernel (see schedule.mlir for the rest of the
// rule) must divide the row width C, the width of every buffer's rows (parts
// of rows, other than per-row scalars [?, 1]), every col_offset of a
// windowed tile.load / tile.store and every tile.select_cols split: V starts
// at 16 bytes / widest element and is halved until it divides all of them.
// Without the windows and splits, every kernel here would get V = 4 (f32)
// or 8 (bf16).
//
// The kernels here have no reduction: target max(1, 8 / V) vectors a thread
// (elementwise-elements 8), TPR = PowerOf2Ceil(C / V / target), CTAs of 128
// threads (min-threads-per-block). Windowed loads of whole rows (a source
// as wide as the row, col_offset != 0) also raise the target to
// C / gcd(offsets) when that is at most 4, so that the windows are
// multiples of TPR * V and reuse the thread's own registers (rotate_half:
// offsets C / 2, 2 chunks a thread).

// A concatenation of a [?, 5] and a [?, 59] piece: the buffers and the split
// at 5 force V = 1: target 8, 8 chunks of one element for each of 8
// threads, 16 rows per CTA. (The windows read [?, 5] and [?, 59] sources,
// not whole rows: no window target.)
// CHECK-LABEL: func.func @split5(
//  CHECK-SAME:   tile.schedule = {chunks = 8 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 1 : i64}
func.func @split5(%a: memref<?x5xf32>, %b: memref<?x59xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  %r = tile.row_id
  %0 = tile.load %a[%r] {col_offset = 0 : i64} : memref<?x5xf32> -> tensor<64xf32>
  %1 = tile.load %b[%r] {col_offset = -5 : i64} : memref<?x59xf32> -> tensor<64xf32>
  %2 = tile.select_cols %0, %1 {split = 5 : i64} : tensor<64xf32>
  tile.store %2, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// The split alone (at 6, all buffers 64 wide) gives V = gcd(64, 6) = 2:
// 32 vectors, target 4, TPR 8, chunks 4.
// CHECK-LABEL: func.func @split_only(
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 2 : i64}
func.func @split_only(%x: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  %r = tile.row_id
  %0 = tile.load %x[%r] : memref<?x64xf32> -> tensor<64xf32>
  %1 = math.exp %0 : tensor<64xf32>
  %2 = tile.select_cols %0, %1 {split = 6 : i64} : tensor<64xf32>
  tile.store %2, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// rotate_half of bf16 [.., 128] rows: offsets +-64 and the split at 64 keep
// V = 8 (negative offsets count by their magnitude). 16 vectors; the target
// would be 8 / 8 = 1 (TPR 16, TPR * V = 128: the windows at +-64 would be
// other threads' registers), but the windows raise it to 128 / 64 = 2:
// TPR 8, chunks 2, TPR * V = 64 divides the offsets.
// CHECK-LABEL: func.func @rotate_bf16(
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 8 : i64}
func.func @rotate_bf16(%x: memref<?x128xbf16>, %out: memref<?x128xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4, 2, 128>} {
  %r = tile.row_id
  %0 = tile.load %x[%r] {col_offset = 64 : i64} : memref<?x128xbf16> -> tensor<128xbf16>
  %1 = tile.load %x[%r] {col_offset = -64 : i64} : memref<?x128xbf16> -> tensor<128xbf16>
  %2 = tile.select_cols %0, %1 {split = 64 : i64} : tensor<128xbf16>
  tile.store %2, %out[%r] : tensor<128xbf16> -> memref<?x128xbf16>
  return
}

// -----

// A bf16 window at -4: V = 4 instead of 8. 32 vectors, target 8 / 4 = 2
// (128 / 4 = 32 > 4: no window target), TPR 16, chunks 2, 8 rows per CTA.
// CHECK-LABEL: func.func @offset_bf16(
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 8 : i64, stream_blocks = 0 : i64, threads_per_row = 16 : i64, vector_width = 4 : i64}
func.func @offset_bf16(%x: memref<?x128xbf16>, %out: memref<?x128xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4, 128>} {
  %r = tile.row_id
  %0 = tile.load %x[%r] {col_offset = -4 : i64} : memref<?x128xbf16> -> tensor<128xbf16>
  tile.store %0, %out[%r] : tensor<128xbf16> -> memref<?x128xbf16>
  return
}

// -----

// An f32 window at +2: V = 2, 32 vectors, target 4, TPR 8, chunks 4.
// CHECK-LABEL: func.func @offset2(
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 2 : i64}
func.func @offset2(%x: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  %r = tile.row_id
  %0 = tile.load %x[%r] {col_offset = 2 : i64} : memref<?x64xf32> -> tensor<64xf32>
  tile.store %0, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// A bf16 part of a row stored into [?, 12]: V = gcd(64, 12) = 4, 16
// vectors, target 2, TPR 8, chunks 2.
// CHECK-LABEL: func.func @part12(
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}
func.func @part12(%x: memref<?x64xbf16>, %out: memref<?x12xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  %r = tile.row_id
  %0 = tile.load %x[%r] : memref<?x64xbf16> -> tensor<64xbf16>
  tile.store %0, %out[%r] {col_offset = 0 : i64} : tensor<64xbf16> -> memref<?x12xbf16>
  return
}

// -----

// An f32 part of a row read from [?, 6]: V = 2, TPR 8, chunks 4.
// CHECK-LABEL: func.func @part6(
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 2 : i64}
func.func @part6(%x: memref<?x6xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  %r = tile.row_id
  %0 = tile.load %x[%r] {col_offset = 0 : i64} : memref<?x6xf32> -> tensor<64xf32>
  tile.store %0, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// A per-row scalar buffer [?, 1] does not count as a row width: bf16 keeps
// V = 8 (8 vectors, target 1: TPR 8, one chunk).
// CHECK-LABEL: func.func @row_scalar(
//  CHECK-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 8 : i64}
func.func @row_scalar(%x: memref<?x64xbf16>, %s: memref<?x1xbf16>, %out: memref<?x64xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  %r = tile.row_id
  %0 = tile.load %x[%r] : memref<?x64xbf16> -> tensor<64xbf16>
  %1 = tile.load %s[%r] : memref<?x1xbf16> -> bf16
  %2 = tile.splat %1 : bf16 -> tensor<64xbf16>
  %3 = arith.mulf %0, %2 : tensor<64xbf16>
  tile.store %3, %out[%r] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// A window on a shared vector (memref<16xbf16> at +4): V = 4, 16 vectors,
// target 2 (the source is not a whole row: no window target), TPR 8,
// chunks 2.
// CHECK-LABEL: func.func @shared_window(
//  CHECK-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}
func.func @shared_window(%x: memref<?x64xbf16>, %w: memref<16xbf16>, %out: memref<?x64xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  %r = tile.row_id
  %0 = tile.load %x[%r] : memref<?x64xbf16> -> tensor<64xbf16>
  %1 = tile.load %w {col_offset = 4 : i64} : memref<16xbf16> -> tensor<64xbf16>
  %2 = arith.mulf %0, %1 : tensor<64xbf16>
  tile.store %2, %out[%r] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// Windows at +-32 of bf16 [.., 128] rows: the target becomes 128 / 32 = 4,
// the largest window target: TPR 4, chunks 4, TPR * V = 32.
// CHECK-LABEL: func.func @quarter_bf16(
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 32 : i64, stream_blocks = 0 : i64, threads_per_row = 4 : i64, vector_width = 8 : i64}
func.func @quarter_bf16(%x: memref<?x128xbf16>, %out: memref<?x128xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4, 128>} {
  %r = tile.row_id
  %0 = tile.load %x[%r] {col_offset = 32 : i64} : memref<?x128xbf16> -> tensor<128xbf16>
  %1 = tile.load %x[%r] {col_offset = -32 : i64} : memref<?x128xbf16> -> tensor<128xbf16>
  %2 = arith.addf %0, %1 : tensor<128xbf16>
  tile.store %2, %out[%r] : tensor<128xbf16> -> memref<?x128xbf16>
  return
}

// -----

// Windows at +64 and +16: gcd 16, 128 / 16 = 8 > 4, so no window target:
// target 1, TPR 16, one chunk.
// CHECK-LABEL: func.func @fine_windows_bf16(
//  CHECK-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 8 : i64, stream_blocks = 0 : i64, threads_per_row = 16 : i64, vector_width = 8 : i64}
func.func @fine_windows_bf16(%x: memref<?x128xbf16>, %out: memref<?x128xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4, 128>} {
  %r = tile.row_id
  %0 = tile.load %x[%r] {col_offset = 64 : i64} : memref<?x128xbf16> -> tensor<128xbf16>
  %1 = tile.load %x[%r] {col_offset = 16 : i64} : memref<?x128xbf16> -> tensor<128xbf16>
  %2 = arith.addf %0, %1 : tensor<128xbf16>
  tile.store %2, %out[%r] : tensor<128xbf16> -> memref<?x128xbf16>
  return
}
