// RUN: tilec-opt --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm,tilec-mark-tma-params))" %s | FileCheck %s --implicit-check-not=tile.readonly_params

// readonly-inputs (tilec-mark-tma-params, MarkTmaParams.cpp): the LLVM
// parameters a row kernel's `tile.readonly_params` lists (the aligned
// pointers of the buffers it only reads, as tilec-distribute-row-tiles
// counts them) become noalias readonly, which the NVPTX backend loads with
// ld.global.nc; the attribute goes away and nothing else changes.

// A 2-D input (parameters 0-6, aligned pointer 1), a 1-D weight (7-11,
// aligned 8) and a 2-D output (12-18): the output's pointers stay plain.
// CHECK-LABEL: llvm.func @rows
// CHECK-SAME:    (%{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr {llvm.noalias, llvm.readonly}, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64,
// CHECK-SAME:    %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr {llvm.noalias, llvm.readonly}, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64,
// CHECK-SAME:    %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64)
// CHECK-SAME:    attributes {gpu.kernel, nvvm.kernel}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @rows(%x: memref<?x64xbf16>, %w: memref<64xbf16>, %y: memref<?x64xbf16>) kernel attributes {tile.readonly_params = array<i64: 1, 8>} {
      gpu.return
    }
  }
}
