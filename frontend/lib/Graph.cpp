// The tilec DSL core: dtype/shape helpers, the Graph container and the
// elementwise, shape and reduction op builders.
#include "tilec/Graph.h"

#include <algorithm>
#include <mutex>
#include <sstream>

namespace tilec {

//===----------------------------------------------------------------------===//
// DType and shape helpers
//===----------------------------------------------------------------------===//

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  }
  return "?";
}

size_t dtypeBytes(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  }
  return 0;
}

namespace {
// The names of the symbolic dims: code -2 - i is names[i].
struct SymbolTable {
  std::mutex mutex;
  std::vector<std::string> names;
};
SymbolTable &symbolTable() {
  static SymbolTable table;
  return table;
}
} // namespace

int64_t symbolDim(const std::string &name) {
  if (name.empty())
    throw Error("symbolDim: the name must not be empty");
  SymbolTable &t = symbolTable();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = std::find(t.names.begin(), t.names.end(), name);
  if (it == t.names.end())
    it = t.names.insert(t.names.end(), name);
  return -2 - static_cast<int64_t>(it - t.names.begin());
}

bool isSymbolic(int64_t dim) { return dim <= -2; }

std::string symbolName(int64_t dim) {
  SymbolTable &t = symbolTable();
  std::lock_guard<std::mutex> lock(t.mutex);
  if (!isSymbolic(dim) || static_cast<uint64_t>(-2 - dim) >= t.names.size())
    throw Error("symbolName: " + std::to_string(dim) + " is not a symbolic dim (symbolDim)");
  return t.names[static_cast<size_t>(-2 - dim)];
}

std::string dimString(int64_t dim) {
  return isSymbolic(dim) ? symbolName(dim) : std::to_string(dim);
}

std::string shapeString(const Shape &shape) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      os << ", ";
    os << dimString(shape[i]);
  }
  os << ']';
  return os.str();
}

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    // A negative dim, or a count past int64, would silently produce a
    // nonsense element count.
    if (isSymbolic(d))
      throw Error("numElements: shape " + shapeString(shape) +
                  " has symbolic dims (Graph::bind gives them sizes)");
    if (d < 0)
      throw Error("numElements: negative dim in shape " + shapeString(shape));
    if (__builtin_mul_overflow(n, d, &n))
      throw Error("shape " + shapeString(shape) + " has more than 2^63 - 1 elements");
  }
  return n;
}

/// Throws unless a tensor of `shape` (positive or symbolic dims) and
/// `dtype` has a byte size, and so an element count, that fits in int64
/// (`what` names it in the message). Symbolic dims count as 1 here; bind
/// checks again with their sizes.
static void checkSize(const std::string &what, const Shape &shape, DType dtype) {
  int64_t bytes = static_cast<int64_t>(dtypeBytes(dtype));
  for (int64_t d : shape)
    if (!isSymbolic(d) && __builtin_mul_overflow(bytes, d, &bytes))
      throw Error(what + ": shape " + shapeString(shape) + " of " + dtypeName(dtype) +
                  " takes more than 2^63 - 1 bytes");
}

/// Throws unless every dim of `shape` is positive or symbolic (a code
/// symbolDim gave): "<what> dims must be positive or symbolic, got [...]".
static void checkDims(const std::string &what, const Shape &shape) {
  for (int64_t d : shape) {
    if (isSymbolic(d))
      symbolName(d); // (throws for a code symbolDim never gave)
    else if (d <= 0)
      throw Error(what + " dims must be positive or symbolic, got " + shapeString(shape));
  }
}

bool canBroadcastTo(const Shape &from, const Shape &to) {
  if (from.size() > to.size())
    return false;
  size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != to[offset + i] && from[i] != 1)
      return false;
  return true;
}

