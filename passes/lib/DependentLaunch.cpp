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
// to the first other op or the block's end, and on through branches around
// blocks of the same whose prefetches are marked tilec.ahead_of_wait (a row
// kernel's guarded prefetches of its rows under row-l2-prefetch-first,
// DistributeRowTiles' prefetchRowsAhead) into the block where both paths
// join: the wait dominates every memory access. A kernel launched without
// the attribute (or after a copy, a memset, or another library's kernel)
// passes the wait at once: the PTX is correct under either launch.
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

/// If `op` ends a block with a branch around a block of ops that may run
/// before the wait, its prefetches marked kAheadOfWaitAttr (an `scf.if`
/// of L2 prefetches, as lowered: cond_br to it or past it, and from it to
/// the same join, no block arguments), the join, where the scan goes on;
/// else null. The join's predecessors are exactly those two blocks, so a
/// wait in the join dominates every access after it, and nothing before
/// it touches memory.
Block *prefetchDiamondJoin(Operation &op) {
  auto br = llvm::dyn_cast<LLVM::CondBrOp>(op);
  if (!br || br->getNumOperands() != 1)
    return nullptr;
  Block *from = op.getBlock();
  for (auto [side, join] : {std::pair(br.getTrueDest(), br.getFalseDest()),
                            std::pair(br.getFalseDest(), br.getTrueDest())}) {
    if (side == join || side == from || join == from || side->getNumArguments() != 0 ||
        join->getNumArguments() != 0 || side->getSinglePredecessor() != from)
      continue;
    auto next = llvm::dyn_cast<LLVM::BrOp>(side->getTerminator());
    if (!next || next.getDest() != join || next->getNumOperands() != 0)
      continue;
    if (!llvm::all_of(side->without_terminator(), [](Operation &o) {
          return mayRunBeforeWait(o) &&
                 (!llvm::isa<NVVM::PrefetchOp>(o) || o.hasAttr(tilec::kAheadOfWaitAttr));
        }))
      continue;
    SmallVector<Block *> preds(join->getPredecessors());
    if (preds.size() == 2 && llvm::is_contained(preds, from) && llvm::is_contained(preds, side))
      return join;
  }
  return nullptr;
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
      Block *block = &fn.getBody().front();
      auto at = block->begin();
      while (true) {
        while (at != block->end() && mayRunBeforeWait(*at))
          ++at;
        Block *join = at != block->end() ? prefetchDiamondJoin(*at) : nullptr;
        if (!join)
          break;
        block = join;
        at = block->begin();
      }
      OpBuilder b(block, at);
      NVVM::GriddepcontrolOp::create(b, fn.getLoc(), NVVM::GridDepActionKind::wait);
      NVVM::GriddepcontrolOp::create(b, fn.getLoc(), NVVM::GridDepActionKind::launch_dependents);
    }
  }
};

} // namespace
