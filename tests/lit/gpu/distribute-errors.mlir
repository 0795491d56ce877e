// RUN: tilec-opt --split-input-file --verify-diagnostics --tilec-distribute-row-tiles %s

// expected-error @+1 {{'func.func' op tile kernel is not scheduled (run tilec-schedule-row-kernels)}}
func.func @unscheduled(%in: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x64xf32> -> tensor<64xf32>
  tile.store %t, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// chunks * TPR * V = 1 * 4 * 4 = 16 < 64 columns.
// expected-error @+1 {{'func.func' op invalid tile.schedule {chunks = 1 : i64, rows_per_block = 32 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64} for rows of 64}}
func.func @too_few_chunks(%in: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 1 : i64, rows_per_block = 32 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  return
}

// -----

// V must divide the row.
// expected-error @+1 {{invalid tile.schedule}}
func.func @vector_does_not_divide(%in: memref<?x66xf32>, %out: memref<?x66xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 66>, tile.schedule = {chunks = 8 : i64, rows_per_block = 32 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  return
}

// -----

// TPR must split warps evenly (a divisor of 32, or a multiple of 32).
// expected-error @+1 {{invalid tile.schedule}}
func.func @tpr_not_warp_aligned(%in: memref<?x96xf32>, %out: memref<?x96xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 96>, tile.schedule = {chunks = 1 : i64, rows_per_block = 1 : i64, threads_per_row = 48 : i64, vector_width = 2 : i64}} {
  return
}

// -----

// expected-error @+1 {{invalid tile.schedule}}
func.func @missing_key(%in: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 4 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  return
}

// -----

// expected-error @+1 {{'func.func' op row kernel has no per-row buffer to size its grid}}
func.func @no_row_buffer(%w: memref<64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 4 : i64, rows_per_block = 32 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  return
}

// -----

// Column blocks cover col_blocks * chunks * TPR * V = 2 * 1 * 4 * 4 = 32 < 64.
// expected-error @+1 {{'func.func' op invalid tile.schedule {chunks = 1 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64} for rows of 64}}
func.func @col_blocks_too_few(%in: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 1 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  return
}

// -----

// A row split over several CTAs cannot be reduced, except by a cluster.
// expected-error @+1 {{invalid tile.schedule}}
func.func @col_blocks_with_reduction(%in: memref<?x64xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x64xf32> -> tensor<64xf32>
  %s = tile.reduce_sum %t : tensor<64xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// With column blocks a CTA holds one row.
// expected-error @+1 {{invalid tile.schedule}}
func.func @col_blocks_several_rows(%in: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 2 : i64, col_blocks = 2 : i64, rows_per_block = 2 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x64xf32> -> tensor<64xf32>
  tile.store %t, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// Streamed rows (stream_blocks > 0) cover stream_blocks * chunks * TPR * V
// columns: 3 * 1 * 4 * 4 = 48 < 64.
// expected-error @+1 {{'func.func' op invalid tile.schedule {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 3 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64} for rows of 64}}
func.func @stream_blocks_too_few(%in: memref<?x64xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 3 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  return
}

// -----

// A streamed row is not also split over CTAs (2 * 2 * 1 * 4 * 4 = 64 would
// cover it), except over a cluster.
// expected-error @+1 {{invalid tile.schedule}}
func.func @stream_with_col_blocks(%in: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 1 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 2 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  return
}

// -----

// expected-error @+1 {{invalid tile.schedule}}
func.func @stream_blocks_negative(%in: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = -1 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  return
}

// -----

// Clusters (sm_90a rows with reductions split over CTAs; distribute-cluster.mlir):
// at most 16 CTAs (sm_90's largest, non-portable size), 32 * 1 * 8 * 4 = 1024.
// expected-error @+1 {{'func.func' op invalid tile.schedule {chunks = 1 : i64, cluster = 32 : i64, col_blocks = 32 : i64, rows_per_block = 1 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}: a cluster must be at most 16 CTAs, equal to col_blocks, with rows_per_block 1, in a kernel with reductions}}
func.func @cluster_too_large(%in: memref<?x1024xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 1024>, tile.schedule = {chunks = 1 : i64, cluster = 32 : i64, col_blocks = 32 : i64, rows_per_block = 1 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1024xf32> -> tensor<1024xf32>
  %s = tile.reduce_sum %t : tensor<1024xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// A cluster is exactly the CTAs of one row: the grid is rows * col_blocks,
// rank r holds column block r.
// expected-error @+1 {{'func.func' op invalid tile.schedule {chunks = 2 : i64, cluster = 2 : i64, col_blocks = 4 : i64, rows_per_block = 1 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}: a cluster must be at most 16 CTAs, equal to col_blocks, with rows_per_block 1, in a kernel with reductions}}
func.func @cluster_not_col_blocks(%in: memref<?x1024xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 1024>, tile.schedule = {chunks = 2 : i64, cluster = 2 : i64, col_blocks = 4 : i64, rows_per_block = 1 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1024xf32> -> tensor<1024xf32>
  %s = tile.reduce_sum %t : tensor<1024xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// One row a CTA.
// expected-error @+1 {{'func.func' op invalid tile.schedule {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 2 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}: a cluster must be at most 16 CTAs, equal to col_blocks, with rows_per_block 1, in a kernel with reductions}}
func.func @cluster_several_rows(%in: memref<?x1024xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 1024>, tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 2 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1024xf32> -> tensor<1024xf32>
  %s = tile.reduce_sum %t : tensor<1024xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// A cluster exists to combine reductions (its barriers are placed at them).
// expected-error @+1 {{'func.func' op invalid tile.schedule {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}: a cluster must be at most 16 CTAs, equal to col_blocks, with rows_per_block 1, in a kernel with reductions}}
func.func @cluster_without_reduction(%in: memref<?x1024xf32>, %out: memref<?x1024xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 1024>, tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1024xf32> -> tensor<1024xf32>
  tile.store %t, %out[%r] : tensor<1024xf32> -> memref<?x1024xf32>
  return
}

// -----

// A cluster's CTAs cover the row: 2 * 3 * 1 * 32 * 4 = 768 < 1024.
// expected-error @+1 {{'func.func' op invalid tile.schedule {chunks = 1 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 3 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64} for rows of 1024}}
func.func @cluster_too_few(%in: memref<?x1024xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 1024>, tile.schedule = {chunks = 1 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 3 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1024xf32> -> tensor<1024xf32>
  %s = tile.reduce_sum %t : tensor<1024xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// stream_shared keeps a streamed row's inputs in shared memory: it needs a
// streamed row (stream_blocks > 0) and the bytes.
// expected-error @+1 {{stream_shared needs a streamed row and its shared_bytes}}
func.func @stream_shared_unstreamed(%in: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 1 : i64, rows_per_block = 1 : i64, threads_per_row = 16 : i64, vector_width = 4 : i64, stream_shared = 1 : i64, shared_bytes = 256 : i64}} {
  return
}

// -----

// The row's slice (2 blocks of 1 x 16 vectors of 4 f32: 512 bytes) does not
// fit the schedule's shared_bytes.
// expected-error @+1 {{stream_shared: the row inputs' slices take 512 bytes, the schedule's shared_bytes is 256}}
func.func @stream_shared_too_small(%in: memref<?x128xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 128>, tile.schedule = {chunks = 1 : i64, rows_per_block = 1 : i64, threads_per_row = 16 : i64, vector_width = 4 : i64, stream_blocks = 2 : i64, stream_shared = 1 : i64, shared_bytes = 256 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x128xf32> -> tensor<128xf32>
  %s = tile.reduce_sum %t : tensor<128xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// row_loop needs whole rows in one CTA: not a streamed row.
// expected-error @+1 {{row_loop needs whole rows in registers (no streaming, one CTA a row)}}
func.func @row_loop_streamed(%in: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 4096>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, row_loop = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 2 : i64, threads_per_row = 128 : i64, vector_width = 4 : i64}} {
  return
}

// -----

// prefetch is a ring for row_loop kernels, with its shared_bytes.
// expected-error @+1 {{prefetch needs row_loop, at least 2 stages and their shared_bytes}}
func.func @prefetch_without_loop(%in: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 4096>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, prefetch = 2 : i64, rows_per_block = 1 : i64, shared_bytes = 131072 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}} {
  return
}

// -----

// l2_prefetch_rows prefetches the rows ahead of a CTA's row block: not
// for row loops (their next blocks are the CTA's own) or streamed rows.
// expected-error @+1 {{l2_prefetch_rows and l2_prefetch_first need rows in registers (no row loop, no streaming)}}
func.func @l2_prefetch_rows_streamed(%in: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 4096>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, l2_prefetch_rows = 8 : i64, rows_per_block = 1 : i64, stream_blocks = 2 : i64, threads_per_row = 128 : i64, vector_width = 4 : i64}} {
  return
}

// -----

// l2_prefetch_first (alone: every CTA's own rows) neither: a row loop's
// CTA loads several row blocks, each after the wait.
// expected-error @+1 {{l2_prefetch_rows and l2_prefetch_first need rows in registers (no row loop, no streaming)}}
func.func @l2_prefetch_first_row_loop(%in: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 4096>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, l2_prefetch_first = 1 : i64, row_loop = 1 : i64, rows_per_block = 1 : i64, threads_per_row = 128 : i64, vector_width = 4 : i64}} {
  return
}

// -----

// cp.async copies 4, 8 or 16 bytes: not single bf16 elements.
// expected-error @+1 {{prefetch: the row inputs' rings: 2-byte vectors of 'bf16' cannot be copied with cp.async (4, 8 or 16 bytes)}}
func.func @prefetch_two_bytes(%in: memref<?x33xbf16>, %out: memref<?x33xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4096, 33>, tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, prefetch = 2 : i64, row_loop = 1 : i64, rows_per_block = 1 : i64, shared_bytes = 256 : i64, threads_per_row = 32 : i64, vector_width = 1 : i64}} {
  %0 = tile.row_id
  %1 = tile.load %in[%0] : memref<?x33xbf16> -> tensor<33xbf16>
  tile.store %1, %out[%0] : tensor<33xbf16> -> memref<?x33xbf16>
  return
}

// -----

// staged_weights: one row a CTA (each thread copies and reads its own
// weight vectors).
// expected-error @+1 {{staged_weights needs one row a CTA in registers and its shared_bytes}}
func.func @staged_weights_two_rows(%in: memref<?x256xf32>, %out: memref<?x256xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 256>, tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 2 : i64, shared_bytes = 1024 : i64, staged_weights = 1 : i64, threads_per_row = 64 : i64, vector_width = 4 : i64}} {
  return
}
