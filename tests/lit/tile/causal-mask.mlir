// RUN: tilec-opt --split-input-file --verify-diagnostics --tilec-lower-fusion-to-tile %s | FileCheck %s

// graph.causal_mask becomes tile.causal_mask of the row: element j is 0
// where j <= row % period + offset. Offset = keys - period, less the
// column shift it is read at: here the mask is the second piece of a
// concatenation (its column c is the domain's 7 + c), so offset = 5 - 4 +
// 7 = 8.
// CHECK-LABEL: func.func @masked_kernel0
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//       CHECK:   %[[X:.+]] = tile.load %arg0[%[[ROW]]] {col_offset = -7 : i64}
//  CHECK-NEXT:   %[[M:.+]] = tile.causal_mask %[[ROW]] {offset = 8 : i64, period = 4 : i64} : tensor<12xf32>
//  CHECK-NEXT:   arith.addf %[[X]], %[[M]] : tensor<12xf32>
//  CHECK-NEXT:   tile.select_cols
func.func @masked(%x: tensor<2x8x5xf32>, %y: tensor<2x8x7xf32>) -> tensor<2x8x12xf32> {
  %0 = graph.fusion(%x, %y : tensor<2x8x5xf32>, tensor<2x8x7xf32>) attributes {domain = array<i64: 2, 8, 12>} -> tensor<2x8x12xf32> {
  ^bb0(%a: tensor<2x8x5xf32>, %b: tensor<2x8x7xf32>):
    %m = graph.causal_mask {period = 4 : i64} : tensor<2x8x5xf32>
    %s = graph.add %a, %m : (tensor<2x8x5xf32>, tensor<2x8x5xf32>) -> tensor<2x8x5xf32>
    %t = graph.concat %b, %s {axis = 2 : i64} : (tensor<2x8x7xf32>, tensor<2x8x5xf32>) -> tensor<2x8x12xf32>
    graph.yield %t : tensor<2x8x12xf32>
  }
  return %0 : tensor<2x8x12xf32>
}

// -----

func.func @bad_period() -> tensor<6x5xf32> {
  // expected-error @+1 {{period 4 must divide the rows and be at most the keys}}
  %m = graph.causal_mask {period = 4 : i64} : tensor<6x5xf32>
  return %m : tensor<6x5xf32>
}

// -----

func.func @bad_type() -> tensor<6x8xbf16> {
  // expected-error @+1 {{result must be an f32 tensor [..., rows, keys]}}
  %m = graph.causal_mask {period = 6 : i64} : tensor<6x8xbf16>
  return %m : tensor<6x8xbf16>
}

// -----

func.func @bad_tile(%row: index) -> tensor<8xf16> {
  // expected-error @+1 {{result must be an f32 row tile}}
  %m = tile.causal_mask %row {offset = 0 : i64, period = 6 : i64} : tensor<8xf16>
  return %m : tensor<8xf16>
}

// -----

// With `past`, the runs follow the first `past` keys (a cache of 10 rows,
// 4 + 3 filled): offset = past, not keys - period.
// CHECK-LABEL: func.func @cache_kernel0
//       CHECK:   tile.causal_mask %{{.+}} {offset = 4 : i64, period = 3 : i64} : tensor<10xf32>
func.func @cache(%x: tensor<6x10xf32>) -> tensor<6x10xf32> {
  %0 = graph.fusion(%x : tensor<6x10xf32>) attributes {domain = array<i64: 6, 10>} -> tensor<6x10xf32> {
  ^bb0(%a: tensor<6x10xf32>):
    %m = graph.causal_mask {past = 4 : i64, period = 3 : i64} : tensor<6x10xf32>
    %s = graph.add %a, %m : (tensor<6x10xf32>, tensor<6x10xf32>) -> tensor<6x10xf32>
    graph.yield %s : tensor<6x10xf32>
  }
  return %0 : tensor<6x10xf32>
}

// -----

func.func @bad_past() -> tensor<6x10xf32> {
  // expected-error @+1 {{past 8 must be -1 or in [0, 7]}}
  %m = graph.causal_mask {past = 8 : i64, period = 3 : i64} : tensor<6x10xf32>
  return %m : tensor<6x10xf32>
}
