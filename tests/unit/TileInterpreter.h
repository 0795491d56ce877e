// A CPU interpreter of the tile stage: the graph after fusion, the tile
// lowering and the tile-level rewrites (online softmax, Welford, folded
// row scalars, exps folded into exp2, ...), each kernel's row program run
// for every row of its domain, in float with the element types' rounding
// at truncations and stores, products accumulated in double. Tests
// compare it against the reference evaluator (Reference.h): what fusion
// and the tile lowering compute (row maps of gathered rows, windows of
// slices and concatenations, epilogues, the rewrites' algebra) is checked
// on every machine; how the distribution passes spread it over threads is
// the GPU tests' part.
#pragma once

#include "tilec/Graph.h"
#include "tilec/HostTensor.h"
#include "tilec/Status.h"
#include "tilec/compiler/Compiler.h"

#include <cstdint>
#include <vector>

namespace tilec::tiletest {

/// Fresh inputs for `graph`: input j uniform in [-3, 3) from seed
/// firstSeed + j, rounded to its dtype.
std::vector<HostTensor> randomInputs(const Graph &graph, uint64_t firstSeed);

/// Lowers `graph` to the tile stage with `options` and runs it on `inputs`
/// (one a graph input, in order); an error names an op the interpreter
/// does not know, or a compile error.
Expected<std::vector<HostTensor>> runAtTileStage(const Graph &graph,
                                                 const std::vector<HostTensor> &inputs,
                                                 const CompileOptions &options = {});

} // namespace tilec::tiletest
