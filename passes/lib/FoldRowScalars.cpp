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
// f64 reference on rows of mean 1000 and deviation 1).
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

  // (a) x / splat(s) -> x * splat(1 / s).
  void fold(arith::DivFOp div) {
    Value s = splatted(div.getRhs());
    if (!s || !isa<RankedTensorType>(div.getType()) ||
        !hasFlags(div, arith::FastMathFlags::afn))
      return;
    OpBuilder b(div);
    Location loc = div.getLoc();
    Value one = b.create<arith::ConstantOp>(loc, b.getFloatAttr(s.getType(), 1.0));
    Value inverse = b.create<arith::DivFOp>(loc, one, s, div.getFastmathAttr());
    Value product = b.create<arith::MulFOp>(loc, div.getLhs(), splat(b, loc, inverse, div.getType()),
                                            div.getFastmathAttr());
    replace(div, product, nullptr, div.getRhs());
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
    Value e = b.create<math::Exp2Op>(loc, arg, exp.getFastmathAttr());
    replace(exp, e, sub, sub.getRhs());
  }
};

} // namespace

namespace tilec {

int64_t foldRowScalars(func::FuncOp kernel, bool all) {
  SmallVector<Operation *> candidates;
  kernel.walk([&](Operation *op) {
    if (isa<arith::DivFOp, arith::MulFOp, math::ExpOp>(op))
      candidates.push_back(op);
  });
  Folder folder{all};
  for (Operation *op : candidates) {
    if (auto div = dyn_cast<arith::DivFOp>(op))
      folder.fold(div);
    else if (auto mul = dyn_cast<arith::MulFOp>(op))
      folder.fold(mul);
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
        tilec::foldRowScalars(fn, all);
  }
};

} // namespace
