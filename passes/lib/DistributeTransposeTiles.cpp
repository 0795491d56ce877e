// tilec-distribute-transpose-tiles: a swap of dims K and L of an input
// viewed as [O, K, M, L] (tile.transpose), given tiles by the scheduler
// (tile.transpose_tiles), as a gpu.func that moves the tile through shared
// memory.
//
// One CTA of 256 threads (a warp per `ty` in 0..7, lane `tx`) takes one
// tile of tile_k x tile_l elements of one (o, m) slab: CTA b is tile
// (b % nL) along L, (b / nL % nK) along K, slab b / (nL nK). Threads move
// 32-bit words of p elements (p = 2 for f16/bf16, 1 for f32):
//
//   load   word lw = tx + 32 h along L of input rows k = k0 + p kw + e'
//          (kw = ty + 8 j, e' < p): a warp reads 32 consecutive words of
//          one input row, all of a thread's loads are issued before any is
//          used;
//   pair   (p = 2) the two rows' words (a0 a1), (b0 b1) become (a0 b0) and
//          (a1 b1): output rows p lw and p lw + 1 (a byte permute each);
//   stage  output row r = p lw + e, word kw at shared column kw ^ (r / p mod
//          32): an XOR swizzle, so a warp's 32 words (tx varies, kw fixed)
//          land in 32 banks;
//   store  after a barrier, output row r = ty + 8 i, word tx (read at
//          column tx ^ (r / p mod 32): 32 banks again), written to
//          out[(o L + l0 + r) M + m, k0 + p tx]: a warp writes 32
//          consecutive words of one output row.
//
// Tiles wholly inside K and L run unmasked; the last ones mask each word
// (K and L are multiples of p, so a word is wholly in or out).
//
// With vector_elements = v in the schedule (16-byte vectors: v = 8 for
// f16/bf16, 4 for f32; K and L multiples of v) the tile is 16 v x 16 v
// elements and each thread moves a v x v block:
//
//   load   lane chunk lc = tid % 16 along L, group kg = tid / 16 along K:
//          v 16-byte loads, input rows k0 + v kg + e (e < v) at columns
//          l0 + v lc ..; a warp reads 2 rows x 256 contiguous bytes an
//          instruction, all v loads issued before any is used;
//   swap   the block transposed in registers (f32: register renaming;
//          16-bit: byte permutes), vector j = output row l0 + v lc + j at
//          columns k0 + v kg ..;
//   stage  output row r = v lc + j, 16-byte chunk kg at shared chunk
//          kg ^ (r / v mod 8): eight threads of a quarter warp (lc
//          consecutive, kg fixed) land in 8 distinct bank groups;
//   store  after a barrier, output row r = tid / 16 + 16 i, chunk
//          c = tid % 16 (read at c ^ (r / v mod 8)), written at
//          out[(o L + l0 + r) M + m, k0 + v c]: a warp writes 2 rows x 256
//          contiguous bytes.
#include "tilec/Passes/Passes.h"

namespace tilec {
#define GEN_PASS_DEF_DISTRIBUTETRANSPOSETILES
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

constexpr int64_t kWarp = 32;
constexpr int64_t kWarps = 8;
// 16-byte chunks a tile row (vector_elements tiles), and the 16-byte bank
// groups a shared-memory wavefront of 128 bytes spans.
constexpr int64_t kChunks = 16;
constexpr int64_t kBankGroups = 8;

class TransposeTileLowering {
public:
  TransposeTileLowering(func::FuncOp fn) : fn(fn) {}

