// RUN: tilec-opt --split-input-file --tilec-fold-transposes %s | FileCheck %s

// q @ k^T written with a transpose: the swap of k's last two dims becomes
// the matmul's transpose_b, and the transpose goes. A transposed lhs flips
// transpose_a (here back to false), and a transpose feeding both operands
// flips both (bt @ bt^T = b^T @ b).
// CHECK-LABEL: func.func @into_matmul
//   CHECK-NOT:   graph.transpose
//       CHECK:   graph.matmul %arg0, %arg1 {transpose_b = true} : (tensor<32x16x64xbf16>, tensor<32x128x64xbf16>) -> tensor<32x16x128xf32>
//       CHECK:   graph.matmul %arg2, %arg3 : (tensor<64x32xbf16>, tensor<32x48xbf16>) -> tensor<64x48xbf16>
//       CHECK:   graph.matmul %arg3, %arg3 {transpose_a = true} : (tensor<32x48xbf16>, tensor<32x48xbf16>) -> tensor<48x48xbf16>
func.func @into_matmul(%q: tensor<32x16x64xbf16>, %k: tensor<32x128x64xbf16>, %a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>) -> (tensor<32x16x128xf32>, tensor<64x48xbf16>, tensor<48x48xbf16>) {
  %kt = graph.transpose %k {dim0 = 1 : i64, dim1 = 2 : i64} : (tensor<32x128x64xbf16>) -> tensor<32x64x128xbf16>
  %s = graph.matmul %q, %kt : (tensor<32x16x64xbf16>, tensor<32x64x128xbf16>) -> tensor<32x16x128xf32>
  %at = graph.transpose %a {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<64x32xbf16>) -> tensor<32x64xbf16>
  %y = graph.matmul %at, %b {transpose_a = true} : (tensor<32x64xbf16>, tensor<32x48xbf16>) -> tensor<64x48xbf16>
  %bt = graph.transpose %b {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<32x48xbf16>) -> tensor<48x32xbf16>
  %z = graph.matmul %bt, %bt {transpose_b = true} : (tensor<48x32xbf16>, tensor<48x32xbf16>) -> tensor<48x48xbf16>
  return %s, %y, %z : tensor<32x16x128xf32>, tensor<64x48xbf16>, tensor<48x48xbf16>
}

// -----

// A swap that moves no element (the dims larger than 1 keep their order)
// is a reshape, a view; a transpose of a transpose is its operand.
// CHECK-LABEL: func.func @views
//       CHECK:   %[[V:.+]] = graph.reshape %arg0 : (tensor<1x32x128xbf16>) -> tensor<32x1x128xbf16>
//       CHECK:   %[[W:.+]] = graph.reshape %arg1 : (tensor<4x1x1x8xf32>) -> tensor<4x8x1x1xf32>
//   CHECK-NOT:   graph.transpose
//       CHECK:   %[[A:.+]] = graph.exp %[[V]]
//       CHECK:   %[[B:.+]] = graph.exp %[[W]]
//       CHECK:   %[[C:.+]] = graph.exp %arg2
//       CHECK:   return %[[A]], %[[B]], %[[C]]
func.func @views(%x: tensor<1x32x128xbf16>, %y: tensor<4x1x1x8xf32>, %z: tensor<3x5xf32>) -> (tensor<32x1x128xbf16>, tensor<4x8x1x1xf32>, tensor<3x5xf32>) {
  %v = graph.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<1x32x128xbf16>) -> tensor<32x1x128xbf16>
  %w = graph.transpose %y {dim0 = 1 : i64, dim1 = 3 : i64} : (tensor<4x1x1x8xf32>) -> tensor<4x8x1x1xf32>
  %zt = graph.transpose %z {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<3x5xf32>) -> tensor<5x3xf32>
  %ztt = graph.transpose %zt {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<5x3xf32>) -> tensor<3x5xf32>
  %a = graph.exp %v : (tensor<32x1x128xbf16>) -> tensor<32x1x128xbf16>
  %b = graph.exp %w : (tensor<4x8x1x1xf32>) -> tensor<4x8x1x1xf32>
  %c = graph.exp %ztt : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %a, %b, %c : tensor<32x1x128xbf16>, tensor<4x8x1x1xf32>, tensor<3x5xf32>
}

