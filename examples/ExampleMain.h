// The body shared by the example host programs: build a graph, compile it,
// write its PTX, run it on the GPU when there is one, and check the result
// against the CPU reference.
#pragma once

#include "tilec/Reference.h"
#include "tilec/compiler/Executable.h"

#include <cstdio>
#include <fstream>
#include <functional>
#include <random>

namespace tilec::example {

inline int runExample(const std::string &name, const std::function<void(Graph &)> &build,
                      double tolerance) {
  Graph g(name);
  try {
    build(g);
  } catch (const Error &e) {
    std::fprintf(stderr, "error building the graph: %s\n", e.what());
    return 1;
  }
  auto program = compileGraph(g);
  if (!program) {
    std::fprintf(stderr, "compile error: %s\n", program.message().c_str());
    return 1;
  }
  std::printf("%s", explainFusion(*program).c_str());
  std::string ptxPath = name + ".ptx";
  std::ofstream(ptxPath) << program->ptx;
  std::printf("kernels: %zu\nPTX (%s): %s\n", program->launches.size(),
              program->target.c_str(), ptxPath.c_str());

  std::random_device rd;
  uint64_t seed = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const Node &n = g.node(g.inputs()[i]);
    inputs.push_back(HostTensor::random(n.shape, n.dtype, seed + i, -2.0f, 2.0f));
  }
  std::vector<HostTensor> ref = evaluateReference(g, inputs);
  double refNorm = 0;
  for (float v : ref[0].values)
    refNorm += double(v) * v;
  std::printf("CPU reference: %zu output(s), |out0| = %.4g\n", ref.size(), std::sqrt(refNorm));

  auto ctx = rt::Context::create(0);
  if (!ctx) {
    std::printf("GPU run skipped: %s\n", ctx.message().c_str());
    return 0;
  }
  std::printf("GPU: %s (%d SMs)\n", (*ctx)->info().name.c_str(), (*ctx)->info().smCount);
  auto exe = Executable::compile(g, *ctx);
  auto stream = exe ? rt::Stream::create(*ctx) : Expected<std::unique_ptr<rt::Stream>>(exe.status());
  if (!exe || !stream) {
    std::fprintf(stderr, "error: %s\n", (!exe ? exe.message() : stream.message()).c_str());
    return 1;
  }
  auto got = (*exe)->runOnHost(inputs, **stream);
  if (!got) {
    std::fprintf(stderr, "run error: %s\n", got.message().c_str());
    return 1;
  }
  bool ok = true;
  for (size_t i = 0; i < ref.size(); ++i) {
    double err = relativeError((*got)[i], ref[i]);
    std::printf("output %zu: relative error %.3g (tolerance %.0e) %s\n", i, err, tolerance,
                err < tolerance ? "OK" : "FAIL");
    ok &= err < tolerance;
  }
  return ok ? 0 : 1;
}

} // namespace tilec::example
