// Random graphs (tests/gpu/RandomGraphs.h) through the whole compiler: each
// either compiles to PTX that ptxas assembles without spills, or is refused
// with a clear message (an op or shape tilec does not support yet), never
// an internal error or a crash; and each compiled graph, interpreted at the
// tile stage (TileInterpreter.h), matches the reference evaluator. Fixed
// seeds (reproducible in CI), fresh ones on request; the GPU tests run
// such graphs, fresh each run, against the reference (GpuFuzzTest). A
// failure prints its seed and the graph's ops.
#include "tilec/compiler/Compiler.h"
#include "tilec/compiler/Examples.h"

#include "../gpu/RandomGraphs.h"
#include "Ptxas.h"
#include "TileInterpreter.h"
#include "tilec/Reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>

using namespace tilec;

namespace {

struct Tally {
  int compiled = 0, refused = 0;
  std::map<std::string, int> reasons; // first line of each refusal
};

void compileRandomGraph(uint64_t seed, const std::string &ptxas, Tally &tally) {
  Graph g("fuzz");
  std::string ops;
  try {
    ops = testgraphs::RandomGraphBuilder(seed).build(g);
  } catch (const Error &e) {
    ADD_FAILURE() << "seed " << seed << ": the generator built an invalid graph: " << e.what();
    return;
  }
  SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + ops);
  auto p = compileGraph(g);
  if (!p.ok()) {
    const std::string &m = p.message();
    EXPECT_EQ(m.find("internal error"), std::string::npos) << m;
    EXPECT_FALSE(m.empty());
    tally.refused += 1;
    tally.reasons[m.substr(0, m.find('\n')).substr(0, 160)] += 1;
    return;
  }
  tally.compiled += 1;
  // (TILEC_FUZZ_PTX=FILE: the last compiled graph's PTX, and its kernels'
  // schedules printed, to look into one seed.)
  if (const char *dump = std::getenv("TILEC_FUZZ_PTX"))
    if (FILE *f = std::fopen(dump, "w")) {
      std::fputs(p->ptx.c_str(), f);
      std::fclose(f);
      std::printf("%s", explainFusion(*p).c_str());
    }
  // The graph at the tile stage, interpreted on the CPU, against the
  // reference on random inputs: compiled to round every op's result as the
  // reference does (roundEveryOp), so that the comparison is tight (within
  // toleranceFor(g, true); measured at most 8e-7 over seeds 1-300) and no
  // value the reference rounds away and tilec, keeping f32 inside a
  // kernel, does not, makes a difference out of nothing (a log(1 + x^2) of
  // tiny x in f16, then an rms_norm over one element). The default
  // rounding's fusions and rewrites are the same program but for the
  // roundings: TileStageTest runs the examples in it, and the GPU test
  // compares the GPU's default-mode results with this interpreter's.
  {
    std::vector<HostTensor> inputs = tiletest::randomInputs(g, seed + 1);
    CompileOptions rounding;
    rounding.roundEveryOp = true;
    auto got = tiletest::runAtTileStage(g, inputs, rounding);
    ASSERT_TRUE(got.ok()) << got.message();
    std::vector<HostTensor> ref = evaluateReference(g, inputs);
    ASSERT_EQ(got->size(), ref.size());
    auto nonFinite = [](const HostTensor &t) {
      return std::count_if(t.values.begin(), t.values.end(),
                           [](float v) { return !std::isfinite(v); });
    };
    testgraphs::GraphTolerance tol = testgraphs::toleranceFor(g, /*exactRounding=*/true);
    for (size_t j = 0; j < ref.size(); ++j)
      EXPECT_LT(testgraphs::graphError((*got)[j], ref[j], tol.floor), tol.error)
          << "output " << j << ": " << shapeString((*got)[j].shape) << " with "
          << nonFinite((*got)[j]) << " non-finite values at the tile stage, "
          << shapeString(ref[j].shape) << " with " << nonFinite(ref[j]) << " in the reference";
  }
  if (p->launches.empty()) {
    // Nothing to compute (an input returned, through ops that fold away):
    // every output is a copy.
    for (const ProgramValue &v : p->values)
      EXPECT_TRUE(v.kind != ProgramValue::Kind::Output || v.copyOf >= 0);
    EXPECT_TRUE(p->ptx.empty());
    return;
  }
  EXPECT_NE(p->ptx.find(".entry"), std::string::npos);
  if (!ptxas.empty()) {
    int status = 0;
    std::string log = ptxtest::assemble(ptxas, p->ptx, "sm_90a", status);
    ASSERT_EQ(status, 0) << log;
    ptxtest::expectNoSpills(log);
  }
}

