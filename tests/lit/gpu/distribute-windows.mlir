// RUN: tilec-opt --split-input-file --tilec-distribute-row-tiles %s | FileCheck %s

// Distribution of windowed accesses (tile.load / tile.store with
// col_offset) and tile.select_cols. Thread `lane` of a row holds chunk k at
// columns col_k = (k * TPR + lane) * V. A load at offset s reads
// [row, col_k + s] under the row bound and, where the window can leave the
// buffer, col_k + s < W (arith.cmpi ult col_k, W - s) and/or col_k + s >= 0
// (arith.cmpi uge col_k, -s); outside, the chunk is zero. Stores are masked
// the same way. select_cols picks per chunk with arith.select on
// col_k < split.
//
// When an unshifted whole-row load of the same buffer and row is already in
// registers and s is a multiple of TPR * V (with one CTA per row and no
// streaming), chunk k of the shifted load is chunk k + s / (TPR * V) of that
// load (zero past either end): no extra vector.load.

// TPR * V = 32: offsets 64 and -32 move whole chunks (4 chunks per thread).
//   +64: chunks (2, 3, 0, 0); -32: chunks (0, 0, 1, 2) (0: zeros).
// Only the four loads of the whole row remain.
// CHECK-LABEL: gpu.func @reuse
//  CHECK-SAME:   (%[[X:.+]]: memref<?x128xf32>, %[[OUT:.+]]: memref<?x128xf32>)
//       CHECK:   %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<4xf32>
//  CHECK-NEXT:   %[[W0:.+]] = scf.if
//  CHECK-NEXT:     vector.load %[[X]]
//       CHECK:   %[[W1:.+]] = scf.if
//  CHECK-NEXT:     vector.load %[[X]]
//       CHECK:   %[[W2:.+]] = scf.if
//  CHECK-NEXT:     vector.load %[[X]]
//       CHECK:   %[[W3:.+]] = scf.if
//  CHECK-NEXT:     vector.load %[[X]]
//   CHECK-NOT:   vector.load
//       CHECK:   %[[Z1:.+]] = arith.constant dense<0.000000e+00> : vector<4xf32>
//  CHECK-NEXT:   %[[Z2:.+]] = arith.constant dense<0.000000e+00> : vector<4xf32>
//  CHECK-NEXT:   %[[S0:.+]] = arith.addf %[[W2]], %[[Z2]] : vector<4xf32>
//  CHECK-NEXT:   %[[S1:.+]] = arith.addf %[[W3]], %[[W0]] : vector<4xf32>
//  CHECK-NEXT:   %[[S2:.+]] = arith.addf %[[Z1]], %[[W1]] : vector<4xf32>
//  CHECK-NEXT:   %[[S3:.+]] = arith.addf %[[Z1]], %[[W2]] : vector<4xf32>
//  CHECK-NEXT:   arith.mulf %[[W0]], %[[S0]]
//  CHECK-NEXT:   arith.mulf %[[W1]], %[[S1]]
//  CHECK-NEXT:   arith.mulf %[[W2]], %[[S2]]
//  CHECK-NEXT:   arith.mulf %[[W3]], %[[S3]]
//   CHECK-NOT:   vector.load
//       CHECK:   gpu.return
func.func @reuse(%x: memref<?x128xf32>, %out: memref<?x128xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 128>, tile.row_buffer = 0 : i64, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %w = tile.load %x[%r] : memref<?x128xf32> -> tensor<128xf32>
  %h = tile.load %x[%r] {col_offset = 64 : i64} : memref<?x128xf32> -> tensor<128xf32>
  %l = tile.load %x[%r] {col_offset = -32 : i64} : memref<?x128xf32> -> tensor<128xf32>
  %s = arith.addf %h, %l : tensor<128xf32>
  %t = arith.mulf %w, %s : tensor<128xf32>
  tile.store %t, %out[%r] : tensor<128xf32> -> memref<?x128xf32>
  return
}

// -----

