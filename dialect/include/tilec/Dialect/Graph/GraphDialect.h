// The graph dialect: tilec's tensor-level operators and fusion regions.
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tilec/Dialect/Graph/GraphOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "tilec/Dialect/Graph/GraphOps.h.inc"
