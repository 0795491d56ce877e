// RUN: tilec-opt --split-input-file --tilec-lower-fusion-to-tile %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-lower-fusion-to-tile=round-every-op=true %s | FileCheck %s --check-prefix=ROUND

// Each graph.fusion becomes a func.func kernel (tile.kernel, tile.domain)
// placed before its host, computing one row: memref arguments (inputs, then
// one per result), tile.load / arith / math / tile.reduce_* / tile.store.
// The fusion itself becomes a tile.launch of that kernel.

// CHECK-LABEL: func.func @rms_norm_kernel0
//  CHECK-SAME:   (%[[X:.+]]: memref<?x64xf32>, %[[W:.+]]: memref<64xf32>, %[[OUT:.+]]: memref<?x64xf32>)
//  CHECK-SAME:   attributes {tile.domain = array<i64: 4, 64>, tile.kernel, tile.row_buffer = {{[0-9]+}} : i64}
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[XT:.+]] = tile.load %[[X]][%[[ROW]]] : memref<?x64xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[WT:.+]] = tile.load %[[W]] : memref<64xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[SQ:.+]] = arith.mulf %[[XT]], %[[XT]] : tensor<64xf32>
//  CHECK-NEXT:   %[[SUM:.+]] = tile.reduce_sum %[[SQ]] : tensor<64xf32> -> f32
//  CHECK-NEXT:   %[[N:.+]] = arith.constant 6.400000e+01 : f32
//  CHECK-NEXT:   %[[MEAN:.+]] = arith.divf %[[SUM]], %[[N]] : f32
//  CHECK-NEXT:   %[[EPS:.+]] = arith.constant 9.99999997E-7 : f32
//  CHECK-NEXT:   %[[VAR:.+]] = arith.addf %[[MEAN]], %[[EPS]] : f32
//  CHECK-NEXT:   %[[INV:.+]] = math.rsqrt %[[VAR]] : f32
//  CHECK-NEXT:   %[[INVT:.+]] = tile.splat %[[INV]] : f32 -> tensor<64xf32>
//  CHECK-NEXT:   %[[NORM:.+]] = arith.mulf %[[XT]], %[[INVT]] : tensor<64xf32>
//  CHECK-NEXT:   %[[Y:.+]] = arith.mulf %[[NORM]], %[[WT]] : tensor<64xf32>
//  CHECK-NEXT:   tile.store %[[Y]], %[[OUT]][%[[ROW]]] : tensor<64xf32> -> memref<?x64xf32>
//  CHECK-NEXT:   return
//  CHECK-NEXT: }
// CHECK-LABEL: func.func @rms_norm
//  CHECK-SAME:   (%[[HX:.+]]: tensor<4x64xf32>, %[[HW:.+]]: tensor<64xf32>)
//  CHECK-NEXT:   %[[L:.+]] = tile.launch @rms_norm_kernel0(%[[HX]], %[[HW]])
//  CHECK-SAME:     {fused_ops = 9 : i64, hbm_bytes_saved = 9344 : i64}
//  CHECK-SAME:     : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
//  CHECK-NEXT:   return %[[L]]
//   CHECK-NOT: graph.
func.func @rms_norm(%arg0: tensor<4x64xf32>, %arg1: tensor<64xf32>) -> tensor<4x64xf32> {
  %0 = graph.fusion(%arg0, %arg1 : tensor<4x64xf32>, tensor<64xf32>) attributes {domain = array<i64: 4, 64>, fused_ops = 9 : i64, hbm_bytes_saved = 9344 : i64} -> tensor<4x64xf32> {
  ^bb0(%arg2: tensor<4x64xf32>, %arg3: tensor<64xf32>):
    %1 = graph.mul %arg2, %arg2 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    %2 = graph.reduce_mean %1 {axis = 1 : i64} : (tensor<4x64xf32>) -> tensor<4x1xf32>
    %3 = graph.constant 9.9999999999999995E-7 : tensor<f32>
    %4 = graph.broadcast %3 : (tensor<f32>) -> tensor<4x1xf32>
    %5 = graph.add %2, %4 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %6 = graph.rsqrt %5 : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %7 = graph.broadcast %6 : (tensor<4x1xf32>) -> tensor<4x64xf32>
    %8 = graph.mul %arg2, %7 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    %9 = graph.broadcast %arg3 : (tensor<64xf32>) -> tensor<4x64xf32>
    %10 = graph.mul %8, %9 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    graph.yield %10 : tensor<4x64xf32>
  }
  return %0 : tensor<4x64xf32>
}