// An offset of 4 is not a multiple of TPR * V = 32: the window is loaded
// again, each chunk at col_k + 4 and masked by col_k < 124 and the row bound.
// CHECK-LABEL: gpu.func @no_reuse
//  CHECK-SAME:   (%[[X:.+]]: memref<?x128xf32>, %{{.+}}: memref<?x128xf32>)
//       CHECK:   %[[ROWOK:.+]] = arith.cmpi ult, %[[ROW:.+]], %{{.+}} : index
// CHECK-COUNT-4:   vector.load %[[X]][%[[ROW]], %{{[^]]+}}] {alignment = 16 : i64}
//       CHECK:   %[[C124:.+]] = arith.constant 124 : index
//  CHECK-NEXT:   %[[IN:.+]] = arith.cmpi ult, %[[COL0:.+]], %[[C124]] : index
//  CHECK-NEXT:   %[[OK:.+]] = arith.andi %[[ROWOK]], %[[IN]] : i1
//  CHECK-NEXT:   scf.if %[[OK]] -> (vector<4xf32>) {
//  CHECK-NEXT:     %[[C4:.+]] = arith.constant 4 : index
//  CHECK-NEXT:     %[[SH:.+]] = arith.addi %[[COL0]], %[[C4]] : index
//  CHECK-NEXT:     vector.load %[[X]][%[[ROW]], %[[SH]]] {alignment = 16 : i64} : memref<?x128xf32>, vector<4xf32>
// CHECK-COUNT-3:   vector.load %[[X]]
//   CHECK-NOT:   vector.load
//       CHECK:   gpu.return
func.func @no_reuse(%x: memref<?x128xf32>, %out: memref<?x128xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 128>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %w = tile.load %x[%r] : memref<?x128xf32> -> tensor<128xf32>
  %h = tile.load %x[%r] {col_offset = 4 : i64} : memref<?x128xf32> -> tensor<128xf32>
  %t = arith.mulf %w, %h : tensor<128xf32>
  tile.store %t, %out[%r] : tensor<128xf32> -> memref<?x128xf32>
  return
}

// -----