const char *opKindName(OpKind kind) {
  switch (kind) {
  case OpKind::Input:
    return "input";
  case OpKind::Constant:
    return "constant";
  case OpKind::CausalMask:
    return "causal_mask";
  case OpKind::Add:
    return "add";
  case OpKind::Sub:
    return "sub";
  case OpKind::Mul:
    return "mul";
  case OpKind::Div:
    return "div";
  case OpKind::Max:
    return "max";
  case OpKind::Min:
    return "min";
  case OpKind::Neg:
    return "neg";
  case OpKind::Exp:
    return "exp";
  case OpKind::Log:
    return "log";
  case OpKind::Sqrt:
    return "sqrt";
  case OpKind::Rsqrt:
    return "rsqrt";
  case OpKind::Tanh:
    return "tanh";
  case OpKind::Sigmoid:
    return "sigmoid";
  case OpKind::Silu:
    return "silu";
  case OpKind::Gelu:
    return "gelu";
  case OpKind::Cast:
    return "cast";
  case OpKind::Broadcast:
    return "broadcast";
  case OpKind::Slice:
    return "slice";
  case OpKind::Concat:
    return "concat";
  case OpKind::UpdateSlice:
    return "update_slice";
  case OpKind::Reshape:
    return "reshape";
  case OpKind::Transpose:
    return "transpose";
  case OpKind::ReduceSum:
    return "reduce_sum";
  case OpKind::ReduceMax:
    return "reduce_max";
  case OpKind::ReduceMean:
    return "reduce_mean";
  case OpKind::Matmul:
    return "matmul";
  }
  return "?";
}

bool isUnaryElementwise(OpKind kind) {
  return kind >= OpKind::Neg && kind <= OpKind::Gelu;
}

bool isBinaryElementwise(OpKind kind) {
  return kind >= OpKind::Add && kind <= OpKind::Min;
}

bool isReduction(OpKind kind) {
  return kind >= OpKind::ReduceSum && kind <= OpKind::ReduceMean;
}

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

const Shape &Tensor::shape() const {
  if (!valid())
    throw Error("Tensor::shape: invalid (default-constructed) tensor");
  return graph_->node(id_).shape;
}

DType Tensor::dtype() const {
  if (!valid())
    throw Error("Tensor::dtype: invalid (default-constructed) tensor");
  return graph_->node(id_).dtype;
}

int64_t Tensor::dim(int i) const {
  const Shape &s = shape();
  int r = static_cast<int>(s.size());
  int idx = i < 0 ? i + r : i;
  if (idx < 0 || idx >= r)
    throw Error("Tensor::dim: index " + std::to_string(i) +
                " out of range for shape " + shapeString(s));
  return s[idx];
}

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

Graph::Graph(std::string name) : name_(std::move(name)) {}

Tensor Graph::input(const std::string &name, Shape shape, DType dtype) {
  if (name.empty())
    throw Error("input: the name must not be empty");
  for (int id : inputs_)
    if (nodes_[id].name == name)
      throw Error("input: duplicate input name '" + name + "'");
  checkDims("input '" + name + "':", shape);
  checkSize("input '" + name + "'", shape, dtype);
  Node node;
  node.kind = OpKind::Input;
  node.shape = std::move(shape);
  node.dtype = dtype;
  node.name = name;
  Tensor t = addNode(std::move(node));
  inputs_.push_back(t.id());
  return t;
}

Tensor Graph::constant(double value, DType dtype) {
  Node node;
  node.kind = OpKind::Constant;
  node.dtype = dtype;
  node.value = value;
  return addNode(std::move(node));
}

/// Throws unless `period` (0: the rows, symbolic) divides the rows of a
/// causal mask of `shape` and is at most its keys, where those are known.
static void checkCausalPeriod(const std::string &what, const Shape &shape, int64_t period) {
  int64_t rows = shape[shape.size() - 2], keys = shape.back();
  bool ok = period == 0 ? isSymbolic(rows) // (the rows: known at bind)
                        : period > 0 && (isSymbolic(rows) || rows % period == 0) &&
                              (isSymbolic(keys) || period <= keys);
  if (!ok)
    throw Error(what + ": period " + std::to_string(period) + " must divide the " +
                dimString(rows) + " rows and be at most the " + dimString(keys) +
                " keys (shape " + shapeString(shape) + ")");
}

