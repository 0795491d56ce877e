// tilec's pass declarations and registration.
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "tilec/Dialect/Graph/GraphDialect.h"
#include "tilec/Dialect/Tile/TileDialect.h"

namespace tilec {
#define GEN_PASS_DECL
#include "tilec/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Passes/Passes.h.inc"
} // namespace tilec
