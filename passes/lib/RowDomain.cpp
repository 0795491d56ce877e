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

/// The role of a value whose last dim is `last`, in a domain of `cols`.
static RowRole roleOfLast(int64_t last, int64_t cols) {
  return last == cols ? RowRole::Full : last == 1 ? RowRole::RowScalar : RowRole::Part;
}

/// Whether `shape`'s row dims number as many rows as the domain's.
static bool numbersDomainRows(const RowDomain &d, ArrayRef<int64_t> shape) {
  if (shape.empty())
    return false;
  int64_t n = 1;
  for (int64_t dim : shape.drop_back())
    n *= dim;
  return n == d.rows();
}

RowRole RowDomain::classify(ArrayRef<int64_t> shape) const {
  RowRole role = classifyByDims(shape);
  // (Relabelled rows, see the declaration.)
  if (role == RowRole::None && numbersDomainRows(*this, shape))
    return roleOfLast(shape.back(), cols);
  return role;
}

RowRole RowDomain::classifyByDims(ArrayRef<int64_t> shape) const {
  size_t rank = lead.size() + 1;
  if (shape.size() == rank && shape.drop_back() == ArrayRef<int64_t>(lead))
    return roleOfLast(shape.back(), cols);
  bool leadingOnes = llvm::all_of(
      shape.empty() ? shape : shape.drop_back(), [](int64_t d) { return d == 1; });
  if (!shape.empty() && shape.size() <= rank && leadingOnes && shape.back() == cols)
    return RowRole::SharedVector;
  if (shape.size() <= rank && llvm::all_of(shape, [](int64_t d) { return d == 1; }))
    return RowRole::Scalar;
  // Row dims that broadcast into the domain's (right-aligned, 1 or equal).
  if (shape.empty() || shape.size() > rank)
    return RowRole::None;
  ArrayRef<int64_t> rowDims = shape.drop_back();
  size_t offset = lead.size() - rowDims.size();
  for (size_t i = 0; i < rowDims.size(); ++i)
    if (rowDims[i] != 1 && rowDims[i] != lead[offset + i])
      return RowRole::None;
  return roleOfLast(shape.back(), cols);
}

bool RowDomain::mapsRows(ArrayRef<int64_t> shape) const {
  // (By dims alone: relabelled rows, None there, are never mapped; row r
  // of such a value is the domain's row r.)
  RowRole role = classifyByDims(shape);
  if (role != RowRole::Full && role != RowRole::RowScalar && role != RowRole::Part)
    return false;
  return shape.drop_back() != ArrayRef<int64_t>(lead);
}

/// Digit `p` of a domain row (its index along lead dim p), times `mul`:
/// (row / (product of the lead dims after p)) % lead[p], without the modulo
/// for the outermost dim larger than 1 (row < rows()).
static RowMapTerm digitTerm(ArrayRef<int64_t> lead, size_t p, int64_t mul) {
  int64_t inner = 1;
  for (int64_t d : lead.drop_front(p + 1))
    inner *= d;
  bool outermost = llvm::all_of(lead.take_front(p), [](int64_t d) { return d == 1; });
  return {inner, outermost ? 0 : lead[p], mul};
}

SmallVector<RowMapTerm> RowDomain::rowMap(ArrayRef<int64_t> shape) const {
  SmallVector<RowMapTerm> terms;
  ArrayRef<int64_t> rowDims = shape.drop_back();
  size_t offset = lead.size() - rowDims.size();
  int64_t mul = 1; // value rows below dim i
  for (size_t i = lead.size(); i-- > 0;) {
    int64_t own = i >= offset ? rowDims[i - offset] : 1;
    if (own != 1 && lead[i] != 1)
      terms.push_back(digitTerm(lead, i, mul));
    mul *= own;
  }
  return terms;
}

SmallVector<RowMapTerm> RowDomain::transposedRowMap(ArrayRef<int64_t> in, int64_t d0,
                                                    int64_t d1) const {
  // Input row dim i holds the domain's row digit at i's place after the
  // swap.
  SmallVector<std::pair<int64_t, int64_t>> digits;
  for (int64_t i = 0; i < static_cast<int64_t>(lead.size()); ++i)
    digits.push_back({i == d0 ? d1 : i == d1 ? d0 : i, 0});
  return chainedRowMap(in, digits);
}

SmallVector<RowMapTerm> RowDomain::slicedRowMap(ArrayRef<int64_t> in, int64_t axis,
                                                int64_t start) const {
  // Input row dim i holds the domain's row digit i, plus `start` at the
  // sliced dim.
  SmallVector<std::pair<int64_t, int64_t>> digits;
  for (int64_t i = 0; i < static_cast<int64_t>(lead.size()); ++i)
    digits.push_back({i, i == axis ? start : 0});
  return chainedRowMap(in, digits);
}

