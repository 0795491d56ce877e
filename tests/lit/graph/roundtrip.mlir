// RUN: tilec-opt %s | tilec-opt | FileCheck %s
// RUN: tilec-opt --mlir-print-op-generic %s | tilec-opt | FileCheck %s
// RUN: tilec-opt --verify-roundtrip %s > /dev/null

// Every graph operator parses, prints and parses back to the same IR.

// CHECK-LABEL: func.func @elementwise
//  CHECK-SAME: (%[[A:.+]]: tensor<4x64xf32>, %[[B:.+]]: tensor<4x64xf32>)
func.func @elementwise(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // CHECK: %[[ADD:.+]] = graph.add %[[A]], %[[B]] : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %0 = graph.add %a, %b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[SUB:.+]] = graph.sub %[[ADD]], %[[B]]
  %1 = graph.sub %0, %b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[MUL:.+]] = graph.mul %[[SUB]], %[[A]]
  %2 = graph.mul %1, %a : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[DIV:.+]] = graph.div %[[MUL]], %[[B]]
  %3 = graph.div %2, %b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[MAX:.+]] = graph.max %[[DIV]], %[[A]]
  %4 = graph.max %3, %a : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[MIN:.+]] = graph.min %[[MAX]], %[[B]]
  %5 = graph.min %4, %b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[NEG:.+]] = graph.neg %[[MIN]] : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %6 = graph.neg %5 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[EXP:.+]] = graph.exp %[[NEG]]
  %7 = graph.exp %6 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[LOG:.+]] = graph.log %[[EXP]]
  %8 = graph.log %7 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[SQRT:.+]] = graph.sqrt %[[LOG]]
  %9 = graph.sqrt %8 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[RSQRT:.+]] = graph.rsqrt %[[SQRT]]
  %10 = graph.rsqrt %9 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[TANH:.+]] = graph.tanh %[[RSQRT]]
  %11 = graph.tanh %10 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[SIG:.+]] = graph.sigmoid %[[TANH]]
  %12 = graph.sigmoid %11 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[SILU:.+]] = graph.silu %[[SIG]]
  %13 = graph.silu %12 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: %[[GELU:.+]] = graph.gelu %[[SILU]]
  %14 = graph.gelu %13 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  // CHECK: return %[[GELU]]
  return %14 : tensor<4x64xf32>
}

// CHECK-LABEL: func.func @reductions_and_broadcasts
func.func @reductions_and_broadcasts(%a: tensor<2x4x64xbf16>, %w: tensor<64xbf16>) -> tensor<2x4x64xbf16> {
  // CHECK: graph.reduce_sum %{{.+}} {axis = 2 : i64} : (tensor<2x4x64xbf16>) -> tensor<2x4x1xbf16>
  %0 = graph.reduce_sum %a {axis = 2 : i64} : (tensor<2x4x64xbf16>) -> tensor<2x4x1xbf16>
  // CHECK: graph.reduce_max %{{.+}} {axis = 0 : i64} : (tensor<2x4x64xbf16>) -> tensor<1x4x64xbf16>
  %1 = graph.reduce_max %a {axis = 0 : i64} : (tensor<2x4x64xbf16>) -> tensor<1x4x64xbf16>
  // CHECK: graph.reduce_mean %{{.+}} {axis = 1 : i64} : (tensor<2x4x64xbf16>) -> tensor<2x1x64xbf16>
  %2 = graph.reduce_mean %a {axis = 1 : i64} : (tensor<2x4x64xbf16>) -> tensor<2x1x64xbf16>
  // CHECK: graph.broadcast %{{.+}} : (tensor<2x4x1xbf16>) -> tensor<2x4x64xbf16>
  %3 = graph.broadcast %0 : (tensor<2x4x1xbf16>) -> tensor<2x4x64xbf16>
  // CHECK: graph.broadcast %{{.+}} : (tensor<64xbf16>) -> tensor<2x4x64xbf16>
  %4 = graph.broadcast %w : (tensor<64xbf16>) -> tensor<2x4x64xbf16>
  // CHECK: graph.constant 5.000000e-01 : tensor<bf16>
  %c = graph.constant 0.5 : tensor<bf16>
  // CHECK: graph.broadcast %{{.+}} : (tensor<bf16>) -> tensor<2x4x64xbf16>
  %5 = graph.broadcast %c : (tensor<bf16>) -> tensor<2x4x64xbf16>
  %6 = graph.add %3, %4 : (tensor<2x4x64xbf16>, tensor<2x4x64xbf16>) -> tensor<2x4x64xbf16>
  %7 = graph.add %6, %5 : (tensor<2x4x64xbf16>, tensor<2x4x64xbf16>) -> tensor<2x4x64xbf16>
  return %7 : tensor<2x4x64xbf16>
}