// past: -1 (the last keys), or 0 <= past <= keys - period (checked where
// the keys and the period are known).
static void checkCausalPast(const std::string &what, const Shape &shape, int64_t period,
                            int64_t past) {
  int64_t keys = shape.back();
  if (past == -1 || (past >= 0 && (isSymbolic(keys) || period == 0 || past <= keys - period)))
    return;
  throw Error(what + ": past " + std::to_string(past) + " must be -1 (the last keys) or in [0, " +
              (isSymbolic(keys) || period == 0 ? std::string("keys - period")
                                               : std::to_string(keys - period)) +
              "] (shape " + shapeString(shape) + ", period " + std::to_string(period) + ")");
}

Tensor Graph::causal_mask(Shape shape, int64_t period, int64_t window, int64_t past) {
  checkDims("causal_mask: shape", shape);
  if (shape.size() < 2)
    throw Error("causal_mask: need a shape [..., rows, keys] of rank >= 2, got " +
                shapeString(shape));
  int64_t rows = shape[shape.size() - 2];
  // (Symbolic rows or keys: period 0 stays "the rows", and Graph::bind
  // checks what cannot be checked now.)
  if (period == 0 && !isSymbolic(rows))
    period = rows;
  checkCausalPeriod("causal_mask", shape, period);
  if (window < 0)
    throw Error("causal_mask: the window must be >= 0 keys (0: no window), got " +
                std::to_string(window));
  checkCausalPast("causal_mask", shape, period, past);
  checkSize("causal_mask", shape, DType::F32);
  Node node;
  node.kind = OpKind::CausalMask;
  node.shape = std::move(shape);
  node.dtype = DType::F32;
  node.period = period;
  node.window = window;
  node.start = past;
  return addNode(std::move(node));
}

void Graph::output(Tensor t) {
  checkOwned(t, "output");
  outputs_.push_back(t.id());
}

bool Graph::symbolic() const {
  for (const Node &n : nodes_)
    for (int64_t d : n.shape)
      if (isSymbolic(d))
        return true;
  return false;
}

std::unique_ptr<Graph> Graph::bind(const Bindings &sizes) const {
  for (const auto &[name, size] : sizes)
    if (size <= 0)
      throw Error("bind: the size of '" + name + "' must be positive, got " +
                  std::to_string(size));
  auto bound = std::make_unique<Graph>(name_);
  bound->nodes_ = nodes_;
  bound->inputs_ = inputs_;
  bound->outputs_ = outputs_;
  for (Node &n : bound->nodes_) {
    for (int64_t &d : n.shape) {
      if (!isSymbolic(d))
        continue;
      auto it = sizes.find(symbolName(d));
      if (it == sizes.end())
        throw Error("bind: graph '" + name_ + "' has the symbolic dim '" + symbolName(d) +
                    "' and no size for it");
      d = it->second;
    }
    // (Slices and joins never run along a symbolic dim, so only shapes
    // change; sizes past int64 are refused as they would be when built.)
    checkSize("bind", n.shape, n.dtype);
    if (n.kind == OpKind::CausalMask) { // (its period, now that the dims are known)
      if (n.period == 0)
        n.period = n.shape[n.shape.size() - 2];
      checkCausalPeriod("bind: causal_mask", n.shape, n.period);
      checkCausalPast("bind: causal_mask", n.shape, n.period, n.start);
    }
  }
  return bound;
}

Bindings Graph::bindingsFor(const std::vector<Shape> &inputShapes) const {
  if (inputShapes.size() != inputs_.size())
    throw Error("bind: graph '" + name_ + "' takes " + std::to_string(inputs_.size()) +
                " inputs, got " + std::to_string(inputShapes.size()) + " shapes");
  Bindings sizes;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const Node &decl = nodes_[inputs_[i]];
    const Shape &got = inputShapes[i];
    bool matches = got.size() == decl.shape.size();
    for (size_t k = 0; matches && k < got.size(); ++k) {
      int64_t d = decl.shape[k];
      if (!isSymbolic(d)) {
        matches = got[k] == d;
        continue;
      }
      matches = got[k] > 0;
      auto [it, added] = sizes.emplace(symbolName(d), got[k]);
      if (matches && !added && it->second != got[k])
        throw Error("bind: the symbolic dim '" + it->first + "' is " +
                    std::to_string(got[k]) + " in input '" + decl.name + "' " +
                    shapeString(got) + " but " + std::to_string(it->second) +
                    " in an earlier input");
    }
    if (!matches)
      throw Error("bind: input '" + decl.name + "' is declared " + shapeString(decl.shape) +
                  ", got " + shapeString(got));
  }
  return sizes;
}

