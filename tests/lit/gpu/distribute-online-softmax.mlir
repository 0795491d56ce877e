// RUN: tilec-opt --split-input-file --tilec-distribute-row-tiles %s | FileCheck %s

// tile.reduce_max_sum_exp (online softmax, formed by
// tilec-form-online-softmax): the row's max m and sum of exp(x - m) are
// reduced together, as pairs (m, s) combined as
//   M = max(m1, m2), M' = (M == -inf ? 0 : M),
//   s = s1 * exp(m1 - M') + s2 * exp(m2 - M')
// so one round suffices at every level: a thread's chunks (masked chunks
// are -inf, their exp 0), the lanes (the max by a butterfly, each lane's
// sum rescaled to it with one exp, then the sums by a butterfly), the warps
// (two workgroup buffers, one barrier; lane l takes warp l's pair and the
// lanes reduce them the same way), and the CTAs of a cluster (two slots,
// one cluster barrier, in rank order). M' keeps a group of only -inf (padding, masked rows, -inf inputs)
// at (-inf, 0) instead of exp(-inf - -inf) = NaN. The exps carry the
// op's fast-math flags (afn: ex2.approx).

// Register rows: 4000 f32 over 256 threads (8 warps), 4 vectors a thread
// (the last chunk leaves the row for some lanes: 4 * 256 * 4 = 4096).
// CHECK-LABEL: gpu.func @online_registers
//  CHECK-SAME:   workgroup(%[[WM:.+]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[WS:.+]] : memref<8xf32, #gpu.address_space<workgroup>>)
//       CHECK:   %[[COLOK:.+]] = arith.cmpi ult, %{{.+}}, %c4000 : index
//       CHECK:   %[[NEGINF:.+]] = arith.constant dense<0xFF800000> : vector<4xf32>
//       CHECK:   %[[X3:.+]] = arith.select %[[COLOK]], %{{.+}}, %[[NEGINF]] : vector<4xf32>
//       CHECK:   %[[MV:.+]] = arith.maximumf %{{.+}}, %[[X3]] : vector<4xf32>
//  CHECK-NEXT:   %[[TM:.+]] = vector.reduction <maximumf>, %[[MV]] : vector<4xf32> into f32
//  CHECK-NEXT:   %[[NI:.+]] = arith.constant 0xFF800000 : f32
//  CHECK-NEXT:   %[[Z:.+]] = arith.constant 0.000000e+00 : f32
//  CHECK-NEXT:   %[[ALLNI:.+]] = arith.cmpf oeq, %[[TM]], %[[NI]] : f32
//  CHECK-NEXT:   %[[SHIFT:.+]] = arith.select %[[ALLNI]], %[[Z]], %[[TM]] : f32
//  CHECK-NEXT:   %[[SHIFTV:.+]] = vector.broadcast %[[SHIFT]] : f32 to vector<4xf32>
//  CHECK-COUNT-4: math.exp %{{.+}} fastmath<afn> : vector<4xf32>
//       CHECK:   %[[TS:.+]] = vector.reduction <add>, %{{.+}} : vector<4xf32> into f32
// The lanes: the max by a butterfly (no exp), each lane's sum rescaled to
// it once, then the sums by a butterfly.
//       CHECK:   %[[SM:.+]], %{{.+}} = gpu.shuffle xor %[[TM]], %c16_i32
//  CHECK-NEXT:   %[[M1:.+]] = arith.maximumf %[[TM]], %[[SM]] : f32
//  CHECK-COUNT-4: gpu.shuffle xor
//       CHECK:   %[[WMAX:.+]] = arith.maximumf %{{.+}}, %{{.+}} : f32
//   CHECK-NOT:   gpu.shuffle
//       CHECK:   %[[C1:.+]] = arith.cmpf oeq, %[[WMAX]], %{{.+}} : f32
//  CHECK-NEXT:   %[[SH1:.+]] = arith.select %[[C1]], %{{.+}}, %[[WMAX]] : f32
//  CHECK-NEXT:   %[[D1:.+]] = arith.subf %[[TM]], %[[SH1]] : f32
//  CHECK-NEXT:   %[[E1:.+]] = math.exp %[[D1]] fastmath<afn> : f32
//  CHECK-NEXT:   %[[P1:.+]] = arith.mulf %[[TS]], %[[E1]] : f32
//       CHECK:   %[[SS:.+]], %{{.+}} = gpu.shuffle xor %[[P1]], %c16_i32
//  CHECK-NEXT:   arith.addf %[[P1]], %[[SS]] : f32
//  CHECK-COUNT-4: gpu.shuffle xor
//   CHECK-NOT:   gpu.shuffle
//   CHECK-NOT:   math.exp
// One barrier for both: the warp leaders store max and sum.
//       CHECK:   scf.if
//  CHECK-NEXT:     memref.store %[[WMAX]], %[[WM]][%{{.+}}]
//  CHECK-NEXT:     memref.store %{{.+}}, %[[WS]][%{{.+}}]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.barrier
//   CHECK-NOT:   gpu.barrier
// The warps: lane l takes warp (l mod 8)'s pair, and three butterfly steps
// reduce them as above: one exp a thread, not one a warp.
//       CHECK:   %[[WHICH:.+]] = arith.remui %{{.+}}, %c8{{.*}} : index
//  CHECK-NEXT:   %[[AT:.+]] = arith.addi %{{.+}}, %[[WHICH]] : index
//  CHECK-NEXT:   %[[WM0:.+]] = memref.load %[[WM]][%[[AT]]]
//  CHECK-NEXT:   %[[WS0:.+]] = memref.load %[[WS]][%[[AT]]]
//       CHECK:   gpu.shuffle xor %[[WM0]], %c4_i32
//  CHECK-COUNT-2: gpu.shuffle xor
//       CHECK:   %[[ROWMAX:.+]] = arith.maximumf
//       CHECK:   arith.cmpf oeq, %[[ROWMAX]]
//  CHECK-NEXT:   %[[RSH:.+]] = arith.select
//  CHECK-NEXT:   arith.subf %[[WM0]], %[[RSH]] : f32
//  CHECK-NEXT:   math.exp
//  CHECK-NEXT:   arith.mulf %[[WS0]]
//  CHECK-COUNT-3: gpu.shuffle xor
//   CHECK-NOT:   math.exp %{{.+}} : f32
//       CHECK:   vector.broadcast %[[ROWMAX]] : f32 to vector<4xf32>
//       CHECK:   vector.broadcast %{{.+}} : f32 to vector<4xf32>
//  CHECK-COUNT-4: arith.divf
//   CHECK-NOT:   gpu.barrier
//       CHECK:   gpu.return
func.func @online_registers(%in: memref<?x4000xf32>, %out: memref<?x4000xf32>) attributes {tile.kernel, tile.domain = array<i64: 5, 4000>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x4000xf32> -> tensor<4000xf32>
  %m, %s = tile.reduce_max_sum_exp %x {fastmath = #arith.fastmath<afn>} : tensor<4000xf32> -> f32, f32
  %b = tile.splat %m : f32 -> tensor<4000xf32>
  %d = arith.subf %x, %b : tensor<4000xf32>
  %e = math.exp %d fastmath<afn> : tensor<4000xf32>
  %bs = tile.splat %s : f32 -> tensor<4000xf32>
  %y = arith.divf %e, %bs : tensor<4000xf32>
  tile.store %y, %out[%r] : tensor<4000xf32> -> memref<?x4000xf32>
  return
}

// -----

// Rows sharing a warp (TPR 8, 4 rows of 3 vectors of 4 a CTA of 32): no
// workgroup buffers, three butterfly steps; base2 uses exp2 throughout, and
// without fast-math flags the exps carry none.
// CHECK-LABEL: gpu.func @online_small_rows_exp2
//   CHECK-NOT:   workgroup
//   CHECK-NOT:   math.exp %
//  CHECK-COUNT-3: math.exp2 %{{.+}} : vector<4xf32>
//       CHECK:   gpu.shuffle xor %{{.+}}, %c4_i32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c1_i32
//       CHECK:   math.exp2 %{{.+}} : f32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c4_i32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c1_i32
//   CHECK-NOT:   gpu.shuffle
//   CHECK-NOT:   gpu.barrier
//   CHECK-NOT:   math.exp %
//       CHECK:   memref.store
//       CHECK:   memref.store
//       CHECK:   gpu.return
func.func @online_small_rows_exp2(%in: memref<?x96xf32>, %mo: memref<?x1xf32>, %so: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 6, 96>, tile.schedule = {chunks = 3 : i64, col_blocks = 1 : i64, rows_per_block = 4 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x96xf32> -> tensor<96xf32>
  %m, %s = tile.reduce_max_sum_exp %x {base2} : tensor<96xf32> -> f32, f32
  tile.store %m, %mo[%r] : f32 -> memref<?x1xf32>
  tile.store %s, %so[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// Streamed rows (65536 f32, 8 blocks of 2048 vectors): the pair costs ONE
// loop over the row (two loops, max then sum, without online softmax; see
// distribute-streaming.mlir), carrying the thread's (max, sum) as f32
// iter_args from (-inf, 0): per block the block's pair, then the running
// pair rescaled to the larger max. Then the one cross-thread round, and
// the store loop: two passes over the input instead of three.
// CHECK-LABEL: gpu.func @online_streamed
//  CHECK-SAME:   workgroup(%[[WM:.+]] : memref<16xf32, #gpu.address_space<workgroup>>, %[[WS:.+]] : memref<16xf32, #gpu.address_space<workgroup>>)
//       CHECK:   %[[NI:.+]] = arith.constant 0xFF800000 : f32
//  CHECK-NEXT:   %[[Z:.+]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[ACC:.+]]:2 = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[AM:.+]] = %[[NI]], %[[AS:.+]] = %[[Z]]) -> (f32, f32) {
//  CHECK-COUNT-4:  vector.load
//       CHECK:     %[[BM:.+]] = vector.reduction <maximumf>
//  CHECK-COUNT-4:  math.exp %{{.+}} fastmath<afn> : vector<4xf32>
//       CHECK:     %[[BS:.+]] = vector.reduction <add>
//  CHECK-NEXT:     %[[NM:.+]] = arith.maximumf %[[AM]], %[[BM]] : f32
//       CHECK:     arith.subf %[[AM]], %{{.+}} : f32
//  CHECK-NEXT:     math.exp
//  CHECK-NEXT:     arith.mulf %[[AS]]
//  CHECK-NEXT:     arith.subf %[[BM]], %{{.+}} : f32
//  CHECK-NEXT:     math.exp
//  CHECK-NEXT:     arith.mulf %[[BS]]
//  CHECK-NEXT:     %[[NS:.+]] = arith.addf
//  CHECK-NEXT:     scf.yield %[[NM]], %[[NS]] : f32, f32
//  CHECK-NEXT:   }
//  CHECK-NEXT:   arith.constant 16 : i32
//       CHECK:   gpu.shuffle xor %[[ACC]]#0, %c16_i32
//       CHECK:   arith.subf %[[ACC]]#0, %{{.+}} : f32
//  CHECK-NEXT:   math.exp
//  CHECK-NEXT:   arith.mulf %[[ACC]]#1
//       CHECK:   memref.store %{{.+}}, %[[WM]]
//  CHECK-NEXT:   memref.store %{{.+}}, %[[WS]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.barrier
//   CHECK-NOT:   gpu.barrier
//       CHECK:   scf.for %{{[^ ]+}} = %{{[^ ]+}} to %{{[^ ]+}} step %{{[^ ]+}} {
//  CHECK-COUNT-4:  vector.load
//  CHECK-COUNT-4:  arith.divf
//  CHECK-COUNT-4:  vector.store
//       CHECK:   gpu.return
//   CHECK-NOT:   scf.for
func.func @online_streamed(%in: memref<?x65536xf32>, %out: memref<?x65536xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 65536>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 8 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x65536xf32> -> tensor<65536xf32>
  %m, %s = tile.reduce_max_sum_exp %x {fastmath = #arith.fastmath<afn>} : tensor<65536xf32> -> f32, f32
  %b = tile.splat %m : f32 -> tensor<65536xf32>
  %d = arith.subf %x, %b : tensor<65536xf32>
  %e = math.exp %d fastmath<afn> : tensor<65536xf32>
  %bs = tile.splat %s : f32 -> tensor<65536xf32>
  %y = arith.divf %e, %bs : tensor<65536xf32>
  tile.store %y, %out[%r] : tensor<65536xf32> -> memref<?x65536xf32>
  return
}

// -----

// A row split over a cluster of 4 CTAs of 256 threads (see
// distribute-cluster.mlir for the two-round form): one warp round, then
// thread 0 publishes both partials in slots of their own, ONE cluster
// arrive/wait (two without online softmax, plus the exit barrier's), and
// every thread reads the 4 pairs through DSMEM in rank order: the max of
// the 4 maxima, then the sums rescaled and added in rank order 0 .. 3, the
// same chain in every CTA (bitwise the same result). The exit barrier's
// arrive follows the reads, its wait the stores.
// CHECK-LABEL: gpu.func @online_cluster
//  CHECK-SAME:   workgroup(%[[WM:.+]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[WS:.+]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[SM:.+]] : memref<1xf32, #gpu.address_space<workgroup>>, %[[SS:.+]] : memref<1xf32, #gpu.address_space<workgroup>>)
//  CHECK-SAME:   nvvm.cluster_dim = array<i32: 4, 1, 1>
//       CHECK:   gpu.barrier
//   CHECK-NOT:   gpu.barrier
//       CHECK:   scf.if
//  CHECK-NEXT:     %[[Z0:.+]] = arith.constant 0 : index
//  CHECK-NEXT:     memref.store %{{.+}}, %[[SM]][%[[Z0]]]
//  CHECK-NEXT:     %[[Z1:.+]] = arith.constant 0 : index
//  CHECK-NEXT:     memref.store %{{.+}}, %[[SS]][%[[Z1]]]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   nvvm.cluster.arrive {aligned}
//  CHECK-NEXT:   nvvm.cluster.wait {aligned}
//  CHECK-NEXT:   memref.extract_aligned_pointer_as_index %[[SM]]
//       CHECK:   %[[PM:.+]] = llvm.inttoptr
//  CHECK-NEXT:   memref.extract_aligned_pointer_as_index %[[SS]]
//       CHECK:   %[[PS:.+]] = llvm.inttoptr
//  CHECK-NEXT:   %[[R0:.+]] = arith.constant 0 : i32
//  CHECK-NEXT:   %[[A0:.+]] = nvvm.mapa %[[PM]], %[[R0]]
//  CHECK-NEXT:   %[[M0:.+]] = llvm.load %[[A0]] : !llvm.ptr<7> -> f32
//  CHECK-NEXT:   %[[B0:.+]] = nvvm.mapa %[[PS]], %[[R0]]
//  CHECK-NEXT:   %[[S0:.+]] = llvm.load %[[B0]] : !llvm.ptr<7> -> f32
//  CHECK-NEXT:   %[[R1:.+]] = arith.constant 1 : i32
//  CHECK-NEXT:   %[[A1:.+]] = nvvm.mapa %[[PM]], %[[R1]]
//  CHECK-NEXT:   %[[M1:.+]] = llvm.load %[[A1]] : !llvm.ptr<7> -> f32
//       CHECK:   %[[R3:.+]] = arith.constant 3 : i32
//       CHECK:   nvvm.mapa %[[PS]], %[[R3]]
//  CHECK-NEXT:   %[[S3:.+]] = llvm.load
//  CHECK-NEXT:   %[[X01:.+]] = arith.maximumf %[[M0]], %[[M1]] : f32
//  CHECK-NEXT:   %[[X012:.+]] = arith.maximumf %[[X01]], %{{.+}} : f32
//  CHECK-NEXT:   %[[CM:.+]] = arith.maximumf %[[X012]], %{{.+}} : f32
//       CHECK:   %[[CSH:.+]] = arith.select
//  CHECK-NEXT:   arith.subf %[[M0]], %[[CSH]]
//  CHECK-NEXT:   math.exp
//  CHECK-NEXT:   arith.mulf %[[S0]]
//       CHECK:   arith.mulf %[[S3]]
//  CHECK-NEXT:   %[[CS:.+]] = arith.addf
//  CHECK-NEXT:   nvvm.cluster.arrive {aligned}
//   CHECK-NOT:   nvvm.cluster.arrive
//   CHECK-NOT:   nvvm.mapa
//       CHECK:   vector.broadcast %[[CM]]
//       CHECK:   vector.broadcast %[[CS]]
//       CHECK:   vector.store
//       CHECK:   nvvm.cluster.wait {aligned}
//  CHECK-NEXT:   gpu.return
func.func @online_cluster(%in: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 4096>, tile.schedule = {chunks = 1 : i64, cluster = 4 : i64, col_blocks = 4 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x4096xf32> -> tensor<4096xf32>
  %m, %s = tile.reduce_max_sum_exp %x {fastmath = #arith.fastmath<afn>} : tensor<4096xf32> -> f32, f32
  %b = tile.splat %m : f32 -> tensor<4096xf32>
  %d = arith.subf %x, %b : tensor<4096xf32>
  %e = math.exp %d fastmath<afn> : tensor<4096xf32>
  %bs = tile.splat %s : f32 -> tensor<4096xf32>
  %y = arith.divf %e, %bs : tensor<4096xf32>
  tile.store %y, %out[%r] : tensor<4096xf32> -> memref<?x4096xf32>
  return
}

// -----

// The pair's exp tile (third result, what tilec-form-online-softmax gives
// softmax's e / s): a register row keeps the thread's 4 exps exp(x - m_t)
// of its sum (m_t its own max, SHIFT = m_t or 0 when m_t is -inf) and,
// once the row's M is known, rescales them by exp(m_t - M'), M' = (M ==
// -inf ? 0 : M): one exp an element (4) and one a thread, against 8 an
// element without the third result (online_registers above: 4 for the sum,
// 4 for the output). The scale subtracts from m_t itself (not SHIFT): a
// thread of only -inf has exps of 0 and scale exp(-inf - M') = 0, never
// exp(-inf - -inf).
// CHECK-LABEL: gpu.func @online_registers_exp_tile
//       CHECK:   %[[TM:.+]] = vector.reduction <maximumf>, %{{.+}} : vector<4xf32> into f32
//       CHECK:   %[[SHIFT:.+]] = arith.select %{{.+}}, %{{.+}}, %[[TM]] : f32
//  CHECK-NEXT:   %[[SHIFTV:.+]] = vector.broadcast %[[SHIFT]] : f32 to vector<4xf32>
//  CHECK-NEXT:   %[[D0:.+]] = arith.subf %{{.+}}, %[[SHIFTV]] : vector<4xf32>
//  CHECK-NEXT:   %[[E0:.+]] = math.exp %[[D0]] fastmath<afn> : vector<4xf32>
//  CHECK-NEXT:   arith.subf %{{.+}}, %[[SHIFTV]] : vector<4xf32>
//  CHECK-NEXT:   %[[E1:.+]] = math.exp %{{.+}} fastmath<afn> : vector<4xf32>
//  CHECK-NEXT:   arith.addf %[[E0]], %[[E1]]
//  CHECK-NEXT:   arith.subf %{{.+}}, %[[SHIFTV]] : vector<4xf32>
//  CHECK-NEXT:   %[[E2:.+]] = math.exp %{{.+}} fastmath<afn> : vector<4xf32>
//  CHECK-NEXT:   arith.addf
//  CHECK-NEXT:   arith.subf %{{.+}}, %[[SHIFTV]] : vector<4xf32>
//  CHECK-NEXT:   %[[E3:.+]] = math.exp %{{.+}} fastmath<afn> : vector<4xf32>
//  CHECK-NEXT:   arith.addf
//  CHECK-NEXT:   vector.reduction <add>
// The pair's round (shuffles, one barrier, the warps' pairs: the max of
// all 8 maxima, ROWMAX, is guarded to rescale their sums); no exp of a
// vector in it.
//   CHECK-NOT:   math.exp %{{.+}} : vector<4xf32>
//       CHECK:   gpu.barrier
//   CHECK-NOT:   gpu.barrier
//   CHECK-NOT:   math.exp %{{.+}} : vector<4xf32>
//       CHECK:   arith.cmpf oeq, %[[ROWMAX:[^,]+]], %{{.+}} : f32
//   CHECK-NOT:   math.exp %{{.+}} : vector<4xf32>
// Then the scale, from the same guarded ROWMAX.
//       CHECK:   %[[ALLNI:.+]] = arith.cmpf oeq, %[[ROWMAX]], %{{.+}} : f32
//  CHECK-NEXT:   %[[RSH:.+]] = arith.select %[[ALLNI]], %{{.+}}, %[[ROWMAX]] : f32
//  CHECK-NEXT:   %[[SD:.+]] = arith.subf %[[TM]], %[[RSH]] : f32
//  CHECK-NEXT:   %[[SCALE:.+]] = math.exp %[[SD]] fastmath<afn> : f32
//  CHECK-NEXT:   %[[SCALEV:.+]] = vector.broadcast %[[SCALE]] : f32 to vector<4xf32>
//  CHECK-NEXT:   %[[Y0:.+]] = arith.mulf %[[E0]], %[[SCALEV]] : vector<4xf32>
//  CHECK-NEXT:   %[[Y1:.+]] = arith.mulf %[[E1]], %[[SCALEV]] : vector<4xf32>
//  CHECK-NEXT:   %[[Y2:.+]] = arith.mulf %[[E2]], %[[SCALEV]] : vector<4xf32>
//  CHECK-NEXT:   %[[Y3:.+]] = arith.mulf %[[E3]], %[[SCALEV]] : vector<4xf32>
//  CHECK-NEXT:   %[[SV:.+]] = vector.broadcast %{{.+}} : f32 to vector<4xf32>
//  CHECK-NEXT:   arith.divf %[[Y0]], %[[SV]]
//  CHECK-NEXT:   arith.divf %[[Y1]], %[[SV]]
//  CHECK-NEXT:   arith.divf %[[Y2]], %[[SV]]
//  CHECK-NEXT:   arith.divf %[[Y3]], %[[SV]]
//   CHECK-NOT:   math.exp
//       CHECK:   gpu.return
func.func @online_registers_exp_tile(%in: memref<?x4000xf32>, %out: memref<?x4000xf32>) attributes {tile.kernel, tile.domain = array<i64: 5, 4000>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x4000xf32> -> tensor<4000xf32>
  %m, %s, %e = tile.reduce_max_sum_exp %x {fastmath = #arith.fastmath<afn>} : tensor<4000xf32> -> f32, f32, tensor<4000xf32>
  %bs = tile.splat %s : f32 -> tensor<4000xf32>
  %y = arith.divf %e, %bs : tensor<4000xf32>
  tile.store %y, %out[%r] : tensor<4000xf32> -> memref<?x4000xf32>
  return
}

// -----

// base2 and no fast-math flags (precise math): the same with exp2, one an
// element (3) and one for the scale, all without flags; the exp tile is
// stored as it is.
// CHECK-LABEL: gpu.func @online_exp2_tile
//   CHECK-NOT:   math.exp %
//  CHECK-COUNT-3: math.exp2 %{{.+}} : vector<4xf32>
//       CHECK:   gpu.shuffle xor
// (three butterfly steps of the max, one exp2 for the lane's sum, three of
// the sums)
//       CHECK:   math.exp2 %{{.+}} : f32
//  CHECK-COUNT-3: gpu.shuffle xor
//       CHECK:   %[[SCALE:.+]] = math.exp2 %{{.+}} : f32
//  CHECK-NEXT:   %[[SCALEV:.+]] = vector.broadcast %[[SCALE]] : f32 to vector<4xf32>
//  CHECK-COUNT-3: arith.mulf %{{.+}}, %[[SCALEV]] : vector<4xf32>
//   CHECK-NOT:   math.exp
//   CHECK-NOT:   fastmath
//       CHECK:   vector.store
//       CHECK:   gpu.return
func.func @online_exp2_tile(%in: memref<?x96xf32>, %eo: memref<?x96xf32>) attributes {tile.kernel, tile.domain = array<i64: 6, 96>, tile.schedule = {chunks = 3 : i64, col_blocks = 1 : i64, rows_per_block = 4 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x96xf32> -> tensor<96xf32>
  %m, %s, %e = tile.reduce_max_sum_exp %x {base2} : tensor<96xf32> -> f32, f32, tensor<96xf32>
  tile.store %e, %eo[%r] : tensor<96xf32> -> memref<?x96xf32>
  return
}

// -----

// Streamed rows cannot keep the exps: the pair's loop is as without the
// third result (online_streamed), and the store loop computes exp(x - M')
// again, M' = (M == -inf ? 0 : M) taken once after the reduction (a row of
// only -inf gives e = 0, as in registers): still two passes over the row.
// CHECK-LABEL: gpu.func @online_streamed_exp_tile
//       CHECK:   %[[ACC:.+]]:2 = scf.for
//  CHECK-COUNT-4:  math.exp %{{.+}} fastmath<afn> : vector<4xf32>
//       CHECK:     scf.yield
//       CHECK:   gpu.barrier
//       CHECK:   arith.cmpf oeq, %[[ROWMAX:[^,]+]], %{{.+}} : f32
//       CHECK:   %[[ALLNI:.+]] = arith.cmpf oeq, %[[ROWMAX]], %{{.+}} : f32
//  CHECK-NEXT:   %[[RSH:.+]] = arith.select %[[ALLNI]], %{{.+}}, %[[ROWMAX]] : f32
//   CHECK-NOT:   math.exp
//       CHECK:   scf.for %{{[^ ]+}} = %{{[^ ]+}} to %{{[^ ]+}} step %{{[^ ]+}} {
//  CHECK-COUNT-4:  vector.load
//       CHECK:     %[[RSHV:.+]] = vector.broadcast %[[RSH]] : f32 to vector<4xf32>
//  CHECK-COUNT-4:  math.exp %{{.+}} fastmath<afn> : vector<4xf32>
//       CHECK:     vector.broadcast
//  CHECK-COUNT-4:  arith.divf
//  CHECK-COUNT-4:  vector.store
//       CHECK:   gpu.return
//   CHECK-NOT:   scf.for
func.func @online_streamed_exp_tile(%in: memref<?x65536xf32>, %out: memref<?x65536xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 65536>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 8 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x65536xf32> -> tensor<65536xf32>
  %m, %s, %e = tile.reduce_max_sum_exp %x {fastmath = #arith.fastmath<afn>} : tensor<65536xf32> -> f32, f32, tensor<65536xf32>
  %bs = tile.splat %s : f32 -> tensor<65536xf32>
  %y = arith.divf %e, %bs : tensor<65536xf32>
  tile.store %y, %out[%r] : tensor<65536xf32> -> memref<?x65536xf32>
  return
}

// -----

// A cluster-split row: the thread's exps are rescaled once the cluster's
// combine (in rank order, bitwise the same M in every CTA) gives M, after
// the exit barrier's arrive: one exp an element across the cluster too.
// CHECK-LABEL: gpu.func @online_cluster_exp_tile
//       CHECK:   %[[TM:.+]] = vector.reduction <maximumf>
//       CHECK:   math.exp %{{.+}} fastmath<afn> : vector<4xf32>
//   CHECK-NOT:   math.exp %{{.+}} : vector<4xf32>
//       CHECK:   nvvm.cluster.arrive {aligned}
//  CHECK-NEXT:   nvvm.cluster.wait {aligned}
//   CHECK-NOT:   math.exp %{{.+}} : vector<4xf32>
//       CHECK:   arith.cmpf oeq, %[[CM:[^,]+]], %{{.+}} : f32
//   CHECK-NOT:   math.exp %{{.+}} : vector<4xf32>
//       CHECK:   nvvm.cluster.arrive {aligned}
//  CHECK-NEXT:   arith.constant
//  CHECK-NEXT:   arith.constant
//  CHECK-NEXT:   arith.cmpf oeq, %[[CM]], %{{.+}} : f32
//  CHECK-NEXT:   %[[RSH:.+]] = arith.select %{{.+}}, %{{.+}}, %[[CM]] : f32
//  CHECK-NEXT:   %[[SD:.+]] = arith.subf %[[TM]], %[[RSH]] : f32
//  CHECK-NEXT:   %[[SCALE:.+]] = math.exp %[[SD]] fastmath<afn> : f32
//  CHECK-NEXT:   %[[SCALEV:.+]] = vector.broadcast %[[SCALE]]
//  CHECK-NEXT:   arith.mulf %{{.+}}, %[[SCALEV]] : vector<4xf32>
//   CHECK-NOT:   math.exp
//       CHECK:   vector.store
//       CHECK:   nvvm.cluster.wait {aligned}
//  CHECK-NEXT:   gpu.return
func.func @online_cluster_exp_tile(%in: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 4096>, tile.schedule = {chunks = 1 : i64, cluster = 4 : i64, col_blocks = 4 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x4096xf32> -> tensor<4096xf32>
  %m, %s, %e = tile.reduce_max_sum_exp %x {fastmath = #arith.fastmath<afn>} : tensor<4096xf32> -> f32, f32, tensor<4096xf32>
  %bs = tile.splat %s : f32 -> tensor<4096xf32>
  %y = arith.divf %e, %bs : tensor<4096xf32>
  tile.store %y, %out[%r] : tensor<4096xf32> -> memref<?x4096xf32>
  return
}

// -----

// A packed pair marked tile.folded_shift (tilec-fold-row-scalars: its
// subtraction contracts, its results are bf16): the thread's max on the
// packed vectors, floored at -2^126 (so that shift * L stays finite for a
// thread of only -inf), then each exp as exp2(fma(x, L, -(shift L))), the
// product once a thread.
// CHECK-LABEL: gpu.func @online_packed_folded
//       CHECK:   arith.maximumf %{{.+}}, %{{.+}} : vector<8xbf16>
//       CHECK:   %[[TM:.+]] = vector.reduction <maximumf>, %{{.+}} : vector<8xf32> into f32
//  CHECK-NEXT:   %[[FLOOR:.+]] = arith.constant -8.50705917E+37 : f32
//  CHECK-NEXT:   %[[SHIFT:.+]] = arith.maximumf %[[TM]], %[[FLOOR]] : f32
//  CHECK-NEXT:   %[[L:.+]] = arith.constant 1.44269502 : f32
//  CHECK-NEXT:   %[[SL:.+]] = arith.mulf %[[SHIFT]], %[[L]] : f32
//  CHECK-NEXT:   %[[NSL:.+]] = arith.negf %[[SL]] : f32
//  CHECK-NEXT:   %[[OFFV:.+]] = vector.broadcast %[[NSL]] : f32 to vector<8xf32>
//  CHECK-NEXT:   %[[LV:.+]] = vector.broadcast %[[L]] : f32 to vector<8xf32>
//       CHECK:   %[[A0:.+]] = math.fma %{{.+}}, %[[LV]], %[[OFFV]] : vector<8xf32>
//  CHECK-NEXT:   %[[E0:.+]] = math.exp2 %[[A0]] fastmath<contract,afn> {tile.flush_exp} : vector<8xf32>
//       CHECK:   %[[A1:.+]] = math.fma %{{.+}}, %[[LV]], %[[OFFV]] : vector<8xf32>
//  CHECK-NEXT:   %[[E1:.+]] = math.exp2 %[[A1]] fastmath<contract,afn> {tile.flush_exp} : vector<8xf32>
//  CHECK-NEXT:   arith.addf %[[E0]], %[[E1]] : vector<8xf32>
//   CHECK-NOT:   arith.subf %{{.+}} : vector<8xf32>
//       CHECK:   gpu.shuffle
func.func @online_packed_folded(%in: memref<?x1024xbf16>, %out: memref<?x1024xbf16>) attributes {tile.kernel, tile.domain = array<i64: 5, 1024>, tile.schedule = {chunks = 2 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 64 : i64, vector_width = 8 : i64}} {
  %row = tile.row_id
  %t = tile.load %in[%row] : memref<?x1024xbf16> -> tensor<1024xbf16>
  %x = arith.extf %t : tensor<1024xbf16> to tensor<1024xf32>
  %m, %s = tile.reduce_max_sum_exp %x {fastmath = #arith.fastmath<contract,afn>, tile.folded_shift, tile.packed_max} : tensor<1024xf32> -> f32, f32
  %sb = tile.splat %s : f32 -> tensor<1024xf32>
  %ms = tile.splat %m : f32 -> tensor<1024xf32>
  %y = arith.addf %sb, %ms : tensor<1024xf32>
  %o = arith.truncf %y : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %o, %out[%row] : tensor<1024xbf16> -> memref<?x1024xbf16>
  return
}
