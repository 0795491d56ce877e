// GPU tests: every example op, f32 and bf16, at small, odd and large shapes,
// against the CPU reference on fresh random data with poisoned outputs.
#include "GpuTestSupport.h"
#include "SliceGraphs.h"

#include "tilec/Reference.h"
#include "tilec/compiler/Examples.h"
#include "tilec/compiler/Executable.h"

#include <cstdlib>
#include <cstring>
#include <tuple>

using namespace tilec;

namespace {

struct OpCase {
  std::string op;
  DType dtype;
  int64_t rows, cols;
};

std::string caseName(const ::testing::TestParamInfo<OpCase> &info) {
  const OpCase &c = info.param;
  return c.op + "_" + dtypeName(c.dtype) + "_" + std::to_string(c.rows) + "x" +
         std::to_string(c.cols);
}

std::vector<OpCase> allCases() {
  std::vector<OpCase> cases;
  std::vector<std::pair<int64_t, int64_t>> shapes = {
      {1, 7}, {3, 1000}, {8192, 4096}, {4096, 8192}, {16384, 4096}};
  // TILEC_GPU_SMALL=1 keeps only the small shapes (quick checks).
  if (const char *small = std::getenv("TILEC_GPU_SMALL"); small && *small == '1')
    shapes = {{1, 7}, {3, 1000}, {5, 4100}, {17, 96}};
  for (std::string op : {"rms_norm", "softmax", "layer_norm", "add_rms_norm",
                                "elementwise_chain", "silu_mul", "rope"})
    for (DType dtype : {DType::F32, DType::BF16})
      for (auto [r, c] : shapes)
        // rope needs an even head dim: odd widths lose a column.
        cases.push_back({op, dtype, r, op == "rope" && c % 2 ? c - 1 : c});
  return cases;
}

/// Compiles `g` (expecting `kernels` kernels when >= 0), runs it on fresh
/// random data with NaN-poisoned outputs and compares every output with the
/// reference. Rank-1 inputs (norm weights) are drawn around 1.
void expectMatchesReference(Graph &g, double tolerance, int kernels = -1,
                            const CompileOptions &options = {}) {
  TILEC_REQUIRE_GPU(ctx);
  auto exe = Executable::compile(g, ctx, options);
  ASSERT_TRUE(exe.ok()) << exe.message();
  if (kernels >= 0)
    EXPECT_EQ((*exe)->kernelCount(), static_cast<size_t>(kernels));
  uint64_t seed = tilec::testing::freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const Node &n = g.node(g.inputs()[i]);
    bool weight = n.shape.size() == 1;
    inputs.push_back(HostTensor::random(n.shape, n.dtype, seed + i, weight ? 0.5f : -3.0f,
                                        weight ? 1.5f : 3.0f));
  }
  auto stream = rt::Stream::create(ctx);
  ASSERT_TRUE(stream.ok()) << stream.message();
  auto got = (*exe)->runOnHost(inputs, **stream);
  ASSERT_TRUE(got.ok()) << got.message();
  std::vector<HostTensor> ref = evaluateReference(g, inputs);
  ASSERT_EQ(got->size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    EXPECT_LT(relativeError((*got)[i], ref[i]), tolerance) << "output " << i;
    // runOnHost poisons outputs with NaN: every element must be written.
    int64_t nans = 0;
    for (float v : (*got)[i].values)
      nans += v != v;
    EXPECT_EQ(nans, 0) << "output " << i << " has unwritten (NaN) elements";
  }
}

class GpuOpsTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(GpuOpsTest, MatchesReferenceOnFreshRandomData) {
  const OpCase &c = GetParam();
  Graph g(c.op);
  ASSERT_TRUE(examples::build(c.op, g, c.rows, c.cols, c.dtype).ok());
  // Every example op fuses into one kernel.
  expectMatchesReference(g, c.dtype == DType::F32 ? 1e-5 : 2e-2, /*kernels=*/1);
}

INSTANTIATE_TEST_SUITE_P(Examples, GpuOpsTest, ::testing::ValuesIn(allCases()), caseName);

