// RUN: tilec-opt --split-input-file --verify-diagnostics %s

// Tile-dialect verifiers.

func.func @load_elem_mismatch(%m: memref<?x64xf32>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.load' op element type 'bf16' differs from the memref's 'f32'}}
  %t = tile.load %m[%r] : memref<?x64xf32> -> tensor<64xbf16>
  return
}

// -----

func.func @load_row_rank(%m: memref<64xf32>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.load' op a row access needs a rank-2 memref, got 'memref<64xf32>'}}
  %t = tile.load %m[%r] : memref<64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @load_tile_width(%m: memref<?x64xf32>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.load' op tile of 32 elements does not match rows of 64}}
  %t = tile.load %m[%r] : memref<?x64xf32> -> tensor<32xf32>
  return
}

// -----

func.func @load_row_scalar(%m: memref<?x4xf32>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.load' op a per-row scalar needs a memref<?x1xT>, got 'memref<?x4xf32>'}}
  %t = tile.load %m[%r] : memref<?x4xf32> -> f32
  return
}

// -----

// The expected memref is printed as a type.
func.func @load_shared_vector(%m: memref<32xf32>) {
  // expected-error @+1 {{'tile.load' op a shared row vector needs 'memref<64xf32>', got 'memref<32xf32>'}}
  %t = tile.load %m : memref<32xf32> -> tensor<64xf32>
  return
}

// -----

func.func @load_shared_scalar(%m: memref<4xf32>) {
  // expected-error @+1 {{'tile.load' op a shared scalar needs a rank-0 memref, got 'memref<4xf32>'}}
  %t = tile.load %m : memref<4xf32> -> f32
  return
}

// -----

// A store without a row writes a value shared by all rows: a tile needs a
// rank-1 memref of its length, a scalar a rank-0 memref (the valid forms are
// in roundtrip.mlir).
func.func @store_without_row(%m: memref<?x64xf32>, %t: tensor<64xf32>) {
  // expected-error @+1 {{'tile.store' op a shared row vector needs 'memref<64xf32>', got 'memref<?x64xf32>'}}
  tile.store %t, %m : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

func.func @store_shared_vector_width(%m: memref<32xbf16>, %t: tensor<64xbf16>) {
  // expected-error @+1 {{'tile.store' op a shared row vector needs 'memref<64xbf16>', got 'memref<32xbf16>'}}
  tile.store %t, %m : tensor<64xbf16> -> memref<32xbf16>
  return
}

// -----

func.func @store_shared_scalar(%m: memref<1xf32>, %s: f32) {
  // expected-error @+1 {{'tile.store' op a shared scalar needs a rank-0 memref, got 'memref<1xf32>'}}
  tile.store %s, %m : f32 -> memref<1xf32>
  return
}

// -----

func.func @store_shared_elem_mismatch(%m: memref<f16>, %s: f32) {
  // expected-error @+1 {{'tile.store' op element type 'f32' differs from the memref's 'f16'}}
  tile.store %s, %m : f32 -> memref<f16>
  return
}

// -----

func.func @store_elem_mismatch(%m: memref<?x64xf16>, %t: tensor<64xf32>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.store' op element type 'f32' differs from the memref's 'f16'}}
  tile.store %t, %m[%r] : tensor<64xf32> -> memref<?x64xf16>
  return
}

// -----

func.func @splat_type(%s: f32) {
  // expected-error @+1 {{'tile.splat' op splat of 'f32' cannot produce 'tensor<64xbf16>'}}
  %t = tile.splat %s : f32 -> tensor<64xbf16>
  return
}

// -----

func.func @reduce_needs_f32(%t: tensor<64xbf16>) {
  // expected-error @+1 {{'tile.reduce_sum' op reductions take f32 tiles (upcast first)}}
  %s = tile.reduce_sum %t : tensor<64xbf16> -> f32
  return
}

// -----

func.func @reduce_max_needs_f32(%t: tensor<64xf16>) {
  // expected-error @+1 {{'tile.reduce_max' op reductions take f32 tiles (upcast first)}}
  %s = tile.reduce_max %t : tensor<64xf16> -> f32
  return
}

// -----

func.func @launch_unknown(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'tile.launch' op no tile kernel named @nope}}
  %0 = tile.launch @nope(%x) : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @k(%a: memref<?x64xf32>, %b: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  return
}
func.func @launch_arity(%x: tensor<4x64xf32>, %y: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'tile.launch' op kernel k takes 2 buffers, expected 3 (inputs then results)}}
  %0 = tile.launch @k(%x, %y) : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// col_offset (a window on the row, see TileOps.td) applies to row tiles
// only: not to per-row scalars...
func.func @window_on_row_scalar(%m: memref<?x1xf32>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.load' op col_offset needs a row tile of a rank-1 or rank-2 memref}}
  %t = tile.load %m[%r] {col_offset = 0 : i64} : memref<?x1xf32> -> f32
  return
}

