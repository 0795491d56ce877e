// tilec-opt: runs any registered tilec or upstream pass on a .mlir file.
#include "tilec/compiler/Compiler.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tilec::registerTilecDialects(registry);
  tilec::registerAllTilecPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tilec optimizer driver\n", registry));
}
