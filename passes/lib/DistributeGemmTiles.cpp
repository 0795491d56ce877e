// tilec-distribute-gemm-tiles: lowers scheduled GEMM kernels to gpu.func on
// tensor cores: the Ampere path (cp.async, ldmatrix, mma.sync; sm_80 and up,
// described below), the Hopper path (wgmma from swizzled shared memory:
// runWgmma) and an FMA path for f32 operands (fmaStep). Several products of
// one lhs share a kernel (one B panel and accumulator set each); a batched
// rhs splits the rows into blocks, each multiplied by its own rhs (a
// batched transposed lhs [batch, K, M]: each block read from its own lhs).
//
// A GEMM kernel's tile program computes one row: the row of the product
// (tile.matmul) followed by its epilogue (elementwise ops, loads of bias
// vectors, residual rows, per-row scalars, stores). Here a CTA computes a
// block_m x block_n tile of output rows and columns instead:
//
//  * CTAs are numbered in groups of `group_m` block rows (consecutive CTAs
//    share a B panel and a few A panels in L2).
//  * Each of `stages` shared-memory buffers holds a block_k slice of the A
//    and B panels. Global -> shared copies are 16-byte cp.async (zero-filled
//    past the matrix edges) issued `stages - 1` k-steps ahead (wgmma:
//    `stages - 1 - mma_pending`); rows whose
//    length is not a multiple of 8 elements fall back to masked loads.
//    The 16-byte chunks of each shared row are XOR-swizzled with the row
//    index so that the 8 row addresses of an ldmatrix hit distinct banks.
//  * Warps own warp_m x warp_n sub-tiles: per 16-deep k step they load A
//    fragments (ldmatrix.x4, .trans for a transposed A) and B fragments
//    (ldmatrix.x4 giving two n8 tiles; .trans when B is [K, N]) and issue
//    mma.sync m16n8k16 with f32 accumulators held in registers.
//  * The epilogue runs on the accumulators in registers: each thread holds
//    pairs of adjacent columns of its rows; the row program's ops are
//    re-emitted per pair (vector<2>), loads and stores masked at the edges.
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

namespace tilec {
#define GEN_PASS_DEF_DISTRIBUTEGEMMTILES
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

constexpr int64_t kWarpSize = 32;
// setmaxnreg of a TMA GEMM's warpgroups: 128 x 40 + 256 x 232 registers
// fit the register file (64K) that 384 threads x 168 start with.
constexpr uint32_t kProducerRegisters = 40, kMmaRegisters = 232;

struct GemmSchedule {
  int64_t blockM = 128, blockN = 128, blockK = 32, warpsM = 2, warpsN = 2, stages = 4,
          groupM = 8;
  bool wgmma = false; // Hopper warpgroup MMA (sm_90a): 4 warps per 64 rows
  bool tma = false;   // wgmma: panels loaded by TMA from a producer warpgroup
  int64_t clusterM = 1; // TMA: CTAs of a cluster (consecutive block rows, B multicast)
  int64_t mmaPending = 1; // wgmma: k steps of MMAs left running at a step's end
  // TMA: two MMA warpgroups take alternate tiles (ping-pong), so one's
  // epilogue runs under the other's MMAs; warps_m x warps_n is one tile's.
  bool pingpong = false;
  // wgmma: 64-row MMA chains a warpgroup (1 or 2, TMA): warpgroup g owns
  // rows [g * 64 * chains, (g + 1) * 64 * chains) of the tile, warp w of it
  // rows c * 64 + (w % 4) * 16 of each chain c.
  int64_t mChains = 1;
  // TMA: the output goes through shared memory (two 8 KB buffers an MMA
  // warpgroup, 64 rows of 128 bytes each) and TMA stores; its tensor map
  // comes last in tile.tma (3-D for a batched product).
  bool tmaStore = false;
  // The k steps split over this many CTAs a tile (split_k; 1: none), with a
  // workspace of workspaceBytes (GemmSplitWorkspace) for their partial sums.
  int64_t splitK = 1, workspaceBytes = 0;
  // wgmma flash attention (wgmma = 2): S of the next key block issued
  // before the softmax of this one, k copied a block ahead of v.
  bool sAhead = false;
  // TMA flash attention with two consumer warpgroups: they take turns
  // issuing S (named barriers 3 and 4).
  bool attentionTurns = false;
  // wgmma flash attention: O += P v with P in registers (tile.wgmma_rs);
  // no P tile in shared memory.
  bool pRegs = false;
  // TMA flash attention with P from registers: the previous block's P v is
  // issued behind this block's S and runs under its softmax.
  bool overlap = false;
  // Flash attention: a positive constant scale of the scores folded into
  // the softmax's fma (false, schedule key unfolded_scale = 1: each score
  // multiplied, for A/B runs).
  bool foldScale = true;
  // Flash attention (wgmma): a block's k-step descriptors as the first's
  // plus constant offsets (false, schedule key address_descriptors = 1:
  // each built from its address, for A/B runs).
  bool descOffsets = true;
  // Flash attention under fast math: the softmax's exps flush results
  // below 2^-126 (tile.flush_exp: ex2.approx.ftz; false, schedule key
  // unflushed_exps = 1: the IEEE form, for A/B runs).
  bool flushExps = true;
  /// Split keys: every row's partials handed over, not only the batch's,
  /// and combined by each warp a tile at a time, loads just before their
  /// use (attention-all-partials: the hand-off before the thirty-first
  /// session, A/B runs).
  bool allPartials = false;
  // TMA flash attention: persistent CTAs, each looping over tiles c, c +
  // grid, ... (false: one tile a CTA, the loop of one trip folded away).
  bool persistent = false;
  // Bytes of the [N, K] rhs panels each CTA prefetches into L2 before its
  // first load (l2_prefetch_bytes; 0: none): see prefetchRhs.
  int64_t l2PrefetchBytes = 0;
  int64_t warpM() const { return blockM / warpsM; }
  int64_t warpN() const { return blockN / warpsN; }
  /// Warps of one tile, and of all MMA warps (the producer warpgroup comes
  /// on top).
  int64_t tileWarps() const { return warpsM * warpsN; }
  int64_t mmaThreads() const { return tileWarps() * kWarpSize * (pingpong ? 2 : 1); }
  int64_t threads() const { return mmaThreads() + (tma ? 128 : 0); }
};

FailureOr<GemmSchedule> readGemmSchedule(func::FuncOp fn) {
  auto dict = fn->getAttrOfType<DictionaryAttr>("tile.schedule");
  if (!dict)
    return fn.emitOpError("GEMM kernel is not scheduled (run tilec-schedule-row-kernels)");
  auto get = [&](StringRef key) -> int64_t {
    auto a = dict.getAs<IntegerAttr>(key);
    return a ? a.getInt() : 0;
  };
  GemmSchedule s{get("block_m"), get("block_n"), get("block_k"), get("warps_m"),
                 get("warps_n"), get("stages"), get("group_m")};
  s.wgmma = get("wgmma") != 0;
  s.tma = get("tma") != 0;
  s.clusterM = std::max<int64_t>(1, get("cluster_m"));
  s.pingpong = get("pingpong") != 0;
  if (dict.get("mma_pending"))
    s.mmaPending = get("mma_pending");
  if (dict.get("m_chains"))
    s.mChains = get("m_chains");
  s.tmaStore = get("tma_store") > 0;
  s.splitK = std::max<int64_t>(1, get("split_k"));
  s.workspaceBytes = get("workspace_bytes");
  s.l2PrefetchBytes = std::max<int64_t>(0, get("l2_prefetch_bytes"));
  bool ok = s.blockM > 0 && s.blockN > 0 && s.blockK > 0 && s.warpsM > 0 && s.warpsN > 0 &&
            s.stages >= 2 && s.groupM >= 1 && s.blockM % s.warpsM == 0 &&
            s.blockN % s.warpsN == 0 && s.warpM() % 16 == 0 && s.warpN() % 16 == 0 &&
            s.blockK % 16 == 0 && s.threads() <= 1024 &&
            (s.mChains == 1 || (s.mChains == 2 && s.wgmma && s.tma && !s.pingpong)) &&
            (!s.wgmma || (s.warpsN == 1 && s.warpM() == 16 * s.mChains &&
                          s.blockM % (64 * s.mChains) == 0 &&
                          s.mmaPending >= 0 && s.mmaPending <= 3 &&
                          s.mmaPending <= s.stages - 2 &&
                          s.blockK == 64 && s.blockN % 8 == 0 && s.blockN <= 256 &&
                          s.stages >= 3)) &&
            (!s.tma || s.wgmma) && (!s.tmaStore || s.tma) && (s.clusterM == 1 || (s.clusterM == 2 && s.tma)) &&
            (!s.pingpong || (s.tma && s.blockM == 64));
  // A cluster splits the B panel: halves of whole swizzle atoms ([N, K]) or
  // of the 64-column blocks ([K, N]).
  if (ok && s.clusterM == 2) {
    bool transB = false;
    fn.walk([&](tile::MatmulOp mm) { transB = mm.getTransposeB(); });
    ok = transB ? (s.blockN / 2) % 8 == 0 : (s.blockN / 64) % 2 == 0;
  }
  // The launch takes its block size from `threads`: it must be the kernel's.
  if (ok && dict.get("threads") && get("threads") != s.threads())
    return fn.emitOpError("GEMM tile.schedule ")
           << dict << " launches " << get("threads") << " threads, its warps need "
           << s.threads();
  if (!ok)
    return fn.emitOpError("invalid GEMM tile.schedule ")
           << dict
           << " (warp tiles must be multiples of 16x16, block_k of 16; wgmma: warps of 16 "
              "rows a chain, block_k 64, block_n <= 256, >= 3 stages; m_chains 1, or 2 with TMA "
              "and no ping-pong; cluster_m 2 needs TMA and block_n / 2 a "
              "multiple of 8 ([N, K] rhs) or an even number of 64-column blocks ([K, N]); "
              "pingpong needs TMA and block_m 64)";
  return s;
}

/// A flash-attention kernel's schedule (tilec-schedule-row-kernels'
/// scheduleAttention) as the GEMM distributor's: block_m query rows of 16
/// a warp, the whole output row (block_n = v's columns), `stages` buffers.
/// The keys a step (the schedule's block_n) go to setFlashKeys.
FailureOr<GemmSchedule> readAttentionSchedule(func::FuncOp fn) {
  auto dict = fn->getAttrOfType<DictionaryAttr>("tile.schedule");
  auto domain = fn->getAttrOfType<DenseI64ArrayAttr>("tile.domain");
  if (!dict || !domain || domain.empty())
    return fn.emitOpError("attention kernel is not scheduled (run tilec-schedule-row-kernels)");
  auto get = [&](StringRef key) -> int64_t {
    auto a = dict.getAs<IntegerAttr>(key);
    return a ? a.getInt() : 0;
  };
  GemmSchedule s;
  s.blockM = get("block_m");
  s.blockN = domain.asArrayRef().back();
  s.blockK = 16;
  s.warpsM = s.blockM / 16;
  s.warpsN = 1;
  s.stages = get("stages");
  s.groupM = 1;
  s.splitK = std::max<int64_t>(1, get("split_k"));
  s.workspaceBytes = get("workspace_bytes");
  s.wgmma = get("wgmma") >= 1;
  s.sAhead = get("wgmma") == 2;
  s.tma = get("tma") == 1;
  s.attentionTurns = get("pingpong") == 1;
  s.pRegs = get("p_regs") == 1;
  s.overlap = get("overlap") == 1;
  s.foldScale = get("unfolded_scale") != 1;
  s.descOffsets = get("address_descriptors") != 1;
  s.flushExps = get("unflushed_exps") != 1;
  s.persistent = get("persistent") == 1;
  s.allPartials = get("all_partials") == 1;
  s.l2PrefetchBytes = std::max<int64_t>(0, get("l2_prefetch_bytes"));
  int64_t keys = get("block_n");
  if (s.blockM % 16 != 0 || s.blockM < 16 || s.stages < 2 || keys % 16 != 0 || keys < 16 ||
      get("threads") != s.threads())
    return fn.emitOpError("invalid attention tile.schedule ")
           << dict << " (block_m a multiple of 16, 16 a warp; block_n keys a multiple of 16; "
                      ">= 2 stages)";
  if ((s.tma && (!s.wgmma || s.sAhead || (s.splitK > 1 && s.persistent))) ||
      (s.wgmma && (s.blockM % 64 != 0 || keys % 64 != 0)) ||
      (s.attentionTurns && (!s.tma || s.blockM != 128)) || (s.pRegs && !s.wgmma) ||
      (s.overlap && (!s.tma || !s.pRegs)) || (s.persistent && !s.tma))
    return fn.emitOpError("invalid attention tile.schedule ")
           << dict
           << " (wgmma: block_m and block_n multiples of 64; tma: wgmma 1, not persistent "
              "where split; "
              "pingpong: tma, block_m 128; p_regs: wgmma; overlap: tma, p_regs; persistent: "
              "tma)";
  return s;
}

/// Index arithmetic helpers on one builder.
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }
  Value add(Value x, Value y) { return b.create<arith::AddIOp>(loc, x, y); }
  Value add(Value x, int64_t y) { return y == 0 ? x : add(x, c(y)); }
  Value mul(Value x, int64_t y) { return y == 1 ? x : b.create<arith::MulIOp>(loc, x, c(y)); }
  Value mulv(Value x, Value y) { return b.create<arith::MulIOp>(loc, x, y); }
  Value div(Value x, int64_t y) { return y == 1 ? x : b.create<arith::DivUIOp>(loc, x, c(y)); }
  Value divv(Value x, Value y) { return b.create<arith::DivUIOp>(loc, x, y); }
  Value rem(Value x, int64_t y) { return b.create<arith::RemUIOp>(loc, x, c(y)); }
  Value remv(Value x, Value y) { return b.create<arith::RemUIOp>(loc, x, y); }
  Value min(Value x, int64_t y) { return b.create<arith::MinUIOp>(loc, x, c(y)); }
  Value minv(Value x, Value y) { return b.create<arith::MinUIOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.create<arith::SubIOp>(loc, x, y); }
  Value xori(Value x, Value y) { return b.create<arith::XOrIOp>(loc, x, y); }
  Value lt(Value x, int64_t y) {
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, x, c(y));
  }
  Value andi(Value x, Value y) { return b.create<arith::AndIOp>(loc, x, y); }
};

/// A pipeline step's place in a ring of `stages` shared-memory buffers: its
/// stage and the phase parity of its pass over the ring, the parity its
/// mbarrier waits take. Computed from a step's number once (a division
/// where the stages are no power of two), then carried through the loops
/// and advanced by a compare and two selects: the divisions had sat
/// between a step's wgmma wait and the next step's MMAs (run s33a: GEMM
/// tiles of 64 x 64 1.32x slower at 6, 10 or 12 stages than at 8).
struct RingPos {
  Value stage; // index
  Value phase; // i32, 0 or 1
};

struct Ring {
  int64_t stages;
  RingPos at(IndexMath m, Value step) const {
    return {m.rem(step, stages),
            m.b.create<arith::IndexCastOp>(m.loc, m.b.getI32Type(), m.rem(m.div(step, stages), 2))};
  }
  RingPos next(IndexMath m, RingPos p) const {
    Value after = m.add(p.stage, 1);
    Value wrap = m.b.create<arith::CmpIOp>(m.loc, arith::CmpIPredicate::eq, after, m.c(stages));
    Value flipped = phaseBefore(m, p);
    return {m.b.create<arith::SelectOp>(m.loc, wrap, m.c(0), after).getResult(),
            m.b.create<arith::SelectOp>(m.loc, wrap, flipped, p.phase).getResult()};
  }
  /// The stage `back` steps before `stage` (back < stages).
  Value before(IndexMath m, Value stage, int64_t back) const {
    if (back == 0)
      return stage;
    Value wraps = m.lt(stage, back);
    return m.b.create<arith::SelectOp>(m.loc, wraps, m.add(stage, stages - back),
                                       m.sub(stage, m.c(back)));
  }
  /// One i32 word for a position, stage * 2 + phase: where registers are
  /// tight (the flash kernels' loops), one register carried instead of the
  /// three of an index and an i32.
  Value startWord(IndexMath m) const { return c32(m, 0); }
  RingPos unpack(IndexMath m, Value word) const {
    Value stage = m.b.create<arith::ShRUIOp>(m.loc, word, c32(m, 1));
    return {m.b.create<arith::IndexCastUIOp>(m.loc, m.b.getIndexType(), stage),
            m.b.create<arith::AndIOp>(m.loc, word, c32(m, 1))};
  }
  Value nextWord(IndexMath m, Value word) const {
    Value after = m.b.create<arith::AddIOp>(m.loc, word, c32(m, 2));
    Value wrap = m.b.create<arith::CmpIOp>(m.loc, arith::CmpIPredicate::uge, after,
                                           c32(m, 2 * stages));
    Value flipped = m.b.create<arith::XOrIOp>(
        m.loc, m.b.create<arith::AndIOp>(m.loc, word, c32(m, 1)), c32(m, 1));
    return m.b.create<arith::SelectOp>(m.loc, wrap, flipped, after);
  }
  /// The phase before `p`'s (the parity a producer's wait on an empty
  /// buffer takes).
  Value phaseBefore(IndexMath m, RingPos p) const {
    return m.b.create<arith::XOrIOp>(m.loc, p.phase, c32(m, 1));
  }

private:
  static Value c32(IndexMath m, int64_t v) {
    return m.b.create<arith::ConstantOp>(m.loc, m.b.getI32IntegerAttr(v));
  }
};

/// A shared-memory operand panel: `stages` buffers of rows x cols elements,
/// cols contiguous, 16-byte chunks swizzled by row.
struct Panel {
  Value smem; // memref<stages x rows x cols x T, 3>
  int64_t rows, cols;
  int64_t kChunk; // elements of a 16-byte chunk
  /// Swizzled chunk index of chunk `chunk` in row `row`: XOR with the row's
  /// low bits, grouped so that 8 consecutive rows cover 8 distinct 16-byte
  /// bank groups (128 bytes).
  Value swizzle(IndexMath &m, Value row, Value chunk) const {
    int64_t chunksPerRow = cols / kChunk;
    // XOR stays inside the row only for a power-of-two chunk count.
    if (chunksPerRow <= 1 || !llvm::isPowerOf2_64(chunksPerRow))
      return chunk;
    int64_t span = std::min<int64_t>(chunksPerRow, 8);
    int64_t rowsPerGroup = std::max<int64_t>(1, 8 / chunksPerRow);
    Value bits = m.rem(m.div(row, rowsPerGroup), span);
    return m.xori(chunk, bits);
  }
};

class GemmDistributor {
public:
  /// `mms`: the kernel's products, all of one lhs (e.g. the gate and up
  /// projections of a SwiGLU MLP); each gets its own B panel and accumulators.
  GemmDistributor(func::FuncOp fn, GemmSchedule s, SmallVector<tile::MatmulOp> mms)
      : fn(fn), s(s), mms(std::move(mms)), mm(this->mms.front()) {}

  /// Attention kernels: keys a step of runFlash.
  void setFlashKeys(int64_t keys) { flashKeys = keys; }

