// Random graphs for differential testing: chains of the DSL's ops on
// random shapes and dtypes, built from a seed. The CPU tests compile each to
// PTX and assemble it (tests/unit/FuzzTest.cpp: a compile either succeeds or
// says clearly what is not supported, never crashes) and interpret it at the
// tile stage against the reference evaluator (TileInterpreter.h); the GPU
// tests run it against the reference on fresh random data
// (GpuFuzzTest.RandomGraphsMatchTheReference).
//
// Values stay in a moderate range, so that the comparison measures the
// compiler and not the conditioning: inputs in [-3, 3], unbounded ops only
// after bounded ones (exp(tanh x), log(x tanh x + 1), divisions by y tanh y
// + 1). x tanh x (>= 0, about |x|) rather than x^2: a sum over a row of
// hundreds squared overflows f16 in the reference, which rounds every op
// (rsqrt(inf) = 0), while tilec keeps f32 inside a kernel (seed 1025).
#pragma once

#include "tilec/Graph.h"
#include "tilec/HostTensor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tilec::testgraphs {

/// How far a random graph's output is from what it is compared with:
/// relativeError with a floor (the norm of `ref` taken as at least `floor`
/// a value). A reference of (nearly) zeros is compared at that scale
/// instead of its own: the reference evaluator rounds every op's result to
/// its dtype, tilec keeps f32 inside a kernel, and a 16-bit value the
/// reference rounds away (log(1 + s^2) of a softmax's s over 1500 columns
/// in f16: log(1) = 0) is a small number in tilec, infinitely far from 0
/// relative to 0.
inline double graphError(const HostTensor &got, const HostTensor &ref, double floor) {
  return relativeError(got, ref, floor);
}

/// The bound on graphError for a random graph: 1e-4 for graphs of f32
/// alone (floor 1e-3), 5e-2 where 16-bit values round (floor 1e-2).
/// `exactRounding`: the compile rounds every op's result as the reference
/// does (CompileOptions::roundEveryOp), so only f32-against-double
/// arithmetic and the order of sums differ: 1e-5 and 1e-2 (a 16-bit
/// element whose rounding flips is 0.4-0.8% of itself).
struct GraphTolerance {
  double error, floor;
};
inline GraphTolerance toleranceFor(const Graph &g, bool exactRounding = false) {
  for (const Node &n : g.nodes())
    if (n.dtype != DType::F32)
      return {exactRounding ? 1e-2 : 5e-2, 1e-2};
  return {exactRounding ? 1e-5 : 1e-4, 1e-3};
}

class RandomGraphBuilder {
public:
  explicit RandomGraphBuilder(uint64_t seed) : rng_(seed) {}

  /// Builds the graph into `g`; returns what it did, one op a line.
  std::string build(Graph &g) {
    g_ = &g;
    static const DType dtypes[] = {DType::F32, DType::F32, DType::BF16, DType::BF16, DType::F16};
    dtype_ = dtypes[pick(5)];
    Shape shape = randomShape();
    note("inputs " + std::string(dtypeName(dtype_)) + " " + shapeString(shape));
    live_.push_back({input(shape, dtype_), false});
    if (pick(10) < 7)
      live_.push_back({input(shape, dtype_), false});
    if (pick(10) < 4)
      live_.push_back({input({shape.back()}, dtype_), false});
    if (shape.size() >= 2 && pick(10) < 2) {
      Shape col = shape;
      col.back() = 1;
      live_.push_back({input(col, dtype_), false});
    }
    int steps = 1 + pick(7);
    for (int i = 0; i < steps; ++i)
      step();
    // Outputs: the last computed tensor and maybe an earlier one (maybe
    // the same one again: a copy).
    std::vector<int> computed;
    for (size_t i = 0; i < live_.size(); ++i)
      if (live_[i].computed)
        computed.push_back(static_cast<int>(i));
    if (computed.empty()) {
      live_.push_back({tanh(live_[0].t), true});
      computed.push_back(static_cast<int>(live_.size()) - 1);
      note("tanh");
    }
    g.output(live_[computed.back()].t);
    if (computed.size() > 1 && pick(2) == 0) {
      int other = computed[pick(static_cast<int>(computed.size()) - 1)];
      g.output(live_[other].t);
    }
    return log_;
  }

private:
  struct Live {
    Tensor t;
    bool computed;
  };

  int pick(int n) { return static_cast<int>(std::uniform_int_distribution<int>(0, n - 1)(rng_)); }
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
  void note(const std::string &s) { log_ += s + "\n"; }
  static int64_t numel(const Shape &s) {
    int64_t n = 1;
    for (int64_t d : s)
      n *= d;
    return n;
  }

  Tensor input(const Shape &shape, DType dtype) {
    return g_->input("in" + std::to_string(inputs_++), shape, dtype);
  }

