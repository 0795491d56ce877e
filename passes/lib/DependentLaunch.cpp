// tilec-dependent-launch: kernels that may start before the kernel ahead of
// them in the stream has finished (programmatic dependent launch, sm_90+).
//
// The runtime launches tilec's kernels with the driver's programmatic stream
// serialization attribute: such a kernel's CTAs may be scheduled as soon as
// every CTA of the previous kernel in the stream has executed
// `griddepcontrol.launch_dependents` (or exited), instead of after that
// kernel has finished and flushed its memory. The early CTAs take SM slots
// that the previous kernel's last wave leaves free, so the launch and the
// CTAs' dispatch overlap its tail.
//
// That is only safe if the early kernel touches no global memory before the
// previous one is done: this pass puts `griddepcontrol.wait` (block until
// every prerequisite grid has completed and its memory is visible) first in
// each kernel, before any load or store, and `griddepcontrol.launch_dependents`
// right after it, so the kernel after this one may be scheduled from then
// on. A kernel launched without the attribute (or after a copy, a memset, or
// another library's kernel) passes the wait at once: the PTX is correct
// under either launch.
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace tilec {
#define GEN_PASS_DEF_DEPENDENTLAUNCH
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct DependentLaunchPass : tilec::impl::DependentLaunchBase<DependentLaunchPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      if (!fn->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()) || fn.isExternal())
        continue;
      Block &entry = fn.getBody().front();
      // Already marked (the pass ran twice): keep one pair.
      if (auto first = llvm::dyn_cast<NVVM::GriddepcontrolOp>(entry.front());
          first && first.getKind() == NVVM::GridDepActionKind::wait)
        continue;
      OpBuilder b = OpBuilder::atBlockBegin(&entry);
      NVVM::GriddepcontrolOp::create(b, fn.getLoc(), NVVM::GridDepActionKind::wait);
      NVVM::GriddepcontrolOp::create(b, fn.getLoc(),
                                     NVVM::GridDepActionKind::launch_dependents);
    }
  }
};

} // namespace
