// RUN: tilec-opt %s | tilec-opt | FileCheck %s
// RUN: tilec-opt --mlir-print-op-generic %s | tilec-opt | FileCheck %s
// RUN: tilec-opt --verify-roundtrip %s > /dev/null

// graph.slice and graph.concat parse, print (attributes in alphabetical
// order) and parse back, along any axis and with any number of operands.
// Their verifier errors are in slice-concat-errors.mlir.

// CHECK-LABEL: func.func @slice_concat
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x64xf32>, %[[Y:.+]]: tensor<2x64xbf16>)
func.func @slice_concat(%x: tensor<4x64xf32>, %y: tensor<2x64xbf16>) -> (tensor<4x64xf32>, tensor<8x64xf32>, tensor<4x64xf32>, tensor<2x96xbf16>) {
  // CHECK: %[[LO:.+]] = graph.slice %[[X]] {axis = 1 : i64, end = 40 : i64, start = 8 : i64} : (tensor<4x64xf32>) -> tensor<4x32xf32>
  %lo = graph.slice %x {axis = 1 : i64, start = 8 : i64, end = 40 : i64} : (tensor<4x64xf32>) -> tensor<4x32xf32>
  // A whole-axis slice is valid.
  // CHECK: %[[ALL:.+]] = graph.slice %[[X]] {axis = 1 : i64, end = 64 : i64, start = 0 : i64} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %all = graph.slice %x {axis = 1 : i64, start = 0 : i64, end = 64 : i64} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[ROWS:.+]] = graph.slice %[[X]] {axis = 0 : i64, end = 3 : i64, start = 1 : i64} : (tensor<4x64xf32>) -> tensor<2x64xf32>
  %rows = graph.slice %x {axis = 0 : i64, start = 1 : i64, end = 3 : i64} : (tensor<4x64xf32>) -> tensor<2x64xf32>
  // CHECK: %[[CAT:.+]] = graph.concat %[[LO]], %[[LO]] {axis = 1 : i64} : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x64xf32>
  %cat = graph.concat %lo, %lo {axis = 1 : i64} : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x64xf32>
  // CHECK: %[[CAT3:.+]] = graph.concat %[[ROWS]], %[[X]], %[[ROWS]] {axis = 0 : i64} : (tensor<2x64xf32>, tensor<4x64xf32>, tensor<2x64xf32>) -> tensor<8x64xf32>
  %cat3 = graph.concat %rows, %x, %rows {axis = 0 : i64} : (tensor<2x64xf32>, tensor<4x64xf32>, tensor<2x64xf32>) -> tensor<8x64xf32>
  // CHECK: %[[ONE:.+]] = graph.concat %[[ALL]] {axis = 1 : i64} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %one = graph.concat %all {axis = 1 : i64} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[H:.+]] = graph.slice %[[Y]] {axis = 1 : i64, end = 32 : i64, start = 0 : i64} : (tensor<2x64xbf16>) -> tensor<2x32xbf16>
  %h = graph.slice %y {axis = 1 : i64, start = 0 : i64, end = 32 : i64} : (tensor<2x64xbf16>) -> tensor<2x32xbf16>
  // CHECK: %[[B:.+]] = graph.concat %[[Y]], %[[H]] {axis = 1 : i64} : (tensor<2x64xbf16>, tensor<2x32xbf16>) -> tensor<2x96xbf16>
  %b = graph.concat %y, %h {axis = 1 : i64} : (tensor<2x64xbf16>, tensor<2x32xbf16>) -> tensor<2x96xbf16>
  // CHECK: return %[[CAT]], %[[CAT3]], %[[ONE]], %[[B]]
  return %cat, %cat3, %one, %b : tensor<4x64xf32>, tensor<8x64xf32>, tensor<4x64xf32>, tensor<2x96xbf16>
}

// Rank 3, as tilec's rope example builds it (x [T, H, D]).
// CHECK-LABEL: func.func @rotate_half
//       CHECK:   graph.slice %{{.+}} {axis = 2 : i64, end = 128 : i64, start = 64 : i64} : (tensor<4x2x128xf32>) -> tensor<4x2x64xf32>
//       CHECK:   graph.neg
//       CHECK:   graph.slice %{{.+}} {axis = 2 : i64, end = 64 : i64, start = 0 : i64} : (tensor<4x2x128xf32>) -> tensor<4x2x64xf32>
//       CHECK:   graph.concat %{{.+}}, %{{.+}} {axis = 2 : i64} : (tensor<4x2x64xf32>, tensor<4x2x64xf32>) -> tensor<4x2x128xf32>
func.func @rotate_half(%x: tensor<4x2x128xf32>) -> tensor<4x2x128xf32> {
  %hi = graph.slice %x {axis = 2 : i64, start = 64 : i64, end = 128 : i64} : (tensor<4x2x128xf32>) -> tensor<4x2x64xf32>
  %n = graph.neg %hi : (tensor<4x2x64xf32>) -> tensor<4x2x64xf32>
  %lo = graph.slice %x {axis = 2 : i64, start = 0 : i64, end = 64 : i64} : (tensor<4x2x128xf32>) -> tensor<4x2x64xf32>
  %r = graph.concat %n, %lo {axis = 2 : i64} : (tensor<4x2x64xf32>, tensor<4x2x64xf32>) -> tensor<4x2x128xf32>
  return %r : tensor<4x2x128xf32>
}
