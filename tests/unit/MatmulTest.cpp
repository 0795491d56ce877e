// Unit tests for matmul and nn::linear: shapes, dtypes and error messages of
// the builders, and the reference evaluator checked against a naive triple
// loop written here (indexing the operands' original layouts directly).
#include "tilec/Reference.h"

#include "ErrorOf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

using namespace tilec;

namespace {

using tilec::testing::errorOf;

// Expects `message` to contain every one of `parts`.
void expectMentions(const std::string &message,
                    const std::vector<std::string> &parts) {
  for (const std::string &p : parts)
    EXPECT_NE(message.find(p), std::string::npos)
        << "message '" << message << "' does not mention '" << p << "'";
}

// The product as written in the spec: a is [batch..., M, K] ([..., K, M] if
// ta), b is [K, N] ([N, K] if tb) or carries a's batch dims. Sums in double
// in k order, rounded once to `outDType`.
HostTensor naiveMatmul(const HostTensor &a, const HostTensor &b, bool ta,
                       bool tb, DType outDType) {
  size_t ar = a.shape.size(), br = b.shape.size();
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < ar; ++d)
    batch *= a.shape[d];
  int64_t m = ta ? a.shape[ar - 1] : a.shape[ar - 2];
  int64_t k = ta ? a.shape[ar - 2] : a.shape[ar - 1];
  int64_t n = tb ? b.shape[br - 2] : b.shape[br - 1];
  bool batchedB = br > 2;
  Shape outShape(a.shape.begin(), a.shape.end() - 2);
  outShape.push_back(m);
  outShape.push_back(n);
  HostTensor out(outShape, outDType);
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          int64_t ai = p * m * k + (ta ? kk * m + i : i * k + kk);
          int64_t bi = (batchedB ? p * k * n : 0) + (tb ? j * k + kk : kk * n + j);
          acc += static_cast<double>(a.values[ai]) * b.values[bi];
        }
        out.values[p * m * n + i * n + j] =
            roundTo(outDType, static_cast<float>(acc));
      }
  return out;
}

// One unit in the last place of `dtype` at magnitude |v|.
double ulp(DType dtype, double v) {
  int bits = dtype == DType::F32 ? 23 : dtype == DType::F16 ? 10 : 7;
  int e = 0;
  std::frexp(std::max(std::fabs(v), 1e-30), &e);
  return std::ldexp(1.0, e - 1 - bits);
}

// got must equal ref up to one rounding step of the output dtype (summation
// order may differ in the last double bits, which can flip a rounding).
void expectMatches(const HostTensor &got, const HostTensor &ref) {
  ASSERT_EQ(got.shape, ref.shape);
  ASSERT_EQ(got.dtype, ref.dtype);
  ASSERT_EQ(got.values.size(), ref.values.size());
  int bad = 0;
  for (size_t i = 0; i < ref.values.size() && bad < 5; ++i)
    if (!(std::fabs(got.values[i] - ref.values[i]) <=
          ulp(ref.dtype, ref.values[i])))
      ++bad, ADD_FAILURE() << "element " << i << ": got " << got.values[i]
                           << ", expected " << ref.values[i];
}

struct Case {
  Shape a, b;
  bool ta, tb;
  DType in, out;
};

// Builds matmul(a, b) for `c`, runs the reference on random data and
// compares with the naive loop.
void checkReference(const Case &c, uint64_t seed) {
  SCOPED_TRACE("a " + shapeString(c.a) + " b " + shapeString(c.b) + " ta " +
               std::to_string(c.ta) + " tb " + std::to_string(c.tb) + " " +
               dtypeName(c.in) + " -> " + dtypeName(c.out));
  Graph g("mm");
  Tensor a = g.input("a", c.a, c.in);
  Tensor b = g.input("b", c.b, c.in);
  g.output(matmul(a, b, c.out, c.ta, c.tb));
  HostTensor ha = HostTensor::random(c.a, c.in, seed, -2.0f, 2.0f);
  HostTensor hb = HostTensor::random(c.b, c.in, seed + 1, -2.0f, 2.0f);
  std::vector<HostTensor> out = evaluateReference(g, {ha, hb});
  ASSERT_EQ(out.size(), 1u);
  expectMatches(out[0], naiveMatmul(ha, hb, c.ta, c.tb, c.out));
}

} // namespace

