// A small graph-dialect program for tilec's file input (not a test itself:
// tests/lit/lit.cfg.py excludes Inputs/). An MLP block in bf16:
// gelu(x @ w1^T + b1) @ w2, with w1 stored [N, K] (a Linear weight) and w2
// stored [K, N]. Used by gemm-emit.test and gemm-ptxas.test.
func.func @mlp(%x: tensor<64x128xbf16>, %w1: tensor<256x128xbf16>, %b1: tensor<256xbf16>, %w2: tensor<256x64xbf16>) -> tensor<64x64xbf16> {
  %0 = graph.matmul %x, %w1 {transpose_b = true} : (tensor<64x128xbf16>, tensor<256x128xbf16>) -> tensor<64x256xbf16>
  %1 = graph.broadcast %b1 : (tensor<256xbf16>) -> tensor<64x256xbf16>
  %2 = graph.add %0, %1 : (tensor<64x256xbf16>, tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %3 = graph.gelu %2 : (tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %4 = graph.matmul %3, %w2 : (tensor<64x256xbf16>, tensor<256x64xbf16>) -> tensor<64x64xbf16>
  return %4 : tensor<64x64xbf16>
}
