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
  FusionToTile(graph::FusionOp fusion, RowDomain domain, bool roundEveryOp, bool fastMath)
      : fusion(fusion), domain(std::move(domain)), roundEveryOp(roundEveryOp),
        fastMath(fastMath) {}

  /// Memref type of a kernel argument for a tensor of `type`.
  FailureOr<MemRefType> bufferType(RankedTensorType type) {
    Type elem = type.getElementType();
    switch (domain.classify(type.getShape())) {
    case RowRole::Full:
    case RowRole::RowScalar:
    case RowRole::Part:
      return MemRefType::get({ShapedType::kDynamic, type.getShape().back()}, elem);
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

  RowRole role(Value v) { return domain.classify(shapeOf(v)); }
  static bool isTileRole(RowRole r) {
    return r == RowRole::Full || r == RowRole::Part || r == RowRole::SharedVector;
  }
  bool isTile(Value v) { return isTileRole(role(v)); }

  /// Tile-level type of a graph value: a row tile (parts of rows too: their
  /// columns past the part's width are unused) or a scalar.
  Type tileType(Type graphType) {
    auto t = llvm::cast<RankedTensorType>(graphType);
    if (isTileRole(domain.classify(t.getShape())))
      return RankedTensorType::get({domain.cols}, t.getElementType());
    return t.getElementType();
  }

  FailureOr<func::FuncOp> build(OpBuilder &moduleBuilder, StringRef name) {
    Location loc = fusion.getLoc();
    SmallVector<Type> args;
    Block &body = fusion.getBody().front();
    for (auto [in, arg] : llvm::zip(fusion.getInputs(), body.getArguments())) {
      FailureOr<MemRefType> ty = failure();
      auto inType = llvm::cast<RankedTensorType>(in.getType());
      if (llvm::any_of(arg.getUsers(), [](Operation *u) { return isa<graph::MatmulOp>(u); }))
        ty = matmulOperandType(arg);
      else if (llvm::any_of(arg.getUsers(), [](Operation *u) { return readsRowsFromMemory(u); }))
        // (Rows of a slice along a row dim: more rows than the domain's; of
        // a concatenation's piece: fewer; of a transpose read through by
        // another gathering op, either. One type for all pieces, so that a
        // load reads the piece chosen by the row's digit.)
        ty = MemRefType::get({ShapedType::kDynamic, inType.getShape().back()},
                             inType.getElementType());
      else
        ty = bufferType(inType);
      if (failed(ty))
        return failure();
      args.push_back(*ty);
    }
    auto yieldOp = llvm::cast<graph::YieldOp>(body.getTerminator());
    for (auto [res, yielded] : llvm::zip(fusion.getResultTypes(), yieldOp.getValues())) {
      auto t = llvm::cast<RankedTensorType>(res);
      // (An update in place writes rows of its whole buffer.)
      FailureOr<MemRefType> ty =
          yielded.getDefiningOp<graph::UpdateSliceOp>()
              ? MemRefType::get({ShapedType::kDynamic, t.getShape().back()}, t.getElementType())
              : bufferType(t);
      if (failed(ty))
        return failure();
      args.push_back(*ty);
    }
    auto fn = moduleBuilder.create<func::FuncOp>(
        loc, name, moduleBuilder.getFunctionType(args, {}));
    fn->setAttr("tile.kernel", moduleBuilder.getUnitAttr());
    fn->setAttr("tile.domain", moduleBuilder.getDenseI64ArrayAttr(domain.fullShape()));
    // The grid is sized from a buffer with one row per domain row.
    SmallVector<Type> boundTypes(fusion.getInputs().getTypes());
    boundTypes.append(fusion.getResultTypes().begin(), fusion.getResultTypes().end());
    for (auto [i, t] : llvm::enumerate(boundTypes)) {
      ArrayRef<int64_t> shape = llvm::cast<RankedTensorType>(t).getShape();
      RowRole r = domain.classify(shape);
      if ((r == RowRole::Full || r == RowRole::RowScalar || r == RowRole::Part) &&
          !domain.mapsRows(shape)) {
        fn->setAttr("tile.row_buffer", moduleBuilder.getI64IntegerAttr(i));
        break;
      }
    }
    if (!body.getOps<graph::MatmulOp>().empty())
      fn->setAttr("tile.gemm", moduleBuilder.getUnitAttr());
    // A kernel updating a buffer in place runs over the update's rows,
    // fewer than its output buffer's and not always any input's (an update
    // gathered through a slice): its row count is compiled in.
    if (!body.getOps<graph::UpdateSliceOp>().empty()) {
      fn->setAttr("tile.static_rows", moduleBuilder.getUnitAttr());
      fn->removeAttr("tile.row_buffer");
    }
    Block *entry = fn.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockEnd(entry);
    row = b.create<tile::RowIdOp>(loc, b.getIndexType());

    // The fusion pass only groups ops that fit the domain; hand-written IR
    // may not, and would otherwise be lowered as if it did.
    SmallVector<int64_t> full = domain.fullShape();
    // A transpose of row dims whose operand this kernel computes is a
    // scatter (FuseRowOps): the operand's rows are stored at their
    // transposed places, and nothing here reads the transpose.
    auto isScatter = [&](Operation *op) {
      return isa<graph::TransposeOp>(op) && gathersRows(op) &&
             !llvm::isa<BlockArgument>(op->getOperand(0)) &&
             !gathersRows(op->getOperand(0).getDefiningOp());
    };
    for (Operation &op : body.without_terminator()) {
      if (storedThroughUpdate(&op) || isChainedGather(&op))
        continue; // (stored through by its update; read through by its consumer's load)
      if (isScatter(&op)) {
        if (!scatterFits(&op, domain))
          return op.emitOpError("is stored by a kernel of row domain [")
                 << ArrayRef<int64_t>(full)
                 << "], which does not compute its operand's full rows";
        if (llvm::any_of(op.getUsers(), [](Operation *u) { return !isa<graph::YieldOp>(u); }))
          return op.emitOpError("is stored permuted by its operand's kernel: nothing in that "
                                "kernel may read it");
        continue;
      }
      if (!fitsRowDomain(&op, domain))
        return op.emitOpError("does not fit the fusion's row domain [")
               << ArrayRef<int64_t>(full) << "] (a row kernel computes whole rows, parts of rows along the last "
                  "axis, per-row scalars and shared values)";
    }
    for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
      argBuffer[arg] = entry->getArgument(i);
      // Per-row and shared scalars are loaded up front; row tiles when first
      // needed (slices read them at column offsets), except whole rows that
      // some op reads as they are.
      // (Read by the GEMM's own tile loads, or by the loads of gathered
      // rows: a transpose's permuted rows, a row slice's offset rows.)
      if (llvm::all_of(arg.getUsers(), [](Operation *u) {
            return isa<graph::MatmulOp, graph::TransposeOp>(u) || readsRowsFromMemory(u);
          }))
        continue;
      bool wholeRow = role(arg) == RowRole::Full && !domain.mapsRows(shapeOf(arg)) &&
                      llvm::any_of(arg.getUsers(), [](Operation *u) {
                        return !isa<graph::SliceOp>(u);
                      });
      if (!isTile(arg) || wholeRow || role(arg) == RowRole::SharedVector)
        (void)at(b, arg, 0);
    }
    for (Operation &op : body.without_terminator()) {
      // Parts of rows are computed where a slice, concatenation or store
      // needs them, at the column offset it needs; scatters where stored.
      if (isa<graph::UpdateSliceOp>(op) || storedThroughUpdate(&op) ||
          role(op.getResult(0)) == RowRole::Part || isScatter(&op) || isChainedGather(&op))
        continue;
      if (!at(b, op.getResult(0), 0))
        return failure();
    }
    auto yield = llvm::cast<graph::YieldOp>(body.getTerminator());
    unsigned firstOut = fusion.getInputs().size();
    for (auto [i, v] : llvm::enumerate(yield.getValues())) {
      Value mem = entry->getArgument(firstOut + i);
      Operation *def = v.getDefiningOp();
      // A scatter stores its operand's row at the transposed row: the
      // output's row dim i holds this row's digit at i's place before the
      // swap.
      Value storeRow = row;
      if (auto update = llvm::dyn_cast_if_present<graph::UpdateSliceOp>(def)) {
        // An update in place: row r of the rows it stores (the domain's,
        // or relabeled; updateRows) goes to the buffer's row whose digits
        // are r's, swapped where it stores through a transpose, with
        // `start` added at the axis.
        Value rows = updateRows(update);
        std::optional<RowDomain> own = RowDomain::fromFullShape(shapeOf(rows));
        SmallVector<std::pair<int64_t, int64_t>> digits;
        for (int64_t i = 0; i < static_cast<int64_t>(own->lead.size()); ++i)
          digits.push_back({i, 0});
        if (rows != update.getUpdate()) {
          auto t = update.getUpdate().getDefiningOp<graph::TransposeOp>();
          std::swap(digits[t.getDim0()], digits[t.getDim1()]);
        }
        digits[update.getAxis()].second += update.getStart();
        storeRow = rowIndex(b, loc, own->chainedRowMap(shapeOf(v), digits));
        v = rows;
      } else if (def && isScatter(def)) {
        // (Over the operand's own row dims: the domain's, or relabeled.)
        auto t = llvm::cast<graph::TransposeOp>(def);
        std::optional<RowDomain> own = RowDomain::fromFullShape(shapeOf(t.getInput()));
        storeRow = rowIndex(b, loc, own->transposedRowMap(shapeOf(v), t.getDim0(), t.getDim1()));
        v = t.getInput();
      }
      Value value = at(b, v, 0);
      if (!value)
        return failure();
      value = convert(b, loc, value, llvm::cast<MemRefType>(mem.getType()).getElementType());
      // Values shared by all rows (e.g. exp of a weight) are stored once.
      bool perRow = llvm::cast<MemRefType>(mem.getType()).getRank() == 2;
      auto store = b.create<tile::StoreOp>(loc, value, mem, perRow ? storeRow : Value(),
                                           IntegerAttr());
      if (role(v) == RowRole::Part) // only the part's columns are written
        store.setColOffsetAttr(b.getI64IntegerAttr(0));
    }
    b.create<func::ReturnOp>(loc);
    return fn;
  }

private:
  /// The buffer of a matmul operand: lhs rows memref<?xKxT> (lead dims
  /// flattened into rows; memref<KxMxT> when transposed, memref<BxKxMxT>
  /// with batch dims), rhs memref<KxNxT> (memref<NxKxT> when transposed;
  /// batch dims flattened in front). An operand also read by the epilogue
  /// must have the same buffer in both roles.
  FailureOr<MemRefType> matmulOperandType(BlockArgument arg) {
    auto type = llvm::cast<RankedTensorType>(arg.getType());
    ArrayRef<int64_t> shape = type.getShape();
    MemRefType mt;
    for (Operation *u : arg.getUsers()) {
      auto mm = dyn_cast<graph::MatmulOp>(u);
      if (!mm)
        continue;
      MemRefType t;
      bool isLhs = mm.getLhs() == arg;
      if (isLhs && mm.getRhs() == arg)
        return mm.emitOpError("with one tensor as both operands is not supported in a GEMM kernel");
      if (isLhs && !mm.getTransposeA()) {
        t = MemRefType::get({ShapedType::kDynamic, shape.back()}, type.getElementType());
      } else if (shape.size() > 2) { // batched rhs [batch, K, N] or transposed lhs
                                     // [batch, K, M]: batch dims flattened
        int64_t batch = 1;
        for (int64_t d : shape.drop_back(2))
          batch *= d;
        t = MemRefType::get({batch, shape[shape.size() - 2], shape.back()},
                            type.getElementType());
      } else {
        t = MemRefType::get(shape, type.getElementType());
      }
      if (mt && mt != t)
        return mm.emitOpError("operand ") << type << " is read in two different layouts";
      mt = t;
    }
    bool otherUsers = llvm::any_of(arg.getUsers(), [](Operation *u) {
      return !isa<graph::MatmulOp>(u);
    });
    if (otherUsers) {
      auto rowType = bufferType(type);
      if (failed(rowType) || *rowType != mt)
        return fusion.emitOpError("input ")
               << type << " is read both by a matmul and by its epilogue in different layouts";
    }
    return mt;
  }

  /// The row of `arg`'s buffer that this program instance reads.
  Value rowOf(OpBuilder &b, Value arg) {
    ArrayRef<int64_t> shape = shapeOf(arg);
    if (!domain.mapsRows(shape))
      return row;
    Value &cached = mappedRows[arg];
    if (cached)
      return cached;
    cached = rowIndex(b, arg.getLoc(), domain.rowMap(shape));
    return cached;
  }

  /// The sum of the terms over this instance's row (0 without terms).
  Value rowIndex(OpBuilder &b, Location loc, ArrayRef<RowMapTerm> terms) {
    auto idx = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); };
    Value sum;
    for (const RowMapTerm &t : terms) {
      Value v = row;
      if (t.mul == 0) {
        v = idx(t.add);
      } else {
        if (t.div != 1)
          v = b.create<arith::DivUIOp>(loc, v, idx(t.div));
        if (t.mod != 0)
          v = b.create<arith::RemUIOp>(loc, v, idx(t.mod));
        if (t.mul != 1)
          v = b.create<arith::MulIOp>(loc, v, idx(t.mul));
        if (t.add != 0)
          v = b.create<arith::AddIOp>(loc, v, idx(t.add));
      }
      sum = sum ? b.create<arith::AddIOp>(loc, sum, v) : v;
    }
    return sum ? sum : idx(0);
  }

  /// Value `v` of the fusion as seen `shift` columns to the right: for a
  /// tile, element j is v[j + shift] (undefined where j + shift falls outside
  /// v's columns); scalars do not depend on the shift. Null on failure.
  Value at(OpBuilder &b, Value v, int64_t shift) {
    if (!isTile(v))
      shift = 0;
    auto key = std::make_pair(v, shift);
    if (Value known = memo.lookup(key))
      return known;
    Value result;
    Location loc = v.getLoc();
    if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
      Value mem = argBuffer.lookup(arg);
      auto memType = llvm::cast<MemRefType>(mem.getType());
      Value r = memType.getRank() == 2 ? rowOf(b, arg) : Value();
      auto load = b.create<tile::LoadOp>(loc, tileType(arg.getType()), mem, r, IntegerAttr());
      if (isTile(arg) && (shift != 0 || memType.getShape().back() != domain.cols))
        load.setColOffsetAttr(b.getI64IntegerAttr(shift));
      result = load;
    } else {
      Operation *op = v.getDefiningOp();
      if (gathersRows(op)) {
        // Rows gathered from the inputs' buffers: domain row r reads the
        // input row at r's digits with dims d0 and d1 swapped (a transpose
        // of row dims), `start` added at the sliced dim (a slice along a
        // row dim), or, of a concatenation along a row dim, the piece that
        // holds r's digit d there, at d less the piece's offset: the piece
        // and its row are selected, and one load reads them.
        SmallVector<std::pair<int64_t, int64_t>> digits;
        for (int64_t i = 0; i < static_cast<int64_t>(domain.lead.size()); ++i)
          digits.push_back({i, 0});
        auto [source, sourceRow] = gatherSource(b, loc, v, digits);
        if (!source)
          return Value();
        auto load = b.create<tile::LoadOp>(loc, tileType(v.getType()), source, sourceRow,
                                           IntegerAttr());
        if (shift != 0)
          load.setColOffsetAttr(b.getI64IntegerAttr(shift));
        result = load;
      } else if (auto view = dyn_cast<graph::ReshapeOp>(op)) {
        // Fused only when it keeps the last dim: the same row tile.
        result = at(b, view.getInput(), shift);
      } else if (auto slice = dyn_cast<graph::SliceOp>(op)) {
        result = at(b, slice.getInput(), shift + slice.getStart());
        if (result && !isTile(v)) {
          // One column: the per-row scalar in column 0 of the shifted tile,
          // taken by summing the tile with every other column zeroed.
          Value t = convert(b, loc, result, b.getF32Type());
          auto type = llvm::cast<RankedTensorType>(t.getType());
          Value zeros = b.create<arith::ConstantOp>(
              loc, DenseElementsAttr::get(type, b.getF32FloatAttr(0.0)));
          Value first = b.create<tile::SelectColsOp>(loc, type, t, zeros, b.getI64IntegerAttr(1));
          result = b.create<tile::ReduceSumOp>(loc, b.getF32Type(), first);
        }
      } else if (auto concat = dyn_cast<graph::ConcatOp>(op)) {
        // Piece k covers columns [o_k, o_k + w_k) of the concatenation, i.e.
        // tile columns from o_k - shift on.
        int64_t offset = 0;
        for (Value piece : concat.getInputs()) {
          int64_t split = offset - shift;
          if (split >= domain.cols)
            break;
          Value p = at(b, piece, shift - offset);
          if (!p)
            return Value();
          if (!llvm::isa<RankedTensorType>(p.getType())) // a one-column piece
            p = b.create<tile::SplatOp>(loc, RankedTensorType::get({domain.cols}, p.getType()), p);
          // Pieces may be held at different precisions (excess precision).
          if (result && result.getType() != p.getType()) {
            Type f32 = b.getF32Type();
            result = convert(b, loc, result, f32);
            p = convert(b, loc, p, f32);
          }
          result = result && split > 0
                       ? b.create<tile::SelectColsOp>(loc, p.getType(), result, p,
                                                      b.getI64IntegerAttr(split))
                       : p;
          offset += shapeOf(piece).back();
        }
      } else if (auto mm = dyn_cast<graph::MatmulOp>(op)) {
        Value lhs = argBuffer.lookup(llvm::dyn_cast<BlockArgument>(mm.getLhs()));
        Value rhs = argBuffer.lookup(llvm::dyn_cast<BlockArgument>(mm.getRhs()));
        if (!lhs || !rhs) {
          mm.emitOpError("operands must be inputs of the fusion (a GEMM kernel has no prologue)");
          return Value();
        }
        if (shift != 0) {
          mm.emitOpError("is read at a column offset; slices of a product are not fused");
          return Value();
        }
        auto f32 = b.getF32Type();
        result = b.create<tile::MatmulOp>(loc, RankedTensorType::get({domain.cols}, f32), lhs,
                                          rhs, row, mm.getTransposeA(), mm.getTransposeB());
        result = finish(b, loc, result, mm.getType());
      } else {
        result = lower(b, *op, shift);
      }
    }
    if (result)
      memo[key] = result;
    return result;
  }

  /// A gathering op read only by gathering ops (FuseRowOps' chainGathers):
  /// its consumers' loads read through it.
  static bool isChainedGather(Operation *op) {
    // (A scatter's operand is never a gathering op: FuseRowOps chains a
    // transpose of one instead.)
    return gathersRows(op) && !op->use_empty() &&
           llvm::all_of(op->getUsers(), [](Operation *u) { return readsRowsFromMemory(u); });
  }

  /// Where this domain row reads the gathered value `v`: a buffer and its
  /// row. `digits[i]` is the domain digit v's row dim i holds, plus an
  /// offset: a transpose of row dims swaps two of them, a slice along one
  /// adds its start, a concatenation along one reads the piece that holds
  /// the digit at its axis, less the piece's offset, selecting the piece's
  /// buffer and row (`arith.select`; all pieces' buffers are typed
  /// memref<?xC>), so one load reads any chain of them from a fusion
  /// input.
  std::pair<Value, Value> gatherSource(OpBuilder &b, Location loc, Value v,
                                       SmallVector<std::pair<int64_t, int64_t>> digits) {
    if (auto arg = llvm::dyn_cast<BlockArgument>(v))
      return {argBuffer.lookup(arg), rowIndex(b, loc, domain.chainedRowMap(shapeOf(arg), digits))};
    Operation *op = v.getDefiningOp();
    if (!op || !gathersRows(op)) {
      if (op)
        op->emitOpError("is read through gathered rows, which come from fusion inputs (a "
                        "transpose of row dims, a slice or concatenation along one gathers "
                        "rows from memory)");
      return {};
    }
    if (auto t = dyn_cast<graph::TransposeOp>(op)) {
      std::swap(digits[t.getDim0()], digits[t.getDim1()]);
      return gatherSource(b, loc, t.getInput(), digits);
    }
    if (auto slice = dyn_cast<graph::SliceOp>(op)) {
      digits[slice.getAxis()].second += slice.getStart();
      return gatherSource(b, loc, slice.getInput(), digits);
    }
    auto concat = llvm::cast<graph::ConcatOp>(op);
    int64_t axis = concat.getAxis();
    auto [dim, add] = digits[axis];
    Value digit = rowIndex(b, loc, {domain.digitAt(dim)});
    if (add != 0)
      digit = b.create<arith::AddIOp>(loc, digit, b.create<arith::ConstantIndexOp>(loc, add));
    Value source, sourceRow;
    int64_t offset = 0;
    for (Value piece : concat.getInputs()) {
      SmallVector<std::pair<int64_t, int64_t>> pieceDigits = digits;
      pieceDigits[axis].second -= offset;
      auto [buffer, pieceRow] = gatherSource(b, loc, piece, pieceDigits);
      if (!buffer)
        return {};
      if (offset > 0) { // digit >= offset: this piece
        Value past = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::uge, digit,
                                             b.create<arith::ConstantIndexOp>(loc, offset));
        pieceRow = b.create<arith::SelectOp>(loc, past, pieceRow, sourceRow);
        buffer = b.create<arith::SelectOp>(loc, past, buffer, source);
      }
      source = buffer;
      sourceRow = pieceRow;
      offset += shapeOf(piece)[axis];
    }
    return {source, sourceRow};
  }

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

  /// A computed f32 value of graph type `graphType`: rounded to its dtype
  /// when every op rounds, else kept in f32 until a store or a cast.
  Value finish(OpBuilder &b, Location loc, Value r, Type graphType) {
    if (!roundEveryOp)
      return r;
    return convert(b, loc, r, elementOf(tileType(graphType)));
  }

  /// Elementwise math in f32: 16-bit operands are widened; the result is
  /// rounded back only with round-every-op (see finish).
  Value elementwise(OpBuilder &b, Location loc, Operation &op, int64_t shift,
                    llvm::function_ref<Value(OpBuilder &, ValueRange)> emit) {
    SmallVector<Value> wide;
    for (Value v : op.getOperands())
      wide.push_back(convert(b, loc, at(b, v, shift), b.getF32Type()));
    Value r = emit(b, wide);
    return finish(b, loc, r, op.getResult(0).getType());
  }

  /// Emits op's tile program with its operands seen at `shift`.
  Value lower(OpBuilder &b, Operation &op, int64_t shift) {
    Location loc = op.getLoc();
    auto operand = [&](Value v) { return at(b, v, shift); };
    for (Value v : op.getOperands())
      if (!operand(v))
        return Value();
    auto f32 = [&](Value like, double v) { return constant(b, loc, like.getType(), v); };
    auto binary = [&](auto tag) {
      using OpTy = decltype(tag);
      return elementwise(b, loc, op, shift, [&](OpBuilder &bb, ValueRange x) -> Value {
        return bb.create<OpTy>(loc, x[0], x[1]);
      });
    };
    auto unary = [&](auto tag) {
      using OpTy = decltype(tag);
      return elementwise(b, loc, op, shift, [&](OpBuilder &bb, ValueRange x) -> Value {
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
            .Case([&](graph::CausalMaskOp c) -> Value {
              // (Seen `shift` columns on: element j is key j + shift.)
              Type t = tileType(c.getType());
              auto shape = llvm::cast<RankedTensorType>(c.getType()).getShape();
              int64_t period = c.getPeriod(), past = c.getPast();
              int64_t offset = (past >= 0 ? past : shape.back() - period) - shift;
              if (!llvm::isa<RankedTensorType>(t)) // (one key: every row sees it)
                return constant(b, loc, t, 0.0);
              return b.create<tile::CausalMaskOp>(loc, t, row, b.getI64IntegerAttr(period),
                                                  b.getI64IntegerAttr(offset),
                                                  b.getI64IntegerAttr(c.getWindow()));
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
              return elementwise(b, loc, op, shift, [&](OpBuilder &, ValueRange x) -> Value {
                return sigmoid(x[0]);
              });
            })
            .Case([&](graph::SiluOp) {
              return elementwise(b, loc, op, shift, [&](OpBuilder &, ValueRange x) -> Value {
                return b.create<arith::MulFOp>(loc, x[0], sigmoid(x[0]));
              });
            })
            .Case([&](graph::GeluOp) {
              return elementwise(b, loc, op, shift, [&](OpBuilder &, ValueRange x) -> Value {
                // 0.5 x (1 + tanh(y)), y = sqrt(2/pi) (x + 0.044715 x^3), is
                // x * sigmoid(2y) = x / (1 + exp(-2y)): one exp and one
                // division instead of a tanh (about 20 instructions in
                // libdevice), and no cancellation in 1 + tanh(y) for y << 0.
                Value v = x[0];
                Value x2 = b.create<arith::MulFOp>(loc, v, v);
                // Fast math with a 16-bit result: h + h tanh(y), h = x / 2,
                // with tanh.approx (one MUFU op where ex2 and the division's
                // reciprocal are two: the MUFU pipe bounds a GEMM's GELU
                // epilogue). Its absolute error (about 2^-11 |h|) is below
                // the result's rounding in norm, though not relative to the
                // tiny values of the tail x << 0; f32 results keep the form
                // above.
                auto resultType = cast<ShapedType>(op.getResult(0).getType());
                if (fastMath && resultType.getElementType().getIntOrFloatBitWidth() == 16) {
                  // y = x (c + 0.044715 c x^2), c = sqrt(2/pi): the constants
                  // folded (the multiply-add contracts to one FMA).
                  double c = std::sqrt(2.0 / M_PI);
                  Value y = b.create<arith::MulFOp>(
                      loc, v,
                      b.create<arith::AddFOp>(
                          loc, f32(v, c), b.create<arith::MulFOp>(loc, f32(v, 0.044715 * c), x2)));
                  Value t = b.create<math::TanhOp>(loc, y);
                  Value h = b.create<arith::MulFOp>(loc, f32(v, 0.5), v);
                  return b.create<arith::AddFOp>(loc, h, b.create<arith::MulFOp>(loc, h, t));
                }
                Value poly = b.create<arith::AddFOp>(
                    loc, f32(v, 1.0), b.create<arith::MulFOp>(loc, f32(v, 0.044715), x2));
                // exp(-2y) as exp2 with log2(e) folded into the constant:
                // one multiply and ex2 (exp would multiply by log2(e) again).
                Value scaled = b.create<arith::MulFOp>(
                    loc, f32(v, -2.0 * std::sqrt(2.0 / M_PI) * M_LOG2E),
                    b.create<arith::MulFOp>(loc, v, poly));
                Value e = b.create<math::Exp2Op>(loc, scaled);
                return b.create<arith::DivFOp>(loc, v, b.create<arith::AddFOp>(loc, f32(v, 1.0), e));
              });
            })
            .Case([&](graph::CastOp c) {
              return convert(b, loc, operand(c.getInput()),
                             c.getType().getElementType());
            })
            .Case([&](graph::BroadcastOp bc) -> Value {
              Value in = operand(bc.getInput());
              bool toTile = llvm::isa<RankedTensorType>(tileType(bc.getType()));
              if (!toTile || llvm::isa<RankedTensorType>(in.getType()))
                return in; // shared vector -> rows, or scalar reshapes
              return b.create<tile::SplatOp>(
                  loc, RankedTensorType::get({domain.cols}, in.getType()), in);
            })
            .Case<graph::ReduceSumOp, graph::ReduceMaxOp, graph::ReduceMeanOp>(
                [&](Operation *red) -> Value {
                  Value in = convert(b, loc, operand(red->getOperand(0)), b.getF32Type());
                  Value r;
                  if (isa<graph::ReduceMaxOp>(red))
                    r = b.create<tile::ReduceMaxOp>(loc, b.getF32Type(), in);
                  else
                    r = b.create<tile::ReduceSumOp>(loc, b.getF32Type(), in);
                  if (isa<graph::ReduceMeanOp>(red))
                    r = b.create<arith::DivFOp>(
                        loc, r, b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(domain.cols)));
                  Type resultType = tileType(red->getResult(0).getType());
                  r = finish(b, loc, r, red->getResult(0).getType());
                  // With one column a per-row scalar is also a full row.
                  if (llvm::isa<RankedTensorType>(resultType))
                    r = b.create<tile::SplatOp>(
                        loc, RankedTensorType::get({domain.cols}, r.getType()), r);
                  return r;
                })
            .Default([&](Operation *) { return Value(); });
    if (!result)
      op.emitOpError("is not supported in a row kernel");
    return result;
  }

  graph::FusionOp fusion;
  RowDomain domain;
  bool roundEveryOp;
  bool fastMath;
  Value row;
  DenseMap<Value, Value> argBuffer, mappedRows;
  DenseMap<std::pair<Value, int64_t>, Value> memo;
};

struct LowerFusionToTilePass
    : tilec::impl::LowerFusionToTileBase<LowerFusionToTilePass> {
  using Base::Base;

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
        if (shape && fusion->hasAttr("attention")) {
          kernel = buildAttention(mb, name, fusion, *RowDomain::fromFullShape(shape.asArrayRef()));
        } else if (shape) {
          FusionToTile lowering(fusion, *RowDomain::fromFullShape(shape.asArrayRef()),
                                roundEveryOp, fastMath);
          kernel = lowering.build(mb, name);
        } else if (Operation *reduce = innerAxisReduction(fusion)) {
          kernel = buildStridedReduction(mb, name, fusion, reduce);
        } else if (auto t = lastDimTranspose(fusion)) {
          kernel = buildStridedTranspose(mb, name, t);
        } else {
          fusion.emitOpError("has no row domain: ")
              << describe(fusion) << " is not supported by tilec's row kernels yet";
          return signalPassFailure();
        }
        if (failed(kernel))
          return signalPassFailure();
        // Fast math: approximate exp/log/tanh/division (afn), and every
        // float add, subtract and multiply may contract into an FMA (CUDA's
        // and Triton's default; without it LLVM emits mul.rn/add.rn, which
        // ptxas must not fuse) unless every op is to round like eager
        // PyTorch (round-every-op: an FMA would skip a rounding).
        bool contract = !roundEveryOp;
        if (fastMath)
          kernel->walk([&](Operation *op) {
            auto flags = arith::FastMathFlags::none;
            if (isa<math::ExpOp, math::Exp2Op, math::LogOp, math::TanhOp, arith::DivFOp>(op))
              flags = flags | arith::FastMathFlags::afn;
            if (contract && isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(op))
              flags = flags | arith::FastMathFlags::contract;
            if (flags != arith::FastMathFlags::none)
              op->setAttr("fastmath", arith::FastMathFlagsAttr::get(op->getContext(), flags));
          });
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

  /// An attention fusion (FuseRowOps' formAttention) is two row programs
  /// over the same rows, joined by the row of probabilities: the scores'
  /// (q @ k^T, its epilogue, the softmax and the cast to p) over the keys,
  /// and the output's (p @ v, its epilogue, the stores) over v's columns.
  /// Each is lowered as a fusion of its own (two temporary graph.fusion ops
  /// before this one), then the two kernels are joined into one (marked
  /// tile.attention): the first's store of p is dropped and the second's
  /// product reads the stored value instead, as tile.row_matmul.
  FailureOr<func::FuncOp> buildAttention(OpBuilder &mb, StringRef name, graph::FusionOp fusion,
                                         const RowDomain &domain) {
    Location loc = fusion.getLoc();
    Block &body = fusion.getBody().front();
    graph::MatmulOp pv;
    for (auto mm : body.getOps<graph::MatmulOp>())
      if (mm.getLhs().getDefiningOp())
        pv = mm;
    if (!pv || pv.getTransposeA())
      return fusion.emitOpError("is marked attention but has no product of a computed row");
    Value p = pv.getLhs();
    // The scores' part: p and everything it depends on.
    DenseSet<Operation *> first;
    SmallVector<Value> stack{p};
    while (!stack.empty()) {
      Operation *def = stack.pop_back_val().getDefiningOp();
      if (def && first.insert(def).second)
        llvm::append_range(stack, def->getOperands());
    }
    auto yield = llvm::cast<graph::YieldOp>(body.getTerminator());
    for (Value v : yield.getValues())
      if (v.getDefiningOp() && first.count(v.getDefiningOp()))
        return fusion.emitOpError("is marked attention but returns a value of its scores' part");
    // Builds a temporary fusion of `part`'s ops (constants cloned where
    // used) reading `extra` (p, for the output's part) and the inputs they
    // use, yielding `results`.
    OpBuilder hb(fusion);
    auto makePart = [&](llvm::function_ref<bool(Operation *)> inPart, Value extraOuter,
                        Value extraInner, ArrayRef<Value> results) {
      SmallVector<Value> inputs, args;
      if (extraOuter) {
        inputs.push_back(extraOuter);
        args.push_back(extraInner);
      }
      for (auto [outer, arg] : llvm::zip(fusion.getInputs(), body.getArguments()))
        if (llvm::any_of(arg.getUsers(), [&](Operation *u) { return inPart(u); })) {
          inputs.push_back(outer);
          args.push_back(arg);
        }
      auto part = hb.create<graph::FusionOp>(loc, TypeRange(ValueRange(results)), inputs);
      Block *block = new Block();
      part.getBody().push_back(block);
      IRMapping map;
      for (Value a : args)
        map.map(a, block->addArgument(a.getType(), loc));
      OpBuilder inner = OpBuilder::atBlockEnd(block);
      for (Operation &op : body.without_terminator()) {
        if (!inPart(&op))
          continue;
        for (Value v : op.getOperands())
          if (auto c = v.getDefiningOp<graph::ConstantOp>(); c && !map.contains(v))
            map.map(v, inner.clone(*c)->getResult(0));
        inner.clone(op, map);
      }
      SmallVector<Value> yielded;
      for (Value r : results)
        yielded.push_back(map.lookup(r));
      inner.create<graph::YieldOp>(loc, yielded);
      return part;
    };
    auto isConstant = [](Operation *op) { return isa<graph::ConstantOp>(op); };
    graph::FusionOp scoresPart = makePart(
        [&](Operation *op) { return first.count(op) && !isConstant(op); }, Value(), Value(), {p});
    graph::FusionOp outPart = makePart(
        [&](Operation *op) { return !first.count(op) && !isConstant(op) && !isa<graph::YieldOp>(op); },
        scoresPart.getResult(0), p, SmallVector<Value>(yield.getValues()));
    auto eraseParts = [&] {
      outPart.erase();
      scoresPart.erase();
    };
    auto scoresDomain = RowDomain::fromFullShape(shapeOf(p));
    if (!scoresDomain || scoresDomain->rows() != domain.rows()) {
      eraseParts();
      return fusion.emitOpError("attention's scores and output have different rows");
    }
    FusionToTile lowerScores(scoresPart, *scoresDomain, roundEveryOp, fastMath);
    FusionToTile lowerOut(outPart, domain, roundEveryOp, fastMath);
    FailureOr<func::FuncOp> fnA = lowerScores.build(mb, (name + "_scores").str());
    FailureOr<func::FuncOp> fnB = failure();
    if (succeeded(fnA))
      fnB = lowerOut.build(mb, (name + "_out").str());
    auto cleanup = [&] {
      if (succeeded(fnA))
        fnA->erase();
      if (succeeded(fnB))
        fnB->erase();
      eraseParts();
    };
    if (failed(fnB)) {
      cleanup();
      return failure();
    }
    // The joined kernel's arguments: the fusion's inputs, then its outputs.
    // Each input's arguments in the two parts (the output part's first, p,
    // is no fusion input) must have one type.
    SmallVector<SmallVector<std::pair<int, Value>>> uses; // (part, its argument)
    SmallVector<Type> argTypes;
    for (Value outer : fusion.getInputs()) {
      auto &u = uses.emplace_back();
      for (auto [k, part, f] : {std::tuple{0, scoresPart, *fnA}, std::tuple{1, outPart, *fnB}})
        for (auto [i, in] : llvm::enumerate(part.getInputs()))
          if (in == outer && !(k == 1 && i == 0))
            u.push_back({k, f.getArgument(i)});
      if (u.empty()) {
        cleanup();
        return fusion.emitOpError("internal error: an attention input no part reads");
      }
      Type type = u.front().second.getType();
      for (auto [k, arg] : u)
        if (arg.getType() != type) {
          cleanup();
          return fusion.emitOpError("attention reads input ")
                 << outer.getType() << " in two layouts: " << type << " and " << arg.getType();
        }
      argTypes.push_back(type);
    }
    unsigned outFirst = outPart.getInputs().size();
    for (unsigned i = 0; i < outPart.getNumResults(); ++i)
      argTypes.push_back(fnB->getArgument(outFirst + i).getType());
    auto fn = mb.create<func::FuncOp>(loc, name, mb.getFunctionType(argTypes, {}));
    for (StringRef a : {"tile.kernel", "tile.gemm"})
      fn->setAttr(a, mb.getUnitAttr());
    fn->setAttr("tile.attention", mb.getUnitAttr());
    fn->setAttr("tile.domain", mb.getDenseI64ArrayAttr(domain.fullShape()));
    Block *entry = fn.addEntryBlock();
    IRMapping mapA, mapB;
    for (auto [i, u] : llvm::enumerate(uses))
      for (auto [k, arg] : u)
        (k == 0 ? mapA : mapB).map(arg, entry->getArgument(i));
    for (unsigned i = 0; i < outPart.getNumResults(); ++i)
      mapB.map(fnB->getArgument(outFirst + i), entry->getArgument(fusion.getInputs().size() + i));
    OpBuilder b = OpBuilder::atBlockEnd(entry);
    Value pArgA = fnA->getArgument(scoresPart.getInputs().size()), pArgB = fnB->getArgument(0);
    Value probabilities, rowA;
    for (Operation &op : fnA->getBody().front().without_terminator()) {
      if (auto store = dyn_cast<tile::StoreOp>(op); store && store.getDest() == pArgA) {
        probabilities = mapA.lookup(store.getValue());
        continue;
      }
      Operation *clone = b.clone(op, mapA);
      if (isa<tile::RowIdOp>(op))
        rowA = clone->getResult(0);
    }
    bool joined = false;
    for (Operation &op : fnB->getBody().front().without_terminator()) {
      if (isa<tile::RowIdOp>(op)) {
        mapB.map(op.getResult(0), rowA);
        continue;
      }
      if (auto mm = dyn_cast<tile::MatmulOp>(op); mm && mm.getLhs() == pArgB) {
        if (!probabilities || mm.getTransposeA())
          break;
        Value r = b.create<tile::RowMatmulOp>(mm.getLoc(), mm.getType(), probabilities,
                                              mapB.lookup(mm.getRhs()), mapB.lookup(mm.getRow()),
                                              mm.getTransposeB());
        mapB.map(mm.getResult(), r);
        joined = true;
        continue;
      }
      b.clone(op, mapB);
    }
    b.create<func::ReturnOp>(loc);
    bool pReadElsewhere = llvm::any_of(fn.getBody().front().getOperations(), [&](Operation &op) {
      return llvm::is_contained(op.getOperands(), pArgA) || llvm::is_contained(op.getOperands(), pArgB);
    });
    if (!joined || !rowA || pReadElsewhere) {
      fn.erase();
      cleanup();
      return fusion.emitOpError("internal error: attention's parts could not be joined");
    }
    cleanup();
    return fn;
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

  /// The fusion's only op, if it is a transpose swapping the last dim of
  /// its region argument (what the fusion pass leaves alone).
  static graph::TransposeOp lastDimTranspose(graph::FusionOp fusion) {
    graph::TransposeOp found;
    for (Operation &op : fusion.getBody().front().without_terminator()) {
      auto t = dyn_cast<graph::TransposeOp>(op);
      if (!t || found)
        return {};
      found = t;
    }
    if (!found || !llvm::isa<BlockArgument>(found.getInput()) || fusion.getNumResults() != 1 ||
        static_cast<int64_t>(found.getDim1()) != found.getInput().getType().getRank() - 1)
      return {};
    return found;
  }

  /// A transpose of dims d0 and last of [d0..dn-1] as a row kernel over
  /// strided rows: each output row holds the K = in[d0] elements of one
  /// strided row of the input viewed as [O, K, I] (O, I: the dims before
  /// and after d0, the last one included). Output row r = (o * L + p) * M +
  /// m (L the last dim, M the dims between d0 and it) reads strided row
  /// o * I + m * L + p. One thread a row, neighbouring threads on
  /// neighbouring strided rows: the reads are coalesced, each thread's
  /// writes are a row (the strided-row schedule). Marked kTransposeAttr
  /// ([O, K, M, L]): the scheduler gives it tiles through shared memory
  /// instead where it can (tilec-distribute-transpose-tiles).
  static FailureOr<func::FuncOp> buildStridedTranspose(OpBuilder &mb, StringRef name,
                                                        graph::TransposeOp t) {
    Location loc = t.getLoc();
    auto inType = llvm::cast<RankedTensorType>(t.getInput().getType());
    ArrayRef<int64_t> in = inType.getShape();
    int64_t d0 = t.getDim0(), last = inType.getRank() - 1;
    int64_t outer = 1, mid = 1, k = in[d0], l = in[last];
    for (int64_t d = 0; d < d0; ++d)
      outer *= in[d];
    for (int64_t d = d0 + 1; d < last; ++d)
      mid *= in[d];
    int64_t inner = mid * l;
    Type elem = inType.getElementType();
    auto inMem = MemRefType::get({outer, k, inner}, elem);
    auto outMem = MemRefType::get({ShapedType::kDynamic, k}, elem);
    auto fn = mb.create<func::FuncOp>(loc, name, mb.getFunctionType({inMem, outMem}, {}));
    fn->setAttr("tile.kernel", mb.getUnitAttr());
    fn->setAttr("tile.domain", mb.getDenseI64ArrayAttr({outer * inner, k}));
    fn->setAttr("tile.row_buffer", mb.getI64IntegerAttr(1));
    fn->setAttr(tilec::kTransposeAttr, mb.getDenseI64ArrayAttr({outer, k, mid, l}));
    OpBuilder b = OpBuilder::atBlockEnd(fn.addEntryBlock());
    Value row = b.create<tile::RowIdOp>(loc, b.getIndexType());
    Value strided = row; // the same row when nothing lies between d0 and the last dim
    if (mid > 1) {
      auto idx = [&](int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); };
      Value o = b.create<arith::MulIOp>(
          loc, b.create<arith::DivUIOp>(loc, row, idx(l * mid)), idx(inner));
      Value p = b.create<arith::RemUIOp>(loc, b.create<arith::DivUIOp>(loc, row, idx(mid)), idx(l));
      Value m = b.create<arith::MulIOp>(loc, b.create<arith::RemUIOp>(loc, row, idx(mid)), idx(l));
      strided = b.create<arith::AddIOp>(loc, b.create<arith::AddIOp>(loc, o, m), p);
    }
    Value tile = b.create<tile::LoadOp>(loc, RankedTensorType::get({k}, elem), fn.getArgument(0),
                                        strided, IntegerAttr());
    b.create<tile::StoreOp>(loc, tile, fn.getArgument(1), row, IntegerAttr());
    b.create<func::ReturnOp>(loc);
    return fn;
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
    fn->setAttr("tile.row_buffer", mb.getI64IntegerAttr(1));
    OpBuilder b = OpBuilder::atBlockEnd(fn.addEntryBlock());
    Value row = b.create<tile::RowIdOp>(loc, b.getIndexType());
    Value t = b.create<tile::LoadOp>(loc, RankedTensorType::get({k}, elem),
                                     fn.getArgument(0), row, IntegerAttr());
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
    b.create<tile::StoreOp>(loc, r, fn.getArgument(1), row, IntegerAttr());
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