const Node &Graph::node(int id) const {
  if (id < 0 || id >= static_cast<int>(nodes_.size()))
    throw Error("Graph::node: id " + std::to_string(id) +
                " out of range (graph '" + name_ + "' has " +
                std::to_string(nodes_.size()) + " nodes)");
  return nodes_[id];
}

Tensor Graph::addNode(Node node) {
  // Operands must already exist, which keeps the node list topologically
  // sorted by construction.
  for (int operand : node.operands)
    if (operand < 0 || operand >= static_cast<int>(nodes_.size()))
      throw Error(std::string(opKindName(node.kind)) + ": operand id " +
                  std::to_string(operand) + " is not a node of graph '" +
                  name_ + "'");
  nodes_.push_back(std::move(node));
  return Tensor(this, static_cast<int>(nodes_.size()) - 1);
}

void Graph::checkOwned(const Tensor &t, const char *op) const {
  if (!t.valid())
    throw Error(std::string(op) + ": invalid (default-constructed) tensor");
  if (t.graph() != this)
    throw Error(std::string(op) + ": tensor belongs to another graph ('" +
                t.graph()->name() + "', not '" + name_ + "')");
  if (t.id() >= static_cast<int>(nodes_.size()))
    throw Error(std::string(op) + ": tensor id " + std::to_string(t.id()) +
                " is not a node of graph '" + name_ + "'");
}

//===----------------------------------------------------------------------===//
// Op builders
//===----------------------------------------------------------------------===//

namespace {

// Validates a tensor on its own graph; a tensor carries its graph, so a valid
// tensor is trivially owned by it, but this also rejects stale/invalid ids.
Graph &ownerOf(const Tensor &t, const char *op) {
  if (!t.valid())
    throw Error(std::string(op) + ": invalid (default-constructed) tensor");
  t.graph()->checkOwned(t, op);
  return *t.graph();
}

std::string describe(const Tensor &t) {
  return std::string(dtypeName(t.dtype())) + " " + shapeString(t.shape());
}

// Numpy broadcast of two shapes; returns false when incompatible.
bool broadcastShapes(const Shape &a, const Shape &b, Shape &result) {
  size_t rank = std::max(a.size(), b.size());
  result.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      return false;
    result[rank - 1 - i] = da == 1 ? db : da;
  }
  return true;
}

Tensor broadcastNode(Tensor a, const Shape &shape) {
  // A causal mask over more leading dims is the mask of that shape: no
  // broadcast to map its rows through.
  const Node &src = a.graph()->node(a.id());
  if (src.kind == OpKind::CausalMask &&
      Shape(shape.end() - 2, shape.end()) == Shape(src.shape.end() - 2, src.shape.end()))
    return a.graph()->causal_mask(shape, src.period, src.window);
  Node node;
  node.kind = OpKind::Broadcast;
  node.operands = {a.id()};
  node.shape = shape;
  node.dtype = a.dtype();
  return a.graph()->addNode(std::move(node));
}

Tensor binary(OpKind kind, Tensor a, Tensor b) {
  const char *op = opKindName(kind);
  Graph &g = ownerOf(a, op);
  // Both operands must live in the same graph before we compare anything.
  g.checkOwned(b, op);
  if (a.dtype() != b.dtype())
    throw Error(std::string(op) + ": dtype mismatch: lhs " + describe(a) +
                " vs rhs " + describe(b));
  Shape shape;
  if (!broadcastShapes(a.shape(), b.shape(), shape))
    throw Error(std::string(op) + ": cannot broadcast shapes " +
                shapeString(a.shape()) + " and " + shapeString(b.shape()));
  checkSize(op, shape, a.dtype());
  // Explicit broadcasts keep every binary node's operands the same shape,
  // which is what the lowering and the evaluator expect.
  if (a.shape() != shape)
    a = broadcastNode(a, shape);
  if (b.shape() != shape)
    b = broadcastNode(b, shape);
  Node node;
  node.kind = kind;
  node.operands = {a.id(), b.id()};
  node.shape = shape;
  node.dtype = a.dtype();
  return g.addNode(std::move(node));
}

