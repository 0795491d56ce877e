// The kernels the compiler emits, run by the GPU-stage simulator
// (GpuSimulator.h) on CPUs against the reference evaluator: the
// distribution passes' thread mappings, fragment layouts, pipelines and
// masks are checked on every machine, not only on the GPU machine.
#include "GpuSimulator.h"
#include "TileInterpreter.h"
#include "Ptxas.h"
#include "../gpu/RandomGraphs.h"
#include "../gpu/SliceGraphs.h"

#include "tilec/Graph.h"
#include "tilec/Reference.h"
#include "tilec/compiler/Examples.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <random>

using namespace tilec;

namespace {

/// sm_80 (mma.sync, cp.async: what the simulator models).
CompileOptions simOptions() {
  CompileOptions o;
  o.target = "sm_80";
  o.dependentLaunch = false;
  return o;
}

/// `g` run in the simulator (its memory traffic into `traffic` when given)
/// matches the reference evaluator within `tolerance` on every output.
void expectSimulatedMatches(const Graph &g, const std::vector<HostTensor> &inputs, double tolerance,
                            const CompileOptions &options, int64_t smCount = 132,
                            std::vector<gpusim::LaunchTraffic> *traffic = nullptr) {
  auto got = gpusim::runAtGpuStage(g, inputs, options, smCount, traffic);
  ASSERT_TRUE(got.ok()) << got.message();
  std::vector<HostTensor> ref = evaluateReference(g, inputs);
  ASSERT_EQ(got->size(), ref.size());
  for (size_t j = 0; j < ref.size(); ++j) {
    EXPECT_LT(relativeError((*got)[j], ref[j]), tolerance) << "output " << j;
    if (getenv("GPUSIM_VERBOSE"))
      std::printf("output %zu: %zu values, relative error %g, first %g vs %g\n", j,
                  ref[j].values.size(), relativeError((*got)[j], ref[j]), (*got)[j].values[0],
                  ref[j].values[0]);
  }
}

struct GemmCase {
  int64_t m, n, k;
  const char *name, *schedule;
};

/// Each bf16 GEMM example compiled for sm_90a with its schedule options:
/// it must use `feature` (`uses`), and simulated on `smCount` SMs it must
/// match the reference.
void expectHopperGemmsMatch(const std::vector<GemmCase> &cases, const char *feature,
                            const std::function<bool(const CompiledProgram &)> &uses,
                            int64_t smCount) {
  for (const GemmCase &c : cases) {
    SCOPED_TRACE(std::string(c.name) + " " + std::to_string(c.m) + "x" + std::to_string(c.n) +
                 "x" + std::to_string(c.k) + " " + c.schedule);
    Graph g(c.name);
    ASSERT_TRUE(examples::build(c.name, g, c.m, c.n, DType::BF16, c.k).ok());
    CompileOptions options;
    options.dependentLaunch = false;
    options.scheduleOptions = c.schedule;
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_TRUE(uses(*p)) << "no " << feature << ":\n" << explainFusion(*p);
    ASSERT_NO_FATAL_FAILURE(
        expectSimulatedMatches(g, tiletest::randomInputs(g, 31), 2e-2, options, smCount));
  }
}

} // namespace

// Flash attention (fuse-attention) as runFlash distributes it: mma.sync
// fragments of S and of P v, the online softmax across quads, the k and v
// blocks' cp.async pipeline, keys past the last and rows past the batch's,
// and the keys split over CTAs (the scheduler splits where the tiles are
// few: every case here but the one-block one).
TEST(GpuSimTest, FlashAttentionMatchesTheReference) {
  struct Case {
    Shape q, k, v, mask;
    DType dtype;
    std::string schedule;
  };
  for (const Case &c : std::vector<Case>{
           {{2, 40, 64}, {2, 72, 64}, {2, 72, 32}, {}, DType::BF16, ""},
           {{5, 16}, {33, 16}, {33, 32}, {}, DType::BF16, ""},
           {{2, 3, 128}, {2, 130, 128}, {2, 130, 128}, {3, 130}, DType::BF16, ""},
           {{1, 70, 64}, {1, 200, 64}, {1, 200, 48}, {70, 200}, DType::F16,
            "attention-block-m=32 attention-block-n=32 attention-stages=3"},
           // Keys split over CTAs (flash decoding): none, three ways where a
           // causal mask leaves a split with no key for the first rows (its
           // max -inf, its sum 0), and more splits than stages.
           {{2, 130, 64}, {2, 130, 64}, {2, 130, 64}, {130, 130}, DType::BF16,
            "attention-split=1"},
           {{2, 130, 64}, {2, 130, 64}, {2, 130, 64}, {130, 130}, DType::BF16,
            "attention-split=3"},
           {{4, 16, 128}, {4, 1000, 128}, {4, 1000, 128}, {16, 1000}, DType::BF16,
            "attention-block-n=32 attention-stages=3 attention-split=11"},
           // (Only the batch's rows hand over partials: 20 rows leave warp
           // 1's second half and warps 2-3 with none.)
           {{2, 20, 64}, {2, 300, 64}, {2, 300, 64}, {}, DType::F16, "attention-split=4"}}) {
    SCOPED_TRACE(shapeString(c.q) + " " + shapeString(c.k) + " " + shapeString(c.v) + " " +
                 c.schedule);
    Graph g("attention");
    Tensor q = g.input("q", c.q, c.dtype);
    Tensor k = g.input("k", c.k, c.dtype);
    Tensor v = g.input("v", c.v, c.dtype);
    double scale = 1.0 / std::sqrt(static_cast<double>(c.q.back()));
    g.output(c.mask.empty() ? nn::attention(q, k, v, scale)
                            : nn::attention(q, k, v, scale, g.input("mask", c.mask, DType::F32)));
    CompileOptions options = simOptions();
    options.fuseAttention = true;
    options.scheduleOptions += " " + c.schedule;
    std::vector<HostTensor> inputs = tiletest::randomInputs(g, 31);
    if (!c.mask.empty())
      inputs.back() = causalMask(c.mask[0], c.mask[1]);
    ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, inputs, 2e-2, options));
  }
}

// The Hopper flash kernel (attention-wgmma=1 and 2, sm_90a; TMA, and TMA
// with the consumers taking turns at named barriers): S = q k^T and
// O += P v by wgmma from the 128-byte-swizzled panels, P through shared
// memory a warpgroup (2: the next block's S issued before this one's
// softmax, k copied a block ahead of v); rows past a batch's, keys past
// the last block, masks,
// f16 and bf16, 64 and 128 rows a CTA, 64 and 128 keys a step, 2-3 stages,
// the keys split over CTAs, and an epilogue that reads q's row. Each case's
// PTX must carry wgmma (and ptxas assemble it without spills).
TEST(GpuSimTest, WgmmaFlashAttentionMatchesTheReference) {
  struct Case {
    Shape q, k, v, mask;
    DType dtype;
    std::string schedule;
    bool residual = false;
  };
  std::string ptxas = ptxtest::ptxasPath();
  for (const Case &c : std::vector<Case>{
           {{2, 130, 64}, {2, 200, 64}, {2, 200, 64}, {130, 200}, DType::BF16, "", true},
           {{1, 70, 128}, {1, 300, 128}, {1, 300, 128}, {}, DType::F16, ""},
           {{3, 128, 64}, {3, 128, 64}, {3, 128, 64}, {128, 128}, DType::BF16,
            "attention-block-n=128 attention-stages=3"},
           {{2, 64, 128}, {2, 260, 128}, {2, 260, 64}, {1, 260}, DType::BF16,
            "attention-block-m=64 attention-block-n=128"},
           {{4, 16, 128}, {4, 1000, 128}, {4, 1000, 128}, {16, 1000}, DType::BF16,
            "attention-split=5"},
           // (Decode: 4 query rows a kv head, only warp 0's first half of
           // each split's partials handed over; 20 rows: warp 1's too.)
           {{3, 4, 128}, {3, 700, 128}, {3, 700, 128}, {}, DType::BF16, "attention-split=6"},
           {{2, 20, 64}, {2, 300, 64}, {2, 300, 64}, {}, DType::BF16, "attention-split=3"},
           // TMA (mode 3; the keys not split): 128 and 64 rows a CTA, 2-4
           // stages, more key blocks than stages, a 2-D k and v.
           {{2, 200, 128}, {2, 700, 128}, {2, 700, 128}, {200, 700}, DType::BF16,
            "attention-split=1 attention-stages=4"},
           {{150, 64}, {333, 64}, {333, 128}, {150, 333}, DType::F16,
            "attention-split=1 attention-block-m=64 attention-block-n=128"}})
   // (3: wgmma 1 with TMA, attention-tma=1; 4: with turns; 5, 6, 7: 1, 4
   // and 2 with P from registers, attention-p-regs=1; 8, 9: 3 and 4 with P
   // from registers and each block's P v under the next one's softmax,
   // attention-overlap=1. Each mode sets all three, as the TMA kernels
   // take them by default: mode 9 is the default kernel where TMA applies.)
   for (int mode : {1, 2, 3, 4, 5, 6, 7, 8, 9}) {
    SCOPED_TRACE(shapeString(c.q) + " " + shapeString(c.k) + " " + shapeString(c.v) + " " +
                 c.schedule + " mode " + std::to_string(mode));
    Graph g("attention");
    Tensor q = g.input("q", c.q, c.dtype);
    Tensor k = g.input("k", c.k, c.dtype);
    Tensor v = g.input("v", c.v, c.dtype);
    double scale = 1.0 / std::sqrt(static_cast<double>(c.q.back()));
    Tensor o = c.mask.empty()
                   ? nn::attention(q, k, v, scale)
                   : nn::attention(q, k, v, scale, g.input("mask", c.mask, DType::F32));
    g.output(c.residual ? o + q : o);
    CompileOptions options = simOptions();
    options.target = "sm_90a";
    options.fuseAttention = true;
    bool pRegs = mode >= 5, tma = mode == 3 || mode == 4 || mode == 6 || mode >= 8,
         turns = mode == 4 || mode == 6 || mode == 9, sAhead = mode == 2 || mode == 7,
         overlap = mode >= 8;
    options.scheduleOptions = std::string(sAhead ? "attention-wgmma=2" : "attention-wgmma=1") +
                              (tma ? " attention-tma=1" : "") +
                              (turns ? " attention-pingpong=1" : " attention-pingpong=0") +
                              (pRegs ? " attention-p-regs=1" : " attention-p-regs=0") +
                              (overlap ? " attention-overlap=1" : " attention-overlap=0") + " " + c.schedule;
    std::vector<HostTensor> inputs = tiletest::randomInputs(g, 37);
    if (c.mask.size() == 2 && c.mask[0] == c.q[1] && c.q[1] <= c.k[1] && c.mask[0] != 1)
      inputs.back() = causalMask(c.mask[0], c.mask[1]);
    auto p = compileGraph(g, options);
    // (Mode 2 holds two blocks' scores: 128 keys a step and 128 columns are
    // refused, as they would spill.)
    bool wideKeys = c.schedule.find("block-n=128") != std::string::npos;
    if (sAhead && wideKeys && c.v.back() + 128 > 192) {
      ASSERT_FALSE(p.ok());
      EXPECT_NE(p.message().find("at most 192"), std::string::npos) << p.message();
      continue;
    }
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_NE(p->ptx.find("wgmma.mma_async"), std::string::npos);
    // (TMA with the keys split too - decode: one consumer, 64 rows.)
    bool split = c.schedule.find("attention-split=") != std::string::npos &&
                 c.schedule.find("attention-split=1") == std::string::npos;
    if (tma && c.schedule.find("attention-split=") != std::string::npos) {
      EXPECT_NE(p->ptx.find("cp.async.bulk.tensor"), std::string::npos);
      // (Turns where the CTA has two consumers: 128 rows.)
      EXPECT_EQ(p->ptx.find("bar.arrive") != std::string::npos,
                turns && !split && c.schedule.find("block-m=64") == std::string::npos);
    }
    // (P v with A in registers: "{d...}, {a0, a1, a2, a3}, desc_b".)
    EXPECT_EQ(p->ptx.find("}, {%r") != std::string::npos, pRegs);
    // (P from registers: the fragments packed before the wgmma fence, so
    // ptxas injects no fence of its own; with the overlap it does once, on
    // the first block's path, where no P v is issued.)
    if (!ptxas.empty())
      ptxtest::expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a",
                                            /*noInjectedSyncs=*/pRegs && !overlap);
    ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, inputs, 3e-2, options));
  }
}

