// Compiler API tests: fusion decisions, launch plans, diagnostics, and PTX
// that ptxas assembles without spills (CPU only; no GPU needed).
#include "tilec/compiler/Compiler.h"
#include "tilec/compiler/Examples.h"
#include "tilec/compiler/Executable.h"

#include "../gpu/LinearGraphs.h"
#include "../gpu/SliceGraphs.h"
#include "TileInterpreter.h"
#include "tilec/Reference.h"
#include "Ptxas.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <regex>
#include <tuple>
#include <unistd.h>

using namespace tilec;
using namespace tilec::ptxtest;

namespace {

CompiledProgram compileExample(const std::string &name, int64_t rows, int64_t cols,
                               DType dtype, const std::string &target = "sm_90a",
                               const std::string &scheduleOptions = "",
                               bool fastMath = true) {
  Graph g(name);
  Status s = examples::build(name, g, rows, cols, dtype);
  EXPECT_TRUE(s.ok()) << s.message();
  CompileOptions options;
  options.target = target;
  options.scheduleOptions = scheduleOptions;
  options.fastMath = fastMath;
  auto p = compileGraph(g, options);
  EXPECT_TRUE(p.ok()) << p.message();
  return p.ok() ? *p : CompiledProgram{};
}

/// compileGraph's error for `g` under the schedule options `options` (""
/// when it compiles).
std::string scheduleOptionsError(const Graph &g, const std::string &options) {
  CompileOptions compileOptions;
  compileOptions.scheduleOptions = options;
  auto p = compileGraph(g, compileOptions);
  return p.ok() ? std::string() : p.message();
}

/// The same for rms_norm bf16 [8192, 4096].
std::string scheduleOptionsError(const std::string &options) {
  Graph g("bad");
  EXPECT_TRUE(examples::build("rms_norm", g, 8192, 4096, DType::BF16).ok());
  return scheduleOptionsError(g, options);
}

/// Interprets `g` at the tile stage on `inputs` and compares every output
/// with the reference evaluator's (relative error under `tolerance`).
void expectTileStageMatches(const Graph &g, const std::vector<HostTensor> &inputs,
                            double tolerance, const CompileOptions &options = {}) {
  auto got = tiletest::runAtTileStage(g, inputs, options);
  ASSERT_TRUE(got.ok()) << got.message();
  std::vector<HostTensor> ref = evaluateReference(g, inputs);
  ASSERT_EQ(got->size(), ref.size());
  for (size_t j = 0; j < ref.size(); ++j)
    EXPECT_LT(relativeError((*got)[j], ref[j]), tolerance) << "output " << j;
}

TEST(FusionTest, EveryLibraryOpBecomesOneKernel) {
  for (const std::string &name : examples::names()) {
    CompiledProgram p = compileExample(name, 64, 256, DType::BF16);
    EXPECT_EQ(p.launches.size(), 1u) << name;
    EXPECT_EQ(p.fusions.size(), 1u) << name;
    EXPECT_GT(p.graphOps, name == "matmul" || name == "matmul_nn" || name == "matmul_lhs_t" ||
                                  name == "transpose"
                              ? 0
                              : 1)
        << name;
  }
}

TEST(FusionTest, AddRmsNormIsOneKernelWithTwoOutputs) {
  CompiledProgram p = compileExample("add_rms_norm", 16, 512, DType::BF16);
  ASSERT_EQ(p.launches.size(), 1u);
  int outputs = 0;
  for (const KernelBuffer &b : p.launches[0].buffers)
    outputs += p.values[b.value].kind == ProgramValue::Kind::Output;
  EXPECT_EQ(outputs, 2);
  // x, residual, w in; normed and h out.
  EXPECT_EQ(p.launches[0].buffers.size(), 5u);
  EXPECT_EQ(p.launches[0].buffers[2].kind, KernelBuffer::Kind::SharedVector);
}

TEST(FusionTest, RopeIsOneKernelThatReadsEachInputOnce) {
  CompiledProgram p = compileExample("rope", 4, 256, DType::BF16);
  ASSERT_EQ(p.launches.size(), 1u);
  const KernelLaunchPlan &k = p.launches[0];
  EXPECT_EQ(k.rows, 8) << "rows are (token, head) pairs";
  ASSERT_EQ(k.buffers.size(), 4u); // x, cos, sin, out
  for (const KernelBuffer &b : k.buffers) {
    EXPECT_EQ(b.kind, KernelBuffer::Kind::Rows);
    EXPECT_EQ(b.cols, 128);
  }
  EXPECT_EQ(k.vectorWidth, 8) << "the half-row offset 64 keeps 16-byte vectors";
  // rotate_half reads x at +-64 columns: those chunks are already in the
  // thread's registers, so each of x, cos and sin is loaded once per chunk.
  size_t loads = 0;
  for (size_t at = p.ptx.find("ld.global"); at != std::string::npos;
       at = p.ptx.find("ld.global", at + 1))
    ++loads;
  EXPECT_EQ(loads, static_cast<size_t>(3 * k.chunks)) << p.ptx;
}

TEST(FusionTest, SixteenBitValuesAreRoundedAtStoresUnlessAskedPerOp) {
  auto roundings = [](bool perOp) {
    Graph g("chain");
    EXPECT_TRUE(examples::build("elementwise_chain", g, 64, 4096, DType::BF16).ok());
    CompileOptions options;
    options.roundEveryOp = perOp;
    auto p = compileGraph(g, options);
    EXPECT_TRUE(p.ok()) << p.message();
    size_t n = 0;
    for (size_t at = p->ptx.find("cvt.rn.bf16"); at != std::string::npos;
         at = p->ptx.find("cvt.rn.bf16", at + 1))
      ++n;
    return std::make_pair(n, p->launches[0]);
  };
  auto [atStores, plan] = roundings(false);
  // One packed conversion per two stored elements, nothing else.
  EXPECT_EQ(atStores, static_cast<size_t>(plan.chunks * plan.vectorWidth / 2));
  // Five ops each round their result (LLVM folds some f32-op-then-round
  // pairs into native bf16x2 arithmetic, so not 5x).
  EXPECT_GT(roundings(true).first, atStores);
}

// A slice along a row dim gathers rows in its consumers' row kernel: rows
// 2-4 of x through exp are one kernel of 3 rows (16-byte loads at the
// offset rows); of a computed value, the producer is a kernel of its own
// (GpuRuntimeTest.SlicesAlongRowDimsGatherRows runs it; one-kernel graphs
// are in SliceGraphs.h).
TEST(FusionTest, SliceAlongARowDimGathersRows) {
  Graph g("rows");
  Tensor x = g.input("x", {8, 64}, DType::F32);
  g.output(exp(slice(x, 0, 2, 5)));
  auto p = compileGraph(g);
  ASSERT_TRUE(p.ok()) << p.message();
  ASSERT_EQ(p->launches.size(), 1u);
  EXPECT_EQ(p->launches[0].rows, 3);
  EXPECT_NE(p->ptx.find("ld.global.v4"), std::string::npos);

  Graph h("heads");
  Tensor q = h.input("q", {4, 32, 12, 128}, DType::BF16);
  h.output(nn::rms_norm(slice(silu(q), 2, 4, 8), h.input("w", {128}, DType::BF16)));
  auto ph = compileGraph(h);
  ASSERT_TRUE(ph.ok()) << ph.message();
  ASSERT_EQ(ph->launches.size(), 2u);
  EXPECT_EQ(ph->launches[1].rows, 4 * 32 * 4);
  if (std::string ptxas = ptxasPath(); !ptxas.empty()) {
    expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
    expectAssemblesWithoutSpills(ptxas, ph->ptx, "sm_90a");
  }

}

// A concatenation along a row dim gathers rows too: its consumer's kernel
// runs over the concatenation's rows, each read by one load from the piece
// that holds it (piece and row selected by the row's digit at the axis).
// The KV-cache append: the new token's keys after the cached ones, along
// the sequence dim of [batch, heads, seq, 128], then rms_norm'd: two
// kernels (silu's, then the concatenation's consumer), no copy of the
// cache. GPU: GpuRuntimeTest.ConcatenationsAlongRowDimsGatherRows and
// GpuSliceTest.
TEST(FusionTest, ConcatAlongARowDimGathersRows) {
  Graph c("concat_rows");
  Tensor a = c.input("a", {8, 64}, DType::F32), b = c.input("b", {4, 64}, DType::F32);
  c.output(exp(concat({a, b, a}, 0)));
  auto pc = compileGraph(c);
  ASSERT_TRUE(pc.ok()) << pc.message();
  ASSERT_EQ(pc->launches.size(), 1u);
  EXPECT_EQ(pc->launches[0].rows, 20);
  // Three pieces, one load a vector: of the piece the row's digit selects.
  auto count = [](const std::string &text, const std::string &needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count(pc->ptx, "ld.global"), static_cast<size_t>(pc->launches[0].chunks)) << pc->ptx;
  EXPECT_EQ(count(pc->ptx, "selp.b64"), 4u) << pc->ptx; // (2 pieces past the first: row, pointer)

  Graph kv("kv_append");
  Tensor cache = kv.input("cache", {2, 8, 100, 128}, DType::BF16);
  Tensor k = silu(kv.input("k", {2, 8, 1, 128}, DType::BF16));
  kv.output(nn::rms_norm(concat({cache, k}, 2), kv.input("w", {128}, DType::BF16)));
  auto pk = compileGraph(kv);
  ASSERT_TRUE(pk.ok()) << pk.message();
  ASSERT_EQ(pk->launches.size(), 2u);
  EXPECT_EQ(pk->launches[1].rows, 2 * 8 * 101);
  // The concatenation's kernel reads the cache as it is (no copy kernel).
  EXPECT_EQ(pk->values[pk->launches[1].buffers[0].value].kind, ProgramValue::Kind::Input);
  // Three pieces along the heads dim, one computed, into a softmax.
  Graph h("heads");
  Tensor ha = h.input("a", {5, 3, 200}, DType::F32), hb = h.input("b", {5, 2, 200}, DType::F32);
  h.output(nn::softmax(concat({ha, exp(hb), ha}, 1)));
  auto ph = compileGraph(h);
  ASSERT_TRUE(ph.ok()) << ph.message();
  ASSERT_EQ(ph->launches.size(), 2u);
  EXPECT_EQ(ph->launches[1].rows, 5 * 8);
  if (std::string ptxas = ptxasPath(); !ptxas.empty()) {
    expectAssemblesWithoutSpills(ptxas, pc->ptx, "sm_90a");
    expectAssemblesWithoutSpills(ptxas, pk->ptx, "sm_90a");
    expectAssemblesWithoutSpills(ptxas, ph->ptx, "sm_90a");
  }
}

TEST(FusionTest, ExplainFusionNamesTheGroupAndTheBytesSaved) {
  CompiledProgram p = compileExample("rms_norm", 8192, 4096, DType::BF16);
  std::string text = explainFusion(p);
  EXPECT_NE(text.find("-> 1 kernel"), std::string::npos) << text;
  EXPECT_NE(text.find("rms_norm_kernel0"), std::string::npos) << text;
  EXPECT_NE(text.find("reduce_mean"), std::string::npos) << text;
  EXPECT_NE(text.find("schedule: 8192 CTAs of 512 threads, 512 threads a row"), std::string::npos)
      << text;
  ASSERT_EQ(p.fusions.size(), 1u);
  // Every f32 intermediate of [8192, 4096] stays on chip: far more than the
  // 128 MB the kernel itself must move.
  EXPECT_GT(p.fusions[0].hbmBytesSaved, 8192ll * 4096 * 4 * 4);
}

TEST(FusionTest, TwoIndependentRowDomainsGiveTwoKernels) {
  Graph g("two");
  Tensor a = g.input("a", {4, 64}, DType::F32);
  Tensor b = g.input("b", {8, 32}, DType::F32);
  g.output(exp(a));
  g.output(tanh(b));
  auto p = compileGraph(g);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->launches.size(), 2u);
}

// Sibling row kernels (FusionPlanner::mergeSiblingRowKernels): two kernels
// of one domain that do not read each other, without reductions, are one
// launch with both outputs; with a reduction, or reading the other's
// result through a gather, they stay two.
TEST(FusionTest, SiblingRowKernelsOfOneDomainAreOneLaunch) {
  {
    Graph g("siblings");
    Tensor a = g.input("a", {4, 64}, DType::BF16);
    Tensor b = g.input("b", {4, 64}, DType::F32);
    g.output(exp(a));
    g.output(tanh(b) * 2.0);
    auto p = compileGraph(g);
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_EQ(p->launches.size(), 1u) << explainFusion(*p);
  }
  {
    Graph g("reduction");
    Tensor a = g.input("a", {4, 64}, DType::F32);
    Tensor b = g.input("b", {4, 64}, DType::F32);
    g.output(exp(a));
    g.output(nn::softmax(b));
    auto p = compileGraph(g);
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_EQ(p->launches.size(), 2u) << explainFusion(*p);
  }
}

// GEMM fusion decisions, end to end (CPU only): kernel counts, launch plans.
TEST(GemmFusionTest, EpiloguesJoinTheProductProloguesAndReductionsDoNot) {
  struct Case {
    const char *name;
    size_t kernels;
    std::function<void(Graph &)> build;
  };
  std::vector<Case> cases = {
      {"linear_bias_gelu_residual", 1,
       [](Graph &g) {
         Tensor x = g.input("x", {96, 64}, DType::BF16), w = g.input("w", {80, 64}, DType::BF16);
         Tensor b = g.input("b", {80}, DType::BF16), r = g.input("r", {96, 80}, DType::BF16);
         g.output(gelu(nn::linear(x, w, b)) + r);
       }},
      {"swiglu", 1,
       [](Graph &g) {
         Tensor x = g.input("x", {96, 64}, DType::BF16);
         Tensor wg = g.input("wg", {128, 64}, DType::BF16), wu = g.input("wu", {128, 64}, DType::BF16);
         g.output(silu(nn::linear(x, wg)) * nn::linear(x, wu));
       }},
      {"norm_then_matmul", 2,
       [](Graph &g) {
         Tensor x = g.input("x", {96, 64}, DType::BF16), n = g.input("n", {64}, DType::BF16);
         Tensor w = g.input("w", {80, 64}, DType::BF16);
         g.output(nn::linear(nn::rms_norm(x, n), w));
       }},
      {"matmul_then_softmax", 2,
       [](Graph &g) {
         Tensor q = g.input("q", {64, 32}, DType::BF16), k = g.input("k", {48, 32}, DType::BF16);
         g.output(nn::softmax(matmul(q, k, false, true)));
       }},
      {"attention_shaped_batched", 3,
       [](Graph &g) { // softmax(Q K^T) V per head: two GEMMs and a softmax
         Tensor q = g.input("q", {4, 64, 32}, DType::BF16), k = g.input("k", {4, 48, 32}, DType::BF16);
         Tensor v = g.input("v", {4, 48, 32}, DType::BF16);
         g.output(matmul(nn::softmax(matmul(q, k, false, true) * 0.17), v));
       }},
  };
  for (const Case &c : cases) {
    Graph g(c.name);
    c.build(g);
    auto p = compileGraph(g);
    ASSERT_TRUE(p.ok()) << c.name << ": " << p.message();
    EXPECT_EQ(p->launches.size(), c.kernels) << c.name;
    for (const KernelLaunchPlan &plan : p->launches)
      if (plan.gemm) {
        EXPECT_GT(plan.sharedBytes, 0) << c.name;
        EXPECT_GT(plan.gridSize(), 0) << c.name;
        EXPECT_EQ(plan.blockSize() % 32, 0) << c.name;
      }
  }
}

TEST(FusionTest, InnerAxisReductionIsItsOwnStridedKernel) {
  // sum over axis 0 cannot join a row kernel: x*x is one kernel, the column
  // sum a strided-row kernel, with a temporary between them.
  Graph g("colsum");
  Tensor x = g.input("x", {16, 32}, DType::F32);
  g.output(sum(x * x, 0));
  auto p = compileGraph(g);
  ASSERT_TRUE(p.ok()) << p.message();
  ASSERT_EQ(p->launches.size(), 2u);
  int temporaries = 0;
  for (const ProgramValue &v : p->values)
    temporaries += v.kind == ProgramValue::Kind::Temporary;
  EXPECT_EQ(temporaries, 1);
  const KernelLaunchPlan &reduce = p->launches[1];
  ASSERT_EQ(reduce.buffers.size(), 2u);
  EXPECT_EQ(reduce.buffers[0].kind, KernelBuffer::Kind::StridedRows);
  EXPECT_EQ(reduce.buffers[0].dims, (std::vector<int64_t>{1, 16, 32}));
  EXPECT_EQ(reduce.rows, 32);
  EXPECT_EQ(reduce.threadsPerRow, 1);
}

TEST(PlanTest, ScheduleFollowsTheRowLength) {
  CompiledProgram wide = compileExample("rms_norm", 8192, 4096, DType::BF16);
  ASSERT_EQ(wide.launches.size(), 1u);
  const KernelLaunchPlan &w = wide.launches[0];
  EXPECT_EQ(w.vectorWidth, 8); // 16-byte bf16 vectors
  EXPECT_EQ(w.threadsPerRow * w.vectorWidth * w.chunks, 4096);
  EXPECT_EQ(w.gridSize() * w.rowsPerBlock, 8192);

  CompiledProgram odd = compileExample("softmax", 1, 7, DType::F32);
  ASSERT_EQ(odd.launches.size(), 1u);
  EXPECT_EQ(odd.launches[0].vectorWidth, 1); // 7 is odd: scalar accesses
  EXPECT_GE(odd.launches[0].threadsPerRow * odd.launches[0].chunks, 7);
}

TEST(PlanTest, RowsTooWideForRegistersAreStreamed) {
  // (Without clusters: on sm_90a few such rows are split over clusters.)
  for (auto [target, options] : {std::pair<const char *, const char *>{"sm_80", ""},
                                 {"sm_90a", "row-cluster-max=1"}}) {
    SCOPED_TRACE(target);
    CompiledProgram logits = compileExample("softmax", 16, 131072, DType::F32, target, options);
    ASSERT_EQ(logits.launches.size(), 1u);
    const KernelLaunchPlan &l = logits.launches[0];
    EXPECT_GT(l.streamBlocks, 1);
    EXPECT_EQ(l.rowsPerBlock, 1);
    EXPECT_EQ(l.clusterM, 1);
    EXPECT_EQ(l.gridSize(), 16);
    EXPECT_GE(l.streamBlocks * l.chunks * l.threadsPerRow * l.vectorWidth, 131072);
    EXPECT_EQ(logits.ptx.find(".reqnctapercluster"), std::string::npos);
  }
  // Rows that fit stay in registers.
  CompiledProgram narrow = compileExample("softmax", 16, 4096, DType::F32);
  EXPECT_EQ(narrow.launches[0].streamBlocks, 0);
}

// On sm_90a a few wide rows with reductions are split over a cluster of
// CTAs that exchange partial reductions through distributed shared memory:
// the plan launches whole clusters, one row each, and the PTX asks for them.
TEST(PlanTest, FewWideRowsSplitOverClustersOnHopper) {
  struct Case {
    const char *op;
    DType dtype;
    int64_t rows, cols, streamBlocks, cluster;
  };
  // 16 clusters of 8 do not fit the H200 at once (15 do): heavy slices of
  // 16 rows take clusters of 6, except rows with a weight and a bias
  // (layer_norm), which keep 8.
  for (Case c : {Case{"softmax", DType::BF16, 16, 131072, 0, 6},
                 Case{"softmax", DType::F32, 16, 131072, 0, 6},
                 Case{"rms_norm", DType::BF16, 1, 131072, 0, 8},
                 Case{"layer_norm", DType::BF16, 16, 131072, 0, 8},
                 Case{"add_rms_norm", DType::F32, 3, 65536, 0, 8},
                 Case{"add_rms_norm", DType::BF16, 20, 131072, 0, 5},
                 // Scalar accesses: each CTA streams its slice.
                 Case{"rms_norm", DType::F32, 5, 100003, 7, 8}}) {
    SCOPED_TRACE(std::string(c.op) + " " + dtypeName(c.dtype) + " " + std::to_string(c.rows) +
                 "x" + std::to_string(c.cols));
    CompiledProgram p = compileExample(c.op, c.rows, c.cols, c.dtype);
    ASSERT_EQ(p.launches.size(), 1u);
    const KernelLaunchPlan &l = p.launches[0];
    EXPECT_EQ(l.clusterM, c.cluster);
    EXPECT_EQ(l.colBlocks, c.cluster);
    EXPECT_EQ(l.rowsPerBlock, 1);
    EXPECT_EQ(l.gridSize(), c.rows * c.cluster);
    EXPECT_EQ(l.gridSize() % l.clusterM, 0);
    EXPECT_EQ(l.streamBlocks, c.streamBlocks);
    EXPECT_GE(std::max<int64_t>(1, l.streamBlocks) * l.colBlocks * l.chunks * l.threadsPerRow *
                  l.vectorWidth,
              c.cols);
    EXPECT_NE(p.ptx.find(".reqnctapercluster " + std::to_string(c.cluster) + ", 1, 1"),
              std::string::npos);
    EXPECT_NE(p.ptx.find("mapa.shared::cluster"), std::string::npos);
    EXPECT_NE(p.ptx.find("ld.shared::cluster"), std::string::npos);
    EXPECT_NE(p.ptx.find("barrier.cluster.wait"), std::string::npos);
  }
  // [16, 131072] bf16 softmax: 512 threads of 6 vectors of 8 a CTA (a
  // cluster's 16-bit rows keep up to 8).
  CompiledProgram softmax = compileExample("softmax", 16, 131072, DType::BF16);
  EXPECT_EQ(softmax.launches[0].threadsPerRow, 512);
  EXPECT_EQ(softmax.launches[0].chunks, 6);
  EXPECT_EQ(softmax.launches[0].blockSize(), 512);
  // Other targets and row-cluster-max=1 keep one CTA a row. (Many rows of
  // 131072 take clusters of 4 or 8: ManyWideRowsSplitOverClusters.)
  for (auto [rows, target, options] :
       {std::tuple<int64_t, const char *, const char *>{16, "sm_80", ""},
        {16, "sm_90", ""}, {16, "sm_90a", "row-cluster-max=1"}, {256, "sm_90a", "row-cluster-max=1"}}) {
    SCOPED_TRACE(std::string(target) + " " + options + " " + std::to_string(rows));
    CompiledProgram p = compileExample("softmax", rows, 131072, DType::BF16, target, options);
    EXPECT_EQ(p.launches[0].clusterM, 1);
    EXPECT_EQ(p.launches[0].colBlocks, 1);
    EXPECT_EQ(p.ptx.find(".reqnctapercluster"), std::string::npos);
  }
}

