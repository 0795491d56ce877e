// RUN: tilec-opt --split-input-file --tilec-lower-fusion-to-tile %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-lower-fusion-to-tile=round-every-op=true %s | FileCheck %s --check-prefix=ROUND

// A fusion holding a graph.matmul becomes a GEMM kernel (tile.gemm): its
// operands are whole matrices, the lhs rows memref<?xKxT> (lead dims
// flattened into rows; memref<KxMxT> when transposed), the rhs memref<KxNxT>
// (memref<NxKxT> with transpose_b); tile.matmul gives row `row` of the product
// in f32, and the rest of the row program is the epilogue on tensor<Nxf32>,
// rounded once (arith.truncf) before the store.

// Linear + bias + GELU (bf16, transpose_b).
// CHECK-LABEL: func.func @bias_gelu_kernel0
//  CHECK-SAME:   (%[[X:[^:]+]]: memref<?x512xbf16>, %[[W:[^:]+]]: memref<1024x512xbf16>, %[[B:[^:]+]]: memref<1024xbf16>, %[[OUT:[^:]+]]: memref<?x1024xbf16>)
//  CHECK-SAME:   attributes {tile.domain = array<i64: 256, 1024>, tile.gemm, tile.kernel
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[BT:.+]] = tile.load %[[B]] : memref<1024xbf16> -> tensor<1024xbf16>
//  CHECK-NEXT:   %[[P:.+]] = tile.matmul %[[X]], %[[W]][%[[ROW]]] {transpose_b = true} : memref<?x512xbf16>, memref<1024x512xbf16> -> tensor<1024xf32>
//  CHECK-NEXT:   %[[BF:.+]] = arith.extf %[[BT]] : tensor<1024xbf16> to tensor<1024xf32>
//  CHECK-NEXT:   %[[S:.+]] = arith.addf %[[P]], %[[BF]] : tensor<1024xf32>
// The tanh-approximation GELU, in f32 (exp(-2y) as exp2 of -2y * log2(e)).
//       CHECK:   math.exp2 %{{.+}} : tensor<1024xf32>
//       CHECK:   %[[G:.+]] = arith.divf %[[S]], %{{.+}} : tensor<1024xf32>
//  CHECK-NEXT:   %[[T:.+]] = arith.truncf %[[G]] : tensor<1024xf32> to tensor<1024xbf16>
//  CHECK-NEXT:   tile.store %[[T]], %[[OUT]][%[[ROW]]] : tensor<1024xbf16> -> memref<?x1024xbf16>
//  CHECK-NEXT:   return
// The host launches it like any kernel.
// CHECK-LABEL: func.func @bias_gelu(
//  CHECK-NEXT:   %[[L:.+]] = tile.launch @bias_gelu_kernel0(%{{.+}}, %{{.+}}, %{{.+}}) {fused_ops = 4 : i64, hbm_bytes_saved = 3145728 : i64}
//  CHECK-SAME:     : (tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>) -> tensor<256x1024xbf16>
//  CHECK-NEXT:   return %[[L]]
//   CHECK-NOT:   graph.

// With round-every-op the bf16 product is rounded right after the matmul
// (eager PyTorch: torch.matmul returns bf16), then widened again.
// ROUND-LABEL: func.func @bias_gelu_kernel0
//       ROUND:   %[[P:.+]] = tile.matmul
//  ROUND-NEXT:   %[[R:.+]] = arith.truncf %[[P]] : tensor<1024xf32> to tensor<1024xbf16>
//  ROUND-NEXT:   %[[E:.+]] = arith.extf %[[R]] : tensor<1024xbf16> to tensor<1024xf32>
//  ROUND-NEXT:   %[[BF:.+]] = arith.extf %{{.+}} : tensor<1024xbf16> to tensor<1024xf32>
//  ROUND-NEXT:   arith.addf %[[E]], %[[BF]] : tensor<1024xf32>
func.func @bias_gelu(%arg0: tensor<256x512xbf16>, %arg1: tensor<1024x512xbf16>, %arg2: tensor<1024xbf16>) -> tensor<256x1024xbf16> {
  %0 = graph.fusion(%arg0, %arg1, %arg2 : tensor<256x512xbf16>, tensor<1024x512xbf16>, tensor<1024xbf16>) attributes {domain = array<i64: 256, 1024>, fused_ops = 4 : i64, hbm_bytes_saved = 3145728 : i64} -> tensor<256x1024xbf16> {
  ^bb0(%arg3: tensor<256x512xbf16>, %arg4: tensor<1024x512xbf16>, %arg5: tensor<1024xbf16>):
    %1 = graph.matmul %arg3, %arg4 {transpose_b = true} : (tensor<256x512xbf16>, tensor<1024x512xbf16>) -> tensor<256x1024xbf16>
    %2 = graph.broadcast %arg5 : (tensor<1024xbf16>) -> tensor<256x1024xbf16>
    %3 = graph.add %1, %2 : (tensor<256x1024xbf16>, tensor<256x1024xbf16>) -> tensor<256x1024xbf16>
    %4 = graph.gelu %3 : (tensor<256x1024xbf16>) -> tensor<256x1024xbf16>
    graph.yield %4 : tensor<256x1024xbf16>
  }
  return %0 : tensor<256x1024xbf16>
}