TEST(MatmulTest, NameAndNode) {
  EXPECT_STREQ(opKindName(OpKind::Matmul), "matmul");
  EXPECT_FALSE(isBinaryElementwise(OpKind::Matmul));
  EXPECT_FALSE(isUnaryElementwise(OpKind::Matmul));
  EXPECT_FALSE(isReduction(OpKind::Matmul));
  Graph g("mm");
  Tensor a = g.input("a", {3, 5}, DType::F32);
  Tensor b = g.input("b", {7, 5}, DType::F32);
  Tensor y = matmul(a, b, false, true);
  const Node &n = g.node(y.id());
  EXPECT_EQ(n.kind, OpKind::Matmul);
  EXPECT_EQ(n.operands, (std::vector<int>{a.id(), b.id()}));
  EXPECT_FALSE(n.transposeA);
  EXPECT_TRUE(n.transposeB);
  // Only the matmul node was added (no transposes or broadcasts).
  EXPECT_EQ(g.nodes().size(), 3u);
  // Other nodes keep the flags off.
  EXPECT_FALSE(g.node(a.id()).transposeA);
  EXPECT_FALSE(g.node(a.id()).transposeB);
}

TEST(MatmulTest, ShapesForEveryTranspose) {
  const int64_t M = 3, K = 5, N = 7;
  Graph g("mm");
  Tensor aMK = g.input("aMK", {M, K}, DType::BF16);
  Tensor aKM = g.input("aKM", {K, M}, DType::BF16);
  Tensor bKN = g.input("bKN", {K, N}, DType::BF16);
  Tensor bNK = g.input("bNK", {N, K}, DType::BF16);
  struct {
    Tensor a, b;
    bool ta, tb;
  } cases[] = {{aMK, bKN, false, false},
               {aKM, bKN, true, false},
               {aMK, bNK, false, true},
               {aKM, bNK, true, true}};
  for (auto &c : cases) {
    Tensor y = matmul(c.a, c.b, c.ta, c.tb);
    EXPECT_EQ(y.shape(), (Shape{M, N})) << c.ta << c.tb;
    EXPECT_EQ(y.dtype(), DType::BF16);
    EXPECT_EQ(g.node(y.id()).transposeA, c.ta);
    EXPECT_EQ(g.node(y.id()).transposeB, c.tb);
    Tensor y32 = matmul(c.a, c.b, DType::F32, c.ta, c.tb);
    EXPECT_EQ(y32.shape(), (Shape{M, N}));
    EXPECT_EQ(y32.dtype(), DType::F32);
    EXPECT_EQ(g.node(y32.id()).transposeA, c.ta);
    EXPECT_EQ(g.node(y32.id()).transposeB, c.tb);
  }
  // Defaults: no transposes, a's dtype.
  Tensor d = matmul(aMK, bKN);
  EXPECT_FALSE(g.node(d.id()).transposeA);
  EXPECT_FALSE(g.node(d.id()).transposeB);
  EXPECT_EQ(matmul(aMK, bKN, DType::F16).dtype(), DType::F16);
  // [K, M]^T x [K, 2] is [M, 2]: M and K come from the right dims.
  EXPECT_EQ(matmul(aKM, g.input("bMM", {K, 2}, DType::BF16), true).shape(),
            (Shape{M, 2}));
}

TEST(MatmulTest, BatchedShapes) {
  Graph g("mm");
  Tensor a = g.input("a", {2, 4, 3, 5}, DType::F32);
  Tensor aT = g.input("aT", {2, 4, 5, 3}, DType::F32);
  Tensor b2 = g.input("b2", {5, 7}, DType::F32);
  Tensor b2T = g.input("b2T", {7, 5}, DType::F32);
  Tensor b4 = g.input("b4", {2, 4, 5, 7}, DType::F32);
  Tensor b4T = g.input("b4T", {2, 4, 7, 5}, DType::F32);
  Shape expected{2, 4, 3, 7};
  EXPECT_EQ(matmul(a, b2).shape(), expected);      // shared 2-D rhs
  EXPECT_EQ(matmul(a, b2T, false, true).shape(), expected);
  EXPECT_EQ(matmul(aT, b2, true, false).shape(), expected);
  EXPECT_EQ(matmul(a, b4).shape(), expected);      // per-batch rhs
  EXPECT_EQ(matmul(aT, b4T, true, true).shape(), expected);
  EXPECT_EQ(matmul(a, b4, DType::BF16).dtype(), DType::BF16);
  // Rank 3 (e.g. attention scores q @ k^T per head).
  Tensor q = g.input("q", {8, 16, 64}, DType::F32);
  Tensor k = g.input("k", {8, 32, 64}, DType::F32);
  EXPECT_EQ(matmul(q, k, false, true).shape(), (Shape{8, 16, 32}));
}

