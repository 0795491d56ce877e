// RUN: tilec-opt --split-input-file --verify-diagnostics --tilec-distribute-row-tiles %s

// Errors of tilec-distribute-row-tiles for windowed accesses, select_cols
// and tile.row_buffer (tilec-schedule-row-kernels picks a vector width that
// avoids the first three; see tile/schedule-windows.mlir).

// Windows move whole vectors: the schedule's vector width must divide the
// column offset...
func.func @offset_not_multiple(%x: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 4 : i64, rows_per_block = 32 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  // expected-error @+1 {{'tile.load' op column offset 2 or width 64 is not a multiple of vector_width 4}}
  %t = tile.load %x[%r] {col_offset = 2 : i64} : memref<?x64xf32> -> tensor<64xf32>
  tile.store %t, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// ...and the width of the buffer's rows.
func.func @width_not_multiple(%x: memref<?x6xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 4 : i64, rows_per_block = 32 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  // expected-error @+1 {{'tile.load' op column offset 0 or width 6 is not a multiple of vector_width 4}}
  %t = tile.load %x[%r] {col_offset = 0 : i64} : memref<?x6xf32> -> tensor<64xf32>
  tile.store %t, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// The same for windowed stores.
func.func @store_offset(%x: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 4 : i64, rows_per_block = 32 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %x[%r] : memref<?x64xf32> -> tensor<64xf32>
  // expected-error @+1 {{'tile.store' op column offset -6 or width 64 is not a multiple of vector_width 4}}
  tile.store %t, %out[%r] {col_offset = -6 : i64} : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// And for the split of a select_cols.
func.func @split(%x: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 4 : i64, rows_per_block = 32 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %x[%r] : memref<?x64xf32> -> tensor<64xf32>
  %e = math.exp %t : tensor<64xf32>
  // expected-error @+1 {{'tile.select_cols' op split 6 is not a multiple of vector_width 4}}
  %s = tile.select_cols %t, %e {split = 6 : i64} : tensor<64xf32>
  tile.store %s, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// tile.row_buffer must name a rank-2 (per-row) buffer...
// expected-error @+1 {{'func.func' op row kernel has no per-row buffer to size its grid}}
func.func @row_buffer_rank1(%w: memref<64xf32>, %x: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.row_buffer = 0 : i64, tile.schedule = {chunks = 4 : i64, rows_per_block = 32 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  return
}

// -----

// ...that exists.
// expected-error @+1 {{'func.func' op row kernel has no per-row buffer to size its grid}}
func.func @row_buffer_out_of_range(%x: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.row_buffer = 2 : i64, tile.schedule = {chunks = 4 : i64, rows_per_block = 32 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  return
}
