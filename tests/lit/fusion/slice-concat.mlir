// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s

// Slices and concatenations along the LAST axis are row ops: they fuse with
// their elementwise neighbours, and values narrower than the domain's rows
// ("parts" of rows) live in the same fusion. The fusion's domain is the
// widest row among the values it computes. Inputs may broadcast along row
// dims (cos [T, 1, D] in a [T, H, D] domain). Slices and concatenations
// along a row dim gather rows: they join their consumers' row kernels over
// their results' rows, and their operands come from memory.

// Rotary embedding, x * cos + rotate_half(x) * sin with rotate_half(x) =
// concat(-x[..., 64:], x[..., :64]): ONE fusion over [4, 2, 128] holding the
// two broadcasts of the [4, 1, 128] tables, both slices, the negation and
// the concatenation.
// CHECK-LABEL: func.func @rope
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x2x128xf32>, %[[COS:.+]]: tensor<4x1x128xf32>, %[[SIN:.+]]: tensor<4x1x128xf32>)
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%[[COS]], %[[SIN]], %[[X]] : tensor<4x1x128xf32>, tensor<4x1x128xf32>, tensor<4x2x128xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 2, 128>, fused_ops = 9 : i64, hbm_bytes_saved = 61440 : i64}
//  CHECK-SAME:     -> tensor<4x2x128xf32> {
//  CHECK-NEXT:   ^bb0(%[[BC:.+]]: tensor<4x1x128xf32>, %[[BS:.+]]: tensor<4x1x128xf32>, %[[BX:.+]]: tensor<4x2x128xf32>):
//  CHECK-NEXT:     %[[C:.+]] = graph.broadcast %[[BC]] : (tensor<4x1x128xf32>) -> tensor<4x2x128xf32>
//  CHECK-NEXT:     %[[S:.+]] = graph.broadcast %[[BS]] : (tensor<4x1x128xf32>) -> tensor<4x2x128xf32>
//  CHECK-NEXT:     %[[HI:.+]] = graph.slice %[[BX]] {axis = 2 : i64, end = 128 : i64, start = 64 : i64}
//  CHECK-NEXT:     %[[NEG:.+]] = graph.neg %[[HI]] : (tensor<4x2x64xf32>) -> tensor<4x2x64xf32>
//  CHECK-NEXT:     %[[LO:.+]] = graph.slice %[[BX]] {axis = 2 : i64, end = 64 : i64, start = 0 : i64}
//  CHECK-NEXT:     %[[ROT:.+]] = graph.concat %[[NEG]], %[[LO]] {axis = 2 : i64}
//  CHECK-NEXT:     %[[XC:.+]] = graph.mul %[[BX]], %[[C]]
//  CHECK-NEXT:     %[[RS:.+]] = graph.mul %[[ROT]], %[[S]]
//  CHECK-NEXT:     %[[Y:.+]] = graph.add %[[XC]], %[[RS]]
//  CHECK-NEXT:     graph.yield %[[Y]] : tensor<4x2x128xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]
//   CHECK-NOT: graph.
// hbm_bytes_saved (full 4x2x128xf32 = 4096 B, a 4x2x64 part 2048 B):
//   cos, sin read once: 0; x read by both slices and the mul: 4096 * 2 = 8192
//   two broadcasts, concat, two muls: 5 * 4096 * 2 = 40960
//   two slices and the neg: 3 * 2048 * 2 = 12288; add returned: 0
//   total = 8192 + 40960 + 12288 = 61440
func.func @rope(%x: tensor<4x2x128xf32>, %cos: tensor<4x1x128xf32>, %sin: tensor<4x1x128xf32>) -> tensor<4x2x128xf32> {
  %c = graph.broadcast %cos : (tensor<4x1x128xf32>) -> tensor<4x2x128xf32>
  %s = graph.broadcast %sin : (tensor<4x1x128xf32>) -> tensor<4x2x128xf32>
  %hi = graph.slice %x {axis = 2 : i64, start = 64 : i64, end = 128 : i64} : (tensor<4x2x128xf32>) -> tensor<4x2x64xf32>
  %n = graph.neg %hi : (tensor<4x2x64xf32>) -> tensor<4x2x64xf32>
  %lo = graph.slice %x {axis = 2 : i64, start = 0 : i64, end = 64 : i64} : (tensor<4x2x128xf32>) -> tensor<4x2x64xf32>
  %rot = graph.concat %n, %lo {axis = 2 : i64} : (tensor<4x2x64xf32>, tensor<4x2x64xf32>) -> tensor<4x2x128xf32>
  %a = graph.mul %x, %c : (tensor<4x2x128xf32>, tensor<4x2x128xf32>) -> tensor<4x2x128xf32>
  %b = graph.mul %rot, %s : (tensor<4x2x128xf32>, tensor<4x2x128xf32>) -> tensor<4x2x128xf32>
  %y = graph.add %a, %b : (tensor<4x2x128xf32>, tensor<4x2x128xf32>) -> tensor<4x2x128xf32>
  return %y : tensor<4x2x128xf32>
}