TEST(MatmulTest, Errors) {
  Graph g("mm");
  Tensor v = g.input("v", {5}, DType::F32);
  Tensor a = g.input("a", {3, 5}, DType::F32);
  Tensor b = g.input("b", {5, 7}, DType::F32);
  Tensor bBf = g.input("bBf", {5, 7}, DType::BF16);
  Tensor b6 = g.input("b6", {6, 7}, DType::F32);
  Tensor a3 = g.input("a3", {2, 3, 5}, DType::F32);
  Tensor bb = g.input("bb", {4, 5, 7}, DType::F32);
  Tensor bb4 = g.input("bb4", {1, 2, 5, 7}, DType::F32);

  expectMentions(errorOf([&] { matmul(v, b); }),
                 {"matmul", "lhs", "rank >= 2", "f32 [5]", "f32 [5, 7]"});
  expectMentions(errorOf([&] { matmul(a, v); }),
                 {"matmul", "rhs", "rank >= 2", "f32 [3, 5]", "f32 [5]"});
  expectMentions(errorOf([&] { matmul(a, bBf); }),
                 {"matmul", "dtype mismatch", "f32 [3, 5]", "bf16 [5, 7]"});
  // Also with an explicit outDType: the operands must still agree.
  expectMentions(errorOf([&] { matmul(a, bBf, DType::F32); }),
                 {"matmul", "dtype mismatch"});
  expectMentions(errorOf([&] { matmul(a, b6); }),
                 {"matmul", "contraction dims differ", "K = 5", "K = 6",
                  "f32 [3, 5]", "f32 [6, 7]"});
  // The transpose picks the other dim: [3, 5]^T has K = 3.
  expectMentions(errorOf([&] { matmul(a, b, true, false); }),
                 {"matmul", "K = 3", "K = 5", "(transposed)"});
  expectMentions(errorOf([&] { matmul(a, b, false, true); }),
                 {"matmul", "K = 5", "K = 7", "(transposed)"});
  // Batch dims must be equal, not broadcast.
  expectMentions(errorOf([&] { matmul(a3, bb); }),
                 {"matmul", "batch dims differ", "[2]", "[4]", "f32 [2, 3, 5]",
                  "f32 [4, 5, 7]"});
  expectMentions(errorOf([&] { matmul(a, bb); }),
                 {"matmul", "batch dims differ", "[]", "[4]"});
  expectMentions(errorOf([&] { matmul(a3, bb4); }),
                 {"matmul", "batch dims differ", "[2]", "[1, 2]"});
  // Invalid and foreign tensors.
  expectMentions(errorOf([&] { matmul(Tensor(), b); }), {"matmul", "invalid"});
  expectMentions(errorOf([&] { matmul(a, Tensor()); }), {"matmul", "invalid"});
  Graph other("other");
  Tensor o = other.input("o", {5, 7}, DType::F32);
  expectMentions(errorOf([&] { matmul(a, o); }), {"matmul", "another graph"});
  // Nothing was added by the failed calls.
  EXPECT_EQ(g.nodes().size(), 8u);
}