TEST(GpuScheduleTest, WideElementwiseRowsSplitOverSeveralCTAs) {
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{3, 100000}, {2, 99999}})
    for (DType dtype : {DType::F32, DType::BF16}) {
      SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " " + dtypeName(dtype));
      Graph g("wide_chain");
      ASSERT_TRUE(examples::build("elementwise_chain", g, rows, cols, dtype).ok());
      expectMatchesReference(g, dtype == DType::F32 ? 1e-5 : 2e-2);
    }
}

TEST(GpuScheduleTest, RowsTooWideForRegistersAreStreamed) {
  struct Wide {
    const char *op;
    DType dtype;
    int64_t rows, cols;
  };
  // One CTA a row (on sm_90a so few rows would take clusters: see
  // GpuClusterTest).
  CompileOptions options;
  options.scheduleOptions = "row-cluster-max=1";
  // 128k-vocab logits, an odd width (scalar accesses), and two outputs.
  for (Wide w : {Wide{"softmax", DType::F32, 16, 131072}, Wide{"softmax", DType::BF16, 16, 131072},
                 Wide{"layer_norm", DType::F32, 5, 65536}, Wide{"rms_norm", DType::F32, 7, 32769},
                 Wide{"add_rms_norm", DType::BF16, 3, 100000}}) {
    SCOPED_TRACE(std::string(w.op) + " " + dtypeName(w.dtype) + " " + std::to_string(w.cols));
    Graph g(w.op);
    ASSERT_TRUE(examples::build(w.op, g, w.rows, w.cols, w.dtype).ok());
    auto program = compileGraph(g, options);
    ASSERT_TRUE(program.ok()) << program.message();
    EXPECT_GT(program->launches[0].streamBlocks, 0);
    EXPECT_EQ(program->launches[0].clusterM, 1);
    expectMatchesReference(g, w.dtype == DType::F32 ? 1e-5 : 2e-2, 1, options);
  }
}

// Few wide rows with reductions on sm_90a: each row split over a cluster of
// CTAs that combine their partial reductions through distributed shared
// memory (docs: DistributeRowTiles.cpp). Every case must take that
// schedule (checked on the CPU before the GPU is needed); row-cluster-max
// 2 and 4 give smaller clusters whose CTAs stream their slices.
struct ClusterCase {
  std::string op;
  DType dtype;
  int64_t rows, cols;
  std::string scheduleOptions;
};

std::string clusterCaseName(const ::testing::TestParamInfo<ClusterCase> &info) {
  const ClusterCase &c = info.param;
  std::string name = c.op + "_" + dtypeName(c.dtype) + "_" + std::to_string(c.rows) + "x" +
                     std::to_string(c.cols);
  if (!c.scheduleOptions.empty())
    name += "_max" + c.scheduleOptions.substr(c.scheduleOptions.find('=') + 1);
  return name;
}

std::vector<ClusterCase> clusterCases() {
  std::vector<ClusterCase> cases;
  for (std::string op : {"softmax", "rms_norm", "layer_norm", "add_rms_norm"})
    for (DType dtype : {DType::F32, DType::BF16})
      // 128k vocabulary, one token, a cluster of 8 per 3 rows, and an odd
      // width (scalar accesses; each CTA streams its slice, the last one
      // lies past the row's end).
      for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{
               {1, 131072}, {16, 131072}, {3, 65536}, {5, 100003}})
        cases.push_back({op, dtype, r, c, ""});
  for (const char *options : {"row-cluster-max=2", "row-cluster-max=4"})
    for (DType dtype : {DType::F32, DType::BF16})
      cases.push_back({"softmax", dtype, 16, 131072, options});
  return cases;
}

class GpuClusterTest : public ::testing::TestWithParam<ClusterCase> {};

