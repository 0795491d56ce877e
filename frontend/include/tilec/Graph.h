// The tilec C++ DSL: a small operator graph built through Tensor handles.
//
// Building a graph never touches MLIR: the graph is a plain list of nodes in
// topological order. The compiler (compiler/) turns it into the graph dialect;
// the reference evaluator (Reference.h) interprets it on the CPU.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tilec {

enum class DType { F32, F16, BF16 };

const char *dtypeName(DType dtype);
size_t dtypeBytes(DType dtype);

using Shape = std::vector<int64_t>;

/// Symbolic dims: a size fixed later, such as the token count.
/// symbolDim("tokens") is a Shape entry standing for it: a negative code,
/// the same for a name in every graph. Ops treat it as a dim equal only to
/// itself (it broadcasts with 1 like any dim); they refuse to slice or
/// join along it. Graph::bind replaces the symbols by sizes, and the bound
/// graph is what the compiler takes; the reference evaluator binds them
/// from its inputs' shapes.
int64_t symbolDim(const std::string &name);
/// True for a code symbolDim returned (any dim <= -2).
bool isSymbolic(int64_t dim);
/// The name of a symbolic dim; throws Error for any other value.
std::string symbolName(int64_t dim);
/// Sizes of symbolic dims by name (Graph::bind).
using Bindings = std::map<std::string, int64_t>;

/// "[8192, 4096]"; "[tokens, 4096]" with a symbolic dim; "[]" for a scalar.
std::string shapeString(const Shape &shape);
/// "4096", or a symbolic dim's name.
std::string dimString(int64_t dim);
/// The product of the dims; throws Error on symbolic dims or past int64.
int64_t numElements(const Shape &shape);
/// True when `from` broadcasts to exactly `to` by numpy rules.
bool canBroadcastTo(const Shape &from, const Shape &to);

/// Thrown by the DSL when a graph is built wrongly (shape or dtype mismatch,
/// bad axis, unknown tensor). The message names the op and the operands.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class OpKind {
  Input,
  Constant,   // rank-0 splat value
  CausalMask, // [..., R, C] f32: 0 where a query row sees a key, -inf past it
  // binary elementwise (operands of equal shape and dtype)
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  // unary elementwise
  Neg,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Tanh,
  Sigmoid,
  Silu,
  Gelu, // tanh approximation
  Cast,
  // shape
  Broadcast, // numpy rules, right-aligned; operand dims are 1 or equal
  Slice,     // [start, end) along `axis`, step 1
  Concat,    // operands joined along `axis` (other dims equal)
  UpdateSlice, // operand 0 with [start, start + n) of `axis` replaced by operand 1
  Reshape,   // the same elements in row-major order, another shape
  Transpose, // dims `axis` and `axis2` swapped (torch.transpose)
  // reductions along one axis; the reduced dim is kept with size 1;
  // accumulation is always in f32 or wider.
  ReduceSum,
  ReduceMax,
  ReduceMean,
  // matrix product of the last two dims (optionally transposed), f32
  // accumulation; see matmul()
  Matmul,
};

const char *opKindName(OpKind kind); // "add", "exp", "reduce_sum", ...
bool isUnaryElementwise(OpKind kind);  // Neg..Gelu (not Cast)
bool isBinaryElementwise(OpKind kind); // Add..Min
bool isReduction(OpKind kind);

struct Node {
  OpKind kind;
  std::vector<int> operands; // ids of earlier nodes
  Shape shape;
  DType dtype;
  std::string name; // Input: the argument name
  double value = 0; // Constant: the value
  int axis = -1;    // Reduce*, Slice, Concat, UpdateSlice: the (non-negative) axis
  int axis2 = -1;   // Transpose: the dim swapped with `axis` (axis < axis2)
  int64_t start = 0, end = 0; // Slice: the kept range [start, end); UpdateSlice: the replaced one;
                              // CausalMask: start = its past (-1: keys - period)
  bool transposeA = false, transposeB = false; // Matmul: operand transposes
  int64_t period = 0; // CausalMask: rows a run of query positions
  int64_t window = 0; // CausalMask: keys a row sees at most (0: all up to its own)
};