TEST(DiagnosticsTest, BadTargetStageAndEmptyGraph) {
  EXPECT_FALSE(parseStage("asm").ok());
  EXPECT_NE(parseStage("asm").message().find("expected graph, fused"), std::string::npos);
  EXPECT_TRUE(parseStage("ptx").ok());
  Status t = validateTarget("sm_70");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("sm_90a"), std::string::npos);
  Graph g("empty");
  g.input("x", {4}, DType::F32);
  auto p = compileGraph(g);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find("no outputs"), std::string::npos) << p.message();
}

// Outputs no kernel writes are device copies made after the kernels: an
// input returned as is (or a reshape of one), a tensor returned twice (or
// two views of it). Each output keeps its own buffer, as torch's results
// are tensors of their own. GPU: GpuRuntimeTest.OutputsNoKernelWritesAreCopies.
TEST(CompilerTest, OutputsNoKernelWritesAreCopies) {
  auto copies = [](const CompiledProgram &p) {
    std::vector<std::pair<int, int>> c; // (output index, copied value)
    for (const ProgramValue &v : p.values)
      if (v.copyOf >= 0) {
        EXPECT_EQ(v.kind, ProgramValue::Kind::Output);
        c.push_back({v.index, v.copyOf});
      }
    return c;
  };
  Graph id("identity");
  Tensor x = id.input("x", {4, 8}, DType::F32);
  id.output(x);
  id.output(reshape(x, {32}));
  auto p = compileGraph(id);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_TRUE(p->launches.empty());
  EXPECT_EQ(copies(*p), (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}}));
  EXPECT_EQ(p->values[0].kind, ProgramValue::Kind::Input);
  EXPECT_EQ(p->values.back().shape, (Shape{32}));

  // exp returned twice (once through a reshape), and the input once: one
  // kernel writes output 1; outputs 0 and 2 copy it, output 3 the input.
  Graph twice("twice");
  Tensor a = twice.input("a", {4, 8}, DType::BF16);
  Tensor e = exp(a);
  twice.output(reshape(e, {32}));
  twice.output(e);
  twice.output(e);
  twice.output(a);
  auto t = compileGraph(twice);
  ASSERT_TRUE(t.ok()) << t.message();
  ASSERT_EQ(t->launches.size(), 1u);
  int written = t->launches[0].buffers.back().value;
  EXPECT_EQ(t->values[written].kind, ProgramValue::Kind::Output);
  EXPECT_EQ(t->values[written].index, 0);
  EXPECT_EQ(copies(*t), (std::vector<std::pair<int, int>>{{1, written}, {2, written}, {3, 0}}));
  for (const ProgramValue &v : t->values)
    EXPECT_EQ(v.dtype, DType::BF16);
  // The launch plan with its copies, interpreted: every output equals the
  // reference's (the copies bitwise their sources).
  for (Graph *graph : {&id, &twice}) {
    std::vector<HostTensor> inputs = tiletest::randomInputs(*graph, 5);
    auto got = tiletest::runAtTileStage(*graph, inputs);
    ASSERT_TRUE(got.ok()) << got.message();
    std::vector<HostTensor> ref = evaluateReference(*graph, inputs);
    ASSERT_EQ(got->size(), ref.size());
    for (size_t j = 0; j < ref.size(); ++j) {
      EXPECT_EQ((*got)[j].shape, ref[j].shape) << j;
      EXPECT_LT(relativeError((*got)[j], ref[j]), 1e-2) << j;
    }
    EXPECT_EQ((*got)[1].values, (*got)[graph == &id ? 0 : 2].values);
  }

  // A constant has no buffer to copy: refused by name.
  Graph konst("konst");
  konst.input("x", {4}, DType::F32);
  konst.output(reshape(konst.constant(1.0, DType::F32), {1}));
  auto k = compileGraph(konst);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.message().find("is a constant"), std::string::npos) << k.message();
}

// ---- PTX through ptxas ----

struct PtxCase {
  std::string op;
  DType dtype;
  int64_t rows, cols;
  std::string target;
};

class PtxasTest : public ::testing::TestWithParam<PtxCase> {};

