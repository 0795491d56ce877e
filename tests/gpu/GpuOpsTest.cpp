// GPU tests: every example op, f32 and bf16, at small, odd and large shapes,
// against the CPU reference on fresh random data with poisoned outputs.
#include "GpuTestSupport.h"
#include "RandomGraphs.h"
#include "SliceGraphs.h"
#include "../unit/TileInterpreter.h"

#include "tilec/Reference.h"
#include "tilec/compiler/Examples.h"
#include "tilec/compiler/Compiler.h"
#include "tilec/compiler/Executable.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
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
  if (kernels >= 0) {
    EXPECT_EQ((*exe)->kernelCount(), static_cast<size_t>(kernels));
  }
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

// f32 rows of 16 vectors a thread at 512 threads take 1024 threads and sink
// their weight loads past the reductions (ScheduleRowKernels), as do bf16
// add_rms_norm rows that would otherwise stream (two row inputs): full and
// masked-tail widths, more rows than a cluster split would take.
std::vector<OpCase> wideRowCases() {
  std::vector<OpCase> cases;
  for (std::string op : {"rms_norm", "softmax", "layer_norm", "add_rms_norm"})
    for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{{140, 32768}, {150, 32760}})
      cases.push_back({op, DType::F32, r, c});
  for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{{140, 32768}, {150, 32760}})
    cases.push_back({"add_rms_norm", DType::BF16, r, c});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(WideRows, GpuOpsTest, ::testing::ValuesIn(wideRowCases()), caseName);

// row-loop=true (off by default: measured slower): CTAs that loop over row
// blocks (the grid capped at what fits on the GPU), the weights loaded once
// a CTA; every op, both dtypes,
// row counts that leave the last block partial or the last CTA idle, and
// rows of several warps (a barrier between blocks) and of a few lanes
// (several rows a CTA).
class GpuRowLoopTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(GpuRowLoopTest, MatchesReferenceOnFreshRandomData) {
  const OpCase &c = GetParam();
  Graph g(c.op);
  ASSERT_TRUE(examples::build(c.op, g, c.rows, c.cols, c.dtype).ok());
  CompileOptions options;
  options.scheduleOptions = "row-loop=true";
  auto program = compileGraph(g, options);
  ASSERT_TRUE(program.ok()) << program.message();
  ASSERT_EQ(program->launches.size(), 1u);
  // (Elementwise rows split over several CTAs do not loop.)
  EXPECT_EQ(program->launches[0].rowLoop, program->launches[0].colBlocks == 1)
      << explainFusion(*program);
  expectMatchesReference(g, c.dtype == DType::F32 ? 1e-5 : 2e-2, /*kernels=*/1, options);
}

std::vector<OpCase> rowLoopCases() {
  std::vector<OpCase> cases;
  for (std::string op : {"rms_norm", "softmax", "layer_norm", "add_rms_norm",
                         "elementwise_chain", "silu_mul", "rope"})
    for (DType dtype : {DType::F32, DType::BF16})
      for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{
               {8192, 4096}, {4097, 8192}, {50001, 96}, {20000, 1000}})
        cases.push_back({op, dtype, r, op == "rope" && c % 2 ? c - 1 : c});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(RowLoop, GpuRowLoopTest, ::testing::ValuesIn(rowLoopCases()), caseName);

// row-prefetch: the row-loop kernels with their row inputs copied ahead
// into a ring of shared memory (cp.async), 2 to 4 stages: a masked last
// row block (4097 rows), several rows a CTA (96 and 1000 columns), CTAs
// that loop over more blocks than the ring has stages, and f32 rows of odd
// width (4-byte copies; bf16 there has 2-byte vectors and loops without a
// ring). rope reads its rotated halves from the ring's row too.
struct PrefetchCase {
  OpCase op;
  int64_t stages;
};

class GpuRowPrefetchTest : public ::testing::TestWithParam<PrefetchCase> {};

TEST_P(GpuRowPrefetchTest, MatchesReferenceOnFreshRandomData) {
  const OpCase &c = GetParam().op;
  int64_t stages = GetParam().stages;
  Graph g(c.op);
  ASSERT_TRUE(examples::build(c.op, g, c.rows, c.cols, c.dtype).ok());
  CompileOptions options;
  options.scheduleOptions = "row-prefetch=" + std::to_string(stages);
  auto program = compileGraph(g, options);
  ASSERT_TRUE(program.ok()) << program.message();
  ASSERT_EQ(program->launches.size(), 1u);
  bool twoByteVectors = c.dtype != DType::F32 && program->launches[0].vectorWidth == 1;
  EXPECT_TRUE(program->launches[0].rowLoop) << explainFusion(*program);
  EXPECT_EQ(program->launches[0].prefetchStages, twoByteVectors ? 0 : stages)
      << explainFusion(*program);
  expectMatchesReference(g, c.dtype == DType::F32 ? 1e-5 : 2e-2, /*kernels=*/1, options);
}

std::vector<PrefetchCase> rowPrefetchCases() {
  std::vector<PrefetchCase> cases;
  for (std::string op : {"rms_norm", "softmax", "layer_norm", "add_rms_norm", "rope"})
    for (DType dtype : {DType::F32, DType::BF16})
      for (auto [r, c, stages] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
               {4097, 4096, 2}, {20000, 1000, 3}, {50001, 96, 4}, {9001, 1001, 2}}) {
        if (op == "rope" && c % 2)
          continue;
        cases.push_back({{op, dtype, r, c}, stages});
      }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(RowPrefetch, GpuRowPrefetchTest, ::testing::ValuesIn(rowPrefetchCases()),
                         [](const ::testing::TestParamInfo<PrefetchCase> &info) {
                           return caseName(::testing::TestParamInfo<OpCase>(info.param.op,
                                                                            info.index)) +
                                  "_s" + std::to_string(info.param.stages);
                         });

// stage-weights: the weight (and bias) vectors copied into shared memory
// with cp.async at the start and read there past the reductions (with
// sink-loads=true, and without it, where they are read at the top): full
// and masked last vectors, 4-byte copies (f32 rows of odd width); bf16 rows
// of odd width (2-byte vectors) are not staged.
TEST(GpuScheduleTest, WeightsStagedInSharedMemory) {
  struct Case {
    const char *op;
    DType dtype;
    int64_t rows, cols;
    bool staged;
  };
  for (const char *schedule : {"stage-weights=true sink-loads=true", "stage-weights=true"})
    for (Case c : {Case{"layer_norm", DType::BF16, 4097, 8192, true},
                   Case{"rms_norm", DType::BF16, 4097, 8192, true},
                   Case{"add_rms_norm", DType::BF16, 2000, 4104, true},
                   Case{"layer_norm", DType::F32, 37, 4100, true},
                   Case{"rms_norm", DType::F32, 600, 8191, true},
                   Case{"layer_norm", DType::F32, 600, 8191, true},
                   Case{"layer_norm", DType::BF16, 600, 8191, false}}) {
      SCOPED_TRACE(std::string(schedule) + ": " + c.op + " " + dtypeName(c.dtype) + " " +
                   std::to_string(c.rows) + "x" + std::to_string(c.cols));
      CompileOptions options;
      options.scheduleOptions = schedule;
      Graph g(c.op);
      ASSERT_TRUE(examples::build(c.op, g, c.rows, c.cols, c.dtype).ok());
      auto program = compileGraph(g, options);
      ASSERT_TRUE(program.ok()) << program.message();
      EXPECT_EQ(program->launches[0].stagedWeights, c.staged) << explainFusion(*program);
      expectMatchesReference(g, c.dtype == DType::F32 ? 1e-5 : 2e-2, 1, options);
    }
}

// row-l2-prefetch=D: each CTA prefetches into L2 its slice of the row
// block D blocks ahead (prefetch.L2 in the PTX). The values must not
// change: a masked last row block, several rows a CTA, rows split over a
// cluster (softmax over 131072 columns), prefetches past the last row.
TEST(GpuScheduleTest, RowsAheadPrefetchedIntoL2) {
  struct Case {
    const char *op;
    DType dtype;
    int64_t rows, cols, ahead;
  };
  for (Case c : {Case{"layer_norm", DType::BF16, 4097, 8192, 256},
                 Case{"rms_norm", DType::BF16, 4097, 4096, 1024},
                 Case{"add_rms_norm", DType::F32, 2000, 1000, 64},
                 Case{"softmax", DType::BF16, 300, 131072, 48},
                 Case{"softmax", DType::F32, 20000, 96, 8},
                 Case{"layer_norm", DType::F32, 600, 8191, 700}}) {
    SCOPED_TRACE(std::string(c.op) + " " + dtypeName(c.dtype) + " " + std::to_string(c.rows) +
                 "x" + std::to_string(c.cols) + " ahead " + std::to_string(c.ahead));
    CompileOptions options;
    options.scheduleOptions = "row-l2-prefetch=" + std::to_string(c.ahead);
    Graph g(c.op);
    ASSERT_TRUE(examples::build(c.op, g, c.rows, c.cols, c.dtype).ok());
    auto program = compileGraph(g, options);
    ASSERT_TRUE(program.ok()) << program.message();
    EXPECT_NE(program->ptx.find("prefetch.L2"), std::string::npos);
    expectMatchesReference(g, c.dtype == DType::F32 ? 1e-5 : 2e-2, 1, options);
  }
}

