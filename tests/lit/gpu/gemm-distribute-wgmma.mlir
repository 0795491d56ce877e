// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-tma=0 gemm-tma-store=0" --tilec-distribute-gemm-tiles %s | FileCheck %s --implicit-check-not=mbarrier --implicit-check-not=cp.async.bulk --implicit-check-not=setmaxregister --implicit-check-not=tile.tma_params
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-wgmma=0 gemm-tma-store=0" --tilec-distribute-gemm-tiles %s | FileCheck %s --check-prefix=MMA
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-fill-sms=0 target=sm_90a gemm-cluster-m=1 gemm-tma-store=0" --tilec-distribute-gemm-tiles %s | FileCheck %s --check-prefix=TMA

// The Hopper path (DistributeGemmTiles.cpp, runWgmma): 16-bit K-major
// operands with more than 64 rows get the wgmma schedule on sm_90a (block
// 128 x 256 x 64, 4 stages; block_n 128 for two products) and become a
// kernel of two warpgroups (256 threads), each owning 64 rows of the CTA tile:
//  * the dynamic shared memory is aligned to 1024 bytes (the 128-byte swizzle
//    atom) by hand: the panels start `pad` = (1024 - base % 1024) % 1024 bytes
//    in, base from memref.extract_aligned_pointer_as_index;
//  * A [4][128][64] at pad, each B [4][block_n][64] after it;
//  * cp.async copies (rows of 8 16-byte chunks, chunk c of row r at c ^ r % 8)
//    run stages - 2 = 2 k-steps ahead: wait for all but 1 group, then a proxy
//    fence (the copies are generic-proxy writes, wgmma reads through the
//    async proxy) and a barrier;
//  * wgmma.fence, 4 wgmma.mma_async m64nNk16 a k-step (block_k 64) per
//    product from shared-memory descriptors (start address >> 4, leading
//    byte offset 1, stride byte offset 1024 >> 4 = 64, 128-byte swizzle:
//    (1 << 16) | (64 << 32) | (1 << 62) = 4611686293305360384), then
//    commit_group and wait_group 1 (the previous step's MMAs are done before
//    its stage is refilled); wait_group 0 after the loop;
//  * the accumulator struct (block_n / 2 f32 a thread) has the mma.sync m16n8
//    layout per n8 tile: the mma.sync epilogue runs on it.
// That is the cp.async pipeline (the CHECK run, gemm-tma=0). By default
// (the TMA run), operands whose rows are 16-byte aligned are loaded by TMA
// from a producer warpgroup instead (384 threads: warpgroup 0 produces,
// warpgroups 1 and 2 run the MMAs and the epilogue as above, with thread
// ids tid - 128):
//  * the kernel takes one tensor map per operand (lhs, then each product's
//    rhs) as trailing !llvm.ptr parameters, counted by tile.tma_params;
//  * after the panels (pad + stages * (128 + products * block_n) * 128 =
//    pad + 196608) a full mbarrier a stage (8 bytes each), then an empty one
//    (pad + 196608 + 32 + 8 * stage); thread 0 inits the full barriers with
//    count 1 (the producer's arrive.expect_tx) and the empty ones with count
//    8 (lane 0 of each MMA warp), fence.mbarrier.init, then a CTA barrier;
//  * persistent CTAs: each runs ceil((grid - block id) / grid dim) tiles,
//    tile block id + i * grid dim; k step i of the CTA (it = tile * k steps
//    + k step) uses stage it % 4 in phase it / 4 % 2;
//  * producer: setmaxregister decrease 40; thread 0 waits on the empty
//    barrier (parity phase ^ 1: a fresh barrier counts as released), arms
//    the full barrier with the stage's bytes ((128 + products * block_n) *
//    64 * 2 = 49152 here) and issues one cp.async.bulk.tensor a box, its
//    coordinates innermost first: (k, row) for the lhs, (k, column) for an
//    [N, K] rhs, (column, k) for each 64-column block of a [K, N] rhs;
//  * MMA warps: setmaxregister increase 232; wait on the full barrier
//    (parity phase), the wgmma of the stage, commit, wait_group 1, then lane
//    0 of each warp arrives on the previous step's empty barrier (its MMAs
//    are done); after the k loop wait_group 0 and the last step's arrive.
//    No cp.async, no proxy fence (TMA writes through the async proxy).
// With gemm-wgmma=0 the same kernels use mma.sync. The TMA run sets
// gemm-cluster-m=1: the single-CTA kernel (the 2-CTA cluster kernel, the
// default for more than block_m rows, is in gemm-distribute-cluster.mlir).