  LogicalResult run(OpBuilder &kb) {
    auto dims = fn->getAttrOfType<DenseI64ArrayAttr>(kTransposeAttr);
    auto schedule = fn->getAttrOfType<DictionaryAttr>("tile.schedule");
    if (!dims || dims.size() != 4 || !schedule || fn.getNumArguments() != 2)
      return fn.emitOpError("transpose tiles need tile.transpose [O, K, M, L], a schedule "
                            "and one input and one output");
    auto get = [&](StringRef key) -> int64_t {
      auto a = schedule.getAs<IntegerAttr>(key);
      return a ? a.getInt() : 0;
    };
    o = dims[0], k = dims[1], m = dims[2], l = dims[3];
    tileK = get("tile_k"), tileL = get("tile_l"), p = get("word_elements");
    v = get("vector_elements");
    int64_t threads = get("threads");
    in = llvm::cast<MemRefType>(fn.getArgumentTypes()[0]);
    auto out = llvm::cast<MemRefType>(fn.getArgumentTypes()[1]);
    elem = in.getElementType();
    int64_t bits = elem.getIntOrFloatBitWidth();
    bool shapesOk = threads == kWarp * kWarps && in.getRank() == 3 && in.getDimSize(1) == k &&
                    in.getDimSize(2) == m * l && out.getRank() == 2 && out.getDimSize(1) == k;
    bool words = v == 0 && (p == 1 || p == 2) && p * bits == 32 && tileK == kWarp * p &&
                 tileL % (kWarp * p) == 0 && tileL % kWarps == 0 && k % p == 0 && l % p == 0;
    bool blocks = p == 0 && (v == 4 || v == 8) && v * bits == 128 && tileK == kChunks * v &&
                  tileL == kChunks * v && k % v == 0 && l % v == 0;
    if (!shapesOk || words == blocks)
      return fn.emitOpError("transpose tiles: unsupported schedule ")
             << schedule << " for [O, K, M, L] = " << dims << " and " << in;
    nK = llvm::divideCeil(k, tileK);
    nL = llvm::divideCeil(l, tileL);

    MLIRContext *ctx = fn.getContext();
    auto staged = MemRefType::get({tileL, blocks ? tileK : kWarp * p}, elem, AffineMap(),
                                  gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
    auto gfn = kb.create<gpu::GPUFuncOp>(fn.getLoc(), fn.getName(), fn.getFunctionType(),
                                         TypeRange{staged}, TypeRange());
    gfn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), kb.getUnitAttr());
    gfn.setKnownBlockSizeAttr(kb.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
    for (StringRef attr : {"tile.schedule", "tile.domain"})
      gfn->setAttr(attr, fn->getAttr(attr));
    Block &entry = gfn.getBody().front();
    src = entry.getArgument(0);
    dst = entry.getArgument(1);
    smem = gfn.getWorkgroupAttributions().front();
    b = std::make_unique<OpBuilder>(OpBuilder::atBlockEnd(&entry));

    tid = b->create<gpu::ThreadIdOp>(loc(), gpu::Dimension::x);
    Value bid = b->create<gpu::BlockIdOp>(loc(), gpu::Dimension::x);
    tx = b->create<arith::RemUIOp>(loc(), tid, index(kWarp));
    ty = b->create<arith::DivUIOp>(loc(), tid, index(kWarp));
    Value lt = b->create<arith::RemUIOp>(loc(), bid, index(nL));
    Value rest = b->create<arith::DivUIOp>(loc(), bid, index(nL));
    Value kt = b->create<arith::RemUIOp>(loc(), rest, index(nK));
    Value slab = b->create<arith::DivUIOp>(loc(), rest, index(nK));
    slabO = b->create<arith::DivUIOp>(loc(), slab, index(m));
    slabM = b->create<arith::RemUIOp>(loc(), slab, index(m));
    k0 = mul(kt, tileK);
    l0 = mul(lt, tileL);
    // Whole tiles (every CTA but the last along K or L) run unmasked.
    bool partialK = k % tileK != 0, partialL = l % tileL != 0;
    auto emitTile = [&](bool masked) {
      if (blocks)
        emitBlockTile(masked);
      else
        emitWordTile(masked);
    };
    if (!partialK && !partialL) {
      emitTile(/*masked=*/false);
    } else {
      Value whole = b->create<arith::ConstantIntOp>(loc(), 1, 1);
      if (partialK)
        whole = andI1(whole, b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::ult, kt,
                                                      index(nK - 1)));
      if (partialL)
        whole = andI1(whole, b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::ult, lt,
                                                      index(nL - 1)));
      auto ifOp = b->create<scf::IfOp>(loc(), whole, /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g(*b);
        b->setInsertionPointToStart(ifOp.thenBlock());
        emitTile(false);
        b->setInsertionPointToStart(ifOp.elseBlock());
        emitTile(true);
      }
    }
    b->create<gpu::ReturnOp>(loc());
    return success();
  }

