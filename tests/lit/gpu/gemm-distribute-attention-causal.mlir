// RUN: tilec-opt --split-input-file --tilec-distribute-gemm-tiles %s | FileCheck %s

// Causal flash attention: the scores are the product plus a tile.causal_mask
// of the row (offset 0: a square mask). The CTAs take the last row blocks
// first (block id b: batch b % 2, row block 3 - b / 2), and the key loop
// ends at the block holding the CTA's last row's last key: that row is
// min(m0 + 63, 199), its position in its run of 200 rows (or 199 where
// the CTA's rows cross into the next run), over 64 keys a block, plus one,
// at most the 4 blocks. A block whose last key is past the CTA's least
// limit (its first row's, m0 % 200, or 0 where the rows cross into the
// next run) takes the scores with the mask's compares (the diagonal);
// the others without (the other branch of an scf.if of the 16 score
// pairs).
// CHECK-LABEL: gpu.func @causal_kernel0
//       CHECK:   %[[BID:.+]] = gpu.block_id  x
//       CHECK:   arith.remui %[[BID]], %c2
//       CHECK:   %[[BLK:.+]] = arith.divui %[[BID]], %c2
//       CHECK:   %[[ROWBLK:.+]] = arith.subi %c3, %[[BLK]]
//       CHECK:   %[[M0:.+]] = arith.muli %[[ROWBLK]], %c64
//       CHECK:   %[[LAST0:.+]] = arith.addi %[[M0]], %c63
//       CHECK:   %[[LAST:.+]] = arith.minui %[[LAST0]], %c199
//       CHECK:   %[[RUN1:.+]] = arith.divui %[[LAST]], %c200
//       CHECK:   %[[RUN0:.+]] = arith.divui %[[M0]], %c200
//       CHECK:   %[[SAME:.+]] = arith.cmpi eq, %[[RUN0]], %[[RUN1]]
//       CHECK:   %[[POS:.+]] = arith.remui %[[LAST]], %c200
//       CHECK:   %[[LASTPOS:.+]] = arith.select %[[SAME]], %[[POS]], %c199
//       CHECK:   %[[B:.+]] = arith.divui %[[LASTPOS]], %c64
//       CHECK:   %[[B1:.+]] = arith.addi %[[B]], %c1
//       CHECK:   %[[END:.+]] = arith.minui %[[B1]], %c4
//       CHECK:   %[[PAST:.+]] = arith.cmpi ule, %[[END]]
//       CHECK:   %[[LEFT:.+]] = arith.subi %[[END]]
//       CHECK:   %[[NONE:.+]] = arith.select %[[PAST]], %{{.+}}, %[[LEFT]]
//       CHECK:   %[[COUNT:.+]] = arith.minui %c4, %[[NONE]]
//       CHECK:   %[[FIRSTPOS:.+]] = arith.remui %[[M0]], %c200
//       CHECK:   %[[LEAST:.+]] = arith.select %[[SAME]], %[[FIRSTPOS]], %c0
//       CHECK:   scf.for %{{.+}} = %{{.+}} to %[[COUNT]] step
//       CHECK:     nvvm.mma.sync
//       CHECK:     %[[LASTKEY:.+]] = arith.addi %{{.+}}, %c63
//       CHECK:     %[[MASKED:.+]] = arith.cmpi sgt, %[[LASTKEY]], %[[LEAST]]
//       CHECK:     scf.if %[[MASKED]] -> (vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>)
//       CHECK:       arith.cmpi sle
//       CHECK:       arith.select
//       CHECK:     } else {
//   CHECK-NOT:       arith.cmpi sle
//       CHECK:     }
//       CHECK:     gpu.shuffle  xor
//       CHECK:     scf.yield
//       CHECK:   gpu.return
module {
  func.func @causal_kernel0(%arg0: memref<?x64xbf16>, %arg1: memref<2x200x64xbf16>, %arg3: memref<2x200x32xbf16>, %arg4: memref<?x32xbf16>) attributes {tile.attention, tile.domain = array<i64: 2, 200, 32>, tile.gemm, tile.kernel, tile.max_registers = 255 : i64, tile.schedule = {attention = 1 : i64, block_m = 64 : i64, block_n = 64 : i64, grid = 8 : i64, group_m = 1 : i64, shared_bytes = 32768 : i64, stages = 2 : i64, threads = 128 : i64, warps_m = 4 : i64}} {
    %cst = arith.constant 1.250000e-01 : f32
    %0 = tile.row_id
    %1 = tile.matmul %arg0, %arg1[%0] {transpose_b = true} : memref<?x64xbf16>, memref<2x200x64xbf16> -> tensor<200xf32>
    %2 = tile.splat %cst : f32 -> tensor<200xf32>
    %3 = arith.mulf %1, %2 : tensor<200xf32>
    %5 = tile.causal_mask %0 {period = 200 : i64, offset = 0 : i64} : tensor<200xf32>
    %6 = arith.addf %3, %5 : tensor<200xf32>
    %7 = tile.reduce_max %6 : tensor<200xf32> -> f32
    %8 = tile.splat %7 : f32 -> tensor<200xf32>
    %9 = arith.subf %6, %8 : tensor<200xf32>
    %10 = math.exp %9 : tensor<200xf32>
    %11 = tile.reduce_sum %10 : tensor<200xf32> -> f32
    %12 = tile.splat %11 : f32 -> tensor<200xf32>
    %13 = arith.divf %10, %12 : tensor<200xf32>
    %14 = arith.truncf %13 : tensor<200xf32> to tensor<200xbf16>
    %15 = tile.row_matmul %14, %arg3[%0] : tensor<200xbf16>, memref<2x200x32xbf16> -> tensor<32xf32>
    %16 = arith.truncf %15 : tensor<32xf32> to tensor<32xbf16>
    tile.store %16, %arg4[%0] : tensor<32xbf16> -> memref<?x32xbf16>
    return
  }
}

