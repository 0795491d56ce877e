// The tilec compiler API: DSL graph -> graph dialect -> fusion -> tile ->
// gpu -> LLVM/NVVM -> PTX, with every stage printable.
#pragma once

#include "tilec/Graph.h"
#include "tilec/Status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class MLIRContext;
class ModuleOp;
} // namespace mlir

namespace tilec {

enum class Stage { Graph, Fused, Tile, Gpu, Llvm, Ptx };

/// "graph" | "fused" | "tile" | "gpu" | "llvm" | "ptx".
Expected<Stage> parseStage(const std::string &name);

struct CompileOptions {
  /// sm_80, sm_89 or sm_90a.
  std::string target = "sm_90a";
  /// Where libdevice (nvvm/libdevice) lives; $TILEC_CUDA_ROOT overrides.
  std::string cudaRoot;
  /// Print the IR after every pass to stderr.
  bool printIRAfterAll = false;
  /// Round f16/bf16 results after every op, as eager PyTorch does. Off by
  /// default: inside a kernel 16-bit values are kept in f32 and rounded
  /// where they are stored or explicitly cast (XLA's and TorchInductor's
  /// default "excess precision").
  bool roundEveryOp = false;
  /// Approximate exp, log, tanh and f32 division (the hardware's ex2.approx,
  /// lg2.approx, tanh.approx, div.approx: a few ulp, as Triton's tl.exp and
  /// fast-math CUDA). Off: libdevice's correctly rounded versions.
  bool fastMath = true;
  /// Under fast math, f32 arithmetic flushes subnormal inputs and results
  /// to zero (the PTX `.ftz` forms, tilec-flush-subnormals), as nvcc
  /// --use_fast_math does: ex2.approx and div.approx are then one SASS
  /// instruction each instead of four, and values below 2^-126 (1.2e-38)
  /// read and write as zero. Off by default: on the H200 it measured 0.84x
  /// to 1.02x the IEEE kernels (docs/perf.md, fourteenth session; the row
  /// kernels are not bound by their instructions). Ignored under precise
  /// math.
  bool flushSubnormals = false;
  /// Options of the scheduling pass, space separated, as tilec-opt takes
  /// them: e.g. "max-chunks-per-thread=4 max-threads-per-block=1024".
  /// Empty: the scheduler's defaults.
  std::string scheduleOptions;
  /// Where Executable::compile keeps compiled programs between processes
  /// (ProgramCache.h): "off" for nowhere; empty: $TILEC_CACHE_DIR if set
  /// (empty or "off" there disables it too), else $XDG_CACHE_HOME/tilec,
  /// else $HOME/.cache/tilec. Not part of a program's key.
  std::string cacheDir;
  /// Programmatic dependent launch (sm_90 and later; ignored before): each
  /// kernel waits for the kernel ahead of it in the stream at its first
  /// instruction (griddepcontrol.wait), so the runtime may launch it while
  /// that kernel finishes, hiding the launch and the CTAs' dispatch behind
  /// the tail of the previous one. Off: plain stream order.
  bool dependentLaunch = true;
  /// Attention (nn::attention) as one flash-attention kernel: the scores
  /// and probabilities stay in registers, the softmax is computed online
  /// over blocks of keys (tilec-fuse{attention}, DistributeGemmTiles'
  /// runFlash). Unset (the default): by shape, flash where the query rows
  /// of a batch are at least 256, the keys at least 4096, the keys at
  /// least 2048 over 64 rows or more, or at least 512 over at most 16 rows
  /// (three kernels were measured faster elsewhere: 64 rows over short
  /// caches; docs/perf.md); true: always
  /// where the graph allows; false: never, attention is three kernels (the
  /// scores GEMM, the softmax, the second GEMM).
  std::optional<bool> fuseAttention;
  /// More options of tilec-fuse (e.g. "sink-tails=false"), for experiments.
  std::string fuseOptions;
};

/// Whether `options` compile kernels for programmatic dependent launch (the
/// option is on and the target has griddepcontrol: sm_90, sm_90a).
bool usesDependentLaunch(const CompileOptions &options);

/// Checks the target name; the error lists the supported ones.
Status validateTarget(const std::string &target);

/// Every dialect, interface and translation the pipeline needs.
void registerTilecDialects(mlir::DialectRegistry &registry);
/// Registers tilec's passes and the upstream ones its pipeline names.
void registerAllTilecPasses();


/// Lowers `module` (at the graph stage) in place up to `stage`. Diagnostics
/// are returned in the Status message.
Status lowerToStage(mlir::ModuleOp module, Stage stage,
                    const CompileOptions &options);

/// The PTX text in a module lowered to Stage::Ptx.
Expected<std::string> extractPTX(mlir::ModuleOp module);

/// One kernel argument, as the kernel's signature takes it: a memref
/// descriptor of a buffer seen as [rows, cols], [cols] or a scalar.
struct KernelBuffer {
  enum class Kind { Rows, SharedVector, Scalar, StridedRows } kind = Kind::Rows;
  int64_t cols = 1;  // Rows: elements per row; SharedVector: length
  std::vector<int64_t> dims; // StridedRows: [outer, reduced, inner]
  int value = -1;    // the program value bound to it (see CompiledProgram)
};

/// A TMA tensor map a GEMM launch passes by value after its buffers: the
/// tensor bound to `buffer` (an index into the launch's buffers) viewed as
/// `dims`, copied in boxes of `box` (both outer first).
struct TensorMapPlan {
  int buffer = 0;
  std::vector<int64_t> dims, box;
};

struct KernelLaunchPlan {
  std::string name;
  int64_t rows = 1; // rows of the row domain
  int64_t vectorWidth = 1, threadsPerRow = 1, rowsPerBlock = 1, chunks = 1;
  int64_t colBlocks = 1; // CTAs sharing one row (without reductions, or a cluster's)
  int64_t streamBlocks = 0; // > 0: the row is streamed in this many blocks
  // GEMM kernels: a 1-D grid of CTA tiles, their threads and dynamic shared
  // memory come from the schedule.
  bool gemm = false;
  // A GEMM kernel that is flash attention (tile.attention): splitK counts
  // the CTAs its keys are split over.
  bool attention = false;
  int64_t fixedGrid = 0, fixedBlock = 0, sharedBytes = 0;
  // Persistent GEMM kernels loop over the fixedGrid tiles: launched with at
  // most one CTA per SM.
  bool persistent = false;
  // TMA GEMMs whose output goes through shared memory and TMA stores (its
  // tensor map is the last of tensorMaps).
  bool tmaStore = false;
  // CTAs a cluster (compiled into the kernel; the grid is a multiple): GEMM
  // block rows sharing B panels, or row kernels' CTAs of one row.
  int64_t clusterM = 1;
  // GEMMs whose k steps are split over splitK CTAs a tile: the bytes of
  // their workspace (partial sums and counters), zeroed once when the
  // Executable is made (each launch leaves its counters at zero), passed
  // after the buffers.
  int64_t splitK = 1, workspaceBytes = 0;
  // GEMM and flash kernels: the bytes of their weights (k and v) each CTA
  // prefetches into L2 before anything else (gemm-l2-prefetch,
  // attention-l2-prefetch; under dependent launch, ahead of the wait).
  int64_t l2PrefetchBytes = 0;
  // Row kernels: each CTA prefetches into L2 its slice of the row inputs'
  // row block this many blocks ahead (row-l2-prefetch); 0: none.
  int64_t l2PrefetchRows = 0;
  // The CTAs of the first l2PrefetchRows row blocks (every CTA, where
  // l2PrefetchRows is 0) prefetch their own slices, ahead of the
  // dependent-launch wait (row-l2-prefetch-first).
  bool l2PrefetchFirst = false;
  // The kernel starts with griddepcontrol.wait (tilec-dependent-launch): it
  // may be launched with programmatic stream serialization.
  bool dependentLaunch = false;
  // Row kernels that loop over their row blocks (row_loop): launched with
  // at most the CTAs that fit on the GPU at once.
  bool rowLoop = false;
  // Row-loop kernels that copy the row blocks ahead into a ring of this
  // many stages of dynamic shared memory (sharedBytes; row-prefetch); 0: none.
  int64_t prefetchStages = 0;
  // Row kernels whose weight and bias vectors are copied into shared memory
  // (sharedBytes) at the start (stage-weights).
  bool stagedWeights = false;
  // Transposes through shared-memory tiles (a fixedGrid of CTAs, one a tile
  // of tileK x tileL elements); 0 for other kernels.
  int64_t transposeTileK = 0, transposeTileL = 0;
  std::vector<KernelBuffer> buffers; // inputs, then outputs
  std::vector<TensorMapPlan> tensorMaps; // TMA GEMM kernels, after the buffers
  int64_t gridSize() const {
    if (fixedGrid > 0)
      return fixedGrid;
    return (rows + rowsPerBlock - 1) / rowsPerBlock * colBlocks;
  }
  int64_t blockSize() const {
    return fixedBlock > 0 ? fixedBlock : threadsPerRow * rowsPerBlock;
  }
};

/// A value the program moves through device memory.
struct ProgramValue {
  enum class Kind { Input, Output, Temporary } kind = Kind::Temporary;
  int index = 0; // position among inputs or outputs
  Shape shape;
  DType dtype = DType::F32;
  // >= 0: an output that no kernel writes, a device copy of values[copyOf]
  // made after the kernels: an input returned as is (or a view of one), or
  // a tensor returned twice (or two views of it).
  int copyOf = -1;
  // >= 0: an output that starts as values[inPlaceOf], an input (its
  // update_slice's buffer), of which the kernels write only the updated
  // rows: the run copies the input into it first, unless the caller passed
  // the input's own buffer as this output (donated: updated in place).
  int inPlaceOf = -1;
};

struct FusionReport {
  std::string kernel;
  std::vector<std::string> ops; // graph op names in the fusion
  int64_t hbmBytesSaved = 0;
  std::string domain; // "[8192, 4096]"
  /// Where the fusion computes an attention's output and the choice of
  /// flash or three kernels was made by shape: which, and why.
  std::string attentionChoice;
};

/// A graph compiled to PTX plus the launches that run it.
struct CompiledProgram {
  std::string name;
  std::string target;
  std::string ptx;
  std::vector<ProgramValue> values;
  std::vector<KernelLaunchPlan> launches;
  std::vector<FusionReport> fusions;
  int64_t graphOps = 0; // operators before fusion (constants excluded)
};

/// Compiles `graph` (CPU only: no GPU needed).
Expected<CompiledProgram> compileGraph(const Graph &graph,
                                       const CompileOptions &options = {});

/// Prints the fusion groups and the HBM bytes each saves.
std::string explainFusion(const CompiledProgram &program);

} // namespace tilec
