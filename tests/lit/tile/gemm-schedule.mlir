// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-block-m=64 gemm-block-n=256 gemm-block-k=64 gemm-warps-m=2 gemm-warps-n=4 gemm-stages=3 max-registers=128" %s | FileCheck %s --check-prefix=OPTS
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="gemm-stages=2" %s | FileCheck %s --check-prefix=STAGES

// GEMM kernels (tile.gemm) get a tensor-core schedule instead of a row
// schedule (ScheduleRowKernels.cpp, scheduleGemm):
//   16-bit operands: block 128 x 128 x 32, warps 2 x 2, 4 stages
//   f32 operands (FMA): block_k 16, 3 stages, warps 2 x 4
//   rows <= 64: block_m 64, warps 1 x 4; rows <= 32: block_m 32, warps 1 x 4
//   each gemm-* option, when set, replaces its value
//   threads      = warps_m * warps_n * 32
//   shared_bytes = stages * (block_m + block_n) * block_k * element bytes
//   grid         = ceil(rows / block_m) * ceil(N / block_n), group_m 8
// OPTS sets every block, warp and stage option (the shape rules no longer
// matter); STAGES sets only the pipeline depth.

// A large bf16 GEMM: the default. 4 * (128 + 128) * 32 * 2 = 65536 bytes,
// 32 * 32 CTAs.
// CHECK-LABEL: func.func @large_bf16
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 1024 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
//   CHECK-NOT:   tile.max_registers
// 3 * (64 + 256) * 64 * 2 = 122880 bytes; 64 * 16 CTAs; 8 warps.
// OPTS-LABEL: func.func @large_bf16
//  OPTS-SAME:   tile.max_registers = 128 : i64, tile.schedule = {block_k = 64 : i64, block_m = 64 : i64, block_n = 256 : i64, grid = 1024 : i64, group_m = 8 : i64, shared_bytes = 122880 : i64, stages = 3 : i64, threads = 256 : i64, warps_m = 2 : i64, warps_n = 4 : i64}
// STAGES-LABEL: func.func @large_bf16
//  STAGES-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 1024 : i64, group_m = 8 : i64, shared_bytes = 32768 : i64, stages = 2 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
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
// blocks.
// CHECK-LABEL: func.func @batched_rows_f16
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 8 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
func.func @batched_rows_f16(%a: memref<?x256xf16>, %b: memref<256x1000xf16>, %c: memref<?x1000xf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 4, 32, 1000>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x256xf16>, memref<256x1000xf16> -> tensor<1000xf32>
  %t = arith.truncf %p : tensor<1000xf32> to tensor<1000xf16>
  tile.store %t, %c[%r] : tensor<1000xf16> -> memref<?x1000xf16>
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

// Decode (8 rows <= 32): block_m 32, warps 1 x 4 (32 x 32 warp tiles).
// 4 * (32 + 128) * 32 * 2 = 40960 bytes; 1 * 8 CTAs.
// CHECK-LABEL: func.func @decode
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 32 : i64, block_n = 128 : i64, grid = 8 : i64, group_m = 8 : i64, shared_bytes = 40960 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 1 : i64, warps_n = 4 : i64}
// OPTS-LABEL: func.func @decode
//  OPTS-SAME:   tile.schedule = {block_k = 64 : i64, block_m = 64 : i64, block_n = 256 : i64, grid = 4 : i64, group_m = 8 : i64, shared_bytes = 122880 : i64, stages = 3 : i64, threads = 256 : i64, warps_m = 2 : i64, warps_n = 4 : i64}
// STAGES-LABEL: func.func @decode
//  STAGES-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 32 : i64, block_n = 128 : i64, grid = 8 : i64, group_m = 8 : i64, shared_bytes = 20480 : i64, stages = 2 : i64, threads = 128 : i64, warps_m = 1 : i64, warps_n = 4 : i64}
func.func @decode(%a: memref<?x4096xbf16>, %b: memref<4096x1024xbf16>, %c: memref<?x1024xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 8, 1024>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x4096xbf16>, memref<4096x1024xbf16> -> tensor<1024xf32>
  %t = arith.truncf %p : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %t, %c[%r] : tensor<1024xbf16> -> memref<?x1024xbf16>
  return
}

// -----

// f32 operands (FMAs): block_k 16, 3 stages, warps 2 x 4 (64 x 32 warp
// tiles). 3 * (128 + 128) * 16 * 4 = 49152 bytes; ceil(300 / 128) = 3 row
// blocks * 8 column blocks.
// CHECK-LABEL: func.func @f32
//  CHECK-SAME:   tile.schedule = {block_k = 16 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 24 : i64, group_m = 8 : i64, shared_bytes = 49152 : i64, stages = 3 : i64, threads = 256 : i64, warps_m = 2 : i64, warps_n = 4 : i64}
// STAGES-LABEL: func.func @f32
//  STAGES-SAME:   tile.schedule = {block_k = 16 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 24 : i64, group_m = 8 : i64, shared_bytes = 32768 : i64, stages = 2 : i64, threads = 256 : i64, warps_m = 2 : i64, warps_n = 4 : i64}
func.func @f32(%a: memref<?x512xf32>, %b: memref<512x1000xf32>, %c: memref<?x1000xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 300, 1000>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x512xf32>, memref<512x1000xf32> -> tensor<1000xf32>
  tile.store %p, %c[%r] : tensor<1000xf32> -> memref<?x1000xf32>
  return
}

// -----

// f32 decode: the few-rows tile (32 rows, warps 1 x 4) with the f32 k step
// and depth. 3 * (32 + 128) * 16 * 4 = 30720 bytes.
// CHECK-LABEL: func.func @f32_decode
//  CHECK-SAME:   tile.schedule = {block_k = 16 : i64, block_m = 32 : i64, block_n = 128 : i64, grid = 4 : i64, group_m = 8 : i64, shared_bytes = 30720 : i64, stages = 3 : i64, threads = 128 : i64, warps_m = 1 : i64, warps_n = 4 : i64}
func.func @f32_decode(%a: memref<?x512xf32>, %b: memref<512x512xf32>, %c: memref<?x512xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 16, 512>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x512xf32>, memref<512x512xf32> -> tensor<512xf32>
  tile.store %p, %c[%r] : tensor<512xf32> -> memref<?x512xf32>
  return
}

// -----

// A transposed lhs (memref<KxM>): the element size comes from it too.
// CHECK-LABEL: func.func @trans_a
//  CHECK-SAME:   tile.schedule = {block_k = 32 : i64, block_m = 128 : i64, block_n = 128 : i64, grid = 1 : i64, group_m = 8 : i64, shared_bytes = 65536 : i64, stages = 4 : i64, threads = 128 : i64, warps_m = 2 : i64, warps_n = 2 : i64}
func.func @trans_a(%a: memref<64x96xbf16>, %b: memref<64x128xbf16>, %c: memref<?x128xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 96, 128>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] {transpose_a = true} : memref<64x96xbf16>, memref<64x128xbf16> -> tensor<128xf32>
  %t = arith.truncf %p : tensor<128xf32> to tensor<128xbf16>
  tile.store %t, %c[%r] : tensor<128xbf16> -> memref<?x128xbf16>
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