  LogicalResult run(OpBuilder &moduleBuilder) {
    MLIRContext *ctx = fn.getContext();
    auto lhsType = llvm::cast<MemRefType>(mm.getLhs().getType());
    auto rhsType = llvm::cast<MemRefType>(mm.getRhs().getType());
    elem = lhsType.getElementType();
    if (!elem.isBF16() && !elem.isF16() && !elem.isF32())
      return mm.emitOpError("GEMM operands must be f32, f16 or bf16, got ") << elem;
    transA = mm.getTransposeA();
    transB = mm.getTransposeB();
    auto domain = fn->getAttrOfType<DenseI64ArrayAttr>("tile.domain");
    M = 1;
    for (int64_t d : domain.asArrayRef().drop_back())
      M *= d;
    N = domain.asArrayRef().back();
    K = transA ? lhsType.getDimSize(lhsType.getRank() - 2) : lhsType.getDimSize(1);
    // A batched rhs [batch, K, N] (or [batch, N, K]), or a batched
    // transposed lhs [batch, K, M]: the rows are batch blocks of M / batch
    // rows, each read from its own lhs and/or multiplied by its own rhs.
    rhsBatched = rhsType.getRank() == 3;
    if (rhsBatched || lhsType.getRank() == 3) {
      batched = true;
      batch = rhsBatched ? rhsType.getDimSize(0) : lhsType.getDimSize(0);
      if (M % batch != 0)
        return mm.emitOpError("a batched product needs ")
               << batch << " blocks of rows, got " << M << " rows";
      M /= batch;
    }
    elemBytes = elem.getIntOrFloatBitWidth() / 8;
    kChunk = 16 / elemBytes;

    // TMA: one tensor map a operand (lhs, then each rhs), passed by value
    // as trailing 128-byte kernel parameters (tilec-mark-tma-params).
    SmallVector<Type> params(fn.getFunctionType().getInputs());
    // Split k: the workspace's global address, before the tensor maps.
    if (s.splitK > 1)
      params.push_back(LLVM::LLVMPointerType::get(ctx, 1));
    if (s.tma) {
      tensorMaps = fn->getAttrOfType<ArrayAttr>("tile.tma");
      size_t maps = fn->hasAttr("tile.attention") ? 3 : mms.size() + 1 + (s.tmaStore ? 1 : 0);
      if (!tensorMaps || tensorMaps.size() != maps)
        return fn.emitOpError("a TMA GEMM schedule needs tile.tma with a tensor map for the "
                              "lhs and each rhs (and the output, with tma_store; attention: q, "
                              "k and v)");
      params.append(tensorMaps.size(), LLVM::LLVMPointerType::get(ctx));
    }
    auto gfn = moduleBuilder.create<gpu::GPUFuncOp>(
        fn.getLoc(), fn.getName(), FunctionType::get(ctx, params, {}), TypeRange(),
        TypeRange());
    if (s.tma)
      gfn->setAttr("tile.tma_params", moduleBuilder.getI64IntegerAttr(tensorMaps.size()));
    if (s.splitK > 1)
      gfn->setAttr("tile.split_workspace", moduleBuilder.getUnitAttr());
    if (s.clusterM > 1)
      gfn->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                   moduleBuilder.getDenseI32ArrayAttr(
                       {static_cast<int32_t>(s.clusterM), 1, 1}));
    gfn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), moduleBuilder.getUnitAttr());
    gfn.setKnownBlockSizeAttr(moduleBuilder.getDenseI32ArrayAttr(
        {static_cast<int32_t>(s.threads()), 1, 1}));
    for (StringRef a : {"tile.domain", "tile.schedule"})
      gfn->setAttr(a, fn->getAttr(a));
    if (auto maxRegs = fn->getAttrOfType<IntegerAttr>("tile.max_registers"))
      gfn->setAttr("nvvm.maxnreg", maxRegs);
    Block &entry = gfn.getBody().front();
    OpBuilder b = OpBuilder::atBlockEnd(&entry);
    Location loc = fn.getLoc();
    IndexMath m{b, loc};
    for (auto [from, to] : llvm::zip(fn.getArguments(), entry.getArguments()))
      args.map(from, to);
    if (s.splitK > 1)
      workspace = entry.getArgument(fn.getNumArguments());
    kSteps = llvm::divideCeil(llvm::divideCeil(K, s.blockK), s.splitK);
    if (s.tma)
      for (BlockArgument a : entry.getArguments().take_back(tensorMaps.size()))
        mapParams.push_back(a);

    // ---- CTA and warp coordinates ----
    Value tid = b.create<gpu::ThreadIdOp>(loc, gpu::Dimension::x);
    Value pid = b.create<gpu::BlockIdOp>(loc, gpu::Dimension::x);
    // The MMA warps' thread index (TMA: after the producer warpgroup).
    mmaTid = s.tma ? m.sub(tid, m.c(128)) : tid;
    lane = m.rem(mmaTid, kWarpSize);
    // Ping-pong: warpgroup `consumer` of the two, each with a tile's warps.
    Value warp = m.div(mmaTid, kWarpSize);
    if (s.pingpong) {
      consumer = m.div(warp, s.tileWarps());
      warp = m.rem(warp, s.tileWarps());
    }
    tileWarp = warp;
    Value warpRow = m.div(warp, s.warpsN), warpCol = m.rem(warp, s.warpsN);
    // (The rows of a causal attention's CTAs see more keys the later they
    // are: runFlash skips the rest.)
    heavyRowsFirst = false;
    if (fn->hasAttr("tile.attention"))
      for (tile::ReduceMaxOp max : fn.getOps<tile::ReduceMaxOp>())
        if (tile::CausalMaskOp mask = causalMaskOfScores(max.getInput())) {
          heavyRowsFirst = true;
          heavyPeriod = mask.getPeriod();
        }
    setTile(b, pid);
    warpM0 = m.mul(warpRow, s.warpM());
    warpN0 = m.mul(warpCol, s.warpN());
    if (!fn->hasAttr("tile.attention"))
      prefetchRhs(b, tid);

    // ---- shared memory ----
    auto ws = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    Value dyn = b.create<gpu::DynamicSharedMemoryOp>(
        loc, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(), ws));
    if (fn->hasAttr("tile.attention")) {
      if (failed(runFlash(b, tid, dyn)))
        return failure();
      b.create<gpu::ReturnOp>(loc);
      return success();
    }
    if (s.wgmma) {
      if (elem.isF32() || (transA && !s.tma) || (!transB && s.blockN % 64 != 0))
        return mm.emitOpError("the wgmma schedule needs 16-bit operands, TMA copies for a "
                              "transposed lhs [K, M], and block_n a multiple of 64 for a "
                              "[K, N] rhs");
      if (failed(runWgmma(b, tid, mmaTid, dyn)))
        return failure();
      b.create<gpu::ReturnOp>(loc);
      return success();
    }
    auto panelOf = [&](int64_t rows, int64_t cols, int64_t byteOffset) {
      auto t = MemRefType::get({s.stages, rows, cols}, elem, AffineMap(), ws);
      Value v = b.create<memref::ViewOp>(loc, t, dyn, m.c(byteOffset), ValueRange());
      return Panel{v, rows, cols, kChunk};
    };
    // A panel: [block_m][block_k], or [block_k][block_m] for a transposed A.
    pa = transA ? panelOf(s.blockK, s.blockM, 0) : panelOf(s.blockM, s.blockK, 0);
    int64_t bytesA = s.stages * s.blockM * s.blockK * elemBytes;
    // B panel: [block_k][block_n], or [block_n][block_k] for B stored [N, K].
    int64_t bytesB = s.stages * s.blockN * s.blockK * elemBytes;
    for (size_t t = 0; t < mms.size(); ++t)
      pbs.push_back(transB ? panelOf(s.blockN, s.blockK, bytesA + t * bytesB)
                           : panelOf(s.blockK, s.blockN, bytesA + t * bytesB));

    // ---- main loop ----
    int64_t kTiles = kSteps; // (of this CTA's split)
    int64_t mi = s.warpM() / 16, ni = s.warpN() / 8;
    auto accType = VectorType::get({4}, b.getF32Type());
    Value zero = b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0f)));
    Value token = issuePrologue(b, tid, s.stages - 1, kTiles);
    int64_t nm = mms.size();
    SmallVector<Value> init(nm * mi * ni, zero);
    init.push_back(token);
    auto loop = b.create<scf::ForOp>(loc, m.c(0), m.c(kTiles), m.c(1), init);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      IndexMath lm{lb, loc};
      Value kt = loop.getInductionVar();
      Value carried = loop.getRegionIterArgs().back();
      lb.create<nvgpu::DeviceAsyncWaitOp>(loc, carried, lb.getI32IntegerAttr(s.stages - 2));
      lb.create<gpu::BarrierOp>(loc);
      // Refill the stage freed by the previous step.
      Value newToken = issueAhead(lb, tid, kt, s.stages - 1, kTiles);
      Value stage = lm.rem(kt, s.stages);
      SmallVector<Value> acc(loop.getRegionIterArgs().drop_back());
      for (int64_t t = 0; t < nm; ++t) {
        // Accumulators of product t: [t * mi * ni, (t + 1) * mi * ni).
        SmallVector<Value> part(acc.begin() + t * mi * ni, acc.begin() + (t + 1) * mi * ni);
        for (int64_t kk = 0; kk < s.blockK / 16; ++kk) {
          if (elem.isF32())
            fmaStep(lb, stage, kk, mi, ni, part, pbs[t]);
          else
            computeStep(lb, stage, kk, mi, ni, part, pbs[t]);
        }
        std::copy(part.begin(), part.end(), acc.begin() + t * mi * ni);
      }
      acc.push_back(newToken);
      lb.create<scf::YieldOp>(loc, acc);
    }
    b.setInsertionPointAfter(loop);
    SmallVector<Value> acc(loop.getResults().drop_back());

    // ---- epilogue ----
    if (failed(withSplitSums(b, acc, [&](OpBuilder &eb, ArrayRef<Value> sums) {
          return emitEpilogue(eb, mi, ni, sums);
        })))
      return failure();
    b.create<gpu::ReturnOp>(loc);
    return success();
  }

  /// Flash attention (tile.attention: FuseRowOps' formAttention, joined
  /// by tilec-lower-fusion-to-tile; mma.sync, sm_80 and up). The program
  /// is the scores' epilogue on q @ k^T (scale, mask), a softmax (the max,
  /// exp of the difference, the sum, the division, a cast to v's dtype) and
  /// the output's epilogue on p @ v (tile.row_matmul). A CTA takes block_m
  /// query rows of one batch, 16 a warp, and walks the keys in blocks of
  /// `flashKeys`:
  ///  * k and v blocks are copied by cp.async into `stages` buffers, each
  ///    issued stages - 1 blocks ahead of its use (the q rows once, with
  ///    the first);
  ///  * S = q k^T of the block in registers (mma.sync; the q fragments are
  ///    read from shared memory each block), then the scores' epilogue on
  ///    each pair of S (emitFragment over the scores' ops); keys past the
  ///    last are -inf;
  ///  * online softmax: each row's running max m (the four threads of a
  ///    quad hold a row: two shuffles), P = exp(S - m), each thread's
  ///    running sum l of its own columns, and the output accumulators
  ///    scaled by exp(m_old - m);
  ///  * O += P v: the S accumulators of two n8 tiles are the A fragment of
  ///    a k16 step (FlashAttention-2's register reuse), rounded to v's
  ///    dtype as the graph's cast does; v's fragments by ldmatrix.trans.
  /// After the last block the quad sums l, and O / l goes through the
  /// output's epilogue. (The division comes after the product: P is the
  /// rounded exps, not the rounded exps over l; the sum is of the same f32
  /// exps.) A row whose every key is masked (-inf) gets 0 / 0 = NaN, as the
  /// graph's softmax does.
  LogicalResult runFlash(OpBuilder &b, Value tid, Value dyn) {
    Location loc = fn.getLoc();
    MLIRContext *ctx = fn.getContext();
    IndexMath m{b, loc};
    // ---- the program's parts ----
    tile::RowMatmulOp pvOp;
    for (auto r : fn.getOps<tile::RowMatmulOp>())
      pvOp = r;
    auto bad = [&]() {
      return fn.emitOpError("attention kernel's softmax must be the max of the scores, exp of "
                            "their difference from it, the sum of the exps and the division by "
                            "it, cast to v's dtype, and nothing else may read them");
    };
    if (!pvOp || pvOp.getTransposeB() || elem.isF32() || transA || !transB)
      return fn.emitOpError("attention kernel needs 16-bit q [rows, d], k [keys, d] and v "
                            "[keys, columns]");
    auto trunc = pvOp.getLhs().getDefiningOp<arith::TruncFOp>();
    auto div = trunc ? trunc.getIn().getDefiningOp<arith::DivFOp>() : nullptr;
    auto exp = div ? div.getLhs().getDefiningOp<math::ExpOp>() : nullptr;
    auto sumSplat = div ? div.getRhs().getDefiningOp<tile::SplatOp>() : nullptr;
    auto sum = sumSplat ? sumSplat.getInput().getDefiningOp<tile::ReduceSumOp>() : nullptr;
    auto sub = exp ? exp.getOperand().getDefiningOp<arith::SubFOp>() : nullptr;
    auto maxSplat = sub ? sub.getRhs().getDefiningOp<tile::SplatOp>() : nullptr;
    auto max = maxSplat ? maxSplat.getInput().getDefiningOp<tile::ReduceMaxOp>() : nullptr;
    if (!max || !sum || sum.getInput() != exp.getResult() || max.getInput() != sub.getLhs())
      return bad();
    Value scores = sub.getLhs();
    SmallPtrSet<Operation *, 8> softmax{max, maxSplat, sub, exp, sum, sumSplat, div, trunc};
    // The scores' scale c > 0 (q k^T times a constant, then at most a
    // causal mask's add) folded into the softmax, as FlashAttention's
    // softmax_scale_log2: the max of the unscaled scores times c is the
    // max of the scaled ones, and exp(c s - m) = 2^(s (c log2 e) - m log2 e)
    // is one fma and ex2 an element: the multiplication an element goes.
    // (The causal mask's 0 or -inf is the same scaled or not.)
    scaleFolded = {};
    scaledProduct = Value();
    foldedScale = 0;
    if (s.foldScale) {
      Value scaled = scores;
      if (tile::CausalMaskOp mask = causalMaskOfScores(scores)) {
        auto add = scores.getDefiningOp<arith::AddFOp>();
        scaled = add.getLhs() == mask.getResult() ? add.getRhs() : add.getLhs();
      }
      auto mul = scaled ? scaled.getDefiningOp<arith::MulFOp>() : nullptr;
      Operation *maskAdd = scaled != scores ? scores.getDefiningOp() : nullptr;
      if (mul && llvm::all_of(scaled.getUsers(), [&](Operation *user) {
            return maskAdd ? user == maskAdd : softmax.count(user) != 0;
          })) {
        for (int64_t side = 0; side < 2; ++side) {
          Value product = mul->getOperand(side), factor = mul->getOperand(1 - side);
          auto splat = factor.getDefiningOp<tile::SplatOp>();
          auto cst = splat ? splat.getInput().getDefiningOp<arith::ConstantOp>() : nullptr;
          auto value = cst ? llvm::dyn_cast<FloatAttr>(cst.getValue()) : nullptr;
          double c = value ? value.getValueAsDouble() : 0;
          if (product.getDefiningOp<tile::MatmulOp>() && std::isfinite(c) && c > 0) {
            scaleFolded = mul;
            scaledProduct = product;
            foldedScale = c;
            break;
          }
        }
      }
    }
    // The scores' ops are what the scores depend on; the output's are the
    // rest but the softmax (p @ v and its epilogue, whatever their place in
    // the program: a residual row's load may come before the product).
    // What the scores depend on that does not depend on their product
    // (constants, index arithmetic, loads: CSE may have merged the two
    // parts' loads of one row) is emitted in both.
    DenseSet<Operation *> scoresSet, productUsers{mm};
    SmallVector<Value> stack{scores};
    while (!stack.empty()) {
      Operation *d = stack.pop_back_val().getDefiningOp();
      if (d && scoresSet.insert(d).second)
        llvm::append_range(stack, d->getOperands());
    }
    SmallVector<Operation *> scoresOps, outOps;
    SmallPtrSet<Operation *, 16> outSet;
    for (Operation &op : fn.getBody().front().without_terminator()) {
      for (Value v : op.getOperands())
        if (Operation *d = v.getDefiningOp(); d && productUsers.count(d))
          productUsers.insert(&op);
      bool both = scoresSet.count(&op) && !productUsers.count(&op);
      if (scoresSet.count(&op)) {
        scoresOps.push_back(&op);
      } else if (isa<tile::StoreOp>(op) && !productUsers.count(&op)) {
        return bad(); // (a store of nothing computed: no attention's)
      }
      if ((!scoresSet.count(&op) && !softmax.count(&op)) || both) {
        outOps.push_back(&op);
        outSet.insert(&op);
      }
    }
    for (Operation *op : outOps)
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp(); def && !outSet.count(def) && op != pvOp)
          return bad();
    auto vType = llvm::cast<MemRefType>(pvOp.getRhs().getType());
    int64_t nKeys = llvm::cast<RankedTensorType>(mm.getType()).getDimSize(0);
    // The blocks of the keys a row may see: all, or (a causal mask) up to
    // its runs' last position, offset + period - 1 (a cache longer than
    // its filled rows; the scheduler's split count is of these).
    int64_t bn = flashKeys, dk = K, dv = N,
            kBlocks = llvm::divideCeil(keysSeen(causalMaskOfScores(scores), nKeys), bn);
    if (dk % 16 != 0 || dv % 16 != 0 || bn % 16 != 0 || (vType.getRank() == 3) != rhsBatched)
      return fn.emitOpError("attention kernel needs head dims and keys a step that are "
                            "multiples of 16, and k and v both batched or neither");

    bool wg = s.wgmma;
    if (wg && (dk % 64 != 0 || dv % 64 != 0 || bn % 64 != 0 || s.blockM % 64 != 0))
      return fn.emitOpError("wgmma attention needs head dims, v's columns, keys a step and "
                            "query rows a CTA that are multiples of 64");

    // ---- shared memory: the q rows, then `stages` k blocks, then v blocks ----
    // (wgmma: 64-column blocks of 128-byte rows in the 128-byte swizzle,
    // from a 1024-byte aligned base: q [dk / 64][block_m][64], k [stages *
    // dk / 64][bn][64] (K-major), v [stages][dv / 64 * bn][64] (MN-major:
    // row (column / 64) * bn + key), then P [warpgroups * bn / 64][64][64].)
    auto ws = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    Value pad = m.c(0), smemBase;
    if (wg) {
      Value raw = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, dyn);
      pad = m.rem(m.sub(m.c(1024), m.rem(raw, 1024)), 1024);
      smemBase = m.add(raw, pad);
    }
    auto panelOf = [&](int64_t stages, int64_t rows, int64_t cols, int64_t byteOffset) {
      auto t = MemRefType::get({stages, rows, cols}, elem, AffineMap(), ws);
      Value v = b.create<memref::ViewOp>(loc, t, dyn, wg ? m.add(pad, byteOffset) : m.c(byteOffset),
                                         ValueRange());
      return Panel{v, rows, cols, kChunk};
    };
    int64_t qBytes = s.blockM * dk * elemBytes, kBytes = s.stages * bn * dk * elemBytes,
            vBytes = s.stages * bn * dv * elemBytes;
    Panel pq = wg ? panelOf(dk / 64, s.blockM, 64, 0) : panelOf(1, s.blockM, dk, 0),
          pk = wg ? panelOf(s.stages * dk / 64, bn, 64, qBytes) : panelOf(s.stages, bn, dk, qBytes),
          pvPanel = wg ? panelOf(s.stages, dv / 64 * bn, 64, qBytes + kBytes)
                       : panelOf(s.stages, bn, dv, qBytes + kBytes);
    std::optional<Panel> pp;
    int64_t pBytes = wg && !s.pRegs ? s.blockM * bn * elemBytes : 0;
    if (pBytes)
      pp = panelOf(s.blockM / 64 * bn / 64, 64, 64, qBytes + kBytes + vBytes);
    Value qMem = args.lookup(mm.getLhs()), kMem = args.lookup(mm.getRhs()),
          vMem = args.lookup(pvOp.getRhs());
    // This CTA's key blocks: all, or (split keys) its split's share, none
    // empty (the scheduler's split count). (TMA: a tile's, computed in each
    // role's loop over the CTA's tiles by `tileBlocks`.)
    int64_t perSplit = llvm::divideCeil(kBlocks, s.splitK);
    if (s.splitK > 1 && static_cast<int64_t>(llvm::divideCeil(kBlocks, perSplit)) != s.splitK)
      return fn.emitOpError("attention splits ")
             << kBlocks << " key blocks " << s.splitK << " ways: some split would be empty";
    if (s.l2PrefetchBytes > 0)
      for (auto [mem, cols] : {std::pair(kMem, dk), std::pair(vMem, dv)})
        prefetchKeyBlocks(b, tid, mem, cols, kBlocks, perSplit, bn, s.l2PrefetchBytes / 2);
    Value batchOf = rhsBatched ? batchIdx : Value();
    auto loadK = [&](OpBuilder &bb, Value stage, Value block) {
      IndexMath bm{bb, loc};
      Value key0 = bm.mul(block, bn);
      if (!wg) {
        copyPanel(bb, tid, kMem, pk, stage, key0, nKeys, bm.c(0), dk, 0, Value(), batchOf);
        return;
      }
      for (int64_t kb = 0; kb < dk / 64; ++kb)
        copyPanel(bb, tid, kMem, pk, bm.add(bm.mul(stage, dk / 64), kb), key0, nKeys,
                  bm.c(kb * 64), dk, 0, Value(), batchOf);
    };
    auto loadV = [&](OpBuilder &bb, Value stage, Value block) {
      IndexMath bm{bb, loc};
      Value key0 = bm.mul(block, bn);
      if (!wg) {
        copyPanel(bb, tid, vMem, pvPanel, stage, key0, nKeys, bm.c(0), dv, 0, Value(), batchOf);
        return;
      }
      Panel vBlock = pvPanel; // (bn rows of it a copy)
      vBlock.rows = bn;
      for (int64_t nb = 0; nb < dv / 64; ++nb)
        copyPanel(bb, tid, vMem, vBlock, stage, key0, nKeys, bm.c(nb * 64), dv, nb * bn,
                  Value(), batchOf);
    };
    auto loadBlock = [&](OpBuilder &bb, Value stage, Value block) {
      loadK(bb, stage, block);
      loadV(bb, stage, block);
    };
    auto tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);
    tile::CausalMaskOp causal = causalMaskOfScores(scores);
    Value firstBlock, blockCount;
    auto tileBlocks = [&](OpBuilder &tb) {
      IndexMath m{tb, loc};
      firstBlock = m.c(0);
      blockCount = m.c(kBlocks);
      if (s.splitK > 1) {
        firstBlock = m.mul(splitIdx, perSplit);
        blockCount = m.minv(m.c(perSplit), m.sub(m.c(kBlocks), firstBlock));
      }
      // A causal mask added to the scores (-inf past row r's limit, r %
      // period + offset) removes every key past the limit of the CTA's last
      // row of its run of `period` (of the run's last row where the CTA's
      // rows cross into the next run): the loop ends at the block holding
      // that key, and a split past it has no block. (A key it skips is -inf
      // for every row of the CTA: exp 0, whatever its score.) Unsplit, a
      // tile has a block at least: offset >= 0, so row 0 of a run sees key 0.
      if (!causal)
        return;
      int64_t period = causal.getPeriod(), offset = static_cast<int64_t>(causal.getOffset());
      Value last = m.minv(m.add(m0, s.blockM - 1), m.c(M - 1));
      Value sameRun = tb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, m.div(m0, period),
                                               m.div(last, period));
      Value lastPos =
          tb.create<arith::SelectOp>(loc, sameRun, m.rem(last, period), m.c(period - 1));
      Value end = m.minv(m.add(m.div(m.add(lastPos, offset), bn), 1), m.c(kBlocks));
      Value past = tb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ule, end, firstBlock);
      blockCount = m.minv(blockCount, tb.create<arith::SelectOp>(loc, past, m.c(0),
                                                                  m.sub(end, firstBlock)));
      // The least limit of the CTA's rows: its first row's, or where the
      // rows cross into the next run, that run's first row's (offset).
      causalLeastLimit = m.add(
          tb.create<arith::SelectOp>(loc, sameRun, m.rem(m0, period), m.c(0)), offset);
      // A sliding window of W keys: a row sees none before its limit - W +
      // 1, so the loop starts at the block holding the least of those (the
      // least limit's), and the blocks before it are skipped too. (That
      // block is at most the one holding the least limit: one at least.)
      if (int64_t window = static_cast<int64_t>(causal.getWindow()); window > 0) {
        Value leastFirst = m.add(causalLeastLimit, 1 - window);
        Value before =
            tb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, leastFirst, m.c(0));
        Value low = m.div(tb.create<arith::SelectOp>(loc, before, m.c(0), leastFirst), bn);
        Value stop = m.add(firstBlock, blockCount);
        Value start = tb.create<arith::MaxUIOp>(loc, firstBlock, low);
        Value none = tb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ule, stop, start);
        firstBlock = start;
        blockCount = tb.create<arith::SelectOp>(loc, none, m.c(0), m.sub(stop, start));
        // (The greatest first key a row sees: a block before it is masked.)
        causalGreatestFirst = m.add(m.add(lastPos, offset), 1 - window);
      }
    };
    if (!s.tma)
      tileBlocks(b);
    if (s.tma) {
      // (q, k and v by TMA, below)
    } else if (wg) {
      for (int64_t kb = 0; kb < dk / 64; ++kb)
        copyPanel(b, tid, qMem, pq, m.c(kb), m0, M, m.c(kb * 64), dk, 0, batchRow0);
    } else {
      copyPanel(b, tid, qMem, pq, m.c(0), m0, M, m.c(0), dk, 0, batchRow0);
    }
    // `load(builder, stage, block)` of this CTA's key block `st`, where it
    // has one.
    auto ifBlock = [&](int64_t st, llvm::function_ref<void(OpBuilder &, Value, Value)> load) {
      if ((s.splitK > 1 || causal) && st < perSplit) {
        Value inRange =
            b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, m.c(st), blockCount);
        auto ifOp = b.create<scf::IfOp>(loc, inRange, /*withElse=*/false);
        OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
        IndexMath im{ib, loc};
        load(ib, im.c(st % s.stages), im.add(firstBlock, st));
      } else if (s.splitK == 1 && !causal && st < kBlocks) {
        load(b, m.c(st % s.stages), m.c(st));
      }
    };
    Value token;
    // Copy group g: key block g (k and v), g < stages - 1; with sAhead, k of
    // block g and v of block g - 1, g < stages.
    for (int64_t st = 0; st < (s.tma ? 0 : s.stages - (s.sAhead ? 0 : 1)); ++st) {
      if (!s.sAhead) {
        ifBlock(st, loadBlock);
      } else {
        ifBlock(st, loadK);
        if (st > 0)
          ifBlock(st - 1, loadV);
      }
      token = b.create<nvgpu::DeviceAsyncCreateGroupOp>(loc, tokenType, ValueRange());
    }

    // ---- the key blocks ----
    auto f32 = b.getF32Type();
    auto v4 = VectorType::get({4}, f32), v2 = VectorType::get({2}, f32);
    int64_t niS = bn / 8, niO = dv / 8;
    auto fconst = [&](OpBuilder &bb, Type t, float x) -> Value {
      if (auto vt = llvm::dyn_cast<VectorType>(t))
        return bb.create<arith::ConstantOp>(loc, DenseElementsAttr::get(vt, bb.getF32FloatAttr(x)));
      return bb.create<arith::ConstantOp>(loc, bb.getF32FloatAttr(x));
    };
    auto expOf = [&](OpBuilder &bb, Value x) -> Value {
      auto e = bb.create<math::ExpOp>(loc, x);
      e.setFastmathAttr(exp.getFastmathAttr());
      return e;
    };
    auto quadReduce = [&](OpBuilder &bb, Value x, bool isMax) {
      for (int32_t offset : {1, 2}) {
        Value other = bb.create<gpu::ShuffleOp>(loc, x, offset, static_cast<int32_t>(kWarpSize),
                                                gpu::ShuffleMode::XOR)
                          .getShuffleResult();
        x = isMax ? bb.create<arith::MaximumFOp>(loc, x, other).getResult()
                  : bb.create<arith::AddFOp>(loc, x, other).getResult();
      }
      return x;
    };
    Value zero4 = fconst(b, v4, 0.0f), negInf = fconst(b, f32, -INFINITY),
          zeroF = fconst(b, f32, 0.0f);
    // A row's max to subtract: 0 where every key so far is masked (-inf),
    // so that the exps are exp(-inf) = 0, never exp(-inf - -inf).
    auto finiteOrZero = [&](OpBuilder &bb, Value m) -> Value {
      Value none = bb.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, m, negInf);
      return bb.create<arith::SelectOp>(loc, none, zeroF, m);
    };
    // wgmma: S = q k^T of the k block in buffer `kStage`, m64n(bn)k16 of
    // the warpgroup's 64 rows, issued and committed (not waited for);
    // `sVectors`: accumulator element 4j + e is the mma.sync m16n8 layout
    // of n8 tile j for the warp's 16 rows.
    Value warpgroup = m.div(tileWarp, 4);
    // (wgmma: the byte addresses of buffer `stage` of k and of v.)
    auto kStageAt = [&](OpBuilder &bb, Value stage) {
      IndexMath im{bb, loc};
      return im.add(smemBase, im.add(im.c(qBytes), im.mul(stage, dk / 64 * bn * 128)));
    };
    auto vStageAt = [&](OpBuilder &bb, Value stage) {
      IndexMath im{bb, loc};
      return im.add(smemBase, im.add(im.c(qBytes + kBytes), im.mul(stage, dv / 64 * bn * 128)));
    };
    auto issueS = [&](OpBuilder &lb, Value kStage) -> Value {
      IndexMath lm{lb, loc};
      Value qWg = lm.add(smemBase, lm.mul(warpgroup, 64 * 128));
      Value kAt = kStageAt(lb, kStage);
      // (descOffsets: the k steps' descriptors of the stage's k block are
      // the first's plus their byte offsets / 16, one 64-bit add each. Not
      // q's: loop-invariant, LLVM hoists them out of the loop either way,
      // and as offsets of one they stayed live there (ptxas spilled).)
      Value db0 = s.descOffsets ? wgmmaDescriptor(lb, kAt, 16) : Value();
      Value acc = lb.create<LLVM::UndefOp>(
          loc, LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(bn / 2, lb.getF32Type())));
      lb.create<NVVM::WgmmaFenceAlignedOp>(loc);
      for (int64_t kk = 0; kk < dk / 16; ++kk) {
        int64_t aAt = (kk / 4) * s.blockM * 128 + (kk % 4) * 32,
                bAt = (kk / 4) * bn * 128 + (kk % 4) * 32;
        Value da = wgmmaDescriptor(lb, lm.add(qWg, aAt), 16);
        Value db = s.descOffsets ? descriptorPlus(lb, db0, bAt)
                                 : wgmmaDescriptor(lb, lm.add(kAt, bAt), 16);
        acc = wgmmaOp(lb, acc, da, db, bn, /*bMN=*/false, /*zero=*/kk == 0);
      }
      lb.create<NVVM::WgmmaGroupSyncAlignedOp>(loc);
      return acc;
    };
    auto sVectors = [&](OpBuilder &lb, Value acc) { return accumulatorTiles(lb, acc, niS); };
    // (wgmma: O's accumulator tiles as the struct of dv / 2 floats.)
    Type oStructType = LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(dv / 2, f32));
    auto oStructOf = [&](OpBuilder &bb, ArrayRef<Value> tiles) {
      Value acc = bb.create<LLVM::UndefOp>(loc, oStructType);
      for (int64_t jt = 0; jt < niO; ++jt)
        for (int64_t e = 0; e < 4; ++e)
          acc = bb.create<LLVM::InsertValueOp>(
              loc, acc, bb.create<vector::ExtractOp>(loc, tiles[jt], ArrayRef<int64_t>{e}),
              ArrayRef<int64_t>{4 * jt + e});
      return acc;
    };
    // P from registers: the scores' accumulator pairs (p[h][t]: row half
    // h, n8 tile t) are the A fragment of m64n(dv)k16 (as for mma.sync):
    // k16 step kk takes n8 tiles 2 kk and 2 kk + 1 of both row halves,
    // rounded to v's dtype and packed as i32 (f16 pairs too, which
    // mma.sync takes as vectors): 4 a step, bn / 4 in all.
    auto pFragments = [&](OpBuilder &bb, ArrayRef<Value> p0, ArrayRef<Value> p1) {
      auto pType = VectorType::get({2}, elem);
      auto packedI32 = [&](Value pair) {
        auto v = bb.create<vector::BitCastOp>(loc, VectorType::get({1}, bb.getI32Type()),
                                              bb.create<arith::TruncFOp>(loc, pType, pair));
        return bb.create<vector::ExtractOp>(loc, v, ArrayRef<int64_t>{0}).getResult();
      };
      SmallVector<Value> frags;
      for (int64_t kk = 0; kk < bn / 16; ++kk)
        frags.append({packedI32(p0[2 * kk]), packedI32(p1[2 * kk]), packedI32(p0[2 * kk + 1]),
                      packedI32(p1[2 * kk + 1])});
      return frags;
    };
    // O += P v with P's fragments in registers (tile.wgmma_rs), v from the
    // buffer at `vStage` (MN-major); issued, not committed. (The fragments
    // are packed before the fence: ptxas fences again before any wgmma
    // whose A registers were written after the last fence.)
    auto issuePvFromRegisters = [&](OpBuilder &bb, Value acc, ArrayRef<Value> frags,
                                    Value vStage) {
      IndexMath im{bb, loc};
      Value db0 = s.descOffsets ? wgmmaDescriptor(bb, vStage, bn * 128) : Value();
      bb.create<NVVM::WgmmaFenceAlignedOp>(loc);
      for (int64_t kk = 0; kk < bn / 16; ++kk) {
        Value db = s.descOffsets ? descriptorPlus(bb, db0, kk * 16 * 128)
                                 : wgmmaDescriptor(bb, im.add(vStage, kk * 16 * 128), bn * 128);
        acc = bb.create<tile::WgmmaRsOp>(loc, acc.getType(), acc, frags.slice(4 * kk, 4), db,
                                         elem, /*b_mn=*/true, /*zero_acc=*/false);
      }
      return acc;
    };
    // TMA: mbarriers after P's tiles (q's full, full[stage], empty[stage],
    // then q's empty). CTA c takes tiles c, c + grid, ... (the launch
    // gives each CTA one tile, or persistent, at most one CTA an SM);
    // warpgroup 0 is the producer: its first thread, for each key block of
    // each of its tiles, waits until the block's stage is empty (every
    // consumer warp has arrived), arms `full` with the block's bytes and
    // copies k's and v's 64-column boxes (zeros past the last key); after a
    // tile's first block, it copies the tile's q rows once the consumers
    // are done with the previous tile's (q's empty: each consumer warp
    // arrives after its last S of a tile). The stages and their phases run
    // on over the tiles: block g of the CTA's sequence is in stage g %
    // stages. The consumers wait on `full`, and after a block's P v each
    // warp's lane 0 arrives on `empty`: no CTA barrier in the loop.
    scf::IfOp roleIf;
    auto i32 = b.getI32Type();
    auto c32 = [&](OpBuilder &bb, int64_t v) -> Value {
      return bb.create<arith::ConstantOp>(loc, bb.getI32IntegerAttr(v));
    };
    auto toI32 = [&](OpBuilder &bb, Value v) -> Value {
      return bb.create<arith::IndexCastOp>(loc, i32, v);
    };
    Value bars;
    auto barAt = [&](OpBuilder &bb, int64_t slot, Value stage = Value()) {
      IndexMath im{bb, loc};
      Value at = im.add(bars, slot * 8);
      return sharedPointer(bb, stage ? im.add(at, im.mul(stage, 8)) : at);
    };
    auto fullBar = [&](OpBuilder &bb, Value stage) { return barAt(bb, 1, stage); };
    auto emptyBar = [&](OpBuilder &bb, Value stage) { return barAt(bb, 1 + s.stages, stage); };
    auto qEmptyBar = [&](OpBuilder &bb) { return barAt(bb, 1 + 2 * s.stages); };
    Value ticks;
    // (TMA: a block's stage and phase in the CTA's sequence of blocks over
    // its tiles, carried through the block loops and from tile to tile as
    // one i32 word: with an index and an i32 the one-consumer kernel, 64
    // rows and 128 keys a step, spilled 8 bytes at its 168 registers.)
    Ring ring{s.stages};
    // (TMA: the loops over the CTA's tiles run from `tileFirst` to
    // `tileEnd` by `tileStep`, tile `tileOf(index)`; the consumers' loop,
    // the tile's index and its first block's place in the ring.)
    Value tileFirst, tileEnd, tileStep, tileIdxAt, word0;
    scf::ForOp consumerTiles;
    std::function<void(OpBuilder &, scf::ForOp, Value)> nextTile;
    if (s.tma) {
      bars = m.add(smemBase, qBytes + kBytes + vBytes + pBytes);
      ticks = c32(b, 0x989680);
      {
        Value first = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, tid, m.c(0));
        auto ifOp = b.create<scf::IfOp>(loc, first, false);
        OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
        IndexMath im{ib, loc};
        ib.create<NVVM::MBarrierInitOp>(loc, barAt(ib, 0), c32(ib, 1), Value());
        for (int64_t st = 0; st < s.stages; ++st) {
          ib.create<NVVM::MBarrierInitOp>(loc, fullBar(ib, im.c(st)), c32(ib, 1), Value());
          ib.create<NVVM::MBarrierInitOp>(loc, emptyBar(ib, im.c(st)), c32(ib, s.tileWarps()),
                                          Value());
        }
        ib.create<NVVM::MBarrierInitOp>(loc, qEmptyBar(ib), c32(ib, s.tileWarps()), Value());
        ib.create<NVVM::FenceMbarrierInitOp>(loc);
      }
      b.create<gpu::BarrierOp>(loc);
      // The loops over the CTA's tiles carry the ring's position at the
      // tile's first block and the count of its tiles so far, whose parity
      // q's barriers take. Not persistent, they run 0 to 1 over tile cta + 0,
      // and the canonicalizer folds the one trip away (kept, the loops
      // made the one-consumer kernel, 64 rows, 128 keys a step and 128
      // columns, spill 24 bytes at the launch's 168 registers).
      // Persistent, from the CTA's index by the grid; where the tiles'
      // work falls with their index (causal: heaviest first), in waves of
      // `grid` that alternate their order, so that a CTA's heavy tile of
      // one wave pairs with a light one of the next: CTA c takes tile w
      // grid + c of even waves w, w grid + grid - 1 - c of odd ones, the
      // last wave's where it is a tile.
      Value cta = b.create<gpu::BlockIdOp>(loc, gpu::Dimension::x), grid;
      bool snake = s.persistent && heavyRowsFirst;
      if (snake) {
        grid = b.create<gpu::GridDimOp>(loc, gpu::Dimension::x);
        Value waves = m.divv(m.c(numTiles()), grid), left = m.remv(m.c(numTiles()), grid);
        Value oddLast = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, m.rem(waves, 2),
                                                m.c(1));
        Value extra = b.create<arith::SelectOp>(
            loc, oddLast,
            b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::uge, cta, m.sub(grid, left)),
            b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, cta, left));
        tileFirst = m.c(0);
        tileEnd = m.add(waves, b.create<arith::SelectOp>(loc, extra, m.c(1), m.c(0)).getResult());
        tileStep = m.c(1);
      } else if (s.persistent) {
        tileFirst = cta;
        tileEnd = m.c(numTiles());
        tileStep = b.create<gpu::GridDimOp>(loc, gpu::Dimension::x);
      } else {
        tileFirst = m.c(0);
        tileEnd = m.c(1);
        tileStep = m.c(1);
      }
      auto tileOf = [&](OpBuilder &bb, Value index) -> Value {
        IndexMath im{bb, loc};
        if (!snake)
          return s.persistent ? index : im.add(cta, index);
        Value odd = bb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, im.rem(index, 2),
                                             im.c(1));
        Value reversed = im.sub(im.sub(grid, cta), im.c(1));
        return im.add(im.mulv(index, grid),
                      bb.create<arith::SelectOp>(loc, odd, reversed, cta).getResult());
      };
      // Each role's loop over the tiles: `bb` moves into its body, where the
      // tile's rows and key blocks are set; `nextTile` ends the body.
      auto tileLoopAt = [&](OpBuilder &bb) {
        IndexMath im{bb, loc};
        auto loop = bb.create<scf::ForOp>(loc, tileFirst, tileEnd, tileStep,
                                          ValueRange{ring.startWord(im), im.c(0)});
        bb.setInsertionPointToStart(loop.getBody());
        setTile(bb, tileOf(bb, loop.getInductionVar()));
        tileBlocks(bb);
        return loop;
      };
      // (`end`: the ring's position after the tile's last block.)
      nextTile = [&](OpBuilder &bb, scf::ForOp loop, Value end) {
        IndexMath im{bb, loc};
        bb.create<scf::YieldOp>(loc, ValueRange{end, im.add(loop.getRegionIterArgs()[1], 1)});
      };
      OpBuilder ib = splitProducer(b, tid, roleIf);
      auto ptr7 = LLVM::LLVMPointerType::get(ctx, 7);
      auto copy = [&](OpBuilder &cb, Value map, Value dst, ValueRange coords, Value bar) {
        Value d = cb.create<LLVM::AddrSpaceCastOp>(loc, ptr7, sharedPointer(cb, dst));
        cb.create<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(
            loc, d, map, coords, bar, ValueRange(), Value(), Value(), NVVM::TMALoadMode::TILE,
            false, NVVM::CTAGroupKindAttr(), Value());
      };
      OpBuilder tb = ib;
      scf::ForOp tileLoop = tileLoopAt(tb);
      IndexMath tm{tb, loc};
      Value t = tileLoop.getRegionIterArgs()[1];
      auto loop = tb.create<scf::ForOp>(loc, tm.c(0), blockCount, tm.c(1),
                                        ValueRange{tileLoop.getRegionIterArgs()[0]});
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      IndexMath lm{lb, loc};
      Value j = loop.getInductionVar();
      RingPos pos = ring.unpack(lm, loop.getRegionIterArgs()[0]);
      Value stage = pos.stage;
      lb.create<NVVM::MBarrierTryWaitParityOp>(loc, emptyBar(lb, stage), ring.phaseBefore(lm, pos),
                                               ticks);
      Value bar = fullBar(lb, stage);
      lb.create<NVVM::MBarrierArriveExpectTxOp>(loc, Type(), bar,
                                                c32(lb, bn * (dk + dv) * elemBytes),
                                                NVVM::MemScopeKind::CTA, false, Value());
      Value key0 = toI32(lb, lm.mul(lm.add(firstBlock, j), bn));
      auto coords = [&](int64_t col) {
        SmallVector<Value> c{c32(lb, col), key0};
        if (rhsBatched)
          c.push_back(toI32(lb, batchIdx));
        return c;
      };
      Value kStage = kStageAt(lb, stage);
      for (int64_t kb = 0; kb < dk / 64; ++kb)
        copy(lb, mapParams[1], lm.add(kStage, kb * bn * 128), coords(kb * 64), bar);
      Value vStage = vStageAt(lb, stage);
      for (int64_t nb = 0; nb < dv / 64; ++nb)
        copy(lb, mapParams[2], lm.add(vStage, nb * bn * 128), coords(nb * 64), bar);
      {
        // The tile's q rows, after its first block (which may go while the
        // consumers finish the previous tile's last blocks).
        auto ifOp = lb.create<scf::IfOp>(
            loc, lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, j, lm.c(0)), false);
        OpBuilder qb = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
        IndexMath qm{qb, loc};
        Value tileParity = toI32(qb, qm.rem(t, 2));
        qb.create<NVVM::MBarrierTryWaitParityOp>(
            loc, qEmptyBar(qb), qb.create<arith::XOrIOp>(loc, tileParity, c32(qb, 1)), ticks);
        Value qBar = barAt(qb, 0);
        qb.create<NVVM::MBarrierArriveExpectTxOp>(loc, Type(), qBar, c32(qb, qBytes),
                                                  NVVM::MemScopeKind::CTA, false, Value());
        for (int64_t kb = 0; kb < dk / 64; ++kb)
          for (int64_t rb = 0; rb < s.blockM / 64; ++rb)
            copy(qb, mapParams[0], qm.add(smemBase, kb * s.blockM * 128 + rb * 64 * 128),
                 {c32(qb, kb * 64), toI32(qb, qm.add(qm.add(batchRow0, m0), rb * 64))}, qBar);
      }
      lb.create<scf::YieldOp>(loc, ring.nextWord(lm, loop.getRegionIterArgs()[0]));
      nextTile(tb, tileLoop, loop.getResult(0));
      // The consumers: the rest of the kernel, in the else branch, in a
      // loop over the CTA's tiles.
      b.setInsertionPoint(roleIf.getElseRegion().front().getTerminator());
      b.create<NVVM::SetMaxRegisterOp>(loc, kMmaRegisters, NVVM::SetMaxRegisterAction::increase);
      if (s.attentionTurns) {
        // Turns (ping-pong): warpgroup w issues a block's S at named
        // barrier 3 + w, which the other's arrival completes, and after
        // issuing it arrives at the other's. Warpgroup 1 lets 0 go first;
        // it skips its arrival after its last S of the CTA's last tile, so
        // that each barrier gets as many arrivals as it has syncs. (Over
        // the tiles the turns go on: warpgroup 0 starts the next tile's S
        // once 1 has issued this tile's last.)
        Value second = b.create<arith::AndIOp>(
            loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, warpgroup, m.c(1)),
            b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, tileFirst, tileEnd));
        auto ifOp = b.create<scf::IfOp>(loc, second, /*withElse=*/false);
        OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
        ib.create<NVVM::BarrierArriveOp>(loc, c32(ib, 3), c32(ib, 256));
      }
      consumerTiles = tileLoopAt(b);
      tileIdxAt = consumerTiles.getInductionVar();
      word0 = consumerTiles.getRegionIterArgs()[0];
      // (q comes with a tile's first block: a split of none, past a causal
      // limit or before a window, has no q to wait for.)
      OpBuilder qb = b;
      if (s.splitK > 1 && causal) {
        auto any = b.create<scf::IfOp>(
            loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ugt, blockCount, m.c(0)),
            /*withElse=*/false);
        qb = OpBuilder::atBlockBegin(&any.getThenRegion().front());
      }
      Value tileParity = IndexMath{qb, loc}.rem(consumerTiles.getRegionIterArgs()[1], 2);
      qb.create<NVVM::MBarrierTryWaitParityOp>(loc, barAt(qb, 0), toI32(qb, tileParity), ticks);
    }
    SmallVector<Value> init(niO, zero4);
    init.append({negInf, negInf, zeroF, zeroF});
    if (s.overlap) // (P's fragments of the block before: none before the first)
      init.append(bn / 4, b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(0)));
    if (s.sAhead) {
      // S of the first block before the loop (its copy group done).
      b.create<nvgpu::DeviceAsyncWaitOp>(loc, token, b.getI32IntegerAttr(s.stages - 1));
      fenceAsyncShared(b);
      b.create<gpu::BarrierOp>(loc);
      Value acc = issueS(b, m.c(0));
      b.create<NVVM::WgmmaWaitGroupSyncOp>(loc, b.getI64IntegerAttr(0));
      init.append(sVectors(b, acc));
    }
    if (!s.tma)
      init.push_back(token);
    else // (the ring's position, last)
      init.push_back(word0);
    auto loop = b.create<scf::ForOp>(loc, m.c(0), blockCount, m.c(1), init);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      IndexMath lm{lb, loc};
      Value i = loop.getInductionVar(), j = lm.add(firstBlock, i); // (the key block)
      auto iter = loop.getRegionIterArgs();
      SmallVector<Value> o(iter.begin(), iter.begin() + niO);
      Value mOld[2] = {iter[niO], iter[niO + 1]}, lOld[2] = {iter[niO + 2], iter[niO + 3]};
      // (TMA: the block's place in the ring, over the CTA's tiles.)
      RingPos pos;
      if (s.tma)
        pos = ring.unpack(lm, iter.back());
      Value stage = s.tma ? pos.stage : lm.rem(i, s.stages), newToken;
      if (s.tma) {
        lb.create<NVVM::MBarrierTryWaitParityOp>(loc, fullBar(lb, stage), pos.phase, ticks);
      } else {
        lb.create<nvgpu::DeviceAsyncWaitOp>(loc, iter.back(), lb.getI32IntegerAttr(s.stages - 2));
        if (wg) // (the copies, generic proxy, made visible to wgmma: async proxy)
          fenceAsyncShared(lb);
        lb.create<gpu::BarrierOp>(loc);
        // Refill the buffer the previous block used (sAhead: k of block i +
        // stages into block i's buffer, whose S is done, and v of block i +
        // stages - 1 into block i - 1's, whose P v is).
        auto refill = [&](int64_t ahead,
                          llvm::function_ref<void(OpBuilder &, Value, Value)> load) {
          Value next = lm.add(i, ahead);
          auto ifOp = lb.create<scf::IfOp>(
              loc, lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, next, blockCount),
              /*withElse=*/false);
          OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
          IndexMath im{ib, loc};
          load(ib, im.rem(next, s.stages), im.add(firstBlock, next));
        };
        if (s.sAhead) {
          refill(s.stages, loadK);
          refill(s.stages - 1, loadV);
        } else {
          refill(s.stages - 1, loadBlock);
        }
        newToken = lb.create<nvgpu::DeviceAsyncCreateGroupOp>(loc, tokenType, ValueRange());
      }

      // S = q k^T: the warp's 16 rows x bn keys.
      SmallVector<Value> sAcc(niS, zero4);
      LaneCoords lc = laneCoords(lb);
      Value sNext; // (sAhead: the next block's S, in flight)
      // (Overlap: the previous block's P fragments, from the loop; O's
      // struct with its P v in flight.)
      SmallVector<Value> pPrev;
      if (s.overlap)
        pPrev.assign(iter.begin() + niO + 4, iter.begin() + niO + 4 + bn / 4);
      Value oInFlight;
      if (s.sAhead) {
        // This block's S came with the loop; the next block's is issued now
        // and runs under this one's softmax. (After the last block it reads
        // a buffer no copy writes; its result is dropped.)
        for (int64_t jt = 0; jt < niS; ++jt)
          sAcc[jt] = iter[niO + 4 + jt];
        sNext = issueS(lb, lm.rem(lm.add(i, 1), s.stages));
      } else if (wg) {
        if (s.attentionTurns) // (this warpgroup's turn)
          lb.create<NVVM::BarrierOp>(loc, TypeRange{}, toI32(lb, lm.add(warpgroup, 3)),
                                     c32(lb, 256), NVVM::BarrierReductionAttr(), Value());
        Value acc = issueS(lb, stage);
        if (s.overlap) {
          // Overlap (FlashAttention-3's intra-warpgroup pipelining): the
          // previous block's P v, issued behind this block's S, runs under
          // this block's softmax. (None before the first block: its group
          // is empty.)
          auto ifOp = lb.create<scf::IfOp>(
              loc, TypeRange{oStructType},
              lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ugt, i, lm.c(0)),
              /*withElseRegion=*/true);
          {
            OpBuilder tb = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
            IndexMath tm{tb, loc};
            Value oAcc = oStructOf(tb, o),
                  vStage = vStageAt(tb, ring.before(tm, stage, 1));
            Value acc = issuePvFromRegisters(tb, oAcc, pPrev, vStage);
            tb.create<NVVM::WgmmaGroupSyncAlignedOp>(loc);
            tb.create<scf::YieldOp>(loc, acc);
            OpBuilder eb = OpBuilder::atBlockBegin(&ifOp.getElseRegion().front());
            Value same = oStructOf(eb, o);
            eb.create<NVVM::WgmmaGroupSyncAlignedOp>(loc);
            eb.create<scf::YieldOp>(loc, same);
          }
          oInFlight = ifOp.getResult(0);
        }
        if (s.attentionTurns) { // (the other's turn, but after warpgroup 1's last S)
          Value pass = lb.create<arith::OrIOp>(
              loc, lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, warpgroup, lm.c(0)),
              lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, lm.add(i, 1), blockCount));
          pass = lb.create<arith::OrIOp>(
              loc, pass,
              lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                       lm.add(tileIdxAt, tileStep), tileEnd));
          auto ifOp = lb.create<scf::IfOp>(loc, pass, /*withElse=*/false);
          OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
          IndexMath im{ib, loc};
          ib.create<NVVM::BarrierArriveOp>(loc, toI32(ib, im.sub(im.c(4), warpgroup)),
                                           c32(ib, 256));
        }
        // (Overlap: this block's S; the P v behind it still running.)
        lb.create<NVVM::WgmmaWaitGroupSyncOp>(loc, lb.getI64IntegerAttr(s.overlap ? 1 : 0));
        sAcc = sVectors(lb, acc);
      }
      for (int64_t kk = 0; kk < (wg ? 0 : dk / 16); ++kk) {
        SmallVector<Value, 4> a = loadAFragment(lb, lc, pq, lm.c(0), kk, warpM0, false);
        for (int64_t t = 0; t < niS / 2; ++t) {
          SmallVector<Value, 4> f = loadBFragments(lb, lc, pk, stage, kk, lm.c(t * 16), true);
          sAcc[2 * t] = mmaSync(lb, a, {f[0], f[1]}, sAcc[2 * t]);
          sAcc[2 * t + 1] = mmaSync(lb, a, {f[2], f[3]}, sAcc[2 * t + 1]);
        }
      }
      // The scores' epilogue on each pair; keys past the last are -inf.
      Value quad = lm.div(lane, 4), pairCol = lm.mul(lm.rem(lane, 4), 2);
      Value rowBase = lm.add(lm.add(m0, warpM0), quad), key0 = lm.mul(j, bn);
      SmallVector<Value> sPair[2];
      int64_t outN = N;
      // The scores of row half h, n8 tile t in sPair[h][t], emitted at `eb`.
      auto emitScores = [&](OpBuilder &eb) -> LogicalResult {
        IndexMath em{eb, loc};
        loadCache.clear();
        fragmentOps = scoresOps;
        captureTile = scores;
        N = nKeys; // (the scores' columns: masks and loads of their rows)
        for (int64_t h = 0; h < 2; ++h)
          for (int64_t t = 0; t < niS; ++t) {
            Value pair = eb.create<vector::ShuffleOp>(loc, sAcc[t], sAcc[t],
                                                      ArrayRef<int64_t>{2 * h, 2 * h + 1});
            Value col = em.add(key0, em.add(pairCol, t * 8));
            captured = Value();
            if (failed(emitFragment(eb, em.add(rowBase, h * 8), col, {pair}, t, h, Emit::All)))
              return failure();
            Value sv = captured;
            if (!sv || sv.getType() != v2)
              return fn.emitOpError("internal error: attention scores of type ")
                     << (sv ? sv.getType() : Type()) << " in registers";
            if (nKeys % bn != 0) {
              Value ok = eb.create<vector::FromElementsOp>(
                  loc, VectorType::get({2}, eb.getI1Type()),
                  ValueRange{em.lt(col, nKeys), em.lt(em.add(col, 1), nKeys)});
              sv = eb.create<arith::SelectOp>(loc, ok, sv, fconst(eb, v2, -INFINITY));
            }
            sPair[h].push_back(sv);
          }
        N = outN;
        fragmentOps = {};
        captureTile = Value();
        loadCache.clear();
        return success();
      };
      if (!causal || !causal->hasOneUse()) {
        if (failed(emitScores(lb)))
          return failure();
      } else {
        // Causal: a block whose last key every row of the CTA sees (the
        // least limit, of its first row or of a run's first) takes the
        // scores without the mask; one that crosses a row's limit, with it.
        Value lastKey = lm.add(key0, bn - 1);
        Value masked =
            lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, lastKey, causalLeastLimit);
        if (causalGreatestFirst) // (a window: a block before some row's first key)
          masked = lb.create<arith::OrIOp>(
              loc, masked,
              lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, key0, causalGreatestFirst));
        auto ifOp = lb.create<scf::IfOp>(loc, SmallVector<Type>(2 * niS, v2), masked,
                                         /*withElseRegion=*/true);
        for (bool withMask : {true, false}) {
          OpBuilder eb = OpBuilder::atBlockBegin(withMask ? &ifOp.getThenRegion().front()
                                                          : &ifOp.getElseRegion().front());
          unmaskedCausal = withMask ? tile::CausalMaskOp() : causal;
          sPair[0].clear();
          sPair[1].clear();
          if (failed(emitScores(eb)))
            return failure();
          SmallVector<Value> both(sPair[0]);
          both.append(sPair[1]);
          eb.create<scf::YieldOp>(loc, both);
        }
        unmaskedCausal = {};
        for (int64_t h = 0; h < 2; ++h)
          sPair[h].assign(ifOp.getResults().begin() + h * niS,
                          ifOp.getResults().begin() + (h + 1) * niS);
      }

      // Online softmax: running max, exps, running sum, rescaled output.
      SmallVector<Value> yields;
      Value mNew[2], lNew[2], alpha[2];
      SmallVector<Value> p[2];
      // (The thread's maxima and sums pairwise, as trees: a chain of
      // bn / 4 dependent ops a row half would be latency on the critical
      // path, with few warps an SM.)
      auto tree = [&](SmallVector<Value> xs, bool isMax) {
        while (xs.size() > 1) {
          SmallVector<Value> next;
          for (size_t k = 0; k + 1 < xs.size(); k += 2)
            next.push_back(isMax ? lb.create<arith::MaximumFOp>(loc, xs[k], xs[k + 1]).getResult()
                                 : lb.create<arith::AddFOp>(loc, xs[k], xs[k + 1]).getResult());
          if (xs.size() % 2)
            next.push_back(xs.back());
          xs = std::move(next);
        }
        return xs.front();
      };
      for (int64_t h = 0; h < 2; ++h) {
        SmallVector<Value> scoresOfRow;
        for (Value sv : sPair[h])
          for (int64_t e = 0; e < 2; ++e)
            scoresOfRow.push_back(lb.create<vector::ExtractOp>(loc, sv, ArrayRef<int64_t>{e}));
        Value rawMax = tree(scoresOfRow, true);
        if (scaleFolded) // (c > 0: the max of c s is c times the max of s)
          rawMax = lb.create<arith::MulFOp>(loc, rawMax,
                                            fconst(lb, f32, static_cast<float>(foldedScale)));
        Value mx = lb.create<arith::MaximumFOp>(loc, mOld[h], rawMax);
        mNew[h] = quadReduce(lb, mx, true);
        Value mUse = finiteOrZero(lb, mNew[h]);
        alpha[h] = expOf(lb, lb.create<arith::SubFOp>(loc, mOld[h], mUse));
        Value mVec = lb.create<vector::BroadcastOp>(loc, v2, mUse);
        // Approximate exps (afn) as 2^(s log2 e - m log2 e): one fma and
        // ex2.approx an element (exp(s - m) is a subtraction, a
        // multiplication and ex2.approx).
        bool approx = bitEnumContainsAll(exp.getFastmath(), arith::FastMathFlags::afn);
        Value log2e = fconst(lb, v2, static_cast<float>(M_LOG2E)), negMLog2e;
        Value sScale = fconst(lb, v2, static_cast<float>(scaleFolded ? foldedScale : 1.0)),
              sLog2e = fconst(lb, v2,
                              static_cast<float>((scaleFolded ? foldedScale : 1.0) * M_LOG2E));
        if (approx)
          negMLog2e = lb.create<arith::NegFOp>(loc, lb.create<arith::MulFOp>(loc, mVec, log2e));
        SmallVector<Value> exps;
        for (Value sv : sPair[h]) {
          Value e;
          if (approx) {
            auto e2 =
                lb.create<math::Exp2Op>(loc, lb.create<math::FmaOp>(loc, sv, sLog2e, negMLog2e));
            e2.setFastmathAttr(exp.getFastmathAttr());
            // (As the row kernels' softmax: one MUFU.EX2, not three more
            // instructions around it to keep subnormal results; an exp
            // below 2^-126 of the row's max adds nothing to a sum >= 1.)
            if (s.flushExps)
              e2->setAttr(tilec::kFlushExpAttr, lb.getUnitAttr());
            e = e2;
          } else {
            if (scaleFolded)
              sv = lb.create<arith::MulFOp>(loc, sv, sScale);
            e = expOf(lb, lb.create<arith::SubFOp>(loc, sv, mVec));
          }
          p[h].push_back(e);
          for (int64_t i = 0; i < 2; ++i)
            exps.push_back(lb.create<vector::ExtractOp>(loc, e, ArrayRef<int64_t>{i}));
        }
        lNew[h] = lb.create<arith::AddFOp>(loc, lb.create<arith::MulFOp>(loc, lOld[h], alpha[h]),
                                           tree(exps, false));
      }
      Value scale = lb.create<vector::FromElementsOp>(
          loc, v4, ValueRange{alpha[0], alpha[0], alpha[1], alpha[1]});
      if (!s.overlap) // (overlap: once the previous block's P v is done)
        for (Value &acc : o)
          acc = lb.create<arith::MulFOp>(loc, acc, scale);
      // O += P v, k16 step by k16 step of the block's keys.
      auto pType = VectorType::get({2}, elem);
      auto packed = [&](Value pair) {
        return asI32(lb, loc, lb.create<arith::TruncFOp>(loc, pType, pair));
      };
      if (wg && s.overlap) {
        // Overlap: P v of the previous block (issued after this block's S)
        // done, its stage free; O rescaled to this block's max; this
        // block's P packed for the next iteration (after the wait: the
        // registers in flight are not rewritten).
        lb.create<NVVM::WgmmaWaitGroupSyncOp>(loc, lb.getI64IntegerAttr(0));
        o = accumulatorTiles(lb, oInFlight, niO);
        Value ok = lb.create<arith::AndIOp>(
            loc, lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, lane, lm.c(0)),
            lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ugt, i, lm.c(0)));
        auto ifOp = lb.create<scf::IfOp>(loc, ok, false);
        OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
        IndexMath im{ib, loc};
        ib.create<NVVM::MBarrierArriveOp>(loc, Type(),
                                          emptyBar(ib, ring.before(im, stage, 1)),
                                          Value());
        for (Value &acc : o)
          acc = lb.create<arith::MulFOp>(loc, acc, scale);
      } else if (wg) {
        Value acc;
        if (s.pRegs) {
          Value oAcc = oStructOf(lb, o), vStage = vStageAt(lb, stage);
          SmallVector<Value> frags = pFragments(lb, p[0], p[1]);
          acc = issuePvFromRegisters(lb, oAcc, frags, vStage);
        } else {
          // P (rounded to v's dtype) into the warpgroup's K-major tile: key
          // 8t + pairCol of row r = (warp % 4) * 16 + quad + 8h goes to
          // 64-key block t / 8, chunk (t % 8) ^ (r % 8) (r % 8 = quad);
          // then the stores made visible to wgmma and the warpgroup
          // synchronized (named barrier 1 + warpgroup) before m64n(dv)k16
          // over the keys.
          Value rowInWg = lm.add(lm.mul(lm.rem(tileWarp, 4), 16), quad);
          for (int64_t h = 0; h < 2; ++h)
            for (int64_t t = 0; t < niS; ++t) {
              Value tileIdx = lm.add(lm.mul(warpgroup, bn / 64), t / 8);
              Value col = lm.add(lm.mul(lm.xori(lm.c(t % 8), quad), 8), pairCol);
              lb.create<vector::StoreOp>(loc, lb.create<arith::TruncFOp>(loc, pType, p[h][t]),
                                         pp->smem,
                                         ValueRange{tileIdx, lm.add(rowInWg, h * 8), col});
            }
          fenceAsyncShared(lb);
          Value barId =
              lb.create<arith::IndexCastOp>(loc, lb.getI32Type(), lm.add(warpgroup, 1));
          Value count = lb.create<arith::ConstantOp>(loc, lb.getI32IntegerAttr(128));
          lb.create<NVVM::BarrierOp>(loc, TypeRange{}, barId, count,
                                     NVVM::BarrierReductionAttr(), Value());
          acc = oStructOf(lb, o);
          Value pWg = lm.add(smemBase, lm.add(lm.c(qBytes + kBytes + vBytes),
                                              lm.mul(warpgroup, bn / 64 * 64 * 128)));
          Value vStage = vStageAt(lb, stage);
          Value db0 = s.descOffsets ? wgmmaDescriptor(lb, vStage, bn * 128) : Value();
          lb.create<NVVM::WgmmaFenceAlignedOp>(loc);
          for (int64_t kk = 0; kk < bn / 16; ++kk) {
            int64_t aAt = (kk / 4) * 64 * 128 + (kk % 4) * 32, bAt = kk * 16 * 128;
            Value da = wgmmaDescriptor(lb, lm.add(pWg, aAt), 16); // (invariant, as q's)
            Value db = s.descOffsets ? descriptorPlus(lb, db0, bAt)
                                     : wgmmaDescriptor(lb, lm.add(vStage, bAt), bn * 128);
            acc = wgmmaOp(lb, acc, da, db, dv, /*bMN=*/true, /*zero=*/false);
          }
        }
        lb.create<NVVM::WgmmaGroupSyncAlignedOp>(loc);
        lb.create<NVVM::WgmmaWaitGroupSyncOp>(loc, lb.getI64IntegerAttr(0));
        o = accumulatorTiles(lb, acc, niO);
        if (s.tma) { // (the block's MMAs are done: its stage is free)
          Value ok = lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, lane, lm.c(0));
          auto ifOp = lb.create<scf::IfOp>(loc, ok, false);
          OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
          ib.create<NVVM::MBarrierArriveOp>(loc, Type(), emptyBar(ib, stage), Value());
        }
      }
      for (int64_t kk = 0; kk < (wg ? 0 : bn / 16); ++kk) {
        SmallVector<Value, 4> a{packed(p[0][2 * kk]), packed(p[1][2 * kk]),
                                packed(p[0][2 * kk + 1]), packed(p[1][2 * kk + 1])};
        for (int64_t t = 0; t < niO / 2; ++t) {
          SmallVector<Value, 4> f =
              loadBFragments(lb, lc, pvPanel, stage, kk, lm.c(t * 16), false);
          o[2 * t] = mmaSync(lb, a, {f[0], f[1]}, o[2 * t]);
          o[2 * t + 1] = mmaSync(lb, a, {f[2], f[3]}, o[2 * t + 1]);
        }
      }
      yields.append(o);
      yields.append({mNew[0], mNew[1], lNew[0], lNew[1]});
      if (s.overlap)
        yields.append(pFragments(lb, p[0], p[1]));
      if (s.sAhead) // (its group is done: the wait after P v)
        yields.append(sVectors(lb, sNext));
      if (!s.tma) {
        yields.push_back(newToken);
      } else {
        yields.push_back(ring.nextWord(lm, iter.back()));
      }
      lb.create<scf::YieldOp>(loc, yields);
    }
    b.setInsertionPointAfter(loop);
    Value consumerEnd; // (TMA: the ring's position after the tile's blocks)
    if (s.tma) {
      consumerEnd = loop.getResults().back();
      // The tile's S are done: q's rows may go (lane 0 of each warp).
      auto ifOp = b.create<scf::IfOp>(
          loc, b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, lane, m.c(0)), false);
      OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
      ib.create<NVVM::MBarrierArriveOp>(loc, Type(), qEmptyBar(ib), Value());
    }
    // Overlap: the last block's P v, and its stage's release (none where
    // the CTA has no block).
    SmallVector<Value> oFinal(loop.getResults().take_front(niO));
    if (s.overlap) {
      auto ifOp = b.create<scf::IfOp>(
          loc, SmallVector<Type>(niO, v4),
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ugt, blockCount, m.c(0)),
          /*withElseRegion=*/true);
      OpBuilder tb = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
      IndexMath tm{tb, loc};
      Value lastStage = ring.before(tm, ring.unpack(tm, consumerEnd).stage, 1);
      Value oAcc = oStructOf(tb, oFinal), vStage = vStageAt(tb, lastStage);
      SmallVector<Value> frags(loop.getResults().slice(niO + 4, bn / 4));
      Value acc = issuePvFromRegisters(tb, oAcc, frags, vStage);
      tb.create<NVVM::WgmmaGroupSyncAlignedOp>(loc);
      tb.create<NVVM::WgmmaWaitGroupSyncOp>(loc, tb.getI64IntegerAttr(0));
      SmallVector<Value> tiles = accumulatorTiles(tb, acc, niO);
      auto first = tb.create<scf::IfOp>(
          loc, tb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, lane, tm.c(0)), false);
      OpBuilder ab = OpBuilder::atBlockBegin(&first.getThenRegion().front());
      ab.create<NVVM::MBarrierArriveOp>(loc, Type(), emptyBar(ab, lastStage), Value());
      tb.create<scf::YieldOp>(loc, tiles);
      OpBuilder eb = OpBuilder::atBlockBegin(&ifOp.getElseRegion().front());
      eb.create<scf::YieldOp>(loc, oFinal);
      oFinal.assign(ifOp.getResults().begin(), ifOp.getResults().end());
    }

    // ---- O / l through the output's epilogue ----
    // `pairOf(eb, t, h)`: row half h of output n8 tile t, unnormalized;
    // `sums`: each row half's sum of exps (this thread's columns).
    // (`warpRow`, `tBase`, `tCount`, `halves`: the split keys' combine
    // spread over a warpgroup, below - the rows of another warp, output
    // tiles tBase .. tBase + tCount - 1 as pairOf's 0 .., the first
    // `halves` row halves; by default this warp's, all.)
    auto finish = [&](OpBuilder &eb, llvm::function_ref<Value(OpBuilder &, int64_t, int64_t)> pairOf,
                      ArrayRef<Value> sums, Value warpRow = Value(), Value tBase = Value(),
                      int64_t tCount = 0, int64_t halves = 2) -> LogicalResult {
      IndexMath em{eb, loc};
      warpRow = warpRow ? warpRow : warpM0;
      tBase = tBase ? tBase : em.c(0);
      tCount = tCount ? tCount : niO;
      Value inv[2];
      for (int64_t h = 0; h < halves; ++h) {
        Value l = quadReduce(eb, sums[h], false);
        auto d = eb.create<arith::DivFOp>(loc, fconst(eb, f32, 1.0f), l);
        d.setFastmathAttr(div.getFastmathAttr());
        inv[h] = d;
      }
      Value quad = em.div(lane, 4), pairCol = em.mul(em.rem(lane, 4), 2);
      fragmentOps = outOps;
      for (int64_t h = 0; h < halves; ++h) {
        Value invVec = eb.create<vector::BroadcastOp>(loc, v2, inv[h]);
        for (int64_t t = 0; t < tCount; ++t) {
          rowProductPair = eb.create<arith::MulFOp>(loc, pairOf(eb, t, h), invVec);
          Value row = em.add(em.add(em.add(m0, warpRow), quad), h * 8);
          Value col = em.add(em.add(n0, pairCol), em.mul(em.add(tBase, t), 8));
          if (failed(emitFragment(eb, row, col, {}, t, h, Emit::All)))
            return failure();
        }
      }
      fragmentOps = {};
      rowProductPair = Value();
      return success();
    };
    if (s.splitK == 1) {
      LogicalResult done = finish(
          b,
          [&](OpBuilder &eb, int64_t t, int64_t h) -> Value {
            Value acc = oFinal[t];
            return eb.create<vector::ShuffleOp>(loc, acc, acc, ArrayRef<int64_t>{2 * h, 2 * h + 1});
          },
          {loop.getResult(niO + 2), loop.getResult(niO + 3)});
      if (failed(done))
        return failure();
      if (consumerTiles) // (the next tile's blocks follow this one's)
        nextTile(b, consumerTiles, consumerEnd);
      if (roleIf) // (the kernel goes on after the producer / consumer branches)
        b.setInsertionPointAfter(roleIf);
      return success();
    }

    // Split keys (flash decoding): each split hands over its unnormalized
    // outputs, maxima and sums (one more vector<4>: m0, m1, l0, l1); the
    // last to finish rescales each split's by exp(m_split - m) for the
    // overall max m (0 where every key so far is masked) and adds them in
    // split order.
    // Only rows of the batch are handed over: half h of a warp's output
    // fragments holds rows m0 + warpM0 + 8 h + lane / 4, none of the
    // batch's M where the first is past them (the same for the whole warp:
    // its stores are skipped, and the combine's loads with the warp). With
    // decode's few query rows a kv head (M <= 8: 1-8 heads a kv head and
    // token) every warp's second half is empty, and all warps but the
    // first: an eighth of the 64-row tile's partials moves.
    SmallVector<Value> rowHalfLive;
    for (int64_t h = 0; h < 2 && !s.allPartials; ++h) {
      Value live;
      if (M % s.blockM == 0)
        live = b.create<arith::ConstantOp>(loc, b.getBoolAttr(true));
      else if (h == 1 && M <= 8)
        live = b.create<arith::ConstantOp>(loc, b.getBoolAttr(false));
      else
        live = m.lt(m.add(m.add(m0, warpM0), h * 8), M);
      rowHalfLive.push_back(live);
    }
    SmallVector<Value> partials(loop.getResults().take_front(niO));
    partials.push_back(b.create<vector::FromElementsOp>(
        loc, v4, ValueRange{loop.getResult(niO), loop.getResult(niO + 1),
                            loop.getResult(niO + 2), loop.getResult(niO + 3)}));
    FailureOr<SplitSlots> slots =
        arriveWithPartials(b, partials, (dv + 8) * s.blockM, rowHalfLive, niO);
    if (failed(slots))
      return failure();
    OpBuilder eb = slots->last;
    // Decode (wgmma, at most 32 rows a batch, fewer than a CTA's): the last
    // split's whole warpgroup combines the rows of its first one or two
    // warps, each warp a share of their output tiles (the loads of a tile's
    // partials wait for the previous tile's stores: a warp alone would
    // make one round trip to L2 a tile, 16 at 128 columns, measured as
    // most of a 1028-key decode's 12.5 us; spread, 4). Its warps read
    // another warp's slots (the source's lanes, same quads).
    int64_t liveWarps = llvm::divideCeil(M, 16);
    bool spread = s.wgmma && !rowHalfLive.empty() && M < s.blockM && M <= 32;
    int64_t chunks = spread ? 4 / liveWarps : 1, perChunk = niO / chunks;
    SplitSlots src = *slots;
    Value srcRow, tBase;
    if (spread) {
      IndexMath em{eb, loc};
      Value inGroup = em.rem(tileWarp, 4), srcWarp = em.rem(inGroup, liveWarps);
      src.tileTid = em.add(em.mul(srcWarp, kWarpSize), lane);
      srcRow = em.mul(srcWarp, 16);
      tBase = em.mul(em.div(inGroup, liveWarps), perChunk);
      // (The first warpgroup's: a later one holds none of the rows.)
      auto first = eb.create<scf::IfOp>(loc, em.lt(tileWarp, 4), /*withElse=*/false);
      eb = OpBuilder::atBlockBegin(&first.getThenRegion().front());
    } else if (!rowHalfLive.empty() && !getConstantIntValue(rowHalfLive[0])) {
      // (A warp with no row of the batch has nothing to combine.)
      auto any = eb.create<scf::IfOp>(loc, rowHalfLive[0], /*withElse=*/false);
      eb = OpBuilder::atBlockBegin(&any.getThenRegion().front());
    }
    // (Output tile t of the warp's share: tile tBase + t of the source's.)
    auto partial = [&](OpBuilder &bb, int64_t sp, int64_t f, int64_t h) -> Value {
      IndexMath im{bb, loc};
      Value fv = spread && f < niO ? im.add(tBase, f) : im.c(f);
      return bb.create<LLVM::LoadOp>(loc, v2, partialAt(bb, src, im.c(sp), fv, h),
                                     /*alignment=*/8);
    };
    // (A second row half that holds none of the batch's rows, not stored,
    // is neither read nor emitted.)
    std::optional<int64_t> secondLive =
        rowHalfLive.empty() ? std::optional<int64_t>() : getConstantIntValue(rowHalfLive[1]);
    int64_t halves = secondLive && *secondLive == 0 ? 1 : 2;
    SmallVector<std::array<Value, 2>> splitMax;
    Value overall[2] = {negInf, negInf};
    for (int64_t sp = 0; sp < s.splitK; ++sp) {
      Value mv = partial(eb, sp, niO, 0);
      std::array<Value, 2> ms;
      for (int64_t h = 0; h < 2; ++h) {
        ms[h] = eb.create<vector::ExtractOp>(loc, mv, ArrayRef<int64_t>{h});
        overall[h] = eb.create<arith::MaximumFOp>(loc, overall[h], ms[h]);
      }
      splitMax.push_back(ms);
    }
    SmallVector<std::array<Value, 2>> weight;
    Value sums[2] = {zeroF, zeroF}, mUse[2] = {finiteOrZero(eb, overall[0]),
                                               finiteOrZero(eb, overall[1])};
    for (int64_t sp = 0; sp < s.splitK; ++sp) {
      Value lv = partial(eb, sp, niO, 1);
      std::array<Value, 2> w;
      for (int64_t h = 0; h < 2; ++h) {
        w[h] = expOf(eb, eb.create<arith::SubFOp>(loc, splitMax[sp][h], mUse[h]));
        Value l = eb.create<vector::ExtractOp>(loc, lv, ArrayRef<int64_t>{h});
        sums[h] = eb.create<arith::AddFOp>(loc, sums[h], eb.create<arith::MulFOp>(loc, l, w[h]));
      }
      weight.push_back(w);
    }
    // Each output tile's loads are issued `ahead` tiles before its sum (in
    // finish's order: row half, then tile), ahead of the stores between:
    // else each tile's loads would wait for the last tile's stores to
    // issue, a round trip to L2 a tile. (About 32 loaded floats a thread;
    // 16 in the TMA kernels, whose launch allows 168 registers: at 5 splits
    // and 3 tiles ahead ptxas spilled 16 bytes.)
    int64_t tiles = spread ? perChunk : niO,
            ahead = s.allPartials ? 0 : std::max<int64_t>(1, (s.tma ? 8 : 16) / s.splitK);
    DenseMap<int64_t, SmallVector<Value>> issued; // (h * tiles + t: a split's pair each)
    auto issue = [&](OpBuilder &bb, int64_t at) {
      if (at >= halves * tiles || issued.count(at))
        return;
      SmallVector<Value> &loads = issued[at];
      for (int64_t sp = 0; sp < s.splitK; ++sp)
        loads.push_back(partial(bb, sp, at % tiles, at / tiles));
    };
    LogicalResult done = finish(
        eb,
        [&](OpBuilder &bb, int64_t t, int64_t h) -> Value {
          int64_t at = h * tiles + t;
          for (int64_t next = at; next <= at + ahead; ++next)
            issue(bb, next);
          SmallVector<Value> loads = issued.lookup(at);
          issued.erase(at);
          Value sum;
          for (int64_t sp = 0; sp < s.splitK; ++sp) {
            Value wv = bb.create<vector::BroadcastOp>(loc, v2, weight[sp][h]);
            Value part = bb.create<arith::MulFOp>(loc, loads[sp], wv);
            sum = sum ? bb.create<arith::AddFOp>(loc, sum, part).getResult() : part;
          }
          return sum;
        },
        {sums[0], sums[1]}, srcRow, tBase, spread ? perChunk : 0, halves);
    if (failed(done))
      return failure();
    if (consumerTiles) // (TMA: one tile, the consumer branch's end)
      nextTile(b, consumerTiles, consumerEnd);
    if (roleIf)
      b.setInsertionPointAfter(roleIf);
    return success();
  }

  /// The causal mask (tile.causal_mask of the row's own id) added last to
  /// attention's `scores`, or null.
  static tile::CausalMaskOp causalMaskOfScores(Value scores) {
    auto add = scores.getDefiningOp<arith::AddFOp>();
    if (!add)
      return {};
    for (Value v : add->getOperands())
      if (auto mask = v.getDefiningOp<tile::CausalMaskOp>();
          mask && mask.getRow().getDefiningOp<tile::RowIdOp>() &&
          static_cast<int64_t>(mask.getOffset()) >= 0)
        return mask;
    return {};
  }