// flushSubnormals (the .ftz instructions, off by default): every op of the
// library on rows within a warp, over a CTA, split over a cluster and
// streamed or in clusters of many rows (150 rows of 100000: 4 CTAs for
// f32, 8 for bf16), against the
// reference, with the default's tolerances.
TEST(GpuScheduleTest, FlushedSubnormalsMatchTheReference) {
  CompileOptions options;
  options.flushSubnormals = true;
  for (const char *op : {"rms_norm", "softmax", "layer_norm", "add_rms_norm",
                         "elementwise_chain", "silu_mul", "rope"})
    for (DType dtype : {DType::F32, DType::BF16})
      for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
               {37, 96}, {1000, 4096}, {16, 65536}, {150, 100000}}) {
        SCOPED_TRACE(std::string(op) + " " + dtypeName(dtype) + " " + std::to_string(rows) +
                     "x" + std::to_string(cols));
        Graph g(op);
        ASSERT_TRUE(examples::build(op, g, rows, cols, dtype).ok());
        expectMatchesReference(g, dtype == DType::F32 ? 1e-5 : 2e-2, -1, options);
      }
}

// recompute-exp: the online pair over a bf16 row takes its max on the
// packed row and the exp tile is made again past the reduction (its exps
// ex2.approx.ftz under fast math). true: on rows split over clusters (8 in
// registers, 4 over many rows, 4 with scalar accesses past the row's end)
// and, with online-softmax=true, rows over one and over eight warps; the
// default (auto) on 300 rows of 131072 and 150 of 100000 (the last CTA's
// slice ends mid-chunk) in clusters of 8 CTAs of 256, whose row scalars
// fold into the exps (fold-into-exp=auto: exp2(x L + (-(M L) - log2 s))
// an element; the pair's exps exp2(x L - m L)), and those two with
// fold-into-exp=false. Alone and with flushSubnormals. Logits up to 90
// (exp(x - M) spans the f32 range); bf16 results within one ulp of the
// reference plus 1e-4 of the row's largest, element by element.
TEST(GpuScheduleTest, SoftmaxExpsMadeAgainPastTheReduction) {
  struct Case {
    int64_t rows, cols;
    const char *options;
  };
  for (bool flush : {false, true})
    for (Case c : {Case{16, 65536, "recompute-exp=true"}, Case{150, 100000, "recompute-exp=true"},
                   Case{5, 4097, "recompute-exp=true"},
                   Case{1000, 4096, "recompute-exp=true online-softmax=true"},
                   Case{7, 2000, "recompute-exp=true online-softmax=true"},
                   Case{300, 131072, ""}, Case{150, 100000, ""},
                   Case{300, 131072, "fold-into-exp=false"},
                   Case{150, 100000, "fold-into-exp=false"}}) {
      std::string schedule = c.options;
      SCOPED_TRACE(schedule + (flush ? " flushed " : " ") + std::to_string(c.rows) + "x" +
                   std::to_string(c.cols));
      Graph g("softmax");
      ASSERT_TRUE(examples::build("softmax", g, c.rows, c.cols, DType::BF16).ok());
      CompileOptions options;
      options.scheduleOptions = schedule;
      options.flushSubnormals = flush;
      TILEC_REQUIRE_GPU(ctx);
      auto exe = Executable::compile(g, ctx, options);
      ASSERT_TRUE(exe.ok()) << exe.message();
      // (bf16x2 pairs; max.NaN.bf16 where the accesses are scalar.)
      EXPECT_NE((*exe)->program().ptx.find("max.NaN.bf16"), std::string::npos);
      uint64_t seed = tilec::testing::freshSeed();
      SCOPED_TRACE("seed " + std::to_string(seed));
      HostTensor x = HostTensor::random({c.rows, c.cols}, DType::BF16, seed, -30.0f, 30.0f);
      for (int64_t r = 0; r < c.rows; ++r)
        for (int64_t k = 0; k < c.cols; ++k) {
          float &v = x.values[r * c.cols + k];
          v = roundTo(DType::BF16, v + (r % 2 ? 60.0f : 0.0f));
        }
      auto stream = rt::Stream::create(ctx);
      ASSERT_TRUE(stream.ok()) << stream.message();
      auto got = (*exe)->runOnHost({x}, **stream);
      ASSERT_TRUE(got.ok()) << got.message();
      HostTensor ref = evaluateReference(g, {x})[0];
      const std::vector<float> &v = (*got)[0].values;
      int64_t off = 0, first = -1;
      for (int64_t r = 0; r < c.rows; ++r) {
        double largest = 0;
        for (int64_t k = 0; k < c.cols; ++k)
          largest = std::max(largest, std::fabs(static_cast<double>(ref.values[r * c.cols + k])));
        for (int64_t k = 0; k < c.cols; ++k) {
          size_t i = static_cast<size_t>(r * c.cols + k);
          double want = ref.values[i];
          if (!(std::fabs(v[i] - want) <= std::fabs(want) / 128 + 1e-4 * largest)) {
            if (first < 0)
              first = static_cast<int64_t>(i);
            ++off;
          }
        }
      }
      EXPECT_EQ(off, 0) << "first at " << first << ": got " << (first >= 0 ? v[first] : 0.0f)
                        << ", reference " << (first >= 0 ? ref.values[first] : 0.0f);
    }
}

TEST(GpuScheduleTest, WideElementwiseRowsSplitOverSeveralCTAs) {
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{3, 100000}, {2, 99999}})
    for (DType dtype : {DType::F32, DType::BF16}) {
      SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " " + dtypeName(dtype));
      Graph g("wide_chain");
      ASSERT_TRUE(examples::build("elementwise_chain", g, rows, cols, dtype).ok());
      expectMatchesReference(g, dtype == DType::F32 ? 1e-5 : 2e-2);
    }
}

// stream-shared: streamed rows re-read from shared memory after the first
// pass; full and masked-tail widths, one and two passes after it
// (rms_norm; softmax and layer_norm), in clusters of 8 (which the default,
// auto, leaves unstaged: true stages them).
TEST(GpuScheduleTest, StreamedRowsReReadFromSharedMemory) {
  CompileOptions options;
  options.scheduleOptions = "stream-shared=true";
  struct Wide {
    const char *op;
    int64_t rows, cols;
  };
  for (Wide w : {Wide{"softmax", 300, 32768}, Wide{"rms_norm", 150, 32760},
                 Wide{"layer_norm", 140, 32768}, Wide{"layer_norm", 3, 262144}}) {
    SCOPED_TRACE(std::string(w.op) + " " + std::to_string(w.rows) + "x" + std::to_string(w.cols));
    Graph g(w.op);
    ASSERT_TRUE(examples::build(w.op, g, w.rows, w.cols, DType::BF16).ok());
    auto program = compileGraph(g, options);
    ASSERT_TRUE(program.ok()) << program.message();
    EXPECT_GT(program->launches[0].streamBlocks, 0);
    EXPECT_GT(program->launches[0].sharedBytes, 0);
    expectMatchesReference(g, 2e-2, 1, options);
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
  int64_t cluster; // the CTAs a row the schedule must take
};

std::string clusterCaseName(const ::testing::TestParamInfo<ClusterCase> &info) {
  const ClusterCase &c = info.param;
  std::string name = c.op + "_" + dtypeName(c.dtype) + "_" + std::to_string(c.rows) + "x" +
                     std::to_string(c.cols);
  if (!c.scheduleOptions.empty())
    name += "_" + c.scheduleOptions;
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
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
               {1, 131072}, {3, 65536}, {5, 100003}})
        cases.push_back({op, dtype, r, c, "", 8});
  // Heavy slices in no more clusters than fit the H200 at once, one CTA an
  // SM (16 of 6 CTAs, 20 of 5, 32 of 3, not 16 of 8): uneven slices, the
  // last CTA's ending past the row. layer_norm (a weight and a bias) keeps
  // powers of two within a wave.
  for (std::string op : {"softmax", "rms_norm", "layer_norm", "add_rms_norm"})
    for (DType dtype : {DType::F32, DType::BF16})
      for (auto [r, c, k] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
               {16, 131072, 6}, {20, 131072, 5}, {32, 65536, 3}})
        cases.push_back({op, dtype, r, c, "", op == "layer_norm" ? (r == 16 ? 8 : 4) : k});
  for (int64_t k : {2, 4})
    for (DType dtype : {DType::F32, DType::BF16})
      cases.push_back({"softmax", dtype, 16, 131072, "row-cluster-max=" + std::to_string(k), k});
  // Exactly 7 or 8 (row-cluster), though 16 of them do not fit at once.
  for (int64_t k : {7, 8})
    for (std::string op : {"softmax", "layer_norm"})
      for (DType dtype : {DType::F32, DType::BF16})
        cases.push_back({op, dtype, 16, 131072, "row-cluster=" + std::to_string(k), k});
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
  ASSERT_EQ(plan.clusterM, c.cluster) << "not split over the expected cluster";
  EXPECT_EQ(plan.gridSize(), c.rows * c.cluster);
  expectMatchesReference(g, c.dtype == DType::F32 ? 1e-5 : 2e-2, 1, options);
}

