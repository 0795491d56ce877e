#include "TileInterpreter.h"

#include "tilec/Dialect/Graph/GraphDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"
#include "tilec/compiler/Internal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>

using namespace mlir;

namespace tilec::tiletest {
namespace {

/// A tensor's bytes: row-major floats, each already rounded to `dtype`.
struct Buffer {
  DType dtype = DType::F32;
  std::vector<float> data;
};

/// What an SSA value holds: an integer (index, i1), a float scalar, a row
/// tile, or a memref (a view of a buffer: its type's shape, the leading
/// dim dynamic).
struct Val {
  int64_t i = 0;
  double f = 0;
  std::vector<double> tile;
  Buffer *mem = nullptr;
};

/// `v` rounded to the float type `t` (f32 included).
double roundAs(Type t, double v) {
  if (!llvm::isa<FloatType>(t))
    return v;
  return roundTo(dtypeOf(t), static_cast<float>(v));
}

Type elemOf(Type t) {
  if (auto s = llvm::dyn_cast<ShapedType>(t))
    return s.getElementType();
  return t;
}

class Interpreter {
public:
  explicit Interpreter(ModuleOp module) : symbols(module) {}

  /// Runs `program`'s launch plan (planLaunches' values and launches, as
  /// Executable::run binds them) with the kernels' row programs.
  Expected<std::vector<HostTensor>> run(const CompiledProgram &program,
                                        const std::vector<HostTensor> &inputs) {
    std::vector<Buffer *> buffers(program.values.size(), nullptr);
    std::vector<const ProgramValue *> outputs;
    for (size_t i = 0; i < program.values.size(); ++i) {
      const ProgramValue &v = program.values[i];
      if (v.kind == ProgramValue::Kind::Input) {
        if (v.index >= static_cast<int>(inputs.size()) || inputs[v.index].shape != v.shape ||
            inputs[v.index].dtype != v.dtype)
          return Status::error("interpreter: input " + std::to_string(v.index) + " must be " +
                               dtypeName(v.dtype) + " " + shapeString(v.shape));
        buffers[i] = newBuffer(v.dtype, inputs[v.index].values);
        continue;
      }
      // Outputs and temporaries start as NaN: an element no kernel writes
      // shows up.
      buffers[i] = newBuffer(v.dtype, std::vector<float>(numElements(v.shape), NAN));
      if (v.kind == ProgramValue::Kind::Output) {
        if (outputs.size() <= static_cast<size_t>(v.index))
          outputs.resize(v.index + 1, nullptr);
        outputs[v.index] = &v;
      }
    }
    for (size_t i = 0; i < program.values.size(); ++i) // (updated in place)
      if (program.values[i].inPlaceOf >= 0)
        buffers[i]->data = buffers[program.values[i].inPlaceOf]->data;
    for (const KernelLaunchPlan &plan : program.launches) {
      auto kernel = symbols.lookup<func::FuncOp>(plan.name);
      if (!kernel)
        return Status::error("interpreter: no kernel " + plan.name);
      std::vector<Buffer *> bound;
      for (auto [kb, type] : llvm::zip(plan.buffers, kernel.getArgumentTypes())) {
        auto m = llvm::cast<MemRefType>(type);
        if (m.getRank() > 0 && m.getShape().back() != kb.cols)
          return Status::error("interpreter: kernel " + plan.name + " binds a buffer of " +
                               std::to_string(kb.cols) + " columns to " +
                               std::to_string(m.getShape().back()));
        bound.push_back(buffers[kb.value]);
      }
      if (Status s = runKernel(kernel, bound, plan.rows); !s.ok())
        return s;
    }
    for (size_t i = 0; i < program.values.size(); ++i)
      if (program.values[i].copyOf >= 0)
        buffers[i]->data = buffers[program.values[i].copyOf]->data;
    std::vector<HostTensor> out;
    for (size_t o = 0; o < outputs.size(); ++o) {
      const ProgramValue *v = outputs[o];
      if (!v)
        return Status::error("interpreter: no output " + std::to_string(o));
      HostTensor h;
      h.shape = v->shape;
      h.dtype = v->dtype;
      h.values = buffers[v - program.values.data()]->data;
      out.push_back(std::move(h));
    }
    return out;
  }

private:
  SymbolTable symbols;
  std::vector<std::unique_ptr<Buffer>> owned;