// Causal attention (nn::causal_attention: the mask computed in the
// kernels, no input) in every flash kernel: mma.sync on sm_80, wgmma with
// cp.async and with TMA on sm_90a; fewer queries than keys (aligned to
// the lower right), grouped-query rows (period: the tokens), CTAs whose
// rows cross into the next run, and keys split over CTAs where whole
// splits lie past a CTA's last key (their max -inf, their sum 0).
TEST(GpuSimTest, CausalFlashAttentionMatchesTheReference) {
  struct Case {
    Shape q, k;
    int64_t period;
    std::string target, schedule;
    int64_t window = 0;
  };
  std::string ptxas = ptxtest::ptxasPath();
  for (const Case &c : std::vector<Case>{
           {{2, 200, 64}, {2, 200, 64}, 0, "sm_80", ""},
           {{2, 130, 64}, {2, 130, 64}, 0, "sm_80", "attention-split=3"},
           {{1, 96, 32}, {1, 150, 32}, 0, "sm_80", "attention-block-m=32 attention-block-n=32"},
           {{2, 4 * 48, 64}, {2, 48 + 37, 64}, 48, "sm_80", "attention-split=1"},
           {{2, 100, 128}, {2, 300, 128}, 0, "sm_90a", "attention-tma=0"},
           {{2, 256, 128}, {2, 256, 128}, 0, "sm_90a", "attention-tma=1 attention-split=1"},
           {{2, 4 * 40, 128}, {2, 40 + 90, 128}, 40, "sm_90a",
            "attention-tma=1 attention-split=1 attention-pingpong=0 attention-p-regs=0"},
           {{3, 300, 128}, {3, 300, 128}, 0, "sm_90a",
            "attention-tma=1 attention-split=1 attention-pingpong=1 attention-p-regs=0"},
           {{3, 300, 128}, {3, 300, 128}, 0, "sm_90a",
            "attention-tma=1 attention-split=1 attention-pingpong=1 attention-p-regs=1 "
            "attention-overlap=0"},
           {{4, 16, 128}, {4, 1000, 128}, 16, "sm_90a", "attention-split=5 attention-p-regs=1"},
           {{3, 300, 128}, {3, 300, 128}, 0, "sm_90a",
            "attention-tma=1 attention-split=1 attention-pingpong=0 attention-p-regs=1 "
            "attention-overlap=1"},
           {{4, 16, 128}, {4, 1000, 128}, 16, "sm_90a", "attention-split=5"},
           {{2, 130, 64}, {2, 130, 64}, 0, "sm_90a", "attention-split=3"},
           // Sliding windows: blocks before the window skipped too, splits
           // wholly before it empty.
           {{2, 200, 64}, {2, 200, 64}, 0, "sm_80", "", 50},
           {{2, 4 * 48, 64}, {2, 48 + 37, 64}, 48, "sm_80", "attention-split=1", 20},
           {{2, 100, 128}, {2, 300, 128}, 0, "sm_90a", "attention-tma=0", 64},
           {{2, 256, 128}, {2, 256, 128}, 0, "sm_90a",
            "attention-tma=1 attention-split=1 attention-pingpong=0 attention-p-regs=0", 100},
           {{2, 256, 128}, {2, 256, 128}, 0, "sm_90a",
            "attention-tma=1 attention-split=1 attention-pingpong=1 attention-p-regs=0", 130},
           {{2, 256, 128}, {2, 256, 128}, 0, "sm_90a",
            "attention-tma=1 attention-split=1", 130},
           {{4, 16, 128}, {4, 1000, 128}, 16, "sm_90a", "attention-split=5", 300}}) {
    SCOPED_TRACE(shapeString(c.q) + " over " + shapeString(c.k) + " period " +
                 std::to_string(c.period) + " window " + std::to_string(c.window) + " " +
                 c.target + " " + c.schedule);
    Graph g("causal");
    Tensor q = g.input("q", c.q, DType::BF16);
    Tensor k = g.input("k", c.k, DType::BF16);
    Tensor v = g.input("v", c.k, DType::BF16);
    g.output(nn::causal_attention(q, k, v, 1.0 / std::sqrt(static_cast<double>(c.q.back())),
                                  c.period, c.window));
    CompileOptions options = simOptions();
    options.target = c.target;
    options.fuseAttention = true;
    options.scheduleOptions = c.schedule;
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 1u) << explainFusion(*p);
    EXPECT_TRUE(p->launches[0].attention);
    if (!ptxas.empty())
      ptxtest::expectAssemblesWithoutSpills(ptxas, p->ptx, c.target);
    ASSERT_NO_FATAL_FAILURE(
        expectSimulatedMatches(g, tiletest::randomInputs(g, 43), 3e-2, options));
  }
}

// Persistent TMA flash kernels (attention-persistent=1; by default with
// two consumers and more tiles than the H200's SMs) on few SMs, so that
// each CTA takes several tiles, some one more than others: the stages'
// phases and q's barriers go on over the tiles, the turns too. Attention
// with a mask input, with and without turns and P from registers, a 2-D
// q, k and v; causal ones (their block counts differ a tile: waves of
// alternating order), grouped rows and a window among them, and runs of
// whole row blocks (the tiles by their place in their run; also one CTA a
// tile).
TEST(GpuSimTest, PersistentTmaFlashAttentionMatchesTheReference) {
  struct Case {
    Shape q, k, v;
    bool causal;
    int64_t period, window, sms;
    std::string schedule;
  };
  std::string ptxas = ptxtest::ptxasPath();
  for (const Case &c : std::vector<Case>{
           {{3, 260, 64}, {3, 300, 64}, {3, 300, 64}, false, 0, 0, 4, "attention-persistent=1"},
           {{3, 260, 64}, {3, 300, 64}, {3, 300, 64}, false, 0, 0, 4,
            "attention-persistent=1 attention-pingpong=0 attention-p-regs=0"},
           {{300, 128}, {400, 128}, {400, 64}, false, 0, 0, 2, "attention-persistent=1"},
           {{3, 300, 128}, {3, 300, 128}, {3, 300, 128}, true, 0, 0, 4, "attention-persistent=1"},
           {{2, 4 * 40, 128}, {2, 40 + 90, 128}, {2, 40 + 90, 128}, true, 40, 0, 3,
            "attention-persistent=1"},
           // (Runs of whole row blocks: the tiles by their place in their run.)
           {{2, 3 * 256, 128}, {2, 256 + 100, 128}, {2, 256 + 100, 128}, true, 256, 0, 4,
            "attention-persistent=1"},
           {{2, 3 * 256, 128}, {2, 256 + 100, 128}, {2, 256 + 100, 128}, true, 256, 0, 4,
            "attention-persistent=0"},
           // (Unbatched: 2-D q, k and v, runs of whole row blocks too.)
           {{2 * 256, 128}, {256 + 40, 128}, {256 + 40, 128}, true, 256, 0, 3,
            "attention-persistent=1"},
           {{2 * 256, 128}, {256 + 40, 128}, {256 + 40, 128}, true, 256, 0, 3,
            "attention-persistent=0"},
           {{2, 256, 128}, {2, 256, 128}, {2, 256, 128}, true, 0, 130, 3,
            "attention-persistent=1"}}) {
    SCOPED_TRACE(shapeString(c.q) + " " + shapeString(c.k) + " " + shapeString(c.v) +
                 (c.causal ? " causal" : "") + " on " + std::to_string(c.sms) + " SMs " +
                 c.schedule);
    Graph g("persistent");
    Tensor q = g.input("q", c.q, DType::BF16);
    Tensor k = g.input("k", c.k, DType::BF16);
    Tensor v = g.input("v", c.v, DType::BF16);
    double scale = 1.0 / std::sqrt(static_cast<double>(c.q.back()));
    int64_t sq = c.q[c.q.size() - 2], sk = c.k[c.k.size() - 2];
    g.output(c.causal ? nn::causal_attention(q, k, v, scale, c.period, c.window)
                      : nn::attention(q, k, v, scale, g.input("mask", {sq, sk}, DType::F32)));
    CompileOptions options;
    options.dependentLaunch = false;
    options.fuseAttention = true;
    options.scheduleOptions = "attention-split=1 " + c.schedule;
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_EQ(p->launches.size(), 1u) << explainFusion(*p);
    EXPECT_EQ(p->launches[0].tensorMaps.size(), 3u);
    EXPECT_EQ(p->launches[0].persistent,
              c.schedule.find("attention-persistent=0") == std::string::npos);
    EXPECT_GT(p->launches[0].gridSize(), c.sms);
    if (!ptxas.empty())
      ptxtest::expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
    std::vector<HostTensor> inputs = tiletest::randomInputs(g, 47);
    if (!c.causal)
      inputs.back() = causalMask(sq, sk);
    ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, inputs, 3e-2, options, c.sms));
  }
}

