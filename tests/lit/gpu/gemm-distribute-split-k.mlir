// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-split-k=2 gemm-cluster-m=1" --tilec-distribute-gemm-tiles %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-split-k=1 gemm-cluster-m=1" --tilec-distribute-gemm-tiles %s | FileCheck %s --check-prefix=OFF --implicit-check-not=llvm.atomicrmw --implicit-check-not=tile.split_workspace

// Split k (gemm-split-k=2; DistributeGemmTiles.cpp, withSplitSums): the
// kernel takes the workspace's global address after its buffers (before
// the tensor maps); a CTA's unit of work is split * tiles + tile; its k
// steps start at split * (steps of a split); past the main loop each unit
// (a warp; wgmma: a warpgroup) stores its accumulators to its split's slot
// (8-byte halves: the epilogue's pairs), fences, syncs, and its first
// thread adds one to the unit's counter; the unit that makes it 2 resets
// it, fences and runs the epilogue, which loads each pair from both slots
// and adds them in split order where it needs the pair. With
// gemm-split-k=1 (OFF) there is no split and no counter.

// Decode, mma.sync: 16 x 64 x 512, 2 tiles of 32 columns, 4 k steps of 128,
// 2 a split; 2 warps a tile (counters 2 x 2 x 4 bytes, padded to 256),
// slots of 32 x 32 x 4 = 4096 bytes.
// CHECK-LABEL: gpu.func @decode
//  CHECK-SAME:   (%{{[^:]+}}: memref<?x512xbf16>, %{{[^:]+}}: memref<64x512xbf16>, %{{[^:]+}}: memref<?x64xbf16>, %[[WS:[^:]+]]: !llvm.ptr<1>) kernel
//  CHECK-SAME:   grid = 4 : i64, {{.*}} split_k = 2 : i64, {{.*}} workspace_bytes = 16640 : i64}, tile.split_workspace}
//       CHECK:   %[[PID:.+]] = gpu.block_id x
//       CHECK:   %[[SPLIT:.+]] = arith.divui %[[PID]], %{{.+}} : index
//  CHECK-NEXT:   %[[C2B:.+]] = arith.constant 2 : index
//  CHECK-NEXT:   %[[TILE:.+]] = arith.remui %[[PID]], %[[C2B]] : index
//  CHECK-NEXT:   %[[C2C:.+]] = arith.constant 2 : index
//  CHECK-NEXT:   %[[KBASE:.+]] = arith.muli %[[SPLIT]], %[[C2C]] : index
// The first copies: k step 0 + kBase, 128 deep.
//       CHECK:   %[[K0:.+]] = arith.addi %{{.+}}, %[[KBASE]] : index
//  CHECK-NEXT:   arith.constant 128 : index
//  CHECK-NEXT:   arith.muli %[[K0]], %{{.+}} : index
// The main loop: this split's 2 steps.
//       CHECK:   %[[C2L:.+]] = arith.constant 2 : index
//  CHECK-NEXT:   arith.constant 0 : index
//  CHECK-NEXT:   scf.for %{{.+}} = %{{.+}} to %[[C2L]] step
// Four accumulators a thread (32 x 32 tile, 2 warps), eight halves, slot
// (tile * 2 + split).
//       CHECK:   vector.shuffle %{{.+}}, %{{.+}} [0, 1] : vector<4xf32>, vector<4xf32>
//  CHECK-NEXT:   %[[C2S:.+]] = arith.constant 2 : index
//  CHECK-NEXT:   %[[SLOT:.+]] = arith.muli %[[TILE]], %[[C2S]] : index
//  CHECK-NEXT:   arith.addi %[[SLOT]], %[[SPLIT]] : index
//  CHECK-NEXT:   arith.constant 4096 : index
//       CHECK:   llvm.getelementptr %[[WS]][%{{.+}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
//  CHECK-NEXT:   llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK-COUNT-7:  llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
//  CHECK-NEXT:   llvm.fence syncscope("device") release
//       CHECK:   nvvm.bar.warp.sync
//       CHECK:   scf.if %{{.+}} -> (i32) {
//       CHECK:     %[[CTR:.+]] = llvm.getelementptr %[[WS]]
//       CHECK:     %[[BEFORE:.+]] = llvm.atomicrmw add %[[CTR]], %{{.+}} syncscope("device") monotonic : !llvm.ptr<1>, i32
//  CHECK-NEXT:     %[[ONE:.+]] = arith.constant 1 : i32
//  CHECK-NEXT:     %[[LAST:.+]] = arith.cmpi eq, %[[BEFORE]], %[[ONE]] : i32
//  CHECK-NEXT:     scf.if %[[LAST]] {
//  CHECK-NEXT:       %[[ZERO:.+]] = arith.constant 0 : i32
//  CHECK-NEXT:       llvm.store %[[ZERO]], %[[CTR]] {alignment = 4 : i64} : i32, !llvm.ptr<1>
//       CHECK:   gpu.shuffle  idx
//       CHECK:   scf.if %{{.+}} {
//  CHECK-NEXT:     llvm.fence syncscope("device") acquire
// A pair: its halves in slots 0 and 1, added, then stored to the output.
//       CHECK:     %[[P0:.+]] = llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
//       CHECK:     %[[P1:.+]] = llvm.load %{{.+}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xf32>
//  CHECK-NEXT:     %[[SUM:.+]] = arith.addf %[[P0]], %[[P1]] : vector<2xf32>
//       CHECK:     %[[OUT:.+]] = arith.truncf %[[SUM]] : vector<2xf32> to vector<2xbf16>
//       CHECK:     vector.store %[[OUT]]
// CHECK-COUNT-7:   arith.addf %{{.+}}, %{{.+}} : vector<2xf32>
//   CHECK-NOT:     arith.addf
//       CHECK:   gpu.return
// OFF-LABEL: gpu.func @decode
//  OFF-SAME:   (%{{[^:]+}}: memref<?x512xbf16>, %{{[^:]+}}: memref<64x512xbf16>, %{{[^:]+}}: memref<?x64xbf16>) kernel
func.func @decode(%a: memref<?x512xbf16>, %b: memref<64x512xbf16>, %c: memref<?x64xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 16, 64>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x512xbf16>, memref<64x512xbf16> -> tensor<64xf32>
  %t = arith.truncf %p : tensor<64xf32> to tensor<64xbf16>
  tile.store %t, %c[%r] : tensor<64xbf16> -> memref<?x64xbf16>
  return
}

