// RUN: tilec-opt --tilec-distribute-gemm-tiles %s | FileCheck %s

// f16 operands: nvvm.mma.sync takes f16 A/B registers as vector<2xf16> (bf16
// ones as i32), and the multiplicand types are implied by them (not printed).
// At 60b488b this kernel failed to verify ("Could not match types for the A
// operands; expected one of 4xvector<2xf16> but got i32, i32, i32, i32"),
// so every f16 GEMM failed to compile (`tilec --dtype=f16 matmul`).

// CHECK-LABEL: gpu.func @f16
// CHECK:         scf.for
// CHECK:           nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = false} : memref<2x32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK:           nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = true} : memref<2x16x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-COUNT-8:   nvvm.mma.sync A[{{.+}}]  B[{{.+}}]  C[{{.+}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT:       nvvm.mma.sync
// CHECK:         arith.truncf %{{.+}} : vector<2xf32> to vector<2xf16>
// CHECK:         vector.store %{{.+}}, %arg2[{{.+}}] {alignment = 4 : i64} : memref<?x64xf16>, vector<2xf16>
func.func @f16(%x: memref<?x64xf16>, %w: memref<64x64xf16>, %y: memref<?x64xf16>) attributes {tile.kernel, tile.gemm, tile.domain = array<i64: 32, 64>, tile.schedule = {block_m = 32 : i64, block_n = 32 : i64, block_k = 16 : i64, warps_m = 1 : i64, warps_n = 1 : i64, stages = 2 : i64, group_m = 8 : i64, grid = 2 : i64, threads = 32 : i64, shared_bytes = 4096 : i64}} {
  %r = tile.row_id
  %p = tile.matmul %x, %w[%r] : memref<?x64xf16>, memref<64x64xf16> -> tensor<64xf32>
  %t = arith.truncf %p : tensor<64xf32> to tensor<64xf16>
  tile.store %t, %y[%r] : tensor<64xf16> -> memref<?x64xf16>
  return
}
