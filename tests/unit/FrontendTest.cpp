// Unit tests for the DSL graph builder and the nn op library: graph structure
// and the error messages of wrongly built graphs.
#include "tilec/Graph.h"

#include "ErrorOf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace tilec;

namespace {

using tilec::testing::errorOf;

std::vector<OpKind> kinds(const Graph &g) {
  std::vector<OpKind> out;
  for (const Node &n : g.nodes())
    out.push_back(n.kind);
  return out;
}

int countKind(const Graph &g, OpKind kind) {
  auto k = kinds(g);
  return static_cast<int>(std::count(k.begin(), k.end(), kind));
}

} // namespace

TEST(FrontendTest, Names) {
  EXPECT_STREQ(dtypeName(DType::F32), "f32");
  EXPECT_STREQ(dtypeName(DType::F16), "f16");
  EXPECT_STREQ(dtypeName(DType::BF16), "bf16");
  EXPECT_EQ(dtypeBytes(DType::F32), 4u);
  EXPECT_EQ(dtypeBytes(DType::BF16), 2u);
  EXPECT_STREQ(opKindName(OpKind::Input), "input");
  EXPECT_STREQ(opKindName(OpKind::Rsqrt), "rsqrt");
  EXPECT_STREQ(opKindName(OpKind::Broadcast), "broadcast");
  EXPECT_STREQ(opKindName(OpKind::ReduceSum), "reduce_sum");
  EXPECT_STREQ(opKindName(OpKind::ReduceMax), "reduce_max");
  EXPECT_STREQ(opKindName(OpKind::ReduceMean), "reduce_mean");
  EXPECT_EQ(shapeString({8192, 4096}), "[8192, 4096]");
  EXPECT_EQ(shapeString({}), "[]");
  EXPECT_EQ(numElements({}), 1);
  EXPECT_EQ(numElements({3, 5, 2}), 30);
  EXPECT_TRUE(isBinaryElementwise(OpKind::Min));
  EXPECT_FALSE(isBinaryElementwise(OpKind::Neg));
  EXPECT_TRUE(isUnaryElementwise(OpKind::Gelu));
  EXPECT_FALSE(isUnaryElementwise(OpKind::Cast));
  EXPECT_TRUE(isReduction(OpKind::ReduceMean));
  EXPECT_FALSE(isReduction(OpKind::Broadcast));
}

TEST(FrontendTest, InputsAndTensorAccessors) {
  Graph g("g");
  Tensor x = g.input("x", {8, 4096}, DType::BF16);
  Tensor s = g.input("s", {}, DType::F32); // rank 0 is allowed
  EXPECT_EQ(x.rank(), 2);
  EXPECT_EQ(x.dim(0), 8);
  EXPECT_EQ(x.dim(-1), 4096);
  EXPECT_EQ(x.dtype(), DType::BF16);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_THROW(x.dim(2), Error);
  EXPECT_THROW(x.dim(-3), Error);
  ASSERT_EQ(g.inputs().size(), 2u);
  EXPECT_EQ(g.node(g.inputs()[0]).name, "x");
  EXPECT_EQ(g.node(g.inputs()[1]).name, "s");
  EXPECT_THROW(g.node(2), Error);
  EXPECT_THROW(g.node(-1), Error);
  EXPECT_THROW(Tensor().shape(), Error);
}

TEST(FrontendTest, RmsNormStructure) {
  Graph g("rms");
  Tensor x = g.input("x", {8, 4096}, DType::BF16);
  Tensor w = g.input("w", {4096}, DType::BF16);
  Tensor y = nn::rms_norm(x, w, 1e-6);
  g.output(y);

  EXPECT_EQ(y.shape(), (Shape{8, 4096}));
  EXPECT_EQ(y.dtype(), DType::BF16);
  ASSERT_EQ(g.outputs().size(), 1u);
  EXPECT_EQ(g.outputs()[0], y.id());

  // Exactly one mean, along the (normalized) last axis, keeping the dim.
  int means = 0;
  for (const Node &n : g.nodes()) {
    if (n.kind != OpKind::ReduceMean)
      continue;
    ++means;
    EXPECT_EQ(n.axis, 1);
    EXPECT_EQ(n.shape, (Shape{8, 1}));
    EXPECT_EQ(n.dtype, DType::F32);
  }
  EXPECT_EQ(means, 1);
  EXPECT_EQ(countKind(g, OpKind::Rsqrt), 1);
  // x, w -> f32 and y -> bf16.
  EXPECT_EQ(countKind(g, OpKind::Cast), 3);
  EXPECT_EQ(countKind(g, OpKind::Constant), 1);
  // eps [] -> [8,1], r [8,1] -> [8,4096], w [4096] -> [8,4096].
  EXPECT_EQ(countKind(g, OpKind::Broadcast), 3);

  // Topological order, and every binary node has same-shaped operands.
  for (size_t id = 0; id < g.nodes().size(); ++id) {
    const Node &n = g.nodes()[id];
    for (int op : n.operands)
      EXPECT_LT(op, static_cast<int>(id));
    if (isBinaryElementwise(n.kind)) {
      ASSERT_EQ(n.operands.size(), 2u);
      EXPECT_EQ(g.node(n.operands[0]).shape, n.shape);
      EXPECT_EQ(g.node(n.operands[1]).shape, n.shape);
    }
    if (n.kind == OpKind::Broadcast) {
      const Node &src = g.node(n.operands[0]);
      EXPECT_NE(src.shape, n.shape);
      EXPECT_LE(src.shape.size(), n.shape.size());
    }
  }
  EXPECT_EQ(g.nodes().back().kind, OpKind::Cast);
}