// -----

// wgmma with TMA, 128 x 256 x 512: 8 tiles of 64 x 64 (gemm-fill-sms), 8 k
// steps, 4 a split: 16 units over the persistent CTAs. The producer copies
// k step kt + split * 4. A warpgroup is a unit: named barrier 8 + its
// index syncs it, and the barrier's OR hands the last arrival to all.
// CHECK-LABEL: gpu.func @wgmma
//  CHECK-SAME:   %[[WS:[^:]+]]: !llvm.ptr<1>, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr) kernel
//       CHECK:   gpu.grid_dim x
//  CHECK-NEXT:   %[[UNITS:.+]] = arith.constant 16 : index
//  CHECK-NEXT:   arith.subi %[[UNITS]], %{{.+}} : index
//       CHECK:   nvvm.setmaxregister  decrease 40
//       CHECK:     %[[C4:.+]] = arith.constant 4 : index
//  CHECK-NEXT:     %[[KBASE:.+]] = arith.muli %{{.+}}, %[[C4]] : index
//       CHECK:     nvvm.mbarrier.arrive.expect_tx
//  CHECK-NEXT:     %[[KT:.+]] = arith.addi %{{.+}}, %[[KBASE]] : index
//  CHECK-NEXT:     arith.constant 64 : index
//  CHECK-NEXT:     arith.muli %[[KT]], %{{.+}} : index
//       CHECK:   nvvm.setmaxregister  increase 232
// The accumulators of 64 x 64 (32 a thread): sixteen 8-byte stores.
// CHECK-COUNT-16:  llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
//  CHECK-NEXT:     llvm.fence syncscope("device") release
//  CHECK-NEXT:     %[[C128:.+]] = arith.constant 128 : index
//  CHECK-NEXT:     %[[WG:.+]] = arith.divui %{{.+}}, %[[C128]] : index
//  CHECK-NEXT:     %[[C8:.+]] = arith.constant 8 : index
//  CHECK-NEXT:     %[[ID:.+]] = arith.addi %[[WG]], %[[C8]] : index
//  CHECK-NEXT:     %[[IDI:.+]] = arith.index_cast %[[ID]] : index to i32
//  CHECK-NEXT:     %[[N:.+]] = arith.constant 128 : i32
//  CHECK-NEXT:     nvvm.barrier id = %[[IDI]] number_of_threads = %[[N]]
//       CHECK:     llvm.atomicrmw add
//       CHECK:     %[[ANY:.+]] = llvm.call_intrinsic "llvm.nvvm.barrier.cta.red.or.aligned.count"(%[[IDI]], %[[N]], %{{.+}}) : (i32, i32, i1) -> i1
//  CHECK-NEXT:     scf.if %[[ANY]] {
//  CHECK-NEXT:       llvm.fence syncscope("device") acquire
// OFF-LABEL: gpu.func @wgmma
func.func @wgmma(%a: memref<?x512xbf16>, %b: memref<256x512xbf16>, %c: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 256>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x512xbf16>, memref<256x512xbf16> -> tensor<256xf32>
  %t = arith.truncf %p : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %c[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}
