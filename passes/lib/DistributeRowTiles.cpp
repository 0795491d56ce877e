// tilec-distribute-row-tiles: lowers scheduled tile kernels to gpu.func.
//
// Thread t of a CTA works on row blockIdx.x * rows_per_block + t / TPR and
// holds, for lane = t % TPR, the vectors starting at columns
// (k * TPR + lane) * V for k < chunks. Row tiles become those vectors in
// registers; elementwise ops apply per vector; reductions combine the vectors,
// then lanes by butterfly shuffles, then warps through shared memory. Loads
// and stores past the row's end or the last row are masked.
//
// With `cluster` = C (sm_90a), the C CTAs of a thread-block cluster share a
// row, each holding one column block; after the reduction within each CTA,
// the CTAs exchange their partials through distributed shared memory
// (reduceAcrossCluster) and combine them in rank order, so all get bitwise
// the same result.
//
// tile.reduce_max_sum_exp (online softmax) reduces the pair (max, sum of
// exp(x - max)) at every level in the same single round: partial pairs
// combine as (M, s1 exp(m1 - M) + s2 exp(m2 - M)), M = max(m1, m2). Its
// optional exp tile (exp(x - M)) is, for rows in registers, each thread's
// exp(x - m_t) (m_t its own max, the exps its partial sum was made of)
// times exp(m_t - M) once M is known: one exp an element, not two. Streamed
// rows recompute exp(x - M) in their store pass.
//
// tile.reduce_mean_m2 (layer_norm's mean and squared deviations, the
// Chan/Welford pair) likewise reduces triples (count, mean, M2) in one
// round: each thread's from its own elements in two exact passes (mean,
// then squared deviations from it), then combined pairwise (combineMeanM2).
// Counts are f32 values; where every thread of every block covers the same
// number of elements they are compile-time constants, never shuffled or
// stored, and the combines fold to a few multiplies and adds.
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

#include <cmath>
#include <functional>
#include <limits>

namespace tilec {
#define GEN_PASS_DEF_DISTRIBUTEROWTILES
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

constexpr int64_t kWarpSize = 32;

struct RowSchedule {
  int64_t vec = 1, tpr = 1, rowsPerBlock = 1, chunks = 1, cols = 1, colBlocks = 1;
  // > 0: rows too wide for registers; each thread loops over this many
  // column blocks of `chunks` vectors, once per reduction and once for the
  // stores, recomputing what it needs from memory each time.
  int64_t streamBlocks = 0;
  // > 1: the col_blocks CTAs of a row form a cluster of this many CTAs.
  int64_t cluster = 1;
  // stream-shared: the first pass keeps the row inputs it loads in dynamic
  // shared memory (shared_bytes), later passes read them there.
  bool streamShared = false;
  int64_t sharedBytes = 0;
  // row_loop: a grid of fewer CTAs than row blocks (the runtime sizes it to
  // the CTAs that fit at once); each CTA loops over row blocks blockIdx.x,
  // blockIdx.x + gridDim.x, ..., loading the vectors shared by all rows
  // once.
  bool rowLoop = false;
  // prefetch (row_loop only): stages of the shared-memory ring the row
  // inputs of the blocks ahead are copied into (cp.async); 0: none.
  int64_t prefetch = 0;
  // staged_weights: the weight and bias vectors come through shared memory,
  // copied at the kernel's start.
  bool stagedWeights = false;
  // l2_prefetch_rows = D > 0: once its own row's loads are out, a CTA
  // prefetches into L2 its column slice of each row input's row block D
  // blocks ahead (prefetchRowsAhead).
  int64_t l2PrefetchRows = 0;
  // l2_prefetch_first: the CTAs of the first D row blocks, which no CTA
  // ahead prefetches for, prefetch their own slices too, first
  // (prefetchRowsAhead with 0 blocks ahead); without rows ahead (D = 0)
  // every CTA does.
  bool l2PrefetchFirst = false;
  bool streaming() const { return streamBlocks > 0; }
  // Vectors of one row covered by one column block of the CTA.
  int64_t blockVectors() const { return chunks * tpr; }
  int64_t blockSize() const { return tpr * rowsPerBlock; }
  int64_t warpsPerRow() const { return tpr > kWarpSize ? tpr / kWarpSize : 1; }
};

FailureOr<RowSchedule> readSchedule(func::FuncOp fn) {
  auto dict = fn->getAttrOfType<DictionaryAttr>("tile.schedule");
  auto domain = fn->getAttrOfType<DenseI64ArrayAttr>("tile.domain");
  if (!dict || !domain)
    return fn.emitOpError("tile kernel is not scheduled (run tilec-schedule-row-kernels)");
  auto get = [&](StringRef key) -> int64_t {
    auto a = dict.getAs<IntegerAttr>(key);
    return a ? a.getInt() : 0;
  };
  RowSchedule s{get("vector_width"), get("threads_per_row"), get("rows_per_block"),
                get("chunks"), domain.asArrayRef().back(), std::max<int64_t>(1, get("col_blocks")),
                get("stream_blocks"), std::max<int64_t>(1, get("cluster"))};
  s.streamShared = get("stream_shared") != 0;
  s.sharedBytes = get("shared_bytes");
  s.rowLoop = get("row_loop") != 0;
  s.prefetch = get("prefetch");
  s.stagedWeights = get("staged_weights") != 0;
  s.l2PrefetchRows = get("l2_prefetch_rows");
  s.l2PrefetchFirst = get("l2_prefetch_first") != 0;
  if (s.l2PrefetchRows < 0 ||
      ((s.l2PrefetchRows > 0 || s.l2PrefetchFirst) && (s.rowLoop || s.streamBlocks > 0)))
    return fn.emitOpError("invalid tile.schedule ")
           << dict
           << ": l2_prefetch_rows and l2_prefetch_first need rows in registers (no row loop, "
              "no streaming)";
  if (s.stagedWeights && (s.rowLoop || s.streaming() || s.colBlocks != 1 ||
                          s.rowsPerBlock != 1 || s.sharedBytes <= 0))
    return fn.emitOpError("invalid tile.schedule ")
           << dict << ": staged_weights needs one row a CTA in registers and its shared_bytes";
  if (s.prefetch != 0 && (!s.rowLoop || s.prefetch < 2 || s.sharedBytes <= 0))
    return fn.emitOpError("invalid tile.schedule ")
           << dict << ": prefetch needs row_loop, at least 2 stages and their shared_bytes";
  if (s.rowLoop && (s.streaming() || s.colBlocks != 1 || s.cluster != 1))
    return fn.emitOpError("invalid tile.schedule ")
           << dict << ": row_loop needs whole rows in registers (no streaming, one CTA a row)";
  if (s.streamShared && (!s.streaming() || s.sharedBytes <= 0))
    return fn.emitOpError("invalid tile.schedule ")
           << dict << ": stream_shared needs a streamed row and its shared_bytes";
  int64_t covered = std::max<int64_t>(1, s.streamBlocks) * s.colBlocks * s.chunks * s.tpr * s.vec;
  bool reduces = countRowReductions(fn) > 0;
  // A cluster holds exactly the CTAs of one row (the grid is rows x C) and
  // exists to combine reductions; at most 16 CTAs (above 8, sm_90's
  // non-portable sizes: the runtime opts the kernel in).
  if (s.cluster > 1 && (s.cluster > 16 || s.cluster != s.colBlocks || s.rowsPerBlock != 1 ||
                        !reduces))
    return fn.emitOpError("invalid tile.schedule ")
           << dict << ": a cluster must be at most 16 CTAs, equal to col_blocks, "
           << "with rows_per_block 1, in a kernel with reductions";
  if (s.vec < 1 || s.tpr < 1 || s.rowsPerBlock < 1 || s.chunks < 1 ||
      s.cols % s.vec != 0 || covered < s.cols || s.streamBlocks < 0 ||
      (s.streaming() && s.colBlocks != s.cluster) ||
      (s.colBlocks > 1 && ((reduces && s.cluster == 1) || s.rowsPerBlock != 1)) ||
      (s.tpr > kWarpSize && s.tpr % kWarpSize != 0) ||
      (s.tpr < kWarpSize && kWarpSize % s.tpr != 0))
    return fn.emitOpError("invalid tile.schedule ") << dict << " for rows of " << s.cols;
  return s;
}

class RowTileDistributor {
public:
  RowTileDistributor(func::FuncOp fn, RowSchedule s) : fn(fn), s(s) {}

  LogicalResult run(OpBuilder &moduleBuilder) {
    MLIRContext *ctx = fn.getContext();
    int64_t reductions = countRowReductions(fn);
    // One warp buffer and one cluster slot per reduced value (a pair
    // reduction has two, synchronised together).
    int64_t reducedValues = 0;
    fn.walk([&](Operation *op) {
      if (isa<tile::ReduceSumOp, tile::ReduceMaxOp>(op))
        reducedValues += 1;
      else if (isa<tile::ReduceMaxSumExpOp>(op))
        reducedValues += 2; // (the exp tile is not reduced)
      else if (isa<tile::ReduceMeanM2Op>(op))
        reducedValues += 3; // (the count only where it is not a constant)
    });
    auto workgroupBuffer = [&](int64_t size) {
      return MemRefType::get({size}, Float32Type::get(ctx), AffineMap(),
                             gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
    };
    // Per reduction: the warps' partials, then (clusters) the CTA's partial.
    SmallVector<Type> workgroup;
    if (s.tpr > kWarpSize)
      workgroup.assign(reducedValues, workgroupBuffer(s.rowsPerBlock * s.warpsPerRow()));
    if (s.cluster > 1)
      workgroup.append(reducedValues, workgroupBuffer(1));
    clusterReductionsLeft = s.cluster > 1 ? reductions : 0;
    auto gfn = moduleBuilder.create<gpu::GPUFuncOp>(
        fn.getLoc(), fn.getName(), fn.getFunctionType(), workgroup, TypeRange());
    gfn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), moduleBuilder.getUnitAttr());
    gfn.setKnownBlockSizeAttr(moduleBuilder.getDenseI32ArrayAttr(
        {static_cast<int32_t>(s.blockSize()), 1, 1}));
    if (s.cluster > 1) // .reqnctapercluster: a plain launch forms the clusters
      gfn->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                   moduleBuilder.getDenseI32ArrayAttr({static_cast<int32_t>(s.cluster), 1, 1}));
    for (StringRef attr : {"tile.schedule", "tile.domain"})
      gfn->setAttr(attr, fn->getAttr(attr));
    if (auto maxRegs = fn->getAttrOfType<IntegerAttr>("tile.max_registers"))
      gfn->setAttr("nvvm.maxnreg", // NVVM::NVVMDialect::getMaxnregAttrName()
                   moduleBuilder.getI32IntegerAttr(maxRegs.getInt()));
    if (fn->hasAttr(tilec::kReadonlyInputsAttr))
      gfn->setAttr(tilec::kReadonlyParamsAttr,
                   moduleBuilder.getDenseI64ArrayAttr(readonlyParams()));
    Block &entry = gfn.getBody().front();
    for (auto [from, to] : llvm::zip(fn.getArguments(), entry.getArguments()))
      scalars.map(from, to);
    auto attributions = gfn.getWorkgroupAttributions();
    size_t warpBuffers = s.tpr > kWarpSize ? reducedValues : 0;
    smem.assign(attributions.begin(), attributions.begin() + warpBuffers);
    clusterSmem.assign(attributions.begin() + warpBuffers, attributions.end());

