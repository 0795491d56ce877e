// Compiler internals shared by the library's files and the tools.
#pragma once

#include "tilec/compiler/Compiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace tilec {

/// The graph dialect module for `graph` (its func is named symbolName(name)).
Expected<mlir::OwningOpRef<mlir::ModuleOp>> importGraph(mlir::MLIRContext &ctx,
                                                       const Graph &graph);
/// Runs the stages after `from` up to and including `to`.
Status lowerBetween(mlir::ModuleOp module, Stage from, Stage to,
                    const CompileOptions &options);
mlir::Type elementType(mlir::MLIRContext &ctx, DType dtype);
/// The DType of an f32, f16 or bf16 element type (f32 for any other).
DType dtypeOf(mlir::Type type);
/// Fills `program`'s values and launches from a module at the tile stage
/// (`host`: its host function of tile.launch ops): the buffers each kernel
/// binds, its grid and block from the schedule, outputs made as copies,
/// outputs updated in place (`graph`: the graph the module was imported
/// from).
Status planLaunches(mlir::ModuleOp module, mlir::func::FuncOp host, const Graph &graph,
                    CompiledProgram &program);
/// `name` with every character that is not [A-Za-z0-9_] replaced by '_'.
std::string symbolName(const std::string &name);

} // namespace tilec
