// RUN: tilec-opt %s | tilec-opt | FileCheck %s
// RUN: tilec-opt --verify-roundtrip %s > /dev/null

// Windowed tile.load / tile.store (col_offset, any sign, buffers narrower or
// wider than the tile, per-row and shared) and tile.select_cols print and
// parse back. With col_offset a row access may have any width.

// CHECK-LABEL: func.func @windows
//  CHECK-SAME:   (%[[N:.+]]: memref<?x32xbf16>, %[[W:.+]]: memref<?x128xbf16>, %[[V:.+]]: memref<16xbf16>, %[[P:.+]]: memref<?x8xbf16>, %[[PV:.+]]: memref<128xbf16>)
//  CHECK-NEXT:   %[[R:.+]] = tile.row_id
//  CHECK-NEXT:   %[[A:.+]] = tile.load %[[N]][%[[R]]] {col_offset = -16 : i64} : memref<?x32xbf16> -> tensor<64xbf16>
//  CHECK-NEXT:   %[[B:.+]] = tile.load %[[W]][%[[R]]] {col_offset = 64 : i64} : memref<?x128xbf16> -> tensor<64xbf16>
//  CHECK-NEXT:   %[[C:.+]] = tile.load %[[V]] {col_offset = 8 : i64} : memref<16xbf16> -> tensor<64xbf16>
//  CHECK-NEXT:   %[[S:.+]] = tile.select_cols %[[A]], %[[B]] {split = 16 : i64} : tensor<64xbf16>
//  CHECK-NEXT:   %[[T:.+]] = tile.select_cols %[[S]], %[[C]] {split = 48 : i64} : tensor<64xbf16>
//  CHECK-NEXT:   tile.store %[[T]], %[[P]][%[[R]]] {col_offset = 0 : i64} : tensor<64xbf16> -> memref<?x8xbf16>
//  CHECK-NEXT:   tile.store %[[T]], %[[PV]] {col_offset = -2 : i64} : tensor<64xbf16> -> memref<128xbf16>
func.func @windows(%n: memref<?x32xbf16>, %w: memref<?x128xbf16>, %v: memref<16xbf16>, %p: memref<?x8xbf16>, %pv: memref<128xbf16>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  %r = tile.row_id
  %a = tile.load %n[%r] {col_offset = -16 : i64} : memref<?x32xbf16> -> tensor<64xbf16>
  %b = tile.load %w[%r] {col_offset = 64 : i64} : memref<?x128xbf16> -> tensor<64xbf16>
  %c = tile.load %v {col_offset = 8 : i64} : memref<16xbf16> -> tensor<64xbf16>
  %s = tile.select_cols %a, %b {split = 16 : i64} : tensor<64xbf16>
  %t = tile.select_cols %s, %c {split = 48 : i64} : tensor<64xbf16>
  tile.store %t, %p[%r] {col_offset = 0 : i64} : tensor<64xbf16> -> memref<?x8xbf16>
  tile.store %t, %pv {col_offset = -2 : i64} : tensor<64xbf16> -> memref<128xbf16>
  return
}