// -----

// A sliding window of 100 keys: the loop starts at the block of the least
// first key a row sees (the least limit - 99, at least 0, over 64), its
// count what is left of the blocks to the end; a block is masked where its
// last key is past the least limit or its first key before the greatest
// first key (the last row's limit - 99).
// CHECK-LABEL: gpu.func @window_kernel0
//       CHECK:   %[[COUNT:.+]] = arith.minui %c4, %{{.+}}
//       CHECK:   %[[LEAST:.+]] = arith.select %{{.+}}, %{{.+}}, %c0
//       CHECK:   %[[FIRST:.+]] = arith.addi %[[LEAST]], %c-99
//       CHECK:   %[[NEG:.+]] = arith.cmpi slt, %[[FIRST]], %c0
//       CHECK:   %[[FROM:.+]] = arith.select %[[NEG]], %{{.+}}, %[[FIRST]]
//       CHECK:   %[[LOW:.+]] = arith.divui %[[FROM]], %c64
//       CHECK:   %[[STOP:.+]] = arith.addi %{{.+}}, %[[COUNT]]
//       CHECK:   %[[START:.+]] = arith.maxui %{{.+}}, %[[LOW]]
//       CHECK:   %[[NONE:.+]] = arith.cmpi ule, %[[STOP]], %[[START]]
//       CHECK:   %[[LEFT:.+]] = arith.subi %[[STOP]], %[[START]]
//       CHECK:   %[[N:.+]] = arith.select %[[NONE]], %{{.+}}, %[[LEFT]]
//       CHECK:   %[[GREATEST:.+]] = arith.addi %{{.+}}, %c-99
//       CHECK:   scf.for %{{.+}} = %{{.+}} to %[[N]] step
//       CHECK:     %[[PAST:.+]] = arith.cmpi sgt, %{{.+}}, %[[LEAST]]
//       CHECK:     %[[BEFORE:.+]] = arith.cmpi slt, %{{.+}}, %[[GREATEST]]
//       CHECK:     %[[MASKED:.+]] = arith.ori %[[PAST]], %[[BEFORE]]
//       CHECK:     scf.if %[[MASKED]]
module {
  func.func @window_kernel0(%arg0: memref<?x64xbf16>, %arg1: memref<2x200x64xbf16>, %arg3: memref<2x200x32xbf16>, %arg4: memref<?x32xbf16>) attributes {tile.attention, tile.domain = array<i64: 2, 200, 32>, tile.gemm, tile.kernel, tile.max_registers = 255 : i64, tile.schedule = {attention = 1 : i64, block_m = 64 : i64, block_n = 64 : i64, grid = 8 : i64, group_m = 1 : i64, shared_bytes = 32768 : i64, stages = 2 : i64, threads = 128 : i64, warps_m = 4 : i64}} {
    %cst = arith.constant 1.250000e-01 : f32
    %0 = tile.row_id
    %1 = tile.matmul %arg0, %arg1[%0] {transpose_b = true} : memref<?x64xbf16>, memref<2x200x64xbf16> -> tensor<200xf32>
    %2 = tile.splat %cst : f32 -> tensor<200xf32>
    %3 = arith.mulf %1, %2 : tensor<200xf32>
    %5 = tile.causal_mask %0 {period = 200 : i64, offset = 0 : i64, window = 100 : i64} : tensor<200xf32>
    %6 = arith.addf %3, %5 : tensor<200xf32>
    %7 = tile.reduce_max %6 : tensor<200xf32> -> f32
    %8 = tile.splat %7 : f32 -> tensor<200xf32>
    %9 = arith.subf %6, %8 : tensor<200xf32>
    %10 = math.exp %9 : tensor<200xf32>
    %11 = tile.reduce_sum %10 : tensor<200xf32> -> f32
    %12 = tile.splat %11 : f32 -> tensor<200xf32>
    %13 = arith.divf %10, %12 : tensor<200xf32>
    %14 = arith.truncf %13 : tensor<200xf32> to tensor<200xbf16>
    %15 = tile.row_matmul %14, %arg3[%0] : tensor<200xbf16>, memref<2x200x32xbf16> -> tensor<32xf32>
    %16 = arith.truncf %15 : tensor<32xf32> to tensor<32xbf16>
    tile.store %16, %arg4[%0] : tensor<32xbf16> -> memref<?x32xbf16>
    return
  }
}

