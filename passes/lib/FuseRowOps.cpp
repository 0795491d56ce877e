// tilec-fuse: groups graph operators into graph.fusion regions.
//
// Greedy, in topological order: each operator starts a group and absorbs the
// groups of its operands when the merged group still fits one row domain and
// the merge makes no cycle between groups. Constants are not grouped: each
// fusion clones the constants it uses, since recomputing them is free.
// Then attention's three kernels may become one (formAttention), a GEMM
// epilogue's tail that only a row kernel reads moves into it where that
// saves HBM bytes (sinkEpilogueTails), and siblings merge.
#include "tilec/Passes/Passes.h"
#include "tilec/Passes/RowDomain.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

namespace tilec {
#define GEN_PASS_DEF_FUSEROWOPS
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

struct Group {
  SmallVector<Operation *> ops;     // in program order
  std::optional<RowDomain> domain;  // nullopt: not a row kernel
  bool alive = true;
  // Attention's two products and softmax (formAttention): the domain is
  // the output's; the scores' rows are the same rows, over the keys.
  bool attention = false;
  // attention=auto's choice for the attention whose output this group
  // computes, and why (the fusion's `attention_choice`, explainFusion's).
  std::string attentionChoice;
};

int64_t byteSize(Value v) {
  auto t = llvm::cast<RankedTensorType>(v.getType());
  return t.getNumElements() * t.getElementTypeBitWidth() / 8;
}

/// Ops every kernel that uses them computes again, with no buffer between:
/// constants, and causal masks whose every user is elementwise (computed
/// from the row and column indices, in the user's own rows). A causal mask
/// with another user (a graph result, a reduction, a broadcast) is an op
/// of the plan: a kernel stores it.
bool clonedIntoUsers(Operation *op) {
  if (isa<graph::ConstantOp>(op))
    return true;
  return isa<graph::CausalMaskOp>(op) && llvm::all_of(op->getUsers(), [](Operation *u) {
           return u->hasTrait<OpTrait::Elementwise>() && isa<graph::GraphDialect>(u->getDialect());
         });
}

class FusionPlanner {
public:
  /// `attention`: the pass's option (auto, true or false).
  FusionPlanner(func::FuncOp fn, StringRef attention, bool sinkTails, int64_t siblingGemmRows)
      : attention(attention), sinkTails(sinkTails), siblingGemmRows(siblingGemmRows) {
    for (Operation &op : fn.getBody().front())
      if (isa<graph::GraphDialect>(op.getDialect()) && !clonedIntoUsers(&op))
        ops.push_back(&op);
  }

  void plan() {
    for (Operation *op : ops) {
      int g = newGroup(op);
      if (!groups[g].domain)
        continue; // not a row op: stays alone
      // A transpose of row dims may be stored by the kernel that computes
      // its operand (tryScatter). Otherwise no prologues: a GEMM reads its
      // operands from memory, and a transpose of row dims or a slice or
      // concatenation along one gathers its rows from memory.
      if (auto t = dyn_cast<graph::TransposeOp>(op); t && gathersRows(op))
        tryScatter(g, t);
      if (auto update = dyn_cast<graph::UpdateSliceOp>(op)) {
        planUpdate(g, update);
        continue;
      }
      // Gathering ops read through lone gathering operands (chainGathers).
      if (gathersRows(op) && !scatters.count(op))
        chainGathers(g, op);
      if (isa<graph::MatmulOp, graph::TransposeOp>(op) || gathersRows(op))
        continue;
      // Absorb the latest operand groups first: they are the most likely to
      // be needed to keep the merge acyclic.
      SmallVector<int> candidates;
      for (Value v : op->getOperands())
        if (int h = groupOfValue(v); h >= 0 && h != g && !llvm::is_contained(candidates, h))
          candidates.push_back(h);
      llvm::sort(candidates, [&](int a, int b) { return lastIndex(a) > lastIndex(b); });
      for (int h : candidates)
        tryMerge(g, h);
    }
    if (attention != "false")
      formAttention();
    if (sinkTails)
      sinkEpilogueTails();
    mergeSiblingGemms();
    mergeSiblingRowKernels();
  }

