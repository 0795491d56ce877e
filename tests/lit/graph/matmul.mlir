// RUN: tilec-opt %s | tilec-opt | FileCheck %s
// RUN: tilec-opt --mlir-print-op-generic %s | tilec-opt | FileCheck %s
// RUN: tilec-opt --verify-roundtrip %s > /dev/null

// graph.matmul in every transpose form, batched and with a shared 2-D rhs,
// parses, prints and parses back; false transposes are not printed.
// The verifier errors are in matmul-errors.mlir.

// CHECK-LABEL: func.func @transposes
//  CHECK-SAME: (%[[MK:[^:]+]]: tensor<3x5xf32>, %[[KM:[^:]+]]: tensor<5x3xf32>, %[[KN:[^:]+]]: tensor<5x7xf32>, %[[NK:[^:]+]]: tensor<7x5xf32>)
func.func @transposes(%mk: tensor<3x5xf32>, %km: tensor<5x3xf32>, %kn: tensor<5x7xf32>, %nk: tensor<7x5xf32>)
    -> (tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>) {
  // CHECK: graph.matmul %[[MK]], %[[KN]] : (tensor<3x5xf32>, tensor<5x7xf32>) -> tensor<3x7xf32>
  %0 = graph.matmul %mk, %kn : (tensor<3x5xf32>, tensor<5x7xf32>) -> tensor<3x7xf32>
  // CHECK: graph.matmul %[[KM]], %[[KN]] {transpose_a = true} : (tensor<5x3xf32>, tensor<5x7xf32>) -> tensor<3x7xf32>
  %1 = graph.matmul %km, %kn {transpose_a = true} : (tensor<5x3xf32>, tensor<5x7xf32>) -> tensor<3x7xf32>
  // CHECK: graph.matmul %[[MK]], %[[NK]] {transpose_b = true} : (tensor<3x5xf32>, tensor<7x5xf32>) -> tensor<3x7xf32>
  %2 = graph.matmul %mk, %nk {transpose_b = true} : (tensor<3x5xf32>, tensor<7x5xf32>) -> tensor<3x7xf32>
  // CHECK: graph.matmul %[[KM]], %[[NK]] {transpose_a = true, transpose_b = true} : (tensor<5x3xf32>, tensor<7x5xf32>) -> tensor<3x7xf32>
  %3 = graph.matmul %km, %nk {transpose_a = true, transpose_b = true} : (tensor<5x3xf32>, tensor<7x5xf32>) -> tensor<3x7xf32>
  // Explicit false is the default and is elided.
  // CHECK: graph.matmul %[[MK]], %[[KN]] : (tensor<3x5xf32>, tensor<5x7xf32>) -> tensor<3x7xf32>
  %4 = graph.matmul %mk, %kn {transpose_a = false, transpose_b = false} : (tensor<3x5xf32>, tensor<5x7xf32>) -> tensor<3x7xf32>
  return %0, %1, %2, %3, %4 : tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>
}

// CHECK-LABEL: func.func @batched
func.func @batched(%q: tensor<2x4x16x64xbf16>, %k: tensor<2x4x32x64xbf16>, %v: tensor<2x4x32x64xbf16>,
                   %p: tensor<2x4x16x32xbf16>, %x: tensor<8x16x64xf16>, %w: tensor<128x64xf16>)
    -> (tensor<2x4x16x32xf32>, tensor<2x4x64x16xbf16>, tensor<8x16x128xf16>) {
  // Per-batch rhs, result dtype differs from the operands'.
  // CHECK: graph.matmul %{{.+}}, %{{.+}} {transpose_b = true} : (tensor<2x4x16x64xbf16>, tensor<2x4x32x64xbf16>) -> tensor<2x4x16x32xf32>
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<2x4x16x64xbf16>, tensor<2x4x32x64xbf16>) -> tensor<2x4x16x32xf32>
  // CHECK: graph.matmul %{{.+}}, %{{.+}} {transpose_a = true, transpose_b = true} : (tensor<2x4x32x64xbf16>, tensor<2x4x16x32xbf16>) -> tensor<2x4x64x16xbf16>
  %t = graph.matmul %v, %p {transpose_a = true, transpose_b = true} : (tensor<2x4x32x64xbf16>, tensor<2x4x16x32xbf16>) -> tensor<2x4x64x16xbf16>
  // Shared 2-D rhs (a Linear layer's weight).
  // CHECK: graph.matmul %{{.+}}, %{{.+}} {transpose_b = true} : (tensor<8x16x64xf16>, tensor<128x64xf16>) -> tensor<8x16x128xf16>
  %y = graph.matmul %x, %w {transpose_b = true} : (tensor<8x16x64xf16>, tensor<128x64xf16>) -> tensor<8x16x128xf16>
  return %s, %t, %y : tensor<2x4x16x32xf32>, tensor<2x4x64x16xbf16>, tensor<8x16x128xf16>
}
