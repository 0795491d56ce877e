// RUN: tilec-opt --split-input-file --verify-diagnostics --tilec-lower-fusion-to-tile %s

// What the GEMM lowering (tilec-lower-fusion-to-tile) rejects, and the
// tile.matmul verifier. Schedule errors are in gemm-schedule-errors.mlir,
// distribution errors in ../gpu/gemm-distribute-errors.mlir.

// x @ x^T: one buffer cannot be both operands (their layouts differ).
func.func @gram(%arg0: tensor<64x128xbf16>) -> tensor<64x64xf32> {
  %0 = graph.fusion(%arg0 : tensor<64x128xbf16>) attributes {domain = array<i64: 64, 64>, fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<64x64xf32> {
  ^bb0(%arg1: tensor<64x128xbf16>):
    // expected-error @+1 {{'graph.matmul' op with one tensor as both operands is not supported in a GEMM kernel}}
    %1 = graph.matmul %arg1, %arg1 {transpose_b = true} : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x64xf32>
    graph.yield %1 : tensor<64x64xf32>
  }
  return %0 : tensor<64x64xf32>
}

// -----

// The rhs [K, N] is also read as a row tile [M, N] by the epilogue: no
// single buffer layout serves both.
func.func @rhs_in_epilogue(%arg0: tensor<64x64xbf16>, %arg1: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @+1 {{'graph.fusion' op input 'tensor<64x64xbf16>' is read both by a matmul and by its epilogue in different layouts}}
  %0 = graph.fusion(%arg0, %arg1 : tensor<64x64xbf16>, tensor<64x64xbf16>) attributes {domain = array<i64: 64, 64>, fused_ops = 2 : i64, hbm_bytes_saved = 0 : i64} -> tensor<64x64xbf16> {
  ^bb0(%arg2: tensor<64x64xbf16>, %arg3: tensor<64x64xbf16>):
    %1 = graph.matmul %arg2, %arg3 : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
    %2 = graph.add %1, %arg3 : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
    graph.yield %2 : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}

// -----

// A hand-written prologue: the matmul's lhs is computed in the fusion.
func.func @prologue(%arg0: tensor<32x32xbf16>, %arg1: tensor<32x32xbf16>) -> tensor<32x32xbf16> {
  %0 = graph.fusion(%arg0, %arg1 : tensor<32x32xbf16>, tensor<32x32xbf16>) attributes {domain = array<i64: 32, 32>, fused_ops = 2 : i64, hbm_bytes_saved = 0 : i64} -> tensor<32x32xbf16> {
  ^bb0(%arg2: tensor<32x32xbf16>, %arg3: tensor<32x32xbf16>):
    %1 = graph.exp %arg2 : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
    // expected-error @+1 {{'graph.matmul' op operands must be inputs of the fusion (a GEMM kernel has no prologue)}}
    %2 = graph.matmul %1, %arg3 : (tensor<32x32xbf16>, tensor<32x32xbf16>) -> tensor<32x32xbf16>
    graph.yield %2 : tensor<32x32xbf16>
  }
  return %0 : tensor<32x32xbf16>
}

// -----

// A slice of the product would read it at a column offset.
func.func @slice_of_product(%arg0: tensor<32x64xbf16>, %arg1: tensor<64x64xbf16>) -> tensor<32x32xbf16> {
  %0 = graph.fusion(%arg0, %arg1 : tensor<32x64xbf16>, tensor<64x64xbf16>) attributes {domain = array<i64: 32, 64>, fused_ops = 2 : i64, hbm_bytes_saved = 0 : i64} -> tensor<32x32xbf16> {
  ^bb0(%arg2: tensor<32x64xbf16>, %arg3: tensor<64x64xbf16>):
    // expected-error @+1 {{'graph.matmul' op is read at a column offset; slices of a product are not fused}}
    %1 = graph.matmul %arg2, %arg3 : (tensor<32x64xbf16>, tensor<64x64xbf16>) -> tensor<32x64xbf16>
    %2 = graph.slice %1 {axis = 1 : i64, start = 32 : i64, end = 64 : i64} : (tensor<32x64xbf16>) -> tensor<32x32xbf16>
    graph.yield %2 : tensor<32x32xbf16>
  }
  return %0 : tensor<32x32xbf16>
}

// -----

// A hand-written fusion without a domain (the fusion pass gives every
// matmul one): reported by name.
func.func @no_domain(%arg0: tensor<2x64x8xbf16>, %arg1: tensor<64x32xbf16>) -> tensor<2x8x32xbf16> {
  // expected-error @+1 {{'graph.fusion' op has no row domain: 'graph.matmul' is not supported by tilec's row kernels yet}}
  %0 = graph.fusion(%arg0, %arg1 : tensor<2x64x8xbf16>, tensor<64x32xbf16>) attributes {fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<2x8x32xbf16> {
  ^bb0(%arg2: tensor<2x64x8xbf16>, %arg3: tensor<64x32xbf16>):
    %1 = graph.matmul %arg2, %arg3 {transpose_a = true} : (tensor<2x64x8xbf16>, tensor<64x32xbf16>) -> tensor<2x8x32xbf16>
    graph.yield %1 : tensor<2x8x32xbf16>
  }
  return %0 : tensor<2x8x32xbf16>
}

// -----

// A transposed lhs [K, M] read as rows by the epilogue.
func.func @trans_lhs_in_epilogue(%arg0: tensor<64x64xbf16>, %arg1: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @+1 {{'graph.fusion' op input 'tensor<64x64xbf16>' is read both by a matmul and by its epilogue in different layouts}}
  %0 = graph.fusion(%arg0, %arg1 : tensor<64x64xbf16>, tensor<64x64xbf16>) attributes {domain = array<i64: 64, 64>, fused_ops = 2 : i64, hbm_bytes_saved = 0 : i64} -> tensor<64x64xbf16> {
  ^bb0(%arg2: tensor<64x64xbf16>, %arg3: tensor<64x64xbf16>):
    %1 = graph.matmul %arg2, %arg3 {transpose_a = true} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
    %2 = graph.add %1, %arg2 : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
    graph.yield %2 : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}

// -----

// tile.matmul verifier.
func.func @rank(%a: memref<?x64x2xbf16>, %b: memref<64x32xbf16>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op operands must be 2-D memrefs (batched: a 3-D rhs, a 3-D transposed lhs), got 'memref<?x64x2xbf16>' and 'memref<64x32xbf16>'}}
  %p = tile.matmul %a, %b[%r] : memref<?x64x2xbf16>, memref<64x32xbf16> -> tensor<32xf32>
  return
}

// -----

// A batched rhs has one batch dim (LowerFusionToTile flattens them).
func.func @rank_4d_rhs(%a: memref<?x64xbf16>, %b: memref<2x2x64x32xbf16>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op operands must be 2-D memrefs (batched: a 3-D rhs, a 3-D transposed lhs), got 'memref<?x64xbf16>' and 'memref<2x2x64x32xbf16>'}}
  %p = tile.matmul %a, %b[%r] : memref<?x64xbf16>, memref<2x2x64x32xbf16> -> tensor<32xf32>
  return
}