    b = std::make_unique<OpBuilder>(OpBuilder::atBlockEnd(&entry));
    if (failed(buildPreamble(entry)))
      return failure();
    if (s.streaming()) {
      if (s.streamShared && failed(stageRowInputs()))
        return failure();
      return runStreaming();
    }
    if (s.rowLoop)
      return runRowLoop();
    for (Operation &op : fn.getBody().front())
      if (failed(lower(op)))
        return failure();
    return success();
  }

  /// The LLVM parameters (once convert-gpu-to-nvvm expands each memref
  /// into allocated and aligned pointers, offset, sizes and strides) of the
  /// aligned pointers of the memrefs the kernel only loads from.
  SmallVector<int64_t> readonlyParams() {
    // (Directly, or through the selects that pick a concatenation's piece.)
    std::function<bool(Value)> onlyLoadedFrom = [&](Value v) {
      return llvm::all_of(v.getUsers(), [&](Operation *u) {
        if (auto select = dyn_cast<arith::SelectOp>(u))
          return select.getCondition() != v && onlyLoadedFrom(select.getResult());
        return isa<tile::LoadOp>(u);
      });
    };
    SmallVector<int64_t> params;
    int64_t next = 0;
    for (BlockArgument arg : fn.getArguments()) {
      auto memref = dyn_cast<MemRefType>(arg.getType());
      if (!memref) {
        next += 1;
        continue;
      }
      if (!arg.use_empty() && onlyLoadedFrom(arg))
        params.push_back(next + 1);
      next += 3 + 2 * memref.getRank();
    }
    return params;
  }

  /// Rows too wide for registers: tiles are not kept. Each reduction becomes
  /// a loop over column blocks that recomputes, from memory, the tiles it
  /// needs (re-reading inputs); all tile stores share one last loop (nothing
  /// in a tile program reads what it stores, so they can wait).
  LogicalResult runStreaming() {
    SmallVector<tile::StoreOp> tileStores;
    for (Operation &op : fn.getBody().front()) {
      // (Before the tile check: a pair may also give its exp tile.)
      if (isa<tile::ReduceSumOp, tile::ReduceMaxOp, tile::ReduceMaxSumExpOp,
              tile::ReduceMeanM2Op>(op)) {
        if (failed(streamReduction(op)))
          return failure();
        continue;
      }
      if (llvm::any_of(op.getResultTypes(), llvm::IsaPred<RankedTensorType>))
        continue; // tiles are computed on demand inside the loops
      auto store = dyn_cast<tile::StoreOp>(op);
      if (store && llvm::isa<RankedTensorType>(store.getValue().getType())) {
        tileStores.push_back(store);
        continue;
      }
      if (isa<func::ReturnOp>(op) && !tileStores.empty() && failed(streamStores(tileStores)))
        return failure();
      if (failed(lower(op)))
        return failure();
    }
    return success();
  }

  /// row_loop: the loads of vectors and scalars shared by every row that
  /// the program places before its first reduction (weights, biases; not
  /// those the scheduler sank past a reduction to save registers) are
  /// emitted once, before the loop; everything else runs once per row block
  /// of the CTA. The warps' reduction buffers are rewritten by the next
  /// block, so a barrier ends each iteration when the row spans warps.
  ///
  /// prefetch = S: the row inputs (prefetchedRowInputs) come through a ring
  /// of S stages in dynamic shared memory. Before the loop the CTA issues
  /// its first S - 1 blocks' copies, one cp.async group a block; each
  /// iteration issues the block S - 1 ahead (an empty group past the last),
  /// waits until at most S - 1 groups are pending (the current block's has
  /// landed) and reads its vectors from the stage. Each thread copies and
  /// reads only its own vectors, so no barrier guards the ring; a stage is
  /// refilled one iteration after its reads, whose values that iteration's
  /// stores consumed. Masked vectors are zero-filled (src-size 0). Nothing
  /// is hoisted (the loop's registers go to the copies in flight).
  LogicalResult runRowLoop() {
    Block &body = fn.getBody().front();
    DenseSet<Operation *> hoisted;
    for (Operation &op : body) {
      if (isRowReduction(&op) || s.prefetch > 0)
        break;
      auto load = dyn_cast<tile::LoadOp>(op);
      if (!load || load.getRow() ||
          llvm::cast<MemRefType>(load.getSource().getType()).getRank() > 1)
        continue;
      if (failed(lower(op)))
        return failure();
      hoisted.insert(&op);
    }
    Value blocks = b->create<arith::CeilDivUIOp>(loc(), rowCount, index(s.rowsPerBlock));
    Value first = b->create<gpu::BlockIdOp>(loc(), gpu::Dimension::x);
    Value step = b->create<gpu::GridDimOp>(loc(), gpu::Dimension::x);
    SmallVector<Value> init;
    if (s.prefetch > 0) {
      if (failed(layOutPrefetchRing()))
        return failure();
      Value token;
      for (int64_t ahead = 0; ahead + 1 < s.prefetch; ++ahead) {
        Value block = b->create<arith::AddIOp>(
            loc(), first, b->create<arith::MulIOp>(loc(), step, index(ahead)));
        token = issuePrefetch(block, blocks, index(ahead));
      }
      init = {index(0), token};
    }
    auto loop = b->create<scf::ForOp>(loc(), first, blocks, step, init);
    {
      OpBuilder::InsertionGuard g(*b);
      Block *loopBody = loop.getBody();
      if (loopBody->mightHaveTerminator())
        b->setInsertionPoint(loopBody->getTerminator());
      else
        b->setInsertionPointToEnd(loopBody);
      Value iv = loop.getInductionVar();
      SmallVector<Value> yielded;
      if (s.prefetch > 0) {
        Value stage = loop.getRegionIterArgs()[0];
        auto wrap = [&](Value v) {
          Value wrapped = b->create<arith::SubIOp>(loc(), v, index(s.prefetch));
          Value over = b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::uge, v,
                                                index(s.prefetch));
          return b->create<arith::SelectOp>(loc(), over, wrapped, v).getResult();
        };
        Value ahead = b->create<arith::AddIOp>(
            loc(), iv, b->create<arith::MulIOp>(loc(), step, index(s.prefetch - 1)));
        Value token = issuePrefetch(
            ahead, blocks, wrap(b->create<arith::AddIOp>(loc(), stage, index(s.prefetch - 1))));
        b->create<nvgpu::DeviceAsyncWaitOp>(loc(), token,
                                            b->getI32IntegerAttr(s.prefetch - 1));
        prefetchSlot = b->create<arith::MulIOp>(loc(), stage, index(prefetchStageElements()));
        yielded = {wrap(b->create<arith::AddIOp>(loc(), stage, index(1))), token};
      }
      row = b->create<arith::AddIOp>(loc(), b->create<arith::MulIOp>(loc(), iv, index(s.rowsPerBlock)),
                                     rowInBlock);
      rowValid = b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::ult, row, rowCount);
      for (Operation &op : body)
        if (!hoisted.count(&op) && !isa<func::ReturnOp>(op) && failed(lower(op)))
          return failure();
      if (s.tpr > kWarpSize && countRowReductions(fn) > 0)
        b->create<gpu::BarrierOp>(loc());
      if (!yielded.empty())
        b->create<scf::YieldOp>(loc(), yielded);
    }
    return lower(*body.getTerminator());
  }

  /// staged_weights: a view of dynamic shared memory for each weight vector
  /// (stagedWeights: the scheduler's list), 16-byte aligned, and this
  /// thread's vectors of each copied there as one cp.async group (masked
  /// vectors zero-filled, read from column 0). The loads read them back
  /// after waiting for the group (lowerLoad). Each thread reads only what
  /// it copied, so no barrier is needed.
  LogicalResult stageWeightVectors() {
    if (failed(layOutSharedBuffers("staged_weights: the weights", weightSources,
                                   s.blockVectors() * s.vec, /*cpAsync=*/true, weightBuffers)))
      return failure();
    // .ca (through L1), unlike the row's copies: every CTA on an SM reads
    // the same weights, and past L1 they all queue at the few L2 slices
    // that hold them (measured with .cg: rms_norm bf16 [8192, 4096] 2.5x
    // slower, L1 hit rate 0 instead of 33%, DRAM throughput 41 vs 72%).
    for (auto [source, view] : weightBuffers)
      for (int64_t k = 0; k < s.chunks; ++k)
        copyVectorAsync(view, chunkCol[k], scalars.lookup(source), Value(), k, Value(),
                        /*throughL1=*/true);
    weightGroup = b->create<nvgpu::DeviceAsyncCreateGroupOp>(
        loc(), nvgpu::DeviceAsyncTokenType::get(fn.getContext()), ValueRange());
    return success();
  }

  /// Elements of one prefetch stage of one input: the CTA's rows' vectors.
  int64_t prefetchStageElements() const { return s.rowsPerBlock * s.blockVectors() * s.vec; }

  /// row-prefetch: a view of dynamic shared memory for the ring of each
  /// prefetched row input (prefetchedRowInputs: the scheduler's list), in
  /// program order, 16-byte aligned: prefetch stages of the CTA's rows.
  LogicalResult layOutPrefetchRing() {
    return layOutSharedBuffers("prefetch: the row inputs' rings", prefetchedRowInputs(fn, s.cols),
                               s.prefetch * prefetchStageElements(), /*cpAsync=*/true,
                               prefetchRings);
  }

  /// Copies this thread's vectors of row block `block` (when below
  /// `blocks`; otherwise nothing) of every prefetched input into ring stage
  /// `stage`, as one cp.async group; returns the group's token. Vectors
  /// past the row's end or the last row are zero-filled, read from row 0.
  Value issuePrefetch(Value block, Value blocks, Value stage) {
    Value inRange = b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::ult, block, blocks);
    auto ifOp = b->create<scf::IfOp>(loc(), inRange, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard g(*b);
      b->setInsertionPointToStart(ifOp.thenBlock());
      Value r = b->create<arith::AddIOp>(
          loc(), b->create<arith::MulIOp>(loc(), block, index(s.rowsPerBlock)), rowInBlock);
      Value valid = b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::ult, r, rowCount);
      Value srcRow = b->create<arith::SelectOp>(loc(), valid, r, index(0));
      Value base = b->create<arith::AddIOp>(
          loc(), b->create<arith::MulIOp>(loc(), stage, index(prefetchStageElements())),
          b->create<arith::MulIOp>(loc(), rowInBlock, index(s.blockVectors() * s.vec)));
      for (auto [source, ring] : prefetchRings)
        for (int64_t k = 0; k < s.chunks; ++k)
          copyVectorAsync(ring, b->create<arith::AddIOp>(loc(), base, chunkCol[k]),
                          scalars.lookup(source), srcRow, k, valid, /*throughL1=*/false);
    }
    return b->create<nvgpu::DeviceAsyncCreateGroupOp>(
        loc(), nvgpu::DeviceAsyncTokenType::get(b->getContext()), ValueRange());
  }

  /// stream-shared: a view of dynamic shared memory for the CTA's slice of
  /// each plain row input (stagedRowInputs: the scheduler's list),
  /// in program order, 16-byte aligned. Each thread stores the vectors it
  /// loads in the first pass to its own slots and reads them back in later
  /// passes, so no barrier is needed.
  LogicalResult stageRowInputs() {
    return layOutSharedBuffers("stream_shared: the row inputs' slices",
                               stagedRowInputs(fn, s.cols),
                               s.streamBlocks * s.blockVectors() * s.vec,
                               /*cpAsync=*/false, stageBuffers);
  }

  /// Views of dynamic shared memory of `elements` elements for each of
  /// `sources` (in order, 16-byte aligned) into `views`, within the
  /// schedule's shared_bytes (`what` names them in the error). `cpAsync`:
  /// the views are filled by cp.async, which copies this thread's vectors
  /// only if they are 4, 8 or 16 bytes.
  template <typename Map>
  LogicalResult layOutSharedBuffers(StringRef what, ArrayRef<Value> sources, int64_t elements,
                                    bool cpAsync, Map &views) {
    MLIRContext *ctx = fn.getContext();
    auto ws = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    Value dyn = b->create<gpu::DynamicSharedMemoryOp>(
        loc(), MemRefType::get({ShapedType::kDynamic}, b->getI8Type(), AffineMap(), ws));
    int64_t offset = 0;
    for (Value source : sources) {
      auto m = llvm::cast<MemRefType>(source.getType());
      int64_t vectorBytes = s.vec * m.getElementTypeBitWidth() / 8;
      if (cpAsync && vectorBytes != 4 && vectorBytes != 8 && vectorBytes != 16)
        return fn.emitOpError(what) << ": " << vectorBytes << "-byte vectors of "
                                    << m.getElementType()
                                    << " cannot be copied with cp.async (4, 8 or 16 bytes)";
      auto t = MemRefType::get({elements}, m.getElementType(), AffineMap(), ws);
      views[source] = b->create<memref::ViewOp>(loc(), t, dyn, index(offset), ValueRange());
      offset += llvm::alignTo(elements * m.getElementTypeBitWidth() / 8, 16);
    }
    if (offset == 0 || offset > s.sharedBytes)
      return fn.emitOpError(what) << " take " << offset
                                  << " bytes, the schedule's shared_bytes is " << s.sharedBytes;
    return success();
  }

  /// cp.async of this thread's vector k of `mem` (at row `srcRow`, or a
  /// rank-1 buffer when null) to element `slot` of `view`: zero-filled
  /// (src-size 0, read from column 0) unless `ok` (null: always) and the
  /// chunk is within the row. `throughL1`: .ca, else .cg where the vector
  /// is 16 bytes (.cg copies only 16).
  void copyVectorAsync(Value view, Value slot, Value mem, Value srcRow, int64_t k, Value ok,
                       bool throughL1) {
    Type elem = llvm::cast<MemRefType>(mem.getType()).getElementType();
    bool bypassL1 = !throughL1 && s.vec * elem.getIntOrFloatBitWidth() == 128;
    ok = andI1(ok, chunkValid[k]);
    Value col = chunkValid[k]
                    ? b->create<arith::SelectOp>(loc(), chunkValid[k], chunkCol[k], index(0))
                          .getResult()
                    : chunkCol[k];
    Value n = ok ? b->create<arith::SelectOp>(loc(), ok, index(s.vec), index(0)).getResult()
                 : index(s.vec);
    SmallVector<Value> src;
    if (srcRow)
      src.push_back(srcRow);
    src.push_back(col);
    b->create<nvgpu::DeviceAsyncCopyOp>(loc(), nvgpu::DeviceAsyncTokenType::get(b->getContext()),
                                        view, ValueRange{slot}, mem, src, b->getIndexAttr(s.vec),
                                        n, bypassL1 ? b->getUnitAttr() : UnitAttr());
  }

  /// Computes tile `v` for the current column block (memoized in `tiles`).
  LogicalResult emitTile(Value v) {
    if (tiles.count(v))
      return success();
    Operation *def = v.getDefiningOp();
    if (!def)
      return fn.emitOpError("tile argument cannot be streamed");
    if (auto pair = dyn_cast<tile::ReduceMaxSumExpOp>(def))
      return emitStreamedExp(pair);
    for (Value operand : def->getOperands())
      if (llvm::isa<RankedTensorType>(operand.getType()) && failed(emitTile(operand)))
        return failure();
    return lower(*def);
  }

  /// Sets chunkCol/chunkValid for the column block starting at vector
  /// `firstVector` of the row, one of `blocks` blocks (validity checks are
  /// emitted only for chunks that some block can push past the row's end).
  void setColumns(Value firstVector, int64_t blocks) {
    chunkCol.clear();
    chunkValid.clear();
    for (int64_t k = 0; k < s.chunks; ++k) {
      Value vectorIndex = b->create<arith::AddIOp>(
          loc(), b->create<arith::AddIOp>(loc(), firstVector, index(k * s.tpr)), lane);
      Value col = b->create<arith::MulIOp>(loc(), vectorIndex, index(s.vec));
      chunkCol.push_back(col);
      // In range for every lane of every block?
      bool alwaysInRow = ((blocks - 1) * s.chunks + k + 1) * s.tpr * s.vec <= s.cols;
      chunkValid.push_back(alwaysInRow ? Value()
                                       : b->create<arith::CmpIOp>(
                                             loc(), arith::CmpIPredicate::ult, col,
                                             index(s.cols)));
    }
  }

  /// The body of a loop over the column blocks of the row, with `tiles`
  /// fresh for each block.
  void forEachColumnBlock(ValueRange init,
                          llvm::function_ref<SmallVector<Value>(ValueRange)> body,
                          SmallVector<Value> &results) {
    auto forOp = b->create<scf::ForOp>(loc(), index(0), index(s.streamBlocks), index(1), init);
    OpBuilder::InsertionGuard g(*b);
    Block *block = forOp.getBody();
    if (block->mightHaveTerminator())
      b->setInsertionPoint(block->getTerminator());
    else
      b->setInsertionPointToEnd(block);
    DenseMap<Value, SmallVector<Value>> saved;
    std::swap(saved, tiles);
    // (In a cluster, within the CTA's slice of streamBlocks blocks.)
    Value first = b->create<arith::MulIOp>(loc(), forOp.getInductionVar(),
                                           index(s.blockVectors()));
    if (s.colBlocks > 1) {
      Value slice = b->create<arith::MulIOp>(loc(), colBlock,
                                             index(s.streamBlocks * s.blockVectors()));
      first = b->create<arith::AddIOp>(loc(), slice, first);
    }
    setColumns(first, s.colBlocks * s.streamBlocks);
    SmallVector<Value> yielded = body(forOp.getRegionIterArgs());
    if (!init.empty())
      b->create<scf::YieldOp>(loc(), yielded);
    std::swap(saved, tiles);
    // (stream-shared: what this pass stored, later passes read back.)
    staged.insert(pendingStaged.begin(), pendingStaged.end());
    pendingStaged.clear();
    results.assign(forOp.getResults().begin(), forOp.getResults().end());
  }

  LogicalResult streamReduction(Operation &op) {
    if (auto pair = dyn_cast<tile::ReduceMaxSumExpOp>(op))
      return streamMaxSumExp(pair);
    if (auto pair = dyn_cast<tile::ReduceMeanM2Op>(op))
      return streamMeanM2(pair);
    bool isMax = isa<tile::ReduceMaxOp>(op);
    Value identityVec = splatConst(b->getF32Type(), isMax ? -INFINITY : 0.0);
    LogicalResult status = success();
    SmallVector<Value> acc;
    forEachColumnBlock(ValueRange{identityVec}, [&](ValueRange args) -> SmallVector<Value> {
      if (failed(emitTile(op.getOperand(0)))) {
        status = failure();
        return {args[0]};
      }
      Value blockAcc = combineChunks(tiles[op.getOperand(0)], isMax);
      return {combine(isMax, args[0], blockAcc)};
    }, acc);
    if (failed(status))
      return failure();
    Value partial = vectorPartial(acc[0], isMax);
    scalars.map(op.getResult(0), reduceAcrossThreads(Reduction::of(op), {partial})[0]);
    return success();
  }

  /// The online pair in one pass over the row: each thread carries its
  /// (max, sum) through the blocks, rescaling the sum when the max grows.
  LogicalResult streamMaxSumExp(tile::ReduceMaxSumExpOp op) {
    Reduction r = Reduction::of(*op);
    LogicalResult status = success();
    SmallVector<Value> acc;
    Value init[] = {b->create<arith::ConstantOp>(loc(), b->getF32FloatAttr(-INFINITY)),
                    b->create<arith::ConstantOp>(loc(), b->getF32FloatAttr(0.0))};
    forEachColumnBlock(init, [&](ValueRange args) -> SmallVector<Value> {
      if (failed(emitTile(op.getInput()))) {
        status = failure();
        return {args.begin(), args.end()};
      }
      SmallVector<Value> block = threadMaxSumExp(tiles[op.getInput()], r);
      return combinePartials(r, SmallVector<Value>(args.begin(), args.end()), block);
    }, acc);
    if (failed(status))
      return failure();
    SmallVector<Value> pair = reduceAcrossThreads(r, acc);
    scalars.map(op.getMax(), pair[0]);
    scalars.map(op.getSum(), pair[1]);
    if (op.getExp())
      streamedShift[op] = finiteOrZero(pair[0]);
    return success();
  }

  /// The (mean, M2) pair in one pass over the row: each thread carries its
  /// (mean, M2, count) through the blocks, combining each block's own
  /// two-pass triple into it. Where every block of every thread is full,
  /// the thread's count after the loop is a constant again, so the
  /// reduction across threads need not carry it.
  LogicalResult streamMeanM2(tile::ReduceMeanM2Op op) {
    Reduction r = Reduction::of(*op);
    LogicalResult status = success();
    bool fullBlocks = true;
    SmallVector<Value> acc;
    Value zero = f32Const(0.0);
    forEachColumnBlock({zero, zero, zero}, [&](ValueRange args) -> SmallVector<Value> {
      if (failed(emitTile(op.getInput()))) {
        status = failure();
        return {args.begin(), args.end()};
      }
      SmallVector<Value> block = threadMeanM2(tiles[op.getInput()], r);
      fullBlocks = isConstant(block[2]);
      return combineMeanM2(r, SmallVector<Value>(args.begin(), args.end()), block);
    }, acc);
    if (failed(status))
      return failure();
    if (fullBlocks)
      acc[2] = f32Const(static_cast<double>(s.streamBlocks * s.chunks * s.vec));
    SmallVector<Value> pair = reduceAcrossThreads(r, acc);
    scalars.map(op.getMean(), pair[0]);
    scalars.map(op.getM2(), pair[1]);
    return success();
  }

  /// A streamed pair's exp tile for the current column block: the row's
  /// exps cannot be kept, so exp(x - M') again (M' = M, or 0 for a row of
  /// only -inf, so e is 0 there as in registers).
  LogicalResult emitStreamedExp(tile::ReduceMaxSumExpOp op) {
    auto shift = streamedShift.find(op);
    if (shift == streamedShift.end())
      return op.emitOpError("exp tile used before its reduction");
    if (failed(emitTile(op.getInput())))
      return failure();
    Reduction r = Reduction::of(*op);
    Value shiftVec = b->create<vector::BroadcastOp>(loc(), vecType(b->getF32Type()),
                                                    shift->second);
    SmallVector<Value> out;
    for (Value x : tiles[op.getInput()])
      out.push_back(exp(r, b->create<arith::SubFOp>(loc(), x, shiftVec)));
    tiles[op.getExp()] = std::move(out);
    return success();
  }

  LogicalResult streamStores(ArrayRef<tile::StoreOp> stores) {
    LogicalResult status = success();
    SmallVector<Value> none;
    forEachColumnBlock(ValueRange{}, [&](ValueRange) -> SmallVector<Value> {
      for (tile::StoreOp st : stores)
        if (failed(emitTile(st.getValue())) || failed(lowerStore(st)))
          status = failure();
      return {};
    }, none);
    return status;
  }

