// RUN: tilec-opt --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm,tilec-mark-tma-params))" %s

// readonly-inputs (mark-readonly-params.mlir): each parameter a kernel's
// tile.readonly_params lists must be one of its pointers.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{'llvm.func' op read-only parameter 2 is not a pointer}}
    gpu.func @offset(%x: memref<?x64xbf16>) kernel attributes {tile.readonly_params = array<i64: 2>} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{'llvm.func' op read-only parameter 9 is not a pointer}}
    gpu.func @past_the_end(%x: memref<64xbf16>) kernel attributes {tile.readonly_params = array<i64: 9>} {
      gpu.return
    }
  }
}
