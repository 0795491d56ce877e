// RUN: tilec-opt --split-input-file --tilec-fuse --tilec-lower-fusion-to-tile --cse %s | FileCheck %s

// A slice along a row dim gathers rows: the kernel runs over the slice's
// rows ([5, 2] here), and domain row r loads input row (r / 2) * 32 +
// (r % 2 + 3): its digits, 3 added at the sliced dim, times the input's
// row strides. The input's buffer has its own row count ([?, 1000]); the
// grid is sized from the output's (tile.row_buffer = 1).
// CHECK-LABEL: func.func @heads_kernel0
//  CHECK-SAME:   (%[[X:.+]]: memref<?x1000xbf16>, %[[Y:.+]]: memref<?x1000xbf16>)
//  CHECK-SAME:   tile.domain = array<i64: 5, 2, 1000>
//  CHECK-SAME:   tile.row_buffer = 1
//       CHECK:   %[[R:.+]] = tile.row_id
//       CHECK:   %[[LO:.+]] = arith.remui %[[R]], %c2
//       CHECK:   %[[LO3:.+]] = arith.addi %[[LO]], %c3
//       CHECK:   %[[HI:.+]] = arith.divui %[[R]], %c2
//       CHECK:   %[[HI32:.+]] = arith.muli %[[HI]], %c32
//       CHECK:   %[[IN:.+]] = arith.addi %[[LO3]], %[[HI32]]
//       CHECK:   tile.load %[[X]][%[[IN]]] : memref<?x1000xbf16> -> tensor<1000xbf16>
//       CHECK:   math.exp
//       CHECK:   tile.store %{{.+}}, %[[Y]][%[[R]]]
func.func @heads(%x: tensor<5x32x1000xbf16>) -> tensor<5x2x1000xbf16> {
  %s = graph.slice %x {axis = 1 : i64, start = 3 : i64, end = 5 : i64} : (tensor<5x32x1000xbf16>) -> tensor<5x2x1000xbf16>
  %e = graph.exp %s : (tensor<5x2x1000xbf16>) -> tensor<5x2x1000xbf16>
  return %e : tensor<5x2x1000xbf16>
}

// -----

// One element of the sliced dim (row 6 of 8): the outer digit only, plus
// the constant 6; a slice of a slice's columns in the same kernel reads
// the gathered row at a column offset.
// CHECK-LABEL: func.func @one_kernel0
//       CHECK:   %[[R:.+]] = tile.row_id
//       CHECK:   %[[OUT:.+]] = arith.muli %[[R]], %c8
//       CHECK:   %[[IN:.+]] = arith.addi %c6{{.*}}, %[[OUT]]
//       CHECK:   %[[T:.+]] = tile.load %arg0[%[[IN]]] {col_offset = 16 : i64} : memref<?x64xf32> -> tensor<64xf32>
//       CHECK:   arith.negf %[[T]]
func.func @one(%x: tensor<3x8x64xf32>) -> tensor<3x1x32xf32> {
  %s = graph.slice %x {axis = 1 : i64, start = 6 : i64, end = 7 : i64} : (tensor<3x8x64xf32>) -> tensor<3x1x64xf32>
  %c = graph.slice %s {axis = 2 : i64, start = 16 : i64, end = 48 : i64} : (tensor<3x1x64xf32>) -> tensor<3x1x32xf32>
  %n = graph.neg %c : (tensor<3x1x32xf32>) -> tensor<3x1x32xf32>
  return %n : tensor<3x1x32xf32>
}

// -----

// A concatenation along a row dim gathers rows from its pieces: the kernel
// runs over the concatenation's rows ([2, 6] here), and domain row r = 6 b
// + s (s its digit at the axis) reads row s + 4 b of x for s < 4, row (s -
// 4) + 2 b of y past it: both rows computed, the piece (its buffer) and its
// row selected by s >= 4, one load of the selected pair. Both pieces'
// buffers have their own row counts ([?, 64]).
// CHECK-LABEL: func.func @kv_kernel0
//  CHECK-SAME:   (%[[X:.+]]: memref<?x64xf32>, %[[Y:.+]]: memref<?x64xf32>, %[[O:.+]]: memref<?x64xf32>)
//  CHECK-SAME:   tile.domain = array<i64: 2, 6, 64>
//       CHECK:   %[[R:.+]] = tile.row_id
//       CHECK:   %[[S:.+]] = arith.remui %[[R]], %c6
//       CHECK:   %[[B:.+]] = arith.divui %[[R]], %c6
//       CHECK:   %[[B4:.+]] = arith.muli %[[B]], %c4
//       CHECK:   %[[XR:.+]] = arith.addi %[[S]], %[[B4]]
//       CHECK:   %[[S4:.+]] = arith.addi %[[S]], %c-4
//       CHECK:   %[[B2:.+]] = arith.muli %[[B]], %c2
//       CHECK:   %[[YR:.+]] = arith.addi %[[S4]], %[[B2]]
//       CHECK:   %[[PAST:.+]] = arith.cmpi uge, %[[S]], %c4
//       CHECK:   %[[ROW:.+]] = arith.select %[[PAST]], %[[YR]], %[[XR]] : index
//       CHECK:   %[[BUF:.+]] = arith.select %[[PAST]], %[[Y]], %[[X]] : memref<?x64xf32>
//       CHECK:   %[[T:.+]] = tile.load %[[BUF]][%[[ROW]]] : memref<?x64xf32> -> tensor<64xf32>
//       CHECK:   math.exp %[[T]]
//       CHECK:   tile.store %{{.+}}, %[[O]][%[[R]]]
func.func @kv(%x: tensor<2x4x64xf32>, %y: tensor<2x2x64xf32>) -> tensor<2x6x64xf32> {
  %c = graph.concat %x, %y {axis = 1 : i64} : (tensor<2x4x64xf32>, tensor<2x2x64xf32>) -> tensor<2x6x64xf32>
  %e = graph.exp %c : (tensor<2x6x64xf32>) -> tensor<2x6x64xf32>
  return %e : tensor<2x6x64xf32>
}
