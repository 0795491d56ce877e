// tilec-fold-transposes: the transposes that need no kernel.
//
// Runs on the graph before fusion. A graph.transpose swapping dims d0 < d1:
//   - the same swap applied twice is the operand itself;
//   - a swap that keeps the order of the dims larger than 1 (a [1, 32, 128]
//     query's [32, 1, 128]) moves no element: it becomes a graph.reshape,
//     which the launch plan reads as a view of its operand's buffer;
//   - (neither of these where the transpose is returned and would become
//     an input, a constant or a view of one: an output no kernel computes;
//     it stays a kernel, a copy);
//   - a swap of the last two dims that feeds a matmul operand becomes that
//     operand's transpose flag (transpose_a / transpose_b flipped): the GEMM
//     reads the operand in either layout (attention's q @ k^T), so no
//     transposed copy is written.
// The other transposes are left to tilec-fuse: a swap of two row dims (the
// last dim kept) is gathered by a row kernel, and a swap of the last dim
// becomes a kernel of strided rows (tilec-lower-fusion-to-tile).
#include "tilec/Passes/Passes.h"

namespace tilec {
#define GEN_PASS_DEF_FOLDTRANSPOSES
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

using tilec::graph::MatmulOp;
using tilec::graph::TransposeOp;

/// Whether swapping dims d0 and d1 of `shape` keeps the dims larger than 1
/// in order (then the row-major order of the elements is unchanged).
bool keepsOrder(ArrayRef<int64_t> shape, int64_t d0, int64_t d1) {
  if (shape[d0] == 1 && shape[d1] == 1)
    return true;
  // One of them larger than 1 moves across the dims between: all 1. Both
  // larger than 1 trade places.
  bool between = llvm::any_of(shape.slice(d0 + 1, d1 - d0 - 1), [](int64_t d) { return d > 1; });
  return !between && (shape[d0] == 1 || shape[d1] == 1);
}

/// Whether `t` is returned and `replacement` (what would stand for it) is
/// an input or a constant, or a view of one: no kernel would compute the
/// output then. A transpose is a new tensor, so such a one stays a kernel
/// (a copy) rather than fold into a view that could not be returned.
bool returnedAsAView(TransposeOp t, Value replacement) {
  if (!llvm::any_of(t->getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); }))
    return false;
  while (auto view = replacement.getDefiningOp<tilec::graph::ReshapeOp>())
    replacement = view.getInput();
  return isa<BlockArgument>(replacement) ||
         replacement.getDefiningOp<tilec::graph::ConstantOp>();
}

/// Flips the transpose flags of every matmul operand `t` (a swap of the last
/// two dims) and reads its input there instead.
void foldIntoMatmuls(TransposeOp t) {
  for (OpOperand &use : llvm::make_early_inc_range(t->getUses())) {
    auto matmul = dyn_cast<MatmulOp>(use.getOwner());
    if (!matmul)
      continue;
    if (use.getOperandNumber() == 0)
      matmul.setTransposeA(!matmul.getTransposeA());
    else
      matmul.setTransposeB(!matmul.getTransposeB());
    use.set(t.getInput());
  }
}

struct FoldTransposesPass : tilec::impl::FoldTransposesBase<FoldTransposesPass> {
  void runOnOperation() override {
    SmallVector<TransposeOp> transposes;
    getOperation().walk([&](TransposeOp t) { transposes.push_back(t); });
    // In program order: an inner transpose is folded before its users.
    for (TransposeOp t : transposes) {
      auto in = cast<RankedTensorType>(t.getInput().getType());
      int64_t d0 = t.getDim0(), d1 = t.getDim1();
      auto inner = t.getInput().getDefiningOp<TransposeOp>();
      if (inner && static_cast<int64_t>(inner.getDim0()) == d0 &&
          static_cast<int64_t>(inner.getDim1()) == d1) {
        if (!returnedAsAView(t, inner.getInput()))
          t.getResult().replaceAllUsesWith(inner.getInput());
      } else if (keepsOrder(in.getShape(), d0, d1)) {
        if (returnedAsAView(t, t.getInput()))
          continue;
        OpBuilder b(t);
        t.getResult().replaceAllUsesWith(
            b.create<tilec::graph::ReshapeOp>(t.getLoc(), t.getType(), t.getInput()));
      } else if (d0 == in.getRank() - 2 && d1 == in.getRank() - 1) {
        foldIntoMatmuls(t);
      }
    }
    // (Users before producers: a transpose of a transpose goes after it.)
    for (TransposeOp t : llvm::reverse(transposes))
      if (t->use_empty())
        t.erase();
  }
};

} // namespace
