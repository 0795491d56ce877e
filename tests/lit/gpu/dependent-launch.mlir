// RUN: tilec-opt --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm,tilec-dependent-launch))" %s | FileCheck %s
// RUN: tilec-opt --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm,tilec-dependent-launch,tilec-dependent-launch))" %s | FileCheck %s --check-prefix=TWICE

// tilec-dependent-launch (DependentLaunch.cpp), after convert-gpu-to-nvvm:
// every kernel starts with griddepcontrol.wait (before its first load) and
// then launch_dependents; a device function that is not a kernel is left
// alone. Running the pass again adds nothing.

// CHECK-LABEL: llvm.func @scale
// CHECK-NEXT:    nvvm.griddepcontrol wait
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK:         llvm.load
// CHECK-LABEL: llvm.func @helper
// CHECK-NOT:     nvvm.griddepcontrol
// CHECK:         llvm.return

// TWICE-COUNT-1: nvvm.griddepcontrol wait
// TWICE-NOT:     nvvm.griddepcontrol wait
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %x = memref.load %in[%i] : memref<16xf32>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %out[%i] : memref<16xf32>
      gpu.return
    }
    func.func @helper(%x: f32) -> f32 {
      %y = arith.addf %x, %x : f32
      return %y : f32
    }
  }
}