// -----

// 16-bit math runs in f32: bf16 operands are widened with arith.extf. By
// default the f32 result stays in f32 until it is stored (excess precision,
// as XLA and TorchInductor); with round-every-op it is rounded back with
// arith.truncf after every operator (eager PyTorch).

// CHECK-LABEL: func.func @bf16_kernel0
//  CHECK-SAME:   (%[[A:.+]]: memref<?x4096xbf16>, %[[B:.+]]: memref<?x4096xbf16>, %[[OUT:.+]]: memref<?x4096xbf16>)
//       CHECK:   %[[AT:.+]] = tile.load %[[A]][%{{.+}}] : memref<?x4096xbf16> -> tensor<4096xbf16>
//       CHECK:   %[[BT:.+]] = tile.load %[[B]][%{{.+}}] : memref<?x4096xbf16> -> tensor<4096xbf16>
//  CHECK-NEXT:   %[[AW:.+]] = arith.extf %[[AT]] : tensor<4096xbf16> to tensor<4096xf32>
//  CHECK-NEXT:   %[[BW:.+]] = arith.extf %[[BT]] : tensor<4096xbf16> to tensor<4096xf32>
//  CHECK-NEXT:   %[[P:.+]] = arith.mulf %[[AW]], %[[BW]] : tensor<4096xf32>
//  CHECK-NEXT:   %[[E:.+]] = math.exp %[[P]] : tensor<4096xf32>
//  CHECK-NEXT:   %[[EN:.+]] = arith.truncf %[[E]] : tensor<4096xf32> to tensor<4096xbf16>
//  CHECK-NEXT:   tile.store %[[EN]], %[[OUT]][%{{.+}}] : tensor<4096xbf16> -> memref<?x4096xbf16>

// ROUND-LABEL: func.func @bf16_kernel0
//       ROUND:   %[[AW:.+]] = arith.extf %{{.+}} : tensor<4096xbf16> to tensor<4096xf32>
//  ROUND-NEXT:   %[[BW:.+]] = arith.extf %{{.+}} : tensor<4096xbf16> to tensor<4096xf32>
//  ROUND-NEXT:   %[[P:.+]] = arith.mulf %[[AW]], %[[BW]] : tensor<4096xf32>
//  ROUND-NEXT:   %[[PN:.+]] = arith.truncf %[[P]] : tensor<4096xf32> to tensor<4096xbf16>
//  ROUND-NEXT:   %[[PW:.+]] = arith.extf %[[PN]] : tensor<4096xbf16> to tensor<4096xf32>
//  ROUND-NEXT:   %[[E:.+]] = math.exp %[[PW]] : tensor<4096xf32>
//  ROUND-NEXT:   %[[EN:.+]] = arith.truncf %[[E]] : tensor<4096xf32> to tensor<4096xbf16>
//  ROUND-NEXT:   tile.store %[[EN]], %{{.+}}[%{{.+}}] : tensor<4096xbf16> -> memref<?x4096xbf16>
// CHECK-LABEL: func.func @bf16(
//       CHECK:   tile.launch @bf16_kernel0
func.func @bf16(%a: tensor<4x4096xbf16>, %b: tensor<4x4096xbf16>) -> tensor<4x4096xbf16> {
  %0 = graph.fusion(%a, %b : tensor<4x4096xbf16>, tensor<4x4096xbf16>) attributes {domain = array<i64: 4, 4096>} -> tensor<4x4096xbf16> {
  ^bb0(%x: tensor<4x4096xbf16>, %y: tensor<4x4096xbf16>):
    %1 = graph.mul %x, %y : (tensor<4x4096xbf16>, tensor<4x4096xbf16>) -> tensor<4x4096xbf16>
    %2 = graph.exp %1 : (tensor<4x4096xbf16>) -> tensor<4x4096xbf16>
    graph.yield %2 : tensor<4x4096xbf16>
  }
  return %0 : tensor<4x4096xbf16>
}

