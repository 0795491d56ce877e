// compileGraph: runs the pipeline on a DSL graph and records the launch plan
// (kernels, their buffers, temporaries) and the fusion report on the way.
#include "tilec/compiler/Internal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "tilec/Dialect/Graph/GraphDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"

#include <algorithm>
#include <sstream>

using namespace mlir;

namespace tilec {

namespace {

std::string shapeText(ArrayRef<int64_t> shape) {
  return shapeString(Shape(shape.begin(), shape.end()));
}

std::vector<FusionReport> reportFusions(func::FuncOp host) {
  std::vector<FusionReport> reports;
  int index = 0;
  for (auto fusion : host.getOps<graph::FusionOp>()) {
    FusionReport r;
    r.kernel = (host.getName() + "_kernel" + Twine(index++)).str();
    for (Operation &op : fusion.getBody().front().without_terminator())
      if (!isa<graph::ConstantOp>(op))
        r.ops.push_back(op.getName().stripDialect().str());
    if (auto saved = fusion->getAttrOfType<IntegerAttr>("hbm_bytes_saved"))
      r.hbmBytesSaved = saved.getInt();
    if (auto choice = fusion->getAttrOfType<StringAttr>("attention_choice"))
      r.attentionChoice = choice.str();
    if (auto domain = fusion->getAttrOfType<DenseI64ArrayAttr>("domain"))
      r.domain = shapeText(domain.asArrayRef());
    else
      r.domain = "(not a row kernel)";
    reports.push_back(std::move(r));
  }
  return reports;
}

} // namespace

Status planLaunches(ModuleOp module, func::FuncOp host, const Graph &graph,
                    CompiledProgram &program) {
  DenseMap<Value, int> valueIds;
  // (A value made as a copy is not a source of ids: `v` keeps the id of
  // the buffer it was first given.)
  auto addValue = [&](Value v, ProgramValue::Kind kind, int index, int copyOf = -1) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    ProgramValue pv;
    pv.kind = kind;
    pv.index = index;
    pv.shape.assign(t.getShape().begin(), t.getShape().end());
    pv.dtype = dtypeOf(t.getElementType());
    pv.copyOf = copyOf;
    program.values.push_back(pv);
    if (copyOf < 0)
      valueIds[v] = static_cast<int>(program.values.size()) - 1;
  };
  for (auto [i, arg] : llvm::enumerate(host.getArguments()))
    addValue(arg, ProgramValue::Kind::Input, static_cast<int>(i));
  // Reshapes are views: a reshape's result is its operand's buffer, read
  // under the result's shape (the kernels' descriptors take their rows from
  // the buffer's element count and their columns from their own types).
  auto viewed = [](Value v) {
    while (auto view = v.getDefiningOp<graph::ReshapeOp>())
      v = view.getInput();
    return v;
  };
  auto ret = llvm::cast<func::ReturnOp>(host.getBody().front().getTerminator());
  DenseMap<Value, int> outputIndex;
  DenseMap<Value, Shape> outputShape;
  // Outputs no kernel writes: copies (after the kernels) of an input or of
  // another output, as torch would return the tensor itself.
  SmallVector<std::pair<int, Value>> copies; // (output index, returned value)
  for (auto [i, returned] : llvm::enumerate(ret.getOperands())) {
    Value v = viewed(returned);
    if (llvm::isa<BlockArgument>(v)) {
      copies.push_back({static_cast<int>(i), returned});
      continue;
    }
    if (!v.getDefiningOp<tile::LaunchOp>())
      return Status::error("output " + std::to_string(i) + " of graph '" + program.name +
                           "' is a constant (or a reshape of one), which no kernel computes "
                           "and no buffer holds; broadcast it to the output's shape");
    if (!outputIndex.try_emplace(v, static_cast<int>(i)).second) {
      copies.push_back({static_cast<int>(i), returned});
      continue;
    }
    auto t = llvm::cast<RankedTensorType>(returned.getType());
    outputShape[v] = Shape(t.getShape().begin(), t.getShape().end());
  }
  SymbolTable symbols(module);
  for (auto launch : host.getOps<tile::LaunchOp>()) {
    for (Value r : launch.getResults()) {
      auto it = outputIndex.find(r);
      if (it != outputIndex.end()) {
        addValue(r, ProgramValue::Kind::Output, it->second);
        // (An output returned through a reshape has the reshaped shape.)
        program.values.back().shape = outputShape.lookup(r);
      } else {
        addValue(r, ProgramValue::Kind::Temporary, 0);
      }
    }
    auto kernel = symbols.lookup<func::FuncOp>(launch.getCallee());
    auto schedule = kernel->getAttrOfType<DictionaryAttr>("tile.schedule");
    auto domain = kernel->getAttrOfType<DenseI64ArrayAttr>("tile.domain");
    if (!schedule || !domain)
      return Status::error("internal error: kernel " + launch.getCallee().str() +
                           " has no schedule");
    KernelLaunchPlan plan;
    plan.name = launch.getCallee().str();
    plan.rows = 1;
    for (int64_t d : domain.asArrayRef().drop_back())
      plan.rows *= d;
    auto get = [&](StringRef key) -> int64_t {
      auto a = schedule.getAs<IntegerAttr>(key);
      return a ? a.getInt() : 0;
    };
    if (kernel->hasAttr("tile.gemm")) {
      plan.gemm = true;
      plan.attention = kernel->hasAttr("tile.attention");
      plan.fixedGrid = get("grid");
      plan.fixedBlock = get("threads");
      plan.sharedBytes = get("shared_bytes");
      plan.persistent = get("persistent") > 0;
      plan.tmaStore = get("tma_store") > 0;
      plan.clusterM = std::max<int64_t>(1, get("cluster_m"));
      plan.splitK = std::max<int64_t>(1, get("split_k"));
      plan.workspaceBytes = get("workspace_bytes");
      plan.l2PrefetchBytes = std::max<int64_t>(0, get("l2_prefetch_bytes"));
      if (auto maps = kernel->getAttrOfType<ArrayAttr>("tile.tma"))
        for (Attribute a : maps) {
          auto map = llvm::cast<DictionaryAttr>(a);
          TensorMapPlan t;
          t.buffer = static_cast<int>(map.getAs<IntegerAttr>("arg").getInt());
          auto dims = map.getAs<DenseI64ArrayAttr>("dims");
          auto box = map.getAs<DenseI64ArrayAttr>("box");
          t.dims.assign(dims.asArrayRef().begin(), dims.asArrayRef().end());
          t.box.assign(box.asArrayRef().begin(), box.asArrayRef().end());
          plan.tensorMaps.push_back(std::move(t));
        }
    } else if (kernel->hasAttr("tile.transpose_tiles")) {
      plan.fixedGrid = get("grid");
      plan.fixedBlock = get("threads");
      plan.transposeTileK = get("tile_k");
      plan.transposeTileL = get("tile_l");
    } else {
      plan.vectorWidth = get("vector_width");
      plan.threadsPerRow = get("threads_per_row");
      plan.rowsPerBlock = get("rows_per_block");
      plan.chunks = get("chunks");
      // Rows with reductions split over clusters (sm_90a): col_blocks CTAs
      // a row form a cluster (compiled in as .reqnctapercluster).
      plan.clusterM = std::max<int64_t>(1, get("cluster"));
      // stream-shared: the staged row inputs' dynamic shared memory.
      plan.sharedBytes = get("shared_bytes");
      plan.rowLoop = get("row_loop") != 0;
      plan.prefetchStages = get("prefetch");
      plan.stagedWeights = get("staged_weights") != 0;
      plan.l2PrefetchRows = get("l2_prefetch_rows");
      plan.l2PrefetchFirst = get("l2_prefetch_first") != 0;
    }
    if (auto colBlocks = schedule.getAs<IntegerAttr>("col_blocks"))
      plan.colBlocks = colBlocks.getInt();
    if (auto streamBlocks = schedule.getAs<IntegerAttr>("stream_blocks"))
      plan.streamBlocks = streamBlocks.getInt();
    SmallVector<Value> bound(launch.getInputs());
    bound.append(launch.getResults().begin(), launch.getResults().end());
    for (auto [arg, v] : llvm::zip(kernel.getArgumentTypes(), bound)) {
      auto m = llvm::cast<MemRefType>(arg);
      KernelBuffer kb;
      kb.kind = m.getRank() == 3   ? KernelBuffer::Kind::StridedRows
                : m.getRank() == 2 ? KernelBuffer::Kind::Rows
                : m.getRank() == 1 ? KernelBuffer::Kind::SharedVector
                                   : KernelBuffer::Kind::Scalar;
      if (m.getRank() == 3)
        kb.dims.assign(m.getShape().begin(), m.getShape().end());
      kb.cols = m.getRank() > 0 ? m.getShape().back() : 1;
      auto id = valueIds.find(viewed(v));
      if (id == valueIds.end())
        return Status::error("kernel " + plan.name +
                             " reads a value that no kernel or input provides (a reshape "
                             "of a constant? broadcast it instead)");
      kb.value = id->second;
      plan.buffers.push_back(kb);
    }
    program.launches.push_back(std::move(plan));
  }
  for (auto [index, returned] : copies) // (of the input, or of the first output)
    addValue(returned, ProgramValue::Kind::Output, index, valueIds.lookup(viewed(returned)));
  // update_slice's results start as their buffers, graph inputs (values
  // 0.. in input order), updated in place.
  for (ProgramValue &v : program.values) {
    if (v.kind != ProgramValue::Kind::Output || v.copyOf >= 0)
      continue;
    const Node &n = graph.node(graph.outputs()[v.index]);
    if (n.kind != OpKind::UpdateSlice)
      continue;
    const std::vector<int> &ins = graph.inputs();
    v.inPlaceOf = static_cast<int>(std::find(ins.begin(), ins.end(), n.operands[0]) - ins.begin());
  }
  return Status::success();
}

