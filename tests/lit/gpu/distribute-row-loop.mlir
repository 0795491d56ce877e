// RUN: tilec-opt --tilec-distribute-row-tiles %s | FileCheck %s

// row_loop (DistributeRowTiles.cpp, runRowLoop): RMSNorm over rows of 256
// f32 at 64 threads a row (two warps: the reduction goes through shared
// memory). The weight, shared by all rows and loaded before the reduction,
// is loaded once, before the loop; the CTA then loops over row blocks
// blockIdx.x, blockIdx.x + gridDim.x, ... below ceil(rows / 2); each
// iteration masks its rows, reduces, stores, and ends with a barrier (the
// next block rewrites the warps' buffer).

// CHECK-LABEL: gpu.func @rms_norm_kernel0(
// CHECK-SAME:    %[[X:[^:]+]]: memref<?x256xf32>, %[[W:[^:]+]]: memref<256xf32>, %[[OUT:[^:]+]]: memref<?x256xf32>)
// CHECK:         %[[ROWS:.+]] = memref.dim %[[X]], %{{.+}} : memref<?x256xf32>
// CHECK-COUNT-1: vector.load %[[W]]
// CHECK-NOT:     vector.load
// CHECK:         %[[BLOCKS:.+]] = arith.ceildivui %[[ROWS]], %{{.+}} : index
// CHECK:         %[[BID:.+]] = gpu.block_id x
// CHECK:         %[[GRID:.+]] = gpu.grid_dim x
// CHECK:         scf.for %[[BLK:.+]] = %[[BID]] to %[[BLOCKS]] step %[[GRID]] {
// CHECK:           %[[R0:.+]] = arith.muli %[[BLK]], %{{.+}} : index
// CHECK:           %[[ROW:.+]] = arith.addi %[[R0]], %{{.+}} : index
// CHECK:           %[[VALID:.+]] = arith.cmpi ult, %[[ROW]], %[[ROWS]] : index
// CHECK:           scf.if %[[VALID]] -> (vector<4xf32>) {
// CHECK:             vector.load %[[X]][%[[ROW]], %{{.+}}]
// CHECK-NOT:       vector.load %[[W]]
// CHECK:           gpu.shuffle
// CHECK:           gpu.barrier
// CHECK:           vector.store %{{.+}}, %[[OUT]][%[[ROW]], %{{.+}}]
// CHECK:           gpu.barrier
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.return

module {
  func.func @rms_norm_kernel0(%arg0: memref<?x256xf32>, %arg1: memref<256xf32>, %arg2: memref<?x256xf32>) attributes {tile.domain = array<i64: 4096, 256>, tile.kernel, tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, row_loop = 1 : i64, rows_per_block = 2 : i64, threads_per_row = 64 : i64, vector_width = 4 : i64}} {
    %cst = arith.constant 9.99999997E-7 : f32
    %cst_0 = arith.constant 2.560000e+02 : f32
    %0 = tile.row_id
    %1 = tile.load %arg0[%0] : memref<?x256xf32> -> tensor<256xf32>
    %2 = tile.load %arg1 : memref<256xf32> -> tensor<256xf32>
    %3 = arith.mulf %1, %1 : tensor<256xf32>
    %4 = tile.reduce_sum %3 : tensor<256xf32> -> f32
    %5 = arith.divf %4, %cst_0 : f32
    %6 = arith.addf %5, %cst : f32
    %7 = math.rsqrt %6 : f32
    %8 = tile.splat %7 : f32 -> tensor<256xf32>
    %9 = arith.mulf %1, %8 : tensor<256xf32>
    %10 = arith.mulf %9, %2 : tensor<256xf32>
    tile.store %10, %arg2[%0] : tensor<256xf32> -> memref<?x256xf32>
    return
  }
  func.func @rms_norm(%arg0: tensor<4096x256xf32>, %arg1: tensor<256xf32>) -> tensor<4096x256xf32> {
    %0 = tile.launch @rms_norm_kernel0(%arg0, %arg1) {fused_ops = 9 : i64, hbm_bytes_saved = 0 : i64} : (tensor<4096x256xf32>, tensor<256xf32>) -> tensor<4096x256xf32>
    return %0 : tensor<4096x256xf32>
  }
}
