// RUN: tilec-opt --tilec-schedule-row-kernels --tilec-distribute-row-tiles %s | FileCheck %s

// A reduction along an inner axis: strided row r of memref<O x K x I> is
// [r / I, :, r % I]. One thread per row (neighbouring threads read
// neighbouring addresses), scalar loads, no shuffles and no shared memory;
// a long row (K = 40 > 16) is streamed in blocks of 4.
// CHECK-LABEL: gpu.func @strided_kernel0
//  CHECK-SAME:   (%[[IN:.+]]: memref<3x40x7xf32>, %[[OUT:.+]]: memref<?x1xf32>)
//  CHECK-SAME:   known_block_size = array<i32: 128, 1, 1>
//  CHECK-SAME:   stream_blocks = 10 : i64, threads_per_row = 1 : i64, vector_width = 1 : i64
//   CHECK-NOT:   gpu.shuffle
//   CHECK-NOT:   workgroup
//       CHECK:   %[[ROW:.+]] = arith.addi
//       CHECK:   scf.for
//       CHECK:     %[[O:.+]] = arith.divui %[[ROW]], %{{.+}} : index
//       CHECK:     %[[I:.+]] = arith.remui %[[ROW]], %{{.+}} : index
//       CHECK:     memref.load %[[IN]][%[[O]], %{{.+}}, %[[I]]] : memref<3x40x7xf32>
//       CHECK:     vector.broadcast %{{.+}} : f32 to vector<1xf32>
//       CHECK:     arith.maximumf
//       CHECK:     scf.yield
//   CHECK-NOT:   gpu.shuffle
//   CHECK-NOT:   gpu.barrier
//       CHECK:   vector.reduction <maximumf>
//       CHECK:   memref.store %{{.+}}, %[[OUT]][%[[ROW]], %{{.+}}] : memref<?x1xf32>
func.func @strided_kernel0(%in: memref<3x40x7xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 21, 40>} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<3x40x7xf32> -> tensor<40xf32>
  %m = tile.reduce_max %t : tensor<40xf32> -> f32
  tile.store %m, %out[%r] : f32 -> memref<?x1xf32>
  return
}
