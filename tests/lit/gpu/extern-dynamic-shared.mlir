// RUN: tilec-opt --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm,tilec-extern-dynamic-shared))" %s | FileCheck %s
// RUN: tilec-opt --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm))" %s | FileCheck %s --check-prefix=UPSTREAM

// tilec-extern-dynamic-shared (ExternDynamicShared.cpp), after
// convert-gpu-to-nvvm: the zero-sized shared global that
// gpu.dynamic_shared_memory becomes is internal upstream (the NVPTX backend
// then demotes it to one static byte that overlaps the kernel's other
// shared variables); here it is external, so the PTX declares
// `.extern .shared .align 16 .b8 __dynamic_shmem__0[]`, placed after the
// static variables. The workgroup attribution (a reduction buffer,
// 4-byte aligned by default upstream) gets 16-byte alignment for LLVM's merged
// 16-byte shared loads.

// UPSTREAM: llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// UPSTREAM: llvm.mlir.global internal @__wg_row_0() {addr_space = 3 : i32} : !llvm.array<16 x f32>

// CHECK-DAG: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK-DAG: llvm.mlir.global internal @__wg_row_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<16 x f32>
// A global (non-shared) constant keeps its alignment and linkage.
// CHECK-DAG: llvm.mlir.global private constant @table(dense<1.000000e+00> : tensor<4xf32>) {addr_space = 0 : i32, alignment = 4 : i64} : !llvm.array<4 x f32>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.mlir.global private constant @table(dense<1.0> : tensor<4xf32>) {addr_space = 0 : i32, alignment = 4 : i64} : !llvm.array<4 x f32>
    gpu.func @row(%out: memref<16xf32>) workgroup(%buf : memref<16xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %view = memref.view %dyn[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
      %x = memref.load %view[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
      memref.store %x, %buf[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
      %y = memref.load %buf[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%c0] : memref<16xf32>
      gpu.return
    }
  }
}
