// RUN: tilec-opt --tilec-distribute-row-tiles %s | FileCheck %s

// l2_prefetch_first without l2_prefetch_rows (DistributeRowTiles.cpp,
// prefetchRowsAhead with 0 blocks ahead): every CTA prefetches its own
// slice of its row, before any load, each prefetch marked to go ahead of
// the dependent-launch wait (the schedule's choice for rows split over a
// cluster in one wave: schedule-l2-prefetch.mlir). Softmax over 2 rows of
// 4096 f32 in clusters of 4 CTAs: a CTA's slice is 4096 bytes from column
// block cb * 4096, 33 lines (one more where it starts off a line), a line
// a thread of 256. The guard is the line's own (its row below the row
// count, the line below the slice's end, thread below 33), with no "first
// blocks" check; nothing is prefetched ahead.

// CHECK-LABEL: gpu.func @cluster_softmax(
// CHECK-SAME:    %[[X:[^:]+]]: memref<?x4096xf32>
// CHECK:         %[[CB:.+]] = arith.remui %{{.+}}, %c4 : index
// CHECK:         %[[ROWS:.+]] = memref.dim %[[X]], %c0
// CHECK-NOT:     nvvm.prefetch
// CHECK:         %[[BASE:.+]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK:         %[[BLOCKROW:.+]] = arith.subi
// CHECK:         %[[OWN:.+]] = arith.addi %[[BLOCKROW]], %c0{{.*}} : index
// CHECK:         %[[SLICE:.+]] = arith.muli %[[CB]], %c4096 : index
// CHECK:         %[[SLICEEND:.+]] = arith.addi %[[SLICE]], %c4096{{.*}} : index
// CHECK:         arith.minui %[[SLICEEND]], %c16384 : index
// CHECK-NOT:     arith.cmpi ult, %[[BLOCKROW]]
// CHECK:         %[[Q:.+]] = arith.divui %[[E:.+]], %c33 : index
// CHECK:         %[[R:.+]] = arith.addi %[[OWN]], %[[Q]] : index
// CHECK:         %[[INROW:.+]] = arith.cmpi ult, %{{.+}}, %{{.+}} : index
// CHECK:         %[[LIVE:.+]] = arith.cmpi ult, %[[R]], %[[ROWS]] : index
// CHECK:         %[[BOTH:.+]] = arith.andi %[[LIVE]], %[[INROW]] : i1
// CHECK:         %[[ONE:.+]] = arith.cmpi ult, %[[E]], %c33{{.*}} : index
// CHECK:         %[[OK:.+]] = arith.andi %[[BOTH]], %[[ONE]] : i1
// CHECK:         scf.if %[[OK]] {
// CHECK:           nvvm.prefetch level = L2, %{{.+}} {tilec.ahead_of_wait}
// CHECK:         }
// CHECK:         vector.load %[[X]]
// CHECK-NOT:     nvvm.prefetch
// CHECK:         gpu.return

func.func @cluster_softmax(%in: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 4096>, tile.schedule = {chunks = 1 : i64, cluster = 4 : i64, col_blocks = 4 : i64, l2_prefetch_first = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xf32> -> tensor<4096xf32>
  %m = tile.reduce_max %t : tensor<4096xf32> -> f32
  %b = tile.splat %m : f32 -> tensor<4096xf32>
  %d = arith.subf %t, %b : tensor<4096xf32>
  %e = math.exp %d : tensor<4096xf32>
  %s = tile.reduce_sum %e : tensor<4096xf32> -> f32
  %bs = tile.splat %s : f32 -> tensor<4096xf32>
  %y = arith.divf %e, %bs : tensor<4096xf32>
  tile.store %y, %out[%r] : tensor<4096xf32> -> memref<?x4096xf32>
  return
}
