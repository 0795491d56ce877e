// Random graphs (tests/gpu/RandomGraphs.h) through the whole compiler: each
// either compiles to PTX that ptxas assembles without spills, or is refused
// with a clear message (an op or shape tilec does not support yet), never
// an internal error or a crash. Fixed seeds (reproducible in CI), fresh
// ones on request; the GPU tests run such graphs, fresh each run, against
// the reference (GpuFuzzTest). A failure prints its seed and the graph's
// ops.
#include "tilec/compiler/Compiler.h"

#include "../gpu/RandomGraphs.h"
#include "Ptxas.h"

#include <gtest/gtest.h>

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
  EXPECT_FALSE(p->launches.empty());
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
  for (uint64_t s = 1; s <= fixed; ++s)
    seeds.push_back(s);
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
  EXPECT_GE(tally.compiled, static_cast<int>(seeds.size() * 8 / 10)) << why;
}

} // namespace
