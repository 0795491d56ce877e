// RUN: tilec-opt --tilec-distribute-gemm-tiles %s | FileCheck %s

// A batched rhs with a batch of one is still indexed [batch, k, n]: the
// batch index is block_id / (blocks per batch) = block_id / 4 (always 0).
// CHECK-LABEL: gpu.func @one_batch
// CHECK:         %[[PID:.+]] = gpu.block_id x
// CHECK:         %[[BATCH:.+]] = arith.divui %[[PID]], %c4
// CHECK:         nvgpu.device_async_copy %arg1[%[[BATCH]], %{{.+}}, %{{.+}}]
func.func @one_batch(%x: memref<?x64xbf16>, %w: memref<1x64x64xbf16>, %y: memref<?x64xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 1, 64, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 4 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xbf16>, memref<1x64x64xbf16> -> tensor<64xf32>
  tile.store %p, %y[%r] : tensor<64xf32> -> memref<?x64xf32>
  return
}
