// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s

// graph.matmul fuses with its elementwise consumers (the GEMM epilogue:
// elementwise math, casts, broadcasts, constants) into one graph.fusion whose
// domain is the product's [rows..., N]. A matmul never absorbs its operands'
// producers (no prologue: the GEMM reads its operands from memory), a fusion
// holds one matmul, or two that read one lhs in one layout with equal result
// types (SwiGLU's gate and up projections: one lhs panel for both), no
// epilogue op reads a matmul operand (the GEMM reads it as panels, not rows),
// reductions after a matmul stay in a fusion of their own. A batched
// product (a rhs [batch..., K, N] with the lhs's batch dims) is a GEMM
// fusion too, its domain [batch..., M, N], and so is a transposed lhs
// with batch dims [batch..., K, M].

// Linear + bias + GELU: one fusion of four ops, the matmul first.
// hbm_bytes_saved: three 256x1024 bf16 intermediates (matmul, broadcast,
// add), each one write plus one read: 3 * 2 * 524288 = 3145728.
// CHECK-LABEL: func.func @bias_gelu
//  CHECK-SAME:   (%[[X:[^:]+]]: tensor<256x512xbf16>, %[[W:[^:]+]]: tensor<1024x512xbf16>, %[[B:[^:]+]]: tensor<1024xbf16>)
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%[[X]], %[[W]], %[[B]] : tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>)
//  CHECK-SAME:     attributes {domain = array<i64: 256, 1024>, fused_ops = 4 : i64, hbm_bytes_saved = 3145728 : i64}
//  CHECK-SAME:     -> tensor<256x1024xbf16> {
//  CHECK-NEXT:   ^bb0(%[[BX:[^:]+]]: tensor<256x512xbf16>, %[[BW:[^:]+]]: tensor<1024x512xbf16>, %[[BB:[^:]+]]: tensor<1024xbf16>):
//  CHECK-NEXT:     %[[MM:.+]] = graph.matmul %[[BX]], %[[BW]] {transpose_b = true}
//  CHECK-NEXT:     %[[BC:.+]] = graph.broadcast %[[BB]]
//  CHECK-NEXT:     %[[ADD:.+]] = graph.add %[[MM]], %[[BC]]
//  CHECK-NEXT:     %[[G:.+]] = graph.gelu %[[ADD]]
//  CHECK-NEXT:     graph.yield %[[G]] : tensor<256x1024xbf16>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]] : tensor<256x1024xbf16>
//   CHECK-NOT: graph.
func.func @bias_gelu(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %b: tensor<1024xbf16>) -> tensor<256x1024xbf16> {
  %0 = graph.matmul %x, %w {transpose_b = true} : (tensor<256x512xbf16>, tensor<1024x512xbf16>) -> tensor<256x1024xbf16>
  %1 = graph.broadcast %b : (tensor<1024xbf16>) -> tensor<256x1024xbf16>
  %2 = graph.add %0, %1 : (tensor<256x1024xbf16>, tensor<256x1024xbf16>) -> tensor<256x1024xbf16>
  %3 = graph.gelu %2 : (tensor<256x1024xbf16>) -> tensor<256x1024xbf16>
  return %3 : tensor<256x1024xbf16>
}

// -----

// Residual add and a cast: one fusion; the residual row is a fusion input.
// hbm_bytes_saved: two 64x128 f32 intermediates * 2 * 32768 = 131072.
// CHECK-LABEL: func.func @residual_cast
//  CHECK-SAME:   (%[[X:[^:]+]]: tensor<64x256xbf16>, %[[W:[^:]+]]: tensor<256x128xbf16>, %[[R:[^:]+]]: tensor<64x128xf32>)
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%[[X]], %[[W]], %[[R]] : tensor<64x256xbf16>, tensor<256x128xbf16>, tensor<64x128xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 64, 128>, fused_ops = 3 : i64, hbm_bytes_saved = 131072 : i64}
//  CHECK-NEXT:   ^bb0(%[[BX:[^:]+]]: tensor<64x256xbf16>, %[[BW:[^:]+]]: tensor<256x128xbf16>, %[[BR:[^:]+]]: tensor<64x128xf32>):
//  CHECK-NEXT:     %[[MM:.+]] = graph.matmul %[[BX]], %[[BW]] : (tensor<64x256xbf16>, tensor<256x128xbf16>) -> tensor<64x128xf32>
//  CHECK-NEXT:     %[[ADD:.+]] = graph.add %[[MM]], %[[BR]]
//  CHECK-NEXT:     %[[C:.+]] = graph.cast %[[ADD]] : (tensor<64x128xf32>) -> tensor<64x128xbf16>
//  CHECK-NEXT:     graph.yield %[[C]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]
func.func @residual_cast(%x: tensor<64x256xbf16>, %w: tensor<256x128xbf16>, %r: tensor<64x128xf32>) -> tensor<64x128xbf16> {
  %0 = graph.matmul %x, %w : (tensor<64x256xbf16>, tensor<256x128xbf16>) -> tensor<64x128xf32>
  %1 = graph.add %0, %r : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %2 = graph.cast %1 : (tensor<64x128xf32>) -> tensor<64x128xbf16>
  return %2 : tensor<64x128xbf16>
}