  Buffer *newBuffer(DType dtype, std::vector<float> data) {
    owned.push_back(std::make_unique<Buffer>());
    owned.back()->dtype = dtype;
    owned.back()->data = std::move(data);
    return owned.back().get();
  }

  static Status unsupported(Operation &op) {
    return Status::error("interpreter: unsupported op " + op.getName().getStringRef().str());
  }

  /// The flat index of `idx` in a memref of type `t` over `b` (the leading
  /// dim may be dynamic: the buffer's size gives it).
  static int64_t flat(MemRefType t, ArrayRef<int64_t> idx) {
    int64_t at = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      at = at * (d == 0 ? 1 : t.getDimSize(d)) + idx[d];
    return at;
  }

  /// Runs the row program of `kernel` for every row of its domain. The GPU
  /// kernel takes its row count from the buffer bound at `tile.row_buffer`
  /// (its element count over the memref's columns): that must be the
  /// domain's, and the launch plan's.
  Status runKernel(func::FuncOp kernel, const std::vector<Buffer *> &bound, int64_t planned) {
    auto domain = kernel->getAttrOfType<DenseI64ArrayAttr>("tile.domain");
    if (!domain)
      return Status::error("interpreter: kernel without tile.domain");
    int64_t rows = 1;
    for (int64_t d : domain.asArrayRef().drop_back())
      rows *= d;
    if (auto rb = kernel->getAttrOfType<IntegerAttr>("tile.row_buffer")) {
      auto m = llvm::cast<MemRefType>(kernel.getArgumentTypes()[rb.getInt()]);
      int64_t bufferRows =
          static_cast<int64_t>(bound[rb.getInt()]->data.size()) / m.getShape().back();
      if (bufferRows != rows || planned != rows)
        return Status::error("interpreter: kernel " + kernel.getName().str() + " has " +
                             std::to_string(rows) + " rows, its row buffer " +
                             std::to_string(bufferRows) + ", its launch plan " +
                             std::to_string(planned));
    }
    Block &body = kernel.getBody().front();
    if (bound.size() != body.getNumArguments())
      return Status::error("interpreter: kernel arity");
    for (int64_t row = 0; row < rows; ++row) {
      llvm::DenseMap<Value, Val> vals;
      for (auto [arg, b] : llvm::zip(body.getArguments(), bound))
        vals[arg].mem = b;
      for (Operation &op : body)
        if (Status s = step(op, row, rows, vals); !s.ok())
          return s;
    }
    return Status::success();
  }

  /// A float op on scalars or tiles, element by element, rounded to the
  /// result's element type.
  Status elementwise(Operation &op, llvm::DenseMap<Value, Val> &vals,
                     const std::function<double(ArrayRef<double>)> &fn) {
    Value res = op.getResult(0);
    Type elem = elemOf(res.getType());
    bool tile = llvm::isa<RankedTensorType>(res.getType());
    Val out;
    if (!tile) {
      SmallVector<double> a;
      for (Value v : op.getOperands())
        a.push_back(vals[v].f);
      out.f = roundAs(elem, fn(a));
    } else {
      int64_t n = llvm::cast<RankedTensorType>(res.getType()).getNumElements();
      out.tile.resize(n);
      SmallVector<double> a(op.getNumOperands());
      for (int64_t j = 0; j < n; ++j) {
        for (auto [k, v] : llvm::enumerate(op.getOperands())) {
          const Val &x = vals[v];
          a[k] = llvm::isa<RankedTensorType>(v.getType()) ? x.tile[j] : x.f;
        }
        out.tile[j] = roundAs(elem, fn(a));
      }
    }
    vals[res] = std::move(out);
    return Status::success();
  }

