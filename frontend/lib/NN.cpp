// The LLM op library (tilec::nn): norms, softmax and gates composed from the
// DSL primitives, computing in f32 and returning the input's dtype.
#include "tilec/Graph.h"
#include <cmath>

namespace tilec {
namespace nn {

namespace {

std::string describe(const Tensor &t) {
  return std::string(dtypeName(t.dtype())) + " " + shapeString(t.shape());
}

// Checks that `x` has a last dim and that `param` (a norm's weight or bias)
// is a vector over it in x's dtype, so the f32 math below cannot fail with a
// less helpful broadcast error.
void checkNormParam(const char *op, const char *what, const Tensor &x,
                    const Tensor &param) {
  if (!x.valid())
    throw Error(std::string(op) + ": invalid (default-constructed) x");
  x.graph()->checkOwned(x, op);
  x.graph()->checkOwned(param, op);
  if (x.rank() < 1)
    throw Error(std::string(op) + ": x must have rank >= 1, got shape " +
                shapeString(x.shape()));
  if (param.rank() != 1 || param.dim(0) != x.dim(-1))
    throw Error(std::string(op) + ": " + what + " shape " +
                shapeString(param.shape()) + " does not match x shape " +
                shapeString(x.shape()) + " (expected [" +
                dimString(x.dim(-1)) + "])");
  if (param.dtype() != x.dtype())
    throw Error(std::string(op) + ": " + what + " dtype mismatch: " +
                describe(param) + " vs x " + describe(x));
}

void checkSameShapeAndDType(const char *op, const Tensor &a, const Tensor &b) {
  if (!a.valid())
    throw Error(std::string(op) + ": invalid (default-constructed) tensor");
  a.graph()->checkOwned(a, op);
  a.graph()->checkOwned(b, op);
  if (a.shape() != b.shape() || a.dtype() != b.dtype())
    throw Error(std::string(op) + ": operands must have equal shape and "
                                  "dtype: " +
                describe(a) + " vs " + describe(b));
}

} // namespace

Tensor rms_norm(Tensor x, Tensor w, double eps) {
  checkNormParam("rms_norm", "weight", x, w);
  Tensor xf = cast(x, DType::F32);
  Tensor ms = mean(xf * xf, -1);
  Tensor r = rsqrt(ms + eps);
  Tensor y = xf * r * cast(w, DType::F32);
  return cast(y, x.dtype());
}

Tensor layer_norm(Tensor x, Tensor w, Tensor b, double eps) {
  checkNormParam("layer_norm", "weight", x, w);
  checkNormParam("layer_norm", "bias", x, b);
  Tensor xf = cast(x, DType::F32);
  Tensor mu = mean(xf, -1);
  Tensor d = xf - mu;
  Tensor var = mean(d * d, -1);
  Tensor y = d * rsqrt(var + eps) * cast(w, DType::F32) + cast(b, DType::F32);
  return cast(y, x.dtype());
}

Tensor softmax(Tensor x) {
  if (!x.valid())
    throw Error("softmax: invalid (default-constructed) tensor");
  if (x.rank() < 1)
    throw Error("softmax: x must have rank >= 1, got shape " +
                shapeString(x.shape()));
  Tensor xf = cast(x, DType::F32);
  // Subtracting the row max keeps exp() from overflowing.
  Tensor m = max(xf, -1);
  Tensor e = exp(xf - m);
  Tensor s = sum(e, -1);
  return cast(e / s, x.dtype());
}

Tensor silu_mul(Tensor a, Tensor b) {
  checkSameShapeAndDType("silu_mul", a, b);
  Tensor y = silu(cast(a, DType::F32)) * cast(b, DType::F32);
  return cast(y, a.dtype());
}

std::pair<Tensor, Tensor> add_rms_norm(Tensor x, Tensor residual, Tensor w,
                                       double eps) {
  checkSameShapeAndDType("add_rms_norm", x, residual);
  // The residual stream stays in the model dtype, as frameworks do; only the
  // norm itself runs in f32.
  Tensor h = x + residual;
  return {rms_norm(h, w, eps), h};
}

Tensor rotate_half(Tensor x) {
  if (!x.valid())
    throw Error("rotate_half: invalid (default-constructed) tensor");
  if (x.rank() >= 1 && isSymbolic(x.dim(-1)))
    throw Error("rotate_half: the last dim must be static (it is sliced in halves), got shape " +
                shapeString(x.shape()));
  if (x.rank() < 1 || x.dim(-1) % 2 != 0)
    throw Error("rotate_half: the last dim must be even, got shape " +
                shapeString(x.shape()));
  int64_t d = x.dim(-1), half = d / 2;
  return concat({-slice(x, -1, half, d), slice(x, -1, 0, half)}, -1);
}

Tensor rope(Tensor x, Tensor cos, Tensor sin) {
  if (!x.valid() || !cos.valid() || !sin.valid())
    throw Error("rope: invalid (default-constructed) tensor");
  x.graph()->checkOwned(cos, "rope");
  x.graph()->checkOwned(sin, "rope");
  if (x.rank() >= 1 && isSymbolic(x.dim(-1)))
    throw Error("rope: x's last dim must be static (it is sliced in halves), got shape " +
                shapeString(x.shape()));
  if (x.rank() < 1 || x.dim(-1) % 2 != 0)
    throw Error("rope: x's last dim must be even, got shape " + shapeString(x.shape()));
  for (const Tensor *t : {&cos, &sin}) {
    const char *what = t == &cos ? "cos" : "sin";
    if (t->dtype() != x.dtype())
      throw Error(std::string("rope: ") + what + " dtype mismatch: " + describe(*t) +
                  " vs x " + describe(x));
    if (t->rank() < 1 || t->dim(-1) != x.dim(-1))
      throw Error(std::string("rope: ") + what + " shape " + shapeString(t->shape()) +
                  " must end in x's last dim " + dimString(x.dim(-1)));
  }
  Tensor xf = cast(x, DType::F32);
  // Broadcast before the cast, so the cast happens per element of x's shape
  // (it fuses into the one kernel; cos/sin are read once per row of x).
  Tensor c = cast(broadcast_to(cos, x.shape()), DType::F32);
  Tensor s = cast(broadcast_to(sin, x.shape()), DType::F32);
  return cast(xf * c + rotate_half(xf) * s, x.dtype());
}

namespace {
void checkLinear(const char *op, const Tensor &x, const Tensor &w) {
  if (!x.valid() || !w.valid())
    throw Error(std::string(op) + ": invalid (default-constructed) tensor");
  x.graph()->checkOwned(w, op);
  if (x.rank() < 2)
    throw Error(std::string(op) + ": x must be [..., in] with rank >= 2, got " +
                describe(x));
  if (w.rank() != 2 || w.dim(1) != x.dim(-1))
    throw Error(std::string(op) + ": weight " + describe(w) +
                " must be [out, in] with in = " + dimString(x.dim(-1)) +
                " (x is " + describe(x) + ")");
  if (w.dtype() != x.dtype())
    throw Error(std::string(op) + ": weight dtype mismatch: " + describe(w) +
                " vs x " + describe(x));
}
} // namespace

Tensor linear(Tensor x, Tensor w) {
  checkLinear("linear", x, w);
  return matmul(x, w, /*transposeA=*/false, /*transposeB=*/true);
}

Tensor linear(Tensor x, Tensor w, Tensor bias) {
  checkLinear("linear", x, w);
  x.graph()->checkOwned(bias, "linear");
  if (bias.rank() != 1 || bias.dim(0) != w.dim(0))
    throw Error("linear: bias shape " + shapeString(bias.shape()) +
                " does not match weight " + describe(w) + " (expected [" +
                dimString(w.dim(0)) + "])");
  if (bias.dtype() != x.dtype())
    throw Error("linear: bias dtype mismatch: " + describe(bias) + " vs x " +
                describe(x));
  return matmul(x, w, /*transposeA=*/false, /*transposeB=*/true) + bias;
}

namespace {

/// nn::attention with an optional additive mask (invalid: none).
Tensor attentionWith(Tensor q, Tensor k, Tensor v, double scale, Tensor mask) {
  const char *op = "attention";
  if (!q.valid() || !k.valid() || !v.valid())
    throw Error("attention: invalid (default-constructed) tensor");
  Graph *g = q.graph();
  g->checkOwned(k, op);
  g->checkOwned(v, op);
  if (q.rank() < 2 || k.rank() != q.rank() || v.rank() != q.rank())
    throw Error("attention: q, k and v must have one rank >= 2, got q " + describe(q) +
                ", k " + describe(k) + ", v " + describe(v));
  Shape lead(q.shape().begin(), q.shape().end() - 2);
  auto leading = [](const Tensor &t) { return Shape(t.shape().begin(), t.shape().end() - 2); };
  if (leading(k) != lead || leading(v) != lead)
    throw Error("attention: q, k and v must have equal leading (batch) dims, got q " +
                describe(q) + ", k " + describe(k) + ", v " + describe(v));
  if (k.dim(-1) != q.dim(-1))
    throw Error("attention: k's last dim must be q's head dim " + dimString(q.dim(-1)) +
                ", got k " + describe(k));
  if (v.dim(-2) != k.dim(-2))
    throw Error("attention: v must have k's " + dimString(k.dim(-2)) +
                " keys, got v " + describe(v) + " and k " + describe(k));
  if (k.dtype() != q.dtype() || v.dtype() != q.dtype())
    throw Error("attention: dtype mismatch: q " + describe(q) + ", k " + describe(k) +
                ", v " + describe(v));
  if (!(scale > 0) || !std::isfinite(scale))
    throw Error("attention: scale must be positive and finite, got " + std::to_string(scale));
  Tensor scores = matmul(q, k, DType::F32, /*transposeA=*/false, /*transposeB=*/true) * scale;
  if (mask.valid()) {
    g->checkOwned(mask, op);
    if (!canBroadcastTo(mask.shape(), scores.shape()))
      throw Error("attention: the mask must broadcast to the scores " +
                  shapeString(scores.shape()) + " (q " + describe(q) + ", k " + describe(k) +
                  "), got mask " + describe(mask));
    // Broadcast before the cast: a cast on the mask's own shape would be a
    // kernel of its own, while a broadcast input is read by the epilogue.
    if (mask.dtype() != DType::F32)
      mask = cast(broadcast_to(mask, scores.shape()), DType::F32);
    scores = scores + mask;
  }
  Tensor p = cast(softmax(scores), q.dtype());
  return matmul(p, v);
}

} // namespace

Tensor attention(Tensor q, Tensor k, Tensor v, double scale) {
  return attentionWith(q, k, v, scale, Tensor());
}

Tensor attention(Tensor q, Tensor k, Tensor v, double scale, Tensor mask) {
  if (!mask.valid())
    throw Error("attention: invalid (default-constructed) mask");
  return attentionWith(q, k, v, scale, mask);
}

Tensor causal_attention(Tensor q, Tensor k, Tensor v, double scale, int64_t period,
                        int64_t window) {
  if (!q.valid() || !k.valid())
    throw Error("causal_attention: invalid (default-constructed) tensor");
  if (q.rank() < 2 || k.rank() < 2)
    throw Error("causal_attention: q and k must have rank >= 2, got q " + describe(q) +
                ", k " + describe(k));
  Shape scores(q.shape().begin(), q.shape().end() - 1);
  scores.push_back(k.dim(-2));
  return attentionWith(q, k, v, scale, q.graph()->causal_mask(scores, period, window));
}

} // namespace nn
} // namespace tilec