class Graph;

/// A value in a Graph. Cheap to copy; valid while its Graph lives.
class Tensor {
public:
  Tensor() = default;
  Tensor(Graph *graph, int id) : graph_(graph), id_(id) {}

  Graph *graph() const { return graph_; }
  int id() const { return id_; }
  bool valid() const { return graph_ != nullptr && id_ >= 0; }
  const Shape &shape() const;
  DType dtype() const;
  int rank() const { return static_cast<int>(shape().size()); }
  /// Dimension i; negative i counts from the end.
  int64_t dim(int i) const;

private:
  Graph *graph_ = nullptr;
  int id_ = -1;
};

class Graph {
public:
  explicit Graph(std::string name = "graph");
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  const std::string &name() const { return name_; }

  /// A graph argument. Dims must be positive or symbolic (symbolDim);
  /// names must be unique.
  Tensor input(const std::string &name, Shape shape, DType dtype);
  /// A rank-0 constant of the given dtype.
  Tensor constant(double value, DType dtype);
  /// A causal attention mask, f32 of `shape` [..., R, C] (rank >= 2; R and
  /// C may be symbolic, period 0 then standing for R and Graph::bind
  /// checking the period): element [..., r, c] is 0 where c <= r % period + C -
  /// period and -inf past it. The R rows are runs of `period` query
  /// positions (0: period R), each run the last `period` of the C keys:
  /// FlashAttention's causal=True, aligned to the lower right (PyTorch's
  /// causal_lower_right; for R == C the same as is_causal=True), with
  /// grouped-query heads stacked as runs of rows. Needs period to divide
  /// R and period <= C (else a row would see no key). With a `window` W >
  /// 0, a sliding window (Mistral's, Gemma's local layers): only the W
  /// keys up to a row's last, c > r % period + C - period - W, are 0. No
  /// memory holds it: kernels compute it from the indices, and flash
  /// attention skips the key blocks it removes whole. With `past` >= 0 the
  /// runs are not the last keys but those after the first `past` (0 <=
  /// past <= C - period): C - period above reads `past`, and the keys past
  /// a run's last position are removed, as in a KV cache of C rows of
  /// which past + period are filled (flash attention then walks only
  /// those).
  Tensor causal_mask(Shape shape, int64_t period = 0, int64_t window = 0, int64_t past = -1);
  /// Marks t as a graph result (in call order). Each result has its own
  /// buffer: a tensor returned twice, or an input returned as is, is copied.
  void output(Tensor t);

  const std::vector<Node> &nodes() const { return nodes_; }
  const Node &node(int id) const;
  const std::vector<int> &inputs() const { return inputs_; }
  const std::vector<int> &outputs() const { return outputs_; }

  /// Whether any tensor of the graph has a symbolic dim.
  bool symbolic() const;
  /// A copy of the graph with every symbolic dim replaced by its size in
  /// `sizes` (positive; names the graph does not use are ignored). Throws
  /// Error for a symbol without a size.
  std::unique_ptr<Graph> bind(const Bindings &sizes) const;
  /// The sizes of the graph's symbolic dims in inputs of these shapes (in
  /// inputs() order). Throws Error when a shape does not match its input's
  /// declaration or one symbol takes two sizes.
  Bindings bindingsFor(const std::vector<Shape> &inputShapes) const;

  /// Appends a node after checking its operands belong to this graph.
  /// Used by the op builders; shape/dtype checking happens there.
  Tensor addNode(Node node);
  /// Throws Error unless t is a valid tensor of this graph; `op` names the
  /// operation for the message.
  void checkOwned(const Tensor &t, const char *op) const;

private:
  std::string name_;
  std::vector<Node> nodes_;
  std::vector<int> inputs_;
  std::vector<int> outputs_;
};

