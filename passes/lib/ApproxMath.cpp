// tilec-approx-math: fast-math tanh and flushing exps to the hardware's
// approximate instructions.
//
// convert-gpu-to-nvvm lowers every f32 math.tanh to libdevice's __nv_tanhf
// (about 20 instructions) whatever its fast-math flags, while exp, log and
// division with `afn` become ex2/lg2/div.approx. This pass, run on the
// gpu.module before it, turns an f32 (scalar or vector) math.tanh marked
// `afn` into llvm.intr.tanh with `afn`, which the NVPTX backend emits as
// tanh.approx.f32 (sm_75 and up; absolute error about 2^-11).
//
// An f32 math.exp or math.exp2 marked `afn` and tile.flush_exp (kFlushExpAttr:
// its results below 2^-126 may read as zero) becomes, element by element,
// the ex2.approx.ftz intrinsic (of x * log2(e) for exp): what libdevice's
// __nv_fast_expf is under -ftz, without flushing the rest of the kernel.
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

#include <cmath>

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
    SmallVector<Operation *> exps;
    getOperation()->walk([&](Operation *op) {
      auto fm = op->getAttrOfType<arith::FastMathFlagsAttr>("fastmath");
      if (isa<math::ExpOp, math::Exp2Op>(op) && op->hasAttr(tilec::kFlushExpAttr) && fm &&
          bitEnumContainsAll(fm.getValue(), arith::FastMathFlags::afn) &&
          getElementTypeOrSelf(op->getResult(0).getType()).isF32())
        exps.push_back(op);
    });
    for (Operation *op : exps) {
      OpBuilder b(op);
      op->getResult(0).replaceAllUsesWith(flushingExp2(b, op->getLoc(), op->getOperand(0),
                                                       isa<math::ExpOp>(op)));
      op->erase();
    }
  }

  /// 2^x (or e^x, as 2^(x log2 e)) through llvm.nvvm.ex2.approx.ftz.f, one
  /// element at a time.
  static Value flushingExp2(OpBuilder &b, Location loc, Value x, bool natural) {
    Type f32 = b.getF32Type();
    Value log2e =
        natural ? b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(static_cast<float>(M_LOG2E)))
                : Value();
    auto one = [&](Value v) -> Value {
      if (log2e)
        v = b.create<arith::MulFOp>(loc, v, log2e);
      return b.create<LLVM::CallIntrinsicOp>(loc, f32, b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"),
                                             ValueRange{v})
          .getResult(0);
    };
    auto vec = llvm::dyn_cast<VectorType>(x.getType());
    if (!vec)
      return one(x);
    Value out = b.create<LLVM::PoisonOp>(loc, vec);
    for (int64_t i = 0; i < vec.getNumElements(); ++i) {
      Value e = b.create<vector::ExtractOp>(loc, x, i);
      out = b.create<vector::InsertOp>(loc, one(e), out, i);
    }
    return out;
  }
};

} // namespace
