// A graph-dialect SwiGLU MLP projection for tilec's file input (not a test
// itself: tests/lit/lit.cfg.py excludes Inputs/): silu(x @ wg^T) * (x @ wu^T),
// bf16, 128 rows, both weights stored [N, K] (K-major, like nn.Linear). Used
// by gemm-emit.test and gemm-ptxas.test.
func.func @swiglu(%x: tensor<128x256xbf16>, %wg: tensor<512x256xbf16>, %wu: tensor<512x256xbf16>) -> tensor<128x512xbf16> {
  %g = graph.matmul %x, %wg {transpose_b = true} : (tensor<128x256xbf16>, tensor<512x256xbf16>) -> tensor<128x512xbf16>
  %u = graph.matmul %x, %wu {transpose_b = true} : (tensor<128x256xbf16>, tensor<512x256xbf16>) -> tensor<128x512xbf16>
  %s = graph.silu %g : (tensor<128x512xbf16>) -> tensor<128x512xbf16>
  %y = graph.mul %s, %u : (tensor<128x512xbf16>, tensor<128x512xbf16>) -> tensor<128x512xbf16>
  return %y : tensor<128x512xbf16>
}
