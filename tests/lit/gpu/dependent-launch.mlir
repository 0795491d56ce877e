// RUN: tilec-opt --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm,tilec-dependent-launch))" %s | FileCheck %s
// RUN: tilec-opt --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm,tilec-dependent-launch,tilec-dependent-launch))" %s | FileCheck %s --check-prefix=TWICE

// tilec-dependent-launch (DependentLaunch.cpp), after convert-gpu-to-nvvm:
// each kernel waits (griddepcontrol.wait, then launch_dependents) before
// its first op that may touch memory, after the straight-line start of its
// entry block made of ops without memory effects and L2 prefetches; a
// branch ends that start (the wait must dominate every access), and so
// does an L1 prefetch. A device function that is not a kernel is left
// alone. Running the pass again adds nothing.

// The index math and the address come first, the load after the wait.
// CHECK-LABEL: llvm.func @scale
// CHECK:         nvvm.read.ptx.sreg.tid.x
// CHECK:         llvm.getelementptr
// CHECK-NEXT:    nvvm.griddepcontrol wait
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK-NEXT:    llvm.load

// An L2 prefetch runs before the wait; an L1 prefetch does not.
// CHECK-LABEL: llvm.func @prefetched
// CHECK:         nvvm.prefetch level = L2
// CHECK-NEXT:    nvvm.griddepcontrol wait
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK-NEXT:    nvvm.prefetch level = L1

// The wait goes before the entry block's branch, even to a prefetch.
// CHECK-LABEL: llvm.func @branchy
// CHECK:         llvm.icmp
// CHECK-NEXT:    nvvm.griddepcontrol wait
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK-NEXT:    llvm.cond_br
// CHECK:       ^bb1:
// CHECK-NEXT:    nvvm.prefetch level = L2

// CHECK-LABEL: llvm.func @helper
// CHECK-NOT:     nvvm.griddepcontrol
// CHECK:         llvm.return

// TWICE-COUNT-3: nvvm.griddepcontrol wait
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
    gpu.func @prefetched(%w: !llvm.ptr<1>, %in: memref<16xf32>, %out: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %c = arith.index_cast %i : index to i64
      %p = llvm.getelementptr %w[%c] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      nvvm.prefetch level = L2, %p : !llvm.ptr<1>
      nvvm.prefetch level = L1, %p : !llvm.ptr<1>
      %x = memref.load %in[%i] : memref<16xf32>
      memref.store %x, %out[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @branchy(%w: !llvm.ptr<1>, %in: memref<16xf32>, %out: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %i, %c0 : index
      cf.cond_br %first, ^pre, ^done
    ^pre:
      nvvm.prefetch level = L2, %w : !llvm.ptr<1>
      cf.br ^done
    ^done:
      %x = memref.load %in[%i] : memref<16xf32>
      memref.store %x, %out[%i] : memref<16xf32>
      gpu.return
    }
    func.func @helper(%x: f32) -> f32 {
      %y = arith.addf %x, %x : f32
      return %y : f32
    }
  }
}
