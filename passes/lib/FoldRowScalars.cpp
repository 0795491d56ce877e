// tilec-fold-row-scalars: a row's scalars applied once, not once an element.
//
// A row kernel applies its reductions' results to every element: softmax's
// e / s and exp(x - max), layer_norm's (x - mean) * rstd. Done as written
// each costs an instruction more per element than it needs (or a MUFU
// reciprocal where an FMUL does), and these kernels issue about 17
// instructions an element against a budget set by HBM (docs/perf.md: the
// extra issue is what separates layer_norm from rms_norm). Under fast math
// the row's part can be computed once, in the scalars:
//
//   (a) x / splat(s)              ->  x * splat(1 / s)
//   (b) (x - splat(m)) * splat(r) ->  x * splat(r) + splat(-(m r))        one FMA
//   (c) exp(x - splat(m))         ->  exp2(x * splat(L) + splat(-(m L)))  one FMA, ex2
//       (L = log2 e)
//   (d) exp2(y) / splat(s)        ->  exp2(y - splat(log2 s)), and with y from (c)
//       exp2(x * splat(L) + splat(o)) / splat(s) -> exp2(x * splat(L) + splat(o - log2 s))
//   (e) a reduce_max_sum_exp whose subtraction contracts is marked kFoldedShiftAttr:
//       the row distribution takes its exps as exp2(x L - m L), one FMA an element
//
// Softmax's second pass over a row in registers is then one FMA and one ex2
// an element (from subtract, multiply by L, ex2, multiply by 1 / s), its
// first pass one FMA, ex2 and add (from subtract, multiply, ex2, add).
//
// (a) needs the division's `afn`: fast math's division is div.approx.f32,
// which the PTX ISA defines as a * (1 / b) with rcp.approx, so one
// reciprocal a row loses nothing. (b) and (c) re-associate, so they need
// the `contract` that fast math (without round-every-op) puts on the
// subtraction and the multiply: m r (or m L) is rounded where x - m was
// exact or nearly, an absolute error of about 2^-24 |m r| instead of
// 2^-24 |(x - m) r|, relative 2^-24 |m| / |x - m|. That is below the
// rounding of an f16/bf16 result (2^-11, 2^-8) while |m| < 2^13 |x - m|,
// so by default (`all` false) they apply only where everything that
// depends on the rewritten value ends in a conversion to a 16-bit type;
// f32 results keep the exact forms (the GPU tests hold them to 1e-5 of an
// f64 reference on rows of mean 1000 and deviation 1). (d) and (e) likewise:
// log2 s is rounded (|log2 s| <= 17 for rows of 128k), an absolute error of
// about 2^-19 in the exponent, relative 2^-19 in the result. The folded
// forms overflow where |m L| does (|m| > 2^127 / L, about 1.2e38): such a
// row gives NaN where the exact form gives its softmax.
#include "tilec/Passes/Passes.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

namespace tilec {
#define GEN_PASS_DEF_FOLDROWSCALARS
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

using tilec::tile::SplatOp;

bool hasFlags(Operation *op, arith::FastMathFlags flags) {
  auto attr = op->getAttrOfType<arith::FastMathFlagsAttr>("fastmath");
  return attr && arith::bitEnumContainsAll(attr.getValue(), flags);
}

/// The scalar that `v` splats over the row, or nullptr.
Value splatted(Value v) {
  auto splat = v.getDefiningOp<SplatOp>();
  return splat ? splat.getInput() : Value();
}

/// Whether everything `v` reaches (through arithmetic, reductions, splats)
/// ends in a conversion to a 16-bit float: nothing the kernel writes
/// depends on `v` at more than 16-bit precision.
bool onlyFeeds16BitResults(Value v) {
  SmallVector<Value> work{v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (!seen.insert(user).second)
        continue;
      if (auto trunc = dyn_cast<arith::TruncFOp>(user)) {
        if (getElementTypeOrSelf(trunc.getType()).getIntOrFloatBitWidth() == 16)
          continue;
        return false;
      }
      bool passesOn = isa<arith::ArithDialect, math::MathDialect>(user->getDialect()) ||
                      isa<SplatOp>(user) || tilec::isRowReduction(user);
      if (!passesOn || user->getNumResults() == 0)
        return false;
      for (Value result : user->getResults()) {
        if (!isa<FloatType>(getElementTypeOrSelf(result.getType())))
          return false;
        work.push_back(result);
      }
    }
  }
  return true;
}

struct Folder {
  bool all;
  bool intoExps;
  int64_t folded = 0;

