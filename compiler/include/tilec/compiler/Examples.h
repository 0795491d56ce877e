// Built-in example graphs, by name (for the tilec CLI, tests and benchmarks).
#pragma once

#include "tilec/Graph.h"
#include "tilec/Status.h"

#include <string>
#include <utility>
#include <vector>

namespace tilec::examples {

/// rms_norm, softmax, layer_norm, add_rms_norm, silu_mul, elementwise_chain,
/// rope (x [rows, cols / 128, 128], or [rows, 1, cols] when cols is not a
/// multiple of 128; cos and sin [rows, 1, head_dim]), matmul (a [rows, depth]
/// @ b^T, b [cols, depth]), matmul_nn (a @ b, b [depth, cols]), matmul_lhs_t
/// (a^T @ b^T, a [depth, rows], b [cols, depth]), matmul_bias_gelu
/// (gelu(x [rows, depth] @ w^T + bias), w [cols, depth]), heads_rms_norm
/// (rms_norm of x [rows, heads, head_dim] transposed to [heads, rows,
/// head_dim], head_dim as in rope; w [head_dim]).
const std::vector<std::string> &names();

/// Whole layers (several kernels), which build() takes too:
/// decoder_layer (buildDecoderLayer: rows = tokens, cols = hidden, depth =
/// the past tokens in the kv cache).
const std::vector<std::string> &layerNames();

/// A Llama-style decoder layer for `tokens` new tokens after `past` cached
/// ones, hidden size `hidden` (a multiple of 512): RMSNorm; q, k, v
/// projections (query heads of 128 in groups of 4 over hidden / 512 kv
/// heads); RoPE on q and k (cos, sin [tokens, 1, 128]); k and v written
/// into the caches in place (update_slice: caches [kv heads, capacity,
/// 128], capacity >= past + tokens (0: exactly that), the past tokens'
/// rows, room for the new ones at past, and rows not yet filled, which
/// the causal mask removes; with `appendInPlace` false, caches [kv heads,
/// past, 128] joined with the new rows by concat, a copy of the whole
/// cache; past 0: no cache inputs, the new keys and values returned);
/// grouped-query attention with a causal mask over the new tokens
/// (computed); the output projection and the residual add with RMSNorm; a
/// SwiGLU MLP of 3.5 x hidden and its residual add. Outputs: the layer's
/// result [tokens, hidden] and both caches. Throws Error on a bad size.
void buildDecoderLayer(Graph &graph, int64_t tokens, int64_t hidden, int64_t past,
                       DType dtype, bool appendInPlace = true, int64_t capacity = 0);

/// Adds the named example on [rows, cols] tensors of `dtype` to `graph`
/// (inputs, ops and outputs). Unknown names give an error listing the known.
Status build(const std::string &name, Graph &graph, int64_t rows, int64_t cols,
             DType dtype, int64_t depth = 4096);

/// Whether the example is a matrix product (its shape is rows x cols x depth).
inline bool isMatmul(const std::string &name) {
  return name == "matmul" || name == "matmul_nn" || name == "matmul_lhs_t" ||
         name == "matmul_bias_gelu" || name == "matmul_swiglu";
}

/// "f32" | "f16" | "bf16".
Expected<DType> parseDType(const std::string &name);

/// Issue 3's shapes of a row example, [tokens, cols] for each of `tokens`:
/// hidden 4096 and 8192; softmax also 32768 and 131072 columns (logits; not
/// 16384 x 131072, 8.6 GB a tensor in f32); silu_mul's a and b
/// [tokens, 14336]; rope [tokens, 32 heads, 128], i.e. 4096 columns.
/// (tests/gpu/peers.py --grid=issue3 lists the same.)
std::vector<std::pair<int64_t, int64_t>> issueShapes(const std::string &name,
                                                     const std::vector<int64_t> &tokens);

} // namespace tilec::examples
