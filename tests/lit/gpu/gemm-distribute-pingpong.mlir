// RUN: tilec-opt --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-pingpong=1 gemm-cluster-m=1 gemm-tma-store=0" --tilec-distribute-gemm-tiles %s | FileCheck %s --implicit-check-not="arith.constant 8 : i32" --implicit-check-not=nvvm.mapa
// RUN: tilec-opt --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-pingpong=1 gemm-cluster-m=2 gemm-tma-store=0" --tilec-distribute-gemm-tiles %s | FileCheck %s --check-prefix=CL
// RUN: tilec-opt --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-cluster-m=1 gemm-tma-store=0" --tilec-distribute-gemm-tiles %s | FileCheck %s --check-prefix=NOPP --implicit-check-not=nvvm.barrier

// The ping-pong TMA wgmma kernel (gemm-pingpong=1; DistributeGemmTiles.cpp,
// runTmaPipeline). The schedule (gemm-schedule-pingpong.mlir) has 64-row
// tiles, warps_m 4, pingpong = 1, 384 threads: the producer warpgroup
// (threads 0 .. 127) and two MMA warpgroups, each running whole tiles of its
// own (gemm-distribute-wgmma.mlir has the 128-row kernel they share
// otherwise). Here, against that kernel:
//  * an MMA thread's warpgroup is consumer = (tid - 128) / 32 / 4, its warp
//    within the tile (tid - 128) / 32 % 4: warp rows (warp % 4) * 16 of the
//    tile, and the A panel of a stage is 64 rows, read from the stage's start
//    by both warpgroups (the warpgroup offset is (warp % 4) / 4 * 8192 = 0;
//    with the raw warp index consumer 1 would read 64 rows past the panel);
//  * a stage is read by one tile's 4 warps: the empty mbarriers count 4 (8
//    in 2-CTA clusters: 4 per CTA), not 8 (16) as for the 128-row tiles;
//  * consumer c runs the CTA's tiles c, c + 2, ...: scf.for %j = consumer to
//    (its tile count) step 2, with the k steps j * k_tiles + kt of the one
//    sequence of stages the producer fills tile after tile (its loop is
//    unchanged: 0 to the tile count, step 1);
//  * the tiles' MMAs alternate between the warpgroups through two named
//    barriers of 256 threads (both MMA warpgroups): before tile j's k loop,
//    for j >= 1, a bar.sync (nvvm.barrier) on id 2 - consumer; after it,
//    while j + 1 < the tile count, a bar.arrive (nvvm.barrier.arrive) on id
//    1 + consumer: consumer 0 arrives on 1 after each of its tiles, consumer
//    1 syncs on 1 before each of its tiles, and the other way round on 2.
//    The arrive comes before wgmma.wait_group 0: the other warpgroup issues
//    its MMAs while this one's last MMAs and its epilogue run;
//  * the epilogue writes the tile of j (block id + j * grid dim).
// NOPP (the same kernel without the option) keeps the 128-row kernel: no
// named barriers, the tile loop 0 to the tile count step 1, empty count 8.

