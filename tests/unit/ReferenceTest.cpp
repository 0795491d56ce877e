// Unit tests for the CPU reference evaluator, checked against independent,
// straightforward loops written here (not against the evaluator itself).
#include "tilec/Reference.h"

#include "ErrorOf.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace tilec;

namespace {

double sigmoidRef(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double geluRef(double x) {
  const double pi = 3.14159265358979323846;
  return 0.5 * x *
         (1.0 + std::tanh(std::sqrt(2.0 / pi) * (x + 0.044715 * x * x * x)));
}

// Runs a one-output graph.
HostTensor run1(const Graph &g, const std::vector<HostTensor> &inputs) {
  std::vector<HostTensor> out = evaluateReference(g, inputs);
  EXPECT_EQ(out.size(), 1u);
  return out.at(0);
}

using tilec::testing::errorOf;

} // namespace

TEST(ReferenceTest, SoftmaxMatchesDirectFormula) {
  const int rows = 6, cols = 37;
  Graph g("softmax");
  Tensor x = g.input("x", {rows, cols}, DType::F32);
  g.output(nn::softmax(x));
  HostTensor in = HostTensor::random({rows, cols}, DType::F32, 11, -4.0f, 4.0f);
  HostTensor out = run1(g, {in});
  ASSERT_EQ(out.shape, (Shape{rows, cols}));
  EXPECT_EQ(out.dtype, DType::F32);

  HostTensor expect({rows, cols}, DType::F32);
  for (int r = 0; r < rows; ++r) {
    const float *row = &in.values[r * cols];
    double m = row[0], s = 0, rowSum = 0;
    for (int c = 1; c < cols; ++c)
      m = std::max(m, static_cast<double>(row[c]));
    for (int c = 0; c < cols; ++c)
      s += std::exp(row[c] - m);
    for (int c = 0; c < cols; ++c) {
      double e = std::exp(row[c] - m) / s;
      expect.values[r * cols + c] = static_cast<float>(e);
      EXPECT_NEAR(out.values[r * cols + c], e, 1e-6 * e + 1e-9);
      rowSum += out.values[r * cols + c];
    }
    EXPECT_NEAR(rowSum, 1.0, 1e-5) << "row " << r;
  }
  EXPECT_LT(relativeError(out, expect), 1e-6);
}

TEST(ReferenceTest, SoftmaxIsStableForLargeInputs) {
  Graph g;
  Tensor x = g.input("x", {1, 3}, DType::F32);
  g.output(nn::softmax(x));
  HostTensor in({1, 3}, DType::F32);
  in.values = {1000.0f, 1000.0f, 999.0f}; // naive exp() would overflow
  HostTensor out = run1(g, {in});
  double d = 2.0 + std::exp(-1.0);
  EXPECT_NEAR(out.values[0], 1.0 / d, 1e-6);
  EXPECT_NEAR(out.values[1], 1.0 / d, 1e-6);
  EXPECT_NEAR(out.values[2], std::exp(-1.0) / d, 1e-6);
}

TEST(ReferenceTest, RmsNormMatchesDirectFormula) {
  const int rows = 5, cols = 64;
  const double eps = 1e-6;
  for (DType dt : {DType::F32, DType::BF16}) {
    Graph g("rms");
    Tensor x = g.input("x", {rows, cols}, dt);
    Tensor w = g.input("w", {cols}, dt);
    g.output(nn::rms_norm(x, w, eps));
    HostTensor xin = HostTensor::random({rows, cols}, dt, 3, -2.0f, 2.0f);
    HostTensor win = HostTensor::random({cols}, dt, 4, 0.5f, 1.5f);
    HostTensor out = run1(g, {xin, win});
    EXPECT_EQ(out.dtype, dt);

    HostTensor expect({rows, cols}, dt);
    for (int r = 0; r < rows; ++r) {
      double ss = 0;
      for (int c = 0; c < cols; ++c)
        ss += double(xin.values[r * cols + c]) * xin.values[r * cols + c];
      double inv = 1.0 / std::sqrt(ss / cols + eps);
      for (int c = 0; c < cols; ++c)
        expect.values[r * cols + c] =
            roundTo(dt, float(xin.values[r * cols + c] * inv * win.values[c]));
    }
    // f32 differs only by f32 intermediate rounding; bf16 by at most a few
    // final-rounding ulps on some elements.
    double tol = dt == DType::F32 ? 1e-6 : 4e-3;
    EXPECT_LT(relativeError(out, expect), tol) << dtypeName(dt);
    for (float v : out.values)
      EXPECT_EQ(roundTo(dt, v), v); // output is representable in dtype
  }
}

TEST(ReferenceTest, LayerNormNormalizesAndMatchesFormula) {
  const int rows = 4, cols = 128;
  const double eps = 1e-5;
  Graph g("ln");
  Tensor x = g.input("x", {rows, cols}, DType::F32);
  Tensor w = g.input("w", {cols}, DType::F32);
  Tensor b = g.input("b", {cols}, DType::F32);
  g.output(nn::layer_norm(x, w, b, eps));
  HostTensor xin = HostTensor::random({rows, cols}, DType::F32, 21, 1.0f, 5.0f);

  // With w = 1 and b = 0 every row has mean ~0 and variance ~1.
  HostTensor ones({cols}, DType::F32), zeros({cols}, DType::F32);
  for (float &v : ones.values)
    v = 1.0f;
  HostTensor out = run1(g, {xin, ones, zeros});
  for (int r = 0; r < rows; ++r) {
    double m = 0, var = 0;
    for (int c = 0; c < cols; ++c)
      m += out.values[r * cols + c];
    m /= cols;
    for (int c = 0; c < cols; ++c)
      var += (out.values[r * cols + c] - m) * (out.values[r * cols + c] - m);
    var /= cols;
    EXPECT_NEAR(m, 0.0, 1e-5) << "row " << r;
    // var(out) = var / (var + eps), slightly below 1.
    EXPECT_NEAR(var, 1.0, 1e-3) << "row " << r;
  }

  HostTensor win = HostTensor::random({cols}, DType::F32, 22, 0.5f, 2.0f);
  HostTensor bin = HostTensor::random({cols}, DType::F32, 23);
  out = run1(g, {xin, win, bin});
  HostTensor expect({rows, cols}, DType::F32);
  for (int r = 0; r < rows; ++r) {
    double m = 0, var = 0;
    for (int c = 0; c < cols; ++c)
      m += xin.values[r * cols + c];
    m /= cols;
    for (int c = 0; c < cols; ++c) {
      double d = xin.values[r * cols + c] - m;
      var += d * d;
    }
    var /= cols;
    for (int c = 0; c < cols; ++c)
      expect.values[r * cols + c] =
          float((xin.values[r * cols + c] - m) / std::sqrt(var + eps) *
                    win.values[c] +
                bin.values[c]);
  }
  EXPECT_LT(relativeError(out, expect), 1e-6);
}

TEST(ReferenceTest, ActivationsMatchClosedForm) {
  const std::vector<float> xs = {-4.0f, -1.5f, -1.0f, -0.25f, 0.0f,
                                 0.5f,  1.0f,  2.0f,  3.75f};
  const Shape shape = {static_cast<int64_t>(xs.size())};
  Graph g("act");
  Tensor x = g.input("x", shape, DType::F32);
  g.output(gelu(x));
  g.output(silu(x));
  g.output(sigmoid(x));
  g.output(tanh(x));
  g.output(exp(-x));
  HostTensor in(shape, DType::F32);
  in.values = xs;
  std::vector<HostTensor> out = evaluateReference(g, {in});
  ASSERT_EQ(out.size(), 5u);
  for (size_t i = 0; i < xs.size(); ++i) {
    double v = xs[i];
    EXPECT_NEAR(out[0].values[i], geluRef(v), 1e-6) << v;
    EXPECT_NEAR(out[1].values[i], v * sigmoidRef(v), 1e-6) << v;
    EXPECT_NEAR(out[2].values[i], sigmoidRef(v), 1e-6) << v;
    EXPECT_NEAR(out[3].values[i], std::tanh(v), 1e-6) << v;
    EXPECT_NEAR(out[4].values[i], std::exp(-v), 1e-6 * std::exp(-v)) << v;
  }
  // A few well-known anchors for the formulas themselves.
  EXPECT_EQ(out[0].values[4], 0.0f);
  EXPECT_EQ(out[2].values[4], 0.5f);
  EXPECT_NEAR(out[0].values[6], 0.8411920, 1e-6); // gelu_tanh(1)
  EXPECT_NEAR(out[2].values[6], 0.7310586, 1e-6); // sigmoid(1)
  EXPECT_NEAR(out[1].values[2], -0.2689414, 1e-6); // silu(-1)
}

TEST(ReferenceTest, SqrtRsqrtLogAndMinMax) {
  Graph g;
  Tensor a = g.input("a", {4}, DType::F32);
  Tensor b = g.input("b", {4}, DType::F32);
  g.output(sqrt(a));
  g.output(rsqrt(a));
  g.output(log(a));
  g.output(maximum(a, b));
  g.output(minimum(a, b));
  HostTensor ai({4}, DType::F32), bi({4}, DType::F32);
  ai.values = {0.25f, 1.0f, 4.0f, 9.0f};
  bi.values = {1.0f, 0.5f, 5.0f, -9.0f};
  std::vector<HostTensor> out = evaluateReference(g, {ai, bi});
  EXPECT_EQ(out[0].values, (std::vector<float>{0.5f, 1.0f, 2.0f, 3.0f}));
  EXPECT_EQ(out[1].values,
            (std::vector<float>{2.0f, 1.0f, 0.5f, float(1.0 / 3.0)}));
  EXPECT_NEAR(out[2].values[2], std::log(4.0), 1e-7);
  EXPECT_EQ(out[3].values, (std::vector<float>{1.0f, 1.0f, 5.0f, 9.0f}));
  EXPECT_EQ(out[4].values, (std::vector<float>{0.25f, 0.5f, 4.0f, -9.0f}));
}

TEST(ReferenceTest, BroadcastOuterSum) {
  Graph g;
  Tensor a = g.input("a", {4, 1}, DType::F32);
  Tensor b = g.input("b", {1, 5}, DType::F32);
  g.output(a + b);
  HostTensor ai({4, 1}, DType::F32), bi({1, 5}, DType::F32);
  ai.values = {0.0f, 10.0f, 20.0f, 30.0f};
  bi.values = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  HostTensor out = run1(g, {ai, bi});
  ASSERT_EQ(out.shape, (Shape{4, 5}));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      EXPECT_EQ(out.values[i * 5 + j], ai.values[i] + bi.values[j])
          << i << "," << j;
}

TEST(ReferenceTest, BroadcastToHigherRankAndScalars) {
  Graph g;
  Tensor v = g.input("v", {3}, DType::F32);
  Tensor s = g.input("s", {}, DType::F32);
  g.output(broadcast_to(v, {2, 3}) * s);
  g.output((v * 2.0 - 1.0) / 4.0);
  g.output(1.0 / v);
  HostTensor vi({3}, DType::F32), si({}, DType::F32);
  vi.values = {1.0f, 2.0f, 4.0f};
  si.values = {-3.0f};
  std::vector<HostTensor> out = evaluateReference(g, {vi, si});
  EXPECT_EQ(out[0].shape, (Shape{2, 3}));
  EXPECT_EQ(out[0].values,
            (std::vector<float>{-3.0f, -6.0f, -12.0f, -3.0f, -6.0f, -12.0f}));
  EXPECT_EQ(out[1].values, (std::vector<float>{0.25f, 0.75f, 1.75f}));
  EXPECT_EQ(out[2].values, (std::vector<float>{1.0f, 0.5f, 0.25f}));
}

TEST(ReferenceTest, ReductionsAlongEachAxis) {
  const int d0 = 3, d1 = 4, d2 = 5;
  HostTensor in = HostTensor::random({d0, d1, d2}, DType::F32, 5, -10.0f, 10.0f);
  for (int axis = 0; axis < 3; ++axis) {
    Graph g;
    Tensor x = g.input("x", {d0, d1, d2}, DType::F32);
    g.output(sum(x, axis));
    g.output(max(x, axis - 3)); // negative spelling of the same axis
    g.output(mean(x, axis));
    std::vector<HostTensor> out = evaluateReference(g, {in});
    Shape rs = {d0, d1, d2};
    rs[axis] = 1;
    for (const HostTensor &t : out)
      EXPECT_EQ(t.shape, rs);
    int n = static_cast<int>(Shape{d0, d1, d2}[axis]);
    for (int i = 0; i < (axis == 0 ? 1 : d0); ++i)
      for (int j = 0; j < (axis == 1 ? 1 : d1); ++j)
        for (int k = 0; k < (axis == 2 ? 1 : d2); ++k) {
          double s = 0, m = -INFINITY;
          for (int r = 0; r < n; ++r) {
            int ii = axis == 0 ? r : i, jj = axis == 1 ? r : j,
                kk = axis == 2 ? r : k;
            double v = in.values[(ii * d1 + jj) * d2 + kk];
            s += v;
            m = std::max(m, v);
          }
          int o = (i * rs[1] + j) * rs[2] + k;
          EXPECT_FLOAT_EQ(out[0].values[o], float(s)) << axis;
          EXPECT_EQ(out[1].values[o], float(m)) << axis;
          EXPECT_FLOAT_EQ(out[2].values[o], float(s / n)) << axis;
        }
  }
}

TEST(ReferenceTest, Bf16RoundingIsApplied) {
  Graph g;
  Tensor x = g.input("x", {5}, DType::F32);
  g.output(cast(x, DType::BF16));
  HostTensor in({5}, DType::F32);
  in.values = {1.0f + 0x1.0p-8f, 1.0f + 3 * 0x1.0p-8f, 3.1415926f, -0.1f,
               1.0f + 0x1.0p-8f + 0x1.0p-20f};
  HostTensor out = run1(g, {in});
  EXPECT_EQ(out.dtype, DType::BF16);
  EXPECT_EQ(out.values[0], 1.0f);                // tie to even
  EXPECT_EQ(out.values[1], 1.0f + 0x1.0p-6f);    // tie to even (up)
  EXPECT_EQ(out.values[2], 3.140625f);
  EXPECT_EQ(out.values[3], -0x1.9ap-4f);         // -0.10009765625
  EXPECT_EQ(out.values[4], 1.0f + 0x1.0p-7f);    // above the tie

  // Arithmetic in bf16 rounds each node's result: 1 + 2^-8 is 1 in bf16,
  // while the same add in f32 keeps the small term.
  Graph h;
  Tensor a = h.input("a", {1}, DType::BF16);
  Tensor b = h.input("b", {1}, DType::BF16);
  h.output(a + b);
  h.output(cast(a, DType::F32) + cast(b, DType::F32));
  HostTensor ai({1}, DType::BF16), bi({1}, DType::BF16);
  ai.values = {1.0f};
  bi.values = {0x1.0p-8f};
  std::vector<HostTensor> out2 = evaluateReference(h, {ai, bi});
  EXPECT_EQ(out2[0].values[0], 1.0f);
  EXPECT_EQ(out2[1].values[0], 1.0f + 0x1.0p-8f);
}

TEST(ReferenceTest, AddRmsNormResidualInModelDType) {
  const int rows = 2, cols = 16;
  Graph g;
  Tensor x = g.input("x", {rows, cols}, DType::BF16);
  Tensor r = g.input("r", {rows, cols}, DType::BF16);
  Tensor w = g.input("w", {cols}, DType::BF16);
  auto [y, h] = nn::add_rms_norm(x, r, w);
  g.output(y);
  g.output(h);
  HostTensor xi = HostTensor::random({rows, cols}, DType::BF16, 31);
  HostTensor ri = HostTensor::random({rows, cols}, DType::BF16, 32);
  HostTensor wi = HostTensor::random({cols}, DType::BF16, 33, 0.5f, 1.5f);
  std::vector<HostTensor> out = evaluateReference(g, {xi, ri, wi});
  ASSERT_EQ(out.size(), 2u);
  HostTensor expectY({rows, cols}, DType::BF16);
  for (int i = 0; i < rows; ++i) {
    double ss = 0;
    std::vector<float> hrow(cols);
    for (int c = 0; c < cols; ++c) {
      hrow[c] = roundTo(DType::BF16, xi.values[i * cols + c] +
                                         ri.values[i * cols + c]);
      EXPECT_EQ(out[1].values[i * cols + c], hrow[c]);
      ss += double(hrow[c]) * hrow[c];
    }
    double inv = 1.0 / std::sqrt(ss / cols + 1e-6);
    for (int c = 0; c < cols; ++c)
      expectY.values[i * cols + c] =
          roundTo(DType::BF16, float(hrow[c] * inv * wi.values[c]));
  }
  EXPECT_LT(relativeError(out[0], expectY), 4e-3);
}

TEST(ReferenceTest, SiluMulMatchesFormula) {
  Graph g;
  Tensor a = g.input("a", {3, 8}, DType::F16);
  Tensor b = g.input("b", {3, 8}, DType::F16);
  g.output(nn::silu_mul(a, b));
  HostTensor ai = HostTensor::random({3, 8}, DType::F16, 41, -3.0f, 3.0f);
  HostTensor bi = HostTensor::random({3, 8}, DType::F16, 42, -3.0f, 3.0f);
  HostTensor out = run1(g, {ai, bi});
  for (size_t i = 0; i < out.values.size(); ++i) {
    double a0 = ai.values[i];
    double expect = a0 * sigmoidRef(a0) * bi.values[i];
    // Half keeps 11 significant bits: allow one rounding step (2^-11
    // relative) plus the f32 intermediates.
    EXPECT_NEAR(out.values[i], expect, std::fabs(expect) * 0x1.0p-10 + 1e-7)
        << i;
    EXPECT_EQ(roundTo(DType::F16, out.values[i]), out.values[i]);
  }
}

TEST(ReferenceTest, InputValidation) {
  Graph g("val");
  Tensor x = g.input("x", {2, 3}, DType::F32);
  Tensor y = g.input("y", {3}, DType::F32);
  g.output(x + y);
  HostTensor xi({2, 3}, DType::F32), yi({3}, DType::F32);
  EXPECT_NO_THROW(evaluateReference(g, {xi, yi}));

  std::string msg = errorOf([&] { evaluateReference(g, {xi}); });
  EXPECT_NE(msg.find("2 inputs"), std::string::npos) << msg;

  msg = errorOf([&] { evaluateReference(g, {xi, HostTensor({4}, DType::F32)}); });
  EXPECT_NE(msg.find("'y'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[4]"), std::string::npos) << msg;

  msg = errorOf([&] {
    evaluateReference(g, {HostTensor({2, 3}, DType::BF16), yi});
  });
  EXPECT_NE(msg.find("'x'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("f32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bf16"), std::string::npos) << msg;

  // Right shape and dtype but a value vector of the wrong length.
  HostTensor bad({2, 3}, DType::F32);
  bad.values.pop_back();
  EXPECT_THROW(evaluateReference(g, {bad, yi}), Error);
}

TEST(ReferenceTest, SliceAndConcatAlongEveryAxis) {
  Graph g;
  Tensor x = g.input("x", {3, 4, 5}, DType::F32);
  g.output(slice(x, 1, 1, 3));
  g.output(concat({slice(x, 2, 3, 5), x}, 2));
  g.output(concat({x, slice(x, 0, 2, 3)}, 0));
  HostTensor in = HostTensor::random({3, 4, 5}, DType::F32, 11);
  auto at = [&](int64_t i, int64_t j, int64_t k) { return in.values[(i * 4 + j) * 5 + k]; };
  std::vector<HostTensor> out = evaluateReference(g, {in});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].shape, (Shape{3, 2, 5}));
  EXPECT_EQ(out[1].shape, (Shape{3, 4, 7}));
  EXPECT_EQ(out[2].shape, (Shape{4, 4, 5}));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 7; ++k) {
        if (j < 2 && k < 5)
          EXPECT_EQ(out[0].values[(i * 2 + j) * 5 + k], at(i, j + 1, k));
        EXPECT_EQ(out[1].values[(i * 4 + j) * 7 + k], k < 2 ? at(i, j, k + 3) : at(i, j, k - 2));
      }
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 5; ++k)
        EXPECT_EQ(out[2].values[(i * 4 + j) * 5 + k], i < 3 ? at(i, j, k) : at(2, j, k));
}