Tensor unary(OpKind kind, Tensor a) {
  Graph &g = ownerOf(a, opKindName(kind));
  Node node;
  node.kind = kind;
  node.operands = {a.id()};
  node.shape = a.shape();
  node.dtype = a.dtype();
  return g.addNode(std::move(node));
}

// A scalar operand becomes a constant in the tensor's dtype; binary() then
// broadcasts it to the tensor's shape.
Tensor scalarLike(const Tensor &t, double value, const char *op) {
  Graph &g = ownerOf(t, op);
  return g.constant(value, t.dtype());
}

Tensor reduce(OpKind kind, Tensor a, int axis) {
  const char *op = opKindName(kind);
  Graph &g = ownerOf(a, op);
  int rank = a.rank();
  if (rank < 1 || axis < -rank || axis >= rank)
    throw Error(std::string(op) + ": axis " + std::to_string(axis) +
                " out of range for shape " + shapeString(a.shape()));
  int normalized = axis < 0 ? axis + rank : axis;
  Node node;
  node.kind = kind;
  node.operands = {a.id()};
  node.shape = a.shape();
  node.shape[normalized] = 1;
  node.dtype = a.dtype();
  node.axis = normalized;
  return g.addNode(std::move(node));
}

} // namespace

Tensor operator+(Tensor a, Tensor b) { return binary(OpKind::Add, a, b); }
Tensor operator-(Tensor a, Tensor b) { return binary(OpKind::Sub, a, b); }
Tensor operator*(Tensor a, Tensor b) { return binary(OpKind::Mul, a, b); }
Tensor operator/(Tensor a, Tensor b) { return binary(OpKind::Div, a, b); }

Tensor operator+(Tensor a, double b) {
  return binary(OpKind::Add, a, scalarLike(a, b, "add"));
}
Tensor operator+(double a, Tensor b) {
  return binary(OpKind::Add, scalarLike(b, a, "add"), b);
}
Tensor operator-(Tensor a, double b) {
  return binary(OpKind::Sub, a, scalarLike(a, b, "sub"));
}
Tensor operator-(double a, Tensor b) {
  return binary(OpKind::Sub, scalarLike(b, a, "sub"), b);
}
Tensor operator*(Tensor a, double b) {
  return binary(OpKind::Mul, a, scalarLike(a, b, "mul"));
}
Tensor operator*(double a, Tensor b) {
  return binary(OpKind::Mul, scalarLike(b, a, "mul"), b);
}
Tensor operator/(Tensor a, double b) {
  return binary(OpKind::Div, a, scalarLike(a, b, "div"));
}
Tensor operator/(double a, Tensor b) {
  return binary(OpKind::Div, scalarLike(b, a, "div"), b);
}

Tensor operator-(Tensor a) { return unary(OpKind::Neg, a); }
Tensor maximum(Tensor a, Tensor b) { return binary(OpKind::Max, a, b); }
Tensor minimum(Tensor a, Tensor b) { return binary(OpKind::Min, a, b); }
Tensor exp(Tensor a) { return unary(OpKind::Exp, a); }
Tensor log(Tensor a) { return unary(OpKind::Log, a); }
Tensor sqrt(Tensor a) { return unary(OpKind::Sqrt, a); }
Tensor rsqrt(Tensor a) { return unary(OpKind::Rsqrt, a); }
Tensor tanh(Tensor a) { return unary(OpKind::Tanh, a); }
Tensor sigmoid(Tensor a) { return unary(OpKind::Sigmoid, a); }
Tensor silu(Tensor a) { return unary(OpKind::Silu, a); }
Tensor gelu(Tensor a) { return unary(OpKind::Gelu, a); }

