// RUN: tilec-opt --tilec-distribute-row-tiles %s | FileCheck %s

// l2_prefetch_rows (DistributeRowTiles.cpp, prefetchRowsAhead): RMSNorm over
// f32 rows of 1000 (4000 bytes: rows not on 128-byte lines) at 128 threads
// a row, one row a CTA, 6 row blocks ahead. Before its row's loads each
// thread takes line e = tid of the row 6 blocks ahead (33 lines: a row
// spans one line more than its 31.25 when it does not start on one): the
// line's address is the row start rounded down to its line plus 128 e, at
// least the row start, and only while below the row's end and the row
// below the row count, so no byte outside the row is named. One prefetch
// of the weight's buffer: none (it has no rows).

// CHECK-LABEL: gpu.func @rms_norm_kernel0(
// CHECK-SAME:    %[[X:[^:]+]]: memref<?x1000xf32>, %[[W:[^:]+]]: memref<1000xf32>, %[[OUT:[^:]+]]: memref<?x1000xf32>)
// CHECK:         %[[ROWS:.+]] = memref.dim %[[X]], %c0
// CHECK:         %[[TID:.+]] = gpu.thread_id x
// CHECK:         %[[BASE:.+]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:         %[[AHEAD:.+]] = arith.addi %{{.+}}, %c6 : index
// CHECK:         %[[Q:.+]] = arith.divui %[[E:.+]], %c33 : index
// CHECK:         %[[R:.+]] = arith.addi %[[AHEAD]], %[[Q]] : index
// CHECK:         %[[LINE:.+]] = arith.remui %[[E]], %c33{{.*}} : index
// CHECK:         %[[ROWOFF:.+]] = arith.muli %[[R]], %c4000{{.*}} : index
// CHECK:         %[[ROWSTART:.+]] = arith.addi %[[BASE]], %[[ROWOFF]] : index
// CHECK:         %[[START:.+]] = arith.addi %[[ROWSTART]], %{{.+}} : index
// CHECK:         %[[END:.+]] = arith.addi %[[ROWSTART]], %{{.+}} : index
// CHECK:         %[[LINEOFF:.+]] = arith.muli %[[LINE]], %c128{{.*}} : index
// CHECK:         %[[DOWN:.+]] = arith.andi %[[START]], %c-128 : index
// CHECK:         %[[AT:.+]] = arith.addi %[[DOWN]], %[[LINEOFF]] : index
// CHECK:         %[[ADDR:.+]] = arith.maxui %[[AT]], %[[START]] : index
// CHECK:         %[[INROW:.+]] = arith.cmpi ult, %[[ADDR]], %[[END]] : index
// CHECK:         %[[LIVE:.+]] = arith.cmpi ult, %[[R]], %[[ROWS]] : index
// CHECK:         %[[BOTH:.+]] = arith.andi %[[LIVE]], %[[INROW]] : i1
// CHECK:         %[[ONE:.+]] = arith.cmpi ult, %[[E]], %c33{{.*}} : index
// CHECK:         %[[OK:.+]] = arith.andi %[[BOTH]], %[[ONE]] : i1
// CHECK:         scf.if %[[OK]] {
// CHECK:           %[[I64:.+]] = arith.index_cast %[[ADDR]] : index to i64
// CHECK:           %[[PTR:.+]] = llvm.inttoptr %[[I64]] : i64 to !llvm.ptr
// CHECK:           nvvm.prefetch level = L2, %[[PTR]] : !llvm.ptr
// CHECK:         }
// CHECK:         vector.load %[[X]]
// CHECK:         vector.load %[[X]]
// CHECK-NOT:     nvvm.prefetch
// CHECK:         gpu.return

module {
  func.func @rms_norm_kernel0(%arg0: memref<?x1000xf32>, %arg1: memref<1000xf32>, %arg2: memref<?x1000xf32>) attributes {tile.domain = array<i64: 4096, 1000>, tile.kernel, tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, l2_prefetch_rows = 6 : i64, rows_per_block = 1 : i64, threads_per_row = 128 : i64, vector_width = 4 : i64}} {
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
