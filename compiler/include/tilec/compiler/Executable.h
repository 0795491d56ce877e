// A compiled graph loaded on a GPU: its kernels, temporaries and launches.
#pragma once

#include "tilec/HostTensor.h"
#include "tilec/compiler/Compiler.h"
#include "tilec/compiler/ProgramCache.h"
#include "tilec/runtime/Cuda.h"

#include <memory>
#include <vector>

namespace tilec {

class Executable {
public:
  /// Compiles `graph` for `options.target` and JIT-loads its PTX on `ctx`.
  /// Compiled programs are cached in memory by the graph's structure and
  /// target, and loaded modules by context and PTX, so compiling an equal
  /// graph again costs neither MLIR nor the driver's JIT. Programs are
  /// also kept on disk (options.cacheDir; compileGraphCached), for the
  /// next process.
  static Expected<std::shared_ptr<Executable>>
  compile(const Graph &graph, const std::shared_ptr<rt::Context> &ctx,
          const CompileOptions &options = {});

  /// Compiles `graph` with its symbolic dims (symbolDim) bound to the
  /// sizes inputs of `inputShapes` (in graph input order) give them
  /// (Graph::bindingsFor); a graph without symbols compiles as is. Bound
  /// programs and loaded modules are cached like compile()'s: a size seen
  /// before costs a lookup, and a new size whose kernels' PTX is the same
  /// (a row kernel's PTX does not depend on its row count unless the
  /// schedule does) reuses the loaded module.
  static Expected<std::shared_ptr<Executable>>
  compileFor(const Graph &graph, const std::vector<Shape> &inputShapes,
             const std::shared_ptr<rt::Context> &ctx, const CompileOptions &options = {});

  /// Loads a compiled program on `ctx`: compileGraph's, or one read back
  /// by deserializeProgram (compiled ahead of time, on a machine without a
  /// GPU, say, by this build of tilec: the launch plans are read as this
  /// build writes them). Modules are cached by context and PTX, as
  /// compile() does.
  static Expected<std::shared_ptr<Executable>>
  load(const std::shared_ptr<const CompiledProgram> &program,
       const std::shared_ptr<rt::Context> &ctx);

  const CompiledProgram &program() const { return *program_; }
  size_t kernelCount() const { return kernels_.size(); }

  /// Launches every kernel on `stream` (asynchronously). Buffers are given
  /// in graph input/output order and must hold at least each tensor's bytes.
  /// The temporaries and split-k workspaces are the Executable's own: runs
  /// on several streams at once need an Executable each.
  Status run(const std::vector<const rt::DeviceBuffer *> &inputs,
             const std::vector<rt::DeviceBuffer *> &outputs, rt::Stream &stream);

  /// Copies `inputs` to the device, poisons the outputs with NaN, runs,
  /// synchronizes and returns the outputs.
  Expected<std::vector<HostTensor>> runOnHost(const std::vector<HostTensor> &inputs,
                                              rt::Stream &stream);

private:
  std::shared_ptr<rt::Context> ctx_;
  std::shared_ptr<const CompiledProgram> program_;
  std::vector<rt::Kernel> kernels_;
  // Per kernel: the most CTAs to launch (row-loop kernels: the CTAs that fit
  // on the GPU at once), 0 for no limit.
  std::vector<int64_t> gridCaps_;
  std::vector<rt::DeviceBuffer> temporaries_; // by program value id (or empty)
  std::vector<int64_t> valueBytes_, valueElements_; // by program value id, once
  std::vector<int> donorOf_; // by output: the input updated in place into it, or -1
  // Split-k GEMMs' workspaces, by launch (or empty): zeroed at creation.
  std::vector<rt::DeviceBuffer> workspaces_;
  size_t numInputs_ = 0, numOutputs_ = 0;     // counted once, checked per run
};

/// Compiles `graph` and loads it on `ctx`: shorthand for Executable::compile.
inline Expected<std::shared_ptr<Executable>>
compile(const Graph &graph, const std::shared_ptr<rt::Context> &ctx,
        const CompileOptions &options = {}) {
  return Executable::compile(graph, ctx, options);
}

} // namespace tilec
