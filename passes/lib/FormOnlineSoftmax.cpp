// tilec-form-online-softmax: one reduction for a row's max and sum of exp.
//
// Softmax computes m = reduce_max(x), then s = reduce_sum(exp(x - m)): two
// reductions, each a round of shuffles, a CTA barrier and (cluster-split
// rows) two cluster barriers, or (streamed rows) a pass over HBM. The pair
// (m, s) can be combined from partial pairs instead (online softmax), so
// this rewrites
//   %m = tile.reduce_max %x
//   %b = tile.splat %m
//   %d = arith.subf %x, %b
//   %e = math.exp %d                (or math.exp2)
//   %s = tile.reduce_sum %e
// into `%m, %s = tile.reduce_max_sum_exp %x` (at the reduce_max). When
// the exp tile %e has other users (the softmax's e / s), the pair gives it
// too, as a third result `%m, %s, %e2 = tile.reduce_max_sum_exp %x`, and
// those users take %e2: the reduction computes exp(x - max) anyway, and
// rows held in registers then need one exp an element instead of two (see
// DistributeRowTiles.cpp). %b and %d stay for whatever else uses them.
#include "tilec/Passes/Passes.h"

#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

namespace tilec {
#define GEN_PASS_DEF_FORMONLINESOFTMAX
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

/// The reduce_sum of exp(x - splat(m)) over the reduce_max `max` of x, and
/// that exp; nullptr when there is none.
std::pair<tilec::tile::ReduceSumOp, Operation *> sumOfExpAfter(tilec::tile::ReduceMaxOp max) {
  Value x = max.getInput();
  for (Operation *splat : max.getResult().getUsers()) {
    if (!isa<tilec::tile::SplatOp>(splat))
      continue;
    for (Operation *sub : splat->getResult(0).getUsers()) {
      auto subf = dyn_cast<arith::SubFOp>(sub);
      // x - m, not m - x, and of the very tile whose max it is.
      if (!subf || subf.getLhs() != x || subf.getRhs() != splat->getResult(0))
        continue;
      for (Operation *exp : subf.getResult().getUsers()) {
        if (!isa<math::ExpOp, math::Exp2Op>(exp))
          continue;
        for (Operation *user : exp->getResult(0).getUsers())
          if (auto sum = dyn_cast<tilec::tile::ReduceSumOp>(user))
            return {sum, exp};
      }
    }
  }
  return {nullptr, nullptr};
}

} // namespace

