// GPU tests of the tensor-core GEMM kernels: plain products in every
// transpose form, odd shapes, decode shapes and fused epilogues, against the
// CPU reference (f64 accumulation) on fresh random data, outputs poisoned.
#include "GpuTestSupport.h"
#include "LinearGraphs.h"

#include "tilec/Reference.h"
#include "tilec/compiler/Examples.h"
#include "tilec/compiler/Executable.h"

#include <cmath>
#include <filesystem>
#include <cstdlib>
#include <functional>

using namespace tilec;

namespace {

/// Largest |got - ref| over the largest |ref|: catches a few wrong elements
/// (an edge tile) that a norm-wise error would average away.
double maxElementError(const HostTensor &got, const HostTensor &ref) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < ref.values.size(); ++i) {
    scale = std::max(scale, std::fabs(static_cast<double>(ref.values[i])));
    double d = std::fabs(static_cast<double>(got.values[i]) - ref.values[i]);
    if (!(d == d))
      return INFINITY;
    worst = std::max(worst, d);
  }
  return scale > 0 ? worst / scale : worst;
}

struct RunResult {
  std::vector<HostTensor> got, inputs;
  size_t kernels = 0;
};

/// Compiles and runs `g` on random inputs in [-1, 1] (rank-1 inputs around 1).
/// Inputs the test sets itself (by input index), replacing random ones.
using FixedInputs = std::vector<std::pair<size_t, HostTensor>>;

RunResult runOnGpu(Graph &g, const std::shared_ptr<rt::Context> &ctx, uint64_t seed,
                   const CompileOptions &options = {}, const FixedInputs &fixed = {}) {
  RunResult r;
  auto exe = Executable::compile(g, ctx, options);
  EXPECT_TRUE(exe.ok()) << exe.message();
  if (!exe.ok())
    return r;
  r.kernels = (*exe)->kernelCount();
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const Node &n = g.node(g.inputs()[i]);
    bool vec = n.shape.size() == 1;
    r.inputs.push_back(HostTensor::random(n.shape, n.dtype, seed + i, vec ? 0.5f : -1.0f,
                                          vec ? 1.5f : 1.0f));
  }
  for (const auto &[index, tensor] : fixed)
    r.inputs.at(index) = tensor;
  auto stream = rt::Stream::create(ctx);
  EXPECT_TRUE(stream.ok()) << stream.message();
  if (!stream.ok())
    return r;
  auto got = (*exe)->runOnHost(r.inputs, **stream);
  EXPECT_TRUE(got.ok()) << got.message();
  if (got.ok())
    r.got = got.take();
  return r;
}

/// Runs `g` (compiled with `options`) on fresh random data against the CPU
/// reference; `kernels` >= 0: the number of kernels it must take.
void expectGraphMatches(Graph &g, double tolerance, int kernels = 1,
                        const CompileOptions &options = {}, const FixedInputs &fixed = {}) {
  TILEC_REQUIRE_GPU(ctx);
  uint64_t seed = tilec::testing::freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  RunResult r = runOnGpu(g, ctx, seed, options, fixed);
  ASSERT_EQ(r.got.size(), g.outputs().size());
  if (kernels >= 0) {
    EXPECT_EQ(r.kernels, static_cast<size_t>(kernels));
  }
  std::vector<HostTensor> ref = evaluateReference(g, r.inputs);
  for (size_t i = 0; i < ref.size(); ++i) {
    EXPECT_LT(relativeError(r.got[i], ref[i]), tolerance) << "output " << i;
    EXPECT_LT(maxElementError(r.got[i], ref[i]), 4 * tolerance) << "output " << i;
  }
}

struct GemmCase {
  int64_t m, n, k;
  bool ta, tb;
  DType dtype;
};

std::string gemmName(const ::testing::TestParamInfo<GemmCase> &info) {
  const GemmCase &c = info.param;
  return std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) +
         (c.ta ? "_At" : "") + (c.tb ? "_Bt" : "") + "_" + dtypeName(c.dtype);
}

class GemmTest : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmTest, MatchesReference) {
  const GemmCase &c = GetParam();
  Graph g("gemm");
  Tensor a = g.input("a", c.ta ? Shape{c.k, c.m} : Shape{c.m, c.k}, c.dtype);
  Tensor b = g.input("b", c.tb ? Shape{c.n, c.k} : Shape{c.k, c.n}, c.dtype);
  g.output(matmul(a, b, c.ta, c.tb));
  expectGraphMatches(g, 1e-2);
}

std::vector<GemmCase> gemmCases() {
  std::vector<GemmCase> cases;
  for (DType d : {DType::BF16, DType::F16})
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        cases.push_back({256, 256, 256, ta, tb, d});
        cases.push_back({127, 255, 63, ta, tb, d}); // odd: masked loads and stores
      }
  // Edges of every kind, decode shapes (few rows), k not a multiple of the step.
  for (GemmCase c : std::vector<GemmCase>{{1, 1000, 512, false, true, DType::BF16},
                                          {16, 4096, 1024, false, true, DType::BF16},
                                          {33, 520, 200, false, false, DType::BF16},
                                          {64, 384, 264, false, true, DType::F16},
                                          {300, 136, 40, false, false, DType::BF16},
                                          {129, 129, 129, false, false, DType::BF16},
                                          {1024, 1024, 1024, false, false, DType::BF16},
                                          // wgmma (K-major) edges: N % 256, M % 128, K % 64
                                          {300, 200, 72, false, true, DType::BF16},
                                          {513, 520, 4104, false, true, DType::F16},
                                          // Rows 8- or 4-byte aligned (cp.async of 8 or
                                          // 4 bytes), odd rows (element copies), and a
                                          // decode of a partial k step (register cap):
                                          // GemmScheduleTest.UnalignedRowsCopyWithoutSpills
                                          {8, 40, 1000, false, true, DType::BF16},
                                          {8, 40, 500, false, true, DType::BF16},
                                          {8, 40, 1001, false, true, DType::BF16},
                                          {260, 128, 500, false, true, DType::BF16},
                                          {260, 512, 1001, false, true, DType::BF16},
                                          {130, 250, 66, false, false, DType::BF16},
                                          {66, 130, 250, true, false, DType::F16},
                                          {33, 37, 37, false, true, DType::F32},
                                          {40, 50, 102, false, false, DType::F32},
                                          {261, 501, 1001, true, true, DType::BF16},
                                          {33, 40, 16, false, true, DType::F32},
                                          {64, 40, 33, false, true, DType::F32}})
    cases.push_back(c);
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmTest, ::testing::ValuesIn(gemmCases()), gemmName);

// The mma.sync schedule on operands the Hopper path would take (what sm_80
// runs), on the same GPU.
TEST(GemmSchedules, MmaSyncOnKMajorOperands) {
  Graph g("mma_sync");
  Tensor a = g.input("a", {260, 192}, DType::BF16);
  Tensor b = g.input("b", {136, 192}, DType::BF16);
  g.output(matmul(a, b, false, true));
  CompileOptions options;
  options.scheduleOptions = "gemm-wgmma=0";
  expectGraphMatches(g, 1e-2, /*kernels=*/-1, options);
}

// The wgmma kernel with cp.async copies by the MMA warps instead of the TMA
// producer (gemm-tma=0), both operand layouts, edges in M, N and K.
TEST(GemmSchedules, WgmmaWithCpAsyncCopies) {
  for (bool transB : {true, false}) {
    Graph g("wgmma_cp_async");
    Tensor a = g.input("a", {260, 200}, DType::BF16);
    Tensor b = g.input("b", transB ? Shape{136, 200} : Shape{200, 136}, DType::BF16);
    g.output(matmul(a, b, false, transB));
    CompileOptions options;
    options.scheduleOptions = "gemm-tma=0";
    SCOPED_TRACE(transB ? "a @ b^T" : "a @ b");
    expectGraphMatches(g, 1e-2, /*kernels=*/-1, options);
  }
}