// ---- Elementwise (numpy broadcasting; dtypes must match) ----
Tensor operator+(Tensor a, Tensor b);
Tensor operator-(Tensor a, Tensor b);
Tensor operator*(Tensor a, Tensor b);
Tensor operator/(Tensor a, Tensor b);
// A double operand becomes a rank-0 constant of the tensor's dtype.
Tensor operator+(Tensor a, double b);
Tensor operator+(double a, Tensor b);
Tensor operator-(Tensor a, double b);
Tensor operator-(double a, Tensor b);
Tensor operator*(Tensor a, double b);
Tensor operator*(double a, Tensor b);
Tensor operator/(Tensor a, double b);
Tensor operator/(double a, Tensor b);
Tensor operator-(Tensor a);
Tensor maximum(Tensor a, Tensor b);
Tensor minimum(Tensor a, Tensor b);
Tensor exp(Tensor a);
Tensor log(Tensor a);
Tensor sqrt(Tensor a);
Tensor rsqrt(Tensor a);
Tensor tanh(Tensor a);
Tensor sigmoid(Tensor a);
Tensor silu(Tensor a);
Tensor gelu(Tensor a); // tanh approximation
Tensor cast(Tensor a, DType dtype);

// ---- Shape ----
/// Explicit broadcast to `shape` (numpy rules). Returns `a` if already equal.
Tensor broadcast_to(Tensor a, const Shape &shape);
/// Elements [start, end) of `axis` (negative axis counts from the end;
/// 0 <= start < end <= dim). Returns `a` when the range is the whole axis.
Tensor slice(Tensor a, int axis, int64_t start, int64_t end);
/// Joins tensors of one dtype along `axis`; the other dims must be equal.
Tensor concat(const std::vector<Tensor> &parts, int axis);
/// `buffer` with elements [start, start + n) of `axis` replaced by
/// `update` (n = update.dim(axis); the other dims and the dtype equal
/// buffer's): XLA's dynamic_update_slice at a static start, torch's
/// `buffer.narrow(axis, start, n).copy_(update)`. `buffer` must be a graph
/// input, and is updated in place (donated, as jax.jit's donate_argnums):
/// the compiled program writes only the n updated slices into the result,
/// which must be a graph output and is the input's own buffer where the
/// caller passes one buffer for both (Executable::run; otherwise the run
/// copies the input into the output first). The input may have no other
/// reader, since its old contents are gone after the update. A KV cache's
/// append: update_slice(k_cache, k_new, 1, past) writes the new keys at
/// [:, past, :] without copying the cache. `axis` must be a row dim (not
/// the last) and static.
Tensor update_slice(Tensor buffer, Tensor update, int axis, int64_t start);
/// The same elements in row-major order under another shape, like
/// torch.reshape of a contiguous tensor: [tokens, 32, 128] -> [tokens,
/// 4096]. One dim may be -1 (inferred). Symbolic dims must appear in the
/// same order on both sides, and the static dims' products must match.
/// Returns `a` when the shape is the same. One that keeps the last dim
/// relabels row dims and joins row kernels; any other is compiled as a
/// view between kernels (the producer's buffer read under the new shape).
Tensor reshape(Tensor a, Shape shape);
/// Dims `dim0` and `dim1` swapped (negative dims count from the end), like
/// torch.transpose, but a new tensor, not a view: the elements are in the
/// row-major order of the new shape. Returns `a` when dim0 == dim1. The
/// compiler gathers a swap of row dims (the last dim kept) in the row
/// kernel that reads it, takes a swap of the last two dims that feeds a
/// matmul operand as that operand's transpose (no kernel), and a swap that
/// keeps the order of the dims larger than 1 as a reshape (a view); any
/// other swap of the last dim is a kernel of its own over strided rows.
Tensor transpose(Tensor a, int dim0, int dim1);

// ---- Reductions (keep the reduced dim with size 1; axis may be negative) ----
Tensor sum(Tensor a, int axis);
Tensor max(Tensor a, int axis);
Tensor mean(Tensor a, int axis);

// ---- Matrix product ----
/// Product of the last two dims, like torch.matmul with optional transposes
/// of the last two dims: a is [..., M, K] ([..., K, M] if transposeA); b is
/// [K, N] ([N, K] if transposeB), shared by every batch, or [..., K, N] with
/// exactly a's leading (batch) dims (no other batch broadcasting). Both ranks
/// must be >= 2 and the dtypes equal. The result is [..., M, N] in a's dtype
/// (or `outDType`); products are accumulated in f32 (the reference: double).
Tensor matmul(Tensor a, Tensor b, bool transposeA = false,
              bool transposeB = false);