Tensor cast(Tensor a, DType dtype) {
  Graph &g = ownerOf(a, "cast");
  // A no-op cast adds nothing, so callers can cast unconditionally.
  if (a.dtype() == dtype)
    return a;
  Node node;
  node.kind = OpKind::Cast;
  node.operands = {a.id()};
  node.shape = a.shape();
  node.dtype = dtype;
  checkSize("cast", node.shape, dtype);
  return g.addNode(std::move(node));
}

Tensor broadcast_to(Tensor a, const Shape &shape) {
  ownerOf(a, "broadcast_to");
  // Graph dims are positive or symbolic (inputs enforce it): keep it so.
  checkDims("broadcast_to: target", shape);
  checkSize("broadcast_to", shape, a.dtype());
  if (!canBroadcastTo(a.shape(), shape))
    throw Error("broadcast_to: cannot broadcast shape " +
                shapeString(a.shape()) + " to " + shapeString(shape));
  if (a.shape() == shape)
    return a;
  return broadcastNode(a, shape);
}

Tensor slice(Tensor a, int axis, int64_t start, int64_t end) {
  Graph &g = ownerOf(a, "slice");
  int rank = a.rank();
  if (rank < 1 || axis < -rank || axis >= rank)
    throw Error("slice: axis " + std::to_string(axis) + " out of range for shape " +
                shapeString(a.shape()));
  int normalized = axis < 0 ? axis + rank : axis;
  int64_t dim = a.shape()[normalized];
  if (isSymbolic(dim))
    throw Error("slice: axis " + std::to_string(normalized) + " of shape " +
                shapeString(a.shape()) + " is symbolic: bind it first (Graph::bind)");
  if (start < 0 || end > dim || start >= end)
    throw Error("slice: range [" + std::to_string(start) + ", " + std::to_string(end) +
                ") is empty or outside axis " + std::to_string(normalized) +
                " of shape " + shapeString(a.shape()) + " (need 0 <= start < end <= " +
                std::to_string(dim) + ")");
  if (start == 0 && end == dim)
    return a;
  Node node;
  node.kind = OpKind::Slice;
  node.operands = {a.id()};
  node.shape = a.shape();
  node.shape[normalized] = end - start;
  node.dtype = a.dtype();
  node.axis = normalized;
  node.start = start;
  node.end = end;
  return g.addNode(std::move(node));
}

Tensor concat(const std::vector<Tensor> &parts, int axis) {
  if (parts.empty())
    throw Error("concat: no tensors to join");
  Graph &g = ownerOf(parts[0], "concat");
  const Tensor &first = parts[0];
  int rank = first.rank();
  if (rank < 1 || axis < -rank || axis >= rank)
    throw Error("concat: axis " + std::to_string(axis) + " out of range for shape " +
                shapeString(first.shape()));
  int normalized = axis < 0 ? axis + rank : axis;
  if (parts.size() == 1)
    return first;
  for (const Tensor &p : parts)
    if (p.valid() && p.rank() == rank && isSymbolic(p.shape()[normalized]))
      throw Error("concat: axis " + std::to_string(normalized) + " of shape " +
                  shapeString(p.shape()) + " is symbolic: bind it first (Graph::bind)");
  Node node;
  node.kind = OpKind::Concat;
  node.shape = first.shape();
  node.shape[normalized] = 0;
  node.dtype = first.dtype();
  node.axis = normalized;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Tensor &p = parts[i];
    g.checkOwned(p, "concat");
    Shape expected = first.shape(), got = p.shape();
    if (got.size() == expected.size()) {
      expected[normalized] = 0;
      got[normalized] = 0;
    }
    if (got != expected || p.dtype() != first.dtype())
      throw Error("concat: operand " + std::to_string(i) + " is " + describe(p) +
                  ", expected " + dtypeName(first.dtype()) + " with shape " +
                  shapeString(first.shape()) + " except along axis " +
                  std::to_string(normalized));
    if (__builtin_add_overflow(node.shape[normalized], p.shape()[normalized],
                               &node.shape[normalized]))
      throw Error("concat: the joined dim passes 2^63 - 1");
    node.operands.push_back(p.id());
  }
  checkSize("concat", node.shape, node.dtype);
  return g.addNode(std::move(node));
}