private:
  Location loc() { return fn.getLoc(); }
  Value index(int64_t v) { return b->create<arith::ConstantIndexOp>(loc(), v); }
  Value andI1(Value a, Value c) {
    if (!a)
      return c;
    if (!c)
      return a;
    return b->create<arith::AndIOp>(loc(), a, c);
  }
  VectorType vecType(Type elem) { return VectorType::get({s.vec}, elem); }
  Value splatConst(Type elem, double v) {
    return b->create<arith::ConstantOp>(
        loc(), DenseElementsAttr::get(vecType(elem), b->getFloatAttr(elem, v)));
  }
  Value f32Const(double v) {
    return b->create<arith::ConstantOp>(loc(), b->getF32FloatAttr(static_cast<float>(v)));
  }
  /// The value of an f32 constant (a static count), if `v` is one.
  static std::optional<double> constantValue(Value v) {
    auto c = v.getDefiningOp<arith::ConstantOp>();
    auto f = c ? llvm::dyn_cast<FloatAttr>(c.getValue()) : FloatAttr();
    return f ? std::optional<double>(f.getValueAsDouble()) : std::nullopt;
  }
  static bool isConstant(Value v) { return constantValue(v).has_value(); }

  LogicalResult buildPreamble(Block &entry) {
    Value tid = b->create<gpu::ThreadIdOp>(loc(), gpu::Dimension::x);
    Value bid = b->create<gpu::BlockIdOp>(loc(), gpu::Dimension::x);
    lane = b->create<arith::RemUIOp>(loc(), tid, index(s.tpr));
    rowInBlock = b->create<arith::DivUIOp>(loc(), tid, index(s.tpr));
    // With column blocks, CTA `bid` takes block bid % colBlocks of row
    // bid / colBlocks (one row per CTA).
    colBlock = index(0);
    if (s.colBlocks > 1) {
      colBlock = b->create<arith::RemUIOp>(loc(), bid, index(s.colBlocks));
      bid = b->create<arith::DivUIOp>(loc(), bid, index(s.colBlocks));
    }
    row = b->create<arith::AddIOp>(
        loc(), b->create<arith::MulIOp>(loc(), bid, index(s.rowsPerBlock)), rowInBlock);
    // The buffer with one row per domain row (inputs with broadcast rows
    // have fewer); without the attribute, the first rank-2 buffer.
    Value rowBuffer;
    if (auto attr = fn->getAttrOfType<IntegerAttr>("tile.row_buffer")) {
      if (attr.getInt() >= 0 && attr.getInt() < fn.getNumArguments())
        rowBuffer = entry.getArgument(attr.getInt());
    } else {
      for (BlockArgument arg : entry.getArguments().take_front(fn.getNumArguments()))
        if (llvm::cast<MemRefType>(arg.getType()).getRank() == 2) {
          rowBuffer = arg;
          break;
        }
    }
    if (rowBuffer && llvm::cast<MemRefType>(rowBuffer.getType()).getRank() != 2)
      rowBuffer = Value();
    // (Kernels that update a buffer in place have rows of their own,
    // which no buffer may number: the domain's, compiled in.)
    auto domainAttr = fn->getAttrOfType<DenseI64ArrayAttr>("tile.domain");
    if (fn->hasAttr("tile.static_rows") && domainAttr) {
      int64_t rows = 1;
      for (int64_t d : domainAttr.asArrayRef().drop_back())
        rows *= d;
      rowCount = index(rows);
    } else if (!rowBuffer) {
      return fn.emitOpError("row kernel has no per-row buffer to size its grid");
    } else {
      rowCount = b->create<memref::DimOp>(loc(), rowBuffer, 0);
    }
    rowValid = b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::ult, row, rowCount);
    if (!s.streaming())
      setColumns(b->create<arith::MulIOp>(loc(), colBlock, index(s.blockVectors())),
                 s.colBlocks);
    return success();
  }

  /// `then` under `cond` (nullptr: unconditional) yielding a value of `type`,
  /// or `otherwise` when cond is false.
  Value guarded(Value cond, Type type, llvm::function_ref<Value()> then, Value otherwise) {
    if (!cond)
      return then();
    auto ifOp = b->create<scf::IfOp>(loc(), TypeRange{type}, cond, true, true);
    {
      OpBuilder::InsertionGuard g(*b);
      b->setInsertionPointToStart(&ifOp.getThenRegion().front());
      b->create<scf::YieldOp>(loc(), then());
      b->setInsertionPointToStart(&ifOp.getElseRegion().front());
      b->create<scf::YieldOp>(loc(), otherwise);
    }
    return ifOp.getResult(0);
  }

  void guardedEffect(Value cond, llvm::function_ref<void()> then) {
    if (!cond)
      return then();
    auto ifOp = b->create<scf::IfOp>(loc(), cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(*b);
    b->setInsertionPointToStart(ifOp.thenBlock());
    then();
  }

  int64_t alignment(Type elem) { return s.vec * elem.getIntOrFloatBitWidth() / 8; }

  LogicalResult lower(Operation &op) {
    // staged_weights: the copies go out after the row's loads (before the
    // first reduction), or before the first weight load if that is earlier.
    if (s.stagedWeights && weightBuffers.empty()) {
      if (weightSources.empty())
        weightSources = stagedWeights(fn, s.cols);
      auto load = dyn_cast<tile::LoadOp>(op);
      if ((isRowReduction(&op) ||
           (load && llvm::is_contained(weightSources, load.getSource()))) &&
          failed(stageWeightVectors()))
        return failure();
    }
    if (auto load = dyn_cast<tile::LoadOp>(op))
      return lowerLoad(load);
    if (auto store = dyn_cast<tile::StoreOp>(op))
      return lowerStore(store);
    if (isa<tile::RowIdOp>(op)) {
      scalars.map(op.getResult(0), row);
      return success();
    }
    if (auto splat = dyn_cast<tile::SplatOp>(op)) {
      Value v = b->create<vector::BroadcastOp>(
          loc(), vecType(splat.getType().getElementType()), scalars.lookup(splat.getInput()));
      tiles[splat.getResult()] = SmallVector<Value>(s.chunks, v);
      return success();
    }
    if (isa<tile::ReduceSumOp, tile::ReduceMaxOp, tile::ReduceMaxSumExpOp, tile::ReduceMeanM2Op>(
            op))
      return lowerReduce(op);
    if (auto select = dyn_cast<tile::SelectColsOp>(op))
      return lowerSelectCols(select);
    if (auto mask = dyn_cast<tile::CausalMaskOp>(op))
      return lowerCausalMask(mask);
    if (isa<func::ReturnOp>(op)) {
      // No CTA may exit (freeing its shared memory) while another of the
      // cluster may still read it: this waits on the arrival that followed
      // the last reduction's reads.
      if (s.cluster > 1)
        b->create<NVVM::ClusterWaitOp>(loc(), b->getUnitAttr());
      b->create<gpu::ReturnOp>(loc());
      return success();
    }
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      if (auto dense = llvm::dyn_cast<DenseElementsAttr>(c.getValue())) {
        if (!dense.isSplat())
          return op.emitOpError("only splat tile constants are supported");
        Type elem = dense.getElementType();
        Value v = b->create<arith::ConstantOp>(
            loc(), DenseElementsAttr::get(vecType(elem), dense.getSplatValue<Attribute>()));
        tiles[c.getResult()] = SmallVector<Value>(s.chunks, v);
        return success();
      }
    }
    bool onTiles = llvm::any_of(op.getResultTypes(), llvm::IsaPred<RankedTensorType>);
    if (!onTiles) {
      b->clone(op, scalars);
      return success();
    }
    if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) ||
        op.getNumResults() != 1 || op.getNumRegions() != 0)
      return op.emitOpError("cannot be distributed over a row tile");
    // Elementwise: one copy of the op per vector.
    auto resultElem = llvm::cast<RankedTensorType>(op.getResult(0).getType()).getElementType();
    if (op.hasAttr(tilec::kRewidenAttr))
      return lowerRewiden(op);
    SmallVector<Value> out;
    for (int64_t k = 0; k < s.chunks; ++k) {
      OperationState state(op.getLoc(), op.getName());
      for (Value v : op.getOperands()) {
        auto it = tiles.find(v);
        if (it == tiles.end())
          return op.emitOpError("mixes a row tile with a scalar operand");
        state.addOperands(it->second[k]);
      }
      state.addTypes(vecType(resultElem));
      state.addAttributes(op.getAttrs());
      out.push_back(b->create(state)->getResult(0));
    }
    tiles[op.getResult(0)] = std::move(out);
    return success();
  }

  /// A bf16 -> f32 widening made again past a reduction
  /// (rewidenPastReductions): the bf16 bits shifted into the top half of an
  /// i32, an exact widening that LLVM does not merge with the arith.extf
  /// before the reduction, so the packed row, not its f32 copy, lives
  /// across the reduction. (ptxas takes each 32-bit word shifted and masked
  /// worse: 94 registers instead of 64 for softmax's bf16 [4096, 131072].)
  LogicalResult lowerRewiden(Operation &op) {
    auto it = tiles.find(op.getOperand(0));
    if (it == tiles.end() || !isa<arith::ExtFOp>(op))
      return op.emitOpError("rewidens a value that is not a distributed tile");
    Type i16 = b->getI16Type(), i32 = b->getI32Type();
    SmallVector<Value> out;
    for (Value v : it->second) {
      Value bits = b->create<vector::BitCastOp>(loc(), vecType(i16), v);
      Value wide = b->create<arith::ExtUIOp>(loc(), vecType(i32), bits);
      Value sixteen = b->create<arith::ConstantOp>(
          loc(), DenseElementsAttr::get(vecType(i32), ArrayRef<Attribute>{b->getI32IntegerAttr(16)}));
      Value shifted = b->create<arith::ShLIOp>(loc(), wide, sixteen);
      out.push_back(b->create<vector::BitCastOp>(loc(), vecType(b->getF32Type()), shifted));
    }
    tiles[op.getResult(0)] = std::move(out);
    return success();
  }

  /// This thread's vectors of a shared-memory view it filled itself
  /// (elements base + chunkCol[k]; base null: 0).
  SmallVector<Value> loadOwnVectors(Value view, Value base, Type elem) {
    SmallVector<Value> vectors;
    for (int64_t k = 0; k < s.chunks; ++k) {
      Value slot = base ? b->create<arith::AddIOp>(loc(), base, chunkCol[k]).getResult()
                        : chunkCol[k];
      auto v = b->create<vector::LoadOp>(loc(), vecType(elem), view, ValueRange{slot});
      v.setAlignment(alignment(elem));
      vectors.push_back(v);
    }
    return vectors;
  }

  LogicalResult lowerLoad(tile::LoadOp load) {
    Value mem = scalars.lookup(load.getSource());
    auto memType = llvm::cast<MemRefType>(mem.getType());
    Type elem = memType.getElementType();
    if (memType.getRank() == 3) {
      // Strided row `row` of memref<O x K x I>: elements [row / I, :, row % I].
      if (s.vec != 1)
        return load.emitOpError("strided rows need vector_width 1");
      // (The load's row: the thread's own, or a permuted one, a transpose's.)
      Value r = load.getRow() ? scalars.lookup(load.getRow()) : row;
      if (!r)
        return load.emitOpError("strided row index not computed");
      int64_t inner = memType.getDimSize(2);
      Value o = b->create<arith::DivUIOp>(loc(), r, index(inner));
      Value i = b->create<arith::RemUIOp>(loc(), r, index(inner));
      SmallVector<Value> chunks;
      Value zero = splatConst(elem, 0.0);
      for (int64_t k = 0; k < s.chunks; ++k)
        chunks.push_back(guarded(andI1(rowValid, chunkValid[k]), vecType(elem), [&]() -> Value {
          Value x = b->create<memref::LoadOp>(loc(), mem, ValueRange{o, chunkCol[k], i});
          return b->create<vector::BroadcastOp>(loc(), vecType(elem), x);
        }, zero));
      tiles[load.getResult()] = std::move(chunks);
      return success();
    }
    if (auto tileTy = llvm::dyn_cast<RankedTensorType>(load.getType())) {
      Value r = load.getRow() ? scalars.lookup(load.getRow()) : Value();
      int64_t shift = load.getColOffsetAttr() ? load.getColOffsetAttr().getInt() : 0;
      int64_t width = memType.getShape().back();
      if (failed(checkWindow(load, width, shift)))
        return failure();
      SmallVector<Value> chunks;
      Value zero = splatConst(elem, 0.0);
      auto whole = std::make_pair(mem, r);
      // A whole row already in registers and an offset that moves whole
      // chunks (a multiple of TPR * V): this thread holds the shifted
      // columns already, so rotate its chunks instead of reloading.
      int64_t stride = s.tpr * s.vec;
      if (!s.streaming() && s.colBlocks == 1 && width == s.cols && shift % stride == 0 &&
          wholeRows.count(whole)) {
        ArrayRef<Value> src = tiles[wholeRows.lookup(whole)];
        for (int64_t k = 0; k < s.chunks; ++k) {
          int64_t from = k + shift / stride;
          chunks.push_back(from >= 0 && from < s.chunks ? src[from] : zero);
        }
        tiles[load.getResult()] = std::move(chunks);
        return success();
      }
      if (shift == 0 && width == s.cols && !s.streaming())
        wholeRows[whole] = load.getResult();
      // staged_weights: the vector is in shared memory once the group landed.
      auto weight = weightBuffers.find(load.getSource());
      if (weight != weightBuffers.end() && !r && shift == 0 && width == s.cols) {
        if (weightGroup) {
          b->create<nvgpu::DeviceAsyncWaitOp>(loc(), weightGroup, b->getI32IntegerAttr(0));
          weightGroup = Value();
        }
        tiles[load.getResult()] = loadOwnVectors(weight->second, Value(), elem);
        return success();
      }
      // row-prefetch: a prefetched input's row is in the current stage.
      auto ring = prefetchRings.find(load.getSource());
      if (ring != prefetchRings.end() && prefetchSlot && r == row && shift == 0 &&
          width == s.cols) {
        Value base = b->create<arith::AddIOp>(
            loc(), prefetchSlot,
            b->create<arith::MulIOp>(loc(), rowInBlock, index(s.blockVectors() * s.vec)));
        tiles[load.getResult()] = loadOwnVectors(ring->second, base, elem);
        return success();
      }
      // stream-shared: a staged row input comes from HBM in the first pass
      // (and goes to the thread's slots in shared memory), from those slots
      // after it; a slot is the column's offset in the CTA's slice.
      auto stage = stageBuffers.find(load.getSource());
      Value staging = s.streaming() && r && shift == 0 && width == s.cols &&
                              stage != stageBuffers.end()
                          ? stage->second
                          : Value();
      bool reread = staging && staged.count(load.getSource());
      Value sliceBase = staging && s.colBlocks > 1
                            ? b->create<arith::MulIOp>(
                                  loc(), colBlock, index(s.streamBlocks * s.blockVectors() * s.vec))
                            : Value();
      // (Every row input's, ahead of the first row load: the address math
      // then holds no registers across the rows' values; at 1024 threads
      // a CTA, 64 registers, add_rms_norm's second input's spilled 84
      // bytes more behind its first's loads.)
      if ((s.l2PrefetchRows > 0 || s.l2PrefetchFirst) && !l2Prefetched && r == row &&
          shift == 0 && width == s.cols) {
        SmallVector<Value> inputs = prefetchedRowInputs(fn, s.cols);
        if (llvm::is_contained(inputs, load.getSource())) {
          l2Prefetched = true;
          SmallVector<int64_t, 2> aheads;
          if (s.l2PrefetchFirst)
            aheads.push_back(0); // (the first blocks' own rows, first)
          if (s.l2PrefetchRows > 0)
            aheads.push_back(s.l2PrefetchRows);
          for (int64_t ahead : aheads)
            for (Value input : inputs) {
              Value m = scalars.lookup(input);
              prefetchRowsAhead(m, llvm::cast<MemRefType>(m.getType()).getElementType(), ahead);
            }
        }
      }
      for (int64_t k = 0; k < s.chunks; ++k) {
        Value slot;
        if (staging)
          slot = sliceBase ? b->create<arith::SubIOp>(loc(), chunkCol[k], sliceBase).getResult()
                           : chunkCol[k];
        if (reread) {
          auto v = b->create<vector::LoadOp>(loc(), vecType(elem), staging, slot);
          v.setAlignment(alignment(elem));
          chunks.push_back(v);
          continue;
        }
        Value cond = andI1(r ? rowValid : Value(), windowValid(k, width, shift));
        chunks.push_back(guarded(cond, vecType(elem), [&]() -> Value {
          SmallVector<Value> idx;
          if (r)
            idx.push_back(r);
          idx.push_back(shifted(chunkCol[k], shift));
          auto v = b->create<vector::LoadOp>(loc(), vecType(elem), mem, idx);
          v.setAlignment(alignment(elem));
          return v;
        }, zero));
        if (staging) {
          auto st = b->create<vector::StoreOp>(loc(), chunks.back(), staging, slot);
          st.setAlignment(alignment(elem));
        }
      }
      if (staging && !reread)
        pendingStaged.insert(load.getSource());
      tiles[load.getResult()] = std::move(chunks);
      return success();
    }
    Value zero = b->create<arith::ConstantOp>(loc(), b->getFloatAttr(elem, 0.0));
    Value v;
    if (memType.getRank() == 2)
      v = guarded(rowValid, elem, [&]() -> Value {
        return b->create<memref::LoadOp>(
            loc(), mem, ValueRange{scalars.lookup(load.getRow()), index(0)});
      }, zero);
    else
      v = b->create<memref::LoadOp>(loc(), mem, ValueRange{});
    scalars.map(load.getResult(), v);
    return success();
  }

  /// l2_prefetch_rows = D: prefetch.global.L2 of this CTA's column slice
  /// of `mem`'s rows in the row block `ahead` (D) blocks ahead (none past
  /// the last row), one 128-byte line a thread, issued just before the
  /// CTA's first row load: the CTA that will read them finds them in L2,
  /// and HBM has reads in flight while this CTA reduces. Each line of a
  /// row's slice (within the row) once: line j of the slice starting at
  /// byte address a names max(a, (a & ~127) + 128 j), never a byte outside
  /// the slice. Needs an identity layout with a static last dim (else
  /// none). `ahead` 0 (l2_prefetch_first): the CTA's own slice, only in
  /// the first D row blocks (the others' were prefetched D blocks before
  /// them), in every CTA where D is 0. With l2_prefetch_first every
  /// prefetch here is marked kAheadOfWaitAttr: its guards are branches
  /// around marked prefetches only, so where nothing before it touches
  /// memory (a row kernel's usual start; not staged weights)
  /// tilec-dependent-launch puts the wait after it, and under dependent
  /// launch the first CTAs' rows stream into L2 while the kernel ahead
  /// finishes. Unmarked (l2_prefetch_first off), the wait comes first.
  void prefetchRowsAhead(Value mem, Type elem, int64_t ahead) {
    auto type = llvm::cast<MemRefType>(mem.getType());
    if (!type.getLayout().isIdentity() || type.getRank() != 2 || type.isDynamicDim(1))
      return;
    int64_t eb = elem.getIntOrFloatBitWidth() / 8;
    int64_t rowBytes = type.getDimSize(1) * eb;
    int64_t sliceBytes = std::min(s.blockVectors() * s.vec * eb, rowBytes);
    // (A slice not starting on a line spans one line more.)
    int64_t linesPerRow = llvm::divideCeil(sliceBytes, 128) + 1;
    int64_t total = s.rowsPerBlock * linesPerRow, threads = s.blockSize();
    auto arith = [&](auto op, Value x, Value y) {
      return b->create<decltype(op)>(loc(), x, y).getResult();
    };
    auto ult = [&](Value x, Value y) {
      return b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::ult, x, y).getResult();
    };
    Value tid = b->create<gpu::ThreadIdOp>(loc(), gpu::Dimension::x);
    Value base = b->create<memref::ExtractAlignedPointerAsIndexOp>(loc(), mem);
    // The CTA's first row `ahead` blocks on, and its slice's bytes in a row.
    Value blockRow = arith(arith::SubIOp{}, row, rowInBlock);
    Value firstRow = arith(arith::AddIOp{}, blockRow, index(ahead * s.rowsPerBlock));
    Value first = ahead == 0 && s.l2PrefetchRows > 0
                      ? ult(blockRow, index(s.l2PrefetchRows * s.rowsPerBlock))
                      : Value();
    Value sliceStart =
        arith(arith::MulIOp{}, colBlock, index(s.blockVectors() * s.vec * eb));
    Value sliceEnd = arith(arith::MinUIOp{}, arith(arith::AddIOp{}, sliceStart, index(sliceBytes)),
                           index(rowBytes));
    for (int64_t i = 0; i * threads < total; ++i) {
      Value e = arith(arith::AddIOp{}, tid, index(i * threads));
      Value r = arith(arith::AddIOp{}, firstRow, arith(arith::DivUIOp{}, e, index(linesPerRow)));
      Value line = arith(arith::RemUIOp{}, e, index(linesPerRow));
      Value rowStart = arith(arith::AddIOp{}, base, arith(arith::MulIOp{}, r, index(rowBytes)));
      Value start = arith(arith::AddIOp{}, rowStart, sliceStart);
      Value end = arith(arith::AddIOp{}, rowStart, sliceEnd);
      Value at = arith(arith::AddIOp{}, arith(arith::AndIOp{}, start, index(~int64_t(127))),
                       arith(arith::MulIOp{}, line, index(128)));
      // (The address itself below the slice's end: a slice that starts at
      // or past the row's end, a cluster's last CTAs over a short row, has
      // none, though its first line may start inside the row.)
      Value addr = arith(arith::MaxUIOp{}, at, start);
      Value valid = andI1(first, andI1(ult(r, rowCount), ult(addr, end)));
      if ((i + 1) * threads > total)
        valid = andI1(valid, ult(e, index(total)));
      auto ifOp = b->create<scf::IfOp>(loc(), valid, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard g(*b);
      b->setInsertionPointToStart(ifOp.thenBlock());
      Operation *prefetch = emitL2Prefetch(*b, loc(), addr);
      if (s.l2PrefetchFirst)
        prefetch->setAttr(kAheadOfWaitAttr, b->getUnitAttr());
    }
  }

  LogicalResult lowerStore(tile::StoreOp store) {
    Value mem = scalars.lookup(store.getDest());
    bool perRow = !!store.getRow();
    // Shared values are the same in every row: row 0 writes them.
    Value writer = perRow ? rowValid
                          : b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::eq, row,
                                                     index(0));
    if (llvm::isa<RankedTensorType>(store.getValue().getType())) {
      auto it = tiles.find(store.getValue());
      if (it == tiles.end())
        return store.emitOpError("stores a tile that was not distributed");
      auto memType = llvm::cast<MemRefType>(mem.getType());
      Type elem = memType.getElementType();
      int64_t shift = store.getColOffsetAttr() ? store.getColOffsetAttr().getInt() : 0;
      int64_t width = memType.getShape().back();
      if (failed(checkWindow(store, width, shift)))
        return failure();
      for (int64_t k = 0; k < s.chunks; ++k) {
        Value v = it->second[k];
        guardedEffect(andI1(writer, windowValid(k, width, shift)), [&] {
          SmallVector<Value> idx;
          if (perRow)
            idx.push_back(scalars.lookup(store.getRow()));
          idx.push_back(shifted(chunkCol[k], shift));
          auto st = b->create<vector::StoreOp>(loc(), v, mem, idx);
          st.setAlignment(alignment(elem));
        });
      }
      return success();
    }
    // One lane per row writes a per-row scalar.
    Value first = b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::eq, lane, index(0));
    Value v = scalars.lookup(store.getValue());
    guardedEffect(andI1(writer, first), [&] {
      if (perRow)
        b->create<memref::StoreOp>(loc(), v, mem,
                                   ValueRange{scalars.lookup(store.getRow()), index(0)});
      else
        b->create<memref::StoreOp>(loc(), v, mem, ValueRange{});
    });
    return success();
  }

  /// Windowed accesses (col_offset) move whole vectors: the schedule's
  /// vector width must divide the offset and the buffer's width.
  LogicalResult checkWindow(Operation *op, int64_t width, int64_t shift) {
    if (shift % s.vec != 0 || width % s.vec != 0)
      return op->emitOpError("column offset ")
             << shift << " or width " << width << " is not a multiple of vector_width "
             << s.vec;
    return success();
  }

  Value shifted(Value col, int64_t shift) {
    if (shift == 0)
      return col;
    return b->create<arith::AddIOp>(loc(), col, index(shift));
  }

  /// Whether chunk k (in the row) maps to columns [0, width) of a buffer
  /// read or written `shift` columns to the right; null when always.
  Value windowValid(int64_t k, int64_t width, int64_t shift) {
    Value cond = chunkValid[k];
    if (shift < 0)
      cond = andI1(cond, b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::uge,
                                                  chunkCol[k], index(-shift)));
    if (width - shift < s.cols)
      cond = andI1(cond, b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::ult,
                                                  chunkCol[k], index(width - shift)));
    return cond;
  }

  /// Chunk k's elements are 0 at columns up to row % period + offset (the
  /// limit) and -inf past it (with a window W, also at limit - W and
  /// before).
  LogicalResult lowerCausalMask(tile::CausalMaskOp op) {
    auto indexVec = VectorType::get({s.vec}, b->getIndexType());
    Value limit = b->create<arith::AddIOp>(
        loc(), b->create<arith::RemUIOp>(loc(), scalars.lookup(op.getRow()), index(op.getPeriod())),
        index(static_cast<int64_t>(op.getOffset())));
    Value limitVec = b->create<vector::BroadcastOp>(loc(), indexVec, limit);
    SmallVector<int64_t> steps;
    for (int64_t i = 0; i < s.vec; ++i)
      steps.push_back(i);
    Value step = b->create<arith::ConstantOp>(loc(), b->getIndexVectorAttr(steps));
    VectorType type = vecType(b->getF32Type());
    Value zero = b->create<arith::ConstantOp>(loc(), DenseElementsAttr::get(type, 0.0f));
    Value none = b->create<arith::ConstantOp>(loc(), DenseElementsAttr::get(type, -INFINITY));
    SmallVector<Value> out;
    for (int64_t k = 0; k < s.chunks; ++k) {
      Value cols = b->create<arith::AddIOp>(
          loc(), b->create<vector::BroadcastOp>(loc(), indexVec, chunkCol[k]), step);
      Value sees = b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::sle, cols, limitVec);
      if (int64_t window = static_cast<int64_t>(op.getWindow()); window > 0)
        sees = b->create<arith::AndIOp>(
            loc(), sees,
            b->create<arith::CmpIOp>(
                loc(), arith::CmpIPredicate::sgt, cols,
                b->create<vector::BroadcastOp>(
                    loc(), indexVec, b->create<arith::SubIOp>(loc(), limit, index(window)))));
      out.push_back(b->create<arith::SelectOp>(loc(), sees, zero, none));
    }
    tiles[op.getResult()] = std::move(out);
    return success();
  }

  LogicalResult lowerSelectCols(tile::SelectColsOp op) {
    int64_t split = op.getSplit();
    if (split % s.vec != 0)
      return op.emitOpError("split ") << split << " is not a multiple of vector_width "
                                      << s.vec;
    auto low = tiles.find(op.getLow()), high = tiles.find(op.getHigh());
    if (low == tiles.end() || high == tiles.end())
      return op.emitOpError("selects between tiles that were not distributed");
    SmallVector<Value> out;
    for (int64_t k = 0; k < s.chunks; ++k) {
      Value below = b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::ult, chunkCol[k],
                                             index(split));
      out.push_back(b->create<arith::SelectOp>(loc(), below, low->second[k], high->second[k]));
    }
    tiles[op.getResult()] = std::move(out);
    return success();
  }

  /// What a row reduction computes, for combining its partials.
  struct Reduction {
    enum Kind { Sum, Max, MaxSumExp, MeanM2 } kind = Sum;
    bool base2 = false;                 // MaxSumExp: exp2 instead of exp
    // MaxSumExp: the exp's flags; MeanM2: the mean division's (for the
    // divisions only: the combines must not contract, see combineMeanM2).
    arith::FastMathFlagsAttr fastmath;
    // MaxSumExp marked kFoldedShiftAttr: a thread's exps as exp2(x L - m L).
    bool foldedShift = false;
    static Reduction of(Operation &op) {
      if (auto pair = dyn_cast<tile::ReduceMaxSumExpOp>(op))
        return {MaxSumExp, pair.getBase2(), pair.getFastmathAttr(),
                pair->hasAttr(tilec::kFoldedShiftAttr)};
      if (auto pair = dyn_cast<tile::ReduceMeanM2Op>(op))
        return {MeanM2, false, pair.getFastmathAttr()};
      return {isa<tile::ReduceMaxOp>(op) ? Max : Sum};
    }
  };

  Value combine(bool isMax, Value x, Value y) {
    if (isMax)
      return b->create<arith::MaximumFOp>(loc(), x, y);
    return b->create<arith::AddFOp>(loc(), x, y);
  }

  /// exp (or exp2) of `x` with the reduction's fast-math flags.
  Value exp(const Reduction &r, Value x) {
    Operation *e = r.base2 ? b->create<math::Exp2Op>(loc(), x).getOperation()
                           : b->create<math::ExpOp>(loc(), x).getOperation();
    if (r.fastmath)
      e->setAttr("fastmath", r.fastmath);
    return e->getResult(0);
  }

  /// What a thread's exps subtract, broadcast once: exp(v - shift), or for
  /// a pair marked kFoldedShiftAttr exp2(v L + (-(shift L))), one FMA an
  /// element with the product once (`shift L` must be finite: shift >
  /// -2^127 / L).
  struct ExpShift {
    Value shift;       // vector: shift, or -(shift L) folded
    Value log2e;       // vector of L where folded, else null
  };
  ExpShift expShift(const Reduction &r, Value shift, VectorType type) {
    if (!r.foldedShift)
      return {b->create<vector::BroadcastOp>(loc(), type, shift), Value()};
    Value log2e = f32Const(M_LOG2E);
    Value offset = b->create<arith::NegFOp>(loc(), b->create<arith::MulFOp>(loc(), shift, log2e));
    return {b->create<vector::BroadcastOp>(loc(), type, offset),
            b->create<vector::BroadcastOp>(loc(), type, log2e)};
  }
  Value expMinus(const Reduction &r, const ExpShift &shift, Value v) {
    if (!shift.log2e)
      return exp(r, b->create<arith::SubFOp>(loc(), v, shift.shift));
    auto e = b->create<math::Exp2Op>(
        loc(), b->create<math::FmaOp>(loc(), v, shift.log2e, shift.shift));
    if (r.fastmath)
      e->setAttr("fastmath", r.fastmath);
    return e;
  }

  /// The max to subtract from a group's values: `m`, or 0 when the group
  /// holds only -inf (masked lanes, padding, -inf inputs), so that
  /// exp(-inf - 0) = 0 instead of exp(-inf - -inf) = NaN.
  Value finiteOrZero(Value m) {
    Type t = m.getType();
    auto elem = getElementTypeOrSelf(t);
    auto constant = [&](double v) -> Value {
      if (llvm::isa<VectorType>(t))
        return splatConst(elem, v);
      return b->create<arith::ConstantOp>(loc(), b->getFloatAttr(elem, v));
    };
    Value negInf = constant(-INFINITY), zero = constant(0.0);
    Value allNegInf = b->create<arith::CmpFOp>(loc(), arith::CmpFPredicate::OEQ, m, negInf);
    return b->create<arith::SelectOp>(loc(), allNegInf, zero, m);
  }

  /// Two partials of `r` combined. Sums and maxima as usual; pairs as
  /// (M, s1 exp(m1 - M) + s2 exp(m2 - M)), M = max(m1, m2), with M taken
  /// as 0 when both are -inf (then s1 = s2 = 0 and so is the result).
  /// Symmetric in its operands bitwise (no contraction into an FMA). Pairs
  /// come here from a streamed row's running pair and, in order, from a
  /// cluster's CTAs; lanes and warps reduce them by reducePairOverLanes.
  SmallVector<Value> combinePartials(const Reduction &r, ArrayRef<Value> x, ArrayRef<Value> y) {
    if (r.kind == Reduction::MeanM2)
      return combineMeanM2(r, x, y);
    if (r.kind != Reduction::MaxSumExp)
      return {combine(r.kind == Reduction::Max, x[0], y[0])};
    Value m = b->create<arith::MaximumFOp>(loc(), x[0], y[0]);
    Value shift = finiteOrZero(m);
    Value sx = b->create<arith::MulFOp>(
        loc(), x[1], exp(r, b->create<arith::SubFOp>(loc(), x[0], shift)));
    Value sy = b->create<arith::MulFOp>(
        loc(), y[1], exp(r, b->create<arith::SubFOp>(loc(), y[0], shift)));
    return {m, b->create<arith::AddFOp>(loc(), sx, sy)};
  }

  /// Partials combined in the order given (the same in every thread, so
  /// all get bitwise the same result). Pairs take the max of all maxima
  /// first, then rescale every sum once: independent exps instead of a
  /// chain of pairwise combines.
  SmallVector<Value> combineInOrder(const Reduction &r, ArrayRef<SmallVector<Value>> partials) {
    if (r.kind == Reduction::MeanM2) {
      // A pairwise tree (neighbours first): equal counts stay equal, so
      // static ones fold to the cheapest combine, and the chain is log2
      // deep.
      SmallVector<SmallVector<Value>> level(partials.begin(), partials.end());
      while (level.size() > 1) {
        SmallVector<SmallVector<Value>> next;
        for (size_t i = 0; i < level.size(); i += 2)
          next.push_back(i + 1 < level.size() ? combineMeanM2(r, level[i], level[i + 1])
                                              : level[i]);
        level = std::move(next);
      }
      return level.front();
    }
    if (r.kind != Reduction::MaxSumExp) {
      SmallVector<Value> acc = partials.front();
      for (ArrayRef<Value> p : partials.drop_front())
        acc = combinePartials(r, acc, p);
      return acc;
    }
    Value m = partials.front()[0];
    for (ArrayRef<Value> p : partials.drop_front())
      m = b->create<arith::MaximumFOp>(loc(), m, p[0]);
    Value shift = finiteOrZero(m);
    Value sum;
    for (ArrayRef<Value> p : partials) {
      Value scaled = b->create<arith::MulFOp>(
          loc(), p[1], exp(r, b->create<arith::SubFOp>(loc(), p[0], shift)));
      sum = sum ? b->create<arith::AddFOp>(loc(), sum, scaled) : scaled;
    }
    return {m, sum};
  }

  /// Adds `x` to the partials for combineInOrder: sums and maxima combine
  /// at once (a running chain), pairs wait for all of them.
  void appendPartial(const Reduction &r, SmallVector<SmallVector<Value>> &partials,
                     SmallVector<Value> x) {
    if (r.kind != Reduction::MaxSumExp && r.kind != Reduction::MeanM2 && !partials.empty())
      partials.front() = combinePartials(r, partials.front(), x);
    else
      partials.push_back(std::move(x));
  }

  /// This thread's chunks of an f32 tile combined into one vector; chunks
  /// past the row's end contribute the identity.
  Value combineChunks(ArrayRef<Value> chunks, bool isMax) {
    Value identityVec = splatConst(b->getF32Type(), isMax ? -INFINITY : 0.0);
    Value acc;
    for (int64_t k = 0; k < s.chunks; ++k) {
      Value v = chunks[k];
      if (chunkValid[k])
        v = b->create<arith::SelectOp>(loc(), chunkValid[k], v, identityVec);
      acc = acc ? combine(isMax, acc, v) : v;
    }
    return acc;
  }

  /// This thread's (max, sum of exp(x - max)) over its chunks, as scalars:
  /// chunks past the row's end count as -inf, which adds exp(-inf) = 0.
  /// With `exps`, also the exp(x - max) vectors summed (per chunk).
  SmallVector<Value> threadMaxSumExp(ArrayRef<Value> chunks, const Reduction &r,
                                     SmallVector<Value> *exps = nullptr) {
    Value negInf = splatConst(b->getF32Type(), -INFINITY);
    SmallVector<Value> xs;
    Value maxVec;
    for (int64_t k = 0; k < s.chunks; ++k) {
      Value v = chunks[k];
      if (chunkValid[k])
        v = b->create<arith::SelectOp>(loc(), chunkValid[k], v, negInf);
      xs.push_back(v);
      maxVec = maxVec ? b->create<arith::MaximumFOp>(loc(), maxVec, v) : v;
    }
    Value m = vectorPartial(maxVec, /*isMax=*/true);
    ExpShift shift = expShift(r, finiteOrZero(m), cast<VectorType>(maxVec.getType()));
    Value sumVec;
    for (Value v : xs) {
      Value e = expMinus(r, shift, v);
      if (exps)
        exps->push_back(e);
      sumVec = sumVec ? b->create<arith::AddFOp>(loc(), sumVec, e) : e;
    }
    return {m, vectorPartial(sumVec, /*isMax=*/false)};
  }

  /// threadMaxSumExp over a bf16 row that stays packed (kPackedMaxAttr):
  /// the max over the packed vectors (exact: widening is monotonic), then
  /// each vector widened again for its exp, so the thread never holds an
  /// f32 copy of its whole slice.
  SmallVector<Value> threadMaxSumExpPacked(ArrayRef<Value> packed, const Reduction &r) {
    Type bf16 = b->getBF16Type(), f32 = b->getF32Type();
    Value negInf16 = splatConst(bf16, -INFINITY), negInf = splatConst(f32, -INFINITY);
    Value maxVec;
    for (int64_t k = 0; k < s.chunks; ++k) {
      Value v = packed[k];
      if (chunkValid[k])
        v = b->create<arith::SelectOp>(loc(), chunkValid[k], v, negInf16);
      maxVec = maxVec ? b->create<arith::MaximumFOp>(loc(), maxVec, v) : v;
    }
    Value m = vectorPartial(b->create<arith::ExtFOp>(loc(), vecType(f32), maxVec), /*isMax=*/true);
    // The shift: m, or -FLT_MAX for a thread of only -inf (its exps are
    // still exp(-inf) = 0). Not finiteOrZero's compare: LLVM narrows a
    // compare of a widened bf16 to a bf16 setp, which takes no .ftz
    // (flushSubnormals), and its NVPTX backend emits one anyway.
    // (Folded, the floor is -2^126: shift L must stay finite.)
    Value floor = f32Const(r.foldedShift ? -0x1p126f : -std::numeric_limits<float>::max());
    ExpShift shift = expShift(r, b->create<arith::MaximumFOp>(loc(), m, floor), vecType(f32));
    Value sumVec;
    for (int64_t k = 0; k < s.chunks; ++k) {
      Value v = b->create<arith::ExtFOp>(loc(), vecType(f32), packed[k]);
      if (chunkValid[k])
        v = b->create<arith::SelectOp>(loc(), chunkValid[k], v, negInf);
      Value e = expMinus(r, shift, v);
      if (r.fastmath && bitEnumContainsAll(r.fastmath.getValue(), arith::FastMathFlags::afn))
        e.getDefiningOp()->setAttr(tilec::kFlushExpAttr, b->getUnitAttr());
      sumVec = sumVec ? b->create<arith::AddFOp>(loc(), sumVec, e) : e;
    }
    return {m, vectorPartial(sumVec, /*isMax=*/false)};
  }

  /// divf with the pair's flags (afn: the approximate division).
  Value divide(const Reduction &r, Value x, Value y) {
    auto div = b->create<arith::DivFOp>(loc(), x, y);
    if (r.fastmath)
      div.setFastmathAttr(r.fastmath);
    return div;
  }

  /// This thread's (mean, M2, count) over its chunks, in two exact passes
  /// (the elements are in registers): the mean of its valid elements, then
  /// the sum of their squared deviations from it. Chunks past the row's
  /// end count nothing; a thread with none gives (0, 0, 0). The count is
  /// a constant when no chunk can be past the end (the same in every
  /// thread and block then).
  SmallVector<Value> threadMeanM2(ArrayRef<Value> chunks, const Reduction &r) {
    Type f32 = b->getF32Type();
    Value zero = splatConst(f32, 0.0);
    Value sumVec, count;
    int64_t fullElements = 0;
    for (int64_t k = 0; k < s.chunks; ++k) {
      Value v = chunks[k];
      if (chunkValid[k]) {
        v = b->create<arith::SelectOp>(loc(), chunkValid[k], v, zero);
        Value n = b->create<arith::SelectOp>(loc(), chunkValid[k],
                                             f32Const(static_cast<double>(s.vec)),
                                             f32Const(0.0));
        count = count ? b->create<arith::AddFOp>(loc(), count, n) : n;
      } else {
        fullElements += s.vec;
      }
      sumVec = sumVec ? b->create<arith::AddFOp>(loc(), sumVec, v) : v;
    }
    Value sum = vectorPartial(sumVec, /*isMax=*/false);
    Value mean;
    if (!count) {
      count = f32Const(static_cast<double>(fullElements));
      mean = b->create<arith::MulFOp>(loc(), sum,
                                      f32Const(1.0 / static_cast<double>(fullElements)));
    } else {
      if (fullElements > 0)
        count = b->create<arith::AddFOp>(loc(), count,
                                         f32Const(static_cast<double>(fullElements)));
      // max(n, 1): a thread with no valid element has sum 0, mean 0.
      mean = divide(r, sum, b->create<arith::MaximumFOp>(loc(), count, f32Const(1.0)));
    }
    // (Within one thread the order is fixed: contracting into FMAs is fine.)
    auto contract = arith::FastMathFlagsAttr::get(b->getContext(), arith::FastMathFlags::contract);
    Value meanVec = b->create<vector::BroadcastOp>(loc(), vecType(f32), mean);
    Value m2Vec;
    for (int64_t k = 0; k < s.chunks; ++k) {
      Value d = b->create<arith::SubFOp>(loc(), chunks[k], meanVec);
      if (chunkValid[k])
        d = b->create<arith::SelectOp>(loc(), chunkValid[k], d, zero);
      Value sq = b->create<arith::MulFOp>(loc(), d, d, contract);
      m2Vec = m2Vec ? b->create<arith::AddFOp>(loc(), m2Vec, sq, contract) : sq;
    }
    return {mean, vectorPartial(m2Vec, /*isMax=*/false), count};
  }

  /// Two (mean, M2, count) triples combined (Chan et al.): n = nA + nB,
  /// delta = meanB - meanA, mean = meanA + delta nB / n, M2 = M2A + M2B +
  /// delta^2 nA nB / n, with the mean written symmetrically,
  ///   mean = (meanA + meanB) / 2 + delta (nB - nA) / (2 n),
  /// so that the result is bitwise the same with A and B swapped (delta
  /// and nB - nA change sign together; no contraction into FMAs, which
  /// would round one product and not the other): butterfly partners agree.
  /// Counts of zero (masked tails, padding threads) are the identity
  /// without 0 / 0: n is taken as at least 1, and a partial with n = 0 has
  /// mean 0 and M2 0, so the other's mean comes back exactly. Constant
  /// counts (the same in every partial) fold: equal counts give the
  /// midpoint and delta^2 n / 4.
  SmallVector<Value> combineMeanM2(const Reduction &r, ArrayRef<Value> x, ArrayRef<Value> y) {
    Value sumOfMeans = b->create<arith::AddFOp>(loc(), x[0], y[0]);
    Value delta = b->create<arith::SubFOp>(loc(), y[0], x[0]);
    Value m2 = b->create<arith::AddFOp>(loc(), x[1], y[1]);
    Value half = f32Const(0.5);
    Value mean = b->create<arith::MulFOp>(loc(), sumOfMeans, half);
    Value deltaSq = b->create<arith::MulFOp>(loc(), delta, delta);
    std::optional<double> nx = constantValue(x[2]), ny = constantValue(y[2]);
    if (nx && ny) {
      double n = *nx + *ny;
      double skew = n > 0 ? (*ny - *nx) / (2 * n) : 0.0, weight = n > 0 ? *nx * *ny / n : 0.0;
      if (skew != 0)
        mean = b->create<arith::AddFOp>(
            loc(), mean, b->create<arith::MulFOp>(loc(), delta, f32Const(skew)));
      m2 = b->create<arith::AddFOp>(
          loc(), m2, b->create<arith::MulFOp>(loc(), deltaSq, f32Const(weight)));
      return {mean, m2, f32Const(n)};
    }
    Value n = b->create<arith::AddFOp>(loc(), x[2], y[2]);
    Value inverse = divide(r, f32Const(1.0), b->create<arith::MaximumFOp>(loc(), n, f32Const(1.0)));
    Value skew = b->create<arith::MulFOp>(
        loc(), b->create<arith::MulFOp>(loc(), b->create<arith::SubFOp>(loc(), y[2], x[2]), inverse),
        half);
    mean = b->create<arith::AddFOp>(loc(), mean, b->create<arith::MulFOp>(loc(), delta, skew));
    Value weight = b->create<arith::MulFOp>(
        loc(), b->create<arith::MulFOp>(loc(), x[2], y[2]), inverse);
    m2 = b->create<arith::AddFOp>(loc(), m2, b->create<arith::MulFOp>(loc(), deltaSq, weight));
    return {mean, m2, n};
  }

  /// A thread's vector accumulator reduced to one scalar.
  Value vectorPartial(Value acc, bool isMax) {
    return b->create<vector::ReductionOp>(
        loc(), isMax ? vector::CombiningKind::MAXIMUMF : vector::CombiningKind::ADD, acc);
  }

  /// Shared-memory slots a reduction has at each level (one per value
  /// reduced; a constant count leaves its slot unused).
  static size_t slots(const Reduction &r) {
    switch (r.kind) {
    case Reduction::MaxSumExp:
      return 2;
    case Reduction::MeanM2:
      return 3;
    default:
      return 1;
    }
  }

  /// A (max, sum of exp(x - max)) pair reduced over aligned groups of
  /// `width` lanes: the max by a butterfly, then each lane's sum rescaled to
  /// it once, then the sums by a butterfly. One exp a lane, where combining
  /// pairs at each step takes two a step; the butterflies give every lane
  /// of a group bitwise the same result (max and + commute).
  SmallVector<Value> reducePairOverLanes(const Reduction &r, ArrayRef<Value> pair,
                                         int64_t width) {
    if (width == 1)
      return SmallVector<Value>(pair);
    auto butterfly = [&](Value v, bool isMax) {
      for (int64_t offset = width / 2; offset >= 1; offset /= 2) {
        Value other = b->create<gpu::ShuffleOp>(loc(), v, static_cast<int32_t>(offset),
                                                static_cast<int32_t>(kWarpSize),
                                                gpu::ShuffleMode::XOR)
                          .getShuffleResult();
        v = combine(isMax, v, other);
      }
      return v;
    };
    Value m = butterfly(pair[0], /*isMax=*/true);
    // exp(m_lane - M'), M' = (M == -inf ? 0 : M): in [0, 1], 0 for a lane
    // of only -inf (its sum is 0 too), never exp(-inf - -inf).
    Value scale = exp(r, b->create<arith::SubFOp>(loc(), pair[0], finiteOrZero(m)));
    Value sum = butterfly(b->create<arith::MulFOp>(loc(), pair[1], scale), /*isMax=*/false);
    return {m, sum};
  }

  /// Reduces each thread's partial (one scalar, two for a pair) over the
  /// threads of its row, in one round: every value of the partial rides the
  /// same barrier and cluster exchange (and, but for a pair, whose max is
  /// reduced before its sums, the same shuffles).
  SmallVector<Value> reduceAcrossThreads(const Reduction &r, SmallVector<Value> partial) {
    // Butterfly over the lanes of one row (never crossing rows: rows occupy
    // aligned groups of TPR lanes).
    if (r.kind == Reduction::MaxSumExp)
      partial = reducePairOverLanes(r, partial, std::min(s.tpr, kWarpSize));
    else
      for (int64_t offset = std::min(s.tpr, kWarpSize) / 2; offset >= 1; offset /= 2) {
        SmallVector<Value> other;
        for (Value v : partial)
          // (A constant, a static count, is the same in every lane.)
          other.push_back(isConstant(v) ? v
                                        : b->create<gpu::ShuffleOp>(
                                                loc(), v, static_cast<int32_t>(offset),
                                                static_cast<int32_t>(kWarpSize),
                                                gpu::ShuffleMode::XOR)
                                            .getShuffleResult());
        partial = combinePartials(r, partial, other);
      }
    if (s.tpr <= kWarpSize)
      return reduceAcrossCluster(r, partial);
    ArrayRef<Value> buffers = ArrayRef<Value>(smem).slice(nextSmem, partial.size());
    nextSmem += slots(r);
    int64_t warps = s.warpsPerRow();
    Value base = b->create<arith::MulIOp>(loc(), rowInBlock, index(warps));
    Value warpInRow = b->create<arith::DivUIOp>(loc(), lane, index(kWarpSize));
    Value laneInWarp = b->create<arith::RemUIOp>(loc(), lane, index(kWarpSize));
    Value leader = b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::eq, laneInWarp, index(0));
    Value slot = b->create<arith::AddIOp>(loc(), base, warpInRow);
    guardedEffect(leader, [&] {
      for (auto [v, buffer] : llvm::zip(partial, buffers))
        if (!isConstant(v))
          b->create<memref::StoreOp>(loc(), v, buffer, ValueRange{slot});
    });
    // Each reduction has its own buffers, so one barrier suffices: no later
    // write can race with these reads.
    b->create<gpu::BarrierOp>(loc());
    if (r.kind == Reduction::MaxSumExp) {
      // Lane l takes warp (l mod W)'s pair, W = warps rounded up to a power
      // of two (lanes past the last warp take the identity (-inf, 0)), and
      // the lanes reduce them as above: one exp a thread instead of one a
      // warp, and every group of W lanes holds all the pairs, so every
      // lane gets the result, bitwise the same.
      int64_t width = static_cast<int64_t>(llvm::PowerOf2Ceil(warps));
      Value which = b->create<arith::RemUIOp>(loc(), laneInWarp, index(width));
      Value valid;
      if (width != warps) {
        valid = b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::ult, which, index(warps));
        which = b->create<arith::MinUIOp>(loc(), which, index(warps - 1));
      }
      Value at = b->create<arith::AddIOp>(loc(), base, which);
      const double identity[2] = {-INFINITY, 0.0};
      SmallVector<Value> pair;
      for (size_t i = 0; i < 2; ++i) {
        Value x = b->create<memref::LoadOp>(loc(), buffers[i], ValueRange{at});
        if (valid)
          x = b->create<arith::SelectOp>(loc(), valid, x, f32Const(identity[i]));
        pair.push_back(x);
      }
      return reduceAcrossCluster(r, reducePairOverLanes(r, pair, width));
    }
    SmallVector<SmallVector<Value>> warpPartials;
    for (int64_t w = 0; w < warps; ++w) {
      Value at = b->create<arith::AddIOp>(loc(), base, index(w));
      SmallVector<Value> x;
      for (auto [v, buffer] : llvm::zip(partial, buffers))
        x.push_back(isConstant(v) ? v
                                  : b->create<memref::LoadOp>(loc(), buffer, ValueRange{at}));
      appendPartial(r, warpPartials, x);
    }
    return reduceAcrossCluster(r, combineInOrder(r, warpPartials));
  }

  /// Combines the CTA partials `partial` of a row split over a cluster
  /// (identity outside one): thread 0 publishes the CTA's partial in slots
  /// of its own (one per reduced value, never rewritten), the cluster
  /// barrier (arrive releases, wait acquires) makes every slot visible, then
  /// each thread reads the C partials through distributed shared memory
  /// (mapa to each rank, ld.shared::cluster) and combines them in rank
  /// order: the same order in every CTA, so all get bitwise the same
  /// result. Every thread of every CTA (masked rows and column blocks
  /// included, with the identity) reaches each barrier: nothing returns
  /// early.
  SmallVector<Value> reduceAcrossCluster(const Reduction &r, ArrayRef<Value> partial) {
    if (s.cluster == 1)
      return SmallVector<Value>(partial);
    MLIRContext *ctx = b->getContext();
    ArrayRef<Value> slots =
        ArrayRef<Value>(clusterSmem).slice(nextClusterSmem, partial.size());
    nextClusterSmem += this->slots(r);
    Value first = b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::eq, lane, index(0));
    guardedEffect(first, [&] {
      for (auto [v, slot] : llvm::zip(partial, slots))
        if (!isConstant(v))
          b->create<memref::StoreOp>(loc(), v, slot, ValueRange{index(0)});
    });
    b->create<NVVM::ClusterArriveOp>(loc(), b->getUnitAttr());
    b->create<NVVM::ClusterWaitOp>(loc(), b->getUnitAttr());
    SmallVector<Value> local;
    for (auto [v, slot] : llvm::zip(partial, slots)) {
      if (isConstant(v)) {
        local.push_back(v); // (uniform: read by no CTA)
        continue;
      }
      Value address = b->create<arith::IndexCastOp>(
          loc(), b->getI64Type(), b->create<memref::ExtractAlignedPointerAsIndexOp>(loc(), slot));
      local.push_back(
          b->create<LLVM::IntToPtrOp>(loc(), LLVM::LLVMPointerType::get(ctx, 3), address));
    }
    auto clusterPtr = LLVM::LLVMPointerType::get(ctx, 7);
    SmallVector<SmallVector<Value>> ctaPartials;
    for (int64_t rank = 0; rank < s.cluster; ++rank) {
      Value rankValue = b->create<arith::ConstantOp>(loc(), b->getI32IntegerAttr(rank));
      SmallVector<Value> x;
      for (Value ptr : local) {
        if (isConstant(ptr)) {
          x.push_back(ptr);
          continue;
        }
        Value remote = b->create<NVVM::MapaOp>(loc(), clusterPtr, ptr, rankValue);
        x.push_back(b->create<LLVM::LoadOp>(loc(), b->getF32Type(), remote));
      }
      appendPartial(r, ctaPartials, x);
    }
    SmallVector<Value> result = combineInOrder(r, ctaPartials);
    // The kernel's exit barrier: arrive once the last remote read is done
    // (release orders it first), wait at the return, so the rest of the
    // kernel (the stores) overlaps the other CTAs' reads.
    if (--clusterReductionsLeft == 0)
      b->create<NVVM::ClusterArriveOp>(loc(), b->getUnitAttr());
    return result;
  }

  LogicalResult lowerReduce(Operation &op) {
    auto it = tiles.find(op.getOperand(0));
    if (it == tiles.end())
      return op.emitOpError("reduces a tile that was not distributed");
    Reduction r = Reduction::of(op);
    auto pair = dyn_cast<tile::ReduceMaxSumExpOp>(op);
    bool keepExps = pair && pair.getExp();
    SmallVector<Value> partial, exps;
    if (r.kind == Reduction::MeanM2) {
      partial = threadMeanM2(it->second, r);
    } else if (pair) {
      auto ext = pair.getInput().getDefiningOp<arith::ExtFOp>();
      auto packed = ext ? tiles.find(ext.getIn()) : tiles.end();
      if (!keepExps && pair->hasAttr(tilec::kPackedMaxAttr) && packed != tiles.end() &&
          getElementTypeOrSelf(ext.getIn().getType()).isBF16())
        partial = threadMaxSumExpPacked(packed->second, r);
      else
        partial = threadMaxSumExp(it->second, r, keepExps ? &exps : nullptr);
    } else {
      bool isMax = r.kind == Reduction::Max;
      partial = {vectorPartial(combineChunks(it->second, isMax), isMax)};
    }
    SmallVector<Value> reduced = reduceAcrossThreads(r, partial);
    for (auto [result, v] : llvm::zip(op.getResults(), reduced))
      scalars.map(result, v);
    if (keepExps) {
      // exp(x - M) = exp(x - m_t) * exp(m_t - M'): one exp a thread. m_t <=
      // M, and M' = (M == -inf ? 0 : M) is finite, so the scale is in [0, 1]
      // and never NaN: a thread of only -inf (m_t = -inf, its exps 0 since
      // it subtracted 0) gets exp(-inf) = 0, not exp(-inf - -inf).
      Value scale = exp(r, b->create<arith::SubFOp>(loc(), partial[0], finiteOrZero(reduced[0])));
      Value scaleVec = b->create<vector::BroadcastOp>(loc(), vecType(b->getF32Type()), scale);
      SmallVector<Value> out;
      for (Value e : exps)
        out.push_back(b->create<arith::MulFOp>(loc(), e, scaleVec));
      tiles[pair.getExp()] = std::move(out);
    }
    return success();
  }

  func::FuncOp fn;
  RowSchedule s;
  std::unique_ptr<OpBuilder> b;
  Value lane, rowInBlock, row, rowValid, colBlock, rowCount;
  SmallVector<Value> chunkCol, chunkValid;
  DenseMap<Value, SmallVector<Value>> tiles;
  // l2_prefetch_rows: the rows ahead are prefetched (at the first row load).
  bool l2Prefetched = false;
  // Unshifted whole-row loads by (buffer, row): windowed loads of the same
  // row may reuse their registers.
  DenseMap<std::pair<Value, Value>, Value> wholeRows;
  // Streamed pairs with an exp tile: the row's M' = (M == -inf ? 0 : M),
  // computed once after the reduction, for the store pass's exps.
  DenseMap<Operation *, Value> streamedShift;
  // stream-shared: each staged row input's shared-memory view; those whose
  // first pass is built (`staged`: later loads read shared memory) or is
  // being built (`pendingStaged`).
  DenseMap<Value, Value> stageBuffers;
  // row-prefetch: each prefetched input's ring (program order), and the
  // offset of the current iteration's stage in it.
  llvm::MapVector<Value, Value> prefetchRings;
  Value prefetchSlot;
  // staged_weights: each weight's buffer, and the copies' group until the
  // first read waits for it.
  // (weightSources: stagedWeights, the scheduler's list, found once.)
  SmallVector<Value> weightSources;
  llvm::MapVector<Value, Value> weightBuffers;
  Value weightGroup;
  llvm::DenseSet<Value> staged, pendingStaged;
  IRMapping scalars;
  SmallVector<Value> smem, clusterSmem;
  size_t nextSmem = 0, nextClusterSmem = 0;
  int64_t clusterReductionsLeft = 0;
};

struct DistributeRowTilesPass
    : tilec::impl::DistributeRowTilesBase<DistributeRowTilesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr("tile.kernel") && !fn->hasAttr("tile.gemm") &&
          !fn->hasAttr(tilec::kTransposeTilesAttr))
        kernels.push_back(fn);
    if (kernels.empty())
      return;
    OpBuilder kb = OpBuilder::atBlockBegin(kernelModule(module).getBody());
    for (func::FuncOp fn : kernels) {
      FailureOr<RowSchedule> s = readSchedule(fn);
      if (failed(s))
        return signalPassFailure();
      RowTileDistributor distributor(fn, *s);
      if (failed(distributor.run(kb)))
        return signalPassFailure();
      fn.erase();
    }
  }
};

} // namespace
