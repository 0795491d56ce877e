// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-fuse --tilec-lower-fusion-to-tile %s | FileCheck %s --check-prefix=TILE

// A gathering op reads through a gathering operand that nothing else
// reads: v transposed heads first and appended to a cache is one kernel.
// Domain row r = h * 8 + s ([2, 8, 64]) reads the cache's row h * 5 + s
// for s < 5, else v's row (s - 5) * 2 + h: one load of the selected
// buffer and row.
// CHECK-LABEL: func.func @append_transposed
//       CHECK:   graph.fusion(%arg1, %arg0 : tensor<3x2x64xf32>, tensor<2x5x64xf32>) attributes {domain = array<i64: 2, 8, 64>
//       CHECK:     graph.transpose
//       CHECK:     graph.concat
//   CHECK-NOT:   graph.fusion
// TILE-LABEL: func.func @append_transposed_kernel0(%arg0: memref<?x64xf32>, %arg1: memref<?x64xf32>, %arg2: memref<?x64xf32>)
//       TILE:   %[[R:.+]] = tile.row_id
//       TILE:   %[[S:.+]] = arith.remui %[[R]], %c8
//       TILE:   %[[C:.+]] = arith.addi %{{.+}}, %{{.+}} : index
//       TILE:   %[[H:.+]] = arith.divui %[[R]], %c8
//       TILE:   %[[S2:.+]] = arith.remui %[[R]], %c8
//       TILE:   %[[SS:.+]] = arith.muli %[[S2]], %c2
//       TILE:   %[[SO:.+]] = arith.addi %[[SS]], %c-10
//       TILE:   %[[V:.+]] = arith.addi %[[H]], %[[SO]]
//       TILE:   %[[PAST:.+]] = arith.cmpi uge, %[[S]], %c5
//       TILE:   %[[ROW:.+]] = arith.select %[[PAST]], %[[V]], %[[C]] : index
//       TILE:   %[[BUF:.+]] = arith.select %[[PAST]], %arg0, %arg1 : memref<?x64xf32>
//       TILE:   tile.load %[[BUF]][%[[ROW]]] : memref<?x64xf32> -> tensor<64xf32>
func.func @append_transposed(%cache: tensor<2x5x64xf32>, %v: tensor<3x2x64xf32>) -> tensor<2x8x64xf32> {
  %t = graph.transpose %v {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<3x2x64xf32>) -> tensor<2x3x64xf32>
  %c = graph.concat %cache, %t {axis = 1 : i64} : (tensor<2x5x64xf32>, tensor<2x3x64xf32>) -> tensor<2x8x64xf32>
  return %c : tensor<2x8x64xf32>
}

// -----

// A slice of a transpose, read by a row op: all three in one kernel.
// CHECK-LABEL: func.func @slice_of_transpose
//       CHECK:   graph.fusion(%arg0 : tensor<4x6x32xbf16>) attributes {domain = array<i64: 2, 4, 32>
//       CHECK:     graph.transpose
//       CHECK:     graph.slice
//       CHECK:     graph.exp
//   CHECK-NOT:   graph.fusion
func.func @slice_of_transpose(%x: tensor<4x6x32xbf16>) -> tensor<2x4x32xbf16> {
  %t = graph.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<4x6x32xbf16>) -> tensor<6x4x32xbf16>
  %s = graph.slice %t {axis = 0 : i64, start = 3 : i64, end = 5 : i64} : (tensor<6x4x32xbf16>) -> tensor<2x4x32xbf16>
  %e = graph.exp %s : (tensor<2x4x32xbf16>) -> tensor<2x4x32xbf16>
  return %e : tensor<2x4x32xbf16>
}

// -----

// The inner gathering op has another reader: it stays a kernel of its own
// (its result is written once), and the outer reads it from memory.
// CHECK-LABEL: func.func @shared_inner
//       CHECK:   %[[T:.+]] = graph.fusion(%arg1 : tensor<3x2x64xf32>)
//       CHECK:     graph.transpose
//       CHECK:   graph.fusion(%arg0, %[[T]] : tensor<2x5x64xf32>, tensor<2x3x64xf32>)
//       CHECK:     graph.concat
func.func @shared_inner(%cache: tensor<2x5x64xf32>, %v: tensor<3x2x64xf32>) -> (tensor<2x8x64xf32>, tensor<2x3x64xf32>) {
  %t = graph.transpose %v {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<3x2x64xf32>) -> tensor<2x3x64xf32>
  %c = graph.concat %cache, %t {axis = 1 : i64} : (tensor<2x5x64xf32>, tensor<2x3x64xf32>) -> tensor<2x8x64xf32>
  return %c, %t : tensor<2x8x64xf32>, tensor<2x3x64xf32>
}
