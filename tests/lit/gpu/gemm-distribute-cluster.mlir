// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-cluster-m=2 gemm-fill-sms=0 target=sm_90a gemm-tma-store=0" --tilec-distribute-gemm-tiles %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-cluster-m=1 gemm-tma-store=0" --tilec-distribute-gemm-tiles %s | FileCheck %s --check-prefix=ONE --implicit-check-not=nvvm.cluster --implicit-check-not=nvvm.mapa --implicit-check-not=multicast_mask --implicit-check-not=sreg.cluster --implicit-check-not=sreg.nclusterid

// 2-CTA clusters of the TMA wgmma kernel (DistributeGemmTiles.cpp, the
// gemm-cluster-m option of tilec-schedule-row-kernels, 1 by default since run s32c). A
// cluster's two CTAs take consecutive block rows (rank 0 the upper, rank 1
// the lower) of one block column and share its B panel: each producer copies
// its A box alone and its half of the B panel with multicast to both CTAs.
//  * the kernel gets nvvm.cluster_dim = [2, 1, 1];
//  * the empty mbarriers count the MMA warps of both CTAs: 2 * 8 = 16 (the
//    full ones still 1, armed with the whole stage: a CTA receives its A box
//    and both halves of B);
//  * after the barrier init an aligned cluster arrive (relaxed: the
//    init's fence releases the barriers) + wait (the partner's barriers
//    must be initialized before its copies or arrivals reach them) instead
//    of the CTA barrier;
//  * the persistent loop runs over the clusters: cluster id x, cluster
//    count (nclusterid.x), and the CTA's rank (cluster.ctarank) picks its
//    block row: (pair row) * 2 + rank;
//  * [N, K] rhs: CTA rank copies rows rank * block_n / 2 of the panel
//    (column n0 + rank * 128), into B + rank * 128 * 128 bytes, with
//    multicast_mask 3 (both CTAs);
//  * [K, N] rhs: CTA rank copies 64-column blocks rank * 2 and rank * 2 + 1
//    (of 4), multicast;
//  * an MMA warp releases a stage on both CTAs: mapa of the empty barrier to
//    CTA 0 and to CTA 1, an mbarrier.arrive on each (shared::cluster);
//  * after its loops the producer waits on every stage's `empty` barrier at
//    the phase before the next use (its tail): every use released by the
//    MMA warps of both CTAs, so that no CTA exits while its partner may
//    still write to it or arrive on it; the kernel ends without a cluster
//    barrier.
// With gemm-cluster-m=1 (ONE) none of that is emitted. 128 rows (one block
// row) never take a cluster.

