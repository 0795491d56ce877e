// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse %s | FileCheck %s
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a" %s | FileCheck %s --check-prefix=SCHED
// RUN: tilec-opt --tilec-fuse="attention=true" --tilec-lower-fusion-to-tile --canonicalize --cse --tilec-schedule-row-kernels="target=sm_90a attention-split=1" %s | FileCheck %s --check-prefix=ONE

// An attention fusion is lowered as two row programs over the same rows,
// joined by the row of probabilities: the scores' (q @ k^T, scale, mask,
// softmax, cast) and the output's, whose product reads that row
// (tile.row_matmul) instead of a buffer. One kernel, marked tile.attention
// over the output's domain; the probabilities have no buffer.
// CHECK-LABEL: func.func @attention_kernel0
//  CHECK-SAME:   (%[[Q:.+]]: memref<?x64xbf16>, %[[K:.+]]: memref<2x72x64xbf16>, %[[M:.+]]: memref<?x72xf32>, %[[V:.+]]: memref<2x72x32xbf16>, %[[O:.+]]: memref<?x32xbf16>)
//  CHECK-SAME:   tile.attention
//  CHECK-SAME:   tile.domain = array<i64: 2, 40, 32>
//       CHECK:   %[[ROW:.+]] = tile.row_id
//       CHECK:   %[[S:.+]] = tile.matmul %[[Q]], %[[K]][%[[ROW]]] {transpose_b = true} : memref<?x64xbf16>, memref<2x72x64xbf16> -> tensor<72xf32>
//       CHECK:   tile.load %[[M]]
//       CHECK:   tile.reduce_max
//       CHECK:   math.exp
//       CHECK:   tile.reduce_sum
//       CHECK:   arith.divf
//       CHECK:   %[[P:.+]] = arith.truncf {{.*}} : tensor<72xf32> to tensor<72xbf16>
//       CHECK:   %[[PV:.+]] = tile.row_matmul %[[P]], %[[V]][%[[ROW]]] : tensor<72xbf16>, memref<2x72x32xbf16> -> tensor<32xf32>
//       CHECK:   %[[OUT:.+]] = arith.truncf %[[PV]]
//       CHECK:   tile.store %[[OUT]], %[[O]][%[[ROW]]]
//   CHECK-NOT:   tile.store
//       CHECK:   return
//   CHECK-NOT:   func.func @attention_kernel
//       CHECK:   tile.launch @attention_kernel0

// The schedule: 64-row CTAs (4 warps; the batch's 40 rows and 24 of
// zeros), 64 keys a step, two buffers of k and v blocks beside the q rows;
// two tiles leave SMs idle, so the two key blocks split over two CTAs a
// tile (flash decoding): a workspace of 256 bytes of counters and a slot
// of (32 + 8) x 64 floats a tile and split. attention-split=1: no split.
// SCHED-LABEL: func.func @attention_kernel0
//  SCHED-SAME:   tile.schedule = {attention = 1 : i64, block_m = 64 : i64, block_n = 64 : i64, grid = 4 : i64, group_m = 1 : i64, shared_bytes = 32768 : i64, split_k = 2 : i64, stages = 2 : i64, threads = 128 : i64, warps_m = 4 : i64, workspace_bytes = 41216 : i64}
// ONE-LABEL: func.func @attention_kernel0
//  ONE-SAME:   tile.schedule = {attention = 1 : i64, block_m = 64 : i64, block_n = 64 : i64, grid = 2 : i64, group_m = 1 : i64, shared_bytes = 32768 : i64, stages = 2 : i64, threads = 128 : i64, warps_m = 4 : i64}
func.func @attention(%q: tensor<2x40x64xbf16>, %k: tensor<2x72x64xbf16>, %v: tensor<2x72x32xbf16>, %mask: tensor<40x72xf32>) -> tensor<2x40x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<2x40x64xbf16>, tensor<2x72x64xbf16>) -> tensor<2x40x72xf32>
  %c = graph.constant 0.125 : tensor<f32>
  %cb = graph.broadcast %c : (tensor<f32>) -> tensor<2x40x72xf32>
  %ss = graph.mul %s, %cb : (tensor<2x40x72xf32>, tensor<2x40x72xf32>) -> tensor<2x40x72xf32>
  %mb = graph.broadcast %mask : (tensor<40x72xf32>) -> tensor<2x40x72xf32>
  %sm = graph.add %ss, %mb : (tensor<2x40x72xf32>, tensor<2x40x72xf32>) -> tensor<2x40x72xf32>
  %mx = graph.reduce_max %sm {axis = 2 : i64} : (tensor<2x40x72xf32>) -> tensor<2x40x1xf32>
  %mxb = graph.broadcast %mx : (tensor<2x40x1xf32>) -> tensor<2x40x72xf32>
  %d = graph.sub %sm, %mxb : (tensor<2x40x72xf32>, tensor<2x40x72xf32>) -> tensor<2x40x72xf32>
  %e = graph.exp %d : (tensor<2x40x72xf32>) -> tensor<2x40x72xf32>
  %l = graph.reduce_sum %e {axis = 2 : i64} : (tensor<2x40x72xf32>) -> tensor<2x40x1xf32>
  %lb = graph.broadcast %l : (tensor<2x40x1xf32>) -> tensor<2x40x72xf32>
  %p = graph.div %e, %lb : (tensor<2x40x72xf32>, tensor<2x40x72xf32>) -> tensor<2x40x72xf32>
  %p16 = graph.cast %p : (tensor<2x40x72xf32>) -> tensor<2x40x72xbf16>
  %o = graph.matmul %p16, %v : (tensor<2x40x72xbf16>, tensor<2x72x32xbf16>) -> tensor<2x40x32xbf16>
  return %o : tensor<2x40x32xbf16>
}