TEST_P(PtxasTest, AssemblesWithoutSpills) {
  std::string ptxas = ptxasPath();
  if (ptxas.empty())
    GTEST_SKIP() << "ptxas not found under " << TILEC_CUDA_ROOT << "/bin";
  const PtxCase &c = GetParam();
  CompiledProgram p = compileExample(c.op, c.rows, c.cols, c.dtype, c.target);
  ASSERT_FALSE(p.ptx.empty());
  EXPECT_NE(p.ptx.find(".target " + c.target), std::string::npos);
  int status = 0;
  std::string log = assemble(ptxas, p.ptx, c.target, status);
  ASSERT_EQ(status, 0) << log;
  expectNoSpills(log);
  EXPECT_EQ(log.find("error"), std::string::npos) << log;
  if (examples::isMatmul(c.op)) {
    // Tensor cores for bf16: on Hopper warpgroup MMA from swizzled shared
    // memory filled by TMA (a producer warpgroup, mbarriers, setmaxnreg),
    // elsewhere 16-byte asynchronous copies (k = 4096).
    if (c.dtype == DType::BF16 && c.target == "sm_90a" && c.rows > 64) {
      // (Two products of 128 columns each for matmul_swiglu.)
      EXPECT_NE(p.ptx.find(c.op == "matmul_swiglu"
                               ? "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"
                               : "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"),
                std::string::npos);
      EXPECT_NE(p.ptx.find("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                           "complete_tx::bytes"),
                std::string::npos);
      EXPECT_NE(p.ptx.find("mbarrier.try_wait.parity"), std::string::npos);
      EXPECT_NE(p.ptx.find("setmaxnreg.inc.sync.aligned.u32"), std::string::npos);
      EXPECT_NE(p.ptx.find(".param .align 64 .b8"), std::string::npos) << "tensor maps by value";
      EXPECT_EQ(p.ptx.find("cp.async.cg"), std::string::npos);
      EXPECT_EQ(p.ptx.find("ldmatrix"), std::string::npos);
    } else {
      EXPECT_NE(p.ptx.find("cp.async.cg.shared.global"), std::string::npos)
          << "expected cp.async";
      if (c.dtype == DType::BF16) {
        EXPECT_NE(p.ptx.find("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
                  std::string::npos);
        EXPECT_NE(p.ptx.find("ldmatrix.sync.aligned.m8n8.x4"), std::string::npos);
      } else {
        EXPECT_NE(p.ptx.find("fma.rn.f32"), std::string::npos);
      }
    }
  } else if (c.cols % 8 == 0 && c.dtype == DType::BF16 && c.op != "transpose") {
    // (A transpose moves 2-byte elements, strided rows, or 4-byte words,
    // tiles: LastDimTransposesGoThroughSharedMemoryTiles.)
    EXPECT_NE(p.ptx.find("ld.global.v4"), std::string::npos) << "expected 16-byte loads";
  }
  // Row kernels split over clusters ask for them and read the partials of
  // the cluster's CTAs from distributed shared memory.
  for (const KernelLaunchPlan &l : p.launches)
    if (!l.gemm && l.clusterM > 1) {
      EXPECT_NE(p.ptx.find(".reqnctapercluster " + std::to_string(l.clusterM) + ", 1, 1"),
                std::string::npos);
      EXPECT_NE(p.ptx.find("ld.shared::cluster.b32"), std::string::npos);
    }
}

std::vector<PtxCase> ptxCases() {
  std::vector<PtxCase> cases;
  for (const std::string &op : examples::names())
    for (DType dtype : {DType::F32, DType::BF16})
      for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{
               {1, 7}, {3, 1000}, {8192, 4096}, {16, 16384}, {4, 131072}})
        for (const char *target : {"sm_90a", "sm_80"})
          // rope needs an even head dim: 7 columns become 6.
          cases.push_back({op, dtype, r, op == "rope" && c % 2 ? c - 1 : c, target});
  return cases;
}

std::string ptxCaseName(const ::testing::TestParamInfo<PtxCase> &info) {
  const PtxCase &c = info.param;
  return c.op + "_" + dtypeName(c.dtype) + "_" + std::to_string(c.rows) + "x" +
         std::to_string(c.cols) + "_" + c.target;
}

INSTANTIATE_TEST_SUITE_P(Examples, PtxasTest, ::testing::ValuesIn(ptxCases()), ptxCaseName);

// Issue 3's whole grid (every row op at its shapes, 1 to 16384 tokens, bf16
// and f32) on sm_90a: no spills anywhere, as the issue asks of CI.
std::vector<PtxCase> issueGridCases() {
  std::vector<PtxCase> cases;
  for (const std::string &op : examples::names())
    if (!examples::isMatmul(op))
      for (DType dtype : {DType::BF16, DType::F32})
        for (auto [r, c] : examples::issueShapes(op, {1, 16, 4096, 16384}))
          cases.push_back({op, dtype, r, c, "sm_90a"});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(IssueGrid, PtxasTest, ::testing::ValuesIn(issueGridCases()),
                         ptxCaseName);

// Row kernels split over clusters (sm_90a): ptxas takes the cluster
// barriers, mapa and ld.shared::cluster, without spills, in registers and
// streamed.
INSTANTIATE_TEST_SUITE_P(
    Clusters, PtxasTest,
    ::testing::Values(PtxCase{"softmax", DType::BF16, 16, 131072, "sm_90a"},
                      PtxCase{"softmax", DType::F32, 16, 131072, "sm_90a"},
                      PtxCase{"rms_norm", DType::BF16, 1, 131072, "sm_90a"},
                      PtxCase{"layer_norm", DType::F32, 16, 131072, "sm_90a"},
                      PtxCase{"add_rms_norm", DType::BF16, 3, 65536, "sm_90a"},
                      PtxCase{"softmax", DType::F32, 5, 100003, "sm_90a"},
                      PtxCase{"layer_norm", DType::BF16, 1, 1048576, "sm_90a"}),
    ptxCaseName);

// Online softmax (tilec-form-online-softmax; online-softmax=true forms it
// wherever it saves a round, the default auto only in rows split over a
// cluster, where it was measured faster): the max and
// the sum of exp are reduced together, so a kernel has one CTA barrier
// instead of two (rows over several warps), a cluster-split row one
// cluster exchange instead of two, and a streamed row one pass over HBM for
// both instead of two (fewer global loads). online-softmax=false keeps the
// two-round kernel; the schedule is the same either way. Both assemble
// without spills. The pair is formed only where it saves such a round:
// rows within one warp keep the two-round kernel (the same PTX). Register
// rows compute one exp an element: the pair's exp tile is each thread's
// exp(x - m_t) rescaled by one exp(m_t - M), so the online kernel has
// exactly the two-round kernel's ex2 (one an element) plus one for the
// scale and those of the pair's combines (two a butterfly step, one a
// warp, one a cluster CTA).
/// One row op's dtype and shape, named dtype_RxC (the pair tests below).
struct RowShapeCase {
  DType dtype;
  int64_t rows, cols;
};

std::string rowShapeName(const ::testing::TestParamInfo<RowShapeCase> &info) {
  return std::string(dtypeName(info.param.dtype)) + "_" + std::to_string(info.param.rows) + "x" +
         std::to_string(info.param.cols);
}

using OnlineCase = RowShapeCase;

class OnlineSoftmaxTest : public ::testing::TestWithParam<OnlineCase> {};

size_t occurrences(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

TEST_P(OnlineSoftmaxTest, OneReductionRound) {
  std::string ptxas = ptxasPath();
  if (ptxas.empty())
    GTEST_SKIP() << "ptxas not found under " << TILEC_CUDA_ROOT << "/bin";
  const OnlineCase &c = GetParam();
  CompiledProgram online =
      compileExample("softmax", c.rows, c.cols, c.dtype, "sm_90a", "online-softmax=true");
  CompiledProgram twoRounds =
      compileExample("softmax", c.rows, c.cols, c.dtype, "sm_90a", "online-softmax=false");
  // The default (auto) takes the pair only for rows split over a cluster,
  // where it was measured faster.
  CompiledProgram automatic = compileExample("softmax", c.rows, c.cols, c.dtype, "sm_90a");
  EXPECT_EQ(automatic.ptx, online.launches[0].clusterM > 1 ? online.ptx : twoRounds.ptx);
  ASSERT_EQ(online.launches.size(), 1u);
  ASSERT_EQ(twoRounds.launches.size(), 1u);
  const KernelLaunchPlan &l = online.launches[0], &l2 = twoRounds.launches[0];
  EXPECT_EQ(l.threadsPerRow, l2.threadsPerRow);
  EXPECT_EQ(l.chunks, l2.chunks);
  EXPECT_EQ(l.streamBlocks, l2.streamBlocks);
  EXPECT_EQ(l.colBlocks, l2.colBlocks);
  for (const CompiledProgram *p : {&online, &twoRounds}) {
    int status = 0;
    std::string log = assemble(ptxas, p->ptx, "sm_90a", status);
    ASSERT_EQ(status, 0) << log;
    // (Including the forced pair on f32 [4096, 32768], whose row takes 1024
    // threads, 64 registers a thread, and keeps its exp tile too: it spilled
    // 32 bytes while the pair's butterfly took two exps a step.)
    expectNoSpills(log);
    // Fast math: exp is ex2.approx on both paths (also in the pair's combines).
    EXPECT_NE(p->ptx.find("ex2.approx"), std::string::npos);
    EXPECT_EQ(p->ptx.find("__nv_expf"), std::string::npos);
  }
  bool warps = l.threadsPerRow > 32;
  bool paired = warps || l.clusterM > 1 || l.streamBlocks > 0;
  if (!paired) {
    EXPECT_EQ(online.ptx, twoRounds.ptx) << "the pair saves no round here";
    return;
  }
  size_t ex2 = occurrences(online.ptx, "ex2.approx"), ex2Two = occurrences(twoRounds.ptx, "ex2.approx");
  if (l.streamBlocks == 0) {
    size_t steps = 0; // butterfly steps
    for (int64_t lanes = std::min<int64_t>(l.threadsPerRow, 32); lanes > 1; lanes /= 2)
      ++steps;
    // One exp for the lanes (the max by a butterfly, then each lane's sum
    // rescaled once), one for the warps (lane l takes warp l's pair), one a
    // cluster CTA.
    size_t combines = (steps > 0 ? 1 : 0) + (warps ? 1 : 0) + (l.clusterM > 1 ? l.clusterM : 0);
    EXPECT_EQ(ex2, ex2Two + 1 + combines) << "not one exp an element";
    EXPECT_EQ(ex2Two, static_cast<size_t>(l.chunks * l.vectorWidth));
  } else {
    // Streamed rows cannot keep their exps: the pair's loop and the store
    // loop each have one an element of a block.
    EXPECT_GE(ex2, static_cast<size_t>(2 * l.chunks * l.vectorWidth));
  }
  EXPECT_EQ(occurrences(online.ptx, "bar.sync"), warps ? 1u : 0u) << online.ptx;
  EXPECT_EQ(occurrences(twoRounds.ptx, "bar.sync"), warps ? 2u : 0u);
  if (l.clusterM > 1) {
    // The exchange's arrive and the exit barrier's; two exchanges without.
    EXPECT_EQ(occurrences(online.ptx, "barrier.cluster.arrive"), 2u);
    EXPECT_EQ(occurrences(twoRounds.ptx, "barrier.cluster.arrive"), 3u);
  }
  if (l.streamBlocks > 0) {
    EXPECT_LT(occurrences(online.ptx, "ld.global"), occurrences(twoRounds.ptx, "ld.global"));
  }
}

/// Both dtypes at 1, 5 and 16 rows of odd and small widths (one thread a
/// row, scalar accesses, a partial last block), then at each `extra` shape.
std::vector<RowShapeCase>
rowShapeCases(std::initializer_list<std::pair<int64_t, int64_t>> extra) {
  std::vector<RowShapeCase> cases;
  for (DType dtype : {DType::BF16, DType::F32})
    for (int64_t rows : {1, 5, 16})
      for (int64_t cols : {1, 3, 1000, 4097, 100003})
        cases.push_back({dtype, rows, cols});
  for (DType dtype : {DType::BF16, DType::F32})
    for (auto [rows, cols] : extra)
      cases.push_back({dtype, rows, cols});
  return cases;
}

// Cluster-split rows in registers: [16, 131072] and [1, 131072] (clusters
// of 8); many rows over several warps: [8192, 4096] and [4096, 32768]
// (registers in f32, streamed in bf16).
std::vector<OnlineCase> onlineCases() {
  return rowShapeCases({{16, 131072}, {1, 131072}, {8192, 4096}, {4096, 32768}});
}

INSTANTIATE_TEST_SUITE_P(Softmax, OnlineSoftmaxTest, ::testing::ValuesIn(onlineCases()),
                         rowShapeName);

TEST(OnlineSoftmaxTest, PreciseMathKeepsLibdeviceExp) {
  Graph g("softmax");
  ASSERT_TRUE(examples::build("softmax", g, 5, 1000, DType::F32).ok());
  CompileOptions options;
  options.target = "sm_90a";
  options.fastMath = false;
  options.scheduleOptions = "online-softmax=true";
  auto p = compileGraph(g, options);
  ASSERT_TRUE(p.ok()) << p.message();
  // libdevice's expf is inlined: no approximate ex2 without a range reduction.
  EXPECT_EQ(p->ptx.find("ex2.approx.f32 "), std::string::npos);
  EXPECT_EQ(occurrences(p->ptx, "bar.sync"), 1u);
}

// layer_norm's Chan/Welford pair (tilec-form-welford; welford=true, the
// default, forms it in every row kernel, auto only where the second round
// costs a CTA barrier, a cluster exchange or a streamed pass): the mean and the
// squared deviations are reduced together, so a kernel has one CTA barrier
// instead of two (rows over several warps), a cluster-split row one
// cluster exchange instead of two, and a streamed row one pass over HBM for
// both instead of two (fewer global loads). welford=false keeps the
// two-round kernel; the schedule is the same either way. Both assemble
// without spills. Where every thread covers a whole number of vectors of
// the row (no masked tail) the counts are constants: the pair shuffles
// exactly as many values as two rounds (two a butterfly step) and divides
// nowhere but the variance.
using WelfordCase = RowShapeCase;

class WelfordTest : public ::testing::TestWithParam<WelfordCase> {};

TEST_P(WelfordTest, OneReductionRound) {
  std::string ptxas = ptxasPath();
  if (ptxas.empty())
    GTEST_SKIP() << "ptxas not found under " << TILEC_CUDA_ROOT << "/bin";
  const WelfordCase &c = GetParam();
  CompiledProgram pair = compileExample("layer_norm", c.rows, c.cols, c.dtype, "sm_90a", "welford=true");
  CompiledProgram twoRounds =
      compileExample("layer_norm", c.rows, c.cols, c.dtype, "sm_90a", "welford=false");
  CompiledProgram automatic =
      compileExample("layer_norm", c.rows, c.cols, c.dtype, "sm_90a", "welford=auto");
  CompiledProgram byDefault = compileExample("layer_norm", c.rows, c.cols, c.dtype, "sm_90a");
  EXPECT_EQ(byDefault.ptx, pair.ptx); // the default: the pair everywhere
  ASSERT_EQ(pair.launches.size(), 1u);
  ASSERT_EQ(twoRounds.launches.size(), 1u);
  const KernelLaunchPlan &l = pair.launches[0], &l2 = twoRounds.launches[0];
  EXPECT_EQ(l.threadsPerRow, l2.threadsPerRow);
  EXPECT_EQ(l.chunks, l2.chunks);
  EXPECT_EQ(l.streamBlocks, l2.streamBlocks);
  EXPECT_EQ(l.colBlocks, l2.colBlocks);
  bool warps = l.threadsPerRow > 32;
  bool savesARound = warps || l.clusterM > 1 || l.streamBlocks > 0;
  // auto: the pair wherever it saves a round, two rounds within a warp.
  EXPECT_EQ(automatic.ptx, savesARound ? pair.ptx : twoRounds.ptx);
  // No spills, except where two rounds spill already (f32 [4096, 32768]:
  // 64 values a thread in registers, 1944 bytes of spill stores in two
  // rounds); the pair never spills more.
  int64_t spills[2];
  for (int i = 0; i < 2; ++i) {
    int status = 0;
    std::string log = assemble(ptxas, (i == 0 ? pair : twoRounds).ptx, "sm_90a", status);
    ASSERT_EQ(status, 0) << log;
    size_t at = log.find(" bytes spill stores");
    ASSERT_NE(at, std::string::npos) << log;
    size_t start = log.rfind(' ', at - 1);
    spills[i] = std::stoll(log.substr(start + 1, at - start - 1));
  }
  EXPECT_LE(spills[0], spills[1]) << "the pair spills more than two rounds";
  if (!(c.dtype == DType::F32 && c.rows == 4096 && c.cols == 32768)) {
    EXPECT_EQ(spills[0], 0);
  }
  EXPECT_EQ(occurrences(pair.ptx, "bar.sync"), warps ? 1u : 0u) << pair.ptx;
  EXPECT_EQ(occurrences(twoRounds.ptx, "bar.sync"), warps ? 2u : 0u);
  if (l.clusterM > 1) {
    // The exchange's arrive and the exit barrier's; two exchanges without.
    EXPECT_EQ(occurrences(pair.ptx, "barrier.cluster.arrive"), 2u);
    EXPECT_EQ(occurrences(twoRounds.ptx, "barrier.cluster.arrive"), 3u);
  }
  if (l.streamBlocks > 0) {
    EXPECT_LT(occurrences(pair.ptx, "ld.global"), occurrences(twoRounds.ptx, "ld.global"));
  }
  bool staticCounts = c.cols == l.threadsPerRow * l.vectorWidth * l.chunks * l.colBlocks *
                                    std::max<int64_t>(1, l.streamBlocks);
  if (staticCounts) {
    EXPECT_EQ(occurrences(pair.ptx, "shfl.sync"), occurrences(twoRounds.ptx, "shfl.sync"));
    // (Streamed rows: at most one a block, in the loop; LLVM folds it when
    // it unrolls a short loop.)
    EXPECT_LE(occurrences(pair.ptx, "rcp.approx"), l.streamBlocks > 0 ? 1u : 0u)
        << "static counts need no division";
  }
}

// Rows within a warp ([4096, 256] f32), over several warps ([8192, 4096]),
// split over clusters ([16, 65536], [1, 131072]), streamed ([4096, 32768]
// bf16) and streamed in clusters ([64, 262144]).
std::vector<WelfordCase> welfordCases() {
  return rowShapeCases(
      {{4096, 256}, {8192, 4096}, {16, 65536}, {1, 131072}, {4096, 32768}, {64, 262144}});
}

INSTANTIATE_TEST_SUITE_P(LayerNorm, WelfordTest, ::testing::ValuesIn(welfordCases()),
                         rowShapeName);

// GELU: with fast math and a 16-bit result, one tanh.approx per element
// (the GEMM epilogue's MUFU work halved); f32 results and precise math keep
// x / (1 + exp2(..)) (no tanh.approx); an explicit fast-math tanh is the
// instruction too, not libdevice's __nv_tanhf.
TEST(FastMathTest, GeluAndTanhForms) {
  auto ptxOf = [](DType dtype, bool fast, bool explicitTanh) {
    Graph g("act");
    Tensor x = g.input("x", {64, 256}, dtype);
    g.output(explicitTanh ? tanh(x) : gelu(x));
    CompileOptions options;
    options.target = "sm_90a";
    options.fastMath = fast;
    auto p = compileGraph(g, options);
    EXPECT_TRUE(p.ok()) << p.message();
    return p.ok() ? p->ptx : std::string();
  };
  std::string bf16Fast = ptxOf(DType::BF16, true, false);
  EXPECT_GT(occurrences(bf16Fast, "tanh.approx.f32"), 0u);
  EXPECT_EQ(occurrences(bf16Fast, "ex2.approx"), 0u);
  EXPECT_EQ(occurrences(bf16Fast, "div.approx"), 0u);
  for (std::string ptx : {ptxOf(DType::F32, true, false), ptxOf(DType::BF16, false, false)}) {
    EXPECT_EQ(occurrences(ptx, "tanh.approx"), 0u);
    EXPECT_NE(ptx.find("ex2"), std::string::npos);
  }
  EXPECT_GT(occurrences(ptxOf(DType::F32, true, true), "tanh.approx.f32"), 0u);
  EXPECT_EQ(occurrences(ptxOf(DType::F32, false, true), "tanh.approx"), 0u);

  Graph mm("matmul_bias_gelu");
  ASSERT_TRUE(examples::build("matmul_bias_gelu", mm, 256, 256, DType::BF16, 128).ok());
  CompileOptions options;
  options.target = "sm_90a";
  auto p = compileGraph(mm, options);
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_GT(occurrences(p->ptx, "tanh.approx.f32"), 0u);
  EXPECT_EQ(occurrences(p->ptx, "ex2.approx"), 0u);
}

// flushSubnormals (tilec-flush-subnormals, off by default: measured 0.84x
// to 1.02x, docs/perf.md, fourteenth session): the kernels use the .ftz
// forms, libdevice's fast exp included (nvvm-reflect-ftz), so ex2.approx
// and div.approx are one SASS instruction each and ptxas's code for a
// softmax over 128k bf16 columns shrinks by 30%. By default, and under
// precise math whatever the option, no f32 arithmetic flushes.
TEST(FastMathTest, FlushesSubnormalsOnlyWhenAsked) {
  Graph g("softmax");
  ASSERT_TRUE(examples::build("softmax", g, 4096, 131072, DType::BF16).ok());
  auto ptxOf = [&](bool fast, bool flush) {
    CompileOptions options;
    options.target = "sm_90a";
    options.fastMath = fast;
    options.flushSubnormals = flush;
    // (The thirteenth session's kernel: recompute-exp would flush its exps
    // anyway.)
    options.scheduleOptions = "recompute-exp=false";
    auto p = compileGraph(g, options);
    EXPECT_TRUE(p.ok()) << p.message();
    return p.ok() ? p->ptx : std::string();
  };
  EXPECT_FALSE(CompileOptions().flushSubnormals);
  std::string flushed = ptxOf(true, true), kept = ptxOf(true, false);
  size_t elements = occurrences(flushed, "cvt.rn.bf16x2.f32") * 2;
  ASSERT_GT(elements, 0u);
  EXPECT_GE(occurrences(flushed, "ex2.approx.ftz.f32"), elements);
  EXPECT_EQ(occurrences(flushed, "div.approx.ftz.f32"), elements);
  EXPECT_EQ(occurrences(flushed, "ex2.approx.f32"), 0u);
  EXPECT_EQ(occurrences(flushed, "div.approx.f32"), 0u);
  EXPECT_EQ(occurrences(kept, ".ftz"), 0u);
  EXPECT_EQ(occurrences(kept, "ex2.approx.f32"), occurrences(flushed, "ex2.approx.ftz.f32"));
  // Precise math: IEEE arithmetic (libdevice's expf uses ex2.approx.ftz
  // inside its own range reduction, so .ftz alone does not tell).
  std::string precise = ptxOf(false, true);
  EXPECT_GT(occurrences(precise, "add.rn.f32"), 0u);
  EXPECT_EQ(occurrences(precise, "rn.ftz.f32"), 0u);

  // Both assemble without spills, and the flushed kernel is the shorter.
  std::string ptxas = ptxasPath();
  if (ptxas.empty())
    GTEST_SKIP() << "ptxas not found under " << TILEC_CUDA_ROOT << "/bin";
  size_t sizes[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    int status = 0;
    std::string log = assemble(ptxas, i ? kept : flushed, "sm_90a", status, &sizes[i]);
    ASSERT_EQ(status, 0) << log;
    expectNoSpills(log);
  }
  // 928 against 1320 SASS instructions (16 bytes each) when measured.
  EXPECT_GT(sizes[0], 0u);
  EXPECT_LT(sizes[0] * 20, sizes[1] * 17) << "cubin flushed " << sizes[0] << " B, kept " << sizes[1];
}

// The slice/concat/broadcast-row graphs the GPU tests run: one kernel each,
// the schedule they need, and PTX that ptxas takes without spills.
TEST(SliceGraphsTest, CompileToOneKernelAndAssemble) {
  std::string ptxas = ptxasPath();
  for (const testgraphs::SliceGraph &c : testgraphs::sliceGraphs()) {
    SCOPED_TRACE(c.name);
    Graph g(c.name);
    c.build(g);
    CompileOptions options;
    options.scheduleOptions = c.scheduleOptions;
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 1u) << explainFusion(*p);
    EXPECT_EQ(p->launches[0].streamBlocks > 0, c.streamed);
    EXPECT_EQ(p->launches[0].clusterM, c.cluster);
    // The tile stage, interpreted, against the reference (the GPU test's
    // check less the distribution over threads).
    std::vector<HostTensor> inputs = tiletest::randomInputs(g, 11);
    auto got = tiletest::runAtTileStage(g, inputs, options);
    ASSERT_TRUE(got.ok()) << got.message();
    std::vector<HostTensor> ref = evaluateReference(g, inputs);
    ASSERT_EQ(got->size(), ref.size());
    for (size_t j = 0; j < ref.size(); ++j)
      EXPECT_LT(relativeError((*got)[j], ref[j]), c.tolerance) << "output " << j;
    if (ptxas.empty())
      continue;
    expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
  }
}

// Ping-pong warpgroups (gemm-pingpong=1): 64-row tiles, five stages, the
// order between the two MMA warpgroups kept by named barriers (one arrives,
// the other syncs, 256 threads); assembles without spills. Where TMA cannot
// serve (rows not 16-byte aligned) the schedule falls back to shared tiles.
TEST(GemmScheduleTest, PingPongWarpgroups) {
  Graph g("pingpong");
  g.output(matmul(g.input("a", {4096, 512}, DType::BF16), g.input("b", {1024, 512}, DType::BF16),
                  false, true));
  CompileOptions options;
  options.scheduleOptions = "gemm-pingpong=1";
  auto p = compileGraph(g, options);
  ASSERT_TRUE(p.ok()) << p.message();
  ASSERT_EQ(p->launches.size(), 1u);
  EXPECT_EQ(p->launches[0].blockSize(), 384);
  EXPECT_NE(p->ptx.find("bar.arrive"), std::string::npos);
  EXPECT_NE(p->ptx.find("bar.sync"), std::string::npos);
  EXPECT_NE(p->ptx.find(", 256;"), std::string::npos);
  EXPECT_NE(p->ptx.find("wgmma.mma_async.sync.aligned.m64n256k16"), std::string::npos);
  std::string ptxas = ptxasPath();
  if (!ptxas.empty()) {
    expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
  }

  Graph odd("pingpong_unaligned");
  odd.output(matmul(odd.input("a", {4096, 500}, DType::BF16),
                    odd.input("b", {1024, 500}, DType::BF16), false, true));
  auto q = compileGraph(odd, options);
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_EQ(q->ptx.find("bar.arrive"), std::string::npos) << "no TMA, no ping-pong";
  EXPECT_NE(q->ptx.find("wgmma.mma_async"), std::string::npos);
}

// Two 64-row chains a warpgroup (gemm-m-chains=2): 256 x 128 tiles, the lhs
// copied in 256-row boxes, m64n128 MMAs; SwiGLU's two products keep one
// chain (four accumulators would spill). Assembles without spills, and, as with one chain, without a
// warpgroup.arrive or .wait that ptxas adds (a tile's first MMAs start
// their accumulators with scale-d 0 instead of zeroed registers).
TEST(GemmScheduleTest, TwoChainsAWarpgroup) {
  std::string ptxas = ptxasPath();
  for (int chains : {1, 2})
    for (bool swiglu : {false, true}) {
      SCOPED_TRACE(std::to_string(chains) + (swiglu ? " chains, swiglu" : " chains"));
      Graph g("chains");
      Tensor x = g.input("x", {4096, 512}, DType::BF16);
      Tensor w = g.input("w", {1024, 512}, DType::BF16);
      if (swiglu)
        g.output(silu(matmul(x, w, false, true)) *
                 matmul(x, g.input("u", {1024, 512}, DType::BF16), false, true));
      else
        g.output(matmul(x, w, false, true));
      CompileOptions options;
      options.scheduleOptions = "gemm-m-chains=" + std::to_string(chains);
      auto p = compileGraph(g, options);
      ASSERT_TRUE(p.ok()) << p.message();
      ASSERT_EQ(p->launches.size(), 1u);
      EXPECT_EQ(p->launches[0].blockSize(), 384);
      ASSERT_FALSE(p->launches[0].tensorMaps.empty());
      bool two = chains == 2 && !swiglu;
      EXPECT_EQ(p->launches[0].tensorMaps[0].box[0], two ? 256 : 128);
      std::string shape = two || swiglu ? "m64n128k16" : "m64n256k16";
      EXPECT_NE(p->ptx.find("wgmma.mma_async.sync.aligned." + shape), std::string::npos);
      if (ptxas.empty())
        continue;
      expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a", true);
    }
  // Explicit two chains with ping-pong: an error that says so.
  Graph g("chains_pingpong");
  g.output(matmul(g.input("a", {4096, 512}, DType::BF16), g.input("b", {1024, 512}, DType::BF16),
                  false, true));
  std::string error = scheduleOptionsError(g, "gemm-m-chains=2 gemm-pingpong=1");
  EXPECT_NE(error.find("gemm-m-chains 2"), std::string::npos) << error;
}

// bf16 rows of 32768 with two row inputs (add_rms_norm) take 1024 threads
// in registers instead of streaming at 512 (measured 1.19x, eighth
// session); rows of one input (rms_norm, softmax, layer_norm) stay
// streamed. The 1024-thread add_rms_norm kept 16 bytes of spills at 64
// registers a thread until its CTA got .maxnreg 64 (full-cta-registers):
// now none.
TEST(RowScheduleTest, TwoInputBf16RowsOf32768TakeAThousandThreads) {
  std::string ptxas = ptxasPath();
  for (const char *op : {"add_rms_norm", "rms_norm", "softmax", "layer_norm"}) {
    SCOPED_TRACE(op);
    CompiledProgram p = compileExample(op, 4096, 32768, DType::BF16, "sm_90a");
    ASSERT_EQ(p.launches.size(), 1u);
    bool two = std::string(op) == "add_rms_norm";
    EXPECT_EQ(p.launches[0].threadsPerRow, two ? 1024 : 512);
    EXPECT_EQ(p.launches[0].streamBlocks, two ? 0 : 2);
    if (ptxas.empty())
      continue;
    int status = 0;
    std::string log = assemble(ptxas, p.ptx, "sm_90a", status);
    ASSERT_EQ(status, 0) << log;
    EXPECT_NE(log.find(" 0 bytes spill stores"), std::string::npos) << log;
  }
}

// stream-shared: streamed rows whose row inputs fit in 112 KB keep them in
// dynamic shared memory after the first pass (the launch plan carries the
// bytes); fewer global loads, no spills; rows too wide for it (f32
// [2, 1048576]: 512 KB a cluster slice) are not staged. The default (auto)
// stages rows not split over a cluster; true stages those too.
TEST(RowScheduleTest, StreamSharedKeepsStreamedRowsInSharedMemory) {
  std::string ptxas = ptxasPath();
  struct Case {
    const char *op;
    DType dtype;
    int64_t rows, cols, bytes;
    bool byDefault;
  };
  for (Case c : {Case{"rms_norm", DType::BF16, 4096, 32768, 65536, true},
                 Case{"softmax", DType::BF16, 4096, 32768, 65536, true},
                 Case{"layer_norm", DType::BF16, 4096, 32768, 65536, true},
                 Case{"layer_norm", DType::BF16, 3, 262144, 65536, false}, // clusters of 8
                 Case{"rms_norm", DType::F32, 2, 1048576, 0, false}}) {
    SCOPED_TRACE(std::string(c.op) + " " + std::to_string(c.rows) + "x" + std::to_string(c.cols));
    CompiledProgram base =
        compileExample(c.op, c.rows, c.cols, c.dtype, "sm_90a", "stream-shared=false");
    CompiledProgram p =
        compileExample(c.op, c.rows, c.cols, c.dtype, "sm_90a", "stream-shared=true");
    CompiledProgram byDefault = compileExample(c.op, c.rows, c.cols, c.dtype, "sm_90a");
    ASSERT_EQ(p.launches.size(), 1u);
    EXPECT_GT(p.launches[0].streamBlocks, 0);
    EXPECT_EQ(p.launches[0].sharedBytes, c.bytes);
    EXPECT_EQ(base.launches[0].sharedBytes, 0);
    EXPECT_EQ(byDefault.ptx, c.byDefault ? p.ptx : base.ptx);
    if (c.bytes == 0) {
      EXPECT_EQ(p.ptx, base.ptx);
      continue;
    }
    EXPECT_GT(occurrences(p.ptx, "ld.shared.v4"), 0u);
    EXPECT_LT(occurrences(p.ptx, "ld.global"), occurrences(base.ptx, "ld.global"));
    if (ptxas.empty())
      continue;
    expectAssemblesWithoutSpills(ptxas, p.ptx, "sm_90a");
  }
}

// nn::attention (heads as batch dims, the GPU tests' shapes): the scores
// GEMM with its scale (and a mask, broadcast over batches or queries) as
// the epilogue, the softmax, and the second GEMM: three kernels, each
// assembling without spills.
TEST(GemmFusionTest, AttentionIsThreeKernels) {
  std::string ptxas = ptxasPath();
  struct Case {
    Shape q, k, v, mask;
    DType dtype;
  };
  for (const Case &c :
       {Case{{8, 130, 64}, {8, 200, 64}, {8, 200, 64}, {}, DType::BF16},
        Case{{2, 4, 77, 64}, {2, 4, 129, 64}, {2, 4, 129, 128}, {}, DType::F16},
        Case{{8, 130, 64}, {8, 200, 64}, {8, 200, 64}, {130, 200}, DType::BF16},
        Case{{2, 4, 77, 64}, {2, 4, 129, 64}, {2, 4, 129, 128}, {2, 4, 1, 129}, DType::F16},
        Case{{3, 64, 64}, {3, 96, 64}, {3, 96, 64}, {3, 64, 96}, DType::BF16}}) {
    SCOPED_TRACE(shapeString(c.q) + " mask " + shapeString(c.mask));
    Graph g("attention");
    Tensor q = g.input("q", c.q, c.dtype);
    Tensor k = g.input("k", c.k, c.dtype);
    Tensor v = g.input("v", c.v, c.dtype);
    g.output(c.mask.empty()
                 ? nn::attention(q, k, v, 0.125)
                 : nn::attention(q, k, v, 0.125, g.input("mask", c.mask, c.dtype)));
    auto p = compileGraph(g);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 3u) << explainFusion(*p);
    EXPECT_TRUE(p->launches[0].gemm);
    EXPECT_FALSE(p->launches[1].gemm);
    EXPECT_TRUE(p->launches[2].gemm);
    if (ptxas.empty())
      continue;
    int status = 0;
    std::string log = assemble(ptxas, p->ptx, "sm_90a", status);
    ASSERT_EQ(status, 0) << log;
    EXPECT_EQ(occurrences(log, "0 bytes spill stores, 0 bytes spill loads"), 3u) << log;
  }
}

// A batched rhs of one batch: a batched kernel whose output, like its
// operands, goes through a 3-D tensor map (a 2-D one failed the
// distributor's check on the GPU machine).
TEST(GemmScheduleTest, BatchOfOneStoresThroughA3DMap) {
  Graph g("batch_of_one");
  g.output(matmul(g.input("a", {1, 70, 32}, DType::BF16), g.input("b", {1, 32, 48}, DType::BF16)));
  auto p = compileGraph(g);
  ASSERT_TRUE(p.ok()) << p.message();
  ASSERT_EQ(p->launches.size(), 1u);
  ASSERT_TRUE(p->launches[0].tmaStore);
  EXPECT_EQ(p->launches[0].tensorMaps.back().box, (std::vector<int64_t>{1, 64, 64}));
  EXPECT_GT(occurrences(p->ptx, "cp.async.bulk.tensor.3d.global.shared::cta"), 0u);
}

// A transposed lhs a [K, M] on sm_90a: wgmma reads it MN-major (the PTX's
// imm-trans-a is 1) from block_m / 64 TMA boxes of 64 x 64 a stage, with
// either rhs layout and under ping-pong, two chains and clusters; it
// assembles without spills or injected warpgroup syncs. Rows of a not
// 16-byte aligned (M % 8 != 0) cannot have a tensor map: mma.sync.
// f32 GEMMs of few rows (decode) with one k step of depth (K <= 32) take
// steps of 16 by warp tiles of 16 x 32: without a k loop, ptxas spilled the
// straight-line FMAs of 32-deep steps (360-1344 bytes of stack; FuzzTest's
// seed 23, [32, 1] @ [40, 1]^T). Deeper products keep their schedule.
TEST(GemmScheduleTest, F32DecodeOfOneKStepDoesNotSpill) {
  std::string ptxas = ptxasPath();
  for (int64_t k : {1, 16, 32, 33}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    Graph g("outer");
    g.output(matmul(g.input("a", {32, k}, DType::F32), g.input("b", {40, k}, DType::F32), false,
                    true));
    auto p = compileGraph(g);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 1u);
    EXPECT_EQ(p->launches[0].blockSize(), k <= 32 ? 128 : 64);
    if (!ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
  }
}

// one-wave-registers (off by default: measured no faster, and it would
// make the PTX depend on the row count): row kernels of one wave (<= 132
// CTAs) of <= 256 threads get 255 registers a thread, the others keep
// ptxas's choice; every example kernel it touches assembles without
// spills.
TEST(ScheduleTest, OneWaveRegistersCapsSmallGridsOnly) {
  std::string ptxas = ptxasPath();
  const std::string on = "one-wave-registers=true";
  struct Case {
    const char *name;
    int64_t rows, cols;
    DType dtype;
    bool capped;
  };
  for (const Case &c : {Case{"layer_norm", 16, 4096, DType::BF16, true}, // 128 threads
                        Case{"rms_norm", 16, 4096, DType::BF16, false},  // 512 threads
                        Case{"elementwise_chain", 100, 2048, DType::F32, true},
                        Case{"rope", 16, 4096, DType::F32, true},
                        Case{"softmax", 16, 32768, DType::F32, true},   // 128 CTAs in clusters
                        Case{"rms_norm", 4096, 4096, DType::BF16, false}, // 4096 CTAs
                        Case{"layer_norm", 1, 131072, DType::F32, false}}) { // 512 threads
    SCOPED_TRACE(std::string(c.name) + " " + std::to_string(c.rows) + "x" + std::to_string(c.cols));
    CompiledProgram plain = compileExample(c.name, c.rows, c.cols, c.dtype);
    CompiledProgram capped = compileExample(c.name, c.rows, c.cols, c.dtype, "sm_90a", on);
    EXPECT_EQ(plain.ptx.find(".maxnreg"), std::string::npos);
    EXPECT_EQ(capped.ptx.find(".maxnreg 255") != std::string::npos, c.capped);
    if (!ptxas.empty() && c.capped)
      expectAssemblesWithoutSpills(ptxas, capped.ptx, "sm_90a");
  }
}

// full-cta-registers (on by default): row kernels in CTAs of 1024 threads
// get .maxnreg 64, the register file's share of a thread there, and other
// CTAs no cap. bf16 and f16 add_rms_norm rows of 32768 (1024 threads: two
// row inputs) spilled 16-20 bytes at 64 registers without it; with it they
// assemble without spills.
TEST(ScheduleTest, FullCtasGetTheirRegistersAsACap) {
  std::string ptxas = ptxasPath();
  struct Case {
    const char *name;
    int64_t rows, cols;
    DType dtype;
    bool capped;
  };
  for (const Case &c : {Case{"add_rms_norm", 200, 32768, DType::BF16, true},
                        Case{"add_rms_norm", 4096, 32768, DType::F16, true},
                        Case{"rms_norm", 100, 32768, DType::F32, true},
                        Case{"layer_norm", 200, 32768, DType::F32, true},
                        Case{"add_rms_norm", 64, 16384, DType::BF16, false}, // 512 threads
                        Case{"rms_norm", 4096, 4096, DType::BF16, false}}) { // 512 threads
    SCOPED_TRACE(std::string(c.name) + " " + std::to_string(c.rows) + "x" + std::to_string(c.cols));
    CompiledProgram p = compileExample(c.name, c.rows, c.cols, c.dtype);
    ASSERT_EQ(p.launches.size(), 1u);
    EXPECT_EQ(p.launches[0].blockSize() == 1024, c.capped);
    EXPECT_EQ(p.ptx.find(".maxnreg 64") != std::string::npos, c.capped);
    EXPECT_EQ(p.ptx.find(".maxnreg"), c.capped ? p.ptx.find(".maxnreg 64") : std::string::npos);
    CompiledProgram off =
        compileExample(c.name, c.rows, c.cols, c.dtype, "sm_90a", "full-cta-registers=false");
    EXPECT_EQ(off.ptx.find(".maxnreg"), std::string::npos);
    if (!ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, p.ptx, "sm_90a");
  }
}

// Operand rows that are not 16-byte aligned, found by FuzzTest: rows of 8
// or 4 bytes' alignment are copied by cp.async of 8 or 4 bytes (not through
// registers), rows of an odd number of 16-bit elements by element loads in
// shorter k steps (decode) or narrower tiles (wgmma), and GEMMs get
// every register where the grid is one wave (ptxas aimed at 96-168
// registers and spilled). Every case assembles without spills. The grids
// are gemm-fill-sms's (few tiles narrowed, one-wave decode in 32-column
// CTAs). GPU: GemmTest's cases of these shapes.
TEST(GemmScheduleTest, UnalignedRowsCopyWithoutSpills) {
  std::string ptxas = ptxasPath();
  struct Case {
    int64_t m, n, k;
    bool ta, tb;
    DType dtype;
    int copyBytes; // cp.async size of the operands' copies; 0: element loads
    int64_t threads, grid;
  };
  for (const Case &c : std::vector<Case>{{8, 40, 1000, false, true, DType::BF16, 16, 64, 2},
                                         {8, 40, 500, false, true, DType::BF16, 8, 64, 2},
                                         {8, 40, 1001, false, true, DType::BF16, 0, 64, 2},
                                         {32, 4096, 1001, false, true, DType::BF16, 0, 64, 128},
                                         {260, 128, 500, false, true, DType::BF16, 8, 128, 10},
                                         {260, 512, 1001, false, true, DType::BF16, 0, 128, 40},
                                         {130, 250, 66, false, false, DType::BF16, 4, 128, 12},
                                         {8, 501, 1001, false, false, DType::BF16, 0, 64, 16},
                                         {33, 37, 37, false, true, DType::F32, 4, 128, 1},
                                         {40, 50, 102, false, false, DType::F32, 8, 128, 1},
                                         // a transposed lhs of odd columns, 16-deep steps
                                         {261, 501, 1001, true, true, DType::BF16, 0, 128, 12},
                                         // f32, 33-64 rows, one k step
                                         {33, 40, 16, false, true, DType::F32, 16, 128, 1},
                                         {64, 40, 33, false, true, DType::F32, 4, 128, 1},
                                         // the measured decode: 224 CTAs, no cap
                                         {16, 14336, 4096, false, true, DType::BF16, 16, 64, 224}}) {
    std::string name = std::to_string(c.m) + " x " + std::to_string(c.n) + " x " +
                       std::to_string(c.k) + " " + dtypeName(c.dtype);
    SCOPED_TRACE(name);
    Graph g("unaligned");
    Tensor a = g.input("a", c.ta ? Shape{c.k, c.m} : Shape{c.m, c.k}, c.dtype);
    Tensor b = g.input("b", c.tb ? Shape{c.n, c.k} : Shape{c.k, c.n}, c.dtype);
    g.output(matmul(a, b, c.ta, c.tb));
    auto p = compileGraph(g);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 1u);
    EXPECT_EQ(p->launches[0].blockSize(), c.threads);
    EXPECT_EQ(p->launches[0].gridSize(), c.grid);
    size_t cg16 = occurrences(p->ptx, "cp.async.cg.shared.global");
    size_t ca8 = occurrences(p->ptx, "], 8, "), ca4 = occurrences(p->ptx, "], 4, ");
    EXPECT_EQ(cg16 > 0, c.copyBytes == 16);
    EXPECT_EQ(ca8 > 0, c.copyBytes == 8);
    EXPECT_EQ(ca4 > 0, c.copyBytes == 4);
    // mma.sync and f32 GEMMs of one wave (<= 132 CTAs) take every register.
    bool wgmma = occurrences(p->ptx, "wgmma.mma_async") > 0;
    EXPECT_EQ(p->ptx.find(".maxnreg 255") != std::string::npos, !wgmma && c.grid <= 132);
    if (!ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
  }
}

// gemm-fill-sms (the default): GEMMs whose tiles would leave SMs idle.
// One-wave decode grids take 8 stages (32-column CTAs where 64 would fill
// at most half the SMs); few wgmma tiles narrow to 64 columns, then 64
// rows, and take as many stages as fit (13 of 64 x 64 beside the TMA
// store's buffers). 16-bit GEMMs of 33-64 rows are
// wgmma tiles of 64 rows on sm_90a (one MMA warpgroup and the TMA
// producer; SwiGLU's two products too); in a one-wave decode grid SwiGLU's
// two products take 64-deep
// steps (8 x (32 + 2 x 32) x 64 x 2 bytes). Grids of more than a wave keep
// their tiles. Through the whole pipeline, each against its
// gemm-fill-sms=0 grid, and every default kernel assembles without
// spills (measured on the H200: docs/perf.md, twentieth session).
TEST(GemmScheduleTest, FillSmsNarrowsFewTilesAndDeepensOneWave) {
  std::string ptxas = ptxasPath();
  struct Case {
    int64_t m, n, k;
    bool swiglu;
    int64_t grid, threads, sharedBytes, gridOff;
  };
  for (const Case &c : std::vector<Case>{{16, 4096, 4096, false, 128, 64, 131072, 64},
                                         {1, 6144, 4096, false, 96, 64, 196608, 96},
                                         {16, 1024, 4096, false, 32, 64, 131072, 16},
                                         {16, 1024, 4096, true, 32, 64, 98304, 16},
                                         {16, 14336, 4096, false, 224, 64, 98304, 224},
                                         {64, 520, 1000, false, 9, 256, 231424, 3},
                                         {64, 4096, 4096, false, 64, 256, 231424, 16},
                                         {48, 14336, 4096, false, 112, 256, 215040, 56},
                                         {64, 520, 1000, true, 9, 256, 215040, 5},
                                         {256, 4096, 4096, false, 128, 384, 231424, 32},
                                         {512, 512, 512, false, 64, 256, 231424, 8},
                                         {260, 512, 500, false, 40, 128, 132096, 6}}) {
    std::string name = std::to_string(c.m) + " x " + std::to_string(c.n) + " x " +
                       std::to_string(c.k) + (c.swiglu ? " swiglu" : "");
    SCOPED_TRACE(name);
    Graph g("fill");
    testgraphs::buildLinear(g, c.m, c.n, c.k, DType::BF16,
                            c.swiglu ? testgraphs::LinearEpilogue::SwiGlu
                                     : testgraphs::LinearEpilogue::None);
    // (Without split k, which takes the few tiles of deep K further:
    // GemmScheduleTest.SplitKOverCtas.)
    CompileOptions fill;
    fill.scheduleOptions = "gemm-split-k=1";
    auto p = compileGraph(g, fill);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 1u);
    EXPECT_EQ(p->launches[0].gridSize(), c.grid);
    EXPECT_EQ(p->launches[0].blockSize(), c.threads);
    EXPECT_EQ(p->launches[0].sharedBytes, c.sharedBytes);
    CompileOptions off;
    off.scheduleOptions = "gemm-fill-sms=0 gemm-split-k=1";
    auto q = compileGraph(g, off);
    ASSERT_TRUE(q.ok()) << q.message();
    EXPECT_EQ(q->launches[0].gridSize(), c.gridOff);
    if (!ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
  }
}

// gemm-split-k: the k steps of few tiles split over CTAs. Chosen (0, the
// default): the splits double while twice the CTAs fit in one wave (132)
// and each split keeps 256 of K, kept at 4 or more of a K of 2048 or more;
// the plan carries the split and its workspace (counters, 256-byte
// aligned, then a slot of partial sums a tile and split); the PTX counts
// arrivals with a relaxed atomic add between release and acquire fences
// and hands the last arrival to its unit (a warp's shuffle, a warpgroup's
// barrier OR); every schedule assembles without spills. 1 never splits,
// and a negative count is refused.
TEST(GemmScheduleTest, SplitKOverCtas) {
  std::string ptxas = ptxasPath();
  struct Case {
    int64_t m, n, k;
    bool gelu;
    const char *options;
    int64_t split, grid, workspaceBytes;
    const char *handOff; // the instruction that tells the unit's threads
  };
  // 16 x 1024 x 4096: 32 tiles of 32 x 32 (2 warps), 32 k steps of 128:
  // 256 + 32 x 4 x 4096 bytes. 128 x 1024 x 4096: 32 wgmma tiles of 64 x
  // 64 (one warpgroup), 64 k steps: 256 + 32 x 4 x 16384.
  // 64 x 520 x 2048: wgmma (the default from 33 rows), 9 tiles of 64 x 64,
  // 32 k steps: 8 splits of 4, 256 + 9 x 8 x 16384; mma.sync
  // (gemm-wgmma-min-rows=65: 17 tiles of 64 x 32, 2 warps; 64 steps of
  // 32): 4 splits of 16, 256 + 17 x 4 x 8192; with gemm-fill-sms=0, 5
  // tiles of 64 x 128 (4 warps): 8 splits of 8, 256 + 5 x 8 x 32768.
  for (const Case &c : std::vector<Case>{
           {16, 1024, 4096, false, "gemm-split-k=0", 4, 128, 524544, "shfl.sync.idx"},
           {16, 1024, 4096, true, "", 4, 128, 524544, "shfl.sync.idx"},
           {128, 1024, 4096, false, "gemm-split-k=0", 4, 128, 2097408, "bar.red.or.pred"},
           {128, 1024, 4096, false, "gemm-split-k=0 gemm-tma=0", 4, 128, 2097408,
            "bar.red.or.pred"},
           {64, 520, 2048, false, "gemm-wgmma-min-rows=65", 4, 68, 557312, "shfl.sync.idx"},
           {64, 520, 2048, false, "", 8, 72, 1179904, "bar.red.or.pred"},
           // (48 wgmma tiles of 64 x 64 over a K of 4096: 2 splits.)
           {192, 1024, 4096, true, "", 2, 96, 1573120, "bar.red.or.pred"},
           {64, 520, 2048, false, "gemm-wgmma-min-rows=65 gemm-fill-sms=0", 8, 40, 1310976,
            "shfl.sync.idx"},
           {260, 512, 500, false, "gemm-split-k=3 gemm-pingpong=1", 3, 18, 0,
            "bar.red.or.pred"},
           {300, 512, 1000, false, "gemm-split-k=3 gemm-m-chains=2 gemm-fill-sms=0", 3, 24, 0,
            "bar.red.or.pred"}}) {
    std::string name = std::to_string(c.m) + " x " + std::to_string(c.n) + " x " +
                       std::to_string(c.k) + (c.gelu ? " gelu(+ bias), " : ", ") + c.options;
    SCOPED_TRACE(name);
    Graph g("split");
    testgraphs::buildLinear(g, c.m, c.n, c.k, DType::BF16,
                            c.gelu ? testgraphs::LinearEpilogue::BiasGelu
                                   : testgraphs::LinearEpilogue::None);
    CompileOptions options;
    options.scheduleOptions = c.options;
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 1u);
    const KernelLaunchPlan &l = p->launches[0];
    EXPECT_EQ(l.splitK, c.split);
    EXPECT_EQ(l.gridSize(), c.grid);
    if (c.workspaceBytes)
      EXPECT_EQ(l.workspaceBytes, c.workspaceBytes);
    else
      EXPECT_GT(l.workspaceBytes, 0);
    EXPECT_NE(explainFusion(*p).find("k split over " + std::to_string(c.split) + " CTAs a tile"),
              std::string::npos);
    EXPECT_EQ(occurrences(p->ptx, "atom.global.add.u32"), 1u);
    EXPECT_EQ(occurrences(p->ptx, "fence.acq_rel.gpu"), 2u);
    EXPECT_EQ(occurrences(p->ptx, c.handOff), 1u);
    if (!ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
    // gemm-split-k=1: the same graph unsplit, no workspace, no atomics.
    CompileOptions unsplit;
    unsplit.scheduleOptions = "gemm-split-k=1";
    auto q = compileGraph(g, unsplit);
    ASSERT_TRUE(q.ok()) << q.message();
    EXPECT_EQ(q->launches[0].splitK, 1);
    EXPECT_EQ(q->launches[0].workspaceBytes, 0);
    EXPECT_EQ(occurrences(q->ptx, "atom.global"), 0u);
  }
  Graph g("split");
  g.output(matmul(g.input("x", {16, 256}, DType::BF16), g.input("w", {64, 256}, DType::BF16),
                  false, true));
  std::string error = scheduleOptionsError(g, "gemm-split-k=-2");
  EXPECT_NE(error.find("gemm-split-k must be >= 0"), std::string::npos) << error;
}

TEST(GemmScheduleTest, TransposedLhsWgmma) {
  std::string ptxas = ptxasPath();
  for (bool transB : {true, false})
    for (const char *opts : {"", "gemm-pingpong=1", "gemm-m-chains=2", "gemm-cluster-m=1",
                             "gemm-block-n=64"}) {
      SCOPED_TRACE(std::string(opts) + (transB ? ", b [N, K]" : ", b [K, N]"));
      Graph g("lhs_t");
      Tensor a = g.input("a", {512, 1000}, DType::BF16);
      Tensor b = transB ? g.input("b", {768, 512}, DType::BF16)
                        : g.input("b", {512, 768}, DType::BF16);
      g.output(matmul(a, b, true, transB));
      CompileOptions options;
      options.scheduleOptions = opts;
      auto p = compileGraph(g, options);
      ASSERT_TRUE(p.ok()) << p.message();
      ASSERT_EQ(p->launches.size(), 1u);
      ASSERT_FALSE(p->launches[0].tensorMaps.empty());
      const TensorMapPlan &lhs = p->launches[0].tensorMaps[0];
      EXPECT_EQ(lhs.dims, (std::vector<int64_t>{512, 1000}));
      EXPECT_EQ(lhs.box, (std::vector<int64_t>{64, 64}));
      // imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b ([K, N] is
      // transposed for wgmma, [N, K] is not).
      std::string flags = transB ? "p, 1,  1, 1,  0;" : "p, 1,  1, 1,  1;";
      EXPECT_GT(occurrences(p->ptx, flags), 0u);
      EXPECT_EQ(occurrences(p->ptx, "wgmma.mma_async"), occurrences(p->ptx, flags));
      if (ptxas.empty())
        continue;
      expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a", true);
    }
  Graph odd("lhs_t_unaligned");
  odd.output(matmul(odd.input("a", {512, 1001}, DType::BF16),
                    odd.input("b", {768, 512}, DType::BF16), true, true));
  auto q = compileGraph(odd);
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_EQ(occurrences(q->ptx, "wgmma.mma_async"), 0u);
  EXPECT_GT(occurrences(q->ptx, "mma.sync.aligned.m16n8k16"), 0u);
}

// A transposed lhs with batch dims, a [B, K, M] (x^T @ w per batch), with
// a batched or a shared rhs: on wgmma its tensor map is 3-D {B, K, M} in
// {1, 64, 64} boxes (a shared 2-D rhs keeps a 2-D map, a batched one a 3-D
// map), the output's map is 3-D and the copies are 3-D; M % 8 != 0 (no
// tensor map) and sm_80 take mma.sync. Every variant assembles without
// spills, its dynamic shared memory declared `.extern`.
TEST(GemmScheduleTest, BatchedTransposedLhs) {
  std::string ptxas = ptxasPath();
  struct Case {
    bool batchedRhs, transB;
    int64_t m;
    const char *target;
    bool wgmma;
  };
  for (Case c : {Case{true, true, 192, "sm_90a", true}, Case{false, false, 192, "sm_90a", true},
                 Case{true, false, 192, "sm_90a", true}, Case{false, true, 130, "sm_90a", false},
                 Case{true, true, 192, "sm_80", false}}) {
    SCOPED_TRACE(std::string(c.target) + (c.batchedRhs ? " batched rhs" : " shared rhs") +
                 (c.transB ? " [N, K]" : " [K, N]") + " M=" + std::to_string(c.m));
    const int64_t batch = 3, k = 256, n = 128;
    Graph g("bt_lhs");
    Tensor a = g.input("a", {batch, k, c.m}, DType::BF16);
    Shape bs = c.transB ? Shape{n, k} : Shape{k, n};
    if (c.batchedRhs)
      bs.insert(bs.begin(), batch);
    g.output(silu(matmul(a, g.input("b", bs, DType::BF16), true, c.transB)));
    CompileOptions options;
    options.target = c.target;
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 1u);
    EXPECT_EQ(occurrences(p->ptx, "wgmma.mma_async") > 0, c.wgmma);
    EXPECT_EQ(occurrences(p->ptx, "mma.sync.aligned.m16n8k16") > 0, !c.wgmma);
    // The panels live in dynamic shared memory, declared external (after
    // any static shared variable: tilec-extern-dynamic-shared).
    EXPECT_EQ(occurrences(p->ptx, ".extern .shared .align 16 .b8 __dynamic_shmem__0[];"), 1u);
    if (c.wgmma) {
      const auto &maps = p->launches[0].tensorMaps;
      ASSERT_EQ(maps.size(), 3u);
      EXPECT_EQ(maps[0].dims, (std::vector<int64_t>{batch, k, c.m}));
      EXPECT_EQ(maps[0].box, (std::vector<int64_t>{1, 64, 64}));
      EXPECT_EQ(maps[1].dims.size(), c.batchedRhs ? 3u : 2u);
      EXPECT_EQ(maps[2].dims, (std::vector<int64_t>{batch, c.m, n}));
      EXPECT_GT(occurrences(p->ptx, "cp.async.bulk.tensor.3d.shared::cluster.global"), 0u);
    }
    if (ptxas.empty())
      continue;
    expectAssemblesWithoutSpills(ptxas, p->ptx, c.target);
  }
}

