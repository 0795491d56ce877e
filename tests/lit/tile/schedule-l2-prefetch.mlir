// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a" %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a row-l2-prefetch-first=false" %s | FileCheck %s --check-prefix=OFF
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a row-l2-prefetch-first=true" %s | FileCheck %s --check-prefix=ON
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_80" %s | FileCheck %s --check-prefix=SM80
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a row-l2-prefetch-elementwise-bytes=0" %s | FileCheck %s --check-prefix=NOEW
// RUN: not tilec-opt --tilec-schedule-row-kernels="target=sm_90a row-l2-prefetch-first=yes" %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: row-l2-prefetch-first must be auto, true or false, got 'yes'
// RUN: not tilec-opt --tilec-schedule-row-kernels="target=sm_90a row-l2-prefetch-elementwise-bytes=-5" %s 2>&1 | FileCheck %s --check-prefix=BADBYTES
// BADBYTES: error: row-l2-prefetch-elementwise-bytes must be >= 0 (0: none), got -5

// row-l2-prefetch's choice (-1) and row-l2-prefetch-first's (auto) for
// kernels of rows in registers, on sm_90 (the lowering is in
// gpu/distribute-l2-prefetch-rows.mlir and
// gpu/distribute-l2-prefetch-first.mlir):
//   l2_prefetch_rows = D = max(1, B / (bytes of the row inputs in a row
//   block)), B = 2 MiB with reductions and 1 MiB without
//   (row-l2-prefetch-elementwise-bytes; 0: none, NOEW), where a row holds
//   under 128 KiB of row inputs, the grid has at least 2 D row blocks and
//   1056 CTAs, and, without reductions, a thread loads at most 32 bytes of
//   row inputs: there, the vectors a thread are cut to those 32 bytes
//   where the grid stays at 1056 CTAs or more (one vector of each row input
//   at least);
//   l2_prefetch_first = 1 where, besides, the kernel has no reductions, or
//   reduces one row input and a row is one CTA's (no cluster); without
//   rows ahead, where rows are split over a cluster in a grid of one wave
//   (then every CTA prefetches its own slice: gpu/distribute-l2-prefetch-own.mlir).
// (Measured: docs/perf.md, thirty-ninth (H200) and fortieth (H100)
// sessions.) sm_80 has no prefetch instruction: neither (SM80).

// One bf16 row input of 16 KB rows: D = 128, and the first blocks' own.
// CHECK-LABEL: func.func @one_input
//  CHECK-SAME:   l2_prefetch_first = 1 : i64, l2_prefetch_rows = 128 : i64
// OFF-LABEL: func.func @one_input
//   OFF-NOT:   l2_prefetch_first
//  OFF-SAME:   l2_prefetch_rows = 128 : i64
// ON-LABEL: func.func @one_input
//  ON-SAME:   l2_prefetch_first = 1 : i64, l2_prefetch_rows = 128 : i64
// NOEW-LABEL: func.func @one_input
//  NOEW-SAME:   l2_prefetch_first = 1 : i64, l2_prefetch_rows = 128 : i64
// SM80-LABEL: func.func @one_input
//   SM80-NOT:   l2_prefetch
func.func @one_input(%in: memref<?x8192xbf16>, %out: memref<?x8192xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4096, 8192>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x8192xbf16> -> tensor<8192xbf16>
  %f = arith.extf %t : tensor<8192xbf16> to tensor<8192xf32>
  %s = tile.reduce_sum %f : tensor<8192xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<8192xf32>
  %d = arith.divf %f, %b : tensor<8192xf32>
  %o = arith.truncf %d : tensor<8192xf32> to tensor<8192xbf16>
  tile.store %o, %out[%r] : tensor<8192xbf16> -> memref<?x8192xbf16>
  return
}

// -----

// Two row inputs (a residual add): 32 KB a row, D = 64; the first blocks'
// own only when asked (ON).
// CHECK-LABEL: func.func @two_inputs
//   CHECK-NOT:   l2_prefetch_first
//  CHECK-SAME:   l2_prefetch_rows = 64 : i64
// OFF-LABEL: func.func @two_inputs
//   OFF-NOT:   l2_prefetch_first
//  OFF-SAME:   l2_prefetch_rows = 64 : i64
// ON-LABEL: func.func @two_inputs
//  ON-SAME:   l2_prefetch_first = 1 : i64, l2_prefetch_rows = 64 : i64
func.func @two_inputs(%x: memref<?x8192xbf16>, %y: memref<?x8192xbf16>, %out: memref<?x8192xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4096, 8192>} {
  %r = tile.row_id
  %a = tile.load %x[%r] : memref<?x8192xbf16> -> tensor<8192xbf16>
  %b = tile.load %y[%r] : memref<?x8192xbf16> -> tensor<8192xbf16>
  %fa = arith.extf %a : tensor<8192xbf16> to tensor<8192xf32>
  %fb = arith.extf %b : tensor<8192xbf16> to tensor<8192xf32>
  %sum = arith.addf %fa, %fb : tensor<8192xf32>
  %s = tile.reduce_sum %sum : tensor<8192xf32> -> f32
  %bs = tile.splat %s : f32 -> tensor<8192xf32>
  %d = arith.divf %sum, %bs : tensor<8192xf32>
  %o = arith.truncf %d : tensor<8192xf32> to tensor<8192xbf16>
  tile.store %o, %out[%r] : tensor<8192xbf16> -> memref<?x8192xbf16>
  return
}