// A [4, 1, 64] table c in a [4, 2, 128] domain, read at row / 2 through two
// windows (columns < 64 at offset 0, columns >= 64 at -64) joined by
// select_cols. tile.row_buffer = 1: the grid is sized by x, not by c.
// CHECK-LABEL: gpu.func @mapped
//  CHECK-SAME:   (%[[C:.+]]: memref<?x64xf32>, %[[X:.+]]: memref<?x128xf32>, %{{.+}}: memref<?x128xf32>)
//       CHECK:   %[[ROW:.+]] = arith.addi
//       CHECK:   %[[DIM:.+]] = memref.dim %[[X]], %{{.+}} : memref<?x128xf32>
//  CHECK-NEXT:   %[[ROWOK:.+]] = arith.cmpi ult, %[[ROW]], %[[DIM]] : index
//       CHECK:   %[[MROW:.+]] = arith.divui %[[ROW]], %{{.+}} : index
//       CHECK:   vector.load %[[X]][%[[ROW]], %[[COL0:[0-9]+]]]
// CHECK-COUNT-3:   vector.load %[[X]][%[[ROW]],
//       CHECK:   %[[LOIN:.+]] = arith.cmpi ult, %[[COL0]], %{{.+}} : index
//  CHECK-NEXT:   %[[LOOK:.+]] = arith.andi %[[ROWOK]], %[[LOIN]] : i1
//  CHECK-NEXT:   %[[LO0:.+]] = scf.if %[[LOOK]] -> (vector<4xf32>) {
//  CHECK-NEXT:     vector.load %[[C]][%[[MROW]], %[[COL0]]] {alignment = 16 : i64} : memref<?x64xf32>, vector<4xf32>
// CHECK-COUNT-3:   vector.load %[[C]][%[[MROW]], %{{[^]]+}}] {alignment = 16 : i64}
//       CHECK:   %[[HIIN:.+]] = arith.cmpi uge, %[[COL0]], %{{.+}} : index
//  CHECK-NEXT:   %[[HIOK:.+]] = arith.andi %[[ROWOK]], %[[HIIN]] : i1
//  CHECK-NEXT:   %[[HI0:.+]] = scf.if %[[HIOK]] -> (vector<4xf32>) {
//  CHECK-NEXT:     %[[CM64:.+]] = arith.constant -64 : index
//  CHECK-NEXT:     %[[SH:.+]] = arith.addi %[[COL0]], %[[CM64]] : index
//  CHECK-NEXT:     vector.load %[[C]][%[[MROW]], %[[SH]]] {alignment = 16 : i64} : memref<?x64xf32>, vector<4xf32>
// CHECK-COUNT-3:   vector.load %[[C]][%[[MROW]], %{{[^]]+}}] {alignment = 16 : i64}
//       CHECK:   %[[C64:.+]] = arith.constant 64 : index
//  CHECK-NEXT:   %[[BELOW:.+]] = arith.cmpi ult, %[[COL0]], %[[C64]] : index
//  CHECK-NEXT:   arith.select %[[BELOW]], %[[LO0]], %[[HI0]] : vector<4xf32>
// CHECK-COUNT-3:   arith.select
//   CHECK-NOT:   vector.load
//       CHECK:   gpu.return
func.func @mapped(%c: memref<?x64xf32>, %x: memref<?x128xf32>, %out: memref<?x128xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 2, 128>, tile.row_buffer = 1 : i64, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 16 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %c2 = arith.constant 2 : index
  %m = arith.divui %r, %c2 : index
  %w = tile.load %x[%r] : memref<?x128xf32> -> tensor<128xf32>
  %lo = tile.load %c[%m] {col_offset = 0 : i64} : memref<?x64xf32> -> tensor<128xf32>
  %hi = tile.load %c[%m] {col_offset = -64 : i64} : memref<?x64xf32> -> tensor<128xf32>
  %s = tile.select_cols %lo, %hi {split = 64 : i64} : tensor<128xf32>
  %t = arith.mulf %w, %s : tensor<128xf32>
  tile.store %t, %out[%r] : tensor<128xf32> -> memref<?x128xf32>
  return
}

// -----