// Graphs of several tiles a CTA for the persistent TMA schedules: odd tile
// counts, edges in M, N and K, both rhs layouts, a transposed lhs, a fused
// epilogue, two products, batched rhs of both layouts (rows a batch not a
// multiple of 128: a tile's last rows lie past its batch) and f32 outputs
// (N = 1000 = 8 x 125: a partial 32-column block at the edge).
struct MultiTileCase {
  const char *name;
  std::function<void(Graph &)> build;
};

std::vector<MultiTileCase> multiTileCases() {
  return {
      {"a @ b^T 2887x1320x200",
       [](Graph &g) {
         g.output(matmul(g.input("a", {2887, 200}, DType::BF16),
                         g.input("b", {1320, 200}, DType::BF16), false, true));
       }},
      {"a @ b 1100x640x136",
       [](Graph &g) {
         g.output(matmul(g.input("a", {1100, 136}, DType::BF16),
                         g.input("b", {136, 640}, DType::BF16)));
       }},
      {"gelu(linear + bias) 2500x776x264 f16",
       [](Graph &g) {
         Tensor x = g.input("x", {2500, 264}, DType::F16);
         Tensor w = g.input("w", {776, 264}, DType::F16);
         g.output(gelu(nn::linear(x, w, g.input("bias", {776}, DType::F16))));
       }},
      {"swiglu 1500x336x256",
       [](Graph &g) {
         Tensor x = g.input("x", {1500, 256}, DType::BF16);
         Tensor wg = g.input("w_gate", {336, 256}, DType::BF16);
         Tensor wu = g.input("w_up", {336, 256}, DType::BF16);
         g.output(silu(matmul(x, wg, false, true)) * matmul(x, wu, false, true));
       }},
      // A transposed lhs [K, M]: MN-major wgmma operand, 64 x 64 TMA boxes.
      {"a^T @ b^T 1000x520x200",
       [](Graph &g) {
         g.output(matmul(g.input("a", {200, 1000}, DType::BF16),
                         g.input("b", {520, 200}, DType::BF16), true, true));
       }},
      {"a^T @ b 1096x640x136 f16",
       [](Graph &g) {
         g.output(matmul(g.input("a", {136, 1096}, DType::F16),
                         g.input("b", {136, 640}, DType::F16), true, false));
       }},
      {"batched 3 x 700x264x128",
       [](Graph &g) {
         Tensor a = g.input("a", {3, 700, 128}, DType::BF16);
         Tensor b = g.input("b", {3, 264, 128}, DType::BF16);
         g.output(matmul(a, b, false, true));
       }},
      {"batched a @ b 2 x 300x136x200",
       [](Graph &g) {
         Tensor a = g.input("a", {2, 300, 200}, DType::BF16);
         Tensor b = g.input("b", {2, 200, 136}, DType::BF16);
         g.output(matmul(a, b));
       }},
      {"f32 linear + bias 1100x1000x136",
       [](Graph &g) {
         Tensor x = g.input("x", {1100, 136}, DType::BF16);
         Tensor w = g.input("w", {1000, 136}, DType::BF16);
         g.output(matmul(x, w, DType::F32, false, true) +
                  cast(g.input("bias", {1000}, DType::BF16), DType::F32));
       }},
      {"batched f32 3 x 700x264x128",
       [](Graph &g) {
         Tensor a = g.input("a", {3, 700, 128}, DType::BF16);
         Tensor b = g.input("b", {3, 264, 128}, DType::BF16);
         g.output(matmul(a, b, DType::F32, false, true));
       }},
  };
}

/// Every multi-tile graph under each set of schedule options (but those
/// `skip` names): compiled to one kernel, its schedule `check`ed, then run
/// against the reference.
void runMultiTileCases(
    const char *graphName, const std::vector<std::string> &optionSets,
    const std::function<void(const MultiTileCase &, const Graph &, const CompiledProgram &,
                             const std::string &)> &check,
    const std::function<bool(const MultiTileCase &, const std::string &)> &skip = {}) {
  for (const std::string &opts : optionSets)
    for (const MultiTileCase &c : multiTileCases()) {
      if (skip && skip(c, opts))
        continue;
      Graph g(graphName);
      c.build(g);
      CompileOptions options;
      options.scheduleOptions = opts;
      auto program = compileGraph(g, options);
      ASSERT_TRUE(program.ok()) << program.message();
      check(c, g, *program, opts);
      if (::testing::Test::HasFatalFailure())
        return;
      SCOPED_TRACE(std::string(c.name) + ", " + opts);
      expectGraphMatches(g, 1e-2, /*kernels=*/1, options);
    }
}

// Ping-pong warpgroups (gemm-pingpong): each MMA warpgroup takes every
// other 64-row tile of its CTA, in the order a named barrier enforces (odd
// tile counts: one warpgroup has one more); clusters of two and of one.
TEST(GemmSchedules, PingPongWarpgroups) {
  TILEC_REQUIRE_GPU(ctx);
  runMultiTileCases(
      "pingpong", {"gemm-pingpong=1 gemm-cluster-m=2", "gemm-pingpong=1 gemm-cluster-m=1"},
      [](const MultiTileCase &c, const Graph &, const CompiledProgram &program,
         const std::string &) {
        EXPECT_NE(program.ptx.find("bar.arrive"), std::string::npos)
            << c.name << ": not the ping-pong schedule";
      });
}

// wgmma tiles for 64 rows or fewer (by default from 33 rows;
// gemm-wgmma-min-rows=1 here, so 1 and 16 rows too): one block row partly
// past the matrix, split k where the tiles are few, a fused bias and GELU.
TEST(GemmSchedules, WgmmaForFewRows) {
  TILEC_REQUIRE_GPU(ctx);
  struct Case {
    int64_t m, n, k;
  };
  for (Case c : {Case{1, 264, 320}, Case{16, 1024, 4096}, Case{33, 520, 1000},
                 Case{64, 4096, 4096}, Case{48, 1024, 2048}}) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k));
    Graph g("few_rows");
    testgraphs::buildLinear(g, c.m, c.n, c.k, DType::BF16,
                            testgraphs::LinearEpilogue::BiasGelu);
    CompileOptions options;
    options.scheduleOptions = "gemm-wgmma-min-rows=1";
    auto program = compileGraph(g, options);
    ASSERT_TRUE(program.ok()) << program.message();
    EXPECT_NE(program->ptx.find("wgmma.mma_async"), std::string::npos);
    expectGraphMatches(g, 1e-2, /*kernels=*/1, options);
  }
}

// Two 64-row MMA chains a warpgroup (gemm-m-chains=2): 256-row tiles, each
// MMA warpgroup 128 rows (two accumulators sharing each B descriptor, the
// epilogue 64 rows apart); clusters of two and of one. (gemm-fill-sms=0:
// SwiGLU's one chain would otherwise narrow its few tiles to 64 columns.)
TEST(GemmSchedules, TwoChainsAWarpgroup) {
  TILEC_REQUIRE_GPU(ctx);
  runMultiTileCases(
      "chains",
      {"gemm-m-chains=2 gemm-cluster-m=2 gemm-fill-sms=0",
       "gemm-m-chains=2 gemm-cluster-m=1 gemm-fill-sms=0"},
      [](const MultiTileCase &c, const Graph &, const CompiledProgram &program,
         const std::string &) {
        ASSERT_EQ(program.launches.size(), 1u);
        const KernelLaunchPlan &l = program.launches[0];
        ASSERT_FALSE(l.tensorMaps.empty()) << c.name << ": not the TMA schedule";
        // lhs boxes [.., 256, 64]; SwiGLU's two products keep one chain; a
        // transposed lhs is copied in 64 x 64 boxes, four a stage.
        const std::vector<int64_t> &box = l.tensorMaps[0].box;
        bool twoProducts = std::string(c.name).find("swiglu") == 0;
        bool transA = std::string(c.name).find("a^T") == 0;
        EXPECT_EQ(box[box.size() - 2], twoProducts ? 128 : transA ? 64 : 256) << c.name;
        EXPECT_NE(program.ptx.find("m64n128k16"), std::string::npos) << c.name;
        EXPECT_EQ(l.blockSize(), 384) << c.name;
      });
}

