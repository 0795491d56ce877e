// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-fuse --tilec-lower-fusion-to-tile %s | FileCheck %s --check-prefix=TILE

// A transpose of row dims that no row op consumes (returned, or read by a
// GEMM) is stored by the kernel that computes its operand (a scatter):
// domain row r = t * 4 + h ([6, 4, 64]) stores its row at output row
// h * 6 + t, and no kernel of its own moves it. (Consumers that are row
// ops gather it instead: transpose-rows.mlir.)
// CHECK-LABEL: func.func @returned
//       CHECK:   %[[F:.+]] = graph.fusion(%arg0 : tensor<6x4x64xf32>) attributes {domain = array<i64: 6, 4, 64>
//       CHECK:     %[[E:.+]] = graph.exp
//       CHECK:     %[[T:.+]] = graph.transpose %[[E]]
//       CHECK:     graph.yield %[[T]]
//   CHECK-NOT:   graph.fusion
//       CHECK:   return %[[F]]
// TILE-LABEL: func.func @returned_kernel0(%arg0: memref<?x64xf32>, %arg1: memref<?x64xf32>)
//       TILE:   %[[R:.+]] = tile.row_id
//       TILE:   %[[X:.+]] = tile.load %arg0[%[[R]]]
//       TILE:   %[[E:.+]] = math.exp %[[X]]
//       TILE:   %[[T:.+]] = arith.divui %[[R]], %c4
//       TILE:   %[[H:.+]] = arith.remui %[[R]], %c4
//       TILE:   %[[HS:.+]] = arith.muli %[[H]], %c6
//       TILE:   %[[OUT:.+]] = arith.addi %[[T]], %[[HS]]
//       TILE:   tile.store %[[E]], %arg1[%[[OUT]]] : tensor<64xf32> -> memref<?x64xf32>
func.func @returned(%x: tensor<6x4x64xf32>) -> tensor<4x6x64xf32> {
  %e = graph.exp %x : (tensor<6x4x64xf32>) -> tensor<6x4x64xf32>
  %t = graph.transpose %e {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<6x4x64xf32>) -> tensor<4x6x64xf32>
  return %t : tensor<4x6x64xf32>
}

// -----

// Read by a GEMM through a view (attention's q, heads first and grouped):
// the scatter, then the product reading the stored rows.
// CHECK-LABEL: func.func @into_gemm
//       CHECK:   %[[F:.+]] = graph.fusion(%arg0 : tensor<8x4x64xbf16>) attributes {domain = array<i64: 8, 4, 64>
//       CHECK:     graph.neg
//       CHECK:     graph.transpose
//       CHECK:   %[[V:.+]] = graph.reshape %[[F]]
//       CHECK:   graph.fusion(%[[V]], %arg1 : tensor<2x16x64xbf16>, tensor<2x64x64xbf16>)
//       CHECK:     graph.matmul
func.func @into_gemm(%q: tensor<8x4x64xbf16>, %k: tensor<2x64x64xbf16>) -> tensor<2x16x64xf32> {
  %n = graph.neg %q : (tensor<8x4x64xbf16>) -> tensor<8x4x64xbf16>
  %t = graph.transpose %n {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<8x4x64xbf16>) -> tensor<4x8x64xbf16>
  %g = graph.reshape %t : (tensor<4x8x64xbf16>) -> tensor<2x16x64xbf16>
  %s = graph.matmul %g, %k {transpose_b = true} : (tensor<2x16x64xbf16>, tensor<2x64x64xbf16>) -> tensor<2x16x64xf32>
  return %s : tensor<2x16x64xf32>
}

// -----

