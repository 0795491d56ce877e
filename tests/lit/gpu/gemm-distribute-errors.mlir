// RUN: tilec-opt --split-input-file --verify-diagnostics --tilec-distribute-gemm-tiles %s

// What tilec-distribute-gemm-tiles rejects: unscheduled or badly scheduled
// GEMM kernels, kernels without a tile.matmul or with products that do not
// share their lhs and layouts, operand types without a kernel, and epilogue
// ops that are not per-element.

// Distribution needs the GEMM schedule.
// expected-error @+1 {{'func.func' op GEMM kernel is not scheduled (run tilec-schedule-row-kernels)}}
func.func @unscheduled(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 64>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  tile.store %p, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// A hand-written schedule is checked again: block_k 24 is not a multiple of
// the mma k step.
// expected-error @+1 {{'func.func' op invalid GEMM tile.schedule {block_k = 24 : i64, block_m = 32 : i64, block_n = 32 : i64, group_m = 8 : i64, stages = 2 : i64, warps_m = 1 : i64, warps_n = 1 : i64} (warp tiles must be multiples of 16x16, block_k of 16}}
func.func @bad_schedule(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 24 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  tile.store %p, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// expected-error @+1 {{'func.func' op is marked tile.gemm but has no tile.matmul}}
func.func @no_matmul(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  %t = tile.load %x[%r] : memref<?x64xf32> -> tensor<64xf32>
  tile.store %t, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// Several products in one kernel (SwiGLU's gate and up projections) share
// the A panel: they must read one lhs, in one layout, with rhs of one type.
// The second product is the one reported.
func.func @two_layouts(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 6144 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  // expected-error @+1 {{'tile.matmul' op products of one GEMM kernel must share their lhs and layouts}}
  %q = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  %s = arith.addf %p, %q : tensor<64xf32>
  tile.store %s, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

func.func @two_lhs(%x: memref<?x64xbf16>, %z: memref<?x64xbf16>, %w: memref<64x64xbf16>, %v: memref<64x64xbf16>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 6144 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  // expected-error @+1 {{'tile.matmul' op products of one GEMM kernel must share their lhs and layouts}}
  %q = tile.matmul %z, %v[%r] {transpose_b = true} : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  %s = arith.mulf %p, %q : tensor<64xf32>
  tile.store %s, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// One lhs and layout, but the rhs types differ (the second one strided).
func.func @two_rhs_types(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %v: memref<64x64xbf16, strided<[128, 1]>>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 6144 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  // expected-error @+1 {{'tile.matmul' op products of one GEMM kernel must share their lhs and layouts}}
  %q = tile.matmul %x, %v[%r] : memref<?x64xbf16>, memref<64x64xbf16, strided<[128, 1]>> -> tensor<64xf32>
  %s = arith.mulf %p, %q : tensor<64xf32>
  tile.store %s, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// The epilogue is elementwise: a thread holds pairs of columns, not rows.
func.func @reduction(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<?x1xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  // expected-error @+1 {{'tile.reduce_sum' op is not supported in a GEMM epilogue}}
  %s = tile.reduce_sum %p : tensor<64xf32> -> f32
  tile.store %s, %y[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

func.func @windowed_load(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %b: memref<?x32xf32>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  // expected-error @+1 {{'tile.load' op windowed loads are not supported in a GEMM epilogue}}
  %bt = tile.load %b[%r] {col_offset = -16 : i64} : memref<?x32xf32> -> tensor<64xf32>
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  %s = arith.addf %p, %bt : tensor<64xf32>
  tile.store %s, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

func.func @windowed_store(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<?x32xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  // expected-error @+1 {{'tile.store' op windowed stores are not supported in a GEMM epilogue}}
  tile.store %p, %y[%r] {col_offset = 32 : i64} : tensor<64xf32> -> memref<?x32xf32>
  return
}

// -----

func.func @non_splat(%x: memref<?x4xbf16>, %w: memref<4x4xbf16>, %y: memref<?x4xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 4>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x4xbf16>, memref<4x4xbf16> -> tensor<4xf32>
  // expected-error @+1 {{'arith.constant' op non-splat constants are not supported in a GEMM epilogue}}
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %s = arith.mulf %p, %c : tensor<4xf32>
  tile.store %s, %y[%r] : tensor<4xf32> -> memref<?x4xf32>
  return
}

// -----

// tile.matmul takes any element type; the tensor-core kernel does not.
func.func @f64(%x: memref<?x64xf64>, %w: memref<64x64xf64>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op GEMM operands must be f32, f16 or bf16, got 'f64'}}
  %p = tile.matmul %x, %w[%r] : memref<?x64xf64>, memref<64x64xf64> -> tensor<64xf32>
  tile.store %p, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

func.func @select_cols(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<64x64xbf16> -> tensor<64xf32>
  %n = arith.negf %p : tensor<64xf32>
  // expected-error @+1 {{'tile.select_cols' op is not supported in a GEMM epilogue}}
  %s = tile.select_cols %p, %n {split = 32 : i64} : tensor<64xf32>
  tile.store %s, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// A wgmma schedule reads a transposed lhs through TMA copies only (tma = 0
// here: the cp.async copies write K-major rows).
func.func @wgmma_lhs_t(%x: memref<64x128xbf16>, %w: memref<64x256xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 256>, tile.schedule = {wgmma = 1 : i64, block_m = 128 : i64, block_n = 256 : i64, block_k = 64 : i64, warps_m = 8 : i64, warps_n = 1 : i64, stages = 4 : i64, group_m = 8 : i64, grid = 1 : i64, threads = 256 : i64, shared_bytes = 197632 : i64}} {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op the wgmma schedule needs 16-bit operands, TMA copies for a transposed lhs [K, M], and block_n a multiple of 64 for a [K, N] rhs}}
  %p = tile.matmul %x, %w[%r] {transpose_a = true} : memref<64x128xbf16>, memref<64x256xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}

// -----

// A hand-written wgmma schedule is checked too: block_k must be 64.
// expected-error @+1 {{'func.func' op invalid GEMM tile.schedule {block_k = 32 : i64, block_m = 128 : i64, block_n = 256 : i64, group_m = 8 : i64, stages = 4 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64} (warp tiles must be multiples of 16x16, block_k of 16; wgmma: warps of 16 rows a chain, block_k 64, block_n <= 256, >= 3 stages; m_chains 1, or 2 with TMA and no ping-pong; cluster_m 2 needs TMA}}
func.func @wgmma_block_k(%x: memref<?x64xbf16>, %w: memref<256x64xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 256>, tile.schedule = {wgmma = 1 : i64, block_m = 128 : i64, block_n = 256 : i64, block_k = 32 : i64, warps_m = 8 : i64, warps_n = 1 : i64, stages = 4 : i64, group_m = 8 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x64xbf16>, memref<256x64xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}

// -----

// A batched rhs [3, K, N] splits the rows into 3 equal blocks: 82 rows do not.
func.func @batch_rows(%x: memref<?x64xbf16>, %w: memref<3x64x64xbf16>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 2, 41, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 12 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op a batched product needs 3 blocks of rows, got 82 rows}}
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<3x64x64xbf16> -> tensor<64xf32>
  tile.store %p, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// A batched rhs with a transposed lhs [K, M] (the op's verifier: a
// transposed lhs of a batched product is [batch, K, M]).
func.func @batch_trans_a(%x: memref<64x128xbf16>, %w: memref<2x64x64xbf16>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 8 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op a batched rhs needs a batched transposed lhs [batch, K, M], got 'memref<64x128xbf16>'}}
  %p = tile.matmul %x, %w[%r] {transpose_a = true} : memref<64x128xbf16>, memref<2x64x64xbf16> -> tensor<64xf32>
  tile.store %p, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// A 2-CTA cluster (cluster_m = 2) shares the B panel by TMA multicast: a
// schedule without TMA cannot have one.
// expected-error @+1 {{'func.func' op invalid GEMM tile.schedule {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 2 : i64, grid = 2 : i64, group_m = 8 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64} (}}
func.func @cluster_no_tma(%x: memref<?x64xbf16>, %w: memref<256x64xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 256, 256>, tile.schedule = {wgmma = 1 : i64, tma = 0 : i64, cluster_m = 2 : i64, block_m = 128 : i64, block_n = 256 : i64, block_k = 64 : i64, warps_m = 8 : i64, warps_n = 1 : i64, stages = 4 : i64, group_m = 8 : i64, grid = 2 : i64, threads = 256 : i64, shared_bytes = 197632 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x64xbf16>, memref<256x64xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}

// -----

// Clusters are of 1 or 2 CTAs.
// expected-error @+1 {{'func.func' op invalid GEMM tile.schedule {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 3 : i64, grid = 3 : i64, group_m = 8 : i64, persistent = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64} (}}
func.func @cluster_3(%x: memref<?x64xbf16>, %w: memref<256x64xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 384, 256>, tile.schedule = {wgmma = 1 : i64, tma = 1 : i64, persistent = 1 : i64, cluster_m = 3 : i64, block_m = 128 : i64, block_n = 256 : i64, block_k = 64 : i64, warps_m = 8 : i64, warps_n = 1 : i64, stages = 4 : i64, group_m = 8 : i64, grid = 3 : i64, threads = 384 : i64, shared_bytes = 197696 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x64xbf16>, memref<256x64xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}

// -----

// A cluster of two splits the B panel between its CTAs: a [K, N] rhs needs
// an even number of 64-column blocks (3 here would leave one never copied
// and the stage's expected bytes never arriving: a hang).
// expected-error @+1 {{cluster_m 2 needs TMA and block_n / 2 a multiple of 8}}
func.func @kn192(%x: memref<?x64xbf16>, %w: memref<64x384xbf16>, %y: memref<?x384xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 256, 384>, tile.schedule = {wgmma = 1 : i64, tma = 1 : i64, persistent = 1 : i64, cluster_m = 2 : i64, block_m = 128 : i64, block_n = 192 : i64, block_k = 64 : i64, warps_m = 8 : i64, warps_n = 1 : i64, stages = 4 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 384 : i64, shared_bytes = 197696 : i64}, tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 256, 64>}, {arg = 1 : i64, box = array<i64: 64, 64>, dims = array<i64: 64, 384>}]} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<64x384xbf16> -> tensor<384xf32>
  tile.store %p, %y[%r] : tensor<384xf32> -> memref<?x384xf32>
  return
}

// -----

// Ping-pong (pingpong = 1: the two MMA warpgroups take alternate 64-row
// tiles) orders the warpgroups' k steps on the TMA pipeline's stages: a
// schedule without TMA cannot have it. (The same schedule with pingpong = 0
// is a valid 64-row cp.async kernel.)
// expected-error @+1 {{'func.func' op invalid GEMM tile.schedule {block_k = 64 : i64, block_m = 64 : i64, block_n = 256 : i64, grid = 4 : i64, group_m = 32 : i64, pingpong = 1 : i64, shared_bytes = 164864 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 4 : i64, warps_n = 1 : i64, wgmma = 1 : i64} (warp tiles must be multiples of 16x16, block_k of 16; wgmma: warps of 16 rows a chain, block_k 64, block_n <= 256, >= 3 stages; m_chains 1, or 2 with TMA and no ping-pong; cluster_m 2 needs TMA and block_n / 2 a multiple of 8 ([N, K] rhs) or an even number of 64-column blocks ([K, N]); pingpong needs TMA and block_m 64}}
func.func @pingpong_no_tma(%x: memref<?x128xbf16>, %w: memref<256x128xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 256, 256>, tile.schedule = {wgmma = 1 : i64, tma = 0 : i64, pingpong = 1 : i64, block_m = 64 : i64, block_n = 256 : i64, block_k = 64 : i64, warps_m = 4 : i64, warps_n = 1 : i64, stages = 4 : i64, group_m = 32 : i64, grid = 4 : i64, threads = 256 : i64, shared_bytes = 164864 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x128xbf16>, memref<256x128xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}

// -----

// A ping-pong tile is one warpgroup's 64 rows: block_m 128 (warps_m 8) is
// rejected. (With pingpong = 0 this is the default 128-row TMA kernel.)
// expected-error @+1 {{'func.func' op invalid GEMM tile.schedule {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 2 : i64, group_m = 32 : i64, persistent = 1 : i64, pingpong = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64} (warp tiles must be multiples of 16x16, block_k of 16; wgmma: warps of 16 rows a chain, block_k 64, block_n <= 256, >= 3 stages; m_chains 1, or 2 with TMA and no ping-pong; cluster_m 2 needs TMA and block_n / 2 a multiple of 8 ([N, K] rhs) or an even number of 64-column blocks ([K, N]); pingpong needs TMA and block_m 64}}
func.func @pingpong_block_m_128(%x: memref<?x128xbf16>, %w: memref<256x128xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 256, 256>, tile.schedule = {wgmma = 1 : i64, tma = 1 : i64, persistent = 1 : i64, pingpong = 1 : i64, cluster_m = 1 : i64, block_m = 128 : i64, block_n = 256 : i64, block_k = 64 : i64, warps_m = 8 : i64, warps_n = 1 : i64, stages = 4 : i64, group_m = 32 : i64, grid = 2 : i64, threads = 384 : i64, shared_bytes = 197696 : i64}, tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 256, 128>}, {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 256, 128>}]} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x128xbf16>, memref<256x128xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}

// -----

// The launch takes its block size from the schedule's `threads`: a ping-pong
// kernel needs the producer and both MMA warpgroups (384). With 256 the
// second warpgroup would not exist and the first would wait for it forever.
// expected-error @+1 {{launches 256 threads, its warps need 384}}
func.func @pingpong_threads(%x: memref<?x128xbf16>, %w: memref<256x128xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 256, 256>, tile.schedule = {wgmma = 1 : i64, tma = 1 : i64, persistent = 1 : i64, pingpong = 1 : i64, cluster_m = 1 : i64, block_m = 64 : i64, block_n = 256 : i64, block_k = 64 : i64, warps_m = 4 : i64, warps_n = 1 : i64, stages = 5 : i64, group_m = 32 : i64, grid = 4 : i64, threads = 256 : i64, shared_bytes = 205904 : i64}, tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 256, 128>}, {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 256, 128>}]} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x128xbf16>, memref<256x128xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}

