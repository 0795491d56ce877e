// RUN: tilec-opt --tilec-fuse --tilec-lower-fusion-to-tile "--tilec-schedule-row-kernels=transpose-tiles=true transpose-tile-bytes=4" --tilec-distribute-row-tiles --tilec-distribute-transpose-tiles --canonicalize --cse %s | FileCheck %s
// RUN: tilec-opt --tilec-fuse --tilec-lower-fusion-to-tile "--tilec-schedule-row-kernels=transpose-tiles=true transpose-tile-bytes=4" --tilec-distribute-row-tiles --tilec-distribute-transpose-tiles %s | FileCheck %s --check-prefix=ODD
// RUN: tilec-opt --tilec-fuse --tilec-lower-fusion-to-tile "--tilec-schedule-row-kernels=transpose-tiles=true transpose-tile-bytes=4" %s | FileCheck %s --check-prefix=SCHED
// RUN: tilec-opt --tilec-fuse --tilec-lower-fusion-to-tile "--tilec-schedule-row-kernels=transpose-tiles=false" %s | FileCheck %s --check-prefix=STRIDED
// RUN: tilec-opt --tilec-fuse --tilec-lower-fusion-to-tile --tilec-schedule-row-kernels %s | FileCheck %s --check-prefix=DEFAULT
// RUN: tilec-opt --tilec-fuse --tilec-lower-fusion-to-tile --tilec-schedule-row-kernels --tilec-distribute-row-tiles --tilec-distribute-transpose-tiles --canonicalize --cse %s | FileCheck %s --check-prefix=BLOCK

// (transpose-tiles is on by default; false keeps the strided rows,
// tilec-distribute-row-tiles. The CHECK, ODD and SCHED runs take 32-bit
// words, transpose-tile-bytes=4; by default, BLOCK and DEFAULT, K and L
// multiples of 16 / element bytes take 16-byte vectors, below.)

// Swaps of the last dim through shared-memory tiles. A bf16 [128, 64] ->
// [64, 128]: [O, K, M, L] = [1, 128, 1, 64], two tiles of 64 x 64 (32
// words of two elements along K), one CTA of 256 threads each.
// SCHED-LABEL: func.func @whole_kernel0
//  SCHED-SAME:   tile.schedule = {grid = 2 : i64, threads = 256 : i64, tile_k = 64 : i64, tile_l = 64 : i64, word_elements = 2 : i64}
//  SCHED-SAME:   tile.transpose = array<i64: 1, 128, 1, 64>, tile.transpose_tiles
// STRIDED-LABEL: func.func @whole_kernel0
//  STRIDED-SAME:   threads_per_row = 1 : i64, vector_width = 1 : i64
//  STRIDED-NOT:    tile.transpose_tiles

