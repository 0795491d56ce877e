// The epilogue through shared memory and TMA stores (gemm-tma-store, on by
// default): the scheduler adds the output's tensor map (64 x 64 boxes) and
// two 8 KB buffers an MMA warpgroup; each warpgroup writes a 64 x 64 unit of
// its results to a buffer (st.shared of the pairs), fences them for the
// async proxy, syncs its 128 threads on its own named barrier (3 + group),
// and its first thread stores the unit with one TMA copy; before a buffer is
// rewritten that thread waits until at most one copy is still reading.
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-cluster-m=1" %s | FileCheck %s --check-prefix=SCHED
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-cluster-m=1" --tilec-distribute-gemm-tiles %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-cluster-m=1 gemm-tma-store=0" --tilec-distribute-gemm-tiles %s | FileCheck %s --check-prefix=OFF --implicit-check-not=cp.async.bulk.tensor.global.shared.cta --implicit-check-not=tma_store

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

// f32 results, and two outputs: stored directly (no tensor map for them).
// SCHED-LABEL: func.func @f32_out
// SCHED-NOT:   tma_store
// SCHED-SAME:  tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 200, 256>}, {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 256, 256>}]
// CHECK-LABEL: gpu.func @f32_out
// CHECK-NOT:   cp.async.bulk.tensor.global.shared.cta
// CHECK:       vector.store
func.func @f32_out(%x: memref<?x256xbf16>, %w: memref<256x256xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 200, 256>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x256xbf16>, memref<256x256xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
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