// The TMA-store epilogue (gemm-tma-store, default on): the output's tensor
// map comes last, the PTX stores with cp.async.bulk.tensor from shared
// memory and waits on bulk groups. 16-bit outputs go in 64 x 64 boxes, f32
// ones in 64 x 32 (128-byte rows, written with 8-byte st.shared); a batched
// product's map is 3-D, {batch, rows / batch, N} in {1, 64, cols} boxes.
// Two outputs and f32 rows that are not 16-byte aligned keep direct stores.
// Every variant assembles without spills or injected warpgroup syncs.
TEST(GemmScheduleTest, TmaStoreEpilogue) {
  std::string ptxas = ptxasPath();
  struct Case {
    const char *name;
    std::function<void(Graph &)> build;
    std::vector<int64_t> box, dims; // the output's tensor map; empty: direct stores
  };
  std::vector<Case> cases{
      {"bf16", [](Graph &g) {
         g.output(matmul(g.input("a", {2887, 200}, DType::BF16),
                         g.input("b", {1320, 200}, DType::BF16), false, true));
       }, {64, 64}, {2887, 1320}},
      {"bias gelu f16", [](Graph &g) {
         Tensor x = g.input("x", {2500, 264}, DType::F16);
         Tensor w = g.input("w", {776, 264}, DType::F16);
         g.output(gelu(nn::linear(x, w, g.input("bias", {776}, DType::F16))));
       }, {64, 64}, {2500, 776}},
      {"swiglu", [](Graph &g) {
         Tensor x = g.input("x", {1500, 256}, DType::BF16);
         Tensor wg = g.input("w_gate", {336, 256}, DType::BF16);
         Tensor wu = g.input("w_up", {336, 256}, DType::BF16);
         g.output(silu(matmul(x, wg, false, true)) * matmul(x, wu, false, true));
       }, {64, 64}, {1500, 336}},
      {"f32 out", [](Graph &g) {
         g.output(cast(matmul(g.input("a", {512, 256}, DType::BF16),
                              g.input("b", {512, 256}, DType::BF16), false, true),
                       DType::F32));
       }, {64, 32}, {512, 512}},
      {"f32 out, bias, N 1000", [](Graph &g) {
         Tensor x = g.input("x", {1100, 136}, DType::BF16);
         Tensor w = g.input("w", {1000, 136}, DType::BF16);
         g.output(matmul(x, w, DType::F32, false, true) +
                  cast(g.input("bias", {1000}, DType::BF16), DType::F32));
       }, {64, 32}, {1100, 1000}},
      {"batched", [](Graph &g) {
         g.output(matmul(g.input("a", {3, 700, 128}, DType::BF16),
                         g.input("b", {3, 264, 128}, DType::BF16), false, true));
       }, {1, 64, 64}, {3, 700, 264}},
      {"batched a @ b", [](Graph &g) {
         g.output(matmul(g.input("a", {2, 300, 200}, DType::BF16),
                         g.input("b", {2, 200, 136}, DType::BF16)));
       }, {1, 64, 64}, {2, 300, 136}},
      {"batched f32 out", [](Graph &g) {
         g.output(matmul(g.input("a", {3, 700, 128}, DType::BF16),
                         g.input("b", {3, 264, 128}, DType::BF16), DType::F32, false, true));
       }, {1, 64, 32}, {3, 700, 264}},
      {"f32 out, N 258", [](Graph &g) {
         g.output(cast(matmul(g.input("a", {512, 256}, DType::BF16),
                              g.input("b", {258, 256}, DType::BF16), false, true),
                       DType::F32));
       }, {}, {}},
      {"two outputs", [](Graph &g) {
         Tensor y = matmul(g.input("a", {512, 256}, DType::BF16),
                           g.input("b", {512, 256}, DType::BF16), false, true);
         g.output(y);
         g.output(silu(y));
       }, {}, {}},
  };
  // (gemm-fill-sms=0 with 192 columns: the 128-row tiles, which the
  // default narrows to 64 rows for these few tiles.)
  for (const char *opts : {"", "gemm-block-n=64 gemm-cluster-m=1",
                           "gemm-block-n=192 gemm-fill-sms=0", "gemm-pingpong=1",
                           "gemm-m-chains=2"})
    for (const Case &c : cases) {
      SCOPED_TRACE(std::string(c.name) + ", " + opts);
      Graph g("tma_store");
      c.build(g);
      CompileOptions options;
      options.scheduleOptions = opts;
      auto p = compileGraph(g, options);
      if (std::string(c.name) == "swiglu" &&
          std::string(opts) == "gemm-block-n=192 gemm-fill-sms=0") {
        // Two 192-column panels a stage: too big even without the buffers.
        ASSERT_FALSE(p.ok());
        EXPECT_NE(p.message().find("bytes of shared memory"), std::string::npos);
        continue;
      }
      ASSERT_TRUE(p.ok()) << p.message();
      ASSERT_EQ(p->launches.size(), 1u);
      const KernelLaunchPlan &l = p->launches[0];
      bool staged = !c.box.empty();
      EXPECT_EQ(l.tmaStore, staged);
      std::string store = "cp.async.bulk.tensor." + std::to_string(c.box.size()) +
                          "d.global.shared::cta.tile.bulk_group";
      EXPECT_EQ(p->ptx.find("cp.async.bulk.tensor.2d.global.shared::cta") != std::string::npos ||
                    p->ptx.find("cp.async.bulk.tensor.3d.global.shared::cta") !=
                        std::string::npos,
                staged);
      if (staged) {
        ASSERT_FALSE(l.tensorMaps.empty());
        const TensorMapPlan &out = l.tensorMaps.back();
        EXPECT_EQ(out.box, c.box);
        EXPECT_EQ(out.dims, c.dims);
        EXPECT_NE(p->ptx.find(store), std::string::npos);
        EXPECT_NE(p->ptx.find("cp.async.bulk.wait_group.read \t"), std::string::npos);
        EXPECT_NE(p->ptx.find("cp.async.bulk.wait_group \t0;"), std::string::npos);
        // f32 units: 8-byte shared stores, one select a value (odd rows
        // store the pair of tile j ^ 2).
        bool f32 = c.box.back() == 32;
        EXPECT_EQ(p->ptx.find("st.shared.v2.b32") != std::string::npos ||
                      p->ptx.find("st.shared.v2.f32") != std::string::npos,
                  f32);
        EXPECT_EQ(p->ptx.find("selp.f32") != std::string::npos, f32);
      }
      if (ptxas.empty())
        continue;
      expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a", true);
    }
}

