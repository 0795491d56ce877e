// Rows of one element (domain [R, 1]): a per-row scalar [R, 1] is then also
// a full row, with tile type tensor<1xT>, while tile reductions produce a
// scalar f32. The lowering splats the (converted) reduction result back to
// tensor<1xT> with tile.splat, so it mixes with the other [R, 1] values.
// (This once produced invalid IR: 'arith.addf' op requires the same type
// for all operands and results, (tensor<1xf32>, f32) -> tensor<1xf32>.)

// RUN: tilec-opt --split-input-file --tilec-fuse --tilec-lower-fusion-to-tile %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-fuse --tilec-lower-fusion-to-tile --tilec-schedule-row-kernels --tilec-distribute-row-tiles %s | FileCheck %s --check-prefix=GPU

// Every row-reducing example compiles at --cols=1.
// RUN: tilec --cols=1 --dtype=f32 rms_norm | FileCheck %s --check-prefix=PTX -DNAME=rms_norm
// RUN: tilec --cols=1 --dtype=bf16 rms_norm | FileCheck %s --check-prefix=PTX -DNAME=rms_norm
// RUN: tilec --cols=1 --dtype=f32 softmax | FileCheck %s --check-prefix=PTX -DNAME=softmax
// RUN: tilec --cols=1 --dtype=bf16 layer_norm | FileCheck %s --check-prefix=PTX -DNAME=layer_norm
// RUN: tilec --cols=1 --dtype=f16 add_rms_norm | FileCheck %s --check-prefix=PTX -DNAME=add_rms_norm
// PTX:     .visible .entry [[NAME]]_kernel0(
// PTX-NOT: .entry

// CHECK-LABEL: func.func @single_column_kernel0
//  CHECK-SAME:   (%[[X:.+]]: memref<?x1xf32>, %[[OUT:.+]]: memref<?x1xf32>)
//  CHECK-SAME:   tile.domain = array<i64: 4, 1>
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[XT:.+]] = tile.load %[[X]][%[[ROW]]] : memref<?x1xf32> -> tensor<1xf32>
//  CHECK-NEXT:   %[[S:.+]] = tile.reduce_sum %[[XT]] : tensor<1xf32> -> f32
//  CHECK-NEXT:   %[[ST:.+]] = tile.splat %[[S]] : f32 -> tensor<1xf32>
//  CHECK-NEXT:   %[[Y:.+]] = arith.addf %[[XT]], %[[ST]] : tensor<1xf32>
//  CHECK-NEXT:   tile.store %[[Y]], %[[OUT]][%[[ROW]]] : tensor<1xf32> -> memref<?x1xf32>
//  CHECK-NEXT:   return
// CHECK-LABEL: func.func @single_column(
//  CHECK-NEXT:   tile.launch @single_column_kernel0
// hbm_bytes_saved = x 16 * (2 readers - 1) + reduce_sum 16 * (1 + 1) = 48.
//  CHECK-SAME:   {fused_ops = 2 : i64, hbm_bytes_saved = 48 : i64}

// One thread per row, one element: the reduction is a one-lane
// vector.reduction, broadcast back to a vector.
// GPU-LABEL: gpu.func @single_column_kernel0
//  GPU-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 128 : i64, stream_blocks = 0 : i64, threads_per_row = 1 : i64, vector_width = 1 : i64}
//       GPU:   %[[V:.+]] = scf.if
//       GPU:   vector.load {{.+}} : memref<?x1xf32>, vector<1xf32>
//       GPU:   %[[R:.+]] = vector.reduction <add>, %[[V]] : vector<1xf32> into f32
//  GPU-NEXT:   %[[B:.+]] = vector.broadcast %[[R]] : f32 to vector<1xf32>
//  GPU-NEXT:   %[[Y:.+]] = arith.addf %[[V]], %[[B]] : vector<1xf32>
//       GPU:   vector.store %[[Y]]
func.func @single_column(%x: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %0 = graph.reduce_sum %x {axis = 1 : i64} : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %1 = graph.add %x, %0 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  return %1 : tensor<4x1xf32>
}

// -----

// 16-bit rows: the f32 reduction stays in f32 (excess precision) and is
// splatted; reduce_max has no division; reduce_mean divides by C = 1. The
// result is rounded to bf16 where it is stored.
// CHECK-LABEL: func.func @single_column_bf16_kernel0
//       CHECK:   %[[XT:.+]] = tile.load %{{.+}}[%{{.+}}] : memref<?x1xbf16> -> tensor<1xbf16>
//  CHECK-NEXT:   %[[XW:.+]] = arith.extf %[[XT]] : tensor<1xbf16> to tensor<1xf32>
//  CHECK-NEXT:   %[[M:.+]] = tile.reduce_max %[[XW]] : tensor<1xf32> -> f32
//  CHECK-NEXT:   %[[MT:.+]] = tile.splat %[[M]] : f32 -> tensor<1xf32>
//       CHECK:   %[[S:.+]] = tile.reduce_sum %{{.+}} : tensor<1xf32> -> f32
//  CHECK-NEXT:   %[[C:.+]] = arith.constant 1.000000e+00 : f32
//  CHECK-NEXT:   %[[MEAN:.+]] = arith.divf %[[S]], %[[C]] : f32
//  CHECK-NEXT:   %[[MEANT:.+]] = tile.splat %[[MEAN]] : f32 -> tensor<1xf32>
//       CHECK:   %[[R:.+]] = arith.truncf %{{.+}} : tensor<1xf32> to tensor<1xbf16>
//  CHECK-NEXT:   tile.store %[[R]], %{{.+}}[%{{.+}}] : tensor<1xbf16> -> memref<?x1xbf16>
//  CHECK-NEXT:   return
func.func @single_column_bf16(%x: tensor<8x1xbf16>) -> tensor<8x1xbf16> {
  %0 = graph.reduce_max %x {axis = 1 : i64} : (tensor<8x1xbf16>) -> tensor<8x1xbf16>
  %1 = graph.sub %x, %0 : (tensor<8x1xbf16>, tensor<8x1xbf16>) -> tensor<8x1xbf16>
  %2 = graph.reduce_mean %1 {axis = 1 : i64} : (tensor<8x1xbf16>) -> tensor<8x1xbf16>
  %3 = graph.add %1, %2 : (tensor<8x1xbf16>, tensor<8x1xbf16>) -> tensor<8x1xbf16>
  return %3 : tensor<8x1xbf16>
}
