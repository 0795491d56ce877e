// RUN: tilec-opt --split-input-file --tilec-distribute-row-tiles %s | FileCheck %s
// The schedules below are the ones tilec-schedule-row-kernels picks (see
// tile/schedule-streaming.mlir); recomputing them changes nothing.
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels=online-softmax=false --tilec-distribute-row-tiles %s | FileCheck %s

// Streamed (multi-pass) rows: stream_blocks > 0. No tile stays in registers.
// Each reduction becomes one scf.for over the stream blocks that re-reads
// (recomputes) its operand tile and accumulates in a vector<V x f32>
// iter_arg, initialized with the identity (-inf for max, 0 for sum); the
// shuffles, workgroup slots and barrier of the cross-thread reduction follow
// the loop. All tile stores share one last scf.for without iter_args, just
// before the return, that recomputes the stored tiles. In block i, chunk k of a lane
// is at column (i * chunks * TPR + k * TPR + lane) * V.

// Softmax, 65536 f32: V = 4, TPR = 512, chunks 4, blocks of 2048 vectors,
// 8 blocks = 8 * 2048 * 4 = 65536 columns exactly, so there are no column
// masks. Two reductions (max, then sum of exp) -> two loops with iter_args,
// each followed by its reduction across the CTA (16 warps: one workgroup
// buffer each), then one loop for the store.
// CHECK-LABEL: gpu.func @softmax_kernel0
//  CHECK-SAME:   (%[[IN:.+]]: memref<?x65536xf32>, %[[OUT:.+]]: memref<?x65536xf32>)
//  CHECK-SAME:   workgroup(%[[B0:.+]] : memref<16xf32, #gpu.address_space<workgroup>>, %[[B1:.+]] : memref<16xf32, #gpu.address_space<workgroup>>)
//  CHECK-SAME:   known_block_size = array<i32: 512, 1, 1>
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 8 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
//       CHECK:   %[[TID:.+]] = gpu.thread_id x
//       CHECK:   %[[LANE:.+]] = arith.remui %[[TID]], %{{.+}} : index
//       CHECK:   %[[ROW:.+]] = arith.addi
//       CHECK:   %[[ROWOK:.+]] = arith.cmpi ult, %[[ROW]], %{{.+}} : index
// No column indices outside the loops.
//   CHECK-NOT:   arith.muli
//       CHECK:   %[[NEGINF:.+]] = arith.constant dense<0xFF800000> : vector<4xf32>
//   CHECK-NOT:   arith.muli
//       CHECK:   %[[C8:.+]] = arith.constant 8 : index
//   CHECK-NOT:   arith.muli
// Loop 1: the row max.
//       CHECK:   %[[MAXV:.+]] = scf.for %[[I:.+]] = %{{.+}} to %[[C8]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[NEGINF]]) -> (vector<4xf32>) {
//  CHECK-NEXT:     %[[C2048:.+]] = arith.constant 2048 : index
//  CHECK-NEXT:     %[[FIRST:.+]] = arith.muli %[[I]], %[[C2048]] : index
//       CHECK:     %[[C1536:.+]] = arith.constant 1536 : index
//  CHECK-NEXT:     %[[K3B:.+]] = arith.addi %[[FIRST]], %[[C1536]] : index
//  CHECK-NEXT:     %[[K3:.+]] = arith.addi %[[K3B]], %[[LANE]] : index
//  CHECK-NEXT:     %[[C4:.+]] = arith.constant 4 : index
//  CHECK-NEXT:     %[[COL3:.+]] = arith.muli %[[K3]], %[[C4]] : index
//   CHECK-NOT:     arith.cmpi
//  CHECK-COUNT-4:  scf.if %[[ROWOK]] -> (vector<4xf32>)
//       CHECK:     vector.load %[[IN]][%[[ROW]], %[[COL3]]] {alignment = 16 : i64} : memref<?x65536xf32>, vector<4xf32>
//   CHECK-NOT:     arith.select
//  CHECK-COUNT-3:  arith.maximumf %{{.+}}, %{{.+}} : vector<4xf32>
//  CHECK-NEXT:     %[[MAXNEXT:.+]] = arith.maximumf %[[ACC]], %{{.+}} : vector<4xf32>
//  CHECK-NEXT:     scf.yield %[[MAXNEXT]] : vector<4xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[MAXP:.+]] = vector.reduction <maximumf>, %[[MAXV]] : vector<4xf32> into f32
//       CHECK:   gpu.shuffle xor %[[MAXP]], %{{.+}}, %{{.+}} : f32
//  CHECK-COUNT-4: gpu.shuffle xor
//       CHECK:   memref.store %{{.+}}, %[[B0]][%{{.+}}] : memref<16xf32, #gpu.address_space<workgroup>>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.barrier
//  CHECK-COUNT-16: memref.load %[[B0]]
//  CHECK-NEXT:   %[[MAX:.+]] = arith.maximumf %{{.+}}, %{{.+}} : f32
//   CHECK-NOT:   vector.load
//       CHECK:   %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<4xf32>
//   CHECK-NOT:   vector.load
//       CHECK:   %[[C8B:.+]] = arith.constant 8 : index
// Loop 2: the sum of exp(x - max), x re-read from memory.
//       CHECK:   %[[SUMV:.+]] = scf.for %[[J:.+]] = %{{.+}} to %[[C8B]] step %{{.+}} iter_args(%[[ACC2:.+]] = %[[ZERO]]) -> (vector<4xf32>) {
//  CHECK-NEXT:     %[[C2048B:.+]] = arith.constant 2048 : index
//  CHECK-NEXT:     %{{.+}} = arith.muli %[[J]], %[[C2048B]] : index
//   CHECK-NOT:     arith.cmpi
//  CHECK-COUNT-4:  vector.load %[[IN]][%[[ROW]], %{{.+}}]
//       CHECK:     %[[MAXB:.+]] = vector.broadcast %[[MAX]] : f32 to vector<4xf32>
//  CHECK-COUNT-4:  arith.subf %{{.+}}, %[[MAXB]] : vector<4xf32>
//  CHECK-COUNT-4:  math.exp
//   CHECK-NOT:     arith.select
//  CHECK-COUNT-3:  arith.addf %{{.+}}, %{{.+}} : vector<4xf32>
//  CHECK-NEXT:     %[[SUMNEXT:.+]] = arith.addf %[[ACC2]], %{{.+}} : vector<4xf32>
//  CHECK-NEXT:     scf.yield %[[SUMNEXT]] : vector<4xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[SUMP:.+]] = vector.reduction <add>, %[[SUMV]] : vector<4xf32> into f32
//       CHECK:   gpu.shuffle xor %[[SUMP]], %{{.+}}, %{{.+}} : f32
//  CHECK-COUNT-4: gpu.shuffle xor
//       CHECK:   memref.store %{{.+}}, %[[B1]][%{{.+}}] : memref<16xf32, #gpu.address_space<workgroup>>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.barrier
//  CHECK-COUNT-16: memref.load %[[B1]]
//  CHECK-NEXT:   %[[SUM:.+]] = arith.addf %{{.+}}, %{{.+}} : f32
//   CHECK-NOT:   vector.load
//       CHECK:   %[[C8C:.+]] = arith.constant 8 : index
// Loop 3: the store of exp(x - max) / sum, recomputed; no iter_args.
//       CHECK:   scf.for %[[K:.+]] = %{{.+}} to %[[C8C]] step %{{[^ ]+}} {
//  CHECK-NEXT:     %[[C2048C:.+]] = arith.constant 2048 : index
//  CHECK-NEXT:     %{{.+}} = arith.muli %[[K]], %[[C2048C]] : index
//  CHECK-COUNT-4:  vector.load %[[IN]][%[[ROW]], %{{.+}}]
//       CHECK:     vector.broadcast %[[MAX]] : f32 to vector<4xf32>
//  CHECK-COUNT-4:  math.exp
//       CHECK:     %[[SUMB:.+]] = vector.broadcast %[[SUM]] : f32 to vector<4xf32>
//  CHECK-COUNT-4:  arith.divf %{{.+}}, %[[SUMB]] : vector<4xf32>
//  CHECK-COUNT-4:  scf.if %[[ROWOK]] {
//  CHECK-NEXT:       vector.store %{{.+}}, %[[OUT]][%[[ROW]], %{{.+}}] {alignment = 16 : i64} : memref<?x65536xf32>, vector<4xf32>
//  CHECK-NEXT:     }
//   CHECK-NOT:     scf.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.return
func.func @softmax_kernel0(%in: memref<?x65536xf32>, %out: memref<?x65536xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 65536>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 8 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x65536xf32> -> tensor<65536xf32>
  %m = tile.reduce_max %x : tensor<65536xf32> -> f32
  %mt = tile.splat %m : f32 -> tensor<65536xf32>
  %d = arith.subf %x, %mt : tensor<65536xf32>
  %e = math.exp %d : tensor<65536xf32>
  %s = tile.reduce_sum %e : tensor<65536xf32> -> f32
  %st = tile.splat %s : f32 -> tensor<65536xf32>
  %y = arith.divf %e, %st : tensor<65536xf32>
  tile.store %y, %out[%r] : tensor<65536xf32> -> memref<?x65536xf32>
  return
}

