// RUN: tilec-opt --split-input-file --tilec-lower-fusion-to-tile=fast-math=true %s | FileCheck %s --check-prefix=FAST
// RUN: tilec-opt --split-input-file --tilec-lower-fusion-to-tile %s | FileCheck %s --check-prefix=PRECISE

// GELU (tanh approximation). Fast math with a 16-bit result: h + h tanh(y),
// h = x / 2, y = x (c + 0.044715 c x^2), one tanh (tanh.approx later).
// Otherwise, and for f32 results: x / (1 + exp2(k x (1 + 0.044715 x^2))),
// no tanh and no cancellation in the tail.

// FAST-LABEL: func.func @gelu_bf16_kernel0
//       FAST:   %[[X:.+]] = arith.extf
//       FAST:   %[[X2:.+]] = arith.mulf %[[X]], %[[X]]
//       FAST:   arith.constant dense<0.0356774{{[0-9]*}}>
//       FAST:   %[[T1:.+]] = arith.mulf %{{.+}}, %[[X2]]
//       FAST:   %[[P:.+]] = arith.addf %{{.+}}, %[[T1]]
//       FAST:   %[[Y:.+]] = arith.mulf %[[X]], %[[P]]
//       FAST:   %[[T:.+]] = math.tanh %[[Y]] fastmath<afn>
//       FAST:   %[[H:.+]] = arith.mulf %{{.+}}, %[[X]]
//       FAST:   %[[HT:.+]] = arith.mulf %[[H]], %[[T]]
//       FAST:   arith.addf %[[H]], %[[HT]]
//   FAST-NOT:   math.exp2
//       FAST:   tile.store
// PRECISE-LABEL: func.func @gelu_bf16_kernel0
//   PRECISE-NOT:   math.tanh
//       PRECISE:   math.exp2
//       PRECISE:   arith.divf
//       PRECISE:   tile.store
func.func @gelu_bf16(%arg0: tensor<4x64xbf16>) -> tensor<4x64xbf16> {
  %0 = graph.fusion(%arg0 : tensor<4x64xbf16>) attributes {domain = array<i64: 4, 64>, fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<4x64xbf16> {
  ^bb0(%arg1: tensor<4x64xbf16>):
    %1 = graph.gelu %arg1 : (tensor<4x64xbf16>) -> tensor<4x64xbf16>
    graph.yield %1 : tensor<4x64xbf16>
  }
  return %0 : tensor<4x64xbf16>
}

// -----

// FAST-LABEL: func.func @gelu_f32_kernel0
//   FAST-NOT:   math.tanh
//       FAST:   math.exp2 %{{.+}} fastmath<afn>
//       FAST:   arith.divf {{.+}} fastmath<contract,afn>
//       FAST:   tile.store
func.func @gelu_f32(%arg0: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.fusion(%arg0 : tensor<4x64xf32>) attributes {domain = array<i64: 4, 64>, fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<4x64xf32> {
  ^bb0(%arg1: tensor<4x64xf32>):
    %1 = graph.gelu %arg1 : (tensor<4x64xf32>) -> tensor<4x64xf32>
    graph.yield %1 : tensor<4x64xf32>
  }
  return %0 : tensor<4x64xf32>
}