// -----

// The same transposes returned as they are would fold into an input or a
// view of one, an output no kernel computes: they stay transposes (each a
// kernel, a copy). A view of a computed value is returned as a view.
// CHECK-LABEL: func.func @returned
//       CHECK:   %[[V:.+]] = graph.transpose %arg0 {dim0 = 0 : i64, dim1 = 1 : i64}
//       CHECK:   %[[W:.+]] = graph.transpose %arg1 {dim0 = 1 : i64, dim1 = 3 : i64}
//       CHECK:   %[[ZT:.+]] = graph.transpose %arg2 {dim0 = 0 : i64, dim1 = 1 : i64}
//       CHECK:   %[[ZTT:.+]] = graph.transpose %[[ZT]] {dim0 = 0 : i64, dim1 = 1 : i64}
//       CHECK:   %[[E:.+]] = graph.exp %arg0
//       CHECK:   %[[EV:.+]] = graph.reshape %[[E]] : (tensor<1x32x128xbf16>) -> tensor<32x1x128xbf16>
//       CHECK:   return %[[V]], %[[W]], %[[ZTT]], %[[EV]]
func.func @returned(%x: tensor<1x32x128xbf16>, %y: tensor<4x1x1x8xf32>, %z: tensor<3x5xf32>) -> (tensor<32x1x128xbf16>, tensor<4x8x1x1xf32>, tensor<3x5xf32>, tensor<32x1x128xbf16>) {
  %v = graph.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<1x32x128xbf16>) -> tensor<32x1x128xbf16>
  %w = graph.transpose %y {dim0 = 1 : i64, dim1 = 3 : i64} : (tensor<4x1x1x8xf32>) -> tensor<4x8x1x1xf32>
  %zt = graph.transpose %z {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<3x5xf32>) -> tensor<5x3xf32>
  %ztt = graph.transpose %zt {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<5x3xf32>) -> tensor<3x5xf32>
  %e = graph.exp %x : (tensor<1x32x128xbf16>) -> tensor<1x32x128xbf16>
  %ev = graph.transpose %e {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<1x32x128xbf16>) -> tensor<32x1x128xbf16>
  return %v, %w, %ztt, %ev : tensor<32x1x128xbf16>, tensor<4x8x1x1xf32>, tensor<3x5xf32>, tensor<32x1x128xbf16>
}

// -----

// A swap of the last dim that is not a matmul operand is left (tilec-fuse
// and the tile lowering make it a kernel of strided rows); its matmul use
// is folded all the same.
// CHECK-LABEL: func.func @needs_a_kernel
//       CHECK:   %[[T:.+]] = graph.transpose %arg0 {dim0 = 0 : i64, dim1 = 1 : i64}
//       CHECK:   %[[Y:.+]] = graph.matmul %arg0, %arg1 {transpose_a = true}
//       CHECK:   return %[[T]], %[[Y]]
func.func @needs_a_kernel(%x: tensor<8x16xf32>, %w: tensor<8x4xf32>) -> (tensor<16x8xf32>, tensor<16x4xf32>) {
  %t = graph.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %y = graph.matmul %t, %w : (tensor<16x8xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
  return %t, %y : tensor<16x8xf32>, tensor<16x4xf32>
}

// -----

// A swap of two row dims (the last dim kept) is left for tilec-fuse: a row
// kernel gathers its rows (fusion/transpose-rows.mlir).
// CHECK-LABEL: func.func @keeps_last_dim
//       CHECK:   graph.transpose %arg0 {dim0 = 0 : i64, dim1 = 1 : i64}
func.func @keeps_last_dim(%x: tensor<8x32x128xbf16>) -> tensor<32x8x128xbf16> {
  %t = graph.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<8x32x128xbf16>) -> tensor<32x8x128xbf16>
  %e = graph.exp %t : (tensor<32x8x128xbf16>) -> tensor<32x8x128xbf16>
  return %e : tensor<32x8x128xbf16>
}
