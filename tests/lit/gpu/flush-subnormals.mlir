// RUN: tilec-opt --pass-pipeline='builtin.module(gpu.module(tilec-flush-subnormals))' %s | FileCheck %s
// RUN: tilec-opt --pass-pipeline='builtin.module(gpu.module(tilec-flush-subnormals))' %s | not tilec-opt --pass-pipeline='builtin.module(gpu.module(tilec-flush-subnormals))' 2>&1 | FileCheck %s --check-prefix=TWICE

// Every LLVM function of the gpu.module (kernels and the libdevice
// declarations alike) flushes f32 subnormals, and the module flag makes
// libdevice's __nvvm_reflect("__CUDA_FTZ") fold to 1.

// CHECK-LABEL: gpu.module @m
//       CHECK:   llvm.module_flags [#llvm.mlir.module_flag<override, "nvvm-reflect-ftz", 1 : i32>]
//       CHECK:   llvm.func @__nv_fast_expf(f32) -> f32 attributes {denormal_fp_math_f32 = "preserve-sign"}
//       CHECK:   llvm.func @k(%{{.+}}: f32) attributes {denormal_fp_math_f32 = "preserve-sign", nvvm.kernel}
// A second run finds the flag already set: an error, not a second flag.
//       TWICE:   error: 'llvm.module_flags' op already sets nvvm-reflect-ftz
gpu.module @m {
  llvm.func @__nv_fast_expf(f32) -> f32
  llvm.func @k(%x: f32) attributes {nvvm.kernel} {
    %0 = llvm.call @__nv_fast_expf(%x) : (f32) -> f32
    llvm.return
  }
}