TEST(MatmulTest, LinearStructureAndErrors) {
  Graph g("linear");
  Tensor x = g.input("x", {2, 3, 6}, DType::BF16);
  Tensor w = g.input("w", {4, 6}, DType::BF16);
  Tensor bias = g.input("bias", {4}, DType::BF16);
  Tensor y = nn::linear(x, w);
  EXPECT_EQ(y.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(y.dtype(), DType::BF16);
  const Node &mm = g.node(y.id());
  EXPECT_EQ(mm.kind, OpKind::Matmul);
  EXPECT_FALSE(mm.transposeA);
  EXPECT_TRUE(mm.transposeB);
  EXPECT_EQ(mm.operands, (std::vector<int>{x.id(), w.id()}));

  Tensor yb = nn::linear(x, w, bias);
  EXPECT_EQ(yb.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(yb.dtype(), DType::BF16);
  const Node &add = g.node(yb.id());
  EXPECT_EQ(add.kind, OpKind::Add);
  EXPECT_EQ(g.node(add.operands[0]).kind, OpKind::Matmul);
  const Node &bcast = g.node(add.operands[1]);
  EXPECT_EQ(bcast.kind, OpKind::Broadcast);
  EXPECT_EQ(bcast.operands, (std::vector<int>{bias.id()}));

  Tensor wBad = g.input("wBad", {4, 5}, DType::BF16);
  Tensor w3 = g.input("w3", {2, 4, 6}, DType::BF16);
  Tensor wF32 = g.input("wF32", {4, 6}, DType::F32);
  Tensor biasBad = g.input("biasBad", {6}, DType::BF16);
  Tensor biasF32 = g.input("biasF32", {4}, DType::F32);
  Tensor v = g.input("v", {6}, DType::BF16);
  expectMentions(errorOf([&] { nn::linear(x, wBad); }),
                 {"linear", "weight", "bf16 [4, 5]", "in = 6", "bf16 [2, 3, 6]"});
  expectMentions(errorOf([&] { nn::linear(x, w3); }),
                 {"linear", "weight", "[out, in]", "bf16 [2, 4, 6]"});
  expectMentions(errorOf([&] { nn::linear(x, wF32); }),
                 {"linear", "dtype mismatch", "f32 [4, 6]", "bf16 [2, 3, 6]"});
  expectMentions(errorOf([&] { nn::linear(x, w, biasBad); }),
                 {"linear", "bias", "[6]", "expected [4]"});
  expectMentions(errorOf([&] { nn::linear(x, w, biasF32); }),
                 {"linear", "bias dtype mismatch", "f32 [4]", "bf16 [2, 3, 6]"});
  expectMentions(errorOf([&] { nn::linear(v, w); }),
                 {"linear", "rank >= 2", "bf16 [6]"});
}

TEST(MatmulTest, ReferenceMatchesNaiveLoopOddShapes) {
  uint64_t seed = 100;
  for (DType in : {DType::F32, DType::BF16, DType::F16})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        Shape a = ta ? Shape{13, 7} : Shape{7, 13};
        Shape b = tb ? Shape{5, 13} : Shape{13, 5};
        checkReference({a, b, ta, tb, in, in}, seed++);
      }
  // Degenerate sizes: K = 1, M = 1, N = 1.
  checkReference({{4, 1}, {1, 3}, false, false, DType::F32, DType::F32}, 7);
  checkReference({{1, 9}, {9, 1}, false, false, DType::F32, DType::F32}, 8);
  checkReference({{9, 1}, {1, 9}, true, true, DType::BF16, DType::BF16}, 9);
}

TEST(MatmulTest, ReferenceBatched) {
  uint64_t seed = 200;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Shape a = ta ? Shape{2, 3, 13, 7} : Shape{2, 3, 7, 13};
      Shape bBatched = tb ? Shape{2, 3, 5, 13} : Shape{2, 3, 13, 5};
      Shape bShared = tb ? Shape{5, 13} : Shape{13, 5};
      checkReference({a, bBatched, ta, tb, DType::F32, DType::F32}, seed++);
      checkReference({a, bShared, ta, tb, DType::BF16, DType::BF16}, seed++);
      checkReference({{3, 11, 4}, {3, 4, 6}, false, false, DType::BF16,
                      DType::F32},
                     seed++);
    }
}

// bf16 inputs, f32 output: rounded once to f32, not to bf16 on the way.
TEST(MatmulTest, ReferenceBf16InputsF32Output) {
  checkReference({{7, 13}, {13, 5}, false, false, DType::BF16, DType::F32}, 300);
  checkReference({{13, 7}, {5, 13}, true, true, DType::BF16, DType::F32}, 301);
  Graph g("mm");
  Tensor a = g.input("a", {7, 13}, DType::BF16);
  Tensor b = g.input("b", {13, 5}, DType::BF16);
  g.output(matmul(a, b, DType::F32));
  HostTensor ha = HostTensor::random({7, 13}, DType::BF16, 302);
  HostTensor hb = HostTensor::random({13, 5}, DType::BF16, 303);
  HostTensor y = evaluateReference(g, {ha, hb}).at(0);
  ASSERT_EQ(y.dtype, DType::F32);
  int notBf16 = 0;
  for (float v : y.values)
    notBf16 += roundTo(DType::BF16, v) != v;
  EXPECT_GT(notBf16, 20) << "f32 results look rounded to bf16";
}