// -----

// Attention scores: the scale (constant + broadcast + mul) joins the matmul;
// the softmax (row reductions) is a second fusion reading the product.
// CHECK-LABEL: func.func @scores_softmax
//  CHECK-SAME:   (%[[Q:[^:]+]]: tensor<64x64xf32>, %[[K:[^:]+]]: tensor<128x64xf32>)
//  CHECK-NEXT:   %[[S:.+]] = graph.fusion(%[[Q]], %[[K]] : tensor<64x64xf32>, tensor<128x64xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 64, 128>, fused_ops = 3 : i64, hbm_bytes_saved = 131072 : i64}
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     %[[MM:.+]] = graph.matmul %{{[^,]+}}, %{{[^ ]+}} {transpose_b = true}
//  CHECK-NEXT:     graph.constant 1.250000e-01 : tensor<f32>
//  CHECK-NEXT:     %[[BC:.+]] = graph.broadcast
//  CHECK-NEXT:     %[[SC:.+]] = graph.mul %[[MM]], %[[BC]]
//  CHECK-NEXT:     graph.yield %[[SC]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[P:.+]] = graph.fusion(%[[S]] : tensor<64x128xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 64, 128>, fused_ops = 7 : i64
//  CHECK-NEXT:   ^bb0
//   CHECK-NOT:     graph.matmul
//       CHECK:     graph.reduce_max
//   CHECK-NOT:     graph.matmul
//       CHECK:     graph.reduce_sum
//   CHECK-NOT:     graph.matmul
//       CHECK:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[P]]
func.func @scores_softmax(%q: tensor<64x64xf32>, %k: tensor<128x64xf32>) -> tensor<64x128xf32> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<64x64xf32>, tensor<128x64xf32>) -> tensor<64x128xf32>
  %c = graph.constant 1.250000e-01 : tensor<f32>
  %cb = graph.broadcast %c : (tensor<f32>) -> tensor<64x128xf32>
  %ss = graph.mul %s, %cb : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %m = graph.reduce_max %ss {axis = 1 : i64} : (tensor<64x128xf32>) -> tensor<64x1xf32>
  %mb = graph.broadcast %m : (tensor<64x1xf32>) -> tensor<64x128xf32>
  %d = graph.sub %ss, %mb : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %e = graph.exp %d : (tensor<64x128xf32>) -> tensor<64x128xf32>
  %t = graph.reduce_sum %e {axis = 1 : i64} : (tensor<64x128xf32>) -> tensor<64x1xf32>
  %tb = graph.broadcast %t : (tensor<64x1xf32>) -> tensor<64x128xf32>
  %p = graph.div %e, %tb : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  return %p : tensor<64x128xf32>
}

// -----

// An RMS-norm-like row op (reduce + mul) producing the matmul's lhs stays in
// its own fusion: no prologue. The matmul's fusion reads its result.
// CHECK-LABEL: func.func @norm_then_matmul
//  CHECK-SAME:   (%[[X:[^:]+]]: tensor<32x256xf32>, %[[W:[^:]+]]: tensor<256x512xf32>)
//  CHECK-NEXT:   %[[N:.+]] = graph.fusion(%[[X]] : tensor<32x256xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 32, 256>, fused_ops = 5 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.mul
//  CHECK-NEXT:     graph.reduce_mean
//  CHECK-NEXT:     graph.rsqrt
//  CHECK-NEXT:     graph.broadcast
//  CHECK-NEXT:     %[[Y:.+]] = graph.mul
//  CHECK-NEXT:     graph.yield %[[Y]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[M:.+]] = graph.fusion(%[[N]], %[[W]] : tensor<32x256xf32>, tensor<256x512xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 32, 512>, fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64}
//  CHECK-NEXT:   ^bb0(%[[BN:[^:]+]]: tensor<32x256xf32>, %[[BW:[^:]+]]: tensor<256x512xf32>):
//  CHECK-NEXT:     %[[MM:.+]] = graph.matmul %[[BN]], %[[BW]]
//  CHECK-NEXT:     graph.yield %[[MM]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[M]]
func.func @norm_then_matmul(%x: tensor<32x256xf32>, %w: tensor<256x512xf32>) -> tensor<32x512xf32> {
  %0 = graph.mul %x, %x : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xf32>
  %1 = graph.reduce_mean %0 {axis = 1 : i64} : (tensor<32x256xf32>) -> tensor<32x1xf32>
  %2 = graph.rsqrt %1 : (tensor<32x1xf32>) -> tensor<32x1xf32>
  %3 = graph.broadcast %2 : (tensor<32x1xf32>) -> tensor<32x256xf32>
  %4 = graph.mul %x, %3 : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xf32>
  %5 = graph.matmul %4, %w : (tensor<32x256xf32>, tensor<256x512xf32>) -> tensor<32x512xf32>
  return %5 : tensor<32x512xf32>
}

