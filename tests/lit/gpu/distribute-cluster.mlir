// RUN: tilec-opt --split-input-file --tilec-distribute-row-tiles %s | FileCheck %s

// Rows with reductions split over a thread-block cluster (sm_90a schedules
// with `cluster` = col_blocks = C; see schedule-cluster.mlir for when the
// schedule picks them). CTA bid takes column block bid % C of row bid / C;
// the kernel gets nvvm.cluster_dim = [C, 1, 1] (.reqnctapercluster: a plain
// launch of rows * C CTAs forms the clusters). Each reduction, after the
// usual one within the CTA (shuffles, then warps through shared memory):
//  * thread 0 stores the CTA's partial in a one-float workgroup slot of the
//    reduction's own (never rewritten, so one barrier suffices);
//  * an aligned cluster arrive (release) + wait (acquire), reached by every
//    thread of every CTA (nothing is under a row or column guard);
//  * every thread maps the slot's address to each rank 0 .. C-1 (nvvm.mapa
//    to shared::cluster, address space 7), loads the C partials and
//    combines them in rank order, a chain that is the same in every CTA, so
//    all CTAs of the row get bitwise the same result.
// After the last reduction's loads one more arrive, and before the return
// its wait: no CTA exits (freeing its shared memory) while another may
// still read it, and the stores in between overlap the other CTAs' reads.