// Accumulation is wider than the inputs: 1 + 100 * 2^-25 is lost when summed
// in f32 (each term is below half an ulp of 1) but not in f32-rounded double.
TEST(MatmulTest, ReferenceAccumulatesWide) {
  const int K = 101;
  Graph g("mm");
  Tensor a = g.input("a", {1, K}, DType::F32);
  Tensor b = g.input("b", {K, 1}, DType::F32);
  g.output(matmul(a, b));
  HostTensor ha({1, K}, DType::F32), hb({K, 1}, DType::F32);
  ha.values[0] = 1.0f;
  for (int k = 1; k < K; ++k)
    ha.values[k] = std::ldexp(1.0f, -25);
  for (int k = 0; k < K; ++k)
    hb.values[k] = 1.0f;
  HostTensor y = evaluateReference(g, {ha, hb}).at(0);
  EXPECT_EQ(y.values[0], static_cast<float>(1.0 + 100 * std::ldexp(1.0, -25)));
  EXPECT_GT(y.values[0], 1.0f);
}

TEST(MatmulTest, ReferenceLinearWithBias) {
  const int64_t in = 6, outF = 4;
  Graph g("linear");
  Tensor x = g.input("x", {2, 3, in}, DType::F32);
  Tensor w = g.input("w", {outF, in}, DType::F32);
  Tensor bias = g.input("bias", {outF}, DType::F32);
  g.output(nn::linear(x, w, bias));
  g.output(nn::linear(x, w));
  HostTensor hx = HostTensor::random({2, 3, in}, DType::F32, 400);
  HostTensor hw = HostTensor::random({outF, in}, DType::F32, 401);
  HostTensor hb = HostTensor::random({outF}, DType::F32, 402, 5.0f, 10.0f);
  std::vector<HostTensor> out = evaluateReference(g, {hx, hw, hb});
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[0].shape, (Shape{2, 3, outF}));
  ASSERT_EQ(out[1].shape, (Shape{2, 3, outF}));
  for (int64_t r = 0; r < 6; ++r)
    for (int64_t o = 0; o < outF; ++o) {
      double acc = 0;
      for (int64_t k = 0; k < in; ++k)
        acc += static_cast<double>(hx.values[r * in + k]) * hw.values[o * in + k];
      float mm = static_cast<float>(acc);
      EXPECT_FLOAT_EQ(out[1].values[r * outF + o], mm) << r << "," << o;
      EXPECT_FLOAT_EQ(out[0].values[r * outF + o], mm + hb.values[o])
          << r << "," << o;
    }
}

TEST(MatmulTest, ReferenceLinearBf16) {
  Graph g("linear");
  Tensor x = g.input("x", {5, 16}, DType::BF16);
  Tensor w = g.input("w", {3, 16}, DType::BF16);
  Tensor bias = g.input("bias", {3}, DType::BF16);
  g.output(nn::linear(x, w, bias));
  HostTensor hx = HostTensor::random({5, 16}, DType::BF16, 500);
  HostTensor hw = HostTensor::random({3, 16}, DType::BF16, 501);
  HostTensor hb = HostTensor::random({3}, DType::BF16, 502);
  HostTensor y = evaluateReference(g, {hx, hw, hb}).at(0);
  ASSERT_EQ(y.dtype, DType::BF16);
  HostTensor mm = naiveMatmul(hx, hw, false, true, DType::BF16);
  for (int64_t r = 0; r < 5; ++r)
    for (int64_t o = 0; o < 3; ++o) {
      // The matmul result is stored in bf16, then the bias add rounds again.
      float expected = roundTo(DType::BF16, mm.values[r * 3 + o] + hb.values[o]);
      EXPECT_EQ(y.values[r * 3 + o], expected) << r << "," << o;
    }
}

// A large product, which takes the multi-threaded path, stays exact and fast
// enough for GPU tests to use as their oracle.
TEST(MatmulTest, ReferenceLarge) {
  auto start = std::chrono::steady_clock::now();
  checkReference({{512, 512}, {512, 512}, false, true, DType::BF16, DType::F32},
                 600);
  checkReference({{2, 256, 384}, {2, 256, 320}, true, false, DType::F32,
                  DType::F32},
                 601);
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  // Generous: the two naive loops in this test dominate.
  EXPECT_LT(seconds, 30.0);
}