// -----

// An elementwise op producing the lhs is not a prologue either, even when
// it is itself the epilogue of another matmul: gelu(x @ w1) @ w2 is two
// GEMM fusions, the gelu in the first.
// CHECK-LABEL: func.func @mlp_chain
//  CHECK-NEXT:   %[[H:.+]] = graph.fusion(%{{[^,]+}}, %{{[^ ]+}} : tensor<32x64xbf16>, tensor<64x128xbf16>)
//  CHECK-SAME:     attributes {domain = array<i64: 32, 128>, fused_ops = 2 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     %[[A:.+]] = graph.matmul
//  CHECK-NEXT:     %[[G:.+]] = graph.gelu %[[A]]
//  CHECK-NEXT:     graph.yield %[[G]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[O:.+]] = graph.fusion(%[[H]], %{{[^ ]+}} : tensor<32x128xbf16>, tensor<128x64xbf16>)
//  CHECK-SAME:     attributes {domain = array<i64: 32, 64>, fused_ops = 1 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     %[[B:.+]] = graph.matmul
//  CHECK-NEXT:     graph.yield %[[B]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[O]]
func.func @mlp_chain(%x: tensor<32x64xbf16>, %w1: tensor<64x128xbf16>, %w2: tensor<128x64xbf16>) -> tensor<32x64xbf16> {
  %0 = graph.matmul %x, %w1 : (tensor<32x64xbf16>, tensor<64x128xbf16>) -> tensor<32x128xbf16>
  %1 = graph.gelu %0 : (tensor<32x128xbf16>) -> tensor<32x128xbf16>
  %2 = graph.matmul %1, %w2 : (tensor<32x128xbf16>, tensor<128x64xbf16>) -> tensor<32x64xbf16>
  return %2 : tensor<32x64xbf16>
}

// -----

// SwiGLU: silu(x @ wg) * (x @ wu). Both products read x in one layout with
// equal result types: one fusion of four ops, both matmuls first.
// hbm_bytes_saved: three 16x512 bf16 intermediates (the two products and
// the silu), each one write plus one read: 3 * 2 * 16384 = 98304, plus x read
// once instead of twice: 8192; 106496 in all.
// CHECK-LABEL: func.func @swiglu
//  CHECK-SAME:   (%[[X:[^:]+]]: tensor<16x256xbf16>, %[[WG:[^:]+]]: tensor<512x256xbf16>, %[[WU:[^:]+]]: tensor<512x256xbf16>)
//  CHECK-NEXT:   %[[Y:.+]] = graph.fusion(%[[X]], %[[WG]], %[[WU]] : tensor<16x256xbf16>, tensor<512x256xbf16>, tensor<512x256xbf16>)
//  CHECK-SAME:     attributes {domain = array<i64: 16, 512>, fused_ops = 4 : i64, hbm_bytes_saved = 106496 : i64}
//  CHECK-SAME:     -> tensor<16x512xbf16> {
//  CHECK-NEXT:   ^bb0(%[[BX:[^:]+]]: tensor<16x256xbf16>, %[[BWG:[^:]+]]: tensor<512x256xbf16>, %[[BWU:[^:]+]]: tensor<512x256xbf16>):
//  CHECK-NEXT:     %[[MG:.+]] = graph.matmul %[[BX]], %[[BWG]] {transpose_b = true}
//  CHECK-NEXT:     %[[MU:.+]] = graph.matmul %[[BX]], %[[BWU]] {transpose_b = true}
//  CHECK-NEXT:     %[[S:.+]] = graph.silu %[[MG]]
//  CHECK-NEXT:     %[[P:.+]] = graph.mul %[[S]], %[[MU]]
//  CHECK-NEXT:     graph.yield %[[P]] : tensor<16x512xbf16>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[Y]]
//   CHECK-NOT:   graph.fusion
func.func @swiglu(%x: tensor<16x256xbf16>, %wg: tensor<512x256xbf16>, %wu: tensor<512x256xbf16>) -> tensor<16x512xbf16> {
  %g = graph.matmul %x, %wg {transpose_b = true} : (tensor<16x256xbf16>, tensor<512x256xbf16>) -> tensor<16x512xbf16>
  %u = graph.matmul %x, %wu {transpose_b = true} : (tensor<16x256xbf16>, tensor<512x256xbf16>) -> tensor<16x512xbf16>
  %s = graph.silu %g : (tensor<16x512xbf16>) -> tensor<16x512xbf16>
  %y = graph.mul %s, %u : (tensor<16x512xbf16>, tensor<16x512xbf16>) -> tensor<16x512xbf16>
  return %y : tensor<16x512xbf16>
}

