// RUN: tilec-opt --tilec-fuse %s | FileCheck %s

// A reshape is a view, never part of a fusion: the ops on either side of it
// become two fusions, and the reshape stays a host op between them, in order
// (its operand the first fusion's result, its result the second's input).

// CHECK-LABEL: func.func @heads
//  CHECK-SAME:   (%[[X:.+]]: tensor<6x4x32xf32>)
//  CHECK-NEXT:   %[[A:.+]] = graph.fusion(%[[X]] : tensor<6x4x32xf32>)
//  CHECK-SAME:     domain = array<i64: 6, 4, 32>
//       CHECK:     graph.exp
//       CHECK:   %[[V:.+]] = graph.reshape %[[A]] : (tensor<6x4x32xf32>) -> tensor<6x128xf32>
//  CHECK-NEXT:   %[[B:.+]] = graph.fusion(%[[V]] : tensor<6x128xf32>)
//  CHECK-SAME:     domain = array<i64: 6, 128>
//       CHECK:     graph.neg
//       CHECK:   %[[W:.+]] = graph.reshape %[[B]] : (tensor<6x128xf32>) -> tensor<24x32xf32>
//  CHECK-NEXT:   return %[[W]] : tensor<24x32xf32>
func.func @heads(%arg0: tensor<6x4x32xf32>) -> tensor<24x32xf32> {
  %0 = graph.exp %arg0 : (tensor<6x4x32xf32>) -> tensor<6x4x32xf32>
  %1 = graph.reshape %0 : (tensor<6x4x32xf32>) -> tensor<6x128xf32>
  %2 = graph.neg %1 : (tensor<6x128xf32>) -> tensor<6x128xf32>
  %3 = graph.reshape %2 : (tensor<6x128xf32>) -> tensor<24x32xf32>
  return %3 : tensor<24x32xf32>
}
