// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-pingpong=1 gemm-cluster-m=1 gemm-tma-store=0" %s | FileCheck %s --check-prefix=PP
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-pingpong=1 gemm-cluster-m=1 gemm-tma-store=0" %s 2>&1 >/dev/null | count 0
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-pingpong=1 gemm-cluster-m=2 gemm-tma-store=0" %s | FileCheck %s --check-prefix=PPCL
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-pingpong=1 gemm-cluster-m=1 gemm-block-n=128 gemm-tma-store=0" %s | FileCheck %s --check-prefix=BN128
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-pingpong=1 gemm-cluster-m=1 gemm-stages=4 gemm-tma-store=0" %s | FileCheck %s --check-prefix=STAGES4
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-pingpong=1 gemm-cluster-m=1 gemm-group-m=4 gemm-tma-store=0" %s | FileCheck %s --check-prefix=GROUP4
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-pingpong=0 gemm-cluster-m=1 gemm-tma-store=0" %s | FileCheck %s --check-prefix=OFF --implicit-check-not=pingpong
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-pingpong=1 gemm-cluster-m=1 gemm-persistent=0 gemm-tma-store=0" %s | FileCheck %s --check-prefix=NOPERS --implicit-check-not=pingpong
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-pingpong=1 gemm-cluster-m=2 gemm-tma=0 gemm-tma-store=0" %s | FileCheck %s --check-prefix=NOTMA --implicit-check-not=pingpong --implicit-check-not=tile.tma
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 gemm-pingpong=1 gemm-cluster-m=2" %s | FileCheck %s --check-prefix=SM80 --implicit-check-not=pingpong --implicit-check-not=tile.tma --implicit-check-not=wgmma
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 gemm-pingpong=1 gemm-cluster-m=2 gemm-block-m=128" %s | FileCheck %s --check-prefix=SM80BM --implicit-check-not=pingpong --implicit-check-not=wgmma
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90 gemm-pingpong=1 gemm-cluster-m=2" %s | FileCheck %s --check-prefix=SM80 --implicit-check-not=pingpong --implicit-check-not=tile.tma --implicit-check-not=wgmma
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-pingpong=1 gemm-cluster-m=2 gemm-block-m=128 gemm-tma-store=0" %s 2> %t.bm128 | FileCheck %s --check-prefix=BM128-OUT
// RUN: FileCheck %s --check-prefix=BM128 < %t.bm128

// The ping-pong wgmma schedule (gemm-pingpong=1; ScheduleRowKernels.cpp,
// scheduleGemm). On sm_90a, for a wgmma GEMM whose panels TMA can load
// (every operand row 16-byte aligned), the two MMA warpgroups take
// alternate tiles of their own instead of sharing 128-row tiles, so one's
// epilogue runs under the other's MMAs:
//   block_m 64 (one warpgroup's rows), warps_m 4, warps_n 1, pingpong = 1
//   threads 384: the producer warpgroup + two MMA warpgroups (not
//   block_m / 64 * 128 + 128 = 256 as a 64-row tile would have otherwise)
//   stages: as many as fit the 232448 bytes of sm_90a, up to 6:
//   (232448 - 1024) / ((64 + products * block_n) * 128 + 16), clamped to
//   [3, 6]; gemm-stages, when set, is kept
//   shared_bytes = stages * (64 + products * block_n) * 128 + 1024 + stages * 16
//   group_m 32 (the other wgmma schedules: 16; mma.sync: 8); gemm-group-m,
//   when set, replaces all three
//   tile.tma: the lhs in 64 x 64 boxes
// The rest as for the 128-row TMA schedule (gemm-schedule.mlir): block_n 256
// (128 for two products), persistent, cluster_m 2 where there are more than
// block_m rows (PPCL, gemm-cluster-m=2; the others have one CTA a cluster).
// Where TMA is impossible (@k_500: 1000-byte rows) ping-pong is dropped
// silently (nothing on stderr): the 128-row cp.async schedule, no pingpong
// entry, no tile.tma. So it is with gemm-tma=0 (NOTMA), on sm_80 and sm_90
// (mma.sync; SM80) and for kernels of <= 64 rows (@decode, mma.sync).
// gemm-pingpong=0 (OFF) is the default: the 128-row schedule, no pingpong
// entry. gemm-block-m=128 with gemm-pingpong=1 is an error on sm_90a (the
// wgmma kernels; the BM128 run), not on sm_80 (the SM80BM run; no wgmma
// there).