// Programmatic dependent launch (tilec-dependent-launch): on sm_90a every
// kernel (row kernels, streamed rows, TMA GEMMs) waits for the previous
// grid before its first global memory access, then lets the next one be
// scheduled, and its launch plan says it may be launched early. Off, and
// on sm_80 (no griddepcontrol), there is neither.
TEST(DependentLaunchTest, EveryKernelWaitsBeforeItsFirstMemoryAccess) {
  auto build = [](Graph &g) {
    Tensor q = g.input("q", {8, 130, 64}, DType::BF16);
    Tensor k = g.input("k", {8, 200, 64}, DType::BF16);
    Tensor v = g.input("v", {8, 200, 64}, DType::BF16);
    Tensor o = nn::attention(q, k, v, 0.125);
    Tensor x = g.input("x", {16, 32768}, DType::BF16);
    g.output(o);
    g.output(nn::rms_norm(x, g.input("w", {32768}, DType::BF16)));
  };
  const std::regex memoryAccess(
      R"((ld|st)\.global|cp\.async|atom\.|red\.|prefetch\.(global\.)?L1|ld\.shared::cluster)");
  for (bool on : {true, false})
    for (const char *target : {"sm_90a", "sm_80"}) {
      SCOPED_TRACE(std::string(target) + (on ? " on" : " off"));
      Graph g("pdl");
      build(g);
      CompileOptions options;
      options.target = target;
      options.dependentLaunch = on;
      auto p = compileGraph(g, options);
      ASSERT_TRUE(p.ok()) << p.message();
      ASSERT_EQ(p->launches.size(), 4u) << explainFusion(*p);
      bool expected = on && std::string(target) == "sm_90a";
      for (const KernelLaunchPlan &l : p->launches)
        EXPECT_EQ(l.dependentLaunch, expected) << l.name;
      EXPECT_EQ(usesDependentLaunch(options), expected);
      // Each kernel's body, from its .entry to the next one.
      size_t entries = 0;
      for (size_t at = p->ptx.find(".entry"); at != std::string::npos; ++entries) {
        size_t next = p->ptx.find(".entry", at + 1);
        std::string body = p->ptx.substr(at, next == std::string::npos ? next : next - at);
        at = next;
        size_t wait = body.find("griddepcontrol.wait;");
        size_t launch = body.find("griddepcontrol.launch_dependents;");
        if (!expected) {
          EXPECT_EQ(wait, std::string::npos);
          EXPECT_EQ(launch, std::string::npos);
          continue;
        }
        ASSERT_NE(wait, std::string::npos) << body.substr(0, 2000);
        ASSERT_NE(launch, std::string::npos);
        EXPECT_LT(wait, launch);
        std::smatch first;
        ASSERT_TRUE(std::regex_search(body, first, memoryAccess));
        EXPECT_LT(wait, static_cast<size_t>(first.position(0))) << first.str(0);
        EXPECT_EQ(occurrences(body, "griddepcontrol"), 2u);
      }
      EXPECT_EQ(entries, 4u);
    }
}

// gemm-l2-prefetch: a decode GEMM (mma.sync, an [N, K] rhs) under
// dependent launch prefetches its first weights into L2 ahead of the wait,
// every CTA 32 KB of its own rows (rows past N clamped to N's last),
// and loads nothing before it; 0 turns that off, and so does a launch
// without the wait (nothing to run ahead of). An explicit size applies
// without it; sm_80 takes none (the NVPTX backend selects the prefetch for
// sm_90 only). The PTX assembles without spills.
TEST(DependentLaunchTest, DecodeGemmsPrefetchWeightsAheadOfTheWait) {
  auto build = [](Graph &g) {
    // N = 1000: the last 32-column tile runs past N.
    Tensor x = g.input("x", {1, 4096}, DType::BF16);
    Tensor w = g.input("w", {1000, 4096}, DType::BF16);
    g.output(matmul(x, w, false, true));
  };
  const std::regex memoryAccess(R"((ld|st)\.global|cp\.async|atom\.|red\.)");
  struct Case {
    const char *target;
    bool pdl;
    std::string schedule;
    int64_t bytes; // a CTA's prefetched bytes (0: no prefetch)
  };
  for (const Case &c : {Case{"sm_90a", true, "", 32768}, Case{"sm_90a", true, "gemm-l2-prefetch=0", 0},
                        Case{"sm_90a", false, "", 0},
                        Case{"sm_90a", true, "gemm-l2-prefetch=16384", 16384},
                        Case{"sm_90a", false, "gemm-l2-prefetch=16384", 16384},
                        Case{"sm_80", true, "gemm-l2-prefetch=16384", 0}}) {
    SCOPED_TRACE(std::string(c.target) + (c.pdl ? " pdl " : " no pdl ") + c.schedule);
    Graph g("decode");
    build(g);
    CompileOptions options;
    options.target = c.target;
    options.dependentLaunch = c.pdl;
    options.scheduleOptions = c.schedule;
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 1u);
    EXPECT_EQ(p->launches[0].l2PrefetchBytes, c.bytes);
    EXPECT_EQ(explainFusion(*p).find(std::to_string(c.bytes) +
                                     " bytes of weights a CTA prefetched into L2 first") !=
                  std::string::npos,
              c.bytes > 0)
        << explainFusion(*p);
    const std::string &ptx = p->ptx;
    size_t prefetches = occurrences(ptx, "prefetch.L2");
    if (c.bytes == 0) {
      EXPECT_EQ(prefetches, 0u);
      continue;
    }
    // 32-row tiles (decode): each row's share in 128-byte lines, plus its
    // last byte, spread over the CTA's threads.
    int64_t threads = p->launches[0].blockSize();
    int64_t perRow = c.bytes / 32 / 128 + 1;
    EXPECT_EQ(prefetches, static_cast<size_t>((32 * perRow + threads - 1) / threads)) << ptx;
    size_t wait = ptx.find("griddepcontrol.wait;");
    std::smatch first;
    ASSERT_TRUE(std::regex_search(ptx, first, memoryAccess));
    size_t lastPrefetch = ptx.rfind("prefetch.L2");
    EXPECT_LT(lastPrefetch, static_cast<size_t>(first.position(0)));
    if (c.pdl) {
      ASSERT_NE(wait, std::string::npos);
      EXPECT_LT(lastPrefetch, wait);
      EXPECT_LT(wait, static_cast<size_t>(first.position(0)));
    } else {
      EXPECT_EQ(wait, std::string::npos);
    }
    if (std::string ptxas = ptxasPath(); !ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, ptx, c.target);
  }
  Graph g("decode");
  build(g);
  EXPECT_NE(scheduleOptionsError(g, "gemm-l2-prefetch=-2").find("gemm-l2-prefetch must be >= -1"),
            std::string::npos);
  // wgmma GEMMs (from 33 rows on sm_90a): up to 64 rows prefetch too, more
  // rows (prefill: large kernels ahead) do not.
  for (int64_t rows : {64, 65}) {
    Graph batch("batch");
    Tensor x = batch.input("x", {rows, 4096}, DType::BF16);
    batch.output(matmul(x, batch.input("w", {1024, 4096}, DType::BF16), false, true));
    auto p = compileGraph(batch, CompileOptions{});
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_EQ(occurrences(p->ptx, "prefetch.L2") > 0, rows == 64) << rows << " rows";
  }
}

// row-l2-prefetch: row kernels of rows in registers (one row a CTA, rows
// split over a cluster, several rows a CTA) prefetch their row inputs'
// rows D blocks ahead, a line a thread, before their own loads. By default
// rows of under 128 KiB take the D blocks that hold 2 MiB
// (row-l2-prefetch-bytes) of their row inputs in kernels with reductions,
// 1 MiB (row-l2-prefetch-elementwise-bytes) in kernels without, where the
// grid has 2 D blocks or more and 1056 CTAs (8 an SM), after the
// dependent-launch wait. With row-l2-prefetch-first the first D blocks'
// CTAs prefetch their own rows too, all ahead of the wait; by default
// (auto) the kernels without reductions and those that reduce one row
// input of rows a CTA do. Rows of 128 KiB or more, grids of fewer (one
// wave), sm_80 (no prefetch instruction there), streamed rows and row
// loops take none, and neither does 0 (or 0 bytes). Without rows ahead,
// row-l2-prefetch-first has every CTA prefetch its own slice ahead of the
// wait: by default where rows are split over a cluster in a grid of one
// wave. -2 and negative bytes are refused. The kernels still assemble
// without spills.
TEST(ScheduleTest, RowsAheadPrefetchedIntoL2WhereRowsStayInRegisters) {
  struct Case {
    const char *op;
    DType dtype;
    int64_t rows, cols;
    std::string options, target;
    int64_t ahead;     // the plan's l2PrefetchRows
    bool first;        // the plan's l2PrefetchFirst
    size_t prefetches; // prefetch.L2 in the PTX: each row input's lines over the threads
  };
  for (const Case &c : {
           // (16 KB rows: 128 of them hold 2 MiB. One row input: the first
           // blocks' own rows too, twice the prefetches, ahead of the wait.)
           Case{"layer_norm", DType::BF16, 4096, 8192, "", "sm_90a", 128, true, 2},
           Case{"layer_norm", DType::BF16, 4096, 8192, "row-l2-prefetch-first=false", "sm_90a",
                128, false, 1},
           Case{"layer_norm", DType::BF16, 4096, 8192, "row-l2-prefetch=256", "sm_90a", 256, true,
                2},
           Case{"layer_norm", DType::BF16, 4096, 8192, "row-l2-prefetch-bytes=4194304", "sm_90a",
                256, true, 2},
           // (Less than a row block: one block ahead.)
           Case{"rms_norm", DType::BF16, 4096, 8192, "row-l2-prefetch-bytes=1000", "sm_90a", 1,
                true, 2},
           Case{"rms_norm", DType::BF16, 4096, 4096, "", "sm_90a", 256, true, 2},
           Case{"rms_norm", DType::F32, 16384, 4096, "", "sm_90", 128, true, 2},
           Case{"softmax", DType::F32, 4096, 8192, "", "sm_90a", 64, true, 2},
           // (Two row inputs: not the first blocks' own, unless asked.)
           Case{"add_rms_norm", DType::BF16, 4096, 8192, "", "sm_90a", 64, false, 2},
           Case{"add_rms_norm", DType::BF16, 4096, 8192, "row-l2-prefetch-first=true", "sm_90a",
                64, true, 4},
           // (128 KiB rows and more: none chosen. 256 KB rows over a cluster
           // asked for: 32 KB slices, 256 lines, and one more where a slice
           // would start off a line, for 256 threads: two a thread; not the
           // first blocks' own, unless asked.)
           Case{"softmax", DType::F32, 4096, 32768, "", "sm_90a", 0, false, 0},
           Case{"softmax", DType::BF16, 4096, 131072, "", "sm_90a", 0, false, 0},
           Case{"softmax", DType::BF16, 4096, 131072, "row-l2-prefetch=4", "sm_90a", 4, false, 2},
           Case{"softmax", DType::BF16, 264, 131072, "row-l2-prefetch=8 row-l2-prefetch-first=true",
                "sm_90a", 8, true, 4},
           // (One wave of clusters: each CTA's own slice, a line a thread:
           // 48 KB of bf16 in one round of 512 threads, 88 KB of f32 in
           // two; two row inputs, one each. Not in grids of several waves,
           // not under row-l2-prefetch=0; asked for, in CTA-wide rows too.)
           Case{"softmax", DType::BF16, 16, 131072, "", "sm_90a", 0, true, 1},
           Case{"softmax", DType::F32, 16, 131072, "", "sm_90a", 0, true, 2},
           Case{"softmax", DType::BF16, 1, 131072, "", "sm_90a", 0, true, 1},
           Case{"add_rms_norm", DType::BF16, 16, 131072, "", "sm_90a", 0, true, 2},
           Case{"softmax", DType::BF16, 16, 131072, "row-l2-prefetch-first=false", "sm_90a", 0,
                false, 0},
           Case{"softmax", DType::BF16, 16, 131072, "row-l2-prefetch=0", "sm_90a", 0, false, 0},
           Case{"softmax", DType::BF16, 100, 131072, "", "sm_90a", 0, false, 0},
           Case{"rms_norm", DType::BF16, 16, 4096, "row-l2-prefetch-first=true", "sm_90a", 0, true,
                1},
           Case{"add_rms_norm", DType::BF16, 512, 4096, "", "sm_90a", 0, false, 0},
           Case{"rms_norm", DType::BF16, 16, 4096, "", "sm_90a", 0, false, 0},
           // (Without reductions: 1 MiB ahead, the first blocks' own rows
           // too, whatever the row inputs, where a thread loads at most 32
           // bytes of them. elementwise_chain: two row inputs, 16 KB a row;
           // rope: 16 rows of 128 a CTA, 4 KB a block; 56 KB rows of two
           // inputs over 7 CTAs a row. f32 elementwise_chain and silu_mul:
           // one 4-element vector of each of two inputs a thread (32 bytes;
           // two without rows ahead), 14 CTAs a row at 14336 columns.)
           Case{"elementwise_chain", DType::BF16, 16384, 4096, "", "sm_90a", 64, true, 4},
           Case{"elementwise_chain", DType::F32, 4096, 4096, "", "sm_90a", 32, true, 4},
           Case{"elementwise_chain", DType::F32, 4096, 4096, "row-l2-prefetch-elementwise-bytes=0",
                "sm_90a", 0, false, 0},
           Case{"silu_mul", DType::F32, 4096, 14336, "", "sm_90a", 9, true, 4},
           Case{"rope", DType::F32, 16384, 4096, "", "sm_90a", 256, true, 2},
           Case{"silu_mul", DType::BF16, 4096, 14336, "", "sm_90a", 18, true, 4},
           Case{"elementwise_chain", DType::BF16, 16384, 4096,
                "row-l2-prefetch-elementwise-bytes=0", "sm_90a", 0, false, 0},
           Case{"elementwise_chain", DType::BF16, 16384, 4096, "row-l2-prefetch-first=false",
                "sm_90a", 64, false, 2},
           Case{"rope", DType::BF16, 4096, 4096, "", "sm_90a", 256, true, 2},
           Case{"rope", DType::BF16, 16384, 4096, "row-l2-prefetch=64", "sm_90a", 64, true, 2},
           Case{"rope", DType::BF16, 16384, 4096, "row-l2-prefetch=64 row-l2-prefetch-first=false",
                "sm_90a", 64, false, 1},
           Case{"silu_mul", DType::BF16, 512, 4096, "", "sm_90a", 0, false, 0},
           Case{"rms_norm", DType::BF16, 4096, 4096, "row-l2-prefetch=0", "sm_90a", 0, false, 0},
           Case{"rms_norm", DType::BF16, 4096, 4096, "", "sm_80", 0, false, 0},
           Case{"rms_norm", DType::F32, 64, 400000, "", "sm_90a", 0, false, 0},
           Case{"rms_norm", DType::BF16, 8192, 4096, "row-l2-prefetch=64 row-loop=true",
                "sm_90a", 0, false, 0}}) {
    SCOPED_TRACE(std::string(c.op) + " " + dtypeName(c.dtype) + " [" + std::to_string(c.rows) +
                 ", " + std::to_string(c.cols) + "] '" + c.options + "' " + c.target);
    Graph g(c.op);
    ASSERT_TRUE(examples::build(c.op, g, c.rows, c.cols, c.dtype).ok());
    CompileOptions options;
    options.target = c.target;
    options.scheduleOptions = c.options;
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 1u);
    EXPECT_EQ(p->launches[0].l2PrefetchRows, c.ahead) << explainFusion(*p);
    EXPECT_EQ(p->launches[0].l2PrefetchFirst, c.first) << explainFusion(*p);
    const std::string &ptx = p->ptx;
    EXPECT_EQ(occurrences(ptx, "prefetch.L2"), c.prefetches) << explainFusion(*p);
    if (c.ahead > 0 || c.first) {
      std::string explained = explainFusion(*p);
      if (c.ahead > 0)
        EXPECT_NE(explained.find("rows " + std::to_string(c.ahead) +
                                 " blocks ahead prefetched into L2" +
                                 (c.first ? " (the first blocks' own too)" : "")),
                  std::string::npos)
            << explained;
      else
        EXPECT_NE(explained.find("each CTA's slice prefetched into L2 ahead of the wait"),
                  std::string::npos)
            << explained;
      EXPECT_EQ(explained.find("first blocks' own") != std::string::npos, c.first && c.ahead > 0)
          << explained;
      // Ahead of the row's first load; after the dependent-launch wait,
      // unless the first blocks prefetch their own rows (then all of them
      // come ahead of it).
      EXPECT_LT(ptx.find("prefetch.L2"), ptx.find("ld.global")) << ptx;
      ASSERT_NE(ptx.find("griddepcontrol.wait"), std::string::npos);
      if (c.first)
        EXPECT_GT(ptx.find("griddepcontrol.wait"), ptx.rfind("prefetch.L2")) << ptx;
      else
        EXPECT_LT(ptx.find("griddepcontrol.wait"), ptx.find("prefetch.L2")) << ptx;
      if (std::string ptxas = ptxasPath(); !ptxas.empty())
        expectAssemblesWithoutSpills(ptxas, ptx, c.target);
    }
  }
  // (The refusals name the value given, as a number.)
  EXPECT_NE(scheduleOptionsError("row-l2-prefetch=-2")
                .find("row-l2-prefetch must be >= -1 (-1: chosen, 0: off), got -2"),
            std::string::npos);
  EXPECT_NE(scheduleOptionsError("row-l2-prefetch-bytes=0").find(
                "row-l2-prefetch-bytes must be >= 1, got 0"),
            std::string::npos);
  EXPECT_NE(scheduleOptionsError("row-l2-prefetch-elementwise-bytes=-1")
                .find("row-l2-prefetch-elementwise-bytes must be >= 0 (0: none), got -1"),
            std::string::npos);
  EXPECT_NE(scheduleOptionsError("row-l2-prefetch-first=yes")
                .find("row-l2-prefetch-first must be auto, true or false, got 'yes'"),
            std::string::npos);
}

// attention-l2-prefetch: decode's flash kernel (keys split over CTAs)
// prefetches its split's k and v blocks into L2 ahead of the wait, 32 KB
// of each a CTA by default (a line or two a thread), then loads nothing
// before the wait; 0 turns that off, and a kernel of unsplit keys (many
// query rows) takes none by default.
TEST(DependentLaunchTest, DecodeAttentionPrefetchesItsKeysAheadOfTheWait) {
  auto build = [](Graph &g, int64_t rows) {
    Tensor q = g.input("q", {8, rows, 128}, DType::BF16);
    Tensor k = g.input("k", {8, 4096, 128}, DType::BF16);
    Tensor v = g.input("v", {8, 4096, 128}, DType::BF16);
    g.output(nn::attention(q, k, v, 0.088));
  };
  const std::regex memoryAccess(R"((ld|st)\.global|cp\.async\.bulk\.tensor|atom\.|red\.)");
  struct Case {
    int64_t rows;
    std::string schedule;
    bool prefetch;
  };
  for (const Case &c : {Case{4, "", true}, Case{4, "attention-l2-prefetch=0", false},
                        Case{2048, "", false}}) {
    SCOPED_TRACE(std::to_string(c.rows) + " rows " + c.schedule);
    Graph g("decode_attention");
    build(g, c.rows);
    CompileOptions options;
    options.scheduleOptions = c.schedule;
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 1u) << explainFusion(*p);
    EXPECT_EQ(p->launches[0].splitK > 1, c.rows == 4) << explainFusion(*p);
    EXPECT_EQ(p->launches[0].l2PrefetchBytes, c.prefetch ? 65536 : 0);
    EXPECT_EQ(explainFusion(*p).find("65536 bytes of k and v a CTA prefetched into L2 first") !=
                  std::string::npos,
              c.prefetch)
        << explainFusion(*p);
    const std::string &ptx = p->ptx;
    size_t prefetches = occurrences(ptx, "prefetch.L2");
    if (!c.prefetch) {
      EXPECT_EQ(prefetches, 0u);
      continue;
    }
    // 32 KB of each of k and v in 128-byte lines over the CTA's threads.
    int64_t threads = p->launches[0].blockSize();
    EXPECT_EQ(prefetches, static_cast<size_t>(2 * ((256 + threads - 1) / threads))) << ptx;
    size_t wait = ptx.find("griddepcontrol.wait;");
    ASSERT_NE(wait, std::string::npos);
    std::smatch first;
    ASSERT_TRUE(std::regex_search(ptx, first, memoryAccess));
    EXPECT_LT(ptx.rfind("prefetch.L2"), wait);
    EXPECT_LT(wait, static_cast<size_t>(first.position(0)));
    if (std::string ptxas = ptxasPath(); !ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, ptx, "sm_90a");
  }
}

// row-loop: kernels of rows in registers with at least 1024 row blocks loop
// over them in a grid the runtime sizes to what fits; few rows, streamed
// rows and rows split over clusters keep one CTA a row block. The loop's
// PTX assembles without spills.
TEST(RowScheduleTest, RowLoopOnlyWhereRowsFillTheGpuManyTimes) {
  std::string ptxas = ptxasPath();
  struct Case {
    std::string op;
    DType dtype;
    int64_t rows, cols;
    bool loops;
  };
  for (const Case &c : {Case{"rms_norm", DType::BF16, 8192, 4096, true},
                        Case{"layer_norm", DType::BF16, 4096, 8192, true},
                        Case{"softmax", DType::F32, 4096, 8192, true},
                        Case{"rope", DType::BF16, 8192, 4096, true},
                        Case{"rms_norm", DType::BF16, 16, 4096, false},
                        Case{"rms_norm", DType::BF16, 4096, 32768, false},
                        Case{"softmax", DType::BF16, 16, 131072, false}}) {
    SCOPED_TRACE(c.op + " " + std::to_string(c.rows) + "x" + std::to_string(c.cols));
    CompiledProgram looped =
        compileExample(c.op, c.rows, c.cols, c.dtype, "sm_90a", "row-loop=true");
    CompiledProgram plain = compileExample(c.op, c.rows, c.cols, c.dtype);
    ASSERT_EQ(looped.launches.size(), 1u);
    ASSERT_EQ(plain.launches.size(), 1u);
    EXPECT_EQ(looped.launches[0].rowLoop, c.loops);
    EXPECT_FALSE(plain.launches[0].rowLoop);
    EXPECT_EQ(looped.launches[0].gridSize(), plain.launches[0].gridSize());
    if (c.loops) {
      EXPECT_NE(explainFusion(looped).find("looping over row blocks"), std::string::npos);
      EXPECT_NE(looped.ptx.find("%nctaid.x"), std::string::npos);
      if (!ptxas.empty())
        expectAssemblesWithoutSpills(ptxas, looped.ptx, "sm_90a");
    }
  }
  std::string refused = scheduleOptionsError("row-loop=sometimes");
  EXPECT_NE(refused.find("row-loop must be auto, true or false, got 'sometimes'"),
            std::string::npos)
      << refused;
}

