// The stage-by-stage pass pipeline, from the graph dialect down to PTX.
#include "tilec/compiler/Internal.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Extensions/AllExtensions.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMInterface.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "tilec/Dialect/Graph/GraphDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/Passes/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

namespace tilec {

Expected<Stage> parseStage(const std::string &name) {
  static const std::pair<const char *, Stage> stages[] = {
      {"graph", Stage::Graph}, {"fused", Stage::Fused}, {"tile", Stage::Tile},
      {"gpu", Stage::Gpu},     {"llvm", Stage::Llvm},   {"ptx", Stage::Ptx}};
  for (auto &[n, s] : stages)
    if (name == n)
      return s;
  return Status::error("unknown stage '" + name +
                       "' (expected graph, fused, tile, gpu, llvm or ptx)");
}

Status validateTarget(const std::string &target) {
  for (const char *t : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"})
    if (target == t)
      return Status::success();
  return Status::error("unsupported target '" + target +
                       "' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)");
}

bool usesDependentLaunch(const CompileOptions &options) {
  return options.dependentLaunch && (options.target == "sm_90" || options.target == "sm_90a");
}

void registerTilecDialects(DialectRegistry &registry) {
  registry.insert<graph::GraphDialect, tile::TileDialect, func::FuncDialect,
                  arith::ArithDialect, math::MathDialect, memref::MemRefDialect,
                  tensor::TensorDialect, scf::SCFDialect, cf::ControlFlowDialect,
                  vector::VectorDialect, gpu::GPUDialect, NVVM::NVVMDialect,
                  LLVM::LLVMDialect, affine::AffineDialect, index::IndexDialect,
                  ub::UBDialect, nvgpu::NVGPUDialect>();
  func::registerAllExtensions(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  // convert-gpu-to-nvvm lowers the other dialects through these interfaces.
  arith::registerConvertArithToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
}

void registerAllTilecPasses() {
  static bool once = [] {
    registerTilecPasses();
    // Only the upstream passes the stage pipelines name: registering whole
    // pass families would link every conversion (SPIR-V, ROCDL, ...) into
    // the static binaries.
    registerCanonicalizerPass();
    registerCSEPass();
    registerConvertVectorToSCFPass();
    registerSCFToControlFlowPass();
    memref::registerExpandStridedMetadataPass();
    registerGpuNVVMAttachTargetPass();
    registerLowerAffinePass();
    registerConvertGpuOpsToNVVMOpsPass();
    registerConvertNVGPUToNVVMPass();
    registerConvertNVVMToLLVMPass();
    registerReconcileUnrealizedCastsPass();
    registerGpuModuleToBinaryPassPass();
    return true;
  }();
  (void)once;
}

namespace {

std::string cudaRootFor(const CompileOptions &options) {
  if (const char *env = std::getenv("TILEC_CUDA_ROOT"); env && *env)
    return env;
  if (!options.cudaRoot.empty())
    return options.cudaRoot;
  return TILEC_CUDA_ROOT;
}

/// The passes that take a module from stage `to - 1` to stage `to`.
std::string stagePipeline(Stage to, const CompileOptions &options) {
  switch (to) {
  case Stage::Graph:
    return "";
  case Stage::Fused:
    return std::string("cse,tilec-fold-transposes,tilec-fuse{attention=") +
           (!options.fuseAttention ? "auto" : *options.fuseAttention ? "true" : "false") +
           (options.fuseOptions.empty() ? "" : " " + options.fuseOptions) + "}";
  case Stage::Tile:
    return std::string("tilec-lower-fusion-to-tile") +
           "{round-every-op=" + (options.roundEveryOp ? "true" : "false") +
           " fast-math=" + (options.fastMath ? "true" : "false") + "}" +
           ",canonicalize,cse,tilec-schedule-row-kernels{target=" + options.target +
           (usesDependentLaunch(options) ? " dependent-launch=true" : "") +
           (options.scheduleOptions.empty() ? "" : " " + options.scheduleOptions) + "}";
  case Stage::Gpu:
    return "tilec-distribute-row-tiles,tilec-distribute-transpose-tiles,tilec-distribute-gemm-tiles,"
           "canonicalize,cse";
  case Stage::Llvm:
    return "convert-vector-to-scf,convert-scf-to-cf,expand-strided-metadata,"
           "nvvm-attach-target{chip=" + options.target +
           " features=+ptx80 O=3},lower-affine,"
           "gpu.module(tilec-approx-math,tilec-lower-wgmma-rs,convert-nvgpu-to-nvvm,convert-gpu-to-nvvm," +
           std::string(options.fastMath && options.flushSubnormals ? "tilec-flush-subnormals," : "") +
           "tilec-mark-tma-params,tilec-extern-dynamic-shared," +
           std::string(usesDependentLaunch(options) ? "tilec-dependent-launch," : "") +
           "convert-nvvm-to-llvm,canonicalize,cse,"
           "reconcile-unrealized-casts)";
  case Stage::Ptx:
    return "gpu-module-to-binary{format=isa toolkit=" + cudaRootFor(options) + "}";
  }
  return "";
}

/// Host functions only describe launches; from the LLVM stage on the module
/// holds device code alone.
void dropHostFunctions(ModuleOp module) {
  for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    fn.erase();
}

} // namespace

Status lowerBetween(ModuleOp module, Stage from, Stage to, const CompileOptions &options) {
  registerAllTilecPasses();
  if (Status s = validateTarget(options.target); !s.ok())
    return s;
  MLIRContext *ctx = module.getContext();
  std::string diagnostics;
  llvm::raw_string_ostream diagOS(diagnostics);
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    diagOS << diag.getLocation() << ": "
           << (diag.getSeverity() == DiagnosticSeverity::Error ? "error: " : "note: ")
           << diag << "\n";
    for (Diagnostic &note : diag.getNotes()) {
      std::string text = note.str();
      // The op dump after a failure can be megabytes long; --emit a stage to see it.
      if (llvm::StringRef(text).starts_with("see current operation"))
        continue;
      diagOS << note.getLocation() << ": note: " << text << "\n";
    }
    return success();
  });
  for (int s = static_cast<int>(from) + 1; s <= static_cast<int>(to); ++s) {
    Stage stage = static_cast<Stage>(s);
    if (stage == Stage::Llvm)
      dropHostFunctions(module);
    PassManager pm(ctx, ModuleOp::getOperationName());
    if (options.printIRAfterAll) {
      ctx->disableMultithreading();
      pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                          [](Pass *, Operation *) { return true; },
                          /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false);
    }
    if (stage == Stage::Ptx) {
      // Math ops lower to libdevice calls; without it the PTX would carry
      // unresolved __nv_* functions that fail only at JIT time.
      std::string libdevice = cudaRootFor(options) + "/nvvm/libdevice/libdevice.10.bc";
      if (!llvm::sys::fs::exists(libdevice))
        return Status::error("libdevice not found at " + libdevice +
                             ": set TILEC_CUDA_ROOT (or CompileOptions::cudaRoot) to a "
                             "CUDA toolkit; math functions such as exp need it");
    }
    std::string pipeline = stagePipeline(stage, options);
    if (failed(parsePassPipeline(pipeline, pm, diagOS)))
      return Status::error((options.scheduleOptions.empty()
                                ? std::string("internal error: ")
                                : "bad schedule options '" + options.scheduleOptions + "'? ") +
                           "bad pass pipeline '" + pipeline + "': " + diagnostics);
    if (failed(pm.run(module)))
      return Status::error(diagnostics.empty() ? "compilation failed" : diagnostics);
  }
  return Status::success();
}

Status lowerToStage(ModuleOp module, Stage stage, const CompileOptions &options) {
  return lowerBetween(module, Stage::Graph, stage, options);
}

Expected<std::string> extractPTX(ModuleOp module) {
  std::string ptx;
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute a : binary.getObjects()) {
      auto object = llvm::cast<gpu::ObjectAttr>(a);
      if (object.getFormat() != gpu::CompilationTarget::Assembly)
        continue;
      ptx += object.getObject().getValue().str();
    }
  if (ptx.empty())
    return Status::error("the module holds no PTX (was it lowered to the ptx stage?)");
  if (ptx.find(".extern .func") != std::string::npos)
    return Status::error("the PTX calls external functions that were not linked "
                         "(libdevice missing?)");
  return ptx;
}

} // namespace tilec
