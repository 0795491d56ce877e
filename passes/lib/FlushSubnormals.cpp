// tilec-flush-subnormals: fast-math kernels flush f32 subnormals to zero.
//
// Under fast math the kernels already use the approximate hardware
// instructions for exp, division and reciprocal square root (ex2.approx,
// div.approx, rsqrt.approx). Their IEEE forms keep subnormal inputs and
// results, which on sm_90 costs three extra instructions around every
// MUFU.EX2 and MUFU.RCP (scale into the normal range and back); their
// `.ftz` forms are one instruction each. nvcc --use_fast_math flushes for
// the same reason (it implies -ftz=true).
//
// The pass marks every llvm.func of the gpu.module with
// `denormal_fp_math_f32 = "preserve-sign"`, which the NVPTX backend reads
// to select the `.ftz` forms of f32 instructions, and sets the module flag
// `nvvm-reflect-ftz` to 1, with which libdevice's functions (fast-math exp
// is __nv_fast_expf) take their flushing paths (NVVMReflect folds their
// __nvvm_reflect("__CUDA_FTZ") to it), as clang's
// -fcuda-flush-denormals-to-zero does. f32 values below
// 2^-126 (1.2e-38) then read and write as (signed) zero; f16 and bf16
// loads, stores and conversions are not affected. Run after
// convert-gpu-to-nvvm, on the LLVM functions.
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace tilec {
#define GEN_PASS_DEF_FLUSHSUBNORMALS
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct FlushSubnormalsPass : tilec::impl::FlushSubnormalsBase<FlushSubnormalsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    gpu::GPUModuleOp module = getOperation();
    auto mode = StringAttr::get(ctx, "preserve-sign");
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      fn.setDenormalFpMathF32Attr(mode);
    auto ftz = LLVM::ModuleFlagAttr::get(ctx, LLVM::ModFlagBehavior::Override,
                                         StringAttr::get(ctx, "nvvm-reflect-ftz"),
                                         IntegerAttr::get(IntegerType::get(ctx, 32), 1));
    for (auto flags : module.getOps<LLVM::ModuleFlagsOp>()) {
      if (llvm::any_of(flags.getFlags(), [](Attribute a) {
            auto f = llvm::dyn_cast<LLVM::ModuleFlagAttr>(a);
            return f && f.getKey() == "nvvm-reflect-ftz";
          })) {
        flags.emitOpError("already sets nvvm-reflect-ftz");
        return signalPassFailure();
      }
    }
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    b.create<LLVM::ModuleFlagsOp>(module.getLoc(), b.getArrayAttr({ftz}));
  }
};

} // namespace