// The epilogue through shared memory and TMA stores (gemm-tma-store, the
// default for one 16- or 32-bit output): units of 64 rows x 128 bytes (64
// 16-bit or 32 f32 columns) in two buffers a warpgroup, reused across a
// CTA's tiles; block_n 64 and 192 give an odd count of 16-bit units a tile
// (the first unit waits for every earlier copy); ping-pong and clusters;
// TMA clips rows and columns past the output, and a batched product's 3-D
// map {batch, rows / batch, N} clips a tile's rows at its batch's end.
TEST(GemmSchedules, TmaStoreEpilogue) {
  TILEC_REQUIRE_GPU(ctx);
  runMultiTileCases(
      "tma_store",
      {"gemm-tma-store=1 ", "gemm-tma-store=1 gemm-cluster-m=2",
       "gemm-tma-store=1 gemm-block-n=64 gemm-cluster-m=1", "gemm-tma-store=1 gemm-block-n=192",
       "gemm-tma-store=1 gemm-pingpong=1"},
      [](const MultiTileCase &c, const Graph &g, const CompiledProgram &program,
         const std::string &opts) {
        ASSERT_EQ(program.launches.size(), 1u);
        const KernelLaunchPlan &l = program.launches[0];
        bool batched = g.node(g.inputs()[1]).shape.size() == 3;
        bool f32 = g.node(g.outputs()[0]).dtype == DType::F32;
        size_t operands =
            g.inputs().size() - (std::string(c.name).find("bias") != std::string::npos);
        EXPECT_TRUE(l.tmaStore) << c.name << ", " << opts;
        ASSERT_EQ(l.tensorMaps.size(), operands + 1) << c.name << ", " << opts;
        const TensorMapPlan &out = l.tensorMaps.back();
        std::vector<int64_t> box{64, f32 ? 32 : 64};
        if (batched)
          box.insert(box.begin(), 1);
        EXPECT_EQ(out.box, box) << c.name << ", " << opts;
        EXPECT_NE(program.ptx.find(std::string("cp.async.bulk.tensor.") + (batched ? "3d" : "2d") +
                                   ".global.shared::cta"),
                  std::string::npos)
            << c.name;
      },
      // (SwiGLU's two 192-column panels do not fit shared memory at all.)
      [](const MultiTileCase &c, const std::string &opts) {
        return std::string(c.name).find("swiglu") == 0 &&
               opts.find("gemm-block-n=192") != std::string::npos;
      });
}

// f32 outputs with block_n 96: three 32-column units a tile (an odd count:
// the first waits for every earlier copy), N = 1000 (a partial unit at the
// edge), batched and not; a 16-bit output at block_n 96 stores directly.
TEST(GemmSchedules, TmaStoreF32OddUnits) {
  TILEC_REQUIRE_GPU(ctx);
  for (bool batched : {false, true})
    for (DType out : {DType::F32, DType::BF16}) {
      SCOPED_TRACE(std::string(batched ? "batched " : "") + dtypeName(out));
      Graph g("tma_store_bn96");
      Tensor a = g.input("a", batched ? Shape{2, 650, 136} : Shape{1300, 136}, DType::BF16);
      Tensor b = g.input("b", batched ? Shape{2, 1000, 136} : Shape{1000, 136}, DType::BF16);
      g.output(matmul(a, b, out, false, true));
      CompileOptions options;
      options.scheduleOptions = "gemm-block-n=96 gemm-cluster-m=1";
      auto program = compileGraph(g, options);
      ASSERT_TRUE(program.ok()) << program.message();
      ASSERT_EQ(program->launches.size(), 1u);
      EXPECT_EQ(program->launches[0].tmaStore, out == DType::F32);
      expectGraphMatches(g, 1e-2, /*kernels=*/1, options);
    }
}

// Tiles narrowed to fill the waves (gemm-fill-sms): 512 x 6144 in 128 x 256
// tiles would be 96 (73% of a wave), 192 columns make 128 (TMA stores of
// three 64-column units a tile); two products (SwiGLU's gate and up) of 256
// x 14336 take 112 columns each (256 tiles, two full waves, direct stores).
TEST(GemmSchedules, WaveFillingTiles) {
  TILEC_REQUIRE_GPU(ctx);
  for (const char *name : {"matmul", "matmul_swiglu"}) {
    SCOPED_TRACE(name);
    bool two = std::string(name) == "matmul_swiglu";
    Graph g(name);
    ASSERT_TRUE(examples::build(name, g, two ? 256 : 512, two ? 14336 : 6144, DType::BF16, 256)
                    .ok());
    CompileOptions options;
    auto program = compileGraph(g, options);
    ASSERT_TRUE(program.ok()) << program.message();
    ASSERT_EQ(program->launches.size(), 1u);
    EXPECT_NE(explainFusion(*program).find(two ? "256 tiles" : "128 tiles"), std::string::npos)
        << explainFusion(*program);
    expectGraphMatches(g, 2e-2, /*kernels=*/1, options);
  }
}

// ---- fused epilogues: one kernel each ----

// Split k (gemm-split-k): each tile's k steps over 2-4 CTAs, whose partial
// sums the last to arrive adds before the epilogue. Every multi-tile graph
// under the TMA kernel (clusters, TMA stores, ping-pong, two chains), the
// cp.async wgmma kernel and mma.sync; 3 splits of 5 or 7 k steps leave the
// last split short, and 3 of 2 steps (K = 128) one past K (zeros).
TEST(GemmSchedules, SplitK) {
  TILEC_REQUIRE_GPU(ctx);
  runMultiTileCases(
      "split_k",
      {"gemm-split-k=2", "gemm-split-k=3 gemm-cluster-m=1", "gemm-split-k=4 gemm-tma=0",
       "gemm-split-k=3 gemm-wgmma=0", "gemm-split-k=2 gemm-pingpong=1",
       "gemm-split-k=2 gemm-m-chains=2 gemm-fill-sms=0"},
      [](const MultiTileCase &c, const Graph &, const CompiledProgram &program,
         const std::string &opts) {
        ASSERT_EQ(program.launches.size(), 1u);
        const KernelLaunchPlan &l = program.launches[0];
        EXPECT_GT(l.splitK, 1) << c.name << ", " << opts;
        EXPECT_GT(l.workspaceBytes, 0) << c.name << ", " << opts;
        EXPECT_NE(program.ptx.find("atom.global.add.u32"), std::string::npos) << c.name;
      });
}

