// tilec-schedule-row-kernels: picks the thread layout of each row kernel.
//
// A row of C elements is cut into vectors of V elements (16 bytes of the
// widest element type the kernel moves, smaller when C is not a multiple).
// TPR threads share a row, each holding `chunks` vectors in registers; short
// rows pack several rows into one CTA so a CTA never has fewer than
// min-threads-per-block threads. Kernels without reductions may split a
// row over `col_blocks` CTAs; rows with reductions too wide for registers
// are streamed over `stream_blocks` column blocks (multi-pass). On sm_90a a
// few wide rows with reductions are split over a cluster of `cluster` =
// `col_blocks` CTAs that combine their partial reductions through
// distributed shared memory.
#include "tilec/Passes/Passes.h"

#include "llvm/Support/MathExtras.h"

#include <limits>
#include <numeric>

namespace tilec {
#define GEN_PASS_DEF_SCHEDULEROWKERNELS
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

// Vectors each thread keeps in flight: enough independent 16-byte loads to
// cover memory latency without crowding registers.
constexpr int64_t kTargetChunksPerThread = 4;
// SMs of an H100 / H200 (SXM): the CTAs of one wave on sm_90a.
constexpr int64_t kHopperSms = 132;
// The CTAs a grid needs for row-l2-prefetch's choice: 8 an SM (measured
// from 2112 up).
constexpr int64_t kRowL2PrefetchMinCtas = 8 * kHopperSms;
// The row bytes (of all row inputs) from which row-l2-prefetch's choice is
// none (measured on an H200 at 128 KiB and more).
constexpr int64_t kRowL2PrefetchMaxRowBytes = 128 * 1024;
// row-chunks=0 (auto): vectors a thread keeps in kernels with reductions,
// and one in those of one reduction over rows of at least this many
// vectors (bf16 rows of 1024 columns: the narrowest measured).
constexpr int64_t kRowChunks = 4;
constexpr int64_t kOneReductionMinVectors = 128;
// The row-input bytes a thread loads (its vectors of every row input) up to
// which a kernel without reductions has its rows ahead chosen: 32 (one
// 16-byte vector of each of two row inputs, or two of one). Measured (run
// s41a, H100): f32 silu_mul and elementwise_chain, two vectors of each of
// two row inputs (64 bytes), 0.4-1.7% slower with 1 MiB ahead than with
// none and slower still with 2 MiB; their bf16 kernels (32 bytes)
// 1.0-5.5% faster, rope (32 bytes in bf16 and f32) 0.6-5.5% faster. The
// vectors of such kernels are cut to these bytes (below).
constexpr int64_t kRowL2PrefetchElementwiseMaxThreadBytes = 32;
// The largest portable cluster (larger ones need an opt-in at launch).
constexpr int64_t kMaxCluster = 8;
// The largest cluster row-cluster may ask for: 16, the H100/H200's
// non-portable size (the runtime opts the kernel in).
constexpr int64_t kMaxNonPortableCluster = 16;
// A row's slice in one CTA of a cluster: at least this many vectors a
// thread of a full CTA.
constexpr int64_t kClusterSliceVectorsPerThread = 2;
// Clusters of C CTAs (index C) that fit the H200 at once, one CTA an SM:
// the driver's count (cudaOccupancyMaxActiveClusters, run zo,
// tests/gpu/probes/cluster_slots.cu). A cluster's CTAs must share a GPC,
// so GPCs of 16 or 18 SMs leave SMs over: 15 clusters of 8 (120 SMs), 17
// of 6. A kernel with more clusters than this doubles CTAs up on some SMs,
// and its rows wait for the slowest (measured: softmax bf16 [15, 131072]
// in clusters of 8 6.3 us, [16, 131072] 7.9).
constexpr int64_t kHopperClusterSlots[kMaxCluster + 1] = {0, 132, 66, 39, 30, 22, 17, 15, 15};
// A cluster CTA's slice is heavy from this many vectors a thread of a full
// CTA: a second CTA on an SM then costs a whole CTA's time, and the
// cluster must fit kHopperClusterSlots.
constexpr int64_t kHeavySliceVectorsPerThread = 4;
// The cluster size for many rows too wide for one CTA (see schedule()), and
// for bf16 ones the cluster size and CTA size (four CTAs an SM).
constexpr int64_t kManyRowsCluster = 4;
constexpr int64_t kManyRowsClusterBF16 = 8;
constexpr int64_t kManyRowsThreadsBF16 = 256;
// Marks a kernel schedule() gave that split (read by the same pass).
constexpr llvm::StringLiteral kManyBF16RowsAttr = "tile.many_bf16_rows";
/// Shared memory a CTA may opt in to: 227 KB on sm_90, 163 KB on sm_80,
/// 99 KB on sm_86 and sm_89.
int64_t maxSharedBytes(llvm::StringRef target) {
  if (target.starts_with("sm_90"))
    return 232448;
  if (target == "sm_80")
    return 166912;
  return 101376;
}

struct ScheduleRowKernelsPass
    : tilec::impl::ScheduleRowKernelsBase<ScheduleRowKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    // The three-way options: auto, true or false.
    for (auto [name, value] : {std::pair<const char *, const std::string &>{"online-softmax",
                                                                           onlineSoftmax},
                               {"stream-shared", streamShared},
                               {"row-loop", rowLoop},
                               {"sink-loads", sinkLoads},
                               {"rewiden", rewiden},
                               {"recompute-exp", recomputeExp},
                               {"stage-weights", stageWeights},
                               {"row-scalars", rowScalars},
                               {"fold-into-exp", foldIntoExp},
                               {"welford", welford},
                               {"row-l2-prefetch-first", rowL2PrefetchFirst}}) {
      if (value != "auto" && value != "true" && value != "false") {
        getOperation().emitError() << name << " must be auto, true or false, got '" << value
                                   << "'";
        return signalPassFailure();
      }
    }
    if (rowL2Prefetch < -1) {
      getOperation().emitError() << "row-l2-prefetch must be >= -1 (-1: chosen, 0: off), got "
                                 << static_cast<int64_t>(rowL2Prefetch);
      return signalPassFailure();
    }
    if (rowL2PrefetchBytes < 1) {
      getOperation().emitError() << "row-l2-prefetch-bytes must be >= 1, got "
                                 << static_cast<int64_t>(rowL2PrefetchBytes);
      return signalPassFailure();
    }
    if (rowL2PrefetchElementwiseBytes < 0) {
      getOperation().emitError()
          << "row-l2-prefetch-elementwise-bytes must be >= 0 (0: none), got "
          << static_cast<int64_t>(rowL2PrefetchElementwiseBytes);
      return signalPassFailure();
    }
    if (rowPrefetch != 0 && (rowPrefetch < 2 || rowPrefetch > 4)) {
      getOperation().emitError() << "row-prefetch must be 0 (off) or 2 to 4 stages, got "
                                 << static_cast<int64_t>(rowPrefetch);
      return signalPassFailure();
    }
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn->hasAttr("tile.kernel"))
        continue;
      if (fn->hasAttr("tile.attention")) {
        if (failed(scheduleAttention(fn)))
          return signalPassFailure();
        continue;
      }
      if (fn->hasAttr("tile.gemm")) {
        if (failed(scheduleGemm(fn)))
          return signalPassFailure();
        continue;
      }
      if (failed(schedule(fn)))
        return signalPassFailure();
      // How the row is reduced, not what: one round for softmax's max and
      // sum of exp instead of two, where a round is worth saving (true) and
      // where that was measured faster (auto).
      if (onlineSoftmax != "false" && onlineSoftmaxSavesARound(fn, onlineSoftmax == "auto"))
        tilec::formOnlineSoftmax(fn);
      // Likewise layer_norm's mean and squared deviations (true: in every
      // row kernel, so rows within one warp can be compared too).
      if (welford == "true" || (welford == "auto" && welfordSavesARound(fn)))
        tilec::formWelford(fn);
      // Rows held in registers, not streamed.
      bool inRegisters = fn->hasAttr("tile.schedule") && scheduleValue(fn, "stream_blocks") == 0;
      // Softmax rows whose exps recompute-exp makes again past the
      // reduction (below); auto also folds their division by the sum into
      // one reciprocal a row (row-scalars=auto there: 2.4% faster at bf16
      // [4096, 131072], run s14g).
      bool recomputeAuto = recomputeExp == "auto" && inRegisters && recomputeMeasuredFaster(fn);
      // Rows held in registers: weights and biases loaded where they are
      // used, not across the reductions (streamed rows keep their order).
      // Always where the row takes half the registers: there the loads at
      // the top spill (f32 [4096, 32768] at 512 threads: layer_norm 340
      // bytes with the Welford pair, 1944 with two rounds, rms_norm 48),
      // sunk they do not. auto adds the rows where it measured faster
      // (sinkingMeasuredFaster; elsewhere it was 1-3% slower).
      if (inRegisters && (sinkLoads == "true" || rowTakesHalfTheRegisters(fn) ||
           (sinkLoads == "auto" && sinkingMeasuredFaster(fn))))
        tilec::sinkLoadsPastReductions(fn);
      if (inRegisters && rewiden == "true")
        tilec::rewidenPastReductions(fn);
      // Softmax rows in registers: the packed bf16 row, not its exp tile,
      // lives across the reduction (the exp made again past it). auto: many
      // rows split over clusters (recomputeMeasuredFaster), under fast math.
      // A row's scalars applied once (fast math), after the pairs are formed
      // (they match x - mean and exp(x - max) as written). With
      // fold-into-exp, after the exps are made again past the reduction too:
      // their x - M and the division by the sum fold into the exp's
      // argument, and the pairs' own exps take x L - m L. auto: where
      // recompute-exp=auto makes them again (1.4-3.6% faster at bf16 rows
      // of 100000-131072 columns in clusters, run s18a).
      bool foldScalars = rowScalars != "false" || recomputeAuto;
      bool intoExps = foldIntoExp == "true" || (foldIntoExp == "auto" && recomputeAuto);
      if (foldScalars && !intoExps)
        tilec::foldRowScalars(fn, rowScalars == "true", /*intoExps=*/false);
      if ((inRegisters && recomputeExp == "true") || recomputeAuto)
        tilec::recomputeExpsPastReduction(fn, /*onlyFastMath=*/recomputeAuto,
                                          /*contract=*/foldScalars && intoExps);
      if (foldScalars && intoExps)
        tilec::foldRowScalars(fn, rowScalars == "true", /*intoExps=*/true);
      // (Not capped at 64 registers: four CTAs of 256 an SM need 64 or
      // fewer, which ptxas gives rows of 131072 by itself, and the cap made
      // those 2% slower: bf16 [4096, 131072] 599 -> 613 us, runs s15d and
      // s15e. A row whose last slice ends mid-chunk, bf16 [200, 100000],
      // takes 74, three CTAs an SM; 64 without spills under the cap, not
      // measured.)
      fn->removeAttr(kManyBF16RowsAttr);
    }
  }

  /// Whether the online pair saves a round that costs more than its exps
  /// (the schedule is the same either way): rows spanning several warps (a
  /// CTA barrier and a shared-memory round trip), rows split over a cluster
  /// (two cluster barriers and a DSMEM exchange) and streamed rows (a pass
  /// over the row in HBM). A row within one warp only saves a butterfly of
  /// shuffles, which the pair rides anyway with both values, plus an exp a
  /// step; there it keeps max, then sum (measured, docs/architecture.md:
  /// same shuffle count, 10 more ex2 and up to 8 more registers a thread).
  ///
  /// `measuredFaster` (online-softmax=auto) keeps only rows split over a
  /// cluster: on the H200 (docs/perf.md, sixth session, same run) the pair
  /// took 4-9% off f32 [16, 32768] and [16, 131072] and bf16 [16, 32768],
  /// was within 1% on rows of one CTA, and made the streamed bf16 [4096,
  /// 32768] 7% slower (the re-read pass it saves hits L2; the rescaled sums
  /// cost exps in the loop that the max-only pass did not have).
  static bool onlineSoftmaxSavesARound(func::FuncOp fn, bool measuredFaster) {
    auto get = [&](StringRef key) { return scheduleValue(fn, key); };
    if (measuredFaster)
      return get("cluster") > 1;
    return get("threads_per_row") > 32 || get("cluster") > 1 || get("stream_blocks") > 0;
  }

  /// Whether the (mean, M2) pair is predicted faster than mean, then
  /// squared deviations: where the second round costs a CTA barrier and a
  /// shared-memory round trip (rows over several warps), two cluster
  /// barriers and a DSMEM exchange (rows split over a cluster) or a pass
  /// over the row (streamed rows). Unlike online softmax's, the pair's
  /// combine needs no exp (a few multiplies and adds; a reciprocal where
  /// counts differ, which static counts fold away), so it should win
  /// wherever a round is saved. A row within one warp saves only a
  /// butterfly of shuffles, which the pair rides with both values plus a
  /// combine a step: there it keeps two rounds. Measured on an H100
  /// (docs/perf.md, forty-fifth session): over clusters the pair is
  /// 11-19% faster; in one CTA level, or slower where a thread has few
  /// values to hide the combine behind (1.8% at 128 threads of four
  /// vectors, 20% at 512 of one), so "saves a round" is not yet "faster"
  /// there; the default stays welford=true, from the H200.
  static bool welfordSavesARound(func::FuncOp fn) {
    return scheduleValue(fn, "threads_per_row") > 32 || scheduleValue(fn, "cluster") > 1 ||
           scheduleValue(fn, "stream_blocks") > 0;
  }

  /// sink-loads=auto beyond the rows that must sink: 16-bit rows spread
  /// over 256 threads or more that load two vectors shared by all rows
  /// (a weight and a bias) ahead of their first reduction. Measured on the
  /// H200 in three sessions' same-run A/Bs (docs/perf.md): layer_norm bf16
  /// [4096, 8192] (80 -> 63 registers, 3 -> 4 CTAs of 256 threads an SM)
  /// 3-4% faster each time, while the same sinking at [8192, 4096] and
  /// [16384, 4096] (128 threads a row) and for rms_norm (one weight) was
  /// 1-3% slower: with one vector, or with small CTAs that already overlap
  /// each other's reductions, the exposed load latency costs more than the
  /// extra CTA gives.
  /// (It runs before any load is sunk: LowerFusionToTile puts every load
  /// ahead of the first reduction.)
  static bool sinkingMeasuredFaster(func::FuncOp fn) {
    if (scheduleValue(fn, "threads_per_row") < 256)
      return false;
    bool sixteenBit = true, rows = false;
    for (Operation &op : fn.getBody().front()) {
      if (tilec::isRowReduction(&op))
        break;
      if (auto load = dyn_cast<tilec::tile::LoadOp>(op); load && load.getRow()) {
        rows = true;
        sixteenBit &= llvm::cast<MemRefType>(load.getSource().getType())
                          .getElementTypeBitWidth() == 16;
      }
    }
    return rows && sixteenBit && sharedVectorLoads(fn) >= 2;
  }

  /// Vectors shared by every row (1-D loads without a row: weights,
  /// biases) that the kernel loads.
  static int64_t sharedVectorLoads(func::FuncOp fn) {
    int64_t shared = 0;
    fn.walk([&](tilec::tile::LoadOp load) {
      if (!load.getRow() && llvm::cast<MemRefType>(load.getSource().getType()).getRank() == 1)
        ++shared;
    });
    return shared;
  }

  /// recompute-exp=auto: where it measured faster on the H200 (docs/perf.md,
  /// fourteenth session): softmax bf16 [4096, 131072] in clusters of 4,
  /// 768 -> 680 us, 662 with the division folded (64 registers a thread
  /// instead of 126: two CTAs an SM, so one CTA's loads overlap the other's
  /// reduction and stores; 1024 and 264 rows 1.15x and 1.19x). With 64 rows
  /// the extra exp an element is not hidden (15.0 -> 16.7 us, with
  /// flushSubnormals): at least four waves of CTAs, two an SM.
  /// In the bf16 rows' clusters of 8 CTAs of 256 (schedule()) at every row
  /// count (fifteenth session, run s15d: 4096 rows 780 -> 599 us, 64 rows
  /// 15.8 -> 14.7; 94 registers without it, 64 with).
  static bool recomputeMeasuredFaster(func::FuncOp fn) {
    auto domain = fn->getAttrOfType<DenseI64ArrayAttr>("tile.domain");
    int64_t cluster = scheduleValue(fn, "cluster");
    if (!domain || domain.size() != 2 || scheduleValue(fn, "col_blocks") != cluster)
      return false;
    if (manyBF16RowsInClustersOf8(fn))
      return true;
    return cluster == kManyRowsCluster && domain[0] * cluster >= 4 * 2 * kHopperSms;
  }

  /// Whether schedule() split the kernel's many bf16 rows over clusters of
  /// kManyRowsClusterBF16 CTAs of kManyRowsThreadsBF16 (kManyBF16RowsAttr).
  static bool manyBF16RowsInClustersOf8(func::FuncOp fn) {
    return fn->hasAttr(kManyBF16RowsAttr) &&
           scheduleValue(fn, "cluster") == kManyRowsClusterBF16 &&
           scheduleValue(fn, "threads_per_row") == kManyRowsThreadsBF16;
  }

  /// Whether every row input of the kernel (loads with a row) is bf16.
  static bool rowInputsAreBF16(func::FuncOp fn) {
    bool any = false, all = true;
    fn.walk([&](tilec::tile::LoadOp load) {
      if (!load.getRow())
        return;
      any = true;
      all &= llvm::cast<MemRefType>(load.getSource().getType()).getElementType().isBF16();
    });
    return any && all;
  }

  /// Whether a row kernel's row alone takes half the registers its threads
  /// may have (65536 a CTA, at most 255 a thread): 64 values a thread at
  /// 512 threads, 32 at 1024. There weight and bias loads at the top spill
  /// or, at 1024 threads, do not fit at all.
  static bool rowTakesHalfTheRegisters(func::FuncOp fn) {
    int64_t values = scheduleValue(fn, "chunks") * scheduleValue(fn, "vector_width");
    int64_t threads = scheduleValue(fn, "threads_per_row") * scheduleValue(fn, "rows_per_block");
    if (values == 0 || threads == 0)
      return false;
    return 2 * values >= std::min<int64_t>(65536 / threads, 255);
  }

  static constexpr int64_t kStreamSharedBytes = 112 * 1024;
  /// Bytes of shared memory for `elements` elements of each of `sources`
  /// (16-byte aligned) that cp.async fills in vectors of `vec`; 0 where a
  /// vector is not 4, 8 or 16 bytes (cp.async's sizes), there are no
  /// sources, or they pass kStreamSharedBytes.
  static int64_t cpAsyncBytes(ArrayRef<Value> sources, int64_t vec, int64_t elements) {
    int64_t bytes = 0;
    for (Value source : sources) {
      int64_t bits = llvm::cast<MemRefType>(source.getType()).getElementTypeBitWidth();
      int64_t vectorBytes = vec * bits / 8;
      if (vectorBytes != 4 && vectorBytes != 8 && vectorBytes != 16)
        return 0;
      bytes += llvm::alignTo(elements * bits / 8, 16);
    }
    return bytes <= kStreamSharedBytes ? bytes : 0;
  }
  // row-loop: kernels with fewer row blocks are left one CTA a block.
  static constexpr int64_t kRowLoopMinBlocks = 1024;

  /// An entry of the kernel's tile.schedule (0 when absent).
  static int64_t scheduleValue(func::FuncOp fn, StringRef key) {
    auto schedule = fn->getAttrOfType<DictionaryAttr>("tile.schedule");
    auto a = schedule ? schedule.getAs<IntegerAttr>(key) : IntegerAttr();
    return a ? a.getInt() : 0;
  }

  void setSchedule(func::FuncOp fn, int64_t vec, int64_t tpr, int64_t rowsPerBlock,
                   int64_t chunks, int64_t colBlocks, int64_t streamBlocks,
                   int64_t cluster = 1) {
    Builder b(fn.getContext());
    SmallVector<NamedAttribute> entries{
        b.getNamedAttr("vector_width", b.getI64IntegerAttr(vec)),
        b.getNamedAttr("threads_per_row", b.getI64IntegerAttr(tpr)),
        b.getNamedAttr("rows_per_block", b.getI64IntegerAttr(rowsPerBlock)),
        b.getNamedAttr("chunks", b.getI64IntegerAttr(chunks)),
        b.getNamedAttr("col_blocks", b.getI64IntegerAttr(colBlocks)),
        b.getNamedAttr("stream_blocks", b.getI64IntegerAttr(streamBlocks))};
    if (cluster > 1) // (only then: other schedules read as before)
      entries.push_back(b.getNamedAttr("cluster", b.getI64IntegerAttr(cluster)));
    fn->setAttr("tile.schedule", b.getDictionaryAttr(entries));
    // one-wave-registers: a grid of one wave (at most a CTA an SM of the
    // H200) of CTAs that can have 255 registers a thread (<= 256 threads)
    // is capped at 255, as the GEMMs' always are (below): ptxas otherwise
    // aims at the registers of several CTAs an SM and may spill for them
    // (a rope of [100, 2048] f32 in 100 CTAs of 256 threads: 32 registers
    // and 8 bytes of stack; a concat + layer_norm of bf16 [64, 64] in one
    // CTA: 72 and 4; found by FuzzTest, 2 graphs in about 4000). Off by
    // default: measured no faster on the 17 of the 144 example kernels
    // whose SASS it changes (docs/perf.md, twentieth session, run s19b),
    // and the cap would make the PTX of a symbolic-token kernel differ
    // between few and many tokens (two modules where one is loaded now).
    int64_t rows = 1;
    if (auto domain = fn->getAttrOfType<DenseI64ArrayAttr>("tile.domain"))
      for (int64_t d : domain.asArrayRef().drop_back())
        rows *= d;
    int64_t grid = llvm::divideCeil(rows, rowsPerBlock) * colBlocks;
    int64_t threads = tpr * rowsPerBlock;
    // full-cta-registers: CTAs of 1024 threads are capped at 64, the most
    // the register file gives them anyway (65536 / 1024), so no occupancy
    // changes. Left to .maxntid alone, ptxas spilled there at 64 registers
    // (bf16 and f16 add_rms_norm [4096, 32768]: 16 and 20 bytes), with the
    // cap it did not, at the same 64; found by a sweep of the examples'
    // shapes through ptxas. (f32 rows there spill 36 bytes either way: 32
    // values of the sum and both rows' loads in flight.) The row count
    // plays no part: one module serves any number of tokens.
    int64_t cap = maxRegisters > 0 ? static_cast<int64_t>(maxRegisters)
                  : oneWaveRegisters && grid <= kHopperSms && threads <= 256 ? 255
                  : fullCtaRegisters && threads >= 1024                      ? 64
                                                                             : 0;
    if (cap > 0)
      fn->setAttr("tile.max_registers", b.getI64IntegerAttr(cap));
    if (readonlyInputs)
      fn->setAttr(tilec::kReadonlyInputsAttr, b.getUnitAttr());
  }

  /// Sets a GEMM kernel's `tile.schedule` (the entries, plus group_m:
  /// tiles ordered in groups of that many block rows; gemm-group-m, else
  /// `groupM`) and the register cap. Entries with value -1 are left out.
  /// Splits of a GEMM's `kSteps` k steps (of `depth` K in all) over CTAs
  /// (gemm-split-k) for a grid of `tiles` tiles: the option's count (1:
  /// none; at most the steps), or (0: chosen) doubled while twice the CTAs
  /// still fit in one wave of the H200, the steps divide evenly and each
  /// split keeps `minSteps` or more; kept where that reaches 4 splits of a
  /// K of 2048 or more, or 2 splits of a K of `twoSplitDepth` or more (0:
  /// never). The last split's hand-off (its partial sums out, an atomic,
  /// the others' sums in) costs about 1.5-3.5 us, which 4 k steps a split
  /// do not repay (runs s21b, s25a: 260 x 512 x 500 and 512^3 1.18-1.50x
  /// slower at 2 splits), nor 2 splits of an mma.sync decode grid (16 x
  /// 2048 x 4096, 1.03x); 4-8 splits of deep K are 1.3-1.9x faster (16 x
  /// 1024 x 14336 31.8 -> 17.0 us, 128 x 1024 x 4096 21.6 -> 13.6), and 2
  /// splits of 64 wgmma tiles over a K of 4096 1.33-1.37x (run s25a: 128 x
  /// 2048 x 4096 21.8 -> 16.5 us, 192 x 1024 x 4096 21.0 -> 15.3).
  FailureOr<int64_t> splitSteps(func::FuncOp fn, int64_t tiles, int64_t kSteps, int64_t depth,
                                int64_t minSteps, int64_t twoSplitDepth = 0) {
    if (gemmSplitK < 0)
      return fn.emitOpError("gemm-split-k must be >= 0 (0: chosen, 1: no split), got ")
             << static_cast<int64_t>(gemmSplitK);
    if (gemmSplitK > 0)
      return std::max<int64_t>(1, std::min<int64_t>(gemmSplitK, kSteps));
    int64_t split = 1;
    while (tiles * split * 2 <= kHopperSms && kSteps % (split * 2) == 0 &&
           kSteps / (split * 2) >= minSteps)
      split *= 2;
    if (split >= 4 && depth >= 2048)
      return split;
    return split == 2 && twoSplitDepth > 0 && depth >= twoSplitDepth ? split : 1;
  }

  /// The schedule's l2_prefetch_bytes (gemm-l2-prefetch): what each CTA
  /// of a GEMM with an [N, K] rhs prefetches into L2 before its
  /// griddepcontrol.wait. Chosen for GEMMs of at most 64 rows under
  /// dependent launch: decode's and small batches' weight streams, which
  /// the kernels ahead of them (a norm, RoPE: one or two CTAs) leave HBM
  /// idle for. 32 KB: measured the fastest of 16-128 KB (run s36b, H100:
  /// the decode layer 1.7-2.2% faster than none; 256 KB and 1 MB slower
  /// than none, as the prefetches delay the small kernel ahead). -1: none.
  int64_t l2PrefetchBytes(bool transB, int64_t rows) const {
    return transB ? prefetchChoice(gemmL2Prefetch, dependentLaunch && rows <= 64 ? 32768 : -1)
                  : -1;
  }

  /// The same for flash-attention kernels (attention-l2-prefetch): split
  /// keys (decode) under dependent launch read their share of the cache
  /// while the kernel ahead (RoPE of k and the cache stores, one CTA) runs.
  /// 64 KB (half k, half v): run s36b, 0.3-0.6 us faster than none where
  /// 256 KB was 1.8 us slower.
  int64_t attentionL2PrefetchBytes(int64_t split) const {
    return prefetchChoice(attentionL2Prefetch, dependentLaunch && split > 1 ? 65536 : -1);
  }

  /// A prefetch option's bytes: none (-1) where it is 0 or off sm_90 (LLVM's
  /// NVPTX backend selects the prefetch intrinsic only there), the option
  /// where it is positive, else (-1) `chosen`.
  int64_t prefetchChoice(int64_t option, int64_t chosen) const {
    if (option == 0 || !llvm::StringRef(target).starts_with("sm_90"))
      return -1;
    return option > 0 ? option : chosen;
  }

  void setGemmSchedule(func::FuncOp fn, ArrayRef<std::pair<StringRef, int64_t>> entries,
                       int64_t groupM = 8, int64_t registers = 0) {
    Builder b(fn.getContext());
    SmallVector<NamedAttribute> attrs{
        b.getNamedAttr("group_m", b.getI64IntegerAttr(gemmGroupM > 0 ? gemmGroupM : groupM))};
    for (auto [name, value] : entries)
      if (value != -1)
        attrs.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(value)));
    fn->setAttr("tile.schedule", b.getDictionaryAttr(attrs));
    if (int64_t cap = maxRegisters > 0 ? static_cast<int64_t>(maxRegisters) : registers)
      fn->setAttr("tile.max_registers", b.getI64IntegerAttr(cap));
  }

  /// One tile.tma entry: the kernel argument, the tensor's dims and the box
  /// one copy moves (both outer first).
  static Attribute tensorMapAttr(MLIRContext *ctx, BlockArgument arg, ArrayRef<int64_t> dims,
                                 ArrayRef<int64_t> box) {
    Builder b(ctx);
    return b.getDictionaryAttr({b.getNamedAttr("arg", b.getI64IntegerAttr(arg.getArgNumber())),
                                b.getNamedAttr("dims", b.getDenseI64ArrayAttr(dims)),
                                b.getNamedAttr("box", b.getDenseI64ArrayAttr(box))});
  }

  /// The tensor maps (TMA descriptors) a wgmma kernel loads its panels
  /// through, one for the lhs, then one per product's rhs: the kernel
  /// argument, the tensor's dims (outer first; a batched operand gets its
  /// batch dim) and the box one copy moves (64 elements = 128 bytes along K,
  /// or along N for a [K, N] rhs and M for a transposed lhs [K, M], matching
  /// the 128-byte swizzle). Empty when
  /// some operand cannot be described (rows not 16-byte aligned).
  SmallVector<Attribute> tensorMaps(func::FuncOp fn, int64_t rows, int64_t batch, int64_t bm,
                                    int64_t bn, int64_t cluster) {
    SmallVector<Attribute> maps;
    bool ok = true;
    auto add = [&](Value operand, ArrayRef<int64_t> dims, ArrayRef<int64_t> box) {
      auto arg = llvm::dyn_cast<BlockArgument>(operand);
      if (!arg || dims.back() % 8 != 0 || llvm::any_of(dims, [](int64_t d) { return d <= 0; })) {
        ok = false;
        return;
      }
      maps.push_back(tensorMapAttr(fn.getContext(), arg, dims, box));
    };
    bool first = true;
    fn.walk([&](tilec::tile::MatmulOp mm) {
      auto lhs = llvm::cast<MemRefType>(mm.getLhs().getType());
      auto rhs = llvm::cast<MemRefType>(mm.getRhs().getType());
      int64_t k = lhs.getDimSize(mm.getTransposeA() ? lhs.getRank() - 2 : 1);
      bool rhsBatched = rhs.getRank() == 3;
      bool batched = rhsBatched || lhs.getRank() == 3;
      if (first) {
        // [K, M] or [batch, K, M]: 64 k rows of one 64-row block.
        if (mm.getTransposeA() && batched)
          add(mm.getLhs(), {batch, k, rows}, {1, 64, 64});
        else if (mm.getTransposeA())
          add(mm.getLhs(), {k, rows}, {64, 64});
        else if (batched)
          add(mm.getLhs(), {batch, rows, k}, {1, bm, 64});
        else
          add(mm.getLhs(), {rows, k}, {bm, 64});
        first = false;
      }
      SmallVector<int64_t> dims(rhs.getShape());
      // [N, K]: block_n rows of 64 k; [K, N]: 64 k rows of one 64-column block.
      // (In a cluster each CTA copies block_n / cluster rows of [N, K].)
      SmallVector<int64_t> box = mm.getTransposeB() ? SmallVector<int64_t>{bn / cluster, 64}
                                                    : SmallVector<int64_t>{64, 64};
      if (rhsBatched)
        box.insert(box.begin(), 1);
      add(mm.getRhs(), dims, box);
    });
    if (!ok)
      maps.clear();
    return maps;
  }

  /// Flash-attention kernels (tile.attention, DistributeGemmTiles'
  /// runFlash): a CTA takes block_m query rows of one batch (16 a warp,
  /// mma.sync) and walks the keys in steps of block_n, with `stages`
  /// shared-memory buffers of k and v blocks (cp.async, one step's copies
  /// ahead of its use) besides the CTA's q rows, and (few tiles) the keys
  /// split over several CTAs a tile. Not yet measured: 64 query rows (4
  /// warps) and 64 keys a step, two buffers (80 KB at head dim 128), as
  /// FlashAttention-2's forward kernel on Ampere; splits as flash decoding.
  LogicalResult scheduleAttention(func::FuncOp fn) {
    auto domain = fn->getAttrOfType<DenseI64ArrayAttr>("tile.domain");
    tilec::tile::MatmulOp qk;
    tilec::tile::RowMatmulOp pv;
    fn.walk([&](tilec::tile::MatmulOp m) { qk = m; });
    fn.walk([&](tilec::tile::RowMatmulOp m) { pv = m; });
    if (!domain || domain.empty() || !qk || !pv)
      return fn.emitOpError("attention kernel needs a domain, a scores product and a "
                            "product of probabilities");
    int64_t rows = 1;
    for (int64_t d : domain.asArrayRef().drop_back())
      rows *= d;
    auto k = llvm::cast<MemRefType>(qk.getRhs().getType());
    auto q = llvm::cast<MemRefType>(qk.getLhs().getType());
    int64_t batch = k.getRank() == 3 ? k.getDimSize(0) : 1;
    if (rows % batch != 0)
      return fn.emitOpError("attention's ") << rows << " rows are not " << batch << " batches";
    int64_t m = rows / batch, headDim = q.getShape().back(),
            valueDim = domain.asArrayRef().back();
    // 64 query rows even where a batch has fewer (decode: 4-64): four
    // warps share each block's copies. One-warp CTAs (16 rows) spilled 4-100
    // bytes at 255 registers with heads of 96 and 128 over 4100 keys, and
    // with 32-key steps still 12-40 over 520; 64-row CTAs used 128-248
    // registers and spilled none (a sweep of heads 96 and 128, 4-16
    // queries, masks, 520 and 4100 keys). The rows past a batch's are
    // zeros, their outputs not stored.
    // wgmma (attention-wgmma, sm_90a, the default there): a warpgroup of
    // 64 query rows, one a CTA; head dims, v's columns and the keys a step
    // in whole 128-byte rows of the swizzled panels. Measured (runs s26a on
    // an H200, s26b on an H100): 1.14-1.29x the mma.sync kernel at prefill,
    // 1.00-1.04x at decode; 128 rows a CTA (two warpgroups in step, one CTA
    // an SM) 0.90x of 64 (two CTAs an SM); the next S issued before the
    // softmax (attention-wgmma=2) 0.93-1.03x of 1.
    if (attentionWgmma < 0 || attentionWgmma > 2)
      return fn.emitOpError("attention-wgmma must be 0, 1 or 2, got ")
             << static_cast<int64_t>(attentionWgmma);
    bool wgmma = attentionWgmma >= 1 && target == "sm_90a" && headDim % 64 == 0 &&
                 valueDim % 64 == 0 && q.getElementTypeBitWidth() == 16;
    int64_t bn = attentionBlockN ? attentionBlockN : 64;
    wgmma = wgmma && bn % 64 == 0;
    int64_t bnNoTma = bn;
    // TMA (attention-tma, wgmma=1): k, v and q copied by a producer
    // warpgroup into stages the consumer warpgroups share through mbarriers
    // (FlashAttention-3's structure); 128 rows a CTA (two consumers), 128
    // keys a step where v has at most 128 columns, and only where the keys
    // are not split (prefill). By default (-1) where the head dims are
    // multiples of 64: measured (run s26c, H100) 1.12-1.50x the cp.async
    // kernel at head dim 128 (0.94x at 32 x 512 x 512), 0.94x at head dim 64
    // then; with the turns, P from registers and the overlap (run s29c,
    // H200) 1.07-1.11x at head dim 64 too.
    // The flags: 0 or 1, or -1 (chosen) where `chosen`.
    for (auto [name, value, chosen] :
         {std::tuple<StringRef, int64_t, bool>{"attention-tma", attentionTma, true},
          {"attention-p-regs", attentionPRegs, true},
          {"attention-overlap", attentionOverlap, true},
          {"attention-pingpong", attentionPingpong, true},
          {"attention-persistent", attentionPersistent, true},
          {"attention-descriptor-offsets", attentionDescriptorOffsets, false},
          {"attention-flush-exps", attentionFlushExps, false},
          {"attention-all-partials", attentionAllPartials, false},
          {"attention-fold-scale", attentionFoldScale, false}})
      if (value < (chosen ? -1 : 0) || value > 1)
        return fn.emitOpError() << name << " must be " << (chosen ? "-1, 0 or 1" : "0 or 1")
                                << ", got " << value;
    auto qArg = llvm::dyn_cast<BlockArgument>(qk.getLhs()),
         kArg = llvm::dyn_cast<BlockArgument>(qk.getRhs()),
         vArg = llvm::dyn_cast<BlockArgument>(pv.getRhs());
    bool tma = wgmma && attentionWgmma == 1 && q.getRank() == 2 &&
               (k.getRank() == 2 || k.getRank() == 3) && qArg && kArg && vArg &&
               (attentionTma == 1 || (attentionTma == -1 && headDim % 64 == 0 &&
                                      valueDim % 64 == 0 && !attentionBlockN));
    int64_t bm = attentionBlockM ? attentionBlockM : tma ? 128 : 64;
    int64_t stages = attentionStages ? attentionStages : 2;
    wgmma = wgmma && bm % 64 == 0;
    tma = tma && wgmma;
    if (bm % 16 != 0 || bm < 16 || bm > 128 || bn % 16 != 0 || bn < 16 || bn > 128 ||
        stages < 2 || stages > 4)
      return fn.emitOpError("bad attention schedule: ")
             << bm << " query rows, " << bn << " keys a step, " << stages
             << " stages (rows a multiple of 16 from 16 to 128, keys a multiple of 16 from 16 "
                "to 128, 2 to 4 stages)";
    // A thread holds bn / 2 + valueDim / 2 f32 accumulators (a warp's 16
    // rows of the scores and of the output): at 128 keys and 128 columns
    // ptxas spilled 8 bytes at 255 registers.
    // (wgmma: 232-255 registers a thread hold up to 256; attention-wgmma=2
    // holds two blocks' scores: 192 again, 256 spilled 24 bytes.)
    int64_t accLimit = wgmma && attentionWgmma == 1 ? 256 : 192;
    if (bn + valueDim > accLimit)
      return fn.emitOpError("bad attention schedule: ")
             << bn << " keys a step and " << valueDim
             << " output columns hold more accumulators than a thread's registers (keys a step "
                "plus columns at most " << accLimit << ")";
    // (wgmma: P's bf16 tile a warpgroup, and 1 KB to align the panels to
    // the swizzle's 1024-byte atoms.)
    // P from registers: by default (-1) in the TMA kernels (measured, run
    // s29 on an H100: 1.00-1.07x alone, 1.07-1.15x with the turns and the
    // overlap); not measured in the cp.async ones.
    auto pRegsFor = [&](bool withTma) {
      return attentionPRegs == 1 || (attentionPRegs == -1 && withTma);
    };
    auto sharedFor = [&](int64_t rowsACta, bool withTma) {
      return (rowsACta * headDim + stages * bn * (headDim + valueDim)) * 2 +
             (wgmma ? (pRegsFor(withTma) ? 0 : rowsACta * bn * 2) + 1024 : 0) +
             (withTma ? (2 + 2 * stages) * 8 : 0);
    };
    // Flash decoding: few tiles (decode's few query rows a kv head) leave
    // SMs idle while each walks every key; the key blocks split over CTAs
    // (each its share, at least one block) while the tiles fill at most
    // half the SMs, up to a wave. The splits hand their partials to the
    // last one through a workspace (GemmSplitWorkspace: a slot of each
    // thread's output accumulators, max and sum a split and tile).
    if (attentionSplit < 0)
      return fn.emitOpError("attention-split must be >= 0, got ")
             << static_cast<int64_t>(attentionSplit);
    if (attentionL2Prefetch < -1)
      return fn.emitOpError("attention-l2-prefetch must be >= -1 (-1: chosen), got ")
             << static_cast<int64_t>(attentionL2Prefetch);
    int64_t keys = llvm::cast<RankedTensorType>(qk.getType()).getDimSize(0);
    // (A causal mask removes the keys past its runs' last position, offset
    // + period - 1: a cache longer than its filled rows. The splits share
    // the keys the rows see.)
    int64_t seen = keys;
    fn.walk([&](tilec::tile::CausalMaskOp mask) { seen = tilec::keysSeen(mask, seen); });
    auto splitFor = [&](int64_t rowsACta) -> int64_t {
      int64_t tiles = batch * llvm::divideCeil(m, rowsACta),
              blocks = llvm::divideCeil(seen, bn);
      int64_t split = attentionSplit ? attentionSplit
                      : tiles * 2 <= kHopperSms ? std::max<int64_t>(1, kHopperSms / tiles)
                                                : 1;
      split = std::min(split, blocks);
      return llvm::divideCeil(blocks, llvm::divideCeil(blocks, split)); // (none empty)
    };
    // (TMA: 128 keys a step by default, where the stages fit; the split is
    // judged with them: 128 keys are one block, not two.)
    auto tmaKeys = [&] {
      if (tma && !attentionBlockN && valueDim <= 128) {
        bn = 128;
        if (sharedFor(bm, true) > maxSharedBytes(target))
          bn = bnNoTma;
      }
    };
    tmaKeys();
    // TMA where the keys are split (decode): one consumer, 64 rows a CTA
    // (decode's 1-64 query rows a kv head: 128 would double the MMAs and
    // exps of rows past the batch's), as many stages as fit, up to 4 (at
    // 128 keys a step and head dim 128, 3: 192 KB of k and v in flight, one
    // CTA an SM). Measured (run s31a, H100) before: the cp.async kernel (64
    // rows, 2 stages of 64 keys) at 47-68% of the copy's bandwidth where
    // the keys were split, the TMA kernel 94% with 256 kv heads not split.
    // With it (run s31d): 1.01-1.08x the cp.async kernel with the same
    // hand-off at 8-64 kv heads over 4100-16388 keys, 0.92-0.98x over 1028
    // (the hand-off's change alone 1.06-1.39x); 64 keys a step in 4 stages
    // within 3% either way; the cp.async kernel at two CTAs an SM and
    // twice the splits 1.01-1.03x (run s31e), not taken. (attention-tma=0:
    // the cp.async kernel.)
    // (A mask read with the scores, a row of the keys' length, holds a
    // thread's 64 more floats at 128 keys a step: ptxas spilled 8 bytes at
    // the launch's 168 registers, none at 64 keys a step.)
    bool splitTma = false;
    if (tma && splitFor(bm) > 1 && attentionBlockM > 64) {
      // (Two consumers with split keys: the cp.async kernel, as before.)
      tma = false;
      bm = attentionBlockM;
      bn = bnNoTma;
    } else if (tma && splitFor(bm) > 1) {
      splitTma = true;
      bm = 64;
      bn = bnNoTma;
      bool maskRead = false;
      fn.walk([&](tilec::tile::LoadOp load) {
        auto t = llvm::dyn_cast<RankedTensorType>(load.getType());
        maskRead = maskRead || (t && t.getRank() == 1 && t.getDimSize(0) == keys);
      });
      if (!maskRead)
        tmaKeys();
      if (!attentionStages)
        for (stages = 4; stages > 2 && sharedFor(bm, true) > maxSharedBytes(target);)
          --stages;
    }
    // Overlap (TMA, P from registers): block i's S is issued while block
    // i - 1's P v still holds its stage, so 3 stages by default where they
    // fit (with 2 the copy of the next block would start only as that P v
    // ends, and its latency would be the loop's).
    // (Like the turns, only with two consumers, 128 rows: with one, head
    // dim 64 and 128 keys a step, ptxas spilled 4 bytes.)
    // Turns and overlap by default (-1) where they apply: measured (run s29,
    // H100) together with P from registers 1.07-1.15x the kernel without
    // any of them at 32 x 512 .. 8 x 4096 keys, causal or not; the overlap
    // without the turns 0.93-0.99x, so -1 takes it only with them.
    bool pRegs = wgmma && pRegsFor(tma);
    bool turns = tma && bm == 128 && attentionPingpong != 0;
    bool overlap = tma && bm == 128 && pRegs &&
                   (attentionOverlap == 1 || (attentionOverlap == -1 && turns));
    if (overlap && !attentionStages && !splitTma) {
      stages = 3;
      if (sharedFor(bm, tma) > maxSharedBytes(target))
        stages = 2;
    }
    int64_t shared = sharedFor(bm, tma);
    if (shared > maxSharedBytes(target))
      return fn.emitOpError("attention schedule needs ")
             << shared << " bytes of shared memory, more than " << target << "'s "
             << maxSharedBytes(target);
    int64_t tiles = batch * llvm::divideCeil(m, bm), split = splitFor(bm);
    // Persistent (TMA): the kernel loops over tiles (CTA c takes c, c +
    // grid, ...; causal: in waves of alternating order, heaviest first),
    // the producer copying the next tile's first blocks and q while the
    // consumers finish this one's; launched with at most one CTA an SM, or
    // (not persistent) one CTA a tile. By default (-1) with two consumers
    // (128 rows; with one, 128 keys a step and 128 columns spilled 24
    // bytes at the launch's 168 registers) and more tiles than the H200's
    // SMs (a wave or less: one tile a CTA either way, measured 0.97x),
    // where a causal mask's tiles go heaviest first (its runs of rows
    // whole row blocks, or one a batch: else a static order of the tiles
    // would leave the CTAs' work uneven). Measured (runs s30b-c, H100):
    // 1.02-1.06x at 1024-4096 keys, causal 1.04-1.12x.
    bool causal = false, heaviestFirst = true;
    fn.walk([&](tilec::tile::CausalMaskOp mask) {
      causal = true;
      int64_t period = mask.getPeriod();
      heaviestFirst = heaviestFirst && ((period % bm == 0 && m % period == 0) || period >= m);
    });
    // (Not with split keys: a split takes its tile's blocks once.)
    bool persistent =
        tma && split == 1 &&
        (attentionPersistent == 1 ||
         (attentionPersistent == -1 && bm == 128 && tiles > kHopperSms && heaviestFirst));
    int64_t warps = bm / 16;
    tilec::GemmSplitWorkspace workspace{tiles, warps, split, (valueDim + 8) * bm};
    if (tma) {
      // Tensor maps (outer dims first): q's rows [rows, head dim] in boxes of
      // 64 x 64, k [batch, keys, head dim] and v [batch, keys, columns] in
      // boxes of the keys a step x 64 (the 128-byte swizzle's rows).
      auto kvMap = [&](BlockArgument arg, int64_t cols) {
        auto t = llvm::cast<MemRefType>(arg.getType());
        return t.getRank() == 3
                   ? tensorMapAttr(fn.getContext(), arg, {t.getDimSize(0), keys, cols}, {1, bn, 64})
                   : tensorMapAttr(fn.getContext(), arg, {keys, cols}, {bn, 64});
      };
      fn->setAttr("tile.tma",
                  ArrayAttr::get(fn.getContext(),
                                 {tensorMapAttr(fn.getContext(), qArg, {rows, headDim}, {64, 64}),
                                  kvMap(kArg, headDim), kvMap(vArg, valueDim)}));
    }
    setGemmSchedule(fn,
                    {{"attention", 1},
                     {"wgmma", wgmma ? static_cast<int64_t>(attentionWgmma) : -1},
                     {"block_m", bm},
                     {"block_n", bn},
                     {"stages", stages},
                     {"warps_m", warps},
                     {"grid", tiles * split},
                     {"persistent", persistent ? 1 : -1},
                     {"threads", warps * 32 + (tma ? 128 : 0)},
                     {"tma", tma ? 1 : -1},
                     // (Turns need two consumers: TMA at 128 rows.)
                     {"pingpong", turns ? 1 : -1},
                     {"p_regs", pRegs ? 1 : -1},
                     {"overlap", overlap ? 1 : -1},
                     {"unfolded_scale", attentionFoldScale == 0 ? 1 : -1},
                     {"all_partials", attentionAllPartials == 1 ? 1 : -1},
                     // (Not with TMA and one consumer, 64 rows: compiled
                     // at the launch's 168 registers, 128 keys and 128
                     // columns spilled 8 bytes with the shorter exps.)
                     {"unflushed_exps",
                      attentionFlushExps == 0 || (tma && bm == 64) ? 1 : -1},
                     {"address_descriptors", attentionDescriptorOffsets == 0 ? 1 : -1},
                     {"shared_bytes", shared},
                     {"split_k", split > 1 ? split : -1},
                     {"workspace_bytes", split > 1 ? workspace.bytes() : -1},
                     {"l2_prefetch_bytes", attentionL2PrefetchBytes(split)}},
                    // (TMA: 168 a thread at launch, as the TMA GEMMs; then
                    // setmaxnreg, 40 for the producer, 232 for consumers.)
                    /*groupM=*/1, /*registers=*/tma ? 168 : 255);
    return success();
  }

  /// GEMM kernels (tile.gemm): CTA tile, warp tiles, k step and pipeline
  /// depth of the tensor-core schedule (tilec-distribute-gemm-tiles), plus
  /// the launch shape: a 1-D grid of CTA tiles and the dynamic shared memory.
  LogicalResult scheduleGemm(func::FuncOp fn) {
    auto domain = fn->getAttrOfType<DenseI64ArrayAttr>("tile.domain");
    if (!domain || domain.empty())
      return fn.emitOpError("tile kernel has no tile.domain");
    int64_t rows = 1;
    for (int64_t d : domain.asArrayRef().drop_back())
      rows *= d;
    int64_t cols = domain.asArrayRef().back();
    // 128 x 128 CTA tiles of four 64 x 64 warp tiles (128 f32 accumulators a
    // thread), 32-deep k steps, 4 stages: 64 KB of shared memory, so three
    // CTAs fit an SM. Few rows (decode) take 64- or 32-row tiles.
    int64_t bm = 128, bn = 128, bk = 32, wm = 2, wn = 2, stages = 4;
    int64_t elemBytes = 2, products = 0, batch = 1, depth = 0; // depth: K
    // Layouts wgmma reads: a K-major lhs [M, K] and rhs [N, K], or (with
    // gemm-wgmma-mn) either operand MN-major from 64-column blocks: a [K, N]
    // rhs, or a transposed lhs [K, M] (that one through TMA only).
    bool wgmmaLayouts = false;
    bool transA = false, transB = false;
    bool batched = false; // (a rank-3 rhs or transposed lhs, even of one batch: 3-D maps)
    fn.walk([&](tilec::tile::MatmulOp mm) {
      elemBytes = llvm::cast<MemRefType>(mm.getLhs().getType()).getElementTypeBitWidth() / 8;
      wgmmaLayouts = (mm.getTransposeB() || gemmWgmmaMN) && (!mm.getTransposeA() || gemmWgmmaMN);
      transA = mm.getTransposeA();
      transB = mm.getTransposeB();
      ++products;
      auto rhs = llvm::cast<MemRefType>(mm.getRhs().getType());
      auto lhs = llvm::cast<MemRefType>(mm.getLhs().getType());
      depth = transA ? lhs.getDimSize(lhs.getRank() - 2) : lhs.getShape().back();
      if (rhs.getRank() == 3 || lhs.getRank() == 3) {
        batched = true;
        batch = rhs.getRank() == 3 ? rhs.getDimSize(0) : lhs.getDimSize(0);
      }
    });
    // A batched rhs or transposed lhs: the rows form `batch` blocks, tiled
    // separately.
    int64_t domainRows = rows;
    if (batch > 1 && rows % batch == 0)
      rows /= batch;
    // CTA tiles of m x n: every batch's.
    auto tileCount = [&](int64_t m, int64_t n) {
      return batch * llvm::divideCeil(rows, m) * llvm::divideCeil(cols, n);
    };
    if (gemmGroupM < 0)
      return fn.emitOpError("gemm-group-m must be >= 0 (0: chosen), got ")
             << static_cast<int64_t>(gemmGroupM);
    if (gemmL2Prefetch < -1)
      return fn.emitOpError("gemm-l2-prefetch must be >= -1 (-1: chosen), got ")
             << static_cast<int64_t>(gemmL2Prefetch);
    if (gemmWgmmaMinRows < 1)
      return fn.emitOpError("gemm-wgmma-min-rows must be >= 1, got ")
             << static_cast<int64_t>(gemmWgmmaMinRows);
    // Two products of one lhs (SwiGLU's gate and up projections) keep two
    // sets of accumulators: half as many columns each.
    // Hopper: warpgroup MMA on 128 x 256 tiles (two warpgroups of 64 rows,
    // 128 accumulators a thread), 64-deep k steps (128-byte swizzled rows),
    // 4 stages: 193 KB of shared memory, one CTA an SM.
    // A transposed lhs is copied by TMA alone (the cp.async copies of the
    // wgmma path write K-major rows): every operand must have a tensor map.
    // Whether some operand's rows are of an odd number of 16-bit elements:
    // cp.async needs 4-byte aligned rows, so such panels are copied by
    // masked element loads through registers (DistributeGemmTiles).
    bool elementCopies = elemBytes == 2 && (depth % 2 != 0 || (!transB && cols % 2 != 0) ||
                                            (transA && rows % 2 != 0));
    bool lhsCopies = !transA || (gemmTma != 0 && !tensorMaps(fn, rows, batch, 64, 64, 1).empty());
    bool wgmma = target == "sm_90a" && gemmWgmma != 0 && elemBytes == 2 && wgmmaLayouts &&
                 lhsCopies && rows >= gemmWgmmaMinRows;
    if (wgmma) {
      // Ping-pong (TMA, persistent CTAs: a CTA needs two tiles or more):
      // each MMA warpgroup has its own 64-row tiles.
      bool pingpong = gemmPingpong && gemmTma != 0 && gemmPersistent;
      // Two 64-row MMA chains a warpgroup: 256 x 128 tiles, each MMA
      // warpgroup 128 x 128 (two m64n128 accumulators, 128 registers).
      if (gemmMChains != 1 && gemmMChains != 2)
        return fn.emitOpError("gemm-m-chains must be 1 or 2, got ")
               << static_cast<int64_t>(gemmMChains);
      // (One product: two products' four accumulators spill in the
      // epilogue, measured 140 bytes at m64n64.)
      int64_t chains = products > 1 ? 1 : gemmMChains;
      if (chains == 2 && pingpong)
        return fn.emitOpError("bad wgmma GEMM schedule: ping-pong tiles have one 64-row "
                              "chain a warpgroup, got gemm-m-chains 2");
      int64_t bm = gemmBlockM ? gemmBlockM : (pingpong ? 64 : 128 * chains);
      int64_t bn = gemmBlockN ? gemmBlockN
                              : (chains == 2 ? 128 : (products > 1 ? 128 : 256));
      int64_t stages = gemmStages ? gemmStages : 4;
      if (pingpong && bm != 64)
        return fn.emitOpError("bad wgmma GEMM schedule: ping-pong tiles have 64 rows, got ")
               << bm;
      // 33-64 rows (a batch's; gemm-wgmma-min-rows): 64-row tiles, one MMA
      // warpgroup, no second one on rows of zeros.
      if (!gemmBlockM && bm == 128 && chains == 1 && rows <= 64)
        bm = 64;
      // Few tiles (M and N small against 128 x 256) leave SMs idle: while
      // they fill at most half the SMs, the tiles narrow to 128 then 64
      // columns, then to 64 rows (each step doubles the tiles, still one
      // wave).
      // Measured (docs/perf.md, twentieth session), us: 260 x 512 x 500
      // 19.0 -> 10.4 (cuBLAS 11.2), 256 x 4096 x 4096 45.7 -> 33.3 (24.3),
      // 512^3 12.6 -> 8.3 (7.8), 128 x 4096 x 4096 44.6 -> 30.9 (18.7).
      // Columns past N are MMA work on zeros: a tile at most halves down
      // to N's power of two (attention's head_dim 128: 128 x 128 tiles,
      // not 128 x 256 with half of each wgmma wasted). Not yet measured.
      if (gemmFillSms && !gemmBlockN)
        while (bn > 64 && bn / 2 >= cols)
          bn /= 2;
      if (gemmFillSms && !pingpong && chains == 1) {
        if (!gemmBlockN)
          while (bn > 64 && tileCount(bm, bn) <= kHopperSms / 2)
            bn /= 2;
        if (!gemmBlockM && bm == 128 && tileCount(bm, bn) <= kHopperSms / 2)
          bm = 64;
        // Waves: a chosen tile whose grid of more than half the SMs has a
        // last (or only) wave leaving many SMs idle narrows where that
        // fills the waves at least 1.1x better (each wave's share of busy SMs:
        // tiles over the rounds' CTA slots): 192 columns for one product
        // (whole 64-column units: TMA stores stay), 112 for two (a [K, N]
        // rhs, read in 64-column blocks, keeps 128). Measured
        // (run s32a, H100, clusters of two then): one product 512 x 6144 x
        // 4096 and 768 x 4096 x 4096 (96 tiles of 128 x 256) 1.12-1.13x
        // at 192 (128 and 132 tiles); two products (SwiGLU) 512 and 256 x
        // 14336 x 4096 (448 and 224 tiles) 1.03-1.06x at 112 (direct
        // stores); where the waves were full already, narrower tiles lost
        // (4096^3 0.91x at 192, the SwiGLU at 1024-2048 rows 0.90-0.95x
        // at 112), as they did where they filled the waves less (512 x
        // 14336 x 4096 at 192 or 224).
        int64_t wide = products > 1 ? 128 : 256, narrow = products > 1 ? 112 : 192;
        auto waveUse = [&](int64_t n) {
          int64_t t = tileCount(bm, n);
          return double(t) / double(llvm::divideCeil(t, kHopperSms) * kHopperSms);
        };
        if (!gemmBlockN && !gemmBlockM && bn == wide && (transB || narrow % 64 == 0) &&
            tileCount(bm, bn) > kHopperSms / 2 && waveUse(narrow) >= 1.1 * waveUse(wide))
          bn = narrow;
      }
      // A [K, N] rhs is copied and read in 64-column blocks.
      if (!transB && bn % 64 != 0)
        return fn.emitOpError("bad wgmma GEMM schedule: a [K, N] rhs is read in 64-column "
                              "blocks, so block_n must be a multiple of 64, got ")
               << bn << " (gemm-block-n)";
      if (bm % (64 * chains) != 0 || bn % 16 != 0 || bn > 256 || stages < 3 ||
          (gemmBlockK && gemmBlockK != 64) || gemmMmaPending < 0 || gemmMmaPending > 3 ||
          gemmMmaPending > stages - 2)
        return fn.emitOpError("bad wgmma GEMM schedule: block ")
               << bm << "x" << bn << "x" << (gemmBlockK ? gemmBlockK : 64) << ", stages "
               << stages
               << " (block_m a multiple of 64 (128 with two chains), block_n a multiple of 16 up to 256, block_k 64, "
                  ">= 3 stages, gemm-mma-pending 0 to 3 and at most stages - 2)";
      // TMA producer (one extra warpgroup) when every operand row is 16-byte
      // aligned (the tensor map's strides must be) and there are at most two
      // MMA warpgroups: setmaxnreg gives them 232 registers each and the
      // producer 40, which is the whole register file (and a box has at most
      // 256 rows).
      // Clusters of two CTAs on consecutive block rows share the B panel:
      // each copies half and multicasts it (half the B traffic from L2).
      // Off by default (gemm-cluster-m=1) since run s32c (H100, A B A B):
      // one CTA was 1.11-1.15x faster at 512 tokens (512 x 4096 x 14336,
      // 512 x 4096 x 4096, 512 x 1024 x 4096), 1.04-1.07x at 128-256 rows
      // and 1024^3, 1.00-1.03x at 2048-8192 (the 4096-row gate/up within
      // the noise either way); the pair's stages are freed only when both
      // CTAs' consumers are done with them. (The fourth session, 128 x 256
      // tiles only, had measured it neutral.)
      if (gemmClusterM != 1 && gemmClusterM != 2)
        return fn.emitOpError("gemm-cluster-m must be 1 or 2, got ")
               << static_cast<int64_t>(gemmClusterM);
      int64_t cluster = gemmClusterM == 2 && rows > bm &&
                                (transB ? (bn / 2) % 8 == 0 : (bn / 64) % 2 == 0)
                            ? 2
                            : 1;
      SmallVector<Attribute> maps = gemmTma != 0 && bm / chains <= 128 && bm <= 256
                                        ? tensorMaps(fn, rows, batch, bm, bn, cluster)
                                        : SmallVector<Attribute>();
      bool tma = !maps.empty();
      if (transA && !tma)
        return fn.emitOpError("bad wgmma GEMM schedule: a transposed lhs needs TMA copies, "
                              "which a CTA tile of ")
               << bm << " rows cannot have (at most 256 rows, 128 a chain)";
      if (!tma)
        cluster = 1;
      // Without TMA (unaligned rows) there is no ping-pong: back to 128-row
      // tiles shared by both warpgroups.
      // Chains need the TMA producer too: back to one chain of 128-row tiles.
      if (chains > 1 && !tma) {
        chains = 1;
        if (!gemmBlockM)
          bm = 128;
        if (!gemmBlockN)
          bn = products > 1 ? 128 : 256;
      }
      if (pingpong && !tma) {
        pingpong = false;
        if (!gemmBlockM)
          bm = 128;
      }
      // Operand rows of an odd number of 16-bit elements are copied element
      // by element (masked loads through registers, no cp.async): with
      // 256-column tiles those copies and the 128 accumulators a thread
      // spill (12-44 bytes at 255 registers, found by FuzzTest at 260 x 128
      // x 499); 128-column tiles take 128-146.
      if (!tma && elementCopies && !gemmBlockN && bn > 128)
        bn = 128;
      int64_t mmaGroups = pingpong ? 2 : bm / (64 * chains);
      int64_t threads = mmaGroups * 128 + (tma ? 128 : 0);
      // CTAs: every tile (a cluster's last block row may lie past the
      // matrix: it copies its share of B).
      int64_t gridTiles =
          batch * llvm::divideCeil(rows, bm * cluster) * cluster * llvm::divideCeil(cols, bn);
      // The k steps split over CTAs (gemm-split-k) where the tiles are few;
      // 64-deep steps, at least 4 a split; 2 splits from a K of 4096.
      // Counters a warpgroup.
      FailureOr<int64_t> split =
          splitSteps(fn, tileCount(bm, bn), llvm::divideCeil(depth, 64), depth, 4, 4096);
      if (failed(split))
        return failure();
      tilec::GemmSplitWorkspace workspace{gridTiles, pingpong ? 1 : bm / (64 * chains), *split,
                                   bm * bn * products};
      int64_t kMaxSharedBytes = maxSharedBytes(target);
      // TMA stores of the output: one 16- or 32-bit [M, N] tensor (rows
      // 16-byte aligned) written by the kernel's one row store; two 8 KB
      // staging buffers an MMA warpgroup, each a unit of 64 rows of 128
      // bytes (the 128-byte swizzle): 64 x 64 16-bit or 64 x 32 f32 values.
      // A batched product stores through a 3-D map {batch, rows / batch,
      // N} in {1, 64, cols} boxes, so that TMA clips a tile's rows at its
      // batch's end (a 2-D map would spill them into the next batch); the
      // rows must split evenly into batches (as the distributor needs).
      // Direct stores remain for other outputs: several stores, windowed or
      // per-row scalar stores, 8-bit or 64-bit elements, unaligned rows,
      // block_n not a multiple of a unit's columns.
      auto panels = [&] { return stages * ((bm + products * bn) * 64 * 2 + 16); };
      int64_t staging = 0;
      bool batchesSplit = batch == 1 || domainRows == rows * batch;
      if (tma && gemmTmaStore && batchesSplit) {
        SmallVector<tilec::tile::StoreOp> stores;
        fn.walk([&](tilec::tile::StoreOp st) { stores.push_back(st); });
        auto out = stores.size() == 1 ? llvm::dyn_cast<BlockArgument>(stores[0].getDest())
                                      : BlockArgument();
        auto outType = out ? llvm::cast<MemRefType>(out.getType()) : MemRefType();
        int64_t outBytes = outType ? outType.getElementTypeBitWidth() / 8 : 0;
        int64_t unitCols = outBytes ? 128 / outBytes : 0;
        // (A scatter's rows, transposed, are no box of the output: direct.)
        if (out && stores[0].getRow() &&
            stores[0].getRow().getDefiningOp<tilec::tile::RowIdOp>() &&
            !stores[0].getColOffsetAttr() &&
            llvm::isa<RankedTensorType>(stores[0].getValue().getType()) &&
            outType.getRank() == 2 && (outBytes == 2 || outBytes == 4) &&
            (cols * outBytes) % 16 == 0 && bn % unitCols == 0) {
          staging = mmaGroups * 2 * 64 * 128;
          maps.push_back(batched ? tensorMapAttr(fn.getContext(), out, {batch, rows, cols},
                                                   {1, 64, unitCols})
                                   : tensorMapAttr(fn.getContext(), out, {rows, cols},
                                                   {64, unitCols}));
        }
      }
      // Stages that fit beside the staging buffers (2048: the alignment pad
      // and room).
      int64_t stagesThatFit =
          (kMaxSharedBytes - 2048 - staging) / ((bm + products * bn) * 64 * 2 + 16);
      // Ping-pong stages are smaller (64 rows of A): as many as fit, up to 6.
      if (pingpong && !gemmStages)
        stages = std::clamp<int64_t>(stagesThatFit, 3, 6);
      // One wave of tiles (gemm-fill-sms; each CTA alone on its SM): as
      // many stages as fit, up to 16, for the bytes in flight that the
      // decode GEMMs' 8 stages showed to matter (above). The default 128 x
      // 256 tile has room for 4 only; beside the TMA store's buffers 128 x
      // 128 for 6, 64 x 128 and 128 x 64 for 8, 64 x 64 for 13 (cuBLAS's
      // 64 x 64 kernel has 13 too), one or two more without them.
      // Measured (docs/perf.md): up to 8 stages 1.14-1.31x on deep K (run
      // s20c: 128 x 4096 x 4096 30.5 -> 23.3 us; 512^3 5% slower); 13
      // rather than 8 for 64 x 64 tiles 1.04-1.14x (run s33b, H100: 512 x
      // 1024 x 4096 18.8 -> 17.7 us, 128 x 4096 x 4096 25.7 -> 23.1, 12
      // stages within 2% of 13), once the k loops carried their stage
      // instead of dividing for it (before, 10-12 stages had lost 1.3x to
      // the division: run s33a). Up to 8 still for two products (their
      // 64 x 64 tiles have room for 9 without staging buffers: not
      // measured), for tiles split over k (64 x 4096 x 4096, split in 2:
      // 13 stages 1.035x slower than 8, run s34a, H100) and on the
      // cp.async pipeline (rows not 16-byte aligned), which still divides
      // a step's number by the stages.
      if (gemmFillSms && !pingpong && !gemmStages && tileCount(bm, bn) * *split <= kHopperSms)
        stages = std::clamp<int64_t>(stagesThatFit, stages,
                                     tma && products == 1 && *split == 1 ? 16 : 8);
      // Panels, the 1024-byte alignment pad, (TMA) a full and an empty
      // mbarrier per stage, and the staging buffers (1024-byte aligned).
      int64_t sharedBytes = stages * (bm + products * bn) * 64 * 2 + 1024 + (tma ? stages * 16 : 0);
      if (staging) {
        int64_t withStaging = 1024 + llvm::alignTo(panels(), 1024) + staging;
        if (withStaging <= kMaxSharedBytes) {
          sharedBytes = withStaging;
        } else { // (more stages asked for than leave room: direct stores)
          staging = 0;
          maps.pop_back();
        }
      }
      if (sharedBytes > kMaxSharedBytes)
        return fn.emitOpError("bad wgmma GEMM schedule: ")
               << stages << " stages of " << bm << " + " << products << " x " << bn
               << " rows need " << sharedBytes << " bytes of shared memory, more than the "
               << kMaxSharedBytes << " a CTA may have on " << target;
      if (tma)
        fn->setAttr("tile.tma", ArrayAttr::get(fn.getContext(), maps));
      setGemmSchedule(fn, {{"wgmma", 1},
                           {"tma", tma ? 1 : 0},
                           // TMA kernels loop over tiles: launched with at
                           // most one CTA an SM, each takes every grid-th.
                           {"persistent", tma && gemmPersistent ? 1 : 0},
                           {"cluster_m", cluster},
                           {"pingpong", pingpong ? 1 : -1},
                           {"mma_pending", gemmMmaPending},
                           {"block_m", bm},
                           {"block_n", bn},
                           {"block_k", 64},
                           {"m_chains", chains > 1 ? chains : -1},
                           {"tma_store", staging ? 1 : -1},
                           {"warps_m", bm / 16 / chains},
                           {"warps_n", 1},
                           {"stages", stages},
                           {"split_k", *split > 1 ? *split : -1},
                           {"workspace_bytes", *split > 1 ? workspace.bytes() : -1},
                           {"grid", gridTiles * *split},
                           {"threads", threads},
                           {"shared_bytes", sharedBytes},
                           {"l2_prefetch_bytes", l2PrefetchBytes(transB, domainRows)}},
                      // Persistent CTAs run 132 tiles at once: in groups of
                      // 16 block rows they span 16 x 128 rows of A and 8.25 x
                      // 256 of B, 21% fewer panel rows from HBM than 8 block
                      // rows by 16.5 columns (measured: -2.2% and -1.8% time
                      // at 8192^3 and 16384 x 14336 x 4096, +0.6% at 4096^3).
                      /*groupM=*/pingpong ? 32 : 16);
      return success();
    }
    if (elemBytes == 4) // f32 (FMA, no tensor cores): half the k step, 3 stages: 48 KB;
      bk = 16, stages = 3, wn = 4; // 64 x 32 warp tiles keep 64 accumulators a thread
    int64_t chunk = 16 / elemBytes; // elements of one 16-byte copy
    if (rows <= 32 && elemBytes == 2) {
      // Decode: the weights stream once; 64-column CTAs (more CTAs than SMs
      // for N >= 8448) with 128-deep, 4-stage pipelines keep 96 KB in flight
      // a CTA (docs/perf.md: 31.7 us vs 52 us for 16 x 14336 x 4096).
      bm = 32, bn = 64, bk = 128, wm = 1, wn = 2, stages = 4; // warp tiles 32 x 32
      // Element copies hold a k step's 24 chunks a thread in registers
      // (192 values): 32-deep steps hold 6.
      if (elementCopies)
        bk = 32;
      // Grids of one wave (N <= 8448) stream the weights at the bytes
      // they keep in flight: with every CTA alone on its SM, 8 stages
      // instead of 4 (the shared memory the other CTAs would have had),
      // and 32-column CTAs where 64 columns would leave over half the SMs
      // idle (N <= 4224). Measured (docs/perf.md, twentieth session): 16 x
      // 4096 x 4096 20.8 -> 17.2 us, 16 x 4096 x 14336 49.0 -> 40.2 (cuBLAS
      // 19.1 and 42.6); 32 columns at 4 stages alone, or 16 columns at
      // 256 CTAs, keep the time of the same bytes in flight.
      if (gemmFillSms && !gemmBlockN && tileCount(bm, bn) <= kHopperSms / 2)
        bn = 32; // (warp tiles 32 x 16)
      if (gemmFillSms && !gemmStages && tileCount(bm, bn) <= kHopperSms)
        stages = 8; // (fewer where they do not fit: below)
      // Two products (SwiGLU's gate and up, or a decoder's k and v) in a
      // grid of one wave: 64-deep steps. At 128 with 8 stages ptxas spilled
      // 4-196 bytes at 255 registers (16-32 rows, N 40-1000, K 4096-14336,
      // or split k); at 64 none. Wider grids (the MLP's N = 14336) keep
      // their 128-deep steps. (At most 64: element copies keep their 32.)
      if (products > 1 && !gemmBlockK && tileCount(bm, bn) <= kHopperSms)
        bk = std::min<int64_t>(bk, 64);
    } else if (rows <= 32) { // f32 decode: 48 KB in flight a CTA
      bm = 32, bn = 64, bk = 32, wm = 1, wn = 2, stages = 4;
      // A depth of one k step (K <= 32) leaves no loop: ptxas schedules the
      // 1024 FMAs a thread of the straight-line code with 255 registers and
      // spills (360-1344 bytes of stack, found by FuzzTest at 32 x 40 x 1).
      // Steps of 16 (two of them past K = 16) by warp tiles of 16 x 32: no
      // spills, 80-163 registers.
      if (depth <= bk)
        bk = 16, wm = 2;
    } else if (rows <= 64) {
      bm = 64, wm = 1, wn = 4; // warp tiles 64 x 32
      // 16-bit rows of 33-64 (before sm_90a; there wgmma tiles take them
      // unless gemm-wgmma-min-rows is raised): the decode rule (above) by
      // analogy. A grid that leaves over half the SMs idle narrows its
      // CTAs to 64, then 32 columns (warp tiles 64 x 16), and a grid of one
      // wave takes 8 stages: 64 x 520 x 1000 had 5 CTAs of 64 x 128 at 4
      // stages, 17.7 us against cuBLAS's 8.3 (docs/perf.md, twenty-first
      // session), then 17 of 64 x 32 at 8 stages, 11.3 us (run s25a); on an
      // H100 (run s25c) these took 10.7-11.5 us and wgmma tiles 8.7. 64 x
      // 4096 x 4096 had 32 tiles in 4 splits, then 128 tiles of 64 x 32.
      // (One product: SwiGLU's two take 64 columns, below.)
      bool fill = gemmFillSms && elemBytes == 2 && products == 1;
      if (fill && !gemmBlockN)
        while (bn > 32 && tileCount(bm, bn) <= kHopperSms / 2) {
          bn /= 2;
          wn = bn / 16;
        }
      if (fill && !gemmStages && tileCount(bm, bn) <= kHopperSms)
        stages = 8;
    }
    // Element copies beside 64 x 64 or 64 x 32 warp tiles: 16-deep steps
    // (4 chunks a thread of each panel instead of 8: 32-deep steps spilled
    // 4 bytes at 255 registers, a transposed lhs of 261 odd columns).
    if (elementCopies && rows > 32)
      bk = 16;
    if (products > 1 && elemBytes == 2 && rows > 32)
      bn = 64; // 2 x 64 accumulators a thread
    if (gemmBlockM) bm = gemmBlockM;
    if (gemmBlockN) bn = gemmBlockN;
    if (gemmBlockK) bk = gemmBlockK;
    if (gemmWarpsM) wm = gemmWarpsM;
    if (gemmWarpsN) wn = gemmWarpsN;
    if (gemmStages) stages = gemmStages;
    int64_t threads = wm * wn * 32;
    bool ok = bm > 0 && bn > 0 && bk > 0 && wm > 0 && wn > 0 && stages >= 2 &&
              bm % wm == 0 && bn % wn == 0 && (bm / wm) % 16 == 0 && (bn / wn) % 16 == 0 &&
              bk % 16 == 0 && threads <= 1024 && (bm * bk / chunk) % threads == 0 &&
              (bn * bk / chunk) % threads == 0;
    if (!ok)
      return fn.emitOpError("bad GEMM schedule: block ")
             << bm << "x" << bn << "x" << bk << ", warps " << wm << "x" << wn << ", stages "
             << stages
             << " (need >= 2 stages, <= 1024 threads, warp tiles multiples of 16x16, block_k "
                "a multiple of 16, and each panel a multiple of 16 bytes per thread)";
    int64_t kMaxSharedBytes = maxSharedBytes(target);
    auto bytesFor = [&] { return stages * (bm * bk + products * bk * bn) * elemBytes; };
    // The chosen pipeline shrinks to the target's shared memory (fewer stages,
    // then shorter k steps); explicit options are taken as given.
    while (bytesFor() > kMaxSharedBytes && !gemmStages && stages > 2)
      --stages;
    while (bytesFor() > kMaxSharedBytes && !gemmBlockK && bk > 32 &&
           (bm * bk / 2 / chunk) % threads == 0 && (bn * bk / 2 / chunk) % threads == 0)
      bk /= 2;
    int64_t sharedBytes = bytesFor();
    // The k steps split over CTAs (gemm-split-k) where the tiles are few,
    // each split at least 256 deep. Counters a warp.
    int64_t grid = tileCount(bm, bn);
    FailureOr<int64_t> split =
        splitSteps(fn, grid, llvm::divideCeil(depth, bk), depth, std::max<int64_t>(2, 256 / bk));
    if (failed(split))
      return failure();
    tilec::GemmSplitWorkspace workspace{grid, wm * wn, *split, bm * bn * products};
    grid *= *split;
    // Register cap (nvvm.maxnreg) of the schedule; 0: ptxas's own choice.
    // A grid of one wave (at most a CTA an SM of the H200) has no occupancy
    // to gain from fewer registers a thread, yet ptxas, left to itself,
    // aims at a count that would fit more CTAs an SM (96, 128 or 168) and
    // spills there: 4-8 bytes for decode GEMMs narrower than a tile whose K
    // is not a multiple of 128 (8 x 40 x 1000), 4-12 for f32 GEMMs of 33-64
    // rows (33 x 40 x 16, 64 x 40 x 33); found by FuzzTest. Capped at 255
    // it takes what it needs (128-254) and spills nothing. Larger grids
    // keep ptxas's choice (the wide decode GEMMs measured in docs/perf.md,
    // 224 CTAs, do not spill).
    int64_t registers = grid <= kHopperSms ? 255 : 0;
    if (sharedBytes > kMaxSharedBytes)
      return fn.emitOpError("bad GEMM schedule: ")
             << stages << " stages of " << bm << "x" << bk << " and " << products << " x " << bk
             << "x" << bn << " panels need " << sharedBytes
             << " bytes of shared memory, more than the " << kMaxSharedBytes
             << " a CTA may have on " << target;
    setGemmSchedule(fn, {{"block_m", bm},
                         {"block_n", bn},
                         {"block_k", bk},
                         {"warps_m", wm},
                         {"warps_n", wn},
                         {"stages", stages},
                         {"split_k", *split > 1 ? *split : -1},
                         {"workspace_bytes", *split > 1 ? workspace.bytes() : -1},
                         {"grid", grid},
                         {"threads", threads},
                         {"shared_bytes", sharedBytes},
                         {"l2_prefetch_bytes", l2PrefetchBytes(transB, domainRows)}},
                    /*groupM=*/8, registers);
    return success();
  }

  /// A swap of dims K and L of [O, K, M, L] through shared-memory tiles
  /// (tilec-distribute-transpose-tiles), 256 threads, one CTA a tile:
  /// - where K and L are multiples of v = 16 / element bytes (and
  ///   transpose-tile-bytes is 16), 16-byte vectors: a v x v block a
  ///   thread, transposed in registers, tiles of 16 v x 16 v elements
  ///   (16 KB in f32, 32 KB in 16-bit types);
  /// - else 32-bit words of p elements (2 for 16-bit types, paired across
  ///   two input rows; 1 for f32), tiles of 32 words along K by 64
  ///   elements along L (8 KB).
  /// Where p = 2 needs K and L even (aligned words), and where either dim
  /// is under 8 elements (a tile would be mostly masked), false: the
  /// strided rows stay.
  bool scheduleTransposeTiles(func::FuncOp fn, ArrayRef<int64_t> dims) {
    if (dims.size() != 4)
      return false;
    auto in = llvm::cast<MemRefType>(fn.getArgumentTypes().front());
    int64_t bytes = in.getElementTypeBitWidth() / 8;
    if (bytes != 2 && bytes != 4)
      return false;
    int64_t p = 4 / bytes, v = 16 / bytes, o = dims[0], k = dims[1], m = dims[2], l = dims[3];
    if (k < 8 || l < 8 || k % p != 0 || l % p != 0)
      return false;
    bool blocks = transposeTileBytes == 16 && k % v == 0 && l % v == 0;
    int64_t tileK = blocks ? 16 * v : 32 * p, tileL = blocks ? 16 * v : 64;
    int64_t grid = o * m * llvm::divideCeil(k, tileK) * llvm::divideCeil(l, tileL);
    if (grid > std::numeric_limits<int32_t>::max())
      return false;
    Builder b(fn.getContext());
    fn->setAttr("tile.schedule",
                b.getDictionaryAttr({b.getNamedAttr("tile_k", b.getI64IntegerAttr(tileK)),
                                     b.getNamedAttr("tile_l", b.getI64IntegerAttr(tileL)),
                                     b.getNamedAttr(blocks ? "vector_elements" : "word_elements",
                                                    b.getI64IntegerAttr(blocks ? v : p)),
                                     b.getNamedAttr("threads", b.getI64IntegerAttr(256)),
                                     b.getNamedAttr("grid", b.getI64IntegerAttr(grid))}));
    fn->setAttr(tilec::kTransposeTilesAttr, b.getUnitAttr());
    return true;
  }

  /// Strided rows (a reduction along an inner axis): consecutive rows are
  /// consecutive in memory, so one thread per row and neighbouring threads
  /// on neighbouring rows keep every warp's loads coalesced; each thread
  /// walks its row, streamed when it is long.
  LogicalResult scheduleStrided(func::FuncOp fn, int64_t cols) {
    int64_t chunks = std::min<int64_t>(cols, maxChunksPerThread);
    int64_t streamBlocks = 0;
    if (cols > maxChunksPerThread) {
      chunks = std::min<int64_t>(kTargetChunksPerThread, maxChunksPerThread);
      streamBlocks = llvm::divideCeil(cols, chunks);
    }
    setSchedule(fn, /*vec=*/1, /*tpr=*/1, /*rowsPerBlock=*/minThreadsPerBlock, chunks,
                /*colBlocks=*/1, streamBlocks);
    return success();
  }

  LogicalResult schedule(func::FuncOp fn) {
    if (maxThreadsPerBlock < minThreadsPerBlock || minThreadsPerBlock < 1 ||
        maxChunksPerThread < 1 || elementwiseElements < 1 || rowChunks < 0 ||
        elementwiseThreadsPerBlock < 1 || !llvm::isPowerOf2_64(elementwiseThreadsPerBlock) ||
        (maxRegisters != 0 && (maxRegisters < 24 || maxRegisters > 255)) ||
        rowClusterMax < 1 || rowClusterMax > kMaxCluster ||
        (transposeTileBytes != 4 && transposeTileBytes != 16) ||
        (rowCluster != 0 && (rowCluster < 2 || rowCluster > kMaxNonPortableCluster)) ||
        !llvm::isPowerOf2_64(maxThreadsPerBlock) ||
        !llvm::isPowerOf2_64(minThreadsPerBlock) || maxThreadsPerBlock > 1024)
      return fn.emitOpError("bad schedule options: need powers of two with "
                            "1 <= min-threads-per-block <= max-threads-per-block <= 1024 "
                            "and max-chunks-per-thread, elementwise-elements >= 1, "
                            "row-chunks >= 0, "
                            "elementwise-threads-per-block a power of two, max-registers 0 or in [24, 255], "
                            "row-cluster-max 1 to 8, row-cluster 0 or 2 to 16, "
                            "transpose-tile-bytes 4 or 16");
    auto domain = fn->getAttrOfType<DenseI64ArrayAttr>("tile.domain");
    if (!domain || domain.empty())
      return fn.emitOpError("tile kernel has no tile.domain");
    int64_t cols = domain.asArrayRef().back();
    if (auto t = fn->getAttrOfType<DenseI64ArrayAttr>(tilec::kTransposeAttr);
        t && transposeTiles && scheduleTransposeTiles(fn, t.asArrayRef()))
      return success();
    bool strided = llvm::any_of(fn.getArgumentTypes(), [](Type t) {
      return llvm::cast<MemRefType>(t).getRank() == 3;
    });
    if (strided)
      return scheduleStrided(fn, cols);
    // Vectors must tile the row, every buffer's rows, every column offset of
    // a windowed access and every split of a concatenation.
    int64_t widestBytes = 1, grain = cols;
    for (Type t : fn.getArgumentTypes()) {
      auto m = llvm::cast<MemRefType>(t);
      int64_t width = m.getRank() > 0 ? m.getShape().back() : 1;
      if (width > 1 || cols == 1) {
        widestBytes = std::max<int64_t>(widestBytes, m.getElementTypeBitWidth() / 8);
        grain = std::gcd(grain, width);
      }
    }
    // Windowed loads of whole rows at offsets that are multiples of TPR * V
    // reuse the thread's own registers (rotate_half: offset C / 2 needs 2
    // chunks a thread): `windowGrain` is the gcd of those offsets.
    int64_t windowGrain = 0;
    fn.walk([&](Operation *op) {
      if (auto offset = op->getAttrOfType<IntegerAttr>("col_offset")) {
        grain = std::gcd(grain, std::abs(offset.getInt()));
        auto load = dyn_cast<tilec::tile::LoadOp>(op);
        auto m = load ? llvm::cast<MemRefType>(load.getSource().getType()) : MemRefType();
        if (m && offset.getInt() != 0 && m.getRank() > 0 && m.getShape().back() == cols)
          windowGrain = std::gcd(windowGrain, std::abs(offset.getInt()));
      }
      if (auto select = dyn_cast<tilec::tile::SelectColsOp>(op))
        grain = std::gcd(grain, select.getSplit());
    });
    int64_t vec = 16 / widestBytes;
    while (vec > 1 && grain % vec != 0)
      vec /= 2;
    int64_t vectorsPerRow = cols / vec;
    int64_t reductions = tilec::countRowReductions(fn);
    bool reduces = reductions > 0;
    // Elementwise kernels keep about 16 elements of each tile per thread
    // (their math can be long: gelu, sigmoid); row kernels keep 4 vectors,
    // but for those of one reduction (rms_norm, add_rms_norm) over rows of
    // kOneReductionMinVectors or more, which keep one (up to
    // max-threads-per-block threads a row; wider rows keep more).
    // Measured (runs s46a, s43a, s45d, H100, the default against one vector,
    // 4096 and 16384 rows of 1024 to 16384 columns): rms_norm bf16 and f32
    // 0.90-1.00 of the time (bf16 [4096, 4096] 23.9 -> 23.1 us, f32 [4096,
    // 1024] 13.3 -> 12.0), add_rms_norm 0.90-1.00; never slower beyond
    // 0.2%. Kernels of two reductions are not level there: layer_norm's
    // Welford pair over 16 warps of one vector lost 20%, and with two
    // rounds or softmax's online pair one vector is 0.91-1.02 (run s46b).
    // (Rows split over a cluster keep 4: measured so, below.)
    bool oneVector = rowChunks == 0 && reductions == 1 && vectorsPerRow >= kOneReductionMinVectors;
    int64_t chunkTarget = std::max<int64_t>(1, elementwiseElements / vec);
    if (reduces)
      chunkTarget = rowChunks > 0 ? rowChunks : oneVector ? 1 : kRowChunks;
    int64_t rows = 1;
    for (int64_t d : domain.asArrayRef().drop_back())
      rows *= d;
    // The row inputs an L2 prefetch of rows ahead covers, and the bytes of
    // one element of each together.
    SmallVector<Value> rowInputs = tilec::prefetchedRowInputs(fn, cols);
    int64_t rowInputBytes = 0;
    for (Value v : rowInputs)
      rowInputBytes += llvm::cast<MemRefType>(v.getType()).getElementTypeBitWidth() / 8;
    // Kernels without reductions whose rows ahead will be prefetched into L2
    // (sm_90, row-l2-prefetch chosen, rows of under kRowL2PrefetchMaxRowBytes,
    // grids of kRowL2PrefetchMinCtas CTAs or more; not under row-loop or
    // row-prefetch, which take none): vectors for at most
    // kRowL2PrefetchElementwiseMaxThreadBytes of row inputs a thread (one
    // vector of each row input at least), which the prefetch is chosen for.
    // Measured (runs s41b and s41c, H100): f32 silu_mul and
    // elementwise_chain (two row inputs) with one 4-element vector of each a
    // thread and their rows 1 MiB ahead 0.7-3% faster than with two of each,
    // with or without rows ahead (level with each other); four vectors of
    // each (elementwise-elements=16) 0-5.7% slower in bf16 and f32.
    if (!reduces && rowL2Prefetch == -1 && rowL2PrefetchElementwiseBytes > 0 &&
        rowLoop != "true" && rowPrefetch == 0 && llvm::StringRef(target).starts_with("sm_90")) {
      int64_t capped = std::max<int64_t>(
          1, kRowL2PrefetchElementwiseMaxThreadBytes / std::max<int64_t>(1, vec * rowInputBytes));
      int64_t threads = std::min<int64_t>(maxThreadsPerBlock, elementwiseThreadsPerBlock);
      if (rowInputBytes > 0 && capped < chunkTarget &&
          cols * rowInputBytes < kRowL2PrefetchMaxRowBytes &&
          rows * vectorsPerRow >= kRowL2PrefetchMinCtas * capped * threads)
        chunkTarget = capped;
    }
    // Keep at least C / windowGrain chunks a thread when that is small, so
    // the windows reuse registers.
    if (windowGrain > 0 && cols % windowGrain == 0 && cols / windowGrain <= 4)
      chunkTarget = std::max(chunkTarget, cols / windowGrain);
    chunkTarget = std::min<int64_t>(chunkTarget, maxChunksPerThread);
    // Few rows (decode: 1-16 tokens) cannot fill the GPU anyway: then the
    // kernel's latency is the per-thread chain of loads and math, so spread
    // each row over as many threads as possible (one vector each).
    if (rows <= fewRows)
      chunkTarget = 1;
    // Kernels without reductions use CTAs of at most 256 threads: a row need
    // not share a CTA, and smaller CTAs pack the register file better
    // (measured: 16 -> 24+ warps per SM for bf16 elementwise chains).
    int64_t maxThreads =
        reduces ? maxThreadsPerBlock
                : std::min<int64_t>(maxThreadsPerBlock, elementwiseThreadsPerBlock);
    int64_t tpr = static_cast<int64_t>(llvm::PowerOf2Ceil(
        llvm::divideCeil(vectorsPerRow, chunkTarget)));
    tpr = std::clamp<int64_t>(tpr, 1, maxThreads);
    int64_t chunks = llvm::divideCeil(vectorsPerRow, tpr);
    // Few wide rows with reductions on Hopper: one CTA a row leaves most SMs
    // idle (16 rows: 16 of 132) and a row too wide for registers is read
    // once per reduction. Split each row over a cluster of C CTAs that
    // combine their partial reductions through distributed shared memory.
    // C is the largest size up to row-cluster-max (any size: slices may be
    // uneven) such that
    //  * the grid stays within one wave (rows * C <= 132);
    //  * each CTA keeps at least two vectors a thread of a full CTA: the
    //    cluster barriers cost about 2 us, which slices of one vector a
    //    thread do not win back (measured, docs/perf.md: [16, 8192] bf16
    //    4.8-5.0 us in one CTA a row, 6.5-7.0 in clusters of 2; [16, 32768]
    //    bf16 4.9-5.2 us in clusters of 4, 6.0-6.8 in clusters of 8);
    //  * heavy slices (four vectors a thread or more) come in no more
    //    clusters than fit at once (kHopperClusterSlots). Measured (run zo,
    //    same run): [16, 131072] in clusters of 6 instead of 8, softmax bf16
    //    7.9 -> 6.7 us, f32 10.4 -> 8.6, layer_norm bf16 10.0 -> 7.6; in
    //    clusters of 7 (15 fit) 9.9. Light slices may overflow: bf16 [16,
    //    65536] in clusters of 8 (two vectors a thread) beat clusters of 6.
    //
    // Rows that also load a weight and a bias (layer_norm) keep the sizes
    // chosen before the slot count (powers of two, one wave): there, the
    // sizes that fit streamed their slices or spilled (44-48 values a
    // thread: 40-104 bytes at [16, 131072]), and measured slower (run zp:
    // bf16 [32, 65536] in clusters of 3, streamed, 11.9 us; in clusters of
    // 4, 9.1).
    int64_t sharedVectors = sharedVectorLoads(fn);
    bool weighted = sharedVectors >= 2;
    int64_t cluster = 1;
    if (reduces && target == "sm_90a") {
      for (int64_t c = rowClusterMax; c >= 2 && cluster == 1; --c) {
        int64_t sliceVectors = llvm::divideCeil(vectorsPerRow, c);
        bool heavy = sliceVectors >= kHeavySliceVectorsPerThread * maxThreadsPerBlock;
        bool fits = weighted ? llvm::isPowerOf2_64(c) : !heavy || rows <= kHopperClusterSlots[c];
        if (rows * c <= kHopperSms &&
            vectorsPerRow >= c * kClusterSliceVectorsPerThread * maxThreadsPerBlock && fits)
          cluster = c;
      }
      // Many rows of 65537 to 131072 columns without a weight (softmax over
      // 128k logits at 4096 tokens): in one CTA such a row is streamed and
      // too wide for stream-shared, so it is read from HBM twice (50% of
      // copy, run s13f). In a cluster of 4 each CTA's slice stays in
      // registers (33-64 values a thread of 512) and the row is read once.
      // Measured (run s13g, same run): softmax [4096, 131072] f32 2017 ->
      // 1090 us (50% -> 93% of copy), bf16 995 -> 768 (51% -> 66%); not
      // for rows of 32768, which stay faster in one CTA (f32 263 vs 356 us).
      // (16-byte vectors: narrower ones, of odd widths, would stream their
      // slices, which was not measured.)
      //
      // bf16 rows take clusters of 8 CTAs of 256 threads instead (64 values
      // a thread either way; with recompute-exp, 64 registers: four CTAs an
      // SM instead of two, so more of them are loading while others
      // compute their exps). Measured (run s15d, same run, bf16, us):
      // 4096 rows 632 -> 599, 1024 rows 161 -> 153, 264 rows 45.1 -> 43.4,
      // 128 rows 31.2 -> 23.9, 64 rows 15.1 -> 14.7. f32 rows keep clusters
      // of 4 (the same split: 4096 rows 1095 -> 1198 us, 264 rows 79.2 ->
      // 80.8; 64 rows 27.3 -> 23.3).
      if (cluster == 1 && rowCluster == 0 && rowClusterMax >= kManyRowsCluster &&
          rows * kManyRowsCluster > kHopperSms && sharedVectors == 0 &&
          cols > 65536 && cols <= 131072 && vec * widestBytes == 16) {
        cluster = kManyRowsCluster;
        if (rowInputsAreBF16(fn) && rowClusterMax >= kManyRowsClusterBF16) {
          cluster = kManyRowsClusterBF16;
          maxThreads = std::min(maxThreads, kManyRowsThreadsBF16);
          fn->setAttr(kManyBF16RowsAttr, UnitAttr::get(fn.getContext()));
        }
      }
      if (rowCluster > 1)
        cluster = rowCluster;
    }
    int64_t colBlocks = cluster;
    if (cluster > 1) {
      int64_t slice = llvm::divideCeil(vectorsPerRow, cluster);
      int64_t sliceTarget = chunkTarget;
      if (oneVector && rows > fewRows)
        sliceTarget = std::max(chunkTarget, std::min<int64_t>(kRowChunks, maxChunksPerThread));
      tpr = std::clamp<int64_t>(
          static_cast<int64_t>(llvm::PowerOf2Ceil(llvm::divideCeil(slice, sliceTarget))), 1,
          maxThreads);
      chunks = llvm::divideCeil(slice, tpr);
    }
    // Without reductions a row need not live in one CTA: split long rows over
    // several CTAs so each thread keeps a few vectors and registers suffice.
    if (!reduces && chunks > chunkTarget) {
      colBlocks = llvm::divideCeil(chunks, chunkTarget);
      chunks = llvm::divideCeil(vectorsPerRow, tpr * colBlocks);
    }
    // Rows with reductions that do not fit in registers are streamed: each
    // thread loops over column blocks once per reduction and once more for
    // the stores, re-reading its inputs (more HBM traffic, any width). In a
    // cluster each CTA streams its own slice of the row.
    int64_t streamBlocks = 0;
    // 16-bit rows are widened to f32 in registers: per byte moved they cost
    // twice the registers, so they are streamed sooner (measured: bf16
    // softmax [4096, 32768] 54% of copy in registers, 63% streamed; f32
    // 85% in registers, 61% streamed).
    // (The limit is in bytes of the element type: a quarter of the 16-byte
    // vectors, i.e. 32 values, for 16-bit rows.)
    int64_t residentChunks = maxChunksPerThread;
    if (widestBytes < 4)
      residentChunks = std::clamp<int64_t>(maxChunksPerThread * 4 / (vec * widestBytes), 1,
                                           maxChunksPerThread);
    // A CTA of a cluster has its SM nearly to itself (one wave; heavy
    // slices within kHopperClusterSlots): 16-bit rows there keep twice the
    // values, up to 64 a thread of 512 (measured, run zo: bf16 [16, 131072]
    // in clusters of 6, six vectors of 8 a thread in 80 registers, no
    // spills; streamed, each slice would be read twice).
    // (Not rows with a weight and a bias, as above, nor rows of three row
    // inputs or more: a layer_norm of one row, its weight and bias full
    // rows of the domain too, kept 64 values of each at the 128 registers
    // 512 threads have, and spilled 368 bytes; found by FuzzTest. Two, as
    // add_rms_norm's x and residual, fit: bf16 [16, 131072] in clusters of
    // 6, 48 values of each a thread, 116 registers, measured 8.0 us.)
    if (cluster > 1 && widestBytes < 4 && !weighted &&
        tilec::stagedRowInputs(fn, cols).size() <= 2)
      residentChunks = std::min<int64_t>(2 * residentChunks, maxChunksPerThread);
    // A row with reductions that would keep 64 values a thread or more in
    // registers, unstreamed, (f32 rows of 32768 at 512 threads) takes 1024 threads, 32
    // values each; its weight and bias loads then sink past the reductions
    // (below): one CTA an SM either way, but the row's values take half the
    // registers instead of all of them. Measured on the H200 (docs/perf.md,
    // seventh session): f32 [4096, 32768] layer_norm 469 -> 288 us,
    // rms_norm 279 -> 264, softmax unchanged; 1024 threads without sinking
    // the loads spilled (layer_norm 640 us).
    //
    // A row of two row inputs or more (stagedRowInputs; add_rms_norm: x and
    // the residual) that would be streamed at 512 threads but fits at 1024,
    // 32 values each (bf16 rows of 32768), takes 1024 threads too: the streamed kernel
    // re-reads both rows and keeps them in 83 registers (one CTA an SM).
    // Measured (eighth session, same run): bf16 add_rms_norm [4096, 32768]
    // 323 -> 271 us (79% -> 94% of copy), [16384, 32768] 1245 -> 1064;
    // rows of one input stay streamed, which was faster: softmax 147 vs 176
    // us, layer_norm 149 vs 179, rms_norm 139 vs 149.
    bool fitsAt1024 = chunks % 2 == 0 && chunks * vec >= 64 &&
                      (chunks <= residentChunks ||
                       (chunks / 2 <= residentChunks && chunks / 2 * vec <= 32 &&
                        tilec::stagedRowInputs(fn, cols).size() >= 2));
    if (reduces && cluster == 1 && tpr == maxThreads && maxThreads == 512 && fitsAt1024) {
      tpr = 1024;
      maxThreads = 1024;
      chunks /= 2;
    }
    if (reduces && chunks > residentChunks) {
      tpr = maxThreadsPerBlock;
      chunks = std::min<int64_t>(kTargetChunksPerThread, residentChunks);
      streamBlocks = llvm::divideCeil(vectorsPerRow, colBlocks * tpr * chunks);
    }
    int64_t block = std::clamp<int64_t>(tpr, std::min<int64_t>(minThreadsPerBlock, maxThreads), maxThreads);
    int64_t rowsPerBlock =
        colBlocks > 1 || streamBlocks > 0 ? 1 : std::max<int64_t>(1, block / tpr);
    setSchedule(fn, vec, tpr, rowsPerBlock, chunks, colBlocks, streamBlocks, cluster);
    // stream-shared: the first pass over a streamed row keeps its row inputs
    // (the CTA's slice of each) in dynamic shared memory for the later
    // passes, where they fit in 112 KB (two CTAs an SM). auto: not for rows
    // split over a cluster (few rows, mostly served by L2: not measured).
    bool stage = streamShared == "true" || (streamShared == "auto" && cluster == 1);
    if (stage && streamBlocks > 0) {
      int64_t slice = streamBlocks * chunks * tpr * vec, bytes = 0;
      for (Value source : tilec::stagedRowInputs(fn, cols))
        bytes += llvm::alignTo(
            slice * llvm::cast<MemRefType>(source.getType()).getElementTypeBitWidth() / 8, 16);
      if (bytes > 0 && bytes <= kStreamSharedBytes) {
        Builder bb(fn.getContext());
        NamedAttrList entries(fn->getAttrOfType<DictionaryAttr>("tile.schedule"));
        entries.set("stream_shared", bb.getI64IntegerAttr(1));
        entries.set("shared_bytes", bb.getI64IntegerAttr(bytes));
        fn->setAttr("tile.schedule", entries.getDictionary(fn.getContext()));
      }
    }
    // stage-weights: a CTA of one row (rows split over a cluster are left
    // out: not measured) copies its weight and bias vectors into shared
    // memory at the start; each thread its own vectors, so no barrier.
    bool loops = (rowLoop == "true" || rowPrefetch > 0) && streamBlocks == 0 &&
                 colBlocks == 1 && cluster == 1 &&
                 llvm::divideCeil(rows, rowsPerBlock) >= kRowLoopMinBlocks;
    Builder bb(fn.getContext());
    NamedAttrList entries(fn->getAttrOfType<DictionaryAttr>("tile.schedule"));
    if (stageWeights == "true" && reduces && !loops && streamBlocks == 0 && colBlocks == 1 &&
        rowsPerBlock == 1) {
      if (int64_t bytes = cpAsyncBytes(tilec::stagedWeights(fn, cols), vec, chunks * tpr * vec)) {
        entries.set("staged_weights", bb.getI64IntegerAttr(1));
        entries.set("shared_bytes", bb.getI64IntegerAttr(bytes));
      }
    }
    // row-loop: rows in registers, one CTA a row, enough row blocks to fill
    // the GPU several times over. Only on request: measured 5-37% slower for
    // every row op with reductions and the same for the elementwise ones
    // (docs/perf.md, tenth session), so auto does not loop.
    //
    // row-prefetch=S (implies the loop): the CTA copies the row inputs of
    // its next S - 1 row blocks into a ring of S stages of dynamic shared
    // memory (cp.async, each thread its own vectors) while it reduces the
    // current one, so its HBM reads do not stop at each reduction.
    if (loops) {
      entries.set("row_loop", bb.getI64IntegerAttr(1));
      int64_t ring = rowPrefetch * rowsPerBlock * chunks * tpr * vec;
      if (rowPrefetch > 0)
        if (int64_t bytes = cpAsyncBytes(rowInputs, vec, ring)) {
          entries.set("prefetch", bb.getI64IntegerAttr(rowPrefetch));
          entries.set("shared_bytes", bb.getI64IntegerAttr(bytes));
        }
    }
    // row-l2-prefetch=D: rows in registers (the loop and streamed rows
    // read theirs otherwise), sm_90 (the NVPTX backend selects the
    // prefetch intrinsic only there). Chosen (-1): the row blocks that hold
    // row-l2-prefetch-bytes (2 MiB) of the row inputs in kernels with
    // reductions, row-l2-prefetch-elementwise-bytes (1 MiB) in kernels
    // without, where the grid has at least twice as many and several waves
    // of CTAs (in one wave every row's own CTA loads it as early: softmax
    // [16, 131072] would only gain registers), rows of under
    // kRowL2PrefetchMaxRowBytes and, without reductions, threads that load
    // at most kRowL2PrefetchElementwiseMaxThreadBytes of row inputs (more
    // loads in flight a thread already cover the latency: the prefetches
    // only add L2 requests). Measured: with reductions, run s37c
    // (H100: 2 MiB the fastest or level with the fastest of 0.25-8 MiB at
    // every norm and softmax measured, 2-6% faster than none), run s38a
    // (H200: 1-3% faster than none), runs s38a and s39a (H200: softmax
    // over 32768 f32 and 131072 columns, 128-512 KiB rows, 0.2-3% slower
    // with 0.5-4 MiB ahead than with none); without, run s40b (H100, bf16,
    // with the first blocks' own rows: rope, silu_mul and
    // elementwise_chain 2-5% faster than none at 4096 tokens and 1-2% at
    // 16384 with 1-2 MiB ahead, level or up to 1% slower at 3.5-4 MiB,
    // 7-22% slower at 7-14 MiB; run s37d, an earlier build without the
    // first blocks' own rows: rope 1-2% faster, elementwise_chain 4%
    // slower at 16384 tokens).
    int64_t ahead = rowL2Prefetch;
    if (ahead == -1) {
      ahead = 0;
      int64_t rowBytes = cols * rowInputBytes;
      int64_t blockBytes = rowsPerBlock * rowBytes;
      int64_t bytesAhead = reduces ? rowL2PrefetchBytes : rowL2PrefetchElementwiseBytes;
      if (!reduces && rowInputBytes * chunks * vec > kRowL2PrefetchElementwiseMaxThreadBytes)
        bytesAhead = 0;
      if (bytesAhead > 0 && blockBytes > 0 && rowBytes < kRowL2PrefetchMaxRowBytes) {
        int64_t d = std::max<int64_t>(1, bytesAhead / blockBytes);
        int64_t blocks = llvm::divideCeil(rows, rowsPerBlock);
        if (blocks >= 2 * d && blocks * colBlocks >= kRowL2PrefetchMinCtas)
          ahead = d;
      }
    }
    // row-l2-prefetch-first: auto where the kernel reduces one row input
    // over CTA-wide rows (run s38a, H200, bf16: layer_norm 2.5-5% and
    // rms_norm 2-2.5% faster at 4096 tokens, level at 16384, softmax level;
    // add_rms_norm's two inputs 0.1-1.6% slower, softmax over a cluster 8%
    // slower; run s39a, f32 at 4096 tokens: within 1%, layer_norm 1-2%
    // faster), and in kernels without reductions, whatever their row
    // inputs (run s40b, H100, bf16: rope 3% faster than with its rows
    // ahead alone at 4096 tokens; silu_mul and elementwise_chain, two
    // row inputs, gained only with it).
    //
    // Without rows ahead (none chosen: a grid of one wave, or rows of 128
    // KiB and more), row-l2-prefetch-first has every CTA prefetch its own
    // slice ahead of the wait: auto where the rows are split over a cluster
    // in a grid of one wave (run s43a, H100: softmax [16, 131072] bf16 7.5
    // -> 6.6 us, f32 10.3 -> 8.9; level at one row). There a CTA of the
    // next kernel, started on an SM the one ahead leaves idle or is done
    // with, pulls its slice into L2 while the rest of that kernel works;
    // otherwise every CTA loads its slice only once the whole kernel ahead
    // is done. (Not in grids of several waves: softmax over a cluster 8%
    // slower with its first blocks' own rows, run s38a.) Not under
    // row-l2-prefetch=0.
    bool prefetchable = !loops && streamBlocks == 0 &&
                        llvm::StringRef(target).starts_with("sm_90") && !rowInputs.empty();
    int64_t grid = llvm::divideCeil(rows, rowsPerBlock) * colBlocks;
    if (ahead > 0 && prefetchable) {
      entries.set("l2_prefetch_rows", bb.getI64IntegerAttr(ahead));
      bool first = rowL2PrefetchFirst == "true" ||
                   (rowL2PrefetchFirst == "auto" &&
                    (!reduces || (rowInputs.size() == 1 && colBlocks == 1)));
      if (first)
        entries.set("l2_prefetch_first", bb.getI64IntegerAttr(1));
    } else if (ahead == 0 && rowL2Prefetch != 0 && prefetchable &&
               (rowL2PrefetchFirst == "true" ||
                (rowL2PrefetchFirst == "auto" && cluster > 1 && grid <= kHopperSms))) {
      entries.set("l2_prefetch_first", bb.getI64IntegerAttr(1));
    }
    fn->setAttr("tile.schedule", entries.getDictionary(fn.getContext()));
    return success();
  }
};

} // namespace