// -----

// Explicit casts (as in tilec's bf16 examples) are extf/truncf; f16 <-> bf16
// goes through f32. Reductions of 16-bit tiles widen first and produce f32.

// CHECK-LABEL: func.func @casts_kernel0
//       CHECK:   %[[T:.+]] = tile.load %{{.+}}[%{{.+}}] : memref<?x64xbf16> -> tensor<64xbf16>
//  CHECK-NEXT:   %[[W:.+]] = arith.extf %[[T]] : tensor<64xbf16> to tensor<64xf32>
//  CHECK-NEXT:   %[[H1:.+]] = arith.extf %[[T]] : tensor<64xbf16> to tensor<64xf32>
//  CHECK-NEXT:   %[[H:.+]] = arith.truncf %[[H1]] : tensor<64xf32> to tensor<64xf16>
//  CHECK-NEXT:   %[[HW:.+]] = arith.extf %[[H]] : tensor<64xf16> to tensor<64xf32>
//  CHECK-NEXT:   %[[M:.+]] = tile.reduce_max %[[HW]] : tensor<64xf32> -> f32
//  CHECK-NEXT:   tile.store %[[W]], %{{.+}}[%{{.+}}] : tensor<64xf32> -> memref<?x64xf32>
//  CHECK-NEXT:   %[[MH:.+]] = arith.truncf %[[M]] : f32 to f16
//  CHECK-NEXT:   tile.store %[[MH]], %{{.+}}[%{{.+}}] : f16 -> memref<?x1xf16>
// ROUND-LABEL: func.func @casts_kernel0
//       ROUND:   %[[M:.+]] = tile.reduce_max %{{.+}} : tensor<64xf32> -> f32
//  ROUND-NEXT:   %[[MH:.+]] = arith.truncf %[[M]] : f32 to f16
//  ROUND-NEXT:   tile.store %{{.+}}, %{{.+}}[%{{.+}}] : tensor<64xf32> -> memref<?x64xf32>
//  ROUND-NEXT:   tile.store %[[MH]], %{{.+}}[%{{.+}}] : f16 -> memref<?x1xf16>
func.func @casts(%a: tensor<4x64xbf16>) -> (tensor<4x64xf32>, tensor<4x1xf16>) {
  %0:2 = graph.fusion(%a : tensor<4x64xbf16>) attributes {domain = array<i64: 4, 64>} -> tensor<4x64xf32>, tensor<4x1xf16> {
  ^bb0(%x: tensor<4x64xbf16>):
    %1 = graph.cast %x : (tensor<4x64xbf16>) -> tensor<4x64xf32>
    %2 = graph.cast %x : (tensor<4x64xbf16>) -> tensor<4x64xf16>
    %3 = graph.reduce_max %2 {axis = 1 : i64} : (tensor<4x64xf16>) -> tensor<4x1xf16>
    graph.yield %1, %3 : tensor<4x64xf32>, tensor<4x1xf16>
  }
  return %0#0, %0#1 : tensor<4x64xf32>, tensor<4x1xf16>
}

// -----

// Two results (add_rms_norm's residual and output): one buffer argument per
// result after the inputs, one tile.store per result, a two-result launch.