// One bf16 product, 128 x 256 x 256: one CTA, 4 k-steps.
// CHECK-LABEL: gpu.func @wgmma
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x256xbf16>, %[[W:[^:]+]]: memref<256x256xbf16>, %[[Y:[^:]+]]: memref<?x256xbf16>) kernel
// CHECK-SAME:    attributes {known_block_size = array<i32: 256, 1, 1>, tile.domain = array<i64: 128, 256>, tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 1 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}}
// CHECK:         %[[SMEM:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[RAW:.+]] = memref.extract_aligned_pointer_as_index %[[SMEM]] : memref<?xi8, #gpu.address_space<workgroup>> -> index
// CHECK-NEXT:    %[[C1024:.+]] = arith.constant 1024 : index
// CHECK-NEXT:    %[[MOD:.+]] = arith.remui %[[RAW]], %[[C1024]] : index
// CHECK-NEXT:    %[[C1024B:.+]] = arith.constant 1024 : index
// CHECK-NEXT:    %[[SUB:.+]] = arith.subi %[[C1024B]], %[[MOD]] : index
// CHECK-NEXT:    %[[C1024C:.+]] = arith.constant 1024 : index
// CHECK-NEXT:    %[[PAD:.+]] = arith.remui %[[SUB]], %[[C1024C]] : index
// CHECK-NEXT:    %[[PA:.+]] = memref.view %[[SMEM]][%[[PAD]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x64xbf16, #gpu.address_space<workgroup>>
// B at pad + 4 * 128 * 64 * 2 = pad + 65536.
// CHECK-NEXT:    %[[C65536:.+]] = arith.constant 65536 : index
// CHECK-NEXT:    %[[OFFB:.+]] = arith.addi %[[PAD]], %[[C65536]] : index
// CHECK-NEXT:    %[[PB:.+]] = memref.view %[[SMEM]][%[[OFFB]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x256x64xbf16, #gpu.address_space<workgroup>>
// The same offsets as shared addresses, for the descriptors.
// CHECK-NEXT:    %[[BASEA:.+]] = arith.addi %[[RAW]], %[[PAD]] : index
// CHECK-NEXT:    %[[C65536B:.+]] = arith.constant 65536 : index
// CHECK-NEXT:    %[[BASEB:.+]] = arith.addi %[[BASEA]], %[[C65536B]] : index
// Warpgroup tid / 128 reads A rows from 64 * wg on: 64 * 64 * 2 = 8192 bytes.
// CHECK:         %[[C8192:.+]] = arith.constant 8192 : index
// CHECK-NEXT:    %[[WGOFF:.+]] = arith.muli %{{.+}}, %[[C8192]] : index
// CHECK-NEXT:    %[[AWG:.+]] = arith.addi %[[BASEA]], %[[WGOFF]] : index
// The descriptors' low words at stage 0, once: the start address / 16
// (shared addresses below 2^18), the leading byte offset 16 / 16 at bit 16.
// CHECK-NEXT:    %[[AWG32:.+]] = arith.index_cast %[[AWG]] : index to i32
// CHECK-NEXT:    %[[C16I:.+]] = arith.constant 16 : i32
// CHECK-NEXT:    %[[MASK:.+]] = arith.constant 262143 : i32
// CHECK-NEXT:    %[[AM:.+]] = arith.andi %[[AWG32]], %[[MASK]] : i32
// CHECK-NEXT:    %[[AS:.+]] = arith.divui %[[AM]], %[[C16I]] : i32
// CHECK-NEXT:    %[[LBO:.+]] = arith.constant 65536 : i32
// CHECK-NEXT:    %[[DESCA0:.+]] = arith.ori %[[AS]], %[[LBO]] : i32
// CHECK-NEXT:    %[[BB32:.+]] = arith.index_cast %[[BASEB]] : index to i32
// CHECK:         %[[DESCB0:.+]] = arith.ori %{{.+}}, %{{.+}} : i32
// Prologue: 2 k-steps of 4 A copies (128 rows x 8 chunks / 256 threads) and 8
// B copies, swizzled.
// CHECK:         arith.xori
// CHECK:         nvgpu.device_async_copy %[[X]][{{.+}}], %[[PA]][{{.+}}], 8, %{{.+}} {bypassL1} : memref<?x256xbf16> to memref<4x128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-3: nvgpu.device_async_copy %[[X]][{{.+}}], %[[PA]]
// CHECK-COUNT-8: nvgpu.device_async_copy %[[W]][{{.+}}], %[[PB]][{{.+}}], 8, %{{.+}} {bypassL1} : memref<256x256xbf16> to memref<4x256x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    nvgpu.device_async_create_group
// CHECK-COUNT-12: nvgpu.device_async_copy
// CHECK-NEXT:    %[[TOK:.+]] = nvgpu.device_async_create_group
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK:         %[[RES:.+]]:2 = scf.for %[[KT:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}}, %[[CARRIED:.+]] = %[[TOK]]) -> (!llvm.struct<({{((f32, ){127})}}f32)>, !nvgpu.device.async.token) {
// CHECK-NEXT:      nvgpu.device_async_wait %[[CARRIED]] {numGroups = 1 : i32}
// CHECK-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      gpu.barrier
// Refill stage (kt + 2) % 4 when kt + 2 < 4.
// CHECK-NEXT:      %[[C2:.+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[NEXT:.+]] = arith.addi %[[KT]], %[[C2]] : index
// CHECK-NEXT:      %[[C4:.+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[INRANGE:.+]] = arith.cmpi ult, %[[NEXT]], %[[C4]] : index
// CHECK-NEXT:      scf.if %[[INRANGE]] {
// CHECK-COUNT-12:    nvgpu.device_async_copy {{.+}} {bypassL1}
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[NEWTOK:.+]] = nvgpu.device_async_create_group
// CHECK-NEXT:      %[[C4B:.+]] = arith.constant 4 : index
// CHECK-NEXT:      %[[STAGE:.+]] = arith.remui %[[KT]], %[[C4B]] : index
// A stage: 128 * 64 * 2 = 16384 bytes, 1024 in the descriptor's 16-byte
// units; B stage: 256 * 64 * 2 = 32768 bytes, 2048 units.
// CHECK-NEXT:      %[[STAGE32:.+]] = arith.index_cast %[[STAGE]] : index to i32
// CHECK-NEXT:      %[[C1024:.+]] = arith.constant 1024 : i32
// CHECK-NEXT:      %[[AOFF:.+]] = arith.muli %[[STAGE32]], %[[C1024]] : i32
// CHECK-NEXT:      %[[ASTAGE:.+]] = arith.addi %[[DESCA0]], %[[AOFF]] : i32
// CHECK-NEXT:      nvvm.wgmma.fence.aligned
// CHECK-NEXT:      %[[C2048:.+]] = arith.constant 2048 : i32
// CHECK-NEXT:      %[[BOFF:.+]] = arith.muli %[[STAGE32]], %[[C2048]] : i32
// CHECK-NEXT:      %[[BSTAGE:.+]] = arith.addi %[[DESCB0]], %[[BOFF]] : i32
// A descriptor: its low word widened, or the constant high word (stride
// 1024 / 16 at bit 32, the 128-byte swizzle at bit 62).
// CHECK-NEXT:      %[[AW:.+]] = arith.extui %[[ASTAGE]] : i32 to i64
// CHECK-NEXT:      %[[HIGH:.+]] = arith.constant 4611686293305294848 : i64
// CHECK-NEXT:      %[[DA:.+]] = arith.ori %[[AW]], %[[HIGH]] : i64
// CHECK-NEXT:      %[[BW:.+]] = arith.extui %[[BSTAGE]] : i32 to i64
// CHECK-NEXT:      %[[HIGHB:.+]] = arith.constant 4611686293305294848 : i64
// CHECK-NEXT:      %[[DB:.+]] = arith.ori %[[BW]], %[[HIGHB]] : i64
// CHECK-NEXT:      %[[W0:.+]] = nvvm.wgmma.mma_async %[[DA]], %[[DB]], %[[ACC]], <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<({{((f32, ){127})}}f32)> -> !llvm.struct<({{((f32, ){127})}}f32)>
// The next k16 step: both descriptors 32 bytes (16 bf16, 2 units) further.
// CHECK-NEXT:      %[[C2I:.+]] = arith.constant 2 : i32
// CHECK-NEXT:      %[[ANEXT:.+]] = arith.addi %[[ASTAGE]], %[[C2I]] : i32
// CHECK:           %[[C2IB:.+]] = arith.constant 2 : i32
// CHECK-NEXT:      %[[BNEXT:.+]] = arith.addi %[[BSTAGE]], %[[C2IB]] : i32
// CHECK:           %[[W1:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[W0]], <m = 64, n = 256, k = 16>
// CHECK:           %[[W2:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[W1]], <m = 64, n = 256, k = 16>
// CHECK:           %[[W3:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[W2]], <m = 64, n = 256, k = 16>
// CHECK-NEXT:      nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT:      scf.yield %[[W3]], %[[NEWTOK]] :
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// Epilogue: elements 4j .. 4j + 3 are n8 tile j; the first pair, rounded to
// bf16, stored 4-byte aligned; 32 tiles * 2 row halves = 64 stores.
// CHECK-NEXT:    %[[E0:.+]] = llvm.extractvalue %[[RES]]#0[0]
// CHECK-NEXT:    %[[E1:.+]] = llvm.extractvalue %[[RES]]#0[1]
// CHECK-NEXT:    %[[E2:.+]] = llvm.extractvalue %[[RES]]#0[2]
// CHECK-NEXT:    %[[E3:.+]] = llvm.extractvalue %[[RES]]#0[3]
// CHECK-NEXT:    %[[V0:.+]] = vector.from_elements %[[E0]], %[[E1]], %[[E2]], %[[E3]] : vector<4xf32>
// CHECK-NEXT:    llvm.extractvalue %[[RES]]#0[4]
// CHECK:         llvm.extractvalue %[[RES]]#0[127]
// CHECK-NOT:     llvm.extractvalue
// CHECK:         %[[PAIR:.+]] = vector.shuffle %[[V0]], %[[V0]] [0, 1] : vector<4xf32>, vector<4xf32>
// CHECK:         %[[T:.+]] = arith.truncf %[[PAIR]] : vector<2xf32> to vector<2xbf16>
// CHECK:         scf.if
// CHECK-NEXT:      vector.store %[[T]], %[[Y]][{{.+}}] {alignment = 4 : i64} : memref<?x256xbf16>, vector<2xbf16>
// CHECK-COUNT-63: vector.store %{{.+}}, %[[Y]][{{.+}}] {alignment = 4 : i64}
// CHECK-NOT:     vector.store
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         gpu.return
// The TMA kernel: two tensor maps after the buffers, 384 threads, 197632 +
// 4 * 16 = 197696 bytes of shared memory.
// TMA-LABEL: gpu.func @wgmma
// TMA-SAME:    (%[[X:[^:]+]]: memref<?x256xbf16>, %[[W:[^:]+]]: memref<256x256xbf16>, %[[Y:[^:]+]]: memref<?x256xbf16>, %[[MX:[^:]+]]: !llvm.ptr, %[[MW:[^:]+]]: !llvm.ptr) kernel
// TMA-SAME:    attributes {known_block_size = array<i32: 384, 1, 1>, tile.domain = array<i64: 128, 256>, tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 1 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}, tile.tma_params = 2 : i64}
// The MMA warps count threads from 128 on.
// TMA-NEXT:      %[[TID:.+]] = gpu.thread_id x
// TMA-NEXT:      gpu.block_id x
// TMA-NEXT:      %[[C128:.+]] = arith.constant 128 : index
// TMA-NEXT:      %[[MTID:.+]] = arith.subi %[[TID]], %[[C128]] : index
// TMA-NEXT:      %[[C32:.+]] = arith.constant 32 : index
// TMA-NEXT:      %[[LANE:.+]] = arith.remui %[[MTID]], %[[C32]] : index
// The panels as in the cp.async kernel.
// TMA:           %[[RAW:.+]] = memref.extract_aligned_pointer_as_index
// TMA:           arith.subi
// TMA-NEXT:      arith.constant 1024 : index
// TMA-NEXT:      %[[PAD:.+]] = arith.remui %{{.+}}, %{{.+}} : index
// TMA-NEXT:      memref.view %{{.+}}[%[[PAD]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x64xbf16, #gpu.address_space<workgroup>>
// TMA:           memref.view {{.+}} to memref<4x256x64xbf16, #gpu.address_space<workgroup>>
// TMA-NEXT:      %[[BASEA:.+]] = arith.addi %[[RAW]], %[[PAD]] : index
// TMA-NEXT:      %[[C65536:.+]] = arith.constant 65536 : index
// TMA-NEXT:      %[[BASEB:.+]] = arith.addi %[[BASEA]], %[[C65536]] : index
// The barriers after the panels: 4 * (128 + 256) * 64 * 2 = 196608.
// TMA:           %[[C196608:.+]] = arith.constant 196608 : index
// TMA-NEXT:      %[[BARS:.+]] = arith.addi %[[BASEA]], %[[C196608]] : index
// TMA-NEXT:      %[[C0:.+]] = arith.constant 0 : index
// TMA-NEXT:      %[[IS0:.+]] = arith.cmpi eq, %[[TID]], %[[C0]] : index
// TMA-NEXT:      scf.if %[[IS0]] {
// Stage 0: full (count 1) at bars + 0, empty (count 8) at bars + 32.
// TMA-NEXT:        %[[ONE:.+]] = arith.constant 1 : i32
// TMA:             %[[F0:.+]] = arith.addi %[[BARS]], %{{.+}} : index
// TMA-NEXT:        %[[F0I:.+]] = arith.index_cast %[[F0]] : index to i64
// TMA-NEXT:        %[[F0P:.+]] = llvm.inttoptr %[[F0I]] : i64 to !llvm.ptr<3>
// TMA-NEXT:        nvvm.mbarrier.init %[[F0P]], %[[ONE]] : !llvm.ptr<3>, i32
// TMA-NEXT:        %[[EIGHT:.+]] = arith.constant 8 : i32
// TMA:             arith.constant 32 : index
// TMA:             nvvm.mbarrier.init %{{.+}}, %[[EIGHT]] : !llvm.ptr<3>, i32
// TMA-COUNT-6:     nvvm.mbarrier.init
// TMA-NEXT:        nvvm.fence.mbarrier.init
// TMA-NEXT:      }
// TMA-NEXT:      gpu.barrier
// Persistent: ceil((1 - block id) / grid dim) tiles for this CTA.
// TMA-NEXT:      arith.constant 10000000 : i32
// TMA-NEXT:      %[[BID:.+]] = gpu.block_id x
// TMA-NEXT:      %[[GDIM:.+]] = gpu.grid_dim x
// TMA-NEXT:      %[[GRID:.+]] = arith.constant 1 : index
// TMA-NEXT:      %[[LEFT:.+]] = arith.subi %[[GRID]], %[[BID]] : index
// TMA-NEXT:      %[[NTILES:.+]] = arith.ceildivsi %[[LEFT]], %[[GDIM]] : index
// TMA-NEXT:      %[[C128B:.+]] = arith.constant 128 : index
// TMA-NEXT:      %[[PRODUCER:.+]] = arith.cmpi ult, %[[TID]], %[[C128B]] : index
// TMA-NEXT:      scf.if %[[PRODUCER]] {
// TMA-NEXT:        nvvm.setmaxregister  decrease 40
// TMA-NEXT:        %[[C0B:.+]] = arith.constant 0 : index
// TMA-NEXT:        %[[ISSUER:.+]] = arith.cmpi eq, %[[TID]], %[[C0B]] : index
// TMA-NEXT:        scf.if %[[ISSUER]] {
// TMA:               scf.for %[[TILE:.+]] = %{{.+}} to %[[NTILES]] step %{{.+}} {
// TMA-NEXT:            %[[STRIDE:.+]] = arith.muli %[[TILE]], %[[GDIM]] : index
// TMA-NEXT:            arith.addi %[[BID]], %[[STRIDE]] : index
// The tile's first row and column.
// TMA:                 %[[CBM:.+]] = arith.constant 128 : index
// TMA-NEXT:            %[[ROW0:.+]] = arith.muli %{{.+}}, %[[CBM]] : index
// TMA-NEXT:            %[[CBN:.+]] = arith.constant 256 : index
// TMA-NEXT:            %[[COL0:.+]] = arith.muli %{{.+}}, %[[CBN]] : index
// TMA-NEXT:            %[[CK:.+]] = arith.constant 4 : index
// TMA-NEXT:            %[[IT0:.+]] = arith.muli %[[TILE]], %[[CK]] : index
// The tile's first step's stage and phase parity, divided out once a tile,
// then carried through the k loop.
// TMA-NEXT:            arith.constant 4 : index
// TMA-NEXT:            %[[STAGE0:.+]] = arith.remui %[[IT0]], %{{.+}} : index
// TMA-NEXT:            arith.constant 4 : index
// TMA-NEXT:            %[[ROUND:.+]] = arith.divui %[[IT0]], %{{.+}} : index
// TMA-NEXT:            arith.constant 2 : index
// TMA-NEXT:            %[[PHASE:.+]] = arith.remui %[[ROUND]], %{{.+}} : index
// TMA-NEXT:            %[[PHASE0:.+]] = arith.index_cast %[[PHASE]] : index to i32
// TMA:                 scf.for %[[KS:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[STAGE:.+]] = %[[STAGE0]], %[[PHASEI:.+]] = %[[PHASE0]]) -> (index, i32) {
// TMA-NEXT:              %[[C1I:.+]] = arith.constant 1 : i32
// TMA-NEXT:              %[[EPARITY:.+]] = arith.xori %[[PHASEI]], %[[C1I]] : i32
// The empty barrier: bars + 32 + 8 * stage.
// TMA-NEXT:              %[[C8:.+]] = arith.constant 8 : index
// TMA-NEXT:              %[[EOFF8:.+]] = arith.muli %[[STAGE]], %[[C8]] : index
// TMA-NEXT:              %[[C32E:.+]] = arith.constant 32 : index
// TMA-NEXT:              %[[EOFF:.+]] = arith.addi %[[EOFF8]], %[[C32E]] : index
// TMA-NEXT:              %[[EADDR:.+]] = arith.addi %[[BARS]], %[[EOFF]] : index
// TMA-NEXT:              %[[EADDRI:.+]] = arith.index_cast %[[EADDR]] : index to i64
// TMA-NEXT:              %[[EMPTY:.+]] = llvm.inttoptr %[[EADDRI]] : i64 to !llvm.ptr<3>
// TMA-NEXT:              nvvm.mbarrier.try_wait.parity %[[EMPTY]], %[[EPARITY]], %{{.+}} : !llvm.ptr<3>, i32, i32
// The full barrier: bars + 8 * stage, armed with (128 + 256) * 64 * 2 bytes.
// TMA-NEXT:              %[[C8F:.+]] = arith.constant 8 : index
// TMA-NEXT:              %[[FOFF:.+]] = arith.muli %[[STAGE]], %[[C8F]] : index
// TMA-NEXT:              %[[FADDR:.+]] = arith.addi %[[BARS]], %[[FOFF]] : index
// TMA-NEXT:              %[[FADDRI:.+]] = arith.index_cast %[[FADDR]] : index to i64
// TMA-NEXT:              %[[FULL:.+]] = llvm.inttoptr %[[FADDRI]] : i64 to !llvm.ptr<3>
// TMA-NEXT:              %[[BYTES:.+]] = arith.constant 49152 : i32
// TMA-NEXT:              nvvm.mbarrier.arrive.expect_tx %[[FULL]], %[[BYTES]] : !llvm.ptr<3>, i32
// x's box at A + stage * 16384, coordinates (k, row).
// TMA-NEXT:              %[[C64:.+]] = arith.constant 64 : index
// TMA-NEXT:              %[[K0:.+]] = arith.muli %[[KS]], %[[C64]] : index
// TMA-NEXT:              %[[K0I:.+]] = arith.index_cast %[[K0]] : index to i32
// TMA-NEXT:              %[[ROW0I:.+]] = arith.index_cast %[[ROW0]] : index to i32
// TMA-NEXT:              %[[C16384:.+]] = arith.constant 16384 : index
// TMA-NEXT:              %[[AOFF:.+]] = arith.muli %[[STAGE]], %[[C16384]] : index
// TMA-NEXT:              %[[ADST:.+]] = arith.addi %[[BASEA]], %[[AOFF]] : index
// TMA-NEXT:              %[[ADSTI:.+]] = arith.index_cast %[[ADST]] : index to i64
// TMA-NEXT:              %[[ADSTP:.+]] = llvm.inttoptr %[[ADSTI]] : i64 to !llvm.ptr<3>
// TMA-NEXT:              %[[ADSTC:.+]] = llvm.addrspacecast %[[ADSTP]] : !llvm.ptr<3> to !llvm.ptr<7>
// TMA-NEXT:              nvvm.cp.async.bulk.tensor.shared.cluster.global %[[ADSTC]], %[[MX]], %[[FULL]], box[%[[K0I]], %[[ROW0I]]] : !llvm.ptr<7>, !llvm.ptr
// w's box at B + stage * 32768, coordinates (k, column). Without a cluster
// the CTA's part of the panel is part 0 of 1: column + 0 * 256 at B + 0 *
// 256 * 128 (a cluster's CTA copies rows rank * 128 .. of 256: CLUSTER run).
// TMA-NEXT:              %[[PART:.+]] = arith.constant 0 : index
// TMA-NEXT:              %[[C32768:.+]] = arith.constant 32768 : index
// TMA-NEXT:              %[[BOFF:.+]] = arith.muli %[[STAGE]], %[[C32768]] : index
// TMA-NEXT:              %[[BDST:.+]] = arith.addi %[[BASEB]], %[[BOFF]] : index
// TMA-NEXT:              %[[CROWS:.+]] = arith.constant 256 : index
// TMA-NEXT:              %[[PCOL:.+]] = arith.muli %[[PART]], %[[CROWS]] : index
// TMA-NEXT:              %[[COL:.+]] = arith.addi %[[COL0]], %[[PCOL]] : index
// TMA-NEXT:              %[[COL0I:.+]] = arith.index_cast %[[COL]] : index to i32
// TMA-NEXT:              %[[CPART:.+]] = arith.constant 32768 : index
// TMA-NEXT:              %[[POFF:.+]] = arith.muli %[[PART]], %[[CPART]] : index
// TMA-NEXT:              %[[BPART:.+]] = arith.addi %[[BDST]], %[[POFF]] : index
// TMA-NEXT:              %[[BPARTI:.+]] = arith.index_cast %[[BPART]] : index to i64
// TMA-NEXT:              %[[BPARTP:.+]] = llvm.inttoptr %[[BPARTI]] : i64 to !llvm.ptr<3>
// TMA-NEXT:              %[[BPARTC:.+]] = llvm.addrspacecast %[[BPARTP]] : !llvm.ptr<3> to !llvm.ptr<7>
// TMA-NEXT:              nvvm.cp.async.bulk.tensor.shared.cluster.global %[[BPARTC]], %[[MW]], %[[FULL]], box[%[[K0I]], %[[COL0I]]] : !llvm.ptr<7>, !llvm.ptr
// The next step's stage and phase: stage + 1, back to 0 past the last
// stage, where the phase flips.
// TMA-NEXT:              %[[C1S:.+]] = arith.constant 1 : index
// TMA-NEXT:              %[[NEXTS:.+]] = arith.addi %[[STAGE]], %[[C1S]] : index
// TMA-NEXT:              %[[C4S:.+]] = arith.constant 4 : index
// TMA-NEXT:              %[[WRAP:.+]] = arith.cmpi eq, %[[NEXTS]], %[[C4S]] : index
// TMA-NEXT:              %[[C1P:.+]] = arith.constant 1 : i32
// TMA-NEXT:              %[[FLIP:.+]] = arith.xori %[[PHASEI]], %[[C1P]] : i32
// TMA-NEXT:              %[[C0S:.+]] = arith.constant 0 : index
// TMA-NEXT:              %[[STAGEN:.+]] = arith.select %[[WRAP]], %[[C0S]], %[[NEXTS]] : index
// TMA-NEXT:              %[[PHASEN:.+]] = arith.select %[[WRAP]], %[[FLIP]], %[[PHASEI]] : i32
// TMA-NEXT:              scf.yield %[[STAGEN]], %[[PHASEN]] : index, i32
// TMA-NEXT:            } {loop_annotation = #loop_annotation}
// TMA-NEXT:          }
// TMA-NEXT:        }
// TMA-NEXT:      } else {
// TMA-NEXT:        nvvm.setmaxregister  increase 232
// TMA:             scf.for %[[MTILE:.+]] = %{{.+}} to %[[NTILES]] step %{{.+}} {
// The tile's first k step, peeled (its MMAs start the accumulators), then
// the loop over the rest, carrying the accumulators, the stage and phase.
// TMA:               nvvm.mbarrier.try_wait.parity
// TMA:               nvvm.wgmma.mma_async {{.+}} D[<f32>, <zero>]
// TMA:               nvvm.wgmma.wait.group.sync.aligned 1
// TMA:               %[[RES:.+]]:3 = scf.for %[[MKS:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}}, %[[MSTAGE:.+]] = %{{.+}}, %[[MPHASEI:.+]] = %{{.+}}) -> (!llvm.struct<({{((f32, ){127})}}f32)>, index, i32) {
// TMA-NEXT:            arith.constant 8 : index
// TMA-NEXT:            %[[MFOFF:.+]] = arith.muli %[[MSTAGE]], %{{.+}} : index
// TMA-NEXT:            %[[MFADDR:.+]] = arith.addi %[[BARS]], %[[MFOFF]] : index
// TMA-NEXT:            %[[MFADDRI:.+]] = arith.index_cast %[[MFADDR]] : index to i64
// TMA-NEXT:            %[[MFULL:.+]] = llvm.inttoptr %[[MFADDRI]] : i64 to !llvm.ptr<3>
// TMA-NEXT:            nvvm.mbarrier.try_wait.parity %[[MFULL]], %[[MPHASEI]], %{{.+}} : !llvm.ptr<3>, i32, i32
// TMA-NEXT:            %[[MSTAGEI:.+]] = arith.index_cast %[[MSTAGE]] : index to i32
// TMA-NEXT:            %[[MC1024:.+]] = arith.constant 1024 : i32
// TMA-NEXT:            arith.muli %[[MSTAGEI]], %[[MC1024]] : i32
// TMA-NEXT:            arith.addi
// TMA-NEXT:            nvvm.wgmma.fence.aligned
// TMA:                 %[[W0:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[ACC]], <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// TMA:                 %[[W1:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[W0]], <m = 64, n = 256, k = 16>
// TMA:                 %[[W2:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[W1]], <m = 64, n = 256, k = 16>
// TMA:                 %[[W3:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[W2]], <m = 64, n = 256, k = 16>
// TMA-NEXT:            nvvm.wgmma.commit.group.sync.aligned
// TMA-NEXT:            nvvm.wgmma.wait.group.sync.aligned 1
// From the second k step on, lane 0 of each MMA warp releases the previous
// step's stage: an arrive on empty[stage - 1], stage 3 before stage 0.
// TMA-NEXT:            %[[MC1:.+]] = arith.constant 1 : index
// TMA-NEXT:            %[[NOTFIRST:.+]] = arith.cmpi uge, %[[MKS]], %[[MC1]] : index
// TMA-NEXT:            %[[MC1B:.+]] = arith.constant 1 : index
// TMA-NEXT:            %[[WRAPS:.+]] = arith.cmpi ult, %[[MSTAGE]], %[[MC1B]] : index
// TMA-NEXT:            %[[MC1C:.+]] = arith.constant 1 : index
// TMA-NEXT:            %[[DOWN:.+]] = arith.subi %[[MSTAGE]], %[[MC1C]] : index
// TMA-NEXT:            %[[MC3:.+]] = arith.constant 3 : index
// TMA-NEXT:            %[[UP:.+]] = arith.addi %[[MSTAGE]], %[[MC3]] : index
// TMA-NEXT:            %[[PSTAGE:.+]] = arith.select %[[WRAPS]], %[[UP]], %[[DOWN]] : index
// TMA-NEXT:            %[[MC0:.+]] = arith.constant 0 : index
// TMA-NEXT:            %[[LANE0:.+]] = arith.cmpi eq, %[[LANE]], %[[MC0]] : index
// TMA-NEXT:            %[[RELEASE:.+]] = arith.andi %[[NOTFIRST]], %[[LANE0]] : i1
// TMA-NEXT:            scf.if %[[RELEASE]] {
// TMA-NEXT:              arith.constant 8 : index
// TMA-NEXT:              %[[P8:.+]] = arith.muli %[[PSTAGE]], %{{.+}} : index
// TMA-NEXT:              arith.constant 32 : index
// TMA-NEXT:              %[[POFF:.+]] = arith.addi %[[P8]], %{{.+}} : index
// TMA-NEXT:              %[[PADDR:.+]] = arith.addi %[[BARS]], %[[POFF]] : index
// TMA-NEXT:              %[[PADDRI:.+]] = arith.index_cast %[[PADDR]] : index to i64
// TMA-NEXT:              %[[PEMPTY:.+]] = llvm.inttoptr %[[PADDRI]] : i64 to !llvm.ptr<3>
// TMA-NEXT:              nvvm.mbarrier.arrive %[[PEMPTY]] : !llvm.ptr<3>
// TMA-NEXT:            }
// TMA:                 scf.yield %[[W3]], %{{.+}}, %{{.+}} :
// TMA-NEXT:          }
// TMA-NEXT:          nvvm.wgmma.wait.group.sync.aligned 0
// The last k step's stage (the one before the loop's final stage) is
// released after the loop.
// TMA-NEXT:          %[[C1L:.+]] = arith.constant 1 : index
// TMA-NEXT:          arith.cmpi ult, %[[RES]]#1, %[[C1L]] : index
// TMA:               %[[LAST:.+]] = arith.select
// TMA-NEXT:          arith.constant 0 : index
// TMA-NEXT:          %[[LANE0B:.+]] = arith.cmpi eq, %[[LANE]], %{{.+}} : index
// TMA-NEXT:          scf.if %[[LANE0B]] {
// TMA-NEXT:            arith.constant 8 : index
// TMA-NEXT:            arith.muli %[[LAST]], %{{.+}} : index
// TMA:                 nvvm.mbarrier.arrive %{{.+}} : !llvm.ptr<3>
// TMA-NEXT:          }
// The epilogue of the tile, as in the cp.async kernel: 64 stores.
// TMA:               llvm.extractvalue %[[RES]]#0[0]
// TMA:               llvm.extractvalue %[[RES]]#0[127]
// TMA-NOT:           llvm.extractvalue
// TMA-COUNT-64:      vector.store %{{.+}}, %[[Y]][{{.+}}] {alignment = 4 : i64} : memref<?x256xbf16>, vector<2xbf16>
// TMA-NOT:           vector.store
// TMA:           gpu.return
// TMA-NOT:       nvgpu.device_async_copy
// TMA-NOT:       nvvm.fence.proxy
// TMA-NOT:       nvvm.mma.sync
// TMA:         }
// MMA-LABEL: gpu.func @wgmma
// MMA-SAME:    known_block_size = array<i32: 128, 1, 1>
// MMA-NOT:     wgmma
// MMA:         nvgpu.ldmatrix
// MMA:         nvvm.mma.sync
// MMA-NOT:     wgmma
// MMA:         gpu.return
func.func @wgmma(%x: memref<?x256xbf16>, %w: memref<256x256xbf16>, %y: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 256>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x256xbf16>, memref<256x256xbf16> -> tensor<256xf32>
  %t = arith.truncf %p : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %y[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}

// -----

// SwiGLU on wgmma, 200 rows: block_n 128 (m64n128k16, 64 accumulators a
// product), two B panels after A: at pad + 65536 and pad + 131072 (4 * 128 *
// 64 * 2 = 65536 bytes each); one accumulator struct per product, both
// carried by the loop, one wgmma commit group for both.
// CHECK-LABEL: gpu.func @swiglu
// CHECK-SAME:    (%[[X:[^:]+]]: memref<?x256xbf16>, %[[WG:[^:]+]]: memref<256x256xbf16>, %[[WU:[^:]+]]: memref<256x256xbf16>, %[[Y:[^:]+]]: memref<?x256xbf16>) kernel
// CHECK-SAME:    tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 128 : i64, cluster_m = 1 : i64, grid = 4 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
// CHECK:         %[[RAW:.+]] = memref.extract_aligned_pointer_as_index
// CHECK-NEXT:    arith.constant 1024 : index
// CHECK-NEXT:    arith.remui %[[RAW]]
// CHECK-NEXT:    arith.constant 1024 : index
// CHECK-NEXT:    arith.subi
// CHECK-NEXT:    arith.constant 1024 : index
// CHECK-NEXT:    %[[PAD:.+]] = arith.remui
// CHECK-NEXT:    %[[PA:.+]] = memref.view %{{.+}}[%[[PAD]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[C65536:.+]] = arith.constant 65536 : index
// CHECK-NEXT:    %[[OFFG:.+]] = arith.addi %[[PAD]], %[[C65536]] : index
// CHECK-NEXT:    %[[PG:.+]] = memref.view %{{.+}}[%[[OFFG]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[C131072:.+]] = arith.constant 131072 : index
// CHECK-NEXT:    %[[OFFU:.+]] = arith.addi %[[PAD]], %[[C131072]] : index
// CHECK-NEXT:    %[[PU:.+]] = memref.view %{{.+}}[%[[OFFU]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[BASEA:.+]] = arith.addi %[[RAW]], %[[PAD]] : index
// CHECK-NEXT:    arith.constant 65536 : index
// CHECK-NEXT:    %[[BASEG:.+]] = arith.addi %[[BASEA]], %{{.+}} : index
// CHECK-NEXT:    arith.constant 131072 : index
// CHECK-NEXT:    %[[BASEU:.+]] = arith.addi %[[BASEA]], %{{.+}} : index
// Each panel's descriptor low word: A's, the gate's, the up projection's.
// CHECK:         arith.index_cast %[[BASEG]] : index to i32
// CHECK:         %[[DESCG:.+]] = arith.ori %{{.+}}, %{{.+}} : i32
// CHECK-NEXT:    arith.index_cast %[[BASEU]] : index to i32
// CHECK:         %[[DESCU:.+]] = arith.ori %{{.+}}, %{{.+}} : i32
// Prologue copies: A (4), the gate's B (4), the up projection's B (4).
// CHECK-COUNT-4: nvgpu.device_async_copy %[[X]][{{.+}}], %[[PA]]
// CHECK-COUNT-4: nvgpu.device_async_copy %[[WG]][{{.+}}], %[[PG]]
// CHECK-COUNT-4: nvgpu.device_async_copy %[[WU]][{{.+}}], %[[PU]]
// CHECK-NEXT:    nvgpu.device_async_create_group
// CHECK:         %[[RES:.+]]:3 = scf.for %{{.+}} iter_args(%[[ACCG:.+]] = %[[INIT:[^,]+]], %[[ACCU:.+]] = %[[INIT]], %{{.+}} = %{{.+}}) -> (!llvm.struct<({{((f32, ){63})}}f32)>, !llvm.struct<({{((f32, ){63})}}f32)>, !nvgpu.device.async.token) {
// CHECK:           nvvm.fence.proxy
// CHECK:           scf.if
// CHECK-COUNT-4:     nvgpu.device_async_copy %[[X]][{{.+}}], %[[PA]]
// CHECK-COUNT-4:     nvgpu.device_async_copy %[[WG]][{{.+}}], %[[PG]]
// CHECK-COUNT-4:     nvgpu.device_async_copy %[[WU]][{{.+}}], %[[PU]]
// One fence for both products.
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK-NOT:       nvvm.wgmma.fence.aligned
// The gate: B stage from its panel, 4 MMAs chained from its accumulator.
// CHECK:           %[[GSTAGE:.+]] = arith.addi %[[DESCG]], %{{.+}} : i32
// CHECK:           arith.extui %[[GSTAGE]] : i32 to i64
// CHECK:           %[[G0:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[ACCG]], <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK:           %[[G1:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[G0]], <m = 64, n = 128, k = 16>
// CHECK:           %[[G2:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[G1]], <m = 64, n = 128, k = 16>
// CHECK:           %[[G3:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[G2]], <m = 64, n = 128, k = 16>
// The up projection: its own panel and accumulator.
// (16384 bytes a stage: 1024 descriptor units.)
// CHECK-NEXT:      %[[C1024U:.+]] = arith.constant 1024 : i32
// CHECK-NEXT:      %[[UOFF:.+]] = arith.muli %{{.+}}, %[[C1024U]] : i32
// CHECK-NEXT:      %[[USTAGE:.+]] = arith.addi %[[DESCU]], %[[UOFF]] : i32
// CHECK:           arith.extui %[[USTAGE]] : i32 to i64
// CHECK:           %[[U0:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[ACCU]], <m = 64, n = 128, k = 16>
// CHECK:           %[[U1:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[U0]], <m = 64, n = 128, k = 16>
// CHECK:           %[[U2:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[U1]], <m = 64, n = 128, k = 16>
// CHECK:           %[[U3:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[U2]], <m = 64, n = 128, k = 16>
// CHECK-NEXT:      nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT:      scf.yield %[[G3]], %[[U3]], %{{.+}} :
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// 16 n8 tiles of the gate, then 16 of the up projection.
// CHECK-NEXT:    llvm.extractvalue %[[RES]]#0[0]
// CHECK:         llvm.extractvalue %[[RES]]#0[63]
// CHECK-NEXT:    %[[GV:.+]] = vector.from_elements
// CHECK-NEXT:    llvm.extractvalue %[[RES]]#1[0]
// CHECK:         llvm.extractvalue %[[RES]]#1[63]
// CHECK-NEXT:    %[[UV:.+]] = vector.from_elements
// CHECK-NOT:     llvm.extractvalue
// The pairs of every fragment first, the gate's then the up projection's
// (so that the epilogue's loads can go before its stores); the last pair:
// tile 15 of both products, the lower row half. Then the row program.
// CHECK:         %[[GP:.+]] = vector.shuffle %{{.+}}, %{{.+}} [0, 1]
// CHECK-NEXT:    %[[UP:.+]] = vector.shuffle %{{.+}}, %{{.+}} [0, 1]
// CHECK-NOT:     vector.store
// CHECK:         vector.shuffle %[[GV]], %[[GV]] [2, 3]
// CHECK-NEXT:    vector.shuffle %[[UV]], %[[UV]] [2, 3]
// CHECK-NOT:     vector.shuffle
// CHECK:         arith.mulf %[[GP]], %[[UP]] : vector<2xf32>
// CHECK:         vector.store %{{.+}}, %[[Y]][{{.+}}] {alignment = 4 : i64}
// CHECK:         gpu.return
// With TMA, three tensor maps (x, the gate's w, the up projection's w), one
// full barrier armed with (128 + 2 * 128) * 64 * 2 = 49152 bytes a stage and
// three boxes into it: x's at (k, row) into A, each w's at (k, column) into
// its own panel (B stages of 128 * 64 * 2 = 16384 bytes); the MMA loop
// carries both accumulators.
// TMA-LABEL: gpu.func @swiglu
// TMA-SAME:    (%[[X:[^:]+]]: memref<?x256xbf16>, %[[WG:[^:]+]]: memref<256x256xbf16>, %[[WU:[^:]+]]: memref<256x256xbf16>, %[[Y:[^:]+]]: memref<?x256xbf16>, %[[MX:[^:]+]]: !llvm.ptr, %[[MG:[^:]+]]: !llvm.ptr, %[[MU:[^:]+]]: !llvm.ptr) kernel
// TMA-SAME:    known_block_size = array<i32: 384, 1, 1>
// TMA-SAME:    persistent = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64
// TMA-SAME:    tile.tma_params = 3 : i64
// TMA-COUNT-3:   memref.view {{.+}} to memref<4x128x64xbf16, #gpu.address_space<workgroup>>
// TMA-NEXT:      %[[BASEA:.+]] = arith.addi %{{.+}}, %{{.+}} : index
// TMA-NEXT:      arith.constant 65536 : index
// TMA-NEXT:      %[[BASEG:.+]] = arith.addi %[[BASEA]], %{{.+}} : index
// TMA-NEXT:      arith.constant 131072 : index
// TMA-NEXT:      %[[BASEU:.+]] = arith.addi %[[BASEA]], %{{.+}} : index
// TMA:           arith.constant 196608 : index
// TMA-COUNT-8:   nvvm.mbarrier.init
// TMA:           nvvm.setmaxregister  decrease 40
// TMA:           nvvm.mbarrier.try_wait.parity
// TMA-NEXT:      arith.constant 8 : index
// TMA:           %[[FULL:.+]] = llvm.inttoptr
// TMA-NEXT:      %[[BYTES:.+]] = arith.constant 49152 : i32
// TMA-NEXT:      nvvm.mbarrier.arrive.expect_tx %[[FULL]], %[[BYTES]] : !llvm.ptr<3>, i32
// TMA:           %[[K0I:.+]] = arith.index_cast %{{.+}} : index to i32
// TMA-NEXT:      %[[ROW0I:.+]] = arith.index_cast %{{.+}} : index to i32
// TMA-NEXT:      arith.constant 16384 : index
// TMA-NEXT:      arith.muli
// TMA-NEXT:      arith.addi %[[BASEA]], %{{.+}} : index
// TMA:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MX]], %[[FULL]], box[%[[K0I]], %[[ROW0I]]] : !llvm.ptr<7>, !llvm.ptr
// (Part 0 of 1 of each w panel, as in @wgmma: column + 0 * 128.)
// TMA-NEXT:      %[[PART:.+]] = arith.constant 0 : index
// TMA-NEXT:      arith.constant 16384 : index
// TMA-NEXT:      arith.muli
// TMA-NEXT:      arith.addi %[[BASEG]], %{{.+}} : index
// TMA-NEXT:      arith.constant 128 : index
// TMA-NEXT:      arith.muli %[[PART]], %{{.+}} : index
// TMA-NEXT:      %[[COLG:.+]] = arith.addi %[[COL0:.+]], %{{.+}} : index
// TMA-NEXT:      %[[COL0G:.+]] = arith.index_cast %[[COLG]] : index to i32
// TMA:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MG]], %[[FULL]], box[%[[K0I]], %[[COL0G]]] : !llvm.ptr<7>, !llvm.ptr
// TMA-NEXT:      arith.constant 16384 : index
// TMA-NEXT:      arith.muli
// TMA-NEXT:      arith.addi %[[BASEU]], %{{.+}} : index
// TMA-NEXT:      arith.constant 128 : index
// TMA-NEXT:      arith.muli %[[PART]], %{{.+}} : index
// TMA-NEXT:      %[[COLU:.+]] = arith.addi %[[COL0]], %{{.+}} : index
// TMA-NEXT:      %[[COL0U:.+]] = arith.index_cast %[[COLU]] : index to i32
// TMA:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MU]], %[[FULL]], box[%[[K0I]], %[[COL0U]]] : !llvm.ptr<7>, !llvm.ptr
// TMA:           scf.yield %{{.+}}, %{{.+}} : index, i32
// TMA-NEXT:    }
// TMA-NOT:       nvvm.cp.async.bulk.tensor
// TMA:           nvvm.setmaxregister  increase 232
// A tile's first k step, peeled: its first MMAs of each product ignore
// the (undefined) accumulators (D scale zero); the loop takes steps 1...
// TMA:           nvvm.mbarrier.try_wait.parity
// TMA:           nvvm.wgmma.fence.aligned
// TMA:           %[[G0:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[INIT:[^,]+]], <m = 64, n = 128, k = 16>, D[<f32>, <zero>]
// TMA-COUNT-3:   nvvm.wgmma.mma_async {{.+}} D[<f32>, <one>]
// TMA:           nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[INIT]], <m = 64, n = 128, k = 16>, D[<f32>, <zero>]
// TMA-COUNT-3:   nvvm.wgmma.mma_async {{.+}} D[<f32>, <one>]
// TMA-NEXT:      nvvm.wgmma.commit.group.sync.aligned
// TMA-NEXT:      nvvm.wgmma.wait.group.sync.aligned 1
// TMA:           scf.for %{{.+}} = %{{.+}} to %{{.+}} iter_args(%[[ACCG:.+]] = %{{.+}}, %[[ACCU:.+]] = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (!llvm.struct<({{((f32, ){63})}}f32)>, !llvm.struct<({{((f32, ){63})}}f32)>, index, i32) {
// TMA:             nvvm.mbarrier.try_wait.parity
// TMA:             nvvm.wgmma.fence.aligned
// TMA-NOT:         nvvm.wgmma.fence.aligned
// TMA:             nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[ACCG]], <m = 64, n = 128, k = 16>
// TMA-COUNT-3:     nvvm.wgmma.mma_async {{.+}} <m = 64, n = 128, k = 16>
// TMA-NEXT:        arith.constant 1024 : i32
// TMA:             nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[ACCU]], <m = 64, n = 128, k = 16>
// TMA-COUNT-3:     nvvm.wgmma.mma_async {{.+}} <m = 64, n = 128, k = 16>
// TMA-NEXT:        nvvm.wgmma.commit.group.sync.aligned
// TMA-NEXT:        nvvm.wgmma.wait.group.sync.aligned 1
// TMA:             nvvm.mbarrier.arrive
// TMA:           nvvm.wgmma.wait.group.sync.aligned 0
// TMA:           nvvm.mbarrier.arrive
// TMA:           arith.mulf {{.+}} : vector<2xf32>
// TMA:           vector.store %{{.+}}, %[[Y]][{{.+}}] {alignment = 4 : i64}
// TMA-NOT:       nvgpu.device_async_copy
// TMA:           gpu.return
// MMA-LABEL: gpu.func @swiglu
// MMA-SAME:    tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 64 : i64, grid = 8 : i64
// MMA-NOT:     wgmma
// MMA:         nvvm.mma.sync
// MMA-NOT:     wgmma
// MMA:         gpu.return
func.func @swiglu(%x: memref<?x256xbf16>, %wg: memref<256x256xbf16>, %wu: memref<256x256xbf16>, %y: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 200, 256>} {
  %r = tile.row_id
  %g = tile.matmul %x, %wg[%r] {transpose_b = true} : memref<?x256xbf16>, memref<256x256xbf16> -> tensor<256xf32>
  %u = tile.matmul %x, %wu[%r] {transpose_b = true} : memref<?x256xbf16>, memref<256x256xbf16> -> tensor<256xf32>
  %m = arith.mulf %g, %u : tensor<256xf32>
  %t = arith.truncf %m : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %y[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}

// -----

// f16 operands: wgmma with f16 multiplicands (K = 64: one k step). With
// TMA too (the tensor maps' element type is the host's business).
// TMA-LABEL: gpu.func @f16
// TMA-SAME:    %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr) kernel attributes {known_block_size = array<i32: 384, 1, 1>
// TMA-COUNT-2:   nvvm.cp.async.bulk.tensor.shared.cluster.global
// TMA-NOT:       nvvm.cp.async.bulk.tensor.shared.cluster.global
// TMA:           nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// TMA:           vector.store %{{.+}}, %{{.+}}[{{.+}}] {alignment = 8 : i64} : memref<?x512xf32>, vector<2xf32>
// CHECK-LABEL: gpu.func @f16
// CHECK:         nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK:         vector.store %{{.+}}, %{{.+}}[{{.+}}] {alignment = 8 : i64} : memref<?x512xf32>, vector<2xf32>
func.func @f16(%x: memref<?x64xf16>, %w: memref<512x64xf16>, %y: memref<?x512xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 256, 512>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x64xf16>, memref<512x64xf16> -> tensor<512xf32>
  tile.store %p, %y[%r] : tensor<512xf32> -> memref<?x512xf32>
  return
}

// -----

// A [K, N] rhs is read MN-major: its panel is block_n / 64 = 4 blocks of
// block_k = 64 rows of 64 columns (memref<4 x 256 x 64>), copied from the
// [K, N] rows, and wgmma reads B transposed (layout row) with a leading
// byte offset of 64 * 128 = 8192 between the 64-column blocks.
// With TMA the [K, N] map has 64 x 64 boxes: four copies a stage fill the
// four blocks (8192 bytes apart), at coordinates (column, k) = (n0 + 64 j,
// k0); the full barrier still expects 128 * 64 * 2 + 4 * 8192 = 49152 bytes.
// TMA-LABEL: gpu.func @kn_rhs
// TMA-SAME:    (%[[X:[^:]+]]: memref<?x64xbf16>, %[[W:[^:]+]]: memref<64x256xbf16>, %[[Y:[^:]+]]: memref<?x256xf32>, %[[MX:[^:]+]]: !llvm.ptr, %[[MW:[^:]+]]: !llvm.ptr) kernel
// TMA-SAME:    tile.tma_params = 2 : i64
// B read MN-major: its descriptor's leading byte offset 8192 (512 units at
// bit 16).
// TMA:           arith.constant 33554432 : i32
// TMA:           nvvm.setmaxregister  decrease 40
// TMA:           %[[CBM:.+]] = arith.constant 128 : index
// TMA-NEXT:      %[[ROW0:.+]] = arith.muli %{{.+}}, %[[CBM]] : index
// TMA-NEXT:      %[[CBN:.+]] = arith.constant 256 : index
// TMA-NEXT:      %[[COL0:.+]] = arith.muli %{{.+}}, %[[CBN]] : index
// TMA:           nvvm.mbarrier.try_wait.parity
// TMA:           %[[FULL:.+]] = llvm.inttoptr
// TMA-NEXT:      arith.constant 49152 : i32
// TMA-NEXT:      nvvm.mbarrier.arrive.expect_tx %[[FULL]]
// TMA-NEXT:      arith.constant 64 : index
// TMA-NEXT:      arith.muli
// TMA-NEXT:      %[[K0I:.+]] = arith.index_cast %{{.+}} : index to i32
// TMA-NEXT:      %[[ROW0I:.+]] = arith.index_cast %[[ROW0]] : index to i32
// TMA:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MX]], %[[FULL]], box[%[[K0I]], %[[ROW0I]]]
// Block j of the CTA's part 0 (of 1): block 0 * 4 + j at (n0 + 64 * block,
// k0), B + 8192 * block.
// TMA-NEXT:      %[[PART:.+]] = arith.constant 0 : index
// TMA-NEXT:      arith.constant 32768 : index
// TMA-NEXT:      arith.muli
// TMA-NEXT:      %[[B0:.+]] = arith.addi
// TMA-NEXT:      %[[C4:.+]] = arith.constant 4 : index
// TMA-NEXT:      %[[BLK0:.+]] = arith.muli %[[PART]], %[[C4]] : index
// TMA-NEXT:      %[[C64A:.+]] = arith.constant 64 : index
// TMA-NEXT:      %[[N0OFF:.+]] = arith.muli %[[BLK0]], %[[C64A]] : index
// TMA-NEXT:      %[[N0:.+]] = arith.addi %[[COL0]], %[[N0OFF]] : index
// TMA-NEXT:      %[[N0I:.+]] = arith.index_cast %[[N0]] : index to i32
// TMA-NEXT:      %[[C8192A:.+]] = arith.constant 8192 : index
// TMA-NEXT:      %[[D0OFF:.+]] = arith.muli %[[BLK0]], %[[C8192A]] : index
// TMA-NEXT:      %[[D0:.+]] = arith.addi %[[B0]], %[[D0OFF]] : index
// TMA-NEXT:      %[[D0I:.+]] = arith.index_cast %[[D0]] : index to i64
// TMA-NEXT:      %[[D0P:.+]] = llvm.inttoptr %[[D0I]] : i64 to !llvm.ptr<3>
// TMA-NEXT:      %[[D0C:.+]] = llvm.addrspacecast %[[D0P]] : !llvm.ptr<3> to !llvm.ptr<7>
// TMA-NEXT:      nvvm.cp.async.bulk.tensor.shared.cluster.global %[[D0C]], %[[MW]], %[[FULL]], box[%[[N0I]], %[[K0I]]]
// TMA-NEXT:      arith.constant 4 : index
// TMA-NEXT:      arith.muli %[[PART]], %{{.+}} : index
// TMA-NEXT:      %[[C1:.+]] = arith.constant 1 : index
// TMA-NEXT:      %[[BLK1:.+]] = arith.addi %{{.+}}, %[[C1]] : index
// TMA-NEXT:      %[[C64B:.+]] = arith.constant 64 : index
// TMA-NEXT:      %[[N1OFF:.+]] = arith.muli %[[BLK1]], %[[C64B]] : index
// TMA-NEXT:      %[[N1:.+]] = arith.addi %[[COL0]], %[[N1OFF]] : index
// TMA-NEXT:      %[[N1I:.+]] = arith.index_cast %[[N1]] : index to i32
// TMA-NEXT:      %[[C8192B:.+]] = arith.constant 8192 : index
// TMA-NEXT:      %[[D1OFF:.+]] = arith.muli %[[BLK1]], %[[C8192B]] : index
// TMA-NEXT:      arith.addi %[[B0]], %[[D1OFF]] : index
// TMA:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MW]], %[[FULL]], box[%[[N1I]], %[[K0I]]]
// TMA:           %[[C2:.+]] = arith.constant 2 : index
// TMA-NEXT:      %[[BLK2:.+]] = arith.addi %{{.+}}, %[[C2]] : index
// TMA-NEXT:      arith.constant 64 : index
// TMA-NEXT:      arith.muli %[[BLK2]], %{{.+}} : index
// TMA-NEXT:      %[[N2:.+]] = arith.addi %[[COL0]], %{{.+}} : index
// TMA-NEXT:      %[[N2I:.+]] = arith.index_cast %[[N2]] : index to i32
// TMA:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MW]], %[[FULL]], box[%[[N2I]], %[[K0I]]]
// TMA:           %[[C3:.+]] = arith.constant 3 : index
// TMA-NEXT:      %[[BLK3:.+]] = arith.addi %{{.+}}, %[[C3]] : index
// TMA-NEXT:      arith.constant 64 : index
// TMA-NEXT:      arith.muli %[[BLK3]], %{{.+}} : index
// TMA-NEXT:      %[[N3:.+]] = arith.addi %[[COL0]], %{{.+}} : index
// TMA-NEXT:      %[[N3I:.+]] = arith.index_cast %[[N3]] : index to i32
// TMA:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %[[MW]], %[[FULL]], box[%[[N3I]], %[[K0I]]]
// TMA:           scf.yield %{{.+}}, %{{.+}} : index, i32
// TMA-NEXT:    }
// TMA:           nvvm.setmaxregister  increase 232
// TMA:           nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// TMA-NOT:       nvgpu.device_async_copy
// TMA:           gpu.return
// CHECK-LABEL: gpu.func @kn_rhs
// CHECK-NOT:     nvgpu.ldmatrix
// CHECK:         memref.view {{.+}} to memref<4x256x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         arith.constant 33554432 : i32
// CHECK:         nvgpu.device_async_copy %arg1[{{.+}}], %{{.+}}[{{.+}}], 8, {{.+}} {bypassL1} : memref<64x256xbf16> to memref<4x256x64xbf16
// CHECK:         nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK-NOT:     nvvm.mma.sync
// CHECK:         gpu.return
func.func @kn_rhs(%x: memref<?x64xbf16>, %w: memref<64x256xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 256, 256>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<64x256xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}

// -----

// K = 129: rows of 258 bytes, not 16-byte aligned, so no tensor map: even
// by default the wgmma kernel of 256 threads without TMA (no pointer
// parameters, no mbarrier), its panels filled by the MMA warps (element
// loads: rows of an odd number of elements fit no cp.async), with the
// proxy fence; 128 x 128 tiles (4 * 256 * 64 * 2 + 1024 bytes).
// TMA-LABEL: gpu.func @k_129
// TMA-SAME:    (%{{[^:]+}}: memref<?x129xbf16>, %{{[^:]+}}: memref<256x129xbf16>, %{{[^:]+}}: memref<?x256xf32>) kernel
// TMA-SAME:    known_block_size = array<i32: 256, 1, 1>
// TMA-SAME:    persistent = 0 : i64, shared_bytes = 132096 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64
// TMA-NOT:       tile.tma_params
// TMA-NOT:       mbarrier
// TMA-NOT:       setmaxregister
// TMA-NOT:       cp.async.bulk
// TMA:           memref.load %{{.+}} : memref<?x129xbf16>
// TMA:           nvvm.fence.proxy
// TMA:           nvvm.wgmma.mma_async
// TMA-NOT:       mbarrier
// TMA:           gpu.return
// MMA-LABEL: gpu.func @k_129
// MMA:         nvvm.mma.sync
func.func @k_129(%x: memref<?x129xbf16>, %w: memref<256x129xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 256>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x129xbf16>, memref<256x129xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}

// -----

// A transposed lhs a [K, M] = [200, 320] goes MN-major through TMA like a
// [K, N] rhs: the producer copies block_m / 64 = 2 boxes of 64 k rows x 64
// rows of a a stage (coordinates (row, k), the second 64 rows on and 8192
// bytes further), and the MMAs read A transposed (layout col) through
// descriptors with leading offset 8192 (block_k * 128 >> 4 = 512 in bits
// 16-29, stride 1024) stepping 2048 bytes (16 k rows) a k16 step. Without
// TMA it is an mma.sync kernel.
// TMA: #loop_annotation = #llvm.loop_annotation<unroll = #loop_unroll>
// TMA-LABEL: gpu.func @trans_a
// TMA-SAME:    tile.tma_params = 2 : i64
// A read MN-major: its descriptor's leading byte offset 8192 (512 units at
// bit 16).
// TMA:           arith.constant 33554432 : i32
// TMA:           nvvm.mbarrier.arrive.expect_tx %{{.+}}, %{{.+}} : !llvm.ptr<3>, i32
// TMA:           %[[K0:.+]] = arith.index_cast %{{.+}} : index to i32
// TMA:           %[[ROW0:.+]] = arith.index_cast %[[M0:.+]] : index to i32
// TMA:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg3, %{{.+}}, box[%[[ROW0]], %[[K0]]]
// TMA-NEXT:      %[[C64:.+]] = arith.constant 64 : index
// TMA-NEXT:      %[[M1:.+]] = arith.addi %[[M0]], %[[C64]] : index
// TMA-NEXT:      %[[ROW1:.+]] = arith.index_cast %[[M1]] : index to i32
// TMA-NEXT:      %[[C8192:.+]] = arith.constant 8192 : index
// TMA-NEXT:      arith.addi %{{.+}}, %[[C8192]] : index
// TMA:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg3, %{{.+}}, box[%[[ROW1]], %[[K0]]]
// TMA-NOT:       %arg3
// TMA:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg4,
// The producer's k loop is not unrolled (its hoisted copy addresses spilled).
// TMA:           scf.yield %{{.+}}, %{{.+}} : index, i32
// TMA-NEXT:      } {loop_annotation = #loop_annotation}
// TMA:           nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %{{.+}}, <m = 64, n = 256, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]
// (The next k16 step: 16 rows of 128 bytes, 128 units.)
// TMA-NEXT:      %[[C128:.+]] = arith.constant 128 : i32
// TMA-NEXT:      arith.addi %{{.+}}, %[[C128]] : i32
// CHECK-LABEL: gpu.func @trans_a
// CHECK-NOT:     wgmma
// CHECK:         nvvm.mma.sync
// MMA-LABEL: gpu.func @trans_a
// MMA:         nvvm.mma.sync
func.func @trans_a(%a: memref<200x320xbf16>, %b: memref<256x200xbf16>, %c: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 320, 256>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_a = true, transpose_b = true} : memref<200x320xbf16>, memref<256x200xbf16> -> tensor<256xf32>
  %t = arith.truncf %p : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %c[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}