// Split k as the scheduler chooses it (the default) for few tiles of deep
// K: decode (16-bit and f32), mma.sync, f32 FMA and wgmma tiles (in 4
// splits, and in 2 over a K of 4096), a fused bias
// and GELU, and SwiGLU's two products; one Executable runs each graph three
// times on fresh data, so every launch must leave its counters at zero for
// the next.
TEST(GemmSplitK, ChosenSplitsOverRepeatedRuns) {
  TILEC_REQUIRE_GPU(ctx);
  struct Case {
    int64_t m, n, k;
    DType dtype;
    bool swiglu;
  };
  for (const Case &c : std::vector<Case>{{16, 1024, 4096, DType::BF16, false},
                                         {1, 1000, 2048, DType::BF16, false},
                                         {16, 256, 4096, DType::F32, false},
                                         {64, 256, 4096, DType::F32, false},
                                         {128, 512, 4096, DType::F32, false},
                                         {64, 520, 2048, DType::BF16, false},
                                         {128, 1024, 4096, DType::BF16, false},
                                         {192, 1024, 4096, DType::BF16, false}, // (2 splits)
                                         {128, 2048, 4096, DType::F16, false},  // (2 splits)
                                         {200, 256, 2048, DType::F16, false},
                                         {16, 512, 2048, DType::BF16, true}}) {
    std::string name = std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
                       std::to_string(c.k) + " " + dtypeName(c.dtype) +
                       (c.swiglu ? " swiglu" : " gelu(linear + bias)");
    SCOPED_TRACE(name);
    Graph g("split_k");
    testgraphs::buildLinear(g, c.m, c.n, c.k, c.dtype,
                            c.swiglu ? testgraphs::LinearEpilogue::SwiGlu
                                     : testgraphs::LinearEpilogue::BiasGelu);
    CompileOptions options; // (the default: chosen splits)
    auto program = compileGraph(g, options);
    ASSERT_TRUE(program.ok()) << program.message();
    ASSERT_EQ(program->launches.size(), 1u);
    EXPECT_GT(program->launches[0].splitK, 1);
    auto exe = Executable::compile(g, ctx, options);
    ASSERT_TRUE(exe.ok()) << exe.message();
    auto stream = rt::Stream::create(ctx);
    ASSERT_TRUE(stream.ok()) << stream.message();
    uint64_t seed = tilec::testing::freshSeed();
    for (int run = 0; run < 3; ++run) {
      SCOPED_TRACE("run " + std::to_string(run) + ", seed " + std::to_string(seed));
      std::vector<HostTensor> inputs;
      for (size_t i = 0; i < g.inputs().size(); ++i) {
        const Node &n = g.node(g.inputs()[i]);
        inputs.push_back(HostTensor::random(n.shape, n.dtype, seed + 10 * run + i, -1.0f, 1.0f));
      }
      auto got = (*exe)->runOnHost(inputs, **stream);
      ASSERT_TRUE(got.ok()) << got.message();
      std::vector<HostTensor> ref = evaluateReference(g, inputs);
      EXPECT_LT(relativeError((*got)[0], ref[0]), 1e-2);
      EXPECT_LT(maxElementError((*got)[0], ref[0]), 4e-2);
    }
  }
}

// Programs written to the on-disk cache and read back (ProgramCache.h)
// run as compiled ones do: an RMSNorm, a split-k linear layer with its
// bias and GELU, and a softmax (three kernels), stored by the first
// compileGraphCached, read from disk by the second, then loaded with
// Executable::load and run against the reference.
TEST(ProgramCache, ProgramsReadFromDiskRun) {
  TILEC_REQUIRE_GPU(ctx);
  char dir[] = "/tmp/tilec-gpu-cache-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  Graph g("cached");
  Tensor x = g.input("x", {16, 4096}, DType::BF16);
  Tensor w = g.input("w", {1024, 4096}, DType::BF16);
  Tensor b = g.input("b", {1024}, DType::BF16);
  Tensor gain = g.input("gain", {4096}, DType::BF16);
  g.output(nn::softmax(gelu(nn::linear(nn::rms_norm(x, gain), w, b))));
  // Rounding every op, as the reference does: the default keeps f32 inside
  // a kernel, and logits of ~20 rounded once less moved the softmax by 4%
  // (the first run on the H200, reproduced bitwise by the simulator).
  CompileOptions options;
  options.roundEveryOp = true;
  options.cacheDir = dir;
  bool hit = true;
  ASSERT_TRUE(compileGraphCached(g, options, &hit).ok());
  EXPECT_FALSE(hit);
  auto program = compileGraphCached(g, options, &hit);
  ASSERT_TRUE(program.ok()) << program.message();
  EXPECT_TRUE(hit);
  ASSERT_EQ(program->launches.size(), 3u);
  EXPECT_GT(program->launches[1].splitK, 1);
  auto exe = Executable::load(std::make_shared<const CompiledProgram>(program.take()), ctx);
  ASSERT_TRUE(exe.ok()) << exe.message();
  auto stream = rt::Stream::create(ctx);
  ASSERT_TRUE(stream.ok()) << stream.message();
  uint64_t seed = tilec::testing::freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const Node &n = g.node(g.inputs()[i]);
    inputs.push_back(HostTensor::random(n.shape, n.dtype, seed + i, -1.0f, 1.0f));
  }
  auto got = (*exe)->runOnHost(inputs, **stream);
  ASSERT_TRUE(got.ok()) << got.message();
  std::vector<HostTensor> ref = evaluateReference(g, inputs);
  EXPECT_LT(relativeError((*got)[0], ref[0]), 2e-2);
  EXPECT_LT(maxElementError((*got)[0], ref[0]), 8e-2);
  std::filesystem::remove_all(dir);
}

// Transposes of row dims stored by the kernel that computes their operand
// (scatters): returned, read by a GEMM through a view, stored by a GEMM's
// epilogue, appended to a cache; 3-D and 4-D rows, f32 and bf16.
TEST(Scatter, TransposesStoredByTheirProducers) {
  for (DType dt : {DType::F32, DType::BF16}) {
    SCOPED_TRACE(dtypeName(dt));
    double tol = dt == DType::F32 ? 1e-5 : 1e-2;
    {
      Graph g("returned");
      g.output(transpose(silu(g.input("x", {37, 12, 136}, dt)), 0, 1));
      expectGraphMatches(g, tol, 1);
    }
    {
      Graph g("four_d");
      Tensor y = nn::rms_norm(g.input("x", {5, 3, 7, 264}, dt), g.input("w", {264}, dt));
      g.output(transpose(y, 0, 2));
      g.output(y);
      expectGraphMatches(g, tol, 1);
    }
    if (dt == DType::BF16) {
      Graph g("into_gemm");
      Tensor q = exp(g.input("q", {40, 8, 64}, dt) * g.constant(0.25, dt));
      Tensor grouped = reshape(transpose(q, 0, 1), {2, 160, 64});
      g.output(matmul(grouped, g.input("k", {2, 96, 64}, dt), DType::F32, false, true));
      expectGraphMatches(g, 1e-2, 2);
    }
    // Attention's output: a batched GEMM's rows relabeled and transposed
    // heads last, stored by its epilogue (mma.sync at 64 rows a batch,
    // wgmma at 256; f32 FMA tiles).
    for (int64_t rows : {64, 256}) {
      Graph g("gemm_scatter");
      Tensor o = matmul(g.input("p", {4, rows, 96}, dt), g.input("v", {4, 96, 128}, dt));
      g.output(transpose(reshape(o, {16, rows / 4, 128}), 0, 1));
      expectGraphMatches(g, dt == DType::F32 ? 1e-4 : 1e-2, 1);
    }
    {
      Graph g("appended");
      Tensor k = tanh(g.input("k", {9, 4, 128}, dt));
      g.output(concat({g.input("cache", {4, 30, 128}, dt), transpose(k, 0, 1)}, 1));
      expectGraphMatches(g, tol, 2);
    }
  }
}

