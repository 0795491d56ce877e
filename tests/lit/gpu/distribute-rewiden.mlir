// RUN: tilec-opt --tilec-distribute-row-tiles %s | FileCheck %s

// A widening marked tile.rewiden (made past a reduction by
// rewidenPastReductions, tile/sink-loads.mlir) lowers through integer ops:
// each vector of 8 bf16 bit-cast to i16, zero-extended to i32, shifted
// left by 16 and bit-cast to f32 (exact: a bf16 is the top half of an
// f32). LLVM does not merge it with the arith.extf before the reduction,
// so the packed row, not its f32 copy, lives across the reduction.
// 4 rows of 1024 bf16, 32 threads a row, 4 vectors of 8 a thread.
// CHECK-LABEL: gpu.func @rewiden
//       CHECK:   arith.extf %{{.+}} : vector<8xbf16> to vector<8xf32>
//       CHECK:   vector.reduction <maximumf>
//   CHECK-NOT:   arith.extf
//       CHECK:   %[[BITS:.+]] = vector.bitcast %{{.+}} : vector<8xbf16> to vector<8xi16>
//  CHECK-NEXT:   %[[WIDE:.+]] = arith.extui %[[BITS]] : vector<8xi16> to vector<8xi32>
//  CHECK-NEXT:   %[[C16:.+]] = arith.constant dense<16> : vector<8xi32>
//  CHECK-NEXT:   %[[SHIFTED:.+]] = arith.shli %[[WIDE]], %[[C16]] : vector<8xi32>
//  CHECK-NEXT:   vector.bitcast %[[SHIFTED]] : vector<8xi32> to vector<8xf32>
//   CHECK-NOT:   arith.extf
func.func @rewiden(%in: memref<?x1024xbf16>, %out: memref<?x1024xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4, 1024>, tile.schedule = {chunks = 4 : i64, col_blocks = 1 : i64, rows_per_block = 1 : i64, stream_blocks = 0 : i64, threads_per_row = 32 : i64, vector_width = 8 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1024xbf16> -> tensor<1024xbf16>
  %f = arith.extf %t : tensor<1024xbf16> to tensor<1024xf32>
  %m = tile.reduce_max %f : tensor<1024xf32> -> f32
  %g = arith.extf %t {tile.rewiden} : tensor<1024xbf16> to tensor<1024xf32>
  %mv = tile.splat %m : f32 -> tensor<1024xf32>
  %d = arith.subf %g, %mv : tensor<1024xf32>
  %y = arith.truncf %d : tensor<1024xf32> to tensor<1024xbf16>
  tile.store %y, %out[%r] : tensor<1024xbf16> -> memref<?x1024xbf16>
  return
}
