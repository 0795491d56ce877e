// RUN: tilec-opt --split-input-file --tilec-distribute-row-tiles %s | FileCheck %s

// tile.reduce_mean_m2 (layer_norm's Chan/Welford pair, formed by
// tilec-form-welford): the row's mean and sum of squared deviations M2 are
// reduced together, as triples (mean, M2, n) combined as
//   delta = meanB - meanA, n = nA + nB,
//   mean = (meanA + meanB) / 2 + delta (nB - nA) / (2 n),
//   M2 = (M2A + M2B) + delta^2 nA nB / n
// (symmetric in A and B, so butterfly partners agree bitwise), so one
// round suffices at every level: a thread's chunks (two exact passes over
// its registers: the mean, then the squared deviations from it), the
// lanes, the warps (one barrier, a pairwise tree in warp order) and the
// CTAs of a cluster (one exchange, a tree in rank order). Where no chunk
// can leave the row the counts are constants, the same in every thread:
// never shuffled or stored, their combines folded to multiplies by
// constants. Otherwise they are shuffled and stored beside the pair, and
// each combine takes one reciprocal of max(n, 1) (n = 0: the identity,
// no 0 / 0) with the op's fast-math flags.

// Register rows: 4096 f32 over 256 threads (8 warps), 4 vectors of 4 a
// thread, none past the row's end: each thread's count is 16.
// CHECK-LABEL: gpu.func @welford_registers
//  CHECK-SAME:   workgroup(%[[WM:.+]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[WQ:.+]] : memref<8xf32, #gpu.address_space<workgroup>>, %{{.+}} : memref<8xf32, #gpu.address_space<workgroup>>)
//   CHECK-NOT:   arith.select
//       CHECK:   %[[SUM:.+]] = vector.reduction <add>, %{{.+}} : vector<4xf32> into f32
//       CHECK:   %[[INV16:.+]] = arith.constant 6.250000e-02 : f32
//  CHECK-NEXT:   %[[TMEAN:.+]] = arith.mulf %[[SUM]], %[[INV16]] : f32
//  CHECK-NEXT:   %[[TMEANV:.+]] = vector.broadcast %[[TMEAN]] : f32 to vector<4xf32>
//  CHECK-NEXT:   %[[D0:.+]] = arith.subf %{{.+}}, %[[TMEANV]] : vector<4xf32>
//  CHECK-NEXT:   arith.mulf %[[D0]], %[[D0]] fastmath<contract> : vector<4xf32>
//       CHECK:   %[[TM2:.+]] = vector.reduction <add>, %{{.+}} : vector<4xf32> into f32
// Each butterfly step shuffles the mean and M2 (not the count) and folds
// the combine of equal counts: the midpoint, and M2 + delta^2 n / 4.
//       CHECK:   %[[SMEAN:.+]], %{{.+}} = gpu.shuffle xor %[[TMEAN]], %c16_i32
//       CHECK:   %[[SM2:.+]], %{{.+}} = gpu.shuffle xor %[[TM2]], %{{.+}}
//  CHECK-NEXT:   %[[MSUM:.+]] = arith.addf %[[TMEAN]], %[[SMEAN]] : f32
//  CHECK-NEXT:   %[[DELTA:.+]] = arith.subf %[[SMEAN]], %[[TMEAN]] : f32
//  CHECK-NEXT:   %[[Q:.+]] = arith.addf %[[TM2]], %[[SM2]] : f32
//  CHECK-NEXT:   %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
//  CHECK-NEXT:   arith.mulf %[[MSUM]], %[[HALF]] : f32
//  CHECK-NEXT:   %[[DSQ:.+]] = arith.mulf %[[DELTA]], %[[DELTA]] : f32
//  CHECK-NEXT:   %[[W:.+]] = arith.constant 8.000000e+00 : f32
//  CHECK-NEXT:   %[[DW:.+]] = arith.mulf %[[DSQ]], %[[W]] : f32
//  CHECK-NEXT:   arith.addf %[[Q]], %[[DW]] : f32
//  CHECK-COUNT-8: gpu.shuffle xor
//   CHECK-NOT:   gpu.shuffle
// One barrier for both: the warp leaders store mean and M2.
//       CHECK:   scf.if
//  CHECK-NEXT:     memref.store %{{.+}}, %[[WM]][%{{.+}}]
//  CHECK-NEXT:     memref.store %{{.+}}, %[[WQ]][%{{.+}}]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.barrier
//   CHECK-NOT:   gpu.barrier
//  CHECK-COUNT-16: memref.load
//   CHECK-NOT:   memref.load
//   CHECK-NOT:   arith.divf %cst
//       CHECK:   arith.divf %{{.+}}, %{{.+}} fastmath<afn> : f32
//   CHECK-NOT:   gpu.barrier
//       CHECK:   gpu.return
func.func @welford_registers(%in: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 5, 4096>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}} {
  %w = arith.constant 4.096000e+03 : f32
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x4096xf32> -> tensor<4096xf32>
  %mean, %m2 = tile.reduce_mean_m2 %x {fastmath = #arith.fastmath<afn>} : tensor<4096xf32> -> f32, f32
  %b = tile.splat %mean : f32 -> tensor<4096xf32>
  %d = arith.subf %x, %b : tensor<4096xf32>
  %var = arith.divf %m2, %w fastmath<afn> : f32
  %rs = math.rsqrt %var : f32
  %br = tile.splat %rs : f32 -> tensor<4096xf32>
  %y = arith.mulf %d, %br : tensor<4096xf32>
  tile.store %y, %out[%r] : tensor<4096xf32> -> memref<?x4096xf32>
  return
}

// -----

// A masked tail: 4000 f32 over 256 threads (the last chunk leaves the row
// for some lanes): the last chunk counts 4 or 0, its elements and
// deviations are masked to 0, the thread's mean divides by max(n, 1);
// the count rides every shuffle and the warp buffers, each combine takes
// one reciprocal.
// CHECK-LABEL: gpu.func @welford_tail
//  CHECK-SAME:   workgroup(%[[WM:.+]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[WQ:.+]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[WN:.+]] : memref<8xf32, #gpu.address_space<workgroup>>)
//       CHECK:   %[[COLOK:.+]] = arith.cmpi ult, %{{.+}}, %c4000 : index
//       CHECK:   arith.select %[[COLOK]], %{{.+}}, %{{.+}} : vector<4xf32>
//       CHECK:   %[[N3:.+]] = arith.select %[[COLOK]], %{{.+}}, %{{.+}} : f32
//       CHECK:   %[[SUM:.+]] = vector.reduction <add>
//       CHECK:   %[[N:.+]] = arith.addf %[[N3]], %{{.+}} : f32
//  CHECK-NEXT:   %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
//  CHECK-NEXT:   %[[NMAX:.+]] = arith.maximumf %[[N]], %[[ONE]] : f32
//  CHECK-NEXT:   %[[TMEAN:.+]] = arith.divf %[[SUM]], %[[NMAX]] fastmath<afn> : f32
//       CHECK:   %[[D3M:.+]] = arith.select %[[COLOK]], %{{.+}}, %{{.+}} : vector<4xf32>
//  CHECK-NEXT:   arith.mulf %[[D3M]], %[[D3M]] fastmath<contract>
//       CHECK:   %[[TM2:.+]] = vector.reduction <add>
//       CHECK:   gpu.shuffle xor %[[TMEAN]], %c16_i32
//       CHECK:   gpu.shuffle xor %[[TM2]], %{{.+}}
//       CHECK:   %[[SN:.+]], %{{.+}} = gpu.shuffle xor %[[N]], %{{.+}}
//       CHECK:   %[[NN:.+]] = arith.addf %[[N]], %[[SN]] : f32
//       CHECK:   %[[NNMAX:.+]] = arith.maximumf %[[NN]], %{{.+}} : f32
//       CHECK:   %[[INV:.+]] = arith.divf %{{.+}}, %[[NNMAX]] fastmath<afn> : f32
//  CHECK-NEXT:   %[[SKEWN:.+]] = arith.subf %[[SN]], %[[N]] : f32
//  CHECK-NEXT:   arith.mulf %[[SKEWN]], %[[INV]] : f32
//       CHECK:   %[[NPROD:.+]] = arith.mulf %[[N]], %[[SN]] : f32
//  CHECK-NEXT:   arith.mulf %[[NPROD]], %[[INV]] : f32
//  CHECK-COUNT-12: gpu.shuffle xor
//   CHECK-NOT:   gpu.shuffle
//       CHECK:   scf.if
//  CHECK-NEXT:     memref.store %{{.+}}, %[[WM]][%{{.+}}]
//  CHECK-NEXT:     memref.store %{{.+}}, %[[WQ]][%{{.+}}]
//  CHECK-NEXT:     memref.store %{{.+}}, %[[WN]][%{{.+}}]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.barrier
//   CHECK-NOT:   gpu.barrier
//  CHECK-COUNT-24: memref.load
// The warps' tree: 4 + 2 + 1 combines, a reciprocal each.
//  CHECK-COUNT-7: arith.divf %cst{{.*}}, %{{.+}} fastmath<afn> : f32
//   CHECK-NOT:   gpu.barrier
//       CHECK:   gpu.return
func.func @welford_tail(%in: memref<?x4000xf32>, %out: memref<?x4000xf32>) attributes {tile.kernel, tile.domain = array<i64: 5, 4000>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 256 : i64, vector_width = 4 : i64}} {
  %w = arith.constant 4.000000e+03 : f32
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x4000xf32> -> tensor<4000xf32>
  %mean, %m2 = tile.reduce_mean_m2 %x {fastmath = #arith.fastmath<afn>} : tensor<4000xf32> -> f32, f32
  %b = tile.splat %mean : f32 -> tensor<4000xf32>
  %d = arith.subf %x, %b : tensor<4000xf32>
  %var = arith.divf %m2, %w fastmath<afn> : f32
  %rs = math.rsqrt %var : f32
  %br = tile.splat %rs : f32 -> tensor<4000xf32>
  %y = arith.mulf %d, %br : tensor<4000xf32>
  tile.store %y, %out[%r] : tensor<4000xf32> -> memref<?x4000xf32>
  return
}

// -----

// Rows sharing a warp (TPR 8, 4 rows of 3 vectors of 4 a CTA of 32): no
// workgroup buffers, three butterfly steps of two shuffles; without
// fast-math flags there are none on the divisions (none here: the counts
// are constants).
// CHECK-LABEL: gpu.func @welford_small_rows
//   CHECK-NOT:   workgroup
//       CHECK:   arith.constant 0.0833333358 : f32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c4_i32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c4_i32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c2_i32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c2_i32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c1_i32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c1_i32
//   CHECK-NOT:   gpu.shuffle
//   CHECK-NOT:   gpu.barrier
//   CHECK-NOT:   arith.divf
//       CHECK:   memref.store
//       CHECK:   memref.store
//       CHECK:   gpu.return
func.func @welford_small_rows(%in: memref<?x96xf32>, %mo: memref<?x1xf32>, %qo: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 6, 96>, tile.schedule = {chunks = 3 : i64, col_blocks = 1 : i64, rows_per_block = 4 : i64, stream_blocks = 0 : i64, threads_per_row = 8 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x96xf32> -> tensor<96xf32>
  %mean, %m2 = tile.reduce_mean_m2 %x : tensor<96xf32> -> f32, f32
  tile.store %mean, %mo[%r] : f32 -> memref<?x1xf32>
  tile.store %m2, %qo[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// Streamed rows (8 column blocks): one loop carries each thread's (mean,
// M2, n), combining every block's own two-pass triple into it (one
// reciprocal a block); every block is full, so after the loop the count
// is the constant 8 x 16 = 128 again and the reduction across threads
// rides 2 values. Then one loop for the stores (recomputing x - mean):
// two passes over the row instead of three.
// CHECK-LABEL: gpu.func @welford_streamed
//       CHECK:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//       CHECK:   %[[ACC:.+]]:3 = scf.for %{{.+}} iter_args(%[[AM:.+]] = %[[ZERO]], %[[AQ:.+]] = %[[ZERO]], %[[AN:.+]] = %[[ZERO]]) -> (f32, f32, f32) {
//       CHECK:     %[[BMEAN:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
//       CHECK:     %[[BM2:.+]] = vector.reduction <add>
//  CHECK-NEXT:     arith.addf %[[AM]], %[[BMEAN]] : f32
//  CHECK-NEXT:     arith.subf %[[BMEAN]], %[[AM]] : f32
//  CHECK-NEXT:     arith.addf %[[AQ]], %[[BM2]] : f32
//       CHECK:     %[[NN:.+]] = arith.addf %[[AN]], %{{.+}} : f32
//       CHECK:     arith.divf %{{.+}}, %{{.+}} fastmath<afn> : f32
//       CHECK:     scf.yield %{{.+}}, %{{.+}}, %[[NN]] : f32, f32, f32
//       CHECK:   gpu.shuffle xor %[[ACC]]#0, %c16_i32
//       CHECK:   gpu.shuffle xor %[[ACC]]#1
//   CHECK-NOT:   gpu.shuffle xor %[[ACC]]#2
//       CHECK:   arith.constant 2.560000e+02 : f32
//  CHECK-COUNT-8: gpu.shuffle xor
//   CHECK-NOT:   gpu.shuffle
//       CHECK:   gpu.barrier
//   CHECK-NOT:   gpu.barrier
//       CHECK:   scf.for
//   CHECK-NOT:   scf.for
//       CHECK:   vector.store
//       CHECK:   gpu.return
func.func @welford_streamed(%in: memref<?x65536xf32>, %out: memref<?x65536xf32>) attributes {tile.kernel, tile.domain = array<i64: 5, 65536>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 8 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}} {
  %w = arith.constant 6.553600e+04 : f32
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x65536xf32> -> tensor<65536xf32>
  %mean, %m2 = tile.reduce_mean_m2 %x {fastmath = #arith.fastmath<afn>} : tensor<65536xf32> -> f32, f32
  %b = tile.splat %mean : f32 -> tensor<65536xf32>
  %d = arith.subf %x, %b : tensor<65536xf32>
  %var = arith.divf %m2, %w fastmath<afn> : f32
  %rs = math.rsqrt %var : f32
  %br = tile.splat %rs : f32 -> tensor<65536xf32>
  %y = arith.mulf %d, %br : tensor<65536xf32>
  tile.store %y, %out[%r] : tensor<65536xf32> -> memref<?x65536xf32>
  return
}

// -----

// A cluster of 4 CTAs a row, 4097 f32 (scalar accesses, the last CTA's
// slice past the row's end: dynamic counts): after the warps' barrier,
// thread 0 publishes the CTA's (mean, M2, n) in three slots, one cluster
// exchange (arrive, wait), every thread reads the 4 triples through DSMEM
// and combines them as a tree in rank order (2 + 1 combines); the exit
// barrier's arrive follows the last read.
// CHECK-LABEL: gpu.func @welford_cluster
//  CHECK-SAME:   %[[CM:[^ ]+]] : memref<1xf32, #gpu.address_space<workgroup>>, %[[CQ:[^ ]+]] : memref<1xf32, #gpu.address_space<workgroup>>, %[[CN:[^ ]+]] : memref<1xf32, #gpu.address_space<workgroup>>)
//       CHECK:   gpu.barrier
//   CHECK-NOT:   gpu.barrier
//       CHECK:   scf.if
//       CHECK:     memref.store %{{.+}}, %[[CM]][%{{.+}}]
//       CHECK:     memref.store %{{.+}}, %[[CQ]][%{{.+}}]
//       CHECK:     memref.store %{{.+}}, %[[CN]][%{{.+}}]
//  CHECK-NEXT:   }
//  CHECK-NEXT:   nvvm.cluster.arrive
//  CHECK-NEXT:   nvvm.cluster.wait
//  CHECK-COUNT-12: llvm.load %{{.+}} : !llvm.ptr<7> -> f32
//  CHECK-COUNT-3: arith.divf %cst{{.*}}, %{{.+}} fastmath<afn> : f32
//       CHECK:   nvvm.cluster.arrive
//   CHECK-NOT:   nvvm.cluster.arrive
//       CHECK:   nvvm.cluster.wait
//  CHECK-NEXT:   gpu.return
func.func @welford_cluster(%in: memref<?x4097xf32>, %out: memref<?x4097xf32>) attributes {tile.kernel, tile.domain = array<i64: 5, 4097>, tile.schedule = {chunks = 3 : i64, cluster = 4 : i64, col_blocks = 4 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 512 : i64, vector_width = 1 : i64}} {
  %w = arith.constant 4.097000e+03 : f32
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x4097xf32> -> tensor<4097xf32>
  %mean, %m2 = tile.reduce_mean_m2 %x {fastmath = #arith.fastmath<afn>} : tensor<4097xf32> -> f32, f32
  %b = tile.splat %mean : f32 -> tensor<4097xf32>
  %d = arith.subf %x, %b : tensor<4097xf32>
  %var = arith.divf %m2, %w fastmath<afn> : f32
  %rs = math.rsqrt %var : f32
  %br = tile.splat %rs : f32 -> tensor<4097xf32>
  %y = arith.mulf %d, %br : tensor<4097xf32>
  tile.store %y, %out[%r] : tensor<4097xf32> -> memref<?x4097xf32>
  return
}