// A whole decoder layer (examples::buildDecoderLayer) against the
// reference: decode (one token) and 16 tokens after a cache of 100, a
// prefill of 64 tokens without a cache, hidden
// 1024 (8 query heads over 2 kv heads), weights scaled by 1 / sqrt(fan-in)
// and a causal mask (computed in the kernels), as a model's are.
// With fuse-attention, its attention is one flash-attention kernel; by
// shape (unset), one token after 700 (4 rows over 701 keys) is flash too,
// the keys split over CTAs.
TEST(DecoderLayer, MatchesReference) {
  TILEC_REQUIRE_GPU(ctx);
  // (capacity: the caches' rows, 0 for past + tokens; more leaves rows the
  // causal mask removes, which flash attention does not walk.)
  for (auto [tokens, past, flash, capacity] :
       std::vector<std::tuple<int64_t, int64_t, std::optional<bool>, int64_t>>{
           {1, 100, false, 0}, {16, 100, false, 0}, {64, 0, false, 0}, {1, 100, true, 0},
           {16, 100, true, 0}, {64, 0, true, 0}, {1, 700, std::nullopt, 0},
           {1, 700, std::nullopt, 2048}, {16, 100, true, 1000}, {16, 100, false, 300}}) {
    SCOPED_TRACE(std::to_string(tokens) + " tokens after " + std::to_string(past) +
                 (!flash ? ", by shape" : *flash ? ", flash attention" : "") + ", capacity " +
                 std::to_string(capacity));
    CompileOptions options;
    options.fuseAttention = flash;
    Graph g("layer");
    examples::buildDecoderLayer(g, tokens, 1024, past, DType::BF16, true, capacity);
    uint64_t seed = tilec::testing::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::vector<HostTensor> inputs;
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      const Node &n = g.node(g.inputs()[i]);
      HostTensor t = HostTensor::random(n.shape, n.dtype, seed + i, -1.0f, 1.0f);
      if (n.shape.size() == 2 && i > 0) // weights
        for (float &v : t.values)
          v /= std::sqrt(static_cast<float>(n.shape[1]));
      inputs.push_back(t);
    }
    auto exe = Executable::compile(g, ctx, options);
    ASSERT_TRUE(exe.ok()) << exe.message();
    auto stream = rt::Stream::create(ctx);
    ASSERT_TRUE(stream.ok()) << stream.message();
    auto got = (*exe)->runOnHost(inputs, **stream);
    ASSERT_TRUE(got.ok()) << got.message();
    std::vector<HostTensor> ref = evaluateReference(g, inputs);
    ASSERT_EQ(got->size(), 3u);
    for (size_t j = 0; j < ref.size(); ++j)
      EXPECT_LT(relativeError((*got)[j], ref[j]), 3e-2) << "output " << j;
  }
}

// Two GEMMs of one lhs and weights of one shape (k and v projections), at
// most 64 rows: one kernel of two products, each with its own epilogue
// and output (decode's mma.sync tiles and those of 33-64 rows).
TEST(GemmEpilogue, SiblingProductsOneKernel) {
  for (auto [m, dt] : std::vector<std::pair<int64_t, DType>>{
           {1, DType::BF16}, {16, DType::BF16}, {48, DType::F16}, {64, DType::BF16}}) {
    SCOPED_TRACE(std::to_string(m) + " rows, " + dtypeName(dt));
    Graph g("kv");
    Tensor h = g.input("h", {m, 1000}, dt);
    Tensor k = nn::linear(h, g.input("wk", {520, 1000}, dt), g.input("bk", {520}, dt));
    g.output(silu(k));
    g.output(nn::linear(h, g.input("wv", {520, 1000}, dt)));
    expectGraphMatches(g, dt == DType::F32 ? 1e-4 : 1e-2, 1);
  }
}

TEST(GemmEpilogue, LinearBiasGelu) {
  Graph g("linear_gelu");
  Tensor x = g.input("x", {200, 320}, DType::BF16);
  Tensor w = g.input("w", {264, 320}, DType::BF16);
  Tensor b = g.input("bias", {264}, DType::BF16);
  g.output(gelu(nn::linear(x, w, b)));
  expectGraphMatches(g, 1e-2);
}

TEST(GemmEpilogue, ResidualAddScaleAndSilu) {
  Graph g("residual");
  Tensor x = g.input("x", {130, 96}, DType::BF16);
  Tensor w = g.input("w", {96, 160}, DType::BF16);
  Tensor r = g.input("residual", {130, 160}, DType::BF16);
  g.output(silu(matmul(x, w) * 0.5 + r));
  expectGraphMatches(g, 1e-2);
}

TEST(GemmEpilogue, PerRowScaleAndF32Output) {
  Graph g("rowscale");
  Tensor x = g.input("x", {77, 128}, DType::F16);
  Tensor w = g.input("w", {128, 90}, DType::F16);
  Tensor s = g.input("scale", {77, 1}, DType::F16);
  g.output(matmul(x, w, DType::F32) * cast(s, DType::F32));
  expectGraphMatches(g, 1e-2);
}

TEST(GemmEpilogue, ProductAndEpilogueBothOutputs) {
  Graph g("two_outputs");
  Tensor x = g.input("x", {64, 64}, DType::BF16);
  Tensor w = g.input("w", {64, 48}, DType::BF16);
  Tensor y = matmul(x, w);
  g.output(y);
  g.output(maximum(y, g.constant(0.0, DType::BF16))); // relu
  expectGraphMatches(g, 1e-2);
}

TEST(GemmEpilogue, BatchedLhsRowsFlattened) {
  Graph g("batched_lhs");
  Tensor x = g.input("x", {3, 50, 64}, DType::BF16);
  Tensor w = g.input("w", {80, 64}, DType::BF16);
  g.output(nn::linear(x, w));
  expectGraphMatches(g, 1e-2);
}

// SwiGLU: two products of one lhs in one kernel (the lhs panel loaded once),
// on the wgmma path (K-major), the mma.sync path ([K, N] weights) and the
// decode schedule.
TEST(GemmEpilogue, SwiGluTwoProductsOneKernel) {
  for (auto [rows, kMajor] : std::vector<std::pair<int64_t, bool>>{
           {200, true}, {130, false}, {16, true}}) {
    SCOPED_TRACE("rows " + std::to_string(rows) + (kMajor ? " K-major" : " [K, N]"));
    Graph g("swiglu");
    Tensor x = g.input("x", {rows, 256}, DType::BF16);
    Shape w = kMajor ? Shape{336, 256} : Shape{256, 336};
    Tensor wg = g.input("w_gate", w, DType::BF16);
    Tensor wu = g.input("w_up", w, DType::BF16);
    g.output(silu(matmul(x, wg, false, kMajor)) * matmul(x, wu, false, kMajor));
    expectGraphMatches(g, 1e-2, 1);
  }
}

// Batched products (a rhs per batch, as attention's Q K^T and P V): rows of
// each batch are tiled separately; both tensor-core paths and decode.
TEST(GemmBatched, RhsPerBatch) {
  struct Case { int64_t b, m, n, k; bool tb; };
  for (Case c : std::vector<Case>{{3, 50, 80, 64, false},    // mma.sync (<= 64 rows)
                                  {2, 200, 96, 128, true},   // wgmma, K-major
                                  {4, 130, 136, 72, false},  // wgmma, [K, N] rhs
                                  {2, 16, 520, 256, true},    // decode
                                  {1, 70, 48, 32, false}}) {  // a batch of one
    SCOPED_TRACE(std::to_string(c.b) + "x" + std::to_string(c.m) + "x" + std::to_string(c.n) +
                 "x" + std::to_string(c.k) + (c.tb ? " Bt" : ""));
    Graph g("batched");
    Tensor a = g.input("a", {c.b, c.m, c.k}, DType::BF16);
    Tensor w = g.input("b", c.tb ? Shape{c.b, c.n, c.k} : Shape{c.b, c.k, c.n}, DType::BF16);
    Tensor bias = g.input("bias", {c.n}, DType::BF16);
    g.output(matmul(a, w, false, c.tb) + bias);
    expectGraphMatches(g, 1e-2, 1);
  }
}

