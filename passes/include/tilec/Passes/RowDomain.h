// Row domains: how the values of a row kernel relate to its iteration space.
//
// A row kernel iterates over [rows..., C]. Every value in it is a full row
// tile, a per-row scalar (a reduction along the last axis, kept as size 1),
// a vector shared by all rows (e.g. a norm weight [C]) or a scalar.
#pragma once

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace tilec {

enum class RowRole { Full, RowScalar, SharedVector, Scalar, None };

struct RowDomain {
  llvm::SmallVector<int64_t> lead; // the row dims
  int64_t cols = 1;

  /// The domain whose full tiles have `shape` (rank >= 1).
  static std::optional<RowDomain> fromFullShape(llvm::ArrayRef<int64_t> shape);
  RowRole classify(llvm::ArrayRef<int64_t> shape) const;
  llvm::SmallVector<int64_t> fullShape() const;
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

/// Shape of a ranked tensor value.
llvm::ArrayRef<int64_t> shapeOf(mlir::Value value);

} // namespace tilec