INSTANTIATE_TEST_SUITE_P(Rows, GpuClusterTest, ::testing::ValuesIn(clusterCases()),
                         clusterCaseName);

// Every column of each row of `v` ([rows, cols]) bitwise equal to column 0.
void expectColumnsAgreeBitwise(const std::vector<float> &v, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    int64_t differ = 0;
    for (int64_t c = 0; c < cols; ++c)
      differ += std::memcmp(&v[r * cols + c], &v[r * cols], sizeof(float)) != 0;
    EXPECT_EQ(differ, 0) << "row " << r << ": columns disagree with column 0";
  }
}

// The CTAs of a cluster combine the partials in one order: each stores its
// columns of the broadcast row sum, and all of a row's columns (6 CTAs)
// must be bitwise equal; a second run gives the same bits.
TEST(GpuScheduleTest, ClusterCtasOfARowAgreeBitwise) {
  const int64_t rows = 16, cols = 131072;
  Graph g("row_sum_broadcast");
  Tensor x = g.input("x", {rows, cols}, DType::F32);
  g.output(broadcast_to(sum(exp(x), -1), {rows, cols}));
  auto program = compileGraph(g);
  ASSERT_TRUE(program.ok()) << program.message();
  ASSERT_EQ(program->launches.size(), 1u);
  ASSERT_EQ(program->launches[0].clusterM, 6); // (16 clusters of 8 do not fit)
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
  expectColumnsAgreeBitwise(v, rows, cols);
  EXPECT_EQ(std::memcmp(v.data(), (*second)[0].values.data(), v.size() * sizeof(float)), 0)
      << "two runs differ";
}

// Online softmax (tilec-form-online-softmax, forced with
// online-softmax=true; the default forms it only in cluster-split rows) and
// the two-round path (online-softmax=false) on every row schedule, against the
// reference, on inputs that stress the (max, sum) pair's combine: values
// of magnitude up to 80 (exp(x - max) spans e^-160 .. 1), rows whose
// finite values all lie in the first or the last eighth (whole lanes,
// warps and cluster CTAs see only -inf: their partial is (-inf, 0) and
// must not turn into NaN when combined), rows with every second value
// -inf, and one row of only -inf (NaN in the reference and on the GPU, as
// 0 / 0 in both paths). Each case must take the schedule it names.
struct OnlineSoftmaxCase {
  DType dtype;
  int64_t rows, cols;
  std::string scheduleOptions; // besides online-softmax
  enum Schedule { Registers, Streamed, Cluster, ClusterStreamed } schedule;
};

HostTensor softmaxStressInput(int64_t rows, int64_t cols, DType dtype, uint64_t seed) {
  HostTensor x = HostTensor::random({rows, cols}, dtype, seed, -80.0f, 80.0f);
  const float negInf = -std::numeric_limits<float>::infinity();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      bool masked = false;
      switch (r % 4) {
      case 0: masked = c >= std::max<int64_t>(1, cols / 8); break; // finite head
      case 1: masked = c < cols - std::max<int64_t>(1, cols / 8); break; // finite tail
      case 2: masked = c % 2 == 1; break;
      default: break; // large magnitudes only
      }
      if (masked || (rows > 4 && r == rows - 1))
        x.values[r * cols + c] = negInf;
    }
  return x;
}

class GpuOnlineSoftmaxTest
    : public ::testing::TestWithParam<std::tuple<OnlineSoftmaxCase, bool>> {};

TEST_P(GpuOnlineSoftmaxTest, MatchesReferenceWithInfinitiesAndLargeValues) {
  const auto &[c, online] = GetParam();
  Graph g("softmax");
  ASSERT_TRUE(examples::build("softmax", g, c.rows, c.cols, c.dtype).ok());
  CompileOptions options;
  options.scheduleOptions = c.scheduleOptions + (online ? " online-softmax=true" : " online-softmax=false");
  auto program = compileGraph(g, options);
  ASSERT_TRUE(program.ok()) << program.message();
  ASSERT_EQ(program->launches.size(), 1u);
  const KernelLaunchPlan &plan = program->launches[0];
  bool cluster = c.schedule == OnlineSoftmaxCase::Cluster ||
                 c.schedule == OnlineSoftmaxCase::ClusterStreamed;
  bool streamed = c.schedule == OnlineSoftmaxCase::Streamed ||
                  c.schedule == OnlineSoftmaxCase::ClusterStreamed;
  ASSERT_EQ(plan.clusterM > 1, cluster);
  ASSERT_EQ(plan.streamBlocks > 0, streamed);
  // The PTX has one CTA barrier round with the pair, two without.
  size_t barriers = tilec::testing::occurrences(program->ptx, "bar.sync");
  if (plan.threadsPerRow > 32) {
    EXPECT_EQ(barriers, online ? 1u : 2u);
  }
  // One exp an element in registers: the pair (formed for rows over
  // several warps or split over a cluster; rows within one warp keep two
  // rounds) gives its exp tile, each thread's exp(x - m_t) rescaled by one
  // exp(m_t - M), so beside the elements' ex2 there are only the scale's and
  // the combines': one for the lanes (the max by a butterfly, then each
  // lane's sum rescaled once), one for the warps (reduced the same way,
  // lane l taking warp l's pair), one a cluster CTA.
  if (!streamed) {
    size_t ex2 = tilec::testing::occurrences(program->ptx, "ex2.approx");
    size_t steps = 0;
    for (int64_t lanes = std::min<int64_t>(plan.threadsPerRow, 32); lanes > 1; lanes /= 2)
      ++steps;
    bool paired = online && (plan.threadsPerRow > 32 || cluster);
    size_t combines = (steps > 0 ? 1 : 0) + (plan.threadsPerRow > 32 ? 1 : 0) +
                      (cluster ? plan.clusterM : 0);
    // (A packed bf16 row, recompute-exp: an exp an element for the sum and
    // one for the output, no scale.)
    bool packed = program->ptx.find("max.NaN.bf16x2") != std::string::npos;
    size_t elements = static_cast<size_t>(plan.chunks * plan.vectorWidth);
    EXPECT_EQ(ex2, packed ? 2 * elements + combines : elements + (paired ? 1 + combines : 0));
  }

  TILEC_REQUIRE_GPU(ctx);
  auto exe = Executable::compile(g, ctx, options);
  ASSERT_TRUE(exe.ok()) << exe.message();
  uint64_t seed = tilec::testing::freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<HostTensor> inputs{softmaxStressInput(c.rows, c.cols, c.dtype, seed)};
  auto stream = rt::Stream::create(ctx);
  ASSERT_TRUE(stream.ok()) << stream.message();
  auto got = (*exe)->runOnHost(inputs, **stream);
  ASSERT_TRUE(got.ok()) << got.message();
  HostTensor ref = evaluateReference(g, inputs)[0];
  // (relativeError is infinite when a finite reference value comes back
  // NaN or infinite, e.g. from exp(-inf - -inf) in a combine.)
  // exp of differences up to 160: a few ulps more than the [-3, 3] tests.
  // (Register rows' e_i * exp(m_t - M) instead of exp(x_i - M): one more
  // rounding and the scale's ex2 error, a couple of ulps, within these.)
  EXPECT_LT(relativeError((*got)[0], ref), c.dtype == DType::F32 ? 2e-5 : 2e-2);
  for (int64_t r = 0; r < c.rows; ++r) {
    int64_t bad = 0;
    for (int64_t col = 0; col < c.cols; ++col) {
      float v = (*got)[0].values[r * c.cols + col], want = ref.values[r * c.cols + col];
      bad += std::isfinite(want) != std::isfinite(v);
    }
    EXPECT_EQ(bad, 0) << "row " << r << ": non-finite values where the reference has none";
  }
}

