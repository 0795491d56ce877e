// Graph dialect registration and verifiers (shape and dtype rules).
#include "tilec/Dialect/Graph/GraphDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace tilec::graph;

#include "tilec/Dialect/Graph/GraphOpsDialect.cpp.inc"

void GraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/Graph/GraphOps.cpp.inc"
      >();
}

namespace {
RankedTensorType ranked(Type t) { return llvm::dyn_cast<RankedTensorType>(t); }

LogicalResult verifyBinary(Operation *op) {
  auto lhs = ranked(op->getOperand(0).getType());
  auto rhs = ranked(op->getOperand(1).getType());
  auto res = ranked(op->getResult(0).getType());
  if (!lhs || !rhs || !res)
    return op->emitOpError("operands and result must be ranked tensors");
  if (lhs.getShape() != rhs.getShape())
    return op->emitOpError("operand shapes differ: ")
           << lhs << " vs " << rhs
           << " (broadcast explicitly with graph.broadcast)";
  if (lhs.getElementType() != rhs.getElementType())
    return op->emitOpError("operand dtypes differ: ")
           << lhs.getElementType() << " vs " << rhs.getElementType()
           << " (convert with graph.cast)";
  if (res != lhs)
    return op->emitOpError("result type ") << res << " must equal operand type " << lhs;
  return success();
}

LogicalResult verifyUnary(Operation *op) {
  auto in = ranked(op->getOperand(0).getType());
  auto res = ranked(op->getResult(0).getType());
  if (!in || !res)
    return op->emitOpError("operand and result must be ranked tensors");
  if (in != res)
    return op->emitOpError("result type ") << res << " must equal operand type " << in;
  return success();
}

LogicalResult verifyReduce(Operation *op, int64_t axis) {
  auto in = ranked(op->getOperand(0).getType());
  auto res = ranked(op->getResult(0).getType());
  if (!in || !res)
    return op->emitOpError("operand and result must be ranked tensors");
  if (in.getRank() == 0)
    return op->emitOpError("cannot reduce a rank-0 tensor");
  if (axis < 0 || axis >= in.getRank())
    return op->emitOpError("axis ") << axis << " out of range for " << in;
  SmallVector<int64_t> expected(in.getShape());
  expected[axis] = 1;
  if (res.getShape() != ArrayRef<int64_t>(expected) ||
      res.getElementType() != in.getElementType())
    return op->emitOpError("result ") << res << " must be "
           << RankedTensorType::get(expected, in.getElementType())
           << " (the reduced axis is kept with size 1)";
  return success();
}
} // namespace

#define TILEC_BINARY_VERIFIER(OP)                                              \
  LogicalResult OP::verify() { return verifyBinary(getOperation()); }
TILEC_BINARY_VERIFIER(AddOp)
TILEC_BINARY_VERIFIER(SubOp)
TILEC_BINARY_VERIFIER(MulOp)
TILEC_BINARY_VERIFIER(DivOp)
TILEC_BINARY_VERIFIER(MaxOp)
TILEC_BINARY_VERIFIER(MinOp)
#undef TILEC_BINARY_VERIFIER

#define TILEC_UNARY_VERIFIER(OP)                                               \
  LogicalResult OP::verify() { return verifyUnary(getOperation()); }
TILEC_UNARY_VERIFIER(NegOp)
TILEC_UNARY_VERIFIER(ExpOp)
TILEC_UNARY_VERIFIER(LogOp)
TILEC_UNARY_VERIFIER(SqrtOp)
TILEC_UNARY_VERIFIER(RsqrtOp)
TILEC_UNARY_VERIFIER(TanhOp)
TILEC_UNARY_VERIFIER(SigmoidOp)
TILEC_UNARY_VERIFIER(SiluOp)
TILEC_UNARY_VERIFIER(GeluOp)
#undef TILEC_UNARY_VERIFIER

#define TILEC_REDUCE_VERIFIER(OP)                                              \
  LogicalResult OP::verify() { return verifyReduce(getOperation(), getAxis()); }
TILEC_REDUCE_VERIFIER(ReduceSumOp)
TILEC_REDUCE_VERIFIER(ReduceMaxOp)
TILEC_REDUCE_VERIFIER(ReduceMeanOp)
#undef TILEC_REDUCE_VERIFIER