// -----

// Two products of different lhs (x and z) do not share a kernel: the first
// stays alone and the mul joins the second, reading the first as an input.
// CHECK-LABEL: func.func @two_lhs
//  CHECK-SAME:   (%[[X:[^:]+]]: tensor<16x256xbf16>, %[[Z:[^:]+]]: tensor<16x256xbf16>, %[[WG:[^:]+]]: tensor<512x256xbf16>, %[[WU:[^:]+]]: tensor<512x256xbf16>)
//  CHECK-NEXT:   %[[G:.+]] = graph.fusion(%[[X]], %[[WG]] : tensor<16x256xbf16>, tensor<512x256xbf16>)
//  CHECK-SAME:     attributes {domain = array<i64: 16, 512>, fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64}
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.matmul
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[Y:.+]] = graph.fusion(%[[Z]], %[[WU]], %[[G]] : tensor<16x256xbf16>, tensor<512x256xbf16>, tensor<16x512xbf16>)
//  CHECK-SAME:     attributes {domain = array<i64: 16, 512>, fused_ops = 2 : i64
//  CHECK-NEXT:   ^bb0(%[[BZ:[^:]+]]: tensor<16x256xbf16>, %[[BWU:[^:]+]]: tensor<512x256xbf16>, %[[BG:[^:]+]]: tensor<16x512xbf16>):
//  CHECK-NEXT:     %[[MU:.+]] = graph.matmul %[[BZ]], %[[BWU]] {transpose_b = true}
//  CHECK-NEXT:     %[[P:.+]] = graph.mul %[[BG]], %[[MU]]
//  CHECK-NEXT:     graph.yield %[[P]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[Y]]
func.func @two_lhs(%x: tensor<16x256xbf16>, %z: tensor<16x256xbf16>, %wg: tensor<512x256xbf16>, %wu: tensor<512x256xbf16>) -> tensor<16x512xbf16> {
  %g = graph.matmul %x, %wg {transpose_b = true} : (tensor<16x256xbf16>, tensor<512x256xbf16>) -> tensor<16x512xbf16>
  %u = graph.matmul %z, %wu {transpose_b = true} : (tensor<16x256xbf16>, tensor<512x256xbf16>) -> tensor<16x512xbf16>
  %y = graph.mul %g, %u : (tensor<16x512xbf16>, tensor<16x512xbf16>) -> tensor<16x512xbf16>
  return %y : tensor<16x512xbf16>
}

// -----

// One lhs, but the rhs layouts differ ([N, K] and [K, N]): two fusions.
// CHECK-LABEL: func.func @two_layouts
//  CHECK-NEXT:   %[[G:.+]] = graph.fusion(%{{[^,]+}}, %{{[^ ]+}} : tensor<16x256xbf16>, tensor<512x256xbf16>)
//  CHECK-SAME:     fused_ops = 1 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.matmul %{{[^,]+}}, %{{[^ ]+}} {transpose_b = true}
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   graph.fusion(%{{[^,]+}}, %{{[^,]+}}, %[[G]] : tensor<16x256xbf16>, tensor<256x512xbf16>, tensor<16x512xbf16>)
//  CHECK-SAME:     fused_ops = 2 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.matmul %{{[^,]+}}, %{{[^ ]+}} : (tensor<16x256xbf16>, tensor<256x512xbf16>)
//  CHECK-NEXT:     graph.mul
//  CHECK-NEXT:     graph.yield
func.func @two_layouts(%x: tensor<16x256xbf16>, %wg: tensor<512x256xbf16>, %wu: tensor<256x512xbf16>) -> tensor<16x512xbf16> {
  %g = graph.matmul %x, %wg {transpose_b = true} : (tensor<16x256xbf16>, tensor<512x256xbf16>) -> tensor<16x512xbf16>
  %u = graph.matmul %x, %wu : (tensor<16x256xbf16>, tensor<256x512xbf16>) -> tensor<16x512xbf16>
  %y = graph.mul %g, %u : (tensor<16x512xbf16>, tensor<16x512xbf16>) -> tensor<16x512xbf16>
  return %y : tensor<16x512xbf16>
}

// -----

