// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-fuse --tilec-lower-fusion-to-tile --cse %s | FileCheck %s --check-prefix=TILE

// An update in place is a row kernel over the rows it stores: here v's,
// stored through the transpose (heads first) past the start. Domain row
// r = s * 2 + h ([3, 2, 64]) loads v's row r and stores the cache's row
// h * 5 + s + 2; nothing loads the cache, and the grid's row count is
// compiled in (tile.static_rows: no buffer needs to number the rows).
// CHECK-LABEL: func.func @append_in_place
//       CHECK:   graph.fusion(%arg1, %arg0 : tensor<3x2x64xf32>, tensor<2x5x64xf32>) attributes {domain = array<i64: 3, 2, 64>
//       CHECK:     graph.transpose
//       CHECK:     graph.update_slice
//   CHECK-NOT:   graph.fusion
// TILE-LABEL: func.func @append_in_place_kernel0
//  TILE-SAME:   (%[[V:.+]]: memref<?x64xf32>, %[[CACHE:.+]]: memref<?x64xf32>, %[[OUT:.+]]: memref<?x64xf32>)
//  TILE-SAME:   tile.domain = array<i64: 3, 2, 64>
//  TILE-SAME:   tile.static_rows
//       TILE:   %[[R:.+]] = tile.row_id
//       TILE:   %[[S:.+]] = arith.divui %[[R]], %c2
//       TILE:   %[[S2:.+]] = arith.addi %[[S]], %c2
//       TILE:   %[[H:.+]] = arith.remui %[[R]], %c2
//       TILE:   %[[H5:.+]] = arith.muli %[[H]], %c5
//       TILE:   %[[DST:.+]] = arith.addi %[[S2]], %[[H5]]
//   TILE-NOT:   tile.load %[[CACHE]]
//       TILE:   %[[ROW:.+]] = tile.load %[[V]][%[[R]]]
//       TILE:   tile.store %[[ROW]], %[[OUT]][%[[DST]]]
//   TILE-NOT:   tile.load %[[CACHE]]
func.func @append_in_place(%cache: tensor<2x5x64xf32>, %v: tensor<3x2x64xf32>) -> tensor<2x5x64xf32> {
  %t = graph.transpose %v {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<3x2x64xf32>) -> tensor<2x3x64xf32>
  %c = graph.update_slice %cache, %t {axis = 1 : i64, start = 2 : i64} : (tensor<2x5x64xf32>, tensor<2x3x64xf32>) -> tensor<2x5x64xf32>
  return %c : tensor<2x5x64xf32>
}

// -----

// A computed update is stored by the kernel that computes it: exp's row
// r goes to the buffer's row r + 4, one kernel.
// CHECK-LABEL: func.func @computed_update
//       CHECK:   graph.fusion(%arg1, %arg0 : tensor<3x64xbf16>, tensor<10x64xbf16>) attributes {domain = array<i64: 3, 64>
//       CHECK:     graph.exp
//       CHECK:     graph.update_slice
//   CHECK-NOT:   graph.fusion
// TILE-LABEL: func.func @computed_update_kernel0
//       TILE:   %[[R:.+]] = tile.row_id
//       TILE:   %[[X:.+]] = tile.load %arg0[%[[R]]]
//       TILE:   math.exp
//       TILE:   %[[DST:.+]] = arith.addi %[[R]], %c4
//       TILE:   tile.store %{{.+}}, %arg2[%[[DST]]]
func.func @computed_update(%buf: tensor<10x64xbf16>, %x: tensor<3x64xbf16>) -> tensor<10x64xbf16> {
  %e = graph.exp %x : (tensor<3x64xbf16>) -> tensor<3x64xbf16>
  %u = graph.update_slice %buf, %e {axis = 0 : i64, start = 4 : i64} : (tensor<10x64xbf16>, tensor<3x64xbf16>) -> tensor<10x64xbf16>
  return %u : tensor<10x64xbf16>
}

// -----

// Two updates of one domain (a layer's keys and values) are one kernel,
// each row stored at row h * 9 + 8 of both caches.
// CHECK-LABEL: func.func @keys_and_values
//       CHECK:   graph.fusion
//  CHECK-SAME:     domain = array<i64: 8, 1, 128>
//       CHECK:     graph.update_slice
//       CHECK:     graph.update_slice
//   CHECK-NOT:   graph.fusion
func.func @keys_and_values(%kc: tensor<8x9x128xbf16>, %vc: tensor<8x9x128xbf16>, %k: tensor<8x1x128xbf16>, %v: tensor<8x1x128xbf16>) -> (tensor<8x9x128xbf16>, tensor<8x9x128xbf16>) {
  %a = graph.update_slice %kc, %k {axis = 1 : i64, start = 8 : i64} : (tensor<8x9x128xbf16>, tensor<8x1x128xbf16>) -> tensor<8x9x128xbf16>
  %b = graph.update_slice %vc, %v {axis = 1 : i64, start = 8 : i64} : (tensor<8x9x128xbf16>, tensor<8x1x128xbf16>) -> tensor<8x9x128xbf16>
  return %a, %b : tensor<8x9x128xbf16>, tensor<8x9x128xbf16>
}

// -----

// RoPE-like math on k, then k moved heads first into the cache: one
// kernel over k's rows [4, 2, 64] that computes them and stores row
// r = t * 2 + h at the cache's row h * 7 + t + 3.
// CHECK-LABEL: func.func @stored_by_producer
//       CHECK:   graph.fusion({{.*}}) attributes {domain = array<i64: 4, 2, 64>
//       CHECK:     graph.mul
//       CHECK:     graph.transpose
//       CHECK:     graph.update_slice
//   CHECK-NOT:   graph.fusion
// TILE-LABEL: func.func @stored_by_producer_kernel0
// (t is also the row of c that row r reads: one division.)
//       TILE:   %[[R:.+]] = tile.row_id
//       TILE:   %[[T:.+]] = arith.divui %[[R]], %c2
//       TILE:   arith.mulf
//       TILE:   %[[T3:.+]] = arith.addi %[[T]], %c3
//       TILE:   %[[H:.+]] = arith.remui %[[R]], %c2
//       TILE:   %[[H7:.+]] = arith.muli %[[H]], %c7
//       TILE:   %[[DST:.+]] = arith.addi %[[T3]], %[[H7]]
//       TILE:   tile.store %{{.+}}, %arg3[%[[DST]]]
func.func @stored_by_producer(%cache: tensor<2x7x64xf32>, %k: tensor<4x2x64xf32>, %c: tensor<4x1x64xf32>) -> tensor<2x7x64xf32> {
  %b = graph.broadcast %c : (tensor<4x1x64xf32>) -> tensor<4x2x64xf32>
  %m = graph.mul %k, %b : (tensor<4x2x64xf32>, tensor<4x2x64xf32>) -> tensor<4x2x64xf32>
  %t = graph.transpose %m {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<4x2x64xf32>) -> tensor<2x4x64xf32>
  %u = graph.update_slice %cache, %t {axis = 1 : i64, start = 3 : i64} : (tensor<2x7x64xf32>, tensor<2x4x64xf32>) -> tensor<2x7x64xf32>
  return %u : tensor<2x7x64xf32>
}
