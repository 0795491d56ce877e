// RUN: tilec-opt --tilec-distribute-row-tiles %s | FileCheck %s

// cols = 1000 f32, V = 4, TPR = 64, 4 chunks: chunk k covers columns
// (k * 64 + lane) * 4. (The schedule has no col_blocks entry: it defaults to
// one CTA per row.) Chunks 0-2 end at or before column 768 and are only
// masked by the row bound; chunk 3 reaches 1020 and is also masked by
// col < 1000. Masked loads yield zeros, and reductions replace the masked
// chunk by the identity (-inf for max) with arith.select.
// Also: per-row scalar loads are guarded by the row bound, shared scalars
// are plain memref.load, and per-row scalar results are written by lane 0.

// CHECK-LABEL: gpu.func @k_kernel0
//  CHECK-SAME:   (%[[IN:.+]]: memref<?x1000xf32>, %[[RS:.+]]: memref<?x1xf32>, %[[S:.+]]: memref<f32>, %[[OUT:.+]]: memref<?x1000xf32>, %[[MX:.+]]: memref<?x1xf32>)
//  CHECK-SAME:   workgroup(%{{.+}} : memref<4xf32, #gpu.address_space<workgroup>>)
//  CHECK-SAME:   known_block_size = array<i32: 128, 1, 1>
//       CHECK:   %[[LANE:.+]] = arith.remui %{{.+}}, %c64 : index
//       CHECK:   %[[ROWS:.+]] = memref.dim %[[IN]], %{{.+}} : memref<?x1000xf32>
//  CHECK-NEXT:   %[[ROWOK:.+]] = arith.cmpi ult, %[[ROW:.+]], %[[ROWS]] : index
// With one column block the first vector of the block is 0 * (chunks * TPR).
//       CHECK:   %[[C256:.+]] = arith.constant 256 : index
//  CHECK-NEXT:   %[[FIRSTV:.+]] = arith.muli %{{.+}}, %[[C256]] : index
//       CHECK:   %[[C192:.+]] = arith.constant 192 : index
//  CHECK-NEXT:   %[[K3B:.+]] = arith.addi %[[FIRSTV]], %[[C192]] : index
//  CHECK-NEXT:   %[[K3:.+]] = arith.addi %[[K3B]], %[[LANE]] : index
//  CHECK-NEXT:   %[[V4:.+]] = arith.constant 4 : index
//  CHECK-NEXT:   %[[COL3:.+]] = arith.muli %[[K3]], %[[V4]] : index
//  CHECK-NEXT:   %[[C1000:.+]] = arith.constant 1000 : index
//  CHECK-NEXT:   %[[COLOK:.+]] = arith.cmpi ult, %[[COL3]], %[[C1000]] : index
//   CHECK-NOT:   arith.cmpi
//       CHECK:   %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<4xf32>
//  CHECK-COUNT-3: scf.if %[[ROWOK]] -> (vector<4xf32>)
//       CHECK:   %[[BOTH:.+]] = arith.andi %[[ROWOK]], %[[COLOK]] : i1
//  CHECK-NEXT:   %[[LAST:.+]] = scf.if %[[BOTH]] -> (vector<4xf32>) {
//  CHECK-NEXT:     %[[V:.+]] = vector.load %[[IN]][%[[ROW]], %[[COL3]]] {alignment = 16 : i64}
//  CHECK-NEXT:     scf.yield %[[V]] : vector<4xf32>
//  CHECK-NEXT:   } else {
//  CHECK-NEXT:     scf.yield %[[ZERO]] : vector<4xf32>
//  CHECK-NEXT:   }
//       CHECK:   %[[RSV:.+]] = scf.if %[[ROWOK]] -> (f32) {
//       CHECK:     memref.load %[[RS]][%[[ROW]], %{{.+}}] : memref<?x1xf32>
//       CHECK:   %[[SV:.+]] = memref.load %[[S]][] : memref<f32>
//       CHECK:   %[[NEGINF:.+]] = arith.constant dense<0xFF800000> : vector<4xf32>
//       CHECK:   %[[MASKED:.+]] = arith.select %[[COLOK]], %[[LAST]], %[[NEGINF]] : vector<4xf32>
//       CHECK:   arith.maximumf %{{.+}}, %[[MASKED]] : vector<4xf32>
//       CHECK:   vector.reduction <maximumf>
//       CHECK:   gpu.barrier
// Stores: chunks 0-2 under the row bound, chunk 3 under both.
//  CHECK-COUNT-3: scf.if %[[ROWOK]] {
//       CHECK:   %[[BOTH2:.+]] = arith.andi %[[ROWOK]], %[[COLOK]] : i1
//  CHECK-NEXT:   scf.if %[[BOTH2]] {
//  CHECK-NEXT:     vector.store %{{.+}}, %[[OUT]][%[[ROW]], %[[COL3]]] {alignment = 16 : i64}
//  CHECK-NEXT:   }
// The per-row max is stored once per row, by lane 0.
//       CHECK:   %[[LANE0:.+]] = arith.cmpi eq, %[[LANE]], %{{.+}} : index
//  CHECK-NEXT:   %[[WRITER:.+]] = arith.andi %[[ROWOK]], %[[LANE0]] : i1
//  CHECK-NEXT:   scf.if %[[WRITER]] {
//       CHECK:     memref.store %{{.+}}, %[[MX]][%[[ROW]], %{{.+}}] : memref<?x1xf32>
//       CHECK:   gpu.return

func.func @k_kernel0(%in: memref<?x1000xf32>, %rs: memref<?x1xf32>, %s: memref<f32>, %out: memref<?x1000xf32>, %mx: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 3, 1000>, tile.schedule = {chunks = 4 : i64, rows_per_block = 2 : i64, threads_per_row = 64 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1000xf32> -> tensor<1000xf32>
  %a = tile.load %rs[%r] : memref<?x1xf32> -> f32
  %b = tile.load %s : memref<f32> -> f32
  %m = tile.reduce_max %t : tensor<1000xf32> -> f32
  %c = arith.addf %m, %a : f32
  %d = arith.mulf %c, %b : f32
  %e = tile.splat %d : f32 -> tensor<1000xf32>
  %f = arith.subf %t, %e : tensor<1000xf32>
  tile.store %f, %out[%r] : tensor<1000xf32> -> memref<?x1000xf32>
  tile.store %m, %mx[%r] : f32 -> memref<?x1xf32>
  return
}