// Causal masks outside flash attention, simulated and interpreted against
// the reference: returned (a row kernel stores it), added to scores in a
// GEMM's epilogue (attention as three kernels, with a sliding window), in
// a row kernel's softmax of f32 rows (a window too) and of bf16 rows (the
// mask's columns shifted: the second piece of a concatenation), and
// reduced (a kernel of its own, read by the next).
TEST(GpuSimTest, CausalMasksInRowAndGemmKernels) {
  for (int kind = 0; kind < 5; ++kind)
    for (const char *target : {"sm_80", "sm_90a"}) {
      SCOPED_TRACE(std::to_string(kind) + " " + target);
      Graph g("masks");
      if (kind == 0) {
        g.output(g.causal_mask({3, 40, 70}, 20));
      } else if (kind == 1) {
        Tensor q = g.input("q", {2, 100, 64}, DType::BF16);
        Tensor k = g.input("k", {2, 130, 64}, DType::BF16);
        g.output(nn::causal_attention(q, k, g.input("v", {2, 130, 32}, DType::BF16), 0.125, 50,
                                      /*window=*/40));
      } else if (kind == 2) {
        Tensor x = g.input("x", {2, 33, 1000}, DType::F32);
        g.output(nn::softmax(x + g.causal_mask({33, 1000}, 11, /*window=*/300)));
      } else if (kind == 3) {
        Tensor x = g.input("x", {64, 100}, DType::BF16), y = g.input("y", {64, 200}, DType::BF16);
        Tensor masked = cast(cast(y, DType::F32) + g.causal_mask({64, 200}, 16), DType::BF16);
        g.output(nn::softmax(concat({x, masked}, 1)));
      } else {
        Tensor m = g.causal_mask({48, 64}, 24);
        g.output(max(m, -1) + g.input("y", {48, 1}, DType::F32));
        g.output(exp(m));
      }
      CompileOptions options = simOptions();
      options.target = target;
      options.fuseAttention = false;
      auto p = compileGraph(g, options);
      ASSERT_TRUE(p.ok()) << p.message();
      // (No kernel of its own where its users compute it: the three
      // attention kernels, the one softmax.)
      if (kind <= 3) {
        EXPECT_EQ(p->launches.size(), kind == 1 ? 3u : 1u) << explainFusion(*p);
      }
      std::vector<HostTensor> inputs = tiletest::randomInputs(g, 53);
      ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, inputs, kind == 3 || kind == 1 ? 3e-2 : 1e-5,
                                                     options));
      auto interpreted = tiletest::runAtTileStage(g, inputs, options);
      ASSERT_TRUE(interpreted.ok()) << interpreted.message();
      std::vector<HostTensor> ref = evaluateReference(g, inputs);
      for (size_t j = 0; j < ref.size(); ++j)
        EXPECT_LT(relativeError((*interpreted)[j], ref[j]), kind == 3 || kind == 1 ? 3e-2 : 1e-5)
            << "interpreted output " << j;
    }
}

// Causal attention over a symbolic token count (the mask's rows and keys,
// its period the tokens once bound): bound to two sizes, the flash kernel
// simulated against the reference, which binds the graph itself.
TEST(GpuSimTest, SymbolicCausalAttentionMatchesTheReference) {
  const int64_t tokens = symbolDim("tokens");
  Graph g("causal");
  Tensor q = g.input("q", {4, tokens, 64}, DType::BF16);
  Tensor k = g.input("k", {4, tokens, 64}, DType::BF16);
  Tensor v = g.input("v", {4, tokens, 64}, DType::BF16);
  g.output(nn::causal_attention(q, k, v, 0.125));
  for (int64_t n : {37, 130}) {
    SCOPED_TRACE(std::to_string(n) + " tokens");
    std::unique_ptr<Graph> bound = g.bind({{"tokens", n}});
    std::vector<HostTensor> inputs = tiletest::randomInputs(*bound, 59);
    HostTensor symbolic = evaluateReference(g, inputs).at(0);
    EXPECT_EQ(symbolic.values, evaluateReference(*bound, inputs).at(0).values);
    CompileOptions options = simOptions();
    options.target = "sm_90a";
    options.fuseAttention = true;
    ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(*bound, inputs, 3e-2, options));
  }
}

// The key blocks a causal mask removes whole for every row of a CTA are
// not read. Causal: keys from 192 on are NaN, so a row below 192 that read
// them would be NaN (NaN + -inf is NaN), while rows from 192 on see them.
// With 64 rows and 64 keys a block, rows below 192 must match the
// reference of finite keys. A window of 64 keys: keys below 64 are NaN,
// which rows from 128 on never see (row 128's first key is 65), so those
// rows must match. (The same graphs with the mask as an input read every
// block: their rows are NaN, which shows the check can fail.)
TEST(GpuSimTest, CausalFlashAttentionSkipsMaskedBlocks) {
  for (auto [target, schedule] : std::vector<std::pair<std::string, std::string>>{
           {"sm_80", "attention-block-m=64 attention-block-n=64 attention-split=1"},
           {"sm_90a", "attention-block-m=64 attention-block-n=64 attention-split=1 "
                      "attention-tma=0"},
           {"sm_90a", "attention-block-m=64 attention-block-n=64 attention-split=1 "
                      "attention-tma=1"}})
    for (int64_t window : {0, 64})
      for (bool maskInput : {false, true}) {
        SCOPED_TRACE(target + " " + schedule + " window " + std::to_string(window) +
                     (maskInput ? ", mask as an input" : ""));
        Graph g("causal");
        Tensor q = g.input("q", {2, 256, 128}, DType::BF16);
        Tensor k = g.input("k", {2, 256, 128}, DType::BF16);
        Tensor v = g.input("v", {2, 256, 128}, DType::BF16);
        double scale = 1.0 / std::sqrt(128.0);
        g.output(maskInput
                     ? nn::attention(q, k, v, scale, g.input("mask", {256, 256}, DType::F32))
                     : nn::causal_attention(q, k, v, scale, 0, window));
        CompileOptions options = simOptions();
        options.target = target;
        options.fuseAttention = true;
        options.scheduleOptions = schedule;
        std::vector<HostTensor> inputs = tiletest::randomInputs(g, 47);
        if (maskInput) {
          inputs.back() = causalMask(256, 256);
          for (int64_t r = 0; r < 256; ++r)
            for (int64_t c = 0; window && c <= r - window; ++c)
              inputs.back().values[r * 256 + c] = -INFINITY;
        }
        std::vector<HostTensor> ref = evaluateReference(g, inputs);
        int64_t nanFrom = window ? 0 : 192, nanTo = window ? 64 : 256;
        int64_t rowFrom = window ? 128 : 0, rowTo = window ? 256 : 192;
        for (int input : {1, 2})
          for (int64_t b = 0; b < 2; ++b)
            for (int64_t key = nanFrom; key < nanTo; ++key)
              for (int64_t d = 0; d < 128; ++d)
                inputs[input].values[(b * 256 + key) * 128 + d] = NAN;
        auto got = gpusim::runAtGpuStage(g, inputs, options, 132);
        ASSERT_TRUE(got.ok()) << got.message();
        int64_t nanRows = 0;
        double worst = 0;
        for (int64_t b = 0; b < 2; ++b)
          for (int64_t r = rowFrom; r < rowTo; ++r) {
            bool nan = false;
            for (int64_t d = 0; d < 128; ++d) {
              size_t i = (b * 256 + r) * 128 + d;
              float x = (*got)[0].values[i], want = ref[0].values[i];
              nan |= std::isnan(x);
              worst = std::max(worst, static_cast<double>(std::fabs(x - want)));
            }
            nanRows += nan;
          }
        if (maskInput) {
          EXPECT_GT(nanRows, 0) << "the input mask's kernel read no NaN key";
        } else {
          EXPECT_EQ(nanRows, 0);
          EXPECT_LT(worst, 3e-2);
        }
      }
}

// An output epilogue that reads q's row as a residual (random graph seed
// 594: the row's load sat between the softmax and p @ v in the program,
// which runFlash first refused) and one that reduces the output; the
// scores' mask read again by the output's epilogue (one load after CSE).
TEST(GpuSimTest, FlashAttentionEpiloguesReadRows) {
  for (int kind = 0; kind < 2; ++kind) {
    SCOPED_TRACE(kind == 0 ? "q as a residual" : "the mask read by both parts");
    Graph g("attention");
    Tensor q = g.input("q", {2, 128, 64}, DType::BF16);
    Tensor k = g.input("k", {2, 64, 64}, DType::BF16);
    Tensor v = g.input("v", {2, 64, 64}, DType::BF16);
    if (kind == 0) {
      Tensor o = nn::attention(q, k, v, 0.125) + q;
      g.output(o);
      g.output(sum(o, 1));
    } else {
      Tensor mask = g.input("mask", {128, 64}, DType::F32);
      g.output(nn::attention(q, k, v, 0.125, mask) * cast(mask, DType::BF16));
    }
    CompileOptions options = simOptions();
    options.fuseAttention = true;
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    int flash = 0;
    for (const KernelLaunchPlan &l : p->launches)
      flash += l.attention;
    EXPECT_EQ(flash, 1) << explainFusion(*p);
    ASSERT_NO_FATAL_FAILURE(
        expectSimulatedMatches(g, tiletest::randomInputs(g, 41), 3e-2, options));
  }
}

// Every example at shapes that take the row schedules sm_80 can choose (a
// warp a row, a CTA a row, rows streamed; widths not a multiple of the
// vector, one column) and the mma.sync GEMMs (odd sizes, an odd depth:
// element copies), bf16 and f32, simulated against the reference.
TEST(GpuSimTest, ExamplesMatchTheReference) {
  struct Shape2 {
    int64_t rows, cols;
  };
  for (const std::string &name : examples::names())
    for (DType dtype : {DType::F32, DType::BF16})
      for (Shape2 s : examples::isMatmul(name)
                          ? std::vector<Shape2>{{1, 40}, {37, 130}, {130, 64}}
                          : std::vector<Shape2>{{1, 1}, {3, 1000}, {16, 4096}, {2, 40000}}) {
        if (name == "rope" && s.cols % 2 != 0)
          continue;
        SCOPED_TRACE(name + " " + dtypeName(dtype) + " [" + std::to_string(s.rows) + ", " +
                     std::to_string(s.cols) + "]");
        Graph g(name);
        Status built = examples::build(name, g, s.rows, s.cols, dtype, /*depth=*/99);
        if (!built.ok())
          continue;
        ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, tiletest::randomInputs(g, 7),
                                                       dtype == DType::F32 ? 1e-5 : 5e-2,
                                                       simOptions()));
      }
}