private:
  /// Sets the output tile (m0, n0; batchIdx, batchRow0) of tile index `pid`.
  /// Batches are consecutive runs of blocksM * blocksN tiles; within one,
  /// tiles go in groups of group_m block rows (block row first + pid % rows
  /// of its group), so that tiles running at once share panels in L2.
  /// In a cluster, `pid` numbers the cluster's work: clusterM consecutive
  /// block rows, of which CTA `rank` takes one.
  void setTile(OpBuilder &b, Value pid, Value rank = Value()) {
    IndexMath m{b, fn.getLoc()};
    int64_t blocksM = llvm::divideCeil(M, s.blockM * s.clusterM),
            blocksN = llvm::divideCeil(N, s.blockN);
    int64_t groupM = std::max<int64_t>(1, s.groupM / s.clusterM);
    // Split k: units split * numTiles() + tile; the split's k steps start
    // at kBase (k steps past K read zeros: the last split may be short).
    if (s.splitK > 1) {
      splitIdx = m.div(pid, numTiles());
      pid = m.rem(pid, numTiles());
      kBase = m.mul(splitIdx, kSteps);
      tileIdx = rank ? m.add(m.mul(pid, s.clusterM), rank) : pid;
    }
    batchRow0 = m.c(0);
    if (heavyRowsFirst && blocksN == 1 && s.splitK == 1 && s.clusterM == 1) {
      // Causal attention: a row block's keys grow with its rows, so the
      // last row blocks of every batch (or of the one, unbatched) go first
      // (the longest work first: the last wave is the shortest). Rows in
      // several runs of `period` a batch (grouped queries: each query
      // head's tokens) see keys by their place in their run: where the runs
      // are whole row blocks, the last places of every run and batch go
      // first.
      if (int64_t period = heavyPeriod;
          period > 0 && period % s.blockM == 0 && M % period == 0 && M / period > 1) {
        int64_t perRun = period / s.blockM, units = batch * (M / period);
        Value place = m.div(pid, units), unit = m.rem(pid, units);
        batchIdx = m.rem(unit, batch);
        batchRow0 = m.mul(batchIdx, M);
        Value run = m.div(unit, batch);
        m0 = m.mul(m.add(m.mul(run, perRun), m.sub(m.c(perRun - 1), place)), s.blockM);
        n0 = m.c(0);
        return;
      }
      batchIdx = m.rem(pid, batch);
      batchRow0 = m.mul(batchIdx, M);
      m0 = m.mul(m.sub(m.c(blocksM - 1), m.div(pid, batch)), s.blockM);
      n0 = m.c(0);
      return;
    }
    if (batched) {
      batchIdx = m.div(pid, blocksM * blocksN);
      batchRow0 = m.mul(batchIdx, M);
      pid = m.rem(pid, blocksM * blocksN);
    }
    int64_t perGroup = groupM * blocksN;
    Value group = m.div(pid, perGroup);
    Value firstM = m.mul(group, groupM);
    Value groupRows = m.minv(m.sub(m.c(blocksM), firstM), m.c(groupM));
    Value inGroup = m.rem(pid, perGroup);
    Value blockRow = m.add(firstM, m.remv(inGroup, groupRows));
    Value blockCol = m.divv(inGroup, groupRows);
    if (s.clusterM > 1) // (without a rank: the cluster's first block row)
      blockRow = rank ? m.add(m.mul(blockRow, s.clusterM), rank) : m.mul(blockRow, s.clusterM);
    m0 = m.mul(blockRow, s.blockM);
    n0 = m.mul(blockCol, s.blockN);
  }

  /// l2_prefetch_bytes: prefetch.global.L2 of the first k steps of this
  /// CTA's first tile's rhs rows ([N, K]: each of its block_n rows of each
  /// product, an equal share of the bytes, at most its split's k range),
  /// 128-byte lines spread over the threads, a few each. Straight-line
  /// code ahead of every load and store: tilec-dependent-launch puts the
  /// griddepcontrol.wait after it, so that under dependent launch the
  /// weights stream into L2 while the kernel ahead finishes (decode: a
  /// norm or RoPE of one or two CTAs that leaves HBM idle). A prefetch
  /// changes no value (L2 is where every SM's writes meet), so it may run
  /// before the previous kernel's writes are visible.
  void prefetchRhs(OpBuilder &b, Value tid) {
    if (s.l2PrefetchBytes <= 0 || !transB || rhsBatched || K <= 0 || N <= 0)
      return;
    Location loc = fn.getLoc();
    IndexMath m{b, loc};
    int64_t products = static_cast<int64_t>(mms.size());
    // The k range of a split (the last may be short) bounds each row's share.
    int64_t splitElems = kSteps * s.blockK;
    int64_t shortest = K - (s.splitK - 1) * splitElems;
    int64_t rowBytes = std::min(
        {s.l2PrefetchBytes / (s.blockN * products), splitElems * elemBytes, shortest * elemBytes});
    if (rowBytes <= 0)
      return;
    // A row's addresses: one a line from its start, and its last byte (rows
    // need not start on a line). At most 32 prefetches a thread a product.
    int64_t lines = std::min<int64_t>(llvm::divideCeil(rowBytes, 128),
                                      std::max<int64_t>(1, 32 * s.threads() / s.blockN - 1));
    rowBytes = std::min(rowBytes, lines * 128);
    int64_t perRow = lines + 1, total = s.blockN * perRow;
    Value kStart = kBase ? m.mul(kBase, s.blockK) : m.c(0);
    for (tile::MatmulOp product : mms) {
      Value rhs = args.lookup(product.getRhs());
      auto rhsType = llvm::cast<MemRefType>(rhs.getType());
      if (!rhsType.getLayout().isIdentity() || rhsType.getRank() != 2)
        continue; // (rows of unit stride along K, from the buffer's start)
      Value base = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, rhs);
      Value stride = rhsType.isDynamicDim(1) ? b.create<memref::DimOp>(loc, rhs, 1).getResult()
                                             : m.c(rhsType.getDimSize(1));
      for (int64_t i = 0; i * s.threads() < total; ++i) {
        Value e = m.min(m.add(tid, i * s.threads()), total - 1);
        Value n = m.min(m.add(n0, m.div(e, perRow)), N - 1);
        Value byte = m.min(m.mul(m.rem(e, perRow), 128), rowBytes - 1);
        Value elems = m.add(m.mulv(n, stride), kStart);
        emitL2Prefetch(b, loc, m.add(m.add(base, m.mul(elems, elemBytes)), byte));
      }
    }
  }


  /// l2_prefetch_bytes of a flash kernel: prefetch.global.L2 of up to
  /// `bytes` of `mem` (k or v, [keys, cols] or [batch, keys, cols]) from
  /// the first key block of this CTA's first tile (its split's, with split
  /// keys; its batch's), as prefetchRhs does for GEMMs: straight-line, a
  /// few 128-byte lines a thread, ahead of every load. The blocks are
  /// consecutive rows, one range; addresses past it repeat its last byte,
  /// and none passes the buffer's end. (A causal mask's skipped blocks may
  /// be prefetched too.)
  void prefetchKeyBlocks(OpBuilder &b, Value tid, Value mem, int64_t cols, int64_t kBlocks,
                         int64_t perSplit, int64_t bn, int64_t bytes) {
    auto type = llvm::cast<MemRefType>(mem.getType());
    int64_t rank = type.getRank();
    if (!type.getLayout().isIdentity() || !type.hasStaticShape() || rank < 2 || rank > 3 ||
        (rank == 3 && !batchIdx) || bytes < 128)
      return;
    Location loc = fn.getLoc();
    IndexMath m{b, loc};
    int64_t rowBytes = cols * elemBytes, keys = type.getDimSize(rank - 2);
    int64_t total = type.getNumElements() * elemBytes;
    Value firstBlock = s.splitK > 1 ? m.mul(splitIdx, perSplit) : m.c(0);
    Value count =
        s.splitK > 1 ? m.minv(m.c(perSplit), m.sub(m.c(kBlocks), firstBlock)) : m.c(kBlocks);
    // The range: from the first block's first row, its blocks' bytes (at
    // most `bytes`); its last byte (at least its first).
    Value firstRow = m.mul(firstBlock, bn);
    if (rank == 3)
      firstRow = m.add(m.mul(batchIdx, keys), firstRow);
    Value start = m.mul(firstRow, rowBytes);
    Value lastByte = m.sub(
        m.minv(m.c(bytes), b.create<arith::MaxUIOp>(loc, m.mul(count, bn * rowBytes), m.c(1))),
        m.c(1));
    int64_t perThread =
        std::min<int64_t>(llvm::divideCeil(llvm::divideCeil(bytes, 128), s.threads()), 32);
    Value base = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, mem);
    for (int64_t i = 0; i < perThread; ++i) {
      Value line = m.mul(m.add(tid, i * s.threads()), 128);
      emitL2Prefetch(b, loc, m.add(base, m.min(m.add(start, m.minv(line, lastByte)), total - 1)));
    }
  }

  /// Units of work: tiles, or in clusters groups of clusterM tiles.
  int64_t numTiles() const {
    return batch * llvm::divideCeil(M, s.blockM * s.clusterM) * llvm::divideCeil(N, s.blockN);
  }

  /// The Hopper path: each warpgroup (4 warps, 128 threads) owns 64 rows of
  /// the CTA tile (m_chains 2: 128 rows, two accumulators) and all block_n
  /// columns; wgmma.mma_async m64nNk16 reads A
  /// and B from shared memory through descriptors. Both panels are K-major
  /// with 128-byte rows (block_k 64) in the 128-byte swizzle pattern (16-byte
  /// chunk c of row r at chunk c ^ (r % 8), 1024-byte aligned atoms), which
  /// is the swizzle the cp.async copies already write; a [K, N] rhs and (TMA)
  /// a transposed lhs [K, M] are MN-major: 64-column blocks of block_k rows. A stage is refilled
  /// two k-steps after its last use: wgmma.wait_group 1 at the end of step
  /// kt guarantees step kt-1's MMAs (of this warpgroup) are done, and the
  /// barrier of step kt+1 those of every warpgroup.
  LogicalResult runWgmma(OpBuilder &b, Value tid, Value mmaTid, Value dyn) {
    Location loc = fn.getLoc();
    MLIRContext *ctx = b.getContext();
    IndexMath m{b, loc};
    auto ws = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    // Align the panels to 1024 bytes (the swizzle atom).
    Value raw = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, dyn);
    Value pad = m.rem(m.sub(m.c(1024), m.rem(raw, 1024)), 1024);
    int64_t stageA = s.blockM * s.blockK * 2, stageB = s.blockN * s.blockK * 2;
    auto view = [&](int64_t rows, Value byteOffset) {
      auto t = MemRefType::get({s.stages, rows, s.blockK}, elem, AffineMap(), ws);
      return b.create<memref::ViewOp>(loc, t, dyn, byteOffset, ValueRange()).getResult();
    };
    pa = Panel{view(s.blockM, pad), s.blockM, s.blockK, kChunk};
    int64_t nm = mms.size();
    // A [K, N] rhs is read MN-major: the panel is block_n / 64 blocks of
    // block_k rows of 64 columns (128 bytes), i.e. rows (n / 64) * block_k + k.
    blockedB = !transB;
    for (int64_t t = 0; t < nm; ++t) {
      Value off = m.add(pad, s.stages * (stageA + t * stageB));
      if (blockedB) {
        auto tb = MemRefType::get({s.stages, s.blockN / 64 * s.blockK, 64}, elem, AffineMap(), ws);
        pbs.push_back(Panel{b.create<memref::ViewOp>(loc, tb, dyn, off, ValueRange()).getResult(),
                            s.blockN / 64 * s.blockK, 64, kChunk});
      } else {
        pbs.push_back(Panel{view(s.blockN, off), s.blockN, s.blockK, kChunk});
      }
    }
    Value baseA = m.add(raw, pad);
    SmallVector<Value> baseB;
    for (int64_t t = 0; t < nm; ++t)
      baseB.push_back(m.add(baseA, s.stages * (stageA + t * stageB)));
    Value wg = m.div(tileWarp, 4);
    int64_t chains = s.mChains, chainBytes = 64 * s.blockK * 2;
    Value aWarpgroup = m.add(baseA, m.mul(wg, chains * chainBytes));
    // Row of the warp's first 16 (the epilogue adds 64 a chain); one chain:
    // warp * 16, as set.
    if (chains > 1)
      warpM0 = m.add(m.mul(wg, 64 * chains), m.mul(m.rem(tileWarp, 4), 16));

    // Descriptors (wgmmaDescriptor). K-major: the leading offset is unused
    // (16), the stride is 1024 (8-row groups). MN-major (a [K, N] rhs): the
    // leading offset steps between 64-column blocks (block_k * 128 bytes),
    // the stride between groups of 8 k rows (1024).
    int64_t lboB = blockedB ? s.blockK * 128 : 16;
    int64_t kStepB = blockedB ? 16 * 128 : 32; // bytes between k16 steps
    // A transposed lhs [K, M] (TMA only) is read MN-major like a [K, N] rhs:
    // the panel is block_m / 64 blocks of block_k rows of 64 columns, so a
    // 64-row chain is one block (at the K-major chain's offset).
    int64_t lboA = transA ? s.blockK * 128 : 16;
    int64_t kStepA = transA ? 16 * 128 : 32;
    // The descriptors' low words at stage 0, once: a step's descriptor is
    // that word plus the stage's and the MMA's offsets (32-bit adds; the
    // high word is constant), not a 64-bit address computation a wgmma
    // (run s33a's SASS: ten instructions before each HGMMA). Not for two
    // chains: their three descriptors a k16 step in this form made ptxas
    // spill 32 bytes of a 256 x 128 tile with two outputs (168 registers
    // at 384 threads), where the 64-bit form does not.
    bool lowWords = chains == 1;
    Value descA0;
    SmallVector<Value> descB0;
    if (lowWords) {
      descA0 = descriptorLow(b, aWarpgroup, lboA);
      for (int64_t t = 0; t < nm; ++t)
        descB0.push_back(descriptorLow(b, baseB[t], lboB));
    }

    int64_t kTiles = kSteps; // (of this CTA's split)
    int64_t accCount = s.blockN / 2; // m64nN: 64 * N / 128 f32 a thread
    auto f32 = b.getF32Type();
    SmallVector<Type> fields(accCount, f32);
    auto accType = LLVM::LLVMStructType::getLiteral(ctx, fields);
    // (TMA: the first k step's MMAs ignore the initial accumulators.)
    Value acc = b.create<LLVM::UndefOp>(loc, accType);
    Value zero = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(0.0f));
    for (int64_t e = 0; e < accCount && !s.tma; ++e)
      acc = b.create<LLVM::InsertValueOp>(loc, acc, zero, ArrayRef<int64_t>{e});
    // Accumulators of product t, chain c: t * chains + c.
    SmallVector<Value> init(nm * chains, acc);

    // One k step of MMAs on buffer `stage`: block_k / 16 wgmma per product
    // and chain (the chains of a k16 step share its B descriptor), committed
    // as one group; returns the accumulators.
    auto wtype = elem.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
    // `zeroFirst`: the step's first MMAs ignore the accumulators (scale-d
    // 0), so a tile's first step needs no zeroed registers: zeroing them
    // between the wgmma fence and the MMAs made ptxas insert a
    // warpgroup.arrive (and, with two chains, a warpgroup.wait).
    auto mmaStep = [&](OpBuilder &lb, Value stage, ValueRange accIn, bool zeroFirst) {
      Value stage32 =
          lowWords ? lb.create<arith::IndexCastOp>(loc, lb.getI32Type(), stage).getResult()
                   : Value();
      auto scaled = [&](int64_t bytes) -> Value {
        return lb.create<arith::MulIOp>(
            loc, stage32, lb.create<arith::ConstantOp>(loc, lb.getI32IntegerAttr(bytes >> 4)));
      };
      IndexMath lm{lb, loc};
      // (Low words, or with two chains the panels' shared addresses.)
      Value aStage = lowWords ? lb.create<arith::AddIOp>(loc, descA0, scaled(stageA)).getResult()
                              : lm.add(aWarpgroup, lm.mulv(stage, lm.c(stageA)));
      auto descriptor = [&](Value stageBase, int64_t bytes, int64_t lbo) {
        return lowWords ? descriptorAt(lb, stageBase, bytes)
                        : wgmmaDescriptor(lb, lm.add(stageBase, bytes), lbo);
      };
      lb.create<NVVM::WgmmaFenceAlignedOp>(loc);
      SmallVector<Value> results;
      for (int64_t t = 0; t < nm; ++t) {
        Value bStage = lowWords
                           ? lb.create<arith::AddIOp>(loc, descB0[t], scaled(stageB)).getResult()
                           : lm.add(baseB[t], lm.mulv(stage, lm.c(stageB)));
        SmallVector<Value> a(accIn.begin() + t * chains, accIn.begin() + (t + 1) * chains);
        for (int64_t k = 0; k < s.blockK / 16; ++k) {
          Value db;
          for (int64_t c = 0; c < chains; ++c) {
            Value da = descriptor(aStage, c * chainBytes + k * kStepA, lboA);
            if (c == 0) // (shared by the chains)
              db = descriptor(bStage, k * kStepB, lboB);
            a[c] = lb.create<NVVM::WgmmaMmaAsyncOp>(
                loc, accType, a[c], da, db, NVVM::MMAShapeAttr::get(ctx, 64, s.blockN, 16),
                NVVM::WGMMATypesAttr::get(ctx, wtype), NVVM::WGMMATypesAttr::get(ctx, wtype),
                NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
                NVVM::WGMMAScaleOutAttr::get(ctx, zeroFirst && k == 0 ? NVVM::WGMMAScaleOut::zero
                                                                      : NVVM::WGMMAScaleOut::one),
                NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
                NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
                NVVM::MMALayoutAttr::get(ctx, transA ? NVVM::MMALayout::col
                                                     : NVVM::MMALayout::row),
                NVVM::MMALayoutAttr::get(ctx, blockedB ? NVVM::MMALayout::row
                                                       : NVVM::MMALayout::col),
                NVVM::MMAIntOverflowAttr());
          }
        }
        results.append(a);
      }
      lb.create<NVVM::WgmmaGroupSyncAlignedOp>(loc);
      lb.create<NVVM::WgmmaWaitGroupSyncOp>(loc, lb.getI64IntegerAttr(s.mmaPending));
      return results;
    };
    // After the last step: accumulator element 4j + e is the mma.sync m16n8
    // layout of n8 tile j for the warp's 16 rows, so the epilogue of the
    // mma.sync path applies.
    // Chain c is the warp's m16 tile c, 64 rows below the last.
    auto finish = [&](OpBuilder &eb, ValueRange results) {
      SmallVector<Value> vecs;
      for (int64_t t = 0; t < nm; ++t)
        for (int64_t c = 0; c < chains; ++c)
          vecs.append(accumulatorTiles(eb, results[t * chains + c], s.blockN / 8));
      return withSplitSums(eb, vecs, [&](OpBuilder &sb, ArrayRef<Value> sums) {
        return emitEpilogue(sb, chains, s.blockN / 8, sums, /*tileRows=*/64);
      });
    };
    if (s.tma)
      return runTmaPipeline(b, tid, baseA, baseB, stageA, stageB, kTiles, init,
                            mmaStep, finish);

    // cp.async: k steps copied ahead of the one computed; a stage is refilled
    // once the MMAs that read it are done, mma_pending + 1 steps after its use.
    int64_t ahead = s.stages - 1 - s.mmaPending;
    init.push_back(issuePrologue(b, tid, ahead, kTiles));
    auto loop = b.create<scf::ForOp>(loc, m.c(0), m.c(kTiles), m.c(1), init);
    {
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      IndexMath lm{lb, loc};
      Value kt = loop.getInductionVar();
      Value carried = loop.getRegionIterArgs().back();
      lb.create<nvgpu::DeviceAsyncWaitOp>(loc, carried, lb.getI32IntegerAttr(ahead - 1));
      // Make the copies (generic proxy) visible to wgmma (async proxy).
      fenceAsyncShared(lb);
      lb.create<gpu::BarrierOp>(loc);
      Value newToken = issueAhead(lb, tid, kt, ahead, kTiles);
      SmallVector<Value> results =
          mmaStep(lb, lm.rem(kt, s.stages), loop.getRegionIterArgs().drop_back(), false);
      results.push_back(newToken);
      lb.create<scf::YieldOp>(loc, results);
    }
    b.setInsertionPointAfter(loop);
    b.create<NVVM::WgmmaWaitGroupSyncOp>(loc, b.getI64IntegerAttr(0));
    return finish(b, loop.getResults().drop_back());
  }

  /// Warp specialization of a TMA kernel: warpgroup 0 (tid < 128) is the
  /// producer, the rest the consumers (`roleIf`'s else region). The
  /// producer gives registers back (setmaxnreg) and its first thread
  /// fetches the tensor maps (128-byte kernel parameters) into the TMA
  /// unit's descriptor cache before the first copy needs them, as
  /// CUTLASS's producers do: the first copies of a call no longer wait on a
  /// parameter-space read. Returns a builder in that thread's branch.
  OpBuilder splitProducer(OpBuilder &b, Value tid, scf::IfOp &roleIf) {
    Location loc = fn.getLoc();
    IndexMath m{b, loc};
    Value producer = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, tid, m.c(128));
    roleIf = b.create<scf::IfOp>(loc, producer, /*withElse=*/true);
    OpBuilder pb = OpBuilder::atBlockBegin(&roleIf.getThenRegion().front());
    pb.create<NVVM::SetMaxRegisterOp>(loc, kProducerRegisters,
                                      NVVM::SetMaxRegisterAction::decrease);
    IndexMath pm{pb, loc};
    Value first = pb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, tid, pm.c(0));
    auto ifOp = pb.create<scf::IfOp>(loc, first, false);
    OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
    for (Value map : mapParams)
      ib.create<NVVM::PrefetchOp>(loc, NVVM::PrefetchCacheLevelAttr(),
                                  NVVM::CacheEvictionPriorityAttr(), map, Value(),
                                  /*tensormap=*/true, /*uniform=*/false,
                                  /*in_param_space=*/true);
    return ib;
  }

  /// A wgmma accumulator (an LLVM struct, element 4j + e of n8 tile j) as
  /// `tiles` vector<4xf32>: the mma.sync m16n8 layout of each n8 tile for
  /// the warp's 16 rows, which the epilogues and the online softmax take.
  SmallVector<Value> accumulatorTiles(OpBuilder &bb, Value acc, int64_t tiles) {
    Location loc = fn.getLoc();
    SmallVector<Value> vecs;
    for (int64_t j = 0; j < tiles; ++j) {
      SmallVector<Value> four;
      for (int64_t e = 0; e < 4; ++e)
        four.push_back(bb.create<LLVM::ExtractValueOp>(loc, acc, ArrayRef<int64_t>{4 * j + e}));
      vecs.push_back(
          bb.create<vector::FromElementsOp>(loc, VectorType::get({4}, bb.getF32Type()), four));
    }
    return vecs;
  }

  /// Shared-memory writes of the generic proxy (cp.async, st.shared) made
  /// visible to the async proxy (wgmma, TMA) of this CTA.
  void fenceAsyncShared(OpBuilder &bb) {
    bb.create<NVVM::FenceProxyOp>(
        fn.getLoc(), NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(bb.getContext(), NVVM::SharedSpace::shared_cta));
  }

  /// A wgmma shared-memory matrix descriptor of the 128-byte swizzle at
  /// `address` (a shared-window byte address): start address >> 4 (bits
  /// 0-13), leading byte offset >> 4 (bits 16-29), stride byte offset >> 4
  /// (bits 32-45: 1024, 8-row groups), layout 1 = 128-byte swizzle (bits
  /// 62-63).
  /// The descriptor of the matrix `bytes` (a multiple of 16) past
  /// `desc`'s: its start address field (bits 0-13, the shared address / 16)
  /// plus bytes / 16. (No carry leaves the field: shared addresses are
  /// below 2^18.)
  Value descriptorPlus(OpBuilder &bb, Value desc, int64_t bytes) {
    if (bytes == 0)
      return desc;
    return bb.create<arith::AddIOp>(
        fn.getLoc(), desc,
        bb.create<arith::ConstantOp>(fn.getLoc(), bb.getI64IntegerAttr(bytes >> 4)));
  }

  /// The low word of wgmmaDescriptor(address, lbo) (i32): the start
  /// address field and the leading byte offset.
  Value descriptorLow(OpBuilder &bb, Value address, int64_t lbo) {
    Location loc = fn.getLoc();
    auto c32 = [&](int64_t v) -> Value {
      return bb.create<arith::ConstantOp>(loc, bb.getI32IntegerAttr(v));
    };
    // (In 16-byte units: the address below 2^18, divided by 16.)
    Value a = bb.create<arith::IndexCastOp>(loc, bb.getI32Type(), address);
    Value lo = bb.create<arith::DivUIOp>(loc, bb.create<arith::AndIOp>(loc, a, c32(0x3FFFF)),
                                        c32(16));
    return bb.create<arith::OrIOp>(loc, lo, c32((lbo >> 4) << 16));
  }

  /// The descriptor of the matrix `bytes` (a multiple of 16) past the one
  /// whose low word (descriptorLow, plus offsets / 16) is `low`; the high
  /// word is wgmmaDescriptor's constant (stride 1024, 128-byte swizzle).
  Value descriptorAt(OpBuilder &bb, Value low, int64_t bytes) {
    Location loc = fn.getLoc();
    if (bytes)
      low = bb.create<arith::AddIOp>(
          loc, low, bb.create<arith::ConstantOp>(loc, bb.getI32IntegerAttr(bytes >> 4)));
    Value wide = bb.create<arith::ExtUIOp>(loc, bb.getI64Type(), low);
    int64_t high = (int64_t(64) << 32) | (int64_t(1) << 62);
    return bb.create<arith::OrIOp>(
        loc, wide, bb.create<arith::ConstantOp>(loc, bb.getI64IntegerAttr(high)));
  }

  Value wgmmaDescriptor(OpBuilder &bb, Value address, int64_t lbo) {
    Location loc = fn.getLoc();
    auto c64 = [&](int64_t v) -> Value {
      return bb.create<arith::ConstantOp>(loc, bb.getI64IntegerAttr(v));
    };
    Value a = bb.create<arith::IndexCastOp>(loc, bb.getI64Type(), address);
    Value lo = bb.create<arith::ShRUIOp>(loc, bb.create<arith::AndIOp>(loc, a, c64(0x3FFFF)),
                                        c64(4));
    int64_t fixed = ((lbo >> 4) << 16) | (int64_t(64) << 32) | (int64_t(1) << 62);
    return bb.create<arith::OrIOp>(loc, lo, c64(fixed));
  }

  /// One wgmma.mma_async m64nNk16 of 16-bit operands into f32 accumulators
  /// (an LLVM struct of N / 2 floats a thread): A K-major, B K-major or
  /// (`bMN`) MN-major; `zero`: ignore the accumulators (scale-d 0).
  Value wgmmaOp(OpBuilder &bb, Value acc, Value da, Value db, int64_t n, bool bMN, bool zero) {
    MLIRContext *ctx = bb.getContext();
    auto wtype = elem.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
    return bb.create<NVVM::WgmmaMmaAsyncOp>(
        fn.getLoc(), acc.getType(), acc, da, db, NVVM::MMAShapeAttr::get(ctx, 64, n, 16),
        NVVM::WGMMATypesAttr::get(ctx, wtype), NVVM::WGMMATypesAttr::get(ctx, wtype),
        NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(ctx, zero ? NVVM::WGMMAScaleOut::zero
                                               : NVVM::WGMMAScaleOut::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, bMN ? NVVM::MMALayout::row : NVVM::MMALayout::col),
        NVVM::MMAIntOverflowAttr());
  }

  /// The TMA pipeline (warp specialized): warpgroup 0 is the producer, one
  /// thread of it walks the k steps, waits until a stage is empty, arms the
  /// stage's `full` mbarrier with the bytes to come and issues the tensor
  /// copies (zero-filled past the tensor's edges); the MMA warpgroups wait
  /// on `full`, run the step's wgmma, and once a step's MMAs are done (the
  /// wait_group of the next step) each warp arrives on that stage's `empty`
  /// mbarrier. Phases alternate each time the k steps wrap around the
  /// stages. setmaxnreg moves registers from the producer to the MMA warps.
  LogicalResult
  runTmaPipeline(OpBuilder &b, Value tid, Value baseA,
                 ArrayRef<Value> baseB, int64_t stageA, int64_t stageB, int64_t kTiles,
                 ArrayRef<Value> init,
                 llvm::function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange, bool)>
                     mmaStep,
                 llvm::function_ref<LogicalResult(OpBuilder &, ValueRange)> finish) {
    Location loc = fn.getLoc();
    MLIRContext *ctx = b.getContext();
    IndexMath m{b, loc};
    int64_t nm = mms.size();
    auto i32 = b.getI32Type();
    auto ptr7 = LLVM::LLVMPointerType::get(ctx, 7);
    auto c32 = [&](OpBuilder &bb, int64_t v) -> Value {
      return bb.create<arith::ConstantOp>(loc, bb.getI32IntegerAttr(v));
    };
    auto toI32 = [&](OpBuilder &bb, Value v) -> Value {
      return bb.create<arith::IndexCastOp>(loc, i32, v);
    };
    // mbarriers after the panels: full[stage], then empty[stage]; then
    // (tma_store) the staging buffers, 1024-byte aligned for the swizzle.
    Value bars = m.add(baseA, s.stages * (stageA + nm * stageB));
    if (s.tmaStore) {
      stagingBase = m.add(
          baseA, static_cast<int64_t>(llvm::alignTo(s.stages * (stageA + nm * stageB + 16), 1024)));
      outMap = mapParams.back();
    }
    auto barrier = [&](OpBuilder &bb, Value stage, bool isEmpty) {
      IndexMath im{bb, loc};
      return sharedPointer(bb, im.add(bars, im.add(im.mul(stage, 8), isEmpty ? s.stages * 8 : 0)));
    };
    auto full = [&](OpBuilder &bb, Value stage) { return barrier(bb, stage, false); };
    auto empty = [&](OpBuilder &bb, Value stage) { return barrier(bb, stage, true); };
    // A stage is read by one tile's warps (of each CTA in a cluster).
    int64_t mmaWarps = s.tileWarps();
    {
      Value first = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, tid, m.c(0));
      auto ifOp = b.create<scf::IfOp>(loc, first, false);
      OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
      IndexMath im{ib, loc};
      for (int64_t st = 0; st < s.stages; ++st) {
        ib.create<NVVM::MBarrierInitOp>(loc, full(ib, im.c(st)), c32(ib, 1), Value());
        ib.create<NVVM::MBarrierInitOp>(loc, empty(ib, im.c(st)),
                                        c32(ib, mmaWarps * s.clusterM), Value());
      }
      ib.create<NVVM::FenceMbarrierInitOp>(loc);
    }
    // A cluster's CTAs see each other's barriers initialized before any
    // multicast copy or remote arrival. (Relaxed: the initializing thread's
    // fence.mbarrier_init releases the barriers; a releasing arrive is a
    // MEMBAR.ALL.GPU besides, run s34b.)
    if (s.clusterM > 1) {
      b.create<NVVM::ClusterArriveRelaxedOp>(loc, b.getUnitAttr());
      b.create<NVVM::ClusterWaitOp>(loc, b.getUnitAttr());
    } else {
      b.create<gpu::BarrierOp>(loc);
    }
    Value ticks = c32(b, 0x989680);
    int64_t stageBytes = stageA + nm * stageB;
    // (A step's stage and phase: carried through the k loops, `Ring`.)
    using Pos = RingPos;
    Ring ring{s.stages};
    auto posOf = [&](OpBuilder &bb, Value step) { return ring.at(IndexMath{bb, loc}, step); };
    auto advance = [&](OpBuilder &bb, Pos p) { return ring.next(IndexMath{bb, loc}, p); };
    auto stageBefore = [&](OpBuilder &bb, Value stage, int64_t back) -> Value {
      return ring.before(IndexMath{bb, loc}, stage, back);
    };
    // Waits on the step's `full` (MMA warps) or `empty` (producer: the
    // phase before) barrier.
    auto awaitStep = [&](OpBuilder &lb, Pos p, bool producer) {
      Value parity = producer ? ring.phaseBefore(IndexMath{lb, loc}, p) : p.phase;
      lb.create<NVVM::MBarrierTryWaitParityOp>(loc, barrier(lb, p.stage, producer), parity,
                                               ticks);
    };

    // Persistent CTAs: CTA c computes tiles c, c + grid, c + 2 grid, ...;
    // the k steps of all its tiles share the stages (step j * kTiles + kt).
    int64_t tiles = numTiles() * s.splitK;
    // In clusters the unit is the cluster (its CTAs take consecutive block
    // rows of one column, sharing the B panel by multicast).
    Value cta, grid, rank;
    if (s.clusterM > 1) {
      auto index = [&](Value v) -> Value {
        return b.create<arith::IndexCastOp>(loc, b.getIndexType(), v);
      };
      cta = index(b.create<NVVM::ClusterIdXOp>(loc, i32));
      grid = index(b.create<NVVM::ClusterDimXOp>(loc, i32));
      rank = index(b.create<NVVM::ClusterId>(loc, i32));
    } else {
      cta = b.create<gpu::BlockIdOp>(loc, gpu::Dimension::x);
      grid = b.create<gpu::GridDimOp>(loc, gpu::Dimension::x);
    }
    // (Signed: a CTA past the last tile gets none.)
    Value myTiles = b.create<arith::CeilDivSIOp>(loc, m.sub(m.c(tiles), cta), grid);
    auto tileOf = [&](OpBuilder &bb, Value j) {
      IndexMath im{bb, loc};
      return im.add(cta, im.mulv(j, grid));
    };

    scf::IfOp split;
    {
      OpBuilder ib = splitProducer(b, tid, split);
      IndexMath im{ib, loc};
      auto tileLoop = ib.create<scf::ForOp>(loc, im.c(0), myTiles, im.c(1));
      OpBuilder tb = OpBuilder::atBlockBegin(tileLoop.getBody());
      IndexMath tm{tb, loc};
      setTile(tb, tileOf(tb, tileLoop.getInductionVar()), rank);
      Pos pos0 = posOf(tb, tm.mul(tileLoop.getInductionVar(), kTiles));
      auto loop = tb.create<scf::ForOp>(loc, tm.c(0), tm.c(kTiles), tm.c(1),
                                        ValueRange{pos0.stage, pos0.phase});
      // Not unrolled: LLVM unrolled it by the stages and hoisted every
      // stage's copy addresses (64-bit each), which at six copies a stage (a
      // transposed lhs and a [K, N] rhs, 256 columns) spilled the producer's
      // 40 registers; one thread's loop overhead costs nothing here.
      auto unroll = LLVM::LoopUnrollAttr::get(ctx, b.getBoolAttr(true), {}, {}, {}, {}, {}, {});
      loop->setAttr("loop_annotation",
                    LLVM::LoopAnnotationAttr::get(ctx, {}, {}, {}, unroll, {}, {}, {}, {}, {},
                                                  {}, {}, {}, {}, {}, {}));
      OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
      IndexMath lm{lb, loc};
      Value kt = loop.getInductionVar();
      Pos pos{loop.getRegionIterArgs()[0], loop.getRegionIterArgs()[1]};
      awaitStep(lb, pos, /*producer=*/true);
      Value stage = pos.stage;
      Value bar = full(lb, stage);
      lb.create<NVVM::MBarrierArriveExpectTxOp>(loc, Type(), bar, c32(lb, stageBytes),
                                                NVVM::MemScopeKind::CTA, false, Value());
      Value k0 = toI32(lb, lm.mul(kBase ? lm.add(kt, kBase) : kt, s.blockK));
      // The lhs map of a batched product is 3-D; the rhs map only if the
      // rhs is batched (a 2-D rhs is shared by the batches).
      auto copy = [&](Value map, Value dst, SmallVector<Value> coords, bool multicast,
                      bool perBatch) {
        if (perBatch)
          coords.push_back(toI32(lb, batchIdx));
        Value d = lb.create<LLVM::AddrSpaceCastOp>(loc, ptr7, sharedPointer(lb, dst));
        Value mask;
        if (multicast)
          mask = lb.create<arith::ConstantOp>(
              loc, lb.getI16IntegerAttr(static_cast<int16_t>((1 << s.clusterM) - 1)));
        lb.create<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(
            loc, d, map, coords, bar, ValueRange(), mask, Value(), NVVM::TMALoadMode::TILE,
            false, NVVM::CTAGroupKindAttr(), Value());
      };
      if (transA) { // [K, M]: one 64-row block of block_k k rows at a time
        Value dstA = lm.add(baseA, lm.mulv(stage, lm.c(stageA)));
        for (int64_t j = 0; j < s.blockM / 64; ++j)
          copy(mapParams[0], lm.add(dstA, j * s.blockK * 128),
               {toI32(lb, lm.add(m0, j * 64)), k0}, false, batched);
      } else {
        Value row0 = toI32(lb, m0);
        copy(mapParams[0], lm.add(baseA, lm.mulv(stage, lm.c(stageA))), {k0, row0}, false,
             batched);
      }
      // The B panel is shared by the cluster: each CTA copies its
      // 1 / clusterM of it to every CTA (multicast).
      bool mc = s.clusterM > 1;
      Value part = mc ? rank : lm.c(0);
      for (int64_t t = 0; t < nm; ++t) {
        Value dst = lm.add(baseB[t], lm.mulv(stage, lm.c(stageB)));
        if (transB) {
          int64_t rows = s.blockN / s.clusterM;
          copy(mapParams[t + 1], lm.add(dst, lm.mul(part, rows * 128)),
               {k0, toI32(lb, lm.add(n0, lm.mul(part, rows)))}, mc, rhsBatched);
          continue;
        }
        // [K, N]: one 64-column block of block_k rows at a time.
        int64_t blocks = s.blockN / 64 / s.clusterM;
        for (int64_t j = 0; j < blocks; ++j) {
          Value block = lm.add(lm.mul(part, blocks), j);
          copy(mapParams[t + 1], lm.add(dst, lm.mul(block, s.blockK * 128)),
               {toI32(lb, lm.add(n0, lm.mul(block, 64))), k0}, mc, rhsBatched);
        }
      }
      Pos next = advance(lb, pos);
      lb.create<scf::YieldOp>(loc, ValueRange{next.stage, next.phase});
      if (s.clusterM > 1) {
        // The producer's tail (in clusters): it waits until the last use
        // of every stage is released by the MMA warps of every CTA of the
        // cluster, so that their remote arrivals on this CTA's `empty`
        // barriers have landed (and its multicast copies into the others'
        // stages, which they consumed before releasing) when it exits. No
        // CTA then needs a cluster barrier at its end, where the one there
        // was waited on by each CTA for the slower of the pair, after a
        // MEMBAR.ALL.GPU behind its TMA stores (run s34b: the pair's kernel
        // 19.8 us against 16.4 for one CTA, 33% of its warps' samples at
        // that barrier). (CTAs past the last tile wait on fresh barriers:
        // their first phase passes.)
        Value steps = im.mul(ib.create<arith::MaxSIOp>(loc, myTiles, im.c(0)), kTiles);
        Pos tail = posOf(ib, steps);
        for (int64_t st = 0; st < s.stages; ++st) {
          awaitStep(ib, tail, /*producer=*/true);
          tail = advance(ib, tail);
        }
      }
    }
    {
      OpBuilder cb = OpBuilder::atBlockBegin(&split.getElseRegion().front());
      IndexMath cm{cb, loc};
      cb.create<NVVM::SetMaxRegisterOp>(loc, kMmaRegisters, NVVM::SetMaxRegisterAction::increase);
      // Ping-pong: warpgroup w takes the CTA's tiles w, w + 2, ...; their k
      // steps come from the one sequence of stages, so the other's MMAs
      // start as soon as this one's last stages are loaded.
      auto tileLoop = s.pingpong
                          ? cb.create<scf::ForOp>(loc, consumer, myTiles, cm.c(2))
                          : cb.create<scf::ForOp>(loc, cm.c(0), myTiles, cm.c(1));
      OpBuilder tb = OpBuilder::atBlockBegin(tileLoop.getBody());
      IndexMath tm{tb, loc};
      Value j = tileLoop.getInductionVar();
      Pos pos0 = posOf(tb, tm.mul(j, kTiles));
      // Ping-pong order: a warpgroup starts tile j's k steps once the other
      // has issued tile j - 1's (named barrier 1 + (j - 1) % 2: one arrives,
      // the other syncs, 256 threads). Besides alternating the tensor cores,
      // this keeps the `full` waits in step order: a parity wait on a
      // stage two phases ahead would pass at once.
      auto orderBarrier = [&](OpBuilder &bb, Value cond, Value id, bool arrive) {
        auto ifOp = bb.create<scf::IfOp>(loc, cond, false);
        OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
        Value count = c32(ib, 2 * s.tileWarps() * kWarpSize);
        if (arrive)
          ib.create<NVVM::BarrierArriveOp>(loc, id, count);
        else
          ib.create<NVVM::BarrierOp>(loc, TypeRange{}, id, count, NVVM::BarrierReductionAttr(),
                                     Value());
      };
      if (s.pingpong)
        orderBarrier(tb, tb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::uge, j, tm.c(1)),
                     toI32(tb, tm.sub(tm.c(2), consumer)), /*arrive=*/false);
      // The MMA warps' arrival on a stage's `empty` barrier: lane 0 of each.
      auto release = [&](OpBuilder &bb, Value stage, Value when) {
        IndexMath im{bb, loc};
        Value ok = bb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, lane, im.c(0));
        auto ifOp = bb.create<scf::IfOp>(loc, when ? im.andi(when, ok) : ok, false);
        OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
        Value bar = empty(ib, stage);
        if (s.clusterM == 1) {
          ib.create<NVVM::MBarrierArriveOp>(loc, Type(), bar, Value());
          return;
        }
        // Every CTA of the cluster refills this stage (multicast): tell all.
        for (int64_t r = 0; r < s.clusterM; ++r) {
          Value remote = ib.create<NVVM::MapaOp>(loc, ptr7, bar, c32(ib, r));
          ib.create<NVVM::MBarrierArriveOp>(loc, Type(), remote, Value());
        }
      };
      // The first k step, peeled: its MMAs start the accumulators (scale-d
      // 0) from `init`, whatever it holds.
      SmallVector<Value> first;
      {
        awaitStep(tb, pos0, /*producer=*/false);
        first = mmaStep(tb, pos0.stage, init, /*zeroFirst=*/true);
        if (s.mmaPending == 0)
          release(tb, pos0.stage, Value());
      }
      // (The accumulators, then the step's stage and phase.)
      int64_t accs = first.size();
      Pos pos1 = advance(tb, pos0);
      first.append({pos1.stage, pos1.phase});
      auto loop = tb.create<scf::ForOp>(loc, tm.c(1), tm.c(kTiles), tm.c(1), first);
      {
        OpBuilder lb = OpBuilder::atBlockBegin(loop.getBody());
        IndexMath lm{lb, loc};
        Value kt = loop.getInductionVar();
        auto iter = loop.getRegionIterArgs();
        Pos pos{iter[accs], iter[accs + 1]};
        awaitStep(lb, pos, /*producer=*/false);
        SmallVector<Value> results =
            mmaStep(lb, pos.stage, iter.take_front(accs), /*zeroFirst=*/false);
        // The MMAs of step kt - mma_pending are done: its stage is free.
        if (s.mmaPending == 0)
          release(lb, pos.stage, Value());
        else
          release(lb, stageBefore(lb, pos.stage, s.mmaPending),
                  lb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::uge, kt,
                                           lm.c(s.mmaPending)));
        Pos next = advance(lb, pos);
        results.append({next.stage, next.phase});
        lb.create<scf::YieldOp>(loc, results);
      }
      tb.setInsertionPointAfter(loop);
      if (s.pingpong)
        orderBarrier(tb,
                     tb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, tm.add(j, tm.c(1)),
                                              myTiles),
                     toI32(tb, tm.add(tm.c(1), consumer)), /*arrive=*/true);
      tb.create<NVVM::WgmmaWaitGroupSyncOp>(loc, tb.getI64IntegerAttr(0));
      // The last steps' stages, still held, go back to the producer before
      // the epilogue, which then overlaps the next tile's first copies.
      // (Fewer k steps than mma_pending: only the tile's own.)
      Value stageEnd = loop.getResults()[accs]; // (the step after the tile's last)
      for (int64_t p = std::min(s.mmaPending, kTiles); p >= 1; --p)
        release(tb, stageBefore(tb, stageEnd, p), Value());
      setTile(tb, tileOf(tb, tileLoop.getInductionVar()), rank);
      if (failed(finish(tb, loop.getResults().take_front(accs))))
        return failure();
      // The last TMA stores read shared memory and write the output after
      // the CTA's last instruction unless waited for.
      if (s.tmaStore) {
        cb.setInsertionPointAfter(tileLoop);
        auto ifOp = cb.create<scf::IfOp>(loc, electedStorer(cb), false);
        OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
        ib.create<NVVM::CpAsyncBulkWaitGroupOp>(loc, ib.getI32IntegerAttr(0), UnitAttr());
      }
    }
    // (No CTA of a cluster exits while a partner can still write its shared
    // memory or arrive on its barriers: the producer's tail, above.)
    return success();
  }

  /// The pipeline's first `ahead` k steps, one cp.async group each (empty
  /// groups past the last k step keep the group count uniform). Returns the
  /// last group's token.
  Value issuePrologue(OpBuilder &b, Value tid, int64_t ahead, int64_t kTiles) {
    IndexMath m{b, fn.getLoc()};
    Value token;
    for (int64_t st = 0; st < ahead; ++st) {
      if (st < kTiles)
        issueLoads(b, tid, m.c(st), m.c(st));
      token = b.create<nvgpu::DeviceAsyncCreateGroupOp>(
          fn.getLoc(), nvgpu::DeviceAsyncTokenType::get(b.getContext()), ValueRange());
    }
    return token;
  }

  /// In step `kt` of the main loop: copies k step kt + ahead (if there is
  /// one) into its stage, as one more cp.async group; returns its token.
  Value issueAhead(OpBuilder &b, Value tid, Value kt, int64_t ahead, int64_t kTiles) {
    Location loc = fn.getLoc();
    IndexMath m{b, loc};
    Value next = m.add(kt, ahead);
    Value inRange = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, next, m.c(kTiles));
    auto ifOp = b.create<scf::IfOp>(loc, inRange, /*withElse=*/false);
    {
      OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
      IndexMath im{ib, loc};
      issueLoads(ib, tid, im.rem(next, s.stages), next);
    }
    return b.create<nvgpu::DeviceAsyncCreateGroupOp>(
        loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), ValueRange());
  }

  /// Copies k-step `kt` of both panels into buffer `stage`.
  void issueLoads(OpBuilder &b, Value tid, Value stage, Value kt) {
    IndexMath m{b, fn.getLoc()};
    Value k0 = m.mul(kBase ? m.add(kt, kBase) : kt, s.blockK);
    Value a = args.lookup(mm.getLhs());
    // Panel element (r, c) is global (rowBase + r, colBase + c).
    // (batchIdx is null unless the product is batched.)
    if (transA) // [K, M], or [batch, K, M]
      copyPanel(b, tid, a, pa, stage, k0, K, m0, M, 0, Value(), batchIdx);
    else
      copyPanel(b, tid, a, pa, stage, m0, M, k0, K, 0, batchRow0);
    Value rhsBatch = rhsBatched ? batchIdx : Value(); // a 2-D rhs is shared
    for (auto [t, product] : llvm::enumerate(mms)) {
      Value bm = args.lookup(product.getRhs());
      if (transB) {
        copyPanel(b, tid, bm, pbs[t], stage, n0, N, k0, K, 0, Value(), rhsBatch);
      } else if (blockedB) {
        // One block_k x 64 copy per 64-column block, at panel rows j * block_k.
        for (int64_t j = 0; j < s.blockN / 64; ++j)
          copyPanel(b, tid, bm, Panel{pbs[t].smem, s.blockK, 64, kChunk}, stage, k0, K,
                    m.add(n0, j * 64), N, j * s.blockK, Value(), rhsBatch);
      } else {
        copyPanel(b, tid, bm, pbs[t], stage, k0, K, n0, N, 0, Value(), rhsBatch);
      }
    }
  }

  /// Copies p.rows x p.cols of `global` from (rowBase, colBase) into panel
  /// rows panelRow0 + r (swizzled by that row). Rows are checked against
  /// rowLimit, then offset by `rowOffset` (a batch's first row); a 3-D
  /// `global` is indexed at `batchIndex` first.
  void copyPanel(OpBuilder &b, Value tid, Value global, const Panel &p, Value stage,
                 Value rowBase, int64_t rowLimit, Value colBase, int64_t colLimit,
                 int64_t panelRow0 = 0, Value rowOffset = Value(), Value batchIndex = Value()) {
    Location loc = fn.getLoc();
    IndexMath m{b, loc};
    int64_t chunksPerRow = p.cols / kChunk;
    int64_t total = p.rows * chunksPerRow;
    // cp.async copies 16, 8 or 4 bytes from an address aligned to as many:
    // a chunk takes one copy where rows are 16-byte aligned, else two of 8
    // bytes or four of 4 (16-bit rows of an odd length: masked element
    // loads through registers).
    int64_t granule = kChunk; // elements of one copy
    while (granule * elemBytes > 4 && colLimit % granule != 0)
      granule /= 2;
    bool async = colLimit % granule == 0;
    for (int64_t i = 0; i * s.threads() < total; ++i) {
      Value id = m.add(tid, i * s.threads());
      Value r = m.div(id, chunksPerRow), ch = m.rem(id, chunksPerRow);
      Value gr = m.add(rowBase, r), gc = m.add(colBase, m.mul(ch, kChunk));
      Value dstRow = m.add(r, panelRow0);
      Value dstCol = m.mul(p.swizzle(m, dstRow, ch), kChunk);
      Value rowOk = m.lt(gr, rowLimit);
      Value guard;
      if (total % s.threads() != 0)
        guard = m.lt(id, total);
      auto body = [&](OpBuilder &bb) {
        IndexMath mm2{bb, loc};
        // Clamped source coordinates keep every address inside the matrix.
        Value srcRow = mm2.min(gr, rowLimit - 1);
        if (rowOffset)
          srcRow = mm2.add(srcRow, rowOffset);
        Value srcCol = mm2.min(gc, colLimit - 1);
        auto srcAt = [&](Value col) {
          SmallVector<Value> idx;
          if (batchIndex)
            idx.push_back(batchIndex);
          idx.append({srcRow, col});
          return idx;
        };
        if (async && granule == kChunk) {
          // Elements past the edge are zero-filled (srcElements < 8).
          Value left = bb.create<arith::SelectOp>(
              loc, mm2.lt(gc, colLimit), mm2.sub(mm2.c(colLimit), srcCol), mm2.c(0));
          Value avail = mm2.min(left, kChunk);
          Value n = bb.create<arith::SelectOp>(loc, rowOk, avail, mm2.c(0));
          bb.create<nvgpu::DeviceAsyncCopyOp>(
              loc, nvgpu::DeviceAsyncTokenType::get(bb.getContext()), p.smem,
              ValueRange{stage, dstRow, dstCol}, global, srcAt(srcCol),
              bb.getIndexAttr(kChunk), n, bb.getUnitAttr()); // .cg: bypass L1
        } else if (async) {
          // Each granule past the edge reads nothing (srcElements 0) from
          // the last whole granule of the row (aligned, inside the matrix).
          for (int64_t j = 0; j < kChunk; j += granule) {
            Value col = mm2.add(gc, j);
            Value in = mm2.andi(rowOk, mm2.lt(col, colLimit));
            Value n = bb.create<arith::SelectOp>(loc, in, mm2.c(granule), mm2.c(0));
            bb.create<nvgpu::DeviceAsyncCopyOp>(
                loc, nvgpu::DeviceAsyncTokenType::get(bb.getContext()), p.smem,
                ValueRange{stage, dstRow, mm2.add(dstCol, j)}, global,
                srcAt(mm2.min(col, colLimit - granule)), bb.getIndexAttr(granule), n,
                UnitAttr()); // (.ca: .cg copies 16 bytes only)
          }
        } else {
          // Masked element loads (rows not 16-byte aligned).
          SmallVector<Value> elems;
          Value zeroE = bb.create<arith::ConstantOp>(loc, bb.getFloatAttr(elem, 0.0));
          for (int64_t j = 0; j < kChunk; ++j) {
            Value col = mm2.add(gc, j);
            Value ok = mm2.andi(rowOk, mm2.lt(col, colLimit));
            Value c = mm2.min(col, colLimit - 1);
            Value v = bb.create<memref::LoadOp>(loc, global, srcAt(c));
            elems.push_back(bb.create<arith::SelectOp>(loc, ok, v, zeroE));
          }
          Value vec = bb.create<vector::FromElementsOp>(
              loc, VectorType::get({kChunk}, elem), elems);
          bb.create<vector::StoreOp>(loc, vec, p.smem, ValueRange{stage, dstRow, dstCol});
        }
      };
      if (guard) {
        auto ifOp = b.create<scf::IfOp>(loc, guard, false);
        OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
        body(ib);
      } else {
        body(b);
      }
    }
  }

  /// An mma.sync operand register: bf16 pairs travel as i32, f16 pairs as
  /// vector<2xf16> (what nvvm.mma.sync accepts for each).
  static Value asI32(OpBuilder &b, Location loc, Value pair) {
    if (llvm::cast<VectorType>(pair.getType()).getElementType().isF16())
      return pair;
    auto v = b.create<vector::BitCastOp>(loc, VectorType::get({1}, b.getI32Type()), pair);
    return b.create<vector::ExtractOp>(loc, v, ArrayRef<int64_t>{0});
  }

  /// One 16-deep k step of the warp's tile on buffer `stage`.
  void computeStep(OpBuilder &b, Value stage, int64_t kk, int64_t mi, int64_t ni,
                   SmallVector<Value> &acc, const Panel &pb) {
    IndexMath m{b, fn.getLoc()};
    LaneCoords lc = laneCoords(b);
    SmallVector<SmallVector<Value, 4>> aFrag;
    for (int64_t i = 0; i < mi; ++i)
      aFrag.push_back(loadAFragment(b, lc, pa, stage, kk, m.add(warpM0, i * 16), transA));
    SmallVector<SmallVector<Value, 2>> bFrag;
    for (int64_t j = 0; j < ni / 2; ++j) {
      SmallVector<Value, 4> f =
          loadBFragments(b, lc, pb, stage, kk, m.add(warpN0, j * 16), transB);
      bFrag.push_back({f[0], f[1]});
      bFrag.push_back({f[2], f[3]});
    }
    for (int64_t i = 0; i < mi; ++i)
      for (int64_t j = 0; j < ni; ++j)
        acc[i * ni + j] = mmaSync(b, aFrag[i], bFrag[j], acc[i * ni + j]);
  }

  /// An ldmatrix.x4 of panel `p` (buffer `stage`) at panel row `row`,
  /// column `col` of this lane, as four mma.sync operand registers.
  SmallVector<Value, 4> ldmatrix(OpBuilder &b, const Panel &p, Value stage, Value row, Value col,
                                 bool trans) {
    Location loc = fn.getLoc();
    IndexMath m{b, loc};
    Value chunk = m.div(col, kChunk);
    Value c = m.mul(p.swizzle(m, row, chunk), kChunk);
    Value f = b.create<nvgpu::LdMatrixOp>(loc, VectorType::get({4, 2}, elem), p.smem,
                                          ValueRange{stage, row, c}, trans, 4u);
    SmallVector<Value, 4> regs;
    for (int64_t r = 0; r < 4; ++r)
      regs.push_back(asI32(b, loc, b.create<vector::ExtractOp>(loc, f, ArrayRef<int64_t>{r})));
    return regs;
  }

  /// The lane's coordinates in an ldmatrix: lane % 16, lane % 8, lane / 16
  /// and (lane / 8) % 2.
  struct LaneCoords {
    Value l16, l8, hi16, mid;
  };
  LaneCoords laneCoords(OpBuilder &b) {
    IndexMath m{b, fn.getLoc()};
    Value l16 = m.rem(lane, 16), l8 = m.rem(lane, 8), hi16 = m.div(lane, 16),
          mid = m.rem(m.div(lane, 8), 2);
    return {l16, l8, hi16, mid};
  }

  /// The A fragment (m16 x k16) of rows mBase.. at k step kk: registers
  /// a0..a3 = (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15),
  /// (rows 8-15, k 8-15). `trans`: the panel is [k][m].
  SmallVector<Value, 4> loadAFragment(OpBuilder &b, const LaneCoords &lc, const Panel &p,
                                      Value stage, int64_t kk, Value mBase, bool trans) {
    IndexMath m{b, fn.getLoc()};
    Value l16 = lc.l16, l8 = lc.l8, hi16 = lc.hi16, mid = lc.mid;
    if (!trans) // lane row mBase + lane % 16, column kk*16 + (lane / 16) * 8
      return ldmatrix(b, p, stage, m.add(mBase, l16), m.add(m.mul(hi16, 8), kk * 16), false);
    // [k][m]: lane row k = kk*16 + lane % 8 + (lane / 16) * 8, col m
    return ldmatrix(b, p, stage, m.add(m.add(l8, m.mul(hi16, 8)), kk * 16),
                    m.add(mBase, m.mul(mid, 8)), true);
  }

  /// The B fragments of two n8 tiles (columns nBase.., nBase + 8..) at k
  /// step kk: b0, b1 of the first tile, then of the second. `trans`: the
  /// panel is [n][k] (B stored [N, K]), else [k][n].
  SmallVector<Value, 4> loadBFragments(OpBuilder &b, const LaneCoords &lc, const Panel &p,
                                       Value stage, int64_t kk, Value nBase, bool trans) {
    IndexMath m{b, fn.getLoc()};
    Value l8 = lc.l8, hi16 = lc.hi16, mid = lc.mid;
    if (trans) // [n][k]: lane row n = nBase + lane % 8 + (lane / 16) * 8, col k
      return ldmatrix(b, p, stage, m.add(nBase, m.add(l8, m.mul(hi16, 8))),
                      m.add(m.mul(mid, 8), kk * 16), false);
    // [k][n]: lane row k = kk*16 + lane % 8 + ((lane / 8) % 2) * 8, col n
    return ldmatrix(b, p, stage, m.add(m.add(l8, m.mul(mid, 8)), kk * 16),
                    m.add(nBase, m.mul(hi16, 8)), true);
  }

  /// mma.sync m16n8k16 (f32 accumulators, vector<4xf32>) of one A fragment
  /// and one n8 tile's B fragment.
  Value mmaSync(OpBuilder &b, ArrayRef<Value> a, ArrayRef<Value> bFrag, Value c) {
    Location loc = fn.getLoc();
    auto f32 = b.getF32Type();
    auto resType = LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
    NVVM::MMATypes ptx = elem.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    SmallVector<Value> cs;
    for (int64_t e = 0; e < 4; ++e)
      cs.push_back(b.create<vector::ExtractOp>(loc, c, ArrayRef<int64_t>{e}));
    auto mma = b.create<NVVM::MmaOp>(
        loc, resType, a, bFrag, cs, ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{ptx, ptx},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
    SmallVector<Value> outs;
    for (int64_t e = 0; e < 4; ++e)
      outs.push_back(b.create<LLVM::ExtractValueOp>(loc, mma, ArrayRef<int64_t>{e}));
    return b.create<vector::FromElementsOp>(loc, VectorType::get({4}, f32), outs);
  }

  /// f32 operands: the same accumulator layout as mma.sync m16n8 (so the
  /// same epilogue), computed with FMAs from shared memory: a thread's rows
  /// are lane/4 (+8) of each 16-row tile, its columns 2*(lane%4) (+1) of each
  /// 8-column tile. Exact f32 products, like PyTorch's default (no TF32).
  void fmaStep(OpBuilder &b, Value stage, int64_t kk, int64_t mi, int64_t ni,
               SmallVector<Value> &acc, const Panel &pb) {
    Location loc = fn.getLoc();
    IndexMath m{b, loc};
    Value quad = m.div(lane, 4), pairCol = m.mul(m.rem(lane, 4), 2);
    // Panel element (r, c), chunks swizzled as the copies wrote them.
    auto element = [&](const Panel &p, Value r, Value c) -> Value {
      Value chunk = m.div(c, kChunk);
      Value col = m.add(m.mul(p.swizzle(m, r, chunk), kChunk), m.rem(c, kChunk));
      return b.create<memref::LoadOp>(loc, p.smem, ValueRange{stage, r, col});
    };
    auto aAt = [&](Value row, Value k) { return transA ? element(pa, k, row) : element(pa, row, k); };
    auto bAt = [&](Value k, Value col) { return transB ? element(pb, col, k) : element(pb, k, col); };
    auto vec2 = VectorType::get({2}, b.getF32Type());
    for (int64_t k = 0; k < 16; ++k) {
      Value kIdx = m.c(kk * 16 + k);
      SmallVector<Value> aVals; // [i][h]
      for (int64_t i = 0; i < mi; ++i)
        for (int64_t h = 0; h < 2; ++h)
          aVals.push_back(aAt(m.add(warpM0, m.add(quad, i * 16 + h * 8)), kIdx));
      SmallVector<Value> bVals; // [j] as vector<2>
      for (int64_t j = 0; j < ni; ++j) {
        Value col = m.add(warpN0, m.add(pairCol, j * 8));
        Value b0 = bAt(kIdx, col), b1 = bAt(kIdx, m.add(col, 1));
        bVals.push_back(b.create<vector::FromElementsOp>(loc, vec2, ValueRange{b0, b1}));
      }
      for (int64_t i = 0; i < mi; ++i)
        for (int64_t j = 0; j < ni; ++j) {
          Value &c = acc[i * ni + j];
          SmallVector<Value> halves;
          for (int64_t h = 0; h < 2; ++h) {
            Value av = b.create<vector::BroadcastOp>(loc, vec2, aVals[i * 2 + h]);
            Value ch = b.create<vector::ShuffleOp>(loc, c, c, ArrayRef<int64_t>{2 * h, 2 * h + 1});
            halves.push_back(b.create<vector::FMAOp>(loc, av, bVals[j], ch));
          }
          c = b.create<vector::ShuffleOp>(loc, halves[0], halves[1], ArrayRef<int64_t>{0, 1, 2, 3});
        }
    }
  }

  /// What emitFragment emits: loads of values shared by the tile (rank-0
  /// and rank-1 buffers, per-row scalars) or of rows (into the load cache,
  /// with the index arithmetic they need), or the whole row program.
  enum class Emit { SharedLoads, RowLoads, All };

  /// A pair of accumulator columns of one row (each product's) and the
  /// load-cache keys of its column and row; tma_store: where its pair goes
  /// in the staging buffer (f32 units: where the pair a thread stores in
  /// its place goes, and which fragment of the unit that pair may be).
  struct Fragment {
    Value row, col;
    SmallVector<Value> pairs;
    // Split k: no pairs yet, but each product's accumulator index and the
    // half of it (splitPairs loads their sums where the fragment is emitted).
    SmallVector<int64_t> accIndex;
    int64_t half = 0;
    int64_t colKey = 0, rowKey = 0;
    Value stagedAddr;
    int64_t swapWith = -1;
  };

  /// Re-emits the row program for each pair of accumulator columns a thread
  /// holds: rows warpM0 + i*tileRows + h*8 + lane/4 (tileRows: 16 for
  /// mma.sync's m16 tiles, 64 between wgmma chains), columns warpN0 + j*8 +
  /// (lane%4)*2 + {0, 1}. The epilogue's loads go first (bias vectors and
  /// per-row scalars for the whole tile, then row loads a group of
  /// fragments at a time): the stores in between could alias them, so
  /// neither LLVM nor ptxas may hoist a load above a store, and one load's
  /// latency per fragment would add up (measured: docs/perf.md).
  LogicalResult emitEpilogue(OpBuilder &b, int64_t mi, int64_t ni, ArrayRef<Value> acc,
                             int64_t tileRows = 16) {
    if (stagingBase)
      return emitStagedEpilogue(b, mi, ni, acc, tileRows);
    SmallVector<Fragment> frags;
    for (int64_t i = 0; i < mi; ++i)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t j = 0; j < ni; ++j)
          frags.push_back(fragment(b, acc, mi, ni, i, h, j, tileRows));
    if (failed(emitFragments(b, frags, Emit::SharedLoads)))
      return failure();
    return emitFragmentGroups(b, frags);
  }

  /// The pair of accumulator columns a thread holds in row half h of m16
  /// tile i (tileRows apart), n8 tile j, of every product.
  Fragment fragment(OpBuilder &b, ArrayRef<Value> acc, int64_t mi, int64_t ni, int64_t i,
                    int64_t h, int64_t j, int64_t tileRows) {
    Location loc = fn.getLoc();
    IndexMath m{b, loc};
    Value quad = m.div(lane, 4), pairCol = m.mul(m.rem(lane, 4), 2);
    Fragment f;
    f.row = m.add(m.add(m0, warpM0), m.add(quad, i * tileRows + h * 8));
    f.col = m.add(m.add(n0, warpN0), m.add(pairCol, j * 8));
    for (int64_t t = 0; t < static_cast<int64_t>(mms.size()); ++t) {
      int64_t index = (t * mi + i) * ni + j;
      if (splitPairs) {
        f.accIndex.push_back(index);
        f.half = h;
        continue;
      }
      Value a = acc[index];
      f.pairs.push_back(
          b.create<vector::ShuffleOp>(loc, a, a, ArrayRef<int64_t>{2 * h, 2 * h + 1}));
    }
    f.colKey = j;
    f.rowKey = i * 2 + h;
    return f;
  }

  LogicalResult emitFragments(OpBuilder &b, ArrayRef<Fragment> frags, Emit emit) {
    for (const Fragment &f : frags) {
      stagedAddr = emit == Emit::All ? f.stagedAddr : Value();
      size_t before = stagedValues ? stagedValues->size() : 0;
      SmallVector<Value> pairs = f.pairs;
      if (emit == Emit::All && splitPairs)
        pairs = splitPairs(b, f);
      LogicalResult r = emitFragment(b, f.row, f.col, pairs, f.colKey, f.rowKey, emit);
      stagedAddr = Value();
      if (failed(r))
        return failure();
      if (stagedValues && emit == Emit::All && stagedValues->size() != before + 1)
        return mm.emitOpError("internal error: a staged GEMM fragment stored ")
               << stagedValues->size() - before << " values instead of one";
    }
    return success();
  }

  /// The fragments' row loads and programs, 8 fragments at a time (loads
  /// first, see emitEpilogue).
  LogicalResult emitFragmentGroups(OpBuilder &b, ArrayRef<Fragment> frags) {
    constexpr size_t kGroup = 8;
    for (size_t g = 0; g < frags.size(); g += kGroup) {
      ArrayRef<Fragment> group = frags.slice(g, std::min(kGroup, frags.size() - g));
      if (failed(emitFragments(b, group, Emit::RowLoads)) ||
          failed(emitFragments(b, group, Emit::All)))
        return failure();
    }
    return success();
  }

  /// The thread that waits for and issues its warpgroup's TMA stores.
  Value electedStorer(OpBuilder &b) {
    IndexMath m{b, fn.getLoc()};
    return b.create<arith::CmpIOp>(fn.getLoc(), arith::CmpIPredicate::eq, m.rem(mmaTid, 128),
                                   m.c(0));
  }

  /// The epilogue through shared memory (tma_store): a warpgroup's part of
  /// the tile goes out in units of 64 rows (one chain) x 128 bytes (64
  /// 16-bit or 32 f32 columns), each written by its threads to one of the
  /// warpgroup's two 8 KB buffers in the 128-byte swizzle (16-byte chunk c
  /// of row r at chunk c ^ (r % 8)), then stored by one TMA copy of the
  /// elected thread, which clips rows and columns past the output (a
  /// batched product's 3-D map: past its batch's rows).
  ///  * 16-bit: pair p of n8 tile j, row r at byte r * 128 + ((j % 8) ^ (r %
  ///    8)) * 16 + p * 4: the 8 rows of a store instruction hit 8 distinct
  ///    bank groups.
  ///  * f32: an n8 tile's row is two chunks, and rows r and r ^ 1 would put
  ///    a tile into the same two chunks; so the threads of odd rows store
  ///    tile j ^ 2 where those of even rows store tile j (a select between
  ///    the two pairs). A half-warp's 8-byte stores (4 rows, st.shared.v2)
  ///    then cover 8 distinct chunks: with key = (r % 8) ^ ((r % 2) * 4),
  ///    the pair p of tile j ^ ((r % 2) * 2) goes to byte r * 128 + ((2 * j
  ///    + p / 2) ^ key) * 16 + (p % 2) * 8.
  /// Before a buffer is rewritten, the copy that read it (two units
  /// earlier, maybe of the previous tile) must have finished reading
  /// (wait_group.read); two warpgroup barriers a unit order the writes, the
  /// copy and the reuse. The output's whole 128-byte lines reach L2, and
  /// the copies run while the warpgroup goes on to the next unit and tile.
  LogicalResult emitStagedEpilogue(OpBuilder &b, int64_t mi, int64_t ni, ArrayRef<Value> acc,
                                   int64_t tileRows) {
    Location loc = fn.getLoc();
    MLIRContext *ctx = b.getContext();
    IndexMath m{b, loc};
    auto i32 = b.getI32Type();
    // The output: its element size sets a unit's columns, which the tensor
    // map's box must match ({64, cols}, or {1, 64, cols} batched).
    int64_t outBytes = 0;
    fn.walk([&](tile::StoreOp st) {
      if (st.getRow())
        outBytes = llvm::cast<MemRefType>(st.getDest().getType()).getElementTypeBitWidth() / 8;
    });
    int64_t unitCols = outBytes == 2 || outBytes == 4 ? 128 / outBytes : 0;
    auto box = llvm::dyn_cast_or_null<DenseI64ArrayAttr>(
        llvm::cast<DictionaryAttr>(tensorMaps[tensorMaps.size() - 1]).get("box"));
    SmallVector<int64_t> wantBox{64, unitCols};
    if (batched)
      wantBox.insert(wantBox.begin(), 1);
    if (!unitCols || !box || box.asArrayRef() != ArrayRef<int64_t>(wantBox) ||
        s.blockN % unitCols != 0)
      return fn.emitOpError("tma_store needs one row store of 16- or 32-bit elements, block_n a "
                            "multiple of a unit's 128 bytes and the output's tensor map last in "
                            "tile.tma with box [")
             << (batched ? "1, " : "") << "64, 128 bytes], got block_n " << s.blockN
             << " and tile.tma " << tensorMaps;
    bool swapped = outBytes == 4;
    int64_t tilesPerUnit = unitCols / 8; // n8 tiles
    Value quad = m.div(lane, 4);
    Value wg = m.div(mmaTid, 128);
    Value wl = m.rem(tileWarp, 4);
    Value wgRow = m.mul(m.div(tileWarp, 4), 64 * mi); // the warpgroup's first tile row
    Value region = m.add(stagingBase, m.mul(wg, 2 * 8192));
    Value pairByte, pairChunk, key, oddRow;
    if (swapped) {
      Value p = m.rem(lane, 4);
      pairChunk = m.div(p, 2);
      pairByte = m.mul(m.rem(p, 2), 8);
      Value odd = m.rem(quad, 2);
      key = m.xori(quad, m.mul(odd, 4));
      oddRow = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, odd, m.c(0));
    } else {
      pairByte = m.mul(m.rem(lane, 4), 4);
    }
    Value barId = b.create<arith::IndexCastOp>(loc, i32, m.add(wg, 3));
    Value count = b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(128));
    auto wgBarrier = [&] {
      b.create<NVVM::BarrierOp>(loc, TypeRange{}, barId, count, NVVM::BarrierReductionAttr(),
                                Value());
    };
    // Units: chain c, column block blk, in buffer (index % 2).
    struct Unit {
      int64_t chain, block;
      SmallVector<Fragment> frags;
    };
    SmallVector<Unit> units;
    for (int64_t c = 0; c < mi; ++c)
      for (int64_t blk = 0; blk < ni / tilesPerUnit; ++blk) {
        Unit unit{c, blk, {}};
        Value buffer = m.add(region, (static_cast<int64_t>(units.size()) % 2) * 8192);
        for (int64_t h = 0; h < 2; ++h) {
          Value r = m.add(m.mul(wl, 16), m.add(quad, h * 8)); // row in the unit
          for (int64_t jj = 0; jj < tilesPerUnit; ++jj) {
            Fragment f = fragment(b, acc, mi, ni, c, h, blk * tilesPerUnit + jj, tileRows);
            Value chunk = swapped ? m.xori(m.add(m.c(2 * jj), pairChunk), key)
                                  : m.xori(m.c(jj), quad);
            f.stagedAddr =
                m.add(buffer, m.add(m.mul(r, 128), m.add(m.mul(chunk, 16), pairByte)));
            if (swapped)
              f.swapWith = h * tilesPerUnit + (jj ^ 2);
            unit.frags.push_back(std::move(f));
          }
        }
        units.push_back(std::move(unit));
      }
    for (const Unit &unit : units)
      if (failed(emitFragments(b, unit.frags, Emit::SharedLoads)))
        return failure();
    for (auto [u, unit] : llvm::enumerate(units)) {
      // This unit's buffer was last read by the copy before the latest
      // (or, with an odd count of units a tile, by the latest: the
      // previous tile's last).
      int32_t pending = (units.size() % 2 == 1 && u == 0) ? 0 : 1;
      {
        auto ifOp = b.create<scf::IfOp>(loc, electedStorer(b), false);
        OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
        ib.create<NVVM::CpAsyncBulkWaitGroupOp>(loc, ib.getI32IntegerAttr(pending),
                                                ib.getUnitAttr());
      }
      wgBarrier();
      if (swapped) {
        // The unit's 8 pairs first, then each thread's stores.
        SmallVector<Value> values;
        stagedValues = &values;
        LogicalResult r = success(succeeded(emitFragments(b, unit.frags, Emit::RowLoads)) &&
                                  succeeded(emitFragments(b, unit.frags, Emit::All)));
        stagedValues = nullptr;
        if (failed(r))
          return failure();
        for (auto [i, f] : llvm::enumerate(unit.frags)) {
          Value v = b.create<arith::SelectOp>(loc, oddRow, values[f.swapWith], values[i]);
          b.create<LLVM::StoreOp>(loc, v, sharedPointer(b, f.stagedAddr), /*alignment=*/8);
        }
      } else if (failed(emitFragmentGroups(b, unit.frags))) {
        return failure();
      }
      // The writes (generic proxy) visible to the TMA copy (async proxy).
      fenceAsyncShared(b);
      wgBarrier();
      auto ifOp = b.create<scf::IfOp>(loc, electedStorer(b), false);
      OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
      IndexMath im{ib, loc};
      Value src = sharedPointer(ib, im.add(region, static_cast<int64_t>(u % 2) * 8192));
      Value colAt = ib.create<arith::IndexCastOp>(loc, i32, im.add(n0, unit.block * unitCols));
      Value rowAt = ib.create<arith::IndexCastOp>(
          loc, i32, im.add(im.add(m0, wgRow), unit.chain * tileRows));
      SmallVector<Value> coords{colAt, rowAt};
      if (batched) // (rows within the batch: the map's middle dim)
        coords.push_back(ib.create<arith::IndexCastOp>(loc, i32, batchIdx));
      ib.create<NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(
          loc, outMap, src, coords, Value(),
          NVVM::TMAStoreModeAttr::get(ctx, NVVM::TMAStoreMode::TILE), Value());
      ib.create<NVVM::CpAsyncBulkCommitGroupOp>(loc);
    }
    return success();
  }

  /// Runs `epilogue` on the tile's accumulators `acc` (vector<4xf32> each),
  /// or with split k on their sums over the tile's splits: each split's
  /// units hand their partials over (arriveWithPartials), and the last
  /// one's runs `epilogue`, whose fragments load each pair's partial sums
  /// where they are emitted and add them in split order (the same sum
  /// whichever split arrives last).
  /// (Sums made before the epilogue kept every slot's loads in registers:
  /// LLVM sank the adds to their uses in the masked stores, which spilled
  /// 28-732 bytes with 64-128 accumulators a thread and 3-4 splits.)
  LogicalResult
  withSplitSums(OpBuilder &b, ArrayRef<Value> acc,
                llvm::function_ref<LogicalResult(OpBuilder &, ArrayRef<Value>)> epilogue) {
    if (s.splitK <= 1)
      return epilogue(b, acc);
    Location loc = fn.getLoc();
    FailureOr<SplitSlots> slots = arriveWithPartials(
        b, acc, s.blockM * s.blockN * static_cast<int64_t>(mms.size()));
    if (failed(slots))
      return failure();
    OpBuilder lb = slots->last;
    auto vec2 = VectorType::get({2}, b.getF32Type());
    splitPairs = [&](OpBuilder &bb, const Fragment &f) {
      IndexMath im{bb, loc};
      SmallVector<Value> pairs;
      for (int64_t index : f.accIndex) {
        Value sum;
        for (int64_t sp = 0; sp < s.splitK; ++sp) {
          Value part = bb.create<LLVM::LoadOp>(loc, vec2, partialAt(bb, *slots, im.c(sp), index, f.half),
                                               /*alignment=*/8);
          sum = sum ? bb.create<arith::AddFOp>(loc, sum, part).getResult() : part;
        }
        pairs.push_back(sum);
      }
      return pairs;
    };
    LogicalResult done = epilogue(lb, acc);
    splitPairs = nullptr;
    return done;
  }

  /// Where a split's partials go (arriveWithPartials): the workspace's
  /// layout, the thread's index among its tile's, and a builder inside the
  /// block only the last split's units run (after an acquire fence).
  struct SplitSlots {
    tilec::GemmSplitWorkspace layout;
    Value tileTid;
    int64_t tileThreads = 0;
    OpBuilder last;
  };

  /// The workspace address of half h of accumulator f of this thread, of
  /// split `split`: byte ((2 f + h) * tileThreads + t) * 8 of the tile's
  /// slot for that split, so that a warp's stores and loads are whole lines.
  Value partialAt(OpBuilder &bb, const SplitSlots &w, Value split, int64_t f, int64_t h) {
    return partialAt(bb, w, split, [&](IndexMath &im) {
      return im.add(w.tileTid, (2 * f + h) * w.tileThreads);
    });
  }
  /// (The same, of a tile index f known only at run time.)
  Value partialAt(OpBuilder &bb, const SplitSlots &w, Value split, Value f, int64_t h) {
    return partialAt(bb, w, split, [&](IndexMath &im) {
      return im.add(w.tileTid, im.add(im.mul(f, 2 * w.tileThreads), h * w.tileThreads));
    });
  }
  Value partialAt(OpBuilder &bb, const SplitSlots &w, Value split,
                  llvm::function_ref<Value(IndexMath &)> entryOf) {
    Location loc = fn.getLoc();
    IndexMath im{bb, loc};
    Value slot = im.add(im.mul(im.add(im.mul(tileIdx, s.splitK), split), w.layout.slotBytes()),
                        w.layout.counterBytes());
    Value byte = im.add(slot, im.mul(entryOf(im), 8));
    Value off = bb.create<arith::IndexCastOp>(loc, bb.getI64Type(), byte);
    return bb.create<LLVM::GEPOp>(loc, LLVM::LLVMPointerType::get(bb.getContext(), 1),
                                  bb.getI8Type(), workspace, ValueRange{off});
  }

  /// Split k's hand-off (withSplitSums; split keys of runFlash):
  ///  * each unit of the tile's MMA threads (a warp; wgmma: a warpgroup)
  ///    stores `acc` (vector<4xf32> each), register by register in two
  ///    8-byte halves, to its split's slot of the workspace
  ///    (GemmSplitWorkspace, `tileAccumulators` floats a tile and split);
  ///  * each thread fences (release), the unit synchronizes, and its first
  ///    thread adds one to the unit's counter of the tile;
  ///  * the unit that makes the count `split_k` (the last to arrive) learns
  ///    it from that thread (a shuffle; wgmma: a barrier's OR), resets the
  ///    counter for the next launch and fences (acquire): the returned
  ///    builder is inside the block it alone runs, where partialAt reads
  ///    every split's partials. The other splits' units are done.
  /// No unit waits for another, so the splits need not run at once.
  /// `rowHalfLive` (runFlash's split keys), where given: whether half h of
  /// the first `rowFrags` accumulators holds any row of the batch (an i1,
  /// the same across the unit's warp, or a constant): a half of none is
  /// not stored (the combine does not read it).
  FailureOr<SplitSlots> arriveWithPartials(OpBuilder &b, ArrayRef<Value> acc,
                                           int64_t tileAccumulators,
                                           ArrayRef<Value> rowHalfLive = {},
                                           int64_t rowFrags = 0) {
    Location loc = fn.getLoc();
    MLIRContext *ctx = b.getContext();
    IndexMath m{b, loc};
    int64_t unitThreads = s.wgmma ? 128 : kWarpSize;
    int64_t tileThreads = s.tileWarps() * kWarpSize;
    int64_t frags = static_cast<int64_t>(acc.size());
    tilec::GemmSplitWorkspace layout{numTiles() * s.clusterM, tileThreads / unitThreads, s.splitK,
                              frags * 4 * tileThreads};
    if (layout.tileAccumulators != tileAccumulators || layout.bytes() > s.workspaceBytes)
      return fn.emitOpError("split_k ")
             << s.splitK << " needs a workspace of " << layout.bytes()
             << " bytes for its partial sums and counters, the schedule gives "
             << s.workspaceBytes;
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto global = LLVM::LLVMPointerType::get(ctx, 1);
    auto at = [&](OpBuilder &bb, Value byteOffset) -> Value {
      Value off = bb.create<arith::IndexCastOp>(loc, i64, byteOffset);
      return bb.create<LLVM::GEPOp>(loc, global, bb.getI8Type(), workspace, ValueRange{off});
    };
    Value tileTid = m.add(m.mul(tileWarp, kWarpSize), lane);
    Value unit = m.div(tileTid, unitThreads);
    SplitSlots slots{layout, tileTid, tileThreads, OpBuilder(ctx)};
    auto storeHalves = [&](OpBuilder &sb, int64_t fBegin, int64_t fEnd, ArrayRef<int64_t> hs) {
      for (int64_t f = fBegin; f < fEnd; ++f)
        for (int64_t h : hs) {
          Value half = sb.create<vector::ShuffleOp>(loc, acc[f], acc[f],
                                                    ArrayRef<int64_t>{2 * h, 2 * h + 1});
          sb.create<LLVM::StoreOp>(loc, half, partialAt(sb, slots, splitIdx, f, h),
                                   /*alignment=*/8);
        }
    };
    int64_t guarded = rowHalfLive.empty() ? 0 : rowFrags;
    for (int64_t h = 0; h < 2 && guarded; ++h) {
      std::optional<int64_t> known = getConstantIntValue(rowHalfLive[h]);
      if (known && *known == 0)
        continue;
      if (known) {
        storeHalves(b, 0, guarded, {h});
        continue;
      }
      auto live = b.create<scf::IfOp>(loc, rowHalfLive[h], /*withElse=*/false);
      OpBuilder lb = OpBuilder::atBlockBegin(&live.getThenRegion().front());
      storeHalves(lb, 0, guarded, {h});
    }
    storeHalves(b, guarded, frags, {0, 1});
    // Release (fence.acq_rel.gpu: membar.gl is the stronger fence.sc).
    b.create<LLVM::FenceOp>(loc, LLVM::AtomicOrdering::release, "device");
    Value barId, count;
    if (unitThreads == kWarpSize) {
      b.create<NVVM::SyncWarpOp>(loc, b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(-1)));
    } else {
      // Named barriers 8-15: warpgroup w of the CTA's MMA threads takes 8 + w.
      barId = b.create<arith::IndexCastOp>(loc, i32, m.add(m.div(mmaTid, 128), 8));
      count = b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(unitThreads));
      b.create<NVVM::BarrierOp>(loc, TypeRange{}, barId, count, NVVM::BarrierReductionAttr(),
                                Value());
    }
    Value leader = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                           m.rem(tileTid, unitThreads), m.c(0));
    auto counted = b.create<scf::IfOp>(loc, TypeRange{i32}, leader, /*withElse=*/true);
    {
      OpBuilder ib = OpBuilder::atBlockBegin(&counted.getThenRegion().front());
      IndexMath im{ib, loc};
      Value counter = at(ib, im.mul(im.add(im.mul(tileIdx, layout.unitsPerTile), unit), 4));
      Value one = ib.create<arith::ConstantOp>(loc, ib.getI32IntegerAttr(1));
      Value before = ib.create<LLVM::AtomicRMWOp>(loc, LLVM::AtomicBinOp::add, counter, one,
                                                  LLVM::AtomicOrdering::monotonic, "device");
      Value last = ib.create<arith::CmpIOp>(
          loc, arith::CmpIPredicate::eq, before,
          ib.create<arith::ConstantOp>(loc, ib.getI32IntegerAttr(s.splitK - 1)));
      auto reset = ib.create<scf::IfOp>(loc, last, /*withElse=*/false);
      OpBuilder rb = OpBuilder::atBlockBegin(&reset.getThenRegion().front());
      rb.create<LLVM::StoreOp>(loc, rb.create<arith::ConstantOp>(loc, rb.getI32IntegerAttr(0)),
                               counter, /*alignment=*/4);
      ib.create<scf::YieldOp>(loc, ValueRange{before});
      OpBuilder eb = OpBuilder::atBlockBegin(&counted.getElseRegion().front());
      eb.create<scf::YieldOp>(loc, ValueRange{eb.create<arith::ConstantOp>(
                                       loc, eb.getI32IntegerAttr(-1))});
    }
    Value lastArrival = b.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::eq, counted.getResult(0),
        b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(s.splitK - 1)));
    Value isLast;
    if (unitThreads == kWarpSize) {
      Value zero = b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(0));
      Value width = b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(kWarpSize));
      Value flag = b.create<arith::ExtUIOp>(loc, i32, lastArrival);
      Value shared =
          b.create<gpu::ShuffleOp>(loc, flag, zero, width, gpu::ShuffleMode::IDX).getShuffleResult();
      isLast = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, shared, zero);
    } else {
      // (nvvm.barrier takes a reduction on barrier 0 only: the intrinsic.)
      isLast = b.create<LLVM::CallIntrinsicOp>(
                    loc, b.getI1Type(),
                    b.getStringAttr("llvm.nvvm.barrier.cta.red.or.aligned.count"),
                    ValueRange{barId, count, lastArrival})
                   .getResult(0);
    }
    auto ifLast = b.create<scf::IfOp>(loc, isLast, /*withElse=*/false);
    slots.last = OpBuilder::atBlockBegin(&ifLast.getThenRegion().front());
    slots.last.create<LLVM::FenceOp>(loc, LLVM::AtomicOrdering::acquire, "device");
    return slots;
  }

  /// A shared-memory address (index) as an LLVM pointer.
  Value sharedPointer(OpBuilder &b, Value address) {
    Location loc = fn.getLoc();
    Value a = b.create<arith::IndexCastOp>(loc, b.getI64Type(), address);
    return b.create<LLVM::IntToPtrOp>(loc, LLVM::LLVMPointerType::get(b.getContext(), 3), a);
  }


  Type pairType(Type t) {
    if (auto r = llvm::dyn_cast<RankedTensorType>(t))
      return VectorType::get({2}, r.getElementType());
    return t;
  }

  LogicalResult emitFragment(OpBuilder &b, Value row, Value col, ArrayRef<Value> accPairs,
                             int64_t colKey, int64_t rowKey, Emit emit) {
    Location loc = fn.getLoc();
    IndexMath m{b, loc};
    IRMapping map = args;
    // `row` counts within the batch; memory rows are batchRow0 + row.
    Value rowOk = m.lt(row, M);
    Value loadRow = m.add(m.min(row, M - 1), batchRow0);
    row = m.add(row, batchRow0);
    bool evenCols = N % 2 == 0;
    auto colOk = [&](int64_t j) { return m.lt(m.add(col, j), N); };
    SmallVector<Operation *> program;
    if (fragmentOps.empty())
      for (Operation &op : fn.getBody().front().without_terminator())
        program.push_back(&op);
    for (Operation *opPtr : fragmentOps.empty() ? ArrayRef<Operation *>(program) : fragmentOps) {
      Operation &op = *opPtr;
      if (isa<tile::RowIdOp>(op)) {
        map.map(op.getResult(0), loadRow);
        continue;
      }
      if (isa<tile::RowMatmulOp>(op)) { // (attention: its pair is given)
        map.map(op.getResult(0), rowProductPair);
        continue;
      }
      if (emit != Emit::All) {
        // Loads, and the scalar index arithmetic their rows may need.
        if (auto load = dyn_cast<tile::LoadOp>(op)) {
          auto memType = llvm::cast<MemRefType>(load.getSource().getType());
          bool rowVector = memType.getRank() == 2 && llvm::isa<RankedTensorType>(load.getType());
          if (rowVector != (emit == Emit::RowLoads))
            continue;
        } else if (llvm::all_of(op.getResultTypes(), [](Type t) {
                     return t.isIntOrIndex();
                   }) && op.getNumResults() > 0 && op.getNumRegions() == 0) {
          b.clone(op, map);
          continue;
        } else {
          continue;
        }
      }
      if (auto product = dyn_cast<tile::MatmulOp>(op)) {
        map.map(op.getResult(0), accPairs[llvm::find(mms, product) - mms.begin()]);
        continue;
      }
      if (auto load = dyn_cast<tile::LoadOp>(op)) {
        if (load.getColOffsetAttr())
          return load.emitOpError("windowed loads are not supported in a GEMM epilogue");
        Value mem = map.lookup(load.getSource());
        auto memType = llvm::cast<MemRefType>(mem.getType());
        Type t = load.getType();
        Value v;
        if (memType.getRank() == 0) {
          v = cached(loadCache, {&op, 0}, [&] {
            return b.create<memref::LoadOp>(loc, mem, ValueRange{}).getResult();
          });
        } else if (!llvm::isa<RankedTensorType>(t)) { // per-row scalar [row, 0]
          Value r = map.lookup(load.getRow());
          v = cached(loadCache, {&op, 1000 + rowKey}, [&] {
            return b.create<memref::LoadOp>(loc, mem, ValueRange{r, m.c(0)}).getResult();
          });
        } else {
          SmallVector<Value> idx;
          if (memType.getRank() == 2)
            idx.push_back(map.lookup(load.getRow()));
          // Bias-like vectors are shared by the fragments of a column,
          // rows by nobody (cached so that the loads can go first).
          int64_t key = memType.getRank() == 1 ? colKey : 100000 + rowKey * 1000 + colKey;
          auto emitLoad = [&]() -> Value {
            auto vt = VectorType::get({2}, memType.getElementType());
            if (evenCols) {
              SmallVector<Value> at(idx);
              at.push_back(m.min(col, N - 2));
              auto load = b.create<vector::LoadOp>(loc, vt, mem, at);
              load.setAlignment(2 * memType.getElementTypeBitWidth() / 8); // a pair
              return load;
            }
            SmallVector<Value> elems;
            for (int64_t j = 0; j < 2; ++j) {
              SmallVector<Value> at(idx);
              at.push_back(m.min(m.add(col, j), N - 1));
              elems.push_back(b.create<memref::LoadOp>(loc, mem, at));
            }
            return b.create<vector::FromElementsOp>(loc, vt, elems);
          };
          v = cached(loadCache, {&op, 2000 + key}, emitLoad);
        }
        map.map(op.getResult(0), v);
        continue;
      }
      if (auto splat = dyn_cast<tile::SplatOp>(op)) {
        Value in = map.lookup(splat.getInput());
        map.map(op.getResult(0), b.create<vector::BroadcastOp>(
                                     loc, VectorType::get({2}, in.getType()), in));
        continue;
      }
      if (auto store = dyn_cast<tile::StoreOp>(op)) {
        if (store.getColOffsetAttr())
          return store.emitOpError("windowed stores are not supported in a GEMM epilogue");
        Value v = map.lookup(store.getValue());
        Value mem = map.lookup(store.getDest());
        auto memType = llvm::cast<MemRefType>(mem.getType());
        if (!store.getRow()) {
          // A value shared by all rows: written by the threads of row 0.
          Value first = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, row, m.c(0));
          if (memType.getRank() == 0) {
            Value c0 = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, col, m.c(0));
            auto ifOp = b.create<scf::IfOp>(loc, m.andi(first, c0), false);
            OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
            ib.create<memref::StoreOp>(loc, v, mem, ValueRange{});
            continue;
          }
          storePair(b, v, mem, {}, col, first, colOk);
          continue;
        }
        if (stagedAddr && llvm::isa<VectorType>(v.getType())) { // tma_store: to the buffer
          if (stagedValues) // (f32: stored by emitStagedEpilogue)
            stagedValues->push_back(v);
          else
            b.create<LLVM::StoreOp>(loc, v, sharedPointer(b, stagedAddr), /*alignment=*/4);
          continue;
        }
        // A scatter's row (transposed row dims) is computed from the
        // row's id (clamped in range: the store is masked past M).
        Value storeRow = store.getRow().getDefiningOp<tile::RowIdOp>()
                             ? row
                             : map.lookup(store.getRow());
        if (!llvm::isa<VectorType>(v.getType())) { // per-row scalar: one thread per row
          Value c0 = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, col, m.c(0));
          auto ifOp = b.create<scf::IfOp>(loc, m.andi(rowOk, c0), false);
          OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
          ib.create<memref::StoreOp>(loc, v, mem, ValueRange{storeRow, m.c(0)});
          continue;
        }
        storePair(b, v, mem, {storeRow}, col, rowOk, colOk);
        continue;
      }
      if (unmaskedCausal && &op == unmaskedCausal.getOperation())
        continue;
      if (scaleFolded && &op == scaleFolded.getOperation() && captureTile) {
        // (The scores' scale, folded into the softmax: the product as is.)
        map.map(scaleFolded.getResult(), map.lookup(scaledProduct));
        continue;
      }
      if (auto add = dyn_cast<arith::AddFOp>(op); add && unmaskedCausal) {
        Value maskValue = unmaskedCausal.getResult();
        if (add.getLhs() == maskValue || add.getRhs() == maskValue) {
          map.map(add.getResult(),
                  map.lookup(add.getLhs() == maskValue ? add.getRhs() : add.getLhs()));
          continue;
        }
      }
      if (auto mask = dyn_cast<tile::CausalMaskOp>(op)) {
        // 0 for the pair's keys up to row % period + offset, -inf past.
        Value limit = m.add(m.rem(map.lookup(mask.getRow()), mask.getPeriod()),
                            static_cast<int64_t>(mask.getOffset()));
        SmallVector<Value> sees;
        int64_t window = static_cast<int64_t>(mask.getWindow());
        for (int64_t j = 0; j < 2; ++j) {
          Value key = m.add(col, j);
          sees.push_back(b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle, key, limit));
          if (window > 0) // (and past the window's first: key > limit - window)
            sees.back() = m.andi(sees.back(),
                                 b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, key,
                                                         m.add(limit, -window)));
        }
        auto v2 = VectorType::get({2}, b.getF32Type());
        map.map(op.getResult(0),
                b.create<arith::SelectOp>(
                    loc, b.create<vector::FromElementsOp>(loc, VectorType::get({2}, b.getI1Type()), sees),
                    b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(v2, 0.0f)),
                    b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(v2, -INFINITY))));
        continue;
      }
      if (isa<tile::ReduceSumOp, tile::ReduceMaxOp, tile::SelectColsOp>(op))
        return op.emitOpError("is not supported in a GEMM epilogue");
      if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
        if (auto dense = llvm::dyn_cast<DenseElementsAttr>(cst.getValue())) {
          if (!dense.isSplat())
            return op.emitOpError("non-splat constants are not supported in a GEMM epilogue");
          auto vt = VectorType::get({2}, dense.getElementType());
          map.map(op.getResult(0), b.create<arith::ConstantOp>(
                                       loc, DenseElementsAttr::get(vt, dense.getSplatValue<Attribute>())));
          continue;
        }
      }
      // Elementwise arith/math and index arithmetic: the same op on pairs.
      Operation *clone = b.clone(op, map);
      for (OpResult r : clone->getResults())
        r.setType(pairType(r.getType()));
    }
    if (captureTile)
      captured = map.lookupOrNull(captureTile);
    return success();
  }

  void storePair(OpBuilder &b, Value v, Value mem, SmallVector<Value> idx, Value col,
                 Value rowOk, llvm::function_ref<Value(int64_t)> colOk) {
    Location loc = fn.getLoc();
    IndexMath m{b, loc};
    if (N % 2 == 0) {
      auto ifOp = b.create<scf::IfOp>(loc, m.andi(rowOk, colOk(0)), false);
      OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
      idx.push_back(col);
      auto store = ib.create<vector::StoreOp>(loc, v, mem, idx);
      store.setAlignment(2 * llvm::cast<MemRefType>(mem.getType()).getElementTypeBitWidth() / 8);
      return;
    }
    for (int64_t j = 0; j < 2; ++j) {
      auto ifOp = b.create<scf::IfOp>(loc, m.andi(rowOk, colOk(j)), false);
      OpBuilder ib = OpBuilder::atBlockBegin(&ifOp.getThenRegion().front());
      IndexMath im{ib, loc};
      Value e = ib.create<vector::ExtractOp>(loc, v, ArrayRef<int64_t>{j});
      SmallVector<Value> at(idx);
      at.push_back(im.add(col, j));
      ib.create<memref::StoreOp>(loc, e, mem, at);
    }
  }

  Value cached(DenseMap<std::pair<Operation *, int64_t>, Value> &cache,
               std::pair<Operation *, int64_t> key, llvm::function_ref<Value()> make) {
    Value &slot = cache[key];
    if (!slot)
      slot = make();
    return slot;
  }

  func::FuncOp fn;
  GemmSchedule s;
  SmallVector<tile::MatmulOp> mms;
  tile::MatmulOp mm; // the first: lhs, layouts, diagnostics
  Type elem;
  int64_t elemBytes = 2, kChunk = 8; // kChunk: elements of a 16-byte copy
  bool transA = false, transB = false;
  bool blockedB = false; // wgmma with a [K, N] rhs: 64-column blocks
  bool batched = false;   // a 3-D rhs or transposed lhs: M is the rows of one batch
  bool rhsBatched = false; // a 3-D rhs (else one rhs for every batch)
  int64_t batch = 1;
  Value batchIdx, batchRow0;
  // Causal attention: CTAs take the last row blocks first (setTile).
  bool heavyRowsFirst = false;
  int64_t heavyPeriod = 0; // (the causal mask's runs of rows)
  // Causal flash attention: the least key limit of the CTA's rows, and
  // (set while a key block every row sees all of is emitted) the mask that
  // emitFragment leaves out: its sum with the scores is the scores.
  Value causalLeastLimit, causalGreatestFirst;
  tile::CausalMaskOp unmaskedCausal;
  // runFlash: the scores' scale multiplication folded into the softmax
  // (skipped in the scores' fragments) and its factor.
  arith::MulFOp scaleFolded;
  Value scaledProduct;
  double foldedScale = 0;
  int64_t M = 0, N = 0, K = 0;
  // k steps of one split (split_k; else of the whole product).
  int64_t kSteps = 0;
  // Split k: the workspace (global pointer), this CTA's split, its first k
  // step and its tile's index (for the counters and slots); null without.
  Value workspace, splitIdx, kBase, tileIdx;
  IRMapping args;
  Value lane, m0, n0, warpM0, warpN0;
  // The warp's index among its tile's warps; ping-pong: its warpgroup (0, 1).
  Value tileWarp, consumer;
  Panel pa;
  SmallVector<Panel> pbs; // one B panel per product
  ArrayAttr tensorMaps;    // TMA: tile.tma (lhs, then each rhs)
  SmallVector<Value> mapParams; // TMA: the tensor-map kernel parameters
  DenseMap<std::pair<Operation *, int64_t>, Value> loadCache;
  // tma_store: the staging buffers' address, the output's tensor map, the
  // MMA threads' index; while a fragment is emitted, the shared address of
  // its pair (the output store goes there instead).
  Value stagingBase, outMap, mmaTid, stagedAddr;
  // tma_store of f32 units: where the fragments' output pairs are collected.
  SmallVector<Value> *stagedValues = nullptr;
  // Split k, in the epilogue of a tile's last split: a fragment's pairs
  // (each product's), summed over the splits where it is emitted.
  std::function<SmallVector<Value>(OpBuilder &, const Fragment &)> splitPairs;
  // Attention (runFlash): the program's ops emitFragment emits (empty: all
  // of them), the pair it gives tile.row_matmul's result, and the value
  // whose pair it leaves in `captured` (the scores).
  ArrayRef<Operation *> fragmentOps;
  Value rowProductPair, captureTile, captured;
  int64_t flashKeys = 64; // keys a step
};

