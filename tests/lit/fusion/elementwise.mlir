// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s

// Elementwise chain (tilec's elementwise_chain example): a diamond on %x
// (gelu and sigmoid both read it, sub reads it again) is one fusion.

// CHECK-LABEL: func.func @elementwise_chain
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x64xf32>, %[[Y:.+]]: tensor<4x64xf32>)
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%[[X]], %[[Y]] : tensor<4x64xf32>, tensor<4x64xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 64>, fused_ops = 5 : i64, hbm_bytes_saved = 10240 : i64}
//  CHECK-NEXT:   ^bb0(%[[BX:.+]]: tensor<4x64xf32>, %[[BY:.+]]: tensor<4x64xf32>):
//  CHECK-NEXT:     %[[G:.+]] = graph.gelu %[[BX]]
//  CHECK-NEXT:     %[[S:.+]] = graph.sigmoid %[[BX]]
//  CHECK-NEXT:     %[[M:.+]] = graph.mul %[[S]], %[[BY]]
//  CHECK-NEXT:     %[[A:.+]] = graph.add %[[M]], %[[G]]
//  CHECK-NEXT:     %[[D:.+]] = graph.sub %[[A]], %[[BX]]
//  CHECK-NEXT:     graph.yield %[[D]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]
//   CHECK-NOT: graph.

// hbm_bytes_saved: %x has 3 readers inside: 1024 * 2 = 2048; %y: 0;
// gelu, sigmoid, mul, add are each written once and read once: 4 * 2048;
// sub is returned: 0. Total 2048 + 8192 = 10240.

func.func @elementwise_chain(%arg0: tensor<4x64xf32>, %arg1: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.gelu %arg0 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.sigmoid %arg0 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %2 = graph.mul %1, %arg1 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %3 = graph.add %2, %0 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %4 = graph.sub %3, %arg0 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %4 : tensor<4x64xf32>
}

// -----

// SwiGLU gate: silu(x) * y. hbm_bytes_saved = silu written+read = 2048.

// CHECK-LABEL: func.func @silu_mul
//  CHECK-NEXT:   graph.fusion(%{{.+}}, %{{.+}} : tensor<4x64xf32>, tensor<4x64xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 64>, fused_ops = 2 : i64, hbm_bytes_saved = 2048 : i64}
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.silu
//  CHECK-NEXT:     graph.mul
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
func.func @silu_mul(%arg0: tensor<4x64xf32>, %arg1: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.silu %arg0 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.mul %0, %arg1 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %1 : tensor<4x64xf32>
}

// -----

// bf16 in, f32 math, bf16 out: casts fuse like any elementwise op.

// CHECK-LABEL: func.func @casts
//  CHECK-NEXT:   graph.fusion(%{{.+}} : tensor<4x64xbf16>)
//  CHECK-SAME:     domain = array<i64: 4, 64>, fused_ops = 3 : i64
//  CHECK-SAME:     -> tensor<4x64xbf16>
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.cast %{{.+}} : (tensor<4x64xbf16>) -> tensor<4x64xf32>
//  CHECK-NEXT:     graph.tanh
//  CHECK-NEXT:     graph.cast %{{.+}} : (tensor<4x64xf32>) -> tensor<4x64xbf16>
//  CHECK-NEXT:     graph.yield
func.func @casts(%x: tensor<4x64xbf16>) -> tensor<4x64xbf16> {
  %0 = graph.cast %x : (tensor<4x64xbf16>) -> tensor<4x64xf32>
  %1 = graph.tanh %0 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %2 = graph.cast %1 : (tensor<4x64xf32>) -> tensor<4x64xbf16>
  return %2 : tensor<4x64xbf16>
}

// -----

// Rank-3 rows: the domain keeps every leading dimension; a [1,1,C] weight is
// a vector shared by all rows and fuses.

// CHECK-LABEL: func.func @rank3
//  CHECK-NEXT:   graph.fusion(%{{.+}}, %{{.+}} : tensor<2x4x64xf16>, tensor<1x1x64xf16>)
//  CHECK-SAME:     attributes {domain = array<i64: 2, 4, 64>, fused_ops = 5 : i64
//       CHECK:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
func.func @rank3(%x: tensor<2x4x64xf16>, %w: tensor<1x1x64xf16>) -> tensor<2x4x64xf16> {
  %0 = graph.reduce_max %x {axis = 2 : i64} : (tensor<2x4x64xf16>) -> tensor<2x4x1xf16>
  %1 = graph.broadcast %0 : (tensor<2x4x1xf16>) -> tensor<2x4x64xf16>
  %2 = graph.sub %x, %1 : (tensor<2x4x64xf16>, tensor<2x4x64xf16>) -> tensor<2x4x64xf16>
  %3 = graph.broadcast %w : (tensor<1x1x64xf16>) -> tensor<2x4x64xf16>
  %4 = graph.mul %2, %3 : (tensor<2x4x64xf16>, tensor<2x4x64xf16>) -> tensor<2x4x64xf16>
  return %4 : tensor<2x4x64xf16>
}

// -----

// Operators on different row lengths cannot share a row domain: two fusions.

// CHECK-LABEL: func.func @different_rows
//  CHECK-NEXT:   %[[A:.+]] = graph.fusion(%{{.+}} : tensor<4x64xf32>)
//  CHECK-SAME:     domain = array<i64: 4, 64>
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.exp
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[B:.+]] = graph.fusion(%{{.+}} : tensor<4x32xf32>)
//  CHECK-SAME:     domain = array<i64: 4, 32>
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.neg
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[A]], %[[B]]
func.func @different_rows(%x: tensor<4x64xf32>, %y: tensor<4x32xf32>) -> (tensor<4x64xf32>, tensor<4x32xf32>) {
  %0 = graph.exp %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.neg %y : (tensor<4x32xf32>) -> tensor<4x32xf32>
  return %0, %1 : tensor<4x64xf32>, tensor<4x32xf32>
}
