// RUN: tilec-opt --split-input-file --verify-diagnostics %s

// Verifiers of graph.update_slice: a row dim as the axis, the result of
// the buffer's type, the update's other dims and dtype, and its rows
// inside the axis.

func.func @last_dim(%c: tensor<4x64xf32>, %u: tensor<4x8xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.update_slice' op axis 1 is not a row dim of 'tensor<4x64xf32>'}}
  %0 = graph.update_slice %c, %u {axis = 1 : i64, start = 0 : i64} : (tensor<4x64xf32>, tensor<4x8xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

func.func @result_type(%c: tensor<4x64xf32>, %u: tensor<1x64xf32>) -> tensor<5x64xf32> {
  // expected-error @+1 {{'graph.update_slice' op result 'tensor<5x64xf32>' must be the buffer's type 'tensor<4x64xf32>'}}
  %0 = graph.update_slice %c, %u {axis = 0 : i64, start = 0 : i64} : (tensor<4x64xf32>, tensor<1x64xf32>) -> tensor<5x64xf32>
  return %0 : tensor<5x64xf32>
}

// -----

func.func @update_dims(%c: tensor<2x4x64xbf16>, %u: tensor<3x1x64xbf16>) -> tensor<2x4x64xbf16> {
  // expected-error @+1 {{'graph.update_slice' op update 'tensor<3x1x64xbf16>' must be 'tensor<2x4x64xbf16>' except along axis 1}}
  %0 = graph.update_slice %c, %u {axis = 1 : i64, start = 0 : i64} : (tensor<2x4x64xbf16>, tensor<3x1x64xbf16>) -> tensor<2x4x64xbf16>
  return %0 : tensor<2x4x64xbf16>
}

// -----

func.func @update_dtype(%c: tensor<4x64xbf16>, %u: tensor<1x64xf32>) -> tensor<4x64xbf16> {
  // expected-error @+1 {{'graph.update_slice' op update 'tensor<1x64xf32>' must be 'tensor<4x64xbf16>' except along axis 0}}
  %0 = graph.update_slice %c, %u {axis = 0 : i64, start = 0 : i64} : (tensor<4x64xbf16>, tensor<1x64xf32>) -> tensor<4x64xbf16>
  return %0 : tensor<4x64xbf16>
}

// -----

func.func @past_the_end(%c: tensor<2x4x64xf32>, %u: tensor<2x2x64xf32>) -> tensor<2x4x64xf32> {
  // expected-error @+1 {{'graph.update_slice' op rows [3, 5) fall outside axis 1 of 'tensor<2x4x64xf32>'}}
  %0 = graph.update_slice %c, %u {axis = 1 : i64, start = 3 : i64} : (tensor<2x4x64xf32>, tensor<2x2x64xf32>) -> tensor<2x4x64xf32>
  return %0 : tensor<2x4x64xf32>
}
