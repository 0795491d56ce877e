// tilec-lower-fusion-to-tile: outlines each graph.fusion into a tile kernel.
//
// The kernel is a func.func marked `tile.kernel` that computes one row: it
// loads row tiles (tensor<C x T>), per-row scalars and shared vectors from
// memref arguments (inputs, then one per result), applies the region's ops as
// arith/math on tiles or scalars, and stores the results. The graph.fusion is
// replaced by a tile.launch of that kernel.
#include "tilec/Passes/Passes.h"
#include "tilec/Passes/RowDomain.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace tilec {
#define GEN_PASS_DEF_LOWERFUSIONTOTILE
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;

namespace {

class FusionToTile {
public:
  FusionToTile(graph::FusionOp fusion, RowDomain domain)
      : fusion(fusion), domain(std::move(domain)) {}

  /// Memref type of a kernel argument for a tensor of `type`.
  FailureOr<MemRefType> bufferType(RankedTensorType type) {
    Type elem = type.getElementType();
    switch (domain.classify(type.getShape())) {
    case RowRole::Full:
      return MemRefType::get({ShapedType::kDynamic, domain.cols}, elem);
    case RowRole::RowScalar:
      return MemRefType::get({ShapedType::kDynamic, 1}, elem);
    case RowRole::SharedVector:
      return MemRefType::get({domain.cols}, elem);
    case RowRole::Scalar:
      return MemRefType::get({}, elem);
    case RowRole::None:
      break;
    }
    return fusion.emitOpError("value of type ")
           << type << " has no role in the row domain "
           << RankedTensorType::get(domain.fullShape(), elem);
  }

  /// Tile-level type of a graph value: a row tile or a scalar.
  Type tileType(Type graphType) {
    auto t = llvm::cast<RankedTensorType>(graphType);
    RowRole role = domain.classify(t.getShape());
    if (role == RowRole::Full || role == RowRole::SharedVector)
      return RankedTensorType::get({domain.cols}, t.getElementType());
    return t.getElementType();
  }