// -----

// rhs [K, N] (no transpose): memref<KxNxT>; an f32 product needs no
// rounding, the residual row is loaded like any row input, the bf16 result
// is rounded before its store.
// CHECK-LABEL: func.func @residual_cast_kernel0
//  CHECK-SAME:   (%[[X:[^:]+]]: memref<?x256xbf16>, %[[W:[^:]+]]: memref<256x128xbf16>, %[[R:[^:]+]]: memref<?x128xf32>, %[[OUT:[^:]+]]: memref<?x128xbf16>)
//  CHECK-SAME:   tile.gemm
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[RT:.+]] = tile.load %[[R]][%[[ROW]]] : memref<?x128xf32> -> tensor<128xf32>
//  CHECK-NEXT:   %[[P:.+]] = tile.matmul %[[X]], %[[W]][%[[ROW]]] : memref<?x256xbf16>, memref<256x128xbf16> -> tensor<128xf32>
//  CHECK-NEXT:   %[[S:.+]] = arith.addf %[[P]], %[[RT]] : tensor<128xf32>
//  CHECK-NEXT:   %[[T:.+]] = arith.truncf %[[S]] : tensor<128xf32> to tensor<128xbf16>
//  CHECK-NEXT:   tile.store %[[T]], %[[OUT]][%[[ROW]]] : tensor<128xbf16> -> memref<?x128xbf16>
//  CHECK-NEXT:   return
// ROUND-LABEL: func.func @residual_cast_kernel0
//       ROUND:   %[[P:.+]] = tile.matmul
//  ROUND-NEXT:   arith.addf %[[P]], %{{.+}} : tensor<128xf32>
func.func @residual_cast(%arg0: tensor<64x256xbf16>, %arg1: tensor<256x128xbf16>, %arg2: tensor<64x128xf32>) -> tensor<64x128xbf16> {
  %0 = graph.fusion(%arg0, %arg1, %arg2 : tensor<64x256xbf16>, tensor<256x128xbf16>, tensor<64x128xf32>) attributes {domain = array<i64: 64, 128>, fused_ops = 3 : i64, hbm_bytes_saved = 131072 : i64} -> tensor<64x128xbf16> {
  ^bb0(%arg3: tensor<64x256xbf16>, %arg4: tensor<256x128xbf16>, %arg5: tensor<64x128xf32>):
    %1 = graph.matmul %arg3, %arg4 : (tensor<64x256xbf16>, tensor<256x128xbf16>) -> tensor<64x128xf32>
    %2 = graph.add %1, %arg5 : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
    %3 = graph.cast %2 : (tensor<64x128xf32>) -> tensor<64x128xbf16>
    graph.yield %3 : tensor<64x128xbf16>
  }
  return %0 : tensor<64x128xbf16>
}

// -----

