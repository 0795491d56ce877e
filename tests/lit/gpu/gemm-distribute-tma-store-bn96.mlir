// TMA stores with block_n 96 (gemm-block-n=96): a 16-bit output keeps
// direct stores (96 is not a multiple of a unit's 64 columns), an f32 one
// goes out in 3 units of 64 x 32 a warpgroup; with an odd count of units
// a tile, unit 0 waits until every earlier copy has read its buffer.
// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-cluster-m=1 gemm-block-n=96" --tilec-distribute-gemm-tiles %s | FileCheck %s

// CHECK-LABEL:   gpu.func @f32_out
// CHECK-SAME:      tile.tma_params = 3 : i64
// CHECK:           nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-COUNT-8:   llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK:           nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK:           nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK:           nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK:           nvvm.cp.async.bulk.wait_group 1 {read}
// CHECK:           nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT:       nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NOT:       vector.store
// CHECK:         gpu.return
func.func @f32_out(%x: memref<?x256xbf16>, %w: memref<256x256xbf16>, %y: memref<?x256xf32>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 200, 256>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x256xbf16>, memref<256x256xbf16> -> tensor<256xf32>
  tile.store %p, %y[%r] : tensor<256xf32> -> memref<?x256xf32>
  return
}

// -----

// CHECK-LABEL: gpu.func @bf16_out
// CHECK-SAME:    tile.tma_params = 2 : i64
// CHECK-NOT:   nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK:       vector.store %{{.+}} {alignment = 4 : i64} : memref<?x256xbf16>, vector<2xbf16>
func.func @bf16_out(%x: memref<?x256xbf16>, %w: memref<256x256xbf16>, %y: memref<?x256xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 200, 256>} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] {transpose_b = true} : memref<?x256xbf16>, memref<256x256xbf16> -> tensor<256xf32>
  %t = arith.truncf %p : tensor<256xf32> to tensor<256xbf16>
  tile.store %t, %y[%r] : tensor<256xbf16> -> memref<?x256xbf16>
  return
}
