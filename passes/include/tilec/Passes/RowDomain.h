// Row domains: how the values of a row kernel relate to its iteration space.
//
// A row kernel iterates over [rows..., C]. Every value in it is a full row
// tile, a per-row scalar (a reduction along the last axis, kept as size 1),
// part of a row (a slice along the last axis, narrower than C), a vector
// shared by all rows (e.g. a norm weight [C]) or a scalar.
//
// Inputs may also broadcast along row dims (cos [T, 1, D] in a [T, H, D]
// domain): such "mapped" rows are read at a row index computed from the
// kernel's row, and only inputs and broadcasts may have them.
#pragma once

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <utility>

namespace tilec {

enum class RowRole { Full, RowScalar, Part, SharedVector, Scalar, None };

/// One term of a mapped row index: ((row / div) % mod) * mul + add (mod 0:
/// none; mul 0: the constant `add`).
struct RowMapTerm {
  int64_t div = 1, mod = 0, mul = 1, add = 0;
};

struct RowDomain {
  llvm::SmallVector<int64_t> lead; // the row dims
  int64_t cols = 1;

  /// The domain whose full tiles have `shape` (rank >= 1).
  static std::optional<RowDomain> fromFullShape(llvm::ArrayRef<int64_t> shape);
  /// A value whose row dims neither equal nor broadcast into the domain's
  /// but number as many rows (relabelled by a reshape that kept the last
  /// dim) is classified by its last dim and never mapped: its row r is the
  /// domain's row r.
  RowRole classify(llvm::ArrayRef<int64_t> shape) const;
  /// Full, RowScalar or Part values whose row dims broadcast into the
  /// domain's instead of equalling them.
  bool mapsRows(llvm::ArrayRef<int64_t> shape) const;
  /// The row of a mapped value that domain row `row` reads: the sum of these
  /// terms (empty when the value has a single row).
  llvm::SmallVector<RowMapTerm> rowMap(llvm::ArrayRef<int64_t> shape) const;
  /// The row of a buffer of shape `in` that domain row `row` reads through
  /// a transpose of its row dims d0 < d1 (the last dim kept; the domain's
  /// row dims are the transpose's result's): the sum of these terms.
  llvm::SmallVector<RowMapTerm> transposedRowMap(llvm::ArrayRef<int64_t> in, int64_t d0,
                                                 int64_t d1) const;
  /// The row of a buffer of shape `in` that domain row `row` reads through
  /// a slice of row dim `axis` from `start` (the domain's row dims are the
  /// slice's result's): the sum of these terms.
  llvm::SmallVector<RowMapTerm> slicedRowMap(llvm::ArrayRef<int64_t> in, int64_t axis,
                                             int64_t start) const;
  /// The row of a buffer of shape `in` whose row dim i holds the domain's
  /// row digit at dim `digits[i].first` plus `digits[i].second` (gathering
  /// ops chained: each permutes or shifts the digits of its operand).
  llvm::SmallVector<RowMapTerm>
  chainedRowMap(llvm::ArrayRef<int64_t> in,
                llvm::ArrayRef<std::pair<int64_t, int64_t>> digits) const;
  /// Domain row `row`'s digit at row dim `axis` (a concatenation along it
  /// reads the piece that holds that digit).
  RowMapTerm digitAt(int64_t axis) const;
  llvm::SmallVector<int64_t> fullShape() const;
  /// classify by the dims alone (no relabeled rows).
  RowRole classifyByDims(llvm::ArrayRef<int64_t> shape) const;
  int64_t rows() const;
  bool operator==(const RowDomain &other) const {
    return lead == other.lead && cols == other.cols;
  }
};

/// The iteration space a graph op naturally has as a row op, or nullopt when
/// it cannot be part of a row kernel (e.g. a reduction along another axis).
/// Constants have none: they fit anywhere.
std::optional<RowDomain> naturalRowDomain(mlir::Operation *op);

/// Whether op's operands and results all take a valid role in `domain`.
bool fitsRowDomain(mlir::Operation *op, const RowDomain &domain);

/// Whether `op` reads whole rows of its operand at other row indices than
/// its own (a transpose of row dims, a slice along a row dim): its operand
/// comes from memory, never from the same kernel.
bool gathersRows(mlir::Operation *op);

/// gathersRows, or an update_slice: an op that reads no row of its own
/// kernel at the kernel's row. A gathering op's rows come from memory; an
/// update_slice's buffer operand is read by nothing (its rows, updateRows,
/// are loaded or computed where stored) and its result is read by no op
/// of its kernel. Its operands take `memref<?xC>` buffers, loaded lazily.
bool readsRowsFromMemory(mlir::Operation *op);

/// The rows an update_slice (`update`) stores: its update, or,
/// where the update is a transpose of row dims read by nothing else (of a
/// value no gathering op makes), the transpose's operand, whose rows the
/// kernel stores at their transposed places past the start (a scatter
/// composed with the update: k moved heads first into a cache).
mlir::Value updateRows(mlir::Operation *update);
/// Whether `op` is such a transpose (stored through its update_slice).
bool storedThroughUpdate(mlir::Operation *op);

/// Whether `op` is a transpose of row dims (the last dim kept) whose
/// operand is `domain`'s full rows (its dims, or as many rows relabeled by
/// a reshape that kept the last dim): a kernel of that domain that
/// computes the operand can store its rows at their transposed places (a
/// scatter; FuseRowOps, LowerFusionToTile).
bool scatterFits(mlir::Operation *op, const RowDomain &domain);

/// A reshape that keeps the last dim: the same rows under other row dims.
bool isRowRelabel(mlir::Operation *op);

/// Ops a GEMM kernel applies to its accumulators (elementwise math, casts,
/// broadcasts, constants): what may join a graph.matmul's fusion.
bool isGemmEpilogueOp(mlir::Operation *op);

/// Shape of a ranked tensor value.
llvm::ArrayRef<int64_t> shapeOf(mlir::Value value);

} // namespace tilec