// Lane tx = tid % 32 and warp ty = tid / 32. Each thread loads its words
// of input rows k0 + 2 kw and k0 + 2 kw + 1 (kw = ty, ty + 8, ...) at
// column 2 tx, all eight before any is used; pairs the two rows' words
// into (a0 b0), (a1 b1) for output rows 2 tx and 2 tx + 1, stored at the
// swizzled word column kw ^ tx; and, past the barrier, reads word tx of
// output row r = ty + 8 i at column tx ^ (r / 2 % 32) and writes it at
// column k0 + 2 tx of that output row. Whole tiles: no masks.
// CHECK-LABEL: gpu.func @whole_kernel0
//  CHECK-SAME:   workgroup(%[[S:.+]] : memref<64x64xbf16, #gpu.address_space<workgroup>>)
//  CHECK-SAME:   known_block_size = array<i32: 256, 1, 1>
//       CHECK:   %[[TID:.+]] = gpu.thread_id x
//       CHECK:   %[[TX:.+]] = arith.remui %[[TID]], %c32
//       CHECK:   %[[TY:.+]] = arith.divui %[[TID]], %c32
//   CHECK-NOT:   scf.if
//       CHECK:   %[[A:.+]] = vector.load %arg0[{{.+}}] {alignment = 4 : i64} : memref<1x128x64xbf16>, vector<2xbf16>
//       CHECK:   %[[B:.+]] = vector.load %arg0[{{.+}}] {alignment = 4 : i64} : memref<1x128x64xbf16>, vector<2xbf16>
// CHECK-COUNT-6: vector.load %arg0
//   CHECK-NOT:   vector.store
//       CHECK:   %[[KEY:.+]] = arith.xori %[[TY]], %[[TX]] : index
//       CHECK:   %[[COL:.+]] = arith.muli %[[KEY]], %c2
//       CHECK:   %[[LO:.+]] = vector.shuffle %[[A]], %[[B]] [0, 2]
//       CHECK:   vector.store %[[LO]], %[[S]][%{{.+}}, %[[COL]]] {alignment = 4 : i64}
//       CHECK:   %[[HI:.+]] = vector.shuffle %[[A]], %[[B]] [1, 3]
//       CHECK:   vector.store %[[HI]], %[[S]][%{{.+}}, %[[COL]]] {alignment = 4 : i64}
//       CHECK:   gpu.barrier
//       CHECK:   %[[SW:.+]] = arith.xori %[[TX]], %{{.+}} : index
//       CHECK:   %[[RCOL:.+]] = arith.muli %[[SW]], %c2
//       CHECK:   %[[W:.+]] = vector.load %[[S]][%[[TY]], %[[RCOL]]] {alignment = 4 : i64}
//       CHECK:   vector.store %[[W]], %arg1[%{{.+}}, %{{.+}}] {alignment = 4 : i64} : memref<?x128xbf16>, vector<2xbf16>
//   CHECK-NOT:   gpu.barrier
//       CHECK:   gpu.return
func.func @whole(%x: tensor<128x64xbf16>) -> tensor<64x128xbf16> {
  %t = graph.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<128x64xbf16>) -> tensor<64x128xbf16>
  return %t : tensor<64x128xbf16>
}

// f32 [3, 70, 5, 200] dims 1 and 3: [O, K, M, L] = [3, 70, 5, 200], one
// element a word, 3 x 5 slabs of 3 x 4 tiles of 32 x 64. The last tile
// along K (kt = 2) or L (lt = 3) takes the masked copy: each load under
// k < 70 and l < 200 (else zero), each store under both.
// SCHED-LABEL: func.func @slabs_kernel0
//  SCHED-SAME:   tile.schedule = {grid = 180 : i64, threads = 256 : i64, tile_k = 32 : i64, tile_l = 64 : i64, word_elements = 1 : i64}
// CHECK-LABEL: gpu.func @slabs_kernel0
//  CHECK-SAME:   workgroup(%[[S:.+]] : memref<64x32xf32, #gpu.address_space<workgroup>>)
//       CHECK:   %[[LT:.+]] = arith.remui %block_id_x, %c4
//       CHECK:   %[[REST:.+]] = arith.divui %block_id_x, %c4
//       CHECK:   %[[KT:.+]] = arith.remui %[[REST]], %c3
//       CHECK:   %[[SLAB:.+]] = arith.divui %[[REST]], %c3
//       CHECK:   arith.divui %[[SLAB]], %c5
//       CHECK:   arith.remui %[[SLAB]], %c5
//       CHECK:   %[[KIN:.+]] = arith.cmpi ult, %[[KT]], %c2
//       CHECK:   %[[LIN:.+]] = arith.cmpi ult, %[[LT]], %c3
//       CHECK:   %[[WHOLE:.+]] = arith.andi %[[KIN]], %[[LIN]]
//       CHECK:   scf.if %[[WHOLE]] {
//   CHECK-NOT:     scf.if
//       CHECK:     gpu.barrier
//       CHECK:   } else {
//       CHECK:     %[[LOK:.+]] = arith.cmpi ult, %{{.+}}, %c200
//       CHECK:     %[[KOK:.+]] = arith.cmpi ult, %{{.+}}, %c70
//       CHECK:     %[[OK:.+]] = arith.andi %[[LOK]], %[[KOK]]
//       CHECK:     scf.if %[[OK]] -> (vector<1xf32>) {
//       CHECK:       vector.load %arg0
//       CHECK:     } else {
//       CHECK:       scf.yield %cst : vector<1xf32>
//       CHECK:     gpu.barrier
//       CHECK:     scf.if
//       CHECK:       vector.store %{{.+}}, %arg1
func.func @slabs(%x: tensor<3x70x5x200xf32>) -> tensor<3x200x5x70xf32> {
  %t = graph.transpose %x {dim0 = 1 : i64, dim1 = 3 : i64} : (tensor<3x70x5x200xf32>) -> tensor<3x200x5x70xf32>
  return %t : tensor<3x200x5x70xf32>
}