  /// A GEMM kernel's epilogue ops whose results only a row kernel reads
  /// move into that kernel where it then moves fewer HBM bytes: the GEMM no
  /// longer writes those results (nor the row kernel reads them), the row
  /// kernel reads their operands instead, which the GEMM kernel stores
  /// anyway (or graph inputs). The greedy plan gives a product's elementwise
  /// consumers to its epilogue even where their only reader is a reduction
  /// (which no epilogue holds): add_rms_norm after a projection wrote its
  /// sum three times (bf16 for the residual, f32 for the norm, and the f32
  /// squares for the mean) where once, in bf16, is enough: the decoder
  /// layer's o projection at 512 tokens took 40 us against the q
  /// projection's 30 (the same GEMM; run s32a). The value that crosses is
  /// then the stored bf16 sum (rounded as eager PyTorch rounds it), not
  /// its f32 form. Ops of a group's tail go first; repeated while one
  /// moves.
  void sinkEpilogueTails() {
    auto staticBytes = [](Value v) -> int64_t {
      auto t = llvm::dyn_cast<RankedTensorType>(v.getType());
      return t && t.hasStaticShape() ? byteSize(v) : -1;
    };
    for (bool moved = true; moved;) {
      moved = false;
      for (int g = 0, e = groups.size(); g < e && !moved; ++g) {
        Group &gemm = groups[g];
        if (!gemm.alive || gemm.attention ||
            !llvm::any_of(gemm.ops, llvm::IsaPred<graph::MatmulOp>))
          continue;
        for (Operation *op : llvm::reverse(gemm.ops)) {
          if (isa<graph::MatmulOp>(op) || scatters.count(op) || !isGemmEpilogueOp(op))
            continue;
          // Every reader in one other group, a row kernel.
          int h = -1;
          bool ok = !op->use_empty();
          for (Operation *u : op->getUsers()) {
            int k = groupOfOp(u);
            if (k < 0 || k == g || (h >= 0 && k != h)) {
              ok = false;
              break;
            }
            h = k;
          }
          if (!ok || !groups[h].alive || !groups[h].domain || groups[h].attention ||
              llvm::any_of(groups[h].ops, llvm::IsaPred<graph::MatmulOp>) ||
              !fits(op, *groups[h].domain))
            continue;
          // Bytes saved: the GEMM kernel's store of each result and the row
          // kernel's load (-1: a shape not static).
          int64_t saved = 0, added = 0;
          for (Value r : op->getResults()) {
            int64_t bytes = staticBytes(r);
            saved = bytes < 0 || saved < 0 ? -1 : saved + 2 * bytes;
          }
          auto readIn = [&](int k, Value v) {
            return llvm::any_of(groups[k].ops, [&](Operation *o) {
              return o != op && llvm::is_contained(o->getOperands(), v);
            });
          };
          SmallVector<Value> operands;
          for (Value v : op->getOperands())
            if (!llvm::is_contained(operands, v))
              operands.push_back(v);
          for (Value v : operands) {
            Operation *def = v.getDefiningOp();
            if (def && clonedIntoUsers(def))
              continue; // (recomputed in any kernel)
            int k = groupOfValue(v);
            if (k == g) {
              // Only values the GEMM kernel stores anyway: read by a
              // kernel other than its own (or returned).
              bool stored = llvm::any_of(v.getUsers(), [&](Operation *u) {
                return u != op && groupOfOp(u) != g;
              });
              if (!stored) {
                ok = false;
                break;
              }
            }
            if (k == h)
              continue;
            if (staticBytes(v) < 0) {
              ok = false;
              break;
            }
            if (!readIn(h, v))
              added += staticBytes(v);
            if (k >= 0 && k != g && dependsOnAny(k, {h})) {
              ok = false; // (a cycle)
              break;
            }
          }
          if (!ok || saved <= 0 || added >= saved)
            continue;
          llvm::erase(gemm.ops, op);
          groups[h].ops.push_back(op);
          llvm::sort(groups[h].ops,
                     [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
          groupOf[op] = h;
          moved = true;
          break;
        }
      }
    }
  }

  /// Attention as nn::attention builds it: scores = q @ k^T in a GEMM
  /// kernel with an elementwise epilogue (scale, mask), softmax over the
  /// keys (max, exp of the difference, sum, division) in a row kernel, a
  /// cast to v's dtype, and probabilities @ v in a GEMM kernel with its
  /// epilogue. Where nothing else reads the scores, the probabilities or
  /// anything of the first two kernels, the three become one fusion marked
  /// `attention` (flash attention: the scores and probabilities stay on
  /// chip, DistributeGemmTiles' runFlash). 16-bit q, k and v of one dtype
  /// and equal batch dims; head dims multiples of 16 up to 128 (the query
  /// fragments and the output accumulators are held in registers).
  void formAttention() {
    for (Operation *op : ops) {
      auto pv = dyn_cast<graph::MatmulOp>(op);
      if (!pv || pv.getTransposeA() || pv.getTransposeB())
        continue;
      SmallVector<Operation *> softmax;
      graph::MatmulOp qk = attentionScores(pv, softmax);
      if (!qk)
        continue;
      int g2 = groupOf.lookup(pv), g1 = groupOf.lookup(qk), gs = groupOf.lookup(softmax.front());
      if (g1 == g2 || gs == g1 || gs == g2 || !groups[g2].domain || groups[g2].attention)
        continue;
      // The softmax's kernel is the softmax alone; the scores' is a GEMM
      // kernel of one product whose values leave it only as the scores.
      if (groups[gs].ops.size() != softmax.size() ||
          !llvm::all_of(softmax, [&](Operation *o) { return groupOf.lookup(o) == gs; }))
        continue;
      Value scores = softmax.front()->getOperand(0);
      auto onlyInside = [&](int g, Value keep) {
        for (Operation *o : groups[g].ops)
          for (Value r : o->getResults())
            for (Operation *u : r.getUsers()) {
              // (A user outside every group, such as the function's return,
              // is outside g too.)
              if (groupOfOp(u) != g && r != keep)
                return false;
            }
        return true;
      };
      if (!onlyInside(g1, scores) || !onlyInside(gs, pv.getLhs()) ||
          llvm::count_if(groups[g1].ops, llvm::IsaPred<graph::MatmulOp>) != 1 ||
          llvm::count_if(groups[g2].ops, llvm::IsaPred<graph::MatmulOp>) != 1 ||
          !llvm::all_of(groups[g1].ops, [&](Operation *o) {
            return isa<graph::MatmulOp>(o) || isGemmEpilogueOp(o);
          }))
        continue;
      if (mergeMakesCycle({g2, g1, gs}))
        continue;
      if (attention == "auto") {
        auto rowsOf = [](Value v) {
          return llvm::cast<RankedTensorType>(v.getType()).getShape().drop_back().back();
        };
        int64_t rows = rowsOf(qk.getLhs()), keys = rowsOf(qk.getRhs());
        bool flash = flashMeasuredFaster(rows, keys);
        groups[g2].attentionChoice =
            (flash ? "flash by shape: " : "three kernels by shape: ") + std::to_string(rows) +
            " query rows a batch over " + std::to_string(keys) + " keys (flash from " +
            std::to_string(kFlashRows) + " rows, " + std::to_string(kFlashKeys) + " keys, " +
            std::to_string(kFlashManyKeys) + " keys over " + std::to_string(kFlashManyKeysRows) +
            " rows, or " + std::to_string(kFlashFewRowsKeys) + " keys over at most " +
            std::to_string(kFlashFewRows) + " rows)";
        if (!flash)
          continue;
      }
      RowDomain domain = *groups[g2].domain;
      absorb(g2, g1, domain);
      absorb(g2, gs, domain);
      groups[g2].attention = true;
    }
  }

  /// The scores product of attention `pv` (see formAttention), its softmax
  /// ops (reduce_max first) appended to `softmax`; null if `pv` is no such
  /// attention.
  graph::MatmulOp attentionScores(graph::MatmulOp pv, SmallVector<Operation *> &softmax) {
    auto single = [](Value v, Operation *user) {
      return llvm::all_of(v.getUsers(), [&](Operation *u) { return u == user; }) && !v.use_empty();
    };
    auto lastAxis = [](Operation *reduce) {
      auto in = llvm::cast<RankedTensorType>(reduce->getOperand(0).getType());
      return llvm::cast<IntegerAttr>(reduce->getAttr("axis")).getInt() == in.getRank() - 1;
    };
    auto cast = pv.getLhs().getDefiningOp<graph::CastOp>();
    if (!cast || !single(cast.getResult(), pv))
      return {};
    auto div = cast.getInput().getDefiningOp<graph::DivOp>();
    if (!div || !single(div.getResult(), cast))
      return {};
    auto exp = div.getLhs().getDefiningOp<graph::ExpOp>();
    auto sumB = div.getRhs().getDefiningOp<graph::BroadcastOp>();
    if (!exp || !sumB || !single(sumB.getResult(), div))
      return {};
    auto sum = sumB.getInput().getDefiningOp<graph::ReduceSumOp>();
    if (!sum || sum.getInput() != exp.getResult() || !lastAxis(sum) ||
        !single(sum.getResult(), sumB))
      return {};
    for (Operation *u : exp.getResult().getUsers())
      if (u != div && u != sum)
        return {};
    auto sub = exp.getInput().getDefiningOp<graph::SubOp>();
    if (!sub || !single(sub.getResult(), exp))
      return {};
    auto maxB = sub.getRhs().getDefiningOp<graph::BroadcastOp>();
    if (!maxB || !single(maxB.getResult(), sub))
      return {};
    auto max = maxB.getInput().getDefiningOp<graph::ReduceMaxOp>();
    Value scores = sub.getLhs();
    if (!max || max.getInput() != scores || !lastAxis(max) || !single(max.getResult(), maxB))
      return {};
    for (Operation *u : scores.getUsers())
      if (u != sub && u != max)
        return {};
    auto scoresType = llvm::cast<RankedTensorType>(scores.getType());
    if (!scoresType.getElementType().isF32() || !scores.getDefiningOp())
      return {};
    int g1 = groupOf.lookup(scores.getDefiningOp());
    graph::MatmulOp qk;
    for (Operation *o : groups[g1].ops)
      if (auto m = dyn_cast<graph::MatmulOp>(o))
        qk = m;
    if (!qk || qk.getTransposeA() || !qk.getTransposeB() ||
        !llvm::cast<RankedTensorType>(qk.getType()).getElementType().isF32())
      return {};
    auto q = llvm::cast<RankedTensorType>(qk.getLhs().getType());
    auto k = llvm::cast<RankedTensorType>(qk.getRhs().getType());
    auto v = llvm::cast<RankedTensorType>(pv.getRhs().getType());
    Type elem = v.getElementType();
    if (elem.getIntOrFloatBitWidth() != 16 || q.getElementType() != elem ||
        k.getElementType() != elem || cast.getType().getElementType() != elem)
      return {};
    if (q.getRank() != k.getRank() || v.getRank() != k.getRank() ||
        q.getShape().drop_back(2) != k.getShape().drop_back(2) ||
        v.getShape().drop_back(2) != k.getShape().drop_back(2))
      return {};
    int64_t headDim = q.getShape().back(), valueDim = v.getShape().back();
    if (ShapedType::isDynamic(headDim) || ShapedType::isDynamic(valueDim) || headDim % 16 != 0 ||
        headDim > 128 || valueDim % 16 != 0 || valueDim > 128)
      return {};
    softmax = {max, maxB, sub, exp, sum, sumB, div, cast};
    return qk;
  }

  /// attention=auto's rule by shape: one flash kernel where the query rows
  /// of a batch (grouped heads included) are at least 256, the keys at
  /// least 4096, the keys at least 2048 over 64 rows or more, or at least
  /// 512 over at most 16 rows (decode) (the DSL binds symbolic dims before
  /// compiling). Measured (docs/perf.md, 24th and 25th sessions; H100 run
  /// s25b, 8 kv heads, head dim 128): three kernels were faster at 64 rows
  /// over 528-1040 keys (flash 0.73-0.88x) and at 4 rows over 516-2052
  /// (0.76-0.91x), where the scores fit L2 and flash's CTAs are few; flash
  /// at 64 rows over 2064 keys (1.11x), 4 over 4100 (1.10x), and prefills
  /// of 256-2048 rows (1.67-2.56x). With the split keys' TMA kernel and
  /// hand-off of the 31st session (H100 run s31g): flash 1.03-1.22x at 4
  /// and 16 rows over 516-2064 keys, still 0.78-0.87x at 64 rows over
  /// 528-1040 and 1.00-1.04x over 2064. (All on sm_90a, the machine lent.)
  static constexpr int64_t kFlashRows = 256, kFlashKeys = 4096, kFlashManyKeys = 2048,
                           kFlashManyKeysRows = 64, kFlashFewRows = 16, kFlashFewRowsKeys = 512;
  static bool flashMeasuredFaster(int64_t queryRows, int64_t keys) {
    return queryRows >= kFlashRows || keys >= kFlashKeys ||
           (keys >= kFlashManyKeys && queryRows >= kFlashManyKeysRows) ||
           (keys >= kFlashFewRowsKeys && queryRows <= kFlashFewRows);
  }

  /// Two 16-bit GEMM kernels of at most 2048 rows (sibling-gemm-rows)
  /// whose products read one lhs with weights of one shape (a decoder's k
  /// and v projections; f32 FMA tiles of two products spilled 24 bytes at
  /// 64 rows) become one kernel of two products (gemmMergeAllowed's rule,
  /// as SwiGLU's gate and up), each with its own epilogue and outputs: one
  /// launch instead of two, and the lhs panel read once. Measured on the
  /// decoder layer (runs s33a, H200, and s33b, H100, two passes each): 512
  /// tokens 1.02-1.05x (k and v 512 x 1024 x 4096 in one kernel of 128 64
  /// x 64 tiles of both products, 21.9 us under Nsight Compute), 128 and
  /// 2048 tokens within the noise (0.97-1.05x); it had been 64 rows.
  void mergeSiblingGemms() {
    SmallVector<graph::MatmulOp> products;
    for (Operation *op : ops)
      if (auto mm = dyn_cast<graph::MatmulOp>(op))
        products.push_back(mm);
    for (size_t i = 0; i < products.size(); ++i)
      for (size_t j = i + 1; j < products.size(); ++j) {
        graph::MatmulOp a = products[i], b = products[j];
        int g = groupOf.lookup(a), h = groupOf.lookup(b);
        if (g == h || !groups[g].alive || !groups[h].alive || !groups[g].domain ||
            !groups[h].domain || !(*groups[g].domain == *groups[h].domain) ||
            groups[g].domain->rows() > siblingGemmRows || a.getLhs() != b.getLhs() ||
            a.getRhs().getType() != b.getRhs().getType() ||
            llvm::cast<RankedTensorType>(a.getLhs().getType()).getElementTypeBitWidth() != 16)
          continue;
        if (llvm::count_if(groups[g].ops, llvm::IsaPred<graph::MatmulOp>) != 1 ||
            llvm::count_if(groups[h].ops, llvm::IsaPred<graph::MatmulOp>) != 1)
          continue;
        tryMerge(g, h);
      }
  }

  /// Sibling row kernels: kernels of as many rows of as many columns (one
  /// domain, or one relabeling the other's rows) neither of which reads
  /// the other's results (a decoder's RoPE of k, which stores k into its
  /// cache, and v's cache update), both without reductions or products
  /// (rows that only move and map data: no reduction holds a row in
  /// registers) and of at most 2^24 elements (a 4096-token cache's
  /// appends were 2^22; a launch is a few us of their time), become one
  /// kernel of both: one launch instead of two, as sibling GEMMs (above).
  /// Larger ones stay apart: their launches are a small part of their
  /// time.
  void mergeSiblingRowKernels() {
    auto eligible = [&](int g) {
      const Group &group = groups[g];
      if (!group.alive || !group.domain || group.attention ||
          group.domain->rows() * group.domain->cols > (int64_t(1) << 24))
        return false;
      return llvm::none_of(group.ops, [&](Operation *op) {
        return isa<graph::MatmulOp, graph::ReduceSumOp, graph::ReduceMaxOp, graph::ReduceMeanOp>(
                   op) ||
               scatters.count(op);
      });
    };
    SmallVector<int> order = orderedGroups();
    for (size_t i = 0; i < order.size(); ++i)
      for (size_t j = i + 1; j < order.size(); ++j) {
        int g = order[i], h = order[j];
        // (Domains of as many rows of as many columns: one may be the
        // other's rows relabeled, as an update's [kv heads, 1, 128] and a
        // token's [1, kv heads, 128]; tryMerge takes one every op fits.)
        if (eligible(g) && eligible(h) && groups[g].domain->rows() == groups[h].domain->rows() &&
            groups[g].domain->cols == groups[h].domain->cols)
          tryMerge(g, h);
      }
  }

  /// Live groups in a topological order.
  SmallVector<int> orderedGroups() {
    SmallVector<int> order;
    DenseSet<int> done;
    std::function<void(int)> visit = [&](int g) {
      if (!done.insert(g).second)
        return;
      for (int h : directDeps(g))
        visit(h);
      order.push_back(g);
    };
    for (Operation *op : ops)
      visit(groupOf.lookup(op));
    return order;
  }

  SmallVector<Group> groups;
  DenseMap<Operation *, int> groupOf;
  SmallVector<Operation *> ops;
  // Transposes of row dims stored by their operand's kernel (tryScatter).
  DenseSet<Operation *> scatters;
  // Gathering ops read through by the gathering op that consumes them
  // (chainGathers).
  DenseSet<Operation *> chained;
  // Transposes stored through by the update_slice that consumes them
  // (planUpdate).
  DenseSet<Operation *> throughUpdate;
  StringRef attention;
  bool sinkTails;
  int64_t siblingGemmRows;

private:
  /// Whether `op` may be part of a kernel of `domain`: a scatter where its
  /// operand is the domain's own full rows, a chained gather anywhere (it is
  /// no tile of the kernel), any other op by fitsRowDomain.
  bool fits(Operation *op, const RowDomain &domain) {
    if (scatters.count(op))
      return scatterFits(op, domain);
    if (throughUpdate.count(op))
      return true; // (no tile of the kernel: its update_slice stores through it)
    if (chained.count(op))
      return true; // (read only through its consumer's gathered load)
    return fitsRowDomain(op, domain);
  }

  /// A gathering op (a transpose of row dims, a slice or concatenation
  /// along one) or an update in place whose operand is a gathering op
  /// alone in its group (with the gathering ops it chained itself) and
  /// read by nothing else: the outer op reads through both, one load at
  /// the composed row (LowerFusionToTile), so the inner needs no kernel of
  /// its own (v's transpose appended to the kv cache:
  /// update_slice(cache, transpose(v), 1, past)).
  void chainGathers(int g, Operation *op) {
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      int h = groupOfValue(v);
      if (!def || h < 0 || h == g || !gathersRows(def) || scatters.count(def) ||
          llvm::any_of(def->getUsers(), [&](Operation *u) { return u != op; }))
        continue;
      if (llvm::any_of(groups[h].ops, [&](Operation *o) {
            return o != def && !chained.count(o);
          }))
        continue;
      if (mergeMakesCycle(g, h))
        continue;
      chained.insert(def);
      absorb(g, h, *groups[g].domain);
    }
  }

  /// An update in place (update_slice) is a kernel over the rows it stores
  /// (updateRows: the update's, or a lone transpose's operand, stored at
  /// the transposed places: the transpose joins the kernel); other
  /// gathering operands are read through (chainGathers). Where a row
  /// kernel without products computes those rows, the update joins it:
  /// that kernel stores them into the buffer too (RoPE of k written into
  /// the cache heads first), one kernel and no round trip of the rows.
  void planUpdate(int g, graph::UpdateSliceOp update) {
    Value rows = updateRows(update);
    if (rows != update.getUpdate()) {
      Operation *t = update.getUpdate().getDefiningOp();
      throughUpdate.insert(t);
      absorb(g, groupOfOp(t), *groups[g].domain);
    } else {
      chainGathers(g, update);
    }
    int h = groupOfValue(rows);
    if (h < 0 || h == g || !groups[h].alive || !groups[h].domain || groups[h].attention ||
        llvm::any_of(groups[h].ops, llvm::IsaPred<graph::MatmulOp>))
      return;
    const RowDomain &domain = *groups[h].domain;
    if (!llvm::all_of(groups[g].ops, [&](Operation *op) { return fits(op, domain); }) ||
        mergeMakesCycle(g, h))
      return;
    absorb(g, h, domain);
  }

  /// Whether a consumer of `v` could gather it: a row op that reads a
  /// transpose joins its kernel, reading the operand's rows at transposed
  /// places. None can where every consumer is a GEMM, a gathering op (a
  /// concatenation along a row dim, a KV-cache append), the function's
  /// return or a view of one of those; only then is a transpose scattered
  /// (tryScatter). A scatter beside a gathering consumer would write the
  /// transposed rows as well as any operand rows still needed, and read
  /// them back.
  static bool consumersCanGather(Value v) {
    for (Operation *u : v.getUsers()) {
      if (auto view = dyn_cast<graph::ReshapeOp>(u)) {
        if (consumersCanGather(view.getResult()))
          return true;
        continue;
      }
      if (!isa<graph::MatmulOp, func::ReturnOp>(u) && !gathersRows(u))
        return true;
    }
    return false;
  }

  /// A transpose of row dims whose operand a row kernel or a GEMM's
  /// epilogue computes, as full rows of that kernel's domain (its dims, or
  /// relabeled), and whose consumers cannot gather it (consumersCanGather):
  /// that kernel stores the operand's rows at their transposed places (a
  /// permuted store; LowerFusionToTile), so the transpose needs no kernel
  /// of its own and no second pass over memory (rope's q, k moved heads
  /// first for attention). Its result is never read inside the kernel:
  /// consumers read it from memory (tryMerge keeps them out).
  void tryScatter(int g, graph::TransposeOp t) {
    // (A gathering operand is read through instead: chainGathers.)
    Operation *def = t.getInput().getDefiningOp();
    if (consumersCanGather(t.getResult()) || (def && gathersRows(def)))
      return;
    int h = groupOfValue(t.getInput());
    if (h < 0 || h == g || !groups[h].domain || !scatterFits(t, *groups[h].domain))
      return;
    if (mergeMakesCycle(g, h))
      return;
    scatters.insert(t);
    absorb(g, h, *groups[h].domain);
  }

  /// Whether a group outside g and h both feeds their merge and depends on
  /// it (the merge would make a cycle).
  bool mergeMakesCycle(int g, int h) { return mergeMakesCycle({g, h}); }
  bool mergeMakesCycle(ArrayRef<int> members) {
    DenseSet<int> merged(members.begin(), members.end());
    for (int m : members)
      for (int dep : directDeps(m))
        if (!merged.count(dep) && dependsOnAny(dep, merged))
          return true;
    return false;
  }

  /// Moves h's ops into g (kept in program order), g taking `domain`.
  void absorb(int g, int h, RowDomain domain) {
    for (Operation *op : groups[h].ops)
      groupOf[op] = g;
    groups[g].ops.append(groups[h].ops);
    llvm::sort(groups[g].ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    groups[g].domain = domain;
    if (groups[g].attentionChoice.empty())
      groups[g].attentionChoice = std::move(groups[h].attentionChoice);
    groups[h].alive = false;
    groups[h].ops.clear();
  }
  int newGroup(Operation *op) {
    Group g;
    g.ops.push_back(op);
    g.domain = naturalRowDomain(op);
    if (g.domain && !fitsRowDomain(op, *g.domain))
      g.domain.reset();
    groups.push_back(std::move(g));
    int id = groups.size() - 1;
    groupOf[op] = id;
    return id;
  }

  /// The group of `op`, -1 for an op in none (the function's return).
  int groupOfOp(Operation *op) {
    auto it = groupOf.find(op);
    return it == groupOf.end() ? -1 : it->second;
  }
  int groupOfValue(Value v) {
    Operation *def = v.getDefiningOp();
    return def ? groupOfOp(def) : -1;
  }

  int64_t lastIndex(int g) {
    Operation *last = groups[g].ops.back();
    return llvm::find(ops, last) - ops.begin();
  }

  SmallVector<int> directDeps(int g) {
    SmallVector<int> deps;
    for (Operation *op : groups[g].ops)
      for (Value v : op->getOperands())
        if (int h = groupOfValue(v); h >= 0 && h != g && !llvm::is_contained(deps, h))
          deps.push_back(h);
    return deps;
  }

  bool dependsOnAny(int from, const DenseSet<int> &targets) {
    SmallVector<int> stack{from};
    DenseSet<int> seen{from};
    while (!stack.empty()) {
      int g = stack.pop_back_val();
      for (int h : directDeps(g)) {
        if (targets.count(h))
          return true;
        if (seen.insert(h).second)
          stack.push_back(h);
      }
    }
    return false;
  }

  /// A GEMM kernel holds one matmul (or two of one lhs), computed first from
  /// fusion inputs, and only epilogue ops (elementwise math on the products'
  /// rows) after it.
  bool gemmMergeAllowed(int g, int h, const RowDomain &domain) {
    graph::MatmulOp mm;
    int count = 0;
    for (int k : {g, h})
      for (Operation *op : groups[k].ops)
        if (auto m = dyn_cast<graph::MatmulOp>(op)) {
          mm = m;
          ++count;
        }
    if (count == 0)
      return true;
    // Two products may share a kernel when they read one lhs in one layout
    // (silu(x @ Wg) * (x @ Wu)): the lhs panel is loaded once for both.
    SmallVector<graph::MatmulOp> products;
    for (int k : {g, h})
      for (Operation *op : groups[k].ops)
        if (auto m = dyn_cast<graph::MatmulOp>(op))
          products.push_back(m);
    if (count > 2 || !(naturalRowDomain(mm) == domain))
      return false;
    if (count == 2) {
      graph::MatmulOp a = products[0], b = products[1];
      if (a.getLhs() != b.getLhs() || a.getTransposeA() != b.getTransposeA() ||
          a.getTransposeB() != b.getTransposeB() || a.getRhs().getType() != b.getRhs().getType() ||
          a.getType() != b.getType())
        return false;
    }
    for (int k : {g, h})
      for (Operation *op : groups[k].ops) {
        if (!isa<graph::MatmulOp>(op) && !isGemmEpilogueOp(op) && !scatters.count(op))
          return false;
        for (graph::MatmulOp p : products)
          for (Value v : p->getOperands()) {
            if (v.getDefiningOp() == op)
              return false; // a prologue
            // The kernel reads the operands as GEMM panels; the epilogue reads
            // rows of [M, N]: one buffer cannot be both (x @ W + W).
            if (!isa<graph::MatmulOp>(op) && llvm::is_contained(op->getOperands(), v))
              return false;
          }
      }
    return true;
  }

  void tryMerge(int g, int h) {
    if (!groups[h].domain)
      return;
    // Pick the domain with the widest rows that every op of both groups fits.
    SmallVector<RowDomain> choices{*groups[g].domain, *groups[h].domain};
    llvm::stable_sort(choices, [](const RowDomain &a, const RowDomain &b) {
      return a.cols > b.cols;
    });
    std::optional<RowDomain> chosen;
    for (const RowDomain &d : choices) {
      auto fitsD = [&](Operation *op) { return fits(op, d); };
      if (llvm::all_of(groups[g].ops, fitsD) && llvm::all_of(groups[h].ops, fitsD)) {
        chosen = d;
        break;
      }
    }
    if (!chosen)
      return;
    if (!gemmMergeAllowed(g, h, *chosen))
      return;
    // Gathered rows (a transpose of row dims, a slice along one) come from
    // memory: their operand is made by another kernel (or is a graph input).
    // A scatter's result is stored permuted: nothing in its kernel reads it.
    // An update in place stores its rows into its buffer: nothing in its
    // kernel reads the result either. (Its rows, and a transpose it stores
    // through, may be computed in the kernel: no other row is read.)
    for (int k : {g, h})
      for (Operation *op : groups[k].ops) {
        if (gathersRows(op) && !scatters.count(op) && !throughUpdate.count(op))
          for (Value in : op->getOperands())
            if (int p = groupOfValue(in); (p == g || p == h) && !chained.count(in.getDefiningOp()))
              return;
        for (Value in : op->getOperands())
          if (Operation *def = in.getDefiningOp();
              def && (scatters.count(def) || isa<graph::UpdateSliceOp>(def)))
            if (int p = groupOfValue(in); p == g || p == h)
              return;
      }
    if (mergeMakesCycle(g, h))
      return;
    absorb(g, h, *chosen);
  }
};

struct FuseRowOpsPass : tilec::impl::FuseRowOpsBase<FuseRowOpsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (attention != "auto" && attention != "true" && attention != "false") {
      getOperation().emitError() << "attention must be auto, true or false, got '"
                                 << attention << "'";
      return signalPassFailure();
    }
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (failed(fuse(fn)))
        return signalPassFailure();
  }

