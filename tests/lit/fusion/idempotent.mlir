// RUN: tilec-opt --tilec-fuse %s > %t.once.mlir
// RUN: tilec-opt --tilec-fuse %t.once.mlir > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: FileCheck %s < %t.once.mlir

// A function that already holds graph.fusion ops is left alone, so running
// the pass twice changes nothing; every function of the module is fused.

// CHECK-LABEL: func.func @first
//  CHECK-NEXT:   graph.fusion
//  CHECK-SAME:     fused_ops = 2
// CHECK-LABEL: func.func @second
//  CHECK-NEXT:   graph.fusion
//  CHECK-SAME:     fused_ops = 1
// CHECK-LABEL: func.func @no_graph_ops
//  CHECK-NEXT:   return
func.func @first(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = graph.exp %x : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = graph.neg %0 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
func.func @second(%x: tensor<8x16xf16>) -> tensor<8x16xf16> {
  %0 = graph.sqrt %x : (tensor<8x16xf16>) -> tensor<8x16xf16>
  return %0 : tensor<8x16xf16>
}
func.func @no_graph_ops(%x: tensor<8x16xf16>) -> tensor<8x16xf16> {
  return %x : tensor<8x16xf16>
}
