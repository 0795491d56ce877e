// RUN: tilec-opt --split-input-file --tilec-form-welford %s | FileCheck %s
// tilec-schedule-row-kernels runs the same rewrite with welford=true in
// every row kernel, with the default (auto) where the second round costs a
// CTA barrier, a cluster exchange or a streamed pass, and never with false.
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels=welford=true %s | FileCheck %s --check-prefix=SCHED
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels=welford=auto %s | FileCheck %s --check-prefix=AUTO
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels=welford=false %s | FileCheck %s --check-prefix=OFF

// layer_norm: mean = reduce_sum(x) / W and reduce_sum((x - splat(mean))^2)
// become one tile.reduce_mean_m2 of x at the first reduce_sum, carrying
// the mean division's fast-math flags. The mean's users (splat, then
// x - mean for the normalisation) take the pair's mean, the variance's
// division takes its M2; the squares, the first sum and its division go.
// CHECK-LABEL: func.func @layer_norm
//  CHECK-SAME:   (%[[IN:[^:]+]]: memref<?x1000xf32>
//       CHECK:   %[[X:.+]] = tile.load %[[IN]]
//  CHECK-NEXT:   %[[MEAN:[^,]+]], %[[M2:[^ ]+]] = tile.reduce_mean_m2 %[[X]] {fastmath = #arith.fastmath<afn>} : tensor<1000xf32> -> f32, f32
//  CHECK-NEXT:   %[[B:.+]] = tile.splat %[[MEAN]]
//  CHECK-NEXT:   %[[D:.+]] = arith.subf %[[X]], %[[B]]
//  CHECK-NEXT:   %[[VAR:.+]] = arith.divf %[[M2]], %{{.+}} fastmath<afn> : f32
//   CHECK-NOT:   tile.reduce_
//   CHECK-NOT:   arith.mulf %[[D]], %[[D]]
//       CHECK:   arith.addf %[[VAR]]
//       CHECK:   arith.mulf %[[D]], %{{.+}} : tensor<1000xf32>
// Scheduled: 250 vectors of 4 over 64 threads (two warps): the pair saves
// a CTA barrier round, so auto forms it too.
// SCHED-LABEL: func.func @layer_norm
//  SCHED-SAME:   threads_per_row = 64
//       SCHED:   tile.reduce_mean_m2
//   SCHED-NOT:   tile.reduce_
// AUTO-LABEL: func.func @layer_norm
//       AUTO:   tile.reduce_mean_m2
//   AUTO-NOT:   tile.reduce_
// OFF-LABEL: func.func @layer_norm
//   OFF-NOT:   tile.reduce_mean_m2
//       OFF:   tile.reduce_sum
//       OFF:   tile.reduce_sum
func.func @layer_norm(%in: memref<?x1000xf32>, %out: memref<?x1000xf32>) attributes {tile.kernel, tile.domain = array<i64: 5, 1000>} {
  %w = arith.constant 1.000000e+03 : f32
  %eps = arith.constant 1.0e-05 : f32
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x1000xf32> -> tensor<1000xf32>
  %s = tile.reduce_sum %x : tensor<1000xf32> -> f32
  %mean = arith.divf %s, %w fastmath<afn> : f32
  %b = tile.splat %mean : f32 -> tensor<1000xf32>
  %d = arith.subf %x, %b : tensor<1000xf32>
  %q = arith.mulf %d, %d : tensor<1000xf32>
  %ss = tile.reduce_sum %q : tensor<1000xf32> -> f32
  %var = arith.divf %ss, %w fastmath<afn> : f32
  %ve = arith.addf %var, %eps : f32
  %rs = math.rsqrt %ve : f32
  %br = tile.splat %rs : f32 -> tensor<1000xf32>
  %y = arith.mulf %d, %br : tensor<1000xf32>
  tile.store %y, %out[%r] : tensor<1000xf32> -> memref<?x1000xf32>
  return
}

// -----

