// Sinking a row kernel's loads past its reductions.
//
// LowerFusionToTile emits every tile.load at the top of the kernel, so a
// layer_norm's weight and bias (or an rms_norm's weight) are held in
// registers across the row's reductions although nothing reads them before
// the normalization: in a kernel whose row lives in registers that raises
// the peak by their size (layer_norm bf16 [8192, 4096]: 80 registers a
// thread, 6 CTAs of 128 threads an SM). Moving each such load, and the
// conversion that only it feeds, to just before its first user shortens
// their lives to the epilogue; the load latency it exposes is covered by
// the extra CTAs on the SM. Loads never move past a store, and rows that
// are streamed (re-read block by block) keep their order.
#include "tilec/Passes/Passes.h"

#include "tilec/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

int64_t tilec::sinkLoadsPastReductions(func::FuncOp kernel) {
  if (kernel.getBody().empty() || !kernel.getBody().hasOneBlock())
    return 0;
  Block &body = kernel.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body)
    ops.push_back(&op);
  int64_t moved = 0;
  // Bottom-up, so that a conversion moves first and its load then follows.
  for (Operation *op : llvm::reverse(ops)) {
    bool load = isa<tile::LoadOp>(op);
    bool conversion = isa<arith::ExtFOp>(op) && op->getOperand(0).getDefiningOp<tile::LoadOp>();
    if (!load && !conversion)
      continue;
    Operation *first = nullptr;
    for (Operation *user : op->getUsers()) {
      Operation *u = body.findAncestorOpInBlock(*user);
      if (u && (!first || u->isBeforeInBlock(first)))
        first = u;
    }
    if (!first)
      continue;
    bool pastReduction = false, pastStore = false;
    for (Operation *it = op->getNextNode(); it && it != first; it = it->getNextNode()) {
      pastReduction |= tilec::isRowReduction(it);
      pastStore |= isa<tile::StoreOp>(it);
    }
    // A conversion follows its load wherever that is; a load moves only
    // past a reduction (where it saves registers) and never past a store.
    if ((load && (!pastReduction || pastStore)) || (conversion && !pastReduction))
      continue;
    op->moveBefore(first);
    ++moved;
  }
  return moved;
}

int64_t tilec::rewidenPastReductions(func::FuncOp kernel) {
  if (kernel.getBody().empty() || !kernel.getBody().hasOneBlock())
    return 0;
  Block &body = kernel.getBody().front();
  SmallVector<arith::ExtFOp> exts;
  for (Operation &op : body)
    if (auto ext = dyn_cast<arith::ExtFOp>(op))
      if (ext.getIn().getDefiningOp<tile::LoadOp>() &&
          getElementTypeOrSelf(ext.getIn().getType()).isBF16())
        exts.push_back(ext);
  int64_t cloned = 0;
  for (arith::ExtFOp ext : exts) {
    // The first reduction past the widening, and the users past it.
    Operation *reduction = nullptr;
    for (Operation *it = ext->getNextNode(); it && !reduction; it = it->getNextNode())
      if (tilec::isRowReduction(it))
        reduction = it;
    if (!reduction)
      continue;
    SmallVector<OpOperand *> late;
    bool early = false;
    for (OpOperand &use : ext->getUses()) {
      Operation *u = body.findAncestorOpInBlock(*use.getOwner());
      if (u && reduction->isBeforeInBlock(u))
        late.push_back(&use);
      else
        early = true;
    }
    if (!early || late.empty())
      continue;
    Operation *first = nullptr;
    for (OpOperand *use : late) {
      Operation *u = body.findAncestorOpInBlock(*use->getOwner());
      if (!first || u->isBeforeInBlock(first))
        first = u;
    }
    OpBuilder b(first);
    Operation *copy = b.clone(*ext);
    copy->setAttr(kRewidenAttr, b.getUnitAttr());
    for (OpOperand *use : late)
      use->set(copy->getResult(0));
    ++cloned;
  }
  return cloned;
}
