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

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <vector>

namespace tilec::tiletest {

/// Fresh inputs for `graph`: input j uniform in [-3, 3) from seed
/// firstSeed + j, rounded to its dtype.
std::vector<HostTensor> randomInputs(const Graph &graph, uint64_t firstSeed);

/// Inputs for examples::buildDecoderLayer's graph of `tokens` new tokens
/// after `past`: random (randomInputs), the weights scaled by 1 / sqrt(fan-in)
/// as a model's are. (The graph's causal mask is computed, not an input:
/// row j of a group's rows is token j % tokens, which sees the past and
/// the new tokens up to itself.)
std::vector<HostTensor> decoderLayerInputs(const Graph &graph, int64_t tokens, int64_t past,
                                           uint64_t firstSeed);

/// Imports `graph` into `ctx`, lowers it to the tile stage with `options`
/// and plans its launches as compileGraph does (planLaunches) into
/// `program`: what the interpreter and the GPU-stage simulator run.
Expected<mlir::OwningOpRef<mlir::ModuleOp>> lowerAndPlan(mlir::MLIRContext &ctx,
                                                         const Graph &graph,
                                                         const CompileOptions &options,
                                                         CompiledProgram &program);

/// Lowers `graph` to the tile stage with `options` and runs it on `inputs`
/// (one a graph input, in order); an error names an op the interpreter
/// does not know, or a compile error.
Expected<std::vector<HostTensor>> runAtTileStage(const Graph &graph,
                                                 const std::vector<HostTensor> &inputs,
                                                 const CompileOptions &options = {});

} // namespace tilec::tiletest
