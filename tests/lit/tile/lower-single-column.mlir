// XFAIL: *
// BUG: with rows of one element (domain [R, 1]) a per-row scalar [R, 1] is
// classified as a full row (RowDomain::classify checks Full before
// RowScalar), so its tile type is tensor<1xT>; but a reduction always
// produces a scalar f32. Mixing the two gives invalid IR:
//   'arith.addf' op requires the same type for all operands and results
//   (tensor<1xf32>, f32) -> tensor<1xf32>
// Every row-reducing example fails this way at --cols=1, e.g.
//   tilec --cols=1 --dtype=f32 rms_norm
// (tilec-fuse accepts the fusion: fitsRowDomain allows reductions when
// d.cols == 1.) Remove the XFAIL once [R, 1] values are handled
// consistently.

// RUN: tilec-opt --tilec-fuse --tilec-lower-fusion-to-tile %s | FileCheck %s

// CHECK-LABEL: func.func @single_column_kernel0
//       CHECK:   tile.reduce_sum
//       CHECK:   tile.store
func.func @single_column(%x: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %0 = graph.reduce_sum %x {axis = 1 : i64} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %1 = graph.add %x, %0 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  return %1 : tensor<4x1xf32>
}