  FailureOr<func::FuncOp> build(OpBuilder &moduleBuilder, StringRef name) {
    Location loc = fusion.getLoc();
    SmallVector<Type> args;
    for (Value in : fusion.getInputs()) {
      auto ty = bufferType(llvm::cast<RankedTensorType>(in.getType()));
      if (failed(ty))
        return failure();
      args.push_back(*ty);
    }
    for (Type res : fusion.getResultTypes()) {
      auto t = llvm::cast<RankedTensorType>(res);
      auto ty = bufferType(t);
      if (failed(ty))
        return failure();
      args.push_back(*ty);
    }
    auto fn = moduleBuilder.create<func::FuncOp>(
        loc, name, moduleBuilder.getFunctionType(args, {}));
    fn->setAttr("tile.kernel", moduleBuilder.getUnitAttr());
    fn->setAttr("tile.domain", moduleBuilder.getDenseI64ArrayAttr(domain.fullShape()));
    Block *entry = fn.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockEnd(entry);
    Value row = b.create<tile::RowIdOp>(loc, b.getIndexType());

    Block &body = fusion.getBody().front();
    for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
      Value mem = entry->getArgument(i);
      bool perRow = llvm::cast<MemRefType>(mem.getType()).getRank() == 2;
      map.map(arg, b.create<tile::LoadOp>(loc, tileType(arg.getType()), mem,
                                          perRow ? row : Value()));
    }
    for (Operation &op : body.without_terminator())
      if (failed(lower(b, op)))
        return failure();
    auto yield = llvm::cast<graph::YieldOp>(body.getTerminator());
    unsigned firstOut = fusion.getInputs().size();
    for (auto [i, v] : llvm::enumerate(yield.getValues())) {
      Value mem = entry->getArgument(firstOut + i);
      // Values shared by all rows (e.g. exp of a weight) are stored once.
      bool perRow = llvm::cast<MemRefType>(mem.getType()).getRank() == 2;
      b.create<tile::StoreOp>(loc, map.lookup(v), mem, perRow ? row : Value());
    }
    b.create<func::ReturnOp>(loc);
    return fn;
  }

private:
  /// A constant of `value` with type `type` (a row tile or a scalar).
  Value constant(OpBuilder &b, Location loc, Type type, double value) {
    if (auto t = llvm::dyn_cast<RankedTensorType>(type))
      return b.create<arith::ConstantOp>(
          loc, DenseElementsAttr::get(t, b.getFloatAttr(t.getElementType(), value)));
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(type, value));
  }

  static Type withElement(Type type, Type elem) {
    if (auto t = llvm::dyn_cast<RankedTensorType>(type))
      return t.clone(elem);
    return elem;
  }

  static Type elementOf(Type type) {
    if (auto t = llvm::dyn_cast<RankedTensorType>(type))
      return t.getElementType();
    return type;
  }

  /// Converts between float types of tiles or scalars.
  static Value convert(OpBuilder &b, Location loc, Value v, Type elem) {
    Type from = elementOf(v.getType());
    if (from == elem)
      return v;
    Type to = withElement(v.getType(), elem);
    if (from.getIntOrFloatBitWidth() < elem.getIntOrFloatBitWidth())
      return b.create<arith::ExtFOp>(loc, to, v);
    if (from.getIntOrFloatBitWidth() > elem.getIntOrFloatBitWidth())
      return b.create<arith::TruncFOp>(loc, to, v);
    // f16 <-> bf16 goes through f32.
    Value wide = b.create<arith::ExtFOp>(loc, withElement(v.getType(), b.getF32Type()), v);
    return b.create<arith::TruncFOp>(loc, to, wide);
  }

  /// Elementwise math in f32: 16-bit operands are widened and the result
  /// rounded back once, as the reference evaluator does.
  Value elementwise(OpBuilder &b, Location loc, Operation &op,
                    llvm::function_ref<Value(OpBuilder &, ValueRange)> emit) {
    SmallVector<Value> wide;
    for (Value v : op.getOperands())
      wide.push_back(convert(b, loc, map.lookup(v), b.getF32Type()));
    Value r = emit(b, wide);
    return convert(b, loc, r, elementOf(tileType(op.getResult(0).getType())));
  }

  LogicalResult lower(OpBuilder &b, Operation &op) {
    Location loc = op.getLoc();
    auto f32 = [&](Value like, double v) { return constant(b, loc, like.getType(), v); };
    auto binary = [&](auto tag) {
      using OpTy = decltype(tag);
      return elementwise(b, loc, op, [&](OpBuilder &bb, ValueRange x) -> Value {
        return bb.create<OpTy>(loc, x[0], x[1]);
      });
    };
    auto unary = [&](auto tag) {
      using OpTy = decltype(tag);
      return elementwise(b, loc, op, [&](OpBuilder &bb, ValueRange x) -> Value {
        return bb.create<OpTy>(loc, x[0]);
      });
    };
    auto sigmoid = [&](Value x) {
      Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
      return b.create<arith::DivFOp>(loc, f32(x, 1.0), b.create<arith::AddFOp>(loc, f32(x, 1.0), e));
    };
    Value result =
        llvm::TypeSwitch<Operation *, Value>(&op)
            .Case([&](graph::ConstantOp c) {
              return constant(b, loc, tileType(c.getType()), c.getValue().convertToDouble());
            })
            .Case([&](graph::AddOp) { return binary(arith::AddFOp()); })
            .Case([&](graph::SubOp) { return binary(arith::SubFOp()); })
            .Case([&](graph::MulOp) { return binary(arith::MulFOp()); })
            .Case([&](graph::DivOp) { return binary(arith::DivFOp()); })
            .Case([&](graph::MaxOp) { return binary(arith::MaximumFOp()); })
            .Case([&](graph::MinOp) { return binary(arith::MinimumFOp()); })
            .Case([&](graph::NegOp) { return unary(arith::NegFOp()); })
            .Case([&](graph::ExpOp) { return unary(math::ExpOp()); })
            .Case([&](graph::LogOp) { return unary(math::LogOp()); })
            .Case([&](graph::SqrtOp) { return unary(math::SqrtOp()); })
            .Case([&](graph::RsqrtOp) { return unary(math::RsqrtOp()); })
            .Case([&](graph::TanhOp) { return unary(math::TanhOp()); })
            .Case([&](graph::SigmoidOp) {
              return elementwise(b, loc, op, [&](OpBuilder &, ValueRange x) -> Value {
                return sigmoid(x[0]);
              });
            })
            .Case([&](graph::SiluOp) {
              return elementwise(b, loc, op, [&](OpBuilder &, ValueRange x) -> Value {
                return b.create<arith::MulFOp>(loc, x[0], sigmoid(x[0]));
              });
            })
            .Case([&](graph::GeluOp) {
              return elementwise(b, loc, op, [&](OpBuilder &, ValueRange x) -> Value {
                // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
                Value v = x[0];
                Value x3 = b.create<arith::MulFOp>(loc, v, b.create<arith::MulFOp>(loc, v, v));
                Value inner = b.create<arith::AddFOp>(loc, v, b.create<arith::MulFOp>(loc, f32(v, 0.044715), x3));
                Value t = b.create<math::TanhOp>(loc, b.create<arith::MulFOp>(loc, f32(v, std::sqrt(2.0 / M_PI)), inner));
                Value half = b.create<arith::MulFOp>(loc, f32(v, 0.5), v);
                return b.create<arith::MulFOp>(loc, half, b.create<arith::AddFOp>(loc, f32(v, 1.0), t));
              });
            })
            .Case([&](graph::CastOp c) {
              return convert(b, loc, map.lookup(c.getInput()),
                             c.getType().getElementType());
            })
            .Case([&](graph::BroadcastOp bc) -> Value {
              Value in = map.lookup(bc.getInput());
              Type to = tileType(bc.getType());
              if (in.getType() == to)
                return in; // shared vector -> rows, or scalar reshapes
              return b.create<tile::SplatOp>(loc, to, in);
            })
            .Case<graph::ReduceSumOp, graph::ReduceMaxOp, graph::ReduceMeanOp>(
                [&](Operation *red) -> Value {
                  Value in = convert(b, loc, map.lookup(red->getOperand(0)), b.getF32Type());
                  Value r;
                  if (isa<graph::ReduceMaxOp>(red))
                    r = b.create<tile::ReduceMaxOp>(loc, b.getF32Type(), in);
                  else
                    r = b.create<tile::ReduceSumOp>(loc, b.getF32Type(), in);
                  if (isa<graph::ReduceMeanOp>(red))
                    r = b.create<arith::DivFOp>(
                        loc, r, b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(domain.cols)));
                  Type resultType = tileType(red->getResult(0).getType());
                  r = convert(b, loc, r, elementOf(resultType));
                  // With one column a per-row scalar is also a full row.
                  if (llvm::isa<RankedTensorType>(resultType))
                    r = b.create<tile::SplatOp>(loc, resultType, r);
                  return r;
                })
            .Default([&](Operation *) { return Value(); });
    if (!result)
      return op.emitOpError("is not supported in a row kernel");
    map.map(op.getResult(0), result);
    return success();
  }

  graph::FusionOp fusion;
  RowDomain domain;
  IRMapping map;
};

