// The CPU reference evaluator: the oracle for every numeric test.
//
// It interprets a Graph node by node in double precision, rounding each node's
// result to the node's dtype (so a cast to bf16 rounds as the GPU does, while
// reductions accumulate in double).
#pragma once

#include "tilec/Graph.h"
#include "tilec/HostTensor.h"

#include <vector>

namespace tilec {

/// Evaluates `graph` on `inputs` (in graph.inputs() order) and returns the
/// outputs in graph.outputs() order. Throws tilec::Error when an input's
/// shape or dtype differs from the graph's declaration. A graph with
/// symbolic dims is bound to the inputs' shapes first (Graph::bindingsFor).
std::vector<HostTensor> evaluateReference(const Graph &graph,
                                          const std::vector<HostTensor> &inputs);

} // namespace tilec