Expected<CompiledProgram> compileGraph(const Graph &graph, const CompileOptions &options) {
  if (Status s = validateTarget(options.target); !s.ok())
    return s;
  DialectRegistry registry;
  registerTilecDialects(registry);
  MLIRContext ctx(registry);
  ctx.disableMultithreading(); // small modules; threads cost more than they save
  auto imported = importGraph(ctx, graph);
  if (!imported)
    return imported.status();
  OwningOpRef<ModuleOp> module = imported.take();
  CompiledProgram program;
  program.name = graph.name();
  program.target = options.target;
  for (const Node &n : graph.nodes())
    if (n.kind != OpKind::Input && n.kind != OpKind::Constant)
      ++program.graphOps;

  if (Status s = lowerBetween(*module, Stage::Graph, Stage::Fused, options); !s.ok())
    return s;
  auto host = *module->getOps<func::FuncOp>().begin();
  program.fusions = reportFusions(host);
  if (Status s = lowerBetween(*module, Stage::Fused, Stage::Tile, options); !s.ok())
    return s;
  if (Status s = planLaunches(*module, host, graph, program); !s.ok())
    return s;
  for (KernelLaunchPlan &plan : program.launches)
    plan.dependentLaunch = usesDependentLaunch(options);
  // (A graph that only returns its inputs is copies alone: no PTX.)
  if (program.launches.empty())
    return program;
  if (Status s = lowerBetween(*module, Stage::Tile, Stage::Ptx, options); !s.ok())
    return s;
  auto ptx = extractPTX(*module);
  if (!ptx)
    return ptx.status();
  program.ptx = ptx.take();
  return program;
}