std::vector<OnlineSoftmaxCase> onlineSoftmaxCases() {
  using S = OnlineSoftmaxCase;
  std::vector<OnlineSoftmaxCase> cases;
  for (DType dtype : {DType::F32, DType::BF16}) {
    // In registers: many rows over several warps, odd widths, rows sharing
    // a warp and single columns (these two keep two rounds either way: the
    // pair would save no barrier there).
    cases.push_back({dtype, 64, 4096, "", S::Registers});
    cases.push_back({dtype, 5, 4097, "row-cluster-max=1", S::Registers});
    cases.push_back({dtype, 37, 96, "", S::Registers});
    cases.push_back({dtype, 9, 1, "", S::Registers});
    // Streamed: one CTA a row (clusters off), the odd width with scalar
    // accesses and a partial last block.
    cases.push_back({dtype, 16, 131072, "row-cluster-max=1", S::Streamed});
    cases.push_back({dtype, 5, 100003, "row-cluster-max=1", S::Streamed});
    // Split over clusters of 8, in registers; clusters of 2 whose CTAs
    // stream their slices.
    cases.push_back({dtype, 16, 131072, "", S::Cluster});
    cases.push_back({dtype, 5, 4097, "", S::Cluster}); // scalar accesses, clusters of 4
    cases.push_back({dtype, 16, 131072, "row-cluster-max=2", S::ClusterStreamed});
    // Many rows: clusters of 4 CTAs (f32) or 8 (bf16, whose online pair
    // keeps its row packed and makes the exps again past the reduction).
    cases.push_back({dtype, 100, 131072, "", S::Cluster});
    // bf16 folds its row scalars into the exps by default (f32 keeps the
    // exact forms); the same unfolded.
    if (dtype == DType::BF16)
      cases.push_back({dtype, 100, 131072, "fold-into-exp=false", S::Cluster});
  }
  return cases;
}

std::string onlineSoftmaxCaseName(
    const ::testing::TestParamInfo<std::tuple<OnlineSoftmaxCase, bool>> &info) {
  const auto &[c, online] = info.param;
  static const char *schedules[] = {"registers", "streamed", "cluster", "cluster_streamed"};
  return std::string(dtypeName(c.dtype)) + "_" + std::to_string(c.rows) + "x" +
         std::to_string(c.cols) + "_" + schedules[c.schedule] +
         (c.scheduleOptions.find("fold-into-exp=false") != std::string::npos ? "_unfolded" : "") +
         (online ? "_online" : "_two_rounds");
}

INSTANTIATE_TEST_SUITE_P(Softmax, GpuOnlineSoftmaxTest,
                         ::testing::Combine(::testing::ValuesIn(onlineSoftmaxCases()),
                                            ::testing::Bool()),
                         onlineSoftmaxCaseName);

// The CTAs of a cluster combine the online pair in one order too: each
// stores its columns of the broadcast sum of exp(x - max), and all of a
// row's columns must be bitwise equal, with -inf slices in some rows.
TEST(GpuScheduleTest, ClusterCtasAgreeBitwiseOnTheOnlinePair) {
  const int64_t rows = 16, cols = 131072;
  Graph g("sum_exp_broadcast");
  Tensor x = g.input("x", {rows, cols}, DType::F32);
  g.output(broadcast_to(sum(exp(x - max(x, -1)), -1), {rows, cols}));
  auto program = compileGraph(g);
  ASSERT_TRUE(program.ok()) << program.message();
  ASSERT_EQ(program->launches.size(), 1u);
  ASSERT_EQ(program->launches[0].clusterM, 6);
  // One exchange (the pair) and the exit barrier: two arrives.
  EXPECT_EQ(tilec::testing::occurrences(program->ptx, "barrier.cluster.arrive"), 2u);
  TILEC_REQUIRE_GPU(ctx);
  auto exe = Executable::compile(g, ctx);
  ASSERT_TRUE(exe.ok()) << exe.message();
  uint64_t seed = tilec::testing::freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  HostTensor input = softmaxStressInput(rows, cols, DType::F32, seed);
  for (int64_t c = 0; c < cols; ++c) // no row of only -inf (its sum is NaN)
    input.values[(rows - 1) * cols + c] = static_cast<float>(c % 7);
  std::vector<HostTensor> inputs{input};
  auto stream = rt::Stream::create(ctx);
  ASSERT_TRUE(stream.ok()) << stream.message();
  auto got = (*exe)->runOnHost(inputs, **stream);
  ASSERT_TRUE(got.ok()) << got.message();
  EXPECT_LT(relativeError((*got)[0], evaluateReference(g, inputs)[0]), 2e-5);
  const std::vector<float> &v = (*got)[0].values;
  expectColumnsAgreeBitwise(v, rows, cols);
}

// layer_norm's Chan/Welford pair (tilec-form-welford, forced with
// welford=true; the default forms it where it saves a CTA barrier, a
// cluster exchange or a streamed pass) and the two-round path
// (welford=false) on every row schedule, against the reference, on inputs
// that stress the (mean, M2, n) combine: rows of large mean and small
// variance (f32: 1000 + U(-1.7, 1.7), so E[x^2] - E[x]^2 would lose all
// but a few bits of the variance to cancellation; bf16, whose spacing at
// 1000 is 4: 100 + U(-3, 3)), rows of U(-3, 3), and rows whose last eighth
// sits 50 higher than the rest (warps, cluster CTAs and streamed blocks
// with very different means: large deltas in the combine). Odd widths
// leave masked tails (dynamic counts, threads and CTAs covering nothing).
// Each case must take the schedule it names.
struct WelfordCase {
  DType dtype;
  int64_t rows, cols;
  std::string scheduleOptions; // besides welford
  enum Schedule { Warp, Warps, Streamed, Cluster, ClusterStreamed } schedule;
};

HostTensor welfordStressInput(int64_t rows, int64_t cols, DType dtype, uint64_t seed) {
  HostTensor x = HostTensor::random({rows, cols}, dtype, seed, -1.0f, 1.0f);
  bool f32 = dtype == DType::F32;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float &v = x.values[r * cols + c];
      switch (r % 3) {
      case 0: v = f32 ? 1000.0f + 1.7f * v : 100.0f + 3.0f * v; break;
      case 1: v = 3.0f * v; break;
      default: v += c >= cols - std::max<int64_t>(1, cols / 8) ? 50.0f : 0.0f; break;
      }
      v = roundTo(dtype, v);
    }
  return x;
}

class GpuWelfordTest : public ::testing::TestWithParam<std::tuple<WelfordCase, bool>> {};

TEST_P(GpuWelfordTest, MatchesReferenceWithLargeMeansAndOddWidths) {
  const auto &[c, pair] = GetParam();
  Graph g("layer_norm");
  ASSERT_TRUE(examples::build("layer_norm", g, c.rows, c.cols, c.dtype).ok());
  CompileOptions options;
  options.scheduleOptions = c.scheduleOptions + (pair ? " welford=true" : " welford=false");
  auto program = compileGraph(g, options);
  ASSERT_TRUE(program.ok()) << program.message();
  ASSERT_EQ(program->launches.size(), 1u);
  const KernelLaunchPlan &plan = program->launches[0];
  bool cluster = c.schedule == WelfordCase::Cluster || c.schedule == WelfordCase::ClusterStreamed;
  bool streamed = c.schedule == WelfordCase::Streamed || c.schedule == WelfordCase::ClusterStreamed;
  ASSERT_EQ(plan.clusterM > 1, cluster);
  ASSERT_EQ(plan.streamBlocks > 0, streamed);
  ASSERT_EQ(plan.threadsPerRow > 32, c.schedule != WelfordCase::Warp);
  // One CTA barrier round and one cluster exchange with the pair, two
  // without (the exit barrier's arrive besides).
  auto count = [&](const std::string &needle) {
    return tilec::testing::occurrences(program->ptx, needle);
  };
  if (plan.threadsPerRow > 32) {
    EXPECT_EQ(count("bar.sync"), pair ? 1u : 2u);
  }
  if (cluster) {
    EXPECT_EQ(count("barrier.cluster.arrive"), pair ? 2u : 3u);
  }

  TILEC_REQUIRE_GPU(ctx);
  auto exe = Executable::compile(g, ctx, options);
  ASSERT_TRUE(exe.ok()) << exe.message();
  uint64_t seed = tilec::testing::freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const Node &n = g.node(g.inputs()[i]);
    inputs.push_back(n.shape.size() == 1
                         ? HostTensor::random(n.shape, n.dtype, seed + i, 0.5f, 1.5f)
                         : welfordStressInput(c.rows, c.cols, c.dtype, seed + i));
  }
  auto stream = rt::Stream::create(ctx);
  ASSERT_TRUE(stream.ok()) << stream.message();
  auto got = (*exe)->runOnHost(inputs, **stream);
  ASSERT_TRUE(got.ok()) << got.message();
  HostTensor ref = evaluateReference(g, inputs)[0];
  // f32: the reference rounds the mean of 1000 + x to f32 (half an ulp,
  // 3e-5 of the deviation's scale), both paths round about as much (the
  // two-round path measured 1.03e-4 on a streamed 5 x 100003); the
  // variance from E[x^2] - E[x]^2 would be off by tens of percent.
  EXPECT_LT(relativeError((*got)[0], ref), c.dtype == DType::F32 ? 3e-4 : 2e-2);
  int64_t nans = 0;
  for (float v : (*got)[0].values)
    nans += v != v;
  EXPECT_EQ(nans, 0) << "unwritten or NaN elements (0 / 0 in a combine?)";
}