  Value splat(OpBuilder &b, Location loc, Value scalar, Type tile) {
    return b.create<SplatOp>(loc, tile, scalar);
  }

  /// Erases `v`'s splat when the fold left it without users.
  static void eraseIfDead(Value v) {
    if (auto splat = v.getDefiningOp<SplatOp>(); splat && splat->use_empty())
      splat.erase();
  }

  /// x - splat(m) with `contract`, used once: (x, m); else nulls.
  std::pair<Value, Value> minusRowScalar(Value v) {
    auto sub = v.getDefiningOp<arith::SubFOp>();
    if (!sub || !sub.getResult().hasOneUse() || !isa<RankedTensorType>(sub.getType()) ||
        !hasFlags(sub, arith::FastMathFlags::contract))
      return {};
    Value m = splatted(sub.getRhs());
    return m ? std::make_pair(sub.getLhs(), m) : std::pair<Value, Value>{};
  }

  bool mayReassociate(Operation *op) {
    return all || onlyFeeds16BitResults(op->getResult(0));
  }

  /// x * k + splat(-(m k)): the scalar product once a row, one FMA an
  /// element once contracted. `kTile` gives k over the row (made after the
  /// scalar product).
  Value scaledMinus(OpBuilder &b, Location loc, Value x, Value m, Value k,
                    function_ref<Value()> kTile, arith::FastMathFlagsAttr flags) {
    Value offset = b.create<arith::NegFOp>(loc, b.create<arith::MulFOp>(loc, m, k, flags));
    Value scaled = b.create<arith::MulFOp>(loc, x, kTile(), flags);
    return b.create<arith::AddFOp>(loc, scaled, splat(b, loc, offset, x.getType()), flags);
  }

  /// Replaces `op` by `with`, erases it and the subtraction `sub` it was
  /// folded with (if any), and the splat `operand` when now unused.
  void replace(Operation *op, Value with, Operation *sub, Value operand) {
    op->getResult(0).replaceAllUsesWith(with);
    op->erase();
    if (sub)
      sub->erase();
    eraseIfDead(operand);
    ++folded;
  }

  // (a) x / splat(s) -> x * splat(1 / s), or (d) where x is an exp2.
  void fold(arith::DivFOp div) {
    Value s = splatted(div.getRhs());
    if (!s || !isa<RankedTensorType>(div.getType()) ||
        !hasFlags(div, arith::FastMathFlags::afn))
      return;
    if (intoExps && foldIntoExp(div, s))
      return;
    OpBuilder b(div);
    Location loc = div.getLoc();
    Value one = b.create<arith::ConstantOp>(loc, b.getFloatAttr(s.getType(), 1.0));
    Value inverse = b.create<arith::DivFOp>(loc, one, s, div.getFastmathAttr());
    Value product = b.create<arith::MulFOp>(loc, div.getLhs(), splat(b, loc, inverse, div.getType()),
                                            div.getFastmathAttr());
    replace(div, product, nullptr, div.getRhs());
  }

  // (d) exp2(y) / splat(s) -> exp2(y - splat(log2 s)); where y is
  // x * k + splat(o) (from (c)), exp2(x * k + splat(o - log2 s)). The exp2
  // (used only here) keeps its flags and attributes; only its argument
  // changes.
  bool foldIntoExp(arith::DivFOp div, Value s) {
    auto exp2 = div.getLhs().getDefiningOp<math::Exp2Op>();
    if (!exp2 || !exp2->hasOneUse() || !hasFlags(exp2, arith::FastMathFlags::afn) ||
        !mayReassociate(div))
      return false;
    // Built at the division, where s and everything the exp2 reads are
    // defined; the exp2 moves down to its new argument.
    OpBuilder b(div);
    Location loc = div.getLoc();
    arith::FastMathFlagsAttr flags = div.getFastmathAttr();
    Value log2s = b.create<math::Log2Op>(loc, s, flags);
    Value y = exp2.getOperand();
    auto add = y.getDefiningOp<arith::AddFOp>();
    Value offset = add && add->hasOneUse() ? splatted(add.getRhs()) : Value();
    Value arg;
    if (offset) {
      Value shifted = b.create<arith::SubFOp>(loc, offset, log2s, flags);
      arg = b.create<arith::AddFOp>(loc, add.getLhs(), splat(b, loc, shifted, y.getType()),
                                    add.getFastmathAttr());
    } else {
      arg = b.create<arith::SubFOp>(loc, y, splat(b, loc, log2s, y.getType()), flags);
    }
    exp2->moveBefore(div);
    exp2.getOperandMutable().assign(arg);
    if (offset) {
      Value oldSplat = add.getRhs();
      add.erase();
      eraseIfDead(oldSplat);
    }
    Value sSplat = div.getRhs();
    div.getResult().replaceAllUsesWith(exp2.getResult());
    div.erase();
    eraseIfDead(sSplat);
    ++folded;
    return true;
  }