TEST(FuzzTest, RandomGraphsCompileOrSayWhyNot) {
  std::string ptxas = ptxtest::ptxasPath();
  Tally tally;
  std::vector<uint64_t> seeds;
  // (TILEC_FUZZ_SEEDS=N: seeds 1 to N instead of 150, for longer hunts.)
  const char *env = std::getenv("TILEC_FUZZ_SEEDS");
  uint64_t fixed = env && std::atoll(env) > 0 ? std::strtoull(env, nullptr, 10) : 150;
  // (TILEC_FUZZ_SEED=N: that seed alone, to look into one graph.)
  const char *one = std::getenv("TILEC_FUZZ_SEED");
  for (uint64_t s = 1; !one && s <= fixed; ++s)
    seeds.push_back(s);
  if (one)
    seeds.push_back(std::strtoull(one, nullptr, 10));
  // (TILEC_FUZZ_FRESH=N: N fresh seeds too. CI keeps to the fixed ones, so
  // that a red run names a change, not a draw; hunts take fresh ones.)
  const char *fresh = std::getenv("TILEC_FUZZ_FRESH");
  std::random_device rd;
  for (int i = 0; fresh && i < std::atoi(fresh); ++i)
    seeds.push_back((static_cast<uint64_t>(rd()) << 32) ^ rd());
  for (uint64_t seed : seeds)
    compileRandomGraph(seed, ptxas, tally);
  std::string why;
  for (const auto &[reason, n] : tally.reasons)
    why += "  " + std::to_string(n) + " x " + reason + "\n";
  std::printf("random graphs: %d compiled, %d refused\n%s", tally.compiled, tally.refused,
              why.c_str());
  // Most must compile: a fuzzer whose graphs are all refused tests nothing.
  if (seeds.size() >= 10) {
    EXPECT_GE(tally.compiled, static_cast<int>(seeds.size() * 8 / 10)) << why;
  }
}

} // namespace

namespace {

// Every example at shapes that take each row schedule the scheduler can
// choose (a warp a row, a CTA a row, rows streamed, clusters; widths not a
// multiple of the vector, one column), bf16 and f32, interpreted at the
// tile stage against the reference. Matmuls at small shapes, odd sizes.
TEST(TileStageTest, ExamplesMatchTheReference) {
  struct Shape2 {
    int64_t rows, cols;
  };
  for (const std::string &name : examples::names())
    for (DType dtype : {DType::F32, DType::BF16})
      for (Shape2 s : examples::isMatmul(name)
                          ? std::vector<Shape2>{{1, 40}, {37, 130}, {130, 64}}
                          : std::vector<Shape2>{{1, 1}, {3, 1000}, {16, 4096}, {2, 40000}, {5, 131072}}) {
        if (name == "rope" && s.cols % 2 != 0)
          continue;
        SCOPED_TRACE(name + " " + dtypeName(dtype) + " [" + std::to_string(s.rows) + ", " +
                     std::to_string(s.cols) + "]");
        Graph g(name);
        Status built = examples::build(name, g, s.rows, s.cols, dtype, /*depth=*/99);
        if (!built.ok()) { // (an example that cannot take the shape says so)
          EXPECT_FALSE(built.message().empty());
          continue;
        }
        std::vector<HostTensor> inputs = tiletest::randomInputs(g, 7);
        auto got = tiletest::runAtTileStage(g, inputs);
        ASSERT_TRUE(got.ok()) << got.message();
        std::vector<HostTensor> ref = evaluateReference(g, inputs);
        ASSERT_EQ(got->size(), ref.size());
        for (size_t j = 0; j < ref.size(); ++j)
          // (bf16: the reference rounds every op's result, tilec keeps f32
          // inside a kernel; one element of a 5-op chain differs by 2.3%.)
          EXPECT_LT(relativeError((*got)[j], ref[j]), dtype == DType::F32 ? 1e-5 : 5e-2)
              << "output " << j;
      }
}

} // namespace
