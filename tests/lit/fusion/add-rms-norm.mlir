// RUN: tilec-opt --tilec-fuse %s | FileCheck %s

// Residual add + RMSNorm: one fusion with TWO results. The residual sum %0 is
// used inside (by the norm) and returned, so it is yielded too; the fusion's
// results are yielded in program order (sum first) and the return is rewired.

// CHECK-LABEL: func.func @add_rms_norm
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x64xf32>, %[[R:.+]]: tensor<4x64xf32>, %[[W:.+]]: tensor<64xf32>)
//  CHECK-NEXT:   %[[F:.+]]:2 = graph.fusion(%[[X]], %[[R]], %[[W]] : tensor<4x64xf32>, tensor<4x64xf32>, tensor<64xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 64>, fused_ops = 10 : i64, hbm_bytes_saved = 10368 : i64}
//  CHECK-SAME:     -> tensor<4x64xf32>, tensor<4x64xf32> {
//  CHECK-NEXT:   ^bb0(%[[BX:.+]]: tensor<4x64xf32>, %[[BR:.+]]: tensor<4x64xf32>, %[[BW:.+]]: tensor<64xf32>):
//  CHECK-NEXT:     %[[SUM:.+]] = graph.add %[[BX]], %[[BR]]
//  CHECK-NEXT:     graph.mul %[[SUM]], %[[SUM]]
//  CHECK-NEXT:     graph.reduce_mean
//  CHECK-NEXT:     graph.constant
//  CHECK-NEXT:     graph.broadcast
//  CHECK-NEXT:     graph.add
//  CHECK-NEXT:     graph.rsqrt
//  CHECK-NEXT:     graph.broadcast
//  CHECK-NEXT:     graph.mul %[[SUM]]
//  CHECK-NEXT:     graph.broadcast %[[BW]]
//  CHECK-NEXT:     %[[OUT:.+]] = graph.mul
//  CHECK-NEXT:     graph.yield %[[SUM]], %[[OUT]] : tensor<4x64xf32>, tensor<4x64xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]#1, %[[F]]#0 : tensor<4x64xf32>, tensor<4x64xf32>
//   CHECK-NOT: graph.

// hbm_bytes_saved (full 1024 B, row scalar 16 B; consumers are counted as
// distinct operators):
//   inputs each read once: 0
//   residual sum: 2 consumers inside (mul %0,%0 reads it once, mul %0,%7),
//     also returned: 1024 * (2 + 0) = 2048
//   four full intermediates (mul, broadcast, mul, broadcast) * 2048 = 8192
//   four row scalars (reduce_mean, broadcast eps, add, rsqrt) * 32  = 128
//   final mul returned: 0
//   total = 2048 + 8192 + 128 = 10368

func.func @add_rms_norm(%arg0: tensor<4x64xf32>, %arg1: tensor<4x64xf32>, %arg2: tensor<64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
  %0 = graph.add %arg0, %arg1 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.mul %0, %0 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %2 = graph.reduce_mean %1 {axis = 1 : i64} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %3 = graph.constant 9.9999999999999995E-7 : tensor<f32>
  %4 = graph.broadcast %3 : (tensor<f32>) -> tensor<4x1xf32>
  %5 = graph.add %2, %4 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %6 = graph.rsqrt %5 : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %7 = graph.broadcast %6 : (tensor<4x1xf32>) -> tensor<4x64xf32>
  %8 = graph.mul %0, %7 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %9 = graph.broadcast %arg2 : (tensor<64xf32>) -> tensor<4x64xf32>
  %10 = graph.mul %8, %9 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %10, %0 : tensor<4x64xf32>, tensor<4x64xf32>
}