TEST_P(GpuClusterTest, MatchesReferenceOnFreshRandomData) {
  const ClusterCase &c = GetParam();
  Graph g(c.op);
  ASSERT_TRUE(examples::build(c.op, g, c.rows, c.cols, c.dtype).ok());
  CompileOptions options;
  options.scheduleOptions = c.scheduleOptions;
  auto program = compileGraph(g, options);
  ASSERT_TRUE(program.ok()) << program.message();
  ASSERT_EQ(program->launches.size(), 1u);
  const KernelLaunchPlan &plan = program->launches[0];
  int64_t expected = c.scheduleOptions.empty() ? 8 : c.scheduleOptions.back() - '0';
  ASSERT_EQ(plan.clusterM, expected) << "not split over a cluster";
  EXPECT_EQ(plan.gridSize(), c.rows * expected);
  expectMatchesReference(g, c.dtype == DType::F32 ? 1e-5 : 2e-2, 1, options);
}

INSTANTIATE_TEST_SUITE_P(Rows, GpuClusterTest, ::testing::ValuesIn(clusterCases()),
                         clusterCaseName);

// The CTAs of a cluster combine the partials in one order: each stores its
// columns of the broadcast row sum, and all of a row's columns (8 CTAs)
// must be bitwise equal; a second run gives the same bits.
TEST(GpuScheduleTest, ClusterCtasOfARowAgreeBitwise) {
  const int64_t rows = 16, cols = 131072;
  Graph g("row_sum_broadcast");
  Tensor x = g.input("x", {rows, cols}, DType::F32);
  g.output(broadcast_to(sum(exp(x), -1), {rows, cols}));
  auto program = compileGraph(g);
  ASSERT_TRUE(program.ok()) << program.message();
  ASSERT_EQ(program->launches.size(), 1u);
  ASSERT_EQ(program->launches[0].clusterM, 8);
  TILEC_REQUIRE_GPU(ctx);
  auto exe = Executable::compile(g, ctx);
  ASSERT_TRUE(exe.ok()) << exe.message();
  uint64_t seed = tilec::testing::freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<HostTensor> inputs{HostTensor::random({rows, cols}, DType::F32, seed, -3.0f, 3.0f)};
  auto stream = rt::Stream::create(ctx);
  ASSERT_TRUE(stream.ok()) << stream.message();
  auto first = (*exe)->runOnHost(inputs, **stream);
  auto second = (*exe)->runOnHost(inputs, **stream);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_LT(relativeError((*first)[0], evaluateReference(g, inputs)[0]), 1e-5);
  const std::vector<float> &v = (*first)[0].values;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t differ = 0;
    for (int64_t c = 0; c < cols; ++c)
      differ += std::memcmp(&v[r * cols + c], &v[r * cols], sizeof(float)) != 0;
    EXPECT_EQ(differ, 0) << "row " << r << ": columns disagree with column 0";
  }
  EXPECT_EQ(std::memcmp(v.data(), (*second)[0].values.data(), v.size() * sizeof(float)), 0)
      << "two runs differ";
}

TEST(GpuScheduleTest, InnerAxisReductionsUseStridedRows) {
  struct Case {
    Shape shape;
    int axis;
    DType dtype;
  };
  for (Case c : {Case{{64, 300}, 0, DType::F32}, Case{{4, 5000, 6}, 1, DType::F32},
                 Case{{3, 7, 5, 129}, 2, DType::BF16}, Case{{8192, 33}, 0, DType::BF16}})
    for (int kind = 0; kind < 3; ++kind) {
      SCOPED_TRACE(shapeString(c.shape) + " axis " + std::to_string(c.axis) + " kind " +
                   std::to_string(kind) + " " + dtypeName(c.dtype));
      Graph g("inner_reduce");
      Tensor x = g.input("x", c.shape, c.dtype);
      Tensor e = exp(x); // a row kernel feeding the strided one
      g.output(kind == 0 ? sum(e, c.axis) : kind == 1 ? max(e, c.axis) : mean(e, c.axis));
      expectMatchesReference(g, c.dtype == DType::F32 ? 1e-5 : 2e-2, 2);
    }
}

TEST(GpuScheduleTest, SharedVectorResultIsWrittenOnce) {
  Graph g("shared_out");
  Tensor x = g.input("x", {37, 160}, DType::F32);
  Tensor w = g.input("w", {160}, DType::F32);
  Tensor ew = exp(w);
  g.output(x * ew);
  g.output(ew);
  expectMatchesReference(g, 1e-5);
}