// One lhs and layout, but an f32 and a bf16 product: two fusions (the cast
// joins the bf16 product's).
// CHECK-LABEL: func.func @two_result_types
//  CHECK-NEXT:   %[[G:.+]] = graph.fusion
//  CHECK-SAME:     fused_ops = 1 : i64
//  CHECK-SAME:     -> tensor<16x512xf32>
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.matmul {{.+}} -> tensor<16x512xf32>
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   graph.fusion({{.+}}, %[[G]] :
//  CHECK-SAME:     fused_ops = 3 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.matmul {{.+}} -> tensor<16x512xbf16>
//  CHECK-NEXT:     graph.cast
//  CHECK-NEXT:     graph.mul
//  CHECK-NEXT:     graph.yield
func.func @two_result_types(%x: tensor<16x256xbf16>, %wg: tensor<512x256xbf16>, %wu: tensor<512x256xbf16>) -> tensor<16x512xf32> {
  %g = graph.matmul %x, %wg {transpose_b = true} : (tensor<16x256xbf16>, tensor<512x256xbf16>) -> tensor<16x512xf32>
  %u = graph.matmul %x, %wu {transpose_b = true} : (tensor<16x256xbf16>, tensor<512x256xbf16>) -> tensor<16x512xbf16>
  %uc = graph.cast %u : (tensor<16x512xbf16>) -> tensor<16x512xf32>
  %y = graph.mul %g, %uc : (tensor<16x512xf32>, tensor<16x512xf32>) -> tensor<16x512xf32>
  return %y : tensor<16x512xf32>
}

// -----

// At most two products a kernel: (x @ wa) * (x @ wb) + (x @ wc) fuses the
// first two with the mul and the add; x @ wc is a fusion of its own.
// CHECK-LABEL: func.func @three_products
//  CHECK-SAME:   (%[[X:[^:]+]]: tensor<16x256xbf16>, %[[WA:[^:]+]]: tensor<512x256xbf16>, %[[WB:[^:]+]]: tensor<512x256xbf16>, %[[WC:[^:]+]]: tensor<512x256xbf16>)
//  CHECK-NEXT:   %[[C:.+]] = graph.fusion(%[[X]], %[[WC]] : tensor<16x256xbf16>, tensor<512x256xbf16>)
//  CHECK-SAME:     fused_ops = 1 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.matmul
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[Y:.+]] = graph.fusion(%[[X]], %[[WA]], %[[WB]], %[[C]] : tensor<16x256xbf16>, tensor<512x256xbf16>, tensor<512x256xbf16>, tensor<16x512xbf16>)
//  CHECK-SAME:     fused_ops = 4 : i64
//  CHECK-NEXT:   ^bb0(%[[BX:[^:]+]]: tensor<16x256xbf16>, %[[BWA:[^:]+]]: tensor<512x256xbf16>, %[[BWB:[^:]+]]: tensor<512x256xbf16>, %[[BC:[^:]+]]: tensor<16x512xbf16>):
//  CHECK-NEXT:     %[[A:.+]] = graph.matmul %[[BX]], %[[BWA]]
//  CHECK-NEXT:     %[[B:.+]] = graph.matmul %[[BX]], %[[BWB]]
//  CHECK-NEXT:     %[[AB:.+]] = graph.mul %[[A]], %[[B]]
//  CHECK-NEXT:     %[[S:.+]] = graph.add %[[AB]], %[[BC]]
//  CHECK-NEXT:     graph.yield %[[S]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[Y]]
func.func @three_products(%x: tensor<16x256xbf16>, %wa: tensor<512x256xbf16>, %wb: tensor<512x256xbf16>, %wc: tensor<512x256xbf16>) -> tensor<16x512xbf16> {
  %a = graph.matmul %x, %wa {transpose_b = true} : (tensor<16x256xbf16>, tensor<512x256xbf16>) -> tensor<16x512xbf16>
  %b = graph.matmul %x, %wb {transpose_b = true} : (tensor<16x256xbf16>, tensor<512x256xbf16>) -> tensor<16x512xbf16>
  %c = graph.matmul %x, %wc {transpose_b = true} : (tensor<16x256xbf16>, tensor<512x256xbf16>) -> tensor<16x512xbf16>
  %ab = graph.mul %a, %b : (tensor<16x512xbf16>, tensor<16x512xbf16>) -> tensor<16x512xbf16>
  %y = graph.add %ab, %c : (tensor<16x512xbf16>, tensor<16x512xbf16>) -> tensor<16x512xbf16>
  return %y : tensor<16x512xbf16>
}

// -----