// -----

// tma_store: the output's tensor map must move a unit of 64 rows x 128
// bytes, here 32 f32 columns: a 16-bit style [64, 64] box is rejected.
// expected-error @+1 {{'func.func' op tma_store needs one row store of 16- or 32-bit elements, block_n a multiple of a unit's 128 bytes and the output's tensor map last in tile.tma with box [64, 128 bytes], got block_n 256 and tile.tma}}
func.func @tma_store_f32_box(%x: memref<?x256xbf16>, %w: memref<256x256xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 200, 256>, tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 2 : i64, group_m = 16 : i64, mma_pending = 1 : i64, persistent = 1 : i64, shared_bytes = 231424 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, tma_store = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}, tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 200, 256>}, {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 256, 256>}, {arg = 2 : i64, box = array<i64: 64, 64>, dims = array<i64: 200, 256>}]} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x256xbf16>, memref<256x256xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}

// -----

// A batched product's output map is 3-D: a 2-D one would let a tile's rows
// past its batch spill into the next.
// expected-error @+1 {{'func.func' op tma_store needs one row store of 16- or 32-bit elements, block_n a multiple of a unit's 128 bytes and the output's tensor map last in tile.tma with box [1, 64, 128 bytes]}}
func.func @tma_store_batched_2d(%x: memref<?x128xbf16>, %w: memref<3x264x128xbf16>, %y: memref<?x264xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 3, 300, 264>, tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 18 : i64, group_m = 16 : i64, mma_pending = 1 : i64, persistent = 1 : i64, shared_bytes = 231424 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, tma_store = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}, tile.tma = [{arg = 0 : i64, box = array<i64: 1, 128, 64>, dims = array<i64: 3, 300, 128>}, {arg = 1 : i64, box = array<i64: 1, 256, 64>, dims = array<i64: 3, 264, 128>}, {arg = 2 : i64, box = array<i64: 64, 64>, dims = array<i64: 900, 264>}]} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x128xbf16>, memref<3x264x128xbf16> -> tensor<264xf32>
  %t = arith.truncf %p : tensor<264xf32> to tensor<264xbf16>
  tile.store %t, %y[%r] : tensor<264xbf16> -> memref<?x264xbf16>
  return
}

