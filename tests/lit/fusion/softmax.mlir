// RUN: tilec-opt --tilec-fuse %s | FileCheck %s

// Softmax: both reductions (max, then sum of exp) and the elementwise ops
// around them form one row fusion.

// CHECK-LABEL: func.func @softmax
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x64xf32>)
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%[[X]] : tensor<4x64xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 64>, fused_ops = 7 : i64, hbm_bytes_saved = 10304 : i64}
//  CHECK-SAME:     -> tensor<4x64xf32> {
//  CHECK-NEXT:   ^bb0(%[[BX:.+]]: tensor<4x64xf32>):
//  CHECK-NEXT:     %[[MAX:.+]] = graph.reduce_max %[[BX]] {axis = 1 : i64}
//  CHECK-NEXT:     %[[MAXB:.+]] = graph.broadcast %[[MAX]]
//  CHECK-NEXT:     %[[SH:.+]] = graph.sub %[[BX]], %[[MAXB]]
//  CHECK-NEXT:     %[[E:.+]] = graph.exp %[[SH]]
//  CHECK-NEXT:     %[[SUM:.+]] = graph.reduce_sum %[[E]] {axis = 1 : i64}
//  CHECK-NEXT:     %[[SUMB:.+]] = graph.broadcast %[[SUM]]
//  CHECK-NEXT:     %[[P:.+]] = graph.div %[[E]], %[[SUMB]]
//  CHECK-NEXT:     graph.yield %[[P]] : tensor<4x64xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]
//   CHECK-NOT: graph.

// hbm_bytes_saved (full tensor 1024 B, row scalar 16 B):
//   input %x read by reduce_max and sub:     1024 * (2 - 1) = 1024
//   reduce_max 16*2, broadcast 1024*2, sub 1024*2         = 32 + 2048 + 2048
//   exp, read by reduce_sum and div: 1024 * (2 + 1)       = 3072
//   reduce_sum 16*2, broadcast 1024*2, div returned (0)    = 32 + 2048
//   total = 10304

func.func @softmax(%arg0: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.reduce_max %arg0 {axis = 1 : i64} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %1 = graph.broadcast %0 : (tensor<4x1xf32>) -> tensor<4x64xf32>
  %2 = graph.sub %arg0, %1 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %3 = graph.exp %2 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %4 = graph.reduce_sum %3 {axis = 1 : i64} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %5 = graph.broadcast %4 : (tensor<4x1xf32>) -> tensor<4x64xf32>
  %6 = graph.div %3, %5 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %6 : tensor<4x64xf32>
}