  LogicalResult fuse(func::FuncOp fn) {
    if (fn.getBody().empty() || !fn.getOps<graph::FusionOp>().empty())
      return success(); // nothing to do, or already fused
    // Drop dead graph ops first (users before producers), so no fusion is
    // built for, or keeps an output alive because of, code nobody reads.
    SmallVector<Operation *> graphOps;
    for (Operation &op : fn.getBody().front())
      if (isa<graph::GraphDialect>(op.getDialect()))
        graphOps.push_back(&op);
    for (Operation *op : llvm::reverse(graphOps))
      if (op->use_empty())
        op->erase();
    FusionPlanner planner(fn, attention.getValue(), sinkTails, siblingGemmRows);
    if (planner.ops.empty())
      return success();
    planner.plan();
    Operation *terminator = fn.getBody().front().getTerminator();
    OpBuilder b(terminator);
    for (int g : planner.orderedGroups())
      buildFusion(b, planner, planner.groups[g]);
    // Erase the originals, users first.
    for (Operation *op : llvm::reverse(planner.ops))
      op->erase();
    for (Operation &op : llvm::make_early_inc_range(fn.getBody().front()))
      if (isa<graph::ConstantOp, graph::CausalMaskOp>(op) && op.use_empty())
        op.erase();
    return success();
  }

