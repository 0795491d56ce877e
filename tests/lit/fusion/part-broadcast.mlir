// RUN: tilec-opt --tilec-fuse %s | FileCheck %s
// RUN: tilec --emit=tile %s | FileCheck %s --check-prefix=TILE

// A per-row scalar broadcast to a part of a row (a slice divided by the row's
// sum) stays in the one kernel.
// CHECK-LABEL: func.func @part_norm
//       CHECK:   graph.fusion
//  CHECK-SAME:     domain = array<i64: 4, 64>
//  CHECK-SAME:     fused_ops = 5
//   CHECK-NOT:   graph.fusion
// TILE: tile.load %{{.+}}[%{{.+}}] {col_offset = 16 : i64} : memref<?x64xf32> -> tensor<64xf32>
// TILE: tile.splat %{{.+}} : f32 -> tensor<64xf32>
// TILE: tile.store %{{.+}}, %{{.+}}[%{{.+}}] {col_offset = 0 : i64} : tensor<64xf32> -> memref<?x32xf32>
func.func @part_norm(%x: tensor<4x64xf32>) -> tensor<4x32xf32> {
  %e = graph.exp %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %s = graph.reduce_sum %e {axis = 1 : i64} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %p = graph.slice %e {axis = 1 : i64, start = 16 : i64, end = 48 : i64} : (tensor<4x64xf32>) -> tensor<4x32xf32>
  %b = graph.broadcast %s : (tensor<4x1xf32>) -> tensor<4x32xf32>
  %d = graph.div %p, %b : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
  return %d : tensor<4x32xf32>
}
