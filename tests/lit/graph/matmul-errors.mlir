// RUN: tilec-opt --split-input-file --verify-diagnostics %s

// Verifier of graph.matmul: operand ranks, dtypes, batch dims, the
// contraction dim (after the transposes) and the result shape.

func.func @lhs_rank_1(%a: tensor<5xf32>, %b: tensor<5x7xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{'graph.matmul' op lhs 'tensor<5xf32>' must have rank >= 2}}
  %0 = graph.matmul %a, %b : (tensor<5xf32>, tensor<5x7xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @rhs_rank_1(%a: tensor<3x5xf32>, %b: tensor<5xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'graph.matmul' op rhs 'tensor<5xf32>' must have rank >= 2}}
  %0 = graph.matmul %a, %b : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @dtype_mismatch(%a: tensor<3x5xf32>, %b: tensor<5x7xbf16>) -> tensor<3x7xf32> {
  // expected-error @+1 {{'graph.matmul' op operand dtypes differ: 'f32' vs 'bf16' (convert with graph.cast)}}
  %0 = graph.matmul %a, %b : (tensor<3x5xf32>, tensor<5x7xbf16>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}

// -----

func.func @k_mismatch(%a: tensor<3x5xf32>, %b: tensor<6x7xf32>) -> tensor<3x7xf32> {
  // expected-error @+1 {{'graph.matmul' op contraction dims differ: lhs 'tensor<3x5xf32>' has K = 5, rhs 'tensor<6x7xf32>' has K = 6}}
  %0 = graph.matmul %a, %b : (tensor<3x5xf32>, tensor<6x7xf32>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}

// -----

// Shapes that fit without the transpose do not fit with it.
func.func @k_mismatch_transpose_a(%a: tensor<3x5xf32>, %b: tensor<5x7xf32>) -> tensor<5x7xf32> {
  // expected-error @+1 {{'graph.matmul' op contraction dims differ: lhs 'tensor<3x5xf32>' (transposed) has K = 3, rhs 'tensor<5x7xf32>' has K = 5}}
  %0 = graph.matmul %a, %b {transpose_a = true} : (tensor<3x5xf32>, tensor<5x7xf32>) -> tensor<5x7xf32>
  return %0 : tensor<5x7xf32>
}

// -----

func.func @k_mismatch_transpose_b(%a: tensor<3x5xf32>, %b: tensor<5x7xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{'graph.matmul' op contraction dims differ: lhs 'tensor<3x5xf32>' has K = 5, rhs 'tensor<5x7xf32>' (transposed) has K = 7}}
  %0 = graph.matmul %a, %b {transpose_b = true} : (tensor<3x5xf32>, tensor<5x7xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// Batch dims are not broadcast: they must be equal.
func.func @batch_mismatch(%a: tensor<2x3x5xf32>, %b: tensor<4x5x7xf32>) -> tensor<2x3x7xf32> {
  // expected-error @+1 {{'graph.matmul' op batch dims differ: lhs 'tensor<2x3x5xf32>' has [2], rhs 'tensor<4x5x7xf32>' has [4] (rhs must be 2-D or have exactly the lhs's batch dims)}}
  %0 = graph.matmul %a, %b : (tensor<2x3x5xf32>, tensor<4x5x7xf32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}

// -----

func.func @batch_size_1_not_broadcast(%a: tensor<2x3x5xf32>, %b: tensor<1x5x7xf32>) -> tensor<2x3x7xf32> {
  // expected-error @+1 {{'graph.matmul' op batch dims differ: lhs 'tensor<2x3x5xf32>' has [2], rhs 'tensor<1x5x7xf32>' has [1]}}
  %0 = graph.matmul %a, %b : (tensor<2x3x5xf32>, tensor<1x5x7xf32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}

// -----

// A batched rhs needs a batched lhs of the same batch dims.
func.func @batched_rhs_2d_lhs(%a: tensor<3x5xf32>, %b: tensor<2x5x7xf32>) -> tensor<2x3x7xf32> {
  // expected-error @+1 {{'graph.matmul' op batch dims differ: lhs 'tensor<3x5xf32>' has [], rhs 'tensor<2x5x7xf32>' has [2]}}
  %0 = graph.matmul %a, %b : (tensor<3x5xf32>, tensor<2x5x7xf32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}

// -----

func.func @batch_rank_mismatch(%a: tensor<2x3x5xf32>, %b: tensor<1x2x5x7xf32>) -> tensor<2x3x7xf32> {
  // expected-error @+1 {{'graph.matmul' op batch dims differ: lhs 'tensor<2x3x5xf32>' has [2], rhs 'tensor<1x2x5x7xf32>' has [1, 2]}}
  %0 = graph.matmul %a, %b : (tensor<2x3x5xf32>, tensor<1x2x5x7xf32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}

// -----

func.func @result_shape(%a: tensor<3x5xf32>, %b: tensor<5x7xf32>) -> tensor<7x3xf32> {
  // expected-error @+1 {{'graph.matmul' op result 'tensor<7x3xf32>' must have shape [..., M, N] = [3, 7]}}
  %0 = graph.matmul %a, %b : (tensor<3x5xf32>, tensor<5x7xf32>) -> tensor<7x3xf32>
  return %0 : tensor<7x3xf32>
}

// -----

func.func @result_missing_batch(%a: tensor<2x3x5xf32>, %b: tensor<5x7xf32>) -> tensor<3x7xf32> {
  // expected-error @+1 {{'graph.matmul' op result 'tensor<3x7xf32>' must have shape [..., M, N] = [2, 3, 7]}}
  %0 = graph.matmul %a, %b : (tensor<2x3x5xf32>, tensor<5x7xf32>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}

// -----

func.func @result_transposes(%a: tensor<5x3xf32>, %b: tensor<7x5xf32>) -> tensor<5x5xf32> {
  // expected-error @+1 {{'graph.matmul' op result 'tensor<5x5xf32>' must have shape [..., M, N] = [3, 7]}}
  %0 = graph.matmul %a, %b {transpose_a = true, transpose_b = true} : (tensor<5x3xf32>, tensor<7x5xf32>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}

// -----

// Integer tensors are not graph tensors (ODS type constraint).
func.func @integer_operand(%a: tensor<3x5xi32>, %b: tensor<5x7xi32>) -> tensor<3x7xi32> {
  // expected-error @+1 {{'graph.matmul' op operand #0 must be tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = graph.matmul %a, %b : (tensor<3x5xi32>, tensor<5x7xi32>) -> tensor<3x7xi32>
  return %0 : tensor<3x7xi32>
}

// -----

// The transposes are booleans.
func.func @transpose_not_bool(%a: tensor<3x5xf32>, %b: tensor<5x7xf32>) -> tensor<3x7xf32> {
  // expected-error @+1 {{'graph.matmul' op attribute 'transpose_a' failed to satisfy constraint: bool attribute}}
  %0 = graph.matmul %a, %b {transpose_a = 1 : i64} : (tensor<3x5xf32>, tensor<5x7xf32>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}
