// RUN: tilec-opt --split-input-file --tilec-fuse="attention=true" %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-fuse="attention=false" %s | FileCheck %s --check-prefix=THREE

// nn::attention (scores = q @ k^T scaled and masked, softmax over the keys,
// cast, @ v): with `attention=true`, one fusion marked `attention` over the
// output's domain, the scores' ops inside; with false, three kernels
// (attention=auto: fusion/attention-auto.mlir).
// CHECK-LABEL: func.func @attention
//       CHECK:   graph.fusion(%arg0, %arg1, %arg3, %arg2 : {{.*}}) attributes {attention, domain = array<i64: 2, 40, 32>
//       CHECK:     graph.matmul
//       CHECK:     graph.reduce_max
//       CHECK:     graph.exp
//       CHECK:     graph.reduce_sum
//       CHECK:     graph.div
//       CHECK:     graph.cast
//       CHECK:     graph.matmul
//       CHECK:     graph.yield
//   CHECK-NOT:   graph.fusion
// THREE-LABEL: func.func @attention
// THREE-COUNT-3: graph.fusion
//   THREE-NOT:   attention
func.func @attention(%q: tensor<2x40x64xbf16>, %k: tensor<2x72x64xbf16>, %v: tensor<2x72x32xbf16>, %mask: tensor<40x72xf32>) -> tensor<2x40x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<2x40x64xbf16>, tensor<2x72x64xbf16>) -> tensor<2x40x72xf32>
  %c = graph.constant 0.125 : tensor<f32>
  %cb = graph.broadcast %c : (tensor<f32>) -> tensor<2x40x72xf32>
  %ss = graph.mul %s, %cb : (tensor<2x40x72xf32>, tensor<2x40x72xf32>) -> tensor<2x40x72xf32>
  %mb = graph.broadcast %mask : (tensor<40x72xf32>) -> tensor<2x40x72xf32>
  %sm = graph.add %ss, %mb : (tensor<2x40x72xf32>, tensor<2x40x72xf32>) -> tensor<2x40x72xf32>
  %mx = graph.reduce_max %sm {axis = 2 : i64} : (tensor<2x40x72xf32>) -> tensor<2x40x1xf32>
  %mxb = graph.broadcast %mx : (tensor<2x40x1xf32>) -> tensor<2x40x72xf32>
  %d = graph.sub %sm, %mxb : (tensor<2x40x72xf32>, tensor<2x40x72xf32>) -> tensor<2x40x72xf32>
  %e = graph.exp %d : (tensor<2x40x72xf32>) -> tensor<2x40x72xf32>
  %l = graph.reduce_sum %e {axis = 2 : i64} : (tensor<2x40x72xf32>) -> tensor<2x40x1xf32>
  %lb = graph.broadcast %l : (tensor<2x40x1xf32>) -> tensor<2x40x72xf32>
  %p = graph.div %e, %lb : (tensor<2x40x72xf32>, tensor<2x40x72xf32>) -> tensor<2x40x72xf32>
  %p16 = graph.cast %p : (tensor<2x40x72xf32>) -> tensor<2x40x72xbf16>
  %o = graph.matmul %p16, %v : (tensor<2x40x72xbf16>, tensor<2x72x32xbf16>) -> tensor<2x40x32xbf16>
  return %o : tensor<2x40x32xbf16>
}

// -----