// 256 x 256 x 128 bf16, [N, K] rhs: 4 tiles of 64 x 256, 2 k steps, 5
// stages of 64 * 64 * 2 = 8192 (A) + 256 * 64 * 2 = 32768 (B) bytes; the
// mbarriers after 5 * 40960 = 204800 bytes, full s at + 8 * s, empty s at
// + 40 + 8 * s.
// CHECK-LABEL: gpu.func @pp
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x128xbf16>, %[[W:[^:]+]]: memref<256x128xbf16>, %[[Y:[^:]+]]: memref<?x256xbf16>, %[[MX:[^:]+]]: !llvm.ptr, %[[MW:[^:]+]]: !llvm.ptr) kernel
// CHECK-SAME:    attributes {known_block_size = array<i32: 384, 1, 1>, tile.domain = array<i64: 256, 256>, tile.schedule = {block_k = 64 : i64, block_m = 64 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 4 : i64, group_m = 32 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, pingpong = 1 : i64, shared_bytes = 205904 : i64, stages = 5 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 4 : i64, warps_n = 1 : i64, wgmma = 1 : i64}, tile.tma_params = 2 : i64}
// CHECK-NEXT:    %[[TID:.+]] = gpu.thread_id x
// CHECK-NEXT:    gpu.block_id x
// CHECK-NEXT:    %[[C128:.+]] = arith.constant 128 : index
// CHECK-NEXT:    %[[MTID:.+]] = arith.subi %[[TID]], %[[C128]] : index
// CHECK-NEXT:    %[[C32:.+]] = arith.constant 32 : index
// CHECK-NEXT:    %[[LANE:.+]] = arith.remui %[[MTID]], %[[C32]] : index
// CHECK-NEXT:    %[[C32B:.+]] = arith.constant 32 : index
// CHECK-NEXT:    %[[WARP:.+]] = arith.divui %[[MTID]], %[[C32B]] : index
// CHECK-NEXT:    %[[C4:.+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[CONSUMER:.+]] = arith.divui %[[WARP]], %[[C4]] : index
// CHECK-NEXT:    %[[C4B:.+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[TWARP:.+]] = arith.remui %[[WARP]], %[[C4B]] : index
// The warp's rows: (warp % 4) * 16 (not depending on the consumer).
// CHECK:         %[[C16:.+]] = arith.constant 16 : index
// CHECK-NEXT:    %[[WARPM0:.+]] = arith.muli %[[TWARP]], %[[C16]] : index
// CHECK:         memref.view %{{.+}}[%[[PAD:.+]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<5x64x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[C40960:.+]] = arith.constant 40960 : index
// CHECK:         memref.view {{.+}} to memref<5x256x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[BASEA:.+]] = arith.addi %{{.+}}, %[[PAD]] : index
// CHECK-NEXT:    arith.constant 40960 : index
// CHECK-NEXT:    %[[BASEB:.+]] = arith.addi %[[BASEA]], %{{.+}} : index
// The A panel's warpgroup offset: (warp % 4) / 4 * 8192 = 0.
// CHECK-NEXT:    %[[C4W:.+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[WG:.+]] = arith.divui %[[TWARP]], %[[C4W]] : index
// CHECK-NEXT:    %[[C8192:.+]] = arith.constant 8192 : index
// CHECK-NEXT:    %[[WGOFF:.+]] = arith.muli %[[WG]], %[[C8192]] : index
// CHECK-NEXT:    %[[AWG:.+]] = arith.addi %[[BASEA]], %[[WGOFF]] : index
// Its descriptor's low word, once.
// CHECK-NEXT:    arith.index_cast %[[AWG]] : index to i32
// CHECK:         %[[DESCA:.+]] = arith.ori %{{.+}}, %{{.+}} : i32
// Thread 0 inits full s with count 1, empty s with count 4, 5 stages.
// CHECK:         %[[C204800:.+]] = arith.constant 204800 : index
// CHECK-NEXT:    %[[BARS:.+]] = arith.addi %[[BASEA]], %[[C204800]] : index
// CHECK-NEXT:    %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[IS0:.+]] = arith.cmpi eq, %[[TID]], %[[C0]] : index
// CHECK-NEXT:    scf.if %[[IS0]] {
// CHECK-NEXT:      %[[ONE:.+]] = arith.constant 1 : i32
// CHECK:           nvvm.mbarrier.init %{{.+}}, %[[ONE]] : !llvm.ptr<3>, i32
// CHECK-NEXT:      %[[FOUR:.+]] = arith.constant 4 : i32
// CHECK:           arith.constant 40 : index
// CHECK:           nvvm.mbarrier.init %{{.+}}, %[[FOUR]] : !llvm.ptr<3>, i32
// CHECK-COUNT-4:   arith.constant 4 : i32
// CHECK:           nvvm.mbarrier.init
// CHECK-NEXT:      nvvm.fence.mbarrier.init
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    arith.constant 10000000 : i32
// CHECK-NEXT:    %[[BID:.+]] = gpu.block_id x
// CHECK-NEXT:    %[[GDIM:.+]] = gpu.grid_dim x
// CHECK-NEXT:    %[[TILES:.+]] = arith.constant 4 : index
// CHECK-NEXT:    %[[LEFT:.+]] = arith.subi %[[TILES]], %[[BID]] : index
// CHECK-NEXT:    %[[NTILES:.+]] = arith.ceildivsi %[[LEFT]], %[[GDIM]] : index
// The producer: every tile of the CTA in order, 40960 bytes a stage, the x
// box at (k, row of the 64-row tile).
// CHECK:         nvvm.setmaxregister  decrease 40
// CHECK:           scf.for %[[PTILE:.+]] = %{{.+}} to %[[NTILES]] step %[[PSTEP:[^ ]+]] {
// CHECK:             %[[CBM:.+]] = arith.constant 64 : index
// CHECK-NEXT:        %[[ROW0:.+]] = arith.muli %{{.+}}, %[[CBM]] : index
// CHECK:             arith.constant 40960 : i32
// CHECK:             %[[ROW0I:.+]] = arith.index_cast %[[ROW0]] : index to i32
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MX]], %{{.+}}, box[%{{.+}}, %[[ROW0I]]] : !llvm.ptr<7>, !llvm.ptr
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MW]], %{{.+}}, box[%{{.+}}, %{{.+}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK:       } else {
// CHECK-NEXT:    nvvm.setmaxregister  increase 232
// CHECK-NEXT:    %[[C2:.+]] = arith.constant 2 : index
// CHECK-NEXT:    scf.for %[[J:.+]] = %[[CONSUMER]] to %[[NTILES]] step %[[C2]] {
// CHECK-NEXT:      %[[KT:.+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[STEP0:.+]] = arith.muli %[[J]], %[[KT]] : index
// The tile's first step's stage (step0 % 5) and phase ((step0 / 5) % 2):
// a warpgroup's tiles skip the other's steps.
// CHECK-NEXT:      arith.constant 5 : index
// CHECK-NEXT:      arith.remui %[[STEP0]], %{{.+}} : index
// CHECK-NEXT:      arith.constant 5 : index
// CHECK-NEXT:      arith.divui %[[STEP0]], %{{.+}} : index
// CHECK-NEXT:      arith.constant 2 : index
// CHECK-NEXT:      arith.remui
// CHECK-NEXT:      arith.index_cast
// Before the tile's k loop: unless j = 0, sync on 2 - consumer.
// CHECK-NEXT:      %[[C2B:.+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[SID:.+]] = arith.subi %[[C2B]], %[[CONSUMER]] : index
// CHECK-NEXT:      %[[SIDI:.+]] = arith.index_cast %[[SID]] : index to i32
// CHECK-NEXT:      %[[C1:.+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[NOTFIRST:.+]] = arith.cmpi uge, %[[J]], %[[C1]] : index
// CHECK-NEXT:      scf.if %[[NOTFIRST]] {
// CHECK-NEXT:        %[[N256:.+]] = arith.constant 256 : i32
// CHECK-NEXT:        nvvm.barrier id = %[[SIDI]] number_of_threads = %[[N256]]
// CHECK-NEXT:      }
// The k loop, from the tile's second step (its first is peeled), carrying
// the accumulators, the stage and the phase; full s at + 8 * s; the A
// descriptor from the warpgroup's A descriptor (8192 bytes a stage: 512
// units).
// CHECK:           %[[RES:.+]]:3 = scf.for %[[KS:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}}, %[[STAGE:.+]] = %{{.+}}, %{{.+}} = %{{.+}}) -> (!llvm.struct<({{((f32, ){127})}}f32)>, index, i32) {
// CHECK:             %[[FADDR:.+]] = arith.addi %[[BARS]], %{{.+}} : index
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK-NEXT:        %[[STAGEI:.+]] = arith.index_cast %[[STAGE]] : index to i32
// CHECK-NEXT:        %[[C512:.+]] = arith.constant 512 : i32
// CHECK-NEXT:        %[[AOFF:.+]] = arith.muli %[[STAGEI]], %[[C512]] : i32
// CHECK-NEXT:        arith.addi %[[DESCA]], %[[AOFF]] : i32
// CHECK-NEXT:        nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:     nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>
// CHECK-NEXT:        nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:             nvvm.mbarrier.arrive
// CHECK:             scf.yield %{{.+}}, %{{.+}}, %{{.+}} :
// CHECK-NEXT:      }
// After it: while j + 1 < the tile count, arrive on 1 + consumer; then
// wait_group 0 and the last step's release (the stage before the loop's
// final one: j * 2 + 1).
// CHECK-NEXT:      %[[C1C:.+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[AID:.+]] = arith.addi %[[C1C]], %[[CONSUMER]] : index
// CHECK-NEXT:      %[[AIDI:.+]] = arith.index_cast %[[AID]] : index to i32
// CHECK-NEXT:      %[[C1D:.+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[NEXT:.+]] = arith.addi %[[J]], %[[C1D]] : index
// CHECK-NEXT:      %[[HASNEXT:.+]] = arith.cmpi ult, %[[NEXT]], %[[NTILES]] : index
// CHECK-NEXT:      scf.if %[[HASNEXT]] {
// CHECK-NEXT:        %[[N256B:.+]] = arith.constant 256 : i32
// CHECK-NEXT:        nvvm.barrier.arrive id = %[[AIDI]] number_of_threads = %[[N256B]]
// CHECK-NEXT:      }
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:      %[[C1E:.+]] = arith.constant 1 : index
// CHECK-NEXT:      arith.cmpi ult, %[[RES]]#1, %[[C1E]] : index
// CHECK:           %[[LAST:.+]] = arith.select
// CHECK-NEXT:      arith.constant 0 : index
// CHECK-NEXT:      %[[LANE0:.+]] = arith.cmpi eq, %[[LANE]], %{{.+}} : index
// CHECK-NEXT:      scf.if %[[LANE0]] {
// CHECK-NEXT:        arith.constant 8 : index
// CHECK-NEXT:        arith.muli %[[LAST]], %{{.+}} : index
// CHECK:             nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<3>
// CHECK-NEXT:      }
// The epilogue's tile: block id + j * grid dim; rows m0 + (warp % 4) * 16.
// CHECK-NEXT:      %[[STRIDE:.+]] = arith.muli %[[J]], %[[GDIM]] : index
// CHECK-NEXT:      arith.addi %[[BID]], %[[STRIDE]] : index
// CHECK:           %[[CBME:.+]] = arith.constant 64 : index
// CHECK-NEXT:      %[[M0:.+]] = arith.muli %{{.+}}, %[[CBME]] : index
// CHECK:           arith.addi %[[M0]], %[[WARPM0]] : index
// CHECK-COUNT-64:  vector.store %{{.+}}, %[[Y]][{{.+}}] {alignment = 4 : i64} : memref<?x256xbf16>, vector<2xbf16>
// CHECK-NOT:       vector.store
// CHECK-NOT:       nvvm.barrier
// CHECK:         gpu.return

// In 2-CTA clusters (the default): 2 pairs of block rows, 4 CTAs; the empty
// barriers count the 4 warps of a tile in both CTAs (8), the releases go to
// both CTAs (mapa 0 and 1); the order barriers stay per CTA (256 threads);
// no cluster barrier at the end (the producer's tail).
// CL-LABEL: gpu.func @pp
// CL-SAME:    known_block_size = array<i32: 384, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>
// CL-SAME:    block_m = 64 : i64, block_n = 256 : i64, cluster_m = 2 : i64, grid = 4 : i64
// CL-SAME:    pingpong = 1 : i64
// CL:         %[[MTID:.+]] = arith.subi %{{.+}}, %{{.+}} : index
// CL:         %[[WARP:.+]] = arith.divui %[[MTID]], %{{.+}} : index
// CL-NEXT:    arith.constant 4 : index
// CL-NEXT:    %[[CONSUMER:.+]] = arith.divui %[[WARP]], %{{.+}} : index
// CL:         scf.if
// CL-NEXT:      %[[ONE:.+]] = arith.constant 1 : i32
// CL-NOT:       arith.constant 4 : i32
// CL:           nvvm.mbarrier.init %{{.+}}, %[[ONE]] : !llvm.ptr<3>, i32
// CL-NEXT:      %[[EIGHT:.+]] = arith.constant 8 : i32
// CL-NOT:       arith.constant 4 : i32
// CL:           arith.constant 40 : index
// CL-NOT:       arith.constant 4 : i32
// CL:           nvvm.mbarrier.init %{{.+}}, %[[EIGHT]] : !llvm.ptr<3>, i32
// CL-COUNT-4:   arith.constant 8 : i32
// CL:           nvvm.mbarrier.init
// CL-NEXT:      nvvm.fence.mbarrier.init
// CL-NEXT:    }
// CL-NEXT:    nvvm.cluster.arrive.relaxed {aligned}
// CL-NEXT:    nvvm.cluster.wait {aligned}
// CL:         %[[NTILES:.+]] = arith.ceildivsi %{{.+}}, %{{.+}} : index
// CL:         nvvm.setmaxregister  increase 232
// CL-NEXT:    %[[C2:.+]] = arith.constant 2 : index
// CL-NEXT:    scf.for %[[J:.+]] = %[[CONSUMER]] to %[[NTILES]] step %[[C2]] {
// CL:           %[[SID:.+]] = arith.subi %{{.+}}, %[[CONSUMER]] : index
// CL-NEXT:      %[[SIDI:.+]] = arith.index_cast %[[SID]] : index to i32
// CL:           nvvm.barrier id = %[[SIDI]] number_of_threads = %{{.+}}
// CL:           nvvm.mapa %{{.+}}, %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CL:           nvvm.mapa %{{.+}}, %{{.+}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CL:           %[[AID:.+]] = arith.addi %{{.+}}, %[[CONSUMER]] : index
// CL-NEXT:      %[[AIDI:.+]] = arith.index_cast %[[AID]] : index to i32
// CL:           nvvm.barrier.arrive id = %[[AIDI]] number_of_threads = %{{.+}}
// CL-NEXT:    }
// CL-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// CL-NOT:     nvvm.cluster
// CL:         gpu.return

// NOPP-LABEL: gpu.func @pp
// NOPP-SAME:    known_block_size = array<i32: 384, 1, 1>
// NOPP-SAME:    block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 2 : i64, group_m = 16 : i64
// NOPP-NOT:     pingpong
// NOPP:         %[[MTID:.+]] = arith.subi %{{.+}}, %{{.+}} : index
// NOPP:         %[[WARP:.+]] = arith.divui %[[MTID]], %{{.+}} : index
// NOPP-NEXT:    %[[C1:.+]] = arith.constant 1 : index
// NOPP-NEXT:    arith.remui %[[WARP]], %[[C1]] : index
// The A offset of warpgroup warp / 4 (64 rows of 128 bytes).
// NOPP:         %[[C4:.+]] = arith.constant 4 : index
// NOPP-NEXT:    arith.divui %[[WARP]], %[[C4]] : index
// NOPP-NEXT:    arith.constant 8192 : index
// NOPP:         nvvm.mbarrier.init %{{.+}}, %{{.+}} : !llvm.ptr<3>, i32
// NOPP-NEXT:    %[[EIGHT:.+]] = arith.constant 8 : i32
// NOPP:         nvvm.mbarrier.init %{{.+}}, %[[EIGHT]] : !llvm.ptr<3>, i32
// NOPP:         nvvm.setmaxregister  increase 232
// NOPP-NEXT:    %[[C1B:.+]] = arith.constant 1 : index
// NOPP-NEXT:    %[[C0:.+]] = arith.constant 0 : index
// NOPP-NEXT:    scf.for %{{.+}} = %[[C0]] to %{{.+}} step %[[C1B]] {
func.func @pp(%x: memref<?x128xbf16>, %w: memref<256x128xbf16>, %y: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 256, 256>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x128xbf16>, memref<256x128xbf16> -> tensor<256xf32>
  %t = arith.truncf %p : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %y[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}