// CHECK-LABEL: func.func @casts
func.func @casts(%a: tensor<8xbf16>) -> tensor<8xf16> {
  // CHECK: graph.cast %{{.+}} : (tensor<8xbf16>) -> tensor<8xf32>
  %0 = graph.cast %a : (tensor<8xbf16>) -> tensor<8xf32>
  // CHECK: graph.cast %{{.+}} : (tensor<8xf32>) -> tensor<8xf16>
  %1 = graph.cast %0 : (tensor<8xf32>) -> tensor<8xf16>
  return %1 : tensor<8xf16>
}

// A fusion with two results and the attributes tilec-fuse sets.
// CHECK-LABEL: func.func @fusion
//  CHECK-SAME: (%[[X:.+]]: tensor<4x64xf32>, %[[W:.+]]: tensor<64xf32>)
func.func @fusion(%x: tensor<4x64xf32>, %w: tensor<64xf32>) -> (tensor<4x64xf32>, tensor<4x1xf32>) {
  // CHECK:      %[[F:.+]]:2 = graph.fusion(%[[X]], %[[W]] : tensor<4x64xf32>, tensor<64xf32>)
  // CHECK-SAME:   attributes {domain = array<i64: 4, 64>, fused_ops = 3 : i64, hbm_bytes_saved = 7 : i64}
  // CHECK-SAME:   -> tensor<4x64xf32>, tensor<4x1xf32> {
  // CHECK-NEXT: ^bb0(%[[BX:.+]]: tensor<4x64xf32>, %[[BW:.+]]: tensor<64xf32>):
  // CHECK-NEXT:   %[[BC:.+]] = graph.broadcast %[[BW]]
  // CHECK-NEXT:   %[[M:.+]] = graph.mul %[[BX]], %[[BC]]
  // CHECK-NEXT:   %[[S:.+]] = graph.reduce_sum %[[M]]
  // CHECK-NEXT:   graph.yield %[[M]], %[[S]] : tensor<4x64xf32>, tensor<4x1xf32>
  // CHECK-NEXT: }
  %0:2 = graph.fusion(%x, %w : tensor<4x64xf32>, tensor<64xf32>) attributes {domain = array<i64: 4, 64>, fused_ops = 3 : i64, hbm_bytes_saved = 7 : i64} -> tensor<4x64xf32>, tensor<4x1xf32> {
  ^bb0(%bx: tensor<4x64xf32>, %bw: tensor<64xf32>):
    %1 = graph.broadcast %bw : (tensor<64xf32>) -> tensor<4x64xf32>
    %2 = graph.mul %bx, %1 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    %3 = graph.reduce_sum %2 {axis = 1 : i64} : (tensor<4x64xf32>) -> tensor<4x1xf32>
    graph.yield %2, %3 : tensor<4x64xf32>, tensor<4x1xf32>
  }
  // CHECK: return %[[F]]#0, %[[F]]#1
  return %0#0, %0#1 : tensor<4x64xf32>, tensor<4x1xf32>
}

// A fusion without inputs (only constants inside).
// CHECK-LABEL: func.func @fusion_no_inputs
// CHECK:       graph.fusion -> tensor<4x64xf16> {
// CHECK-NEXT:    graph.constant 2.000000e+00 : tensor<f16>
// CHECK-NEXT:    graph.broadcast
// CHECK-NEXT:    graph.yield
func.func @fusion_no_inputs() -> tensor<4x64xf16> {
  %0 = graph.fusion -> tensor<4x64xf16> {
    %c = graph.constant 2.0 : tensor<f16>
    %1 = graph.broadcast %c : (tensor<f16>) -> tensor<4x64xf16>
    graph.yield %1 : tensor<4x64xf16>
  }
  return %0 : tensor<4x64xf16>
}