  void buildFusion(OpBuilder &b, FusionPlanner &planner, Group &group) {
    DenseSet<Operation *> members(group.ops.begin(), group.ops.end());
    SmallVector<Value> inputs;
    SmallVector<Value> outputs;
    int64_t saved = 0;
    for (Operation *op : group.ops) {
      for (Value v : op->getOperands()) {
        Operation *def = v.getDefiningOp();
        if ((def && (members.count(def) || clonedIntoUsers(def))) ||
            llvm::is_contained(inputs, v))
          continue;
        inputs.push_back(v);
      }
    }
    for (Value in : inputs) {
      // Unfused, every consumer reads the input; fused, it is read once.
      DenseSet<Operation *> readersSet;
      for (Operation *u : in.getUsers())
        if (members.count(u))
          readersSet.insert(u);
      int64_t readers = readersSet.size();
      saved += byteSize(in) * (readers - 1);
    }
    for (Operation *op : group.ops) {
      for (Value r : op->getResults()) {
        DenseSet<Operation *> insideUsers;
        bool outside = false;
        for (Operation *u : r.getUsers()) {
          if (members.count(u))
            insideUsers.insert(u);
          else
            outside = true;
        }
        int64_t inside = insideUsers.size();
        if (outside)
          outputs.push_back(r);
        // Unfused: one write plus one read per consumer inside the group.
        saved += byteSize(r) * (inside + (outside ? 0 : 1));
      }
    }

    // A reshape is a view of its source's buffer, not a kernel's work. A
    // member reshape whose result leaves the fusion would be a second copy
    // of its source's rows: the fusion yields the source once, and the
    // reshape becomes a host op after it (a view of the fusion's result, or
    // of the fusion's input when the source is one). A group that is only
    // such views (a reshape alone, which no kernel takes) builds no fusion.
    SmallVector<std::pair<Value, Value>> views; // (reshape result, its source)
    auto sourceOf = [&](Value v) {
      while (auto view = v.getDefiningOp<graph::ReshapeOp>()) {
        if (!members.count(view))
          break;
        v = view.getInput();
      }
      return v;
    };
    SmallVector<Value> yieldedValues;
    for (Value out : outputs) {
      Value source = sourceOf(out);
      if (source != out)
        views.emplace_back(out, source);
      bool fromInside = source.getDefiningOp() && members.count(source.getDefiningOp());
      if (fromInside && !llvm::is_contained(yieldedValues, source))
        yieldedValues.push_back(source);
    }
    outputs = yieldedValues;
    auto makeViews = [&](graph::FusionOp fusion) {
      for (auto [out, source] : views) {
        auto it = llvm::find(outputs, source);
        Value base = it != outputs.end() ? fusion.getResult(it - outputs.begin()) : source;
        Value view = b.create<graph::ReshapeOp>(out.getLoc(), out.getType(), base);
        out.replaceUsesWithIf(view, [&](OpOperand &use) {
          return !members.count(use.getOwner()) && use.getOwner() != fusion &&
                 use.getOwner() != view.getDefiningOp();
        });
      }
    };
    if (outputs.empty())
      return makeViews(nullptr);

    auto fusion = b.create<graph::FusionOp>(
        group.ops.front()->getLoc(), TypeRange(ValueRange(outputs)), inputs);
    Block *body = new Block();
    fusion.getBody().push_back(body);
    IRMapping map;
    for (Value in : inputs)
      map.map(in, body->addArgument(in.getType(), in.getLoc()));
    OpBuilder inner = OpBuilder::atBlockEnd(body);
    for (Operation *op : group.ops) {
      for (Value v : op->getOperands())
        if (Operation *c = v.getDefiningOp(); c && clonedIntoUsers(c) && !map.contains(v))
          map.map(v, inner.clone(*c)->getResult(0));
      inner.clone(*op, map);
    }
    SmallVector<Value> yielded;
    for (Value out : outputs)
      yielded.push_back(map.lookup(out));
    inner.create<graph::YieldOp>(fusion.getLoc(), yielded);
    // (The views first: their results' outside uses move to the new host
    // reshapes before the sources' outside uses move to the fusion.)
    makeViews(fusion);
    for (auto [out, res] : llvm::zip(outputs, fusion.getResults()))
      out.replaceUsesWithIf(res, [&](OpOperand &use) {
        return !members.count(use.getOwner()) && use.getOwner() != fusion;
      });

    Builder attrs(fusion.getContext());
    if (group.domain)
      fusion->setAttr("domain", attrs.getDenseI64ArrayAttr(group.domain->fullShape()));
    fusion->setAttr("fused_ops", attrs.getI64IntegerAttr(group.ops.size()));
    if (group.attention)
      fusion->setAttr("attention", attrs.getUnitAttr());
    if (!group.attentionChoice.empty())
      fusion->setAttr("attention_choice", attrs.getStringAttr(group.attentionChoice));
    fusion->setAttr("hbm_bytes_saved", attrs.getI64IntegerAttr(saved));
  }
};

} // namespace