// bf16 with an odd dim (words would straddle rows) and a dim under 8 keep
// the strided rows.
// SCHED-LABEL: func.func @odd_kernel0
//  SCHED-SAME:   threads_per_row = 1 : i64, vector_width = 1 : i64
//  SCHED-NOT:    tile.transpose_tiles
//  SCHED-SAME:   tile.transpose = array<i64: 1, 64, 1, 33>
// SCHED-LABEL: func.func @narrow_kernel0
//  SCHED-NOT:    tile.transpose_tiles
//  SCHED-SAME:   tile.transpose = array<i64: 1, 4, 1, 64>
// (Row kernels come first in the gpu.module.)
// ODD-LABEL: gpu.func @odd_kernel0
//   ODD-NOT:   gpu.barrier
//       ODD:   gpu.return
// ODD-LABEL: gpu.func @narrow_kernel0
//   ODD-NOT:   gpu.barrier
//       ODD:   gpu.return
// ODD-LABEL: gpu.func @whole_kernel0
func.func @odd(%x: tensor<64x33xbf16>) -> tensor<33x64xbf16> {
  %t = graph.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<64x33xbf16>) -> tensor<33x64xbf16>
  return %t : tensor<33x64xbf16>
}
func.func @narrow(%x: tensor<4x64xf32>) -> tensor<64x4xf32> {
  %t = graph.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<4x64xf32>) -> tensor<64x4xf32>
  return %t : tensor<64x4xf32>
}