// A transposed lhs with batch dims, a [B, K, M] (x^T @ w per batch), with
// a batched or a shared rhs of either layout, plus a bias: wgmma through 3-D
// tensor maps (M % 8 == 0), mma.sync otherwise (M = 77, and gemm-wgmma=0),
// rank-4 batch dims, rows not tile multiples.
TEST(GemmBatched, TransposedLhs) {
  struct Case { Shape batch; int64_t m, n, k; bool batchedRhs, tb; const char *opts; };
  for (const Case &c : std::vector<Case>{{{3}, 200, 136, 128, true, true, ""},
                                         {{3}, 200, 128, 96, false, false, ""},
                                         {{2, 2}, 136, 192, 64, true, false, ""},
                                         {{3}, 77, 80, 72, true, true, ""},
                                         {{2}, 130, 96, 64, false, true, "gemm-wgmma=0"}}) {
    SCOPED_TRACE(shapeString(c.batch) + " " + std::to_string(c.m) + "x" + std::to_string(c.n) +
                 "x" + std::to_string(c.k) + (c.batchedRhs ? " batched rhs" : " shared rhs") +
                 (c.tb ? " Bt " : " ") + c.opts);
    Graph g("batched_lhs_t");
    Shape as = c.batch;
    as.insert(as.end(), {c.k, c.m});
    Shape bs = c.tb ? Shape{c.n, c.k} : Shape{c.k, c.n};
    if (c.batchedRhs)
      bs.insert(bs.begin(), c.batch.begin(), c.batch.end());
    Tensor a = g.input("a", as, DType::BF16);
    Tensor w = g.input("b", bs, DType::BF16);
    Tensor bias = g.input("bias", {c.n}, DType::BF16);
    g.output(matmul(a, w, true, c.tb) + bias);
    CompileOptions options;
    options.scheduleOptions = c.opts;
    expectGraphMatches(g, 1e-2, 1, options);
  }
}

// A reduction consumer is not an epilogue: the softmax gets its own kernel.
TEST(GemmEpilogue, SoftmaxAfterMatmulIsASecondKernel) {
  Graph g("mm_softmax");
  Tensor q = g.input("q", {64, 128}, DType::BF16);
  Tensor k = g.input("k", {96, 128}, DType::BF16);
  g.output(nn::softmax(matmul(q, k, false, true) * 0.088));
  expectGraphMatches(g, 1e-2, 2);
}

// nn::attention: the scores GEMM (f32, scaled), the softmax and the second
// GEMM against the CPU reference; heads as a batch dim (rank 3 and 4),
// query and key counts that are not tile multiples, bf16 and f16.
TEST(Attention, MatchesReference) {
  struct Case {
    Shape q, k, v;
    DType dtype;
  };
  for (const Case &c : {Case{{8, 130, 64}, {8, 200, 64}, {8, 200, 64}, DType::BF16},
                        Case{{2, 4, 77, 64}, {2, 4, 129, 64}, {2, 4, 129, 128}, DType::F16}}) {
    SCOPED_TRACE(shapeString(c.q) + " " + shapeString(c.k) + " " + dtypeName(c.dtype));
    Graph g("attention");
    Tensor q = g.input("q", c.q, c.dtype);
    Tensor k = g.input("k", c.k, c.dtype);
    Tensor v = g.input("v", c.v, c.dtype);
    g.output(nn::attention(q, k, v, 1.0 / std::sqrt(static_cast<double>(c.q.back()))));
    expectGraphMatches(g, 2e-2, 3);
  }
}

// With a mask, added to the scores in the first GEMM's epilogue (still
// three kernels): a causal one [Sq, Sk] (-inf past the diagonal, read at
// each batch's row % Sq), a random additive one per batch and head
// [B, H, 1, Sk], and a bf16 one over the whole scores.
TEST(Attention, MaskedMatchesReference) {
  struct Case {
    Shape q, k, mask;
    DType maskType;
    bool causal;
  };
  for (const Case &c : {Case{{8, 130, 64}, {8, 200, 64}, {130, 200}, DType::F32, true},
                        Case{{2, 4, 77, 64}, {2, 4, 129, 64}, {2, 4, 1, 129}, DType::F32, false},
                        Case{{3, 64, 64}, {3, 96, 64}, {3, 64, 96}, DType::BF16, false}}) {
    SCOPED_TRACE(shapeString(c.q) + " " + shapeString(c.k) + " mask " + shapeString(c.mask) +
                 (c.causal ? " causal" : ""));
    Graph g("attention_masked");
    Tensor q = g.input("q", c.q, DType::BF16);
    Tensor k = g.input("k", c.k, DType::BF16);
    Tensor v = g.input("v", c.k, DType::BF16);
    Tensor mask = g.input("mask", c.mask, c.maskType);
    g.output(nn::attention(q, k, v, 1.0 / std::sqrt(static_cast<double>(c.q.back())), mask));
    FixedInputs fixed;
    if (c.causal)
      fixed.push_back({3, causalMask(c.mask[0], c.mask[1], c.maskType)});
    expectGraphMatches(g, 2e-2, 3, {}, fixed);
  }
}

// Flash attention (fuse-attention: one kernel, tile.attention) against the
// CPU reference: heads as batch dims (rank 3 and 4) or one head, query and
// key counts that are not multiples of the tiles (odd key counts too:
// keys past the last are masked in registers), head dims 16 to 128, v's
// columns other than q's, causal and random additive masks (f32 and bf16,
// broadcast over heads or queries), bf16 and f16; and the schedule's
// variants (query rows a CTA, keys a step, buffers, keys split over CTAs:
// none, three ways with splits a causal mask leaves empty for some rows,
// and decode's 16 ways over 4100 keys).
TEST(Attention, FlashMatchesReference) {
  struct Case {
    Shape q, k, v, mask;
    DType dtype, maskType;
    bool causal;
    std::string schedule;
  };
  for (const Case &c : std::vector<Case>{
           {{8, 130, 64}, {8, 200, 64}, {8, 200, 64}, {}, DType::BF16, DType::F32, false, ""},
           {{2, 4, 77, 64}, {2, 4, 129, 64}, {2, 4, 129, 128}, {}, DType::F16, DType::F32, false, ""},
           {{8, 130, 64}, {8, 200, 64}, {8, 200, 64}, {130, 200}, DType::BF16, DType::F32, true, ""},
           {{2, 4, 77, 64}, {2, 4, 129, 64}, {2, 4, 129, 128}, {2, 4, 1, 129}, DType::BF16,
            DType::F32, false, ""},
           {{3, 64, 64}, {3, 96, 64}, {3, 96, 64}, {3, 64, 96}, DType::BF16, DType::BF16, false, ""},
           {{5, 16}, {33, 16}, {33, 32}, {}, DType::BF16, DType::F32, false, ""},
           {{2, 3, 128}, {2, 517, 128}, {2, 517, 128}, {3, 517}, DType::BF16, DType::F32, true, ""},
           {{1, 200, 96}, {1, 64, 96}, {1, 64, 48}, {}, DType::F16, DType::F32, false, ""},
           {{4, 256, 128}, {4, 1000, 128}, {4, 1000, 128}, {256, 1000}, DType::BF16, DType::F32, true,
            ""},
           {{4, 256, 128}, {4, 1000, 128}, {4, 1000, 128}, {256, 1000}, DType::BF16, DType::F32, true,
            "attention-block-m=128 attention-block-n=32 attention-stages=3"},
           {{2, 100, 64}, {2, 300, 64}, {2, 300, 64}, {}, DType::F16, DType::F32, false,
            "attention-block-m=32 attention-block-n=128 attention-stages=4"},
           {{2, 130, 64}, {2, 130, 64}, {2, 130, 64}, {130, 130}, DType::BF16, DType::F32, true,
            "attention-split=1"},
           {{2, 130, 64}, {2, 130, 64}, {2, 130, 64}, {130, 130}, DType::BF16, DType::F32, true,
            "attention-split=3"},
           {{8, 4, 128}, {8, 4100, 128}, {8, 4100, 128}, {4, 4100}, DType::BF16, DType::F32, true,
            ""},
           // (Split keys, 20 rows a batch: warp 1 hands over half its rows.)
           {{4, 20, 64}, {4, 900, 64}, {4, 900, 64}, {}, DType::BF16, DType::F32, false, ""}}) {
    SCOPED_TRACE(shapeString(c.q) + " " + shapeString(c.k) + " " + shapeString(c.v) + " mask " +
                 shapeString(c.mask) + (c.causal ? " causal " : " ") + dtypeName(c.dtype) + " " +
                 c.schedule);
    Graph g("flash_attention");
    Tensor q = g.input("q", c.q, c.dtype);
    Tensor k = g.input("k", c.k, c.dtype);
    Tensor v = g.input("v", c.v, c.dtype);
    double scale = 1.0 / std::sqrt(static_cast<double>(c.q.back()));
    FixedInputs fixed;
    if (c.mask.empty()) {
      g.output(nn::attention(q, k, v, scale));
    } else {
      g.output(nn::attention(q, k, v, scale, g.input("mask", c.mask, c.maskType)));
      if (c.causal)
        fixed.push_back({3, causalMask(c.mask[0], c.mask[1], c.maskType)});
    }
    CompileOptions options;
    options.fuseAttention = true;
    options.scheduleOptions = c.schedule;
    expectGraphMatches(g, 2e-2, 1, options, fixed);
  }
}