// A transposed lhs [K, M] is passed as it is: memref<KxMxT>.
// CHECK-LABEL: func.func @trans_a_kernel0
//  CHECK-SAME:   (%[[A:[^:]+]]: memref<64x96xf16>, %[[W:[^:]+]]: memref<64x128xf16>, %[[OUT:[^:]+]]: memref<?x128xf16>)
//  CHECK-SAME:   tile.domain = array<i64: 96, 128>, tile.gemm, tile.kernel
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[P:.+]] = tile.matmul %[[A]], %[[W]][%[[ROW]]] {transpose_a = true} : memref<64x96xf16>, memref<64x128xf16> -> tensor<128xf32>
//  CHECK-NEXT:   %[[T:.+]] = arith.truncf %[[P]] : tensor<128xf32> to tensor<128xf16>
//  CHECK-NEXT:   tile.store %[[T]], %[[OUT]][%[[ROW]]] : tensor<128xf16> -> memref<?x128xf16>
func.func @trans_a(%arg0: tensor<64x96xf16>, %arg1: tensor<64x128xf16>) -> tensor<96x128xf16> {
  %0 = graph.fusion(%arg0, %arg1 : tensor<64x96xf16>, tensor<64x128xf16>) attributes {domain = array<i64: 96, 128>, fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<96x128xf16> {
  ^bb0(%arg2: tensor<64x96xf16>, %arg3: tensor<64x128xf16>):
    %1 = graph.matmul %arg2, %arg3 {transpose_a = true} : (tensor<64x96xf16>, tensor<64x128xf16>) -> tensor<96x128xf16>
    graph.yield %1 : tensor<96x128xf16>
  }
  return %0 : tensor<96x128xf16>
}

// -----

// Both transposes: lhs memref<KxM>, rhs memref<NxK>.
// CHECK-LABEL: func.func @trans_ab_kernel0
//  CHECK-SAME:   (%[[A:[^:]+]]: memref<64x96xbf16>, %[[W:[^:]+]]: memref<128x64xbf16>, %{{[^:]+}}: memref<?x128xbf16>)
//       CHECK:   tile.matmul %[[A]], %[[W]][%{{.+}}] {transpose_a = true, transpose_b = true} : memref<64x96xbf16>, memref<128x64xbf16> -> tensor<128xf32>
func.func @trans_ab(%arg0: tensor<64x96xbf16>, %arg1: tensor<128x64xbf16>) -> tensor<96x128xbf16> {
  %0 = graph.fusion(%arg0, %arg1 : tensor<64x96xbf16>, tensor<128x64xbf16>) attributes {domain = array<i64: 96, 128>, fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<96x128xbf16> {
  ^bb0(%arg2: tensor<64x96xbf16>, %arg3: tensor<128x64xbf16>):
    %1 = graph.matmul %arg2, %arg3 {transpose_a = true, transpose_b = true} : (tensor<64x96xbf16>, tensor<128x64xbf16>) -> tensor<96x128xbf16>
    graph.yield %1 : tensor<96x128xbf16>
  }
  return %0 : tensor<96x128xbf16>
}

// -----

// A 3-D lhs [2, 8, 64] with a shared rhs: its rows are flattened, memref<?x64>;
// the domain keeps the batch dims.
// CHECK-LABEL: func.func @linear_3d_kernel0
//  CHECK-SAME:   (%[[X:[^:]+]]: memref<?x64xbf16>, %[[W:[^:]+]]: memref<64x32xbf16>, %[[OUT:[^:]+]]: memref<?x32xbf16>)
//  CHECK-SAME:   tile.domain = array<i64: 2, 8, 32>, tile.gemm, tile.kernel
//       CHECK:   tile.matmul %[[X]], %[[W]][%{{.+}}] : memref<?x64xbf16>, memref<64x32xbf16> -> tensor<32xf32>
func.func @linear_3d(%arg0: tensor<2x8x64xbf16>, %arg1: tensor<64x32xbf16>) -> tensor<2x8x32xbf16> {
  %0 = graph.fusion(%arg0, %arg1 : tensor<2x8x64xbf16>, tensor<64x32xbf16>) attributes {domain = array<i64: 2, 8, 32>, fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<2x8x32xbf16> {
  ^bb0(%arg2: tensor<2x8x64xbf16>, %arg3: tensor<64x32xbf16>):
    %1 = graph.matmul %arg2, %arg3 : (tensor<2x8x64xbf16>, tensor<64x32xbf16>) -> tensor<2x8x32xbf16>
    graph.yield %1 : tensor<2x8x32xbf16>
  }
  return %0 : tensor<2x8x32xbf16>
}

// -----

// A batched product [4, 64, 32] x [4, 32, 48] + a bias: the lhs rows are
// flattened (memref<?x32>, 4 batches of 64 rows), the rhs keeps its batch
// dim, memref<4x32x48xbf16>, and tile.matmul takes it as it is.
// CHECK-LABEL: func.func @batched_bias_kernel0
//  CHECK-SAME:   (%[[X:[^:]+]]: memref<?x32xbf16>, %[[W:[^:]+]]: memref<4x32x48xbf16>, %[[B:[^:]+]]: memref<48xbf16>, %[[OUT:[^:]+]]: memref<?x48xbf16>)
//  CHECK-SAME:   attributes {tile.domain = array<i64: 4, 64, 48>, tile.gemm, tile.kernel
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[BT:.+]] = tile.load %[[B]] : memref<48xbf16> -> tensor<48xbf16>
//  CHECK-NEXT:   %[[P:.+]] = tile.matmul %[[X]], %[[W]][%[[ROW]]] : memref<?x32xbf16>, memref<4x32x48xbf16> -> tensor<48xf32>
//  CHECK-NEXT:   %[[BF:.+]] = arith.extf %[[BT]] : tensor<48xbf16> to tensor<48xf32>
//  CHECK-NEXT:   %[[S:.+]] = arith.addf %[[P]], %[[BF]] : tensor<48xf32>
//  CHECK-NEXT:   %[[T:.+]] = arith.truncf %[[S]] : tensor<48xf32> to tensor<48xbf16>
//  CHECK-NEXT:   tile.store %[[T]], %[[OUT]][%[[ROW]]] : tensor<48xbf16> -> memref<?x48xbf16>
//  CHECK-NEXT:   return
// CHECK-LABEL: func.func @batched_bias(
//  CHECK-NEXT:   tile.launch @batched_bias_kernel0(%{{.+}}, %{{.+}}, %{{.+}}) {fused_ops = 3 : i64, hbm_bytes_saved = 98304 : i64}
//  CHECK-SAME:     : (tensor<4x64x32xbf16>, tensor<4x32x48xbf16>, tensor<48xbf16>) -> tensor<4x64x48xbf16>
func.func @batched_bias(%arg0: tensor<4x64x32xbf16>, %arg1: tensor<4x32x48xbf16>, %arg2: tensor<48xbf16>) -> tensor<4x64x48xbf16> {
  %0 = graph.fusion(%arg0, %arg1, %arg2 : tensor<4x64x32xbf16>, tensor<4x32x48xbf16>, tensor<48xbf16>) attributes {domain = array<i64: 4, 64, 48>, fused_ops = 3 : i64, hbm_bytes_saved = 98304 : i64} -> tensor<4x64x48xbf16> {
  ^bb0(%arg3: tensor<4x64x32xbf16>, %arg4: tensor<4x32x48xbf16>, %arg5: tensor<48xbf16>):
    %1 = graph.matmul %arg3, %arg4 : (tensor<4x64x32xbf16>, tensor<4x32x48xbf16>) -> tensor<4x64x48xbf16>
    %2 = graph.broadcast %arg5 : (tensor<48xbf16>) -> tensor<4x64x48xbf16>
    %3 = graph.add %1, %2 : (tensor<4x64x48xbf16>, tensor<4x64x48xbf16>) -> tensor<4x64x48xbf16>
    graph.yield %3 : tensor<4x64x48xbf16>
  }
  return %0 : tensor<4x64x48xbf16>
}

// -----

// Two batch dims [2, 3]: the rhs's are flattened, memref<6x32x48xbf16>.
// CHECK-LABEL: func.func @batched_4d_kernel0
//  CHECK-SAME:   (%[[X:[^:]+]]: memref<?x32xbf16>, %[[W:[^:]+]]: memref<6x32x48xbf16>, %[[OUT:[^:]+]]: memref<?x48xf32>)
//  CHECK-SAME:   tile.domain = array<i64: 2, 3, 64, 48>, tile.gemm, tile.kernel
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[P:.+]] = tile.matmul %[[X]], %[[W]][%[[ROW]]] : memref<?x32xbf16>, memref<6x32x48xbf16> -> tensor<48xf32>
//  CHECK-NEXT:   tile.store %[[P]], %[[OUT]][%[[ROW]]] : tensor<48xf32> -> memref<?x48xf32>
func.func @batched_4d(%arg0: tensor<2x3x64x32xbf16>, %arg1: tensor<2x3x32x48xbf16>) -> tensor<2x3x64x48xf32> {
  %0 = graph.fusion(%arg0, %arg1 : tensor<2x3x64x32xbf16>, tensor<2x3x32x48xbf16>) attributes {domain = array<i64: 2, 3, 64, 48>, fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<2x3x64x48xf32> {
  ^bb0(%arg2: tensor<2x3x64x32xbf16>, %arg3: tensor<2x3x32x48xbf16>):
    %1 = graph.matmul %arg2, %arg3 : (tensor<2x3x64x32xbf16>, tensor<2x3x32x48xbf16>) -> tensor<2x3x64x48xf32>
    graph.yield %1 : tensor<2x3x64x48xf32>
  }
  return %0 : tensor<2x3x64x48xf32>
}

// -----

// A transposed lhs with batch dims [2, 3, K, M] (x^T @ w per batch) is
// memref<6xKxM>: its batch dims flattened in front, like a batched rhs; a
// shared 2-D rhs stays 2-D.
// CHECK-LABEL: func.func @batched_trans_a_kernel0
//  CHECK-SAME:   (%[[X:[^:]+]]: memref<6x32x64xbf16>, %[[W:[^:]+]]: memref<32x48xbf16>, %[[OUT:[^:]+]]: memref<?x48xbf16>)
//  CHECK-SAME:   tile.domain = array<i64: 2, 3, 64, 48>, tile.gemm, tile.kernel
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[P:.+]] = tile.matmul %[[X]], %[[W]][%[[ROW]]] {transpose_a = true} : memref<6x32x64xbf16>, memref<32x48xbf16> -> tensor<48xf32>
//  CHECK-NEXT:   math.tanh %[[P]]
func.func @batched_trans_a(%arg0: tensor<2x3x32x64xbf16>, %arg1: tensor<32x48xbf16>) -> tensor<2x3x64x48xbf16> {
  %0 = graph.fusion(%arg0, %arg1 : tensor<2x3x32x64xbf16>, tensor<32x48xbf16>) attributes {domain = array<i64: 2, 3, 64, 48>, fused_ops = 2 : i64, hbm_bytes_saved = 0 : i64} -> tensor<2x3x64x48xbf16> {
  ^bb0(%arg2: tensor<2x3x32x64xbf16>, %arg3: tensor<32x48xbf16>):
    %1 = graph.matmul %arg2, %arg3 {transpose_a = true} : (tensor<2x3x32x64xbf16>, tensor<32x48xbf16>) -> tensor<2x3x64x48xbf16>
    %2 = graph.tanh %1 : (tensor<2x3x64x48xbf16>) -> tensor<2x3x64x48xbf16>
    graph.yield %2 : tensor<2x3x64x48xbf16>
  }
  return %0 : tensor<2x3x64x48xbf16>
}

// -----

// Both batched: lhs [4, K, M] transposed and rhs [4, N, K] transposed.
// CHECK-LABEL: func.func @batched_trans_ab_kernel0
//  CHECK-SAME:   (%[[X:[^:]+]]: memref<4x32x16xbf16>, %[[W:[^:]+]]: memref<4x24x32xbf16>, %[[OUT:[^:]+]]: memref<?x24xf32>)
//  CHECK:        tile.matmul %[[X]], %[[W]][%{{.+}}] {transpose_a = true, transpose_b = true} : memref<4x32x16xbf16>, memref<4x24x32xbf16> -> tensor<24xf32>
func.func @batched_trans_ab(%arg0: tensor<4x32x16xbf16>, %arg1: tensor<4x24x32xbf16>) -> tensor<4x16x24xf32> {
  %0 = graph.fusion(%arg0, %arg1 : tensor<4x32x16xbf16>, tensor<4x24x32xbf16>) attributes {domain = array<i64: 4, 16, 24>, fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<4x16x24xf32> {
  ^bb0(%arg2: tensor<4x32x16xbf16>, %arg3: tensor<4x24x32xbf16>):
    %1 = graph.matmul %arg2, %arg3 {transpose_a = true, transpose_b = true} : (tensor<4x32x16xbf16>, tensor<4x24x32xbf16>) -> tensor<4x16x24xf32>
    graph.yield %1 : tensor<4x16x24xf32>
  }
  return %0 : tensor<4x16x24xf32>
}

// -----

// A batched rhs [B, N, K] with transpose_b (attention scores) stays
// memref<BxNxK>; a per-batch input [4, 1, 32] is read at row / 16 (the
// batch of the row).
// CHECK-LABEL: func.func @batched_trans_b_kernel0
//  CHECK-SAME:   (%[[Q:[^:]+]]: memref<?x64xbf16>, %[[K:[^:]+]]: memref<4x32x64xbf16>, %[[M:[^:]+]]: memref<?x32xf32>, %[[OUT:[^:]+]]: memref<?x32xf32>)
//  CHECK-SAME:   tile.domain = array<i64: 4, 16, 32>, tile.gemm, tile.kernel
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[P:.+]] = tile.matmul %[[Q]], %[[K]][%[[ROW]]] {transpose_b = true} : memref<?x64xbf16>, memref<4x32x64xbf16> -> tensor<32xf32>
//  CHECK-NEXT:   %[[C16:.+]] = arith.constant 16 : index
//  CHECK-NEXT:   %[[BATCH:.+]] = arith.divui %[[ROW]], %[[C16]] : index
//  CHECK-NEXT:   %[[MT:.+]] = tile.load %[[M]][%[[BATCH]]] : memref<?x32xf32> -> tensor<32xf32>
//  CHECK-NEXT:   %[[S:.+]] = arith.addf %[[P]], %[[MT]] : tensor<32xf32>
//  CHECK-NEXT:   tile.store %[[S]], %[[OUT]][%[[ROW]]] : tensor<32xf32> -> memref<?x32xf32>
func.func @batched_trans_b(%arg0: tensor<4x16x64xbf16>, %arg1: tensor<4x32x64xbf16>, %arg2: tensor<4x1x32xf32>) -> tensor<4x16x32xf32> {
  %0 = graph.fusion(%arg0, %arg1, %arg2 : tensor<4x16x64xbf16>, tensor<4x32x64xbf16>, tensor<4x1x32xf32>) attributes {domain = array<i64: 4, 16, 32>, fused_ops = 3 : i64, hbm_bytes_saved = 0 : i64} -> tensor<4x16x32xf32> {
  ^bb0(%arg3: tensor<4x16x64xbf16>, %arg4: tensor<4x32x64xbf16>, %arg5: tensor<4x1x32xf32>):
    %1 = graph.matmul %arg3, %arg4 {transpose_b = true} : (tensor<4x16x64xbf16>, tensor<4x32x64xbf16>) -> tensor<4x16x32xf32>
    %2 = graph.broadcast %arg5 : (tensor<4x1x32xf32>) -> tensor<4x16x32xf32>
    %3 = graph.add %1, %2 : (tensor<4x16x32xf32>, tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
    graph.yield %3 : tensor<4x16x32xf32>
  }
  return %0 : tensor<4x16x32xf32>
}

// -----

// The lhs also read by the epilogue (x @ w + x with K == N): one buffer,
// memref<?x128>, serves both; the epilogue loads its row.
// CHECK-LABEL: func.func @lhs_residual_kernel0
//  CHECK-SAME:   (%[[X:[^:]+]]: memref<?x128xbf16>, %[[W:[^:]+]]: memref<128x128xbf16>, %[[OUT:[^:]+]]: memref<?x128xbf16>)
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[XT:.+]] = tile.load %[[X]][%[[ROW]]] : memref<?x128xbf16> -> tensor<128xbf16>
//  CHECK-NEXT:   %[[P:.+]] = tile.matmul %[[X]], %[[W]][%[[ROW]]] : memref<?x128xbf16>, memref<128x128xbf16> -> tensor<128xf32>
//  CHECK-NEXT:   %[[XF:.+]] = arith.extf %[[XT]]
//  CHECK-NEXT:   arith.addf %[[P]], %[[XF]] : tensor<128xf32>
func.func @lhs_residual(%arg0: tensor<64x128xbf16>, %arg1: tensor<128x128xbf16>) -> tensor<64x128xbf16> {
  %0 = graph.fusion(%arg0, %arg1 : tensor<64x128xbf16>, tensor<128x128xbf16>) attributes {domain = array<i64: 64, 128>, fused_ops = 2 : i64, hbm_bytes_saved = 49152 : i64} -> tensor<64x128xbf16> {
  ^bb0(%arg2: tensor<64x128xbf16>, %arg3: tensor<128x128xbf16>):
    %1 = graph.matmul %arg2, %arg3 : (tensor<64x128xbf16>, tensor<128x128xbf16>) -> tensor<64x128xbf16>
    %2 = graph.add %1, %arg2 : (tensor<64x128xbf16>, tensor<64x128xbf16>) -> tensor<64x128xbf16>
    graph.yield %2 : tensor<64x128xbf16>
  }
  return %0 : tensor<64x128xbf16>
}

// -----

// Two results: the product itself and its tanh, one store each.
// CHECK-LABEL: func.func @product_and_tanh_kernel0
//  CHECK-SAME:   (%{{[^:]+}}: memref<?x128xbf16>, %{{[^:]+}}: memref<128x256xbf16>, %[[O0:[^:]+]]: memref<?x256xf32>, %[[O1:[^:]+]]: memref<?x256xf32>)
//       CHECK:   %[[P:.+]] = tile.matmul
//  CHECK-NEXT:   %[[T:.+]] = math.tanh %[[P]] : tensor<256xf32>
//  CHECK-NEXT:   tile.store %[[P]], %[[O0]][%{{.+}}] : tensor<256xf32> -> memref<?x256xf32>
//  CHECK-NEXT:   tile.store %[[T]], %[[O1]][%{{.+}}] : tensor<256xf32> -> memref<?x256xf32>
// CHECK-LABEL: func.func @product_and_tanh(
//  CHECK-NEXT:   %[[L:.+]]:2 = tile.launch @product_and_tanh_kernel0
//  CHECK-NEXT:   return %[[L]]#0, %[[L]]#1
func.func @product_and_tanh(%arg0: tensor<64x128xbf16>, %arg1: tensor<128x256xbf16>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %0:2 = graph.fusion(%arg0, %arg1 : tensor<64x128xbf16>, tensor<128x256xbf16>) attributes {domain = array<i64: 64, 256>, fused_ops = 2 : i64, hbm_bytes_saved = 65536 : i64} -> tensor<64x256xf32>, tensor<64x256xf32> {
  ^bb0(%arg2: tensor<64x128xbf16>, %arg3: tensor<128x256xbf16>):
    %1 = graph.matmul %arg2, %arg3 : (tensor<64x128xbf16>, tensor<128x256xbf16>) -> tensor<64x256xf32>
    %2 = graph.tanh %1 : (tensor<64x256xf32>) -> tensor<64x256xf32>
    graph.yield %1, %2 : tensor<64x256xf32>, tensor<64x256xf32>
  }
  return %0#0, %0#1 : tensor<64x256xf32>, tensor<64x256xf32>
}

// -----

// A per-row scale ([M, 1], broadcast) in the epilogue is a per-row scalar.
// CHECK-LABEL: func.func @row_scale_kernel0
//  CHECK-SAME:   (%{{[^:]+}}: memref<?x128xbf16>, %{{[^:]+}}: memref<128x33xbf16>, %[[S:[^:]+]]: memref<?x1xf32>, %{{[^:]+}}: memref<?x33xf32>)
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[SV:.+]] = tile.load %[[S]][%[[ROW]]] : memref<?x1xf32> -> f32
//  CHECK-NEXT:   %[[P:.+]] = tile.matmul
//  CHECK-NEXT:   %[[ST:.+]] = tile.splat %[[SV]] : f32 -> tensor<33xf32>
//  CHECK-NEXT:   arith.mulf %[[P]], %[[ST]] : tensor<33xf32>
func.func @row_scale(%arg0: tensor<100x128xbf16>, %arg1: tensor<128x33xbf16>, %arg2: tensor<100x1xf32>) -> tensor<100x33xf32> {
  %0 = graph.fusion(%arg0, %arg1, %arg2 : tensor<100x128xbf16>, tensor<128x33xbf16>, tensor<100x1xf32>) attributes {domain = array<i64: 100, 33>, fused_ops = 3 : i64, hbm_bytes_saved = 52800 : i64} -> tensor<100x33xf32> {
  ^bb0(%arg3: tensor<100x128xbf16>, %arg4: tensor<128x33xbf16>, %arg5: tensor<100x1xf32>):
    %1 = graph.matmul %arg3, %arg4 : (tensor<100x128xbf16>, tensor<128x33xbf16>) -> tensor<100x33xf32>
    %2 = graph.broadcast %arg5 : (tensor<100x1xf32>) -> tensor<100x33xf32>
    %3 = graph.mul %1, %2 : (tensor<100x33xf32>, tensor<100x33xf32>) -> tensor<100x33xf32>
    graph.yield %3 : tensor<100x33xf32>
  }
  return %0 : tensor<100x33xf32>
}

