// RUN: tilec-opt --tilec-fuse %s | FileCheck %s

// RMSNorm (tilec --emit=graph --rows=4 --cols=64 --dtype=f32 rms_norm) becomes
// exactly one graph.fusion holding all nine operators; the eps constant is
// cloned into it and the original constant is erased.

// CHECK-LABEL: func.func @rms_norm
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x64xf32>, %[[W:.+]]: tensor<64xf32>)
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%[[X]], %[[W]] : tensor<4x64xf32>, tensor<64xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 64>, fused_ops = 9 : i64, hbm_bytes_saved = 9344 : i64}
//  CHECK-SAME:     -> tensor<4x64xf32> {
//  CHECK-NEXT:   ^bb0(%[[BX:.+]]: tensor<4x64xf32>, %[[BW:.+]]: tensor<64xf32>):
//  CHECK-NEXT:     %[[SQ:.+]] = graph.mul %[[BX]], %[[BX]]
//  CHECK-NEXT:     %[[MS:.+]] = graph.reduce_mean %[[SQ]] {axis = 1 : i64} : (tensor<4x64xf32>) -> tensor<4x1xf32>
//  CHECK-NEXT:     %[[EPS:.+]] = graph.constant 9.9999999999999995E-7 : tensor<f32>
//  CHECK-NEXT:     %[[EPSB:.+]] = graph.broadcast %[[EPS]] : (tensor<f32>) -> tensor<4x1xf32>
//  CHECK-NEXT:     %[[SUM:.+]] = graph.add %[[MS]], %[[EPSB]]
//  CHECK-NEXT:     %[[INV:.+]] = graph.rsqrt %[[SUM]]
//  CHECK-NEXT:     %[[INVB:.+]] = graph.broadcast %[[INV]] : (tensor<4x1xf32>) -> tensor<4x64xf32>
//  CHECK-NEXT:     %[[NORM:.+]] = graph.mul %[[BX]], %[[INVB]]
//  CHECK-NEXT:     %[[WB:.+]] = graph.broadcast %[[BW]] : (tensor<64xf32>) -> tensor<4x64xf32>
//  CHECK-NEXT:     %[[OUT:.+]] = graph.mul %[[NORM]], %[[WB]]
//  CHECK-NEXT:     graph.yield %[[OUT]] : tensor<4x64xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]] : tensor<4x64xf32>
//   CHECK-NOT: graph.

// hbm_bytes_saved, by the rule in FuseRowOps.cpp (buildFusion): a full
// 4x64xf32 tensor is 1024 bytes, a 4x1xf32 row scalar 16 bytes. Readers and
// consumers are counted as distinct operators: graph.mul %x, %x reads %x once.
//   Inputs: bytes * (distinct readers inside - 1)
//     %x:  graph.mul %x, %x + graph.mul %x, %6      = 2 readers
//          -> 1024 * 1                               = 1024
//     %w:  read once by graph.broadcast -> 256 * 0   = 0
//   Results: bytes * (distinct consumers inside + (used outside ? 0 : 1))
//     %0 mul        1024 * (1 + 1) = 2048
//     %1 reduce     16   * (1 + 1) = 32
//     %3 broadcast  16   * (1 + 1) = 32   (of the eps constant)
//     %4 add        16   * (1 + 1) = 32
//     %5 rsqrt      16   * (1 + 1) = 32
//     %6 broadcast  1024 * (1 + 1) = 2048
//     %7 mul        1024 * (1 + 1) = 2048
//     %8 broadcast  1024 * (1 + 1) = 2048
//     %9 mul        1024 * (0 + 0) = 0    (returned)
//   Total: 1024 + 0 + 2048 + 32*4 + 2048*3 = 9344.
// (Counting operand uses instead, %x would have 3 readers and the total
// would be 10368; hbm-bytes-saved-distinct-readers.mlir pins the rule.)

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
