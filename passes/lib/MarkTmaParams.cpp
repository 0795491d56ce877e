// tilec-mark-tma-params: TMA tensor maps travel to a kernel by value.
//
// A TMA GEMM kernel (tilec-distribute-gemm-tiles) takes its CUtensorMaps as
// trailing pointer arguments, counted by `tile.tma_params`. After
// convert-gpu-to-nvvm they become 128-byte `byval` parameters, 64-byte
// aligned and marked `nvvm.grid_constant`: the NVPTX backend then declares
// `.param .align 64 .b8 p[128]` and hands the copy instructions the
// parameter's own (generic, cvta.param) address, which is what
// cp.async.bulk.tensor needs; the host writes each map into the launch's
// parameter buffer (no device memory, nothing to copy per launch).
//
// The same pass, the one that sees the expanded parameters, applies
// readonly-inputs: a row kernel's `tile.readonly_params` (the aligned
// pointers of the buffers it only loads, as tilec-distribute-row-tiles
// counts them) become `noalias readonly`, which NVPTX loads through
// ld.global.nc.
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace tilec {
#define GEN_PASS_DEF_MARKTMAPARAMS
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct MarkTmaParamsPass : tilec::impl::MarkTmaParamsBase<MarkTmaParamsPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      if (failed(markReadonly(fn)))
        return signalPassFailure();
      auto count = fn->getAttrOfType<IntegerAttr>("tile.tma_params");
      if (!count)
        continue;
      int64_t n = count.getInt();
      int64_t args = fn.getNumArguments();
      if (n < 0 || n > args) {
        fn.emitOpError("tile.tma_params ") << n << " exceeds the " << args << " arguments";
        return signalPassFailure();
      }
      MLIRContext *ctx = fn.getContext();
      Builder b(ctx);
      auto bytes = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 128);
      for (int64_t i = args - n; i < args; ++i) {
        if (!llvm::isa<LLVM::LLVMPointerType>(fn.getArgument(i).getType())) {
          fn.emitOpError("TMA parameter ") << i << " is not a pointer";
          return signalPassFailure();
        }
        fn.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(), TypeAttr::get(bytes));
        fn.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(), b.getI32IntegerAttr(64));
        fn.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(), b.getUnitAttr());
      }
      fn->removeAttr("tile.tma_params");
    }
  }

  /// readonly-inputs: the aligned pointers of buffers the kernel only reads
  /// become noalias readonly parameters, which NVPTX loads through
  /// ld.global.nc.
  static LogicalResult markReadonly(LLVM::LLVMFuncOp fn) {
    auto params = fn->getAttrOfType<DenseI64ArrayAttr>(tilec::kReadonlyParamsAttr);
    if (!params)
      return success();
    Builder b(fn.getContext());
    for (int64_t i : params.asArrayRef()) {
      if (i < 0 || i >= fn.getNumArguments() ||
          !llvm::isa<LLVM::LLVMPointerType>(fn.getArgument(i).getType()))
        return fn.emitOpError("read-only parameter ") << i << " is not a pointer";
      fn.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), b.getUnitAttr());
      fn.setArgAttr(i, LLVM::LLVMDialect::getReadonlyAttrName(), b.getUnitAttr());
    }
    fn->removeAttr(tilec::kReadonlyParamsAttr);
    return success();
  }
};

} // namespace