// [N, K] bf16, 256 x 512 x 128: 2 x 2 CTAs (one cluster per block column),
// 2 k steps.
// CHECK-LABEL: gpu.func @nk
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x128xbf16>, %[[W:[^:]+]]: memref<512x128xbf16>, %[[Y:[^:]+]]: memref<?x512xbf16>, %[[MX:[^:]+]]: !llvm.ptr, %[[MW:[^:]+]]: !llvm.ptr) kernel
// CHECK-SAME:    attributes {known_block_size = array<i32: 384, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>, tile.domain = array<i64: 256, 512>
// CHECK-SAME:    block_n = 256 : i64, cluster_m = 2 : i64, grid = 4 : i64
// CHECK-SAME:    tile.tma_params = 2 : i64
// CHECK:         memref.view {{.+}} to memref<4x256x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[BASEA:.+]] = arith.addi %{{.+}}, %{{.+}} : index
// CHECK-NEXT:    %[[C65536:.+]] = arith.constant 65536 : index
// CHECK-NEXT:    %[[BASEB:.+]] = arith.addi %[[BASEA]], %[[C65536]] : index
// CHECK:         %[[C196608:.+]] = arith.constant 196608 : index
// CHECK-NEXT:    %[[BARS:.+]] = arith.addi %[[BASEA]], %[[C196608]] : index
// Full barriers count 1, empty ones 16.
// CHECK:         scf.if
// CHECK-NEXT:      %[[FCOUNT:.+]] = arith.constant 1 : i32
// CHECK:           nvvm.mbarrier.init %{{.+}}, %[[FCOUNT]] : !llvm.ptr<3>, i32
// CHECK-NEXT:      %[[SIXTEEN:.+]] = arith.constant 16 : i32
// CHECK:           arith.constant 32 : index
// CHECK:           nvvm.mbarrier.init %{{.+}}, %[[SIXTEEN]] : !llvm.ptr<3>, i32
// CHECK-COUNT-5:   nvvm.mbarrier.init %{{.+}}, %{{.+}} : !llvm.ptr<3>, i32
// CHECK-NEXT:      %{{.+}} = arith.constant 16 : i32
// CHECK:           nvvm.mbarrier.init %{{.+}}, %{{.+}} : !llvm.ptr<3>, i32
// CHECK-NEXT:      nvvm.fence.mbarrier.init
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.cluster.arrive.relaxed {aligned}
// CHECK-NEXT:    nvvm.cluster.wait {aligned}
// CHECK-NOT:     gpu.barrier
// Units of work: ceil(256 / 256) pair rows * 2 block columns = 2 clusters'
// worth; cluster c takes c, c + nclusters, ...
// CHECK-NEXT:    arith.constant 10000000 : i32
// CHECK-NEXT:    %[[CIDI:.+]] = nvvm.read.ptx.sreg.clusterid.x : i32
// CHECK-NEXT:    %[[CID:.+]] = arith.index_cast %[[CIDI]] : i32 to index
// CHECK-NEXT:    %[[NCIDI:.+]] = nvvm.read.ptx.sreg.nclusterid.x : i32
// CHECK-NEXT:    %[[NCID:.+]] = arith.index_cast %[[NCIDI]] : i32 to index
// CHECK-NEXT:    %[[RANKI:.+]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT:    %[[RANK:.+]] = arith.index_cast %[[RANKI]] : i32 to index
// CHECK-NEXT:    %[[UNITS:.+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[LEFT:.+]] = arith.subi %[[UNITS]], %[[CID]] : index
// CHECK-NEXT:    %[[NTILES:.+]] = arith.ceildivsi %[[LEFT]], %[[NCID]] : index
// The producer: block row = pair row * 2 + rank.
// CHECK:         nvvm.setmaxregister  decrease 40
// CHECK:         scf.for %[[TILE:.+]] = %{{.+}} to %[[NTILES]] step %{{.+}} {
// CHECK-NEXT:      %[[STRIDE:.+]] = arith.muli %[[TILE]], %[[NCID]] : index
// CHECK-NEXT:      arith.addi %[[CID]], %[[STRIDE]] : index
// CHECK:           %[[C2:.+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[PAIR:.+]] = arith.muli %{{.+}}, %[[C2]] : index
// CHECK-NEXT:      %[[BROW:.+]] = arith.addi %[[PAIR]], %[[RANK]] : index
// CHECK-NEXT:      %[[CBM:.+]] = arith.constant 128 : index
// CHECK-NEXT:      %[[ROW0:.+]] = arith.muli %[[BROW]], %[[CBM]] : index
// CHECK-NEXT:      %[[CBN:.+]] = arith.constant 256 : index
// CHECK-NEXT:      %[[COL0:.+]] = arith.muli %{{.+}}, %[[CBN]] : index
// CHECK:           scf.for
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             %[[FULL:.+]] = llvm.inttoptr
// The whole stage: 128 * 64 * 2 + 256 * 64 * 2 = 49152 bytes.
// CHECK-NEXT:        %[[BYTES:.+]] = arith.constant 49152 : i32
// CHECK-NEXT:        nvvm.mbarrier.arrive.expect_tx %[[FULL]], %[[BYTES]] : !llvm.ptr<3>, i32
// CHECK:             %[[K0I:.+]] = arith.index_cast %{{.+}} : index to i32
// CHECK-NEXT:        %[[ROW0I:.+]] = arith.index_cast %[[ROW0]] : index to i32
// A: this CTA's own box, no multicast.
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MX]], %[[FULL]], box[%[[K0I]], %[[ROW0I]]] : !llvm.ptr<7>, !llvm.ptr
// B: rows rank * 128 .. of the 256-row panel, to B + stage * 32768 + rank *
// 16384, column n0 + rank * 128, to both CTAs.
// CHECK-NEXT:        %[[C32768:.+]] = arith.constant 32768 : index
// CHECK-NEXT:        %[[BOFF:.+]] = arith.muli %{{.+}}, %[[C32768]] : index
// CHECK-NEXT:        %[[BDST:.+]] = arith.addi %[[BASEB]], %[[BOFF]] : index
// CHECK-NEXT:        %[[CHALF:.+]] = arith.constant 128 : index
// CHECK-NEXT:        %[[PCOL:.+]] = arith.muli %[[RANK]], %[[CHALF]] : index
// CHECK-NEXT:        %[[COL:.+]] = arith.addi %[[COL0]], %[[PCOL]] : index
// CHECK-NEXT:        %[[COLI:.+]] = arith.index_cast %[[COL]] : index to i32
// CHECK-NEXT:        %[[CHALFB:.+]] = arith.constant 16384 : index
// CHECK-NEXT:        %[[POFF:.+]] = arith.muli %[[RANK]], %[[CHALFB]] : index
// CHECK-NEXT:        %[[BPART:.+]] = arith.addi %[[BDST]], %[[POFF]] : index
// CHECK-NEXT:        %[[BPARTI:.+]] = arith.index_cast %[[BPART]] : index to i64
// CHECK-NEXT:        %[[BPARTP:.+]] = llvm.inttoptr %[[BPARTI]] : i64 to !llvm.ptr<3>
// CHECK-NEXT:        %[[BPARTC:.+]] = llvm.addrspacecast %[[BPARTP]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT:        %[[MASK:.+]] = arith.constant 3 : i16
// CHECK-NEXT:        nvvm.cp.async.bulk.tensor.shared.cluster.global %[[BPARTC]], %[[MW]], %[[FULL]], box[%[[K0I]], %[[COLI]]] multicast_mask = %[[MASK]] : !llvm.ptr<7>, !llvm.ptr
// CHECK:             scf.yield %{{.+}}, %{{.+}} : index, i32
// CHECK-NEXT:      } {loop_annotation = #loop_annotation}
// CHECK-NEXT:    }
// The producer's tail: the position past the CTA's last step (its tiles,
// at least none, times 2 k steps), then each of the 4 stages' `empty`
// barrier at the phase before its next use.
// CHECK-NEXT:    %[[Z:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[MINE:.+]] = arith.maxsi %[[NTILES]], %[[Z]] : index
// CHECK-NEXT:    %[[KT:.+]] = arith.constant 2 : index
// CHECK-NEXT:    arith.muli %[[MINE]], %[[KT]] : index
// CHECK-COUNT-4: nvvm.mbarrier.try_wait.parity
// CHECK-NOT:     nvvm.mbarrier.try_wait.parity
// The MMA warps: lane 0 of each releases the previous stage on CTA 0 and CTA 1.
// CHECK:         nvvm.setmaxregister  increase 232
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:         scf.if
// CHECK:           %[[EMPTY:.+]] = llvm.inttoptr %{{.+}} : i64 to !llvm.ptr<3>
// CHECK-NEXT:      %[[R0:.+]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[E0:.+]] = nvvm.mapa %[[EMPTY]], %[[R0]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      nvvm.mbarrier.arrive %[[E0]] : !llvm.ptr<7>
// CHECK-NEXT:      %[[R1:.+]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[E1:.+]] = nvvm.mapa %[[EMPTY]], %[[R1]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      nvvm.mbarrier.arrive %[[E1]] : !llvm.ptr<7>
// CHECK-NEXT:    }
// After the k loop: the last stage, the same way.
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:         scf.if
// CHECK:           nvvm.mapa %{{.+}}, %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<7>
// CHECK-NEXT:      arith.constant 1 : i32
// CHECK-NEXT:      nvvm.mapa %{{.+}}, %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:      nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<7>
// CHECK-NEXT:    }
// The epilogue's rows: block row pair * 2 + rank again.
// CHECK:         %[[C2E:.+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[EPAIR:.+]] = arith.muli %{{.+}}, %[[C2E]] : index
// CHECK-NEXT:    %[[EROW:.+]] = arith.addi %[[EPAIR]], %[[RANK]] : index
// CHECK-NEXT:    arith.constant 128 : index
// CHECK-NEXT:    arith.muli %[[EROW]], %{{.+}} : index
// CHECK:         vector.store %{{.+}}, %[[Y]][{{.+}}] {alignment = 4 : i64} : memref<?x512xbf16>, vector<2xbf16>
// CHECK-NOT:     nvvm.cluster
// CHECK:         gpu.return
// ONE-LABEL: gpu.func @nk
// ONE-SAME:    attributes {known_block_size = array<i32: 384, 1, 1>, tile.domain = array<i64: 256, 512>
// ONE-SAME:    block_n = 256 : i64, cluster_m = 1 : i64, grid = 4 : i64
// ONE:           nvvm.mbarrier.init %{{.+}}, %{{.+}} : !llvm.ptr<3>, i32
// ONE-NEXT:      %[[EIGHT:.+]] = arith.constant 8 : i32
// ONE:           nvvm.mbarrier.init %{{.+}}, %[[EIGHT]] : !llvm.ptr<3>, i32
// ONE:           nvvm.fence.mbarrier.init
// ONE-NEXT:    }
// ONE-NEXT:    gpu.barrier
// ONE-NEXT:    arith.constant 10000000 : i32
// ONE-NEXT:    gpu.block_id x
// ONE-NEXT:    gpu.grid_dim x
// ONE:         nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<3>
// ONE:         gpu.return
func.func @nk(%x: memref<?x128xbf16>, %w: memref<512x128xbf16>, %y: memref<?x512xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 256, 512>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x128xbf16>, memref<512x128xbf16> -> tensor<512xf32>
  %t = arith.truncf %p : tensor<512xf32> to tensor<512xbf16>
  tile.store %t, %y[%r] : tensor<512xbf16> -> memref<?x512xbf16>
  return
}

