// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s

// Dead chains are erased before fusion, however deep: no fusion computes
// values nobody reads.
// CHECK-LABEL: func.func @chain
// CHECK-NOT: graph.
// CHECK: return %arg0
func.func @chain(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.exp %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.reduce_sum %0 {axis = 0 : i64} : (tensor<4x64xf32>) -> tensor<1x64xf32>
  return %x : tensor<4x64xf32>
}

// -----

// A dead consumer must not make a live fusion write an extra output.
// CHECK-LABEL: func.func @extra_out
// CHECK: %[[F:.*]] = graph.fusion(%arg0 : tensor<4x64xf32>) attributes {{.*}}fused_ops = 2 : i64, hbm_bytes_saved = 2048 : i64} -> tensor<4x64xf32>
// CHECK: graph.exp
// CHECK: graph.neg
// CHECK-NOT: graph.reduce_sum
// CHECK: graph.yield %{{.*}} : tensor<4x64xf32>
// CHECK: return %[[F]]
func.func @extra_out(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.exp %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.neg %0 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %2 = graph.reduce_sum %0 {axis = 0 : i64} : (tensor<4x64xf32>) -> tensor<1x64xf32>
  return %1 : tensor<4x64xf32>
}