std::vector<WelfordCase> welfordCases() {
  using S = WelfordCase;
  std::vector<WelfordCase> cases;
  for (DType dtype : {DType::F32, DType::BF16}) {
    // One row within a warp (threads_per_row <= 32): rows sharing a warp,
    // single and three columns (one thread a row), 1000 columns (64
    // threads in f32, 32 in bf16).
    cases.push_back({dtype, 37, 96, "", S::Warp});
    cases.push_back({dtype, 4096, 256, "", S::Warp});
    cases.push_back({dtype, 9, 1, "", S::Warp});
    cases.push_back({dtype, 7, 3, "", S::Warp});
    cases.push_back({dtype, 3, 1000, "", dtype == DType::F32 ? S::Warps : S::Warp});
    // Over several warps: many rows, and an odd width with scalar accesses
    // (dynamic counts, 9 chunks a thread).
    cases.push_back({dtype, 64, 4096, "", S::Warps});
    cases.push_back({dtype, 5, 4097, "row-cluster-max=1", S::Warps});
    // Streamed: one CTA a row (clusters off), an odd width with a partial
    // last block.
    cases.push_back({dtype, 16, 131072, "row-cluster-max=1", S::Streamed});
    cases.push_back({dtype, 64, 262144, "row-cluster-max=1", S::Streamed});
    cases.push_back({dtype, 5, 100003, "row-cluster-max=1", S::Streamed});
    // Split over clusters of 8 in registers, of 4 with scalar accesses
    // (the last CTA's slice partly past the row), and of 2 whose CTAs
    // stream their slices.
    cases.push_back({dtype, 16, 65536, "", S::Cluster});
    cases.push_back({dtype, 5, 4097, "", S::Cluster});
    cases.push_back({dtype, 64, 262144, "", S::ClusterStreamed});
  }
  return cases;
}

std::string welfordCaseName(const ::testing::TestParamInfo<std::tuple<WelfordCase, bool>> &info) {
  const auto &[c, pair] = info.param;
  static const char *schedules[] = {"warp", "warps", "streamed", "cluster", "cluster_streamed"};
  return std::string(dtypeName(c.dtype)) + "_" + std::to_string(c.rows) + "x" +
         std::to_string(c.cols) + "_" + schedules[c.schedule] + (pair ? "_welford" : "_two_rounds");
}

INSTANTIATE_TEST_SUITE_P(LayerNorm, GpuWelfordTest,
                         ::testing::Combine(::testing::ValuesIn(welfordCases()),
                                            ::testing::Bool()),
                         welfordCaseName);

// row-scalars=auto (tilec-fold-row-scalars), alone and with
// readonly-inputs=true (ld.global.nc), on every row schedule: layer_norm on
// the Welford stress rows (large means: the re-associated x r - m r is
// where the fold could lose bits) and softmax on logits up to 90 (exp2(x L
// - m L)). 16-bit results must be within one unit in the last place of the
// reference's (2^-7 |ref| for bf16, 2^-10 for f16) plus 1e-4 of the
// output's largest value, element by element; f32 results (only the
// division folds) keep the usual bounds.
TEST(GpuScheduleTest, RowScalarsFoldedUnderFastMath) {
  struct Case {
    const char *op;
    DType dtype;
    int64_t rows, cols;
    const char *options;
  };
  std::vector<Case> cases;
  for (DType dtype : {DType::BF16, DType::F16, DType::F32})
    for (const char *op : {"layer_norm", "softmax"}) {
      cases.push_back({op, dtype, 37, 96, ""});                         // rows within a warp
      cases.push_back({op, dtype, 4097, 8192, ""});                     // rows over a CTA
      cases.push_back({op, dtype, 16, 65536, ""});                      // split over a cluster
      cases.push_back({op, dtype, 5, 100003, "row-cluster-max=1"});     // streamed
    }
  for (const char *extra : {"", " readonly-inputs=true"})
    for (const Case &c : cases) {
      std::string schedule = std::string("row-scalars=auto ") + c.options + extra;
      SCOPED_TRACE(schedule + ": " + c.op + " " + dtypeName(c.dtype) + " " +
                   std::to_string(c.rows) + "x" + std::to_string(c.cols));
      Graph g(c.op);
      ASSERT_TRUE(examples::build(c.op, g, c.rows, c.cols, c.dtype).ok());
      CompileOptions options;
      options.scheduleOptions = schedule;
      TILEC_REQUIRE_GPU(ctx);
      auto exe = Executable::compile(g, ctx, options);
      ASSERT_TRUE(exe.ok()) << exe.message();
      bool folded = c.dtype != DType::F32;
      const std::string &ptx = (*exe)->program().ptx;
      if (std::string(c.op) == "softmax") {
        EXPECT_EQ(ptx.find("div.approx.f32"), std::string::npos);
      }
      if (folded && std::string(c.op) == "layer_norm") {
        EXPECT_EQ(ptx.find("sub.f32"), std::string::npos);
      }
      if (*extra) {
        EXPECT_NE(ptx.find("ld.global.nc"), std::string::npos);
      }
      uint64_t seed = tilec::testing::freshSeed();
      SCOPED_TRACE("seed " + std::to_string(seed));
      std::vector<HostTensor> inputs;
      for (size_t i = 0; i < g.inputs().size(); ++i) {
        const Node &n = g.node(g.inputs()[i]);
        if (n.shape.size() == 1) {
          inputs.push_back(HostTensor::random(n.shape, n.dtype, seed + i, 0.5f, 1.5f));
        } else if (std::string(c.op) == "layer_norm") {
          inputs.push_back(welfordStressInput(c.rows, c.cols, c.dtype, seed + i));
        } else {
          HostTensor x = HostTensor::random(n.shape, n.dtype, seed + i, -30.0f, 30.0f);
          for (int64_t r = 0; r < c.rows; ++r)
            for (int64_t k = 0; k < c.cols; ++k) {
              float &v = x.values[r * c.cols + k];
              v = roundTo(c.dtype, v + (r % 2 ? 60.0f : 0.0f));
            }
          inputs.push_back(std::move(x));
        }
      }
      auto stream = rt::Stream::create(ctx);
      ASSERT_TRUE(stream.ok()) << stream.message();
      auto got = (*exe)->runOnHost(inputs, **stream);
      ASSERT_TRUE(got.ok()) << got.message();
      HostTensor ref = evaluateReference(g, inputs)[0];
      const std::vector<float> &v = (*got)[0].values;
      if (!folded) {
        EXPECT_LT(relativeError((*got)[0], ref),
                  std::string(c.op) == "layer_norm" ? 3e-4 : 1e-5);
        continue;
      }
      double ulp = c.dtype == DType::BF16 ? 1.0 / 128 : 1.0 / 1024, largest = 0;
      for (float r : ref.values)
        largest = std::max(largest, std::fabs(static_cast<double>(r)));
      int64_t off = 0, first = -1;
      for (size_t i = 0; i < v.size(); ++i) {
        double r = ref.values[i];
        if (!(std::fabs(v[i] - r) <= ulp * std::fabs(r) + 1e-4 * largest)) {
          if (first < 0)
            first = static_cast<int64_t>(i);
          ++off;
        }
      }
      EXPECT_EQ(off, 0) << "first at " << first << ": got "
                        << (first >= 0 ? v[first] : 0.0f) << ", reference "
                        << (first >= 0 ? ref.values[first] : 0.0f);
    }
}