Tensor matmul(Tensor a, Tensor b, DType outDType, bool transposeA = false,
              bool transposeB = false);

// ---- LLM op library, built from the primitives above ----
namespace nn {
/// x * rsqrt(mean(x^2, -1) + eps) * w, computed in f32, result in x's dtype.
/// w has shape [x.dim(-1)].
Tensor rms_norm(Tensor x, Tensor w, double eps = 1e-6);
/// (x - mean) * rsqrt(var + eps) * w + b over the last dim; computed in f32.
Tensor layer_norm(Tensor x, Tensor w, Tensor b, double eps = 1e-5);
/// Numerically stable softmax over the last dim, computed in f32.
Tensor softmax(Tensor x);
/// SwiGLU gate: silu(a) * b.
Tensor silu_mul(Tensor a, Tensor b);
/// Residual add then RMSNorm: h = x + residual; returns {rms_norm(h, w), h}.
std::pair<Tensor, Tensor> add_rms_norm(Tensor x, Tensor residual, Tensor w,
                                       double eps = 1e-6);
/// [-x2, x1] for x = [x1, x2] split in halves along the last dim.
Tensor rotate_half(Tensor x);
/// Rotary position embedding (rotate-half form, as in Llama):
/// x * cos + rotate_half(x) * sin, computed in f32, result in x's dtype.
/// x is [..., D] with D even; cos and sin broadcast to x (e.g. x is
/// [tokens, heads, D] and cos, sin are [tokens, 1, D]) and have x's dtype.
Tensor rope(Tensor x, Tensor cos, Tensor sin);
/// PyTorch's Linear: x @ w^T (+ bias), i.e. matmul(x, w, false, true) plus
/// bias broadcast over the rows. x is [..., in] with rank >= 2, w is
/// [out, in], bias is [out]; all in x's dtype; the result is [..., out] in
/// x's dtype.
Tensor linear(Tensor x, Tensor w);
Tensor linear(Tensor x, Tensor w, Tensor bias);
/// Scaled dot-product attention, softmax(q @ k^T * scale) @ v, as
/// torch.nn.functional.scaled_dot_product_attention without a mask: q is
/// [..., Sq, D], k [..., Sk, D], v [..., Sk, Dv] with equal leading (batch,
/// head) dims and dtypes; the result is [..., Sq, Dv] in q's dtype. The
/// scores and the softmax are f32; the probabilities are rounded to q's
/// dtype for the second product (as flash attention does). The compiler
/// fuses it into one flash-attention kernel or leaves three (the scores'
/// GEMM, the softmax, the second GEMM) by shape (CompileOptions::fuseAttention).
Tensor attention(Tensor q, Tensor k, Tensor v, double scale);
/// The same with an additive mask (attn_mask of scaled_dot_product_attention
/// as a float tensor): softmax(q @ k^T * scale + mask) @ v. `mask` broadcasts
/// to the scores [..., Sq, Sk] (e.g. [Sq, Sk] for every batch and head, or
/// [..., 1, Sk] for key padding), any float dtype (added in f32); -inf
/// removes a key (causalMask below). A row whose every key is removed has
/// no defined softmax (NaN, as in PyTorch). It joins the scores' epilogue
/// (of the flash kernel or of the scores' GEMM).
Tensor attention(Tensor q, Tensor k, Tensor v, double scale, Tensor mask);
/// Causal attention: the same with Graph::causal_mask over the scores
/// [..., Sq, Sk] (query row r sees keys up to r % period + Sk - period;
/// period 0: Sq, i.e. FlashAttention's causal=True, PyTorch's
/// causal_lower_right). Grouped-query heads stacked as rows of one batch
/// take period = the tokens. No mask is read: the kernels compute it, and
/// flash attention skips the key blocks it removes whole. `window` > 0:
/// each query sees only the last `window` of those keys (sliding-window
/// attention).
Tensor causal_attention(Tensor q, Tensor k, Tensor v, double scale, int64_t period = 0,
                        int64_t window = 0);
} // namespace nn

} // namespace tilec