namespace tilec {

int64_t formOnlineSoftmax(func::FuncOp kernel) {
  SmallVector<tile::ReduceMaxOp> maxima;
  kernel.walk([&](tile::ReduceMaxOp op) { maxima.push_back(op); });
  int64_t formed = 0;
  for (tile::ReduceMaxOp max : maxima) {
    auto [sum, exp] = sumOfExpAfter(max);
    if (!sum)
      continue;
    OpBuilder b(max);
    // The pair's flags: the exp's, and the subtraction's `contract` (its
    // exps may then be taken as exp2(x L - m L), see foldRowScalars).
    auto expFlags = exp->getAttrOfType<arith::FastMathFlagsAttr>("fastmath");
    auto subFlags = exp->getOperand(0).getDefiningOp()->getAttrOfType<arith::FastMathFlagsAttr>(
        "fastmath");
    arith::FastMathFlags flags = expFlags ? expFlags.getValue() : arith::FastMathFlags::none;
    if (subFlags && bitEnumContainsAll(subFlags.getValue(), arith::FastMathFlags::contract))
      flags = flags | arith::FastMathFlags::contract;
    arith::FastMathFlagsAttr fastmath;
    if (flags != arith::FastMathFlags::none)
      fastmath = arith::FastMathFlagsAttr::get(b.getContext(), flags);
    // Does anything but the sum use exp(x - m)? Then the pair gives it.
    bool keepExp = llvm::any_of(exp->getUsers(), [&](Operation *u) { return u != sum; });
    Type expType = keepExp ? exp->getResult(0).getType() : Type();
    auto pair = b.create<tile::ReduceMaxSumExpOp>(
        max.getLoc(), b.getF32Type(), b.getF32Type(), expType, max.getInput(),
        /*base2=*/isa<math::Exp2Op>(exp), fastmath);
    max.getResult().replaceAllUsesWith(pair.getMax());
    sum.getResult().replaceAllUsesWith(pair.getSum());
    max.erase();
    sum.erase();
    if (keepExp)
      exp->getResult(0).replaceAllUsesWith(pair.getExp());
    // exp(x - m) is now dead (the pair gives it, or a kernel stores only
    // the sum), and x - m and splat(m) may be.
    Operation *sub = exp->getOperand(0).getDefiningOp();
    Operation *splat = sub->getOperand(1).getDefiningOp();
    for (Operation *op : {exp, sub, splat}) {
      if (!op->use_empty())
        break;
      op->erase();
    }
    ++formed;
  }
  return formed;
}

int64_t recomputeExpsPastReduction(func::FuncOp kernel, bool onlyFastMath, bool contract) {
  SmallVector<tile::ReduceMaxSumExpOp> pairs;
  kernel.walk([&](tile::ReduceMaxSumExpOp op) {
    auto ext = op.getInput().getDefiningOp<arith::ExtFOp>();
    arith::FastMathFlagsAttr fm = op.getFastmathAttr();
    bool fast = fm && bitEnumContainsAll(fm.getValue(), arith::FastMathFlags::afn);
    if (op.getExp() && ext && ext.getIn().getDefiningOp<tile::LoadOp>() &&
        (fast || !onlyFastMath) &&
        getElementTypeOrSelf(ext.getIn().getType()).isBF16() &&
        op->getBlock() == ext->getBlock())
      pairs.push_back(op);
  });
  int64_t rewritten = 0;
  for (tile::ReduceMaxSumExpOp pair : pairs) {
    Block *block = pair->getBlock();
    Operation *first = nullptr;
    for (Operation *user : pair.getExp().getUsers()) {
      Operation *u = block->findAncestorOpInBlock(*user);
      if (u && (!first || u->isBeforeInBlock(first)))
        first = u;
    }
    if (!first)
      continue;
    auto ext = pair.getInput().getDefiningOp<arith::ExtFOp>();
    Location loc = pair.getLoc();
    OpBuilder b(first);
    // exp(x - M'), M' = (M == -inf ? 0 : M) as the pair's own exp tile has
    // it (a row of only -inf gives 0, not exp(-inf - -inf)).
    Value m = pair.getMax();
    Value negInf = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(-INFINITY));
    Value zero = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(0.0f));
    Value isNegInf = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, m, negInf);
    Value shift = b.create<arith::SelectOp>(loc, isNegInf, zero, m);
    Operation *wide = b.clone(*ext);
    wide->setAttr(kRewidenAttr, b.getUnitAttr());
    auto type = llvm::cast<RankedTensorType>(pair.getExp().getType());
    Value splat = b.create<tile::SplatOp>(loc, type, shift);
    arith::FastMathFlagsAttr fastmath = pair.getFastmathAttr();
    auto flags = fastmath ? fastmath.getValue() : arith::FastMathFlags::none;
    // With `contract`, x - M' contracts where the softmax's own subtraction
    // did (the pair keeps that flag): foldRowScalars may fold it into the exp.
    auto d = b.create<arith::SubFOp>(loc, wide->getResult(0), splat);
    if (contract && bitEnumContainsAll(flags, arith::FastMathFlags::contract))
      d.setFastmath(arith::FastMathFlags::contract);
    Operation *e = pair.getBase2() ? b.create<math::Exp2Op>(loc, d, flags).getOperation()
                                   : b.create<math::ExpOp>(loc, d, flags).getOperation();
    if (bitEnumContainsAll(flags, arith::FastMathFlags::afn))
      e->setAttr(kFlushExpAttr, b.getUnitAttr());
    pair.getExp().replaceAllUsesWith(e->getResult(0));
    OpBuilder at(pair);
    auto single = at.create<tile::ReduceMaxSumExpOp>(loc, b.getF32Type(), b.getF32Type(), Type(),
                                                     pair.getInput(), pair.getBase2(), fastmath);
    single->setAttr(kPackedMaxAttr, at.getUnitAttr());
    pair.getMax().replaceAllUsesWith(single.getMax());
    pair.getSum().replaceAllUsesWith(single.getSum());
    pair.erase();
    ++rewritten;
  }
  return rewritten;
}

} // namespace tilec

namespace {

struct FormOnlineSoftmaxPass : tilec::impl::FormOnlineSoftmaxBase<FormOnlineSoftmaxPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (fn->hasAttr("tile.kernel") && !fn->hasAttr("tile.gemm"))
        tilec::formOnlineSoftmax(fn);
  }
};

} // namespace
