// Tile dialect registration and verifiers.
#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace tilec::tile;

#include "tilec/Dialect/Tile/TileOpsDialect.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tilec/Dialect/Tile/TileOps.cpp.inc"
      >();
}

/// Checks that `memref` (with or without a row index) matches `value`'s type
/// under the forms documented on tile.load.
static LogicalResult verifyAccess(Operation *op, MemRefType memref,
                                  bool hasRow, Type value, bool window) {
  Type elem = memref.getElementType();
  auto tile = llvm::dyn_cast<RankedTensorType>(value);
  Type valueElem = tile ? tile.getElementType() : value;
  if (elem != valueElem)
    return op->emitOpError("element type ") << valueElem
           << " differs from the memref's " << elem;
  int64_t rank = memref.getRank();
  if (window && (!tile || rank == 3))
    return op->emitOpError("col_offset needs a row tile of a rank-1 or rank-2 memref");
  if (hasRow && rank == 3 && tile && llvm::isa<LoadOp>(op)) {
    // Strided rows: row o * I + i of memref<O x K x I> is [o, :, i].
    if (tile.getDimSize(0) != memref.getDimSize(1))
      return op->emitOpError("tile of ") << tile.getDimSize(0)
             << " elements does not match strided rows of " << memref.getDimSize(1);
    return success();
  }
  if (hasRow) {
    if (rank != 2)
      return op->emitOpError("a row access needs a rank-2 memref, got ") << memref;
    int64_t cols = memref.getDimSize(1);
    if (tile && tile.getDimSize(0) != cols && !window)
      return op->emitOpError("tile of ") << tile.getDimSize(0)
             << " elements does not match rows of " << cols;
    if (!tile && cols != 1)
      return op->emitOpError("a per-row scalar needs a memref<?x1xT>, got ") << memref;
    return success();
  }
  if (tile) {
    if (rank != 1 || (memref.getDimSize(0) != tile.getDimSize(0) && !window))
      return op->emitOpError("a shared row vector needs ")
             << MemRefType::get({tile.getDimSize(0)}, elem) << ", got " << memref;
    return success();
  }
  if (rank != 0)
    return op->emitOpError("a shared scalar needs a rank-0 memref, got ") << memref;
  return success();
}

LogicalResult LoadOp::verify() {
  return verifyAccess(getOperation(), getSource().getType(), !!getRow(),
                      getResult().getType(), getColOffset().has_value());
}

LogicalResult StoreOp::verify() {
  return verifyAccess(getOperation(), getDest().getType(), !!getRow(),
                      getValue().getType(), getColOffset().has_value());
}

LogicalResult SplatOp::verify() {
  if (getType().getElementType() != getInput().getType())
    return emitOpError("splat of ") << getInput().getType()
           << " cannot produce " << getType();
  return success();
}

LogicalResult CausalMaskOp::verify() {
  if (!getType().getElementType().isF32())
    return emitOpError("result must be an f32 row tile, got ") << getType();
  if (getPeriod() < 1)
    return emitOpError("period ") << getPeriod() << " must be positive";
  if (static_cast<int64_t>(getWindow()) < 0)
    return emitOpError("window ") << static_cast<int64_t>(getWindow()) << " must be >= 0";
  return success();
}

int64_t WgmmaRsOp::getN() {
  return 2 * static_cast<int64_t>(llvm::cast<LLVM::LLVMStructType>(getAcc().getType()).getBody().size());
}

LogicalResult WgmmaRsOp::verify() {
  auto acc = llvm::cast<LLVM::LLVMStructType>(getAcc().getType());
  if (!llvm::all_of(acc.getBody(), [](Type t) { return t.isF32(); }))
    return emitOpError("accumulators must be a struct of f32, got ") << acc;
  int64_t n = getN();
  if (n < 8 || n > 256 || n % 8 != 0)
    return emitOpError("N = ") << n << " (2 x the accumulators a thread) must be a multiple of 8 in [8, 256]";
  if (getA().size() != 4)
    return emitOpError("A's fragment is 4 i32 a thread, got ") << getA().size();
  Type m = getMultiplicand();
  if (!m.isBF16() && !m.isF16())
    return emitOpError("multiplicands must be bf16 or f16, got ") << m;
  return success();
}

LogicalResult SelectColsOp::verify() {
  int64_t split = static_cast<int64_t>(getSplit()), cols = getType().getDimSize(0);
  if (split < 0 || split > cols)
    return emitOpError("split ") << split << " is outside the tile's columns [0, " << cols
                                 << "]";
  return success();
}