// nn::attention: the graph it builds (f32 scores, scaled; softmax; the
// probabilities in q's dtype; the second product) and its errors.
TEST(MatmulTest, AttentionStructureAndErrors) {
  Graph g("attention");
  Tensor q = g.input("q", {2, 4, 5, 8}, DType::BF16);
  Tensor k = g.input("k", {2, 4, 7, 8}, DType::BF16);
  Tensor v = g.input("v", {2, 4, 7, 6}, DType::BF16);
  Tensor y = nn::attention(q, k, v, 0.125);
  EXPECT_EQ(y.shape(), (Shape{2, 4, 5, 6}));
  EXPECT_EQ(y.dtype(), DType::BF16);
  const Node &pv = g.node(y.id());
  EXPECT_EQ(pv.kind, OpKind::Matmul);
  EXPECT_FALSE(pv.transposeA);
  EXPECT_FALSE(pv.transposeB);
  EXPECT_EQ(pv.operands[1], v.id());
  EXPECT_EQ(g.node(pv.operands[0]).dtype, DType::BF16); // the probabilities
  int matmuls = 0;
  for (int id = 0; id < static_cast<int>(g.nodes().size()); ++id)
    if (g.node(id).kind == OpKind::Matmul) {
      ++matmuls;
      if (id != y.id()) {
        EXPECT_TRUE(g.node(id).transposeB); // q @ k^T
        EXPECT_EQ(g.node(id).dtype, DType::F32);
      }
    }
  EXPECT_EQ(matmuls, 2);

  Tensor kShort = g.input("kShort", {2, 4, 7, 4}, DType::BF16);
  Tensor vKeys = g.input("vKeys", {2, 4, 6, 6}, DType::BF16);
  Tensor kBatch = g.input("kBatch", {2, 3, 7, 8}, DType::BF16);
  Tensor k3 = g.input("k3", {8, 7, 8}, DType::BF16);
  Tensor kF32 = g.input("kF32", {2, 4, 7, 8}, DType::F32);
  Tensor q1 = g.input("q1", {8}, DType::BF16);
  expectMentions(errorOf([&] { nn::attention(q, kShort, v, 0.1); }),
                 {"attention", "head dim 8", "bf16 [2, 4, 7, 4]"});
  expectMentions(errorOf([&] { nn::attention(q, k, vKeys, 0.1); }),
                 {"attention", "7 keys", "bf16 [2, 4, 6, 6]"});
  expectMentions(errorOf([&] { nn::attention(q, kBatch, v, 0.1); }),
                 {"attention", "leading", "bf16 [2, 3, 7, 8]"});
  expectMentions(errorOf([&] { nn::attention(q, k3, v, 0.1); }),
                 {"attention", "rank", "bf16 [8, 7, 8]"});
  expectMentions(errorOf([&] { nn::attention(q, kF32, v, 0.1); }),
                 {"attention", "dtype mismatch", "f32 [2, 4, 7, 8]"});
  expectMentions(errorOf([&] { nn::attention(q1, q1, q1, 0.1); }),
                 {"attention", "rank >= 2", "bf16 [8]"});
  expectMentions(errorOf([&] { nn::attention(q, k, v, 0.0); }),
                 {"attention", "scale", "positive"});

  // An additive mask joins the scores in f32 before the softmax; it must
  // broadcast to [2, 4, 5, 7] without growing it.
  for (Shape ms : {Shape{5, 7}, Shape{2, 1, 1, 7}, Shape{2, 4, 5, 7}, Shape{7}}) {
    Tensor mask = g.input("mask" + shapeString(ms), ms, DType::BF16);
    Tensor masked = nn::attention(q, k, v, 0.125, mask);
    EXPECT_EQ(masked.shape(), (Shape{2, 4, 5, 6}));
  }
  Tensor wide = g.input("maskWide", {3, 2, 4, 5, 7}, DType::F32);
  Tensor wrongKeys = g.input("maskKeys", {5, 6}, DType::F32);
  expectMentions(errorOf([&] { nn::attention(q, k, v, 0.1, wrongKeys); }),
                 {"attention", "mask", "broadcast", "[2, 4, 5, 7]", "f32 [5, 6]"});
  expectMentions(errorOf([&] { nn::attention(q, k, v, 0.1, wide); }),
                 {"attention", "mask", "f32 [3, 2, 4, 5, 7]"});
  expectMentions(errorOf([&] { nn::attention(q, k, v, 0.1, Tensor()); }),
                 {"attention", "invalid", "mask"});
  Graph other("other");
  Tensor foreign = other.input("m", {5, 7}, DType::F32);
  EXPECT_THROW(nn::attention(q, k, v, 0.1, foreign), Error);
  expectMentions(errorOf([] { causalMask(4, 3); }), {"causalMask", "sq 4", "sk 3"});
}