// -----

// RMSNorm with an odd row, 32769 f32 (tilec --emit=tile --cols=32769
// --dtype=f32 rms_norm): V = 1, 17 blocks of 2048 elements; the last block
// holds one element, so every chunk k can leave the row
// ((16 * 4 + k + 1) * 512 > 32769) and gets a mask col < 32769. Masked
// chunks load 0 and add the identity 0 to the sum. The weight vector (no
// row) is only loaded in the store loop, under the column mask alone.
// CHECK-LABEL: gpu.func @rms_norm_kernel0
//  CHECK-SAME:   (%[[X:.+]]: memref<?x32769xf32>, %[[W:.+]]: memref<32769xf32>, %[[OUT:.+]]: memref<?x32769xf32>)
//  CHECK-SAME:   workgroup(%[[B:.+]] : memref<16xf32, #gpu.address_space<workgroup>>)
//  CHECK-SAME:   known_block_size = array<i32: 512, 1, 1>
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 17 : i64, threads_per_row = 512 : i64, vector_width = 1 : i64}
//       CHECK:   %[[TID:.+]] = gpu.thread_id x
//       CHECK:   %[[LANE:.+]] = arith.remui %[[TID]], %{{.+}} : index
//       CHECK:   %[[ROW:.+]] = arith.addi
//       CHECK:   %[[ROWOK:.+]] = arith.cmpi ult, %[[ROW]], %{{.+}} : index
//   CHECK-NOT:   arith.cmpi
//       CHECK:   %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<1xf32>
//       CHECK:   %[[C17:.+]] = arith.constant 17 : index
// Loop 1: sum of squares.
//       CHECK:   %[[SSV:.+]] = scf.for %[[I:.+]] = %{{.+}} to %[[C17]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (vector<1xf32>) {
//  CHECK-NEXT:     %[[C2048:.+]] = arith.constant 2048 : index
//  CHECK-NEXT:     %[[FIRST:.+]] = arith.muli %[[I]], %[[C2048]] : index
//  CHECK-NEXT:     %[[C0:.+]] = arith.constant 0 : index
//  CHECK-NEXT:     %[[K0B:.+]] = arith.addi %[[FIRST]], %[[C0]] : index
//  CHECK-NEXT:     %[[K0:.+]] = arith.addi %[[K0B]], %[[LANE]] : index
//  CHECK-NEXT:     %[[CV:.+]] = arith.constant 1 : index
//  CHECK-NEXT:     %[[COL0:.+]] = arith.muli %[[K0]], %[[CV]] : index
//  CHECK-NEXT:     %[[CN:.+]] = arith.constant 32769 : index
//  CHECK-NEXT:     %[[OK0:.+]] = arith.cmpi ult, %[[COL0]], %[[CN]] : index
//       CHECK:     %[[OK1:.+]] = arith.cmpi ult, %{{.+}}, %{{.+}} : index
//       CHECK:     %[[OK2:.+]] = arith.cmpi ult, %{{.+}}, %{{.+}} : index
//       CHECK:     %[[OK3:.+]] = arith.cmpi ult, %{{.+}}, %{{.+}} : index
//       CHECK:     %[[LD0:.+]] = arith.andi %[[ROWOK]], %[[OK0]] : i1
//  CHECK-NEXT:     %[[X0:.+]] = scf.if %[[LD0]] -> (vector<1xf32>) {
//  CHECK-NEXT:       vector.load %[[X]][%[[ROW]], %[[COL0]]] {alignment = 4 : i64} : memref<?x32769xf32>, vector<1xf32>
//       CHECK:     %[[LD1:.+]] = arith.andi %[[ROWOK]], %[[OK1]] : i1
//  CHECK-NEXT:     scf.if %[[LD1]] -> (vector<1xf32>) {
//       CHECK:     %[[LD2:.+]] = arith.andi %[[ROWOK]], %[[OK2]] : i1
//  CHECK-NEXT:     scf.if %[[LD2]] -> (vector<1xf32>) {
//       CHECK:     %[[LD3:.+]] = arith.andi %[[ROWOK]], %[[OK3]] : i1
//  CHECK-NEXT:     scf.if %[[LD3]] -> (vector<1xf32>) {
//   CHECK-NOT:     vector.load %[[W]]
//       CHECK:     %[[SQ0:.+]] = arith.mulf %[[X0]], %[[X0]] : vector<1xf32>
//  CHECK-COUNT-3:  arith.mulf
//  CHECK-NEXT:     %[[Z:.+]] = arith.constant dense<0.000000e+00> : vector<1xf32>
//  CHECK-NEXT:     %[[S0:.+]] = arith.select %[[OK0]], %[[SQ0]], %[[Z]] : vector<1xf32>
//  CHECK-NEXT:     %[[S1:.+]] = arith.select %[[OK1]], %{{.+}}, %[[Z]] : vector<1xf32>
//  CHECK-NEXT:     %[[A01:.+]] = arith.addf %[[S0]], %[[S1]] : vector<1xf32>
//  CHECK-NEXT:     arith.select %[[OK2]], %{{.+}}, %[[Z]] : vector<1xf32>
//  CHECK-NEXT:     arith.addf %[[A01]], %{{.+}} : vector<1xf32>
//  CHECK-NEXT:     arith.select %[[OK3]], %{{.+}}, %[[Z]] : vector<1xf32>
//  CHECK-NEXT:     %[[BLK:.+]] = arith.addf %{{.+}}, %{{.+}} : vector<1xf32>
//  CHECK-NEXT:     %[[NEXT:.+]] = arith.addf %[[ACC]], %[[BLK]] : vector<1xf32>
//  CHECK-NEXT:     scf.yield %[[NEXT]] : vector<1xf32>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[P:.+]] = vector.reduction <add>, %[[SSV]] : vector<1xf32> into f32
//       CHECK:   gpu.shuffle xor %[[P]], %{{.+}}, %{{.+}} : f32
//  CHECK-COUNT-4: gpu.shuffle xor
//       CHECK:   memref.store %{{.+}}, %[[B]][%{{.+}}] : memref<16xf32, #gpu.address_space<workgroup>>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.barrier
//  CHECK-COUNT-16: memref.load %[[B]]
//       CHECK:   arith.divf %{{.+}}, %{{.+}} : f32
//  CHECK-NEXT:   arith.addf %{{.+}}, %{{.+}} : f32
//  CHECK-NEXT:   %[[INV:.+]] = math.rsqrt %{{.+}} : f32
//   CHECK-NOT:   vector.load
//       CHECK:   %[[C17B:.+]] = arith.constant 17 : index
// Loop 2: x re-read, scaled by rsqrt and the weight, stored.
//       CHECK:   scf.for %[[J:.+]] = %{{.+}} to %[[C17B]] step %{{[^ ]+}} {
//  CHECK-NEXT:     %[[C2048B:.+]] = arith.constant 2048 : index
//  CHECK-NEXT:     %[[FIRSTB:.+]] = arith.muli %[[J]], %[[C2048B]] : index
//  CHECK-NEXT:     %[[C0B:.+]] = arith.constant 0 : index
//  CHECK-NEXT:     %[[K0BB:.+]] = arith.addi %[[FIRSTB]], %[[C0B]] : index
//  CHECK-NEXT:     %[[K0B:.+]] = arith.addi %[[K0BB]], %[[LANE]] : index
//  CHECK-NEXT:     %[[CVB:.+]] = arith.constant 1 : index
//  CHECK-NEXT:     %[[COL0B:.+]] = arith.muli %[[K0B]], %[[CVB]] : index
//  CHECK-NEXT:     %{{.+}} = arith.constant 32769 : index
//  CHECK-NEXT:     %[[OK0B:.+]] = arith.cmpi ult, %[[COL0B]], %{{.+}} : index
//  CHECK-COUNT-3:  arith.cmpi ult
//  CHECK-COUNT-4:  vector.load %[[X]][%[[ROW]], %{{.+}}]
//       CHECK:     %[[INVB:.+]] = vector.broadcast %[[INV]] : f32 to vector<1xf32>
//  CHECK-COUNT-4:  arith.mulf %{{.+}}, %[[INVB]] : vector<1xf32>
//       CHECK:     scf.if %[[OK0B]] -> (vector<1xf32>) {
//  CHECK-NEXT:       vector.load %[[W]][%[[COL0B]]] {alignment = 4 : i64} : memref<32769xf32>, vector<1xf32>
//  CHECK-COUNT-3:  vector.load %[[W]]
//  CHECK-COUNT-4:  arith.mulf
//  CHECK-NEXT:     %[[ST0:.+]] = arith.andi %[[ROWOK]], %[[OK0B]] : i1
//  CHECK-NEXT:     scf.if %[[ST0]] {
//  CHECK-NEXT:       vector.store %{{.+}}, %[[OUT]][%[[ROW]], %[[COL0B]]] {alignment = 4 : i64} : memref<?x32769xf32>, vector<1xf32>
//  CHECK-COUNT-3:  vector.store %{{.+}}, %[[OUT]][%[[ROW]], %{{.+}}] {alignment = 4 : i64} : memref<?x32769xf32>, vector<1xf32>
//  CHECK-NEXT:     }
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.return
func.func @rms_norm_kernel0(%x: memref<?x32769xf32>, %w: memref<32769xf32>, %out: memref<?x32769xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 32769>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 17 : i64, threads_per_row = 512 : i64, vector_width = 1 : i64}} {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 3.276900e+04 : f32
  %r = tile.row_id
  %xt = tile.load %x[%r] : memref<?x32769xf32> -> tensor<32769xf32>
  %wt = tile.load %w : memref<32769xf32> -> tensor<32769xf32>
  %sq = arith.mulf %xt, %xt : tensor<32769xf32>
  %ss = tile.reduce_sum %sq : tensor<32769xf32> -> f32
  %ms = arith.divf %ss, %n : f32
  %a = arith.addf %ms, %eps : f32
  %inv = math.rsqrt %a : f32
  %it = tile.splat %inv : f32 -> tensor<32769xf32>
  %y0 = arith.mulf %xt, %it : tensor<32769xf32>
  %y = arith.mulf %y0, %wt : tensor<32769xf32>
  tile.store %y, %out[%r] : tensor<32769xf32> -> memref<?x32769xf32>
  return
}