// update_slice: the buffer's elements, but [start, start + n) of the axis
// from the update; the input itself is left as it was (the reference is
// functional).
TEST(ReferenceTest, UpdateSliceReplacesOnlyItsRows) {
  Graph g;
  Tensor buf = g.input("buf", {3, 6, 4}, DType::F32);
  Tensor upd = g.input("upd", {3, 2, 4}, DType::F32);
  g.output(update_slice(buf, upd, 1, 3));
  HostTensor b = HostTensor::random({3, 6, 4}, DType::F32, 31);
  HostTensor u = HostTensor::random({3, 2, 4}, DType::F32, 32);
  std::vector<HostTensor> out = evaluateReference(g, {b, u});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape, (Shape{3, 6, 4}));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 6; ++j)
      for (int64_t k = 0; k < 4; ++k)
        EXPECT_EQ(out[0].values[(i * 6 + j) * 4 + k],
                  j >= 3 && j < 5 ? u.values[(i * 2 + j - 3) * 4 + k] : b.values[(i * 6 + j) * 4 + k])
            << i << " " << j << " " << k;
}

TEST(ReferenceTest, RopeMatchesRotateHalfFormula) {
  const int64_t T = 3, H = 2, D = 8;
  Graph g;
  Tensor x = g.input("x", {T, H, D}, DType::BF16);
  Tensor c = g.input("cos", {T, 1, D}, DType::BF16);
  Tensor s = g.input("sin", {T, 1, D}, DType::BF16);
  g.output(nn::rope(x, c, s));
  HostTensor hx = HostTensor::random({T, H, D}, DType::BF16, 21);
  HostTensor hc = HostTensor::random({T, 1, D}, DType::BF16, 22);
  HostTensor hs = HostTensor::random({T, 1, D}, DType::BF16, 23);
  HostTensor y = run1(g, {hx, hc, hs});
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t d = 0; d < D; ++d) {
        auto X = [&](int64_t i) { return double(hx.values[(t * H + h) * D + i]); };
        double rot = d < D / 2 ? -X(d + D / 2) : X(d - D / 2);
        // f32 math rounded per op, then bf16: compare with a bf16 ulp of slack.
        double want = X(d) * hc.values[t * D + d] + rot * hs.values[t * D + d];
        EXPECT_NEAR(y.values[(t * H + h) * D + d], want, 1e-2 * std::max(1.0, std::fabs(want)))
            << t << "," << h << "," << d;
      }
}