// 4096^3 bf16, [N, K] rhs: 4096 / 64 * 4096 / 256 = 1024 tiles; stages
// 231424 / ((64 + 256) * 128 + 16) = 231424 / 40976 = 5 (5.6),
// 5 * 40960 + 1024 + 80 = 205904 bytes; x in 64 x 64 boxes, w in 256 x 64.
// PP-LABEL: func.func @large_bf16
//  PP-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 64 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 1024 : i64, group_m = 32 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, pingpong = 1 : i64, shared_bytes = 205904 : i64, stages = 5 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 4 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  PP-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 4096, 4096>}, {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 4096, 4096>}]}
// In 2-CTA clusters (the default): 32 pairs of block rows, 2 * 32 * 16 =
// 1024 CTAs; the w box halved to 128 x 64, the x box stays 64 x 64.
// PPCL-LABEL: func.func @large_bf16
//  PPCL-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 64 : i64, block_n = 256 : i64, cluster_m = 2 : i64, grid = 1024 : i64, group_m = 32 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, pingpong = 1 : i64, shared_bytes = 205904 : i64, stages = 5 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 4 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  PPCL-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 4096, 4096>}, {arg = 1 : i64, box = array<i64: 128, 64>, dims = array<i64: 4096, 4096>}]}
// block_n 128: 231424 / ((64 + 128) * 128 + 16) = 9 stages would fit, capped
// at 6: 6 * 24576 + 1024 + 96 = 148576 bytes; 64 * 32 = 2048 tiles.
// BN128-LABEL: func.func @large_bf16
//  BN128-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 64 : i64, block_n = 128 : i64, cluster_m = 1 : i64, grid = 2048 : i64, group_m = 32 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, pingpong = 1 : i64, shared_bytes = 148576 : i64, stages = 6 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 4 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  BN128-SAME:   box = array<i64: 128, 64>
// gemm-stages=4 is kept: 4 * 40960 + 1024 + 64 = 164928 bytes.
// STAGES4-LABEL: func.func @large_bf16
//  STAGES4-SAME:   block_m = 64 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 1024 : i64, group_m = 32 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, pingpong = 1 : i64, shared_bytes = 164928 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64
// GROUP4-LABEL: func.func @large_bf16
//  GROUP4-SAME:   block_m = 64 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 1024 : i64, group_m = 4 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, pingpong = 1 : i64
// OFF-LABEL: func.func @large_bf16
//  OFF-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 512 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  OFF-SAME:   box = array<i64: 128, 64>
// gemm-tma=0: no ping-pong, the 128-row cp.async schedule.
// Without persistent CTAs a CTA has one tile: no ping-pong (NOPERS), the
// shared 128-row tile.
// NOPERS-LABEL: func.func @large_bf16
//  NOPERS-SAME:   block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64
//  NOPERS-SAME:   persistent = 0 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64
// NOTMA-LABEL: func.func @large_bf16
//  NOTMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 512 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
// The mma.sync default, as without the option.
// SM80-LABEL: func.func @large_bf16
//  SM80-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 1024 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// SM80BM-LABEL: func.func @large_bf16
//  SM80BM-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 1024 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// BM128:      error: 'func.func' op bad wgmma GEMM schedule: ping-pong tiles have 64 rows, got 128
// BM128-NEXT: func.func @large_bf16(
// BM128-OUT-NOT: func.func @large_bf16
func.func @large_bf16(%a: memref<?x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<?x4096xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 4096, 4096>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<4096x4096xbf16> -> tensor<4096xf32>
  %t = arith.truncf %p : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %t, %c[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// SwiGLU, 512 x 14336 x 4096 (two products of x): block_n 128, so a stage is
// (64 + 2 * 128) * 128 = 40960 bytes as for one product of 256: 5 stages,
// 205904 bytes; 512 / 64 * 14336 / 128 = 8 * 112 = 896 tiles; three tensor
// maps, x in 64 x 64 boxes, the gate's and the up projection's w in
// 128 x 64 (halved to 64 x 64 in clusters).
// PP-LABEL: func.func @swiglu
//  PP-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 64 : i64, block_n = 128 : i64, cluster_m = 1 : i64, grid = 896 : i64, group_m = 32 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, pingpong = 1 : i64, shared_bytes = 205904 : i64, stages = 5 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 4 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  PP-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 512, 4096>}, {arg = 1 : i64, box = array<i64: 128, 64>, dims = array<i64: 14336, 4096>}, {arg = 2 : i64, box = array<i64: 128, 64>, dims = array<i64: 14336, 4096>}]}
// PPCL-LABEL: func.func @swiglu
//  PPCL-SAME:   block_m = 64 : i64, block_n = 128 : i64, cluster_m = 2 : i64, grid = 896 : i64, group_m = 32 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, pingpong = 1 : i64, shared_bytes = 205904 : i64, stages = 5 : i64, threads = 384 : i64
//  PPCL-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 512, 4096>}, {arg = 1 : i64, box = array<i64: 64, 64>, dims = array<i64: 14336, 4096>}, {arg = 2 : i64, box = array<i64: 64, 64>, dims = array<i64: 14336, 4096>}]}
// gemm-block-n=128 is the two-product default already: still 5 stages.
// BN128-LABEL: func.func @swiglu
//  BN128-SAME:   block_n = 128 : i64, cluster_m = 1 : i64, grid = 896 : i64, group_m = 32 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, pingpong = 1 : i64, shared_bytes = 205904 : i64, stages = 5 : i64
// STAGES4-LABEL: func.func @swiglu
//  STAGES4-SAME:   pingpong = 1 : i64, shared_bytes = 164928 : i64, stages = 4 : i64
// GROUP4-LABEL: func.func @swiglu
//  GROUP4-SAME:   group_m = 4 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, pingpong = 1 : i64
// OFF-LABEL: func.func @swiglu
//  OFF-SAME:   block_m = 128 : i64, block_n = 128 : i64, cluster_m = 1 : i64, grid = 448 : i64, group_m = 16 : i64
// NOTMA-LABEL: func.func @swiglu
//  NOTMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 128 : i64, cluster_m = 1 : i64, grid = 448 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
// SM80-LABEL: func.func @swiglu
//  SM80-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 64 : i64, grid = 896 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// SM80BM-LABEL: func.func @swiglu
//  SM80BM-SAME:   block_m = 128 : i64, block_n = 64 : i64
// BM128:      error: 'func.func' op bad wgmma GEMM schedule: ping-pong tiles have 64 rows, got 128
// BM128-NEXT: func.func @swiglu(
// BM128-OUT-NOT: func.func @swiglu
func.func @swiglu(%x: memref<?x4096xbf16>, %wg: memref<14336x4096xbf16>, %wu: memref<14336x4096xbf16>, %y: memref<?x14336xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 512, 14336>} {
  %r = tile.row_id
  %g = tile.matmul %x, %wg[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<14336x4096xbf16> -> tensor<14336xf32>
  %u = tile.matmul %x, %wu[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<14336x4096xbf16> -> tensor<14336xf32>
  %m = arith.mulf %g, %u : tensor<14336xf32>
  %t = arith.truncf %m : tensor<14336xf32> to tensor<14336xbf16>
  tile.store %t, %y[%r] : tensor<14336xbf16> -> memref<?x14336xbf16>
  return
}

// -----

// Decode (8 rows): the mma.sync 32-row tile with or without the option
// (wgmma needs more than 64 rows); gemm-group-m applies to it too.
// PP-LABEL: func.func @decode
//  PP-SAME:   tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 16 : i64, group_m = 8 : i64, shared_bytes = 98304 : i64, stages = 4 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
// GROUP4-LABEL: func.func @decode
//  GROUP4-SAME:   tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 16 : i64, group_m = 4 : i64,
// SM80-LABEL: func.func @decode
//  SM80-SAME:   tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 16 : i64, group_m = 8 : i64
// Not a wgmma kernel: no ping-pong error for it.
// BM128-OUT-LABEL: func.func @decode
//  BM128-OUT-SAME:   block_m = 128 : i64
func.func @decode(%a: memref<?x4096xbf16>, %b: memref<1024x4096xbf16>, %c: memref<?x1024xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 8, 1024>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<1024x4096xbf16> -> tensor<1024xf32>
  %t = arith.truncf %p : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %t, %c[%r] : tensor<1024xbf16> -> memref<?x1024xbf16>
  return
}

// -----

// K = 500 bf16: 1000-byte rows, not 16-byte aligned, so no tensor maps and
// no ping-pong: silently the 128-row cp.async schedule both warpgroups share
// (block_m 128, warps_m 8, 256 threads, 4 stages, 197632 bytes, group_m 16;
// 8 * 4 = 32 CTAs), no pingpong entry, no tile.tma.
// PP-LABEL: func.func @k_500
//  PP-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 32 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}}
//   PP-NOT:   tile.tma
// The default cluster (2) needs TMA too: cluster_m 1.
// PPCL-LABEL: func.func @k_500
//  PPCL-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 32 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}}
//   PPCL-NOT:   tile.tma
// gemm-stages=4 and gemm-group-m=4 still apply to the fallback.
// STAGES4-LABEL: func.func @k_500
//  STAGES4-SAME:   block_m = 128 : i64, {{.+}}, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64
//   STAGES4-NOT:   pingpong
// GROUP4-LABEL: func.func @k_500
//  GROUP4-SAME:   block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 32 : i64, group_m = 4 : i64
//   GROUP4-NOT:   pingpong
// NOTMA-LABEL: func.func @k_500
//  NOTMA-SAME:   block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 32 : i64, group_m = 16 : i64
// (With gemm-block-m=128 this kernel is not checked: the 64-row check comes
// before the TMA decision, so at present it is rejected as well although
// ping-pong would be dropped for it.)
func.func @k_500(%a: memref<?x500xbf16>, %b: memref<1024x500xbf16>, %c: memref<?x1024xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 1024, 1024>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x500xbf16>, memref<1024x500xbf16> -> tensor<1024xf32>
  %t = arith.truncf %p : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %t, %c[%r] : tensor<1024xbf16> -> memref<?x1024xbf16>
  return
}
