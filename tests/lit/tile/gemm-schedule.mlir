// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0" %s | FileCheck %s --implicit-check-not=tile.tma
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90 gemm-block-m=64 gemm-block-n=256 gemm-block-k=32 gemm-warps-m=2 gemm-warps-n=4 gemm-stages=3 max-registers=128" %s | FileCheck %s --check-prefix=OPTS
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 gemm-stages=2" %s | FileCheck %s --check-prefix=STAGES
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-tma=0 gemm-tma-store=0" %s | FileCheck %s --check-prefix=WGMMA --implicit-check-not=tile.tma
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-wgmma=0 gemm-tma-store=0" %s | FileCheck %s --check-prefix=NOWG --implicit-check-not=tile.tma
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-block-m=64 gemm-block-n=64 gemm-block-k=64 gemm-stages=3 gemm-cluster-m=1 gemm-tma-store=0" %s | FileCheck %s --check-prefix=WGOPTS
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-cluster-m=1 gemm-tma-store=0" %s | FileCheck %s --check-prefix=TMA
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-persistent=0 gemm-cluster-m=1 gemm-tma-store=0" %s | FileCheck %s --check-prefix=NOPERS
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-split-k=1 gemm-fill-sms=0 target=sm_90a gemm-cluster-m=2 gemm-tma-store=0" %s | FileCheck %s --check-prefix=CLUSTER

// GEMM kernels (tile.gemm) get a tensor-core schedule instead of a row
// schedule (ScheduleRowKernels.cpp, scheduleGemm). Every run here pins
// gemm-fill-sms=0, the tiles below; gemm-schedule-fill-sms.mlir checks how
// the default narrows few tiles and deepens one-wave pipelines:
//   16-bit operands: block 128 x 128 x 32, warps 2 x 2, 4 stages
//   f32 operands (FMA): block_k 16, 3 stages, warps 2 x 4
//   rows <= 64: block_m 64, warps 1 x 4
//   rows <= 32 (decode), 16-bit: block 32 x 64 x 128, warps 1 x 2, 4 stages
//   rows <= 32 (decode), f32:    block 32 x 64 x 32,  warps 1 x 2, 4 stages
//   two products of one lhs (SwiGLU), 16-bit, rows > 32: block_n 64
//   each gemm-* option, when set, replaces its value
//   threads      = warps_m * warps_n * 32
//   shared_bytes = stages * (block_m + products * block_n) * block_k * element bytes
//   grid         = ceil(rows / block_m) * ceil(N / block_n), group_m 8
// A batched rhs memref<BxKxN> (or BxNxK) splits the rows into B blocks
// tiled separately: `rows` above (and below, for wgmma) is the rows of one
// batch, rows / B, and grid = B * ceil(rows / B / block_m) * ceil(N / block_n).
// With target=sm_90a, 16-bit K-major operands (lhs [M, K], rhs [N, K]) and
// more than 64 rows take the wgmma schedule instead (unless gemm-wgmma=0):
//   block 128 x 256 x 64 (block_n 128 for two products), 4 stages, one
//   warpgroup (4 warps of 16 rows) per 64 rows: warps_m = block_m / 16,
//   warps_n 1, threads = block_m / 64 * 128, wgmma = 1
//   shared_bytes = stages * (block_m + products * block_n) * 64 * 2 + 1024
//   (the 1024: room to align the panels to the 128-byte swizzle atom)
// gemm-block-m, gemm-block-n and gemm-stages replace its values too
// (gemm-block-k may only repeat its 64). WGOPTS sets them for every kernel.
// By default (gemm-tma=1) a TMA producer warpgroup fills the wgmma panels
// when every operand row is 16-byte aligned (K % 8 == 0, and N % 8 == 0 for
// a [K, N] rhs: the tensor maps' strides must be):
//   tma = 1, persistent = 1 (gemm-persistent=0: 0), threads + 128 (384 for
//   the default tile), shared_bytes + stages * 16 (a full and an empty
//   mbarrier a stage: 197632 + 64 = 197696 for the default tile)
//   tile.tma on the kernel: one tensor map (arg, dims outer first, box) for
//   the lhs, [rows, K] in boxes of [block_m, 64], then one per product's
//   rhs, [N, K] in boxes of [block_n, 64] or [K, N] in boxes of [64, 64];
//   a batched operand gets its batch dim first (box 1), the lhs as
//   [B, rows / B, K]
// Two CTAs a cluster by default (gemm-cluster-m=2; the TMA, NOPERS and
// WGOPTS runs set 1 and check the single-CTA kernel, the CLUSTER run the
// default) where the kernel has more than block_m rows (a batch's rows when
// batched) and its B panel halves into boxes TMA can multicast: block_n / 2
// a multiple of 8 rows for an [N, K] rhs, an even number of 64-column blocks
// for a [K, N] rhs:
//   cluster_m = 2 (otherwise cluster_m = 1 on every wgmma schedule),
//   grid = B * ceil(rows / (2 * block_m)) * 2 * ceil(N / block_n) (whole
//   clusters: a cluster's second block row may lie past the rows),
//   the [N, K] rhs box [block_n / 2, 64] (each CTA copies half the panel);
//   [K, N] boxes stay [64, 64].
// Otherwise, and with gemm-tma=0 (the WGMMA run), the MMA warps fill the
// panels themselves (cp.async; element loads where rows are not 16-byte
// aligned): tma = 0, persistent = 0, no tile.tma.
// OPTS sets every block, warp and stage option (the shape rules no longer
// matter; its tiles keep even two f32 products under the 232448 bytes of
// shared memory a CTA may have); STAGES sets only the pipeline depth. The
// default target (sm_80) and NOWG never use wgmma (nor TMA). The wgmma
// checks accept an mma_pending = 1 entry (the default of a pipelining option
// in progress).