  Status step(Operation &op, int64_t row, int64_t rows, llvm::DenseMap<Value, Val> &vals) {
    auto unary = [&](double (*f)(double)) {
      return elementwise(op, vals, [f](ArrayRef<double> a) { return f(a[0]); });
    };
    if (isa<func::ReturnOp>(op))
      return Status::success();
    if (isa<tile::RowIdOp>(op)) {
      vals[op.getResult(0)].i = row;
      return Status::success();
    }
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      Val v;
      Attribute a = c.getValue();
      if (auto i = llvm::dyn_cast<IntegerAttr>(a))
        v.i = i.getInt();
      else if (auto f = llvm::dyn_cast<FloatAttr>(a))
        v.f = f.getValueAsDouble();
      else if (auto d = llvm::dyn_cast<DenseElementsAttr>(a); d && d.isSplat() &&
                                                              llvm::isa<FloatType>(d.getElementType()))
        v.tile.assign(d.getNumElements(), d.getSplatValue<APFloat>().convertToDouble());
      else
        return unsupported(op);
      vals[c.getResult()] = std::move(v);
      return Status::success();
    }
    if (auto load = dyn_cast<tile::LoadOp>(op))
      return doLoad(load, vals);
    if (auto store = dyn_cast<tile::StoreOp>(op))
      return doStore(store, vals);
    if (auto splat = dyn_cast<tile::SplatOp>(op)) {
      Val v;
      v.tile.assign(splat.getType().getNumElements(), vals[splat.getInput()].f);
      vals[splat.getResult()] = std::move(v);
      return Status::success();
    }
    if (auto mask = dyn_cast<tile::CausalMaskOp>(op)) {
      int64_t limit = vals[mask.getRow()].i % static_cast<int64_t>(mask.getPeriod()) +
                      static_cast<int64_t>(mask.getOffset());
      Val v;
      for (int64_t j = 0; j < mask.getType().getNumElements(); ++j)
        v.tile.push_back(j <= limit && (mask.getWindow() == 0 ||
                                        j > limit - static_cast<int64_t>(mask.getWindow()))
                             ? 0.0
                             : -std::numeric_limits<double>::infinity());
      vals[mask.getResult()] = std::move(v);
      return Status::success();
    }
    if (auto sel = dyn_cast<tile::SelectColsOp>(op)) {
      Val v = vals[sel.getHigh()];
      const Val &lo = vals[sel.getLow()];
      int64_t split = std::min<int64_t>(sel.getSplit(), v.tile.size());
      for (int64_t j = 0; j < split; ++j)
        v.tile[j] = lo.tile[j];
      vals[sel.getResult()] = std::move(v);
      return Status::success();
    }
    if (auto r = dyn_cast<tile::ReduceSumOp>(op)) {
      double s = 0;
      for (double x : vals[r.getInput()].tile)
        s += x;
      vals[r.getResult()].f = static_cast<float>(s);
      return Status::success();
    }
    if (auto r = dyn_cast<tile::ReduceMaxOp>(op)) {
      double m = -std::numeric_limits<double>::infinity();
      for (double x : vals[r.getInput()].tile)
        m = std::max(m, x);
      vals[r.getResult()].f = m;
      return Status::success();
    }
    if (auto r = dyn_cast<tile::ReduceMaxSumExpOp>(op)) {
      const std::vector<double> &x = vals[r.getInput()].tile;
      double m = -std::numeric_limits<double>::infinity();
      for (double e : x)
        m = std::max(m, e);
      double base = std::isinf(m) && m < 0 ? 0.0 : m;
      auto ex = [&](double e) {
        if (std::isinf(e) && e < 0)
          return 0.0;
        return r.getBase2() ? std::exp2(e - base) : std::exp(e - base);
      };
      double s = 0;
      Val e;
      for (double v : x) {
        double t = ex(v);
        s += t;
        e.tile.push_back(static_cast<float>(t));
      }
      vals[r.getMax()].f = m;
      vals[r.getSum()].f = static_cast<float>(s);
      if (r.getExp())
        vals[r.getExp()] = std::move(e);
      return Status::success();
    }
    if (auto r = dyn_cast<tile::ReduceMeanM2Op>(op)) {
      const std::vector<double> &x = vals[r.getInput()].tile;
      double mean = 0, m2 = 0;
      for (double v : x)
        mean += v;
      mean /= static_cast<double>(x.size());
      for (double v : x)
        m2 += (v - mean) * (v - mean);
      vals[r.getMean()].f = static_cast<float>(mean);
      vals[r.getM2()].f = static_cast<float>(m2);
      return Status::success();
    }
    if (auto mm = dyn_cast<tile::MatmulOp>(op))
      return doMatmul(mm, rows, vals);
    if (auto mm = dyn_cast<tile::RowMatmulOp>(op))
      return doRowMatmul(mm, rows, vals);
    // Integers (index arithmetic of row maps) and selects of any kind.
    if (auto s = dyn_cast<arith::SelectOp>(op)) {
      bool c = vals[s.getCondition()].i != 0;
      if (llvm::isa<RankedTensorType>(s.getCondition().getType()))
        return unsupported(op);
      vals[s.getResult()] = vals[c ? s.getTrueValue() : s.getFalseValue()];
      return Status::success();
    }
    if (op.getNumResults() == 1 && op.getResult(0).getType().isIntOrIndex()) {
      if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
        int64_t a = vals[cmp.getLhs()].i, b = vals[cmp.getRhs()].i;
        uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
        bool r = false;
        switch (cmp.getPredicate()) {
        case arith::CmpIPredicate::eq: r = a == b; break;
        case arith::CmpIPredicate::ne: r = a != b; break;
        case arith::CmpIPredicate::slt: r = a < b; break;
        case arith::CmpIPredicate::sle: r = a <= b; break;
        case arith::CmpIPredicate::sgt: r = a > b; break;
        case arith::CmpIPredicate::sge: r = a >= b; break;
        case arith::CmpIPredicate::ult: r = ua < ub; break;
        case arith::CmpIPredicate::ule: r = ua <= ub; break;
        case arith::CmpIPredicate::ugt: r = ua > ub; break;
        case arith::CmpIPredicate::uge: r = ua >= ub; break;
        }
        vals[cmp.getResult()].i = r;
        return Status::success();
      }
      if (op.getNumOperands() != 2)
        return unsupported(op);
      int64_t a = vals[op.getOperand(0)].i, b = vals[op.getOperand(1)].i;
      uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
      std::optional<int64_t> r =
          llvm::TypeSwitch<Operation *, std::optional<int64_t>>(&op)
              .Case([&](arith::AddIOp) { return a + b; })
              .Case([&](arith::SubIOp) { return a - b; })
              .Case([&](arith::MulIOp) { return a * b; })
              .Case([&](arith::DivUIOp) { return static_cast<int64_t>(ua / ub); })
              .Case([&](arith::RemUIOp) { return static_cast<int64_t>(ua % ub); })
              .Case([&](arith::DivSIOp) { return a / b; })
              .Case([&](arith::RemSIOp) { return a % b; })
              .Case([&](arith::MinUIOp) { return static_cast<int64_t>(std::min(ua, ub)); })
              .Case([&](arith::MaxUIOp) { return static_cast<int64_t>(std::max(ua, ub)); })
              .Case([&](arith::MinSIOp) { return std::min(a, b); })
              .Case([&](arith::MaxSIOp) { return std::max(a, b); })
              .Case([&](arith::AndIOp) { return a & b; })
              .Case([&](arith::OrIOp) { return a | b; })
              .Default([](Operation *) { return std::nullopt; });
      if (!r)
        return unsupported(op);
      vals[op.getResult(0)].i = *r;
      return Status::success();
    }
    // Floats, on scalars and tiles alike.
    using A = ArrayRef<double>;
    if (isa<arith::AddFOp>(op))
      return elementwise(op, vals, [](A a) { return a[0] + a[1]; });
    if (isa<arith::SubFOp>(op))
      return elementwise(op, vals, [](A a) { return a[0] - a[1]; });
    if (isa<arith::MulFOp>(op))
      return elementwise(op, vals, [](A a) { return a[0] * a[1]; });
    if (isa<arith::DivFOp>(op))
      return elementwise(op, vals, [](A a) { return a[0] / a[1]; });
    if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op))
      return elementwise(op, vals, [](A a) { return std::max(a[0], a[1]); });
    if (isa<arith::MinimumFOp, arith::MinNumFOp>(op))
      return elementwise(op, vals, [](A a) { return std::min(a[0], a[1]); });
    if (isa<math::FmaOp>(op))
      return elementwise(op, vals, [](A a) { return a[0] * a[1] + a[2]; });
    if (isa<arith::NegFOp>(op))
      return elementwise(op, vals, [](A a) { return -a[0]; });
    if (isa<arith::ExtFOp, arith::TruncFOp>(op))
      return elementwise(op, vals, [](A a) { return a[0]; }); // (rounded to the result type)
    if (isa<math::ExpOp>(op))
      return unary([](double x) { return std::exp(x); });
    if (isa<math::Exp2Op>(op))
      return unary([](double x) { return std::exp2(x); });
    if (isa<math::LogOp>(op))
      return unary([](double x) { return std::log(x); });
    if (isa<math::Log2Op>(op))
      return unary([](double x) { return std::log2(x); });
    if (isa<math::SqrtOp>(op))
      return unary([](double x) { return std::sqrt(x); });
    if (isa<math::RsqrtOp>(op))
      return unary([](double x) { return 1.0 / std::sqrt(x); });
    if (isa<math::TanhOp>(op))
      return unary([](double x) { return std::tanh(x); });
    if (isa<math::AbsFOp>(op))
      return unary([](double x) { return std::fabs(x); });
    return unsupported(op);
  }

  /// Reads element j of a load or store's row: the memref's [row, j + s]
  /// (rank 2), [j + s] (rank 1), [] (rank 0), or the strided row [row / I,
  /// j, row % I] (rank 3). -1 where the window leaves the row.
  static int64_t elementAt(MemRefType t, int64_t row, int64_t j, int64_t shift) {
    switch (t.getRank()) {
    case 0:
      return 0;
    case 1: {
      int64_t c = j + shift;
      return c >= 0 && c < t.getDimSize(0) ? c : -1;
    }
    case 2: {
      int64_t w = t.getDimSize(1), c = j + shift;
      return c >= 0 && c < w ? row * w + c : -1;
    }
    default: {
      int64_t inner = t.getDimSize(2);
      return flat(t, {row / inner, j, row % inner});
    }
    }
  }

  Status doLoad(tile::LoadOp load, llvm::DenseMap<Value, Val> &vals) {
    auto t = llvm::cast<MemRefType>(load.getSource().getType());
    Buffer *b = vals[load.getSource()].mem;
    int64_t row = load.getRow() ? vals[load.getRow()].i : 0;
    int64_t shift = load.getColOffsetAttr() ? load.getColOffsetAttr().getInt() : 0;
    auto read = [&](int64_t j) -> double {
      int64_t at = elementAt(t, row, j, shift);
      if (at < 0)
        return 0.0;
      if (at >= static_cast<int64_t>(b->data.size()))
        return NAN; // (past the buffer: the comparison fails)
      return b->data[at];
    };
    Val v;
    if (auto tt = llvm::dyn_cast<RankedTensorType>(load.getType())) {
      for (int64_t j = 0; j < tt.getNumElements(); ++j)
        v.tile.push_back(read(j));
    } else {
      v.f = read(0);
    }
    vals[load.getResult()] = std::move(v);
    return Status::success();
  }

  Status doStore(tile::StoreOp store, llvm::DenseMap<Value, Val> &vals) {
    auto t = llvm::cast<MemRefType>(store.getDest().getType());
    Buffer *b = vals[store.getDest()].mem;
    int64_t row = store.getRow() ? vals[store.getRow()].i : 0;
    int64_t shift = store.getColOffsetAttr() ? store.getColOffsetAttr().getInt() : 0;
    const Val &v = vals[store.getValue()];
    Type elem = t.getElementType();
    auto write = [&](int64_t j, double x) -> Status {
      int64_t at = elementAt(t, row, j, shift);
      if (at < 0)
        return Status::success();
      if (at >= static_cast<int64_t>(b->data.size()))
        return Status::error("interpreter: a store past its buffer");
      b->data[at] = static_cast<float>(roundAs(elem, x));
      return Status::success();
    };
    if (llvm::isa<RankedTensorType>(store.getValue().getType())) {
      for (size_t j = 0; j < v.tile.size(); ++j)
        if (Status s = write(static_cast<int64_t>(j), v.tile[j]); !s.ok())
          return s;
      return Status::success();
    }
    return write(0, v.f);
  }

  /// A computed row (attention's probabilities) times op(rhs); a batched
  /// rhs splits the rows into blocks as tile.matmul's does.
  Status doRowMatmul(tile::RowMatmulOp mm, int64_t rows, llvm::DenseMap<Value, Val> &vals) {
    auto rt = llvm::cast<MemRefType>(mm.getRhs().getType());
    const std::vector<double> &a = vals[mm.getLhs()].tile;
    Buffer *rhs = vals[mm.getRhs()].mem;
    int64_t r = vals[mm.getRow()].i;
    bool tb = mm.getTransposeB();
    int64_t n = llvm::cast<RankedTensorType>(mm.getType()).getNumElements();
    int64_t k = static_cast<int64_t>(a.size());
    int64_t batch = rt.getRank() == 3 ? rt.getDimSize(0) : 1;
    int64_t b = r / (rows / batch);
    int64_t base = rt.getRank() == 3 ? b * k * n : 0;
    Val v;
    v.tile.assign(n, 0.0);
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        s += a[kk] * (tb ? rhs->data[base + j * k + kk] : rhs->data[base + kk * n + j]);
      v.tile[j] = static_cast<float>(s);
    }
    vals[mm.getResult()] = std::move(v);
    return Status::success();
  }

  Status doMatmul(tile::MatmulOp mm, int64_t rows, llvm::DenseMap<Value, Val> &vals) {
    auto lt = llvm::cast<MemRefType>(mm.getLhs().getType());
    auto rt = llvm::cast<MemRefType>(mm.getRhs().getType());
    Buffer *lhs = vals[mm.getLhs()].mem, *rhs = vals[mm.getRhs()].mem;
    int64_t r = vals[mm.getRow()].i;
    bool ta = mm.getTransposeA(), tb = mm.getTransposeB();
    int64_t n = llvm::cast<RankedTensorType>(mm.getType()).getNumElements();
    int64_t k = ta ? lt.getDimSize(lt.getRank() - 2) : lt.getDimSize(lt.getRank() - 1);
    // Batches: a rank-3 operand splits the rows into B blocks.
    int64_t batch = rt.getRank() == 3 ? rt.getDimSize(0) : lt.getRank() == 3 ? lt.getDimSize(0) : 1;
    int64_t m = rows / batch, b = r / m, i = r % m;
    auto a = [&](int64_t kk) -> double {
      if (!ta) // [?, K]: the row itself (batched rows are consecutive)
        return lhs->data[r * k + kk];
      if (lt.getRank() == 3) // [B, K, M]
        return lhs->data[(b * k + kk) * m + i];
      return lhs->data[kk * lt.getDimSize(1) + r]; // [K, M]
    };
    auto w = [&](int64_t kk, int64_t j) -> double {
      int64_t base = rt.getRank() == 3 ? b * k * n : 0;
      return tb ? rhs->data[base + j * k + kk] : rhs->data[base + kk * n + j];
    };
    Val v;
    v.tile.assign(n, 0.0);
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        s += a(kk) * w(kk, j);
      v.tile[j] = static_cast<float>(s);
    }
    vals[mm.getResult()] = std::move(v);
    return Status::success();
  }
};

} // namespace