LogicalResult CastOp::verify() {
  auto in = ranked(getInput().getType());
  auto res = ranked(getResult().getType());
  if (!in || !res || in.getShape() != res.getShape())
    return emitOpError("cast must keep the shape: ")
           << getInput().getType() << " -> " << getResult().getType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto in = ranked(getInput().getType());
  auto res = ranked(getResult().getType());
  if (!in || !res)
    return emitOpError("operand and result must be ranked tensors");
  if (in.getElementType() != res.getElementType())
    return emitOpError("broadcast cannot change the dtype: ")
           << in.getElementType() << " -> " << res.getElementType();
  if (in.getRank() > res.getRank())
    return emitOpError("cannot broadcast ") << in << " to lower rank " << res;
  int64_t offset = res.getRank() - in.getRank();
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t d = in.getDimSize(i), r = res.getDimSize(i + offset);
    if (d != 1 && d != r)
      return emitOpError("cannot broadcast ") << in << " to " << res
             << ": dimension " << i << " is " << d << ", expected 1 or " << r;
  }
  return success();
}

LogicalResult CausalMaskOp::verify() {
  auto t = ranked(getResult().getType());
  if (!t || t.getRank() < 2 || !t.getElementType().isF32())
    return emitOpError("result must be an f32 tensor [..., rows, keys], got ")
           << getResult().getType();
  int64_t rows = t.getDimSize(t.getRank() - 2), keys = t.getDimSize(t.getRank() - 1),
          period = getPeriod();
  if (ShapedType::isDynamic(rows) || ShapedType::isDynamic(keys) || period < 1 ||
      rows % period != 0 || period > keys)
    return emitOpError("period ") << period << " must divide the rows and be at most the keys of "
                                  << t;
  if (static_cast<int64_t>(getWindow()) < 0)
    return emitOpError("window ") << static_cast<int64_t>(getWindow()) << " must be >= 0";
  int64_t past = getPast();
  if (past < -1 || past > keys - period)
    return emitOpError("past ") << past << " must be -1 or in [0, " << keys - period << "] for "
                                << t << " and period " << period;
  return success();
}

LogicalResult SliceOp::verify() {
  auto in = ranked(getInput().getType());
  auto res = ranked(getResult().getType());
  if (!in || !res)
    return emitOpError("operand and result must be ranked tensors");
  int64_t axis = getAxis(), start = getStart(), end = getEnd();
  if (axis < 0 || axis >= in.getRank())
    return emitOpError("axis ") << axis << " out of range for " << in;
  if (start < 0 || end > in.getDimSize(axis) || start >= end)
    return emitOpError("range [") << start << ", " << end << ") is empty or outside axis "
           << axis << " of " << in;
  SmallVector<int64_t> expected(in.getShape());
  expected[axis] = end - start;
  if (res.getShape() != ArrayRef<int64_t>(expected) ||
      res.getElementType() != in.getElementType())
    return emitOpError("result ") << res << " must be "
           << RankedTensorType::get(expected, in.getElementType());
  return success();
}

LogicalResult UpdateSliceOp::verify() {
  auto buf = ranked(getBuffer().getType());
  auto upd = ranked(getUpdate().getType());
  auto res = ranked(getResult().getType());
  if (!buf || !upd || !res)
    return emitOpError("operands and result must be ranked tensors");
  int64_t axis = getAxis(), start = getStart();
  if (axis < 0 || axis + 1 >= buf.getRank())
    return emitOpError("axis ") << axis << " is not a row dim of " << buf;
  if (res != buf)
    return emitOpError("result ") << res << " must be the buffer's type " << buf;
  SmallVector<int64_t> expected(buf.getShape());
  expected[axis] = upd.getRank() == buf.getRank() ? upd.getDimSize(axis) : 0;
  if (upd.getShape() != ArrayRef<int64_t>(expected) ||
      upd.getElementType() != buf.getElementType())
    return emitOpError("update ") << upd << " must be " << buf << " except along axis " << axis;
  if (start < 0 || start + upd.getDimSize(axis) > buf.getDimSize(axis))
    return emitOpError("rows [") << start << ", " << start + upd.getDimSize(axis)
           << ") fall outside axis " << axis << " of " << buf;
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = ranked(getInput().getType());
  auto res = ranked(getResult().getType());
  if (!in || !res || !in.hasStaticShape() || !res.hasStaticShape())
    return emitOpError("operand and result must be ranked tensors of static shape");
  if (in.getElementType() != res.getElementType() ||
      in.getNumElements() != res.getNumElements())
    return emitOpError("cannot view ") << in << " as " << res
           << ": a reshape keeps the dtype and the element count";
  return success();
}

