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
// every prerequisite grid has completed and its memory is visible) before
// each kernel's first load or store, and `griddepcontrol.launch_dependents`
// right after it, so the kernel after this one may be scheduled from then
// on. What comes before the wait is the straight-line start of the kernel's
// entry block made of ops without memory effects (index math, the kernel
// parameters' descriptors) and L2 prefetches (prefetch.global.L2, which
// change no value: a GEMM's weights, DistributeGemmTiles' prefetchRhs), up
// to the first other op or the block's end: the wait dominates every memory
// access. A kernel launched without the attribute (or after a copy, a
// memset, or another library's kernel) passes the wait at once: the PTX is
// correct under either launch.
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tilec {
#define GEN_PASS_DEF_DEPENDENTLAUNCH
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

/// Whether `op` may run before the kernel ahead has finished: no memory
/// effects (and no regions, no successors), or a prefetch into L2 or of a
/// tensor map.
bool mayRunBeforeWait(Operation &op) {
  if (op.hasTrait<OpTrait::IsTerminator>() || op.getNumRegions() != 0)
    return false;
  if (auto prefetch = llvm::dyn_cast<NVVM::PrefetchOp>(op))
    return !prefetch.getPredicate() &&
           (prefetch.getTensormap() ||
            (prefetch.getCacheLevel() == NVVM::PrefetchCacheLevel::L2 && !prefetch.getUniform()));
  return isMemoryEffectFree(&op);
}

struct DependentLaunchPass : tilec::impl::DependentLaunchBase<DependentLaunchPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      if (!fn->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()) || fn.isExternal())
        continue;
      // Already marked (the pass ran twice): keep one pair.
      bool marked = false;
      fn.walk([&](NVVM::GriddepcontrolOp op) {
        marked |= op.getKind() == NVVM::GridDepActionKind::wait;
      });
      if (marked)
        continue;
      Block &entry = fn.getBody().front();
      auto at = entry.begin();
      while (at != entry.end() && mayRunBeforeWait(*at))
        ++at;
      OpBuilder b(&entry, at);
      NVVM::GriddepcontrolOp::create(b, fn.getLoc(), NVVM::GridDepActionKind::wait);
      NVVM::GriddepcontrolOp::create(b, fn.getLoc(), NVVM::GridDepActionKind::launch_dependents);
    }
  }
};

} // namespace
