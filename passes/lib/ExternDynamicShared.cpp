// tilec-extern-dynamic-shared: the dynamic shared memory of a kernel starts
// after its static shared memory.
//
// convert-gpu-to-nvvm lowers gpu.dynamic_shared_memory to an *internal*
// zero-sized addrspace(3) global, `__dynamic_shmem__N`. The NVPTX backend
// demotes such a global into the one kernel that uses it as a plain
// `.shared .align 16 .b8 __dynamic_shmem__N;`: one static byte at the
// start of the kernel's shared window, so the "dynamic" region overlaps
// every static shared variable placed after it (the cross-warp reduction
// buffers of a row kernel). A kernel with no other shared variable (every
// GEMM) happens to work; a streamed row kernel that keeps its row in
// dynamic shared memory overwrote its reduction buffers and read them
// misaligned (CUDA_ERROR_MISALIGNED_ADDRESS on the H200).
//
// Declared external, the same global prints as
// `.extern .shared .align A .b8 __dynamic_shmem__N[];`, which the driver
// places after the static variables, as CUDA's `extern __shared__`.
//
// The static shared variables (workgroup attributions, 4-byte aligned by
// convert-gpu-to-nvvm) get 16-byte alignment too: LLVM merges the scalar
// reads of a reduction buffer into 16-byte `ld.shared.v4`, which PTX
// requires to be 16-byte aligned, and nothing else guaranteed it.
#include "tilec/Passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace tilec {
#define GEN_PASS_DEF_EXTERNDYNAMICSHARED
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

constexpr unsigned kSharedAddressSpace = 3;
constexpr uint64_t kVectorBytes = 16;

struct ExternDynamicSharedPass : tilec::impl::ExternDynamicSharedBase<ExternDynamicSharedPass> {
  void runOnOperation() override {
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      if (global.getAddrSpace() != kSharedAddressSpace)
        continue;
      if (global.getAlignment().value_or(0) < kVectorBytes)
        global.setAlignment(kVectorBytes);
      auto array = llvm::dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (!array || array.getNumElements() != 0 ||
          global.getInitializerRegion().getBlocks().size() != 0 || global.getValueAttr())
        continue;
      global.setLinkage(LLVM::Linkage::External);
      global.setDsoLocal(false);
    }
  }
};

} // namespace