LogicalResult MatmulOp::verify() {
  auto lhs = llvm::cast<MemRefType>(getLhs().getType());
  auto rhs = llvm::cast<MemRefType>(getRhs().getType());
  bool lhsBatched = getTransposeA() && lhs.getRank() == 3; // [batch, K, M]
  if ((lhs.getRank() != 2 && !lhsBatched) || (rhs.getRank() != 2 && rhs.getRank() != 3))
    return emitOpError("operands must be 2-D memrefs (batched: a 3-D rhs, a 3-D transposed "
                       "lhs), got ")
           << lhs << " and " << rhs;
  if (getTransposeA() && rhs.getRank() == 3 && !lhsBatched)
    return emitOpError("a batched rhs needs a batched transposed lhs [batch, K, M], got ")
           << lhs;
  if (lhsBatched && rhs.getRank() == 3 && lhs.getDimSize(0) != rhs.getDimSize(0))
    return emitOpError("batch counts differ: ") << lhs << " vs " << rhs;
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpError("operands must have one element type, got ") << lhs << " and " << rhs;
  if (getTransposeA() && !lhs.hasStaticShape())
    return emitOpError("a transposed lhs must have static dims, got ") << lhs;
  if (rhs.hasStaticShape() == false)
    return emitOpError("rhs must have static dims, got ") << rhs;
  if (!getTransposeA() && lhs.isDynamicDim(1))
    return emitOpError("lhs rows must have a static length (K), got ") << lhs;
  int64_t kA = getTransposeA() ? lhs.getDimSize(lhs.getRank() - 2) : lhs.getDimSize(1);
  int64_t r0 = rhs.getRank() - 2; // the batch dim of a 3-D rhs comes first
  int64_t kB = getTransposeB() ? rhs.getDimSize(r0 + 1) : rhs.getDimSize(r0);
  int64_t n = getTransposeB() ? rhs.getDimSize(r0) : rhs.getDimSize(r0 + 1);
  if (kA != kB)
    return emitOpError("contraction dims differ: ") << kA << " (lhs " << lhs << ") vs " << kB
                                                   << " (rhs " << rhs << ")";
  if (getType().getDimSize(0) != n)
    return emitOpError("result must have ") << n << " columns, got " << getType();
  return success();
}

LogicalResult RowMatmulOp::verify() {
  auto lhs = llvm::cast<RankedTensorType>(getLhs().getType());
  auto rhs = llvm::cast<MemRefType>(getRhs().getType());
  if (rhs.getRank() != 2 && rhs.getRank() != 3)
    return emitOpError("rhs must be a 2-D memref (or a batched 3-D one), got ") << rhs;
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpError("operands must have one element type, got ") << lhs << " and " << rhs;
  if (!rhs.hasStaticShape())
    return emitOpError("rhs must have static dims, got ") << rhs;
  int64_t r0 = rhs.getRank() - 2;
  int64_t k = getTransposeB() ? rhs.getDimSize(r0 + 1) : rhs.getDimSize(r0);
  int64_t n = getTransposeB() ? rhs.getDimSize(r0) : rhs.getDimSize(r0 + 1);
  if (lhs.getDimSize(0) != k)
    return emitOpError("contraction dims differ: ") << lhs.getDimSize(0) << " (lhs " << lhs
                                                   << ") vs " << k << " (rhs " << rhs << ")";
  if (getType().getDimSize(0) != n)
    return emitOpError("result must have ") << n << " columns, got " << getType();
  return success();
}

LogicalResult ReduceSumOp::verify() {
  if (!getInput().getType().getElementType().isF32())
    return emitOpError("reductions take f32 tiles (upcast first)");
  return success();
}

LogicalResult ReduceMaxOp::verify() {
  if (!getInput().getType().getElementType().isF32())
    return emitOpError("reductions take f32 tiles (upcast first)");
  return success();
}

LogicalResult ReduceMaxSumExpOp::verify() {
  if (!getInput().getType().getElementType().isF32())
    return emitOpError("reductions take f32 tiles (upcast first)");
  if (getExp() && getExp().getType() != getInput().getType())
    return emitOpError("exp tile must have the input's type");
  return success();
}

LogicalResult ReduceMeanM2Op::verify() {
  if (!getInput().getType().getElementType().isF32())
    return emitOpError("reductions take f32 tiles (upcast first)");
  return success();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  // Before distribution the kernel is a func.func beside the host function;
  // after, a function of the same name inside a gpu.module.
  Operation *kernel = symbols.lookupNearestSymbolFrom(*this, getCalleeAttr());
  if (!kernel) {
    Operation *top = (*this)->getParentWithTrait<OpTrait::SymbolTable>();
    for (Region &region : top->getRegions())
      for (Operation &child : region.getOps())
        if (child.hasTrait<OpTrait::SymbolTable>() && !kernel)
          kernel = symbols.lookupSymbolIn(&child, getCalleeAttr());
  }
  auto fn = llvm::dyn_cast_if_present<FunctionOpInterface>(kernel);
  if (!fn)
    return emitOpError("no tile kernel named ") << getCalleeAttr();
  size_t expected = getInputs().size() + getResults().size();
  // A TMA GEMM kernel also takes its tensor maps, after the buffers.
  if (auto maps = fn->getAttrOfType<IntegerAttr>("tile.tma_params"))
    expected += maps.getInt();
  // A GEMM whose k steps are split over CTAs takes its workspace before them.
  if (fn->hasAttr("tile.split_workspace"))
    expected += 1;
  if (fn.getNumArguments() != expected)
    return emitOpError("kernel ") << getCallee() << " takes "
           << fn.getNumArguments() << " buffers, expected " << expected
           << " (inputs then results)";
  return success();
}

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/TileOps.cpp.inc"