std::vector<HostTensor> randomInputs(const Graph &graph, uint64_t firstSeed) {
  std::vector<HostTensor> inputs;
  for (size_t j = 0; j < graph.inputs().size(); ++j) {
    const Node &n = graph.node(graph.inputs()[j]);
    inputs.push_back(HostTensor::random(n.shape, n.dtype, firstSeed + j, -3.0f, 3.0f));
  }
  return inputs;
}

std::vector<HostTensor> decoderLayerInputs(const Graph &graph, int64_t tokens, int64_t past,
                                           uint64_t firstSeed) {
  (void)tokens, (void)past; // (the graph computes its causal mask)
  std::vector<HostTensor> inputs = randomInputs(graph, firstSeed);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Node &n = graph.node(graph.inputs()[i]);
    if (n.shape.size() == 2 && i > 0) // (the weights)
      for (float &v : inputs[i].values)
        v *= 1.0f / std::sqrt(static_cast<float>(n.shape[1]));
  }
  return inputs;
}

Expected<OwningOpRef<ModuleOp>> lowerAndPlan(MLIRContext &ctx, const Graph &graph,
                                             const CompileOptions &options,
                                             CompiledProgram &program) {
  auto imported = importGraph(ctx, graph);
  if (!imported)
    return imported.status();
  OwningOpRef<ModuleOp> module = imported.take();
  if (Status s = lowerBetween(*module, Stage::Graph, Stage::Tile, options); !s.ok())
    return s;
  func::FuncOp host;
  for (auto fn : module->getOps<func::FuncOp>())
    if (!fn->hasAttr("tile.kernel"))
      host = fn;
  if (!host)
    return Status::error("no host function at the tile stage");
  program.name = graph.name();
  if (Status s = planLaunches(*module, host, graph, program); !s.ok())
    return s;
  return module;
}

Expected<std::vector<HostTensor>> runAtTileStage(const Graph &graph,
                                                 const std::vector<HostTensor> &inputs,
                                                 const CompileOptions &options) {
  DialectRegistry registry;
  registerTilecDialects(registry);
  MLIRContext ctx(registry);
  ctx.disableMultithreading();
  CompiledProgram program;
  auto module = lowerAndPlan(ctx, graph, options, program);
  if (!module)
    return module.status();
  Interpreter interp(**module);
  return interp.run(program, inputs);
}

} // namespace tilec::tiletest
