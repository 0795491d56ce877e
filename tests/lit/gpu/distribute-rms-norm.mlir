// RUN: tilec-opt --tilec-distribute-row-tiles %s | FileCheck %s

// RMSNorm at 4x64xf32 (tilec --emit=tile): TPR = 4 lanes per row, V = 4, four
// chunks, 32 rows per 128-thread CTA. The kernel moves into
// gpu.module @tilec_kernels as a gpu.func; the host keeps its tile.launch.
// With TPR <= 32 the row reduction is all shuffles: no shared memory, no
// barrier.

// CHECK:      module attributes {gpu.container_module} {
// CHECK-NOT:    func.func @rms_norm_kernel0
// CHECK-LABEL:  func.func @rms_norm(
// CHECK-NEXT:     %[[L:.+]] = tile.launch @rms_norm_kernel0(%{{.+}}, %{{.+}})
// CHECK-NEXT:     return %[[L]]
// CHECK-NEXT:   }
// CHECK-NEXT:   gpu.module @tilec_kernels {
// CHECK-NEXT:     gpu.func @rms_norm_kernel0(%[[X:.+]]: memref<?x64xf32>, %[[W:.+]]: memref<64xf32>, %[[OUT:.+]]: memref<?x64xf32>) kernel
// CHECK-SAME:       attributes {known_block_size = array<i32: 128, 1, 1>, tile.domain = array<i64: 4, 64>,
// CHECK-SAME:       tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 32 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}}
// CHECK-NOT:      workgroup
// Thread layout: lane = tid % 4, row = bid * 32 + tid / 4.
// CHECK:          %[[TID:.+]] = gpu.thread_id x
// CHECK:          %[[BID:.+]] = gpu.block_id x
// CHECK:          %[[LANE:.+]] = arith.remui %[[TID]], %{{.+}} : index
// CHECK:          %[[RIB:.+]] = arith.divui %[[TID]], %{{.+}} : index
// CHECK:          %[[C32:.+]] = arith.constant 32 : index
// CHECK:          %[[B32:.+]] = arith.muli %[[BID]], %[[C32]]
// CHECK:          %[[ROW:.+]] = arith.addi %[[B32]], %[[RIB]]
// The row count comes from the first per-row buffer.
// CHECK:          %[[ROWS:.+]] = memref.dim %[[X]], %{{.+}} : memref<?x64xf32>
// CHECK:          %[[VALID:.+]] = arith.cmpi ult, %[[ROW]], %[[ROWS]] : index
// 64 columns = 4 chunks * 4 lanes * 4 elements exactly: only the row is masked.
// CHECK-NOT:      arith.andi
// CHECK-COUNT-4:  scf.if %[[VALID]] -> (vector<4xf32>) {
// CHECK:            vector.load %[[X]][%[[ROW]], %{{.+}}] {alignment = 16 : i64} : memref<?x64xf32>, vector<4xf32>
// The weight is shared by all rows: unmasked loads.
// CHECK-COUNT-4:  vector.load %[[W]][%{{.+}}] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
// CHECK-COUNT-4:  arith.mulf %{{.+}}, %{{.+}} : vector<4xf32>
// Sum of squares: chunks, then the vector, then lanes (xor 2, xor 1).
// CHECK-COUNT-3:  arith.addf %{{.+}}, %{{.+}} : vector<4xf32>
// CHECK:          %[[PART:.+]] = vector.reduction <add>, %{{.+}} : vector<4xf32> into f32
// CHECK:          %[[S1:.+]], %{{.+}} = gpu.shuffle xor %[[PART]], %c2_i32, %c32_i32 : f32
// CHECK:          %[[P1:.+]] = arith.addf %[[PART]], %[[S1]] : f32
// CHECK:          %[[S2:.+]], %{{.+}} = gpu.shuffle xor %[[P1]], %c1_i32, %{{.+}} : f32
// CHECK:          %[[P2:.+]] = arith.addf %[[P1]], %[[S2]] : f32
// CHECK-NOT:      gpu.shuffle
// CHECK-NOT:      gpu.barrier
// CHECK:          %[[MEAN:.+]] = arith.divf %[[P2]], %{{.+}} : f32
// CHECK:          math.rsqrt
// CHECK:          vector.broadcast %{{.+}} : f32 to vector<4xf32>
// CHECK-COUNT-8:  arith.mulf
// CHECK-COUNT-4:  scf.if %[[VALID]] {
// CHECK-NEXT:       vector.store %{{.+}}, %[[OUT]][%[[ROW]], %{{.+}}] {alignment = 16 : i64} : memref<?x64xf32>, vector<4xf32>
// CHECK-NEXT:     }
// CHECK-NEXT:     gpu.return
// CHECK-NOT:    gpu.barrier

module {
  func.func @rms_norm_kernel0(%arg0: memref<?x64xf32>, %arg1: memref<64xf32>, %arg2: memref<?x64xf32>) attributes {tile.domain = array<i64: 4, 64>, tile.kernel, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 32 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
    %cst = arith.constant 9.99999997E-7 : f32
    %cst_0 = arith.constant 6.400000e+01 : f32
    %0 = tile.row_id
    %1 = tile.load %arg0[%0] : memref<?x64xf32> -> tensor<64xf32>
    %2 = tile.load %arg1 : memref<64xf32> -> tensor<64xf32>
    %3 = arith.mulf %1, %1 : tensor<64xf32>
    %4 = tile.reduce_sum %3 : tensor<64xf32> -> f32
    %5 = arith.divf %4, %cst_0 : f32
    %6 = arith.addf %5, %cst : f32
    %7 = math.rsqrt %6 : f32
    %8 = tile.splat %7 : f32 -> tensor<64xf32>
    %9 = arith.mulf %1, %8 : tensor<64xf32>
    %10 = arith.mulf %9, %2 : tensor<64xf32>
    tile.store %10, %arg2[%0] : tensor<64xf32> -> memref<?x64xf32>
    return
  }
  func.func @rms_norm(%arg0: tensor<4x64xf32>, %arg1: tensor<64xf32>) -> tensor<4x64xf32> {
    %0 = tile.launch @rms_norm_kernel0(%arg0, %arg1) {fused_ops = 9 : i64, hbm_bytes_saved = 9344 : i64} : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
    return %0 : tensor<4x64xf32>
  }
}