// -----

// One loop per reduction, one loop for all the tile stores: the store of h
// comes before the reduction in the program, but all tile stores wait for
// one last loop just before the return (nothing in a tile program reads what
// it stores), so there are exactly two loops: max(h) first, then the stores
// to OH, OY and OE together. The per-row scalar store is not a tile store and
// stays in program order (lane 0 writes), i.e. before the store loop.
// 69632 f32: V = 4, 17408 vectors, 9 blocks of 2048 vectors; in the last
// block (first vector 16384) chunks 0 and 1 end at vector 16384 + 1024 <=
// 17408 and are never masked, chunks 2 and 3 are; only they take the
// identity -inf in the max.
// CHECK-LABEL: gpu.func @runs_kernel0
//  CHECK-SAME:   (%[[A:.+]]: memref<?x69632xf32>, %[[B:.+]]: memref<?x69632xf32>, %[[OH:.+]]: memref<?x69632xf32>, %[[OY:.+]]: memref<?x69632xf32>, %[[OE:.+]]: memref<?x69632xf32>, %[[OM:.+]]: memref<?x1xf32>)
//  CHECK-SAME:   workgroup(%[[BUF:.+]] : memref<16xf32, #gpu.address_space<workgroup>>)
//  CHECK-SAME:   tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 9 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}
//       CHECK:   %[[LANE:.+]] = arith.remui
//       CHECK:   %[[ROW:.+]] = arith.addi
//       CHECK:   %[[ROWOK:.+]] = arith.cmpi ult, %[[ROW]], %{{.+}} : index
// Nothing is stored, and no loop starts, before the reduction loop.
//   CHECK-NOT:   scf.for
//   CHECK-NOT:   vector.store
//       CHECK:   %[[NEGINF:.+]] = arith.constant dense<0xFF800000> : vector<4xf32>
//   CHECK-NOT:   scf.for
//   CHECK-NOT:   vector.store
//       CHECK:   %[[C9:.+]] = arith.constant 9 : index
//   CHECK-NOT:   scf.for
//   CHECK-NOT:   vector.store
// Loop 1: max(h), h = a + b computed from memory; nothing stored.
//       CHECK:   %[[MAXV:.+]] = scf.for %[[I:.+]] = %{{.+}} to %[[C9]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[NEGINF]]) -> (vector<4xf32>) {
//  CHECK-NEXT:     %[[C2048:.+]] = arith.constant 2048 : index
//  CHECK-NEXT:     %[[FIRST:.+]] = arith.muli %[[I]], %[[C2048]] : index
//   CHECK-NOT:     arith.cmpi
//       CHECK:     %[[C1024:.+]] = arith.constant 1024 : index
//  CHECK-NEXT:     %[[K2B:.+]] = arith.addi %[[FIRST]], %[[C1024]] : index
//  CHECK-NEXT:     %[[K2:.+]] = arith.addi %[[K2B]], %[[LANE]] : index
//  CHECK-NEXT:     %[[C4:.+]] = arith.constant 4 : index
//  CHECK-NEXT:     %[[COL2:.+]] = arith.muli %[[K2]], %[[C4]] : index
//  CHECK-NEXT:     %[[CN:.+]] = arith.constant 69632 : index
//  CHECK-NEXT:     %[[OK2:.+]] = arith.cmpi ult, %[[COL2]], %[[CN]] : index
//       CHECK:     %[[OK3:.+]] = arith.cmpi ult, %{{.+}}, %{{.+}} : index
//   CHECK-NOT:     arith.cmpi
// Chunks 0 and 1 are loaded under the row mask alone, 2 and 3 also under
// their column masks.
//       CHECK:     scf.if %[[ROWOK]] -> (vector<4xf32>) {
//  CHECK-NEXT:       vector.load %[[A]][%[[ROW]], %{{.+}}]
//       CHECK:     scf.if %[[ROWOK]] -> (vector<4xf32>) {
//  CHECK-NEXT:       vector.load %[[A]][%[[ROW]], %{{.+}}]
//       CHECK:     %[[LD2:.+]] = arith.andi %[[ROWOK]], %[[OK2]] : i1
//  CHECK-NEXT:     scf.if %[[LD2]] -> (vector<4xf32>) {
//  CHECK-NEXT:       vector.load %[[A]][%[[ROW]], %[[COL2]]] {alignment = 16 : i64} : memref<?x69632xf32>, vector<4xf32>
//       CHECK:     %[[LD3:.+]] = arith.andi %[[ROWOK]], %[[OK3]] : i1
//  CHECK-NEXT:     scf.if %[[LD3]] -> (vector<4xf32>) {
//  CHECK-NEXT:       vector.load %[[A]][%[[ROW]], %{{.+}}]
//  CHECK-COUNT-4:  vector.load %[[B]]
//  CHECK-COUNT-4:  arith.addf %{{.+}}, %{{.+}} : vector<4xf32>
//   CHECK-NOT:     vector.store
//   CHECK-NOT:     scf.for
//       CHECK:     %[[NI:.+]] = arith.constant dense<0xFF800000> : vector<4xf32>
//  CHECK-NEXT:     %[[M01:.+]] = arith.maximumf %{{.+}}, %{{.+}} : vector<4xf32>
//  CHECK-NEXT:     %[[S2:.+]] = arith.select %[[OK2]], %{{.+}}, %[[NI]] : vector<4xf32>
//  CHECK-NEXT:     %[[M012:.+]] = arith.maximumf %[[M01]], %[[S2]] : vector<4xf32>
//  CHECK-NEXT:     %[[S3:.+]] = arith.select %[[OK3]], %{{.+}}, %[[NI]] : vector<4xf32>
//  CHECK-NEXT:     %[[BLK:.+]] = arith.maximumf %[[M012]], %[[S3]] : vector<4xf32>
//  CHECK-NEXT:     %[[NEXT:.+]] = arith.maximumf %[[ACC]], %[[BLK]] : vector<4xf32>
//  CHECK-NEXT:     scf.yield %[[NEXT]] : vector<4xf32>
//  CHECK-NEXT:   }
// Its reduction across the CTA: warp shuffles, one workgroup slot per warp.
//  CHECK-NEXT:   %[[MAXP:.+]] = vector.reduction <maximumf>, %[[MAXV]] : vector<4xf32> into f32
//       CHECK:   gpu.shuffle xor %[[MAXP]], %{{.+}}, %{{.+}} : f32
//  CHECK-COUNT-4: gpu.shuffle xor
//       CHECK:   memref.store %{{.+}}, %[[BUF]][%{{.+}}] : memref<16xf32, #gpu.address_space<workgroup>>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.barrier
//  CHECK-COUNT-16: memref.load %[[BUF]]
//  CHECK-NEXT:   %[[M:.+]] = arith.maximumf %{{.+}}, %{{.+}} : f32
// The per-row max: lane 0 of the row, in program order, before the stores.
//  CHECK-NEXT:   %[[CZ:.+]] = arith.constant 0 : index
//  CHECK-NEXT:   %[[LANE0:.+]] = arith.cmpi eq, %[[LANE]], %[[CZ]] : index
//  CHECK-NEXT:   %[[WRITER:.+]] = arith.andi %[[ROWOK]], %[[LANE0]] : i1
//  CHECK-NEXT:   scf.if %[[WRITER]] {
//       CHECK:     memref.store %[[M]], %[[OM]][%[[ROW]], %{{.+}}] : memref<?x1xf32>
//  CHECK-NEXT:   }
//   CHECK-NOT:   scf.for
//   CHECK-NOT:   vector.store
//       CHECK:   %[[C9B:.+]] = arith.constant 9 : index
//   CHECK-NOT:   scf.for
//   CHECK-NOT:   vector.store
// Loop 2, the only other loop: every tile store, h to OH first (recomputed
// from a and b), then y = h - max to OY and exp(y) to OE; no iter_args.
//       CHECK:   scf.for %[[J:.+]] = %{{.+}} to %[[C9B]] step %{{[^ ]+}} {
//  CHECK-NEXT:     %[[C2048B:.+]] = arith.constant 2048 : index
//  CHECK-NEXT:     %{{.+}} = arith.muli %[[J]], %[[C2048B]] : index
//   CHECK-NOT:     vector.store
//  CHECK-COUNT-4:  vector.load %[[A]]
//  CHECK-COUNT-4:  vector.load %[[B]]
//  CHECK-COUNT-4:  arith.addf %{{.+}}, %{{.+}} : vector<4xf32>
//   CHECK-NOT:     vector.store
//  CHECK-COUNT-4:  vector.store %{{.+}}, %[[OH]][%[[ROW]], %{{.+}}] {alignment = 16 : i64} : memref<?x69632xf32>, vector<4xf32>
//   CHECK-NOT:     scf.for
//   CHECK-NOT:     vector.store
//       CHECK:     vector.broadcast %[[M]] : f32 to vector<4xf32>
//  CHECK-COUNT-4:  arith.subf %{{.+}}, %{{.+}} : vector<4xf32>
//   CHECK-NOT:     scf.for
//   CHECK-NOT:     vector.store
//  CHECK-COUNT-4:  vector.store %{{.+}}, %[[OY]][%[[ROW]], %{{.+}}] {alignment = 16 : i64} : memref<?x69632xf32>, vector<4xf32>
//   CHECK-NOT:     scf.for
//   CHECK-NOT:     vector.store
//  CHECK-COUNT-4:  math.exp
//   CHECK-NOT:     scf.for
//   CHECK-NOT:     vector.store
//  CHECK-COUNT-4:  vector.store %{{.+}}, %[[OE]][%[[ROW]], %{{.+}}] {alignment = 16 : i64} : memref<?x69632xf32>, vector<4xf32>
//  CHECK-NEXT:     }
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.return
func.func @runs_kernel0(%a: memref<?x69632xf32>, %b: memref<?x69632xf32>, %oh: memref<?x69632xf32>, %oy: memref<?x69632xf32>, %oe: memref<?x69632xf32>, %om: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 2, 69632>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 9 : i64, threads_per_row = 512 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %at = tile.load %a[%r] : memref<?x69632xf32> -> tensor<69632xf32>
  %bt = tile.load %b[%r] : memref<?x69632xf32> -> tensor<69632xf32>
  %h = arith.addf %at, %bt : tensor<69632xf32>
  tile.store %h, %oh[%r] : tensor<69632xf32> -> memref<?x69632xf32>
  %m = tile.reduce_max %h : tensor<69632xf32> -> f32
  %mt = tile.splat %m : f32 -> tensor<69632xf32>
  %y = arith.subf %h, %mt : tensor<69632xf32>
  %e = math.exp %y : tensor<69632xf32>
  tile.store %y, %oy[%r] : tensor<69632xf32> -> memref<?x69632xf32>
  tile.store %e, %oe[%r] : tensor<69632xf32> -> memref<?x69632xf32>
  tile.store %m, %om[%r] : f32 -> memref<?x1xf32>
  return
}