// The probabilities also returned: three kernels even with `attention`.
// CHECK-LABEL: func.func @probabilities_returned
// CHECK-COUNT-3: graph.fusion
//   CHECK-NOT:   attention
func.func @probabilities_returned(%q: tensor<40x64xbf16>, %k: tensor<72x64xbf16>, %v: tensor<72x32xbf16>) -> (tensor<40x32xbf16>, tensor<40x72xbf16>) {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<40x64xbf16>, tensor<72x64xbf16>) -> tensor<40x72xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<40x72xf32>) -> tensor<40x1xf32>
  %mxb = graph.broadcast %mx : (tensor<40x1xf32>) -> tensor<40x72xf32>
  %d = graph.sub %s, %mxb : (tensor<40x72xf32>, tensor<40x72xf32>) -> tensor<40x72xf32>
  %e = graph.exp %d : (tensor<40x72xf32>) -> tensor<40x72xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<40x72xf32>) -> tensor<40x1xf32>
  %lb = graph.broadcast %l : (tensor<40x1xf32>) -> tensor<40x72xf32>
  %p = graph.div %e, %lb : (tensor<40x72xf32>, tensor<40x72xf32>) -> tensor<40x72xf32>
  %p16 = graph.cast %p : (tensor<40x72xf32>) -> tensor<40x72xbf16>
  %o = graph.matmul %p16, %v : (tensor<40x72xbf16>, tensor<72x32xbf16>) -> tensor<40x32xbf16>
  return %o, %p16 : tensor<40x32xbf16>, tensor<40x72xbf16>
}

// -----

// A head dim over 128 (the output accumulators would not fit registers):
// three kernels.
// CHECK-LABEL: func.func @wide_values
// CHECK-COUNT-3: graph.fusion
//   CHECK-NOT:   attention
func.func @wide_values(%q: tensor<40x64xbf16>, %k: tensor<72x64xbf16>, %v: tensor<72x256xbf16>) -> tensor<40x256xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<40x64xbf16>, tensor<72x64xbf16>) -> tensor<40x72xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<40x72xf32>) -> tensor<40x1xf32>
  %mxb = graph.broadcast %mx : (tensor<40x1xf32>) -> tensor<40x72xf32>
  %d = graph.sub %s, %mxb : (tensor<40x72xf32>, tensor<40x72xf32>) -> tensor<40x72xf32>
  %e = graph.exp %d : (tensor<40x72xf32>) -> tensor<40x72xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<40x72xf32>) -> tensor<40x1xf32>
  %lb = graph.broadcast %l : (tensor<40x1xf32>) -> tensor<40x72xf32>
  %p = graph.div %e, %lb : (tensor<40x72xf32>, tensor<40x72xf32>) -> tensor<40x72xf32>
  %p16 = graph.cast %p : (tensor<40x72xf32>) -> tensor<40x72xbf16>
  %o = graph.matmul %p16, %v : (tensor<40x72xbf16>, tensor<72x256xbf16>) -> tensor<40x256xbf16>
  return %o : tensor<40x256xbf16>
}

// -----

// Scores straight from the product (no epilogue: the scores' kernel is the
// first group) and the product also returned: three kernels.
// CHECK-LABEL: func.func @scores_returned
// CHECK-COUNT-3: graph.fusion
//   CHECK-NOT:   attention
func.func @scores_returned(%q: tensor<40x64xbf16>, %k: tensor<72x64xbf16>, %v: tensor<72x32xbf16>) -> (tensor<40x32xbf16>, tensor<40x72xf32>) {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<40x64xbf16>, tensor<72x64xbf16>) -> tensor<40x72xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<40x72xf32>) -> tensor<40x1xf32>
  %mxb = graph.broadcast %mx : (tensor<40x1xf32>) -> tensor<40x72xf32>
  %d = graph.sub %s, %mxb : (tensor<40x72xf32>, tensor<40x72xf32>) -> tensor<40x72xf32>
  %e = graph.exp %d : (tensor<40x72xf32>) -> tensor<40x72xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<40x72xf32>) -> tensor<40x1xf32>
  %lb = graph.broadcast %l : (tensor<40x1xf32>) -> tensor<40x72xf32>
  %p = graph.div %e, %lb : (tensor<40x72xf32>, tensor<40x72xf32>) -> tensor<40x72xf32>
  %p16 = graph.cast %p : (tensor<40x72xf32>) -> tensor<40x72xbf16>
  %o = graph.matmul %p16, %v : (tensor<40x72xbf16>, tensor<72x32xbf16>) -> tensor<40x32xbf16>
  return %o, %s : tensor<40x32xbf16>, tensor<40x72xf32>
}
