// The CPU reference evaluator: interprets a Graph node by node in double,
// rounding every node's result to its dtype; the oracle for numeric tests.
#include "tilec/Reference.h"

#include <algorithm>
#include <functional>
#include <thread>

#include <cmath>
#include <limits>
#include <string>

namespace tilec {

namespace {

// Rounds a double result to what a kernel storing it in `dtype` would hold.
// Going through float first matches f32 storage; for f16/bf16 the extra step
// can only matter on exact double-rounding ties, far below test tolerances.
float store(DType dtype, double v) {
  return roundTo(dtype, static_cast<float>(v));
}

double applyUnary(OpKind kind, double x) {
  switch (kind) {
  case OpKind::Neg:
    return -x;
  case OpKind::Exp:
    return std::exp(x);
  case OpKind::Log:
    return std::log(x);
  case OpKind::Sqrt:
    return std::sqrt(x);
  case OpKind::Rsqrt:
    return 1.0 / std::sqrt(x);
  case OpKind::Tanh:
    return std::tanh(x);
  case OpKind::Sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case OpKind::Silu:
    return x / (1.0 + std::exp(-x));
  case OpKind::Gelu: {
    // M_PI is not standard C++, so spell pi out.
    const double k = std::sqrt(2.0 / 3.14159265358979323846);
    return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
  }
  default:
    throw Error(std::string("reference: not a unary op: ") + opKindName(kind));
  }
}

double applyBinary(OpKind kind, double a, double b) {
  switch (kind) {
  case OpKind::Add:
    return a + b;
  case OpKind::Sub:
    return a - b;
  case OpKind::Mul:
    return a * b;
  case OpKind::Div:
    return a / b;
  // Max/min propagate NaN, like the GPU's maximumf/minimumf (std::fmax
  // would drop it).
  case OpKind::Max:
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<double>::quiet_NaN();
    return a > b ? a : b;
  case OpKind::Min:
    if (std::isnan(a) || std::isnan(b))
      return std::numeric_limits<double>::quiet_NaN();
    return a < b ? a : b;
  default:
    throw Error(std::string("reference: not a binary op: ") +
                opKindName(kind));
  }
}

// Splits [0, n) over the machine's cores: the reference must keep up with
// GPU tests on [16384, 4096] tensors. `costPerItem` (about the inner work of
// one item, e.g. K * N for a matmul row) keeps small jobs on one thread.
void parallelFor(size_t n, const std::function<void(size_t, size_t)> &body,
                 size_t costPerItem = 1) {
  size_t workers = std::max(1u, std::thread::hardware_concurrency());
  if (n * std::max<size_t>(costPerItem, 1) < (size_t(1) << 16) || workers == 1 ||
      n < 2) {
    body(0, n);
    return;
  }
  workers = std::min<size_t>({workers, 32, n});
  size_t chunk = (n + workers - 1) / workers;
  std::vector<std::thread> threads;
  for (size_t begin = 0; begin < n; begin += chunk)
    threads.emplace_back(body, begin, std::min(n, begin + chunk));
  for (std::thread &t : threads)
    t.join();
}

// Numpy broadcast: maps each output element to its operand element by giving
// size-1 (and missing leading) operand dims a stride of 0.
std::vector<float> broadcastValues(const std::vector<float> &in,
                                   const Shape &from, const Shape &to) {
  size_t rank = to.size(), offset = rank - from.size();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = from.size(); i-- > 0;) {
    strides[offset + i] = from[i] == 1 ? 0 : stride;
    stride *= from[i];
  }
  std::vector<float> out(static_cast<size_t>(numElements(to)));
  parallelFor(out.size(), [&](size_t begin, size_t end) {
    // The multi-index of `begin`, then advanced row-major.
    std::vector<int64_t> index(rank, 0);
    size_t rest = begin;
    for (size_t d = rank; d-- > 0;) {
      index[d] = static_cast<int64_t>(rest % static_cast<size_t>(to[d]));
      rest /= static_cast<size_t>(to[d]);
    }
    for (size_t linear = begin; linear < end; ++linear) {
      int64_t src = 0;
      for (size_t d = 0; d < rank; ++d)
        src += index[d] * strides[d];
      out[linear] = in[static_cast<size_t>(src)];
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < to[d])
          break;
        index[d] = 0;
      }
    }
  });
  return out;
}