// By default, with K and L multiples of v = 16 / element bytes: 16-byte
// vectors, a v x v block a thread, tiles of 16 v x 16 v. bf16 [256, 128]:
// [O, K, M, L] = [1, 256, 1, 128], two whole tiles of 128 x 128.
// (32-bit words where K or L is not a multiple of v: f32 K = 70.)
// DEFAULT-LABEL: func.func @slabs_kernel0
//  DEFAULT-SAME:   word_elements = 1 : i64
// DEFAULT-LABEL: func.func @blocks_kernel0
//  DEFAULT-SAME:   tile.schedule = {grid = 2 : i64, threads = 256 : i64, tile_k = 128 : i64, tile_l = 128 : i64, vector_elements = 8 : i64}
// DEFAULT-LABEL: func.func @partial_kernel0
//  DEFAULT-SAME:   tile.schedule = {grid = 120 : i64, threads = 256 : i64, tile_k = 64 : i64, tile_l = 64 : i64, vector_elements = 4 : i64}
//
// Chunk lc = tid % 16 along L, group kg = tid / 16 along K. Eight 16-byte
// loads (input rows k0 + 8 kg + e at column 8 lc) before any use; the
// block's column j (elements e = 0..7 of the eight rows) is output row
// 8 lc + j, stored at shared chunk kg ^ (lc % 8); past the barrier, row
// r = kg + 16 i, chunk lc read at lc ^ (r / 8 % 8) and written at column
// k0 + 8 lc of output row l0 + r.
// BLOCK-LABEL: gpu.func @blocks_kernel0
//  BLOCK-SAME:   workgroup(%[[S:.+]] : memref<128x128xbf16, #gpu.address_space<workgroup>>)
//       BLOCK:   %[[LC:.+]] = arith.remui %{{.+}}, %c16
//       BLOCK:   %[[KG:.+]] = arith.divui %{{.+}}, %c16
//   BLOCK-NOT:   scf.if
// BLOCK-COUNT-8: vector.load %arg0[{{.+}}] {alignment = 16 : i64} : memref<1x256x128xbf16>, vector<8xbf16>
//   BLOCK-NOT:   vector.store
//       BLOCK:   %[[LC8:.+]] = arith.remui %[[LC]], %c8
//       BLOCK:   %[[KEY:.+]] = arith.xori %[[KG]], %[[LC8]] : index
//       BLOCK:   %[[COL:.+]] = arith.muli %[[KEY]], %c8
//       BLOCK:   %[[COLUMN:.+]] = vector.from_elements
//       BLOCK:   vector.store %[[COLUMN]], %[[S]][%{{.+}}, %[[COL]]] {alignment = 16 : i64} : memref<128x128xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// BLOCK-COUNT-7: vector.store %{{.+}}, %[[S]][%{{.+}}, %[[COL]]] {alignment = 16 : i64}
//       BLOCK:   gpu.barrier
// BLOCK-COUNT-8: vector.store %{{.+}}, %arg1[%{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<?x256xbf16>, vector<8xbf16>
//   BLOCK-NOT:   gpu.barrier
//       BLOCK:   gpu.return
func.func @blocks(%x: tensor<256x128xbf16>) -> tensor<128x256xbf16> {
  %t = graph.transpose %x {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<256x128xbf16>) -> tensor<128x256xbf16>
  return %t : tensor<128x256xbf16>
}

// f32 [3, 72, 5, 200] dims 1 and 3: 3 x 5 slabs of 2 x 4 tiles of 64 x 64;
// the last tile along K or L takes the masked copy, each 16-byte chunk
// wholly in or out.
// BLOCK-LABEL: gpu.func @partial_kernel0
//  BLOCK-SAME:   workgroup(%{{.+}} : memref<64x64xf32, #gpu.address_space<workgroup>>)
//       BLOCK:   scf.if %{{.+}} {
// BLOCK-COUNT-4:   vector.load %arg0[{{.+}}] {alignment = 16 : i64} : memref<3x72x1000xf32>, vector<4xf32>
//       BLOCK:     gpu.barrier
//       BLOCK:   } else {
//       BLOCK:     %[[LOK:.+]] = arith.cmpi ult, %{{.+}}, %c200
//       BLOCK:     %[[KOK:.+]] = arith.cmpi ult, %{{.+}}, %c72
//       BLOCK:     %[[OK:.+]] = arith.andi %[[LOK]], %[[KOK]]
//       BLOCK:     scf.if %[[OK]] -> (vector<4xf32>) {
//       BLOCK:       vector.load %arg0
//       BLOCK:     } else {
//       BLOCK:       scf.yield %{{.+}} : vector<4xf32>
//       BLOCK:     gpu.barrier
//       BLOCK:     scf.if
//       BLOCK:       vector.store %{{.+}}, %arg1{{.+}} {alignment = 16 : i64} : memref<?x72xf32>, vector<4xf32>
func.func @partial(%x: tensor<3x72x5x200xf32>) -> tensor<3x200x5x72xf32> {
  %t = graph.transpose %x {dim0 = 1 : i64, dim1 = 3 : i64} : (tensor<3x72x5x200xf32>) -> tensor<3x200x5x72xf32>
  return %t : tensor<3x200x5x72xf32>
}
