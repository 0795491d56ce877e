// Built-in example graphs: the LLM row ops and a plain elementwise chain.
#include "tilec/compiler/Examples.h"

#include <cmath>
#include <optional>

namespace tilec::examples {

const std::vector<std::string> &names() {
  static const std::vector<std::string> n = {"rms_norm",   "softmax",  "layer_norm",
                                             "add_rms_norm", "silu_mul", "elementwise_chain",
                                             "rope", "matmul", "matmul_nn", "matmul_lhs_t",
                                             "matmul_bias_gelu", "matmul_swiglu",
                                             "heads_rms_norm",
                                             "transpose"};
  return n;
}

const std::vector<std::string> &layerNames() {
  static const std::vector<std::string> n = {"decoder_layer"};
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

void buildDecoderLayer(Graph &g, int64_t tokens, int64_t hidden, int64_t past, DType dtype,
                       bool appendInPlace, int64_t capacity) {
  // (A Llama-3-8B layer at hidden 4096: 32 query heads of 128 in groups of
  // 4 over 8 kv heads, an MLP of 3.5 x hidden (14336).)
  const int64_t headDim = 128;
  if (past < 0)
    throw Error("decoder_layer: the past tokens must be >= 0, got " + std::to_string(past));
  if (hidden % (4 * headDim) != 0)
    throw Error("decoder_layer: the hidden size must be a multiple of 512 (heads of 128 in "
                "groups of 4), got " + std::to_string(hidden));
  const int64_t heads = hidden / headDim, kvHeads = heads / 4, group = heads / kvHeads;
  const int64_t ffn = hidden * 7 / 2, keys = past + tokens;
  if (capacity == 0)
    capacity = keys;
  if (capacity < keys || (capacity > keys && (!appendInPlace || past == 0)))
    throw Error("decoder_layer: a cache of " + std::to_string(capacity) +
                " rows cannot hold the past and new tokens (" + std::to_string(keys) +
                "), or is not updated in place (it needs past tokens and update_slice)");
  Tensor x = g.input("x", {tokens, hidden}, dtype);
  Tensor attnNorm = g.input("attn_norm", {hidden}, dtype);
  Tensor wq = g.input("wq", {heads * headDim, hidden}, dtype);
  Tensor wk = g.input("wk", {kvHeads * headDim, hidden}, dtype);
  Tensor wv = g.input("wv", {kvHeads * headDim, hidden}, dtype);
  Tensor wo = g.input("wo", {hidden, heads * headDim}, dtype);
  Tensor mlpNorm = g.input("mlp_norm", {hidden}, dtype);
  Tensor wGate = g.input("w_gate", {ffn, hidden}, dtype);
  Tensor wUp = g.input("w_up", {ffn, hidden}, dtype);
  Tensor wDown = g.input("w_down", {hidden, ffn}, dtype);
  Tensor cos = g.input("cos", {tokens, 1, headDim}, dtype);
  Tensor sin = g.input("sin", {tokens, 1, headDim}, dtype);
  // The caches of keys and values, [kv heads, capacity, head_dim]: the
  // past tokens' rows, and room for the new ones (and more), which the
  // layer writes in place (update_slice; none for a prefill of past 0). Or
  // [kv heads, past, head_dim], joined with the new rows (a copy).
  std::optional<Tensor> kCache, vCache;
  if (past > 0) {
    int64_t rows = appendInPlace ? capacity : past;
    kCache = g.input("k_cache", {kvHeads, rows, headDim}, dtype);
    vCache = g.input("v_cache", {kvHeads, rows, headDim}, dtype);
  }
  auto append = [&](Tensor cache, Tensor rows) {
    return appendInPlace ? update_slice(cache, rows, 1, past) : concat({cache, rows}, 1);
  };
  // The causal mask of the grouped query rows (group x tokens, runs of
  // `tokens` positions after `past` keys) over the cache's rows: computed
  // in the kernels, not read; the rows past the new tokens are removed
  // (the default past where there are none: the last keys).
  Tensor mask =
      g.causal_mask({kvHeads, group * tokens, capacity}, tokens, 0, capacity > keys ? past : -1);

  Tensor h = nn::rms_norm(x, attnNorm, 1e-5);
  // [tokens, heads, head_dim], rotated, then heads first.
  Tensor q = nn::rope(reshape(nn::linear(h, wq), {tokens, heads, headDim}), cos, sin);
  Tensor k = nn::rope(reshape(nn::linear(h, wk), {tokens, kvHeads, headDim}), cos, sin);
  Tensor v = reshape(nn::linear(h, wv), {tokens, kvHeads, headDim});
  // [kv heads, keys, head_dim]: the caches with the new rows at past.
  Tensor kAll = past > 0 ? append(*kCache, transpose(k, 0, 1)) : transpose(k, 0, 1);
  Tensor vAll = past > 0 ? append(*vCache, transpose(v, 0, 1)) : transpose(v, 0, 1);
  // Grouped-query attention: the group's query heads are the rows of one
  // batch of the kv head ([kv heads, group x tokens, head_dim]).
  Tensor qGrouped = reshape(transpose(q, 0, 1), {kvHeads, group * tokens, headDim});
  Tensor o = nn::attention(qGrouped, kAll, vAll, 1.0 / std::sqrt(double(headDim)), mask);
  o = reshape(transpose(reshape(o, {heads, tokens, headDim}), 0, 1), {tokens, hidden});
  auto [h2, x1] = nn::add_rms_norm(nn::linear(o, wo), x, mlpNorm, 1e-5);
  Tensor mlp = nn::linear(nn::silu_mul(nn::linear(h2, wGate), nn::linear(h2, wUp)), wDown);
  g.output(mlp + x1);
  g.output(kAll);
  g.output(vAll);
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
    } else if (name == "matmul_swiglu") {
      // silu(x @ wg^T) * (x @ wu^T): a Llama MLP's gate and up projections
      // (wg, wu [cols, depth]) and their SwiGLU, as decoder_layer has them.
      Tensor x = g.input("x", {rows, depth}, dtype), wg = g.input("wg", {cols, depth}, dtype),
             wu = g.input("wu", {cols, depth}, dtype);
      g.output(nn::silu_mul(nn::linear(x, wg), nn::linear(x, wu)));
    } else if (name == "decoder_layer") {
      buildDecoderLayer(g, rows, cols, depth, dtype);
    } else {
      std::string known;
      for (const auto *list : {&names(), &layerNames()})
        for (const std::string &n : *list)
          known += (known.empty() ? "" : ", ") + n;
      return Status::error("unknown example '" + name + "' (known: " + known + ")");
    }
  } catch (const Error &e) {
    return Status::error(e.what());
  }
  return Status::success();
}

} // namespace tilec::examples
