// RUN: tilec-opt --split-input-file --tilec-form-online-softmax %s | FileCheck %s
// tilec-schedule-row-kernels runs the same rewrite with online-softmax=true
// where it saves a round (the default, auto, only in cluster-split rows:
// none here, see tools/online-softmax.test).
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels=online-softmax=true %s | FileCheck %s --check-prefix=SCHED
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels %s | FileCheck %s --check-prefix=OFF
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels=online-softmax=false %s | FileCheck %s --check-prefix=OFF

// Online softmax: m = reduce_max(x) and s = reduce_sum(exp(x - splat(m)))
// become one tile.reduce_max_sum_exp of x at the reduce_max, carrying the
// exp's fast-math flags. The exp tile is also used by e / s, so the pair
// gives it as its third result (exp(x - m), which the reduction computes
// anyway) and the exp, x - m and splat(m) go.
// CHECK-LABEL: func.func @softmax
//  CHECK-SAME:   (%[[IN:[^:]+]]: memref<?x1000xf32>
//       CHECK:   %[[X:.+]] = tile.load %[[IN]]
//  CHECK-NEXT:   %[[M:[^,]+]], %[[S:[^,]+]], %[[E:[^ ]+]] = tile.reduce_max_sum_exp %[[X]] {fastmath = #arith.fastmath<afn>} : tensor<1000xf32> -> f32, f32, tensor<1000xf32>
//  CHECK-NEXT:   %[[BS:.+]] = tile.splat %[[S]]
//  CHECK-NEXT:   arith.divf %[[E]], %[[BS]]
//   CHECK-NOT:   tile.reduce_
//   CHECK-NOT:   math.exp
// Scheduled: 250 vectors of 4 over 64 threads (two warps): the pair saves
// a CTA barrier round, so the schedule pass forms it.
// SCHED-LABEL: func.func @softmax
//  SCHED-SAME:   threads_per_row = 64
//       SCHED:   tile.reduce_max_sum_exp %{{.+}} -> f32, f32, tensor<1000xf32>
//   SCHED-NOT:   tile.reduce_
//   SCHED-NOT:   math.exp
// OFF-LABEL: func.func @softmax
//   OFF-NOT:   tile.reduce_max_sum_exp
//       OFF:   tile.reduce_max
//       OFF:   tile.reduce_sum
func.func @softmax(%in: memref<?x1000xf32>, %out: memref<?x1000xf32>) attributes {tile.kernel, tile.domain = array<i64: 5, 1000>} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x1000xf32> -> tensor<1000xf32>
  %m = tile.reduce_max %x : tensor<1000xf32> -> f32
  %b = tile.splat %m : f32 -> tensor<1000xf32>
  %d = arith.subf %x, %b : tensor<1000xf32>
  %e = math.exp %d fastmath<afn> : tensor<1000xf32>
  %s = tile.reduce_sum %e : tensor<1000xf32> -> f32
  %bs = tile.splat %s : f32 -> tensor<1000xf32>
  %y = arith.divf %e, %bs : tensor<1000xf32>
  tile.store %y, %out[%r] : tensor<1000xf32> -> memref<?x1000xf32>
  return
}

// -----

// exp2 (base2), no fast-math flags (precise math: none kept); a kernel
// that stores only the max and the sum loses the then dead exp tile, and
// the pair has no exp result.
// CHECK-LABEL: func.func @logsumexp2_parts
//       CHECK:   %[[M:.+]], %[[S:.+]] = tile.reduce_max_sum_exp %{{.+}} {base2} : tensor<256xf32> -> f32, f32{{$}}
//   CHECK-NOT:   tile.splat
//   CHECK-NOT:   math.exp2
//       CHECK:   tile.store %[[M]]
//       CHECK:   tile.store %[[S]]
// Scheduled, its rows of 64 vectors take 16 threads, within one warp: the
// pair would save only a butterfly of shuffles (which it rides anyway) and
// cost an exp a step, so the schedule pass keeps max, then sum.
// SCHED-LABEL: func.func @logsumexp2_parts
//  SCHED-SAME:   threads_per_row = 16
//   SCHED-NOT:   tile.reduce_max_sum_exp
//       SCHED:   tile.reduce_max
//       SCHED:   tile.reduce_sum
func.func @logsumexp2_parts(%in: memref<?x256xf32>, %mo: memref<?x1xf32>, %so: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 256>} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x256xf32> -> tensor<256xf32>
  %m = tile.reduce_max %x : tensor<256xf32> -> f32
  %b = tile.splat %m : f32 -> tensor<256xf32>
  %d = arith.subf %x, %b : tensor<256xf32>
  %e = math.exp2 %d : tensor<256xf32>
  %s = tile.reduce_sum %e : tensor<256xf32> -> f32
  tile.store %m, %mo[%r] : f32 -> memref<?x1xf32>
  tile.store %s, %so[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// The exp tile and x - m both have other users (a store each): the pair
// gives the exp tile for both users of the exp, and x - m (and its splat)
// stay for their store.
// CHECK-LABEL: func.func @exp_and_difference_stored
//       CHECK:   %[[X:.+]] = tile.load
//  CHECK-NEXT:   %[[M:[^,]+]], %[[S:[^,]+]], %[[E:[^ ]+]] = tile.reduce_max_sum_exp %[[X]] : tensor<128xf32> -> f32, f32, tensor<128xf32>
//  CHECK-NEXT:   %[[B:.+]] = tile.splat %[[M]]
//  CHECK-NEXT:   %[[D:.+]] = arith.subf %[[X]], %[[B]]
//   CHECK-NOT:   math.exp
//       CHECK:   tile.store %[[E]], %arg1
//       CHECK:   tile.store %[[D]], %arg2
//       CHECK:   arith.divf %[[E]]
func.func @exp_and_difference_stored(%in: memref<?x128xf32>, %eo: memref<?x128xf32>, %do: memref<?x128xf32>, %yo: memref<?x128xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 128>} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x128xf32> -> tensor<128xf32>
  %m = tile.reduce_max %x : tensor<128xf32> -> f32
  %b = tile.splat %m : f32 -> tensor<128xf32>
  %d = arith.subf %x, %b : tensor<128xf32>
  %e = math.exp %d : tensor<128xf32>
  %s = tile.reduce_sum %e : tensor<128xf32> -> f32
  tile.store %e, %eo[%r] : tensor<128xf32> -> memref<?x128xf32>
  tile.store %d, %do[%r] : tensor<128xf32> -> memref<?x128xf32>
  %bs = tile.splat %s : f32 -> tensor<128xf32>
  %y = arith.divf %e, %bs : tensor<128xf32>
  tile.store %y, %yo[%r] : tensor<128xf32> -> memref<?x128xf32>
  return
}

