// tilec-fuse merges an operator on a row vector (shape [C]) into a row fusion
// even when its result is also needed outside; the fusion then yields that
// shared vector. The pipeline supports such results: the kernel gets a
// memref<C x T> output written by `tile.store` without a row, and the
// distributed kernel writes it from row 0 only. Shared scalars ([]) work the
// same way with a memref<T> output. (This once failed in
// tilec-lower-fusion-to-tile: "result 'tensor<64xf32>' is not computed per
// row; row kernels cannot store it yet".)

// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s --check-prefix=FUSED
// RUN: tilec-opt --split-input-file --tilec-fuse --tilec-lower-fusion-to-tile %s | FileCheck %s --check-prefix=TILE
// RUN: tilec-opt --split-input-file --tilec-fuse --tilec-lower-fusion-to-tile --tilec-schedule-row-kernels --tilec-distribute-row-tiles %s | FileCheck %s --check-prefix=GPU
// RUN: tilec-opt --split-input-file --tilec-fuse --tilec-lower-fusion-to-tile --tilec-schedule-row-kernels="few-rows=64" --tilec-distribute-row-tiles %s | FileCheck %s --check-prefix=GPU-FEW
// RUN: tilec %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx

// hbm_bytes_saved: inputs read once (0); exp 256 * (1 + 0) (returned) +
// broadcast 1024 * (1 + 1) + mul 0 (returned) = 2304.
// FUSED-LABEL: func.func @f(
//  FUSED-SAME:   %[[X:.+]]: tensor<4x64xf32>, %[[W:.+]]: tensor<64xf32>)
//  FUSED-NEXT:   %[[F:.+]]:2 = graph.fusion(%[[W]], %[[X]] : tensor<64xf32>, tensor<4x64xf32>) attributes {domain = array<i64: 4, 64>, fused_ops = 3 : i64, hbm_bytes_saved = 2304 : i64} -> tensor<64xf32>, tensor<4x64xf32> {
//       FUSED:     %[[E:.+]] = graph.exp
//       FUSED:     %[[M:.+]] = graph.mul
//  FUSED-NEXT:     graph.yield %[[E]], %[[M]] : tensor<64xf32>, tensor<4x64xf32>
//  FUSED-NEXT:   }
//  FUSED-NEXT:   return %[[F]]#1, %[[F]]#0

// TILE-LABEL: func.func @f_kernel0
//  TILE-SAME:   (%[[W:.+]]: memref<64xf32>, %[[X:.+]]: memref<?x64xf32>, %[[OW:.+]]: memref<64xf32>, %[[OX:.+]]: memref<?x64xf32>)
//  TILE-NEXT:   %[[ROW:.+]] = tile.row_id
//       TILE:   %[[E:.+]] = math.exp %{{.+}} : tensor<64xf32>
//  TILE-NEXT:   %[[M:.+]] = arith.mulf %{{.+}}, %[[E]] : tensor<64xf32>
//  TILE-NEXT:   tile.store %[[E]], %[[OW]] : tensor<64xf32> -> memref<64xf32>
//  TILE-NEXT:   tile.store %[[M]], %[[OX]][%[[ROW]]] : tensor<64xf32> -> memref<?x64xf32>
// TILE-LABEL: func.func @f(
//  TILE-NEXT:   %[[L:.+]]:2 = tile.launch @f_kernel0(%{{.+}}, %{{.+}}) {{.+}} : (tensor<64xf32>, tensor<4x64xf32>) -> (tensor<64xf32>, tensor<4x64xf32>)
//  TILE-NEXT:   return %[[L]]#1, %[[L]]#0