Tensor update_slice(Tensor buffer, Tensor update, int axis, int64_t start) {
  Graph &g = ownerOf(buffer, "update_slice");
  g.checkOwned(update, "update_slice");
  int rank = buffer.rank();
  if (rank < 2 || axis < -rank || axis >= rank - 1)
    throw Error("update_slice: axis " + std::to_string(axis) + " of " + describe(buffer) +
                " is not a row dim (one of the first " + std::to_string(std::max(rank - 1, 0)) +
                "; the last dim is not updated in part)");
  int normalized = axis < 0 ? axis + rank : axis;
  if (g.node(buffer.id()).kind != OpKind::Input)
    throw Error("update_slice: the buffer (" + describe(buffer) +
                ") must be a graph input: it is updated in place");
  Shape expected = buffer.shape(), got = update.shape();
  if (got.size() == expected.size()) {
    expected[normalized] = 0;
    got[normalized] = 0;
  }
  if (got != expected || update.dtype() != buffer.dtype())
    throw Error("update_slice: the update is " + describe(update) + ", expected " +
                dtypeName(buffer.dtype()) + " with shape " + shapeString(buffer.shape()) +
                " except along axis " + std::to_string(normalized));
  int64_t dim = buffer.shape()[normalized], n = update.shape()[normalized];
  if (isSymbolic(dim) || isSymbolic(n))
    throw Error("update_slice: axis " + std::to_string(normalized) + " of " +
                describe(buffer) + " or of the update " + describe(update) +
                " is symbolic: bind it first (Graph::bind)");
  if (start < 0 || start > dim - n)
    throw Error("update_slice: rows [" + std::to_string(start) + ", " +
                std::to_string(start + n) + ") of axis " + std::to_string(normalized) +
                " fall outside " + describe(buffer) + " (need 0 <= start <= " +
                std::to_string(dim - n) + ")");
  Node node;
  node.kind = OpKind::UpdateSlice;
  node.operands = {buffer.id(), update.id()};
  node.shape = buffer.shape();
  node.dtype = buffer.dtype();
  node.axis = normalized;
  node.start = start;
  node.end = start + n;
  return g.addNode(std::move(node));
}

Tensor reshape(Tensor a, Shape shape) {
  Graph &g = ownerOf(a, "reshape");
  // Static dims' product and the symbols in order, per side; one -1 is
  // inferred from the static products.
  auto split = [](const Shape &s, int64_t &product, std::vector<int64_t> &symbols) {
    product = 1;
    for (int64_t d : s) {
      if (isSymbolic(d))
        symbols.push_back(d);
      else if (d > 0 && __builtin_mul_overflow(product, d, &product))
        throw Error("reshape: shape " + shapeString(s) + " passes 2^63 - 1 elements");
    }
  };
  int64_t from = 1, to = 1;
  std::vector<int64_t> fromSymbols, toSymbols;
  split(a.shape(), from, fromSymbols);
  int inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred >= 0)
        throw Error("reshape: at most one dim may be -1, got " + shapeString(shape));
      inferred = static_cast<int>(i);
    } else if (isSymbolic(shape[i])) {
      symbolName(shape[i]); // (throws for a code symbolDim never gave)
    } else if (shape[i] <= 0) {
      throw Error("reshape: dims must be positive, symbolic or one -1, got " +
                  shapeString(shape));
    }
  }
  Shape known = shape;
  if (inferred >= 0)
    known[inferred] = 1;
  split(known, to, toSymbols);
  if (inferred >= 0 && from % to == 0) {
    shape[inferred] = from / to;
    to = from;
  }
  if (fromSymbols != toSymbols || from != to)
    throw Error("reshape: cannot view " + describe(a) + " as " + shapeString(shape) +
                ": the element counts differ, or the symbolic dims differ in order");
  checkSize("reshape", shape, a.dtype());
  if (shape == a.shape())
    return a;
  Node node;
  node.kind = OpKind::Reshape;
  node.operands = {a.id()};
  node.shape = std::move(shape);
  node.dtype = a.dtype();
  return g.addNode(std::move(node));
}