// -----

// SwiGLU (tilec-fuse puts both products of one lhs in one fusion): one
// GEMM kernel with two tile.matmul reading the same lhs argument, each with
// its own rhs; the epilogue reads both products.
// CHECK-LABEL: func.func @swiglu_kernel0
//  CHECK-SAME:   (%[[X:[^:]+]]: memref<?x256xbf16>, %[[WG:[^:]+]]: memref<512x256xbf16>, %[[WU:[^:]+]]: memref<512x256xbf16>, %[[OUT:[^:]+]]: memref<?x512xbf16>)
//  CHECK-SAME:   attributes {tile.domain = array<i64: 16, 512>, tile.gemm, tile.kernel
//  CHECK-NEXT:   %[[ROW:.+]] = tile.row_id
//  CHECK-NEXT:   %[[G:.+]] = tile.matmul %[[X]], %[[WG]][%[[ROW]]] {transpose_b = true} : memref<?x256xbf16>, memref<512x256xbf16> -> tensor<512xf32>
//  CHECK-NEXT:   %[[U:.+]] = tile.matmul %[[X]], %[[WU]][%[[ROW]]] {transpose_b = true} : memref<?x256xbf16>, memref<512x256xbf16> -> tensor<512xf32>
// silu(g) = g * (1 / (1 + exp(-g))), then times u.
//  CHECK-NEXT:   %[[N:.+]] = arith.negf %[[G]] : tensor<512xf32>
//  CHECK-NEXT:   math.exp %[[N]]
//       CHECK:   %[[S:.+]] = arith.mulf %[[G]], %{{.+}} : tensor<512xf32>
//  CHECK-NEXT:   %[[P:.+]] = arith.mulf %[[S]], %[[U]] : tensor<512xf32>
//  CHECK-NEXT:   %[[T:.+]] = arith.truncf %[[P]] : tensor<512xf32> to tensor<512xbf16>
//  CHECK-NEXT:   tile.store %[[T]], %[[OUT]][%[[ROW]]] : tensor<512xbf16> -> memref<?x512xbf16>
//  CHECK-NEXT:   return
//   CHECK-NOT:   tile.matmul
// CHECK-LABEL: func.func @swiglu(
//  CHECK-NEXT:   %[[L:.+]] = tile.launch @swiglu_kernel0(%{{.+}}, %{{.+}}, %{{.+}}) {fused_ops = 4 : i64, hbm_bytes_saved = 106496 : i64}
//  CHECK-NEXT:   return %[[L]]
// With round-every-op each bf16 product is rounded right after its matmul.
// ROUND-LABEL: func.func @swiglu_kernel0
//       ROUND:   %[[G:.+]] = tile.matmul %[[X:[^,]+]], %{{.+}} {transpose_b = true}
//  ROUND-NEXT:   arith.truncf %[[G]] : tensor<512xf32> to tensor<512xbf16>
//  ROUND-NEXT:   %[[U:.+]] = tile.matmul %[[X]], %{{.+}} {transpose_b = true}
//  ROUND-NEXT:   arith.truncf %[[U]] : tensor<512xf32> to tensor<512xbf16>
func.func @swiglu(%arg0: tensor<16x256xbf16>, %arg1: tensor<512x256xbf16>, %arg2: tensor<512x256xbf16>) -> tensor<16x512xbf16> {
  %0 = graph.fusion(%arg0, %arg1, %arg2 : tensor<16x256xbf16>, tensor<512x256xbf16>, tensor<512x256xbf16>) attributes {domain = array<i64: 16, 512>, fused_ops = 4 : i64, hbm_bytes_saved = 106496 : i64} -> tensor<16x512xbf16> {
  ^bb0(%arg3: tensor<16x256xbf16>, %arg4: tensor<512x256xbf16>, %arg5: tensor<512x256xbf16>):
    %1 = graph.matmul %arg3, %arg4 {transpose_b = true} : (tensor<16x256xbf16>, tensor<512x256xbf16>) -> tensor<16x512xbf16>
    %2 = graph.matmul %arg3, %arg5 {transpose_b = true} : (tensor<16x256xbf16>, tensor<512x256xbf16>) -> tensor<16x512xbf16>
    %3 = graph.silu %1 : (tensor<16x512xbf16>) -> tensor<16x512xbf16>
    %4 = graph.mul %3, %2 : (tensor<16x512xbf16>, tensor<16x512xbf16>) -> tensor<16x512xbf16>
    graph.yield %4 : tensor<16x512xbf16>
  }
  return %0 : tensor<16x512xbf16>
}

// -----

// A fusion without a matmul is not a GEMM kernel.
// CHECK-LABEL: func.func @plain_kernel0
//  CHECK-SAME:   attributes {tile.domain = array<i64: 4, 64>, tile.kernel, tile.row_buffer = 0 : i64} {
//   CHECK-NOT:   tile.matmul
//       CHECK:   return
func.func @plain(%arg0: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = graph.fusion(%arg0 : tensor<4x64xf32>) attributes {domain = array<i64: 4, 64>, fused_ops = 1 : i64, hbm_bytes_saved = 0 : i64} -> tensor<4x64xf32> {
  ^bb0(%arg1: tensor<4x64xf32>):
    %1 = graph.exp %arg1 : (tensor<4x64xf32>) -> tensor<4x64xf32>
    graph.yield %1 : tensor<4x64xf32>
  }
  return %0 : tensor<4x64xf32>
}