// The decoder layer (examples::buildDecoderLayer) with a causal mask, its
// attention as three kernels, as one flash-attention kernel, and as the
// default chooses by shape (unset).
TEST(GpuSimTest, DecoderLayerMatchesTheReference) {
  // (sm_90a: the H200's kernels; from 33 tokens its GEMMs are TMA and
  // wgmma; 64 tokens are 256 grouped query rows: flash by shape.)
  for (auto [tokens, past, flash, target] :
       std::vector<std::tuple<int64_t, int64_t, std::optional<bool>, const char *>>{
           {1, 7, false, "sm_80"},
           {3, 5, true, "sm_80"},
           {16, 1, true, "sm_80"},
           {8, 0, true, "sm_80"},
           {16, 9, true, "sm_90a"},
           {72, 5, false, "sm_90a"},
           {72, 5, true, "sm_90a"},
           {40, 3, std::nullopt, "sm_90a"},
           {64, 0, std::nullopt, "sm_90a"}}) {
    SCOPED_TRACE(std::to_string(tokens) + " tokens after " + std::to_string(past) +
                 (!flash ? ", by shape, " : *flash ? ", flash attention, " : ", ") + target);
    Graph g("layer");
    ASSERT_TRUE(examples::build("decoder_layer", g, tokens, 1024, DType::BF16, past).ok());
    std::vector<HostTensor> inputs = tiletest::decoderLayerInputs(g, tokens, past, 13);
    CompileOptions options = simOptions();
    options.target = target;
    options.fuseAttention = flash;
    if (!flash) { // (by shape: flash from 256 query rows, 4 a token here)
      auto p = compileGraph(g, options);
      ASSERT_TRUE(p.ok()) << p.message();
      EXPECT_EQ(std::any_of(p->launches.begin(), p->launches.end(),
                            [](const KernelLaunchPlan &l) { return l.attention; }),
                4 * tokens >= 256);
      // (The projections' and the MLP's GEMMs, of `tokens` rows: wgmma
      // tiles fed by TMA, persistent CTAs.)
      for (const KernelLaunchPlan &l : p->launches)
        if (l.gemm && !l.attention && l.rows == tokens) {
          EXPECT_TRUE(l.persistent) << l.name;
        }
    }
    ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, inputs, 3e-2, options));
  }
}

// The decoder layer's flash attention with TMA copies (its keys not split:
// attention-split=1, so the head dim 128 takes attention-tma's default):
// the kernel binds q, k and v (the rope'd, cache-appended tensors) through
// tensor maps, and the layer still matches the reference.
// A cache longer than its filled rows (capacity > past + tokens): the new
// keys and values written at past, the causal mask removing the rows past
// the new tokens, and flash attention splitting only the keys the rows
// see (its split count and blocks from the mask's limit), by TMA and by
// cp.async; the unfilled rows hold random values, which must not reach
// the output. With the L2 prefetches of decode (as under dependent launch,
// which the simulator leaves off): every prefetched line lies in a buffer.
TEST(GpuSimTest, DecoderLayerOverALongerCacheMatchesTheReference) {
  for (auto [tokens, past, capacity, options_] :
       std::vector<std::tuple<int64_t, int64_t, int64_t, const char *>>{
           {1, 300, 1000, ""},
           {3, 130, 700, ""},
           {3, 130, 700, "attention-tma=0"},
           {1, 300, 1000, "gemm-l2-prefetch=65536 attention-l2-prefetch=262144"},
           {3, 957, 960, "gemm-l2-prefetch=1048576 attention-l2-prefetch=4194304"}}) {
    SCOPED_TRACE(std::to_string(tokens) + " tokens after " + std::to_string(past) +
                 ", capacity " + std::to_string(capacity) + " " + options_);
    Graph g("layer");
    examples::buildDecoderLayer(g, tokens, 1024, past, DType::BF16, true, capacity);
    std::vector<HostTensor> inputs = tiletest::decoderLayerInputs(g, tokens, past, 23);
    CompileOptions options = simOptions();
    options.target = "sm_90a";
    options.fuseAttention = true;
    options.scheduleOptions = options_;
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    // (Splits of the seen keys' blocks only: fewer than the cache's would
    // give.)
    for (const KernelLaunchPlan &l : p->launches) {
      if (l.attention) {
        EXPECT_LE(l.splitK, (past + tokens + 63) / 64) << explainFusion(*p);
      }
    }
    ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, inputs, 3e-2, options));
  }
}

TEST(GpuSimTest, DecoderLayerWithTmaFlashMatchesTheReference) {
  Graph g("layer");
  ASSERT_TRUE(examples::build("decoder_layer", g, 72, 1024, DType::BF16, 5).ok());
  std::vector<HostTensor> inputs = tiletest::decoderLayerInputs(g, 72, 5, 17);
  CompileOptions options = simOptions();
  options.target = "sm_90a";
  options.fuseAttention = true;
  options.scheduleOptions = "attention-split=1";
  auto p = compileGraph(g, options);
  ASSERT_TRUE(p.ok()) << p.message();
  int tmaFlash = 0;
  for (const KernelLaunchPlan &l : p->launches)
    tmaFlash += l.attention && l.tensorMaps.size() == 3;
  EXPECT_EQ(tmaFlash, 1) << explainFusion(*p);
  ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, inputs, 3e-2, options));
}

// The random graphs (RandomGraphs.h) the fuzz test compiles, simulated
// against the reference with the GPU test's tolerances: the graphs the
// compiler takes (seeds 1-N, TILEC_SIM_SEEDS=N, default 60) for sm_80 and
// for sm_90a (the H200's kernels: clusters, TMA, wgmma where the shapes
// take them), with flash attention on (their attention ops fuse where they
// can).
TEST(GpuSimTest, RandomGraphsMatchTheReference) {
  const char *env = std::getenv("TILEC_SIM_SEEDS");
  uint64_t seeds = env && std::atoll(env) > 0 ? std::strtoull(env, nullptr, 10) : 60;
  int simulated = 0, flash = 0;
  for (uint64_t run = 0; run < 2 * seeds; ++run) {
    uint64_t seed = run % seeds + 1;
    const char *target = run < seeds ? "sm_80" : "sm_90a";
    Graph g("fuzz");
    std::string ops = testgraphs::RandomGraphBuilder(seed).build(g);
    SCOPED_TRACE("seed " + std::to_string(seed) + " " + target + "\n" + ops);
    CompileOptions options = simOptions();
    options.target = target;
    options.fuseAttention = true;
    // (sm_90a: the L2 prefetches of dependent launch, in every GEMM and
    // flash kernel; each line must lie in a buffer.)
    if (run >= seeds)
      options.scheduleOptions = "gemm-l2-prefetch=65536 attention-l2-prefetch=262144";
    auto compiled = compileGraph(g, options);
    if (!compiled.ok()) { // (refused: FuzzTest checks the message)
      if (getenv("GPUSIM_VERBOSE"))
        std::printf("seed %llu refused: %s\n", static_cast<unsigned long long>(seed),
                    compiled.message().substr(0, 300).c_str());
      continue;
    }
    for (const KernelLaunchPlan &l : compiled->launches)
      flash += l.attention;
    std::vector<HostTensor> inputs = tiletest::randomInputs(g, seed * 100);
    auto got = gpusim::runAtGpuStage(g, inputs, options);
    ASSERT_TRUE(got.ok()) << got.message();
    std::vector<HostTensor> ref = evaluateReference(g, inputs);
    ASSERT_EQ(got->size(), ref.size());
    testgraphs::GraphTolerance tol = testgraphs::toleranceFor(g);
    for (size_t j = 0; j < ref.size(); ++j)
      EXPECT_LT(testgraphs::graphError((*got)[j], ref[j], tol.floor), tol.error) << "output " << j;
    ++simulated;
  }
  EXPECT_GE(simulated, static_cast<int>(2 * seeds * 8 / 10));
  std::printf("random graphs simulated for sm_80 and sm_90a: %d of %d (%d flash-attention "
              "kernels)\n",
              simulated, static_cast<int>(2 * seeds), flash);
}

// Split k (the k steps of few tiles over several CTAs a tile: partial sums
// in a workspace, a counter a warp, the last to arrive adds the splits in
// order and runs the epilogue), decode's 1- and 16-row tiles and 64-row
// ones, odd K (element copies), split over 2 to 16 CTAs.
TEST(GpuSimTest, SplitKGemmsMatchTheReference) {
  struct Case {
    int64_t m, n, k;
    const char *name;
    int64_t split;
  };
  for (const Case &c : std::vector<Case>{{16, 256, 8192, "matmul", 0},
                                         {1, 128, 4095, "matmul_bias_gelu", 4},
                                         {64, 256, 2048, "matmul", 2}}) {
    SCOPED_TRACE(std::string(c.name) + " " + std::to_string(c.m) + "x" + std::to_string(c.n) +
                 "x" + std::to_string(c.k));
    Graph g(c.name);
    ASSERT_TRUE(examples::build(c.name, g, c.m, c.n, DType::BF16, c.k).ok());
    CompileOptions options = simOptions();
    if (c.split)
      options.scheduleOptions = "gemm-split-k=" + std::to_string(c.split);
    auto p = compileGraph(g, options);
    ASSERT_TRUE(p.ok()) << p.message();
    ASSERT_GT(p->launches.back().splitK, 1) << explainFusion(*p);
    ASSERT_NO_FATAL_FAILURE(
        expectSimulatedMatches(g, tiletest::randomInputs(g, 17), 2e-2, options));
  }
}

// Hopper GEMMs on wgmma (sm_90a) whose panels come by cp.async or element
// copies (gemm-tma=0, or what TMA cannot take: rows not 16-byte
// aligned): the matrix descriptors' 128-byte swizzle, K-major and MN-major
// (a [K, N] rhs, matmul_nn) panels (a transposed lhs needs TMA), the accumulator fragments in the
// epilogue, two chains a warpgroup, block_n 64-256, the pipeline's reuse of
// a stage only after the wait that retires its MMAs (one or two steps
// later: gemm-mma-pending), and split k.
TEST(GpuSimTest, WgmmaGemmsMatchTheReference) {
  expectHopperGemmsMatch(
      {{130, 512, 500, "matmul", ""},
       {256, 512, 4095, "matmul", ""},
       {192, 520, 1000, "matmul_bias_gelu", "gemm-tma=0"},
       {256, 384, 512, "matmul_nn", "gemm-tma=0"},
       {320, 136, 264, "matmul_bias_gelu", "gemm-tma=0 gemm-block-n=64"},
       {256, 512, 512, "matmul", "gemm-tma=0 gemm-block-m=128 gemm-block-n=256"},
       {256, 256, 768, "matmul", "gemm-tma=0 gemm-m-chains=2"},
       {128, 128, 2048, "matmul", "gemm-tma=0 gemm-split-k=4"},
       {200, 200, 1000, "matmul_nn", "gemm-tma=0 gemm-block-n=128 gemm-stages=3"},
       {256, 512, 512, "matmul", "gemm-tma=0 gemm-mma-pending=2 gemm-stages=5"}},
      "wgmma",
      [](const CompiledProgram &p) { return p.ptx.find("wgmma.mma_async") != std::string::npos; },
      /*smCount=*/132);
}