// The CTAs of a cluster combine the Welford pair in one order too: each
// stores its columns of the broadcast variance, and all of a row's columns
// must be bitwise equal (and two runs give the same bits).
TEST(GpuScheduleTest, ClusterCtasAgreeBitwiseOnTheWelfordPair) {
  const int64_t rows = 16, cols = 65536;
  Graph g("variance_broadcast");
  Tensor x = g.input("x", {rows, cols}, DType::F32);
  Tensor d = x - mean(x, -1);
  g.output(broadcast_to(mean(d * d, -1), {rows, cols}));
  auto program = compileGraph(g);
  ASSERT_TRUE(program.ok()) << program.message();
  ASSERT_EQ(program->launches.size(), 1u);
  ASSERT_EQ(program->launches[0].clusterM, 6);
  // One exchange (the pair) and the exit barrier: two arrives.
  EXPECT_EQ(tilec::testing::occurrences(program->ptx, "barrier.cluster.arrive"), 2u);
  TILEC_REQUIRE_GPU(ctx);
  auto exe = Executable::compile(g, ctx);
  ASSERT_TRUE(exe.ok()) << exe.message();
  uint64_t seed = tilec::testing::freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<HostTensor> inputs{welfordStressInput(rows, cols, DType::F32, seed)};
  auto stream = rt::Stream::create(ctx);
  ASSERT_TRUE(stream.ok()) << stream.message();
  auto first = (*exe)->runOnHost(inputs, **stream);
  auto second = (*exe)->runOnHost(inputs, **stream);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_LT(relativeError((*first)[0], evaluateReference(g, inputs)[0]), 1e-4);
  const std::vector<float> &v = (*first)[0].values;
  expectColumnsAgreeBitwise(v, rows, cols);
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

// Many rows of 65537-131072 columns without a weight (softmax over 128k
// logits) are split over clusters (f32: 4 CTAs of 512; bf16: 8 CTAs of 256)
// whose slices stay in registers: full and masked widths (100000: the last
// CTA's slice ends mid-chunk), rows past one wave of clusters.
TEST(GpuScheduleTest, ManyWideRowsSplitOverClusters) {
  struct Case {
    DType dtype;
    int64_t rows, cols;
  };
  for (Case c : {Case{DType::BF16, 200, 131072}, Case{DType::F32, 200, 131072},
                 Case{DType::BF16, 150, 100000}, Case{DType::F32, 150, 100000}}) {
    SCOPED_TRACE(std::string(dtypeName(c.dtype)) + " " + std::to_string(c.rows) + "x" +
                 std::to_string(c.cols));
    Graph g("softmax");
    ASSERT_TRUE(examples::build("softmax", g, c.rows, c.cols, c.dtype).ok());
    auto program = compileGraph(g, {});
    ASSERT_TRUE(program.ok()) << program.message();
    EXPECT_EQ(program->launches[0].clusterM, c.dtype == DType::F32 ? 4 : 8);
    EXPECT_EQ(program->launches[0].streamBlocks, 0);
    expectMatchesReference(g, c.dtype == DType::F32 ? 1e-5 : 2e-2, 1);
  }
}

// row-cluster=16: clusters past the portable 8 CTAs launch (the
// Executable opts the kernel in) and combine their reductions across 16
// CTAs: softmax (the online pair) and rms_norm, bf16 and f32, against the
// reference.
TEST(GpuScheduleTest, NonPortableClustersOfSixteen) {
  CompileOptions options;
  options.scheduleOptions = "row-cluster=16 max-threads-per-block=128";
  for (const char *op : {"softmax", "rms_norm"})
    for (DType dtype : {DType::BF16, DType::F32}) {
      SCOPED_TRACE(std::string(op) + " " + dtypeName(dtype));
      Graph g(op);
      ASSERT_TRUE(examples::build(op, g, 40, 131072, dtype).ok());
      auto program = compileGraph(g, options);
      ASSERT_TRUE(program.ok()) << program.message();
      EXPECT_EQ(program->launches[0].clusterM, 16);
      expectMatchesReference(g, dtype == DType::F32 ? 1e-5 : 2e-2, 1, options);
    }
}

// A graph with a symbolic token count runs at every count it is given:
// Executable::compileFor binds the count from the input shapes, and the
// reference evaluator binds it the same way (add_rms_norm, bf16; 1, 7 and
// 300 tokens, and 7 again from the caches).
TEST(GpuRuntimeTest, SymbolicTokensRunAtEveryCount) {
  TILEC_REQUIRE_GPU(ctx);
  Graph g("add_rms_norm");
  ASSERT_TRUE(examples::build("add_rms_norm", g, symbolDim("tokens"), 4096, DType::BF16).ok());
  auto stream = rt::Stream::create(ctx);
  ASSERT_TRUE(stream.ok()) << stream.message();
  uint64_t seed = tilec::testing::freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int64_t tokens : {1, 7, 300, 7}) {
    SCOPED_TRACE(tokens);
    std::vector<HostTensor> inputs = {
        HostTensor::random({tokens, 4096}, DType::BF16, seed + tokens, -3.0f, 3.0f),
        HostTensor::random({tokens, 4096}, DType::BF16, seed + tokens + 1, -3.0f, 3.0f),
        HostTensor::random({4096}, DType::BF16, seed + 2, 0.5f, 1.5f)};
    std::vector<Shape> shapes;
    for (const HostTensor &t : inputs)
      shapes.push_back(t.shape);
    auto exe = Executable::compileFor(g, shapes, ctx);
    ASSERT_TRUE(exe.ok()) << exe.message();
    auto got = (*exe)->runOnHost(inputs, **stream);
    ASSERT_TRUE(got.ok()) << got.message();
    std::vector<HostTensor> ref = evaluateReference(g, inputs);
    ASSERT_EQ(got->size(), ref.size());
    for (size_t i = 0; i < ref.size(); ++i) {
      EXPECT_EQ((*got)[i].shape, ref[i].shape);
      EXPECT_LT(relativeError((*got)[i], ref[i]), 2e-2) << "output " << i;
    }
  }
}