// A graph with a symbolic token count evaluates at any count, bound to its
// inputs' shapes, exactly as the graph built for that count.
TEST(ReferenceTest, SymbolicDimsBindToTheInputs) {
  const int64_t tokens = symbolDim("tokens");
  auto build = [](Graph &g, int64_t rows) {
    Tensor x = g.input("x", {rows, 48}, DType::BF16);
    Tensor r = g.input("r", {rows, 48}, DType::BF16);
    Tensor w = g.input("w", {48}, DType::BF16);
    auto [y, h] = nn::add_rms_norm(x, r, w);
    g.output(y);
    g.output(nn::softmax(h));
  };
  Graph sym("sym");
  build(sym, tokens);
  for (int64_t rows : {1, 3, 17}) {
    SCOPED_TRACE(rows);
    std::vector<HostTensor> in = {HostTensor::random({rows, 48}, DType::BF16, 10 + rows, -2, 2),
                                  HostTensor::random({rows, 48}, DType::BF16, 20 + rows, -2, 2),
                                  HostTensor::random({48}, DType::BF16, 30, 0.5f, 1.5f)};
    Graph fixed("fixed");
    build(fixed, rows);
    std::vector<HostTensor> want = evaluateReference(fixed, in);
    std::vector<HostTensor> got = evaluateReference(sym, in);
    ASSERT_EQ(got.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(got[i].shape, (Shape{rows, 48}));
      EXPECT_EQ(got[i].values, want[i].values);
    }
  }
  std::string msg = errorOf([&] {
    evaluateReference(sym, {HostTensor::random({3, 48}, DType::BF16, 1),
                            HostTensor::random({4, 48}, DType::BF16, 2),
                            HostTensor::random({48}, DType::BF16, 3)});
  });
  EXPECT_NE(msg.find("'tokens'"), std::string::npos) << msg;
}