// CHECK-LABEL: func.func @two_results_kernel0
//  CHECK-SAME:   (%[[A:.+]]: memref<?x64xf32>, %[[B:.+]]: memref<?x64xf32>, %[[R0:.+]]: memref<?x64xf32>, %[[R1:.+]]: memref<?x64xf32>)
//       CHECK:   %[[S:.+]] = arith.addf
//       CHECK:   %[[E:.+]] = math.exp %[[S]]
//  CHECK-NEXT:   tile.store %[[S]], %[[R0]]
//  CHECK-NEXT:   tile.store %[[E]], %[[R1]]
//  CHECK-NEXT:   return
// CHECK-LABEL: func.func @two_results(
//  CHECK-NEXT:   %[[L:.+]]:2 = tile.launch @two_results_kernel0(%{{.+}}, %{{.+}}) : (tensor<4x64xf32>, tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>)
//  CHECK-NEXT:   return %[[L]]#1, %[[L]]#0
func.func @two_results(%a: tensor<4x64xf32>, %b: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
  %0:2 = graph.fusion(%a, %b : tensor<4x64xf32>, tensor<4x64xf32>) attributes {domain = array<i64: 4, 64>} -> tensor<4x64xf32>, tensor<4x64xf32> {
  ^bb0(%x: tensor<4x64xf32>, %y: tensor<4x64xf32>):
    %1 = graph.add %x, %y : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    %2 = graph.exp %1 : (tensor<4x64xf32>) -> tensor<4x64xf32>
    graph.yield %1, %2 : tensor<4x64xf32>, tensor<4x64xf32>
  }
  return %0#1, %0#0 : tensor<4x64xf32>, tensor<4x64xf32>
}

// -----

// Argument roles: a per-row scalar input is memref<?x1xT> loaded with the
// row, a shared scalar memref<T> loaded without; a [1, C] vector is a shared
// memref<C x T>; broadcasting scalars to tiles is tile.splat.

// CHECK-LABEL: func.func @roles_kernel0
//  CHECK-SAME:   (%[[X:.+]]: memref<?x64xf32>, %[[RS:.+]]: memref<?x1xf32>, %[[S:.+]]: memref<f32>, %[[V:.+]]: memref<64xf32>, %[[OUT:.+]]: memref<?x64xf32>)
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[XT:.+]] = tile.load %[[X]][%[[ROW]]] : memref<?x64xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[RST:.+]] = tile.load %[[RS]][%[[ROW]]] : memref<?x1xf32> -> f32
//  CHECK-NEXT:   %[[ST:.+]] = tile.load %[[S]] : memref<f32> -> f32
//  CHECK-NEXT:   %[[VT:.+]] = tile.load %[[V]] : memref<64xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[M:.+]] = arith.mulf %[[RST]], %[[ST]] : f32
//  CHECK-NEXT:   %[[MT:.+]] = tile.splat %[[M]] : f32 -> tensor<64xf32>
//  CHECK-NEXT:   %[[A:.+]] = arith.addf %[[XT]], %[[MT]] : tensor<64xf32>
//  CHECK-NEXT:   %[[B:.+]] = arith.subf %[[A]], %[[VT]] : tensor<64xf32>
//  CHECK-NEXT:   tile.store %[[B]], %[[OUT]][%[[ROW]]]
func.func @roles(%x: tensor<4x64xf32>, %rs: tensor<4x1xf32>, %s: tensor<f32>, %v: tensor<1x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.fusion(%x, %rs, %s, %v : tensor<4x64xf32>, tensor<4x1xf32>, tensor<f32>, tensor<1x64xf32>) attributes {domain = array<i64: 4, 64>} -> tensor<4x64xf32> {
  ^bb0(%a: tensor<4x64xf32>, %b: tensor<4x1xf32>, %c: tensor<f32>, %d: tensor<1x64xf32>):
    %1 = graph.broadcast %c : (tensor<f32>) -> tensor<4x1xf32>
    %2 = graph.mul %b, %1 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %3 = graph.broadcast %2 : (tensor<4x1xf32>) -> tensor<4x64xf32>
    %4 = graph.add %a, %3 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    %5 = graph.broadcast %d : (tensor<1x64xf32>) -> tensor<4x64xf32>
    %6 = graph.sub %4, %5 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    graph.yield %6 : tensor<4x64xf32>
  }
  return %0 : tensor<4x64xf32>
}

