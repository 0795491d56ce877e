// tilec: compiles a built-in example graph or a .mlir file and prints one
// stage of the pipeline (graph, fused, tile, gpu, llvm, ptx).
#include "tilec/compiler/Examples.h"
#include "tilec/compiler/ProgramCache.h"
#include "tilec/compiler/Internal.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <string>

using namespace tilec;

namespace {

const char *kUsage = R"(usage: tilec [options] NAME|FILE.mlir

Compiles a built-in example graph (NAME) or a graph-dialect .mlir file and
prints one stage of the pipeline.

options:
  --emit=STAGE           graph | fused | tile | gpu | llvm | ptx  (default: ptx),
                         or program: the compiled program as JSON (PTX and launch
                         plans; deserializeProgram + Executable::load run it
                         on a GPU machine, ahead of time, with this tilec build)
  --target=SM            sm_80 | sm_86 | sm_89 | sm_90 | sm_90a    (default: sm_90a)
  -o FILE                write the output to FILE instead of stdout
  --explain-fusion       print the fusion groups, the HBM bytes each saves and
                         each kernel's schedule
  --rows=N --cols=N      example shape [rows, cols]         (default: 8192 x 4096;
                         matmuls: 4096 x 4096)
  --k=N                  contraction depth of the matmul examples  (default: 4096)
  --dtype=DT             example dtype: f32 | f16 | bf16    (default: bf16)
  --round-every-op       round f16/bf16 results after every op (eager PyTorch
                         semantics); default: keep them in f32 inside a kernel
                         and round at stores and explicit casts
  --precise-math         libdevice's correctly rounded exp, log, tanh and
                         division instead of the approximate instructions
  --flush-subnormals     fast math flushes f32 subnormals to zero (the .ftz
                         instructions, as nvcc --use_fast_math; measured
                         no faster on the H200, off by default)
  --fuse-attention       attention always as one flash-attention kernel;
  --no-fuse-attention    never (three kernels: scores GEMM, softmax, GEMM);
                         default: by shape, flash for 256+ query rows a batch,
                         4096+ keys, 2048+ keys over 64+ rows, or 512+ keys
                         over at most 16 rows (measured: docs/perf.md)
  --schedule="OPTS"      options of tilec-schedule-row-kernels, e.g.
                         "max-chunks-per-thread=4" (experiments)
  --fuse="OPTS"          more options of tilec-fuse, e.g. "sink-tails=false"
                         (experiments)
  --mlir-print-ir-after-all  print the IR after every pass to stderr
  --help                 this text

examples: rms_norm, softmax, layer_norm, add_rms_norm, silu_mul, elementwise_chain,
          rope, matmul, matmul_nn, matmul_lhs_t, matmul_bias_gelu,
          matmul_swiglu (silu(x @ wg^T) * (x @ wu^T), an MLP's gate and up),
          heads_rms_norm (rms_norm of [tokens, heads, 128] moved heads first),
          transpose ([rows, cols] -> [cols, rows]),
          decoder_layer (a Llama-style layer: --rows tokens, --cols hidden,
          --k past tokens in the kv cache, 0 for a prefill; e.g. --rows=16
          --cols=4096 --k=512)
)";

int fail(const std::string &message);

/// `text` to stdout, or to `output`.
int write(const std::string &output, const std::string &text) {
  if (output.empty()) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  std::string error;
  auto out = mlir::openOutputFile(output, &error);
  if (!out)
    return fail(error);
  out->os() << text;
  out->keep();
  return 0;
}

int fail(const std::string &message) {
  std::fprintf(stderr, "tilec: error: %s\n", message.c_str());
  return 1;
}

bool takeValue(const std::string &arg, const char *flag, std::string &out) {
  std::string prefix = std::string(flag) + "=";
  if (arg.rfind(prefix, 0) != 0)
    return false;
  out = arg.substr(prefix.size());
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::string emit = "ptx", output, input, rowsText, colsText = "4096", depthText = "4096",
              dtypeText = "bf16";
  CompileOptions options;
  bool explain = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--explain-fusion")
      explain = true;
    else if (arg == "--round-every-op")
      options.roundEveryOp = true;
    else if (arg == "--precise-math")
      options.fastMath = false;
    else if (arg == "--flush-subnormals")
      options.flushSubnormals = true;
    else if (arg == "--fuse-attention")
      options.fuseAttention = true;
    else if (arg == "--no-fuse-attention")
      options.fuseAttention = false;
    else if (arg == "--mlir-print-ir-after-all")
      options.printIRAfterAll = true;
    else if (arg == "-o") {
      if (++i >= argc)
        return fail("-o needs a file name");
      output = argv[i];
    } else if (takeValue(arg, "--emit", emit) || takeValue(arg, "--target", options.target) ||
               takeValue(arg, "--rows", rowsText) || takeValue(arg, "--cols", colsText) ||
               takeValue(arg, "--k", depthText) ||
               takeValue(arg, "--dtype", dtypeText) ||
               takeValue(arg, "--schedule", options.scheduleOptions) ||
               takeValue(arg, "--fuse", options.fuseOptions)) {
    } else if (!arg.empty() && arg[0] == '-')
      return fail("unknown option '" + arg + "' (see --help)");
    else if (!input.empty())
      return fail("more than one input: '" + input + "' and '" + arg + "'");
    else
      input = arg;
  }
  if (input.empty())
    return fail("no input: give an example name or a .mlir file (see --help)");
  bool programJson = emit == "program";
  auto stage = parseStage(programJson ? "ptx" : emit);
  if (!stage)
    return fail("unknown --emit '" + emit +
                "' (expected graph, fused, tile, gpu, llvm, ptx or program)");
  if (Status s = validateTarget(options.target); !s.ok())
    return fail(s.message());

