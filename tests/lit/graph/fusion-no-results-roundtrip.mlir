// A graph.fusion with no results prints without `->` (the assembly format
// makes `-> type($results)` optional) and parses back. tilec-fuse no longer
// creates such fusions: groups whose results nobody outside reads are dead
// and erased.

// RUN: tilec-opt %s | tilec-opt | FileCheck %s
// RUN: tilec-opt --verify-roundtrip %s > /dev/null
// RUN: tilec-opt --tilec-fuse %s | tilec-opt | FileCheck %s --check-prefix=FUSED

// CHECK-LABEL: func.func @no_results
//  CHECK-NEXT:   graph.fusion(%{{.+}} : tensor<4x64xf32>) {
//  CHECK-NEXT:   ^bb0(%[[X:.+]]: tensor<4x64xf32>):
//  CHECK-NEXT:     graph.exp %[[X]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
// (Written in generic form, as the custom form once had no spelling for it.)
func.func @no_results(%a: tensor<4x64xf32>) {
  "graph.fusion"(%a) ({
  ^bb0(%x: tensor<4x64xf32>):
    %0 = graph.exp %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
    "graph.yield"() : () -> ()
  }) : (tensor<4x64xf32>) -> ()
  return
}

// The custom form, with attributes and without inputs.
// CHECK-LABEL: func.func @custom_form
//  CHECK-NEXT:   graph.fusion(%{{.+}} : tensor<4x64xf32>) attributes {fused_ops = 1 : i64} {
//       CHECK:   graph.fusion {
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
func.func @custom_form(%a: tensor<4x64xf32>) {
  graph.fusion(%a : tensor<4x64xf32>) attributes {fused_ops = 1 : i64} {
  ^bb0(%x: tensor<4x64xf32>):
    %0 = graph.exp %x : (tensor<4x64xf32>) -> tensor<4x64xf32>
    graph.yield
  }
  graph.fusion {
    graph.yield
  }
  return
}

// An unused graph.exp is erased instead of becoming a fusion with no
// results; the live graph.neg gets its own fusion.
// FUSED-LABEL: func.func @dead_op
//  FUSED-SAME:   (%[[A:.+]]: tensor<4x64xf32>)
//   FUSED-NOT:   graph.exp
//       FUSED:   %[[F:.+]] = graph.fusion(%[[A]] : tensor<4x64xf32>) attributes {domain = array<i64: 4, 64>, fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<4x64xf32> {
//  FUSED-NEXT:   ^bb0(%[[X:.+]]: tensor<4x64xf32>):
//  FUSED-NEXT:     %[[N:.+]] = graph.neg %[[X]]
//  FUSED-NEXT:     graph.yield %[[N]]
//  FUSED-NEXT:   }
//  FUSED-NEXT:   return %[[F]]
//   FUSED-NOT:   graph.exp
func.func @dead_op(%a: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.exp %a : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.neg %a : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %1 : tensor<4x64xf32>
}

// A dead group of several operators (exp feeds neg, neither is read) is
// erased whole: no fusion is left.
// FUSED-LABEL: func.func @dead_group
//  FUSED-SAME:   (%[[A:.+]]: tensor<4x64xf32>)
//   FUSED-NOT:   graph.
//       FUSED:   return %[[A]]
func.func @dead_group(%a: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.exp %a : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = graph.neg %0 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %a : tensor<4x64xf32>
}
