// RUN: tilec-opt --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm,tilec-mark-tma-params))" %s | FileCheck %s --implicit-check-not=tile.tma_params

// tilec-mark-tma-params (MarkTmaParams.cpp), run inside the gpu.module after
// convert-gpu-to-nvvm: the last `tile.tma_params` arguments of a kernel (the
// TMA tensor maps of tilec-distribute-gemm-tiles, !llvm.ptr) become byval
// !llvm.array<128 x i8> parameters, 64-byte aligned, nvvm.grid_constant (so
// the PTX declares `.param .align 64 .b8 NAME[128]` and the kernel reads the
// maps in place); the attribute goes away. The memref arguments before them
// are expanded into their descriptors (2 pointers, offset, sizes, strides)
// first, so the maps stay last. Nothing else is touched. Errors:
// mark-tma-params-errors.mlir.

// Two maps after a 2-D memref (7 LLVM arguments).
// CHECK-LABEL: llvm.func @two
// CHECK-SAME:    (%{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64,
// CHECK-SAME:    %{{[^:]+}}: !llvm.ptr {llvm.align = 64 : i32, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
// CHECK-SAME:    %{{[^:]+}}: !llvm.ptr {llvm.align = 64 : i32, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK-SAME:    attributes {gpu.kernel, nvvm.kernel}
// One map: a leading pointer argument and the memref's pointers keep no
// attributes.
// CHECK-LABEL: llvm.func @one
// CHECK-SAME:    (%{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: !llvm.ptr {llvm.align = 64 : i32, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// Without tile.tma_params a kernel's pointers stay plain.
// CHECK-LABEL: llvm.func @none
// CHECK-SAME:    (%{{[^:]+}}: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @two(%a: memref<?x64xbf16>, %p: !llvm.ptr, %q: !llvm.ptr) kernel attributes {tile.tma_params = 2 : i64} {
      gpu.return
    }
    gpu.func @one(%x: !llvm.ptr, %a: memref<?x64xbf16>, %p: !llvm.ptr) kernel attributes {tile.tma_params = 1 : i64} {
      gpu.return
    }
    gpu.func @none(%p: !llvm.ptr) kernel {
      gpu.return
    }
  }
}