// Stores: a part of a row into [?, 24] at offset 0 writes chunks with
// col_k < 24; a store at -8 writes chunk k to col_k - 8 where col_k >= 8.
// CHECK-LABEL: gpu.func @stores
//  CHECK-SAME:   (%[[X:.+]]: memref<?x64xf32>, %[[P:.+]]: memref<?x24xf32>, %[[Q:.+]]: memref<?x64xf32>)
//       CHECK:   %[[ROWOK:.+]] = arith.cmpi ult, %[[ROW:.+]], %{{.+}} : index
//       CHECK:   %[[T0:.+]] = scf.if
//  CHECK-NEXT:     vector.load %[[X]][%[[ROW]], %[[COL0:[0-9]+]]]
//       CHECK:   %[[C24:.+]] = arith.constant 24 : index
//  CHECK-NEXT:   %[[PIN:.+]] = arith.cmpi ult, %[[COL0]], %[[C24]] : index
//  CHECK-NEXT:   %[[POK:.+]] = arith.andi %[[ROWOK]], %[[PIN]] : i1
//  CHECK-NEXT:   scf.if %[[POK]] {
//  CHECK-NEXT:     vector.store %[[T0]], %[[P]][%[[ROW]], %[[COL0]]] {alignment = 16 : i64} : memref<?x24xf32>, vector<4xf32>
//  CHECK-NEXT:   }
// CHECK-COUNT-3:   vector.store %{{.+}}, %[[P]]
//       CHECK:   %[[C8:.+]] = arith.constant 8 : index
//  CHECK-NEXT:   %[[QIN:.+]] = arith.cmpi uge, %[[COL0]], %[[C8]] : index
//  CHECK-NEXT:   %[[QOK:.+]] = arith.andi %[[ROWOK]], %[[QIN]] : i1
//  CHECK-NEXT:   scf.if %[[QOK]] {
//  CHECK-NEXT:     %[[CM8:.+]] = arith.constant -8 : index
//  CHECK-NEXT:     %[[SH:.+]] = arith.addi %[[COL0]], %[[CM8]] : index
//  CHECK-NEXT:     vector.store %[[T0]], %[[Q]][%[[ROW]], %[[SH]]] {alignment = 16 : i64} : memref<?x64xf32>, vector<4xf32>
//  CHECK-NEXT:   }
// CHECK-COUNT-3:   vector.store %{{.+}}, %[[Q]]
//       CHECK:   gpu.return
func.func @stores(%x: memref<?x64xf32>, %p: memref<?x24xf32>, %q: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 32 : i64, stream_blocks = 0 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %w = tile.load %x[%r] : memref<?x64xf32> -> tensor<64xf32>
  tile.store %w, %p[%r] {col_offset = 0 : i64} : tensor<64xf32> -> memref<?x24xf32>
  tile.store %w, %q[%r] {col_offset = -8 : i64} : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// A window on a vector shared by all rows (memref<16xf32> at +8): no row
// index and no row bound, only col_k < 8.
// CHECK-LABEL: gpu.func @shared
//  CHECK-SAME:   (%[[X:.+]]: memref<?x64xf32>, %[[V:.+]]: memref<16xf32>, %{{.+}}: memref<?x64xf32>)
//       CHECK:   vector.load %[[X]][%{{.+}}, %[[COL0:[0-9]+]]]
//       CHECK:   %[[IN:.+]] = arith.cmpi ult, %[[COL0]], %{{.+}} : index
//  CHECK-NEXT:   scf.if %[[IN]] -> (vector<4xf32>) {
//  CHECK-NEXT:     %[[C8:.+]] = arith.constant 8 : index
//  CHECK-NEXT:     %[[SH:.+]] = arith.addi %[[COL0]], %[[C8]] : index
//  CHECK-NEXT:     vector.load %[[V]][%[[SH]]] {alignment = 16 : i64} : memref<16xf32>, vector<4xf32>
// CHECK-COUNT-3:   vector.load %[[V]][%{{[^]]+}}] {alignment = 16 : i64} : memref<16xf32>
//       CHECK:   gpu.return
func.func @shared(%x: memref<?x64xf32>, %v: memref<16xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 32 : i64, stream_blocks = 0 : i64, threads_per_row = 4 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %w = tile.load %x[%r] : memref<?x64xf32> -> tensor<64xf32>
  %s = tile.load %v {col_offset = 8 : i64} : memref<16xf32> -> tensor<64xf32>
  %t = arith.mulf %w, %s : tensor<64xf32>
  tile.store %t, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}

// -----

// Rows split over 2 CTAs (col_blocks = 2): the other half of the row is in
// the other CTA, so the window at +128 is loaded from memory even though
// 128 is a multiple of TPR * V = 64 (2 whole-row loads + 2 window loads).
// CHECK-LABEL: gpu.func @col_blocks
//  CHECK-SAME:   (%[[X:.+]]: memref<?x256xf32>, %{{.+}}: memref<?x256xf32>)
// CHECK-COUNT-2:   vector.load %[[X]][%{{.+}}, %{{[^]]+}}] {alignment = 16 : i64}
//       CHECK:   arith.cmpi ult, %{{.+}}, %{{.+}} : index
//       CHECK:   arith.addi %{{.+}}, %{{.+}} : index
//  CHECK-NEXT:   vector.load %[[X]]
//       CHECK:   arith.addi %{{.+}}, %{{.+}} : index
//  CHECK-NEXT:   vector.load %[[X]]
//   CHECK-NOT:   vector.load
//       CHECK:   gpu.return
func.func @col_blocks(%x: memref<?x256xf32>, %out: memref<?x256xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 256>, tile.schedule = {chunks = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 16 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %w = tile.load %x[%r] : memref<?x256xf32> -> tensor<256xf32>
  %h = tile.load %x[%r] {col_offset = 128 : i64} : memref<?x256xf32> -> tensor<256xf32>
  %t = arith.addf %w, %h : tensor<256xf32>
  tile.store %t, %out[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}
