// RUN: tilec-opt --tilec-fuse --tilec-lower-fusion-to-tile --tilec-schedule-row-kernels --tilec-distribute-row-tiles %s | FileCheck %s

// A swap of the last dim as strided rows (fusion/transpose-rows.mlir has
// the tile program): the strided load reads the row its tile.load names,
// here the permuted S = o * 280 + m * 40 + p, not the thread's own row:
// elements [S / 280, k, S % 280], one thread a row (vector width 1).
// CHECK-LABEL: gpu.func @last_dim_kernel0
//  CHECK-SAME:   threads_per_row = 1 : i64, vector_width = 1 : i64
//       CHECK:   %[[P:.+]] = arith.remui %{{.+}}, %c40{{.*}} : index
//       CHECK:   %[[S:.+]] = arith.addi %{{.+}}, %[[P]] : index
//       CHECK:   %[[O:.+]] = arith.divui %[[S]], %c280{{.*}} : index
//       CHECK:   %[[I:.+]] = arith.remui %[[S]], %c280{{.*}} : index
//       CHECK:   memref.load %arg0[%[[O]], %{{.+}}, %[[I]]] : memref<6x5x280xbf16>
func.func @last_dim(%x: tensor<6x5x7x40xbf16>) -> tensor<6x40x7x5xbf16> {
  %t = graph.transpose %x {dim0 = 1 : i64, dim1 = 3 : i64} : (tensor<6x5x7x40xbf16>) -> tensor<6x40x7x5xbf16>
  return %t : tensor<6x40x7x5xbf16>
}