// Hopper GEMMs as the scheduler makes them by default: TMA boxes in the
// 128-byte swizzle (multicast over a cluster's CTAs with gemm-cluster-m=2), a producer warpgroup
// and consumer warpgroups (run as fibers) handing stages over full and
// empty mbarriers, persistent CTAs looping over tiles (8 SMs here, so each
// loops), TMA stores of the output, transposed lhs read MN-major, and the
// options that change them.
TEST(GpuSimTest, TmaGemmsMatchTheReference) {
  expectHopperGemmsMatch(
      {{256, 512, 512, "matmul", ""},
       {200, 264, 520, "matmul_bias_gelu", ""},
       {256, 384, 256, "matmul_nn", ""},
       {192, 256, 256, "matmul_lhs_t", ""},
       {256, 256, 512, "matmul", "gemm-cluster-m=2"},
       {256, 384, 256, "matmul_nn", "gemm-cluster-m=2"},
       {256, 512, 256, "matmul", "gemm-block-m=128 gemm-block-n=256"},
       {256, 256, 512, "matmul", "gemm-persistent=false gemm-tma-store=false"},
       {384, 256, 512, "matmul", "gemm-pingpong=true"},
       {256, 256, 1024, "matmul", "gemm-split-k=2"},
       {256, 448, 256, "matmul_swiglu", ""},
       {256, 448, 256, "matmul_swiglu", "gemm-block-n=112"},
       {256, 336, 256, "matmul", "gemm-block-n=112"},
       {256, 576, 256, "matmul", "gemm-block-n=192"},
       // Two and three k steps of MMAs left running: stages freed two and
       // three steps after their use; a tile of fewer k steps (one, two)
       // frees only its own at its end.
       {256, 256, 512, "matmul", "gemm-mma-pending=2 gemm-block-n=128"},
       {256, 256, 64, "matmul", "gemm-mma-pending=3 gemm-block-n=128 gemm-stages=6"},
       {200, 264, 128, "matmul_bias_gelu", "gemm-mma-pending=3 gemm-block-n=128 gemm-stages=6"}},
      "TMA", [](const CompiledProgram &p) { return !p.launches.back().tensorMaps.empty(); },
      /*smCount=*/8);
}

// Sibling GEMMs past 64 rows (tilec-fuse{sibling-gemm-rows}, off by
// default): two products of one lhs, each with its own epilogue and
// output, in one TMA wgmma kernel (ragged rows and columns).
TEST(GpuSimTest, SiblingGemmsPastDecodeRows) {
  Graph g("siblings");
  Tensor h = g.input("h", {200, 256}, DType::BF16);
  Tensor wk = g.input("wk", {136, 256}, DType::BF16), wv = g.input("wv", {136, 256}, DType::BF16);
  g.output(-matmul(h, wk, false, true));
  g.output(matmul(h, wv, false, true));
  CompileOptions options;
  options.dependentLaunch = false;
  options.fuseOptions = "sibling-gemm-rows=256";
  auto p = compileGraph(g, options);
  ASSERT_TRUE(p.ok()) << p.message();
  ASSERT_EQ(p->launches.size(), 1u) << explainFusion(*p);
  ASSERT_NE(p->ptx.find("wgmma.mma_async"), std::string::npos);
  ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, tiletest::randomInputs(g, 23), 2e-2, options, 8));
}

// The GEMM schedule options for sm_90a over the GEMM examples at shapes
// with ragged edges (M, N not multiples of the tiles, batched products),
// each option set over each example and shape: the H200's GEMM space, the
// part GPU tests reach only at the options' defaults.
TEST(GpuSimTest, HopperGemmOptionsMatchTheReference) {
  struct Case {
    int64_t m, n, k;
  };
  int simulated = 0;
  for (const char *opts :
       {"", "gemm-cluster-m=2", "gemm-persistent=false", "gemm-tma-store=false",
        "gemm-pingpong=true", "gemm-m-chains=2 gemm-block-m=256", "gemm-mma-pending=0",
        "gemm-stages=2", "gemm-block-n=64", "gemm-block-n=256", "gemm-split-k=3",
        "gemm-tma=0", "gemm-tma=0 gemm-mma-pending=0 gemm-stages=3", "gemm-wgmma-mn=false",
        "gemm-wgmma=0", "gemm-group-m=1"})
    for (const char *name : {"matmul", "matmul_nn", "matmul_lhs_t", "matmul_bias_gelu"})
      for (Case c : {Case{200, 136, 192}, Case{72, 264, 320}}) {
        SCOPED_TRACE(std::string(opts) + ": " + name + " " + std::to_string(c.m) + "x" +
                     std::to_string(c.n) + "x" + std::to_string(c.k));
        Graph g(name);
        ASSERT_TRUE(examples::build(name, g, c.m, c.n, DType::BF16, c.k).ok());
        CompileOptions options;
        options.dependentLaunch = false;
        options.scheduleOptions = opts;
        if (!compileGraph(g, options).ok())
          continue; // (an option a shape cannot take says so; CompilerTest checks those)
        ASSERT_NO_FATAL_FAILURE(
            expectSimulatedMatches(g, tiletest::randomInputs(g, 41), 2e-2, options, 6));
        ++simulated;
      }
  std::printf("sm_90a GEMMs simulated under the schedule options: %d\n", simulated);
  EXPECT_GE(simulated, 100);
}

// wgmma tiles for GEMMs of 64 rows or fewer (by default from 33 rows;
// gemm-wgmma-min-rows=1 here, so 1 and 16 rows too): the one block row
// lies partly past the matrix (TMA's zero fill, masked stores), with and
// without TMA and split k.
TEST(GpuSimTest, FewRowWgmmaGemmsMatchTheReference) {
  int simulated = 0;
  for (const char *opts : {"gemm-wgmma-min-rows=1", "gemm-wgmma-min-rows=1 gemm-split-k=2",
                           "gemm-wgmma-min-rows=1 gemm-tma=0"})
    for (const char *name : {"matmul", "matmul_nn", "matmul_lhs_t", "matmul_bias_gelu"})
      for (int64_t m : {1, 16, 33, 64}) {
        SCOPED_TRACE(std::string(opts) + ": " + name + " " + std::to_string(m) + "x264x320");
        Graph g(name);
        ASSERT_TRUE(examples::build(name, g, m, 264, DType::BF16, 320).ok());
        CompileOptions options;
        options.dependentLaunch = false;
        options.scheduleOptions = opts;
        auto p = compileGraph(g, options);
        if (!p.ok())
          continue; // (a transposed lhs without TMA: CompilerTest checks the message)
        // (A transposed lhs is copied by TMA alone, which needs its rows of
        // m elements 16-byte aligned; else mma.sync tiles.)
        if (std::string(name) != "matmul_lhs_t" ||
            (m % 8 == 0 && std::string(opts).find("tma=0") == std::string::npos)) {
          ASSERT_NE(p->ptx.find("wgmma.mma_async"), std::string::npos) << explainFusion(*p);
        }
        ASSERT_NO_FATAL_FAILURE(
            expectSimulatedMatches(g, tiletest::randomInputs(g, 43), 2e-2, options, 6));
        ++simulated;
      }
  std::printf("few-row wgmma GEMMs simulated: %d\n", simulated);
  EXPECT_GE(simulated, 40);
}

// The row schedules' options (what the scheduler chooses at other shapes
// or targets, or what experiments turn on): rows streamed with their
// inputs kept in shared memory or re-read, a ring of rows prefetched
// through shared memory, weights staged in it, loops of rows a CTA,
// rewidened vectors, recomputed exps, online softmax and Welford pairs
// forced or off, row scalars folded, transposes as strided rows, 4-byte
// transpose blocks; each over the examples at shapes that reach it.
TEST(GpuSimTest, RowScheduleOptionsMatchTheReference) {
  struct Shape2 {
    int64_t rows, cols;
  };
  for (const char *opts :
       {"stream-shared=true max-chunks-per-thread=2", "stream-shared=false max-chunks-per-thread=2",
        "row-prefetch=2", "row-prefetch=3 max-chunks-per-thread=2", "stage-weights=true",
        "row-loop=true", "rewiden=true", "recompute-exp=true", "recompute-exp=false",
        "online-softmax=true", "online-softmax=false", "welford=false", "row-scalars=true",
        "fold-into-exp=true", "sink-loads=false", "transpose-tiles=false",
        "transpose-tile-bytes=4", "max-threads-per-block=1024 min-threads-per-block=1024"})
    for (const char *name : {"rms_norm", "softmax", "layer_norm", "add_rms_norm", "rope",
                             "elementwise_chain", "transpose", "heads_rms_norm"})
      for (Shape2 s : {Shape2{3, 1000}, Shape2{16, 4096}, Shape2{2, 40000}, Shape2{130, 66}}) {
        if (std::string(name) == "transpose" && s.cols > 4096)
          continue;
        SCOPED_TRACE(std::string(opts) + ": " + name + " [" + std::to_string(s.rows) + ", " +
                     std::to_string(s.cols) + "]");
        Graph g(name);
        if (!examples::build(name, g, s.rows, s.cols, DType::BF16).ok())
          continue;
        CompileOptions options = simOptions();
        options.scheduleOptions = opts;
        if (!compileGraph(g, options).ok())
          continue; // (an option a shape cannot take says so; CompilerTest checks those)
        // (2 SMs: row loops take several row blocks a CTA.)
        ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, tiletest::randomInputs(g, 23), 5e-2,
                                                       options, /*smCount=*/2));
      }
}