// stage-weights=true: kernels of one row a CTA in registers copy their
// weight (and bias) vectors into shared memory (one row's width each),
// after the row's loads; the first read waits for all copies. Sunk past the
// reductions (sink-loads=true), layer_norm bf16 [8192, 4096] takes 56
// registers instead of 80. Rows of several a CTA, streamed rows and 2-byte
// vectors are left as they are.
TEST(RowScheduleTest, StageWeightsWhereOneRowFillsACta) {
  std::string ptxas = ptxasPath();
  struct Case {
    std::string op;
    DType dtype;
    int64_t rows, cols, sharedBytes;
  };
  for (const Case &c : {Case{"layer_norm", DType::BF16, 8192, 4096, 2 * 4096 * 2},
                        Case{"rms_norm", DType::BF16, 4096, 8192, 8192 * 2},
                        // 512 threads x 3 vectors of 4 for 4100 columns.
                        Case{"layer_norm", DType::F32, 37, 4100, 2 * 6144 * 4},
                        Case{"rms_norm", DType::BF16, 3000, 1000, 0},
                        Case{"rms_norm", DType::BF16, 4096, 32768, 0},
                        Case{"layer_norm", DType::BF16, 600, 8191, 0}}) {
    SCOPED_TRACE(c.op + " " + std::to_string(c.rows) + "x" + std::to_string(c.cols));
    // (Without the rows-ahead prefetch, which takes layer_norm's staged
    // kernel to 63 registers.)
    CompiledProgram p = compileExample(c.op, c.rows, c.cols, c.dtype, "sm_90a",
                                       "stage-weights=true sink-loads=true row-l2-prefetch=0");
    ASSERT_EQ(p.launches.size(), 1u);
    const KernelLaunchPlan &l = p.launches[0];
    EXPECT_EQ(l.stagedWeights, c.sharedBytes > 0);
    if (c.sharedBytes == 0) {
      EXPECT_EQ(p.ptx.find("cp.async.c"), std::string::npos);
      continue;
    }
    EXPECT_EQ(l.sharedBytes, c.sharedBytes);
    EXPECT_NE(explainFusion(p).find("weights copied into " + std::to_string(c.sharedBytes) +
                                    " bytes of shared memory"),
              std::string::npos)
        << explainFusion(p);
    // The copies (through L1: .ca) follow the row's loads; one wait for
    // all of them.
    size_t firstCopy = p.ptx.find("cp.async.ca.shared.global");
    ASSERT_NE(firstCopy, std::string::npos);
    EXPECT_LT(p.ptx.find("ld.global"), firstCopy);
    EXPECT_EQ(occurrences(p.ptx, "cp.async.wait_group \t0"), 1u);
    if (!ptxas.empty()) {
      expectAssemblesWithoutSpills(ptxas, p.ptx, "sm_90a");
      if (c.op == "layer_norm" && c.dtype == DType::BF16) {
        int status = 0;
        std::string log = assemble(ptxas, p.ptx, "sm_90a", status);
        EXPECT_NE(log.find("Used 56 registers"), std::string::npos) << log;
      }
    }
  }
}

// row-scalars=auto (tilec-fold-row-scalars) on whole kernels: with a 16-bit
// result layer_norm's (x - mean) * rstd and softmax's exp(x - max) lose
// their per-element subtraction (one FMA each), softmax's division becomes
// one reciprocal a row; with an f32 result only the division changes. The
// counts are per thread (rows of 8192 over 256 threads in bf16, 512 in f32).
TEST(RowScheduleTest, RowScalarsFoldedUnderFastMath) {
  std::string ptxas = ptxasPath();
  struct Case {
    std::string op;
    DType dtype;
    size_t values, subsAfter; // values a thread; x - m left per thread
  };
  for (const Case &c : {Case{"layer_norm", DType::BF16, 32, 0}, Case{"layer_norm", DType::F32, 16, 16},
                        Case{"softmax", DType::BF16, 32, 0}, Case{"softmax", DType::F32, 16, 16}}) {
    SCOPED_TRACE(c.op + " " + dtypeName(c.dtype));
    CompiledProgram before = compileExample(c.op, 4096, 8192, c.dtype, "sm_90a", "");
    CompiledProgram after =
        compileExample(c.op, 4096, 8192, c.dtype, "sm_90a", "row-scalars=auto");
    // (The Welford pair's own subtractions are sub.rn: exact, not folded.)
    EXPECT_EQ(occurrences(before.ptx, "sub.f32"), c.values);
    EXPECT_EQ(occurrences(after.ptx, "sub.f32"), c.subsAfter);
    EXPECT_EQ(occurrences(after.ptx, "div.approx.f32"), 0u);
    if (c.op == "softmax") {
      EXPECT_EQ(occurrences(before.ptx, "div.approx.f32"), c.values);
      EXPECT_EQ(occurrences(after.ptx, "rcp.approx"), 1u);
      EXPECT_EQ(occurrences(after.ptx, "ex2.approx"), c.values);
    }
    if (!ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, after.ptx, "sm_90a");
  }
  // Precise math keeps the division and the subtraction.
  CompiledProgram precise = compileExample("softmax", 4096, 8192, DType::BF16, "sm_90a",
                                           "row-scalars=auto", /*fastMath=*/false);
  EXPECT_EQ(occurrences(precise.ptx, "rcp.approx"), 0u);
}

// Many rows of 65537-131072 columns without a weight take clusters (slices
// in registers, read once): of 4 CTAs of 512 threads, or for bf16 of 8 CTAs
// of 256; rows of 32768, few rows and rows with weights keep their
// schedules.
TEST(RowScheduleTest, ManyWideRowsSplitOverClusters) {
  struct Case {
    std::string op;
    DType dtype;
    int64_t rows, cols, cluster, streamBlocks;
  };
  for (const Case &c : {Case{"softmax", DType::BF16, 4096, 131072, 8, 0},
                        Case{"softmax", DType::BF16, 200, 100000, 8, 0},
                        Case{"softmax", DType::F32, 4096, 131072, 4, 0},
                        Case{"softmax", DType::F32, 200, 100000, 4, 0},
                        // An odd width (scalar accesses) keeps its stream.
                        Case{"softmax", DType::F32, 200, 100003, 1, 49},
                        Case{"softmax", DType::BF16, 16, 131072, 6, 0},
                        Case{"softmax", DType::BF16, 4096, 32768, 1, 2},
                        Case{"softmax", DType::BF16, 4096, 262144, 1, 16},
                        Case{"layer_norm", DType::BF16, 4096, 131072, 1, 8}}) {
    SCOPED_TRACE(c.op + " " + dtypeName(c.dtype) + " " + std::to_string(c.rows) + "x" +
                 std::to_string(c.cols));
    CompiledProgram p = compileExample(c.op, c.rows, c.cols, c.dtype, "sm_90a");
    ASSERT_EQ(p.launches.size(), 1u);
    EXPECT_EQ(p.launches[0].clusterM, c.cluster);
    EXPECT_EQ(p.launches[0].streamBlocks, c.streamBlocks);
    if (c.cluster == 8) {
      EXPECT_EQ(p.launches[0].blockSize(), 256);
    }
    // 64 values a thread in registers (f32 at 512 threads: 114 registers):
    // no spills. bf16 in clusters of 8 keeps its row packed
    // (recompute-exp=auto) and f32 at 4096 rows folds its division: the
    // packed kernel's gain rests on 64 registers or fewer, four CTAs of 256
    // an SM.
    if (std::string ptxas = ptxasPath(); !ptxas.empty() && c.cluster >= 4) {
      expectAssemblesWithoutSpills(ptxas, p.ptx, "sm_90a");
      bool packed = c.dtype == DType::BF16 && c.cluster == 8;
      EXPECT_EQ(occurrences(p.ptx, "max.NaN.bf16x2") > 0, packed);
      if (packed && c.cols == 131072) { // (ragged slices: 74, see the pass)
        int status = 0;
        std::string log = assemble(ptxas, p.ptx, "sm_90a", status);
        size_t at = log.find("Used ");
        ASSERT_NE(at, std::string::npos) << log;
        EXPECT_LE(std::stoi(log.substr(at + 5)), 64) << log;
      }
    }
  }
}

// fold-into-exp (auto by default, and true): the 128k softmax's row scalars
// folded into the exps recompute-exp makes again (bf16 results). Each exp,
// the pair's and the output's, is one FMA and one ex2 (no product with
// log2 e or 1 / s an element), log2 s one lg2.approx a row; the schedule is
// fold-into-exp=false's and ptxas gives it no spills (and 64 registers or
// fewer at 131072 columns, as unfolded). An f32 result keeps the exact
// forms: the same PTX.
TEST(RowScheduleTest, FoldIntoExpTakesOneFmaAndOneEx2AnExp) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{4096, 131072}, {200, 100000}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    CompiledProgram base =
        compileExample("softmax", rows, cols, DType::BF16, "sm_90a", "fold-into-exp=false");
    CompiledProgram fold = compileExample("softmax", rows, cols, DType::BF16, "sm_90a");
    EXPECT_EQ(fold.ptx,
              compileExample("softmax", rows, cols, DType::BF16, "sm_90a", "fold-into-exp=true").ptx);
    ASSERT_EQ(fold.launches.size(), 1u);
    EXPECT_EQ(fold.launches[0].clusterM, base.launches[0].clusterM);
    EXPECT_EQ(fold.launches[0].blockSize(), base.launches[0].blockSize());
    EXPECT_EQ(fold.launches[0].chunks, base.launches[0].chunks);
    size_t exps = occurrences(fold.ptx, "ex2.approx.ftz.f32");
    EXPECT_EQ(exps, occurrences(base.ptx, "ex2.approx.ftz.f32"));
    EXPECT_EQ(occurrences(fold.ptx, "fma.rn.f32"), exps);
    EXPECT_EQ(occurrences(base.ptx, "fma.rn.f32"), 0u);
    EXPECT_EQ(occurrences(fold.ptx, "rcp.approx"), 0u);
    EXPECT_EQ(occurrences(fold.ptx, "lg2.approx.f32"), 1u);
    // (Unfolded takes x - M and a product with log2 e an exp; the folds
    // add two scalars a thread, M L and -(M L) - log2 s.)
    EXPECT_EQ(occurrences(fold.ptx, "sub.rn.f32") + occurrences(fold.ptx, "mul.rn.f32") + 2 * exps,
              occurrences(base.ptx, "sub.rn.f32") + occurrences(base.ptx, "mul.rn.f32") + 2);
    if (std::string ptxas = ptxasPath(); !ptxas.empty()) {
      expectAssemblesWithoutSpills(ptxas, fold.ptx, "sm_90a");
      if (cols == 131072) {
        int status = 0;
        std::string log = assemble(ptxas, fold.ptx, "sm_90a", status);
        size_t at = log.find("Used ");
        ASSERT_NE(at, std::string::npos) << log;
        EXPECT_LE(std::stoi(log.substr(at + 5)), 64) << log;
      }
    }
    EXPECT_EQ(compileExample("softmax", rows, cols, DType::F32, "sm_90a", "fold-into-exp=true").ptx,
              compileExample("softmax", rows, cols, DType::F32, "sm_90a", "fold-into-exp=false").ptx);
  }
}

// row-cluster up to 16: sm_90's non-portable cluster sizes (the runtime
// opts the kernel in, see Executable). 16 CTAs of 128 threads a row of
// 131072, 8 vectors a thread, in registers, without spills; 17 is refused.
TEST(RowScheduleTest, RowClusterTakesNonPortableSizes) {
  for (DType dtype : {DType::BF16, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    CompiledProgram p = compileExample("softmax", 300, 131072, dtype, "sm_90a",
                                       "row-cluster=16 max-threads-per-block=128");
    ASSERT_EQ(p.launches.size(), 1u);
    EXPECT_EQ(p.launches[0].clusterM, 16);
    EXPECT_EQ(p.launches[0].colBlocks, 16);
    EXPECT_EQ(p.launches[0].blockSize(), 128);
    EXPECT_EQ(p.launches[0].streamBlocks, 0);
    EXPECT_NE(p.ptx.find(".reqnctapercluster 16, 1, 1"), std::string::npos);
    if (std::string ptxas = ptxasPath(); !ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, p.ptx, "sm_90a");
  }
  std::string refused = scheduleOptionsError("row-cluster=17");
  EXPECT_NE(refused.find("row-cluster 0 or 2 to 16"), std::string::npos) << refused;
}

// readonly-inputs: a row kernel's inputs (row, weight and bias) load with
// ld.global.nc, its output stores as before.
TEST(RowScheduleTest, ReadonlyInputsLoadThroughTheNonCoherentPath) {
  CompiledProgram plain = compileExample("layer_norm", 4096, 8192, DType::BF16, "sm_90a", "");
  CompiledProgram nc =
      compileExample("layer_norm", 4096, 8192, DType::BF16, "sm_90a", "readonly-inputs=true");
  EXPECT_EQ(occurrences(plain.ptx, "ld.global.nc"), 0u);
  EXPECT_EQ(occurrences(nc.ptx, "ld.global.nc.v4"), 12u); // 4 vectors of x, w and b
  EXPECT_EQ(occurrences(nc.ptx, "st.global.v4"), 4u);
}

// row-prefetch=S: row-loop kernels whose row inputs are read through
// 4-, 8- or 16-byte vectors copy the blocks ahead into an S-stage ring of
// shared memory (S x rows a CTA x the CTA's vectors of each input); the
// PTX has the cp.async copies and waits for all but S - 1 groups, and
// assembles without spills. 2-byte vectors (bf16 rows of odd width) loop
// without the ring; rows too few to loop get neither.
TEST(RowScheduleTest, RowPrefetchRingsWhereCpAsyncCanCopy) {
  std::string ptxas = ptxasPath();
  struct Case {
    std::string op;
    DType dtype;
    int64_t rows, cols, stages;
    bool loops;
    int64_t sharedBytes;
  };
  for (const Case &c : {
           // 256 threads x 4 vectors of 8 bf16, 2 stages: 32 KB.
           Case{"layer_norm", DType::BF16, 4096, 8192, 2, true, 2 * 8192 * 2},
           // Two row inputs (x and the residual), 3 stages of 4096 bf16.
           Case{"add_rms_norm", DType::BF16, 8192, 4096, 3, true, 2 * 3 * 4096 * 2},
           // f32 rows of 1001: 4-byte vectors (cp.async.ca), 4 stages of
           // 256 threads x 4 vectors of one float.
           Case{"softmax", DType::F32, 8192, 1001, 4, true, 4 * 1024 * 4},
           // bf16 rows of 1001: 2-byte vectors, no ring.
           Case{"rms_norm", DType::BF16, 8192, 1001, 2, true, 0},
           Case{"rms_norm", DType::BF16, 16, 4096, 2, false, 0}}) {
    SCOPED_TRACE(c.op + " " + std::to_string(c.rows) + "x" + std::to_string(c.cols));
    CompiledProgram p = compileExample(c.op, c.rows, c.cols, c.dtype, "sm_90a",
                                       "row-prefetch=" + std::to_string(c.stages));
    ASSERT_EQ(p.launches.size(), 1u);
    const KernelLaunchPlan &l = p.launches[0];
    EXPECT_EQ(l.rowLoop, c.loops);
    EXPECT_EQ(l.prefetchStages, c.sharedBytes > 0 ? c.stages : 0);
    EXPECT_EQ(l.sharedBytes, c.sharedBytes);
    if (c.sharedBytes == 0) {
      EXPECT_EQ(p.ptx.find("cp.async"), std::string::npos);
      continue;
    }
    EXPECT_NE(explainFusion(p).find(std::to_string(c.stages) + "-stage ring of " +
                                    std::to_string(c.sharedBytes) + " bytes"),
              std::string::npos)
        << explainFusion(p);
    EXPECT_NE(p.ptx.find(c.dtype == DType::F32 && c.cols % 4 ? "cp.async.ca.shared.global"
                                                             : "cp.async.cg.shared.global"),
              std::string::npos);
    EXPECT_NE(p.ptx.find("cp.async.wait_group \t" + std::to_string(c.stages - 1)),
              std::string::npos);
    if (!ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, p.ptx, "sm_90a");
  }
  for (const char *bad : {"row-prefetch=1", "row-prefetch=5"}) {
    std::string refused = scheduleOptionsError(bad);
    EXPECT_NE(refused.find(std::string("row-prefetch must be 0 (off) or 2 to 4 stages, got ") +
                           (bad + std::strlen("row-prefetch="))),
              std::string::npos)
        << bad << ": " << refused;
  }
}

// Transposes of row dims whose operand a row kernel computes are stored
// by that kernel at the transposed rows (scatters), interpreted at the tile
// stage against the reference: a swap of the outer two dims of 3-D rows,
// of the first and third of 4-D ones, f32 and bf16, with the operand also
// returned as it is, and of a batched GEMM's rows (relabeled, in its
// epilogue). Where row ops consume the transpose, they gather it (no
// scatter). A transpose of an input, or of a GEMM's result whose rows were
// split (a reshape of the last dim), stays a kernel.
TEST(TileStageTest, TransposesStoredByTheirProducers) {
  std::string ptxas = ptxasPath();
  struct Case {
    const char *name;
    std::function<void(Graph &, DType)> build;
    size_t kernels, loneTransposes;
  };
  std::vector<Case> cases{
      {"silu, swapped heads",
       [](Graph &g, DType dt) {
         g.output(transpose(silu(g.input("x", {5, 3, 40}, dt)), 0, 1));
       },
       1, 0},
      {"rms_norm, 4-D dims 0 and 2, and the rows unswapped",
       [](Graph &g, DType dt) {
         Tensor y = nn::rms_norm(g.input("x", {2, 3, 4, 72}, dt), g.input("w", {72}, dt));
         g.output(transpose(y, 0, 2));
         g.output(y);
       },
       1, 0},
      {"consumers that gather the transpose instead: a softmax and a scaled copy",
       [](Graph &g, DType dt) {
         Tensor t = transpose(exp(g.input("x", {6, 2, 33}, dt)), 0, 1);
         g.output(nn::softmax(t));
         g.output(t * g.constant(0.5, dt));
       },
       2, 0}, // (exp; the transpose gathered, its softmax and scale)
      {"a batched GEMM's rows relabeled and transposed (attention's output)",
       [](Graph &g, DType dt) {
         Tensor o = matmul(g.input("p", {2, 6, 32}, dt), g.input("v", {2, 32, 16}, dt));
         g.output(transpose(reshape(o, {4, 3, 16}), 0, 1));
       },
       1, 0},
      {"a transpose of an input; of a GEMM's result split in heads",
       [](Graph &g, DType dt) {
         g.output(transpose(g.input("x", {4, 3, 16}, dt), 0, 1));
         Tensor m = matmul(g.input("a", {12, 32}, dt), g.input("b", {48, 32}, dt), false, true);
         g.output(transpose(reshape(m, {12, 3, 16}), 0, 1));
       },
       3, 2}};
  for (const Case &c : cases)
    for (DType dt : {DType::F32, DType::BF16}) {
      SCOPED_TRACE(std::string(c.name) + ", " + dtypeName(dt));
      Graph g("scatter");
      c.build(g, dt);
      ASSERT_NO_FATAL_FAILURE(expectTileStageMatches(g, tiletest::randomInputs(g, 5),
                                                     dt == DType::F32 ? 1e-5 : 2e-2));
      auto p = compileGraph(g);
      ASSERT_TRUE(p.ok()) << p.message();
      EXPECT_EQ(p->launches.size(), c.kernels);
      size_t lone = 0;
      for (const FusionReport &f : p->fusions)
        lone += f.ops == std::vector<std::string>{"transpose"};
      EXPECT_EQ(lone, c.loneTransposes);
      if (!ptxas.empty())
        expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
    }
}

// Gathering ops (transposes of row dims, slices and concatenations along
// one) read through gathering operands that nothing else reads: one load
// at the composed row, one kernel. Interpreted at the tile stage against
// the reference, f32 and bf16; ptxas assembles every kernel.
TEST(TileStageTest, GathersReadThroughGathers) {
  std::string ptxas = ptxasPath();
  struct Case {
    const char *name;
    std::function<void(Graph &, DType)> build;
  };
  std::vector<Case> cases{
      {"a transposed piece appended to a cache",
       [](Graph &g, DType dt) {
         Tensor v = g.input("v", {7, 3, 40}, dt);
         g.output(concat({g.input("cache", {3, 5, 40}, dt), transpose(v, 0, 1)}, 1));
       }},
      {"a slice of a transpose, softmax of it",
       [](Graph &g, DType dt) {
         Tensor x = g.input("x", {6, 4, 2, 24}, dt);
         g.output(nn::softmax(slice(transpose(x, 0, 2), 1, 1, 3)));
       }},
      {"a transpose of a concatenation of a slice and a transpose",
       [](Graph &g, DType dt) {
         Tensor a = g.input("a", {9, 5, 16}, dt), b = g.input("b", {2, 4, 16}, dt);
         Tensor c = concat({slice(a, 0, 3, 7), transpose(b, 0, 1)}, 1); // [4, 7, 16]
         g.output(exp(transpose(c, 0, 1)));
       }},
      {"two transposed pieces along dim 0 of 3-D rows",
       [](Graph &g, DType dt) {
         Tensor p = g.input("p", {2, 3, 4, 8}, dt), q = g.input("q", {3, 1, 2, 8}, dt);
         g.output(concat({transpose(p, 0, 2), transpose(q, 0, 1)}, 0)); // [5, 3, 2, 8]
       }}};
  for (const Case &c : cases)
    for (DType dt : {DType::F32, DType::BF16}) {
      SCOPED_TRACE(std::string(c.name) + ", " + dtypeName(dt));
      Graph g("gathers");
      c.build(g, dt);
      ASSERT_NO_FATAL_FAILURE(expectTileStageMatches(g, tiletest::randomInputs(g, 3),
                                                     dt == DType::F32 ? 1e-5 : 2e-2));
      auto p = compileGraph(g);
      ASSERT_TRUE(p.ok()) << p.message();
      EXPECT_EQ(p->launches.size(), 1u);
      if (!ptxas.empty())
        expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
    }
}

// update_slice writes the update's rows into its buffer, a graph input,
// in place: a row kernel over the rows it stores (the update's, or a lone
// transpose's operand's, stored at their transposed places), storing each
// at the buffer's row past the start; the kernel that computes those rows
// stores them (no round trip), and updates of as many rows (relabeled)
// are one kernel. Its output starts as the input (inPlaceOf), so the
// rows it does not touch are the input's. Interpreted at the tile stage against
// the reference (the output starts as a copy of the input there, as a run
// with separate buffers does); ptxas assembles the kernels.
TEST(TileStageTest, UpdatesInPlaceWriteOnlyTheirRows) {
  std::string ptxas = ptxasPath();
  struct Case {
    const char *name;
    std::function<void(Graph &, DType)> build;
    size_t kernels;
    int64_t rows; // of the last kernel
  };
  std::vector<Case> cases{
      {"a transposed update written into a cache at 5",
       [](Graph &g, DType dt) {
         Tensor v = g.input("v", {7, 3, 40}, dt);
         g.output(update_slice(g.input("cache", {3, 12, 40}, dt), transpose(v, 0, 1), 1, 5));
       },
       1, 21},
      {"a computed update along dim 0 (stored by its kernel), and a sibling",
       [](Graph &g, DType dt) {
         Tensor buf = g.input("buf", {10, 64}, dt);
         Tensor x = g.input("x", {3, 64}, dt);
         g.output(update_slice(buf, silu(x) * x, 0, 4));
         g.output(exp(x));
       },
       1, 3},
      {"an update read through a slice (no buffer numbers its rows)",
       [](Graph &g, DType dt) {
         Tensor x = g.input("x", {9, 48}, dt);
         g.output(update_slice(g.input("buf", {6, 48}, dt), slice(x, 0, 2, 5), 0, 1));
       },
       1, 3},
      {"a token appended to a 4-D cache at its last row",
       [](Graph &g, DType dt) {
         Tensor k = g.input("k", {2, 8, 1, 128}, dt);
         g.output(update_slice(g.input("cache", {2, 8, 100, 128}, dt), k, 2, 99));
       },
       1, 16},
      {"keys (rope'd, stored heads first) and values into two caches: one kernel",
       [](Graph &g, DType dt) {
         Tensor k = nn::rope(g.input("k", {3, 2, 64}, dt), g.input("cos", {3, 1, 64}, dt),
                             g.input("sin", {3, 1, 64}, dt));
         Tensor v = g.input("v", {3, 2, 64}, dt);
         g.output(update_slice(g.input("k_cache", {2, 9, 64}, dt), transpose(k, 0, 1), 1, 6));
         g.output(update_slice(g.input("v_cache", {2, 9, 64}, dt), transpose(v, 0, 1), 1, 6));
       },
       1, 6},
      {"one token's keys and values (relabeled rows): one kernel",
       [](Graph &g, DType dt) {
         Tensor k = nn::rope(g.input("k", {1, 4, 64}, dt), g.input("cos", {1, 1, 64}, dt),
                             g.input("sin", {1, 1, 64}, dt));
         Tensor v = reshape(g.input("v", {1, 256}, dt), {1, 4, 64});
         g.output(update_slice(g.input("k_cache", {4, 9, 64}, dt), transpose(k, 0, 1), 1, 8));
         g.output(update_slice(g.input("v_cache", {4, 9, 64}, dt), transpose(v, 0, 1), 1, 8));
       },
       1, 4}};
  for (const Case &c : cases)
    for (DType dt : {DType::F32, DType::BF16}) {
      SCOPED_TRACE(std::string(c.name) + ", " + dtypeName(dt));
      Graph g("update");
      c.build(g, dt);
      ASSERT_NO_FATAL_FAILURE(expectTileStageMatches(g, tiletest::randomInputs(g, 4),
                                                     dt == DType::F32 ? 1e-5 : 2e-2));
      auto p = compileGraph(g);
      ASSERT_TRUE(p.ok()) << p.message();
      EXPECT_EQ(p->launches.size(), c.kernels) << explainFusion(*p);
      EXPECT_EQ(p->launches.back().rows, c.rows);
      // Each update's output starts as its buffer's input.
      for (size_t o = 0; o < g.outputs().size(); ++o) {
        const Node &n = g.node(g.outputs()[o]);
        for (const ProgramValue &v : p->values)
          if (v.kind == ProgramValue::Kind::Output && v.index == static_cast<int>(o)) {
            if (n.kind != OpKind::UpdateSlice) {
              EXPECT_EQ(v.inPlaceOf, -1);
              continue;
            }
            ASSERT_GE(v.inPlaceOf, 0);
            EXPECT_EQ(p->values[v.inPlaceOf].kind, ProgramValue::Kind::Input);
            EXPECT_EQ(g.inputs()[p->values[v.inPlaceOf].index], n.operands[0]);
          }
      }
      if (!ptxas.empty())
        expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
    }
}

// An input updated in place has no other reader, and its update is
// returned: otherwise the graph would read or lose a buffer the update
// overwrote.
TEST(DiagnosticsTest, UpdatesInPlaceNeedTheirBufferAlone) {
  Graph g("read_too");
  Tensor cache = g.input("cache", {4, 8}, DType::F32);
  g.output(update_slice(cache, g.input("row", {1, 8}, DType::F32), 0, 3));
  g.output(exp(cache));
  auto p = compileGraph(g);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.message().find("update_slice: input 'cache' is updated in place, so nothing else "
                             "may read it (it has 1 other readers or outputs)"),
            std::string::npos)
      << p.message();

  Graph h("lost");
  Tensor buf = h.input("buf", {4, 8}, DType::F32);
  Tensor u = update_slice(buf, h.input("row", {1, 8}, DType::F32), 0, 3);
  h.output(exp(u));
  auto q = compileGraph(h);
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.message().find("the update of input 'buf' must be returned once"),
            std::string::npos)
      << q.message();
}