std::vector<float> reduceValues(const Node &node, const std::vector<float> &in,
                                const Shape &inShape) {
  int axis = node.axis;
  int64_t outer = 1, inner = 1, n = inShape[axis];
  for (int d = 0; d < axis; ++d)
    outer *= inShape[d];
  for (size_t d = axis + 1; d < inShape.size(); ++d)
    inner *= inShape[d];
  std::vector<float> out(static_cast<size_t>(outer * inner));
  parallelFor(static_cast<size_t>(outer * inner), [&](size_t begin, size_t end) {
    for (size_t flat = begin; flat < end; ++flat) {
      int64_t o = static_cast<int64_t>(flat) / inner, i = static_cast<int64_t>(flat) % inner;
      double acc = node.kind == OpKind::ReduceMax
                       ? -std::numeric_limits<double>::infinity()
                       : 0.0;
      for (int64_t k = 0; k < n; ++k) {
        double v = in[static_cast<size_t>((o * n + k) * inner + i)];
        if (node.kind == OpKind::ReduceMax)
          acc = applyBinary(OpKind::Max, acc, v);
        else
          acc += v;
      }
      if (node.kind == OpKind::ReduceMean)
        acc /= static_cast<double>(n);
      out[static_cast<size_t>(o * inner + i)] = store(node.dtype, acc);
    }
  });
  return out;
}

// Copies the matrices in the last two dims of a row-major [batch, rows,
// cols] value, transposed when `transpose`, so the result is [batch, cols,
// rows] (or the input itself when not transposing).
std::vector<float> transposedMatrices(const std::vector<float> &in, int64_t batch,
                                      int64_t rows, int64_t cols) {
  std::vector<float> out(in.size());
  for (int64_t bi = 0; bi < batch; ++bi) {
    const float *src = in.data() + bi * rows * cols;
    float *dst = out.data() + bi * rows * cols;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        dst[c * rows + r] = src[r * cols + c];
  }
  return out;
}

// [..., M, K] x [K, N] or [..., K, N] (after the transposes) -> [..., M, N]:
// products and sums in double, each result rounded once to node.dtype.
std::vector<float> matmulValues(const Node &node, const std::vector<float> &a,
                                const Shape &aShape, const std::vector<float> &b,
                                const Shape &bShape) {
  size_t ar = aShape.size(), br = bShape.size();
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < ar; ++d)
    batch *= aShape[d];
  int64_t m = node.shape[node.shape.size() - 2], n = node.shape.back();
  int64_t k = node.transposeA ? aShape[ar - 2] : aShape[ar - 1];
  bool batchedB = br > 2;
  // Normalize to A [batch, M, K] and B [batch or 1, K, N], both row-major.
  std::vector<float> aT, bT;
  if (node.transposeA)
    aT = transposedMatrices(a, batch, k, m);
  if (node.transposeB)
    bT = transposedMatrices(b, batchedB ? batch : 1, n, k);
  const std::vector<float> &an = node.transposeA ? aT : a;
  const std::vector<float> &bn = node.transposeB ? bT : b;
  if (static_cast<int64_t>(an.size()) != batch * m * k ||
      static_cast<int64_t>(bn.size()) != (batchedB ? batch : 1) * k * n)
    throw Error("reference: matmul operand sizes do not match shapes " +
                shapeString(aShape) + " and " + shapeString(bShape));
  std::vector<float> out(static_cast<size_t>(batch * m * n));
  parallelFor(
      static_cast<size_t>(batch * m),
      [&](size_t begin, size_t end) {
        std::vector<double> acc(static_cast<size_t>(n));
        for (size_t row = begin; row < end; ++row) {
          int64_t bi = static_cast<int64_t>(row) / m;
          const float *arow = an.data() + row * static_cast<size_t>(k);
          const float *bmat = bn.data() + (batchedB ? bi * k * n : 0);
          std::fill(acc.begin(), acc.end(), 0.0);
          for (int64_t kk = 0; kk < k; ++kk) {
            double av = arow[kk];
            const float *brow = bmat + kk * n;
            for (int64_t j = 0; j < n; ++j)
              acc[j] += av * static_cast<double>(brow[j]);
          }
          float *orow = out.data() + row * static_cast<size_t>(n);
          for (int64_t j = 0; j < n; ++j)
            orow[j] = store(node.dtype, acc[j]);
        }
      },
      static_cast<size_t>(k * n));
  return out;
}

} // namespace