// Random combinations of the row schedules' options (TILEC_SIM_ROW_OPTIONS=N
// cases, default 48, fixed seeds): a row example or a random graph, at a
// random shape (1-257 rows, 1-40000 columns) and dtype, for sm_80 or
// sm_90a (clusters, L2 prefetches), with one to four options drawn from
// what the scheduler takes. Each compiles and, in the simulator (on 2
// SMs, where row loops take many row blocks a CTA, or 132), matches the
// reference (examples) or the tile-stage interpreter (random graphs), or
// is refused with a message that is not an internal error, and most
// compile. The test above takes the options one at a time; here their
// conditions meet.
TEST(GpuSimTest, RandomRowScheduleOptionsMatchTheReference) {
  const char *env = std::getenv("TILEC_SIM_ROW_OPTIONS");
  int cases = env && std::atoi(env) > 0 ? std::atoi(env) : 48;
  // (TILEC_SIM_ROW_CASE=N: case N alone, to look into one; cases then
  // counts to N + 1.)
  const char *only = std::getenv("TILEC_SIM_ROW_CASE");
  int one = only ? std::atoi(only) : -1;
  if (one >= 0)
    cases = one + 1;
  std::mt19937_64 rng(2044);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  static const std::vector<std::vector<const char *>> table = {
      {"max-threads-per-block=256", "max-threads-per-block=1024"},
      {"min-threads-per-block=32", "min-threads-per-block=64", "min-threads-per-block=256"},
      {"max-chunks-per-thread=1", "max-chunks-per-thread=2", "max-chunks-per-thread=4"},
      {"row-chunks=1", "row-chunks=2", "row-chunks=8"},
      {"few-rows=4", "few-rows=64"},
      {"row-cluster-max=1", "row-cluster-max=2", "row-cluster=2", "row-cluster=4",
       "row-cluster=16"},
      {"sink-loads=true", "sink-loads=false"},
      {"rewiden=true"},
      {"recompute-exp=true", "recompute-exp=false"},
      {"stream-shared=true", "stream-shared=false"},
      {"row-loop=true", "row-prefetch=2", "row-prefetch=3"},
      {"stage-weights=true"},
      {"row-l2-prefetch=0", "row-l2-prefetch=1", "row-l2-prefetch=3"},
      {"row-l2-prefetch-first=true", "row-l2-prefetch-first=false"},
      {"online-softmax=true", "online-softmax=false"},
      {"readonly-inputs=true"},
      {"row-scalars=true", "row-scalars=auto"},
      {"fold-into-exp=true", "fold-into-exp=false"},
      {"welford=auto", "welford=false"},
      {"transpose-tiles=false", "transpose-tile-bytes=4"},
      {"elementwise-elements=4", "elementwise-elements=16", "elementwise-threads-per-block=128"},
      {"max-registers=128", "one-wave-registers=true"}};
  static const char *names[] = {"rms_norm",          "softmax",  "layer_norm",
                                "add_rms_norm",      "rope",     "silu_mul",
                                "elementwise_chain", "transpose", "heads_rms_norm"};
  static const int64_t rowChoices[] = {1, 2, 3, 5, 16, 33, 130, 257};
  static const int64_t colChoices[] = {1, 7, 64, 66, 1000, 4096, 8200, 40000};
  static const DType dtypes[] = {DType::BF16, DType::F32, DType::F16};
  int compiled = 0, refused = 0;
  for (int c = 0; c < cases; ++c) {
    std::string opts;
    std::vector<size_t> groups;
    for (size_t n = 1 + pick(4); groups.size() < n;) {
      size_t gi = pick(table.size());
      if (std::find(groups.begin(), groups.end(), gi) == groups.end())
        groups.push_back(gi);
    }
    for (size_t gi : groups)
      opts += std::string(opts.empty() ? "" : " ") + table[gi][pick(table[gi].size())];
    const char *target = pick(2) ? "sm_90a" : "sm_80";
    int64_t smCount = pick(2) ? 2 : 132;
    Graph g("case");
    std::string what;
    bool random = pick(4) == 0;
    DType dtype = dtypes[pick(3)];
    if (random) {
      if (one >= 0 && c != one)
        continue;
      what = "random graph of seed " + std::to_string(7000 + c) + "\n" +
             testgraphs::RandomGraphBuilder(7000 + c).build(g);
    } else {
      const char *name = names[pick(std::size(names))];
      int64_t rows = rowChoices[pick(std::size(rowChoices))];
      int64_t cols = colChoices[pick(std::size(colChoices))];
      // (The simulator runs every thread: at most a few million elements.)
      while (rows * cols > (int64_t{1} << 21))
        rows = std::max<int64_t>(1, rows / 4);
      what = std::string(name) + " " + dtypeName(dtype) + " [" + std::to_string(rows) + ", " +
             std::to_string(cols) + "]";
      if (one >= 0 && c != one)
        continue;
      if (!examples::build(name, g, rows, cols, dtype).ok())
        continue; // (a shape the example cannot take: rope's odd widths)
    }
    SCOPED_TRACE("case " + std::to_string(c) + ": " + what + ", " + target + " on " +
                 std::to_string(smCount) + " SMs, \"" + opts + "\"");
    CompileOptions options = simOptions();
    options.target = target;
    options.scheduleOptions = opts;
    auto p = compileGraph(g, options);
    if (!p.ok()) {
      EXPECT_FALSE(p.message().empty());
      EXPECT_EQ(p.message().find("internal error"), std::string::npos) << p.message();
      if (getenv("GPUSIM_VERBOSE"))
        std::printf("case %d refused: %s\n", c, p.message().substr(0, 300).c_str());
      ++refused;
      continue;
    }
    ++compiled;
    std::vector<HostTensor> inputs = tiletest::randomInputs(g, 9000 + c);
    if (random) {
      // (Against the tile-stage interpreter of the same options, as
      // GpuFuzzTest: a random graph's 16-bit values round inside a kernel
      // where the reference rounds every op, and a few outputs near 0 can
      // then differ by more than the bound, as seed 11886's log(x tanh x +
      // 1) of a bf16 mean over 6 values did, 0.084 with any options;
      // FuzzTest holds the tile stage to the reference.)
      auto got = gpusim::runAtGpuStage(g, inputs, options, smCount);
      ASSERT_TRUE(got.ok()) << got.message();
      auto expected = tiletest::runAtTileStage(g, inputs, options);
      ASSERT_TRUE(expected.ok()) << expected.message();
      ASSERT_EQ(got->size(), expected->size());
      testgraphs::GraphTolerance tol = testgraphs::toleranceFor(g);
      for (size_t j = 0; j < expected->size(); ++j)
        EXPECT_LT(testgraphs::graphError((*got)[j], (*expected)[j], tol.floor), tol.error)
            << "output " << j;
    } else {
      ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(
          g, inputs, dtype == DType::F32 ? 1e-3 : 5e-2, options, smCount));
    }
  }
  if (one < 0) {
    EXPECT_GE(2 * compiled, compiled + refused) << "most random schedules must compile";
  }
  std::printf("random row schedules: %d compiled and simulated, %d refused\n", compiled,
              refused);
}

// Row kernels that loop over row blocks (row-loop, row-prefetch: at least
// 1024 row blocks; rows of 64 threads, two warps, one a CTA), each CTA
// taking hundreds here (2 SMs): the shared buffers a row's reductions and
// prefetches reuse from one row block to the next, where a missing barrier
// is a race the simulator reports.
TEST(GpuSimTest, RowLoopsMatchTheReference) {
  int loops = 0;
  for (const char *opts : {"row-loop=true min-threads-per-block=64",
                           "row-prefetch=2 min-threads-per-block=64"})
    for (const char *name : {"rms_norm", "softmax", "layer_norm"})
      for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{1030, 2048}}) {
        SCOPED_TRACE(std::string(opts) + ": " + name + " [" + std::to_string(rows) + ", " +
                     std::to_string(cols) + "]");
        Graph g(name);
        ASSERT_TRUE(examples::build(name, g, rows, cols, DType::BF16).ok());
        CompileOptions options = simOptions();
        options.scheduleOptions = opts;
        auto p = compileGraph(g, options);
        ASSERT_TRUE(p.ok()) << p.message();
        loops += p->launches.front().rowLoop;
        ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, tiletest::randomInputs(g, 43), 5e-2,
                                                       options, /*smCount=*/2));
      }
  EXPECT_EQ(loops, 6);
}

// row-l2-prefetch=D: each CTA prefetches into L2 its slice of the row
// inputs' row block D blocks ahead. The simulator checks that every
// prefetch names a byte of a buffer; here, that the lines prefetched of
// each full-row input are exactly those of its rows from the D-th row
// block on (none before, none missing), whatever the rows a CTA, the CTAs
// a row (clusters) or the row's alignment, and that the kernels still
// match the reference. With row-l2-prefetch-first (auto: kernels without
// reductions, and kernels that reduce one row input of rows a CTA) the
// CTAs of the first D blocks prefetch their own: every line of the rows,
// each once. Without rows ahead (-1 in a grid of one wave: none chosen)
// it has every CTA prefetch its own slice: by default in rows split over
// a cluster. (rope's rows are the domain's: 128 columns, 16 a CTA.)
TEST(GpuSimTest, RowsAheadPrefetchedIntoL2) {
  struct Case {
    const char *name;
    DType dtype;
    int64_t rows, cols, ahead;
    const char *extra;
  };
  int prefetching = 0;
  for (Case c : {Case{"rms_norm", DType::BF16, 37, 4096, 5, ""},
                 Case{"layer_norm", DType::BF16, 40, 8192, 3, ""},
                 Case{"layer_norm", DType::F32, 9, 1001, 2, ""},
                 Case{"add_rms_norm", DType::BF16, 130, 66, 2, ""},
                 Case{"softmax", DType::F32, 130, 66, 1, ""},
                 Case{"softmax", DType::BF16, 5, 40000, 1, "row-cluster=4"},
                 Case{"softmax", DType::BF16, 3, 131072, 1, ""},
                 Case{"rms_norm", DType::F32, 6, 13001, 2, "row-cluster=3"},
                 Case{"softmax", DType::BF16, 2, 4096, 7, ""},
                 Case{"rms_norm", DType::BF16, 37, 4096, 5, "row-l2-prefetch-first=false"},
                 Case{"softmax", DType::BF16, 2, 4096, 7, "row-l2-prefetch-first=false"},
                 Case{"add_rms_norm", DType::BF16, 130, 66, 2, "row-l2-prefetch-first=true"},
                 Case{"softmax", DType::BF16, 5, 40000, 2,
                      "row-cluster=4 row-l2-prefetch-first=true"},
                 Case{"rope", DType::BF16, 33, 4096, 4, ""},
                 Case{"rope", DType::F32, 7, 512, 3, "row-l2-prefetch-first=false"},
                 Case{"elementwise_chain", DType::F32, 20, 1000, 3, ""},
                 // (f32 two-input kernels' chosen vectors, one of each
                 // input a thread, with their rows ahead: 5 CTAs a row,
                 // the last one's slice a single vector.)
                 Case{"silu_mul", DType::F32, 6, 4100, 3, "elementwise-elements=4"},
                 Case{"elementwise_chain", DType::BF16, 9, 5000, 2, ""},
                 Case{"silu_mul", DType::BF16, 11, 4100, 3, "row-l2-prefetch-first=false"},
                 Case{"softmax", DType::BF16, 3, 131072, -1, ""},
                 Case{"softmax", DType::F32, 5, 40000, -1, "row-cluster=4"},
                 Case{"rms_norm", DType::F32, 6, 13001, -1, "row-cluster=3"},
                 Case{"add_rms_norm", DType::BF16, 2, 70000, -1, ""},
                 Case{"rms_norm", DType::BF16, 37, 4096, -1, "row-l2-prefetch-first=true"},
                 // (Clusters of 16 over rows of 66 f32, 24 bytes a CTA:
                 // the last five CTAs' slices start at or past the row's
                 // end, one inside its last line; they prefetch nothing,
                 // past the buffer's end least of all. Found by
                 // RandomRowScheduleOptionsMatchTheReference.)
                 Case{"add_rms_norm", DType::F32, 2, 66, -1, "row-cluster=16"}}) {
    std::string opts = "row-l2-prefetch=" + std::to_string(c.ahead) + " " + c.extra;
    SCOPED_TRACE(opts + ": " + c.name + " " + dtypeName(c.dtype) + " [" +
                 std::to_string(c.rows) + ", " + std::to_string(c.cols) + "]");
    Graph g(c.name);
    ASSERT_TRUE(examples::build(c.name, g, c.rows, c.cols, c.dtype).ok());
    CompileOptions options;
    options.dependentLaunch = false;
    options.scheduleOptions = opts;
    auto program = compileGraph(g, options);
    ASSERT_TRUE(program.ok()) << program.message();
    ASSERT_EQ(program->launches.size(), 1u);
    const KernelLaunchPlan &plan = program->launches[0];
    if (c.ahead < 0) {
      EXPECT_EQ(plan.l2PrefetchRows, 0);
      EXPECT_TRUE(plan.l2PrefetchFirst);
    }
    std::vector<gpusim::LaunchTraffic> traffic;
    ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, tiletest::randomInputs(g, 53),
                                                   c.dtype == DType::F32 ? 1e-4 : 2e-2, options,
                                                   132, &traffic));
    ASSERT_EQ(traffic.size(), 1u);
    // (The domain's rows: rope's are a head's 128 columns.)
    int64_t cols = std::string(c.name) == "rope" ? 128 : c.cols;
    int64_t rows = c.rows * c.cols / cols;
    int64_t rowBytes = cols * static_cast<int64_t>(dtypeBytes(c.dtype));
    int64_t first = plan.l2PrefetchFirst ? 0 : c.ahead * plan.rowsPerBlock;
    for (size_t v = 0; v < program->values.size(); ++v) {
      const ProgramValue &pv = program->values[v];
      if (pv.kind != ProgramValue::Kind::Input || numElements(pv.shape) != c.rows * c.cols)
        continue;
      SCOPED_TRACE("input " + std::to_string(pv.index));
      std::set<int64_t> lines, expected;
      int64_t count = 0;
      auto it = traffic[0].prefetched.find(static_cast<int>(v));
      if (it != traffic[0].prefetched.end())
        for (auto [at, n] : it->second) {
          lines.insert(at / 128);
          count += n;
        }
      if (first < rows)
        for (int64_t l = first * rowBytes / 128; l <= (rows * rowBytes - 1) / 128; ++l)
          expected.insert(l);
      EXPECT_EQ(lines, expected);
      // (A line once, or twice where two CTAs' slices meet in it.)
      EXPECT_LE(count, static_cast<int64_t>(expected.size()) + rows * plan.colBlocks);
      prefetching += !lines.empty();
    }
  }
  EXPECT_GE(prefetching, 25);
}