// The Hopper flash kernel (attention-wgmma=1: S and O += P v by wgmma, P
// through shared memory; 2: the next block's S under this one's softmax)
// (3: wgmma 1 with TMA copies from a producer warpgroup; 4: the same with
// the two consumers taking turns at named barriers; 5-7: 1, 4 and 2 with
// O += P v taking P from registers, tile.wgmma_rs) against the CPU
// reference: prefill shapes with
// causal masks, rows and keys past the tiles, 64 and 128 keys a step, head
// dims 64 and 128, v's columns other than q's, f16 and bf16, 4-D heads,
// keys split over CTAs (decode).
TEST(Attention, WgmmaFlashMatchesReference) {
  struct Case {
    Shape q, k, v, mask;
    DType dtype;
    std::string schedule;
  };
  for (const Case &c : std::vector<Case>{
           {{8, 130, 64}, {8, 200, 64}, {8, 200, 64}, {130, 200}, DType::BF16, ""},
           {{2, 4, 300, 128}, {2, 4, 300, 128}, {2, 4, 300, 128}, {300, 300}, DType::BF16, ""},
           {{4, 256, 128}, {4, 1000, 128}, {4, 1000, 64}, {256, 1000}, DType::F16,
            "attention-block-n=128 attention-stages=3"},
           {{2, 512, 128}, {2, 512, 128}, {2, 512, 128}, {512, 512}, DType::BF16,
            "attention-block-m=64"},
           {{8, 4, 128}, {8, 4100, 128}, {8, 4100, 128}, {4, 4100}, DType::BF16, ""},
           {{3, 20, 128}, {3, 2000, 128}, {3, 2000, 128}, {20, 2000}, DType::BF16, ""},
           // TMA copies (mode 3: attention-tma=1; the keys not split)
           {{32, 512, 128}, {32, 512, 128}, {32, 512, 128}, {512, 512}, DType::BF16,
            "attention-split=1 attention-stages=3"},
           {{2, 1000, 128}, {2, 1000, 128}, {2, 1000, 64}, {1000, 1000}, DType::F16,
            "attention-split=1 attention-block-n=128"},
           // More tiles (210) than SMs: TMA kernels with two consumers are
           // persistent by default, each CTA taking one or two tiles.
           {{70, 260, 64}, {70, 300, 64}, {70, 300, 64}, {260, 300}, DType::BF16,
            "attention-split=1"}})
   // (3: TMA; 4: TMA, the consumers taking turns; 5, 6, 7: 1, 4 and 2 with
   // P from registers, attention-p-regs=1; 8, 9: 3 and 4 with P from
   // registers and each block's P v under the next one's softmax,
   // attention-overlap=1. Each mode sets all three, as the TMA kernels
   // take them by default: mode 9 is the default kernel where TMA applies.)
   for (int mode : {1, 2, 3, 4, 5, 6, 7, 8, 9}) {
    bool pRegs = mode >= 5, tma = mode == 3 || mode == 4 || mode == 6 || mode >= 8,
         turns = mode == 4 || mode == 6 || mode == 9, sAhead = mode == 2 || mode == 7,
         overlap = mode >= 8;
    std::string modeOptions = std::string(sAhead ? "attention-wgmma=2" : "attention-wgmma=1") +
                              (tma ? " attention-tma=1" : "") +
                              (turns ? " attention-pingpong=1" : " attention-pingpong=0") +
                              (pRegs ? " attention-p-regs=1" : " attention-p-regs=0") +
                              (overlap ? " attention-overlap=1" : " attention-overlap=0");
    SCOPED_TRACE(shapeString(c.q) + " " + shapeString(c.k) + " " + shapeString(c.v) + " " +
                 dtypeName(c.dtype) + " " + c.schedule + " " + modeOptions);
    Graph g("wgmma_flash_attention");
    Tensor q = g.input("q", c.q, c.dtype);
    Tensor k = g.input("k", c.k, c.dtype);
    Tensor v = g.input("v", c.v, c.dtype);
    double scale = 1.0 / std::sqrt(static_cast<double>(c.q.back()));
    g.output(nn::attention(q, k, v, scale, g.input("mask", c.mask, DType::F32)));
    FixedInputs fixed{{3, causalMask(c.mask[0], c.mask[1], DType::F32)}};
    CompileOptions options;
    options.fuseAttention = true;
    options.scheduleOptions = modeOptions + " " + c.schedule;
    auto p = compileGraph(g, options);
    // (Mode 2 holds two blocks' scores: 128 keys a step with 128 of v's
    // columns is refused, as it would spill.)
    if (sAhead && c.schedule.find("block-n=128") != std::string::npos && c.v.back() + 128 > 192) {
      ASSERT_FALSE(p.ok());
      continue;
    }
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_NE(p->ptx.find("wgmma.mma_async"), std::string::npos);
    expectGraphMatches(g, 2e-2, 1, options, fixed);
  }
}

