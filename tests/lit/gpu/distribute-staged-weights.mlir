// RUN: tilec-opt --tilec-distribute-row-tiles %s | FileCheck %s

// staged_weights (DistributeRowTiles.cpp, stageWeightVectors): RMSNorm over
// f32 rows of 1000 at 128 threads a row, 2 vectors of 4 a thread, the
// weight load sunk past the reduction. After the row's loads and before the
// reduction, each thread copies its own weight vectors into dynamic shared
// memory with cp.async (16 bytes, .ca: through L1) as one group; the second vector can
// pass column 1000, so it is zero-filled there (src-size 0) and read from
// column 0. The weight's first read waits for the group, then loads the
// thread's own slots: no barrier beyond the reduction's.

// CHECK-LABEL: gpu.func @rms_norm_kernel0(
// CHECK-SAME:    %[[X:[^:]+]]: memref<?x1000xf32>, %[[W:[^:]+]]: memref<1000xf32>, %[[OUT:[^:]+]]: memref<?x1000xf32>)
// CHECK:         %[[COL0:.+]] = arith.muli %{{.+}}, %c4{{.*}} : index
// CHECK:         %[[COL1:.+]] = arith.muli %{{.+}}, %c4{{.*}} : index
// CHECK:         %[[IN1:.+]] = arith.cmpi ult, %[[COL1]], %c1000 : index
// CHECK:         vector.load %[[X]]
// CHECK:         vector.load %[[X]]
// CHECK:         %[[DYN:.+]] = gpu.dynamic_shared_memory
// CHECK:         %[[BUF:.+]] = memref.view %[[DYN]][%{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_copy %[[W]][%[[COL0]]], %[[BUF]][%[[COL0]]], 4, %{{.+}} :
// CHECK:         %[[SRC1:.+]] = arith.select %[[IN1]], %[[COL1]], %{{.+}} : index
// CHECK:         %[[N1:.+]] = arith.select %[[IN1]], %{{.+}}, %{{.+}} : index
// CHECK:         nvgpu.device_async_copy %[[W]][%[[SRC1]]], %[[BUF]][%[[COL1]]], 4, %[[N1]] :
// CHECK:         %[[G:.+]] = nvgpu.device_async_create_group
// CHECK:         gpu.shuffle
// CHECK:         gpu.barrier
// CHECK-NOT:     gpu.barrier
// CHECK:         nvgpu.device_async_wait %[[G]] {numGroups = 0 : i32}
// CHECK-NEXT:    vector.load %[[BUF]][%[[COL0]]] {alignment = 16 : i64}
// CHECK-NEXT:    vector.load %[[BUF]][%[[COL1]]] {alignment = 16 : i64}
// CHECK-NOT:     vector.load %[[W]]
// CHECK:         vector.store %{{.+}}, %[[OUT]]
// CHECK:         gpu.return

module {
  func.func @rms_norm_kernel0(%arg0: memref<?x1000xf32>, %arg1: memref<1000xf32>, %arg2: memref<?x1000xf32>) attributes {tile.domain = array<i64: 4096, 1000>, tile.kernel, tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, shared_bytes = 4096 : i64, staged_weights = 1 : i64, threads_per_row = 128 : i64, vector_width = 4 : i64}} {
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