// softmax, 4096 f32 over 4 CTAs of 256 threads (8 warps), one vector each:
// 4 * 256 * 4 = 4096, no column mask.
// CHECK-LABEL: gpu.func @cluster_softmax
//  CHECK-SAME:   workgroup(%[[W0:.+]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[W1:.+]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[S0:.+]] : memref<1xf32, #gpu.address_space<workgroup>>, %[[S1:.+]] : memref<1xf32, #gpu.address_space<workgroup>>)
//  CHECK-SAME:   kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.cluster_dim = array<i32: 4, 1, 1>
//       CHECK:   %[[TID:.+]] = gpu.thread_id x
//  CHECK-NEXT:   %[[BID:.+]] = gpu.block_id x
//       CHECK:   %[[LANE:.+]] = arith.remui %[[TID]]
//       CHECK:   %[[C4:.+]] = arith.constant 4 : index
//  CHECK-NEXT:   %[[CB:.+]] = arith.remui %[[BID]], %[[C4]] : index
//       CHECK:   arith.divui %[[BID]], %{{.+}} : index
//       CHECK:   %[[C256:.+]] = arith.constant 256 : index
//  CHECK-NEXT:   arith.muli %[[CB]], %[[C256]] : index
//   CHECK-NOT:   arith.cmpi ult
// The max: within the CTA, then thread 0 publishes it.
//       CHECK:   vector.reduction <maximumf>
//       CHECK:   gpu.barrier
//  CHECK-COUNT-8: memref.load %[[W0]]
//       CHECK:   %[[CTAMAX:.+]] = arith.maximumf
//  CHECK-NEXT:   %[[Z:.+]] = arith.constant 0 : index
//  CHECK-NEXT:   %[[T0:.+]] = arith.cmpi eq, %[[LANE]], %[[Z]] : index
//  CHECK-NEXT:   scf.if %[[T0]] {
//  CHECK-NEXT:     %[[Z2:.+]] = arith.constant 0 : index
//  CHECK-NEXT:     memref.store %[[CTAMAX]], %[[S0]][%[[Z2]]] : memref<1xf32, #gpu.address_space<workgroup>>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   nvvm.cluster.arrive {aligned}
//  CHECK-NEXT:   nvvm.cluster.wait {aligned}
//  CHECK-NEXT:   %[[I0:.+]] = memref.extract_aligned_pointer_as_index %[[S0]]
//  CHECK-NEXT:   %[[A0:.+]] = arith.index_cast %[[I0]] : index to i64
//  CHECK-NEXT:   %[[P0:.+]] = llvm.inttoptr %[[A0]] : i64 to !llvm.ptr<3>
//  CHECK-NEXT:   %[[R0:.+]] = arith.constant 0 : i32
//  CHECK-NEXT:   %[[M0:.+]] = nvvm.mapa %[[P0]], %[[R0]] : !llvm.ptr<3> -> !llvm.ptr<7>
//  CHECK-NEXT:   %[[X0:.+]] = llvm.load %[[M0]] : !llvm.ptr<7> -> f32
//  CHECK-NEXT:   %[[R1:.+]] = arith.constant 1 : i32
//  CHECK-NEXT:   %[[M1:.+]] = nvvm.mapa %[[P0]], %[[R1]] : !llvm.ptr<3> -> !llvm.ptr<7>
//  CHECK-NEXT:   %[[X1:.+]] = llvm.load %[[M1]] : !llvm.ptr<7> -> f32
//  CHECK-NEXT:   %[[Y1:.+]] = arith.maximumf %[[X0]], %[[X1]] : f32
//  CHECK-NEXT:   %[[R2:.+]] = arith.constant 2 : i32
//  CHECK-NEXT:   %[[M2:.+]] = nvvm.mapa %[[P0]], %[[R2]] : !llvm.ptr<3> -> !llvm.ptr<7>
//  CHECK-NEXT:   %[[X2:.+]] = llvm.load %[[M2]] : !llvm.ptr<7> -> f32
//  CHECK-NEXT:   %[[Y2:.+]] = arith.maximumf %[[Y1]], %[[X2]] : f32
//  CHECK-NEXT:   %[[R3:.+]] = arith.constant 3 : i32
//  CHECK-NEXT:   %[[M3:.+]] = nvvm.mapa %[[P0]], %[[R3]] : !llvm.ptr<3> -> !llvm.ptr<7>
//  CHECK-NEXT:   %[[X3:.+]] = llvm.load %[[M3]] : !llvm.ptr<7> -> f32
//  CHECK-NEXT:   %[[MAX:.+]] = arith.maximumf %[[Y2]], %[[X3]] : f32
//   CHECK-NOT:   nvvm.mapa
//  CHECK-NEXT:   vector.broadcast %[[MAX]]
// The sum: its own warp buffer and slot, then the exit barrier's arrive.
//       CHECK:   vector.reduction <add>
//       CHECK:   gpu.barrier
//  CHECK-COUNT-8: memref.load %[[W1]]
//       CHECK:   memref.store %{{.+}}, %[[S1]][%{{.+}}]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   nvvm.cluster.arrive {aligned}
//  CHECK-NEXT:   nvvm.cluster.wait {aligned}
//  CHECK-NEXT:   memref.extract_aligned_pointer_as_index %[[S1]]
//  CHECK-COUNT-4: nvvm.mapa
//       CHECK:   %[[SUM:.+]] = arith.addf %{{.+}}, %{{.+}} : f32
//  CHECK-NEXT:   nvvm.cluster.arrive {aligned}
//  CHECK-NEXT:   vector.broadcast %[[SUM]]
//       CHECK:   vector.store %{{.+}} : memref<?x4096xf32>, vector<4xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   nvvm.cluster.wait {aligned}
//  CHECK-NEXT:   gpu.return
func.func @cluster_softmax(%in: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 4096>, tile.schedule = {chunks = 1 : i64, cluster = 4 : i64, col_blocks = 4 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}} {
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

// -----

// Masking: 1000 f32 over 2 CTAs of one warp, 4 vectors a thread (2 * 4 *
// 32 * 4 = 1024 columns): chunk 3 of block 1 can leave the row, so it
// contributes the identity (-inf for the max) to the CTA's partial. One
// warp: no warp buffer, only the slot. Rows past the last one load zeros
// under the row guard but still reach both barriers (their results are not
// stored); there is no early return.
// CHECK-LABEL: gpu.func @cluster_masked
//  CHECK-SAME:   workgroup(%[[S:.+]] : memref<1xf32, #gpu.address_space<workgroup>>)
//  CHECK-SAME:   nvvm.cluster_dim = array<i32: 2, 1, 1>
//       CHECK:   %[[ROWOK:.+]] = arith.cmpi ult, %{{.+}}, %{{.+}} : index
//       CHECK:   %[[COLOK:.+]] = arith.cmpi ult, %{{.+}}, %{{.+}} : index
//   CHECK-NOT:   gpu.return
//       CHECK:   %[[NEGINF:.+]] = arith.constant dense<0xFF800000> : vector<4xf32>
//   CHECK-NOT:   gpu.return
//       CHECK:   arith.select %[[COLOK]], %{{.+}}, %[[NEGINF]] : vector<4xf32>
//   CHECK-NOT:   gpu.return
//       CHECK:   vector.reduction <maximumf>
//   CHECK-NOT:   gpu.barrier
//       CHECK:   gpu.shuffle xor %{{.+}}, %c1_i32
//   CHECK-NOT:   gpu.return
//       CHECK:   memref.store %{{.+}}, %[[S]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   nvvm.cluster.arrive {aligned}
//  CHECK-NEXT:   nvvm.cluster.wait {aligned}
//  CHECK-COUNT-2: nvvm.mapa
//   CHECK-NOT:   nvvm.mapa
//       CHECK:   nvvm.cluster.arrive {aligned}
//   CHECK-NOT:   nvvm.cluster.arrive
//       CHECK:   %[[WRITER:.+]] = arith.andi %[[ROWOK]], %{{.+}} : i1
//  CHECK-NEXT:   scf.if %[[WRITER]] {
//       CHECK:     memref.store %{{.+}} : memref<?x1xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   nvvm.cluster.wait {aligned}
//  CHECK-NEXT:   gpu.return
func.func @cluster_masked(%in: memref<?x1000xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 3, 1000>, tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1000xf32> -> tensor<1000xf32>
  %m = tile.reduce_max %t : tensor<1000xf32> -> f32
  tile.store %m, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// A cluster of CTAs that each stream their slice (a row too wide for
// registers even when split): 8192 f32 over 2 CTAs of 32 threads, 4 vectors
// a thread a block, 8 blocks a CTA (2 * 8 * 4 * 32 * 4 = 8192). Block i of
// CTA column block cb starts at vector cb * 8 * 128 + i * 128; the loop's
// sum is combined within the CTA and then over the cluster, the store loop
// runs between the exit barrier's arrive and wait.
// CHECK-LABEL: gpu.func @cluster_streamed
//  CHECK-SAME:   nvvm.cluster_dim = array<i32: 2, 1, 1>
//       CHECK:   %[[C2:.+]] = arith.constant 2 : index
//  CHECK-NEXT:   %[[CB:.+]] = arith.remui %{{.+}}, %[[C2]] : index
//       CHECK:   %[[C8:.+]] = arith.constant 8 : index
//       CHECK:   %[[ACC:.+]] = scf.for %[[I:.+]] = %{{.+}} to %[[C8]] step %{{.+}} iter_args
//       CHECK:     %[[C128:.+]] = arith.constant 128 : index
//  CHECK-NEXT:     %[[IB:.+]] = arith.muli %[[I]], %[[C128]] : index
//  CHECK-NEXT:     %[[C1024:.+]] = arith.constant 1024 : index
//  CHECK-NEXT:     %[[SLICE:.+]] = arith.muli %[[CB]], %[[C1024]] : index
//  CHECK-NEXT:     arith.addi %[[SLICE]], %[[IB]] : index
//       CHECK:   vector.reduction <add>, %[[ACC]]
//       CHECK:   nvvm.cluster.arrive {aligned}
//  CHECK-NEXT:   nvvm.cluster.wait {aligned}
//  CHECK-COUNT-2: nvvm.mapa
//       CHECK:   nvvm.cluster.arrive {aligned}
//   CHECK-NOT:   nvvm.cluster
//       CHECK:   scf.for
//       CHECK:     muli %[[CB]]
//       CHECK:     vector.store
//       CHECK:   nvvm.cluster.wait {aligned}
//  CHECK-NEXT:   gpu.return
func.func @cluster_streamed(%in: memref<?x8192xf32>, %out: memref<?x8192xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 8192>, tile.schedule = {chunks = 4 : i64, cluster = 2 : i64, col_blocks = 2 : i64, rows_per_block = 1 : i64, stream_blocks = 8 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x8192xf32> -> tensor<8192xf32>
  %s = tile.reduce_sum %t : tensor<8192xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<8192xf32>
  %y = arith.mulf %t, %b : tensor<8192xf32>
  tile.store %y, %out[%r] : tensor<8192xf32> -> memref<?x8192xf32>
  return
}

// -----

// A cluster of any size up to 8, not only powers of two (the scheduler
// picks 3, 5, 6 or 7 where 8 would not fit the GPU at once): 3 CTAs of 32
// threads, 3 vectors of 4 each (1152 columns cover 1024; the last CTA's
// slice is partly masked); the partials combined in rank order 0, 1, 2.
// CHECK-LABEL: gpu.func @cluster_of_three
//  CHECK-SAME:   nvvm.cluster_dim = array<i32: 3, 1, 1>
//       CHECK:   arith.cmpi ult
//       CHECK:   nvvm.cluster.arrive {aligned}
//  CHECK-NEXT:   nvvm.cluster.wait {aligned}
//       CHECK:   nvvm.mapa %{{.+}}, %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
//       CHECK:   nvvm.mapa %{{.+}}, %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
//       CHECK:   nvvm.mapa %{{.+}}, %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
//   CHECK-NOT:   nvvm.mapa
//       CHECK:   nvvm.cluster.arrive {aligned}
//       CHECK:   nvvm.cluster.wait {aligned}
//  CHECK-NEXT:   gpu.return
func.func @cluster_of_three(%in: memref<?x1024xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 1024>, tile.schedule = {chunks = 3 : i64, cluster = 3 : i64, col_blocks = 3 : i64, rows_per_block = 1 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1024xf32> -> tensor<1024xf32>
  %s = tile.reduce_sum %t : tensor<1024xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}
