// The epilogue through shared memory and TMA stores (gemm-tma-store, on by
// default): the scheduler adds the output's tensor map (64 x 64 boxes) and
// two 8 KB buffers an MMA warpgroup; each warpgroup writes a 64 x 64 unit of
// its results to a buffer (st.shared of the pairs), fences them for the
// async proxy, syncs its 128 threads on its own named barrier (3 + group),
// and its first thread stores the unit with one TMA copy; before a buffer is
// rewritten that thread waits until at most one copy is still reading.
// A unit is 64 rows of 128 bytes: 64 16-bit or 32 f32 columns. A batched
// product's output map is 3-D, {batch, rows / batch, N} in {1, 64, cols}
// boxes (TMA clips a tile's rows at its batch's end), its stores take the
// tile's batch index as the outer coordinate.
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-cluster-m=1" %s | FileCheck %s --check-prefix=SCHED
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-cluster-m=1" --tilec-distribute-gemm-tiles %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-cluster-m=1 gemm-tma-store=0" --tilec-distribute-gemm-tiles %s | FileCheck %s --check-prefix=OFF --implicit-check-not=cp.async.bulk.tensor.global.shared.cta --implicit-check-not=tma_store

// 128 x 256 tiles: 4 units a warpgroup, panels 4 x 48 KB + barriers, rounded
// to 1024, + 2 x 16 KB of buffers + the alignment pad.
// SCHED-LABEL: func.func @bias
// SCHED-SAME: shared_bytes = 231424 : i64
// SCHED-SAME: tma_store = 1 : i64
// SCHED-SAME: tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 200, 256>}, {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 256, 256>}, {arg = 3 : i64, box = array<i64: 64, 64>, dims = array<i64: 200, 256>}]