// reshape keeps the row-major order: merging heads into rows and splitting
// them again gives back the tensor, and a norm over merged rows is a norm
// over [heads * dim] per token.
// transpose against indexing by hand, for every pair of dims of a rank-4
// tensor (f32, random values), and a transpose applied twice is the input.
TEST(ReferenceTest, TransposeSwapsDims) {
  const Shape shape{2, 3, 4, 5};
  HostTensor xin = HostTensor::random(shape, DType::F32, 11, -3.0f, 3.0f);
  auto at = [&](const std::vector<int64_t> &i) {
    return xin.values[((i[0] * 3 + i[1]) * 4 + i[2]) * 5 + i[3]];
  };
  for (int d0 = 0; d0 < 4; ++d0)
    for (int d1 = d0 + 1; d1 < 4; ++d1) {
      SCOPED_TRACE(std::to_string(d0) + " " + std::to_string(d1));
      Graph g("transpose");
      Tensor x = g.input("x", shape, DType::F32);
      Tensor t = transpose(x, d1, d0);
      g.output(t);
      g.output(transpose(t, d0, d1));
      std::vector<HostTensor> out = evaluateReference(g, {xin});
      Shape ts = shape;
      std::swap(ts[d0], ts[d1]);
      ASSERT_EQ(out[0].shape, ts);
      EXPECT_EQ(out[1].values, xin.values);
      int64_t k = 0, bad = 0;
      std::vector<int64_t> i(4);
      for (i[0] = 0; i[0] < ts[0]; ++i[0])
        for (i[1] = 0; i[1] < ts[1]; ++i[1])
          for (i[2] = 0; i[2] < ts[2]; ++i[2])
            for (i[3] = 0; i[3] < ts[3]; ++i[3]) {
              std::vector<int64_t> src = i;
              std::swap(src[d0], src[d1]);
              bad += out[0].values[k++] != at(src);
            }
      EXPECT_EQ(bad, 0);
    }
}

