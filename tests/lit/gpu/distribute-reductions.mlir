// RUN: tilec-opt --split-input-file --tilec-distribute-row-tiles %s | FileCheck %s

// Row reductions: per-thread chunks, then a butterfly of gpu.shuffle xor over
// the lanes of a row (offsets min(TPR, 32)/2 .. 1, width 32), then -- only
// when a row spans several warps (TPR > 32) -- one f32 slot per warp in a
// workgroup buffer, a gpu.barrier, and a sum of the slots.

// bf16 x 4096 (V = 8, TPR = 128 = 4 warps, 1 row per CTA).
// CHECK-LABEL: gpu.func @cta_sum
//  CHECK-SAME:   workgroup(%[[SMEM:.+]] : memref<4xf32, #gpu.address_space<workgroup>>)
//  CHECK-SAME:   kernel attributes {known_block_size = array<i32: 128, 1, 1>
// 16-byte loads of 8 bf16:
//       CHECK:   vector.load %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<?x4096xbf16>, vector<8xbf16>
//       CHECK:   arith.extf %{{.+}} : vector<8xbf16> to vector<8xf32>
//       CHECK:   %[[PART:.+]] = vector.reduction <add>, %{{.+}} : vector<8xf32> into f32
//       CHECK:   gpu.shuffle xor %[[PART]], %c16_i32, %c32_i32 : f32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c8_i32, %{{.+}} : f32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c4_i32, %{{.+}} : f32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c2_i32, %{{.+}} : f32
//       CHECK:   %{{.+}}, %{{.+}} = gpu.shuffle xor %{{.+}}, %c1_i32, %{{.+}} : f32
//  CHECK-NEXT:   %[[WARPSUM:.+]] = arith.addf
//   CHECK-NOT:   gpu.shuffle
// Lane 0 of each warp writes slot rowInBlock * 4 + lane / 32.
//       CHECK:   %[[LEADER:.+]] = arith.cmpi eq, %{{.+}}, %{{.+}} : index
//       CHECK:   %[[SLOT:.+]] = arith.addi
//  CHECK-NEXT:   scf.if %[[LEADER]] {
//  CHECK-NEXT:     memref.store %[[WARPSUM]], %[[SMEM]][%[[SLOT]]] : memref<4xf32, #gpu.address_space<workgroup>>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.barrier
//   CHECK-NOT:   gpu.barrier
//  CHECK-COUNT-4: memref.load %[[SMEM]]
//   CHECK-NOT:   memref.load %[[SMEM]]
//       CHECK:   gpu.return
func.func @cta_sum(%in: memref<?x4096xbf16>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 8, 4096>, tile.schedule = {chunks = 4 : i64, rows_per_block = 1 : i64, threads_per_row = 128 : i64, vector_width = 8 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x4096xbf16> -> tensor<4096xbf16>
  %w = arith.extf %t : tensor<4096xbf16> to tensor<4096xf32>
  %s = tile.reduce_sum %w : tensor<4096xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// Two reductions with TPR > 32: one workgroup buffer (and one barrier) each,
// sized rows_per_block * warps_per_row = 2 * 2.
// CHECK-LABEL: gpu.func @two_cta_reductions
//  CHECK-SAME:   workgroup(%[[B0:.+]] : memref<4xf32, #gpu.address_space<workgroup>>, %[[B1:.+]] : memref<4xf32, #gpu.address_space<workgroup>>)
//  CHECK-SAME:   known_block_size = array<i32: 128, 1, 1>
//       CHECK:   vector.reduction <maximumf>
//       CHECK:   memref.store %{{.+}}, %[[B0]]
//       CHECK:   gpu.barrier
//       CHECK:   memref.load %[[B0]]
//       CHECK:   vector.reduction <add>
//       CHECK:   memref.store %{{.+}}, %[[B1]]
//       CHECK:   gpu.barrier
//       CHECK:   memref.load %[[B1]]
func.func @two_cta_reductions(%in: memref<?x1024xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 8, 1024>, tile.schedule = {chunks = 4 : i64, rows_per_block = 2 : i64, threads_per_row = 64 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x1024xf32> -> tensor<1024xf32>
  %m = tile.reduce_max %t : tensor<1024xf32> -> f32
  %s = tile.reduce_sum %t : tensor<1024xf32> -> f32
  %x = arith.addf %m, %s : f32
  tile.store %x, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// TPR = 32: one warp per row, five shuffles, no shared memory, no barrier.
// CHECK-LABEL: gpu.func @one_warp
//   CHECK-NOT:   workgroup
//  CHECK-SAME:   known_block_size = array<i32: 128, 1, 1>
//       CHECK:   gpu.shuffle xor %{{.+}}, %c16_i32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c8_i32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c4_i32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c2_i32
//       CHECK:   gpu.shuffle xor %{{.+}}, %c1_i32
//   CHECK-NOT:   gpu.shuffle
//   CHECK-NOT:   gpu.barrier
//       CHECK:   gpu.return
func.func @one_warp(%in: memref<?x512xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 8, 512>, tile.schedule = {chunks = 4 : i64, rows_per_block = 4 : i64, threads_per_row = 32 : i64, vector_width = 4 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x512xf32> -> tensor<512xf32>
  %s = tile.reduce_sum %t : tensor<512xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}

// -----

// TPR = 1: a thread owns the whole row (7 chunks of one element, none
// partial); the chunks are combined in registers and there are no shuffles.
// CHECK-LABEL: gpu.func @one_thread_per_row
//  CHECK-SAME:   known_block_size = array<i32: 128, 1, 1>
//  CHECK-COUNT-6: arith.maximumf %{{.+}}, %{{.+}} : vector<1xf32>
//       CHECK:   vector.reduction <maximumf>, %{{.+}} : vector<1xf32> into f32
//   CHECK-NOT:   gpu.shuffle
//   CHECK-NOT:   gpu.barrier
//       CHECK:   gpu.return
func.func @one_thread_per_row(%in: memref<?x7xf32>, %out: memref<?x1xf32>) attributes {tile.kernel, tile.domain = array<i64: 8, 7>, tile.schedule = {chunks = 7 : i64, rows_per_block = 128 : i64, threads_per_row = 1 : i64, vector_width = 1 : i64}} {
  %r = tile.row_id
  %t = tile.load %in[%r] : memref<?x7xf32> -> tensor<7xf32>
  %s = tile.reduce_max %t : tensor<7xf32> -> f32
  tile.store %s, %out[%r] : f32 -> memref<?x1xf32>
  return
}