// -----

// [K, N] rhs: 4 blocks of 64 columns a panel; CTA rank copies blocks
// rank * 2 + j (j = 0, 1) at (n0 + 64 * block, k0), into B + 8192 * block,
// multicast.
// CHECK-LABEL: gpu.func @kn
// CHECK-SAME:    nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK-SAME:    block_n = 256 : i64, cluster_m = 2 : i64, grid = 4 : i64
// CHECK:         nvvm.cluster.arrive.relaxed {aligned}
// CHECK-NEXT:    nvvm.cluster.wait {aligned}
// CHECK:         %[[RANKI:.+]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT:    %[[RANK:.+]] = arith.index_cast %[[RANKI]] : i32 to index
// CHECK:         %[[CBN:.+]] = arith.constant 256 : index
// CHECK-NEXT:    %[[COL0:.+]] = arith.muli %{{.+}}, %[[CBN]] : index
// CHECK:         nvvm.mbarrier.arrive.expect_tx %[[FULL:[^,]+]], %{{.+}} : !llvm.ptr<3>, i32
// CHECK:         %[[K0I:.+]] = arith.index_cast %{{.+}} : index to i32
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %{{.+}}, %[[FULL]], box[%[[K0I]], %{{.+}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK-NEXT:    arith.constant 32768 : index
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    %[[BDST:.+]] = arith.addi
// CHECK-NEXT:    %[[C2A:.+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[BLK0:.+]] = arith.muli %[[RANK]], %[[C2A]] : index
// CHECK-NEXT:    %[[C64A:.+]] = arith.constant 64 : index
// CHECK-NEXT:    %[[N0OFF:.+]] = arith.muli %[[BLK0]], %[[C64A]] : index
// CHECK-NEXT:    %[[N0:.+]] = arith.addi %[[COL0]], %[[N0OFF]] : index
// CHECK-NEXT:    %[[N0I:.+]] = arith.index_cast %[[N0]] : index to i32
// CHECK-NEXT:    %[[C8192A:.+]] = arith.constant 8192 : index
// CHECK-NEXT:    %[[D0OFF:.+]] = arith.muli %[[BLK0]], %[[C8192A]] : index
// CHECK-NEXT:    %[[D0:.+]] = arith.addi %[[BDST]], %[[D0OFF]] : index
// CHECK-NEXT:    %[[D0I:.+]] = arith.index_cast %[[D0]] : index to i64
// CHECK-NEXT:    %[[D0P:.+]] = llvm.inttoptr %[[D0I]] : i64 to !llvm.ptr<3>
// CHECK-NEXT:    %[[D0C:.+]] = llvm.addrspacecast %[[D0P]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT:    %[[MASK0:.+]] = arith.constant 3 : i16
// CHECK-NEXT:    nvvm.cp.async.bulk.tensor.shared.cluster.global %[[D0C]], %{{.+}}, %[[FULL]], box[%[[N0I]], %[[K0I]]] multicast_mask = %[[MASK0]] : !llvm.ptr<7>, !llvm.ptr
// CHECK-NEXT:    %[[C2B:.+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[BLK1A:.+]] = arith.muli %[[RANK]], %[[C2B]] : index
// CHECK-NEXT:    %[[C1:.+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[BLK1:.+]] = arith.addi %[[BLK1A]], %[[C1]] : index
// CHECK-NEXT:    %[[C64B:.+]] = arith.constant 64 : index
// CHECK-NEXT:    %[[N1OFF:.+]] = arith.muli %[[BLK1]], %[[C64B]] : index
// CHECK-NEXT:    %[[N1:.+]] = arith.addi %[[COL0]], %[[N1OFF]] : index
// CHECK-NEXT:    %[[N1I:.+]] = arith.index_cast %[[N1]] : index to i32
// CHECK-NEXT:    %[[C8192B:.+]] = arith.constant 8192 : index
// CHECK-NEXT:    %[[D1OFF:.+]] = arith.muli %[[BLK1]], %[[C8192B]] : index
// CHECK-NEXT:    %[[D1:.+]] = arith.addi %[[BDST]], %[[D1OFF]] : index
// CHECK:         %[[MASK1:.+]] = arith.constant 3 : i16
// CHECK-NEXT:    nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %{{.+}}, %[[FULL]], box[%[[N1I]], %[[K0I]]] multicast_mask = %[[MASK1]] : !llvm.ptr<7>, !llvm.ptr
// CHECK:         scf.yield %{{.+}}, %{{.+}} : index, i32
// CHECK-NEXT:  }
// CHECK-NOT:     nvvm.cp.async.bulk.tensor
// CHECK:         nvvm.mapa
// CHECK-NOT:     nvvm.cluster
// CHECK:         gpu.return
// ONE-LABEL: gpu.func @kn
// ONE-SAME:    block_n = 256 : i64, cluster_m = 1 : i64, grid = 4 : i64
// ONE-COUNT-5:   nvvm.cp.async.bulk.tensor.shared.cluster.global
// ONE-NOT:       nvvm.cp.async.bulk.tensor.shared.cluster.global
// ONE:           gpu.return
func.func @kn(%x: memref<?x128xbf16>, %w: memref<128x512xbf16>, %y: memref<?x512xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 256, 512>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x128xbf16>, memref<128x512xbf16> -> tensor<512xf32>
  tile.store %p, %y[%r] : tensor<512xf32> -> memref<?x512xf32>
  return
}

// -----

// 128 rows: one block row, no partner to share B with: the single-CTA
// kernel even with gemm-cluster-m=2 (cluster_m = 1, empty count 8, a CTA barrier).
// CHECK-LABEL: gpu.func @rows_128
// CHECK-SAME:    attributes {known_block_size = array<i32: 384, 1, 1>, tile.domain = array<i64: 128, 512>
// CHECK-SAME:    block_n = 256 : i64, cluster_m = 1 : i64, grid = 2 : i64
// CHECK-NOT:     nvvm.cluster
// CHECK:         nvvm.mbarrier.init %{{.+}}, %{{.+}} : !llvm.ptr<3>, i32
// CHECK-NEXT:    %[[EIGHT:.+]] = arith.constant 8 : i32
// CHECK:         nvvm.mbarrier.init %{{.+}}, %[[EIGHT]] : !llvm.ptr<3>, i32
// CHECK:         nvvm.fence.mbarrier.init
// CHECK-NEXT:  }
// CHECK-NEXT:  gpu.barrier
// CHECK-NEXT:  arith.constant 10000000 : i32
// CHECK-NEXT:  gpu.block_id x
// CHECK-NEXT:  gpu.grid_dim x
// CHECK-NOT:     nvvm.mapa
// CHECK-NOT:     multicast_mask
// CHECK-NOT:     nvvm.cluster
// CHECK:         gpu.return
// ONE-LABEL: gpu.func @rows_128
// ONE-SAME:    cluster_m = 1 : i64, grid = 2 : i64
func.func @rows_128(%x: memref<?x128xbf16>, %w: memref<512x128xbf16>, %y: memref<?x512xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 512>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x128xbf16>, memref<512x128xbf16> -> tensor<512xf32>
  tile.store %p, %y[%r] : tensor<512xf32> -> memref<?x512xf32>
  return
}