TEST(GpuScheduleTest, SingleColumnRowsReduce) {
  Graph g("one_col");
  g.output(nn::softmax(g.input("x", {300, 1}, DType::F32)));
  expectMatchesReference(g, 1e-5);
}

TEST(GpuNumericsTest, RoundEveryOpFollowsTheEagerReferenceClosely) {
  // The reference rounds after every op, as round-every-op kernels do: they
  // differ only where libdevice and the host's libm round differently.
  for (DType dtype : {DType::BF16, DType::F16}) {
    SCOPED_TRACE(dtypeName(dtype));
    Graph g("chain_rounded");
    ASSERT_TRUE(examples::build("elementwise_chain", g, 64, 1000, dtype).ok());
    CompileOptions rounded;
    rounded.roundEveryOp = true;
    expectMatchesReference(g, 2e-3, 1, rounded);
    expectMatchesReference(g, 2e-2, 1); // default: rounded at the store only
  }
}

TEST(GpuSliceTest, SlicesConcatsAndBroadcastRows) {
  // Graphs also compiled (and assembled) by the CPU tests: see SliceGraphs.h.
  for (const testgraphs::SliceGraph &c : testgraphs::sliceGraphs()) {
    SCOPED_TRACE(c.name);
    Graph g(c.name);
    c.build(g);
    CompileOptions options;
    options.scheduleOptions = c.scheduleOptions;
    expectMatchesReference(g, c.tolerance, 1, options);
  }
}

TEST(GpuRuntimeTest, ReportsWrongBufferSizes) {
  TILEC_REQUIRE_GPU(ctx);
  Graph g("softmax");
  ASSERT_TRUE(examples::build("softmax", g, 4, 64, DType::F32).ok());
  auto exe = Executable::compile(g, ctx);
  ASSERT_TRUE(exe.ok()) << exe.message();
  auto small = rt::DeviceBuffer::allocate(ctx, 16);
  auto out = rt::DeviceBuffer::allocate(ctx, 4 * 64 * 4);
  auto stream = rt::Stream::create(ctx);
  ASSERT_TRUE(small.ok() && out.ok() && stream.ok());
  Status s = (*exe)->run({&*small}, {&*out}, **stream);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("needs 1024 bytes"), std::string::npos) << s.message();
}

// A tensor map the driver refuses (an address not 16-byte aligned) says
// so, with the call and the tensor; an aligned one encodes.
TEST(GpuRuntimeTest, TensorMapRefusalNamesTheTensor) {
  TILEC_REQUIRE_GPU(ctx);
  auto buffer = rt::DeviceBuffer::allocate(ctx, 1 << 20);
  ASSERT_TRUE(buffer.ok()) << buffer.status().message();
  rt::TensorMap map;
  Status ok = rt::encodeTensorMap(map, rt::TensorMapElement::BF16, buffer->devicePtr(),
                                  {256, 512}, {128, 64});
  EXPECT_TRUE(ok.ok()) << ok.message();
  Status bad = rt::encodeTensorMap(map, rt::TensorMapElement::BF16, buffer->devicePtr() + 2,
                                   {256, 512}, {128, 64});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("cuTensorMapEncodeTiled(tensor [256, 512] in boxes of [128, 64]"),
            std::string::npos)
      << bad.message();
}

TEST(GpuRuntimeTest, JitErrorCarriesDriverLog) {
  TILEC_REQUIRE_GPU(ctx);
  auto m = rt::Module::loadPTX(ctx, ".version 8.0\n.target sm_90a\n.address_size 64\n"
                                    ".visible .entry broken() { bogus.instruction; }\n");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.message().find("PTX JIT failed"), std::string::npos) << m.message();
}

TEST(GpuRuntimeTest, SecondCompileOfEqualGraphHitsTheCache) {
  TILEC_REQUIRE_GPU(ctx);
  auto build = [](Graph &g) { return examples::build("rms_norm", g, 8, 256, DType::BF16); };
  Graph a("cached"), b("cached");
  ASSERT_TRUE(build(a).ok() && build(b).ok());
  auto first = Executable::compile(a, ctx);
  auto second = Executable::compile(b, ctx);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(&(*first)->program(), &(*second)->program());
}

} // namespace