// x @ w + w (square w): the epilogue would read w as rows of [M, N] while the
// GEMM reads it as panels: the add gets a fusion of its own.
// CHECK-LABEL: func.func @reads_rhs
//  CHECK-SAME:   (%[[X:[^:]+]]: tensor<64x64xbf16>, %[[W:[^:]+]]: tensor<64x64xbf16>)
//  CHECK-NEXT:   %[[P:.+]] = graph.fusion(%[[X]], %[[W]] : tensor<64x64xbf16>, tensor<64x64xbf16>)
//  CHECK-SAME:     fused_ops = 1 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.matmul
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[S:.+]] = graph.fusion(%[[P]], %[[W]] : tensor<64x64xbf16>, tensor<64x64xbf16>)
//  CHECK-SAME:     fused_ops = 1 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.add
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[S]]
func.func @reads_rhs(%x: tensor<64x64xbf16>, %w: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %0 = graph.matmul %x, %w : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  %1 = graph.add %0, %w : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %1 : tensor<64x64xbf16>
}

// -----

// The same for the lhs, after an epilogue op that does fuse: tanh(x @ w)
// is one GEMM fusion, the add of x another.
// CHECK-LABEL: func.func @reads_lhs
//  CHECK-SAME:   (%[[X:[^:]+]]: tensor<64x64xbf16>, %[[W:[^:]+]]: tensor<64x64xbf16>)
//  CHECK-NEXT:   %[[T:.+]] = graph.fusion(%[[X]], %[[W]] : tensor<64x64xbf16>, tensor<64x64xbf16>)
//  CHECK-SAME:     fused_ops = 2 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.matmul
//  CHECK-NEXT:     graph.tanh
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[S:.+]] = graph.fusion(%[[T]], %[[X]] : tensor<64x64xbf16>, tensor<64x64xbf16>)
//  CHECK-SAME:     fused_ops = 1 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.add
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[S]]
func.func @reads_lhs(%x: tensor<64x64xbf16>, %w: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %0 = graph.matmul %x, %w : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  %t = graph.tanh %0 : (tensor<64x64xbf16>) -> tensor<64x64xbf16>
  %1 = graph.add %t, %x : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %1 : tensor<64x64xbf16>
}

// -----

// A batched product (3-D rhs [B, N, K], transpose_b, as in attention
// scores) is a GEMM fusion over the rows of every batch: the exp joins it.
// hbm_bytes_saved: the 4x16x32 f32 product, one write plus one read:
// 2 * 8192 = 16384.
// CHECK-LABEL: func.func @batched_rhs
//  CHECK-SAME:   (%[[Q:[^:]+]]: tensor<4x16x64xbf16>, %[[K:[^:]+]]: tensor<4x32x64xbf16>)
//  CHECK-NEXT:   %[[S:.+]] = graph.fusion(%[[Q]], %[[K]] : tensor<4x16x64xbf16>, tensor<4x32x64xbf16>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 16, 32>, fused_ops = 2 : i64, hbm_bytes_saved = 16384 : i64} -> tensor<4x16x32xf32> {
//  CHECK-NEXT:   ^bb0(%[[BQ:[^:]+]]: tensor<4x16x64xbf16>, %[[BK:[^:]+]]: tensor<4x32x64xbf16>):
//  CHECK-NEXT:     %[[MM:.+]] = graph.matmul %[[BQ]], %[[BK]] {transpose_b = true} : (tensor<4x16x64xbf16>, tensor<4x32x64xbf16>) -> tensor<4x16x32xf32>
//  CHECK-NEXT:     %[[E:.+]] = graph.exp %[[MM]]
//  CHECK-NEXT:     graph.yield %[[E]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[S]]
//   CHECK-NOT:   graph.fusion
func.func @batched_rhs(%q: tensor<4x16x64xbf16>, %k: tensor<4x32x64xbf16>) -> tensor<4x16x32xf32> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<4x16x64xbf16>, tensor<4x32x64xbf16>) -> tensor<4x16x32xf32>
  %e = graph.exp %s : (tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  return %e : tensor<4x16x32xf32>
}

// -----

