// RUN: tilec-opt --tilec-lower-fusion-to-tile --tilec-schedule-row-kernels %s | FileCheck %s
// RUN: tilec-opt --tilec-lower-fusion-to-tile --tilec-schedule-row-kernels="few-rows=64" %s | FileCheck %s --check-prefix=FEW

// The fused bf16 RMSNorm that `tilec --emit=fused --rows=4 --cols=4096
// --dtype=bf16 rms_norm` produces: bf16 buffers, the graph.casts become
// arith.extf to f32 and one arith.truncf before the store, and the schedule
// moves 16-byte vectors of 8 bf16 with 512 threads per row (a kernel of one
// reduction over rows of 128 vectors or more: one vector per thread, the
// whole row in one CTA). few-rows is off by default, so these 4 rows get the
// schedule of many rows; with few-rows=64 (FEW) they are few, and few rows
// take one vector a thread too.

// FEW-LABEL: func.func @rms_norm_kernel0
//  FEW-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}}
//       FEW:   tile.reduce_sum

// CHECK-LABEL: func.func @rms_norm_kernel0
//  CHECK-SAME:   (%[[X:.+]]: memref<?x4096xbf16>, %[[W:.+]]: memref<4096xbf16>, %[[OUT:.+]]: memref<?x4096xbf16>)
//  CHECK-SAME:   attributes {tile.domain = array<i64: 4, 4096>, tile.kernel,
//  CHECK-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 8 : i64}}
//       CHECK:   %[[XT:.+]] = tile.load %[[X]][%{{.+}}] : memref<?x4096xbf16> -> tensor<4096xbf16>
//       CHECK:   %[[WT:.+]] = tile.load %[[W]] : memref<4096xbf16> -> tensor<4096xbf16>
//       CHECK:   %[[XF:.+]] = arith.extf %[[XT]] : tensor<4096xbf16> to tensor<4096xf32>
//       CHECK:   tile.reduce_sum %{{.+}} : tensor<4096xf32> -> f32
//       CHECK:   arith.constant 4.096000e+03 : f32
//       CHECK:   %[[WF:.+]] = arith.extf %[[WT]] : tensor<4096xbf16> to tensor<4096xf32>
//  CHECK-NEXT:   %[[INV:.+]] = tile.splat %{{.+}} : f32 -> tensor<4096xf32>
//  CHECK-NEXT:   %[[N:.+]] = arith.mulf %[[XF]], %[[INV]] : tensor<4096xf32>
//  CHECK-NEXT:   %[[Y:.+]] = arith.mulf %[[N]], %[[WF]] : tensor<4096xf32>
//  CHECK-NEXT:   %[[YB:.+]] = arith.truncf %[[Y]] : tensor<4096xf32> to tensor<4096xbf16>
//  CHECK-NEXT:   tile.store %[[YB]], %[[OUT]][%{{.+}}] : tensor<4096xbf16> -> memref<?x4096xbf16>
//   CHECK-NOT:   arith.truncf
// CHECK-LABEL: func.func @rms_norm(
//  CHECK-NEXT:   tile.launch @rms_norm_kernel0(%{{.+}}, %{{.+}}) {fused_ops = 12 : i64, hbm_bytes_saved = 884864 : i64} : (tensor<4x4096xbf16>, tensor<4096xbf16>) -> tensor<4x4096xbf16>

func.func @rms_norm(%arg0: tensor<4x4096xbf16>, %arg1: tensor<4096xbf16>) -> tensor<4x4096xbf16> {
  %0 = graph.fusion(%arg0, %arg1 : tensor<4x4096xbf16>, tensor<4096xbf16>) attributes {domain = array<i64: 4, 4096>, fused_ops = 12 : i64, hbm_bytes_saved = 884864 : i64} -> tensor<4x4096xbf16> {
  ^bb0(%arg2: tensor<4x4096xbf16>, %arg3: tensor<4096xbf16>):
    %1 = graph.cast %arg2 : (tensor<4x4096xbf16>) -> tensor<4x4096xf32>
    %2 = graph.mul %1, %1 : (tensor<4x4096xf32>, tensor<4x4096xf32>) -> tensor<4x4096xf32>
    %3 = graph.reduce_mean %2 {axis = 1 : i64} : (tensor<4x4096xf32>) -> tensor<4x1xf32>
    %4 = graph.constant 9.9999999999999995E-7 : tensor<f32>
    %5 = graph.broadcast %4 : (tensor<f32>) -> tensor<4x1xf32>
    %6 = graph.add %3, %5 : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
    %7 = graph.rsqrt %6 : (tensor<4x1xf32>) -> tensor<4x1xf32>
    %8 = graph.cast %arg3 : (tensor<4096xbf16>) -> tensor<4096xf32>
    %9 = graph.broadcast %7 : (tensor<4x1xf32>) -> tensor<4x4096xf32>
    %10 = graph.mul %1, %9 : (tensor<4x4096xf32>, tensor<4x4096xf32>) -> tensor<4x4096xf32>
    %11 = graph.broadcast %8 : (tensor<4096xf32>) -> tensor<4x4096xf32>
    %12 = graph.mul %10, %11 : (tensor<4x4096xf32>, tensor<4x4096xf32>) -> tensor<4x4096xf32>
    %13 = graph.cast %12 : (tensor<4x4096xf32>) -> tensor<4x4096xbf16>
    graph.yield %13 : tensor<4x4096xbf16>
  }
  return %0 : tensor<4x4096xbf16>
}
