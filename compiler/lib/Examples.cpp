// Built-in example graphs: the LLM row ops and a plain elementwise chain.
#include "tilec/compiler/Examples.h"

namespace tilec::examples {

const std::vector<std::string> &names() {
  static const std::vector<std::string> n = {"rms_norm",   "softmax",  "layer_norm",
                                             "add_rms_norm", "silu_mul", "elementwise_chain",
                                             "rope", "matmul", "matmul_nn", "matmul_lhs_t",
                                             "matmul_bias_gelu", "heads_rms_norm",
                                             "transpose"};
  return n;
}

std::vector<std::pair<int64_t, int64_t>> issueShapes(const std::string &name,
                                                     const std::vector<int64_t> &tokens) {
  std::vector<int64_t> cols = {4096, 8192};
  if (name == "softmax")
    cols = {4096, 8192, 32768, 131072};
  else if (name == "silu_mul")
    cols = {14336};
  else if (name == "rope")
    cols = {4096};
  std::vector<std::pair<int64_t, int64_t>> shapes;
  for (int64_t t : tokens)
    for (int64_t c : cols)
      if (!(t >= 16384 && c >= 131072))
        shapes.push_back({t, c});
  return shapes;
}

Expected<DType> parseDType(const std::string &name) {
  for (DType d : {DType::F32, DType::F16, DType::BF16})
    if (name == dtypeName(d))
      return d;
  return Status::error("unknown dtype '" + name + "' (expected f32, f16 or bf16)");
}

Status build(const std::string &name, Graph &g, int64_t rows, int64_t cols, DType dtype,
             int64_t depth) {
  Shape shape{rows, cols};
  try {
    if (name == "rms_norm") {
      Tensor x = g.input("x", shape, dtype), w = g.input("w", {cols}, dtype);
      g.output(nn::rms_norm(x, w, 1e-6));
    } else if (name == "softmax") {
      g.output(nn::softmax(g.input("x", shape, dtype)));
    } else if (name == "layer_norm") {
      Tensor x = g.input("x", shape, dtype), w = g.input("w", {cols}, dtype),
             b = g.input("b", {cols}, dtype);
      g.output(nn::layer_norm(x, w, b, 1e-5));
    } else if (name == "add_rms_norm") {
      Tensor x = g.input("x", shape, dtype), r = g.input("residual", shape, dtype),
             w = g.input("w", {cols}, dtype);
      auto [y, h] = nn::add_rms_norm(x, r, w, 1e-6);
      g.output(y);
      g.output(h);
    } else if (name == "silu_mul") {
      Tensor a = g.input("a", shape, dtype), b = g.input("b", shape, dtype);
      g.output(nn::silu_mul(a, b));
    } else if (name == "elementwise_chain") {
      // Five elementwise ops, each rounding to the input dtype.
      Tensor x = g.input("x", shape, dtype), y = g.input("y", shape, dtype);
      g.output(sigmoid(x) * y + gelu(x) - x);
    } else if (name == "rope") {
      // [tokens, heads, head_dim] with head_dim 128 when cols is a multiple of
      // it (cols = hidden size), else one head of cols; cos/sin per token.
      int64_t headDim = cols % 128 == 0 ? 128 : cols;
      Tensor x = g.input("x", {rows, cols / headDim, headDim}, dtype);
      Tensor c = g.input("cos", {rows, 1, headDim}, dtype);
      Tensor s = g.input("sin", {rows, 1, headDim}, dtype);
      g.output(nn::rope(x, c, s));
    } else if (name == "heads_rms_norm") {
      // rms_norm over head_dim of x [rows, heads, head_dim] moved heads first
      // ([heads, rows, head_dim], as attention kernels take it): one row
      // kernel whose loads gather the rows (head_dim as in rope; w
      // [head_dim], a q/k norm's weight).
      int64_t headDim = cols % 128 == 0 ? 128 : cols;
      Tensor x = g.input("x", {rows, cols / headDim, headDim}, dtype);
      g.output(nn::rms_norm(transpose(x, 0, 1), g.input("w", {headDim}, dtype), 1e-6));
    } else if (name == "transpose") {
      // x [rows, cols] -> [cols, rows], a new tensor (torch's
      // x.transpose(0, 1).contiguous()): its own kernel, through
      // shared-memory tiles.
      g.output(transpose(g.input("x", {rows, cols}, dtype), 0, 1));
    } else if (name == "matmul") {
      // a [rows, depth] @ b^T with b [cols, depth]: both operands K-major (the
      // layout of nn.Linear weights; cuBLAS's "TN"), which the wgmma path reads.
      Tensor a = g.input("a", {rows, depth}, dtype), b = g.input("b", {cols, depth}, dtype);
      g.output(matmul(a, b, false, true));
    } else if (name == "matmul_nn") {
      // a [rows, depth] @ b with b [depth, cols] (row-major weights).
      Tensor a = g.input("a", {rows, depth}, dtype), b = g.input("b", {depth, cols}, dtype);
      g.output(matmul(a, b));
    } else if (name == "matmul_lhs_t") {
      // a^T @ b^T with a [depth, rows] (a transposed lhs, read MN-major) and
      // b [cols, depth].
      Tensor a = g.input("a", {depth, rows}, dtype), b = g.input("b", {cols, depth}, dtype);
      g.output(matmul(a, b, true, true));
    } else if (name == "matmul_bias_gelu") {
      // gelu(x @ w^T + bias): a Linear layer (w [cols, depth]) and its activation.
      Tensor x = g.input("x", {rows, depth}, dtype), w = g.input("w", {cols, depth}, dtype),
             b = g.input("bias", {cols}, dtype);
      g.output(gelu(nn::linear(x, w, b)));
    } else {
      std::string known;
      for (const std::string &n : names())
        known += (known.empty() ? "" : ", ") + n;
      return Status::error("unknown example '" + name + "' (known: " + known + ")");
    }
  } catch (const Error &e) {
    return Status::error(e.what());
  }
  return Status::success();
}

} // namespace tilec::examples