TEST(FrontendTest, BinaryBroadcastInsertsBroadcastNodes) {
  Graph g;
  Tensor a = g.input("a", {4, 1}, DType::F32);
  Tensor b = g.input("b", {1, 5}, DType::F32);
  Tensor c = a + b;
  EXPECT_EQ(c.shape(), (Shape{4, 5}));
  const Node &add = g.node(c.id());
  EXPECT_EQ(add.kind, OpKind::Add);
  const Node &l = g.node(add.operands[0]);
  const Node &r = g.node(add.operands[1]);
  EXPECT_EQ(l.kind, OpKind::Broadcast);
  EXPECT_EQ(r.kind, OpKind::Broadcast);
  EXPECT_EQ(l.operands[0], a.id());
  EXPECT_EQ(r.operands[0], b.id());
  EXPECT_EQ(l.shape, (Shape{4, 5}));

  // Same shapes: no broadcast at all.
  Graph h;
  Tensor p = h.input("p", {3, 2}, DType::F16);
  Tensor q = h.input("q", {3, 2}, DType::F16);
  Tensor m = maximum(p, q);
  EXPECT_EQ(h.node(m.id()).kind, OpKind::Max);
  EXPECT_EQ(h.node(m.id()).operands, (std::vector<int>{p.id(), q.id()}));
  EXPECT_EQ(countKind(h, OpKind::Broadcast), 0);
}

TEST(FrontendTest, ScalarOperandsBecomeConstantPlusBroadcast) {
  Graph g;
  Tensor x = g.input("x", {2, 3}, DType::BF16);
  Tensor y = 2.5 - x;
  const Node &sub = g.node(y.id());
  EXPECT_EQ(sub.kind, OpKind::Sub);
  EXPECT_EQ(sub.dtype, DType::BF16);
  // The scalar is the lhs here: constant [] -> broadcast [2,3] -> sub.
  const Node &bc = g.node(sub.operands[0]);
  ASSERT_EQ(bc.kind, OpKind::Broadcast);
  EXPECT_EQ(bc.shape, (Shape{2, 3}));
  const Node &c = g.node(bc.operands[0]);
  ASSERT_EQ(c.kind, OpKind::Constant);
  EXPECT_TRUE(c.shape.empty());
  EXPECT_EQ(c.dtype, DType::BF16);
  EXPECT_DOUBLE_EQ(c.value, 2.5);
  EXPECT_EQ(sub.operands[1], x.id());

  Tensor z = x * 3.0;
  const Node &mul = g.node(z.id());
  EXPECT_EQ(mul.operands[0], x.id());
  EXPECT_DOUBLE_EQ(g.node(g.node(mul.operands[1]).operands[0]).value, 3.0);

  // On a scalar tensor the constant needs no broadcast.
  Tensor s = g.input("s", {}, DType::F32);
  Tensor t = s / 4.0;
  EXPECT_EQ(g.node(g.node(t.id()).operands[1]).kind, OpKind::Constant);
}

