// RUN: tilec-opt --split-input-file --tilec-schedule-row-kernels="target=sm_90a gemm-split-k=1" %s | FileCheck %s

// A wgmma GEMM whose one store writes each row at a computed row (a
// scatter: the transposed row dims of attention's output) keeps direct
// stores; the same kernel storing at its own row takes TMA stores.
// CHECK-LABEL: func.func @scatter
//   CHECK-NOT:   tma_store
//       CHECK:   tile.tma = [{arg = 0 : i64
//  CHECK-SAME:   {arg = 1 : i64
//   CHECK-NOT:   arg = 2
func.func @scatter(%a: memref<?x512xbf16>, %b: memref<8x512x128xbf16>, %c: memref<?x128xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 8, 2048, 128>} {
  %c32 = arith.constant 32 : index
  %c512 = arith.constant 512 : index
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x512xbf16>, memref<8x512x128xbf16> -> tensor<128xf32>
  %h = arith.divui %r, %c512 : index
  %t = arith.remui %r, %c512 : index
  %ts = arith.muli %t, %c32 : index
  %o = arith.addi %h, %ts : index
  %x = arith.truncf %p : tensor<128xf32> to tensor<128xbf16>
  tile.store %x, %c[%o] : tensor<128xbf16> -> memref<?x128xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @own_row
//       CHECK:   tma_store = 1
//       CHECK:   tile.tma = [{arg = 0 : i64
//  CHECK-SAME:   {arg = 2 : i64
func.func @own_row(%a: memref<?x512xbf16>, %b: memref<8x512x128xbf16>, %c: memref<?x128xbf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 8, 2048, 128>} {
  %r = tile.row_id
  %p = tile.matmul %a, %b[%r] : memref<?x512xbf16>, memref<8x512x128xbf16> -> tensor<128xf32>
  %x = arith.truncf %p : tensor<128xf32> to tensor<128xbf16>
  tile.store %x, %c[%r] : tensor<128xbf16> -> memref<?x128xbf16>
  return
}
