// RUN: tilec-opt --tilec-distribute-row-tiles %s | FileCheck %s

// l2_prefetch_first with l2_prefetch_rows = 6 (DistributeRowTiles.cpp,
// prefetchRowsAhead with 0 blocks ahead): the CTAs of the first 6 row
// blocks, which no CTA ahead prefetches for, prefetch their own row's
// lines too, before the rows 6 blocks ahead and before any load. The own
// row's guard adds "block row < 6" to the line's own checks; nothing else
// differs from the lines ahead (distribute-l2-prefetch-rows.mlir).

// CHECK-LABEL: gpu.func @rms_norm_kernel0(
// CHECK-SAME:    %[[X:[^:]+]]: memref<?x1000xf32>
// CHECK:         %[[BASE:.+]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:         %[[BLOCKROW:.+]] = arith.subi
// CHECK:         %[[OWN:.+]] = arith.addi %[[BLOCKROW]], %c0{{.*}} : index
// CHECK:         %[[FIRST:.+]] = arith.cmpi ult, %[[BLOCKROW]], %c6 : index
// CHECK:         %[[Q:.+]] = arith.divui %{{.+}}, %c33 : index
// CHECK:         %[[R:.+]] = arith.addi %[[OWN]], %[[Q]] : index
// CHECK:         %[[LINECHECKS:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK:         %[[GUARD:.+]] = arith.andi %[[FIRST]], %[[LINECHECKS]] : i1
// CHECK:         %[[OK:.+]] = arith.andi %[[GUARD]], %{{.+}} : i1
// CHECK:         scf.if %[[OK]] {
// CHECK:           nvvm.prefetch level = L2, %{{.+}} {tilec.ahead_of_wait}
// CHECK:         }
// CHECK-NOT:     vector.load
// CHECK:         arith.addi %{{.+}}, %c6{{.*}} : index
// CHECK-NOT:     vector.load
// CHECK:         scf.if
// CHECK:           nvvm.prefetch level = L2, %{{.+}} {tilec.ahead_of_wait}
// CHECK:         }
// CHECK:         vector.load %[[X]]
// CHECK-NOT:     nvvm.prefetch
// CHECK:         gpu.return

module {
  func.func @rms_norm_kernel0(%arg0: memref<?x1000xf32>, %arg1: memref<1000xf32>, %arg2: memref<?x1000xf32>) attributes {tile.domain = array<i64: 4096, 1000>, tile.kernel, tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, l2_prefetch_first = 1 : i64, l2_prefetch_rows = 6 : i64, rows_per_block = 1 : i64, threads_per_row = 128 : i64, vector_width = 4 : i64}} {
    %cst = arith.constant 9.99999997E-7 : f32
    %cst_0 = arith.constant 1.000000e+03 : f32
    %0 = tile.row_id
    %1 = tile.load %arg0[%0] : memref<?x1000xf32> -> tensor<1000xf32>
    %3 = arith.mulf %1, %1 : tensor<1000xf32>
    %4 = tile.reduce_sum %3 : tensor<1000xf32> -> f32
    %5 = arith.divf %4, %cst_0 : f32
    %6 = arith.addf %5, %cst : f32
    %7 = math.rsqrt %6 : f32
    %8 = tile.splat %7 : f32 -> tensor<1000xf32>
    %9 = arith.mulf %1, %8 : tensor<1000xf32>
    %2 = tile.load %arg1 : memref<1000xf32> -> tensor<1000xf32>
    %10 = arith.mulf %9, %2 : tensor<1000xf32>
    tile.store %10, %arg2[%0] : tensor<1000xf32> -> memref<?x1000xf32>
    return
  }
}
