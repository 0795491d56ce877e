// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="few-rows=0 max-threads-per-block=32 min-threads-per-block=32 elementwise-elements=16" --tilec-distribute-row-tiles %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="few-rows=0 max-threads-per-block=32 min-threads-per-block=32" --tilec-distribute-row-tiles %s | FileCheck %s --check-prefix=DEF

// Rows split over column blocks (kernels without reductions), and results
// shared by all rows (tile.store without a row). few-rows=0: these 3-row
// kernels get the schedule of many rows (several chunks per thread).
// elementwise-elements=16 (target 16 / V = 4 vectors a thread, as before the
// measured defaults) keeps 4 chunks a thread for the checks below; the DEF
// run (default elementwise-elements 8: target 2) checks less.
//
// cols = 1000 f32 with at most 32 threads per CTA: V = 4, 250 vectors,
// TPR = 32, 8 vectors per thread > target 4, so col_blocks = 2 and
// chunks = ceil(250 / 64) = 4; one row per CTA. CTA `bid` takes column block
// bid % 2 of row bid / 2; the block's first vector is (bid % 2) * 4 * 32,
// chunk k is at column (first + k * 32 + lane) * 4. Only chunk 3 can leave
// the row (block 1 reaches (128 + 96 + 31) * 4 + 4 = 1024 > 1000).
// The shared vector exp(w) is written by row 0 (by both of its column
// blocks, each its own columns), the shared scalar by lane 0 of row 0.
//
// With target 2 (DEF) col_blocks = ceil(8 / 2) = 4 and chunks =
// ceil(250 / 128) = 2; block bid % 4 starts at vector (bid % 4) * 2 * 32 and
// only chunk 1 (at first + 32 + lane) can leave the row.
// DEF-LABEL: gpu.func @cb_kernel0
//  DEF-SAME:   known_block_size = array<i32: 32, 1, 1>
//  DEF-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 4 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}
//       DEF:   %[[BID:.+]] = gpu.block_id x
//       DEF:   %[[C4:.+]] = arith.constant 4 : index
//  DEF-NEXT:   %[[CB:.+]] = arith.remui %[[BID]], %[[C4]] : index
//       DEF:   %[[C64:.+]] = arith.constant 64 : index
//  DEF-NEXT:   %[[FIRSTV:.+]] = arith.muli %[[CB]], %[[C64]] : index
//       DEF:   %[[C32:.+]] = arith.constant 32 : index
//  DEF-NEXT:   %[[K1B:.+]] = arith.addi %[[FIRSTV]], %[[C32]] : index
//  DEF-NEXT:   %[[K1:.+]] = arith.addi %[[K1B]], %{{.+}} : index
//  DEF-NEXT:   %[[C4B:.+]] = arith.constant 4 : index
//  DEF-NEXT:   %[[COL1:.+]] = arith.muli %[[K1]], %[[C4B]] : index
//  DEF-NEXT:   %[[C1000:.+]] = arith.constant 1000 : index
//  DEF-NEXT:   arith.cmpi ult, %[[COL1]], %[[C1000]] : index
//   DEF-NOT:   arith.cmpi ult
//       DEF:   gpu.return

