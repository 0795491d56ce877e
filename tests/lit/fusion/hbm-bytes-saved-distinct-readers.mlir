// XFAIL: *
// BUG: hbm_bytes_saved counts operand USES of an input, not the operators
// that read it. FuseRowOps.cpp says "Unfused, every consumer reads the input;
// fused, it is read once" but computes readers with
// count_if(in.getUsers(), ...), and getUsers() yields `graph.mul %x, %x`
// twice. So a fusion of the single operator `mul %x, %x`, which keeps nothing
// out of HBM, reports 1024 bytes saved, and rms_norm at 4x64xf32 reports 10368
// instead of 9344 (see rms-norm.mlir for the hand computation).
// Remove the XFAIL (and update rms-norm.mlir) once readers are counted per
// distinct operator.

// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s

// CHECK-LABEL: func.func @square
//       CHECK:   graph.fusion
//  CHECK-SAME:     hbm_bytes_saved = 0 : i64
func.func @square(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.mul %x, %x : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// CHECK-LABEL: func.func @rms_norm
//       CHECK:   graph.fusion
//  CHECK-SAME:     hbm_bytes_saved = 9344 : i64
func.func @rms_norm(%arg0: tensor<4x64xf32>, %arg1: tensor<64xf32>) -> tensor<4x64xf32> {
  %0 = graph.mul %arg0, %arg0 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.reduce_mean %0 {axis = 1 : i64} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  %2 = graph.constant 9.9999999999999995E-7 : tensor<f32>
  %3 = graph.broadcast %2 : (tensor<f32>) -> tensor<4x1xf32>
  %4 = graph.add %1, %3 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %5 = graph.rsqrt %4 : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %6 = graph.broadcast %5 : (tensor<4x1xf32>) -> tensor<4x64xf32>
  %7 = graph.mul %arg0, %6 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %8 = graph.broadcast %arg1 : (tensor<64xf32>) -> tensor<4x64xf32>
  %9 = graph.mul %7, %8 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %9 : tensor<4x64xf32>
}