// A large bf16 GEMM: the default. 4 * (128 + 128) * 32 * 2 = 65536 bytes,
// 32 * 32 CTAs.
// CHECK-LABEL: func.func @large_bf16
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 1024 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
//   CHECK-NOT:   tile.max_registers
// 3 * (64 + 256) * 32 * 2 = 61440 bytes; 64 * 16 CTAs; 8 warps.
// OPTS-LABEL: func.func @large_bf16
//  OPTS-SAME:   tile.max_registers = 128 : i64, tile.schedule = {block_k = 32 : i64, block_m = 64 : i64, block_n = 256 : i64, grid = 1024 : i64, group_m = 8 : i64, shared_bytes = 61440 : i64, stages = 3 : i64, threads = 256 : i64, warps_m = 2 : i64, warps_n = 4 : i64}
// STAGES-LABEL: func.func @large_bf16
//  STAGES-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 1024 : i64, group_m = 8 : i64, shared_bytes = 32768 : i64, stages = 2 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// K-major bf16 on sm_90a: wgmma, two warpgroups of 64 rows (8 warps, 256
// threads), 4 * (128 + 256) * 64 * 2 + 1024 = 197632 bytes, 32 * 16 CTAs.
// WGMMA-LABEL: func.func @large_bf16
//  WGMMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 512 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
// With TMA (K = 4096): a producer warpgroup more (384 threads), 197632 + 4 *
// 16 = 197696 bytes; x [4096, 4096] in 128 x 64 boxes, w [N, K] = [4096,
// 4096] in 256 x 64 boxes.
// TMA-LABEL: func.func @large_bf16
//  TMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 512 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  TMA-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 4096, 4096>}, {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 4096, 4096>}]}
// By default a cluster of two CTAs on consecutive block rows: 4096 rows in
// 16 pairs of block rows, 2 * 16 * 16 = 512 CTAs as before; the w boxes
// halved to 128 x 64.
// CLUSTER-LABEL: func.func @large_bf16
//  CLUSTER-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 2 : i64, grid = 512 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  CLUSTER-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 4096, 4096>}, {arg = 1 : i64, box = array<i64: 128, 64>, dims = array<i64: 4096, 4096>}]}
// gemm-persistent=0: one CTA a tile, the rest as with TMA.
// NOPERS-LABEL: func.func @large_bf16
//  NOPERS-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 512 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  NOPERS-SAME:   tile.tma = [{arg = 0 : i64
// gemm-wgmma=0: the mma.sync default, as for sm_80.
// NOWG-LABEL: func.func @large_bf16
//  NOWG-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 1024 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// One warpgroup of 64 rows (128 threads) and the TMA producer (128 more),
// 3 * (64 + 64) * 64 * 2 + 1024 + 3 * 16 = 50224 bytes, 64 * 64 CTAs; the
// boxes follow block_m and block_n: 64 x 64 for both operands.
// WGOPTS-LABEL: func.func @large_bf16
//  WGOPTS-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 64 : i64, block_n = 64 : i64, cluster_m = 1 : i64, grid = 4096 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 50224 : i64, stages = 3 : i64, threads = 256 : i64, tma = 1 : i64, warps_m = 4 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  WGOPTS-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 4096, 4096>}, {arg = 1 : i64, box = array<i64: 64, 64>, dims = array<i64: 4096, 4096>}]}
func.func @large_bf16(%a: memref<?x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<?x4096xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 4096, 4096>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<4096x4096xbf16> -> tensor<4096xf32>
  %t = arith.truncf %p : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %t, %c[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// Rows flattened from a 3-D domain (4 * 32 = 128 rows): still the default
// tile; f16 is scheduled like bf16. N = 1000: ceil(1000 / 128) = 8 column
// blocks. The rhs is [K, N]: on sm_90a wgmma reads it MN-major (4 column blocks of 256).
// CHECK-LABEL: func.func @batched_rows_f16
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 8 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// WGMMA-LABEL: func.func @batched_rows_f16
//  WGMMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 4 : i64, group_m = 16 : i64, mma_pending = 1 : i64, persistent = 0 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
// With TMA, the lhs as [128 rows, K = 256]; the [K, N] rhs [256, 1000] (N % 8 ==
// 0) in 64 x 64 boxes (64 k rows of one 64-column block).
// TMA-LABEL: func.func @batched_rows_f16
//  TMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 4 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  TMA-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 128, 256>}, {arg = 1 : i64, box = array<i64: 64, 64>, dims = array<i64: 256, 1000>}]}
// 128 rows = block_m: no second block row to pair, cluster_m = 1 by default.
// CLUSTER-LABEL: func.func @batched_rows_f16
//  CLUSTER-SAME:   block_n = 256 : i64, cluster_m = 1 : i64, grid = 4 : i64
//  CLUSTER-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 128, 256>}, {arg = 1 : i64, box = array<i64: 64, 64>, dims = array<i64: 256, 1000>}]}
func.func @batched_rows_f16(%a: memref<?x256xf16>, %b: memref<256x1000xf16>, %c: memref<?x1000xf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 4, 32, 1000>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x256xf16>, memref<256x1000xf16> -> tensor<1000xf32>
  %t = arith.truncf %p : tensor<1000xf32> to tensor<1000xf16>
  tile.store %t, %c[%r] : tensor<1000xf16> -> memref<?x1000xf16>
  return
}

// -----

// A batched rhs [4, K, N]: 4 blocks of 130 rows. sm_80: 128 x 128 tiles,
// grid = 4 * ceil(130 / 128) * ceil(136 / 128) = 4 * 2 * 2 = 16. sm_90a:
// wgmma (130 rows per batch > 64, the [K, N] rhs read MN-major), 128 x 256
// tiles, grid = 4 * 2 * 1 = 8.
// CHECK-LABEL: func.func @batched_rhs
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 16 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// WGMMA-LABEL: func.func @batched_rhs
//  WGMMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 8 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
// With TMA (K = 72, N = 136: both multiples of 8): 3-D tensor maps, the batch
// first with box 1, so a tile never reads the next batch's rows: the lhs as
// [4, 130, 72] in 1 x 128 x 64 boxes, the rhs [4, 72, 136] in 1 x 64 x 64.
// TMA-LABEL: func.func @batched_rhs
//  TMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 8 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  TMA-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 1, 128, 64>, dims = array<i64: 4, 130, 72>}, {arg = 1 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 4, 72, 136>}]}
// By default a cluster: 130 rows a batch > 128, 256 / 64 = 4 column blocks
// (even); grid = 4 * ceil(130 / 256) * 2 * 1 = 8; the [K, N] boxes unchanged.
// CLUSTER-LABEL: func.func @batched_rhs
//  CLUSTER-SAME:   block_n = 256 : i64, cluster_m = 2 : i64, grid = 8 : i64
//  CLUSTER-SAME:   tma = 1 : i64
//  CLUSTER-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 1, 128, 64>, dims = array<i64: 4, 130, 72>}, {arg = 1 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 4, 72, 136>}]}
// With 64 x 64 tiles: grid = 4 * 3 * 3 = 36, boxes 1 x 64 x 64.
// WGOPTS-LABEL: func.func @batched_rhs
//  WGOPTS-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 64 : i64, block_n = 64 : i64, cluster_m = 1 : i64, grid = 36 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 50224 : i64, stages = 3 : i64, threads = 256 : i64, tma = 1 : i64, warps_m = 4 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  WGOPTS-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 4, 130, 72>}, {arg = 1 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 4, 72, 136>}]}
// NOWG-LABEL: func.func @batched_rhs
//  NOWG-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 16 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
func.func @batched_rhs(%a: memref<?x72xbf16>, %b: memref<4x72x136xbf16>, %c: memref<?x136xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 4, 130, 136>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x72xbf16>, memref<4x72x136xbf16> -> tensor<136xf32>
  %t = arith.truncf %p : tensor<136xf32> to tensor<136xbf16>
  tile.store %t, %c[%r] : tensor<136xbf16> -> memref<?x136xbf16>
  return
}

// -----

// 150 rows, but a batched rhs [3, K, N]: 50 rows per batch take the
// 64-row tile (a shared rhs would take 128-row tiles, as @batched_rows_f16
// does). On sm_90a wgmma from 33 rows a batch (gemm-wgmma-min-rows).
// 4 * (64 + 128) * 32 * 2 = 49152 bytes; grid = 3 * 1 * 1 = 3.
// CHECK-LABEL: func.func @batched_rows_50
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 64 : i64, block_n = 128 : i64, grid = 3 : i64, group_m = 8 : i64, shared_bytes = 49152 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 1 : i64, warps_n = 4 : i64}
// WGMMA-LABEL: func.func @batched_rows_50
//  WGMMA-SAME:   grid = 3 : i64, {{.*}} wgmma = 1 : i64}
func.func @batched_rows_50(%a: memref<?x64xbf16>, %b: memref<3x64x80xbf16>, %c: memref<?x80xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 3, 50, 80>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x64xbf16>, memref<3x64x80xbf16> -> tensor<80xf32>
  tile.store %p, %c[%r] : tensor<80xf32> -> memref<?x80xf32>
  return
}

// -----

// 8 batches of 16 rows ([B, N, K] rhs): the decode tile 32 x 64 x 128,
// 4 * (32 + 64) * 128 * 2 = 98304 bytes; grid = 8 * 1 * ceil(256 / 64) = 32.
// CHECK-LABEL: func.func @batched_decode
//  CHECK-SAME:   tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 32 : i64, group_m = 8 : i64, shared_bytes = 98304 : i64, stages = 4 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
func.func @batched_decode(%a: memref<?x128xbf16>, %b: memref<8x256x128xbf16>, %c: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 8, 16, 256>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x128xbf16>, memref<8x256x128xbf16> -> tensor<256xf32>
  tile.store %p, %c[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}

// -----

// 64 rows: 64-row CTA tiles of four 64 x 32 warp tiles.
// 4 * (64 + 128) * 32 * 2 = 49152 bytes.
// CHECK-LABEL: func.func @rows_64
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 64 : i64, block_n = 128 : i64, grid = 2 : i64, group_m = 8 : i64, shared_bytes = 49152 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 1 : i64, warps_n = 4 : i64}
func.func @rows_64(%a: memref<?x128xbf16>, %b: memref<128x256xbf16>, %c: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 256>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x128xbf16>, memref<128x256xbf16> -> tensor<256xf32>
  %t = arith.truncf %p : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %c[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}

// -----

// K-major with 64 rows: the 64-row mma.sync tile before sm_90a; wgmma
// there (from 33 rows).
// CHECK-LABEL: func.func @kmajor_64
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 64 : i64, block_n = 128 : i64, grid = 2 : i64, group_m = 8 : i64, shared_bytes = 49152 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 1 : i64, warps_n = 4 : i64}
// WGMMA-LABEL: func.func @kmajor_64
//  WGMMA-SAME:   grid = 1 : i64, {{.*}} wgmma = 1 : i64}
func.func @kmajor_64(%a: memref<?x128xbf16>, %b: memref<256x128xbf16>, %c: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 256>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x128xbf16>, memref<256x128xbf16> -> tensor<256xf32>
  %t = arith.truncf %p : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %c[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}

// -----

// 65 rows (f16, K-major): wgmma on sm_90a, ceil(65 / 128) * ceil(300 / 256)
// = 2 CTAs; on sm_80 (and with gemm-wgmma=0) the default tile (65 > 64
// rows), 1 * 3 CTAs.
// CHECK-LABEL: func.func @kmajor_65
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 3 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// WGMMA-LABEL: func.func @kmajor_65
//  WGMMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 2 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
// With TMA, the lhs [M, K] = [65, 128] (its box of 128 rows reaches past M: the
// copy fills those rows with zeros), the rhs [N, K] = [300, 128].
// TMA-LABEL: func.func @kmajor_65
//  TMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 2 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  TMA-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 65, 128>}, {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 300, 128>}]}
// NOWG-LABEL: func.func @kmajor_65
//  NOWG-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 3 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// CLUSTER-LABEL: func.func @kmajor_65
//  CLUSTER-SAME:   block_n = 256 : i64, cluster_m = 1 : i64, grid = 2 : i64
//  CLUSTER-SAME:   box = array<i64: 256, 64>, dims = array<i64: 300, 128>
func.func @kmajor_65(%a: memref<?x128xf16>, %b: memref<300x128xf16>, %c: memref<?x300xf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 65, 300>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x128xf16>, memref<300x128xf16> -> tensor<300xf32>
  %t = arith.truncf %p : tensor<300xf32> to tensor<300xf16>
  tile.store %t, %c[%r] : tensor<300xf16> -> memref<?x300xf16>
  return
}

// -----

// A batched [B, N, K] rhs with 96 rows a batch: wgmma on sm_90a, grid = 2 *
// ceil(96 / 128) * ceil(320 / 256) = 4 (sm_80: 2 * 1 * 3 = 6). With TMA
// (K = 136) the lhs is [2, 96, 136] in 1 x 128 x 64 boxes, the rhs [2, 320,
// 136] in 1 x 256 x 64 boxes (block_n rows of 64 k).
// CHECK-LABEL: func.func @batched_nk
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 6 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// WGMMA-LABEL: func.func @batched_nk
//  WGMMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 4 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
// TMA-LABEL: func.func @batched_nk
//  TMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 4 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  TMA-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 1, 128, 64>, dims = array<i64: 2, 96, 136>}, {arg = 1 : i64, box = array<i64: 1, 256, 64>, dims = array<i64: 2, 320, 136>}]}
// 64 x 64 tiles: grid = 2 * 2 * 5 = 20, both boxes 1 x 64 x 64.
// WGOPTS-LABEL: func.func @batched_nk
//  WGOPTS-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 64 : i64, block_n = 64 : i64, cluster_m = 1 : i64, grid = 20 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 50224 : i64, stages = 3 : i64, threads = 256 : i64, tma = 1 : i64, warps_m = 4 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  WGOPTS-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 2, 96, 136>}, {arg = 1 : i64, box = array<i64: 1, 64, 64>, dims = array<i64: 2, 320, 136>}]}
// 96 rows a batch: one block row, cluster_m = 1, the [N, K] box whole.
// CLUSTER-LABEL: func.func @batched_nk
//  CLUSTER-SAME:   block_n = 256 : i64, cluster_m = 1 : i64, grid = 4 : i64
//  CLUSTER-SAME:   {arg = 1 : i64, box = array<i64: 1, 256, 64>, dims = array<i64: 2, 320, 136>}
func.func @batched_nk(%a: memref<?x136xbf16>, %b: memref<2x320x136xbf16>, %c: memref<?x320xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 2, 96, 320>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x136xbf16>, memref<2x320x136xbf16> -> tensor<320xf32>
  %t = arith.truncf %p : tensor<320xf32> to tensor<320xbf16>
  tile.store %t, %c[%r] : tensor<320xbf16> -> memref<?x320xbf16>
  return
}

// -----

// K = 63: the rows of x and w are 126 bytes, not a multiple of 16, so no
// tensor map can describe them: wgmma without TMA (tma = 0, persistent = 0,
// 256 threads, no tile.tma) even by default, and with the WGOPTS tile (128
// threads, 50176 bytes). Rows of an odd number of 16-bit elements are
// copied element by element, so the default tile is 128 x 128 (256 columns
// spill): 4 * (128 + 128) * 64 * 2 + 1024 = 132096 bytes, 2 CTAs.
// WGMMA-LABEL: func.func @k_63
//  WGMMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 128 : i64, cluster_m = 1 : i64, grid = 2 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 132096 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}}
// TMA-LABEL: func.func @k_63
//  TMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 128 : i64, cluster_m = 1 : i64, grid = 2 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 132096 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}}
//   TMA-NOT:   tile.tma
// WGOPTS-LABEL: func.func @k_63
//  WGOPTS-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 64 : i64, block_n = 64 : i64, cluster_m = 1 : i64, grid = 8 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 50176 : i64, stages = 3 : i64, threads = 128 : i64, tma = 0 : i64, warps_m = 4 : i64, warps_n = 1 : i64, wgmma = 1 : i64}}
//   WGOPTS-NOT:   tile.tma
// No TMA (K = 63), no cluster.
// CLUSTER-LABEL: func.func @k_63
//  CLUSTER-SAME:   cluster_m = 1 : i64, grid = 2 : i64
//  CLUSTER-SAME:   tma = 0 : i64
func.func @k_63(%a: memref<?x63xbf16>, %b: memref<256x63xbf16>, %c: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 256>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x63xbf16>, memref<256x63xbf16> -> tensor<256xf32>
  %t = arith.truncf %p : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %c[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}

// -----

// A [K, N] rhs with N = 100: K = 64 is aligned, but the rhs rows are 200
// bytes, so no TMA either.
// TMA-LABEL: func.func @kn_n_100
//  TMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 1 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}}
//   TMA-NOT:   tile.tma
func.func @kn_n_100(%a: memref<?x64xbf16>, %b: memref<64x100xbf16>, %c: memref<?x100xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 128, 100>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x64xbf16>, memref<64x100xbf16> -> tensor<100xf32>
  tile.store %p, %c[%r] : tensor<100xf32> -> memref<?x100xf32>
  return
}

// -----

// Decode (8 rows <= 32): block 32 x 64 x 128, warps 1 x 2 (32 x 32 warp
// tiles), 4 stages. 4 * (32 + 64) * 128 * 2 = 98304 bytes; 1 * 16 CTAs.
// CHECK-LABEL: func.func @decode
//  CHECK-SAME:   tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 16 : i64, group_m = 8 : i64, shared_bytes = 98304 : i64, stages = 4 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
// OPTS-LABEL: func.func @decode
//  OPTS-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 64 : i64, block_n = 256 : i64, grid = 4 : i64, group_m = 8 : i64, shared_bytes = 61440 : i64, stages = 3 : i64, threads = 256 : i64, warps_m = 2 : i64, warps_n = 4 : i64}
// STAGES-LABEL: func.func @decode
//  STAGES-SAME:   tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 16 : i64, group_m = 8 : i64, shared_bytes = 49152 : i64, stages = 2 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
func.func @decode(%a: memref<?x4096xbf16>, %b: memref<4096x1024xbf16>, %c: memref<?x1024xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 8, 1024>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x4096xbf16>, memref<4096x1024xbf16> -> tensor<1024xf32>
  %t = arith.truncf %p : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %t, %c[%r] : tensor<1024xbf16> -> memref<?x1024xbf16>
  return
}

// -----

// 32 rows is still decode; 33 is not (the 64-row tile; on sm_90a wgmma
// from 33 rows, gemm-wgmma-min-rows).
// WGOPTS-LABEL: func.func @rows_32
//   WGOPTS-NOT:   wgmma
// CHECK-LABEL: func.func @rows_32
//  CHECK-SAME:   tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 8 : i64, group_m = 8 : i64, shared_bytes = 98304 : i64, stages = 4 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
func.func @rows_32(%a: memref<?x256xbf16>, %b: memref<512x256xbf16>, %c: memref<?x512xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 32, 512>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x256xbf16>, memref<512x256xbf16> -> tensor<512xf32>
  %t = arith.truncf %p : tensor<512xf32> to tensor<512xbf16>
  tile.store %t, %c[%r] : tensor<512xbf16> -> memref<?x512xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @rows_33
// WGOPTS-LABEL: func.func @rows_33
//  WGOPTS-SAME:   block_m = 64 : i64, {{.*}} wgmma = 1 : i64
// TMA-LABEL: func.func @rows_33
//  TMA-SAME:   block_m = 64 : i64, {{.*}} tma = 1 : i64, {{.*}} wgmma = 1 : i64
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 64 : i64, block_n = 128 : i64, grid = 4 : i64, group_m = 8 : i64, shared_bytes = 49152 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 1 : i64, warps_n = 4 : i64}
func.func @rows_33(%a: memref<?x256xbf16>, %b: memref<512x256xbf16>, %c: memref<?x512xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 33, 512>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x256xbf16>, memref<512x256xbf16> -> tensor<512xf32>
  %t = arith.truncf %p : tensor<512xf32> to tensor<512xbf16>
  tile.store %t, %c[%r] : tensor<512xbf16> -> memref<?x512xbf16>
  return
}

// -----

// f32 operands (FMAs): block_k 16, 3 stages, warps 2 x 4 (64 x 32 warp
// tiles). 3 * (128 + 128) * 16 * 4 = 49152 bytes; ceil(300 / 128) = 3 row
// blocks * 8 column blocks. K-major f32 stays on FMAs on sm_90a.
// CHECK-LABEL: func.func @f32
//  CHECK-SAME:   tile.schedule = {block_k = 16 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 24 : i64, group_m = 8 : i64, shared_bytes = 49152 : i64, stages = 3 : i64, threads = 256 : i64, warps_m = 2 : i64, warps_n = 4 : i64}
// With OPTS, 3 * (64 + 256) * 32 * 4 = 122880 bytes, 5 * 4 CTAs.
// OPTS-LABEL: func.func @f32
//  OPTS-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 64 : i64, block_n = 256 : i64, grid = 20 : i64, group_m = 8 : i64, shared_bytes = 122880 : i64, stages = 3 : i64, threads = 256 : i64, warps_m = 2 : i64, warps_n = 4 : i64}
// STAGES-LABEL: func.func @f32
//  STAGES-SAME:   tile.schedule = {block_k = 16 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 24 : i64, group_m = 8 : i64, shared_bytes = 32768 : i64, stages = 2 : i64, threads = 256 : i64, warps_m = 2 : i64, warps_n = 4 : i64}
// WGMMA-LABEL: func.func @f32
//  WGMMA-SAME:   tile.schedule = {block_k = 16 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 24 : i64, group_m = 8 : i64, shared_bytes = 49152 : i64, stages = 3 : i64, threads = 256 : i64, warps_m = 2 : i64, warps_n = 4 : i64}
func.func @f32(%a: memref<?x512xf32>, %b: memref<1000x512xf32>, %c: memref<?x1000xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 300, 1000>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x512xf32>, memref<1000x512xf32> -> tensor<1000xf32>
  tile.store %p, %c[%r] : tensor<1000xf32> -> memref<?x1000xf32>
  return
}

// -----

// f32 decode: block 32 x 64 x 32, warps 1 x 2, 4 stages.
// 4 * (32 + 64) * 32 * 4 = 49152 bytes; 512 / 64 = 8 CTAs.
// CHECK-LABEL: func.func @f32_decode
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 8 : i64, group_m = 8 : i64, shared_bytes = 49152 : i64, stages = 4 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
// STAGES-LABEL: func.func @f32_decode
//  STAGES-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 8 : i64, group_m = 8 : i64, shared_bytes = 24576 : i64, stages = 2 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
func.func @f32_decode(%a: memref<?x512xf32>, %b: memref<512x512xf32>, %c: memref<?x512xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 16, 512>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x512xf32>, memref<512x512xf32> -> tensor<512xf32>
  tile.store %p, %c[%r] : tensor<512xf32> -> memref<?x512xf32>
  return
}

// -----

// A transposed lhs (memref<KxM>): the element size comes from it too. wgmma
// reads it MN-major through TMA copies only: with TMA it gets the wgmma
// schedule and a [K, M] map of 64 x 64 boxes (block_m / 64 copies a
// stage); without TMA (gemm-tma=0) the mma.sync one.
// TMA-LABEL: func.func @trans_a
//  TMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 256 : i64, cluster_m = 1 : i64, grid = 1 : i64, group_m = 16 : i64, mma_pending = 1 : i64, persistent = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  TMA-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 64, 96>}, {arg = 1 : i64, box = array<i64: 256, 64>, dims = array<i64: 128, 64>}]}
// WGOPTS-LABEL: func.func @trans_a
//  WGOPTS-SAME:   block_m = 64 : i64, block_n = 64 : i64, {{.*}} tma = 1 : i64, {{.*}} wgmma = 1 : i64}
//  WGOPTS-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 64, 96>}, {arg = 1 : i64, box = array<i64: 64, 64>, dims = array<i64: 128, 64>}]}
// CHECK-LABEL: func.func @trans_a
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 1 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// WGMMA-LABEL: func.func @trans_a
//  WGMMA-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 1 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
func.func @trans_a(%a: memref<64x96xbf16>, %b: memref<128x64xbf16>, %c: memref<?x128xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 96, 128>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_a = true, transpose_b = true} : memref<64x96xbf16>, memref<128x64xbf16> -> tensor<128xf32>
  %t = arith.truncf %p : tensor<128xf32> to tensor<128xbf16>
  tile.store %t, %c[%r] : tensor<128xbf16> -> memref<?x128xbf16>
  return
}

// -----

// SwiGLU (two products of one lhs, K-major bf16), 512 rows: block_n 64 keeps
// 2 x 64 accumulators a thread; 4 * (128 * 32 + 2 * 32 * 64) * 2 = 65536
// bytes; 4 * 224 CTAs.
// CHECK-LABEL: func.func @swiglu
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 64 : i64, grid = 896 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// gemm-block-n replaces the two-product block_n too:
// 3 * (64 * 32 + 2 * 32 * 256) * 2 = 110592 bytes.
// OPTS-LABEL: func.func @swiglu
//  OPTS-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 64 : i64, block_n = 256 : i64, grid = 448 : i64, group_m = 8 : i64, shared_bytes = 110592 : i64, stages = 3 : i64, threads = 256 : i64, warps_m = 2 : i64, warps_n = 4 : i64}
// wgmma: block_n 128 (2 x 64 accumulators a thread),
// 4 * (128 + 2 * 128) * 64 * 2 + 1024 = 197632 bytes; 4 * 112 CTAs.
// WGMMA-LABEL: func.func @swiglu
//  WGMMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 128 : i64, cluster_m = 1 : i64, grid = 448 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 0 : i64, shared_bytes = 197632 : i64, stages = 4 : i64, threads = 256 : i64, tma = 0 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
// NOWG-LABEL: func.func @swiglu
//  NOWG-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 64 : i64, grid = 896 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// With TMA, 197632 + 64 = 197696 bytes, 384 threads; three tensor maps, x
// [512, 4096] in 128 x 64 boxes, then the gate's and the up projection's
// [14336, 4096] in boxes of block_n = 128 rows.
// TMA-LABEL: func.func @swiglu
//  TMA-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 128 : i64, cluster_m = 1 : i64, grid = 448 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 197696 : i64, stages = 4 : i64, threads = 384 : i64, tma = 1 : i64, warps_m = 8 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  TMA-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 512, 4096>}, {arg = 1 : i64, box = array<i64: 128, 64>, dims = array<i64: 14336, 4096>}, {arg = 2 : i64, box = array<i64: 128, 64>, dims = array<i64: 14336, 4096>}]}
// 3 * (64 + 2 * 64) * 64 * 2 + 1024 + 3 * 16 = 74800 bytes, 8 * 224 CTAs,
// 64 x 64 boxes.
// WGOPTS-LABEL: func.func @swiglu
//  WGOPTS-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 64 : i64, block_n = 64 : i64, cluster_m = 1 : i64, grid = 1792 : i64, group_m = 16 : i64, {{(mma_pending = 1 : i64, )?}}persistent = 1 : i64, shared_bytes = 74800 : i64, stages = 3 : i64, threads = 256 : i64, tma = 1 : i64, warps_m = 4 : i64, warps_n = 1 : i64, wgmma = 1 : i64}
//  WGOPTS-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 64, 64>, dims = array<i64: 512, 4096>}, {arg = 1 : i64, box = array<i64: 64, 64>, dims = array<i64: 14336, 4096>}, {arg = 2 : i64, box = array<i64: 64, 64>, dims = array<i64: 14336, 4096>}]}
// By default: 512 rows in 2 pairs of block rows, 2 * 2 * 112 = 448 CTAs;
// both w boxes halved to 64 x 64.
// CLUSTER-LABEL: func.func @swiglu(
//  CLUSTER-SAME:   block_n = 128 : i64, cluster_m = 2 : i64, grid = 448 : i64
//  CLUSTER-SAME:   tile.tma = [{arg = 0 : i64, box = array<i64: 128, 64>, dims = array<i64: 512, 4096>}, {arg = 1 : i64, box = array<i64: 64, 64>, dims = array<i64: 14336, 4096>}, {arg = 2 : i64, box = array<i64: 64, 64>, dims = array<i64: 14336, 4096>}]}
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

// SwiGLU decode (16 rows): the decode tile (already 64 columns), two B
// panels: 4 * (32 * 128 + 2 * 128 * 64) * 2 = 163840 bytes; 224 CTAs. Not
// wgmma (<= 64 rows).
// CHECK-LABEL: func.func @swiglu_decode
//  CHECK-SAME:   tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 224 : i64, group_m = 8 : i64, shared_bytes = 163840 : i64, stages = 4 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
// WGMMA-LABEL: func.func @swiglu_decode
//  WGMMA-SAME:   tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 224 : i64, group_m = 8 : i64, shared_bytes = 163840 : i64, stages = 4 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
// STAGES-LABEL: func.func @swiglu_decode
//  STAGES-SAME:   tile.schedule = {block_k = 128 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 224 : i64, group_m = 8 : i64, shared_bytes = 81920 : i64, stages = 2 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
func.func @swiglu_decode(%x: memref<?x4096xbf16>, %wg: memref<14336x4096xbf16>, %wu: memref<14336x4096xbf16>, %y: memref<?x14336xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 16, 14336>} {
  %r = tile.row_id
  %g = tile.matmul %x, %wg[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<14336x4096xbf16> -> tensor<14336xf32>
  %u = tile.matmul %x, %wu[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<14336x4096xbf16> -> tensor<14336xf32>
  %m = arith.mulf %g, %u : tensor<14336xf32>
  %t = arith.truncf %m : tensor<14336xf32> to tensor<14336xbf16>
  tile.store %t, %y[%r] : tensor<14336xbf16> -> memref<?x14336xbf16>
  return
}

// -----

// Two products on 64 rows, rhs [K, N]: the 64-row tile with block_n 64
// (four 64 x 16 warp tiles); 4 * (64 * 32 + 2 * 32 * 64) * 2 = 49152 bytes.
// CHECK-LABEL: func.func @swiglu_rows_64
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 64 : i64, block_n = 64 : i64, grid = 4 : i64, group_m = 8 : i64, shared_bytes = 49152 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 1 : i64, warps_n = 4 : i64}
func.func @swiglu_rows_64(%x: memref<?x128xbf16>, %wg: memref<128x256xbf16>, %wu: memref<128x256xbf16>, %y: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 64, 256>} {
  %r = tile.row_id
  %g = tile.matmul %x, %wg[%r] : memref<?x128xbf16>, memref<128x256xbf16> -> tensor<256xf32>
  %u = tile.matmul %x, %wu[%r] : memref<?x128xbf16>, memref<128x256xbf16> -> tensor<256xf32>
  %m = arith.mulf %g, %u : tensor<256xf32>
  %t = arith.truncf %m : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %y[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}

// -----

// Two f32 products keep the f32 tile (block_n 128); the second B panel adds
// to the shared memory: 3 * (128 * 16 + 2 * 16 * 128) * 4 = 73728 bytes. In
// decode, 4 * (32 * 32 + 2 * 32 * 64) * 4 = 81920 bytes.
// CHECK-LABEL: func.func @swiglu_f32
//  CHECK-SAME:   tile.schedule = {block_k = 16 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 12 : i64, group_m = 8 : i64, shared_bytes = 73728 : i64, stages = 3 : i64, threads = 256 : i64, warps_m = 2 : i64, warps_n = 4 : i64}
func.func @swiglu_f32(%x: memref<?x256xf32>, %wg: memref<512x256xf32>, %wu: memref<512x256xf32>, %y: memref<?x512xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 300, 512>} {
  %r = tile.row_id
  %g = tile.matmul %x, %wg[%r] {transpose_b = true} : memref<?x256xf32>, memref<512x256xf32> -> tensor<512xf32>
  %u = tile.matmul %x, %wu[%r] {transpose_b = true} : memref<?x256xf32>, memref<512x256xf32> -> tensor<512xf32>
  %m = arith.mulf %g, %u : tensor<512xf32>
  tile.store %m, %y[%r] : tensor<512xf32> -> memref<?x512xf32>
  return
}

// -----

// CHECK-LABEL: func.func @swiglu_f32_decode
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 32 : i64, block_n = 64 : i64, grid = 8 : i64, group_m = 8 : i64, shared_bytes = 81920 : i64, stages = 4 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
func.func @swiglu_f32_decode(%x: memref<?x256xf32>, %wg: memref<512x256xf32>, %wu: memref<512x256xf32>, %y: memref<?x512xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 8, 512>} {
  %r = tile.row_id
  %g = tile.matmul %x, %wg[%r] {transpose_b = true} : memref<?x256xf32>, memref<512x256xf32> -> tensor<512xf32>
  %u = tile.matmul %x, %wu[%r] {transpose_b = true} : memref<?x256xf32>, memref<512x256xf32> -> tensor<512xf32>
  %m = arith.mulf %g, %u : tensor<512xf32>
  tile.store %m, %y[%r] : tensor<512xf32> -> memref<?x512xf32>
  return
}

// -----

// Row kernels beside a GEMM keep their row schedule; the gemm-* options do
// not touch them.
// CHECK-LABEL: func.func @row_kernel
//  CHECK-SAME:   tile.schedule = {chunks = {{[0-9]+}} : i64, col_blocks = {{[0-9]+}} : i64, rows_per_block = {{[0-9]+}} : i64, stream_blocks = 0 : i64, threads_per_row = {{[0-9]+}} : i64, vector_width = 4 : i64}
// OPTS-LABEL: func.func @row_kernel
//  OPTS-SAME:   tile.schedule = {chunks = {{[0-9]+}} : i64, col_blocks = {{[0-9]+}} : i64, rows_per_block = {{[0-9]+}} : i64, stream_blocks = 0 : i64, threads_per_row = {{[0-9]+}} : i64, vector_width = 4 : i64}
func.func @row_kernel(%in: memref<?x64xf32>, %out: memref<?x64xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x64xf32> -> tensor<64xf32>
  %e = math.exp %t : tensor<64xf32>
  tile.store %e, %out[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}