// Two 16-bit GEMMs of at most 2048 rows reading one lhs with weights of
// one shape (k and v projections, each with its own epilogue and output)
// are one kernel of two products (128 rows: the wgmma kernel); past 2048
// rows, in f32, or with weights of other shapes, two. Interpreted at the tile stage against the reference; ptxas
// assembles the kernels without spills.
TEST(TileStageTest, SiblingGemmsShareAKernel) {
  std::string ptxas = ptxasPath();
  struct Case {
    int64_t m, nv;
    DType dtype;
    size_t kernels;
  };
  for (const Case &c : std::vector<Case>{{16, 96, DType::BF16, 1},
                                         {1, 96, DType::BF16, 1},
                                         {48, 96, DType::F16, 1},
                                         {64, 96, DType::F32, 2},
                                         {128, 96, DType::BF16, 1},
                                         {2049, 96, DType::BF16, 2},
                                         {16, 64, DType::BF16, 2}}) {
    SCOPED_TRACE(std::to_string(c.m) + " rows, v of " + std::to_string(c.nv) + ", " +
                 dtypeName(c.dtype));
    Graph g("kv");
    Tensor h = g.input("h", {c.m, 200}, c.dtype);
    Tensor k = nn::linear(h, g.input("wk", {96, 200}, c.dtype), g.input("bk", {96}, c.dtype));
    Tensor v = nn::linear(h, g.input("wv", {c.nv, 200}, c.dtype));
    g.output(silu(k));
    g.output(v);
    ASSERT_NO_FATAL_FAILURE(expectTileStageMatches(g, tiletest::randomInputs(g, 9),
                                                   c.dtype == DType::F32 ? 1e-5 : 2e-2));
    auto p = compileGraph(g);
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_EQ(p->launches.size(), c.kernels);
    if (!ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
  }
}

// A whole decoder layer (examples::buildDecoderLayer: RMSNorm, q/k/v
// projections, RoPE, the new keys and values written into the caches in
// place, grouped-query attention with a causal mask, the output
// projection, add + RMSNorm, a SwiGLU MLP), interpreted at the tile stage
// against the reference: decode (one token), a few tokens after a short
// cache, a prefill-like block, and a prefill without a cache.
// q is stored heads first by its RoPE kernel (a scatter), and k too
// without a cache; with one, k's RoPE kernel stores its rows into the k
// cache heads first and v's into the v cache (two update_slices in one
// kernel): no kernel is a transpose of a RoPE result.
// With fuse-attention the layer's attention is one kernel (two fewer).
TEST(TileStageTest, DecoderLayerMatchesTheReference) {
  // (capacity: the caches' rows, 0 for past + tokens; more leaves rows
  // the causal mask removes.)
  for (auto [tokens, past, flash, capacity] :
       std::vector<std::tuple<int64_t, int64_t, bool, int64_t>>{
           {1, 7, false, 0}, {3, 5, false, 0}, {16, 1, false, 0}, {8, 0, false, 0},
           {1, 7, true, 0}, {3, 5, true, 0}, {8, 0, true, 0}, {3, 5, false, 20},
           {3, 5, true, 200}}) {
    SCOPED_TRACE(std::to_string(tokens) + " tokens after " + std::to_string(past) +
                 (flash ? ", flash attention" : "") + ", capacity " + std::to_string(capacity));
    CompileOptions options;
    options.fuseAttention = flash;
    Graph g("layer");
    examples::buildDecoderLayer(g, tokens, 1024, past, DType::BF16, true, capacity);
    // (Weights of a layer's scale; the causal mask over the new tokens is
    // computed, no input.)
    std::vector<HostTensor> inputs = tiletest::decoderLayerInputs(g, tokens, past, 11);
    for (int id : g.inputs())
      EXPECT_NE(g.node(id).name, "mask");
    ASSERT_EQ(g.outputs().size(), 3u);
    ASSERT_NO_FATAL_FAILURE(expectTileStageMatches(g, inputs, 3e-2, options));
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    CompileOptions three;
    three.fuseAttention = false;
    auto plain = compileGraph(g, three);
    ASSERT_TRUE(plain.ok()) << plain.message();
    EXPECT_EQ(p->launches.size() + (flash ? 2 : 0), plain->launches.size());
    // (v's transpose is read through by the cache append; the attention
    // output's GEMM stores its rows transposed. One token's transposes
    // move no element: views.)
    int transposes = 0, scatters = 0;
    for (const FusionReport &f : p->fusions) {
      transposes += f.ops == std::vector<std::string>{"transpose"};
      scatters += f.ops.size() > 1 && f.ops.back() == "transpose" &&
                  std::count(f.ops.begin(), f.ops.end(), "concat") > 0; // (rope's halves)
    }
    // (Without a cache, v's transpose is returned as it is: a kernel; the
    // attention output's is stored by its GEMM.)
    EXPECT_EQ(transposes, tokens > 1 && past == 0 ? 1 : 0);
    EXPECT_EQ(scatters, tokens > 1 ? (past > 0 ? 1 : 2) : 0);
    if (past > 0) {
      int updates = 0;
      for (size_t k = 0; k < p->fusions.size(); ++k)
        if (std::count(p->fusions[k].ops.begin(), p->fusions[k].ops.end(), "update_slice") > 0) {
          EXPECT_EQ(std::count(p->fusions[k].ops.begin(), p->fusions[k].ops.end(), "update_slice"), 2);
          for (const KernelLaunchPlan &l : p->launches)
            if (l.name == p->fusions[k].kernel) {
              EXPECT_EQ(l.rows, 2 * tokens); // (2 kv heads at hidden 1024)
            }
          ++updates;
        }
      EXPECT_EQ(updates, 1);
      for (const ProgramValue &v : p->values)
        if (v.kind == ProgramValue::Kind::Output) {
          EXPECT_EQ(v.inPlaceOf >= 0, v.index > 0) << "output " << v.index;
        }
    }
  }
}

} // namespace

// Flash attention (fuse-attention): nn::attention's two GEMMs and softmax
// are one kernel (tile.attention) where nothing else reads the scores or
// the probabilities: heads as batch dims (rank 3 and 4) or one head (rank
// 2), query and key counts that are not tile multiples (odd ones too),
// head dims 16 to 128, v's columns other than q's, masks over everything
// or broadcast, bf16 and f16. Interpreted at the tile stage against the
// reference (the kernel program joins the scores' and the output's rows),
// and ptxas assembles each kernel without spills.
TEST(TileStageTest, FlashAttentionMatchesTheReference) {
  std::string ptxas = ptxasPath();
  struct Case {
    Shape q, k, v, mask;
    DType dtype;
  };
  for (const Case &c :
       {Case{{8, 130, 64}, {8, 200, 64}, {8, 200, 64}, {}, DType::BF16},
        Case{{2, 4, 77, 64}, {2, 4, 129, 64}, {2, 4, 129, 128}, {}, DType::F16},
        Case{{8, 130, 64}, {8, 200, 64}, {8, 200, 64}, {130, 200}, DType::BF16},
        Case{{2, 4, 77, 64}, {2, 4, 129, 64}, {2, 4, 129, 128}, {2, 4, 1, 129}, DType::F16},
        Case{{3, 64, 64}, {3, 96, 64}, {3, 96, 64}, {3, 64, 96}, DType::BF16},
        Case{{5, 16}, {33, 16}, {33, 32}, {}, DType::BF16},
        Case{{2, 3, 128}, {2, 517, 128}, {2, 517, 128}, {3, 517}, DType::BF16},
        Case{{1, 200, 96}, {1, 64, 96}, {1, 64, 48}, {}, DType::F16}}) {
    SCOPED_TRACE(shapeString(c.q) + " " + shapeString(c.k) + " " + shapeString(c.v) + " mask " +
                 shapeString(c.mask) + " " + dtypeName(c.dtype));
    Graph g("attention");
    Tensor q = g.input("q", c.q, c.dtype);
    Tensor k = g.input("k", c.k, c.dtype);
    Tensor v = g.input("v", c.v, c.dtype);
    double scale = 1.0 / std::sqrt(static_cast<double>(c.q.back()));
    g.output(c.mask.empty() ? nn::attention(q, k, v, scale)
                            : nn::attention(q, k, v, scale, g.input("mask", c.mask, c.dtype)));
    CompileOptions options;
    options.fuseAttention = true;
    ASSERT_NO_FATAL_FAILURE(
        expectTileStageMatches(g, tiletest::randomInputs(g, 21), 2e-2, options));
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 1u) << explainFusion(*p);
    EXPECT_TRUE(p->launches[0].gemm);
    if (!ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
  }
  // The schedule's variants (the GPU test's too) and its limits.
  Graph g("attention");
  Tensor q = g.input("q", {4, 256, 128}, DType::BF16);
  Tensor k = g.input("k", {4, 1000, 128}, DType::BF16);
  g.output(nn::attention(q, k, g.input("v", {4, 1000, 128}, DType::BF16), 0.088,
                         g.input("mask", {256, 1000}, DType::F32)));
  Graph g64("attention64");
  Tensor q64 = g64.input("q", {2, 100, 64}, DType::F16);
  Tensor k64 = g64.input("k", {2, 300, 64}, DType::F16);
  g64.output(nn::attention(q64, k64, g64.input("v", {2, 300, 64}, DType::F16), 0.125));
  for (auto [graph, schedule] : std::vector<std::pair<const Graph *, const char *>>{
           {&g, "attention-block-m=128 attention-block-n=32 attention-stages=3"},
           {&g, "attention-block-m=16 attention-block-n=16 attention-stages=2"},
           {&g64, "attention-block-m=32 attention-block-n=128 attention-stages=4"}}) {
    SCOPED_TRACE(schedule);
    CompileOptions options;
    options.fuseAttention = true;
    options.scheduleOptions = schedule;
    auto p = compileGraph(*graph, options);
    ASSERT_TRUE(p.ok()) << p.message();
    if (!ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
  }
  CompileOptions options;
  options.fuseAttention = true;
  options.scheduleOptions = "attention-block-n=24";
  auto bad = compileGraph(g, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("keys a multiple of 16"), std::string::npos) << bad.message();
  options.scheduleOptions = "attention-block-m=32 attention-block-n=64 attention-stages=4";
  EXPECT_TRUE(compileGraph(g, options).ok());
  options.scheduleOptions = "attention-block-m=128 attention-block-n=64 attention-stages=4";
  options.target = "sm_86";
  bad = compileGraph(g, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("163840 bytes of shared memory, more than sm_86's 101376"),
            std::string::npos)
      << bad.message();
  options.target = "sm_90a";
  options.scheduleOptions = "attention-wgmma=0 attention-block-n=128";
  bad = compileGraph(g, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("at most 192"), std::string::npos) << bad.message();
  // (wgmma: up to 256 keys a step plus columns)
  options.scheduleOptions = "attention-block-n=128";
  auto wide = compileGraph(g, options);
  ASSERT_TRUE(wide.ok()) << wide.message();
  EXPECT_NE(wide->ptx.find("wgmma.mma_async.sync.aligned.m64n128k16"), std::string::npos);
}

// What flash attention leaves as three kernels: scores or probabilities
// read elsewhere (returned too), q, k and v in f32, a head dim over 128;
// and by default (by shape) this small one.
TEST(FusionTest, FlashAttentionOnlyWhereItsIntermediatesStayInside) {
  CompileOptions flash;
  flash.fuseAttention = true;
  auto kernels = [](const Graph &g, const CompileOptions &options) -> size_t {
    auto p = compileGraph(g, options);
    EXPECT_TRUE(p.ok()) << p.message();
    return p.ok() ? p->launches.size() : 0;
  };
  auto build = [](Graph &g, DType dtype, int64_t headDim, bool returnScores) {
    Tensor q = g.input("q", {2, 40, headDim}, dtype);
    Tensor k = g.input("k", {2, 72, headDim}, dtype);
    Tensor v = g.input("v", {2, 72, 64}, dtype);
    g.output(nn::attention(q, k, v, 0.125));
    if (returnScores)
      g.output(matmul(q, k, DType::F32, false, true));
  };
  {
    Graph g("fused");
    build(g, DType::BF16, 64, false);
    EXPECT_EQ(kernels(g, flash), 1u);
    EXPECT_EQ(kernels(g, {}), 3u);
  }
  {
    Graph g("f32");
    build(g, DType::F32, 64, false);
    EXPECT_EQ(kernels(g, flash), 3u);
  }
  {
    Graph g("wide_heads");
    build(g, DType::BF16, 256, false);
    EXPECT_EQ(kernels(g, flash), 3u);
  }
  {
    // (The returned product is its own GEMM, the scores' after CSE: the
    // scores leave their kernel, so the softmax reads them from memory.)
    Graph g("scores_returned");
    build(g, DType::BF16, 64, true);
    EXPECT_GE(kernels(g, flash), 3u);
  }
}

// By default (fuseAttention unset) attention is flash by shape: where the
// query rows of a batch are at least 256, the keys at least 4096, the keys
// at least 2048 over 64 rows or more, or at least 512 over at most 16 rows
// (decode: 1-4 tokens here). The
// decoder layer's grouped attention has 4 query rows a token (32 heads
// over 8 kv heads at hidden 4096; hidden 1024 keeps the same grouping) and
// past + tokens keys.
TEST(FusionTest, FlashAttentionByShapeByDefault) {
  struct Case {
    int64_t tokens, past;
    bool flash;
  };
  for (Case c : {Case{1, 4095, true}, Case{1, 4094, true}, Case{1, 511, true},
                 Case{1, 510, false}, Case{4, 508, true}, Case{5, 1000, false},
                 Case{16, 2032, true}, Case{16, 2031, false}, Case{15, 4000, false},
                 Case{16, 512, false}, Case{64, 0, true}, Case{63, 0, false}}) {
    SCOPED_TRACE(std::to_string(c.tokens) + " tokens after " + std::to_string(c.past));
    Graph g("layer");
    ASSERT_TRUE(examples::build("decoder_layer", g, c.tokens, 1024, DType::BF16, c.past).ok());
    // (Each mode compiled once: by shape, never, always.)
    std::vector<CompiledProgram> programs;
    for (std::optional<bool> fuse : {std::optional<bool>(), std::optional<bool>(false),
                                     std::optional<bool>(true)}) {
      CompileOptions options;
      options.fuseAttention = fuse;
      auto p = compileGraph(g, options);
      ASSERT_TRUE(p.ok()) << p.message();
      programs.push_back(p.take());
    }
    const CompiledProgram &byShape = programs[0], &three = programs[1], &flash = programs[2];
    EXPECT_EQ(flash.launches.size() + 2, three.launches.size());
    EXPECT_EQ(byShape.launches.size(), (c.flash ? flash : three).launches.size());
    // explainFusion says which and why (forced choices say nothing).
    std::string why = std::string(c.flash ? "flash" : "three kernels") + " by shape: " +
                      std::to_string(4 * c.tokens) + " query rows a batch over " +
                      std::to_string(c.past + c.tokens) + " keys";
    EXPECT_NE(explainFusion(byShape).find("    attention: " + why), std::string::npos)
        << explainFusion(byShape);
    EXPECT_EQ(explainFusion(c.flash ? flash : three).find("attention:"), std::string::npos);
  }
}

// A graph with a symbolic token count does not compile as is (the message
// names the symbol and Graph::bind); bound to a count, it compiles to the
// program of the graph built for that count: the same PTX and launches.
// A broadcast of a row to the symbolic count stays a broadcast of [1, C]
// to [1, C] when the count is bound to 1, and compiles.
TEST(CompilerTest, SymbolicDimsCompileOnceBound) {
  {
    Graph g("broadcast_row");
    Tensor row = g.input("row", {1, 64}, DType::F32);
    Tensor x = g.input("x", {symbolDim("tokens"), 64}, DType::F32);
    g.output(exp(x + row));
    for (int64_t rows : {1, 5}) {
      std::unique_ptr<Graph> bound = g.bind({{"tokens", rows}});
      auto p = compileGraph(*bound);
      ASSERT_TRUE(p.ok()) << p.message();
      EXPECT_EQ(p->launches.size(), 1u);
    }
  }
  const int64_t tokens = symbolDim("tokens");
  for (const char *name : {"rms_norm", "add_rms_norm", "softmax", "rope", "matmul"}) {
    SCOPED_TRACE(name);
    Graph sym(name);
    ASSERT_TRUE(examples::build(name, sym, tokens, 4096, DType::BF16).ok());
    auto refused = compileGraph(sym);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.message().find("'tokens'"), std::string::npos) << refused.message();
    EXPECT_NE(refused.message().find("Graph::bind"), std::string::npos) << refused.message();
    for (int64_t rows : {1, 300}) {
      SCOPED_TRACE(rows);
      Graph fixed(name);
      ASSERT_TRUE(examples::build(name, fixed, rows, 4096, DType::BF16).ok());
      auto want = compileGraph(fixed);
      auto got = compileGraph(*sym.bind({{"tokens", rows}}));
      ASSERT_TRUE(want.ok() && got.ok()) << want.message() << got.message();
      EXPECT_EQ(got->ptx, want->ptx);
      ASSERT_EQ(got->launches.size(), want->launches.size());
      for (size_t i = 0; i < got->launches.size(); ++i) {
        EXPECT_EQ(got->launches[i].gridSize(), want->launches[i].gridSize());
        EXPECT_EQ(got->launches[i].blockSize(), want->launches[i].blockSize());
      }
    }
  }
}

