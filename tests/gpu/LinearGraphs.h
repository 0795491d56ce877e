// Linear layers for the GEMM schedule tests: assembled with ptxas by the CPU
// tests and run against the reference by the GPU tests.
#pragma once

#include "tilec/Graph.h"

namespace tilec::testgraphs {

enum class LinearEpilogue { None, BiasGelu, SwiGlu };

/// x [m, k] @ w [n, k]^T as the output, alone, as gelu(x @ w^T + bias [n])
/// (inputs x, w, bias), or as SwiGLU's silu(x @ w^T) * (x @ u^T) (inputs
/// x, w, u).
inline void buildLinear(Graph &g, int64_t m, int64_t n, int64_t k, DType dtype,
                        LinearEpilogue epilogue) {
  Tensor x = g.input("x", {m, k}, dtype);
  Tensor w = g.input("w", {n, k}, dtype);
  switch (epilogue) {
  case LinearEpilogue::None:
    g.output(matmul(x, w, false, true));
    break;
  case LinearEpilogue::BiasGelu:
    g.output(gelu(nn::linear(x, w, g.input("bias", {n}, dtype))));
    break;
  case LinearEpilogue::SwiGlu:
    g.output(silu(matmul(x, w, false, true)) *
             matmul(x, g.input("u", {n, k}, dtype), false, true));
    break;
  }
}

} // namespace tilec::testgraphs