// Causal flash attention (nn::causal_attention: the mask computed in the
// kernel, the key blocks past each CTA's last row skipped, the last row
// blocks first) on the device: square and lower-right (Sq < Sk), grouped
// rows (period: the tokens), the keys split (decode), mma.sync (wgmma 0),
// wgmma with cp.async and with TMA (the consumers taking turns too);
// sliding windows.
TEST(Attention, CausalFlashMatchesReference) {
  struct Case {
    Shape q, k;
    int64_t period;
    std::string schedule;
    int64_t window = 0;
  };
  for (const Case &c : std::vector<Case>{
           {{8, 1000, 128}, {8, 1000, 128}, 0, ""},
           {{4, 300, 128}, {4, 1100, 128}, 0, ""},
           {{2, 4 * 200, 128}, {2, 200 + 333, 128}, 200, ""},
           {{8, 4 * 16, 128}, {8, 16 + 4000, 128}, 16, ""},
           {{4, 512, 64}, {4, 512, 64}, 0, "attention-wgmma=0"},
           {{4, 700, 128}, {4, 700, 128}, 0, "attention-tma=0 attention-split=1"},
           {{16, 1024, 128}, {16, 1024, 128}, 0,
            "attention-tma=1 attention-split=1 attention-pingpong=0 attention-p-regs=0"},
           {{16, 1024, 128}, {16, 1024, 128}, 0,
            "attention-tma=1 attention-split=1 attention-pingpong=1 attention-p-regs=0"},
           {{16, 1024, 128}, {16, 1024, 128}, 0,
            "attention-tma=1 attention-split=1 attention-pingpong=1 attention-p-regs=1 "
            "attention-overlap=0"},
           {{8, 4 * 16, 128}, {8, 16 + 4000, 128}, 16, "attention-p-regs=1"},
           {{16, 1024, 128}, {16, 1024, 128}, 0,
            "attention-split=1 attention-pingpong=0 attention-p-regs=1 attention-overlap=1"},
           // Sliding windows (prefill, and decode with the keys split).
           {{8, 2048, 128}, {8, 2048, 128}, 0, "", 512},
           {{8, 2048, 128}, {8, 2048, 128}, 0, "attention-pingpong=0 attention-p-regs=0", 512},
           {{8, 4 * 16, 128}, {8, 16 + 4000, 128}, 16, "", 1024},
           // Persistent CTAs asked for (not the causal default): more tiles
           // than SMs, each CTA's of different block counts.
           {{48, 700, 128}, {48, 700, 128}, 0, "attention-persistent=1"},
           {{12, 1500, 128}, {12, 1500, 128}, 0, "attention-persistent=1", 300}}) {
    SCOPED_TRACE(shapeString(c.q) + " over " + shapeString(c.k) + " period " +
                 std::to_string(c.period) + " window " + std::to_string(c.window) + " " +
                 c.schedule);
    Graph g("causal_flash_attention");
    Tensor q = g.input("q", c.q, DType::BF16);
    Tensor k = g.input("k", c.k, DType::BF16);
    Tensor v = g.input("v", c.k, DType::BF16);
    g.output(nn::causal_attention(q, k, v, 1.0 / std::sqrt(static_cast<double>(c.q.back())),
                                  c.period, c.window));
    CompileOptions options;
    options.fuseAttention = true;
    options.scheduleOptions = c.schedule;
    expectGraphMatches(g, 2e-2, 1, options);
  }
}

void runChainedKernels(const std::shared_ptr<rt::Context> &ctx, const char *schedule);

// Programmatic dependent launch: a chain of four kernels (row, GEMM, row,
// GEMM) that hand results over through the executable's temporaries, run
// six times back to back on one stream (fresh inputs and outputs each
// time, one synchronization at the end). Every kernel may be scheduled
// while the one before it finishes; each run must still see only its own
// finished intermediates. Also with the row kernels' L2 prefetches of
// their own first rows ahead of the wait (row-l2-prefetch-first): the
// softmax's CTAs prefetch rows that the GEMM ahead of it is still writing.
TEST(DependentLaunch, ChainedKernelsReadFinishedResults) {
  TILEC_REQUIRE_GPU(ctx);
  for (const char *schedule : {"", "row-l2-prefetch=16 row-l2-prefetch-first=true"}) {
    SCOPED_TRACE(std::string("schedule '") + schedule + "'");
    runChainedKernels(ctx, schedule);
  }
}

void runChainedKernels(const std::shared_ptr<rt::Context> &ctx, const char *schedule) {
  Graph g("pdl_chain");
  Tensor x = g.input("x", {1024, 512}, DType::BF16);
  Tensor w = g.input("w", {512}, DType::BF16);
  Tensor w1 = g.input("w1", {512, 512}, DType::BF16);
  Tensor w2 = g.input("w2", {256, 512}, DType::BF16);
  Tensor s = nn::softmax(nn::linear(nn::rms_norm(x, w), w1));
  g.output(nn::linear(s, w2));
  CompileOptions options;
  options.scheduleOptions = schedule;
  auto exe = Executable::compile(g, ctx, options);
  ASSERT_TRUE(exe.ok()) << exe.message();
  ASSERT_EQ((*exe)->kernelCount(), 4u) << explainFusion((*exe)->program());
  if (*schedule) {
    EXPECT_NE((*exe)->program().ptx.find("prefetch.L2"), std::string::npos);
  }
  for (const KernelLaunchPlan &l : (*exe)->program().launches)
    EXPECT_EQ(l.dependentLaunch, ctx->info().computeMajor >= 9) << l.name;
  auto stream = rt::Stream::create(ctx);
  ASSERT_TRUE(stream.ok()) << stream.message();

  constexpr int kRuns = 6;
  uint64_t seed = tilec::testing::freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<std::vector<HostTensor>> inputs(kRuns);
  std::vector<std::vector<rt::DeviceBuffer>> inBuffers(kRuns);
  std::vector<rt::DeviceBuffer> outBuffers;
  const Node &out = g.node(g.outputs()[0]);
  const size_t outBytes = numElements(out.shape) * dtypeBytes(out.dtype);
  for (int r = 0; r < kRuns; ++r) {
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      const Node &n = g.node(g.inputs()[i]);
      inputs[r].push_back(HostTensor::random(n.shape, n.dtype, seed + 16 * r + i));
      std::vector<uint8_t> bytes = inputs[r].back().toBytes();
      auto buffer = rt::DeviceBuffer::allocate(ctx, bytes.size());
      ASSERT_TRUE(buffer.ok()) << buffer.message();
      ASSERT_TRUE(buffer->copyFromHost(bytes.data(), bytes.size()).ok());
      inBuffers[r].push_back(buffer.take());
    }
    auto buffer = rt::DeviceBuffer::allocate(ctx, outBytes);
    ASSERT_TRUE(buffer.ok()) << buffer.message();
    ASSERT_TRUE(buffer->fill(0xFF).ok()); // NaN until written
    outBuffers.push_back(buffer.take());
  }
  for (int r = 0; r < kRuns; ++r) {
    std::vector<const rt::DeviceBuffer *> ins;
    for (const rt::DeviceBuffer &b : inBuffers[r])
      ins.push_back(&b);
    Status status = (*exe)->run(ins, {&outBuffers[r]}, **stream);
    ASSERT_TRUE(status.ok()) << status.message();
  }
  Status synced = (*stream)->synchronize();
  ASSERT_TRUE(synced.ok()) << synced.message();
  for (int r = 0; r < kRuns; ++r) {
    SCOPED_TRACE("run " + std::to_string(r));
    std::vector<uint8_t> bytes(outBytes);
    ASSERT_TRUE(outBuffers[r].copyToHost(bytes.data(), bytes.size()).ok());
    HostTensor got = HostTensor::fromBytes(out.shape, out.dtype, bytes.data());
    HostTensor ref = evaluateReference(g, inputs[r])[0];
    EXPECT_LT(relativeError(got, ref), 2e-2);
    EXPECT_LT(maxElementError(got, ref), 8e-2);
  }
}

// Large product: the full reference would take minutes on the CPU, so a
// sample of rows is checked against f64 dot products.
TEST(GemmLarge, SampledRows4096) {
  TILEC_REQUIRE_GPU(ctx);
  const int64_t m = 4096, n = 4096, k = 4096;
  Graph g("large");
  Tensor a = g.input("a", {m, k}, DType::BF16);
  Tensor b = g.input("b", {n, k}, DType::BF16);
  g.output(matmul(a, b, false, true));
  uint64_t seed = tilec::testing::freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  RunResult r = runOnGpu(g, ctx, seed);
  ASSERT_EQ(r.got.size(), 1u);
  const HostTensor &A = r.inputs[0], &B = r.inputs[1], &C = r.got[0];
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < m; i += 61) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        acc += static_cast<double>(A.values[i * k + kk]) * B.values[j * k + kk];
      scale = std::max(scale, std::fabs(acc));
      worst = std::max(worst, std::fabs(acc - C.values[i * n + j]));
    }
  }
  EXPECT_LT(worst / scale, 2e-2);
}

} // namespace