Tensor transpose(Tensor a, int dim0, int dim1) {
  Graph &g = ownerOf(a, "transpose");
  int rank = a.rank();
  for (int d : {dim0, dim1})
    if (d < -rank || d >= rank)
      throw Error("transpose: dim " + std::to_string(d) + " out of range for " + describe(a));
  int d0 = dim0 < 0 ? dim0 + rank : dim0, d1 = dim1 < 0 ? dim1 + rank : dim1;
  if (d0 == d1)
    return a;
  Node node;
  node.kind = OpKind::Transpose;
  node.operands = {a.id()};
  node.shape = a.shape();
  std::swap(node.shape[d0], node.shape[d1]);
  node.dtype = a.dtype();
  node.axis = std::min(d0, d1);
  node.axis2 = std::max(d0, d1);
  return g.addNode(std::move(node));
}

Tensor sum(Tensor a, int axis) { return reduce(OpKind::ReduceSum, a, axis); }
Tensor max(Tensor a, int axis) { return reduce(OpKind::ReduceMax, a, axis); }
Tensor mean(Tensor a, int axis) { return reduce(OpKind::ReduceMean, a, axis); }

Tensor matmul(Tensor a, Tensor b, bool transposeA, bool transposeB) {
  if (!a.valid())
    throw Error("matmul: invalid (default-constructed) tensor");
  return matmul(a, b, a.dtype(), transposeA, transposeB);
}

Tensor matmul(Tensor a, Tensor b, DType outDType, bool transposeA,
              bool transposeB) {
  Graph &g = ownerOf(a, "matmul");
  g.checkOwned(b, "matmul");
  // Every message names both operands and the transposes, so the user can
  // tell which dim was taken for M, K and N.
  auto operands = [&] {
    return std::string("lhs ") + describe(a) +
           (transposeA ? " (transposed)" : "") + ", rhs " + describe(b) +
           (transposeB ? " (transposed)" : "");
  };
  if (a.rank() < 2 || b.rank() < 2)
    throw Error(std::string("matmul: ") + (a.rank() < 2 ? "lhs" : "rhs") +
                " must have rank >= 2 (matrices in the last two dims): " +
                operands());
  if (a.dtype() != b.dtype())
    throw Error("matmul: dtype mismatch: " + operands() +
                " (cast one operand first)");
  const Shape &as = a.shape(), &bs = b.shape();
  size_t ar = as.size(), br = bs.size();
  int64_t m = transposeA ? as[ar - 1] : as[ar - 2];
  int64_t ka = transposeA ? as[ar - 2] : as[ar - 1];
  int64_t kb = transposeB ? bs[br - 1] : bs[br - 2];
  int64_t n = transposeB ? bs[br - 2] : bs[br - 1];
  Shape batch(as.begin(), as.end() - 2);
  if (br > 2 && Shape(bs.begin(), bs.end() - 2) != batch)
    throw Error("matmul: batch dims differ: lhs batch " + shapeString(batch) +
                " vs rhs batch " + shapeString(Shape(bs.begin(), bs.end() - 2)) +
                " (rhs must be 2-D or have exactly lhs's batch dims): " +
                operands());
  if (ka != kb)
    throw Error("matmul: contraction dims differ: lhs K = " +
                dimString(ka) + ", rhs K = " + dimString(kb) + ": " +
                operands());
  Node node;
  node.kind = OpKind::Matmul;
  node.operands = {a.id(), b.id()};
  node.shape = batch;
  node.shape.push_back(m);
  node.shape.push_back(n);
  node.dtype = outDType;
  checkSize("matmul", node.shape, outDType);
  node.transposeA = transposeA;
  node.transposeB = transposeB;
  return g.addNode(std::move(node));
}

} // namespace tilec