  mlir::DialectRegistry registry;
  registerTilecDialects(registry);
  mlir::MLIRContext ctx(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  bool isFile = input.size() > 5 && input.substr(input.size() - 5) == ".mlir";
  Graph graph(input);
  if (isFile) {
    if (explain)
      return fail("--explain-fusion takes an example name; for a .mlir file use "
                  "--emit=fused, which shows each fusion's hbm_bytes_saved");
    if (programJson)
      return fail("--emit=program takes an example name (a program's values come from "
                  "the DSL graph)");
    llvm::SourceMgr sources;
    std::string error;
    auto file = mlir::openInputFile(input, &error);
    if (!file)
      return fail(error);
    sources.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    module = mlir::parseSourceFile<mlir::ModuleOp>(sources, &ctx);
    if (!module)
      return fail("could not parse '" + input + "'");
  } else {
    auto dtype = examples::parseDType(dtypeText);
    if (!dtype)
      return fail(dtype.message());
    if (rowsText.empty())
      rowsText = examples::isMatmul(input) ? "4096" : "8192";
    int64_t rows = std::atoll(rowsText.c_str()), cols = std::atoll(colsText.c_str()),
            depth = std::atoll(depthText.c_str());
    // (decoder_layer's --k is its past tokens: 0 is a prefill.)
    bool layer = llvm::is_contained(examples::layerNames(), input);
    if (rows <= 0 || cols <= 0 || depth < 0 || (depth == 0 && !layer))
      return fail("--rows, --cols and --k must be positive integers (decoder_layer's --k "
                  "may be 0)");
    if (Status s = examples::build(input, graph, rows, cols, *dtype, depth); !s.ok())
      return fail(s.message());
    if (explain || programJson) {
      auto program = compileGraph(graph, options);
      if (!program)
        return fail(program.message());
      if (explain) {
        std::fputs(explainFusion(*program).c_str(), stdout);
        return 0;
      }
      return write(output, serializeProgram(*program) + "\n");
    }
    auto imported = importGraph(ctx, graph);
    if (!imported)
      return fail(imported.message());
    module = imported.take();
  }

  if (Status s = lowerToStage(*module, *stage, options); !s.ok())
    return fail(s.message());
  std::string text;
  if (*stage == Stage::Ptx) {
    auto ptx = extractPTX(*module);
    if (!ptx)
      return fail(ptx.message());
    text = ptx.take();
  } else {
    llvm::raw_string_ostream os(text);
    module->print(os);
  }
  return write(output, text);
}