// -----

// A batched rhs [B, K, N]: K and N are its last two dims, not the batch.
func.func @k_batched(%a: memref<?x64xbf16>, %b: memref<4x32x64xbf16>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op contraction dims differ: 64 (lhs 'memref<?x64xbf16>') vs 32 (rhs 'memref<4x32x64xbf16>')}}
  %p = tile.matmul %a, %b[%r] : memref<?x64xbf16>, memref<4x32x64xbf16> -> tensor<64xf32>
  return
}

// -----

// [B, N, K] with transpose_b.
func.func @k_batched_trans_b(%a: memref<?x64xbf16>, %b: memref<4x64x32xbf16>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op contraction dims differ: 64 (lhs 'memref<?x64xbf16>') vs 32 (rhs 'memref<4x64x32xbf16>')}}
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x64xbf16>, memref<4x64x32xbf16> -> tensor<64xf32>
  return
}

// -----

func.func @cols_batched(%a: memref<?x64xbf16>, %b: memref<4x64x32xbf16>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op result must have 32 columns, got 'tensor<64xf32>'}}
  %p = tile.matmul %a, %b[%r] : memref<?x64xbf16>, memref<4x64x32xbf16> -> tensor<64xf32>
  return
}

// -----

// The batch count must be static too.
func.func @dyn_batched_rhs(%a: memref<?x64xbf16>, %b: memref<?x64x32xbf16>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op rhs must have static dims, got 'memref<?x64x32xbf16>'}}
  %p = tile.matmul %a, %b[%r] : memref<?x64xbf16>, memref<?x64x32xbf16> -> tensor<32xf32>
  return
}

// -----

func.func @elem(%a: memref<?x64xbf16>, %b: memref<64x32xf16>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op operands must have one element type, got 'memref<?x64xbf16>' and 'memref<64x32xf16>'}}
  %p = tile.matmul %a, %b[%r] : memref<?x64xbf16>, memref<64x32xf16> -> tensor<32xf32>
  return
}

// -----

func.func @dyn_trans_lhs(%a: memref<64x?xbf16>, %b: memref<64x32xbf16>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op a transposed lhs must have static dims, got 'memref<64x?xbf16>'}}
  %p = tile.matmul %a, %b[%r] {transpose_a = true} : memref<64x?xbf16>, memref<64x32xbf16> -> tensor<32xf32>
  return
}

// -----

func.func @dyn_rhs(%a: memref<?x64xbf16>, %b: memref<64x?xbf16>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op rhs must have static dims, got 'memref<64x?xbf16>'}}
  %p = tile.matmul %a, %b[%r] : memref<?x64xbf16>, memref<64x?xbf16> -> tensor<32xf32>
  return
}

// -----

func.func @k(%a: memref<?x64xbf16>, %b: memref<32x64xbf16>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op contraction dims differ: 64 (lhs 'memref<?x64xbf16>') vs 32 (rhs 'memref<32x64xbf16>')}}
  %p = tile.matmul %a, %b[%r] : memref<?x64xbf16>, memref<32x64xbf16> -> tensor<64xf32>
  return
}

// -----

// With transpose_b the rhs is [N, K].
func.func @k_trans_b(%a: memref<?x64xbf16>, %b: memref<64x32xbf16>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op contraction dims differ: 64 (lhs 'memref<?x64xbf16>') vs 32 (rhs 'memref<64x32xbf16>')}}
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x64xbf16>, memref<64x32xbf16> -> tensor<64xf32>
  return
}

// -----

func.func @cols(%a: memref<?x64xbf16>, %b: memref<64x32xbf16>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op result must have 32 columns, got 'tensor<64xf32>'}}
  %p = tile.matmul %a, %b[%r] : memref<?x64xbf16>, memref<64x32xbf16> -> tensor<64xf32>
  return
}

// -----

// The product row is always f32.
func.func @result_type(%a: memref<?x64xbf16>, %b: memref<64x32xbf16>) {
  %r = tile.row_id
  // expected-error @+1 {{'tile.matmul' op result #0 must be 1D tensor of 32-bit float values, but got 'tensor<32xbf16>'}}
  %p = tile.matmul %a, %b[%r] : memref<?x64xbf16>, memref<64x32xbf16> -> tensor<32xbf16>
  return
}
