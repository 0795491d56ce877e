// RUN: tilec-opt --split-input-file --tilec-fold-row-scalars %s | FileCheck %s
// With all=true the re-associations apply to f32 results too.
// RUN: tilec-opt --split-input-file --tilec-fold-row-scalars=all=true %s | FileCheck %s --check-prefix=ALL
// tilec-schedule-row-kernels runs it after forming the pairs with
// row-scalars=auto (as the pass) or true (all), never with false.
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels=row-scalars=auto %s | FileCheck %s --check-prefix=AUTO
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels=row-scalars=false %s | FileCheck %s --check-prefix=OFF

// layer_norm with a bf16 result: (x - mean) * rstd becomes
// x * rstd + (-(mean * rstd)), the scalar product once a row, and the
// subtraction goes; the weight's product and the bias's sum stay.
// CHECK-LABEL: func.func @layer_norm_bf16
//       CHECK:   %[[X:.+]] = arith.extf
//       CHECK:   %[[MEAN:[^,]+]], %[[M2:[^ ]+]] = tile.reduce_mean_m2 %[[X]]
//   CHECK-NOT:   arith.subf
//       CHECK:   %[[R:.+]] = math.rsqrt
//       CHECK:   %[[RS:.+]] = tile.splat %[[R]]
//       CHECK:   %[[MR:.+]] = arith.mulf %[[MEAN]], %[[R]] fastmath<contract> : f32
//  CHECK-NEXT:   %[[C:.+]] = arith.negf %[[MR]] : f32
//  CHECK-NEXT:   %[[XR:.+]] = arith.mulf %[[X]], %[[RS]] fastmath<contract> : tensor<512xf32>
//  CHECK-NEXT:   %[[CS:.+]] = tile.splat %[[C]]
//  CHECK-NEXT:   %[[Y:.+]] = arith.addf %[[XR]], %[[CS]] fastmath<contract> : tensor<512xf32>
//       CHECK:   %[[YW:.+]] = arith.mulf %[[Y]], %{{.+}} fastmath<contract>
//  CHECK-NEXT:   arith.addf %[[YW]], %{{.+}} fastmath<contract>
//   CHECK-NOT:   arith.subf
//       CHECK:   arith.truncf
// AUTO-LABEL: func.func @layer_norm_bf16
//   AUTO-NOT:   arith.subf
//       AUTO:   arith.negf
// OFF-LABEL: func.func @layer_norm_bf16
//       OFF:   arith.subf
//   OFF-NOT:   arith.negf
func.func @layer_norm_bf16(%in: memref<?x512xbf16>, %w: memref<512xbf16>, %bias: memref<512xbf16>, %out: memref<?x512xbf16>) attributes {tile.kernel, tile.domain = array<i64: 64, 512>} {
  %eps = arith.constant 1.0e-05 : f32
  %width = arith.constant 5.120000e+02 : f32
  %row = tile.row_id
  %t = tile.load %in[%row] : memref<?x512xbf16> -> tensor<512xbf16>
  %x = arith.extf %t : tensor<512xbf16> to tensor<512xf32>
  %mean, %m2 = tile.reduce_mean_m2 %x {fastmath = #arith.fastmath<contract,afn>} : tensor<512xf32> -> f32, f32
  %mb = tile.splat %mean : f32 -> tensor<512xf32>
  %d = arith.subf %x, %mb fastmath<contract> : tensor<512xf32>
  %var = arith.divf %m2, %width fastmath<contract,afn> : f32
  %ve = arith.addf %var, %eps fastmath<contract> : f32
  %r = math.rsqrt %ve : f32
  %rb = tile.splat %r : f32 -> tensor<512xf32>
  %n = arith.mulf %d, %rb fastmath<contract> : tensor<512xf32>
  %wt = tile.load %w : memref<512xbf16> -> tensor<512xbf16>
  %wf = arith.extf %wt : tensor<512xbf16> to tensor<512xf32>
  %bt = tile.load %bias : memref<512xbf16> -> tensor<512xbf16>
  %bf = arith.extf %bt : tensor<512xbf16> to tensor<512xf32>
  %nw = arith.mulf %n, %wf fastmath<contract> : tensor<512xf32>
  %y = arith.addf %nw, %bf fastmath<contract> : tensor<512xf32>
  %o = arith.truncf %y : tensor<512xf32> to tensor<512xbf16>
  tile.store %o, %out[%row] : tensor<512xbf16> -> memref<?x512xbf16>
  return
}

// -----

// The same with an f32 result: the exact form stays unless all=true (and
// the splat of the product may come first: the match is commutative).
// CHECK-LABEL: func.func @normalize_f32
//       CHECK:   arith.subf
//   CHECK-NOT:   arith.negf
// ALL-LABEL: func.func @normalize_f32
//   ALL-NOT:   arith.subf
//       ALL:   arith.negf
//       ALL:   arith.addf
func.func @normalize_f32(%in: memref<?x512xf32>, %out: memref<?x512xf32>) attributes {tile.kernel, tile.domain = array<i64: 64, 512>} {
  %width = arith.constant 5.120000e+02 : f32
  %row = tile.row_id
  %x = tile.load %in[%row] : memref<?x512xf32> -> tensor<512xf32>
  %mean, %m2 = tile.reduce_mean_m2 %x {fastmath = #arith.fastmath<contract,afn>} : tensor<512xf32> -> f32, f32
  %mb = tile.splat %mean : f32 -> tensor<512xf32>
  %d = arith.subf %x, %mb fastmath<contract> : tensor<512xf32>
  %r = math.rsqrt %m2 : f32
  %rb = tile.splat %r : f32 -> tensor<512xf32>
  %n = arith.mulf %rb, %d fastmath<contract> : tensor<512xf32>
  tile.store %n, %out[%row] : tensor<512xf32> -> memref<?x512xf32>
  return
}

// -----

// softmax with a bf16 result: exp(x - max) becomes exp2 of one FMA (the
// sum of exps depends on it, but only the 16-bit result depends on the
// sum), and e / sum becomes e * (1 / sum), one reciprocal a row.
// CHECK-LABEL: func.func @softmax_bf16
//       CHECK:   %[[X:.+]] = arith.extf
//       CHECK:   %[[M:.+]] = tile.reduce_max %[[X]]
//   CHECK-NOT:   arith.subf
//   CHECK-NOT:   math.exp %
//       CHECK:   %[[L:.+]] = arith.constant 1.442695{{[0-9]*}} : f32
//       CHECK:   %[[ML:.+]] = arith.mulf %[[M]], %[[L]] fastmath<contract> : f32
//  CHECK-NEXT:   %[[C:.+]] = arith.negf %[[ML]]
//  CHECK-NEXT:   %[[LS:.+]] = tile.splat %[[L]]
//  CHECK-NEXT:   %[[XL:.+]] = arith.mulf %[[X]], %[[LS]] fastmath<contract>
//  CHECK-NEXT:   %[[CS:.+]] = tile.splat %[[C]]
//  CHECK-NEXT:   %[[A:.+]] = arith.addf %[[XL]], %[[CS]] fastmath<contract>
//  CHECK-NEXT:   %[[E:.+]] = math.exp2 %[[A]] fastmath<afn>
//  CHECK-NEXT:   %[[S:.+]] = tile.reduce_sum %[[E]]
//       CHECK:   %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
//  CHECK-NEXT:   %[[INV:.+]] = arith.divf %[[ONE]], %[[S]] fastmath<contract,afn> : f32
//  CHECK-NEXT:   %[[IS:.+]] = tile.splat %[[INV]]
//  CHECK-NEXT:   arith.mulf %[[E]], %[[IS]] fastmath<contract,afn> : tensor<4096xf32>
//   CHECK-NOT:   arith.divf
func.func @softmax_bf16(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 64, 4096>} {
  %row = tile.row_id
  %t = tile.load %in[%row] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %x = arith.extf %t : tensor<4096xbf16> to tensor<4096xf32>
  %m = tile.reduce_max %x : tensor<4096xf32> -> f32
  %mb = tile.splat %m : f32 -> tensor<4096xf32>
  %d = arith.subf %x, %mb fastmath<contract> : tensor<4096xf32>
  %e = math.exp %d fastmath<afn> : tensor<4096xf32>
  %s = tile.reduce_sum %e : tensor<4096xf32> -> f32
  %sb = tile.splat %s : f32 -> tensor<4096xf32>
  %p = arith.divf %e, %sb fastmath<contract,afn> : tensor<4096xf32>
  %o = arith.truncf %p : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %o, %out[%row] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}

// -----

// softmax with an f32 result: the exp keeps x - max (its error would scale
// with the max), the division still becomes a product with the reciprocal
// (div.approx is that product).
// CHECK-LABEL: func.func @softmax_f32
//       CHECK:   arith.subf
//       CHECK:   math.exp %
//       CHECK:   arith.divf %{{.+}}, %{{.+}} fastmath<afn> : f32
//       CHECK:   arith.mulf {{.+}} : tensor<4096xf32>
//   CHECK-NOT:   arith.divf
// ALL-LABEL: func.func @softmax_f32
//   ALL-NOT:   arith.subf
//       ALL:   math.exp2
func.func @softmax_f32(%in: memref<?x4096xf32>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 64, 4096>} {
  %row = tile.row_id
  %x = tile.load %in[%row] : memref<?x4096xf32> -> tensor<4096xf32>
  %m = tile.reduce_max %x : tensor<4096xf32> -> f32
  %mb = tile.splat %m : f32 -> tensor<4096xf32>
  %d = arith.subf %x, %mb fastmath<contract> : tensor<4096xf32>
  %e = math.exp %d fastmath<afn> : tensor<4096xf32>
  %s = tile.reduce_sum %e : tensor<4096xf32> -> f32
  %sb = tile.splat %s : f32 -> tensor<4096xf32>
  %p = arith.divf %e, %sb fastmath<afn> : tensor<4096xf32>
  tile.store %p, %out[%row] : tensor<4096xf32> -> memref<?x4096xf32>
  return
}

// -----

// Precise math (no flags) and round-every-op (afn without contract) keep
// everything as written; so do a difference with another user, a product
// that also reaches an f32 store, and an exp stored in f32.
// CHECK-LABEL: func.func @left_alone
//       CHECK:   arith.divf %{{.+}}, %{{.+}} : tensor<512xf32>
//       CHECK:   arith.subf %{{.+}}, %{{.+}} fastmath<contract> : tensor<512xf32>
//       CHECK:   arith.mulf
//       CHECK:   arith.subf %{{.+}}, %{{.+}} fastmath<contract> : tensor<512xf32>
//       CHECK:   arith.mulf
//       CHECK:   arith.subf %{{.+}}, %{{.+}} fastmath<contract> : tensor<512xf32>
//       CHECK:   math.exp %{{.+}} fastmath<afn>
//   CHECK-NOT:   arith.negf
// ALL-LABEL: func.func @left_alone
//       ALL:   arith.mulf %{{.+}}, %{{.+}} fastmath<contract> : f32
//       ALL:   arith.negf
//       ALL:   arith.subf %{{.+}}, %{{.+}} fastmath<contract> : tensor<512xf32>
//       ALL:   arith.negf
//       ALL:   math.exp2
func.func @left_alone(%in: memref<?x512xf32>, %o1: memref<?x512xf32>, %o2: memref<?x512xbf16>, %o3: memref<?x512xf32>, %o4: memref<?x512xf32>, %o5: memref<?x512xf32>) attributes {tile.kernel, tile.domain = array<i64: 64, 512>} {
  %row = tile.row_id
  %x = tile.load %in[%row] : memref<?x512xf32> -> tensor<512xf32>
  %m = tile.reduce_max %x : tensor<512xf32> -> f32
  %mb = tile.splat %m : f32 -> tensor<512xf32>
  %q = arith.divf %x, %mb : tensor<512xf32>
  %d1 = arith.subf %x, %mb fastmath<contract> : tensor<512xf32>
  %n1 = arith.mulf %d1, %mb fastmath<contract> : tensor<512xf32>
  %t1 = arith.truncf %n1 : tensor<512xf32> to tensor<512xbf16>
  %d2 = arith.subf %x, %mb fastmath<contract> : tensor<512xf32>
  %n2 = arith.mulf %d2, %mb fastmath<contract> : tensor<512xf32>
  %s2 = arith.addf %d2, %n2 fastmath<contract> : tensor<512xf32>
  %d3 = arith.subf %x, %mb fastmath<contract> : tensor<512xf32>
  %e = math.exp %d3 fastmath<afn> : tensor<512xf32>
  tile.store %q, %o1[%row] : tensor<512xf32> -> memref<?x512xf32>
  tile.store %t1, %o2[%row] : tensor<512xbf16> -> memref<?x512xbf16>
  tile.store %n1, %o3[%row] : tensor<512xf32> -> memref<?x512xf32>
  tile.store %s2, %o4[%row] : tensor<512xf32> -> memref<?x512xf32>
  tile.store %e, %o5[%row] : tensor<512xf32> -> memref<?x512xf32>
  return
}

// -----

// softmax as recompute-exp leaves it (an online pair, the exp made again
// past it) with a bf16 result: (c) folds x - M' into the exp, (d) the
// division by the sum into its offset, -(M' L) - log2 s, once a row; the
// exp keeps its flush. The pair, whose subtraction contracts and whose sum
// reaches only the bf16 result, is marked for its own exps (e).
// CHECK-LABEL: func.func @softmax_recomputed_bf16
//       CHECK:   %[[M:[^,]+]], %[[S:[^ ]+]] = tile.reduce_max_sum_exp %{{.+}} {fastmath = #arith.fastmath<contract,afn>, tile.folded_shift, tile.packed_max}
//       CHECK:   %[[R:.+]] = arith.extf %{{.+}} {tile.rewiden}
//       CHECK:   %[[ML:.+]] = arith.mulf %[[M]], %{{.+}} fastmath<contract> : f32
//  CHECK-NEXT:   %[[C:.+]] = arith.negf %[[ML]] : f32
//  CHECK-NEXT:   %[[LS:.+]] = tile.splat
//  CHECK-NEXT:   %[[XL:.+]] = arith.mulf %[[R]], %[[LS]] fastmath<contract>
//  CHECK-NEXT:   %[[LOG:.+]] = math.log2 %[[S]] fastmath<contract,afn> : f32
//  CHECK-NEXT:   %[[OFS:.+]] = arith.subf %[[C]], %[[LOG]] fastmath<contract,afn> : f32
//  CHECK-NEXT:   %[[OS:.+]] = tile.splat %[[OFS]]
//  CHECK-NEXT:   %[[A:.+]] = arith.addf %[[XL]], %[[OS]] fastmath<contract>
//  CHECK-NEXT:   %[[E:.+]] = math.exp2 %[[A]] fastmath<afn> {tile.flush_exp}
//  CHECK-NEXT:   arith.truncf %[[E]]
//   CHECK-NOT:   arith.divf
// The f32 result keeps the exact forms; only (a) applies.
// CHECK-LABEL: func.func @softmax_recomputed_f32
//   CHECK-NOT:   tile.folded_shift
//       CHECK:   arith.subf
//       CHECK:   math.exp %{{.+}} fastmath<afn> {tile.flush_exp}
//       CHECK:   arith.divf %{{.+}}, %{{.+}} fastmath<contract,afn> : f32
//       CHECK:   arith.mulf
// ALL-LABEL: func.func @softmax_recomputed_f32
//       ALL:   tile.folded_shift
//       ALL:   math.log2
//       ALL:   math.exp2
func.func @softmax_recomputed_bf16(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>) attributes {tile.kernel, tile.domain = array<i64: 64, 4096>} {
  %row = tile.row_id
  %t = tile.load %in[%row] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %x = arith.extf %t : tensor<4096xbf16> to tensor<4096xf32>
  %m, %s = tile.reduce_max_sum_exp %x {fastmath = #arith.fastmath<contract,afn>, tile.packed_max} : tensor<4096xf32> -> f32, f32
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %isninf = arith.cmpf oeq, %m, %ninf : f32
  %shift = arith.select %isninf, %zero, %m : f32
  %r = arith.extf %t {tile.rewiden} : tensor<4096xbf16> to tensor<4096xf32>
  %mb = tile.splat %m : f32 -> tensor<4096xf32>
  %d = arith.subf %r, %mb fastmath<contract> : tensor<4096xf32>
  %e = math.exp %d fastmath<afn> {tile.flush_exp} : tensor<4096xf32>
  %sb = tile.splat %s : f32 -> tensor<4096xf32>
  %p = arith.divf %e, %sb fastmath<contract,afn> : tensor<4096xf32>
  %o = arith.truncf %p : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %o, %out[%row] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}
func.func @softmax_recomputed_f32(%in: memref<?x4096xbf16>, %out: memref<?x4096xf32>) attributes {tile.kernel, tile.domain = array<i64: 64, 4096>} {
  %row = tile.row_id
  %t = tile.load %in[%row] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %x = arith.extf %t : tensor<4096xbf16> to tensor<4096xf32>
  %m, %s = tile.reduce_max_sum_exp %x {fastmath = #arith.fastmath<contract,afn>, tile.packed_max} : tensor<4096xf32> -> f32, f32
  %r = arith.extf %t {tile.rewiden} : tensor<4096xbf16> to tensor<4096xf32>
  %mb = tile.splat %m : f32 -> tensor<4096xf32>
  %d = arith.subf %r, %mb fastmath<contract> : tensor<4096xf32>
  %e = math.exp %d fastmath<afn> {tile.flush_exp} : tensor<4096xf32>
  %sb = tile.splat %s : f32 -> tensor<4096xf32>
  %p = arith.divf %e, %sb fastmath<contract,afn> : tensor<4096xf32>
  tile.store %p, %out[%row] : tensor<4096xf32> -> memref<?x4096xf32>
  return
}

// -----

// (d) on an exp2 that is not (c)'s: y - log2 s before it. The sum is
// reduced after the exp2, which moves down to the division (where s is
// defined). A pair without `contract` (round-every-op) or in base 2 is
// not marked.
// CHECK-LABEL: func.func @exp2_over_sum
//       CHECK:   %[[X:.+]] = arith.extf
//       CHECK:   tile.reduce_max_sum_exp %[[X]] {fastmath = #arith.fastmath<afn>} :
//       CHECK:   tile.reduce_max_sum_exp %[[X]] {base2, fastmath = #arith.fastmath<contract,afn>} :
//       CHECK:   %[[S:.+]] = tile.reduce_sum %[[X]]
//  CHECK-NEXT:   %[[LOG:.+]] = math.log2 %[[S]] fastmath<contract,afn> : f32
//  CHECK-NEXT:   %[[LS:.+]] = tile.splat %[[LOG]]
//  CHECK-NEXT:   %[[A:.+]] = arith.subf %[[X]], %[[LS]] fastmath<contract,afn>
//  CHECK-NEXT:   %[[E:.+]] = math.exp2 %[[A]] fastmath<afn>
//  CHECK-NEXT:   arith.truncf %[[E]]
//   CHECK-NOT:   tile.folded_shift
func.func @exp2_over_sum(%in: memref<?x4096xbf16>, %out: memref<?x4096xbf16>, %o2: memref<?x1xbf16>) attributes {tile.kernel, tile.domain = array<i64: 64, 4096>} {
  %row = tile.row_id
  %t = tile.load %in[%row] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %x = arith.extf %t : tensor<4096xbf16> to tensor<4096xf32>
  %m1, %s1 = tile.reduce_max_sum_exp %x {fastmath = #arith.fastmath<afn>} : tensor<4096xf32> -> f32, f32
  %m2, %s2 = tile.reduce_max_sum_exp %x {base2, fastmath = #arith.fastmath<contract,afn>} : tensor<4096xf32> -> f32, f32
  %q = arith.addf %s1, %s2 : f32
  %qt = arith.truncf %q : f32 to bf16
  %e = math.exp2 %x fastmath<afn> : tensor<4096xf32>
  %s = tile.reduce_sum %x : tensor<4096xf32> -> f32
  %sb = tile.splat %s : f32 -> tensor<4096xf32>
  %p = arith.divf %e, %sb fastmath<contract,afn> : tensor<4096xf32>
  %o = arith.truncf %p : tensor<4096xf32> to tensor<4096xbf16>
  tile.store %o, %out[%row] : tensor<4096xbf16> -> memref<?x4096xbf16>
  return
}