std::string explainFusion(const CompiledProgram &program) {
  std::ostringstream os;
  os << "graph '" << program.name << "': " << program.graphOps << " operators -> "
     << program.fusions.size() << (program.fusions.size() == 1 ? " kernel" : " kernels")
     << "\n";
  int64_t total = 0;
  for (const FusionReport &f : program.fusions) {
    os << "  " << f.kernel << "  domain " << f.domain << "  " << f.ops.size()
       << " ops:";
    for (const std::string &op : f.ops)
      os << " " << op;
    os << "\n    keeps " << f.hbmBytesSaved << " bytes ("
       << (f.hbmBytesSaved / 1.0e6) << " MB) of intermediates out of HBM\n";
    if (!f.attentionChoice.empty())
      os << "    attention: " << f.attentionChoice << "\n";
    // How it runs: the launch plan the scheduler chose.
    for (const KernelLaunchPlan &l : program.launches) {
      if (l.name != f.kernel)
        continue;
      auto count = [](int64_t n, const char *one, const char *many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
      };
      if (l.gemm && l.persistent)
        os << "    schedule: " << (l.attention ? "flash attention, " : "GEMM, ")
           << count(l.gridSize(), "tile", "tiles")
           << " over persistent CTAs (at most one an SM) of " << l.blockSize() << " threads";
      else
        os << "    schedule: "
           << (l.attention ? "flash attention, " : l.gemm ? "GEMM, " : "")
           << count(l.gridSize(), "CTA", "CTAs") << " of "
           << count(l.blockSize(), "thread", "threads");
      if (l.splitK > 1)
        os << (l.attention ? ", keys" : ", k") << " split over " << l.splitK
           << " CTAs a tile (a " << l.workspaceBytes << "-byte workspace)";
      if (l.transposeTileK > 0) {
        os << ", transposed through " << l.transposeTileK << " x " << l.transposeTileL
           << " tiles in shared memory";
      } else if (l.gemm) {
        os << ", " << l.sharedBytes << " bytes of shared memory";
        if (!l.tensorMaps.empty())
          os << (l.tmaStore ? ", TMA loads and stores" : ", TMA");
        if (l.l2PrefetchBytes > 0)
          os << ", " << l.l2PrefetchBytes << " bytes of " << (l.attention ? "k and v" : "weights")
             << " a CTA prefetched into L2 first";
      } else {
        os << ", " << count(l.threadsPerRow, "thread", "threads") << " a row, " << l.chunks
           << " x " << l.vectorWidth << "-element vectors a thread";
        if (l.rowsPerBlock > 1)
          os << ", " << l.rowsPerBlock << " rows a CTA";
        if (l.streamBlocks > 0)
          os << ", streamed in " << l.streamBlocks << " blocks"
             << (l.sharedBytes > 0 ? " (re-read from " + std::to_string(l.sharedBytes) +
                                         " bytes of shared memory)"
                                   : std::string());
        else if (l.colBlocks > 1)
          os << ", " << l.colBlocks << " CTAs a row";
        if (l.rowLoop)
          os << ", each CTA looping over row blocks (as many CTAs as fit at once)";
        if (l.stagedWeights)
          os << ", weights copied into " << l.sharedBytes << " bytes of shared memory";
        if (l.prefetchStages > 0)
          os << ", the blocks ahead copied into a " << l.prefetchStages << "-stage ring of "
             << l.sharedBytes << " bytes of shared memory";
        if (l.l2PrefetchRows > 0)
          os << ", rows " << l.l2PrefetchRows << " blocks ahead prefetched into L2"
             << (l.l2PrefetchFirst ? " (the first blocks' own too)" : "");
        else if (l.l2PrefetchFirst)
          os << ", each CTA's slice prefetched into L2 ahead of the wait";
      }
      if (l.clusterM > 1)
        os << ", clusters of " << l.clusterM;
      os << "\n";
    }
    total += f.hbmBytesSaved;
  }
  os << "  total HBM traffic saved by fusion: " << total << " bytes\n";
  return os.str();
}

} // namespace tilec