// Graph::causal_mask: f32 [..., R, C], checked as built; a broadcast over
// more leading dims is the mask of that shape (no broadcast node); the
// reference gives row r the keys up to r % period + C - period, the
// runs of `period` rows each causalMask(period, C).
TEST(MatmulTest, GraphCausalMask) {
  Graph g("mask");
  Tensor m = g.causal_mask({4, 3, 5});
  EXPECT_EQ(m.dtype(), DType::F32);
  EXPECT_EQ(g.node(m.id()).kind, OpKind::CausalMask);
  EXPECT_EQ(g.node(m.id()).period, 3);
  Tensor wide = broadcast_to(g.causal_mask({6, 5}, 2), {2, 6, 5});
  EXPECT_EQ(g.node(wide.id()).kind, OpKind::CausalMask);
  EXPECT_EQ(g.node(wide.id()).period, 2);
  EXPECT_EQ(wide.shape(), (Shape{2, 6, 5}));
  Tensor x = g.input("x", {3, 6, 5}, DType::F32);
  Tensor sum = x + g.causal_mask({6, 5}, 3); // (the mask broadcast by the add)
  EXPECT_EQ(g.node(g.node(sum.id()).operands[1]).kind, OpKind::CausalMask);
  expectMentions(errorOf([&] { g.causal_mask({5}); }), {"causal_mask", "rank >= 2", "[5]"});
  expectMentions(errorOf([&] { g.causal_mask({6, 5}, 4); }),
                 {"causal_mask", "period 4", "6 rows", "5 keys"});
  expectMentions(errorOf([&] { g.causal_mask({6, 4}); }), {"causal_mask", "period 6", "4 keys"});
  // Symbolic rows or keys: what can be checked is, the rest at bind
  // (period 0: the rows, once known).
  Tensor tokens = g.causal_mask({symbolDim("tokens"), symbolDim("keys")});
  EXPECT_EQ(g.node(tokens.id()).period, 0);
  expectMentions(errorOf([&] { g.causal_mask({symbolDim("tokens"), 4}, 5); }),
                 {"causal_mask", "period 5", "tokens rows", "4 keys"});
  {
    Graph s("mask");
    s.output(s.input("x", {symbolDim("tokens"), 6}, DType::F32) +
             s.causal_mask({symbolDim("tokens"), 6}));
    auto bound = s.bind({{"tokens", 4}});
    const Node &m = bound->node(bound->node(bound->outputs()[0]).operands[1]);
    EXPECT_EQ(m.kind, OpKind::CausalMask);
    EXPECT_EQ(m.period, 4);
    expectMentions(errorOf([&] { s.bind({{"tokens", 7}}); }),
                   {"bind", "causal_mask", "period 7", "6 keys"});
  }
  expectMentions(errorOf([&] { g.causal_mask({0, 4}); }), {"causal_mask", "positive"});

  expectMentions(errorOf([&] { g.causal_mask({6, 8}, 3, -1); }), {"causal_mask", "window", "-1"});
  // past: the runs after the first `past` keys (a cache with rows to spare).
  expectMentions(errorOf([&] { g.causal_mask({6, 8}, 3, 0, 6); }),
                 {"causal_mask", "past 6", "[0, 5]"});
  expectMentions(errorOf([&] { g.causal_mask({6, 8}, 3, 0, -2); }), {"causal_mask", "past -2"});
  {
    Graph c("cache");
    c.output(c.causal_mask({2, 6, 10}, 3, 0, 4));
    c.output(c.causal_mask({2, 6, 10}, 3, 0, 7)); // (7 = keys - period: the default's)
    c.output(c.causal_mask({2, 6, 10}, 3));
    std::vector<HostTensor> out = evaluateReference(c, {});
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t r = 0; r < 6; ++r)
        for (int64_t k = 0; k < 10; ++k) {
          size_t i = static_cast<size_t>((b * 6 + r) * 10 + k);
          EXPECT_EQ(out[0].values[i], k <= r % 3 + 4 ? 0.0f : -INFINITY) << r << "," << k;
          EXPECT_EQ(out[1].values[i], out[2].values[i]) << r << "," << k;
        }
  }

  Graph h("mask");
  h.output(h.causal_mask({2, 6, 7}, 3));
  h.output(h.causal_mask({2, 6, 7}, 3, 2));
  HostTensor got = evaluateReference(h, {}).at(0);
  HostTensor run = causalMask(3, 7);
  // A window of 2: of causalMask's keys, each row keeps its last 2.
  HostTensor windowed = evaluateReference(h, {}).at(1);
  for (int64_t r = 0; r < 12; ++r) {
    int64_t kept = 0, lastSeen = -1;
    for (int64_t c = 0; c < 7; ++c)
      if (windowed.values[r * 7 + c] == 0.0f) {
        ++kept;
        lastSeen = c;
        EXPECT_EQ(run.values[(r % 6 % 3) * 7 + c], 0.0f) << r << "," << c;
      }
    EXPECT_EQ(kept, 2) << r;
    EXPECT_EQ(lastSeen, r % 3 + 4) << r; // (the causal limit)
  }
  ASSERT_EQ(got.shape, (Shape{2, 6, 7}));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t r = 0; r < 6; ++r)
      for (int64_t c = 0; c < 7; ++c)
        EXPECT_EQ(got.values[(b * 6 + r) * 7 + c], run.values[(r % 3) * 7 + c])
            << b << "," << r << "," << c;
}

