// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-fuse --tilec-lower-fusion-to-tile %s | FileCheck %s --check-prefix=TILE

// A transpose of two row dims (the last dim kept: [tokens, heads, dim] ->
// [heads, tokens, dim]) gathers rows: it joins the row kernel of its
// consumers, over the result's rows, and its operand is read from memory.
// Domain row r = h * 8 + t reads input row t * 32 + h.
// CHECK-LABEL: func.func @heads_first
//       CHECK:   graph.fusion(%arg0, %arg1 : tensor<8x32x128xbf16>, tensor<128xbf16>) attributes {domain = array<i64: 32, 8, 128>
//       CHECK:     graph.transpose
//       CHECK:     graph.reduce_sum
//       CHECK:     graph.yield
//   CHECK-NOT:   graph.fusion
// TILE-LABEL: func.func @heads_first_kernel0
//       TILE:   %[[R:.+]] = tile.row_id
//       TILE:   %[[T:.+]] = arith.divui %[[R]], %c8
//       TILE:   %[[H:.+]] = arith.remui %[[R]], %c8
//       TILE:   %[[HS:.+]] = arith.muli %[[H]], %c32
//       TILE:   %[[IN:.+]] = arith.addi %[[T]], %[[HS]]
//       TILE:   tile.load %arg0[%[[IN]]] : memref<?x128xbf16> -> tensor<128xbf16>
//       TILE:   tile.store %{{.+}}, %arg2[%[[R]]] : tensor<128xbf16> -> memref<?x128xbf16>
func.func @heads_first(%x: tensor<8x32x128xbf16>, %w: tensor<128xbf16>) -> tensor<32x8x128xbf16> {
  %t = graph.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<8x32x128xbf16>) -> tensor<32x8x128xbf16>
  %sq = graph.mul %t, %t : (tensor<32x8x128xbf16>, tensor<32x8x128xbf16>) -> tensor<32x8x128xbf16>
  %s = graph.reduce_sum %sq {axis = 2 : i64} : (tensor<32x8x128xbf16>) -> tensor<32x8x1xbf16>
  %sb = graph.broadcast %s : (tensor<32x8x1xbf16>) -> tensor<32x8x128xbf16>
  %wb = graph.broadcast %w : (tensor<128xbf16>) -> tensor<32x8x128xbf16>
  %y = graph.mul %sb, %wb : (tensor<32x8x128xbf16>, tensor<32x8x128xbf16>) -> tensor<32x8x128xbf16>
  return %y : tensor<32x8x128xbf16>
}

// -----

// The transpose's operand is computed: it stays in its own kernel (the
// transpose reads it back from memory), and the transpose joins its
// consumer's.
// CHECK-LABEL: func.func @computed_operand
//       CHECK:   %[[E:.+]] = graph.fusion(%arg0 : tensor<4x6x64xf32>) attributes {domain = array<i64: 4, 6, 64>
//       CHECK:     graph.exp
//   CHECK-NOT:     graph.transpose
//       CHECK:   graph.fusion(%[[E]] : tensor<4x6x64xf32>) attributes {domain = array<i64: 6, 4, 64>
//       CHECK:     graph.transpose
//       CHECK:     graph.neg
func.func @computed_operand(%x: tensor<4x6x64xf32>) -> tensor<6x4x64xf32> {
  %e = graph.exp %x : (tensor<4x6x64xf32>) -> tensor<4x6x64xf32>
  %t = graph.transpose %e {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<4x6x64xf32>) -> tensor<6x4x64xf32>
  %n = graph.neg %t : (tensor<6x4x64xf32>) -> tensor<6x4x64xf32>
  return %n : tensor<6x4x64xf32>
}

// -----

// Even where a consumer reads both: the transpose's producer is not merged.
// CHECK-LABEL: func.func @both
//       CHECK:   %[[E:.+]] = graph.fusion(%arg0 : tensor<4x4x64xf32>)
//       CHECK:   graph.fusion(%[[E]] : tensor<4x4x64xf32>)
//       CHECK:     graph.transpose
//       CHECK:     graph.add
func.func @both(%x: tensor<4x4x64xf32>) -> tensor<4x4x64xf32> {
  %e = graph.exp %x : (tensor<4x4x64xf32>) -> tensor<4x4x64xf32>
  %t = graph.transpose %e {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<4x4x64xf32>) -> tensor<4x4x64xf32>
  %y = graph.add %t, %e : (tensor<4x4x64xf32>, tensor<4x4x64xf32>) -> tensor<4x4x64xf32>
  return %y : tensor<4x4x64xf32>
}

// -----

// A swap of the last dim ([6, 5, 7, 40] dims 1 and 3) is a fusion of its
// own, lowered to strided rows: the input viewed as [O, K, I] = [6, 5,
// 280]; output row r = (o * 40 + p) * 7 + m reads strided row o * 280 +
// m * 40 + p (elements [row / 280, :, row % 280]).
// CHECK-LABEL: func.func @last_dim
//       CHECK:   graph.fusion(%arg0 : tensor<6x5x7x40xbf16>)
//   CHECK-NOT:     domain
//       CHECK:     graph.transpose
// TILE-LABEL: func.func @last_dim_kernel0(%arg0: memref<6x5x280xbf16>, %arg1: memref<?x5xbf16>)
//  TILE-SAME:   tile.domain = array<i64: 1680, 5>
//       TILE:   %[[R:.+]] = tile.row_id
//       TILE:   %[[O:.+]] = arith.divui %[[R]], %c280
//       TILE:   %[[OS:.+]] = arith.muli %[[O]], %c280
//       TILE:   %[[Q:.+]] = arith.divui %[[R]], %c7
//       TILE:   %[[P:.+]] = arith.remui %[[Q]], %c40
//       TILE:   %[[M:.+]] = arith.remui %[[R]], %c7
//       TILE:   %[[MS:.+]] = arith.muli %[[M]], %c40
//       TILE:   %[[A:.+]] = arith.addi %[[OS]], %[[MS]]
//       TILE:   %[[S:.+]] = arith.addi %[[A]], %[[P]]
//       TILE:   %[[V:.+]] = tile.load %arg0[%[[S]]] : memref<6x5x280xbf16> -> tensor<5xbf16>
//       TILE:   tile.store %[[V]], %arg1[%[[R]]] : tensor<5xbf16> -> memref<?x5xbf16>
func.func @last_dim(%x: tensor<6x5x7x40xbf16>) -> tensor<6x40x7x5xbf16> {
  %t = graph.transpose %x {dim0 = 1 : i64, dim1 = 3 : i64} : (tensor<6x5x7x40xbf16>) -> tensor<6x40x7x5xbf16>
  return %t : tensor<6x40x7x5xbf16>
}