/// As terms: each digit times i's stride in the input's rows. A digit of a
/// domain dim of 1 is 0: only its offset, if any, stays (a constant term).
SmallVector<RowMapTerm>
RowDomain::chainedRowMap(ArrayRef<int64_t> in, ArrayRef<std::pair<int64_t, int64_t>> digits) const {
  SmallVector<RowMapTerm> terms;
  int64_t stride = 1;
  for (size_t i = digits.size(); i-- > 0;) {
    auto [p, offset] = digits[i];
    int64_t add = offset * stride;
    if (lead[p] != 1) {
      RowMapTerm t = digitTerm(lead, static_cast<size_t>(p), stride);
      t.add = add;
      terms.push_back(t);
    } else if (add != 0) {
      terms.push_back({1, 0, 0, add});
    }
    stride *= in[i];
  }
  return terms;
}

RowMapTerm RowDomain::digitAt(int64_t axis) const {
  return digitTerm(lead, static_cast<size_t>(axis), 1);
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

static int64_t lastAxis(Value v) { return shapeOf(v).size() - 1; }

std::optional<RowDomain> naturalRowDomain(Operation *op) {
  if (auto mm = dyn_cast<graph::MatmulOp>(op)) {
    // A GEMM kernel iterates over the rows of its result; a batched rhs
    // [..., K, N] or transposed lhs [..., K, M] has the result's batch dims.
    return RowDomain::fromFullShape(shapeOf(mm.getResult()));
  }
  if (isReduction(op)) {
    ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
    if (reductionAxis(op) != static_cast<int64_t>(in.size()) - 1)
      return std::nullopt;
    return RowDomain::fromFullShape(in);
  }
  if (auto update = dyn_cast<graph::UpdateSliceOp>(op)) {
    // A row kernel over the rows it stores (the update's, or those of the
    // transpose's operand it stores through), at the buffer's rows past
    // `start` (the buffer is updated in place: no other row is touched).
    return RowDomain::fromFullShape(shapeOf(updateRows(update)));
  }
  if (isa<graph::SliceOp, graph::ConcatOp>(op)) {
    // A slice or concatenation along a row dim gathers rows of its inputs,
    // like a transpose: a row kernel over its result.
    return RowDomain::fromFullShape(shapeOf(op->getResult(0)));
  }
  if (auto t = dyn_cast<graph::TransposeOp>(op)) {
    // A swap of two row dims (the last dim kept) gathers rows of its input:
    // a row kernel over its result, whose load reads a permuted row.
    if (static_cast<int64_t>(t.getDim1()) == lastAxis(t.getInput()))
      return std::nullopt;
    return RowDomain::fromFullShape(shapeOf(t.getResult()));
  }
  if (auto view = dyn_cast<graph::ReshapeOp>(op)) {
    // One that keeps the last dim relabels row dims: row r stays row r.
    ArrayRef<int64_t> in = shapeOf(view.getInput()), out = shapeOf(view.getResult());
    if (in.empty() || out.empty() || in.back() != out.back())
      return std::nullopt; // a view between kernels
    return RowDomain::fromFullShape(shapeOf(view.getInput()));
  }
  if (isElementwise(op) || isa<graph::BroadcastOp, graph::CausalMaskOp>(op)) {
    ArrayRef<int64_t> out = shapeOf(op->getResult(0));
    if (out.empty()) // rank-0 math: a scalar in any domain
      return RowDomain{{}, 1};
    return RowDomain::fromFullShape(out);
  }
  return std::nullopt;
}

/// A role an op may compute: any but None; rows not mapped (only inputs
/// have mapped rows); parts of rows narrower than the domain (a wider value
/// would not fit the kernel's tiles).
static bool computable(const RowDomain &d, Value v) {
  ArrayRef<int64_t> shape = shapeOf(v);
  RowRole role = d.classify(shape);
  if (role == RowRole::None || d.mapsRows(shape))
    return false;
  return role != RowRole::Part || shape.back() < d.cols;
}

/// A whole or partial row of the domain's own rows (what slices and
/// concatenations take).
static bool unmappedRow(const RowDomain &d, Value v) {
  RowRole role = d.classify(shapeOf(v));
  return (role == RowRole::Full || role == RowRole::Part) && !d.mapsRows(shapeOf(v));
}

bool gathersRows(Operation *op) {
  if (auto t = dyn_cast<graph::TransposeOp>(op))
    return static_cast<int64_t>(t.getDim1()) != lastAxis(t.getInput());
  if (auto s = dyn_cast<graph::SliceOp>(op))
    return static_cast<int64_t>(s.getAxis()) != lastAxis(s.getInput());
  if (auto c = dyn_cast<graph::ConcatOp>(op))
    return static_cast<int64_t>(c.getAxis()) != lastAxis(c.getResult());
  return false;
}

bool scatterFits(Operation *op, const RowDomain &domain) {
  auto t = dyn_cast<graph::TransposeOp>(op);
  if (!t || !gathersRows(op))
    return false;
  // The domain's full rows, under the domain's dims or relabeled (as
  // many rows of as many columns: a reshape that kept the last dim).
  ArrayRef<int64_t> in = shapeOf(t.getInput());
  int64_t rows = 1;
  for (int64_t d : in.drop_back())
    rows *= d;
  return in.back() == domain.cols && rows == domain.rows();
}

bool readsRowsFromMemory(Operation *op) {
  return gathersRows(op) || isa<graph::UpdateSliceOp>(op);
}

Value updateRows(Operation *op) {
  auto update = llvm::cast<graph::UpdateSliceOp>(op);
  auto t = update.getUpdate().getDefiningOp<graph::TransposeOp>();
  if (!t || !gathersRows(t) || !t->hasOneUse())
    return update.getUpdate();
  Operation *def = t.getInput().getDefiningOp();
  return def && gathersRows(def) ? update.getUpdate() : t.getInput();
}

bool storedThroughUpdate(Operation *op) {
  auto t = dyn_cast<graph::TransposeOp>(op);
  if (!t || !t->hasOneUse())
    return false;
  auto update = dyn_cast<graph::UpdateSliceOp>(*t->getUsers().begin());
  return update && update.getUpdate() == t.getResult() && updateRows(update) == t.getInput();
}

bool isRowRelabel(Operation *op) {
  auto view = dyn_cast<graph::ReshapeOp>(op);
  if (!view)
    return false;
  ArrayRef<int64_t> in = shapeOf(view.getInput()), out = shapeOf(view.getResult());
  return !in.empty() && !out.empty() && in.back() == out.back();
}

bool isGemmEpilogueOp(Operation *op) {
  return isa<graph::ConstantOp, graph::BroadcastOp, graph::CastOp>(op) || isElementwise(op) ||
         isRowRelabel(op);
}

bool fitsRowDomain(Operation *op, const RowDomain &d) {
  if (auto mm = dyn_cast<graph::MatmulOp>(op)) {
    // Its operands are read by the GEMM's own tile loads, whatever their shape.
    ArrayRef<int64_t> out = shapeOf(mm.getResult());
    return naturalRowDomain(op) == d && d.classify(out) == RowRole::Full && !d.mapsRows(out);
  }
  // (A causal mask is computed from the domain's row and its own columns:
  // its rows must be the domain's own, which computable requires.)
  if (isa<graph::ConstantOp, graph::CausalMaskOp>(op) || isElementwise(op))
    return computable(d, op->getResult(0));
  if (isa<graph::BroadcastOp>(op)) {
    Value result = op->getResult(0);
    if (!computable(d, result))
      return false;
    RowRole in = d.classify(shapeOf(op->getOperand(0)));
    RowRole out = d.classify(shapeOf(result));
    if (in == RowRole::None)
      return false;
    return in == out || in == RowRole::Scalar ||
           (out == RowRole::Full &&
            (in == RowRole::SharedVector || in == RowRole::RowScalar)) ||
           (out == RowRole::Part && in == RowRole::RowScalar);
  }
  if (auto update = dyn_cast<graph::UpdateSliceOp>(op)) {
    // The rows it stores are the domain's own (its dims, or relabeled).
    ArrayRef<int64_t> rows = shapeOf(updateRows(update));
    return d.classify(rows) == RowRole::Full && !d.mapsRows(rows);
  }
  if (gathersRows(op))
    // Rows gathered from a fusion input (FuseRowOps keeps the producer
    // out), in the domain of the result's own rows.
    return naturalRowDomain(op) == d;
  if (isa<graph::SliceOp, graph::ConcatOp>(op)) {
    // Along the last axis; a piece one column wide is a per-row scalar.
    auto rowScalar = [&](Value v) {
      return d.classify(shapeOf(v)) == RowRole::RowScalar && !d.mapsRows(shapeOf(v));
    };
    Value result = op->getResult(0);
    bool isSlice = isa<graph::SliceOp>(op);
    if (reductionAxis(op) != lastAxis(result) || !computable(d, result) ||
        !(unmappedRow(d, result) || (isSlice && rowScalar(result))))
      return false;
    return llvm::all_of(op->getOperands(), [&](Value v) {
      return unmappedRow(d, v) || (!isSlice && rowScalar(v));
    });
  }
  if (auto view = dyn_cast<graph::ReshapeOp>(op)) {
    // The same rows of the domain on both sides (row r is row r): both
    // unmapped and of one role, the last dim kept.
    Value in = view.getInput(), out = view.getResult();
    return !shapeOf(in).empty() && !shapeOf(out).empty() &&
           shapeOf(in).back() == shapeOf(out).back() && computable(d, out) &&
           computable(d, in) && d.classify(shapeOf(in)) == d.classify(shapeOf(out));
  }
  if (isReduction(op)) {
    ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
    return reductionAxis(op) == static_cast<int64_t>(in.size()) - 1 &&
           d.classify(in) == RowRole::Full && !d.mapsRows(in) &&
           (d.classify(shapeOf(op->getResult(0))) == RowRole::RowScalar ||
            d.cols == 1) &&
           computable(d, op->getResult(0));
  }
  return false;
}

} // namespace tilec