// A batched product [4, 64, 32] x [4, 32, 48] + a bias: one fusion of three
// ops with domain [4, 64, 48].
// hbm_bytes_saved: two 4x64x48 bf16 intermediates (matmul, broadcast), each
// one write plus one read: 2 * 2 * 24576 = 98304.
// CHECK-LABEL: func.func @batched_bias
//  CHECK-SAME:   (%[[X:[^:]+]]: tensor<4x64x32xbf16>, %[[W:[^:]+]]: tensor<4x32x48xbf16>, %[[B:[^:]+]]: tensor<48xbf16>)
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%[[X]], %[[W]], %[[B]] : tensor<4x64x32xbf16>, tensor<4x32x48xbf16>, tensor<48xbf16>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 64, 48>, fused_ops = 3 : i64, hbm_bytes_saved = 98304 : i64}
//  CHECK-SAME:     -> tensor<4x64x48xbf16> {
//  CHECK-NEXT:   ^bb0(%[[BX:[^:]+]]: tensor<4x64x32xbf16>, %[[BW:[^:]+]]: tensor<4x32x48xbf16>, %[[BB:[^:]+]]: tensor<48xbf16>):
//  CHECK-NEXT:     %[[MM:.+]] = graph.matmul %[[BX]], %[[BW]] : (tensor<4x64x32xbf16>, tensor<4x32x48xbf16>) -> tensor<4x64x48xbf16>
//  CHECK-NEXT:     %[[BC:.+]] = graph.broadcast %[[BB]] : (tensor<48xbf16>) -> tensor<4x64x48xbf16>
//  CHECK-NEXT:     %[[ADD:.+]] = graph.add %[[MM]], %[[BC]]
//  CHECK-NEXT:     graph.yield %[[ADD]] : tensor<4x64x48xbf16>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]] : tensor<4x64x48xbf16>
//   CHECK-NOT:   graph.
func.func @batched_bias(%x: tensor<4x64x32xbf16>, %w: tensor<4x32x48xbf16>, %b: tensor<48xbf16>) -> tensor<4x64x48xbf16> {
  %0 = graph.matmul %x, %w : (tensor<4x64x32xbf16>, tensor<4x32x48xbf16>) -> tensor<4x64x48xbf16>
  %1 = graph.broadcast %b : (tensor<48xbf16>) -> tensor<4x64x48xbf16>
  %2 = graph.add %0, %1 : (tensor<4x64x48xbf16>, tensor<4x64x48xbf16>) -> tensor<4x64x48xbf16>
  return %2 : tensor<4x64x48xbf16>
}

// -----

// Two batch dims [2, 3]: the domain keeps both.
// CHECK-LABEL: func.func @batched_4d
//  CHECK-NEXT:   graph.fusion(%{{[^,]+}}, %{{[^ ]+}} : tensor<2x3x64x32xbf16>, tensor<2x3x32x48xbf16>)
//  CHECK-SAME:     attributes {domain = array<i64: 2, 3, 64, 48>, fused_ops = 2 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.matmul
//  CHECK-NEXT:     graph.tanh
//  CHECK-NEXT:     graph.yield
func.func @batched_4d(%x: tensor<2x3x64x32xbf16>, %w: tensor<2x3x32x48xbf16>) -> tensor<2x3x64x48xbf16> {
  %0 = graph.matmul %x, %w : (tensor<2x3x64x32xbf16>, tensor<2x3x32x48xbf16>) -> tensor<2x3x64x48xbf16>
  %1 = graph.tanh %0 : (tensor<2x3x64x48xbf16>) -> tensor<2x3x64x48xbf16>
  return %1 : tensor<2x3x64x48xbf16>
}

// -----

// A transposed lhs with batch dims [2, K, M] is a GEMM fusion with the
// result's domain [2, M, N], and takes an epilogue.
// CHECK-LABEL: func.func @batched_transposed_lhs
//  CHECK-NEXT:   graph.fusion(%{{[^,]+}}, %{{[^ ]+}} : tensor<2x64x8xbf16>, tensor<64x32xbf16>)
//  CHECK-SAME:     attributes {domain = array<i64: 2, 8, 32>, fused_ops = 2 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.matmul %{{.+}} {transpose_a = true}
//  CHECK-NEXT:     graph.tanh
//  CHECK-NEXT:     graph.yield
func.func @batched_transposed_lhs(%x: tensor<2x64x8xbf16>, %w: tensor<64x32xbf16>) -> tensor<2x8x32xbf16> {
  %0 = graph.matmul %x, %w {transpose_a = true} : (tensor<2x64x8xbf16>, tensor<64x32xbf16>) -> tensor<2x8x32xbf16>
  %1 = graph.tanh %0 : (tensor<2x8x32xbf16>) -> tensor<2x8x32xbf16>
  return %1 : tensor<2x8x32xbf16>
}

// -----

// A 3-D lhs with a shared 2-D rhs (a Linear layer on [B, S, K]) is a GEMM
// over B * S rows: its domain keeps the batch dims and it takes an epilogue.
// CHECK-LABEL: func.func @linear_3d
//  CHECK-NEXT:   graph.fusion(%{{[^,]+}}, %{{[^ ]+}} : tensor<2x8x64xbf16>, tensor<64x32xbf16>)
//  CHECK-SAME:     attributes {domain = array<i64: 2, 8, 32>, fused_ops = 2 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.matmul
//  CHECK-NEXT:     graph.tanh
//  CHECK-NEXT:     graph.yield
func.func @linear_3d(%x: tensor<2x8x64xbf16>, %w: tensor<64x32xbf16>) -> tensor<2x8x32xbf16> {
  %0 = graph.matmul %x, %w : (tensor<2x8x64xbf16>, tensor<64x32xbf16>) -> tensor<2x8x32xbf16>
  %1 = graph.tanh %0 : (tensor<2x8x32xbf16>) -> tensor<2x8x32xbf16>
  return %1 : tensor<2x8x32xbf16>
}