  // (b) (x - splat(m)) * splat(r) -> x * splat(r) + splat(-(m r)).
  void fold(arith::MulFOp mul) {
    if (!isa<RankedTensorType>(mul.getType()) || !hasFlags(mul, arith::FastMathFlags::contract))
      return;
    for (auto [difference, scale] :
         {std::pair(mul.getLhs(), mul.getRhs()), std::pair(mul.getRhs(), mul.getLhs())}) {
      auto [x, m] = minusRowScalar(difference);
      Value r = splatted(scale);
      if (!x || !r || !mayReassociate(mul))
        continue;
      Operation *sub = difference.getDefiningOp();
      OpBuilder b(mul);
      Value sum = scaledMinus(b, mul.getLoc(), x, m, r, [&] { return scale; },
                              mul.getFastmathAttr());
      replace(mul, sum, sub, sub->getOperand(1));
      return;
    }
  }

  // (c) exp(x - splat(m)) -> exp2(x * splat(L) + splat(-(m L))).
  void fold(math::ExpOp exp) {
    auto [x, m] = minusRowScalar(exp.getOperand());
    if (!x || !hasFlags(exp, arith::FastMathFlags::afn) || !mayReassociate(exp))
      return;
    auto sub = exp.getOperand().getDefiningOp<arith::SubFOp>();
    OpBuilder b(exp);
    Location loc = exp.getLoc();
    Value log2e = b.create<arith::ConstantOp>(loc, b.getFloatAttr(m.getType(), M_LOG2E));
    Value arg = scaledMinus(b, loc, x, m, log2e,
                            [&] { return splat(b, loc, log2e, exp.getType()); },
                            sub.getFastmathAttr());
    auto e = b.create<math::Exp2Op>(loc, arg, exp.getFastmathAttr());
    // Its other attributes too (tile.flush_exp: its results below 2^-126
    // may read as zero, as the exp's could).
    for (NamedAttribute attr : exp->getDiscardableAttrs())
      e->setAttr(attr.getName(), attr.getValue());
    replace(exp, e, sub, sub.getRhs());
  }

  // (e) a pair's exps as exp2(x L - m L), in the row distribution.
  void fold(tilec::tile::ReduceMaxSumExpOp pair) {
    if (!intoExps || pair.getBase2() || pair->hasAttr(tilec::kFoldedShiftAttr) ||
        !hasFlags(pair, arith::FastMathFlags::contract | arith::FastMathFlags::afn))
      return;
    if (!all && (!onlyFeeds16BitResults(pair.getSum()) ||
                 (pair.getExp() && !onlyFeeds16BitResults(pair.getExp()))))
      return;
    pair->setAttr(tilec::kFoldedShiftAttr, UnitAttr::get(pair.getContext()));
    ++folded;
  }
};

} // namespace

namespace tilec {

int64_t foldRowScalars(func::FuncOp kernel, bool all, bool intoExps) {
  SmallVector<Operation *> candidates;
  kernel.walk([&](Operation *op) {
    if (isa<arith::DivFOp, arith::MulFOp, math::ExpOp, tilec::tile::ReduceMaxSumExpOp>(op))
      candidates.push_back(op);
  });
  Folder folder{all, intoExps};
  for (Operation *op : candidates) {
    if (auto div = dyn_cast<arith::DivFOp>(op))
      folder.fold(div);
    else if (auto mul = dyn_cast<arith::MulFOp>(op))
      folder.fold(mul);
    else if (auto pair = dyn_cast<tilec::tile::ReduceMaxSumExpOp>(op))
      folder.fold(pair);
    else
      folder.fold(cast<math::ExpOp>(op));
  }
  return folder.folded;
}

} // namespace tilec

namespace {

struct FoldRowScalarsPass : tilec::impl::FoldRowScalarsBase<FoldRowScalarsPass> {
  using Base::Base;
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (fn->hasAttr("tile.kernel") && !fn->hasAttr("tile.gemm"))
        tilec::foldRowScalars(fn, all, intoExps);
  }
};

} // namespace