struct DistributeGemmTilesPass
    : tilec::impl::DistributeGemmTilesBase<DistributeGemmTilesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr("tile.kernel") && fn->hasAttr("tile.gemm"))
        kernels.push_back(fn);
    if (kernels.empty())
      return;
    OpBuilder kb = OpBuilder::atBlockEnd(kernelModule(module).getBody());
    for (func::FuncOp fn : kernels) {
      SmallVector<tile::MatmulOp> mms(fn.getOps<tile::MatmulOp>());
      if (mms.empty()) {
        fn.emitOpError("is marked tile.gemm but has no tile.matmul");
        return signalPassFailure();
      }
      for (tile::MatmulOp other : mms)
        if (other.getLhs() != mms[0].getLhs() ||
            other.getTransposeA() != mms[0].getTransposeA() ||
            other.getTransposeB() != mms[0].getTransposeB() ||
            other.getRhs().getType() != mms[0].getRhs().getType()) {
          other.emitOpError("products of one GEMM kernel must share their lhs and layouts");
          return signalPassFailure();
        }
      FailureOr<GemmSchedule> s =
          fn->hasAttr("tile.attention") ? readAttentionSchedule(fn) : readGemmSchedule(fn);
      if (failed(s))
        return signalPassFailure();
      GemmDistributor distributor(fn, *s, mms);
      if (fn->hasAttr("tile.attention"))
        distributor.setFlashKeys(fn->getAttrOfType<DictionaryAttr>("tile.schedule")
                                     .getAs<IntegerAttr>("block_n")
                                     .getInt());
      if (failed(distributor.run(kb)))
        return signalPassFailure();
      fn.erase();
    }
  }
};

} // namespace

Operation *tilec::emitL2Prefetch(OpBuilder &b, Location loc, Value address) {
  Value ptr = b.create<LLVM::IntToPtrOp>(
      loc, LLVM::LLVMPointerType::get(b.getContext()),
      b.create<arith::IndexCastOp>(loc, b.getI64Type(), address).getResult());
  return NVVM::PrefetchOp::create(
      b, loc, NVVM::PrefetchCacheLevelAttr::get(b.getContext(), NVVM::PrefetchCacheLevel::L2),
      /*evictPriority=*/nullptr, ptr, /*predicate=*/Value(), /*tensormap=*/false);
}