// -----

// The product is also a result: one fusion with two results (the matmul's
// own row and the epilogue's).
// CHECK-LABEL: func.func @product_and_tanh
//  CHECK-NEXT:   %[[F:.+]]:2 = graph.fusion
//  CHECK-SAME:     attributes {domain = array<i64: 64, 256>, fused_ops = 2 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     %[[MM:.+]] = graph.matmul
//  CHECK-NEXT:     %[[T:.+]] = graph.tanh %[[MM]]
//  CHECK-NEXT:     graph.yield %[[MM]], %[[T]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]#0, %[[F]]#1
func.func @product_and_tanh(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %0 = graph.matmul %x, %w : (tensor<64x128xbf16>, tensor<128x256xbf16>) -> tensor<64x256xf32>
  %1 = graph.tanh %0 : (tensor<64x256xf32>) -> tensor<64x256xf32>
  return %0, %1 : tensor<64x256xf32>, tensor<64x256xf32>
}

// -----

// A projection, its residual add and the add's rms_norm (add_rms_norm after
// a Linear, as decoder_layer's o projection): the add stays the GEMM's
// epilogue (its bf16 sum is a result, stored anyway), but the cast to f32
// and the squares, which only the norm's kernel reads, move into that
// kernel (sinkEpilogueTails): the GEMM kernel stores the bf16 sum alone,
// not also the f32 sum and the f32 squares for the reduction to read back.
// CHECK-LABEL: func.func @linear_add_rms_norm
//  CHECK-SAME:   (%[[X:[^:]+]]: tensor<64x256xbf16>, %[[W:[^:]+]]: tensor<512x256xbf16>, %[[R:[^:]+]]: tensor<64x512xbf16>, %[[G:[^:]+]]: tensor<512xbf16>)
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%[[X]], %[[W]], %[[R]] :
//  CHECK-SAME:     fused_ops = 2 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     %[[MM:.+]] = graph.matmul
//  CHECK-NEXT:     %[[ADD:.+]] = graph.add %[[MM]],
//  CHECK-NEXT:     graph.yield %[[ADD]] : tensor<64x512xbf16>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[N:.+]] = graph.fusion(%[[F]], %[[G]] : tensor<64x512xbf16>, tensor<512xbf16>)
//  CHECK-NEXT:   ^bb0(%[[NS:[^:]+]]: tensor<64x512xbf16>, %{{[^:]+}}: tensor<512xbf16>):
//  CHECK-NEXT:     %[[C:.+]] = graph.cast %[[NS]] : (tensor<64x512xbf16>) -> tensor<64x512xf32>
//  CHECK-NEXT:     %[[SQ:.+]] = graph.mul %[[C]], %[[C]]
//  CHECK-NEXT:     graph.reduce_mean %[[SQ]]
//   CHECK-NOT:     graph.matmul
//       CHECK:   return %[[F]], %[[N]]
func.func @linear_add_rms_norm(%x: tensor<64x256xbf16>, %w: tensor<512x256xbf16>, %r: tensor<64x512xbf16>, %g: tensor<512xbf16>) -> (tensor<64x512xbf16>, tensor<64x512xbf16>) {
  %0 = graph.matmul %x, %w {transpose_b = true} : (tensor<64x256xbf16>, tensor<512x256xbf16>) -> tensor<64x512xbf16>
  %1 = graph.add %0, %r : (tensor<64x512xbf16>, tensor<64x512xbf16>) -> tensor<64x512xbf16>
  %2 = graph.cast %1 : (tensor<64x512xbf16>) -> tensor<64x512xf32>
  %3 = graph.mul %2, %2 : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %4 = graph.reduce_mean %3 {axis = 1 : i64} : (tensor<64x512xf32>) -> tensor<64x1xf32>
  %5 = graph.constant 1.000000e-05 : tensor<f32>
  %6 = graph.broadcast %5 : (tensor<f32>) -> tensor<64x1xf32>
  %7 = graph.add %4, %6 : (tensor<64x1xf32>, tensor<64x1xf32>) -> tensor<64x1xf32>
  %8 = graph.rsqrt %7 : (tensor<64x1xf32>) -> tensor<64x1xf32>
  %9 = graph.broadcast %8 : (tensor<64x1xf32>) -> tensor<64x512xf32>
  %10 = graph.mul %2, %9 : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %11 = graph.cast %g : (tensor<512xbf16>) -> tensor<512xf32>
  %12 = graph.broadcast %11 : (tensor<512xf32>) -> tensor<64x512xf32>
  %13 = graph.mul %10, %12 : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %14 = graph.cast %13 : (tensor<64x512xf32>) -> tensor<64x512xbf16>
  return %1, %14 : tensor<64x512xbf16>, tensor<64x512xbf16>
}
