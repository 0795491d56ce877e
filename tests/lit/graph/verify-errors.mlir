// RUN: tilec-opt --split-input-file --verify-diagnostics %s

// Graph-dialect verifiers: shape and dtype rules of the operators and of
// graph.fusion.
//
// Note: shape mismatches on elementwise ops (binary, unary, cast) are caught
// first by the upstream Elementwise trait verifier, so its message is the one
// users see, not the custom "(broadcast explicitly with graph.broadcast)" or
// "cast must keep the shape" texts in GraphDialect.cpp.

func.func @binary_shape_mismatch(%a: tensor<4x64xf32>, %b: tensor<4x32xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.add' op all non-scalar operands/results must have the same shape and base type}}
  %0 = graph.add %a, %b : (tensor<4x64xf32>, tensor<4x32xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Implicit broadcasting of a row vector is rejected too.
func.func @binary_rank_mismatch(%a: tensor<4x64xf32>, %w: tensor<64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.mul' op all non-scalar operands/results must have the same shape and base type}}
  %0 = graph.mul %a, %w : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @binary_dtype_mismatch(%a: tensor<4x64xf32>, %b: tensor<4x64xbf16>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.sub' op operand dtypes differ: 'f32' vs 'bf16' (convert with graph.cast)}}
  %0 = graph.sub %a, %b : (tensor<4x64xf32>, tensor<4x64xbf16>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @binary_result_type(%a: tensor<4x64xf16>, %b: tensor<4x64xf16>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.div' op result type 'tensor<4x64xf32>' must equal operand type 'tensor<4x64xf16>'}}
  %0 = graph.div %a, %b : (tensor<4x64xf16>, tensor<4x64xf16>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @unary_result_type(%a: tensor<4x64xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'graph.exp' op all non-scalar operands/results must have the same shape and base type}}
  %0 = graph.exp %a : (tensor<4x64xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Integer tensors are not graph tensors (ODS type constraint).
func.func @integer_operand(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'graph.neg' op operand #0 must be tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = graph.neg %a : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @broadcast_incompatible(%a: tensor<4x32xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.broadcast' op cannot broadcast 'tensor<4x32xf32>' to 'tensor<4x64xf32>': dimension 1 is 32, expected 1 or 64}}
  %0 = graph.broadcast %a : (tensor<4x32xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Dimensions align from the right: a 4-vector does not broadcast along rows.
func.func @broadcast_right_aligned(%a: tensor<4xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.broadcast' op cannot broadcast 'tensor<4xf32>' to 'tensor<4x64xf32>': dimension 0 is 4, expected 1 or 64}}
  %0 = graph.broadcast %a : (tensor<4xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @broadcast_lower_rank(%a: tensor<4x64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'graph.broadcast' op cannot broadcast 'tensor<4x64xf32>' to lower rank 'tensor<64xf32>'}}
  %0 = graph.broadcast %a : (tensor<4x64xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @broadcast_dtype(%a: tensor<64xf32>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'graph.broadcast' op broadcast cannot change the dtype: 'f32' -> 'f16'}}
  %0 = graph.broadcast %a : (tensor<64xf32>) -> tensor<4x64xf16>
  return %0 : tensor<4x64xf16>
}

// -----

func.func @reduce_axis_out_of_range(%a: tensor<4x64xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'graph.reduce_sum' op axis 2 out of range for 'tensor<4x64xf32>'}}
  %0 = graph.reduce_sum %a {axis = 2 : i64} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @reduce_negative_axis(%a: tensor<4x64xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'graph.reduce_max' op axis -1 out of range for 'tensor<4x64xf32>'}}
  %0 = graph.reduce_max %a {axis = -1 : i64} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// The reduced axis is kept with size 1, not dropped.
func.func @reduce_drops_axis(%a: tensor<4x64xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.reduce_mean' op result 'tensor<4xf32>' must be 'tensor<4x1xf32>' (the reduced axis is kept with size 1)}}
  %0 = graph.reduce_mean %a {axis = 1 : i64} : (tensor<4x64xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_wrong_axis_kept(%a: tensor<4x64xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'graph.reduce_sum' op result 'tensor<4x1xf32>' must be 'tensor<1x64xf32>' (the reduced axis is kept with size 1)}}
  %0 = graph.reduce_sum %a {axis = 0 : i64} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Reductions keep the input dtype (they accumulate in f32 internally).
func.func @reduce_result_dtype(%a: tensor<4x64xbf16>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'graph.reduce_sum' op result 'tensor<4x1xf32>' must be 'tensor<4x1xbf16>'}}
  %0 = graph.reduce_sum %a {axis = 1 : i64} : (tensor<4x64xbf16>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @reduce_rank0(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'graph.reduce_sum' op cannot reduce a rank-0 tensor}}
  %0 = graph.reduce_sum %a {axis = 0 : i64} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cast_changes_shape(%a: tensor<4x64xbf16>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'graph.cast' op all non-scalar operands/results must have the same shape and base type}}
  %0 = graph.cast %a : (tensor<4x64xbf16>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

func.func @fusion_yield_type_mismatch(%a: tensor<4x64xf32>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'graph.fusion' op yielded types must match the fusion's result types}}
  %0 = graph.fusion(%a : tensor<4x64xf32>) -> tensor<4x64xf16> {
  ^bb0(%x: tensor<4x64xf32>):
    %1 = graph.exp %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
    graph.yield %1 : tensor<4x64xf32>
  }
  return %0 : tensor<4x64xf16>
}

// -----

func.func @fusion_yield_count_mismatch(%a: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.fusion' op yielded types must match the fusion's result types}}
  %0 = graph.fusion(%a : tensor<4x64xf32>) -> tensor<4x64xf32> {
  ^bb0(%x: tensor<4x64xf32>):
    %1 = graph.exp %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
    graph.yield %1, %1 : tensor<4x64xf32>, tensor<4x64xf32>
  }
  return %0 : tensor<4x64xf32>
}

// -----

func.func @fusion_argument_count(%a: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.fusion' op region takes 2 arguments but the fusion has 1 inputs}}
  %0 = graph.fusion(%a : tensor<4x64xf32>) -> tensor<4x64xf32> {
  ^bb0(%x: tensor<4x64xf32>, %y: tensor<4x64xf32>):
    graph.yield %x : tensor<4x64xf32>
  }
  return %0 : tensor<4x64xf32>
}

// -----

func.func @fusion_argument_type(%a: tensor<4x64xf32>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'graph.fusion' op region argument type 'tensor<4x64xf16>' differs from input type 'tensor<4x64xf32>'}}
  %0 = graph.fusion(%a : tensor<4x64xf32>) -> tensor<4x64xf16> {
  ^bb0(%x: tensor<4x64xf16>):
    graph.yield %x : tensor<4x64xf16>
  }
  return %0 : tensor<4x64xf16>
}

// -----

// graph.fusion is isolated from above: the body sees only its arguments.
func.func @fusion_isolated(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // expected-note @+1 {{required by region isolation constraints}}
  %0 = graph.fusion(%a : tensor<4x64xf32>) -> tensor<4x64xf32> {
  ^bb0(%x: tensor<4x64xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    %1 = graph.add %x, %b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    graph.yield %1 : tensor<4x64xf32>
  }
  return %0 : tensor<4x64xf32>
}

// -----

func.func @yield_outside_fusion(%a: tensor<4x64xf32>) {
  // expected-error @+1 {{'graph.yield' op expects parent op 'graph.fusion'}}
  graph.yield %a : tensor<4x64xf32>
}

// -----

// Same shape, different dtype: reaches graph.exp's own verifier.
func.func @unary_dtype_change(%a: tensor<4x64xf32>) -> tensor<4x64xbf16> {
  // expected-error @+1 {{'graph.exp' op result type 'tensor<4x64xbf16>' must equal operand type 'tensor<4x64xf32>'}}
  %0 = graph.exp %a : (tensor<4x64xf32>) -> tensor<4x64xbf16>
  return %0 : tensor<4x64xbf16>
}

// -----

func.func @reshape_count(%arg0: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{cannot view 'tensor<4x8xf32>' as 'tensor<4x4xf32>': a reshape keeps the dtype and the element count}}
  %0 = graph.reshape %arg0 : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @transpose_shape(%arg0: tensor<4x8x2xf32>) -> tensor<4x8x2xf32> {
  // expected-error @+1 {{result 'tensor<4x8x2xf32>' is not 'tensor<4x8x2xf32>' with dims 0 and 2 swapped}}
  %0 = graph.transpose %arg0 {dim0 = 0 : i64, dim1 = 2 : i64} : (tensor<4x8x2xf32>) -> tensor<4x8x2xf32>
  return %0 : tensor<4x8x2xf32>
}

// -----

func.func @transpose_dims(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{needs 0 <= dim0 < dim1 < rank, got dims 1 and 1 of 'tensor<4x8xf32>'}}
  %0 = graph.transpose %arg0 {dim0 = 1 : i64, dim1 = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