// The decoder layer's rope kernels store q and k heads first (a transposed
// store) and, from 528 tokens on, take the elementwise rows-ahead prefetch
// by default: the prefetches name the row input's lines (the simulator
// checks every one lies in a buffer) and the transposed results match the
// reference, with and without the first blocks' own rows.
TEST(GpuSimTest, RopeStoredHeadsFirstPrefetchesRowsAhead) {
  for (const char *extra : {"", "row-l2-prefetch-first=false"}) {
    SCOPED_TRACE(extra);
    Graph g("rope_heads_first");
    Tensor x = g.input("x", {40, 4, 128}, DType::BF16);
    Tensor c = g.input("cos", {40, 1, 128}, DType::BF16);
    Tensor sn = g.input("sin", {40, 1, 128}, DType::BF16);
    g.output(transpose(nn::rope(x, c, sn), 0, 1));
    CompileOptions options;
    options.dependentLaunch = false;
    options.scheduleOptions = std::string("row-l2-prefetch=3 ") + extra;
    auto program = compileGraph(g, options);
    ASSERT_TRUE(program.ok()) << program.message();
    ASSERT_EQ(program->launches.size(), 1u) << explainFusion(*program);
    EXPECT_EQ(program->launches[0].l2PrefetchRows, 3);
    EXPECT_EQ(program->launches[0].l2PrefetchFirst, std::string(extra).empty());
    std::vector<gpusim::LaunchTraffic> traffic;
    ASSERT_NO_FATAL_FAILURE(
        expectSimulatedMatches(g, tiletest::randomInputs(g, 59), 2e-2, options, 132, &traffic));
    ASSERT_EQ(traffic.size(), 1u);
    EXPECT_FALSE(traffic[0].prefetched.empty());
  }
}

// Issue 3's memory traffic, counted by the simulator on the H200's row
// kernels: each element of every full-row input read once and of every
// output written once (rows held in registers: no second pass, no
// re-read), and (rows of a multiple of 16 bytes) the bytes moved in
// 16-byte accesses, LDG.E.128 / STG.E.128 in the SASS.
TEST(GpuSimTest, RowKernelsMoveEachByteOnceIn16ByteAccesses) {
  for (const std::string &name : examples::names()) {
    if (examples::isMatmul(name) || name == "transpose")
      continue;
    for (DType dtype : {DType::F32, DType::BF16})
      for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{64, 4096}, {16, 8192}}) {
        SCOPED_TRACE(name + " " + dtypeName(dtype) + " [" + std::to_string(rows) + ", " +
                     std::to_string(cols) + "]");
        Graph g(name);
        ASSERT_TRUE(examples::build(name, g, rows, cols, dtype).ok());
        CompileOptions options;
        options.dependentLaunch = false;
        auto program = compileGraph(g, options);
        ASSERT_TRUE(program.ok()) << program.message();
        std::vector<gpusim::LaunchTraffic> traffic;
        auto got = gpusim::runAtGpuStage(g, tiletest::randomInputs(g, 47), options, 132, &traffic);
        ASSERT_TRUE(got.ok()) << got.message();
        std::map<int, int64_t> read, written;
        int64_t bytes = 0, wide = 0;
        for (const gpusim::LaunchTraffic &t : traffic) {
          for (auto [v, n] : t.bytesRead)
            read[v] += n;
          for (auto [v, n] : t.bytesWritten)
            written[v] += n;
          bytes += t.bytes;
          wide += t.bytesInWideAccesses;
        }
        for (size_t v = 0; v < program->values.size(); ++v) {
          const ProgramValue &pv = program->values[v];
          int64_t size = numElements(pv.shape) * static_cast<int64_t>(dtypeBytes(pv.dtype));
          int i = static_cast<int>(v);
          if (pv.kind == ProgramValue::Kind::Output && pv.copyOf < 0) {
            EXPECT_EQ(written[i], size) << "output " << pv.index;
          }
          if (pv.kind == ProgramValue::Kind::Input && numElements(pv.shape) == rows * cols) {
            EXPECT_EQ(read[i], size) << "input " << pv.index;
          }
        }
        EXPECT_GE(static_cast<double>(wide), 0.99 * static_cast<double>(bytes))
            << wide << " of " << bytes << " bytes in 16-byte accesses";
        if (getenv("GPUSIM_VERBOSE"))
          std::printf("%s %s [%lld, %lld]: %lld bytes, %.1f%% in 16-byte accesses\n",
                      name.c_str(), dtypeName(dtype), static_cast<long long>(rows),
                      static_cast<long long>(cols), static_cast<long long>(bytes),
                      100.0 * wide / std::max<int64_t>(bytes, 1));
      }
  }
}

// The slice, concatenation and row-broadcast graphs of the GPU tests
// (SliceGraphs.h: windows at column offsets, parts of rows, pieces joined
// in registers, streamed rows), with their schedule options.
TEST(GpuSimTest, SliceGraphsMatchTheReference) {
  for (const testgraphs::SliceGraph &c : testgraphs::sliceGraphs()) {
    SCOPED_TRACE(c.name);
    Graph g(c.name);
    c.build(g);
    CompileOptions options = simOptions();
    options.scheduleOptions = c.scheduleOptions;
    ASSERT_NO_FATAL_FAILURE(
        expectSimulatedMatches(g, tiletest::randomInputs(g, 11), c.tolerance, options));
  }
}

// Rows with reductions split over a thread-block cluster (sm_90a): each
// CTA's partial reductions published in its shared memory, read by every
// CTA of the cluster through distributed shared memory (mapa) between
// cluster barriers, and the exit barrier that keeps a CTA's shared memory
// alive until the others have read it. Cluster sizes 2-16 (row-cluster),
// with the schedule options that change what crosses the cluster (the
// online softmax pair, Welford's (mean, M2), exps kept or recomputed,
// streamed rows), odd widths and rows that leave CTAs of a cluster no
// columns.
TEST(GpuSimTest, ClusteredRowKernelsMatchTheReference) {
  struct Shape2 {
    int64_t rows, cols;
  };
  int clustered = 0;
  for (const char *opts :
       {"", "row-cluster=2", "row-cluster=3 recompute-exp=true", "row-cluster=4 welford=false",
        "row-cluster=8 online-softmax=false", "row-cluster=16 max-chunks-per-thread=2",
        "row-cluster=4 stream-shared=true max-chunks-per-thread=2", "row-cluster=8 row-scalars=true"})
    for (const char *name : {"rms_norm", "softmax", "layer_norm", "add_rms_norm", "heads_rms_norm"})
      for (DType dtype : {DType::F32, DType::BF16})
        for (Shape2 s : {Shape2{1, 40000}, Shape2{3, 13001}, Shape2{2, 4100}, Shape2{1, 131072}}) {
          if (s.cols == 131072 && (dtype == DType::F32 || std::string(name) != "softmax"))
            continue;
          SCOPED_TRACE(std::string(opts) + ": " + name + " " + dtypeName(dtype) + " [" +
                       std::to_string(s.rows) + ", " + std::to_string(s.cols) + "]");
          Graph g(name);
          if (!examples::build(name, g, s.rows, s.cols, dtype).ok())
            continue;
          CompileOptions options;
          options.dependentLaunch = false;
          options.scheduleOptions = opts;
          auto compiled = compileGraph(g, options);
          if (!compiled.ok())
            continue; // (an option a shape cannot take says so; CompilerTest checks those)
          for (const KernelLaunchPlan &plan : compiled->launches)
            clustered += plan.clusterM > 1;
          ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(
              g, tiletest::randomInputs(g, 29), dtype == DType::F32 ? 1e-5 : 5e-2, options));
        }
  std::printf("clustered row kernels simulated: %d\n", clustered);
  EXPECT_GE(clustered, 200);
}

namespace {
// One case of the random attention tests: q [batch..., sq, dk], k and v
// [batch..., sk, dk | dv], mask kind 0 none, 1 causal (a random mask where
// sq > sk), 2 [sq, sk], 3 [1, sk]; q added back to the output (residual).
struct RandomAttention {
  Shape batch;
  int64_t sq, sk, dk, dv;
  DType dtype;
  int maskKind; // none, causal (an input), random [sq, sk], random [1, sk], causal (the op)
  bool residual;
  int64_t period = 0, window = 0; // (mask kind 4: Graph::causal_mask's)
  Shape withBatch(int64_t a, int64_t b) const {
    Shape s = batch;
    s.push_back(a);
    s.push_back(b);
    return s;
  }
  std::string describe() const {
    return "q " + shapeString(withBatch(sq, dk)) + ", " + std::to_string(sk) +
           " keys, v columns " + std::to_string(dv) + ", " + dtypeName(dtype) + ", mask kind " +
           std::to_string(maskKind) +
           (maskKind == 4 ? " period " + std::to_string(period) + " window " + std::to_string(window)
                          : "") +
           (residual ? ", + q" : "");
  }
  /// Mask kind 1 as the graph's own causal mask (kind 4) half the time,
  /// with a period (a divisor of the queries, at most the keys) and a
  /// third of those times a sliding window, from `rng`: a generator of its
  /// own, so that the other picks stay as they were.
  void maybeCausalOp(std::mt19937_64 &rng) {
    if (maskKind != 1 || rng() % 2)
      return;
    std::vector<int64_t> periods;
    for (int64_t p = 1; p <= std::min(sq, sk); ++p)
      if (sq % p == 0)
        periods.push_back(p);
    maskKind = 4;
    period = periods[rng() % periods.size()];
    if (rng() % 3 == 0)
      window = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(sk));
  }
  /// The graph, and its random inputs (seed) with the causal mask in place.
  std::vector<HostTensor> build(Graph &g, uint64_t seed) const {
    Tensor q = g.input("q", withBatch(sq, dk), dtype);
    Tensor k = g.input("k", withBatch(sk, dk), dtype);
    Tensor v = g.input("v", withBatch(sk, dv), dtype);
    double scale = 1.0 / std::sqrt(static_cast<double>(dk));
    Tensor o = maskKind == 0   ? nn::attention(q, k, v, scale)
               : maskKind == 4 ? nn::causal_attention(q, k, v, scale, period, window)
                               : nn::attention(q, k, v, scale,
                                               g.input("mask",
                                                       maskKind == 3 ? Shape{1, sk} : Shape{sq, sk},
                                                       DType::F32));
    g.output(residual ? o + q : o);
    std::vector<HostTensor> inputs = tiletest::randomInputs(g, seed);
    if (maskKind == 1 && sq <= sk) // (causal needs a key for each query; else random)
      inputs.back() = causalMask(sq, sk);
    return inputs;
  }
};
} // namespace