// The default schedule (few-rows is off by default, so these 4 rows get the
// schedule of many rows; with few-rows=64 they get one chunk per thread, see
// GPU-FEW): V = 4, 16 vectors, target 8 / 4 = 2, TPR = 8, 2 chunks, 16 rows
// per CTA. Each chunk of the shared vector is stored at its column only (no
// row index) and only by row 0; the per-row result is guarded by the row
// bound as usual.
// GPU-LABEL: gpu.func @f_kernel0
//  GPU-SAME:   (%[[W:.+]]: memref<64xf32>, %[[X:.+]]: memref<?x64xf32>, %[[OW:.+]]: memref<64xf32>, %[[OX:.+]]: memref<?x64xf32>)
//  GPU-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}
//       GPU:   %[[ROW:.+]] = arith.addi %{{.+}}, %{{.+}} : index
//       GPU:   %[[DIM:.+]] = memref.dim %[[X]], %{{.+}} : memref<?x64xf32>
//  GPU-NEXT:   %[[VALID:.+]] = arith.cmpi ult, %[[ROW]], %[[DIM]] : index
//       GPU:   %[[E0:.+]] = math.exp
//       GPU:   %[[M0:.+]] = arith.mulf
//       GPU:   %[[C0:.+]] = arith.constant 0 : index
//  GPU-NEXT:   %[[FIRST:.+]] = arith.cmpi eq, %[[ROW]], %[[C0]] : index
//  GPU-NEXT:   scf.if %[[FIRST]] {
//  GPU-NEXT:     vector.store %[[E0]], %[[OW]][%{{[^,]+}}] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
//  GPU-NEXT:   }
//  GPU-NEXT:   scf.if %[[FIRST]] {
//  GPU-NEXT:     vector.store %{{.+}}, %[[OW]][%{{[^,]+}}] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
//  GPU-NEXT:   }
//  GPU-NEXT:   scf.if %[[VALID]] {
//  GPU-NEXT:     vector.store %[[M0]], %[[OX]][%[[ROW]], %{{.+}}] {alignment = 16 : i64} : memref<?x64xf32>, vector<4xf32>
//   GPU-NOT:   %[[OW]]
//       GPU:   gpu.return

// With few-rows=64 these 4 rows are few: TPR = 16, one chunk per thread, 8
// rows per CTA; row 0 stores its one chunk of the shared vector.
// GPU-FEW-LABEL: gpu.func @f_kernel0
//  GPU-FEW-SAME:   (%[[W:.+]]: memref<64xf32>, %[[X:.+]]: memref<?x64xf32>, %[[OW:.+]]: memref<64xf32>, %[[OX:.+]]: memref<?x64xf32>)
//  GPU-FEW-SAME:   tile.schedule = {chunks = 1 : i64, col_blocks = 1 : i64, rows_per_block = 8 : i64, stream_blocks = 0 : i64, threads_per_row = 16 : i64, vector_width = 4 : i64}
//       GPU-FEW:   %[[ROW:.+]] = arith.addi %{{.+}}, %{{.+}} : index
//       GPU-FEW:   %[[VALID:.+]] = arith.cmpi ult, %[[ROW]], %{{.+}} : index
//       GPU-FEW:   %[[E0:.+]] = math.exp
//  GPU-FEW-NEXT:   %[[M0:.+]] = arith.mulf
//  GPU-FEW-NEXT:   %[[C0:.+]] = arith.constant 0 : index
//  GPU-FEW-NEXT:   %[[FIRST:.+]] = arith.cmpi eq, %[[ROW]], %[[C0]] : index
//  GPU-FEW-NEXT:   scf.if %[[FIRST]] {
//  GPU-FEW-NEXT:     vector.store %[[E0]], %[[OW]][%{{[^,]+}}] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
//  GPU-FEW-NEXT:   }
//  GPU-FEW-NEXT:   scf.if %[[VALID]] {
//  GPU-FEW-NEXT:     vector.store %[[M0]], %[[OX]][%[[ROW]], %{{.+}}] {alignment = 16 : i64} : memref<?x64xf32>, vector<4xf32>
//  GPU-FEW-NEXT:   }
//  GPU-FEW-NEXT:   gpu.return

// PTX: .visible .entry f_kernel0(
func.func @f(%x: tensor<4x64xf32>, %w: tensor<64xf32>) -> (tensor<4x64xf32>, tensor<64xf32>) {
  %0 = graph.exp %w : (tensor<64xf32>) -> tensor<64xf32>
  %1 = graph.broadcast %0 : (tensor<64xf32>) -> tensor<4x64xf32>
  %2 = graph.mul %x, %1 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  return %2, %0 : tensor<4x64xf32>, tensor<64xf32>
}