  /// Rank 1-4; the last dim mostly 8 or more; at most 2^18 elements.
  Shape randomShape() {
    static const int64_t dims[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 31, 32, 33, 64, 100, 128, 130, 256};
    static const int64_t lasts[] = {1, 3, 8, 16, 33, 64, 100, 128, 256, 1000, 2048, 4096, 6000};
    static const int ranks[] = {1, 2, 2, 2, 3, 3, 3, 4};
    int rank = ranks[pick(8)];
    Shape s;
    for (int i = 0; i + 1 < rank; ++i)
      s.push_back(dims[pick(17)]);
    s.push_back(lasts[pick(13)]);
    while (numel(s) > (1 << 18))
      for (int64_t &d : s)
        d = std::max<int64_t>(1, d / 2);
    return s;
  }

  bool isComputed(const Tensor &t) const {
    for (const Live &l : live_)
      if (l.t.id() == t.id())
        return l.computed;
    return false;
  }

  /// A live tensor (computed ones twice as likely).
  Live &any() {
    std::vector<int> weighted;
    for (size_t i = 0; i < live_.size(); ++i)
      for (int k = 0; k < (live_[i].computed ? 2 : 1); ++k)
        weighted.push_back(static_cast<int>(i));
    return live_[weighted[pick(static_cast<int>(weighted.size()))]];
  }

  /// A live tensor that broadcasts to `shape` with dtype `dtype`, or none.
  const Tensor *partnerFor(const Tensor &a) {
    std::vector<const Tensor *> ok;
    for (const Live &l : live_) {
      const Shape &s = l.t.shape(), &to = a.shape();
      if (l.t.dtype() != a.dtype() || s.size() > to.size())
        continue;
      bool fits = true;
      for (size_t i = 0; i < s.size(); ++i) {
        int64_t d = s[s.size() - 1 - i], t = to[to.size() - 1 - i];
        fits = fits && (d == t || d == 1);
      }
      if (fits)
        ok.push_back(&l.t);
    }
    return ok.empty() ? nullptr : ok[pick(static_cast<int>(ok.size()))];
  }

  void add(Tensor t, const std::string &what, bool computed = true) {
    live_.push_back({t, computed});
    note(what + " -> " + std::string(dtypeName(t.dtype())) + " " + shapeString(t.shape()));
  }