struct LowerFusionToTilePass
    : tilec::impl::LowerFusionToTileBase<LowerFusionToTilePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> hosts(module.getOps<func::FuncOp>());
    for (func::FuncOp host : hosts) {
      int index = 0;
      for (auto fusion : llvm::make_early_inc_range(host.getOps<graph::FusionOp>())) {
        auto shape = fusion->getAttrOfType<DenseI64ArrayAttr>("domain");
        OpBuilder mb(host);
        std::string name = (host.getName() + "_kernel" + Twine(index++)).str();
        FailureOr<func::FuncOp> kernel = failure();
        if (shape) {
          FusionToTile lowering(fusion, *RowDomain::fromFullShape(shape.asArrayRef()));
          kernel = lowering.build(mb, name);
        } else if (Operation *reduce = innerAxisReduction(fusion)) {
          kernel = buildStridedReduction(mb, name, fusion, reduce);
        } else {
          fusion.emitOpError("has no row domain: ")
              << describe(fusion) << " is not supported by tilec's row kernels yet";
          return signalPassFailure();
        }
        if (failed(kernel))
          return signalPassFailure();
        symbols.insert(*kernel);
        OpBuilder hb(fusion);
        auto launch = hb.create<tile::LaunchOp>(
            fusion.getLoc(), fusion.getResultTypes(),
            SymbolRefAttr::get(hb.getContext(), kernel->getName()), fusion.getInputs());
        for (StringRef attr : {"fused_ops", "hbm_bytes_saved"})
          if (Attribute a = fusion->getAttr(attr))
            launch->setAttr(attr, a);
        fusion.replaceAllUsesWith(launch.getResults());
        fusion.erase();
      }
    }
  }

  /// The fusion's only op, if it is a reduction along an inner axis of its
  /// region argument (what the fusion pass leaves alone).
  static Operation *innerAxisReduction(graph::FusionOp fusion) {
    Operation *found = nullptr;
    for (Operation &op : fusion.getBody().front().without_terminator()) {
      if (isa<graph::ConstantOp>(op))
        continue;
      if (found || !isa<graph::ReduceSumOp, graph::ReduceMaxOp, graph::ReduceMeanOp>(op))
        return nullptr;
      found = &op;
    }
    if (!found || !llvm::isa<BlockArgument>(found->getOperand(0)) ||
        fusion.getNumResults() != 1)
      return nullptr;
    return found;
  }

  /// A reduction along inner axis k of [d0..dn-1] as a row kernel over
  /// strided rows: view the input as [O, K, I] (O, I: the dims before and
  /// after k); row o * I + i reduces [o, :, i] and writes element o * I + i
  /// of the result, which is that row-major [O, 1, I] tensor.
  static FailureOr<func::FuncOp> buildStridedReduction(OpBuilder &mb, StringRef name,
                                                        graph::FusionOp fusion,
                                                        Operation *reduce) {
    Location loc = fusion.getLoc();
    auto inType = llvm::cast<RankedTensorType>(reduce->getOperand(0).getType());
    int64_t axis = llvm::cast<IntegerAttr>(reduce->getAttr("axis")).getInt();
    int64_t outer = 1, inner = 1, k = inType.getDimSize(axis);
    for (int64_t d = 0; d < inType.getRank(); ++d) {
      if (d < axis)
        outer *= inType.getDimSize(d);
      else if (d > axis)
        inner *= inType.getDimSize(d);
    }
    Type elem = inType.getElementType();
    auto in = MemRefType::get({outer, k, inner}, elem);
    auto out = MemRefType::get({ShapedType::kDynamic, 1}, elem);
    auto fn = mb.create<func::FuncOp>(loc, name, mb.getFunctionType({in, out}, {}));
    fn->setAttr("tile.kernel", mb.getUnitAttr());
    fn->setAttr("tile.domain", mb.getDenseI64ArrayAttr({outer * inner, k}));
    OpBuilder b = OpBuilder::atBlockEnd(fn.addEntryBlock());
    Value row = b.create<tile::RowIdOp>(loc, b.getIndexType());
    Value t = b.create<tile::LoadOp>(loc, RankedTensorType::get({k}, elem),
                                     fn.getArgument(0), row);
    Type f32 = b.getF32Type();
    if (elem != f32)
      t = b.create<arith::ExtFOp>(loc, RankedTensorType::get({k}, f32), t);
    Value r;
    if (isa<graph::ReduceMaxOp>(reduce))
      r = b.create<tile::ReduceMaxOp>(loc, f32, t);
    else
      r = b.create<tile::ReduceSumOp>(loc, f32, t);
    if (isa<graph::ReduceMeanOp>(reduce))
      r = b.create<arith::DivFOp>(loc, r, b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(k)));
    if (elem != f32)
      r = b.create<arith::TruncFOp>(loc, elem, r);
    b.create<tile::StoreOp>(loc, r, fn.getArgument(1), row);
    b.create<func::ReturnOp>(loc);
    return fn;
  }

  static std::string describe(graph::FusionOp fusion) {
    std::string s;
    llvm::raw_string_ostream os(s);
    for (Operation &op : fusion.getBody().front().without_terminator())
      if (!isa<graph::ConstantOp>(op)) {
        os << "'" << op.getName() << "'";
        if (auto axis = op.getAttrOfType<IntegerAttr>("axis"))
          os << " along axis " << axis.getInt() << " of "
             << op.getOperand(0).getType();
        break;
      }
    return s;
  }
};

} // namespace