TEST(ReferenceTest, ReshapeKeepsRowMajorOrder) {
  Graph g("heads");
  Tensor x = g.input("x", {3, 4, 8}, DType::F32);
  Tensor w = g.input("w", {32}, DType::F32);
  Tensor rows = reshape(x, {3, 32});
  g.output(reshape(rows, {3, 4, 8}));
  g.output(nn::rms_norm(rows, w));
  HostTensor xin = HostTensor::random({3, 4, 8}, DType::F32, 5, -2.0f, 2.0f);
  HostTensor win = HostTensor::random({32}, DType::F32, 6, 0.5f, 1.5f);
  std::vector<HostTensor> out = evaluateReference(g, {xin, win});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape, (Shape{3, 4, 8}));
  EXPECT_EQ(out[0].values, xin.values);
  Graph flat("flat");
  Tensor fx = flat.input("x", {3, 32}, DType::F32);
  flat.output(nn::rms_norm(fx, flat.input("w", {32}, DType::F32)));
  HostTensor xflat({3, 32}, DType::F32);
  xflat.values = xin.values;
  std::vector<HostTensor> want = evaluateReference(flat, {xflat, win});
  EXPECT_EQ(out[1].shape, (Shape{3, 32}));
  EXPECT_EQ(out[1].values, want[0].values);
}