TEST(FrontendTest, CastNoOpAndUnaryShape) {
  Graph g;
  Tensor x = g.input("x", {4, 8}, DType::F16);
  size_t before = g.nodes().size();
  Tensor same = cast(x, DType::F16);
  EXPECT_EQ(same.id(), x.id());
  EXPECT_EQ(g.nodes().size(), before);
  Tensor f = cast(x, DType::F32);
  EXPECT_NE(f.id(), x.id());
  EXPECT_EQ(g.node(f.id()).kind, OpKind::Cast);
  EXPECT_EQ(f.dtype(), DType::F32);
  EXPECT_EQ(f.shape(), x.shape());

  Tensor e = gelu(-x);
  EXPECT_EQ(e.shape(), (Shape{4, 8}));
  EXPECT_EQ(e.dtype(), DType::F16);
  EXPECT_EQ(g.node(e.id()).kind, OpKind::Gelu);
  EXPECT_EQ(g.node(g.node(e.id()).operands[0]).kind, OpKind::Neg);
}

TEST(FrontendTest, Reductions) {
  Graph g;
  Tensor x = g.input("x", {4, 8, 2}, DType::F32);
  Tensor s = sum(x, 1);
  EXPECT_EQ(s.shape(), (Shape{4, 1, 2}));
  EXPECT_EQ(g.node(s.id()).axis, 1);
  Tensor m = max(x, -1);
  EXPECT_EQ(m.shape(), (Shape{4, 8, 1}));
  EXPECT_EQ(g.node(m.id()).axis, 2);
  EXPECT_EQ(g.node(m.id()).kind, OpKind::ReduceMax);
  Tensor mu = mean(x, -3);
  EXPECT_EQ(g.node(mu.id()).axis, 0);
  EXPECT_EQ(mu.shape(), (Shape{1, 8, 2}));
}

