// RUN: tilec-opt --verify-diagnostics --tilec-schedule-row-kernels="gemm-warps-m=3" %s
// RUN: not tilec-opt --tilec-schedule-row-kernels="gemm-block-k=24" %s 2>&1 | FileCheck %s --check-prefix=BK24
// RUN: not tilec-opt --tilec-schedule-row-kernels="gemm-block-k=8" %s 2>&1 | FileCheck %s --check-prefix=BK8
// RUN: not tilec-opt --tilec-schedule-row-kernels="gemm-stages=1" %s 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not tilec-opt --tilec-schedule-row-kernels="gemm-warps-m=8 gemm-warps-n=8" %s 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not tilec-opt --tilec-schedule-row-kernels="gemm-block-n=96 gemm-warps-n=4" %s 2>&1 | FileCheck %s --check-prefix=WARPN
// RUN: not tilec-opt --tilec-schedule-row-kernels="gemm-block-m=16 gemm-warps-m=1 gemm-warps-n=4" %s 2>&1 | FileCheck %s --check-prefix=PANEL
// RUN: tilec-opt --tilec-schedule-row-kernels="gemm-block-m=16 gemm-warps-m=1" %s | FileCheck %s --check-prefix=SMALL

// GEMM schedule options that the tensor-core kernel cannot run are errors
// on the kernel, naming the whole schedule:
//   warps_m = 3 does not divide block_m = 128 (verify-diagnostics run);
//   block_k 24 and 8 are not multiples of 16 (the mma k step);
//   one stage cannot overlap copies with compute;
//   8 x 8 warps are 2048 threads (> 1024);
//   block_n 96 over 4 warps: 24-column warp tiles (not a multiple of 16);
//   block_m 16 x block_k 32 is 64 16-byte copies, not a multiple of the 128
//   threads of 1 x 4 warps.
// With 1 x 2 warps (64 threads) the same 16-row tile is valid.

// expected-error @+1 {{'func.func' op bad GEMM schedule: block 128x128x32, warps 3x2, stages 4 (warp tiles must be multiples of 16x16, block_k of 16, and each panel a multiple of 16 bytes per thread)}}
func.func @large_bf16(%a: memref<?x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<?x4096xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 4096, 4096>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_b = true} : memref<?x4096xbf16>, memref<4096x4096xbf16> -> tensor<4096xf32>
  %t = arith.truncf %p : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %t, %c[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// BK24: error: 'func.func' op bad GEMM schedule: block 128x128x24, warps 2x2, stages 4 (
// BK8: error: 'func.func' op bad GEMM schedule: block 128x128x8, warps 2x2, stages 4 (
// STAGES: error: 'func.func' op bad GEMM schedule: block 128x128x32, warps 2x2, stages 1 (
// THREADS: error: 'func.func' op bad GEMM schedule: block 128x128x32, warps 8x8, stages 4 (
// WARPN: error: 'func.func' op bad GEMM schedule: block 128x96x32, warps 2x4, stages 4 (
// PANEL: error: 'func.func' op bad GEMM schedule: block 16x128x32, warps 1x4, stages 4 (
// SMALL: tile.schedule = {block_k = 32 : i64, block_m = 16 : i64, block_n = 128 : i64, grid = 8192 : i64, group_m = 8 : i64, shared_bytes = 36864 : i64, stages = 4 : i64, threads = 64 : i64, warps_m = 1 : i64, warps_n = 2 : i64}