// Random attentions (TILEC_SIM_ATTENTION=N cases, default 40, from fixed
// seeds): batch dims of rank 0-2, 1-200 queries, 1-300 keys, head dims and
// v's columns multiples of 16 up to 128, bf16 or f16, no mask or a causal
// one (an input, or the graph's causal_mask with a random period) or a
// random one broadcast over some dims, sometimes q added back to
// the output, and a random schedule (rows a CTA, keys a step, buffers,
// splits), fused into one flash kernel and simulated against the reference;
// compiled for sm_90a with the default schedule too, where ptxas must
// assemble it without spills.
TEST(GpuSimTest, RandomFlashAttentionsMatchTheReference) {
  const char *env = std::getenv("TILEC_SIM_ATTENTION");
  int cases = env && std::atoi(env) > 0 ? std::atoi(env) : 40;
  std::mt19937_64 rng(2023), causalRng(2027);
  int causalOps = 0, windows = 0;
  std::string ptxas = ptxtest::ptxasPath();
  auto pick = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  for (int c = 0; c < cases; ++c) {
    Shape batch;
    for (int64_t r = pick(3); r > 0; --r)
      batch.push_back(1 + pick(3));
    int64_t sq = 1 + pick(pick(4) == 0 ? 200 : 40), sk = 1 + pick(pick(3) == 0 ? 300 : 80);
    int64_t dk = 16 * (1 + pick(8)), dv = pick(3) == 0 ? dk : 16 * (1 + pick(8));
    DType dtype = pick(2) ? DType::BF16 : DType::F16;
    int maskKind = static_cast<int>(pick(4)); // none, causal, [sq, sk], [1, sk]
    bool residual = dv == dk && pick(2);
    int64_t bn = 16 * (1 + pick(8));
    while (bn + dv > 192)
      bn -= 16;
    std::string schedule = "attention-block-m=" + std::to_string(16 * (1 + pick(8))) +
                           " attention-block-n=" + std::to_string(bn) +
                           " attention-stages=" + std::to_string(2 + pick(3)) +
                           " attention-split=" + std::to_string(pick(4));
    RandomAttention a{batch, sq, sk, dk, dv, dtype, maskKind, residual};
    a.maybeCausalOp(causalRng);
    causalOps += a.maskKind == 4;
    windows += a.window > 0;
    SCOPED_TRACE("case " + std::to_string(c) + ": " + a.describe() + ", " + schedule);
    Graph g("attention");
    std::vector<HostTensor> inputs = a.build(g, 1000 + c);
    CompileOptions options = simOptions();
    options.fuseAttention = true;
    options.scheduleOptions = schedule;
    auto p = compileGraph(g, options);
    if (!p.ok()) { // (a schedule the shape cannot take: shared memory)
      EXPECT_NE(p.message().find("attention schedule"), std::string::npos) << p.message();
      continue;
    }
    int flash = 0;
    for (const KernelLaunchPlan &l : p->launches)
      flash += l.attention;
    // (One key: the softmax over it folds away, and nothing is left to fuse.)
    EXPECT_EQ(flash, sk > 1 ? 1 : 0) << explainFusion(*p);
    ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, inputs, 3e-2, options));
    // The default schedule for the H200: ptxas assembles it without spills.
    // (Chosen schedules may spill: at 96 rows a CTA, 64 keys a step and 128
    // columns, 40 bytes.)
    if (!ptxas.empty()) {
      options.target = "sm_90a";
      options.scheduleOptions.clear();
      auto hopper = compileGraph(g, options);
      ASSERT_TRUE(hopper.ok()) << hopper.message();
      ptxtest::expectAssemblesWithoutSpills(ptxas, hopper->ptx, "sm_90a");
    }
  }
  std::printf("random flash attentions: %d, %d with the graph's causal mask (%d windowed)\n",
              cases, causalOps, windows);
}

// Random attentions for the Hopper flash kernel (attention-wgmma=1 or 2,
// sm_90a; TILEC_SIM_WGMMA_ATTENTION=N cases, default 16, fixed seeds):
// batch dims of rank 0-2, 1-300 queries and keys, head dims and v's
// columns of 64 or 128, 64 or 128 rows a CTA and keys a step, 2-3 stages,
// 0-3 splits, no mask, a causal one (an input or the graph's op) or a
// random one, bf16 or f16, sometimes q added back; each must compile to
// wgmma, assemble without spills and match the reference in the simulator,
// or be refused for the shared memory its schedule needs (at most a
// quarter of the cases).
TEST(GpuSimTest, RandomWgmmaFlashAttentionsMatchTheReference) {
  const char *env = std::getenv("TILEC_SIM_WGMMA_ATTENTION");
  int cases = env && std::atoi(env) > 0 ? std::atoi(env) : 16;
  std::mt19937_64 rng(2026), causalRng(2028);
  int causalOps = 0, windows = 0, refused = 0;
  std::string ptxas = ptxtest::ptxasPath();
  auto pick = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  for (int c = 0; c < cases; ++c) {
    Shape batch;
    for (int64_t r = pick(3); r > 0; --r)
      batch.push_back(1 + pick(3));
    int64_t sq = 1 + pick(300), sk = 2 + pick(299);
    int64_t dk = 64 * (1 + pick(2)), dv = 64 * (1 + pick(2)), bn = 64 * (1 + pick(2));
    int64_t mode = 1 + pick(2); // (2 holds two blocks' S: keys a step + columns <= 192)
    if (mode == 2 && bn + dv > 192)
      bn = 64;
    DType dtype = pick(2) ? DType::BF16 : DType::F16;
    int maskKind = static_cast<int>(pick(3)); // none, causal, random [sq, sk]
    bool residual = dv == dk && pick(2);
    std::string schedule = "attention-wgmma=" + std::to_string(mode) +
                           " attention-block-m=" + std::to_string(64 * (1 + pick(2))) +
                           " attention-block-n=" + std::to_string(bn) +
                           " attention-stages=" + std::to_string(2 + pick(2)) +
                           " attention-split=" + std::to_string(pick(4));
    RandomAttention a{batch, sq, sk, dk, dv, dtype, maskKind, residual};
    a.maybeCausalOp(causalRng);
    causalOps += a.maskKind == 4;
    windows += a.window > 0;
    SCOPED_TRACE("case " + std::to_string(c) + ": " + a.describe() + ", " + schedule);
    Graph g("attention");
    std::vector<HostTensor> inputs = a.build(g, 3000 + c);
    CompileOptions options = simOptions();
    options.target = "sm_90a";
    options.fuseAttention = true;
    options.scheduleOptions = schedule;
    auto p = compileGraph(g, options);
    // (A schedule the shape cannot take is refused, and says why: 128 rows
    // and keys a step, 3 stages and 128 columns with a mask's tile need 257
    // KiB of shared memory. The default schedule fits.)
    if (!p.ok()) {
      EXPECT_NE(p.message().find("bytes of shared memory, more than sm_90a's"), std::string::npos)
          << p.message();
      options.scheduleOptions.clear();
      auto byDefault = compileGraph(g, options);
      ASSERT_TRUE(byDefault.ok()) << byDefault.message();
      ++refused;
      continue;
    }
    EXPECT_NE(p->ptx.find("wgmma.mma_async"), std::string::npos) << explainFusion(*p);
    if (!ptxas.empty())
      ptxtest::expectAssemblesWithoutSpills(ptxas, p->ptx, "sm_90a");
    ASSERT_NO_FATAL_FAILURE(expectSimulatedMatches(g, inputs, 3e-2, options));
  }
  EXPECT_LE(4 * refused, cases) << "most random schedules must compile";
  std::printf("random wgmma flash attentions: %d (%d refused), %d with the graph's causal mask "
              "(%d windowed)\n",
              cases, refused, causalOps, windows);
}

// The H200's kernels where the simulator models them: every example
// compiled for sm_90a, its row kernels (the same distribution as sm_80's,
// with Hopper's schedules, wide rows split over clusters among them) and its
// GEMMs (mma.sync at <= 64 rows, wgmma above), simulated against the
// reference.
TEST(GpuSimTest, HopperExamplesMatchTheReference) {
  struct Shape2 {
    int64_t rows, cols;
  };
  int simulated = 0;
  for (const std::string &name : examples::names())
    for (DType dtype : {DType::F32, DType::BF16})
      for (Shape2 s : examples::isMatmul(name)
                          ? std::vector<Shape2>{{1, 40}, {16, 520}, {64, 256}, {130, 136}}
                          : std::vector<Shape2>{{1, 1}, {3, 1000}, {16, 4096}, {64, 40000}}) {
        if (name == "rope" && s.cols % 2 != 0)
          continue;
        SCOPED_TRACE(name + " " + dtypeName(dtype) + " [" + std::to_string(s.rows) + ", " +
                     std::to_string(s.cols) + "]");
        Graph g(name);
        if (!examples::build(name, g, s.rows, s.cols, dtype, /*depth=*/99).ok())
          continue;
        CompileOptions options;
        options.dependentLaunch = false;
        std::vector<HostTensor> inputs = tiletest::randomInputs(g, 7);
        auto got = gpusim::runAtGpuStage(g, inputs, options);
        ASSERT_TRUE(got.ok()) << got.message();
        std::vector<HostTensor> ref = evaluateReference(g, inputs);
        for (size_t j = 0; j < ref.size(); ++j)
          EXPECT_LT(relativeError((*got)[j], ref[j]), dtype == DType::F32 ? 1e-5 : 5e-2)
              << "output " << j;
        ++simulated;
      }
  std::printf("sm_90a examples simulated: %d\n", simulated);
  EXPECT_GE(simulated, 100);
}