TEST(FrontendTest, BroadcastTo) {
  Graph g;
  Tensor x = g.input("x", {8, 1}, DType::F32);
  EXPECT_EQ(broadcast_to(x, {8, 1}).id(), x.id());
  Tensor y = broadcast_to(x, {3, 8, 5});
  EXPECT_EQ(y.shape(), (Shape{3, 8, 5}));
  EXPECT_EQ(g.node(y.id()).kind, OpKind::Broadcast);
  std::string msg = errorOf([&] { broadcast_to(x, {4, 5}); });
  EXPECT_NE(msg.find("broadcast_to"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[8, 1]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[4, 5]"), std::string::npos) << msg;
  // Rank may not shrink.
  EXPECT_THROW(broadcast_to(x, {8}), Error);
}

TEST(FrontendTest, DTypeMismatchMessage) {
  Graph g;
  Tensor x = g.input("x", {8, 4096}, DType::BF16);
  Tensor b = g.input("b", {4096}, DType::F32);
  std::string msg = errorOf([&] { x + b; });
  EXPECT_EQ(msg, "add: dtype mismatch: lhs bf16 [8, 4096] vs rhs f32 [4096]");
}

TEST(FrontendTest, BroadcastMismatchMessage) {
  Graph g;
  Tensor x = g.input("x", {8, 4096}, DType::F32);
  Tensor b = g.input("b", {4095}, DType::F32);
  std::string msg = errorOf([&] { x * b; });
  EXPECT_EQ(msg, "mul: cannot broadcast shapes [8, 4096] and [4095]");
  size_t before = g.nodes().size();
  EXPECT_THROW(x - b, Error);
  // A failed build leaves no half-built nodes behind.
  EXPECT_EQ(g.nodes().size(), before);
}

TEST(FrontendTest, BadAxisMessage) {
  Graph g;
  Tensor x = g.input("x", {4, 8}, DType::F32);
  EXPECT_EQ(errorOf([&] { sum(x, 2); }),
            "reduce_sum: axis 2 out of range for shape [4, 8]");
  std::string msg = errorOf([&] { mean(x, -3); });
  EXPECT_NE(msg.find("reduce_mean"), std::string::npos) << msg;
  EXPECT_NE(msg.find("-3"), std::string::npos) << msg;
  Tensor s = g.input("s", {}, DType::F32);
  msg = errorOf([&] { max(s, 0); });
  EXPECT_NE(msg.find("reduce_max"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[]"), std::string::npos) << msg;
}

TEST(FrontendTest, RmsNormWeightErrors) {
  Graph g;
  Tensor x = g.input("x", {8, 4096}, DType::BF16);
  Tensor w = g.input("w", {4095}, DType::BF16);
  std::string msg = errorOf([&] { nn::rms_norm(x, w); });
  EXPECT_NE(msg.find("rms_norm"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[4095]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[8, 4096]"), std::string::npos) << msg;

  Tensor w2 = g.input("w2", {1, 4096}, DType::BF16);
  EXPECT_THROW(nn::rms_norm(x, w2), Error);
  Tensor w3 = g.input("w3", {4096}, DType::F32);
  msg = errorOf([&] { nn::rms_norm(x, w3); });
  EXPECT_NE(msg.find("rms_norm"), std::string::npos) << msg;
  EXPECT_NE(msg.find("f32"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bf16"), std::string::npos) << msg;

  Tensor b = g.input("b", {4096}, DType::BF16);
  msg = errorOf([&] { nn::layer_norm(x, b, w); });
  EXPECT_NE(msg.find("layer_norm"), std::string::npos) << msg;
}

TEST(FrontendTest, InputErrors) {
  Graph g;
  g.input("x", {2, 2}, DType::F32);
  std::string msg = errorOf([&] { g.input("x", {3}, DType::F32); });
  EXPECT_NE(msg.find("duplicate"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'x'"), std::string::npos) << msg;
  EXPECT_THROW(g.input("", {3}, DType::F32), Error);
  msg = errorOf([&] { g.input("y", {3, 0}, DType::F32); });
  EXPECT_NE(msg.find("[3, 0]"), std::string::npos) << msg;
  EXPECT_THROW(g.input("z", {-1}, DType::F32), Error);
  EXPECT_EQ(g.inputs().size(), 1u);
}

// Shapes whose element count or byte size passes int64 are refused where
// they are made (inputs, broadcasts, matmul outputs, joins, widening
// casts), not left to overflow in every size computed from them.
TEST(FrontendTest, ShapesPastInt64AreRefused) {
  Graph g;
  const int64_t big = int64_t(1) << 40;
  std::string msg = errorOf([&] { g.input("huge", {big, big}, DType::BF16); });
  EXPECT_NE(msg.find("input 'huge'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("2^63 - 1 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1099511627776, 1099511627776]"), std::string::npos) << msg;
  // 2^61 bf16 elements fit (2^62 bytes); as f32 they would not.
  Tensor x = g.input("x", {int64_t(1) << 31, int64_t(1) << 30}, DType::BF16);
  msg = errorOf([&] { cast(x, DType::F32); });
  EXPECT_NE(msg.find("cast"), std::string::npos) << msg;
  Tensor col = g.input("col", {big, 1}, DType::F32);
  Tensor row = g.input("row", {1, big}, DType::F32);
  msg = errorOf([&] { col + row; });
  EXPECT_NE(msg.find("2^63 - 1 bytes"), std::string::npos) << msg;
  EXPECT_THROW(broadcast_to(col, {big, big}), Error);
  EXPECT_THROW(matmul(col, row), Error);
  // The largest f16 vector that fits: 2^63 - 2 bytes.
  EXPECT_TRUE(g.input("half", {(int64_t(1) << 62) - 1}, DType::F16).valid());
  msg = errorOf([&] { concat({x, x, x}, 0); });
  EXPECT_NE(msg.find("concat"), std::string::npos) << msg;
  EXPECT_EQ(numElements({big, 1 << 20}), int64_t(1) << 60);
  msg = errorOf([&] { numElements({big, big}); });
  EXPECT_NE(msg.find("more than 2^63 - 1 elements"), std::string::npos) << msg;
}

TEST(FrontendTest, OutputErrors) {
  Graph g("g1");
  Tensor x = g.input("x", {2}, DType::F32);
  Tensor y = exp(x);
  g.output(y);
  g.output(y); // (returned twice: the second output is a copy)
  EXPECT_EQ(g.outputs(), (std::vector<int>{y.id(), y.id()}));

  Graph other("g2");
  Tensor z = other.input("z", {2}, DType::F32);
  std::string msg = errorOf([&] { g.output(z); });
  EXPECT_NE(msg.find("another graph"), std::string::npos) << msg;
  msg = errorOf([&] { x + z; });
  EXPECT_NE(msg.find("add"), std::string::npos) << msg;
  EXPECT_NE(msg.find("another graph"), std::string::npos) << msg;
  EXPECT_THROW(g.output(Tensor()), Error);
}

TEST(FrontendTest, AddRmsNorm) {
  Graph g;
  Tensor x = g.input("x", {16, 512}, DType::BF16);
  Tensor r = g.input("r", {16, 512}, DType::BF16);
  Tensor w = g.input("w", {512}, DType::BF16);
  auto [y, h] = nn::add_rms_norm(x, r, w);
  EXPECT_EQ(y.shape(), (Shape{16, 512}));
  EXPECT_EQ(h.shape(), (Shape{16, 512}));
  EXPECT_EQ(y.dtype(), DType::BF16);
  EXPECT_EQ(h.dtype(), DType::BF16);
  // The residual add happens in the model dtype, directly on the inputs.
  const Node &add = g.node(h.id());
  EXPECT_EQ(add.kind, OpKind::Add);
  EXPECT_EQ(add.operands, (std::vector<int>{x.id(), r.id()}));
  g.output(y);
  g.output(h);
  EXPECT_EQ(g.outputs().size(), 2u);

  Tensor r2 = g.input("r2", {16, 511}, DType::BF16);
  std::string msg = errorOf([&] { nn::add_rms_norm(x, r2, w); });
  EXPECT_NE(msg.find("add_rms_norm"), std::string::npos) << msg;
  Tensor r3 = g.input("r3", {16, 512}, DType::F16);
  EXPECT_THROW(nn::add_rms_norm(x, r3, w), Error);
}

TEST(FrontendTest, SiluMulAndSoftmaxStructure) {
  Graph g;
  Tensor a = g.input("a", {4, 64}, DType::F16);
  Tensor b = g.input("b", {4, 64}, DType::F16);
  Tensor y = nn::silu_mul(a, b);
  EXPECT_EQ(y.dtype(), DType::F16);
  EXPECT_EQ(countKind(g, OpKind::Silu), 1);
  Tensor c = g.input("c", {4, 32}, DType::F16);
  std::string msg = errorOf([&] { nn::silu_mul(a, c); });
  EXPECT_NE(msg.find("silu_mul"), std::string::npos) << msg;

  Tensor s = nn::softmax(a);
  EXPECT_EQ(s.shape(), (Shape{4, 64}));
  EXPECT_EQ(s.dtype(), DType::F16);
  EXPECT_EQ(countKind(g, OpKind::ReduceMax), 1);
  EXPECT_EQ(countKind(g, OpKind::ReduceSum), 1);
  EXPECT_EQ(countKind(g, OpKind::Exp), 1);
}

TEST(FrontendTest, SliceAndConcat) {
  Graph g;
  Tensor x = g.input("x", {4, 6, 10}, DType::BF16);
  Tensor s = slice(x, -1, 2, 7);
  EXPECT_EQ(s.shape(), (Shape{4, 6, 5}));
  EXPECT_EQ(g.node(s.id()).axis, 2);
  EXPECT_EQ(g.node(s.id()).start, 2);
  EXPECT_EQ(g.node(s.id()).end, 7);
  EXPECT_EQ(slice(x, 1, 0, 6).id(), x.id()) << "a whole-axis slice is the input";
  Tensor c = concat({s, x, s}, 2);
  EXPECT_EQ(c.shape(), (Shape{4, 6, 20}));
  EXPECT_EQ(g.node(c.id()).operands.size(), 3u);
  EXPECT_EQ(concat({x}, 0).id(), x.id());
  Tensor rows = concat({x, slice(x, 0, 1, 3)}, 0);
  EXPECT_EQ(rows.shape(), (Shape{6, 6, 10}));

  std::string msg = errorOf([&] { slice(x, 3, 0, 1); });
  EXPECT_NE(msg.find("slice: axis 3 out of range for shape [4, 6, 10]"), std::string::npos) << msg;
  msg = errorOf([&] { slice(x, -1, 4, 4); });
  EXPECT_NE(msg.find("range [4, 4) is empty or outside axis 2"), std::string::npos) << msg;
  msg = errorOf([&] { slice(x, 0, 0, 5); });
  EXPECT_NE(msg.find("need 0 <= start < end <= 4"), std::string::npos) << msg;
  msg = errorOf([&] { concat({x, s}, 1); });
  EXPECT_NE(msg.find("concat: operand 1 is bf16 [4, 6, 5], expected bf16 with shape "
                     "[4, 6, 10] except along axis 1"),
            std::string::npos)
      << msg;
  Tensor y = g.input("y", {4, 6, 10}, DType::F32);
  msg = errorOf([&] { concat({x, y}, -1); });
  EXPECT_NE(msg.find("concat: operand 1 is f32"), std::string::npos) << msg;
  EXPECT_THROW(concat({}, 0), Error);
}

TEST(FrontendTest, UpdateSlice) {
  Graph g;
  Tensor cache = g.input("cache", {2, 9, 16}, DType::BF16);
  Tensor k = g.input("k", {2, 3, 16}, DType::BF16);
  Tensor u = update_slice(cache, k, -2, 6);
  EXPECT_EQ(u.shape(), cache.shape());
  EXPECT_EQ(g.node(u.id()).kind, OpKind::UpdateSlice);
  EXPECT_EQ(g.node(u.id()).axis, 1);
  EXPECT_EQ(g.node(u.id()).start, 6);
  EXPECT_EQ(g.node(u.id()).end, 9);
  EXPECT_EQ(g.node(u.id()).operands, (std::vector<int>{cache.id(), k.id()}));
  EXPECT_STREQ(opKindName(OpKind::UpdateSlice), "update_slice");

  std::string msg = errorOf([&] { update_slice(cache, k, 1, 7); });
  EXPECT_NE(msg.find("update_slice: rows [7, 10) of axis 1 fall outside bf16 [2, 9, 16] (need "
                     "0 <= start <= 6)"),
            std::string::npos)
      << msg;
  msg = errorOf([&] { update_slice(cache, k, 2, 0); });
  EXPECT_NE(msg.find("axis 2 of bf16 [2, 9, 16] is not a row dim"), std::string::npos) << msg;
  msg = errorOf([&] { update_slice(cache, k, 0, 0); });
  EXPECT_NE(msg.find("update_slice: the update is bf16 [2, 3, 16], expected bf16 with shape "
                     "[2, 9, 16] except along axis 0"),
            std::string::npos)
      << msg;
  msg = errorOf([&] { update_slice(cache, g.input("k32", {2, 3, 16}, DType::F32), 1, 0); });
  EXPECT_NE(msg.find("update_slice: the update is f32"), std::string::npos) << msg;
  msg = errorOf([&] { update_slice(exp(cache), k, 1, 0); });
  EXPECT_NE(msg.find("the buffer (bf16 [2, 9, 16]) must be a graph input"), std::string::npos)
      << msg;
}

TEST(FrontendTest, RopeStructureAndErrors) {
  Graph g;
  Tensor x = g.input("x", {3, 4, 8}, DType::BF16);
  Tensor c = g.input("cos", {3, 1, 8}, DType::BF16);
  Tensor s = g.input("sin", {3, 1, 8}, DType::BF16);
  Tensor y = nn::rope(x, c, s);
  EXPECT_EQ(y.shape(), x.shape());
  EXPECT_EQ(y.dtype(), DType::BF16);
  EXPECT_EQ(countKind(g, OpKind::Slice), 2);
  EXPECT_EQ(countKind(g, OpKind::Concat), 1);
  EXPECT_EQ(countKind(g, OpKind::Neg), 1);

  Tensor odd = g.input("odd", {3, 4, 7}, DType::BF16);
  std::string msg = errorOf([&] { nn::rope(odd, c, s); });
  EXPECT_NE(msg.find("rope: x's last dim must be even"), std::string::npos) << msg;
  Tensor c16 = g.input("c16", {3, 1, 8}, DType::F16);
  msg = errorOf([&] { nn::rope(x, c16, s); });
  EXPECT_NE(msg.find("rope: cos dtype mismatch"), std::string::npos) << msg;
  Tensor s4 = g.input("s4", {3, 1, 4}, DType::BF16);
  msg = errorOf([&] { nn::rope(x, c, s4); });
  EXPECT_NE(msg.find("rope: sin shape [3, 1, 4] must end in x's last dim 8"),
            std::string::npos)
      << msg;
  msg = errorOf([&] { nn::rotate_half(odd); });
  EXPECT_NE(msg.find("rotate_half: the last dim must be even"), std::string::npos) << msg;
}

// Symbolic dims: a size fixed later. Ops carry the symbol through, match
// it only with itself (or a broadcast 1), and refuse to slice or join along
// it; bind gives a concrete copy, and bindingsFor reads sizes off shapes.
TEST(FrontendTest, SymbolicDims) {
  const int64_t tokens = symbolDim("tokens"), batch = symbolDim("batch");
  EXPECT_EQ(symbolDim("tokens"), tokens);
  EXPECT_NE(tokens, batch);
  EXPECT_TRUE(isSymbolic(tokens));
  EXPECT_FALSE(isSymbolic(4096));
  EXPECT_FALSE(isSymbolic(-1));
  EXPECT_EQ(symbolName(tokens), "tokens");
  EXPECT_THROW(symbolName(7), Error);
  EXPECT_THROW(symbolName(-1000000), Error); // never given
  EXPECT_THROW(symbolDim(""), Error);
  EXPECT_EQ(shapeString({tokens, 4096}), "[tokens, 4096]");

  Graph g("sym");
  Tensor x = g.input("x", {tokens, 4096}, DType::BF16);
  Tensor w = g.input("w", {4096}, DType::BF16);
  Tensor y = nn::rms_norm(x, w);
  EXPECT_EQ(y.shape(), (Shape{tokens, 4096}));
  Tensor r = g.input("residual", {tokens, 4096}, DType::BF16);
  EXPECT_EQ((x + r).shape(), (Shape{tokens, 4096}));
  EXPECT_EQ(sum(cast(x, DType::F32), 0).shape(), (Shape{1, 4096}));
  g.output(y);
  EXPECT_TRUE(g.symbolic());

  Tensor other = g.input("other", {batch, 4096}, DType::BF16);
  std::string msg = errorOf([&] { x + other; });
  EXPECT_NE(msg.find("[tokens, 4096] and [batch, 4096]"), std::string::npos) << msg;
  msg = errorOf([&] { slice(x, 0, 0, 2); });
  EXPECT_NE(msg.find("symbolic"), std::string::npos) << msg;
  EXPECT_THROW(concat({x, r}, 0), Error);
  EXPECT_EQ(concat({x, r}, 1).shape(), (Shape{tokens, 8192}));
  msg = errorOf([&] { numElements(x.shape()); });
  EXPECT_NE(msg.find("symbolic"), std::string::npos) << msg;
  Tensor heads = g.input("heads", {tokens, 32, 128}, DType::BF16);
  EXPECT_EQ(matmul(heads, g.input("proj", {128, 64}, DType::BF16)).shape(),
            (Shape{tokens, 32, 64}));
  // A contraction over the symbol needs the same symbol on both sides.
  Tensor kt = g.input("kt", {4096, tokens}, DType::BF16);
  EXPECT_EQ(matmul(kt, x).shape(), (Shape{4096, 4096}));
  msg = errorOf([&] { matmul(kt, g.input("y", {batch, 8}, DType::BF16)); });
  EXPECT_NE(msg.find("lhs K = tokens, rhs K = batch"), std::string::npos) << msg;
  EXPECT_THROW(g.input("bad", {-1, 4}, DType::F32), Error);

  // bind: a concrete copy.
  std::unique_ptr<Graph> b = g.bind({{"tokens", 37}, {"batch", 2}, {"unused", 5}});
  EXPECT_FALSE(b->symbolic());
  EXPECT_EQ(b->node(y.id()).shape, (Shape{37, 4096}));
  EXPECT_EQ(b->outputs(), g.outputs());
  EXPECT_EQ(b->inputs(), g.inputs());
  EXPECT_TRUE(g.symbolic()); // the template is unchanged
  msg = errorOf([&] { g.bind({{"tokens", 37}}); });
  EXPECT_NE(msg.find("'batch'"), std::string::npos) << msg;
  EXPECT_THROW(g.bind({{"tokens", 0}, {"batch", 2}}), Error);

  // bindingsFor: sizes read off input shapes.
  Graph h("sym2");
  Tensor a = h.input("a", {tokens, 8}, DType::F32);
  Tensor c = h.input("c", {tokens, 1}, DType::F32);
  h.output(a * c);
  Bindings sizes = h.bindingsFor({{5, 8}, {5, 1}});
  EXPECT_EQ(sizes.size(), 1u);
  EXPECT_EQ(sizes.at("tokens"), 5);
  msg = errorOf([&] { h.bindingsFor({{5, 8}, {6, 1}}); });
  EXPECT_NE(msg.find("'tokens'"), std::string::npos) << msg;
  msg = errorOf([&] { h.bindingsFor({{5, 9}, {5, 1}}); });
  EXPECT_NE(msg.find("input 'a' is declared [tokens, 8], got [5, 9]"), std::string::npos) << msg;
  EXPECT_THROW(h.bindingsFor({{5, 8}}), Error);
  EXPECT_THROW(h.bindingsFor({{0, 8}, {0, 1}}), Error);
}

TEST(FrontendTest, SymbolicDimsInTheOpLibrary) {
  const int64_t tokens = symbolDim("tokens"), width = symbolDim("width");
  Graph g("lib");
  // rope slices its last dim in halves: that dim must be static.
  Tensor x = g.input("x", {tokens, 32, width}, DType::BF16);
  Tensor cs = g.input("cos", {tokens, 1, width}, DType::BF16);
  std::string msg = errorOf([&] { nn::rope(x, cs, cs); });
  EXPECT_NE(msg.find("static"), std::string::npos) << msg;
  // A weight of a symbolic width matches only the same symbol.
  Tensor w = g.input("w", {width}, DType::BF16);
  EXPECT_EQ(nn::rms_norm(x, w).shape(), (Shape{tokens, 32, width}));
  Tensor w2 = g.input("w2", {128}, DType::BF16);
  msg = errorOf([&] { nn::rms_norm(x, w2); });
  EXPECT_NE(msg.find("width"), std::string::npos) << msg;
}

// reshape: the same elements under another shape; one -1 inferred;
// symbolic dims kept in order; the counts must match.
TEST(FrontendTest, Transpose) {
  Graph g("transpose");
  Tensor x = g.input("x", {2, 3, 5}, DType::BF16);
  Tensor t = transpose(x, 0, 2);
  EXPECT_EQ(t.shape(), (Shape{5, 3, 2}));
  EXPECT_EQ(t.dtype(), DType::BF16);
  const Node &n = g.node(t.id());
  EXPECT_EQ(n.kind, OpKind::Transpose);
  EXPECT_EQ(n.axis, 0);
  EXPECT_EQ(n.axis2, 2);
  // Negative dims count from the end; the dims are stored in order.
  Tensor u = transpose(x, -1, -2);
  EXPECT_EQ(u.shape(), (Shape{2, 5, 3}));
  EXPECT_EQ(g.node(u.id()).axis, 1);
  EXPECT_EQ(g.node(u.id()).axis2, 2);
  EXPECT_EQ(transpose(x, 1, -2).id(), x.id()); // the same dim: no node
  std::string msg = errorOf([&] { transpose(x, 0, 3); });
  EXPECT_NE(msg.find("transpose: dim 3 out of range for bf16 [2, 3, 5]"), std::string::npos)
      << msg;
  EXPECT_THROW(transpose(x, -4, 0), Error);
  EXPECT_THROW(transpose(Tensor(), 0, 1), Error);
  // Symbolic dims move like any other.
  const int64_t tokens = symbolDim("tokens");
  Tensor s = transpose(g.input("s", {tokens, 32, 128}, DType::F32), 0, 1);
  EXPECT_EQ(s.shape(), (Shape{32, tokens, 128}));
  std::unique_ptr<Graph> bound = g.bind({{"tokens", 7}});
  EXPECT_EQ(bound->node(s.id()).shape, (Shape{32, 7, 128}));
  EXPECT_EQ(bound->node(s.id()).axis2, 1);
}

TEST(FrontendTest, Reshape) {
  Graph g("reshape");
  Tensor x = g.input("x", {6, 4, 32}, DType::BF16);
  Tensor merged = reshape(x, {6, 128});
  EXPECT_EQ(merged.shape(), (Shape{6, 128}));
  EXPECT_EQ(g.node(merged.id()).kind, OpKind::Reshape);
  EXPECT_EQ(reshape(x, {-1, 32}).shape(), (Shape{24, 32}));
  EXPECT_EQ(reshape(x, {768}).shape(), (Shape{768}));
  EXPECT_EQ(reshape(x, {6, 4, 32}).id(), x.id()); // the same shape: no node
  std::string msg = errorOf([&] { reshape(x, {6, 100}); });
  EXPECT_NE(msg.find("cannot view bf16 [6, 4, 32] as [6, 100]"), std::string::npos) << msg;
  EXPECT_THROW(reshape(x, {-1, -1}), Error);
  EXPECT_THROW(reshape(x, {-1, 7}), Error);
  EXPECT_THROW(reshape(x, {0, 768}), Error);

  const int64_t tokens = symbolDim("tokens");
  Tensor t = g.input("t", {tokens, 32, 128}, DType::BF16);
  EXPECT_EQ(reshape(t, {tokens, 4096}).shape(), (Shape{tokens, 4096}));
  EXPECT_EQ(reshape(t, {tokens, -1}).shape(), (Shape{tokens, 4096}));
  // (One symbol anywhere, with the static dims' product kept: the same
  // elements at every size.)
  EXPECT_EQ(reshape(t, {4096, tokens}).shape(), (Shape{4096, tokens}));
  msg = errorOf([&] { reshape(t, {32, 4096}); });
  EXPECT_NE(msg.find("symbolic"), std::string::npos) << msg;
  std::unique_ptr<Graph> bound = g.bind({{"tokens", 3}});
  int last = static_cast<int>(g.nodes().size()) - 1;
  EXPECT_EQ(bound->node(last).shape, (Shape{4096, 3}));
}
