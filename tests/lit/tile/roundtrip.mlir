// RUN: tilec-opt %s | tilec-opt | FileCheck %s
// RUN: tilec-opt --verify-roundtrip %s > /dev/null

// Tile-dialect ops print and parse back, every load/store form included.

// CHECK-LABEL: func.func @k
//  CHECK-SAME:   (%[[X:.+]]: memref<?x64xbf16>, %[[RS:.+]]: memref<?x1xf32>, %[[S:.+]]: memref<f16>, %[[W:.+]]: memref<64xbf16>, %[[O:.+]]: memref<?x64xbf16>, %[[OS:.+]]: memref<?x1xf32>, %[[OW:.+]]: memref<64xbf16>, %[[OSC:.+]]: memref<f32>)
//       CHECK:   %[[R:.+]] = tile.row_id
//  CHECK-NEXT:   %[[T:.+]] = tile.load %[[X]][%[[R]]] : memref<?x64xbf16> -> tensor<64xbf16>
//  CHECK-NEXT:   %[[A:.+]] = tile.load %[[RS]][%[[R]]] : memref<?x1xf32> -> f32
//  CHECK-NEXT:   %[[B:.+]] = tile.load %[[S]] : memref<f16> -> f16
//  CHECK-NEXT:   %[[V:.+]] = tile.load %[[W]] : memref<64xbf16> -> tensor<64xbf16>
//  CHECK-NEXT:   %[[F:.+]] = arith.extf %[[T]]
//  CHECK-NEXT:   %[[SUM:.+]] = tile.reduce_sum %[[F]] : tensor<64xf32> -> f32
//  CHECK-NEXT:   %[[MAX:.+]] = tile.reduce_max %[[F]] : tensor<64xf32> -> f32
//  CHECK-NEXT:   %[[SP:.+]] = tile.splat %[[B]] : f16 -> tensor<64xf16>
//       CHECK:   tile.store %{{.+}}, %[[O]][%[[R]]] : tensor<64xbf16> -> memref<?x64xbf16>
//  CHECK-NEXT:   tile.store %[[SUM]], %[[OS]][%[[R]]] : f32 -> memref<?x1xf32>
// Stores without a row: a shared vector and a shared scalar.
//  CHECK-NEXT:   tile.store %[[V]], %[[OW]] : tensor<64xbf16> -> memref<64xbf16>
//  CHECK-NEXT:   tile.store %[[MAX]], %[[OSC]] : f32 -> memref<f32>
func.func @k(%x: memref<?x64xbf16>, %rs: memref<?x1xf32>, %s: memref<f16>, %w: memref<64xbf16>, %o: memref<?x64xbf16>, %os: memref<?x1xf32>, %ow: memref<64xbf16>, %osc: memref<f32>) attributes {tile.kernel, tile.domain = array<i64: 4, 64>} {
  %r = tile.row_id
  %t = tile.load %x[%r] : memref<?x64xbf16> -> tensor<64xbf16>
  %a = tile.load %rs[%r] : memref<?x1xf32> -> f32
  %b = tile.load %s : memref<f16> -> f16
  %v = tile.load %w : memref<64xbf16> -> tensor<64xbf16>
  %f = arith.extf %t : tensor<64xbf16> to tensor<64xf32>
  %sum = tile.reduce_sum %f : tensor<64xf32> -> f32
  %max = tile.reduce_max %f : tensor<64xf32> -> f32
  %sp = tile.splat %b : f16 -> tensor<64xf16>
  %y = arith.addf %t, %v : tensor<64xbf16>
  tile.store %y, %o[%r] : tensor<64xbf16> -> memref<?x64xbf16>
  tile.store %sum, %os[%r] : f32 -> memref<?x1xf32>
  tile.store %v, %ow : tensor<64xbf16> -> memref<64xbf16>
  tile.store %max, %osc : f32 -> memref<f32>
  return
}

// CHECK-LABEL: func.func @host
//       CHECK:   %[[L:.+]]:4 = tile.launch @k(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) {fused_ops = 3 : i64} : (tensor<4x64xbf16>, tensor<4x1xf32>, tensor<f16>, tensor<64xbf16>) -> (tensor<4x64xbf16>, tensor<4x1xf32>, tensor<64xbf16>, tensor<f32>)
func.func @host(%x: tensor<4x64xbf16>, %rs: tensor<4x1xf32>, %s: tensor<f16>, %w: tensor<64xbf16>) -> (tensor<4x64xbf16>, tensor<4x1xf32>, tensor<64xbf16>, tensor<f32>) {
  %0:4 = tile.launch @k(%x, %rs, %s, %w) {fused_ops = 3 : i64} : (tensor<4x64xbf16>, tensor<4x1xf32>, tensor<f16>, tensor<64xbf16>) -> (tensor<4x64xbf16>, tensor<4x1xf32>, tensor<64xbf16>, tensor<f32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<4x64xbf16>, tensor<4x1xf32>, tensor<64xbf16>, tensor<f32>
}

// tile.row_matmul: a computed row times a (batched) rhs, transposed or not.
// CHECK-LABEL: func.func @row_products
//       CHECK:   tile.row_matmul %{{.+}}, %{{.+}}[%{{.+}}] : tensor<72xbf16>, memref<2x72x32xbf16> -> tensor<32xf32>
//       CHECK:   tile.row_matmul %{{.+}}, %{{.+}}[%{{.+}}] {transpose_b = true} : tensor<72xf16>, memref<32x72xf16> -> tensor<32xf32>
func.func @row_products(%p: tensor<72xbf16>, %v: memref<2x72x32xbf16>, %h: tensor<72xf16>, %w: memref<32x72xf16>) {
  %r = tile.row_id
  %a = tile.row_matmul %p, %v[%r] : tensor<72xbf16>, memref<2x72x32xbf16> -> tensor<32xf32>
  %b = tile.row_matmul %h, %w[%r] {transpose_b = true} : tensor<72xf16>, memref<32x72xf16> -> tensor<32xf32>
  return
}