// Executable::compileFor binds the symbols from the input shapes before it
// compiles: a shape that does not match is refused by name (before any
// GPU is needed), and matching shapes get as far as the missing context.
TEST(CompilerTest, CompileForBindsTheInputShapes) {
  Graph g("rms_norm");
  ASSERT_TRUE(examples::build("rms_norm", g, symbolDim("tokens"), 4096, DType::BF16).ok());
  auto bad = Executable::compileFor(g, {{7, 4095}, {4096}}, nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("compileFor"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("[tokens, 4096], got [7, 4095]"), std::string::npos)
      << bad.message();
  auto noContext = Executable::compileFor(g, {{7, 4096}, {4096}}, nullptr);
  ASSERT_FALSE(noContext.ok());
  EXPECT_NE(noContext.message().find("no CUDA context"), std::string::npos)
      << noContext.message();
  // What lets a new count reuse the loaded module (the module cache is
  // keyed by PTX): rms_norm's kernel is the same at 7 and 1000 tokens. From
  // 1056 (8 CTAs an SM) its CTAs prefetch the rows ahead (row-l2-prefetch):
  // another kernel.
  auto few = compileGraph(*g.bind({{"tokens", 7}}));
  auto many = compileGraph(*g.bind({{"tokens", 1000}}));
  auto more = compileGraph(*g.bind({{"tokens", 16384}}));
  ASSERT_TRUE(few.ok() && many.ok() && more.ok())
      << few.message() << many.message() << more.message();
  EXPECT_EQ(few->ptx, many->ptx);
  EXPECT_NE(few->launches[0].gridSize(), many->launches[0].gridSize());
  EXPECT_EQ(few->ptx.find("prefetch.L2"), std::string::npos);
  EXPECT_NE(more->ptx.find("prefetch.L2"), std::string::npos);
}

// A reshape is a view between kernels: it never joins a fusion, and the
// kernels on either side read one buffer under two shapes. Here the heads
// of x [6, 4, 32] are merged into rows of 128 for an rms_norm whose result
// is returned split into heads again: two kernels would be one without the
// reshape; the input is read in place and the output written in place.
// Transposes that need no kernel (tilec-fold-transposes): a swap of the
// last two dims feeding a matmul operand is that operand's transpose flag
// (the PTX and launches of the graph written with the flag), and a swap
// that moves no element is a view (those of the graph written with
// reshape). A swap of the last dim anywhere else is a kernel of its own.
TEST(CompilerTest, TransposesFoldIntoMatmulsAndViews) {
  auto same = [](Graph &a, Graph &b) {
    auto pa = compileGraph(a);
    auto pb = compileGraph(b);
    ASSERT_TRUE(pa.ok()) << pa.message();
    ASSERT_TRUE(pb.ok()) << pb.message();
    EXPECT_EQ(pa->ptx, pb->ptx);
    ASSERT_EQ(pa->launches.size(), pb->launches.size());
    EXPECT_EQ(pa->values.size(), pb->values.size());
  };
  {
    // Attention's scores, q @ k^T (batched over heads), and a transposed
    // lhs of a shared weight, and the two folded into one matmul.
    Graph a("scores"), b("scores");
    Tensor q = a.input("q", {4, 16, 64}, DType::BF16), k = a.input("k", {4, 128, 64}, DType::BF16);
    a.output(matmul(q, transpose(k, -1, -2), DType::F32));
    Tensor x = a.input("x", {64, 32}, DType::BF16), w = a.input("w", {64, 48}, DType::BF16);
    a.output(matmul(transpose(x, 0, 1), w));
    Tensor x2 = a.input("x2", {64, 32}, DType::BF16);
    a.output(matmul(transpose(x2, 0, 1), transpose(transpose(w, 0, 1), 1, 0)));
    Tensor bq = b.input("q", {4, 16, 64}, DType::BF16), bk = b.input("k", {4, 128, 64}, DType::BF16);
    b.output(matmul(bq, bk, DType::F32, false, true));
    Tensor bx = b.input("x", {64, 32}, DType::BF16), bw = b.input("w", {64, 48}, DType::BF16);
    b.output(matmul(bx, bw, true, false));
    b.output(matmul(b.input("x2", {64, 32}, DType::BF16), bw, true, false));
    same(a, b);
  }
  {
    // One token's heads: [1, 32, 128] -> [32, 1, 128] moves no element.
    Graph a("decode"), b("decode");
    Tensor x = a.input("x", {1, 32, 128}, DType::BF16);
    a.output(nn::rms_norm(transpose(x, 0, 1), a.input("w", {128}, DType::BF16)));
    Tensor bx = b.input("x", {1, 32, 128}, DType::BF16);
    b.output(nn::rms_norm(reshape(bx, {32, 1, 128}), b.input("w", {128}, DType::BF16)));
    same(a, b);
  }
  // A swap of the last dim that is not a matmul operand is a kernel of its
  // own, before the softmax's: by default through shared-memory tiles
  // (8 slabs of [32, 128]: one 16-byte tile of 128 x 128 each), with
  // transpose-tiles=false strided rows (one thread a row). One also
  // returned is written by that kernel, and its matmul use is folded.
  Graph c("last_dim");
  Tensor cx = c.input("x", {8, 32, 128}, DType::BF16);
  c.output(nn::softmax(transpose(cx, 1, 2)));
  CompileOptions strided;
  strided.scheduleOptions = "transpose-tiles=false";
  auto pc = compileGraph(c);
  ASSERT_TRUE(pc.ok()) << pc.message();
  ASSERT_EQ(pc->launches.size(), 2u);
  EXPECT_EQ(pc->launches[0].transposeTileK, 128);
  EXPECT_EQ(pc->launches[0].transposeTileL, 128);
  EXPECT_EQ(pc->launches[0].gridSize(), 8);
  EXPECT_EQ(pc->launches[0].blockSize(), 256);
  auto ps = compileGraph(c, strided);
  ASSERT_TRUE(ps.ok()) << ps.message();
  ASSERT_EQ(ps->launches.size(), 2u);
  EXPECT_EQ(ps->launches[0].transposeTileK, 0);
  EXPECT_EQ(ps->launches[0].threadsPerRow, 1);
  EXPECT_EQ(ps->launches[0].vectorWidth, 1);
  EXPECT_EQ(ps->launches[0].rows, 8 * 128);
  if (std::string ptxas = ptxasPath(); !ptxas.empty()) {
    expectAssemblesWithoutSpills(ptxas, pc->ptx, "sm_90a");
    expectAssemblesWithoutSpills(ptxas, ps->ptx, "sm_90a");
  }
  // Returned as they are, a swap that moves no element and a transpose of
  // a transpose would be an input or a view of one, outputs no kernel
  // computes: they stay kernels (copies). A view of a computed value is
  // still returned as a view.
  Graph r("returned_views");
  r.output(transpose(r.input("x", {1, 32, 128}, DType::BF16), 0, 1));
  Tensor ry = r.input("y", {3, 5}, DType::F32);
  r.output(transpose(transpose(ry, 0, 1), 0, 1));
  r.output(transpose(exp(r.input("z", {1, 7}, DType::F32)), 0, 1));
  auto pr = compileGraph(r);
  ASSERT_TRUE(pr.ok()) << pr.message();
  EXPECT_EQ(pr->launches.size(), 4u);
  Graph d("returned");
  Tensor dx = d.input("x", {8, 16}, DType::F32);
  Tensor dt = transpose(dx, 0, 1);
  d.output(dt);
  d.output(matmul(dt, d.input("w", {8, 4}, DType::F32)));
  auto pd = compileGraph(d);
  ASSERT_TRUE(pd.ok()) << pd.message();
  EXPECT_EQ(pd->launches.size(), 2u);
}

// Swaps of the last dim through shared-memory tiles, one CTA of 256
// threads a tile, a grid of every (slab, tile):
// - K and L multiples of v = 16 / element bytes: 16-byte vectors, a v x v
//   block a thread transposed in registers, tiles of 16 v x 16 v (bf16:
//   128 x 128, 8 global loads and stores a thread and 32 KB of shared
//   memory; f32: 64 x 64, 4 and 16 KB);
// - otherwise, or with transpose-tile-bytes=4: 32-bit words, tiles of 32
//   words along K by 64 elements along L (16-bit elements paired into
//   words: 64 x 64; f32: 32 x 64), 8 global loads and stores a thread
//   through 8 KB.
// Partial tiles add a masked copy of the body. Odd 16-bit dims (words
// would straddle rows) and dims under 8 keep the strided rows; so does
// transpose-tiles=false.
TEST(CompilerTest, LastDimTransposesGoThroughSharedMemoryTiles) {
  struct Case {
    DType dtype;
    Shape shape;
    int64_t dim0, dim1;
    const char *options;
    int64_t vectorBytes, tileK, tileL, grid; // tileK 0: strided rows
    bool partial;
  };
  const char *words = "transpose-tile-bytes=4";
  for (const Case &c :
       {Case{DType::BF16, {4096, 4096}, 0, 1, "", 16, 128, 128, 32 * 32, false},
        Case{DType::F32, {4096, 4096}, 0, 1, "", 16, 64, 64, 64 * 64, false},
        Case{DType::F32, {3, 72, 5, 200}, 1, 3, "", 16, 64, 64, 3 * 5 * 2 * 4, true},
        Case{DType::BF16, {8, 64, 128}, 0, 2, "", 16, 128, 128, 64, true},
        Case{DType::BF16, {4096, 4096}, 0, 1, words, 4, 64, 64, 64 * 64, false},
        Case{DType::F32, {4096, 4096}, 0, 1, words, 4, 32, 64, 128 * 64, false},
        Case{DType::F16, {130, 66}, 0, 1, "", 4, 64, 64, 3 * 2, true},
        Case{DType::F32, {3, 70, 5, 200}, 1, 3, "", 4, 32, 64, 3 * 5 * 3 * 4, true},
        Case{DType::BF16, {64, 33}, 0, 1, "", 0, 0, 0, 0, false},
        Case{DType::BF16, {6, 5, 7, 40}, 1, 3, "", 0, 0, 0, 0, false}}) {
    SCOPED_TRACE(std::string(dtypeName(c.dtype)) + " " + shapeString(c.shape) + " " + c.options);
    Graph g("transpose");
    g.output(transpose(g.input("x", c.shape, c.dtype), c.dim0, c.dim1));
    CompileOptions strided;
    strided.scheduleOptions = "transpose-tiles=false";
    auto rows = compileGraph(g, strided);
    ASSERT_TRUE(rows.ok()) << rows.message();
    EXPECT_EQ(rows->launches[0].transposeTileK, 0);
    CompileOptions options;
    options.scheduleOptions = c.options;
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 1u);
    const KernelLaunchPlan &l = p->launches[0];
    EXPECT_EQ(l.transposeTileK, c.tileK);
    if (c.tileK == 0) {
      EXPECT_EQ(l.threadsPerRow, 1);
      EXPECT_EQ(p->ptx.find("bar.sync"), std::string::npos);
      continue;
    }
    EXPECT_EQ(l.transposeTileL, c.tileL);
    EXPECT_EQ(l.gridSize(), c.grid);
    EXPECT_EQ(l.blockSize(), 256);
    EXPECT_EQ(l.sharedBytes, 0); // (static shared memory)
    int64_t elementBytes = c.dtype == DType::F32 ? 4 : 2;
    // (LLVM may merge parts of the masked copy with the whole-tile body.)
    std::vector<const char *> ops;
    size_t each = 8;
    if (c.vectorBytes == 16) {
      ops = {"ld.global.v4.b32", "st.shared.v4.b32", "ld.shared.v4.b32", "st.global.v4.b32"};
      each = 16 / elementBytes;
    } else {
      ops = {c.dtype == DType::F32 ? "ld.global.b32" : "ld.global.v2.b16", "st.global.b32",
             "ld.shared.b32"};
      EXPECT_EQ(p->ptx.find("ld.global.v4"), std::string::npos);
    }
    for (const char *op : ops) {
      if (c.partial)
        EXPECT_GE(occurrences(p->ptx, op), each) << op;
      else
        EXPECT_EQ(occurrences(p->ptx, op), each) << op;
    }
    EXPECT_GE(occurrences(p->ptx, "bar.sync"), 1u);
    // (The tile: 8 KB of 32-bit words, 16 or 32 KB of blocks.)
    std::string staged =
        "__wg_transpose_kernel0_0[" + std::to_string(c.tileK * c.tileL * elementBytes) + "]";
    EXPECT_NE(p->ptx.find(staged), std::string::npos) << staged;
    if (std::string ptxas = ptxasPath(); !ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
  }
}

// A transpose of two row dims (the last dim kept) gathers rows in the row
// kernel of its consumers: [tokens, heads, dim] -> [heads, tokens, dim]
// into softmax is one kernel; its operand, when computed, comes from
// another kernel; a lone transpose is a kernel of its own (a row copy).
// The GPU test's graph (GpuRuntimeTest.TransposesFoldedIntoMatmulsAndViews)
// assembles without spills.
TEST(CompilerTest, TransposesOfRowDimsGatherRows) {
  Graph a("heads_first");
  Tensor x = a.input("x", {8, 32, 128}, DType::BF16);
  a.output(nn::softmax(transpose(x, 0, 1)));
  auto pa = compileGraph(a);
  ASSERT_TRUE(pa.ok()) << pa.message();
  ASSERT_EQ(pa->launches.size(), 1u);
  EXPECT_EQ(pa->launches[0].rows, 256);
  // (The input row: r / 8 + (r % 8) * 32.)
  EXPECT_NE(pa->ptx.find("ld.global.v4"), std::string::npos);

  Graph b("computed");
  Tensor y = b.input("y", {4, 6, 5, 64}, DType::F32);
  b.output(-transpose(exp(y), 0, 2));
  b.output(transpose(y, 1, 2));
  auto pb = compileGraph(b);
  ASSERT_TRUE(pb.ok()) << pb.message();
  // (exp's kernel and y's transpose are siblings of as many rows: one
  // kernel in the transpose's domain, exp's rows relabeled; the negated
  // transpose reads exp's result from memory.)
  EXPECT_EQ(pb->launches.size(), 2u);
  if (std::string ptxas = ptxasPath(); !ptxas.empty()) {
    expectAssemblesWithoutSpills(ptxas, pa->ptx, "sm_90a");
    expectAssemblesWithoutSpills(ptxas, pb->ptx, "sm_90a");
  }

  // With a symbolic token count, bound: the static graph's PTX and launch.
  const int64_t tokens = symbolDim("tokens");
  Graph s("heads_first");
  s.output(nn::softmax(transpose(s.input("x", {tokens, 32, 128}, DType::BF16), 0, 1)));
  std::unique_ptr<Graph> bound = s.bind({{"tokens", 8}});
  auto ps = compileGraph(*bound);
  ASSERT_TRUE(ps.ok()) << ps.message();
  EXPECT_EQ(ps->ptx, pa->ptx);
  EXPECT_EQ(ps->launches[0].rows, pa->launches[0].rows);
}

TEST(CompilerTest, ReshapesAreViewsBetweenKernels) {
  Graph g("heads");
  Tensor x = g.input("x", {6, 4, 32}, DType::BF16);
  Tensor w = g.input("w", {128}, DType::BF16);
  Tensor rows = reshape(silu(x), {6, 128});
  g.output(reshape(nn::rms_norm(rows, w), {6, 4, 32}));
  auto p = compileGraph(g);
  ASSERT_TRUE(p.ok()) << p.message();
  ASSERT_EQ(p->launches.size(), 2u);
  // Values: the two inputs, the silu result (a temporary) and the output,
  // which has the returned (reshaped) shape; no value for either view.
  ASSERT_EQ(p->values.size(), 4u);
  EXPECT_EQ(p->values[2].kind, ProgramValue::Kind::Temporary);
  EXPECT_EQ(p->values[2].shape, (Shape{6, 4, 32}));
  EXPECT_EQ(p->values[3].kind, ProgramValue::Kind::Output);
  EXPECT_EQ(p->values[3].shape, (Shape{6, 4, 32}));
  // The rms_norm kernel reads the silu buffer as rows of 128.
  const KernelLaunchPlan &norm = p->launches[1];
  EXPECT_EQ(norm.rows, 6);
  ASSERT_FALSE(norm.buffers.empty());
  EXPECT_EQ(norm.buffers[0].value, 2);
  EXPECT_EQ(norm.buffers[0].cols, 128);
  EXPECT_EQ(p->launches[0].rows, 24);

  // A reshape of an input feeds the kernel the input's own buffer.
  Graph h("flat");
  Tensor a = h.input("a", {3, 2, 64}, DType::F32);
  h.output(nn::softmax(reshape(a, {3, 128})));
  auto q = compileGraph(h);
  ASSERT_TRUE(q.ok()) << q.message();
  ASSERT_EQ(q->launches.size(), 1u);
  EXPECT_EQ(q->values[q->launches[0].buffers[0].value].kind, ProgramValue::Kind::Input);
  EXPECT_EQ(q->launches[0].buffers[0].cols, 128);

  // The GPU test's graph (GpuRuntimeTest.ReshapesAreViewsBetweenKernels):
  // a norm between two views, a softmax of a reshaped input and a reshaped
  // GEMM result, in four kernels with no copy.
  for (DType dtype : {DType::BF16, DType::F32}) {
    Graph k("heads");
    Tensor kx = k.input("x", {37, 8, 64}, dtype);
    Tensor kw = k.input("w", {512}, dtype);
    Tensor krows = reshape(silu(kx), {37, 512});
    k.output(reshape(nn::rms_norm(krows, kw), {37, 8, 64}));
    k.output(nn::softmax(reshape(k.input("flat", {37, 2, 256}, dtype), {37, 512})));
    k.output(reshape(matmul(krows, k.input("proj", {512, 64}, dtype)), {37 * 64}));
    auto kp = compileGraph(k);
    ASSERT_TRUE(kp.ok()) << kp.message();
    EXPECT_EQ(kp->launches.size(), 4u);
    if (std::string ptxas = ptxasPath(); !ptxas.empty())
      expectAssemblesWithoutSpills(ptxas, kp->ptx, "sm_90a");
  }

  // A reshape of a constant has no buffer behind it: refused by name.
  Graph konst("konst");
  Tensor kin = konst.input("a", {4, 1}, DType::F32);
  konst.output(kin + reshape(konst.constant(2.0, DType::F32), {1, 1}));
  auto noBuffer = compileGraph(konst);
  ASSERT_FALSE(noBuffer.ok());
  EXPECT_NE(noBuffer.message().find("reshape of a constant"), std::string::npos)
      << noBuffer.message();

  // A chain of views, read by two kernels: both read the first kernel's
  // buffer, each under its own shape.
  Graph chain("chain");
  Tensor ce = exp(chain.input("a", {4, 2, 16}, DType::F32));
  Tensor cv = reshape(reshape(ce, {8, 16}), {4, 32});
  chain.output(nn::softmax(cv));
  chain.output(-reshape(ce, {2, 64}));
  auto cp = compileGraph(chain);
  ASSERT_TRUE(cp.ok()) << cp.message();
  ASSERT_EQ(cp->launches.size(), 3u);
  int expValue = cp->launches[0].buffers.back().value;
  EXPECT_EQ(cp->values[expValue].kind, ProgramValue::Kind::Temporary);
  std::vector<int64_t> cols;
  for (size_t k = 1; k < 3; ++k) {
    EXPECT_EQ(cp->launches[k].buffers[0].value, expValue) << k;
    cols.push_back(cp->launches[k].buffers[0].cols);
  }
  std::sort(cols.begin(), cols.end());
  EXPECT_EQ(cols, (std::vector<int64_t>{32, 64}));
}

// A reshape that keeps the last dim relabels row dims and joins the row
// kernel: an rms_norm over heads merged into tokens' rows of [tokens * heads,
// dim] is one kernel, the same PTX as the rms_norm of an input declared
// [tokens * heads, dim]; with an input split the other way too.
TEST(CompilerTest, ReshapesThatKeepTheLastDimFuse) {
  for (DType dtype : {DType::BF16, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Graph flat("norm");
    flat.output(nn::rms_norm(flat.input("x", {96, 128}, dtype), flat.input("w", {128}, dtype)));
    auto want = compileGraph(flat);
    ASSERT_TRUE(want.ok()) << want.message();
    for (Shape declared : {Shape{12, 8, 128}, Shape{2, 48, 128}}) {
      Graph g("norm");
      Tensor x = g.input("x", declared, dtype);
      g.output(nn::rms_norm(reshape(x, {96, 128}), g.input("w", {128}, dtype)));
      auto got = compileGraph(g);
      ASSERT_TRUE(got.ok()) << got.message();
      ASSERT_EQ(got->launches.size(), 1u);
      EXPECT_EQ(got->ptx, want->ptx);
      EXPECT_EQ(got->launches[0].gridSize(), want->launches[0].gridSize());
    }
  }
  // RoPE (cos and sin broadcast along the heads: rows mapped in the domain
  // [tokens, heads, dim]) then a norm over rows relabelled [tokens * heads,
  // dim]: one kernel, the PTX of the same graph without the reshape.
  auto ropeNorm = [](bool relabel) {
    Graph g("rope_norm");
    Tensor x = g.input("x", {16, 4, 64}, DType::BF16);
    Tensor c = g.input("cos", {16, 1, 64}, DType::BF16);
    Tensor sn = g.input("sin", {16, 1, 64}, DType::BF16);
    Tensor w = g.input("w", {64}, DType::BF16);
    Tensor r = nn::rope(x, c, sn);
    if (relabel)
      g.output(reshape(nn::rms_norm(reshape(r, {64, 64}), w), {16, 4, 64}));
    else
      g.output(nn::rms_norm(r, w));
    return compileGraph(g);
  };
  auto direct = ropeNorm(false), relabelled = ropeNorm(true);
  ASSERT_TRUE(direct.ok() && relabelled.ok()) << direct.message() << relabelled.message();
  ASSERT_EQ(relabelled->launches.size(), 1u);
  EXPECT_EQ(relabelled->ptx, direct->ptx);

  // silu on heads, merged into rows, normed, split into heads again: one
  // kernel, its input and output the graph's own buffers.
  Graph g("heads");
  Tensor x = g.input("x", {8, 4, 64}, DType::BF16);
  Tensor rows = reshape(silu(x), {32, 64});
  g.output(reshape(nn::rms_norm(rows, g.input("w", {64}, DType::BF16)), {8, 4, 64}));
  auto p = compileGraph(g);
  ASSERT_TRUE(p.ok()) << p.message();
  ASSERT_EQ(p->launches.size(), 1u);
  EXPECT_EQ(p->values.size(), 3u); // x, w and the output: no temporary
  EXPECT_EQ(p->values.back().shape, (Shape{8, 4, 64}));
  if (std::string ptxas = ptxasPath(); !ptxas.empty())
    expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
}