// -----

// A part of a row can be a fusion result: the fusion over [4, 64] yields
// tensor<4x24xf32>.
// CHECK-LABEL: func.func @part_result
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%{{.+}} : tensor<4x64xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 64>, fused_ops = 3 : i64, hbm_bytes_saved = 2816 : i64} -> tensor<4x24xf32> {
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.exp
//  CHECK-NEXT:     graph.slice %{{.+}} {axis = 1 : i64, end = 32 : i64, start = 8 : i64} : (tensor<4x64xf32>) -> tensor<4x24xf32>
//  CHECK-NEXT:     graph.neg %{{.+}} : (tensor<4x24xf32>) -> tensor<4x24xf32>
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]
// hbm_bytes_saved: exp 1024 * 2 + slice 384 * 2 + neg (returned) 0 = 2816.
func.func @part_result(%x: tensor<4x64xf32>) -> tensor<4x24xf32> {
  %0 = graph.exp %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.slice %0 {axis = 1 : i64, start = 8 : i64, end = 32 : i64} : (tensor<4x64xf32>) -> tensor<4x24xf32>
  %2 = graph.neg %1 : (tensor<4x24xf32>) -> tensor<4x24xf32>
  return %2 : tensor<4x24xf32>
}

// -----

// The domain is the widest row: exp works on [4, 64] parts of the [4, 128]
// rows the concatenation builds, and both inputs are parts of rows.
// CHECK-LABEL: func.func @widest_row
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%{{.+}}, %{{.+}} : tensor<4x64xf32>, tensor<4x64xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 128>, fused_ops = 3 : i64, hbm_bytes_saved = 6144 : i64} -> tensor<4x128xf32> {
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.exp
//  CHECK-NEXT:     graph.concat
//  CHECK-NEXT:     graph.neg
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]
func.func @widest_row(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>) -> tensor<4x128xf32> {
  %0 = graph.exp %a : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.concat %0, %b {axis = 1 : i64} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x128xf32>
  %2 = graph.neg %1 : (tensor<4x128xf32>) -> tensor<4x128xf32>
  return %2 : tensor<4x128xf32>
}

// -----

// Slices and concatenations compose: a slice of an elementwise op on a
// three-piece concatenation is still one fusion over the concatenation's
// row, [4, 64].
// CHECK-LABEL: func.func @nested
//  CHECK-NEXT:   %[[F:.+]] = graph.fusion(%{{.+}}, %{{.+}}, %{{.+}} : tensor<4x16xf32>, tensor<4x32xf32>, tensor<4x16xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 64>, fused_ops = 4 : i64
//  CHECK-SAME:     -> tensor<4x48xf32> {
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.concat
//  CHECK-NEXT:     graph.concat
//  CHECK-NEXT:     graph.exp
//  CHECK-NEXT:     graph.slice
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]
//   CHECK-NOT: graph.fusion
func.func @nested(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>, %c: tensor<4x32xf32>) -> tensor<4x48xf32> {
  %0 = graph.concat %b, %c {axis = 1 : i64} : (tensor<4x16xf32>, tensor<4x32xf32>) -> tensor<4x48xf32>
  %1 = graph.concat %a, %0 {axis = 1 : i64} : (tensor<4x16xf32>, tensor<4x48xf32>) -> tensor<4x64xf32>
  %2 = graph.exp %1 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %3 = graph.slice %2 {axis = 1 : i64, start = 8 : i64, end = 56 : i64} : (tensor<4x64xf32>) -> tensor<4x48xf32>
  return %3 : tensor<4x48xf32>
}

// -----

