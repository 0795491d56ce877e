// RUN: tilec-opt --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm,tilec-dependent-launch))" %s | FileCheck %s
// RUN: tilec-opt --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm,tilec-dependent-launch,tilec-dependent-launch))" %s | FileCheck %s --check-prefix=TWICE

// tilec-dependent-launch (DependentLaunch.cpp), after convert-gpu-to-nvvm:
// each kernel waits (griddepcontrol.wait, then launch_dependents) before
// its first op that may touch memory, after the straight-line start of its
// entry block made of ops without memory effects and L2 prefetches, and
// on through branches around blocks of the same, their prefetches marked
// tilec.ahead_of_wait, into their join; any other branch ends that start (the wait must dominate every access), and
// so does an L1 prefetch. A device function that is not a kernel is left
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

// Branches around guarded, marked L2 prefetches (two in a row, either
// side taken) are passed: the wait goes where the last one joins.
// CHECK-LABEL: llvm.func @branchy
// CHECK-NOT:     nvvm.griddepcontrol
// CHECK:         llvm.cond_br
// CHECK:       ^bb1:
// CHECK-NEXT:    nvvm.prefetch level = L2
// CHECK-NOT:     nvvm.griddepcontrol
// CHECK:         llvm.cond_br
// CHECK-NOT:     nvvm.griddepcontrol
// CHECK:       ^bb3:
// CHECK-NEXT:    nvvm.prefetch level = L2
// CHECK-NEXT:    llvm.br
// CHECK-NEXT:  ^bb4:
// CHECK-NEXT:    llvm.extractvalue
// CHECK-NEXT:    llvm.getelementptr
// CHECK-NEXT:    nvvm.griddepcontrol wait
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK-NEXT:    llvm.load

// A branch around a load, around an unmarked prefetch, or to a block
// that is joined from elsewhere too, ends the start: the wait goes before
// it.
// CHECK-LABEL: llvm.func @guardedLoad
// CHECK:         llvm.icmp
// CHECK-NEXT:    nvvm.griddepcontrol wait
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK-NEXT:    llvm.cond_br
// CHECK-LABEL: llvm.func @unmarked
// CHECK:         llvm.icmp
// CHECK-NEXT:    nvvm.griddepcontrol wait
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK-NEXT:    llvm.cond_br
// CHECK-LABEL: llvm.func @thirdWay
// CHECK:         llvm.icmp
// CHECK-NEXT:    nvvm.griddepcontrol wait
// CHECK-NEXT:    nvvm.griddepcontrol launch_dependents
// CHECK-NEXT:    llvm.cond_br

// CHECK-LABEL: llvm.func @helper
// CHECK-NOT:     nvvm.griddepcontrol
// CHECK:         llvm.return

// TWICE-COUNT-6: nvvm.griddepcontrol wait
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
      nvvm.prefetch level = L2, %w {tilec.ahead_of_wait} : !llvm.ptr<1>
      cf.br ^done
    ^done:
      %c1 = arith.constant 1 : index
      %second = arith.cmpi eq, %i, %c1 : index
      cf.cond_br %second, ^next, ^pre2
    ^pre2:
      nvvm.prefetch level = L2, %w {tilec.ahead_of_wait} : !llvm.ptr<1>
      cf.br ^next
    ^next:
      %x = memref.load %in[%i] : memref<16xf32>
      memref.store %x, %out[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @guardedLoad(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %i, %c0 : index
      cf.cond_br %first, ^pre, ^done
    ^pre:
      %y = memref.load %in[%i] : memref<16xf32>
      memref.store %y, %out[%c0] : memref<16xf32>
      cf.br ^done
    ^done:
      %x = memref.load %in[%i] : memref<16xf32>
      memref.store %x, %out[%i] : memref<16xf32>
      gpu.return
    }
    gpu.func @unmarked(%w: !llvm.ptr<1>, %in: memref<16xf32>, %out: memref<16xf32>) kernel {
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
    gpu.func @thirdWay(%w: !llvm.ptr<1>, %in: memref<16xf32>, %out: memref<16xf32>) kernel {
      %i = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %i, %c0 : index
      cf.cond_br %first, ^pre, ^other
    ^pre:
      nvvm.prefetch level = L2, %w {tilec.ahead_of_wait} : !llvm.ptr<1>
      cf.br ^done
    ^other:
      %y = memref.load %in[%i] : memref<16xf32>
      memref.store %y, %out[%c0] : memref<16xf32>
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
