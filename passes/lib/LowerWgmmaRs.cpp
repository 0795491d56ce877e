// tilec-lower-wgmma-rs: tile.wgmma_rs, the register-A wgmma, to its PTX.
//
// NVVM 22's wgmma.mma_async takes A from shared memory only (a matrix
// descriptor); PTX also has the form with A in registers, which flash
// attention wants for P = exp(S - m): the probabilities are already in the
// threads' registers, in the accumulator layout of the S product, which is
// the register-A fragment layout (mma.sync's). LLVM has no intrinsic for
// either form: MLIR lowers its NVVM op to an llvm.inline_asm of the
// instruction (BasicPtxBuilderInterface). This pass does the same for the
// register-A form, one instruction a tile.wgmma_rs:
//
//   { .reg .pred p; setp.ne.b32 p, SCALE_D, 0;
//     wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T {d...}, {a0, a1, a2, a3},
//       desc_b, p, 1, 1, TRANS_B; }
//
// with the N / 2 accumulators as outputs tied to their inputs ("=f" and
// "0"...), the fragment as "r", the descriptor as "l" and the immediates
// in the string. It has side effects (it is asynchronous: the fence,
// commit and wait around it order it). Run before convert-nvvm-to-llvm,
// inside the gpu.module; the op's operands are LLVM types already.
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <string>

namespace tilec {
#define GEN_PASS_DEF_LOWERWGMMARS
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

/// The PTX and constraints of one register-A wgmma with N / 2 accumulators
/// a thread (operands: N / 2 outputs, N / 2 tied inputs, 4 A registers,
/// B's descriptor).
std::pair<std::string, std::string> wgmmaRsAsm(int64_t n, bool bf16, bool bMN, bool zeroAcc) {
  int64_t nAcc = n / 2;
  const char *t = bf16 ? "bf16" : "f16";
  std::string ptx = "{\n.reg .pred p;\nsetp.ne.b32 p, " + std::to_string(zeroAcc ? 0 : 1) +
                    ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32." +
                    t + "." + t + " {";
  std::string constraints;
  for (int64_t i = 0; i < nAcc; ++i) {
    ptx += (i ? ", $" : "$") + std::to_string(i);
    constraints += (i ? ",=f" : "=f");
  }
  for (int64_t i = 0; i < nAcc; ++i)
    constraints += "," + std::to_string(i);
  ptx += "}, {";
  for (int64_t i = 0; i < 4; ++i) {
    ptx += (i ? ", $" : "$") + std::to_string(2 * nAcc + i);
    constraints += ",r";
  }
  ptx += "}, $" + std::to_string(2 * nAcc + 4) + ", p, 1, 1, " + (bMN ? "1" : "0") + ";\n}\n";
  constraints += ",l";
  return {ptx, constraints};
}

struct LowerWgmmaRsPass : tilec::impl::LowerWgmmaRsBase<LowerWgmmaRsPass> {
  void runOnOperation() override {
    SmallVector<tilec::tile::WgmmaRsOp> ops;
    getOperation()->walk([&](tilec::tile::WgmmaRsOp op) { ops.push_back(op); });
    for (tilec::tile::WgmmaRsOp op : ops) {
      OpBuilder b(op);
      auto [ptx, constraints] = wgmmaRsAsm(op.getN(), op.getMultiplicand().isBF16(),
                                                  op.getBMn(), op.getZeroAcc());
      auto acc = llvm::cast<LLVM::LLVMStructType>(op.getAcc().getType());
      SmallVector<Value> operands;
      for (int64_t i = 0, e = acc.getBody().size(); i < e; ++i)
        operands.push_back(b.create<LLVM::ExtractValueOp>(op.getLoc(), op.getAcc(), i));
      operands.append(op.getA().begin(), op.getA().end());
      operands.push_back(op.getDescriptorB());
      auto asmOp = b.create<LLVM::InlineAsmOp>(
          op.getLoc(), acc, operands, ptx, constraints, /*has_side_effects=*/true,
          /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
          LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
          /*operand_attrs=*/ArrayAttr());
      op.getResult().replaceAllUsesWith(asmOp.getResult(0));
      op.erase();
    }
  }
};

} // namespace