// A slice along axis 0 (rows) gathers rows, like a transpose of row dims:
// it joins its consumer's row kernel over the slice's rows, and its
// operand comes from memory, made by another kernel.
// CHECK-LABEL: func.func @row_slice
//  CHECK-NEXT:   %[[E:.+]] = graph.fusion(%{{.+}} : tensor<4x64xf32>) attributes {domain = array<i64: 4, 64>, fused_ops = 1 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.exp
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[N:.+]] = graph.fusion(%[[E]] : tensor<4x64xf32>) attributes {domain = array<i64: 2, 64>, fused_ops = 2 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.slice %{{.+}} {axis = 0 : i64, end = 3 : i64, start = 1 : i64}
//  CHECK-NEXT:     graph.neg
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[N]]
func.func @row_slice(%x: tensor<4x64xf32>) -> tensor<2x64xf32> {
  %0 = graph.exp %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.slice %0 {axis = 0 : i64, start = 1 : i64, end = 3 : i64} : (tensor<4x64xf32>) -> tensor<2x64xf32>
  %2 = graph.neg %1 : (tensor<2x64xf32>) -> tensor<2x64xf32>
  return %2 : tensor<2x64xf32>
}

// -----

// A concatenation along a row dim (axis 1 of 3) gathers rows, like a row
// slice: it joins its consumer's row kernel over the concatenation's rows
// ([2, 6, 64]), each row read from the piece that holds it; its pieces come
// from memory (exp's kernel, and the input).
// CHECK-LABEL: func.func @row_concat
//  CHECK-NEXT:   %[[E:.+]] = graph.fusion(%{{.+}} : tensor<2x4x64xf32>) attributes {domain = array<i64: 2, 4, 64>, fused_ops = 1 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.exp
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[N:.+]] = graph.fusion(%[[E]], %{{.+}} : tensor<2x4x64xf32>, tensor<2x2x64xf32>) attributes {domain = array<i64: 2, 6, 64>, fused_ops = 2 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.concat %{{.+}}, %{{.+}} {axis = 1 : i64}
//  CHECK-NEXT:     graph.neg
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[N]]
func.func @row_concat(%x: tensor<2x4x64xf32>, %y: tensor<2x2x64xf32>) -> tensor<2x6x64xf32> {
  %0 = graph.exp %x : (tensor<2x4x64xf32>) -> tensor<2x4x64xf32>
  %1 = graph.concat %0, %y {axis = 1 : i64} : (tensor<2x4x64xf32>, tensor<2x2x64xf32>) -> tensor<2x6x64xf32>
  %2 = graph.neg %1 : (tensor<2x6x64xf32>) -> tensor<2x6x64xf32>
  return %2 : tensor<2x6x64xf32>
}

// -----

// Inputs broadcast along any row dims: a [2, 1, 4, 64] and a [1, 3, 1, 64]
// table and a [4, 1] per-row scalar all fuse with a [2, 3, 4, 64] domain.
// CHECK-LABEL: func.func @broadcast_rows
//  CHECK-NEXT:   graph.fusion({{.+}}) attributes {domain = array<i64: 2, 3, 4, 64>, fused_ops = 6 : i64
//   CHECK-NOT: graph.fusion
func.func @broadcast_rows(%x: tensor<2x3x4x64xf32>, %a: tensor<2x1x4x64xf32>, %b: tensor<1x3x1x64xf32>, %c: tensor<4x1xf32>) -> tensor<2x3x4x64xf32> {
  %0 = graph.broadcast %a : (tensor<2x1x4x64xf32>) -> tensor<2x3x4x64xf32>
  %1 = graph.broadcast %b : (tensor<1x3x1x64xf32>) -> tensor<2x3x4x64xf32>
  %2 = graph.broadcast %c : (tensor<4x1xf32>) -> tensor<2x3x4x64xf32>
  %3 = graph.mul %x, %0 : (tensor<2x3x4x64xf32>, tensor<2x3x4x64xf32>) -> tensor<2x3x4x64xf32>
  %4 = graph.mul %3, %1 : (tensor<2x3x4x64xf32>, tensor<2x3x4x64xf32>) -> tensor<2x3x4x64xf32>
  %5 = graph.mul %4, %2 : (tensor<2x3x4x64xf32>, tensor<2x3x4x64xf32>) -> tensor<2x3x4x64xf32>
  return %5 : tensor<2x3x4x64xf32>
}
