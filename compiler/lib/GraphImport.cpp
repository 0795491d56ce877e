// Translates a DSL Graph into the graph dialect (one func.func).
#include "tilec/compiler/Internal.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "tilec/Dialect/Graph/GraphDialect.h"

#include <algorithm>
#include <cctype>

using namespace mlir;

namespace tilec {

Type elementType(MLIRContext &ctx, DType dtype) {
  switch (dtype) {
  case DType::F32:
    return Float32Type::get(&ctx);
  case DType::F16:
    return Float16Type::get(&ctx);
  case DType::BF16:
    return BFloat16Type::get(&ctx);
  }
  return {};
}

DType dtypeOf(Type type) {
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  return DType::F32;
}

std::string symbolName(const std::string &name) {
  std::string s;
  for (char c : name)
    s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    s = "g_" + s;
  return s;
}

namespace {
template <typename OpTy>
Value build(OpBuilder &b, Location loc, Type type, ValueRange operands) {
  return b.create<OpTy>(loc, type, operands).getResult();
}

/// update_slice updates its buffer, a graph input, in place: refused where
/// that would change what the graph computes (another op or output reads
/// the input's old contents) or where the update would be lost (its result
/// is not returned).
Status checkInPlaceUpdates(const Graph &graph) {
  for (const Node &n : graph.nodes()) {
    if (n.kind != OpKind::UpdateSlice)
      continue;
    int buffer = n.operands[0];
    const std::string name = "'" + graph.node(buffer).name + "'";
    int readers = 0;
    for (const Node &m : graph.nodes())
      for (int o : m.operands)
        readers += o == buffer;
    for (int o : graph.outputs())
      readers += o == buffer;
    if (readers != 1)
      return Status::error("update_slice: input " + name +
                           " is updated in place, so nothing else may read it (it has " +
                           std::to_string(readers - 1) +
                           " other readers or outputs); update a copy instead");
    int self = static_cast<int>(&n - graph.nodes().data());
    if (std::count(graph.outputs().begin(), graph.outputs().end(), self) != 1)
      return Status::error("update_slice: the update of input " + name +
                           " must be returned once (Graph::output): it is the input's buffer "
                           "after the run");
  }
  return Status::success();
}
} // namespace

Expected<OwningOpRef<ModuleOp>> importGraph(MLIRContext &ctx, const Graph &graph) {
  if (graph.outputs().empty())
    return Status::error("graph '" + graph.name() + "' has no outputs (call Graph::output)");
  if (graph.symbolic()) {
    SmallVector<int64_t> symbols; // (in order of first use)
    for (const Node &n : graph.nodes())
      for (int64_t d : n.shape)
        if (isSymbolic(d) && !llvm::is_contained(symbols, d))
          symbols.push_back(d);
    std::string names;
    for (int64_t d : symbols)
      names += (names.empty() ? "'" : ", '") + symbolName(d) + "'";
    return Status::error("graph '" + graph.name() + "' has symbolic dims (" + names +
                         "): compile a bound copy (Graph::bind, with sizes from "
                         "Graph::bindingsFor of the input shapes)");
  }
  if (Status s = checkInPlaceUpdates(graph); !s.ok())
    return s;
  ctx.loadDialect<graph::GraphDialect, func::FuncDialect>();
  OpBuilder b(&ctx);
  Location loc = FileLineColLoc::get(&ctx, graph.name(), 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  auto tensorType = [&](const Node &n) {
    return RankedTensorType::get(n.shape, elementType(ctx, n.dtype));
  };
  SmallVector<Type> argTypes, resultTypes;
  for (int id : graph.inputs())
    argTypes.push_back(tensorType(graph.node(id)));
  for (int id : graph.outputs())
    resultTypes.push_back(tensorType(graph.node(id)));
  b.setInsertionPointToEnd(module->getBody());
  auto fn = b.create<func::FuncOp>(loc, symbolName(graph.name()),
                                   b.getFunctionType(argTypes, resultTypes));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);

  std::vector<Value> values(graph.nodes().size());
  int argIndex = 0;
  for (size_t id = 0; id < graph.nodes().size(); ++id) {
    const Node &n = graph.node(static_cast<int>(id));
    Location nodeLoc = NameLoc::get(b.getStringAttr(std::string(opKindName(n.kind)) + "#" + std::to_string(id)), loc);
    SmallVector<Value> ops;
    for (int operand : n.operands)
      ops.push_back(values[operand]);
    Type t = tensorType(n);
    Value v;
    switch (n.kind) {
    case OpKind::Input:
      v = entry->getArgument(argIndex++);
      break;
    case OpKind::Constant:
      v = b.create<graph::ConstantOp>(nodeLoc, t, b.getF64FloatAttr(n.value));
      break;
    case OpKind::CausalMask:
      v = b.create<graph::CausalMaskOp>(nodeLoc, t, b.getI64IntegerAttr(n.period),
                                        b.getI64IntegerAttr(n.window),
                                        b.getI64IntegerAttr(n.start));
      break;
#define TILEC_CASE(KIND, OP)                                                   \
  case OpKind::KIND:                                                           \
    v = build<graph::OP>(b, nodeLoc, t, ops);                                  \
    break;
      TILEC_CASE(Add, AddOp)
      TILEC_CASE(Sub, SubOp)
      TILEC_CASE(Mul, MulOp)
      TILEC_CASE(Div, DivOp)
      TILEC_CASE(Max, MaxOp)
      TILEC_CASE(Min, MinOp)
      TILEC_CASE(Neg, NegOp)
      TILEC_CASE(Exp, ExpOp)
      TILEC_CASE(Log, LogOp)
      TILEC_CASE(Sqrt, SqrtOp)
      TILEC_CASE(Rsqrt, RsqrtOp)
      TILEC_CASE(Tanh, TanhOp)
      TILEC_CASE(Sigmoid, SigmoidOp)
      TILEC_CASE(Silu, SiluOp)
      TILEC_CASE(Gelu, GeluOp)
      TILEC_CASE(Cast, CastOp)
      TILEC_CASE(Broadcast, BroadcastOp)
#undef TILEC_CASE
    case OpKind::Slice:
      v = b.create<graph::SliceOp>(nodeLoc, t, ops[0], b.getI64IntegerAttr(n.axis),
                                   b.getI64IntegerAttr(n.start), b.getI64IntegerAttr(n.end));
      break;
    case OpKind::Concat:
      v = b.create<graph::ConcatOp>(nodeLoc, t, ops, b.getI64IntegerAttr(n.axis));
      break;
    case OpKind::UpdateSlice:
      v = b.create<graph::UpdateSliceOp>(nodeLoc, t, ops[0], ops[1], b.getI64IntegerAttr(n.axis),
                                         b.getI64IntegerAttr(n.start));
      break;
    case OpKind::Reshape:
      v = b.create<graph::ReshapeOp>(nodeLoc, t, ops[0]);
      break;
    case OpKind::Transpose:
      v = b.create<graph::TransposeOp>(nodeLoc, t, ops[0], b.getI64IntegerAttr(n.axis),
                                       b.getI64IntegerAttr(n.axis2));
      break;
    case OpKind::ReduceSum:
      v = b.create<graph::ReduceSumOp>(nodeLoc, t, ops[0], b.getI64IntegerAttr(n.axis));
      break;
    case OpKind::ReduceMax:
      v = b.create<graph::ReduceMaxOp>(nodeLoc, t, ops[0], b.getI64IntegerAttr(n.axis));
      break;
    case OpKind::ReduceMean:
      v = b.create<graph::ReduceMeanOp>(nodeLoc, t, ops[0], b.getI64IntegerAttr(n.axis));
      break;
    case OpKind::Matmul:
      v = b.create<graph::MatmulOp>(nodeLoc, t, ops[0], ops[1], b.getBoolAttr(n.transposeA),
                                    b.getBoolAttr(n.transposeB));
      break;
    }
    values[id] = v;
  }
  SmallVector<Value> results;
  for (int id : graph.outputs())
    results.push_back(values[id]);
  b.create<func::ReturnOp>(loc, results);
  if (failed(mlir::verify(*module)))
    return Status::error("internal error: graph '" + graph.name() +
                         "' imported into invalid IR");
  return std::move(module);
}

} // namespace tilec
