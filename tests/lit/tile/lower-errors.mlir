// RUN: tilec-opt --split-input-file --verify-diagnostics --tilec-lower-fusion-to-tile %s

// A fusion without a row domain becomes a kernel only when it is a single
// reduction along an inner axis (strided rows); anything else is reported.
func.func @no_domain(%x: tensor<4x64xf32>) -> tensor<1x64xf32> {
  // expected-error @+1 {{'graph.fusion' op has no row domain: 'graph.exp' is not supported by tilec's row kernels yet}}
  %0 = graph.fusion(%x : tensor<4x64xf32>) attributes {fused_ops = 2 : i64, hbm_bytes_saved = 0 : i64} -> tensor<1x64xf32> {
  ^bb0(%a: tensor<4x64xf32>):
    %e = graph.exp %a : (tensor<4x64xf32>) -> tensor<4x64xf32>
    %1 = graph.reduce_sum %e {axis = 0 : i64} : (tensor<4x64xf32>) -> tensor<1x64xf32>
    graph.yield %1 : tensor<1x64xf32>
  }
  return %0 : tensor<1x64xf32>
}

// -----

// (Results that are vectors or scalars shared by all rows are no longer
// errors: see @shared_results in lower-fusion-to-tile.mlir.)

// An input whose shape has no role in the domain.
// (Row dims must equal the domain's or broadcast into them.)
func.func @input_without_role(%x: tensor<5x64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'graph.fusion' op value of type 'tensor<5x64xf32>' has no role in the row domain 'tensor<4x64xf32>'}}
  %0 = graph.fusion(%x : tensor<5x64xf32>) attributes {domain = array<i64: 4, 64>} -> tensor<4x64xf32> {
  ^bb0(%a: tensor<5x64xf32>):
    %c = graph.constant 1.0 : tensor<4x64xf32>
    graph.yield %c : tensor<4x64xf32>
  }
  return %0 : tensor<4x64xf32>
}

// -----

// A hand-written fusion whose ops do not fit its domain is rejected, not
// lowered as if they did (here a slice along a row dim whose rows a
// row op reads: only gathering ops read through one).
func.func @op_outside_domain(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.fusion(%x : tensor<4x64xf32>) attributes {domain = array<i64: 4, 64>} -> tensor<4x64xf32> {
  ^bb0(%a: tensor<4x64xf32>):
    // expected-error @+1 {{'graph.slice' op does not fit the fusion's row domain [4, 64]}}
    %1 = graph.slice %a {axis = 0 : i64, start = 0 : i64, end = 2 : i64} : (tensor<4x64xf32>) -> tensor<2x64xf32>
    %n = graph.neg %1 : (tensor<2x64xf32>) -> tensor<2x64xf32>
    %2 = graph.concat %n, %n {axis = 0 : i64} : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<4x64xf32>
    graph.yield %2 : tensor<4x64xf32>
  }
  return %0 : tensor<4x64xf32>
}
