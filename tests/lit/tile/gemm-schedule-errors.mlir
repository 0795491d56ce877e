// RUN: tilec-opt --split-input-file --verify-diagnostics --tilec-schedule-row-kernels="gemm-warps-m=3" %s
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-block-k=24" %s 2>&1 | FileCheck %s --check-prefix=BK24
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-block-k=8" %s 2>&1 | FileCheck %s --check-prefix=BK8
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-stages=1" %s 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-warps-m=8 gemm-warps-n=8" %s 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-block-n=96 gemm-warps-n=4" %s 2>&1 | FileCheck %s --check-prefix=WARPN
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-block-m=16 gemm-warps-m=1 gemm-warps-n=4" %s 2>&1 | FileCheck %s --check-prefix=PANEL
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-block-m=16 gemm-warps-m=1" %s | FileCheck %s --check-prefix=SMALL
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90 gemm-block-k=64 gemm-stages=8" %s 2> %t.smem | FileCheck %s --check-prefix=SMEM-OUT
// RUN: FileCheck %s --check-prefix=SMEM < %t.smem
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90 gemm-block-k=64 gemm-stages=7" %s | FileCheck %s --check-prefix=SMEM7
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90 gemm-stages=6 gemm-block-k=128" %s 2>&1 | FileCheck %s --check-prefix=SMEM2
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-tma=0 gemm-stages=5 gemm-tma-store=0 gemm-fill-sms=0" %s 2>&1 | FileCheck %s --check-prefix=WGSMEM
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-tma=0 gemm-block-n=256 gemm-tma-store=0" %s 2>&1 | FileCheck %s --check-prefix=WGSMEM2
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-stages=5 gemm-tma-store=0 gemm-fill-sms=0" %s 2>&1 | FileCheck %s --check-prefix=TMASMEM
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-block-n=256 gemm-tma-store=0" %s 2>&1 | FileCheck %s --check-prefix=TMASMEM2
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-block-m=96 gemm-tma-store=0" %s 2>&1 | FileCheck %s --check-prefix=WGBM
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-block-k=32 gemm-tma-store=0" %s 2>&1 | FileCheck %s --check-prefix=WGBK
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-mma-pending=3 gemm-tma-store=0" %s 2>&1 | FileCheck %s --check-prefix=MP3
// RUN: not tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-cluster-m=3 gemm-tma-store=0" %s 2>&1 | FileCheck %s --check-prefix=CLUSTER3
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-cluster-m=1 gemm-tma-store=0" %s | FileCheck %s --check-prefix=CLUSTER1

// GEMM schedule options that the tensor-core kernel cannot run are errors
// on the kernel, naming the whole schedule:
//   warps_m = 3 does not divide block_m = 128 or 32 (verify-diagnostics run);
//   block_k 24 and 8 are not multiples of 16 (the mma k step);
//   one stage cannot overlap copies with compute;
//   8 x 8 warps are 2048 threads (> 1024);
//   block_n 96 over 4 warps: 24-column warp tiles (not a multiple of 16);
//   block_m 16 x block_k 32 is 64 16-byte copies, not a multiple of the 128
//   threads of 1 x 4 warps.
// With 1 x 2 warps (64 threads) the same 16-row tile is valid.
// So is a schedule whose panels need more shared memory than a CTA may have
// (232448 bytes, sm_90's opt-in maximum): stages * (block_m * block_k +
// products * block_k * block_n) * element bytes for mma.sync, stages *
// (block_m + products * block_n) * 64 * 2 + 1024 for wgmma with its panels
// filled by cp.async (gemm-tma=0; the WGSMEM runs), plus stages * 16 for the
// full and empty mbarrier of each stage when TMA fills them (the sm_90a
// default for these 16-byte aligned rows; the TMASMEM runs).