// CHECK-LABEL: gpu.func @bias
// CHECK-SAME:    %[[Y:[^:]+]]: memref<?x256xbf16>, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %[[OUTMAP:[^:]+]]: !llvm.ptr)
// CHECK-SAME:    tile.tma_params = 3 : i64
// CHECK:         nvvm.setmaxregister  increase 232
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// Unit 0 of 4: buffer 0.
// CHECK:           nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK:           nvvm.barrier id = %[[BAR:.+]] number_of_threads = %[[N128:.+]]
// CHECK-COUNT-16:  llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      nvvm.barrier id = %[[BAR]] number_of_threads = %[[N128]]
// CHECK:             nvvm.cp.async.bulk.tensor.global.shared.cta %[[OUTMAP]], %{{.+}}, box[%{{.+}}, %{{.+}}] : !llvm.ptr, <3>
// CHECK-NEXT:        nvvm.cp.async.bulk.commit.group
// CHECK-COUNT-3:   nvvm.cp.async.bulk.tensor.global.shared.cta %[[OUTMAP]]
// CHECK-NOT:       nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT:       vector.store
// After the tile loop: the last copies are waited for.
// CHECK:           nvvm.cp.async.bulk.wait_group 0
// CHECK-NOT:       nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK:         gpu.return
// OFF-LABEL: gpu.func @bias
// OFF-COUNT-64:  vector.store %{{.+}} {alignment = 4 : i64} : memref<?x256xbf16>, vector<2xbf16>
func.func @bias(%x: memref<?x256xbf16>, %w: memref<256x256xbf16>, %b: memref<256xbf16>, %y: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 200, 256>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x256xbf16>, memref<256x256xbf16> -> tensor<256xf32>
  %bv = tile.load %b : memref<256xbf16> -> tensor<256xbf16>
  %bf = arith.extf %bv : tensor<256xbf16> to tensor<256xf32>
  %s = arith.addf %p, %bf : tensor<256xf32>
  %t = arith.truncf %s : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %y[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}

// -----

// f32 results: units of 64 rows x 32 columns (8 KB), twice as many (8 a
// warpgroup); the output map's box is [64, 32] (128 bytes). An n8 tile's
// row is two 16-byte chunks, so the threads of odd rows (quad = lane / 4
// odd) store tile j ^ 2 where those of even rows store tile j, which puts
// a half-warp's 8-byte stores into 8 distinct chunks: each slot selects
// between the pairs of tiles j and j ^ 2, and its chunk is (2 j + (lane %
// 4) / 2) ^ key, key = quad ^ (quad % 2) * 4.
// SCHED-LABEL: func.func @f32_out
// SCHED-SAME:  shared_bytes = 231424 : i64
// SCHED-SAME:  tma_store = 1 : i64
// SCHED-SAME:  tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 200, 256>}, {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 256, 256>}, {arg = 2 : i64, box = array<i64: 64, 32>, dims = array<i64: 200, 256>}]
// CHECK-LABEL: gpu.func @f32_out
// CHECK-SAME:    %[[OUTMAP:[^:]+]]: !llvm.ptr)
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         %[[FOUR:.+]] = arith.muli %[[ODD:[^,]+]], %c4{{.*}} : index
// CHECK-NEXT:    %[[KEY:.+]] = arith.xori %{{[^,]+}}, %[[FOUR]] : index
// CHECK-NEXT:    %c0{{.*}} = arith.constant 0 : index
// CHECK-NEXT:    %[[ISODD:.+]] = arith.cmpi ne, %[[ODD]], %c0{{.*}} : index
// CHECK:         arith.xori %{{.+}}, %[[KEY]] : index
// Unit 0 of 8: tiles 0-3, rows quad and quad + 8.
// CHECK:           nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK:           nvvm.barrier id = %[[BAR:.+]] number_of_threads = %[[N128:.+]]
// CHECK:           %[[S0:.+]] = arith.select %[[ISODD]], %[[T2:[^,]+]], %[[T0:[^ ]+]] : vector<2xf32>
// CHECK:           llvm.store %[[S0]], %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK:           %[[S1:.+]] = arith.select %[[ISODD]], %[[T3:[^,]+]], %[[T1:[^ ]+]] : vector<2xf32>
// CHECK:           llvm.store %[[S1]], %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK:           %[[S2:.+]] = arith.select %[[ISODD]], %[[T0]], %[[T2]] : vector<2xf32>
// CHECK:           llvm.store %[[S2]], %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK:           %[[S3:.+]] = arith.select %[[ISODD]], %[[T1]], %[[T3]] : vector<2xf32>
// CHECK:           llvm.store %[[S3]], %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-COUNT-4:   llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      nvvm.barrier id = %[[BAR]] number_of_threads = %[[N128]]
// CHECK:             nvvm.cp.async.bulk.tensor.global.shared.cta %[[OUTMAP]], %{{.+}}, box[%{{.+}}, %{{.+}}] : !llvm.ptr, <3>
// CHECK-NEXT:        nvvm.cp.async.bulk.commit.group
// CHECK-COUNT-7:   nvvm.cp.async.bulk.tensor.global.shared.cta %[[OUTMAP]]
// CHECK-NOT:       nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT:       vector.store
// CHECK:           nvvm.cp.async.bulk.wait_group 0
// CHECK:         gpu.return
// OFF-LABEL: gpu.func @f32_out
// OFF-COUNT-64:  vector.store %{{.+}} {alignment = 8 : i64} : memref<?x256xf32>, vector<2xf32>
func.func @f32_out(%x: memref<?x256xbf16>, %w: memref<256x256xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 200, 256>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x256xbf16>, memref<256x256xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}

// -----

// A batched rhs [3, N, K], 300 rows a batch: the output map is [3, 300,
// 264] in [1, 64, 64] boxes; each store's outer coordinate is the batch
// index of the tile (its index / 6 tiles a batch), rows count within the
// batch.
// SCHED-LABEL: func.func @batched
// SCHED-SAME:  shared_bytes = 231424 : i64
// SCHED-SAME:  tma_store = 1 : i64
// SCHED-SAME:  tile.tma = [{arg = 0 : i64, box = array<i64: 1, 128, 64>, dims = array<i64: 3, 300, 128>}, {arg = 1 : i64, box = array<i64: 1, 256, 64>, dims = array<i64: 3, 264, 128>}, {arg = 2 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 3, 300, 264>}]
// CHECK-LABEL: gpu.func @batched
// CHECK-SAME:    %[[OUTMAP:[^:]+]]: !llvm.ptr)
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         %[[BATCH:.+]] = arith.divui %{{.+}}, %c6{{(_[0-9]+)?}} : index
// CHECK:           nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK-COUNT-16:  llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK:             %[[B32:.+]] = arith.index_cast %[[BATCH]] : index to i32
// CHECK-NEXT:        nvvm.cp.async.bulk.tensor.global.shared.cta %[[OUTMAP]], %{{.+}}, box[%{{.+}}, %{{.+}}, %[[B32]]] : !llvm.ptr, <3>
// CHECK-COUNT-3:   nvvm.cp.async.bulk.tensor.global.shared.cta %[[OUTMAP]], %{{.+}}, box[%{{.+}}, %{{.+}}, %{{.+}}]
// CHECK-NOT:       nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT:       vector.store
// CHECK:           nvvm.cp.async.bulk.wait_group 0
// CHECK:         gpu.return
func.func @batched(%x: memref<?x128xbf16>, %w: memref<3x264x128xbf16>, %y: memref<?x264xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 3, 300, 264>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x128xbf16>, memref<3x264x128xbf16> -> tensor<264xf32>
  %t = arith.truncf %p : tensor<264xf32> to tensor<264xbf16>
  tile.store %t, %y[%r] : tensor<264xbf16> -> memref<?x264xbf16>
  return
}

// -----

// A batched [3, K, N] rhs with an f32 output: 3-D map, [1, 64, 32] boxes.
// SCHED-LABEL: func.func @batched_f32
// SCHED-SAME:  tma_store = 1 : i64
// SCHED-SAME:  {arg = 2 : i64, box = array<i64: 1, 64, 32>, dims = array<i64: 3, 300, 136>}]
// CHECK-LABEL:   gpu.func @batched_f32
// CHECK-COUNT-8: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.+}}, %{{.+}}, box[%{{.+}}, %{{.+}}, %{{.+}}]
// CHECK-NOT:     nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT:     vector.store
// CHECK:         gpu.return
func.func @batched_f32(%x: memref<?x128xbf16>, %w: memref<3x128x136xbf16>, %y: memref<?x136xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 3, 300, 136>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x128xbf16>, memref<3x128x136xbf16> -> tensor<136xf32>
  tile.store %p, %y[%r] : tensor<136xf32> -> memref<?x136xf32>
  return
}

// -----

// Direct stores: f32 rows that are not 16-byte aligned (N = 258), and two
// outputs (no tensor map for them).
// SCHED-LABEL: func.func @f32_unaligned
// SCHED-NOT:   tma_store
// SCHED-SAME:  tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 200, 256>}, {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 258, 256>}]
// CHECK-LABEL: gpu.func @f32_unaligned
// CHECK-NOT:   cp.async.bulk.tensor.global.shared.cta
// CHECK:       vector.store %{{.+}} {alignment = 8 : i64} : memref<?x258xf32>, vector<2xf32>
func.func @f32_unaligned(%x: memref<?x256xbf16>, %w: memref<258x256xbf16>, %y: memref<?x258xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 200, 258>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x256xbf16>, memref<258x256xbf16> -> tensor<258xf32>
  tile.store %p, %y[%r] : tensor<258xf32> -> memref<?x258xf32>
  return
}

// -----

// SCHED-LABEL: func.func @two_outputs
// SCHED-NOT:   tma_store
// CHECK-LABEL: gpu.func @two_outputs
// CHECK-NOT:   cp.async.bulk.tensor.global.shared.cta
func.func @two_outputs(%x: memref<?x256xbf16>, %w: memref<256x256xbf16>, %y: memref<?x256xbf16>, %z: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 200, 256>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x256xbf16>, memref<256x256xbf16> -> tensor<256xf32>
  %t = arith.truncf %p : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %y[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  %e = math.exp %p : tensor<256xf32>
  %u = arith.truncf %e : tensor<256xf32> to tensor<256xbf16>
  tile.store %u, %z[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}
