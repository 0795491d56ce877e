// tilec's pass declarations and registration.
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "tilec/Dialect/Graph/GraphDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include <algorithm>

namespace tilec {
#define GEN_PASS_DECL
#include "tilec/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Passes/Passes.h.inc"

/// prefetch.global.L2 of the line holding the global byte address
/// `address` (an index): the GEMM, flash and row kernels' L2 prefetches
/// (defined in DistributeGemmTiles.cpp). Returns the prefetch op.
mlir::Operation *emitL2Prefetch(mlir::OpBuilder &b, mlir::Location loc, mlir::Value address);

/// The unit attribute that lets tilec-dependent-launch pass a branch
/// around an L2 prefetch that carries it (the branch's block holding only
/// such prefetches and ops without memory effects), so the wait goes
/// after it: row-l2-prefetch-first's prefetches. Unmarked prefetches in a
/// branch keep the wait before the branch.
inline constexpr llvm::StringLiteral kAheadOfWaitAttr = "tilec.ahead_of_wait";

/// The workspace of a GEMM whose k steps are split over CTAs (split_k):
/// first an i32 counter for each unit of a tile's MMA threads (a warp, or a
/// wgmma warpgroup), 256-byte aligned; then, for each (tile, split), a slot
/// of the tile's partial sums (f32, `tileAccumulators` of them). The
/// scheduler sizes the workspace, DistributeGemmTiles lays it out.
struct GemmSplitWorkspace {
  int64_t tiles = 0, unitsPerTile = 0, splits = 1, tileAccumulators = 0;
  int64_t counterBytes() const { return (tiles * unitsPerTile * 4 + 255) / 256 * 256; }
  int64_t slotBytes() const { return tileAccumulators * 4; }
  int64_t bytes() const { return counterBytes() + tiles * splits * slotBytes(); }
};

/// The keys a flash kernel's rows may see: `keys`, or, under a causal mask
/// on its scores, those up to the mask's limit, offset + period (a cache
/// longer than its filled rows). The scheduler's split count and
/// DistributeGemmTiles' key blocks are both of these, so they agree.
inline int64_t keysSeen(tile::CausalMaskOp mask, int64_t keys) {
  if (!mask)
    return keys;
  int64_t limit = static_cast<int64_t>(mask.getOffset()) + mask.getPeriod();
  return limit > 0 ? std::min(keys, limit) : keys;
}

/// Whether `op` reduces a row tile (tile.reduce_*).
inline bool isRowReduction(mlir::Operation *op) {
  return mlir::isa<tile::ReduceSumOp, tile::ReduceMaxOp, tile::ReduceMaxSumExpOp,
                   tile::ReduceMeanM2Op>(op);
}

/// Number of row reductions in a tile kernel: they decide whether a row
/// must live in one CTA.
inline int64_t countRowReductions(mlir::Operation *kernel) {
  int64_t n = 0;
  kernel->walk([&](mlir::Operation *op) { n += isRowReduction(op); });
  return n;
}

/// The tensors whose whole rows a streamed row kernel of `cols` columns can
/// keep in shared memory (stream-shared): sources of plain row loads
/// (`[rows, cols]`, a row index, no window), each once, in program order.
/// The scheduler sizes shared_bytes and DistributeRowTiles lays out the
/// buffers from this one list.
inline llvm::SmallVector<mlir::Value> stagedRowInputs(mlir::Operation *kernel, int64_t cols) {
  llvm::SmallVector<mlir::Value> inputs;
  kernel->walk([&](tile::LoadOp load) {
    auto m = mlir::cast<mlir::MemRefType>(load.getSource().getType());
    if (load.getRow() && !load.getColOffsetAttr() && m.getRank() == 2 &&
        m.getShape().back() == cols && mlir::isa<mlir::RankedTensorType>(load.getType()) &&
        !llvm::is_contained(inputs, load.getSource()))
      inputs.push_back(load.getSource());
  });
  return inputs;
}

/// The row inputs a row-loop kernel can prefetch into shared memory
/// (row-prefetch): stagedRowInputs whose loads all index the kernel's own
/// row (tile.row_id), so the copy for a later row block knows its rows.
inline llvm::SmallVector<mlir::Value> prefetchedRowInputs(mlir::Operation *kernel, int64_t cols) {
  llvm::SmallVector<mlir::Value> inputs;
  for (mlir::Value source : stagedRowInputs(kernel, cols)) {
    bool ownRow = llvm::all_of(source.getUsers(), [](mlir::Operation *user) {
      auto load = mlir::dyn_cast<tile::LoadOp>(user);
      return load && load.getRow() && load.getRow().getDefiningOp<tile::RowIdOp>();
    });
    if (ownRow)
      inputs.push_back(source);
  }
  return inputs;
}

/// The vectors shared by every row that a row kernel of `cols` columns can
/// copy into shared memory at its start (stage-weights: weights, biases):
/// sources of whole-row tile loads of a `[cols]` buffer without a row
/// index or window, each once, in program order.
inline llvm::SmallVector<mlir::Value> stagedWeights(mlir::Operation *kernel, int64_t cols) {
  llvm::SmallVector<mlir::Value> inputs;
  kernel->walk([&](tile::LoadOp load) {
    auto m = mlir::cast<mlir::MemRefType>(load.getSource().getType());
    if (!load.getRow() && !load.getColOffsetAttr() && m.getRank() == 1 &&
        m.getShape().back() == cols && mlir::isa<mlir::RankedTensorType>(load.getType()) &&
        !llvm::is_contained(inputs, load.getSource()))
      inputs.push_back(load.getSource());
  });
  return inputs;
}

/// Replaces each `reduce_sum(exp(x - splat(reduce_max(x))))` of a row
/// kernel and its reduce_max by one tile.reduce_max_sum_exp; returns how
/// many it formed.
int64_t formOnlineSoftmax(mlir::func::FuncOp kernel);

/// Replaces each `reduce_sum(d * d)`, d = x - splat(reduce_sum(x) / W), of
/// a row kernel (W the tile's width) and the mean's reduce_sum by one
/// tile.reduce_mean_m2 (Chan/Welford pair); returns how many it formed.
int64_t formWelford(mlir::func::FuncOp kernel);

/// Marks a row kernel whose read-only buffers are to be declared noalias
/// and readonly (readonly-inputs): DistributeRowTiles turns it into
/// kReadonlyParamsAttr on the gpu.func, the LLVM parameter indices of those
/// buffers' aligned pointers, which tilec-mark-tma-params applies once the
/// memrefs are expanded into parameters.
inline constexpr llvm::StringLiteral kReadonlyInputsAttr = "tile.readonly_inputs";
inline constexpr llvm::StringLiteral kReadonlyParamsAttr = "tile.readonly_params";

/// Under fast math, applies a row kernel's scalars once instead of once an
/// element (tilec-fold-row-scalars): x / splat(s) as x * splat(1 / s), and
/// (x - splat(m)) * splat(r) and exp(x - splat(m)) as one FMA, exp2(y) /
/// splat(s) as exp2(y - log2 s), and online-softmax pairs marked
/// kFoldedShiftAttr (these two with `intoExps`), where the results are
/// 16-bit (or always, `all`). Returns how many it folded.
int64_t foldRowScalars(mlir::func::FuncOp kernel, bool all, bool intoExps);

/// Marks a tile.reduce_max_sum_exp (base e) whose exps may be taken as
/// exp2(x L - m L), L = log2 e, one FMA an element with m L once a thread
/// (foldRowScalars (e): its subtraction contracts, and its sum and exps
/// reach only 16-bit results).
inline constexpr llvm::StringLiteral kFoldedShiftAttr = "tile.folded_shift";

/// Moves the loads (and the conversions only they feed) of a row kernel
/// whose first use lies past a reduction to just before that use, never
/// past a store: shorter register lives for weights and biases. Returns
/// how many ops moved.
int64_t sinkLoadsPastReductions(mlir::func::FuncOp kernel);

/// The attribute that marks a widening rewidenPastReductions made: the
/// row distribution lowers it through integer ops (bf16 bits shifted into
/// an f32's top half), which LLVM does not merge with the first widening.
inline constexpr llvm::StringLiteral kRewidenAttr = "tile.rewiden";

/// Keeps a loaded bf16 row packed across the reductions: each widening of
/// a loaded bf16 tile used both before and after a reduction is cloned
/// before its first use past that reduction (marked kRewidenAttr), so the
/// f32 copy need not live across it (16 registers for 32 values instead of
/// 32). Returns how many widenings it cloned.
int64_t rewidenPastReductions(mlir::func::FuncOp kernel);

/// Marks an f32 math.exp or math.exp2 under fast math (`afn`) whose results
/// below 2^-126 may read as zero: tilec-approx-math emits it as
/// ex2.approx.ftz (one SASS instruction; the IEEE form wraps MUFU.EX2 in a
/// scale into and out of the subnormal range, and holds more registers).
inline constexpr llvm::StringLiteral kFlushExpAttr = "tile.flush_exp";

/// Marks a tile.reduce_max_sum_exp whose input is a widened bf16 row that
/// stays packed: the row distribution takes each thread's max on the
/// packed bf16 vectors and widens each vector again for its exps, so no
/// f32 copy of the row is live between the two.
inline constexpr llvm::StringLiteral kPackedMaxAttr = "tile.packed_max";

/// The gpu.module every distribution pass puts its kernels in
/// (@tilec_kernels, at the end of `module`, which becomes a container
/// module), created by the first pass that needs it.
inline mlir::gpu::GPUModuleOp kernelModule(mlir::ModuleOp module) {
  module->setAttr(mlir::gpu::GPUDialect::getContainerModuleAttrName(),
                  mlir::UnitAttr::get(module.getContext()));
  for (auto g : module.getOps<mlir::gpu::GPUModuleOp>())
    if (g.getName() == "tilec_kernels")
      return g;
  mlir::OpBuilder mb = mlir::OpBuilder::atBlockEnd(module.getBody());
  return mb.create<mlir::gpu::GPUModuleOp>(module.getLoc(), "tilec_kernels");
}

/// A kernel that swaps dims d0 and the last of its input (LowerFusionToTile,
/// a lone transpose that folds into no matmul): `array<i64: O, K, M, L>`,
/// the input viewed as [O, K, M, L] (K = dim d0, L the last dim, O and M
/// the dims before and between them) and the output as [O, L, M, K]. Its
/// body reads each output row as a strided row of the input; the scheduler
/// may instead give it tiles (kTransposeTilesAttr).
inline constexpr llvm::StringLiteral kTransposeAttr = "tile.transpose";
/// Set by tilec-schedule-row-kernels on a kTransposeAttr kernel it gives
/// tiles through shared memory (tile.schedule: tile_k, tile_l,
/// word_elements, threads, grid): tilec-distribute-transpose-tiles lowers
/// it, not tilec-distribute-row-tiles.
inline constexpr llvm::StringLiteral kTransposeTilesAttr = "tile.transpose_tiles";

/// In a row kernel, each online-softmax pair over a widened bf16 row that
/// also gives its exp tile gives only (max, sum); the tile's users take
/// exp(x - M) made again past the reduction from the packed row (widened
/// with kRewidenAttr), and the pair is marked kPackedMaxAttr. Only the
/// packed row (half the registers) lives across the reduction, at one more
/// exp an element. Under fast math these exps (the pair's and the new
/// ones) are kFlushExpAttr. With `onlyFastMath`, pairs without `afn` are
/// left alone. With `contract`, each new x - M takes the `contract` the
/// pair kept from softmax's subtraction (for foldRowScalars' intoExps).
/// Returns how many pairs it rewrote.
int64_t recomputeExpsPastReduction(mlir::func::FuncOp kernel, bool onlyFastMath = false,
                                   bool contract = false);
} // namespace tilec