// expected-error @+1 {{'func.func' op bad GEMM schedule: block 128x128x32, warps 3x2, stages 4 (need >= 2 stages, <= 1024 threads, warp tiles multiples of 16x16, block_k a multiple of 16, and each panel a multiple of 16 bytes per thread)}}
func.func @large_bf16(%a: memref<?x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<?x4096xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 4096, 4096>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<4096x4096xbf16> -> tensor<4096xf32>
  %t = arith.truncf %p : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %t, %c[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// SwiGLU decode: two products of one lhs, 16 rows (the 32 x 64 x 128 decode
// tile, 1 x 2 warps).
// expected-error @+1 {{'func.func' op bad GEMM schedule: block 32x64x128, warps 3x2, stages 4 (}}
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

// SwiGLU, 512 rows, K-major: block 128 x 64 x 32 on mma.sync, 128 x 128 x
// 64 on wgmma.
// expected-error @+1 {{'func.func' op bad GEMM schedule: block 128x64x32, warps 3x2, stages 4 (}}
func.func @swiglu(%x: memref<?x4096xbf16>, %wg: memref<14336x4096xbf16>, %wu: memref<14336x4096xbf16>, %y: memref<?x14336xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 512, 14336>} {
  %r = tile.row_id
  %g = tile.matmul %x, %wg[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<14336x4096xbf16> -> tensor<14336xf32>
  %u = tile.matmul %x, %wu[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<14336x4096xbf16> -> tensor<14336xf32>
  %m = arith.mulf %g, %u : tensor<14336xf32>
  %t = arith.truncf %m : tensor<14336xf32> to tensor<14336xbf16>
  tile.store %t, %y[%r] : tensor<14336xbf16> -> memref<?x14336xbf16>
  return
}

// BK24: error: 'func.func' op bad GEMM schedule: block 128x128x24, warps 2x2, stages 4 (
// BK8: error: 'func.func' op bad GEMM schedule: block 128x128x8, warps 2x2, stages 4 (
// STAGES: error: 'func.func' op bad GEMM schedule: block 128x128x32, warps 2x2, stages 1 (
// THREADS: error: 'func.func' op bad GEMM schedule: block 128x128x32, warps 8x8, stages 4 (
// WARPN: error: 'func.func' op bad GEMM schedule: block 128x96x32, warps 2x4, stages 4 (
// PANEL: error: 'func.func' op bad GEMM schedule: block 16x128x32, warps 1x4, stages 4 (
// SMALL-LABEL: func.func @large_bf16
//  SMALL-SAME: tile.schedule = {block_k = 32 : i64, block_m = 16 : i64, block_n = 128 : i64, grid = 8192 : i64, group_m = 8 : i64, shared_bytes = 36864 : i64, stages = 4 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}

// 8 stages of 128 x 64 and 64 x 128 bf16 panels: 8 * 32768 = 262144 bytes;
// with two B panels, 8 * (128 * 64 + 2 * 64 * 64) * 2 = 262144 as well. The
// decode tile fits: 8 * (32 * 64 + 2 * 64 * 64) * 2 = 163840 bytes.
// SMEM: error: 'func.func' op bad GEMM schedule: 8 stages of 128x64 and 1 x 64x128 panels need 262144 bytes of shared memory, more than the 232448 a CTA may have on sm_90
// SMEM-NOT: bytes of shared memory
// SMEM: error: 'func.func' op bad GEMM schedule: 8 stages of 128x64 and 2 x 64x64 panels need 262144 bytes of shared memory, more than the 232448 a CTA may have on sm_90
// SMEM-NOT: bytes of shared memory
// SMEM-OUT-NOT: func.func @large_bf16
// SMEM-OUT: func.func @swiglu_decode
// SMEM-OUT-SAME: shared_bytes = 163840 : i64, stages = 8 : i64
// SMEM-OUT-NOT: func.func @swiglu(
// Seven stages fit: 7 * 32768 = 229376 bytes.
// SMEM7-LABEL: func.func @large_bf16
//  SMEM7-SAME: tile.schedule = {block_k = 64 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 1024 : i64, group_m = 8 : i64, shared_bytes = 229376 : i64, stages = 7 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
// Six decode stages of 128-deep k steps (given, so not shrunk): with one B panel the decode tile would
// fit (6 * (32 * 128 + 128 * 64) * 2 = 147456 bytes), with two it does not.
// SMEM2: error: 'func.func' op bad GEMM schedule: 6 stages of 128x128 and 1 x 128x128 panels need 393216 bytes
// SMEM2: error: 'func.func' op bad GEMM schedule: 6 stages of 32x128 and 2 x 128x64 panels need 245760 bytes of shared memory, more than the 232448 a CTA may have on sm_90
// wgmma with cp.async (gemm-fill-sms=0: two products of 512 rows would take
// 112 columns a product by the waves rule, and fit): 5 * (128 + 256) * 128
// + 1024 = 246784 bytes for one
// product of 256 columns or two of 128.
// WGSMEM: error: 'func.func' op bad wgmma GEMM schedule: 5 stages of 128 + 1 x 256 rows need 246784 bytes of shared memory, more than the 232448 a CTA may have on sm_90a
// WGSMEM-NOT: bytes of shared memory
// WGSMEM: error: 'func.func' op bad wgmma GEMM schedule: 5 stages of 128 + 2 x 128 rows need 246784 bytes of shared memory, more than the 232448 a CTA may have on sm_90a
// With TMA, 5 * 16 = 80 bytes of mbarriers more: 246864 bytes.
// TMASMEM: error: 'func.func' op bad wgmma GEMM schedule: 5 stages of 128 + 1 x 256 rows need 246864 bytes of shared memory, more than the 232448 a CTA may have on sm_90a
// TMASMEM-NOT: bytes of shared memory
// TMASMEM: error: 'func.func' op bad wgmma GEMM schedule: 5 stages of 128 + 2 x 128 rows need 246864 bytes of shared memory, more than the 232448 a CTA may have on sm_90a
// TMASMEM-NOT: bytes of shared memory
// block_n 256 fits one product (197632 bytes, 197696 with TMA), not two:
// 4 * (128 + 2 * 256) * 128 + 1024 = 328704 bytes (+ 4 * 16 = 328768 with
// TMA). The decode kernel (mma.sync) with two 128 x 256 B panels is shrunk
// to fit (its stages and k step were not given).
// WGSMEM2-NOT: bytes of shared memory
// WGSMEM2: error: 'func.func' op bad wgmma GEMM schedule: 4 stages of 128 + 2 x 256 rows need 328704 bytes of shared memory, more than the 232448 a CTA may have on sm_90a
// WGSMEM2-NOT: bytes of shared memory
// TMASMEM2-NOT: bytes of shared memory
// TMASMEM2: error: 'func.func' op bad wgmma GEMM schedule: 4 stages of 128 + 2 x 256 rows need 328768 bytes of shared memory, more than the 232448 a CTA may have on sm_90a
// TMASMEM2-NOT: bytes of shared memory
// The wgmma schedule's own shape rules: block_m a multiple of 64 (one
// warpgroup per 64 rows), block_k 64 (128-byte swizzled rows). The decode
// kernel (mma.sync) takes block_m 96 and block_k 32. (The SwiGLU of 512
// rows takes 112 columns a product by the waves rule where block_m is not
// given.)
// WGBM-NOT: error: 'func.func' op bad
// WGBM: error: 'func.func' op bad wgmma GEMM schedule: block 96x256x64, stages 4 (block_m a multiple of 64 (128 with two chains), block_n a multiple of 16 up to 256, block_k 64, >= 3 stages, gemm-mma-pending 0 to 3 and at most stages - 2)
// WGBM-NOT: error: 'func.func' op bad
// WGBM: error: 'func.func' op bad wgmma GEMM schedule: block 96x128x64, stages 4 (
// WGBK-NOT: error: 'func.func' op bad
// WGBK: error: 'func.func' op bad wgmma GEMM schedule: block 128x256x32, stages 4 (
// WGBK-NOT: error: 'func.func' op bad
// WGBK: error: 'func.func' op bad wgmma GEMM schedule: block 128x112x32, stages 4 (
// MMAs left running: at most stages - 2 k steps (a stage's copies must run
// ahead), 2 with the 4 stages of 128 x 256 tiles.
// MP3-NOT: error: 'func.func' op bad
// MP3: error: 'func.func' op bad wgmma GEMM schedule: block 128x256x64, stages 4 ({{.+}}gemm-mma-pending 0 to 3 and at most stages - 2)
// MP3-NOT: error: 'func.func' op bad
// MP3: error: 'func.func' op bad wgmma GEMM schedule: block 128x112x64, stages 4 (
// A cluster is 1 or 2 CTAs (gemm-cluster-m); the wgmma kernels (large_bf16,
// swiglu) report any other count, the decode kernel (mma.sync, no
// clusters) does not. 1 and 2 are fine.
// (The count itself is not checked: it is printed as a character, "got
// \03", instead of "got 3".)
// CLUSTER3-COUNT-2: error: 'func.func' op gemm-cluster-m must be 1 or 2, got
// CLUSTER3-NOT:     gemm-cluster-m must be
// CLUSTER1-LABEL: func.func @large_bf16
//  CLUSTER1-SAME:   cluster_m = 1 : i64
