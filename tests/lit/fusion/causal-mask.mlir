// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s

// A causal mask whose every user is elementwise is no fusion input and no
// kernel: like a constant, each fusion that uses it computes its own
// (here the GEMM's epilogue adds it to the scores), and the original is
// erased once unused.
// CHECK-LABEL: func.func @mask_in_gemm_epilogue
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%{{.+}}, %{{.+}} : tensor<2x8x16xbf16>, tensor<2x12x16xbf16>)
//  CHECK-SAME:     attributes {domain = array<i64: 2, 8, 12>
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     %[[S:.+]] = graph.matmul
//  CHECK-NEXT:     %[[M:.+]] = graph.causal_mask {period = 4 : i64} : tensor<2x8x12xf32>
//  CHECK-NEXT:     %[[A:.+]] = graph.add %[[S]], %[[M]]
//  CHECK-NEXT:     graph.yield %[[A]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]
func.func @mask_in_gemm_epilogue(%q: tensor<2x8x16xbf16>, %k: tensor<2x12x16xbf16>) -> tensor<2x8x12xf32> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<2x8x16xbf16>, tensor<2x12x16xbf16>) -> tensor<2x8x12xf32>
  %m = graph.causal_mask {period = 4 : i64} : tensor<2x8x12xf32>
  %r = graph.add %s, %m : (tensor<2x8x12xf32>, tensor<2x8x12xf32>) -> tensor<2x8x12xf32>
  return %r : tensor<2x8x12xf32>
}

// -----

// Returned, it is an op of the plan: one row kernel stores it, and its
// elementwise user joins that kernel.
// CHECK-LABEL: func.func @mask_returned
//  CHECK-NEXT:   %[[F:.+]]:2 = graph.fusion(%{{.+}} : tensor<8x12xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 8, 12>
//  CHECK-NEXT:   ^bb0(%[[X:.+]]: tensor<8x12xf32>):
//  CHECK-NEXT:     %[[M:.+]] = graph.causal_mask {period = 8 : i64} : tensor<8x12xf32>
//  CHECK-NEXT:     %[[A:.+]] = graph.add %[[X]], %[[M]]
//  CHECK-NEXT:     graph.yield %[[M]], %[[A]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]#0, %[[F]]#1
func.func @mask_returned(%x: tensor<8x12xf32>) -> (tensor<8x12xf32>, tensor<8x12xf32>) {
  %m = graph.causal_mask {period = 8 : i64} : tensor<8x12xf32>
  %r = graph.add %x, %m : (tensor<8x12xf32>, tensor<8x12xf32>) -> tensor<8x12xf32>
  return %m, %r : tensor<8x12xf32>, tensor<8x12xf32>
}
