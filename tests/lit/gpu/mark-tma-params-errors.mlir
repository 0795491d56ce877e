// RUN: tilec-opt --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(gpu.module(convert-gpu-to-nvvm,tilec-mark-tma-params))" %s

// tilec-mark-tma-params (mark-tma-params.mlir) rejects a kernel whose
// tile.tma_params counts more arguments than it has, or whose counted
// arguments are not all pointers.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{'llvm.func' op tile.tma_params 2 exceeds the 1 arguments}}
    gpu.func @too_many(%p: !llvm.ptr) kernel attributes {tile.tma_params = 2 : i64} {
      gpu.return
    }
  }
}

// -----

// The map argument must come last: here the memref's last descriptor field
// (LLVM argument 7, an i64) is where the pass looks.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{'llvm.func' op TMA parameter 7 is not a pointer}}
    gpu.func @memref_last(%p: !llvm.ptr, %a: memref<?x64xbf16>) kernel attributes {tile.tma_params = 1 : i64} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @+1 {{'llvm.func' op TMA parameter 1 is not a pointer}}
    gpu.func @not_ptr(%p: !llvm.ptr, %i: i32) kernel attributes {tile.tma_params = 1 : i64} {
      gpu.return
    }
  }
}