// Reshapes are views between kernels: heads merged into rows for a norm and
// split again on the way out, a reshaped input read in place, and a
// reshaped product; and reshapes that keep the last dim, fused into a norm's
// kernel (bf16 and f32, against the reference).
TEST(GpuRuntimeTest, ReshapesAreViewsBetweenKernels) {
  for (DType dtype : {DType::BF16, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Graph g("heads");
    Tensor x = g.input("x", {37, 8, 64}, dtype);
    Tensor w = g.input("w", {512}, dtype);
    Tensor rows = reshape(silu(x), {37, 512});
    g.output(reshape(nn::rms_norm(rows, w), {37, 8, 64}));
    Tensor flat = g.input("flat", {37, 2, 256}, dtype);
    g.output(nn::softmax(reshape(flat, {37, 512})));
    Tensor proj = g.input("proj", {512, 64}, dtype);
    g.output(reshape(matmul(rows, proj), {37 * 64}));
    // Keeping the last dim, a reshape joins the kernel (one for this norm).
    Tensor w64 = g.input("w64", {64}, dtype);
    g.output(reshape(nn::rms_norm(reshape(silu(x), {37 * 8, 64}), w64), {37, 8, 64}));
    expectMatchesReference(g, dtype == DType::F32 ? 1e-5 : 2e-2);
  }
}

// Transposes folded into matmul operands and views (tilec-fold-transposes):
// attention's scores written q @ transpose(k), a transposed lhs, and one
// token's heads swapped into a norm; swaps of row dims whose rows the
// consumers' row kernels gather; and swaps of the last dim (kernels of
// strided rows); against the reference.
TEST(GpuRuntimeTest, TransposesFoldedIntoMatmulsAndViews) {
  for (DType dtype : {DType::BF16, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Graph g("transposes");
    Tensor q = g.input("q", {4, 16, 64}, dtype), k = g.input("k", {4, 72, 64}, dtype);
    g.output(matmul(q, transpose(k, -1, -2), DType::F32));
    Tensor x = g.input("x", {64, 40}, dtype), w = g.input("w", {64, 48}, dtype);
    g.output(matmul(transpose(x, 0, 1), w));
    Tensor one = g.input("one", {1, 8, 64}, dtype);
    g.output(nn::rms_norm(transpose(one, 0, 1), g.input("w64", {64}, dtype)));
    // Row dims swapped: rows gathered by the consumer's row kernel, from an
    // input and from a computed value, and a lone one (a row copy).
    Tensor heads = g.input("heads", {7, 12, 64}, dtype);
    g.output(nn::softmax(transpose(heads, 0, 1)));
    Tensor four = g.input("four", {3, 4, 5, 40}, dtype);
    g.output(-transpose(silu(four), 0, 2));
    g.output(transpose(four, 1, 2));
    // Swaps of the last dim: kernels of strided rows (a 4-D swap with dims
    // between, and a 2-D one whose rows of 200 are streamed), one feeding
    // a softmax. (LastDimTransposesThroughTilesAreExact: the tiles.)
    g.output(transpose(four, 1, 3));
    g.output(transpose(g.input("wide", {200, 33}, dtype), 0, 1));
    g.output(nn::softmax(transpose(heads, 1, 2)));
    // (Compiled here without a GPU too: two GEMMs, the norm, the softmax,
    // the silu with the row copy (siblings of as many rows of as many
    // columns: one kernel since the thirty-fifth session), the neg, three
    // last-dim transposes and the second softmax.)
    auto program = compileGraph(g);
    ASSERT_TRUE(program.ok()) << program.message();
    EXPECT_EQ(program->launches.size(), 10u) << explainFusion(*program);
    expectMatchesReference(g, dtype == DType::F32 ? 1e-5 : 2e-2, 10);
  }
}

// A slice along a row dim of a computed value: its producer (silu) is a
// kernel of its own, and the norm's kernel gathers four of the twelve
// heads. Against the reference; every element written. (Slices of
// inputs: GpuSliceTest, SliceGraphs.h.)
TEST(GpuRuntimeTest, SlicesAlongRowDimsGatherRows) {
  for (DType dtype : {DType::BF16, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Graph g("row_slices");
    Tensor q = g.input("q", {4, 32, 12, 128}, dtype);
    g.output(nn::rms_norm(slice(silu(q), 2, 4, 8), g.input("w", {128}, dtype)));
    expectMatchesReference(g, dtype == DType::F32 ? 1e-5 : 2e-2, 2);
  }
}

// Concatenations along row dims of computed values: the pieces' producers
// are kernels of their own, and the consumer's kernel reads each row from
// the piece that holds it: new keys (silu of a projection's output) after
// the cached ones along the sequence dim, rms_norm'd; and three pieces
// along the heads dim, one of them computed, into a softmax. (Of inputs
// alone: GpuSliceTest, SliceGraphs.h.)
TEST(GpuRuntimeTest, ConcatenationsAlongRowDimsGatherRows) {
  for (DType dtype : {DType::BF16, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    double tol = dtype == DType::F32 ? 1e-5 : 2e-2;
    Graph g("kv_append");
    Tensor cache = g.input("cache", {2, 8, 100, 128}, dtype);
    Tensor k = silu(g.input("k", {2, 8, 1, 128}, dtype));
    g.output(nn::rms_norm(concat({cache, k}, 2), g.input("w", {128}, dtype)));
    expectMatchesReference(g, tol, 2);
    Graph h("heads");
    Tensor a = h.input("a", {5, 3, 200}, dtype), b = h.input("b", {5, 2, 200}, dtype);
    h.output(nn::softmax(concat({a, exp(b), a}, 1)));
    expectMatchesReference(h, tol, 2);
  }
}

// Differential testing: random graphs (RandomGraphs.h: chains of the DSL's
// ops on random shapes and dtypes, fresh seeds each run, printed on
// failure) on fresh random inputs, each compiled twice:
// - rounding every op's result (roundEveryOp), as the reference evaluator
//   does: against the reference, relative (norm) error under 1e-4 for
//   graphs of f32 only, 2e-2 where 16-bit values round (the GPU's
//   approximate exp, rsqrt and division flip some roundings);
// - with the default rounding (f32 inside a kernel): against the CPU
//   interpreter of the same tile program in the same rounding
//   (TileInterpreter.h; FuzzTest checks it against the reference), so that
//   what is checked is the distribution over threads, not how the
//   reference's extra roundings move a value (log(1 + x^2) of a tiny x is
//   0 in f16 there): 1e-4 and 5e-2.
// Graphs the compiler refuses with a message (FuzzTest checks those) are
// counted, not run; most must run. Every output element must be written
// (runOnHost poisons outputs with NaN). (graphError: the norm of what is
// compared with taken as at least 1e-3 or 1e-2 a value.)
TEST(GpuFuzzTest, RandomGraphsMatchTheReference) {
  TILEC_REQUIRE_GPU(ctx);
  auto stream = rt::Stream::create(ctx);
  ASSERT_TRUE(stream.ok()) << stream.message();
  const char *env = std::getenv("TILEC_GPU_FUZZ_GRAPHS");
  int graphs = env && std::atoi(env) > 0 ? std::atoi(env) : 100;
  int ran = 0, refused = 0;
  for (int i = 0; i < graphs; ++i) {
    uint64_t seed = tilec::testing::freshSeed();
    Graph g("fuzz");
    std::string ops = testgraphs::RandomGraphBuilder(seed).build(g);
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + ops);
    std::vector<HostTensor> inputs = tiletest::randomInputs(g, seed + 1);
    bool compiled = true;
    for (bool exact : {true, false}) {
      SCOPED_TRACE(exact ? "rounding every op, against the reference"
                         : "default rounding, against the tile-stage interpreter");
      CompileOptions options;
      options.roundEveryOp = exact;
      auto exe = Executable::compile(g, ctx, options);
      if (!exe.ok()) {
        EXPECT_EQ(exe.message().find("internal error"), std::string::npos) << exe.message();
        compiled = false;
        break;
      }
      auto got = (*exe)->runOnHost(inputs, **stream);
      ASSERT_TRUE(got.ok()) << got.message();
      std::vector<HostTensor> expected;
      if (exact) {
        expected = evaluateReference(g, inputs);
      } else {
        auto interpreted = tiletest::runAtTileStage(g, inputs, options);
        ASSERT_TRUE(interpreted.ok()) << interpreted.message();
        expected = interpreted.take();
      }
      ASSERT_EQ(got->size(), expected.size());
      testgraphs::GraphTolerance tol = testgraphs::toleranceFor(g);
      double bound = exact && tol.error > 1e-3 ? 2e-2 : tol.error;
      for (size_t j = 0; j < expected.size(); ++j)
        EXPECT_LT(testgraphs::graphError((*got)[j], expected[j], tol.floor), bound)
            << "output " << j;
    }
    (compiled ? ran : refused) += 1;
  }
  std::printf("random graphs: %d run against the reference and the interpreter, %d refused\n",
              ran, refused);
  EXPECT_GE(ran, graphs * 8 / 10);
}

// Transposes returned as they are that would fold into an input or a view
// of one (a swap that moves no element, a transpose of a transpose) are
// copies, each element written (runOnHost poisons outputs with NaN).
TEST(GpuRuntimeTest, ReturnedTransposesOfInputsAreCopies) {
  for (DType dtype : {DType::BF16, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Graph g("returned_views");
    g.output(transpose(g.input("x", {1, 32, 128}, dtype), 0, 1));
    g.output(transpose(transpose(g.input("y", {3, 5}, dtype), 0, 1), 0, 1));
    g.output(transpose(exp(g.input("z", {1, 7}, dtype)), 0, 1));
    expectMatchesReference(g, dtype == DType::F32 ? 1e-6 : 1e-2, 4);
  }
}

// Outputs no kernel writes are device copies after the kernels: an input
// returned as is and through a reshape, a kernel's result returned three
// times (once through a reshape), and a graph of copies alone (no kernel,
// no module). runOnHost poisons every output with NaN first.
TEST(GpuRuntimeTest, OutputsNoKernelWritesAreCopies) {
  for (DType dtype : {DType::BF16, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Graph g("copies");
    Tensor x = g.input("x", {37, 200}, dtype);
    Tensor y = nn::softmax(x);
    g.output(reshape(y, {200, 37}));
    g.output(x);
    g.output(y);
    g.output(reshape(x, {7400}));
    g.output(y);
    expectMatchesReference(g, dtype == DType::F32 ? 1e-5 : 1e-2, 1);
    Graph id("identity");
    Tensor z = id.input("z", {3, 1000}, dtype);
    id.output(z);
    id.output(reshape(z, {1000, 3}));
    expectMatchesReference(id, 1e-7, 0);
  }
}

// update_slice writes its update into the buffer of its input: with the
// input's buffer passed as the output too (donated), the run updates it in
// place and leaves every other row as it was (checked bitwise against the
// input); with an output of its own (runOnHost: poisoned with NaN), the run
// copies the input there first. Both against the reference on fresh random
// data: keys (rope'd, moved heads first) and values appended to two caches
// at a past of 300, bf16 and f32.
TEST(GpuRuntimeTest, UpdatesInPlaceTouchOnlyTheirRows) {
  for (DType dtype : {DType::BF16, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    const int64_t tokens = 5, heads = 4, past = 300, keys = 320, dim = 128;
    Graph g("append");
    Tensor k = nn::rope(g.input("k", {tokens, heads, dim}, dtype),
                        g.input("cos", {tokens, 1, dim}, dtype), g.input("sin", {tokens, 1, dim}, dtype));
    Tensor v = g.input("v", {tokens, heads, dim}, dtype);
    g.output(update_slice(g.input("k_cache", {heads, keys, dim}, dtype), transpose(k, 0, 1), 1, past));
    g.output(update_slice(g.input("v_cache", {heads, keys, dim}, dtype), transpose(v, 0, 1), 1, past));
    double tolerance = dtype == DType::F32 ? 1e-5 : 1e-2;
    expectMatchesReference(g, tolerance, 1); // (rope, and both caches' stores)

    TILEC_REQUIRE_GPU(ctx);
    auto exe = Executable::compile(g, ctx);
    ASSERT_TRUE(exe.ok()) << exe.message();
    uint64_t seed = tilec::testing::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::vector<HostTensor> inputs;
    std::vector<rt::DeviceBuffer> buffers;
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      const Node &n = g.node(g.inputs()[i]);
      inputs.push_back(HostTensor::random(n.shape, n.dtype, seed + i, -2.f, 2.f));
      auto b = rt::DeviceBuffer::allocate(ctx, inputs.back().byteSize());
      ASSERT_TRUE(b.ok()) << b.message();
      std::vector<uint8_t> bytes = inputs.back().toBytes();
      ASSERT_TRUE(b->copyFromHost(bytes.data(), bytes.size()).ok());
      buffers.push_back(b.take());
    }
    std::vector<const rt::DeviceBuffer *> in;
    for (auto &b : buffers)
      in.push_back(&b);
    // Inputs: k, cos, sin, v, k_cache (4), v_cache (5).
    std::vector<rt::DeviceBuffer *> out{&buffers[4], &buffers[5]};
    auto stream = rt::Stream::create(ctx);
    ASSERT_TRUE(stream.ok()) << stream.message();
    ASSERT_TRUE((*exe)->run(in, out, **stream).ok());
    ASSERT_TRUE((*stream)->synchronize().ok());
    std::vector<HostTensor> ref = evaluateReference(g, inputs);
    for (int o = 0; o < 2; ++o) {
      std::vector<uint8_t> bytes(buffers[4 + o].size());
      ASSERT_TRUE(buffers[4 + o].copyToHost(bytes.data(), bytes.size()).ok());
      HostTensor got = HostTensor::fromBytes({heads, keys, dim}, dtype, bytes.data());
      EXPECT_LT(relativeError(got, ref[o]), tolerance) << "output " << o;
      const HostTensor &before = inputs[4 + o];
      int64_t changed = 0, kept = 0;
      for (int64_t i = 0; i < numElements(got.shape); ++i) {
        int64_t row = i / dim % keys;
        bool updated = row >= past && row < past + tokens;
        if (!updated)
          changed += got.values[i] != before.values[i];
        else
          kept += got.values[i] == before.values[i];
      }
      EXPECT_EQ(changed, 0) << "output " << o << ": rows outside the update changed";
      EXPECT_LT(kept, heads * tokens * dim / 100) << "output " << o << ": rows not written";
    }
  }
}

// Swaps of the last dim through shared-memory tiles (the default: 16-byte
// blocks where K and L allow, else 32-bit words; words forced by
// transpose-tile-bytes=4 too), bitwise equal to the reference on fresh
// random data: whole tiles, tiles
// cut short along K, L or both, slabs (dims before and between the two),
// each 16-bit type and f32; and the strided rows kept where a 16-bit dim
// is odd, and with transpose-tiles=false. runOnHost poisons outputs with NaN, so an
// element no CTA writes fails too.
TEST(GpuRuntimeTest, LastDimTransposesThroughTilesAreExact) {
  struct Case {
    DType dtype;
    Shape shape;
    int64_t dim0, dim1;
    const char *options;
    bool tiles;
  };
  const char *tiles = "", *words = "transpose-tile-bytes=4";
  for (const Case &c : {Case{DType::BF16, {1024, 4096}, 0, 1, tiles, true},
                        Case{DType::BF16, {1024, 4096}, 0, 1, words, true},
                        Case{DType::F16, {136, 72}, 0, 1, tiles, true},
                        Case{DType::F32, {3, 72, 5, 200}, 1, 3, tiles, true},
                        Case{DType::F32, {2048, 1000}, 0, 1, words, true},
                        Case{DType::F32, {2048, 1000}, 0, 1, tiles, true},
                        Case{DType::F16, {130, 66}, 0, 1, tiles, true},
                        Case{DType::F32, {33, 65}, 0, 1, tiles, true},
                        Case{DType::BF16, {3, 70, 5, 200}, 1, 3, tiles, true},
                        Case{DType::F32, {2, 8, 3, 4, 100}, 1, 4, tiles, true},
                        Case{DType::BF16, {8, 64, 128}, 0, 2, tiles, true},
                        Case{DType::BF16, {64, 33}, 0, 1, tiles, false},
                        Case{DType::BF16, {300, 200}, 0, 1, "transpose-tiles=false", false}}) {
    SCOPED_TRACE(std::string(dtypeName(c.dtype)) + " " + shapeString(c.shape) + " " +
                 std::to_string(c.dim0) + "<->" + std::to_string(c.dim1) + " " + c.options);
    Graph g("transpose");
    g.output(transpose(g.input("x", c.shape, c.dtype), c.dim0, c.dim1));
    TILEC_REQUIRE_GPU(ctx);
    CompileOptions options;
    options.scheduleOptions = c.options;
    auto exe = Executable::compile(g, ctx, options);
    ASSERT_TRUE(exe.ok()) << exe.message();
    ASSERT_EQ((*exe)->program().launches.size(), 1u);
    EXPECT_EQ((*exe)->program().launches[0].transposeTileK > 0, c.tiles);
    uint64_t seed = tilec::testing::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::vector<HostTensor> inputs{HostTensor::random(c.shape, c.dtype, seed, -3.0f, 3.0f)};
    auto stream = rt::Stream::create(ctx);
    ASSERT_TRUE(stream.ok()) << stream.message();
    auto got = (*exe)->runOnHost(inputs, **stream);
    ASSERT_TRUE(got.ok()) << got.message();
    std::vector<HostTensor> ref = evaluateReference(g, inputs);
    ASSERT_EQ(got->size(), 1u);
    ASSERT_EQ((*got)[0].shape, ref[0].shape);
    int64_t wrong = 0, first = -1;
    for (size_t i = 0; i < ref[0].values.size(); ++i)
      if (!((*got)[0].values[i] == ref[0].values[i])) {
        wrong += 1;
        if (first < 0)
          first = static_cast<int64_t>(i);
      }
    EXPECT_EQ(wrong, 0) << "first at " << first;
  }
}

// An output in an input's buffer (rope in place would read columns other
// threads already wrote) or two outputs in one buffer are refused before
// any launch; distinct buffers run.
TEST(GpuRuntimeTest, RefusesOutputsInInputBuffers) {
  TILEC_REQUIRE_GPU(ctx);
  Graph g("add_rms_norm");
  ASSERT_TRUE(examples::build("add_rms_norm", g, 4, 64, DType::F32).ok());
  auto exe = Executable::compile(g, ctx);
  ASSERT_TRUE(exe.ok()) << exe.message();
  auto stream = rt::Stream::create(ctx);
  ASSERT_TRUE(stream.ok());
  std::vector<rt::DeviceBuffer> b;
  for (int i = 0; i < 5; ++i) {
    auto buffer = rt::DeviceBuffer::allocate(ctx, 4 * 64 * 4);
    ASSERT_TRUE(buffer.ok()) << buffer.status().message();
    ASSERT_TRUE(buffer->fill(0).ok());
    b.push_back(std::move(*buffer));
  }
  // Inputs x, residual, weight; outputs the norm and x + residual.
  Status inPlace = (*exe)->run({&b[0], &b[1], &b[2]}, {&b[3], &b[1]}, **stream);
  ASSERT_FALSE(inPlace.ok());
  EXPECT_NE(inPlace.message().find("output 1 of graph 'add_rms_norm' is in the buffer of input 1"),
            std::string::npos)
      << inPlace.message();
  Status shared = (*exe)->run({&b[0], &b[1], &b[2]}, {&b[3], &b[3]}, **stream);
  ASSERT_FALSE(shared.ok());
  EXPECT_NE(shared.message().find("outputs 0 and 1 of graph 'add_rms_norm' share one buffer"),
            std::string::npos)
      << shared.message();
  // The same buffer as two inputs is fine (read only).
  EXPECT_TRUE((*exe)->run({&b[0], &b[0], &b[2]}, {&b[3], &b[4]}, **stream).ok());
  EXPECT_TRUE((*stream)->synchronize().ok());
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

// A kernel that faults (a store through a null pointer) poisons the
// context for good: the error says so, at the synchronize that reports the
// fault and at every later call. Run in a fresh process (a death test in
// the re-executing style: a forked child cannot use CUDA), so that the
// rest of this binary keeps a working context.
TEST(GpuRuntimeTest, KernelFaultSaysTheContextIsLost) {
  TILEC_REQUIRE_GPU(ctx);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto faultInChild = [] {
    std::string reason;
    auto c = ::tilec::testing::gpuContext(reason);
    if (!c)
      std::exit(2);
    auto m = rt::Module::loadPTX(c, ".version 8.0\n.target sm_90a\n.address_size 64\n"
                                    ".visible .entry poke(.param .u64 p) {\n"
                                    "  .reg .b64 %a; .reg .b32 %v;\n"
                                    "  ld.param.u64 %a, [p]; mov.b32 %v, 1;\n"
                                    "  st.global.u32 [%a], %v; ret; }\n");
    auto k = m.ok() ? m->kernel("poke") : Expected<rt::Kernel>(m.status());
    auto stream = rt::Stream::create(c);
    if (!k.ok() || !stream.ok())
      std::exit(3);
    rt::KernelArgs args;
    args.addPointer(0);
    if (!k->launch({1, 1, 1}, {1, 1, 1}, 0, **stream, args).ok())
      std::exit(4);
    Status fault = (*stream)->synchronize();
    Status later = rt::DeviceBuffer::allocate(c, 256).status();
    const char *lost = "cannot be used again in this process";
    bool ok = !fault.ok() && fault.message().find(lost) != std::string::npos &&
              !later.ok() && later.message().find(lost) != std::string::npos;
    std::fprintf(stderr, "fault: %s\nlater: %s\n", fault.message().c_str(),
                 later.message().c_str());
    std::exit(ok ? 0 : 1);
  };
  EXPECT_EXIT(faultInChild(), ::testing::ExitedWithCode(0), "fault: .*ILLEGAL_ADDRESS");
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
