// tilec-form-welford: one reduction for a row's mean and squared deviations.
//
// layer_norm computes mean = reduce_sum(x) / W, then
// reduce_sum((x - mean)^2): two reductions, each a round of shuffles, a CTA
// barrier and (cluster-split rows) two cluster barriers, or (streamed rows)
// a pass over the row. The pair (mean, M2) can be combined from partial
// triples (count, mean, M2) instead (Chan et al.), so this rewrites
//   %s  = tile.reduce_sum %x
//   %mu = arith.divf %s, W           (or arith.mulf %s, 1 / W; W the tile's width)
//   %b  = tile.splat %mu
//   %d  = arith.subf %x, %b
//   %q  = arith.mulf %d, %d
//   %m2 = tile.reduce_sum %q
// into `%mu2, %m22 = tile.reduce_mean_m2 %x` (at the first reduce_sum):
// %mu's users take the pair's mean, %m2's its M2. The variance's division
// (M2 / W, or / (W - 1)) and x - mean for the normalisation stay as they
// are; %q, the first reduce_sum and division go (and %d and %b when nothing
// else uses them).
#include "tilec/Passes/Passes.h"

#include "mlir/IR/Matchers.h"

namespace tilec {
#define GEN_PASS_DEF_FORMWELFORD
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

/// Whether `v` is the f32 constant `c` (W, or 1 / W rounded to f32).
bool isConstant(Value v, double c) {
  APFloat value(0.0f);
  if (!matchPattern(v, m_ConstantFloat(&value)))
    return false;
  return value.convertToDouble() == static_cast<double>(static_cast<float>(c));
}

/// The mean sum(x) / W of the reduce_sum `sum` of x: its only user, a
/// division by W or a product with 1 / W; nullptr when it is not that.
Operation *meanOf(tilec::tile::ReduceSumOp sum) {
  if (!sum.getResult().hasOneUse())
    return nullptr;
  double width = sum.getInput().getType().getDimSize(0);
  Operation *user = *sum.getResult().getUsers().begin();
  if (auto div = dyn_cast<arith::DivFOp>(user))
    return div.getLhs() == sum.getResult() && isConstant(div.getRhs(), width) ? user : nullptr;
  if (auto mul = dyn_cast<arith::MulFOp>(user)) {
    Value other = mul.getLhs() == sum.getResult() ? mul.getRhs() : mul.getLhs();
    return isConstant(other, 1.0 / width) ? user : nullptr;
  }
  return nullptr;
}

struct Match {
  Operation *mean = nullptr;   // sum(x) / W
  Operation *splat = nullptr;  // splat(mean)
  arith::SubFOp sub;           // d = x - splat(mean)
  arith::MulFOp square;        // d * d
  tilec::tile::ReduceSumOp squares;   // sum(d * d)
};

/// The reduce_sum of (x - splat(mean))^2 after the mean of x that `sum`
/// starts, and what leads to it; an empty match when there is none.
Match squaresAfter(tilec::tile::ReduceSumOp sum) {
  Operation *mean = meanOf(sum);
  if (!mean)
    return {};
  Value x = sum.getInput();
  for (Operation *splat : mean->getResult(0).getUsers()) {
    if (!isa<tilec::tile::SplatOp>(splat))
      continue;
    for (Operation *sub : splat->getResult(0).getUsers()) {
      auto subf = dyn_cast<arith::SubFOp>(sub);
      // x - mean, of the very tile whose mean it is.
      if (!subf || subf.getLhs() != x || subf.getRhs() != splat->getResult(0))
        continue;
      for (Operation *user : subf.getResult().getUsers()) {
        auto square = dyn_cast<arith::MulFOp>(user);
        if (!square || square.getLhs() != subf.getResult() ||
            square.getRhs() != subf.getResult())
          continue;
        for (Operation *squareUser : square.getResult().getUsers())
          if (auto squares = dyn_cast<tilec::tile::ReduceSumOp>(squareUser))
            return {mean, splat, subf, square, squares};
      }
    }
  }
  return {};
}

} // namespace

namespace tilec {

int64_t formWelford(func::FuncOp kernel) {
  SmallVector<tile::ReduceSumOp> sums;
  kernel.walk([&](tile::ReduceSumOp op) { sums.push_back(op); });
  int64_t formed = 0;
  // Sums of squares already taken into a pair (erased).
  llvm::SmallPtrSet<Operation *, 4> taken;
  for (tile::ReduceSumOp sum : sums) {
    if (taken.contains(sum))
      continue;
    Match m = squaresAfter(sum);
    if (!m.mean)
      continue;
    OpBuilder b(sum);
    auto fastmath = m.mean->getAttrOfType<arith::FastMathFlagsAttr>("fastmath");
    if (fastmath && fastmath.getValue() == arith::FastMathFlags::none)
      fastmath = nullptr;
    auto pair = b.create<tile::ReduceMeanM2Op>(sum.getLoc(), b.getF32Type(), b.getF32Type(),
                                               sum.getInput(), fastmath);
    m.mean->getResult(0).replaceAllUsesWith(pair.getMean());
    m.squares.getResult().replaceAllUsesWith(pair.getM2());
    taken.insert(m.squares);
    m.squares.erase();
    m.mean->erase();
    sum.erase();
    // d * d is now dead, and d and splat(mean) may be (a kernel that
    // stores the mean and variance only).
    for (Operation *op : {m.square.getOperation(), m.sub.getOperation(), m.splat}) {
      if (!op->use_empty())
        break;
      op->erase();
    }
    ++formed;
  }
  return formed;
}

} // namespace tilec

namespace {

struct FormWelfordPass : tilec::impl::FormWelfordBase<FormWelfordPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (fn->hasAttr("tile.kernel") && !fn->hasAttr("tile.gemm"))
        tilec::formWelford(fn);
  }
};

} // namespace
