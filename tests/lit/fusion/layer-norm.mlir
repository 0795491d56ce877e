// RUN: tilec-opt --tilec-fuse %s | FileCheck %s

// LayerNorm: two reduce_means (mean, variance), gamma and beta row vectors:
// one fusion of all 14 operators with three inputs.

// CHECK-LABEL: func.func @layer_norm
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x64xf32>, %[[G:.+]]: tensor<64xf32>, %[[B:.+]]: tensor<64xf32>)
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%[[X]], %[[G]], %[[B]] : tensor<4x64xf32>, tensor<64xf32>, tensor<64xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 64>, fused_ops = 14 : i64, hbm_bytes_saved = 18592 : i64}
//  CHECK-NEXT:   ^bb0(%[[BX:.+]]: tensor<4x64xf32>, %[[BG:.+]]: tensor<64xf32>, %[[BB:.+]]: tensor<64xf32>):
//  CHECK-NEXT:     %[[MEAN:.+]] = graph.reduce_mean %[[BX]] {axis = 1 : i64}
//  CHECK-NEXT:     %[[MEANB:.+]] = graph.broadcast %[[MEAN]]
//  CHECK-NEXT:     %[[D:.+]] = graph.sub %[[BX]], %[[MEANB]]
//  CHECK-NEXT:     %[[D2:.+]] = graph.mul %[[D]], %[[D]]
//  CHECK-NEXT:     %[[VAR:.+]] = graph.reduce_mean %[[D2]] {axis = 1 : i64}
//  CHECK-NEXT:     graph.constant 1.000000e-05 : tensor<f32>
//  CHECK-NEXT:     graph.broadcast
//  CHECK-NEXT:     graph.add %[[VAR]]
//  CHECK-NEXT:     graph.rsqrt
//  CHECK-NEXT:     graph.broadcast
//  CHECK-NEXT:     graph.mul %[[D]]
//  CHECK-NEXT:     graph.broadcast %[[BG]]
//  CHECK-NEXT:     graph.mul
//  CHECK-NEXT:     graph.broadcast %[[BB]]
//  CHECK-NEXT:     %[[OUT:.+]] = graph.add
//  CHECK-NEXT:     graph.yield %[[OUT]] : tensor<4x64xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]
//   CHECK-NOT: graph.

// hbm_bytes_saved (full 1024 B, row scalar 16 B; readers and consumers are
// counted as distinct operators):
//   %x read by reduce_mean and sub: 1024; gamma, beta read once: 0
//   sub (2 consumers inside: mul %2,%2 reads it once, mul %2,%9):
//     1024 * (2 + 1) = 3072
//   seven other full intermediates * 2048 = 14336
//   five row-scalar intermediates * 32   = 160
//   final add returned: 0
//   total = 1024 + 3072 + 14336 + 160 = 18592

func.func @layer_norm(%arg0: tensor<4x64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<64xf32>) -> tensor<4x64xf32> {
  %0 = graph.reduce_mean %arg0 {axis = 1 : i64} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %1 = graph.broadcast %0 : (tensor<4x1xf32>) -> tensor<4x64xf32>
  %2 = graph.sub %arg0, %1 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %3 = graph.mul %2, %2 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %4 = graph.reduce_mean %3 {axis = 1 : i64} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %5 = graph.constant 1.000000e-05 : tensor<f32>
  %6 = graph.broadcast %5 : (tensor<f32>) -> tensor<4x1xf32>
  %7 = graph.add %4, %6 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %8 = graph.rsqrt %7 : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %9 = graph.broadcast %8 : (tensor<4x1xf32>) -> tensor<4x64xf32>
  %10 = graph.mul %2, %9 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %11 = graph.broadcast %arg1 : (tensor<64xf32>) -> tensor<4x64xf32>
  %12 = graph.mul %10, %11 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %13 = graph.broadcast %arg2 : (tensor<64xf32>) -> tensor<4x64xf32>
  %14 = graph.add %12, %13 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %14 : tensor<4x64xf32>
}