// -----

// Not matched: the max of y subtracted from x (the pair would be y's).
// CHECK-LABEL: func.func @max_of_another_tile
//   CHECK-NOT:   tile.reduce_max_sum_exp
//       CHECK:   tile.reduce_max
//       CHECK:   tile.reduce_sum
func.func @max_of_another_tile(%in: memref<?x256xf32>, %in2: memref<?x256xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 256>} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x256xf32> -> tensor<256xf32>
  %y = tile.load %in2[%r] : memref<?x256xf32> -> tensor<256xf32>
  %m = tile.reduce_max %y : tensor<256xf32> -> f32
  %b = tile.splat %m : f32 -> tensor<256xf32>
  %d = arith.subf %x, %b : tensor<256xf32>
  %e = math.exp %d : tensor<256xf32>
  %s = tile.reduce_sum %e : tensor<256xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// Not matched: m - x instead of x - m.
// CHECK-LABEL: func.func @reversed_difference
//   CHECK-NOT:   tile.reduce_max_sum_exp
//       CHECK:   tile.reduce_max
//       CHECK:   tile.reduce_sum
func.func @reversed_difference(%in: memref<?x256xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 256>} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x256xf32> -> tensor<256xf32>
  %m = tile.reduce_max %x : tensor<256xf32> -> f32
  %b = tile.splat %m : f32 -> tensor<256xf32>
  %d = arith.subf %b, %x : tensor<256xf32>
  %e = math.exp %d : tensor<256xf32>
  %s = tile.reduce_sum %e : tensor<256xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// Not matched: exp of something else than x - m (a temperature applied
// after the subtraction), and a sum of x - m itself (no exp).
// CHECK-LABEL: func.func @exp_of_scaled_difference
//   CHECK-NOT:   tile.reduce_max_sum_exp
//       CHECK:   tile.reduce_max
//       CHECK:   tile.reduce_sum
//       CHECK:   tile.reduce_sum
func.func @exp_of_scaled_difference(%in: memref<?x256xf32>, %out: memref<?x1xf32>, %out2: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 256>} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x256xf32> -> tensor<256xf32>
  %m = tile.reduce_max %x : tensor<256xf32> -> f32
  %b = tile.splat %m : f32 -> tensor<256xf32>
  %d = arith.subf %x, %b : tensor<256xf32>
  %c = arith.constant dense<0.5> : tensor<256xf32>
  %t = arith.mulf %d, %c : tensor<256xf32>
  %e = math.exp %t : tensor<256xf32>
  %s = tile.reduce_sum %e : tensor<256xf32> -> f32
  %s2 = tile.reduce_sum %d : tensor<256xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  tile.store %s2, %out2[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// Not matched: exp(x - m) is used, but the sum is of another tile.
// CHECK-LABEL: func.func @sum_of_another_tile
//   CHECK-NOT:   tile.reduce_max_sum_exp
func.func @sum_of_another_tile(%in: memref<?x256xf32>, %out: memref<?x256xf32>, %out2: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 256>} {
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x256xf32> -> tensor<256xf32>
  %m = tile.reduce_max %x : tensor<256xf32> -> f32
  %b = tile.splat %m : f32 -> tensor<256xf32>
  %d = arith.subf %x, %b : tensor<256xf32>
  %e = math.exp %d : tensor<256xf32>
  %s = tile.reduce_sum %x : tensor<256xf32> -> f32
  tile.store %e, %out[%r] : tensor<256xf32> -> memref<?x256xf32>
  tile.store %s, %out2[%r] : f32 -> memref<?x1xf32>
  return
}