// -----

// Composite operators expand in f32: sigmoid = 1 / (1 + exp(-x)),
// silu = x * sigmoid(x); reduce_mean = reduce_sum / C.

// CHECK-LABEL: func.func @composite_kernel0
//       CHECK:   %[[X:.+]] = tile.load
//  CHECK-NEXT:   %[[N:.+]] = arith.negf %[[X]] : tensor<32xf32>
//  CHECK-NEXT:   %[[E:.+]] = math.exp %[[N]]
//  CHECK-NEXT:   %[[ONE:.+]] = arith.constant dense<1.000000e+00> : tensor<32xf32>
//  CHECK-NEXT:   %[[D:.+]] = arith.addf %[[ONE]], %[[E]]
//  CHECK-NEXT:   %[[ONE2:.+]] = arith.constant dense<1.000000e+00> : tensor<32xf32>
//  CHECK-NEXT:   %[[SIG:.+]] = arith.divf %[[ONE2]], %[[D]]
//  CHECK-NEXT:   %[[SILU:.+]] = arith.mulf %[[X]], %[[SIG]]
//  CHECK-NEXT:   %[[SUM:.+]] = tile.reduce_sum %[[SILU]] : tensor<32xf32> -> f32
//  CHECK-NEXT:   %[[C:.+]] = arith.constant 3.200000e+01 : f32
//  CHECK-NEXT:   %[[MEAN:.+]] = arith.divf %[[SUM]], %[[C]] : f32
//  CHECK-NEXT:   tile.store %[[MEAN]], %{{.+}}[%{{.+}}] : f32 -> memref<?x1xf32>
func.func @composite(%x: tensor<8x32xf32>) -> tensor<8x1xf32> {
  %0 = graph.fusion(%x : tensor<8x32xf32>) attributes {domain = array<i64: 8, 32>} -> tensor<8x1xf32> {
  ^bb0(%a: tensor<8x32xf32>):
    %1 = graph.silu %a : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %2 = graph.reduce_mean %1 {axis = 1 : i64} : (tensor<8x32xf32>) -> tensor<8x1xf32>
    graph.yield %2 : tensor<8x1xf32>
  }
  return %0 : tensor<8x1xf32>
}

// -----

// Kernels are numbered per host function, in order, and inserted before it.

// CHECK-LABEL: func.func @two_fusions_kernel0
//       CHECK:   math.exp
// CHECK-LABEL: func.func @two_fusions_kernel1
//       CHECK:   arith.negf
// CHECK-LABEL: func.func @two_fusions(
//  CHECK-NEXT:   %[[A:.+]] = tile.launch @two_fusions_kernel0
//  CHECK-NEXT:   %[[B:.+]] = tile.launch @two_fusions_kernel1(%[[A]])
//  CHECK-NEXT:   return %[[B]]
func.func @two_fusions(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.fusion(%x : tensor<4x64xf32>) attributes {domain = array<i64: 4, 64>} -> tensor<4x64xf32> {
  ^bb0(%a: tensor<4x64xf32>):
    %1 = graph.exp %a : (tensor<4x64xf32>) -> tensor<4x64xf32>
    graph.yield %1 : tensor<4x64xf32>
  }
  %2 = graph.fusion(%0 : tensor<4x64xf32>) attributes {domain = array<i64: 4, 64>} -> tensor<4x64xf32> {
  ^bb0(%a: tensor<4x64xf32>):
    %3 = graph.neg %a : (tensor<4x64xf32>) -> tensor<4x64xf32>
    graph.yield %3 : tensor<4x64xf32>
  }
  return %2 : tensor<4x64xf32>
}

