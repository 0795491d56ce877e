// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s

// A reduction along axis 0 (not the last axis) has no row domain: it gets a
// fusion of its own WITHOUT a `domain` attribute, and the row operators
// before and after it form separate row fusions.

// CHECK-LABEL: func.func @column_sum
//  CHECK-SAME:   (%[[X:.+]]: tensor<4x64xf32>, %[[Y:.+]]: tensor<4x64xf32>)
//  CHECK-NEXT:   %[[PRE:.+]] = graph.fusion(%[[X]] : tensor<4x64xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 64>, fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64}
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.exp
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[RED:.+]] = graph.fusion(%[[PRE]] : tensor<4x64xf32>)
//  CHECK-SAME:     attributes {fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<1x64xf32>
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.reduce_sum %{{.+}} {axis = 0 : i64} : (tensor<4x64xf32>) -> tensor<1x64xf32>
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[POST:.+]] = graph.fusion(%[[RED]], %[[Y]] : tensor<1x64xf32>, tensor<4x64xf32>)
//  CHECK-SAME:     attributes {domain = array<i64: 4, 64>, fused_ops = 3 : i64, hbm_bytes_saved = 4096 : i64}
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.broadcast %{{.+}} : (tensor<1x64xf32>) -> tensor<4x64xf32>
//  CHECK-NEXT:     graph.mul
//  CHECK-NEXT:     graph.neg
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[POST]]
// The domain-less fusion still records fused_ops and hbm_bytes_saved.
// hbm_bytes_saved of the last fusion: its inputs are each read once (0);
// broadcast 1024 * (1 + 1) + mul 1024 * (1 + 1) + neg (returned) 0 = 4096.
func.func @column_sum(%x: tensor<4x64xf32>, %y: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.exp %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.reduce_sum %0 {axis = 0 : i64} : (tensor<4x64xf32>) -> tensor<1x64xf32>
  %2 = graph.broadcast %1 : (tensor<1x64xf32>) -> tensor<4x64xf32>
  %3 = graph.mul %2, %y : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %4 = graph.neg %3 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %4 : tensor<4x64xf32>
}

// -----

// Merging %0 into the final add would make a cycle through the axis-0
// reduction (fusion{exp, add} -> reduce -> fusion{exp, add}), so exp stays in
// its own fusion and feeds both the reduction and the add.

// CHECK-LABEL: func.func @would_cycle
//  CHECK-NEXT:   %[[E:.+]] = graph.fusion(%{{.+}} : tensor<4x64xf32>)
//  CHECK-SAME:     domain = array<i64: 4, 64>, fused_ops = 1 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.exp
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[R:.+]] = graph.fusion(%[[E]] : tensor<4x64xf32>)
//   CHECK-NOT:     domain
//  CHECK-SAME:     -> tensor<1x64xf32>
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.reduce_sum
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[A:.+]] = graph.fusion(%[[R]], %[[E]] : tensor<1x64xf32>, tensor<4x64xf32>)
//  CHECK-SAME:     domain = array<i64: 4, 64>, fused_ops = 2 : i64
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.broadcast
//  CHECK-NEXT:     graph.add
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[A]]
func.func @would_cycle(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.exp %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.reduce_sum %0 {axis = 0 : i64} : (tensor<4x64xf32>) -> tensor<1x64xf32>
  %2 = graph.broadcast %1 : (tensor<1x64xf32>) -> tensor<4x64xf32>
  %3 = graph.add %0, %2 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %3 : tensor<4x64xf32>
}

// -----

// Dynamic shapes have no row domain either: every operator is alone.

// CHECK-LABEL: func.func @dynamic_rows
//  CHECK-NEXT:   %[[A:.+]] = graph.fusion(%{{.+}}, %{{.+}} : tensor<?x64xf32>, tensor<?x64xf32>)
//  CHECK-SAME:     attributes {fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64}
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.add
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[B:.+]] = graph.fusion(%[[A]] : tensor<?x64xf32>)
//  CHECK-SAME:     attributes {fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64}
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.exp
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[B]]
func.func @dynamic_rows(%a: tensor<?x64xf32>, %b: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = graph.add %a, %b : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  %1 = graph.exp %0 : (tensor<?x64xf32>) -> tensor<?x64xf32>
  return %1 : tensor<?x64xf32>
}
