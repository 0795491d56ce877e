// Row-domain classification shared by fusion and tile lowering.
#include "tilec/Passes/RowDomain.h"

#include "mlir/IR/BuiltinTypes.h"
#include "tilec/Dialect/Graph/GraphDialect.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace tilec {

ArrayRef<int64_t> shapeOf(Value value) {
  return llvm::cast<RankedTensorType>(value.getType()).getShape();
}

std::optional<RowDomain> RowDomain::fromFullShape(ArrayRef<int64_t> shape) {
  if (shape.empty() || llvm::any_of(shape, ShapedType::isDynamic))
    return std::nullopt;
  RowDomain d;
  d.lead.assign(shape.begin(), shape.end() - 1);
  d.cols = shape.back();
  return d;
}

SmallVector<int64_t> RowDomain::fullShape() const {
  SmallVector<int64_t> s(lead);
  s.push_back(cols);
  return s;
}

int64_t RowDomain::rows() const {
  int64_t r = 1;
  for (int64_t d : lead)
    r *= d;
  return r;
}

RowRole RowDomain::classify(ArrayRef<int64_t> shape) const {
  size_t rank = lead.size() + 1;
  if (shape.size() == rank && shape.drop_back() == ArrayRef<int64_t>(lead)) {
    if (shape.back() == cols)
      return RowRole::Full;
    if (shape.back() == 1)
      return RowRole::RowScalar;
  }
  bool leadingOnes = llvm::all_of(
      shape.empty() ? shape : shape.drop_back(), [](int64_t d) { return d == 1; });
  if (!shape.empty() && shape.size() <= rank && leadingOnes && shape.back() == cols)
    return RowRole::SharedVector;
  if (shape.size() <= rank && llvm::all_of(shape, [](int64_t d) { return d == 1; }))
    return RowRole::Scalar;
  return RowRole::None;
}

static bool isReduction(Operation *op) {
  return isa<graph::ReduceSumOp, graph::ReduceMaxOp, graph::ReduceMeanOp>(op);
}

static int64_t reductionAxis(Operation *op) {
  return llvm::cast<IntegerAttr>(op->getAttr("axis")).getInt();
}

static bool isElementwise(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>();
}

std::optional<RowDomain> naturalRowDomain(Operation *op) {
  if (isReduction(op)) {
    ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
    if (reductionAxis(op) != static_cast<int64_t>(in.size()) - 1)
      return std::nullopt;
    return RowDomain::fromFullShape(in);
  }
  if (isElementwise(op) || isa<graph::BroadcastOp>(op)) {
    ArrayRef<int64_t> out = shapeOf(op->getResult(0));
    if (out.empty()) // rank-0 math: a scalar in any domain
      return RowDomain{{}, 1};
    return RowDomain::fromFullShape(out);
  }
  return std::nullopt;
}

bool fitsRowDomain(Operation *op, const RowDomain &d) {
  if (isa<graph::ConstantOp>(op))
    return d.classify(shapeOf(op->getResult(0))) != RowRole::None;
  if (isElementwise(op))
    return d.classify(shapeOf(op->getResult(0))) != RowRole::None;
  if (isa<graph::BroadcastOp>(op)) {
    RowRole in = d.classify(shapeOf(op->getOperand(0)));
    RowRole out = d.classify(shapeOf(op->getResult(0)));
    if (in == RowRole::None || out == RowRole::None)
      return false;
    return in == out || in == RowRole::Scalar ||
           (out == RowRole::Full &&
            (in == RowRole::SharedVector || in == RowRole::RowScalar));
  }
  if (isReduction(op)) {
    ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
    return reductionAxis(op) == static_cast<int64_t>(in.size()) - 1 &&
           d.classify(in) == RowRole::Full &&
           (d.classify(shapeOf(op->getResult(0))) == RowRole::RowScalar ||
            d.cols == 1);
  }
  return false;
}

} // namespace tilec
