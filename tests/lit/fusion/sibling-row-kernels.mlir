// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s

// Two row kernels of one domain that do not read each other's results (a
// decoder's k and v cache appends), without reductions or products and
// at most 2^24 elements: one kernel of both, each with its own output.
// CHECK-LABEL: func.func @k_and_v_appends
//       CHECK:   %[[F:.+]]:2 = graph.fusion({{.*}}) attributes {domain = array<i64: 2, 8, 64>
//       CHECK:     graph.concat
//       CHECK:     graph.transpose
//       CHECK:     graph.concat
//       CHECK:     graph.yield
//   CHECK-NOT:   graph.fusion
func.func @k_and_v_appends(%kc: tensor<2x5x64xbf16>, %k: tensor<2x3x64xbf16>,
                           %vc: tensor<2x5x64xbf16>, %v: tensor<3x2x64xbf16>)
    -> (tensor<2x8x64xbf16>, tensor<2x8x64xbf16>) {
  %kk = graph.concat %kc, %k {axis = 1 : i64} : (tensor<2x5x64xbf16>, tensor<2x3x64xbf16>) -> tensor<2x8x64xbf16>
  %t = graph.transpose %v {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<3x2x64xbf16>) -> tensor<2x3x64xbf16>
  %vv = graph.concat %vc, %t {axis = 1 : i64} : (tensor<2x5x64xbf16>, tensor<2x3x64xbf16>) -> tensor<2x8x64xbf16>
  return %kk, %vv : tensor<2x8x64xbf16>, tensor<2x8x64xbf16>
}

// -----

// Kept apart: a kernel that reads the other's result (merged as producer
// and consumer instead, where it can: here the consumer gathers, so two
// kernels), kernels with reductions, kernels of other shapes, and large
// ones (8192 x 4096 = 2^25 elements: not launch bound). Domains of as
// many rows of as many columns are siblings (one relabels the other's
// rows: [2, 8, 64] and [16, 64]), in the domain every op fits (the
// concatenation's).
// CHECK-LABEL: func.func @not_siblings
//       CHECK: graph.fusion({{.*}}) attributes {domain = array<i64: 2, 8, 64>
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:   graph.concat
//  CHECK-NEXT:   graph.exp
// CHECK-COUNT-5: graph.fusion
//   CHECK-NOT: graph.fusion
func.func @not_siblings(%a: tensor<2x5x64xf32>, %b: tensor<2x3x64xf32>, %x: tensor<16x64xf32>,
                        %y: tensor<16x64xf32>, %z: tensor<16x32xf32>, %u: tensor<8192x4096xf32>,
                        %w: tensor<8192x4096xf32>)
    -> (tensor<2x8x64xf32>, tensor<8x2x64xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x32xf32>, tensor<8192x4096xf32>, tensor<8192x4096xf32>) {
  %c = graph.concat %a, %b {axis = 1 : i64} : (tensor<2x5x64xf32>, tensor<2x3x64xf32>) -> tensor<2x8x64xf32>
  %t = graph.transpose %c {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<2x8x64xf32>) -> tensor<8x2x64xf32>
  %s = graph.reduce_sum %x {axis = 1 : i64} : (tensor<16x64xf32>) -> tensor<16x1xf32>
  %e = graph.exp %y : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %n = graph.neg %z : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %l = graph.exp %u : (tensor<8192x4096xf32>) -> tensor<8192x4096xf32>
  %m = graph.neg %w : (tensor<8192x4096xf32>) -> tensor<8192x4096xf32>
  return %c, %t, %s, %e, %n, %l, %m : tensor<2x8x64xf32>, tensor<8x2x64xf32>, tensor<16x1xf32>, tensor<16x64xf32>, tensor<16x32xf32>, tensor<8192x4096xf32>, tensor<8192x4096xf32>
}
