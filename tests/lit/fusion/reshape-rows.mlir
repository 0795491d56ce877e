// RUN: tilec-opt --tilec-fuse %s | FileCheck %s

// A reshape that keeps the last dim only relabels row dims (row r stays
// row r), so it joins the row kernel: exp, the reshape and neg are one
// fusion. Where such a reshape's result also leaves the fusion, the fusion
// yields its source once and the reshape becomes a view after it.

// CHECK-LABEL: func.func @relabel
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%{{.+}} : tensor<6x4x32xf32>)
//  CHECK-SAME:     -> tensor<24x32xf32>
//       CHECK:     graph.exp
//  CHECK-NEXT:     graph.reshape
//  CHECK-NEXT:     graph.neg
//       CHECK:   return %[[F]] : tensor<24x32xf32>
func.func @relabel(%arg0: tensor<6x4x32xf32>) -> tensor<24x32xf32> {
  %0 = graph.exp %arg0 : (tensor<6x4x32xf32>) -> tensor<6x4x32xf32>
  %1 = graph.reshape %0 : (tensor<6x4x32xf32>) -> tensor<24x32xf32>
  %2 = graph.neg %1 : (tensor<24x32xf32>) -> tensor<24x32xf32>
  return %2 : tensor<24x32xf32>
}

// CHECK-LABEL: func.func @leaves
//  CHECK-NEXT:   %[[F:.+]]:2 = graph.fusion(%{{.+}} : tensor<6x4x32xf32>)
//  CHECK-SAME:     -> tensor<6x4x32xf32>, tensor<24x32xf32>
//       CHECK:   %[[V:.+]] = graph.reshape %[[F]]#0 : (tensor<6x4x32xf32>) -> tensor<24x32xf32>
//  CHECK-NEXT:   return %[[V]], %[[F]]#1 : tensor<24x32xf32>, tensor<24x32xf32>
func.func @leaves(%arg0: tensor<6x4x32xf32>) -> (tensor<24x32xf32>, tensor<24x32xf32>) {
  %0 = graph.exp %arg0 : (tensor<6x4x32xf32>) -> tensor<6x4x32xf32>
  %1 = graph.reshape %0 : (tensor<6x4x32xf32>) -> tensor<24x32xf32>
  %2 = graph.neg %1 : (tensor<24x32xf32>) -> tensor<24x32xf32>
  return %1, %2 : tensor<24x32xf32>, tensor<24x32xf32>
}