// -----

// Results shared by all rows (exp of a weight vector [C], a scalar [], both
// also returned) get rank-1 / rank-0 buffers and are stored without a row;
// per-row results keep the row index.

// CHECK-LABEL: func.func @shared_results_kernel0
//  CHECK-SAME:   (%[[W:.+]]: memref<64xf32>, %[[S:.+]]: memref<f32>, %[[X:.+]]: memref<?x64xf32>, %[[OW:.+]]: memref<64xf32>, %[[OS:.+]]: memref<f32>, %[[OX:.+]]: memref<?x64xf32>)
//  CHECK-SAME:   attributes {tile.domain = array<i64: 4, 64>, tile.kernel, tile.row_buffer = {{[0-9]+}} : i64}
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[WT:.+]] = tile.load %[[W]] : memref<64xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[ST:.+]] = tile.load %[[S]] : memref<f32> -> f32
//  CHECK-NEXT:   %[[XT:.+]] = tile.load %[[X]][%[[ROW]]] : memref<?x64xf32> -> tensor<64xf32>
//  CHECK-NEXT:   %[[E:.+]] = math.exp %[[WT]] : tensor<64xf32>
//  CHECK-NEXT:   %[[N:.+]] = arith.negf %[[ST]] : f32
//  CHECK-NEXT:   %[[Y:.+]] = arith.mulf %[[XT]], %[[E]] : tensor<64xf32>
//  CHECK-NEXT:   %[[NT:.+]] = tile.splat %[[N]] : f32 -> tensor<64xf32>
//  CHECK-NEXT:   %[[Z:.+]] = arith.addf %[[Y]], %[[NT]] : tensor<64xf32>
//  CHECK-NEXT:   tile.store %[[E]], %[[OW]] : tensor<64xf32> -> memref<64xf32>
//  CHECK-NEXT:   tile.store %[[N]], %[[OS]] : f32 -> memref<f32>
//  CHECK-NEXT:   tile.store %[[Z]], %[[OX]][%[[ROW]]] : tensor<64xf32> -> memref<?x64xf32>
//  CHECK-NEXT:   return
// CHECK-LABEL: func.func @shared_results(
//  CHECK-NEXT:   %[[L:.+]]:3 = tile.launch @shared_results_kernel0(%{{.+}}, %{{.+}}, %{{.+}}) : (tensor<64xf32>, tensor<f32>, tensor<4x64xf32>) -> (tensor<64xf32>, tensor<f32>, tensor<4x64xf32>)
//  CHECK-NEXT:   return %[[L]]#2, %[[L]]#0, %[[L]]#1
func.func @shared_results(%x: tensor<4x64xf32>, %w: tensor<64xf32>, %s: tensor<f32>) -> (tensor<4x64xf32>, tensor<64xf32>, tensor<f32>) {
  %0:3 = graph.fusion(%w, %s, %x : tensor<64xf32>, tensor<f32>, tensor<4x64xf32>) attributes {domain = array<i64: 4, 64>} -> tensor<64xf32>, tensor<f32>, tensor<4x64xf32> {
  ^bb0(%a: tensor<64xf32>, %b: tensor<f32>, %c: tensor<4x64xf32>):
    %1 = graph.exp %a : (tensor<64xf32>) -> tensor<64xf32>
    %2 = graph.neg %b : (tensor<f32>) -> tensor<f32>
    %3 = graph.broadcast %1 : (tensor<64xf32>) -> tensor<4x64xf32>
    %4 = graph.mul %c, %3 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    %5 = graph.broadcast %2 : (tensor<f32>) -> tensor<4x64xf32>
    %6 = graph.add %4, %5 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
    graph.yield %1, %2, %6 : tensor<64xf32>, tensor<f32>, tensor<4x64xf32>
  }
  return %0#2, %0#0, %0#1 : tensor<4x64xf32>, tensor<64xf32>, tensor<f32>
}
