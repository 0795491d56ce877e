// RUN: tilec-opt --split-input-file --verify-diagnostics %s

// Verifiers of graph.slice (axis in range, a non-empty [start, end) inside
// the axis, the result shape) and graph.concat (operands, axis, each
// operand's rank, dtype and other dims, the sum along the axis).

func.func @slice_axis_too_large(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.slice' op axis 2 out of range for 'tensor<4x64xf32>'}}
  %0 = graph.slice %x {axis = 2 : i64, start = 0 : i64, end = 4 : i64} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Axes are not counted from the end (the frontend normalizes -1).
func.func @slice_negative_axis(%x: tensor<4x64xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'graph.slice' op axis -1 out of range for 'tensor<4x64xf32>'}}
  %0 = graph.slice %x {axis = -1 : i64, start = 0 : i64, end = 4 : i64} : (tensor<4x64xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @slice_of_scalar(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'graph.slice' op axis 0 out of range for 'tensor<f32>'}}
  %0 = graph.slice %x {axis = 0 : i64, start = 0 : i64, end = 1 : i64} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @slice_empty(%x: tensor<4x64xf32>) -> tensor<4x0xf32> {
  // expected-error @+1 {{'graph.slice' op range [8, 8) is empty or outside axis 1 of 'tensor<4x64xf32>'}}
  %0 = graph.slice %x {axis = 1 : i64, start = 8 : i64, end = 8 : i64} : (tensor<4x64xf32>) -> tensor<4x0xf32>
  return %0 : tensor<4x0xf32>
}

// -----

func.func @slice_reversed(%x: tensor<4x64xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.slice' op range [16, 8) is empty or outside axis 1 of 'tensor<4x64xf32>'}}
  %0 = graph.slice %x {axis = 1 : i64, start = 16 : i64, end = 8 : i64} : (tensor<4x64xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @slice_past_end(%x: tensor<4x64xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.slice' op range [60, 68) is empty or outside axis 1 of 'tensor<4x64xf32>'}}
  %0 = graph.slice %x {axis = 1 : i64, start = 60 : i64, end = 68 : i64} : (tensor<4x64xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @slice_negative_start(%x: tensor<4x64xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.slice' op range [-8, 0) is empty or outside axis 1 of 'tensor<4x64xf32>'}}
  %0 = graph.slice %x {axis = 1 : i64, start = -8 : i64, end = 0 : i64} : (tensor<4x64xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Rows past the end of axis 0 are rejected too.
func.func @slice_rows_past_end(%x: tensor<4x64xf32>) -> tensor<2x64xf32> {
  // expected-error @+1 {{'graph.slice' op range [3, 5) is empty or outside axis 0 of 'tensor<4x64xf32>'}}
  %0 = graph.slice %x {axis = 0 : i64, start = 3 : i64, end = 5 : i64} : (tensor<4x64xf32>) -> tensor<2x64xf32>
  return %0 : tensor<2x64xf32>
}

// -----

// The result is printed with the shape it must have.
func.func @slice_result_width(%x: tensor<4x64xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'graph.slice' op result 'tensor<4x16xf32>' must be 'tensor<4x8xf32>'}}
  %0 = graph.slice %x {axis = 1 : i64, start = 0 : i64, end = 8 : i64} : (tensor<4x64xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @slice_result_other_dim(%x: tensor<4x64xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'graph.slice' op result 'tensor<2x8xf32>' must be 'tensor<4x8xf32>'}}
  %0 = graph.slice %x {axis = 1 : i64, start = 0 : i64, end = 8 : i64} : (tensor<4x64xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @slice_result_dtype(%x: tensor<4x64xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'graph.slice' op result 'tensor<4x8xbf16>' must be 'tensor<4x8xf32>'}}
  %0 = graph.slice %x {axis = 1 : i64, start = 0 : i64, end = 8 : i64} : (tensor<4x64xf32>) -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

func.func @concat_no_operands() -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.concat' op needs operands and a ranked result}}
  %0 = graph.concat {axis = 1 : i64} : () -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @concat_axis(%a: tensor<4x32xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.concat' op axis 2 out of range for 'tensor<4x64xf32>'}}
  %0 = graph.concat %a, %a {axis = 2 : i64} : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @concat_negative_axis(%a: tensor<4x32xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.concat' op axis -1 out of range for 'tensor<4x64xf32>'}}
  %0 = graph.concat %a, %a {axis = -1 : i64} : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @concat_scalars(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'graph.concat' op axis 0 out of range for 'tensor<f32>'}}
  %0 = graph.concat %a, %a {axis = 0 : i64} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @concat_rank(%a: tensor<4x32xf32>, %b: tensor<32xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.concat' op operand 1 'tensor<32xf32>' must have the result's rank and dtype}}
  %0 = graph.concat %a, %b {axis = 1 : i64} : (tensor<4x32xf32>, tensor<32xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @concat_dtype(%a: tensor<4x32xf32>, %b: tensor<4x32xf16>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.concat' op operand 1 'tensor<4x32xf16>' must have the result's rank and dtype}}
  %0 = graph.concat %a, %b {axis = 1 : i64} : (tensor<4x32xf32>, tensor<4x32xf16>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Operands that agree with each other but not with the result's dtype.
func.func @concat_result_dtype(%a: tensor<4x32xbf16>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.concat' op operand 0 'tensor<4x32xbf16>' must have the result's rank and dtype}}
  %0 = graph.concat %a, %a {axis = 1 : i64} : (tensor<4x32xbf16>, tensor<4x32xbf16>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @concat_other_dim(%a: tensor<4x32xf32>, %b: tensor<2x32xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.concat' op operand 1 'tensor<2x32xf32>' differs from the result 'tensor<4x64xf32>' in dimension 0}}
  %0 = graph.concat %a, %b {axis = 1 : i64} : (tensor<4x32xf32>, tensor<2x32xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @concat_sum(%a: tensor<4x32xf32>, %b: tensor<4x16xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.concat' op operands add up to 48 along axis 1 but the result has 64}}
  %0 = graph.concat %a, %b {axis = 1 : i64} : (tensor<4x32xf32>, tensor<4x16xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @concat_rows_sum(%a: tensor<4x32xf32>, %b: tensor<2x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'graph.concat' op operands add up to 6 along axis 0 but the result has 4}}
  %0 = graph.concat %a, %b {axis = 0 : i64} : (tensor<4x32xf32>, tensor<2x32xf32>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// Integer tensors are not graph tensors (ODS type constraint).
func.func @concat_integer(%a: tensor<4x32xi32>) -> tensor<4x64xi32> {
  // expected-error @+1 {{'graph.concat' op operand #0 must be variadic of tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = graph.concat %a, %a {axis = 1 : i64} : (tensor<4x32xi32>, tensor<4x32xi32>) -> tensor<4x64xi32>
  return %0 : tensor<4x64xi32>
}