// -----

// Rows of 128 KiB (32768 f32): no rows ahead chosen; first asked for
// (ON), each CTA's own row alone.
// CHECK-LABEL: func.func @wide_rows
//   CHECK-NOT:   l2_prefetch
// ON-LABEL: func.func @wide_rows
//  ON-SAME:   l2_prefetch_first = 1 : i64, rows_per_block
//   ON-NOT:   l2_prefetch_rows
func.func @wide_rows(%in: memref<?x32768xf32>, %out: memref<?x32768xf32>) attributes {tile.kernel, tile.domain = array<i64: 4096, 32768>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x32768xf32> -> tensor<32768xf32>
  %s = tile.reduce_sum %t : tensor<32768xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<32768xf32>
  %d = arith.divf %t, %b : tensor<32768xf32>
  tile.store %d, %out[%r] : tensor<32768xf32> -> memref<?x32768xf32>
  return
}

// -----

// No reductions, two row inputs of 8 KB rows (silu_mul's shape): 16 KB a
// row, 1 MiB ahead is D = 64, and the first blocks' own too (not with first false).
// CHECK-LABEL: func.func @elementwise
//  CHECK-SAME:   l2_prefetch_first = 1 : i64, l2_prefetch_rows = 64 : i64
// OFF-LABEL: func.func @elementwise
//   OFF-NOT:   l2_prefetch_first
//  OFF-SAME:   l2_prefetch_rows = 64 : i64
// ON-LABEL: func.func @elementwise
//  ON-SAME:   l2_prefetch_first = 1 : i64, l2_prefetch_rows = 64 : i64
// NOEW-LABEL: func.func @elementwise
//   NOEW-NOT:   l2_prefetch
// SM80-LABEL: func.func @elementwise
//   SM80-NOT:   l2_prefetch
func.func @elementwise(%x: memref<?x4096xbf16>, %y: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4096, 4096>} {
  %r = tile.row_id
  %a = tile.load %x[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %b = tile.load %y[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %fa = arith.extf %a : tensor<4096xbf16> to tensor<4096xf32>
  %fb = arith.extf %b : tensor<4096xbf16> to tensor<4096xf32>
  %m = arith.mulf %fa, %fb : tensor<4096xf32>
  %o = arith.truncf %m : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %o, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// No reductions, two f32 row inputs: one 4-element vector of each a thread
// (32 bytes), four CTAs a row, and 1 MiB ahead, D = 32; with none ahead
// (NOEW), two vectors of each (elementwise-elements, 8).
// CHECK-LABEL: func.func @elementwise_f32
//  CHECK-SAME:   chunks = 1 : i64, col_blocks = 4 : i64, l2_prefetch_first = 1 : i64, l2_prefetch_rows = 32 : i64
//  CHECK-SAME:   vector_width = 4 : i64
// NOEW-LABEL: func.func @elementwise_f32
//  NOEW-SAME:   chunks = 2 : i64, col_blocks = 2 : i64, rows_per_block
func.func @elementwise_f32(%x: memref<?x4096xf32>, %y: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 4096, 4096>} {
  %r = tile.row_id
  %a = tile.load %x[%r] : memref<?x4096xf32> -> tensor<4096xf32>
  %b = tile.load %y[%r] : memref<?x4096xf32> -> tensor<4096xf32>
  %m = arith.mulf %a, %b : tensor<4096xf32>
  tile.store %m, %out[%r] : tensor<4096xf32> -> memref<?x4096xf32>
  return
}

// -----

// No reductions, one f32 row input: two 4-element vectors a thread, 32
// bytes; 16 KB a row: D = 64.
// CHECK-LABEL: func.func @elementwise_f32_one_input
//  CHECK-SAME:   l2_prefetch_first = 1 : i64, l2_prefetch_rows = 64 : i64
func.func @elementwise_f32_one_input(%x: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 4096, 4096>} {
  %r = tile.row_id
  %a = tile.load %x[%r] : memref<?x4096xf32> -> tensor<4096xf32>
  %m = arith.mulf %a, %a : tensor<4096xf32>
  tile.store %m, %out[%r] : tensor<4096xf32> -> memref<?x4096xf32>
  return
}

// -----

// No reductions, three bf16 row inputs: one 8-element vector of each a
// thread is 48 bytes: none.
// CHECK-LABEL: func.func @elementwise_three_inputs
//  CHECK-SAME:   chunks = 1 : i64
//   CHECK-NOT:   l2_prefetch
func.func @elementwise_three_inputs(%x: memref<?x4096xbf16>, %y: memref<?x4096xbf16>, %z: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4096, 4096>} {
  %r = tile.row_id
  %a = tile.load %x[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %b = tile.load %y[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %c = tile.load %z[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %fa = arith.extf %a : tensor<4096xbf16> to tensor<4096xf32>
  %fb = arith.extf %b : tensor<4096xbf16> to tensor<4096xf32>
  %fc = arith.extf %c : tensor<4096xbf16> to tensor<4096xf32>
  %m = arith.mulf %fa, %fb : tensor<4096xf32>
  %n = arith.addf %m, %fc : tensor<4096xf32>
  %o = arith.truncf %n : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %o, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// No reductions over 512 rows (1024 CTAs, under 8 an SM): none; asked
// for (ON), each CTA's own rows.
// CHECK-LABEL: func.func @elementwise_few_rows
//   CHECK-NOT:   l2_prefetch
// ON-LABEL: func.func @elementwise_few_rows
//  ON-SAME:   l2_prefetch_first = 1 : i64, rows_per_block
func.func @elementwise_few_rows(%x: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 512, 4096>} {
  %r = tile.row_id
  %a = tile.load %x[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %fa = arith.extf %a : tensor<4096xbf16> to tensor<4096xf32>
  %m = arith.mulf %fa, %fa : tensor<4096xf32>
  %o = arith.truncf %m : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %o, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// Rows split over a cluster in a grid of one wave (16 bf16 rows of 131072
// in clusters of 6: 96 CTAs) take no rows ahead (256 KB rows, one wave),
// and each CTA prefetches its own slice ahead of the wait (run s43a,
// H100: softmax [16, 131072] 12-14% faster); not when off (OFF) or on
// sm_80. Asked for (ON), CTA-wide rows without rows ahead take it too
// (@elementwise_few_rows above).
// CHECK-LABEL: func.func @cluster_one_wave
//  CHECK-SAME:   cluster = 6 : i64, col_blocks = 6 : i64, l2_prefetch_first = 1 : i64, rows_per_block
//   CHECK-NOT:   l2_prefetch_rows
// OFF-LABEL: func.func @cluster_one_wave
//   OFF-NOT:   l2_prefetch
// ON-LABEL: func.func @cluster_one_wave
//  ON-SAME:   l2_prefetch_first = 1 : i64, rows_per_block
// SM80-LABEL: func.func @cluster_one_wave
//   SM80-NOT:   l2_prefetch
func.func @cluster_one_wave(%in: memref<?x131072xbf16>, %out: memref<?x131072xbf16>) attributes {tile.kernel, tile.domain = array<i64: 16, 131072>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x131072xbf16> -> tensor<131072xbf16>
  %f = arith.extf %t : tensor<131072xbf16> to tensor<131072xf32>
  %s = tile.reduce_sum %f : tensor<131072xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<131072xf32>
  %d = arith.divf %f, %b : tensor<131072xf32>
  %o = arith.truncf %d : tensor<131072xf32> to tensor<131072xbf16>
  tile.store %o, %out[%r] : tensor<131072xbf16> -> memref<?x131072xbf16>
  return
}

// -----

// The same rows, 100 of them: several waves of clusters, none.
// CHECK-LABEL: func.func @cluster_waves
//   CHECK-NOT:   l2_prefetch
func.func @cluster_waves(%in: memref<?x131072xbf16>, %out: memref<?x131072xbf16>) attributes {tile.kernel, tile.domain = array<i64: 100, 131072>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x131072xbf16> -> tensor<131072xbf16>
  %f = arith.extf %t : tensor<131072xbf16> to tensor<131072xf32>
  %s = tile.reduce_sum %f : tensor<131072xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<131072xf32>
  %d = arith.divf %f, %b : tensor<131072xf32>
  %o = arith.truncf %d : tensor<131072xf32> to tensor<131072xbf16>
  tile.store %o, %out[%r] : tensor<131072xbf16> -> memref<?x131072xbf16>
  return
}
