// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a" %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a row-chunks=4" %s | FileCheck %s --check-prefix=FOUR

// row-chunks=0 (the default, auto): kernels of one row reduction (rms_norm,
// add_rms_norm) over rows of 128 vectors or more keep one vector a thread,
// up to 512 threads a row; other kernels with reductions keep 4, as does
// an explicit row-chunks=4 (FOUR). Rows split over a cluster keep 4 a
// thread of each slice either way.

// One reduction, 4096 bf16 = 512 vectors: 512 threads of one.
// CHECK-LABEL: func.func @one_sum_4096(
//  CHECK-SAME:   chunks = 1 : i64, {{.*}}threads_per_row = 512 : i64, vector_width = 8 : i64
// FOUR-LABEL: func.func @one_sum_4096(
//  FOUR-SAME:   chunks = 4 : i64, {{.*}}threads_per_row = 128 : i64, vector_width = 8 : i64
func.func @one_sum_4096(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4096, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %f = arith.extf %t : tensor<4096xbf16> to tensor<4096xf32>
  %s = tile.reduce_sum %f : tensor<4096xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<4096xf32>
  %m = arith.mulf %f, %b : tensor<4096xf32>
  %y = arith.truncf %m : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %y, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// One reduction, 8192 f32 = 2048 vectors: 512 threads (the cap) of 4.
// CHECK-LABEL: func.func @one_sum_f32_8192(
//  CHECK-SAME:   chunks = 4 : i64, {{.*}}threads_per_row = 512 : i64, vector_width = 4 : i64
func.func @one_sum_f32_8192(%in: memref<?x8192xf32>, %out: memref<?x8192xf32>) attributes {tile.kernel, tile.domain = array<i64: 4096, 8192>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x8192xf32> -> tensor<8192xf32>
  %s = tile.reduce_sum %t : tensor<8192xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<8192xf32>
  %m = arith.mulf %t, %b : tensor<8192xf32>
  tile.store %m, %out[%r] : tensor<8192xf32> -> memref<?x8192xf32>
  return
}

// -----

// One reduction over 64 vectors (512 bf16): under 128, 4 a thread.
// CHECK-LABEL: func.func @one_sum_512(
//  CHECK-SAME:   chunks = 4 : i64, {{.*}}threads_per_row = 16 : i64, vector_width = 8 : i64
func.func @one_sum_512(%in: memref<?x512xbf16>, %out: memref<?x512xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4096, 512>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x512xbf16> -> tensor<512xbf16>
  %f = arith.extf %t : tensor<512xbf16> to tensor<512xf32>
  %s = tile.reduce_sum %f : tensor<512xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<512xf32>
  %m = arith.mulf %f, %b : tensor<512xf32>
  %y = arith.truncf %m : tensor<512xf32> to tensor<512xbf16>
  tile.store %y, %out[%r] : tensor<512xbf16> -> memref<?x512xbf16>
  return
}

// -----

// Two reductions (max, then sum: softmax's): 4 a thread.
// CHECK-LABEL: func.func @two_reductions_4096(
//  CHECK-SAME:   chunks = 4 : i64, {{.*}}threads_per_row = 128 : i64, vector_width = 8 : i64
func.func @two_reductions_4096(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4096, 4096>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %f = arith.extf %t : tensor<4096xbf16> to tensor<4096xf32>
  %mx = tile.reduce_max %f : tensor<4096xf32> -> f32
  %bm = tile.splat %mx : f32 -> tensor<4096xf32>
  %d = arith.subf %f, %bm : tensor<4096xf32>
  %s = tile.reduce_sum %d : tensor<4096xf32> -> f32
  %b = tile.splat %s : f32 -> tensor<4096xf32>
  %m = arith.mulf %d, %b : tensor<4096xf32>
  %y = arith.truncf %m : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %y, %out[%r] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// One reduction, 16 rows of 131072 bf16 on sm_90a: clusters of 6 (heavy
// slices, see schedule-cluster.mlir) of 512 threads of 6 vectors, as
// without the rule.
// CHECK-LABEL: func.func @one_sum_cluster(
//  CHECK-SAME:   chunks = 6 : i64, cluster = 6 : i64, {{.*}}threads_per_row = 512 : i64
// FOUR-LABEL: func.func @one_sum_cluster(
//  FOUR-SAME:   chunks = 6 : i64, cluster = 6 : i64, {{.*}}threads_per_row = 512 : i64
func.func @one_sum_cluster(%in: memref<?x131072xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 16, 131072>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x131072xbf16> -> tensor<131072xbf16>
  %f = arith.extf %t : tensor<131072xbf16> to tensor<131072xf32>
  %s = tile.reduce_sum %f : tensor<131072xf32> -> f32
  %v = tile.splat %s : f32 -> tensor<1xf32>
  tile.store %v, %out[%r] : tensor<1xf32> -> memref<?x1xf32>
  return
}
