// RUN: tilec-opt --tilec-distribute-row-tiles %s | FileCheck %s

// Without tile kernels the module is left alone: no gpu.container_module,
// no gpu.module.

// CHECK:     module {
// CHECK-NOT: gpu.
// CHECK:     func.func @host
// CHECK-NOT: gpu.
func.func @host(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  return %x : tensor<4x64xf32>
}