// The mean as a product with 1 / W (either operand order), no fast-math
// flags (none kept); a kernel that stores the mean and the variance: the
// squares and the first sum go, the pair is all that reduces. Its rows of
// 64 vectors take 16 threads, within one warp: auto keeps two rounds
// (the pair would save only a butterfly of shuffles), true forms it.
// CHECK-LABEL: func.func @mean_and_variance
//       CHECK:   %[[MEAN:[^,]+]], %[[M2:[^ ]+]] = tile.reduce_mean_m2 %{{.+}} : tensor<256xf32> -> f32, f32{{$}}
//   CHECK-NOT:   tile.splat
//   CHECK-NOT:   tile.reduce_
//       CHECK:   %[[VAR:.+]] = arith.mulf %[[M2]], %{{.+}} : f32
//       CHECK:   tile.store %[[MEAN]]
//       CHECK:   tile.store %[[VAR]]
// SCHED-LABEL: func.func @mean_and_variance
//  SCHED-SAME:   threads_per_row = 16
//       SCHED:   tile.reduce_mean_m2
// AUTO-LABEL: func.func @mean_and_variance
//  AUTO-SAME:   threads_per_row = 16
//   AUTO-NOT:   tile.reduce_mean_m2
//       AUTO:   tile.reduce_sum
//       AUTO:   tile.reduce_sum
func.func @mean_and_variance(%in: memref<?x256xf32>, %mo: memref<?x1xf32>, %vo: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 256>} {
  %inv = arith.constant 3.906250e-03 : f32
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x256xf32> -> tensor<256xf32>
  %s = tile.reduce_sum %x : tensor<256xf32> -> f32
  %mean = arith.mulf %inv, %s : f32
  %b = tile.splat %mean : f32 -> tensor<256xf32>
  %d = arith.subf %x, %b : tensor<256xf32>
  %q = arith.mulf %d, %d : tensor<256xf32>
  %ss = tile.reduce_sum %q : tensor<256xf32> -> f32
  %var = arith.mulf %ss, %inv : f32
  tile.store %mean, %mo[%r] : f32 -> memref<?x1xf32>
  tile.store %var, %vo[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// Left alone: a sum divided by something other than the tile's width (not
// the mean of these 256 elements); a sum with a user besides the mean (the
// pair does not give it); the mean subtracted from another tile; a product
// of two different differences.
// CHECK-LABEL: func.func @not_matched
//   CHECK-NOT:   tile.reduce_mean_m2
//  CHECK-COUNT-8: tile.reduce_sum
//   CHECK-NOT:   tile.reduce_mean_m2
func.func @not_matched(%in: memref<?x256xf32>, %in2: memref<?x256xf32>, %o: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 4, 256>} {
  %w = arith.constant 2.560000e+02 : f32
  %w2 = arith.constant 1.280000e+02 : f32
  %r = tile.row_id
  %x = tile.load %in[%r] : memref<?x256xf32> -> tensor<256xf32>
  %y = tile.load %in2[%r] : memref<?x256xf32> -> tensor<256xf32>
  // Divided by 128.
  %s0 = tile.reduce_sum %x : tensor<256xf32> -> f32
  %m0 = arith.divf %s0, %w2 : f32
  %b0 = tile.splat %m0 : f32 -> tensor<256xf32>
  %d0 = arith.subf %x, %b0 : tensor<256xf32>
  %q0 = arith.mulf %d0, %d0 : tensor<256xf32>
  %t0 = tile.reduce_sum %q0 : tensor<256xf32> -> f32
  // The sum is stored too.
  %s1 = tile.reduce_sum %x : tensor<256xf32> -> f32
  %m1 = arith.divf %s1, %w : f32
  %b1 = tile.splat %m1 : f32 -> tensor<256xf32>
  %d1 = arith.subf %x, %b1 : tensor<256xf32>
  %q1 = arith.mulf %d1, %d1 : tensor<256xf32>
  %t1 = tile.reduce_sum %q1 : tensor<256xf32> -> f32
  tile.store %s1, %o[%r] : f32 -> memref<?x1xf32>
  // y - mean(x).
  %s2 = tile.reduce_sum %x : tensor<256xf32> -> f32
  %m2 = arith.divf %s2, %w : f32
  %b2 = tile.splat %m2 : f32 -> tensor<256xf32>
  %d2 = arith.subf %y, %b2 : tensor<256xf32>
  %q2 = arith.mulf %d2, %d2 : tensor<256xf32>
  %t2 = tile.reduce_sum %q2 : tensor<256xf32> -> f32
  // (x - mean) * (y - mean).
  %s3 = tile.reduce_sum %x : tensor<256xf32> -> f32
  %m3 = arith.divf %s3, %w : f32
  %b3 = tile.splat %m3 : f32 -> tensor<256xf32>
  %d3 = arith.subf %x, %b3 : tensor<256xf32>
  %e3 = arith.subf %y, %b3 : tensor<256xf32>
  %q3 = arith.mulf %d3, %e3 : tensor<256xf32>
  %t3 = tile.reduce_sum %q3 : tensor<256xf32> -> f32
  tile.store %t0, %o[%r] : f32 -> memref<?x1xf32>
  tile.store %t1, %o[%r] : f32 -> memref<?x1xf32>
  tile.store %t2, %o[%r] : f32 -> memref<?x1xf32>
  tile.store %t3, %o[%r] : f32 -> memref<?x1xf32>
  return
}