// -----

// ...nor to shared scalars...
func.func @window_on_shared_scalar(%m: memref<f32>) {
  // expected-error @+1 {{'tile.load' op col_offset needs a row tile of a rank-1 or rank-2 memref}}
  %t = tile.load %m {col_offset = 1 : i64} : memref<f32> -> f32
  return
}

// -----

// ...nor to stores of scalars...
func.func @window_on_scalar_store(%m: memref<?x1xf32>, %s: f32) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.store' op col_offset needs a row tile of a rank-1 or rank-2 memref}}
  tile.store %s, %m[%r] {col_offset = 0 : i64} : f32 -> memref<?x1xf32>
  return
}

// -----

// ...nor to strided rows of a rank-3 memref.
func.func @window_on_strided_row(%m: memref<2x4x8xf32>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.load' op col_offset needs a row tile of a rank-1 or rank-2 memref}}
  %t = tile.load %m[%r] {col_offset = 1 : i64} : memref<2x4x8xf32> -> tensor<4xf32>
  return
}

// -----

// A window lifts the width check, not the others: a row access still needs
// a rank-2 memref and the element types must match.
func.func @window_row_rank(%m: memref<64xf32>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.load' op a row access needs a rank-2 memref, got 'memref<64xf32>'}}
  %t = tile.load %m[%r] {col_offset = 8 : i64} : memref<64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @window_elem_mismatch(%m: memref<?x32xf32>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.load' op element type 'f16' differs from the memref's 'f32'}}
  %t = tile.load %m[%r] {col_offset = 8 : i64} : memref<?x32xf32> -> tensor<64xf16>
  return
}

// -----

// Without col_offset, a row narrower than the tile is still an error (the
// window makes reading it explicit).
func.func @part_without_window(%m: memref<?x24xf32>, %t: tensor<64xf32>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.store' op tile of 64 elements does not match rows of 24}}
  tile.store %t, %m[%r] : tensor<64xf32> -> memref<?x24xf32>
  return
}

// -----

// tile.select_cols joins two tiles of one type.
func.func @select_cols_types(%a: tensor<64xf32>, %b: tensor<64xbf16>) {
  // expected-error @+1 {{'tile.select_cols' op failed to verify that all of {low, high, result} have same type}}
  %s = "tile.select_cols"(%a, %b) <{split = 12 : i64}> : (tensor<64xf32>, tensor<64xbf16>) -> tensor<64xf32>
  return
}

// -----

func.func @select_cols_rank(%a: tensor<4x64xf32>) {
  // expected-error @+1 {{'tile.select_cols' op operand #0 must be 1D tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4x64xf32>'}}
  %s = tile.select_cols %a, %a {split = 12 : i64} : tensor<4x64xf32>
  return
}

// -----

func.func @select_split_out_of_range(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'tile.select_cols' op split 100 is outside the tile's columns [0, 64]}}
  %0 = tile.select_cols %a, %b {split = 100 : i64} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @reduce_max_sum_exp_needs_f32(%t: tensor<64xbf16>) {
  // expected-error @+1 {{'tile.reduce_max_sum_exp' op reductions take f32 tiles (upcast first)}}
  %m, %s = tile.reduce_max_sum_exp %t : tensor<64xbf16> -> f32, f32
  return
}

// -----

func.func @reduce_max_sum_exp_exp_tile_type(%t: tensor<64xf32>) {
  // expected-error @+1 {{'tile.reduce_max_sum_exp' op exp tile must have the input's type}}
  %m, %s, %e = tile.reduce_max_sum_exp %t : tensor<64xf32> -> f32, f32, tensor<32xf32>
  return
}

// -----

func.func @reduce_mean_m2_needs_f32(%t: tensor<64xbf16>) {
  // expected-error @+1 {{'tile.reduce_mean_m2' op reductions take f32 tiles (upcast first)}}
  %m, %v = tile.reduce_mean_m2 %t : tensor<64xbf16> -> f32, f32
  return
}

// -----

func.func @row_matmul_contraction(%p: tensor<72xbf16>, %v: memref<2x64x32xbf16>, %r: index) {
  // expected-error @+1 {{'tile.row_matmul' op contraction dims differ: 72 (lhs 'tensor<72xbf16>') vs 64 (rhs 'memref<2x64x32xbf16>')}}
  %o = tile.row_matmul %p, %v[%r] : tensor<72xbf16>, memref<2x64x32xbf16> -> tensor<32xf32>
  return
}

// -----

func.func @row_matmul_types(%p: tensor<64xf16>, %v: memref<64x32xbf16>, %r: index) {
  // expected-error @+1 {{'tile.row_matmul' op operands must have one element type}}
  %o = tile.row_matmul %p, %v[%r] : tensor<64xf16>, memref<64x32xbf16> -> tensor<32xf32>
  return
}