// causalMask: query i sees keys up to i + (sk - sq).
TEST(MatmulTest, CausalMaskIsBottomRightAligned) {
  HostTensor m = causalMask(3, 5);
  ASSERT_EQ(m.shape, (Shape{3, 5}));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j)
      EXPECT_EQ(m.values[i * 5 + j], j <= i + 2 ? 0.0f : -INFINITY) << i << "," << j;
}

// The reference of nn::attention against a naive f64 computation on random
// data (f32 inputs: the only rounding is the f32 of the scores and the
// probabilities, so a tight bound holds).
// Masked: a causal mask [Sq, Sk] (-inf past the diagonal) and a random
// additive one per batch [b, 1, Sk] (broadcast over the queries).
TEST(MatmulTest, ReferenceAttentionMatchesNaive) {
  for (int maskKind : {0, 1, 2, 3}) {
  SCOPED_TRACE(maskKind == 0 ? "no mask" : maskKind == 1 ? "causal" : maskKind == 2 ? "additive per batch" : "causal_attention");
  const int64_t b = 3, sq = 5, sk = 9, d = 16, dv = 7;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  Graph g("attention");
  Tensor q = g.input("q", {b, sq, d}, DType::F32);
  Tensor k = g.input("k", {b, sk, d}, DType::F32);
  Tensor v = g.input("v", {b, sk, dv}, DType::F32);
  HostTensor hq = HostTensor::random({b, sq, d}, DType::F32, 700, -2.0f, 2.0f);
  HostTensor hk = HostTensor::random({b, sk, d}, DType::F32, 701, -2.0f, 2.0f);
  HostTensor hv = HostTensor::random({b, sk, dv}, DType::F32, 702, -2.0f, 2.0f);
  std::vector<HostTensor> inputs{hq, hk, hv};
  HostTensor hm;
  auto maskAt = [&](int64_t p, int64_t i, int64_t j) -> double {
    if (maskKind == 1 || maskKind == 3)
      return hm.values[i * sk + j];
    if (maskKind == 2)
      return hm.values[p * sk + j];
    return 0.0;
  };
  if (maskKind == 0) {
    g.output(nn::attention(q, k, v, scale));
  } else if (maskKind == 3) { // (the graph's own mask against causalMask's)
    hm = causalMask(sq, sk);
    g.output(nn::causal_attention(q, k, v, scale));
  } else {
    hm = maskKind == 1 ? causalMask(sq, sk) : HostTensor::random({b, 1, sk}, DType::F32, 703, -3.0f, 3.0f);
    g.output(nn::attention(q, k, v, scale, g.input("mask", hm.shape, DType::F32)));
    inputs.push_back(hm);
  }
  HostTensor y = evaluateReference(g, inputs).at(0);
  ASSERT_EQ(y.shape, (Shape{b, sq, dv}));
  double worst = 0;
  for (int64_t p = 0; p < b; ++p)
    for (int64_t i = 0; i < sq; ++i) {
      std::vector<double> s(sk);
      double m = -INFINITY, sum = 0;
      for (int64_t j = 0; j < sk; ++j) {
        double acc = 0;
        for (int64_t t = 0; t < d; ++t)
          acc += static_cast<double>(hq.values[(p * sq + i) * d + t]) *
                 hk.values[(p * sk + j) * d + t];
        s[j] = acc * scale + maskAt(p, i, j);
        m = std::max(m, s[j]);
      }
      for (int64_t j = 0; j < sk; ++j)
        sum += (s[j] = std::exp(s[j] - m));
      for (int64_t c = 0; c < dv; ++c) {
        double out = 0;
        for (int64_t j = 0; j < sk; ++j)
          out += s[j] / sum * hv.values[(p * sk + j) * dv + c];
        worst = std::max(worst, std::fabs(out - y.values[(p * sq + i) * dv + c]));
      }
    }
  EXPECT_LT(worst, 1e-5);
  }
}