// -----

// An attention kernel whose softmax sums the scores, not their exps: not
// the form runFlash computes online.
// expected-error @+1 {{'func.func' op attention kernel's softmax must be the max of the scores, exp of their difference from it, the sum of the exps and the division by it, cast to v's dtype, and nothing else may read them}}
func.func @attention_other_softmax(%q: memref<?x64xbf16>, %k: memref<72x64xbf16>, %v: memref<72x32xbf16>, %o: memref<?x32xbf16>) attributes {tile.attention, tile.domain = array<i64: 40, 32>, tile.gemm, tile.kernel, tile.schedule = {attention = 1 : i64, block_m = 48 : i64, block_n = 64 : i64, grid = 1 : i64, group_m = 1 : i64, shared_bytes = 30720 : i64, stages = 2 : i64, threads = 96 : i64, warps_m = 3 : i64}} {
  %r = tile.row_id
  %s = tile.matmul %q, %k[%r] {transpose_b = true} : memref<?x64xbf16>, memref<72x64xbf16> -> tensor<72xf32>
  %m = tile.reduce_max %s : tensor<72xf32> -> f32
  %ms = tile.splat %m : f32 -> tensor<72xf32>
  %d = arith.subf %s, %ms : tensor<72xf32>
  %e = math.exp %d : tensor<72xf32>
  %l = tile.reduce_sum %s : tensor<72xf32> -> f32
  %ls = tile.splat %l : f32 -> tensor<72xf32>
  %p = arith.divf %e, %ls : tensor<72xf32>
  %p16 = arith.truncf %p : tensor<72xf32> to tensor<72xbf16>
  %pv = tile.row_matmul %p16, %v[%r] : tensor<72xbf16>, memref<72x32xbf16> -> tensor<32xf32>
  %out = arith.truncf %pv : tensor<32xf32> to tensor<32xbf16>
  tile.store %out, %o[%r] : tensor<32xbf16> -> memref<?x32xbf16>
  return
}