// -----

// Persistent (TMA) causal CTAs over grouped rows: 8 tiles of 128 rows, two
// batches of two runs of 256 (each run two row blocks). CTA c takes waves
// of `grid` tiles in alternating order: waves = 8 / grid whole ones, and
// of the last (8 % grid tiles) the first CTAs where the whole waves are
// even, the last ones where they are odd; wave t's tile is t grid + c, or
// t grid + grid - 1 - c for odd t. A tile's rows: its place in its run
// (tile / 4, heaviest first: place 0 is a run's last row block), then the
// batch (tile % 4 % 2) and the run (tile % 4 / 2): m0 = (run 2 + 1 -
// place) 128.
// CHECK-LABEL: gpu.func @grouped_kernel0
//       CHECK:   gpu.barrier
//       CHECK:   %[[CTA:.+]] = gpu.block_id  x
//       CHECK:   %[[GRID:.+]] = gpu.grid_dim  x
//       CHECK:   %[[WAVES:.+]] = arith.divui %c8, %[[GRID]]
//       CHECK:   %[[LEFT:.+]] = arith.remui %c8{{.*}}, %[[GRID]]
//       CHECK:   %[[PAR:.+]] = arith.remui %[[WAVES]], %c2
//       CHECK:   %[[ODD:.+]] = arith.cmpi eq, %[[PAR]], %c1
//       CHECK:   %[[FIRSTS:.+]] = arith.cmpi ult, %[[CTA]], %[[LEFT]]
//       CHECK:   %[[FROM:.+]] = arith.subi %[[GRID]], %[[LEFT]]
//       CHECK:   %[[LASTS:.+]] = arith.cmpi uge, %[[CTA]], %[[FROM]]
//       CHECK:   %[[EXTRA:.+]] = arith.select %[[ODD]], %[[LASTS]], %[[FIRSTS]]
//       CHECK:   %[[ONE:.+]] = arith.select %[[EXTRA]], %c1{{.*}}, %c0
//       CHECK:   %[[TILES:.+]] = arith.addi %[[WAVES]], %[[ONE]]
//       CHECK:   nvvm.setmaxregister  increase 232
//       CHECK:   scf.for %[[T:.+]] = %c0{{.*}} to %[[TILES]] step %c1
//       CHECK:     %[[TP:.+]] = arith.remui %[[T]], %c2
//       CHECK:     %[[TODD:.+]] = arith.cmpi eq, %[[TP]], %c1
//       CHECK:     %[[R0:.+]] = arith.subi %[[GRID]], %[[CTA]]
//       CHECK:     %[[R:.+]] = arith.subi %[[R0]], %c1
//       CHECK:     %[[IN:.+]] = arith.select %[[TODD]], %[[R]], %[[CTA]]
//       CHECK:     %[[BASE:.+]] = arith.muli %[[T]], %[[GRID]]
//       CHECK:     %[[TILE:.+]] = arith.addi %[[BASE]], %[[IN]]
//       CHECK:     %[[PLACE:.+]] = arith.divui %[[TILE]], %c4
//       CHECK:     %[[UNIT:.+]] = arith.remui %[[TILE]], %c4
//       CHECK:     arith.remui %[[UNIT]], %c2
//       CHECK:     %[[RUNIDX:.+]] = arith.divui %[[UNIT]], %c2
//       CHECK:     %[[BACK:.+]] = arith.subi %c1{{.*}}, %[[PLACE]]
//       CHECK:     %[[RUNBLK:.+]] = arith.muli %[[RUNIDX]], %c2
//       CHECK:     %[[BLK:.+]] = arith.addi %[[RUNBLK]], %[[BACK]]
//       CHECK:     arith.muli %[[BLK]], %c128
//       CHECK:   gpu.return
module {
  func.func @grouped_kernel0(%arg0: memref<?x64xbf16>, %arg1: memref<2x256x64xbf16>, %arg3: memref<2x256x64xbf16>, %arg4: memref<?x64xbf16>) attributes {tile.attention, tile.domain = array<i64: 2, 512, 64>, tile.gemm, tile.kernel, tile.max_registers = 168 : i64, tile.schedule = {attention = 1 : i64, block_m = 128 : i64, block_n = 64 : i64, grid = 8 : i64, group_m = 1 : i64, persistent = 1 : i64, pingpong = 1 : i64, shared_bytes = 90000 : i64, stages = 2 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, wgmma = 1 : i64}, tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 1024, 64>}, {arg = 1 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 2, 256, 64>}, {arg = 2 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 2, 256, 64>}]} {
    %cst = arith.constant 1.250000e-01 : f32
    %0 = tile.row_id
    %1 = tile.matmul %arg0, %arg1[%0] {transpose_b = true} : memref<?x64xbf16>, memref<2x256x64xbf16> -> tensor<256xf32>
    %2 = tile.splat %cst : f32 -> tensor<256xf32>
    %3 = arith.mulf %1, %2 : tensor<256xf32>
    %5 = tile.causal_mask %0 {period = 256 : i64, offset = 0 : i64} : tensor<256xf32>
    %6 = arith.addf %3, %5 : tensor<256xf32>
    %7 = tile.reduce_max %6 : tensor<256xf32> -> f32
    %8 = tile.splat %7 : f32 -> tensor<256xf32>
    %9 = arith.subf %6, %8 : tensor<256xf32>
    %10 = math.exp %9 : tensor<256xf32>
    %11 = tile.reduce_sum %10 : tensor<256xf32> -> f32
    %12 = tile.splat %11 : f32 -> tensor<256xf32>
    %13 = arith.divf %10, %12 : tensor<256xf32>
    %14 = arith.truncf %13 : tensor<256xf32> to tensor<256xbf16>
    %15 = tile.row_matmul %14, %arg3[%0] : tensor<256xbf16>, memref<2x256x64xbf16> -> tensor<64xf32>
    %16 = arith.truncf %15 : tensor<64xf32> to tensor<64xbf16>
    tile.store %16, %arg4[%0] : tensor<64xbf16> -> memref<?x64xbf16>
    return
  }
}