// CHECK-LABEL: gpu.func @cb_kernel0
//  CHECK-SAME:   (%[[IN:.+]]: memref<?x1000xf32>, %[[W:.+]]: memref<1000xf32>, %[[S:.+]]: memref<f32>, %[[OUT:.+]]: memref<?x1000xf32>, %[[WO:.+]]: memref<1000xf32>, %[[SO:.+]]: memref<f32>)
//  CHECK-SAME:   known_block_size = array<i32: 32, 1, 1>
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}
//       CHECK:   %[[TID:.+]] = gpu.thread_id x
//  CHECK-NEXT:   %[[BID:.+]] = gpu.block_id x
//       CHECK:   %[[LANE:.+]] = arith.remui %[[TID]], %{{.+}} : index
//       CHECK:   %[[C2:.+]] = arith.constant 2 : index
//  CHECK-NEXT:   %[[CB:.+]] = arith.remui %[[BID]], %[[C2]] : index
//  CHECK-NEXT:   %[[C2B:.+]] = arith.constant 2 : index
//  CHECK-NEXT:   %[[RB:.+]] = arith.divui %[[BID]], %[[C2B]] : index
//  CHECK-NEXT:   %[[C1:.+]] = arith.constant 1 : index
//  CHECK-NEXT:   %[[RB1:.+]] = arith.muli %[[RB]], %[[C1]] : index
//  CHECK-NEXT:   %[[ROW:.+]] = arith.addi %[[RB1]], %{{.+}} : index
//       CHECK:   %[[ROWOK:.+]] = arith.cmpi ult, %[[ROW]], %{{.+}} : index
//  CHECK-NEXT:   %[[C128:.+]] = arith.constant 128 : index
//  CHECK-NEXT:   %[[FIRSTV:.+]] = arith.muli %[[CB]], %[[C128]] : index
//       CHECK:   %[[C96:.+]] = arith.constant 96 : index
//  CHECK-NEXT:   %[[K3B:.+]] = arith.addi %[[FIRSTV]], %[[C96]] : index
//  CHECK-NEXT:   %[[K3:.+]] = arith.addi %[[K3B]], %[[LANE]] : index
//  CHECK-NEXT:   %[[C4:.+]] = arith.constant 4 : index
//  CHECK-NEXT:   %[[COL3:.+]] = arith.muli %[[K3]], %[[C4]] : index
//  CHECK-NEXT:   %[[C1000:.+]] = arith.constant 1000 : index
//  CHECK-NEXT:   %[[COLOK:.+]] = arith.cmpi ult, %[[COL3]], %[[C1000]] : index
//   CHECK-NOT:   arith.cmpi
// Per-row loads: chunks 0-2 under the row bound, chunk 3 under both.
//  CHECK-COUNT-3: scf.if %[[ROWOK]] -> (vector<4xf32>)
//       CHECK:   %[[BOTH:.+]] = arith.andi %[[ROWOK]], %[[COLOK]] : i1
//  CHECK-NEXT:   scf.if %[[BOTH]] -> (vector<4xf32>)
// Shared vector loads: no row, chunk 3 under the column bound only.
//       CHECK:   %[[W0:.+]] = vector.load %[[W]][%{{[^,]+}}] {alignment = 16 : i64} : memref<1000xf32>, vector<4xf32>
//       CHECK:   scf.if %[[COLOK]] -> (vector<4xf32>)
//  CHECK-NEXT:     vector.load %[[W]][%[[COL3]]]
//       CHECK:   %[[SV:.+]] = memref.load %[[S]][] : memref<f32>
//       CHECK:   %[[E0:.+]] = math.exp %[[W0]] : vector<4xf32>
//       CHECK:   %[[NEG:.+]] = arith.negf %[[SV]] : f32
// Per-row stores.
//  CHECK-COUNT-3: scf.if %[[ROWOK]] {
//       CHECK:   %[[BOTH2:.+]] = arith.andi %[[ROWOK]], %[[COLOK]] : i1
//  CHECK-NEXT:   scf.if %[[BOTH2]] {
//  CHECK-NEXT:     vector.store %{{.+}}, %[[OUT]][%[[ROW]], %[[COL3]]]
// The shared vector: row 0 only, at the column alone.
//       CHECK:   %[[Z:.+]] = arith.constant 0 : index
//  CHECK-NEXT:   %[[ROW0:.+]] = arith.cmpi eq, %[[ROW]], %[[Z]] : index
//  CHECK-NEXT:   scf.if %[[ROW0]] {
//  CHECK-NEXT:     vector.store %[[E0]], %[[WO]][%{{[^,]+}}] {alignment = 16 : i64} : memref<1000xf32>, vector<4xf32>
//  CHECK-NEXT:   }
//  CHECK-COUNT-2: scf.if %[[ROW0]] {
//       CHECK:   %[[ROW0LAST:.+]] = arith.andi %[[ROW0]], %[[COLOK]] : i1
//  CHECK-NEXT:   scf.if %[[ROW0LAST]] {
//  CHECK-NEXT:     vector.store %{{.+}}, %[[WO]][%[[COL3]]] {alignment = 16 : i64} : memref<1000xf32>, vector<4xf32>
//  CHECK-NEXT:   }
// The shared scalar: lane 0 of row 0, no indices.
//       CHECK:   %[[ISROW0:.+]] = arith.cmpi eq, %[[ROW]], %{{.+}} : index
//       CHECK:   %[[LANE0:.+]] = arith.cmpi eq, %[[LANE]], %{{.+}} : index
//  CHECK-NEXT:   %[[WRITER:.+]] = arith.andi %[[ISROW0]], %[[LANE0]] : i1
//  CHECK-NEXT:   scf.if %[[WRITER]] {
//  CHECK-NEXT:     memref.store %[[NEG]], %[[SO]][] : memref<f32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.return
func.func @cb_kernel0(%in: memref<?x1000xf32>, %w: memref<1000xf32>, %s: memref<f32>, %out: memref<?x1000xf32>, %wo: memref<1000xf32>, %so: memref<f32>) attributes {tile.kernel, tile.domain = array<i64: 3, 1000>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1000xf32> -> tensor<1000xf32>
  %v = tile.load %w : memref<1000xf32> -> tensor<1000xf32>
  %b = tile.load %s : memref<f32> -> f32
  %e = math.exp %v : tensor<1000xf32>
  %n = arith.negf %b : f32
  %y = arith.mulf %t, %e : tensor<1000xf32>
  tile.store %y, %out[%r] : tensor<1000xf32> -> memref<?x1000xf32>
  tile.store %e, %wo : tensor<1000xf32> -> memref<1000xf32>
  tile.store %n, %so : f32 -> memref<f32>
  return
}

// -----

// cols = 4096 f32 with 32 threads: 1024 vectors, col_blocks = 8, 4 chunks;
// 8 * 4 * 32 * 4 = 4096 exactly, so no chunk needs a column mask. With
// target 2 (DEF) col_blocks = 16 of 2 chunks, 16 * 2 * 32 * 4 = 4096: no
// mask either.
// DEF-LABEL: gpu.func @exact_kernel0
//  DEF-SAME:   tile.schedule = {chunks = 2 : i64, col_blocks = 16 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}
//   DEF-NOT:   arith.andi
//       DEF:   gpu.return
// CHECK-LABEL: gpu.func @exact_kernel0
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 8 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}
//       CHECK:   %[[C8:.+]] = arith.constant 8 : index
//  CHECK-NEXT:   %[[CB:.+]] = arith.remui %{{.+}}, %[[C8]] : index
//       CHECK:   %[[ROWOK:.+]] = arith.cmpi ult
//   CHECK-NOT:   arith.cmpi
//   CHECK-NOT:   arith.andi
//  CHECK-COUNT-4: scf.if %[[ROWOK]] -> (vector<4xf32>)
//   CHECK-NOT:   arith.andi
//  CHECK-COUNT-4: scf.if %[[ROWOK]] {
//   CHECK-NOT:   scf.if
//       CHECK:   gpu.return
func.func @exact_kernel0(%in: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 3, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xf32> -> tensor<4096xf32>
  %y = math.exp %t : tensor<4096xf32>
  tile.store %y, %out[%r] : tensor<4096xf32> -> memref<?x4096xf32>
  return
}