LogicalResult TransposeOp::verify() {
  auto in = ranked(getInput().getType());
  auto res = ranked(getResult().getType());
  if (!in || !res || !in.hasStaticShape() || !res.hasStaticShape())
    return emitOpError("operand and result must be ranked tensors of static shape");
  int64_t d0 = getDim0(), d1 = getDim1();
  if (d0 < 0 || d0 >= d1 || d1 >= in.getRank())
    return emitOpError("needs 0 <= dim0 < dim1 < rank, got dims ")
           << d0 << " and " << d1 << " of " << in;
  SmallVector<int64_t> shape(in.getShape());
  std::swap(shape[d0], shape[d1]);
  if (in.getElementType() != res.getElementType() || ArrayRef<int64_t>(shape) != res.getShape())
    return emitOpError("result ") << res << " is not " << in << " with dims " << d0 << " and "
                                  << d1 << " swapped";
  return success();
}

LogicalResult ConcatOp::verify() {
  auto res = ranked(getResult().getType());
  if (!res || getInputs().empty())
    return emitOpError("needs operands and a ranked result");
  int64_t axis = getAxis();
  if (axis < 0 || axis >= res.getRank())
    return emitOpError("axis ") << axis << " out of range for " << res;
  int64_t total = 0;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    auto t = ranked(v.getType());
    if (!t || t.getRank() != res.getRank() || t.getElementType() != res.getElementType())
      return emitOpError("operand ") << i << " " << v.getType()
             << " must have the result's rank and dtype";
    for (int64_t d = 0; d < res.getRank(); ++d)
      if (d != axis && t.getDimSize(d) != res.getDimSize(d))
        return emitOpError("operand ") << i << " " << t << " differs from the result "
               << res << " in dimension " << d;
    total += t.getDimSize(axis);
  }
  if (total != res.getDimSize(axis))
    return emitOpError("operands add up to ") << total << " along axis " << axis
           << " but the result has " << res.getDimSize(axis);
  return success();
}

namespace {
std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + (ShapedType::isDynamic(d) ? std::string("?")
                                                     : std::to_string(d));
  return s + "]";
}
} // namespace

LogicalResult MatmulOp::verify() {
  auto lhs = ranked(getLhs().getType());
  auto rhs = ranked(getRhs().getType());
  auto res = ranked(getResult().getType());
  if (!lhs || !rhs || !res)
    return emitOpError("operands and result must be ranked tensors");
  bool ta = getTransposeA(), tb = getTransposeB();
  if (lhs.getRank() < 2)
    return emitOpError("lhs ") << lhs << " must have rank >= 2";
  if (rhs.getRank() < 2)
    return emitOpError("rhs ") << rhs << " must have rank >= 2";
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpError("operand dtypes differ: ")
           << lhs.getElementType() << " vs " << rhs.getElementType()
           << " (convert with graph.cast)";
  ArrayRef<int64_t> ls = lhs.getShape(), rs = rhs.getShape();
  ArrayRef<int64_t> batch = ls.drop_back(2);
  if (rhs.getRank() > 2 && rs.drop_back(2) != batch)
    return emitOpError("batch dims differ: lhs ")
           << lhs << " has " << shapeText(batch) << ", rhs " << rhs << " has "
           << shapeText(rs.drop_back(2))
           << " (rhs must be 2-D or have exactly the lhs's batch dims)";
  int64_t m = ta ? ls.back() : ls[ls.size() - 2];
  int64_t ka = ta ? ls[ls.size() - 2] : ls.back();
  int64_t kb = tb ? rs.back() : rs[rs.size() - 2];
  int64_t n = tb ? rs[rs.size() - 2] : rs.back();
  if (ka != kb)
    return emitOpError("contraction dims differ: lhs ")
           << lhs << (ta ? " (transposed)" : "") << " has K = " << ka << ", rhs "
           << rhs << (tb ? " (transposed)" : "") << " has K = " << kb;
  SmallVector<int64_t> expected(batch);
  expected.push_back(m);
  expected.push_back(n);
  if (res.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result ") << res << " must have shape [..., M, N] = "
           << shapeText(expected);
  return success();
}

LogicalResult FusionOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("region takes ") << body.getNumArguments()
           << " arguments but the fusion has " << getInputs().size() << " inputs";
  for (auto [arg, in] : llvm::zip(body.getArguments(), getInputs()))
    if (arg.getType() != in.getType())
      return emitOpError("region argument type ") << arg.getType()
             << " differs from input type " << in.getType();
  auto yield = llvm::cast<YieldOp>(body.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yielded types must match the fusion's result types");
  return success();
}

#define GET_OP_CLASSES
#include "tilec/Dialect/Graph/GraphOps.cpp.inc"
