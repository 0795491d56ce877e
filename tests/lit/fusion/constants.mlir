// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s

// Constants are never fusion inputs: each fusion that uses one gets its own
// clone, and the original is erased once unused.

// A constant used on both sides of a non-row reduction is cloned into both
// row fusions.
// CHECK-LABEL: func.func @constant_in_two_fusions
//  CHECK-NEXT:   %[[A:.+]] = graph.fusion(%{{.+}} : tensor<4x64xf32>) attributes {domain
//  CHECK-NEXT:   ^bb0(%[[AX:.+]]: tensor<4x64xf32>):
//  CHECK-NEXT:     %[[C1:.+]] = graph.constant 2.000000e+00 : tensor<4x64xf32>
//  CHECK-NEXT:     graph.mul %[[AX]], %[[C1]]
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[R:.+]] = graph.fusion(%[[A]] : tensor<4x64xf32>) attributes {fused_ops
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.reduce_sum
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   graph.fusion(%[[R]] : tensor<1x64xf32>) attributes {domain
//  CHECK-NEXT:   ^bb0(%[[BR:.+]]: tensor<1x64xf32>):
//  CHECK-NEXT:     %[[BC:.+]] = graph.broadcast %[[BR]]
//  CHECK-NEXT:     %[[C2:.+]] = graph.constant 2.000000e+00 : tensor<4x64xf32>
//  CHECK-NEXT:     graph.add %[[BC]], %[[C2]]
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
func.func @constant_in_two_fusions(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %c = graph.constant 2.0 : tensor<4x64xf32>
  %0 = graph.mul %x, %c : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.reduce_sum %0 {axis = 0 : i64} : (tensor<4x64xf32>) -> tensor<1x64xf32>
  %2 = graph.broadcast %1 : (tensor<1x64xf32>) -> tensor<4x64xf32>
  %3 = graph.add %2, %c : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %3 : tensor<4x64xf32>
}

// -----

// A constant that is also returned stays in the function (and is cloned into
// the fusion).
// CHECK-LABEL: func.func @returned_constant
//  CHECK-NEXT:   %[[C:.+]] = graph.constant 5.000000e-01 : tensor<f32>
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%{{.+}} : tensor<4x64xf32>)
//  CHECK-SAME:     hbm_bytes_saved = 2048 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.constant 5.000000e-01 : tensor<f32>
//  CHECK-NEXT:     graph.broadcast
//  CHECK-NEXT:     graph.mul
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]], %[[C]]
func.func @returned_constant(%x: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<f32>) {
  %c = graph.constant 0.5 : tensor<f32>
  %cb = graph.broadcast %c : (tensor<f32>) -> tensor<4x64xf32>
  %0 = graph.mul %x, %cb : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %0, %c : tensor<4x64xf32>, tensor<f32>
}

// -----

// Only graph.constant is cloned: a broadcast of a constant is an ordinary
// operator, so when two fusions need it, the first one computes it and
// yields it (a full 4x64 tensor through HBM) to the second.
// CHECK-LABEL: func.func @broadcast_constant_is_not_cloned
//  CHECK-NEXT:   %[[A:.+]]:2 = graph.fusion(%{{.+}} : tensor<4x64xf32>)
//  CHECK-SAME:     hbm_bytes_saved = 1024 : i64} -> tensor<4x64xf32>, tensor<4x64xf32>
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.constant
//  CHECK-NEXT:     %[[CB:.+]] = graph.broadcast
//  CHECK-NEXT:     %[[M:.+]] = graph.mul
//  CHECK-NEXT:     graph.yield %[[CB]], %[[M]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[R:.+]] = graph.fusion(%[[A]]#1 : tensor<4x64xf32>)
//       CHECK:   graph.fusion(%[[R]], %[[A]]#0 : tensor<1x64xf32>, tensor<4x64xf32>)
//   CHECK-NOT:     graph.constant
//       CHECK:     graph.yield
func.func @broadcast_constant_is_not_cloned(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %c = graph.constant 2.0 : tensor<f32>
  %cb = graph.broadcast %c : (tensor<f32>) -> tensor<4x64xf32>
  %0 = graph.mul %x, %cb : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.reduce_sum %0 {axis = 0 : i64} : (tensor<4x64xf32>) -> tensor<1x64xf32>
  %2 = graph.broadcast %1 : (tensor<1x64xf32>) -> tensor<4x64xf32>
  %3 = graph.add %2, %cb : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %3 : tensor<4x64xf32>
}
