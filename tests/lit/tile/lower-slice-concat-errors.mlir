// RUN: tilec-opt --split-input-file --verify-diagnostics --tilec-lower-fusion-to-tile %s

// A fusion without a row domain (hand-written IR: tilec-fuse gives one to
// every fusion of row ops, slices and concatenations along row dims too) is
// reported by its first op.

func.func @row_slice(%x: tensor<4x64xf32>) -> tensor<2x64xf32> {
  // expected-error @+1 {{'graph.fusion' op has no row domain: 'graph.slice' along axis 0 of tensor<4x64xf32> is not supported by tilec's row kernels yet}}
  %0 = graph.fusion(%x : tensor<4x64xf32>) attributes {fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<2x64xf32> {
  ^bb0(%a: tensor<4x64xf32>):
    %1 = graph.slice %a {axis = 0 : i64, start = 1 : i64, end = 3 : i64} : (tensor<4x64xf32>) -> tensor<2x64xf32>
    graph.yield %1 : tensor<2x64xf32>
  }
  return %0 : tensor<2x64xf32>
}

// -----

func.func @row_concat(%x: tensor<2x4x64xf32>, %y: tensor<2x2x64xf32>) -> tensor<2x6x64xf32> {
  // expected-error @+1 {{'graph.fusion' op has no row domain: 'graph.concat' along axis 1 of tensor<2x4x64xf32> is not supported by tilec's row kernels yet}}
  %0 = graph.fusion(%x, %y : tensor<2x4x64xf32>, tensor<2x2x64xf32>) attributes {fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<2x6x64xf32> {
  ^bb0(%a: tensor<2x4x64xf32>, %b: tensor<2x2x64xf32>):
    %1 = graph.concat %a, %b {axis = 1 : i64} : (tensor<2x4x64xf32>, tensor<2x2x64xf32>) -> tensor<2x6x64xf32>
    graph.yield %1 : tensor<2x6x64xf32>
  }
  return %0 : tensor<2x6x64xf32>
}
