// tilec-approx-math: fast-math tanh to the hardware's tanh.approx.f32.
//
// convert-gpu-to-nvvm lowers every f32 math.tanh to libdevice's __nv_tanhf
// (about 20 instructions) whatever its fast-math flags, while exp, log and
// division with `afn` become ex2/lg2/div.approx. This pass, run on the
// gpu.module before it, turns an f32 (scalar or vector) math.tanh marked
// `afn` into llvm.intr.tanh with `afn`, which the NVPTX backend emits as
// tanh.approx.f32 (sm_75 and up; absolute error about 2^-11).
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"

namespace tilec {
#define GEN_PASS_DEF_APPROXMATH
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct ApproxMathPass : tilec::impl::ApproxMathBase<ApproxMathPass> {
  void runOnOperation() override {
    SmallVector<math::TanhOp> tanhs;
    getOperation()->walk([&](math::TanhOp op) {
      if (bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn) &&
          getElementTypeOrSelf(op.getType()).isF32())
        tanhs.push_back(op);
    });
    for (math::TanhOp op : tanhs) {
      OpBuilder b(op);
      auto flags = LLVM::FastmathFlagsAttr::get(op.getContext(), LLVM::FastmathFlags::afn);
      Value t = b.create<LLVM::TanhOp>(op.getLoc(), op.getType(), op.getOperand(), flags);
      op.replaceAllUsesWith(t);
      op.erase();
    }
  }
};

} // namespace