  void step() {
    Tensor a = any().t;
    int rank = a.rank();
    switch (pick(12)) {
    case 0:
    case 1:
    case 2: { // bounded unary
      static const char *names[] = {"tanh", "sigmoid", "silu", "gelu", "neg", "scale",
                                    "exp(tanh)", "sqrt(x tanh x+1)", "rsqrt(x tanh x+1)", "log(x tanh x+1)"};
      int k = pick(10);
      Tensor r = k == 0   ? tanh(a)
                 : k == 1 ? sigmoid(a)
                 : k == 2 ? silu(a)
                 : k == 3 ? gelu(a)
                 : k == 4 ? -a
                 : k == 5 ? a * uniform(0.5, 2.0)
                 : k == 6 ? exp(tanh(a))
                 : k == 7 ? sqrt(a * tanh(a) + 1.0)
                 : k == 8 ? rsqrt(a * tanh(a) + 1.0)
                          : log(a * tanh(a) + 1.0);
      add(r, names[k]);
      return;
    }
    case 3:
    case 4: { // binary with a broadcast partner
      const Tensor *b = partnerFor(a);
      if (!b)
        return;
      static const char *names[] = {"add", "sub", "mul", "maximum", "minimum", "div(y tanh y+1)"};
      int k = pick(6);
      Tensor r = k == 0   ? a + *b
                 : k == 1 ? a - *b
                 : k == 2 ? a * *b
                 : k == 3 ? maximum(a, *b)
                 : k == 4 ? minimum(a, *b)
                          : a / (*b * tanh(*b) + 1.0);
      add(r, names[k]);
      return;
    }
    case 5: { // reduction along an axis (kept, size 1)
      int axis = pick(rank);
      int k = pick(3);
      add(k == 0 ? sum(a, axis) : k == 1 ? mean(a, axis) : max(a, axis),
          std::string(k == 0 ? "sum" : k == 1 ? "mean" : "max") + " axis " +
              std::to_string(axis));
      return;
    }
    case 6:
    case 7: { // the LLM ops along the last dim
      int k = pick(7);
      if (k == 4) { // rope: cos and sin broadcast along the dim before the last
        if (a.dim(-1) % 2 != 0)
          return;
        Shape t = a.shape();
        if (rank >= 2)
          t[rank - 2] = 1;
        add(nn::rope(a, input(t, a.dtype()), input(t, a.dtype())), "rope");
        return;
      }
      if (k == 5) { // attention of a as queries over 1-40 new keys and values
        if (rank < 2 || a.dim(-1) > 512)
          return;
        Shape ks = a.shape(), vs = a.shape();
        ks[rank - 2] = vs[rank - 2] = 1 + pick(40);
        vs[rank - 1] = pick(2) == 0 ? a.dim(-1) : 16;
        add(nn::attention(a, input(ks, a.dtype()), input(vs, a.dtype()),
                          1.0 / std::sqrt(static_cast<double>(a.dim(-1)))),
            "attention over " + std::to_string(ks[rank - 2]) + " keys");
        return;
      }
      if (k == 6) { // add_rms_norm with a partner of a's shape: both results
        for (const Live &l : live_)
          if (l.t.shape() == a.shape() && l.t.dtype() == a.dtype() && l.t.id() != a.id()) {
            auto [normed, sum] = nn::add_rms_norm(a, l.t, input({a.dim(-1)}, a.dtype()));
            add(sum, "add_rms_norm: sum");
            add(normed, "add_rms_norm: normed");
            return;
          }
        return;
      }
      if (k == 0) {
        add(nn::softmax(a), "softmax");
      } else if (k == 1) {
        add(nn::rms_norm(a, input({a.dim(-1)}, a.dtype())), "rms_norm");
      } else if (k == 2) {
        add(nn::layer_norm(a, input({a.dim(-1)}, a.dtype()), input({a.dim(-1)}, a.dtype())),
            "layer_norm");
      } else {
        for (const Live &l : live_)
          if (l.t.shape() == a.shape() && l.t.dtype() == a.dtype() && l.t.id() != a.id()) {
            add(nn::silu_mul(a, l.t), "silu_mul");
            return;
          }
      }
      return;
    }
    case 8: { // transpose
      if (rank < 2)
        return;
      int d0 = pick(rank), d1 = pick(rank);
      if (d0 == d1)
        return;
      add(transpose(a, d0, d1),
          "transpose " + std::to_string(d0) + " " + std::to_string(d1));
      return;
    }
    case 9: { // reshape: merge two neighbouring dims, or split one
      Shape s = a.shape();
      if (rank >= 2 && pick(2) == 0) {
        int i = pick(rank - 1);
        s[i] *= s[i + 1];
        s.erase(s.begin() + i + 1);
      } else {
        int i = pick(rank);
        int64_t d = s[i], f = 0;
        for (int64_t c : {2, 3, 4, 8, 16})
          if (d % c == 0 && d > c)
            f = c;
        if (f == 0 || rank >= 4)
          return;
        s[i] = d / f;
        s.insert(s.begin() + i + 1, f);
      }
      // (A view: computed only where its operand is.)
      bool computed = isComputed(a);
      add(reshape(a, s), "reshape " + shapeString(s), computed);
      return;
    }
    case 10: { // slice, concatenation, or a cast to another float type
      int k = pick(3);
      if (k == 2) { // a before (or after) a new input of 1-8 along the axis, or itself
        int axis = pick(rank);
        Shape s = a.shape();
        s[axis] = 1 + pick(8);
        Tensor other = pick(3) == 0 ? a : input(s, a.dtype());
        bool first = pick(2) == 0;
        add(concat(first ? std::vector<Tensor>{a, other} : std::vector<Tensor>{other, a}, axis),
            "concat axis " + std::to_string(axis) + " with " + shapeString(other.shape()));
        return;
      }
      if (k == 0) {
        int axis = pick(rank);
        int64_t d = a.dim(axis);
        if (d < 2)
          return;
        int64_t start = pick(static_cast<int>(d / 2)), end = start + 1 + pick(static_cast<int>(d - start));
        end = std::min(end, d);
        add(slice(a, axis, start, end), "slice axis " + std::to_string(axis) + " [" +
                                           std::to_string(start) + ", " + std::to_string(end) + ")");
      } else {
        DType to = a.dtype() == DType::F32 ? (pick(2) ? DType::BF16 : DType::F16) : DType::F32;
        add(cast(a, to), "cast");
      }
      return;
    }
    default: { // matmul with a weight [K, N] (or [N, K], transposed)
      if (rank < 2 || rank > 3 || a.dim(-1) > 4096)
        return;
      static const int64_t ns[] = {8, 16, 40, 64, 128};
      int64_t n = ns[pick(5)];
      bool tb = pick(2) == 0;
      Tensor w = tb ? input({n, a.dim(-1)}, a.dtype()) : input({a.dim(-1), n}, a.dtype());
      DType out = pick(3) == 0 ? DType::F32 : a.dtype();
      add(matmul(a, w, out, false, tb), std::string("matmul") + (tb ? " b^T" : ""));
      return;
    }
    }
  }

  std::mt19937_64 rng_;
  Graph *g_ = nullptr;
  DType dtype_ = DType::F32;
  std::vector<Live> live_;
  int inputs_ = 0;
  std::string log_;
};

} // namespace tilec::testgraphs