std::vector<HostTensor> evaluateReference(const Graph &graph,
                                          const std::vector<HostTensor> &inputs) {
  const std::vector<int> &inputIds = graph.inputs();
  if (inputs.size() != inputIds.size())
    throw Error("reference: graph '" + graph.name() + "' expects " +
                std::to_string(inputIds.size()) + " inputs, got " +
                std::to_string(inputs.size()));
  // Symbolic dims take their sizes from the inputs' shapes.
  if (graph.symbolic()) {
    std::vector<Shape> shapes;
    for (const HostTensor &t : inputs)
      shapes.push_back(t.shape);
    return evaluateReference(*graph.bind(graph.bindingsFor(shapes)), inputs);
  }

  const std::vector<Node> &nodes = graph.nodes();
  std::vector<std::vector<float>> values(nodes.size());

  for (size_t i = 0; i < inputIds.size(); ++i) {
    const Node &decl = graph.node(inputIds[i]);
    const HostTensor &t = inputs[i];
    if (t.shape != decl.shape || t.dtype != decl.dtype)
      throw Error("reference: input '" + decl.name + "' expects " +
                  dtypeName(decl.dtype) + " " + shapeString(decl.shape) +
                  ", got " + dtypeName(t.dtype) + " " + shapeString(t.shape));
    if (t.numel() != numElements(decl.shape))
      throw Error("reference: input '" + decl.name + "' has " +
                  std::to_string(t.numel()) + " values for shape " +
                  shapeString(decl.shape));
    // HostTensor values should already be representable; rounding anyway
    // mirrors what toBytes() would hand to a kernel.
    std::vector<float> v(t.values.size());
    for (size_t k = 0; k < v.size(); ++k)
      v[k] = roundTo(decl.dtype, t.values[k]);
    values[inputIds[i]] = std::move(v);
  }

  for (size_t id = 0; id < nodes.size(); ++id) {
    const Node &node = nodes[id];
    if (node.kind == OpKind::Input)
      continue;
    for (int operand : node.operands)
      if (operand < 0 || static_cast<size_t>(operand) >= id)
        throw Error("reference: node %" + std::to_string(id) + " (" +
                    opKindName(node.kind) + ") has a bad operand id " +
                    std::to_string(operand));
    std::vector<float> &out = values[id];
    if (node.kind == OpKind::Constant) {
      out.assign(1, store(node.dtype, node.value));
    } else if (node.kind == OpKind::CausalMask) {
      // Row r (of R, in every leading index) sees keys c <= r % period +
      // C - period (the limit), with a window W only those > limit - W.
      int64_t rows = node.shape[node.shape.size() - 2], keys = node.shape.back();
      out.resize(static_cast<size_t>(numElements(node.shape)));
      for (size_t i = 0; i < out.size(); ++i) {
        int64_t c = static_cast<int64_t>(i) % keys, r = static_cast<int64_t>(i) / keys % rows;
        int64_t limit = r % node.period + (node.start >= 0 ? node.start : keys - node.period);
        bool sees = c <= limit && (node.window == 0 || c > limit - node.window);
        out[i] = sees ? 0.0f : -INFINITY;
      }
    } else if (node.kind == OpKind::Broadcast) {
      const Node &src = nodes[node.operands[0]];
      out = broadcastValues(values[node.operands[0]], src.shape, node.shape);
    } else if (node.kind == OpKind::Slice || node.kind == OpKind::Concat) {
      // Both copy blocks of `inner` contiguous elements: view every operand
      // as [outer, dim(axis) * inner].
      int64_t outer = 1, inner = 1;
      for (int d = 0; d < node.axis; ++d)
        outer *= node.shape[d];
      for (size_t d = node.axis + 1; d < node.shape.size(); ++d)
        inner *= node.shape[d];
      int64_t outRow = node.shape[node.axis] * inner;
      out.resize(static_cast<size_t>(outer * outRow));
      int64_t offset = 0; // within an output row
      for (int operand : node.operands) {
        const Node &src = nodes[operand];
        const std::vector<float> &in = values[operand];
        int64_t inRow = src.shape[node.axis] * inner;
        int64_t first = node.kind == OpKind::Slice ? node.start * inner : 0;
        int64_t count = node.kind == OpKind::Slice ? outRow : inRow;
        for (int64_t o = 0; o < outer; ++o)
          std::copy_n(in.begin() + o * inRow + first, count,
                      out.begin() + o * outRow + offset);
        offset += count;
      }
    } else if (node.kind == OpKind::UpdateSlice) {
      // The buffer, with [start, end) of the axis copied from the update:
      // [outer, dim * inner] rows, the update's [outer, n * inner].
      out = values[node.operands[0]];
      const std::vector<float> &in = values[node.operands[1]];
      int64_t outer = 1, inner = 1;
      for (int d = 0; d < node.axis; ++d)
        outer *= node.shape[d];
      for (size_t d = node.axis + 1; d < node.shape.size(); ++d)
        inner *= node.shape[d];
      int64_t outRow = node.shape[node.axis] * inner, inRow = (node.end - node.start) * inner;
      for (int64_t o = 0; o < outer; ++o)
        std::copy_n(in.begin() + o * inRow, inRow, out.begin() + o * outRow + node.start * inner);
    } else if (node.kind == OpKind::Reshape) {
      out = values[node.operands[0]]; // row-major order is kept
    } else if (node.kind == OpKind::Transpose) {
      // [outer, A, mid, B, inner] -> [outer, B, mid, A, inner].
      const Shape &in = nodes[node.operands[0]].shape;
      const std::vector<float> &src = values[node.operands[0]];
      auto product = [&](size_t from, size_t to) {
        int64_t n = 1;
        for (size_t d = from; d < to; ++d)
          n *= in[d];
        return n;
      };
      size_t a = static_cast<size_t>(node.axis), b = static_cast<size_t>(node.axis2);
      int64_t outer = product(0, a), dimA = in[a], mid = product(a + 1, b), dimB = in[b],
              inner = product(b + 1, in.size());
      out.resize(src.size());
      size_t k = 0;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < dimB; ++j)
          for (int64_t m = 0; m < mid; ++m)
            for (int64_t i = 0; i < dimA; ++i) {
              int64_t from = ((((o * dimA + i) * mid + m) * dimB + j) * inner);
              std::copy_n(src.begin() + from, inner, out.begin() + static_cast<int64_t>(k));
              k += static_cast<size_t>(inner);
            }
    } else if (node.kind == OpKind::Cast) {
      const std::vector<float> &in = values[node.operands[0]];
      out.resize(in.size());
      parallelFor(in.size(), [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k)
          out[k] = roundTo(node.dtype, in[k]);
      });
    } else if (isUnaryElementwise(node.kind)) {
      const std::vector<float> &in = values[node.operands[0]];
      out.resize(in.size());
      parallelFor(in.size(), [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k)
          out[k] = store(node.dtype, applyUnary(node.kind, in[k]));
      });
    } else if (isBinaryElementwise(node.kind)) {
      const std::vector<float> &a = values[node.operands[0]];
      const std::vector<float> &b = values[node.operands[1]];
      if (a.size() != b.size())
        throw Error(std::string("reference: ") + opKindName(node.kind) +
                    " operands differ in size (missing broadcast?)");
      out.resize(a.size());
      parallelFor(a.size(), [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k)
          out[k] = store(node.dtype, applyBinary(node.kind, a[k], b[k]));
      });
    } else if (node.kind == OpKind::Matmul) {
      out = matmulValues(node, values[node.operands[0]], nodes[node.operands[0]].shape,
                         values[node.operands[1]], nodes[node.operands[1]].shape);
    } else if (isReduction(node.kind)) {
      out = reduceValues(node, values[node.operands[0]],
                         nodes[node.operands[0]].shape);
    } else {
      throw Error(std::string("reference: unsupported op ") +
                  opKindName(node.kind));
    }
  }

  std::vector<HostTensor> results;
  results.reserve(graph.outputs().size());
  for (int id : graph.outputs()) {
    const Node &node = graph.node(id);
    HostTensor t(node.shape, node.dtype);
    t.values = values[id];
    results.push_back(std::move(t));
  }
  return results;
}

} // namespace tilec