// Appended to a cache (a concatenation along a row dim reads its pieces
// from memory): the scatter; the operand is also returned as it is.
// CHECK-LABEL: func.func @appended
//       CHECK:   %[[F:.+]]:2 = graph.fusion(%arg0 : tensor<3x2x64xf32>) attributes {domain = array<i64: 3, 2, 64>
//       CHECK:     graph.transpose
//       CHECK:   graph.fusion(%arg1, %[[F]]#{{[01]}} : tensor<2x5x64xf32>, tensor<2x3x64xf32>)
//       CHECK:     graph.concat
func.func @appended(%k: tensor<3x2x64xf32>, %cache: tensor<2x5x64xf32>) -> (tensor<2x8x64xf32>, tensor<3x2x64xf32>) {
  %r = graph.tanh %k : (tensor<3x2x64xf32>) -> tensor<3x2x64xf32>
  %t = graph.transpose %r {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<3x2x64xf32>) -> tensor<2x3x64xf32>
  %c = graph.concat %cache, %t {axis = 1 : i64} : (tensor<2x5x64xf32>, tensor<2x3x64xf32>) -> tensor<2x8x64xf32>
  return %c, %r : tensor<2x8x64xf32>, tensor<3x2x64xf32>
}

// -----

// A GEMM's result, or an input: the transpose stays a kernel of its own.
// CHECK-LABEL: func.func @not_scattered
//       CHECK:   graph.fusion(%arg0, %arg1
//       CHECK:     graph.matmul
//   CHECK-NOT:     graph.transpose
//       CHECK:   graph.fusion
//       CHECK:     graph.transpose
//       CHECK:   graph.fusion(%arg2
//       CHECK:     graph.transpose
func.func @not_scattered(%a: tensor<6x32xbf16>, %b: tensor<128x32xbf16>, %x: tensor<4x3x16xbf16>) -> (tensor<2x6x64xbf16>, tensor<3x4x16xbf16>) {
  %m = graph.matmul %a, %b {transpose_b = true} : (tensor<6x32xbf16>, tensor<128x32xbf16>) -> tensor<6x128xbf16>
  %v = graph.reshape %m : (tensor<6x128xbf16>) -> tensor<6x2x64xbf16>
  %t = graph.transpose %v {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<6x2x64xbf16>) -> tensor<2x6x64xbf16>
  %u = graph.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<4x3x16xbf16>) -> tensor<3x4x16xbf16>
  return %t, %u : tensor<2x6x64xbf16>, tensor<3x4x16xbf16>
}

// -----

// Attention's output: a batched GEMM's rows, relabeled heads x tokens and
// transposed tokens first, stored by the GEMM's epilogue at row
// (r % 16) * 32 + r / 16 (domain row r of [8, 64, 128] is head r / 16,
// token r % 16). The rows are no box of the output: no TMA store.
// CHECK-LABEL: func.func @gemm_epilogue
//       CHECK:   graph.fusion(%arg0, %arg1 : tensor<8x64x96xbf16>, tensor<8x96x128xbf16>) attributes {domain = array<i64: 8, 64, 128>
//       CHECK:     graph.matmul
//       CHECK:     graph.reshape
//       CHECK:     graph.transpose
//   CHECK-NOT:   graph.fusion
// TILE-LABEL: func.func @gemm_epilogue_kernel0
//       TILE:   %[[R:.+]] = tile.row_id
//       TILE:   %[[P:.+]] = tile.matmul
//       TILE:   %[[H:.+]] = arith.divui %[[R]], %c16
//       TILE:   %[[T:.+]] = arith.remui %[[R]], %c16
//       TILE:   %[[TS:.+]] = arith.muli %[[T]], %c32
//       TILE:   %[[OUT:.+]] = arith.addi %[[H]], %[[TS]]
//       TILE:   tile.store %{{.+}}, %arg2[%[[OUT]]] : tensor<128xbf16> -> memref<?x128xbf16>
func.func @gemm_epilogue(%p: tensor<8x64x96xbf16>, %v: tensor<8x96x128xbf16>) -> tensor<16x32x128xbf16> {
  %o = graph.matmul %p, %v : (tensor<8x64x96xbf16>, tensor<8x96x128xbf16>) -> tensor<8x64x128xbf16>
  %r = graph.reshape %o : (tensor<8x64x128xbf16>) -> tensor<32x16x128xbf16>
  %t = graph.transpose %r {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<32x16x128xbf16>) -> tensor<16x32x128xbf16>
  return %t : tensor<16x32x128xbf16>
}