private:
  Location loc() { return fn.getLoc(); }
  Value index(int64_t v) { return b->create<arith::ConstantIndexOp>(loc(), v); }
  Value add(Value x, int64_t v) {
    return v == 0 ? x : b->create<arith::AddIOp>(loc(), x, index(v)).getResult();
  }
  Value add(Value x, Value y) { return b->create<arith::AddIOp>(loc(), x, y); }
  Value mul(Value x, int64_t v) {
    return v == 1 ? x : b->create<arith::MulIOp>(loc(), x, index(v)).getResult();
  }
  Value andI1(Value x, Value y) { return b->create<arith::AndIOp>(loc(), x, y); }
  Value below(Value x, int64_t bound) {
    return b->create<arith::CmpIOp>(loc(), arith::CmpIPredicate::ult, x, index(bound));
  }
  VectorType word() { return VectorType::get({p}, elem); }
  VectorType chunk() { return VectorType::get({v}, elem); }

  /// `then` (of type `type`) under `cond` (masked tiles), else zero.
  Value guardedLoad(Value cond, llvm::function_ref<Value()> then) {
    return guardedLoad(cond, word(), then);
  }
  Value guardedLoad(Value cond, VectorType type, llvm::function_ref<Value()> then) {
    if (!cond)
      return then();
    auto ifOp = b->create<scf::IfOp>(loc(), TypeRange{type}, cond, true, true);
    {
      OpBuilder::InsertionGuard g(*b);
      b->setInsertionPointToStart(ifOp.thenBlock());
      b->create<scf::YieldOp>(loc(), then());
      b->setInsertionPointToStart(ifOp.elseBlock());
      Value zero = b->create<arith::ConstantOp>(
          loc(), type, DenseElementsAttr::get(type, b->getZeroAttr(elem)));
      b->create<scf::YieldOp>(loc(), zero);
    }
    return ifOp.getResult(0);
  }

  void guardedStore(Value cond, llvm::function_ref<void()> then) {
    if (!cond)
      return then();
    auto ifOp = b->create<scf::IfOp>(loc(), cond, false);
    OpBuilder::InsertionGuard g(*b);
    b->setInsertionPointToStart(ifOp.thenBlock());
    then();
  }

  void emitWordTile(bool masked) {
    const int64_t wordBytes = 4;
    // Load: every word of the thread's (h, j, e') first.
    SmallVector<SmallVector<Value>> words; // [h * 4 + j][e']
    SmallVector<std::pair<Value, Value>> slots; // (lw, kw) of each group
    Value colBase = mul(slabM, l);
    for (int64_t h = 0; h < tileL / (kWarp * p); ++h) {
      Value lw = add(tx, kWarp * h);
      Value lcol = add(l0, mul(lw, p));
      Value lok = masked ? below(lcol, l) : Value();
      for (int64_t j = 0; j < kWarp / kWarps; ++j) {
        Value kw = add(ty, kWarps * j);
        SmallVector<Value> group;
        for (int64_t e = 0; e < p; ++e) {
          Value kr = add(add(k0, mul(kw, p)), e);
          Value ok = masked ? andI1(lok, below(kr, k)) : Value();
          group.push_back(guardedLoad(ok, [&]() -> Value {
            auto v = b->create<vector::LoadOp>(loc(), word(), src,
                                               ValueRange{slabO, kr, add(colBase, lcol)});
            v.setAlignment(wordBytes);
            return v;
          }));
        }
        words.push_back(std::move(group));
        slots.push_back({lw, kw});
      }
    }
    // Pair and stage: output row p lw + e, word kw at column kw ^ tx.
    for (auto [group, slot] : llvm::zip(words, slots)) {
      auto [lw, kw] = slot;
      Value col = mul(b->create<arith::XOrIOp>(loc(), kw, tx), p);
      for (int64_t e = 0; e < p; ++e) {
        Value w = group[0];
        if (p == 2)
          w = b->create<vector::ShuffleOp>(loc(), group[0], group[1],
                                           ArrayRef<int64_t>{e, 2 + e});
        auto st = b->create<vector::StoreOp>(loc(), w, smem, ValueRange{add(mul(lw, p), e), col});
        st.setAlignment(wordBytes);
      }
    }
    b->create<gpu::BarrierOp>(loc());
    // Store: output row r = ty + 8 i, word tx.
    Value kcol = add(k0, mul(tx, p));
    Value kok = masked ? below(kcol, k) : Value();
    for (int64_t i = 0; i < tileL / kWarps; ++i) {
      Value r = add(ty, kWarps * i);
      Value key = b->create<arith::RemUIOp>(
          loc(), p == 1 ? r : b->create<arith::DivUIOp>(loc(), r, index(p)).getResult(),
          index(kWarp));
      Value col = mul(b->create<arith::XOrIOp>(loc(), tx, key), p);
      auto w = b->create<vector::LoadOp>(loc(), word(), smem, ValueRange{r, col});
      w.setAlignment(wordBytes);
      storeOutput(w, r, kcol, masked ? kok : Value(), wordBytes);
    }
  }

  /// `w` at column kcol of the tile's output row r, under kcol < K (`kok`,
  /// masked tiles only) and l0 + r < L.
  void storeOutput(Value w, Value r, Value kcol, Value kok, int64_t alignment) {
    Value lrow = add(l0, r);
    Value ok = kok ? andI1(kok, below(lrow, l)) : Value();
    guardedStore(ok, [&] {
      // Output row (o L + l) M + m.
      Value outRow = add(mul(add(mul(slabO, l), lrow), m), slabM);
      auto st = b->create<vector::StoreOp>(loc(), w, dst, ValueRange{outRow, kcol});
      st.setAlignment(alignment);
    });
  }

  /// 16-byte vectors, a v x v block a thread (vector_elements = v).
  void emitBlockTile(bool masked) {
    const int64_t chunkBytes = 16;
    Value lc = b->create<arith::RemUIOp>(loc(), tid, index(kChunks));
    Value kg = b->create<arith::DivUIOp>(loc(), tid, index(kChunks));
    // Load: v input rows of the thread's group, v elements each.
    Value lcol = add(l0, mul(lc, v));
    Value lok = masked ? below(lcol, l) : Value();
    Value col = add(mul(slabM, l), lcol);
    SmallVector<Value> rows;
    for (int64_t e = 0; e < v; ++e) {
      Value kr = add(add(k0, mul(kg, v)), e);
      Value ok = masked ? andI1(lok, below(kr, k)) : Value();
      rows.push_back(guardedLoad(ok, chunk(), [&]() -> Value {
        auto ld = b->create<vector::LoadOp>(loc(), chunk(), src, ValueRange{slabO, kr, col});
        ld.setAlignment(chunkBytes);
        return ld;
      }));
    }
    // Swap and stage: column j of the block is output row v lc + j, its
    // chunk kg at shared chunk kg ^ lc (r / v = lc), mod 8 in the XOR.
    Value swizzled = mul(b->create<arith::XOrIOp>(
                             loc(), kg, b->create<arith::RemUIOp>(loc(), lc, index(kBankGroups))),
                         v);
    for (int64_t j = 0; j < v; ++j) {
      SmallVector<Value> column;
      for (int64_t e = 0; e < v; ++e)
        column.push_back(b->create<vector::ExtractOp>(loc(), rows[e], ArrayRef<int64_t>{j}));
      Value vec = b->create<vector::FromElementsOp>(loc(), chunk(), column);
      auto st = b->create<vector::StoreOp>(loc(), vec, smem, ValueRange{add(mul(lc, v), j), swizzled});
      st.setAlignment(chunkBytes);
    }
    b->create<gpu::BarrierOp>(loc());
    // Store: output row r = tid / 16 + 16 i, chunk c = tid % 16.
    Value c = lc;
    Value kcol = add(k0, mul(c, v));
    Value kok = masked ? below(kcol, k) : Value();
    for (int64_t i = 0; i < v; ++i) {
      Value r = add(kg, kChunks * i);
      Value key = b->create<arith::RemUIOp>(
          loc(), b->create<arith::DivUIOp>(loc(), r, index(v)), index(kBankGroups));
      Value at = mul(b->create<arith::XOrIOp>(loc(), c, key), v);
      auto w = b->create<vector::LoadOp>(loc(), chunk(), smem, ValueRange{r, at});
      w.setAlignment(chunkBytes);
      storeOutput(w, r, kcol, masked ? kok : Value(), chunkBytes);
    }
  }

  func::FuncOp fn;
  std::unique_ptr<OpBuilder> b;
  MemRefType in;
  Type elem;
  int64_t o = 1, k = 1, m = 1, l = 1, tileK = 0, tileL = 0, p = 1, v = 0, nK = 1, nL = 1;
  Value src, dst, smem, tid, tx, ty, slabO, slabM, k0, l0;
};

struct DistributeTransposeTilesPass
    : tilec::impl::DistributeTransposeTilesBase<DistributeTransposeTilesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr("tile.kernel") && fn->hasAttr(kTransposeTilesAttr))
        kernels.push_back(fn);
    if (kernels.empty())
      return;
    OpBuilder kb = OpBuilder::atBlockEnd(kernelModule(module).getBody());
    for (func::FuncOp fn : kernels) {
      TransposeTileLowering lowering(fn);
      if (failed(lowering.run(kb)))
        return signalPassFailure();
      fn.erase();
    }
  }
};

} // namespace
