// RUN: tilec-opt --allow-unregistered-dialect --pass-pipeline='builtin.module(gpu.module(tilec-approx-math))' %s | FileCheck %s

// f32 math.tanh marked afn (scalar or vector) becomes llvm.intr.tanh with
// afn (tanh.approx.f32 in PTX); without afn, or on f16, it stays math.tanh
// (libdevice's __nv_tanhf after convert-gpu-to-nvvm).

// CHECK-LABEL: gpu.func @k
//  CHECK-SAME:   (%[[A:.+]]: f32, %[[V:.+]]: vector<2xf32>, %[[H:.+]]: f16)
//       CHECK:   llvm.intr.tanh(%[[A]]) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
//       CHECK:   llvm.intr.tanh(%[[V]]) {fastmathFlags = #llvm.fastmath<afn>} : (vector<2xf32>) -> vector<2xf32>
//       CHECK:   math.tanh %[[A]] : f32
//       CHECK:   math.tanh %[[H]] fastmath<afn> : f16
gpu.module @m {
  gpu.func @k(%a: f32, %v: vector<2xf32>, %h: f16) kernel {
    %0 = math.tanh %a fastmath<afn> : f32
    %1 = math.tanh %v fastmath<afn> : vector<2xf32>
    %2 = math.tanh %a : f32
    %3 = math.tanh %h fastmath<afn> : f16
    "test.use"(%0, %1, %2, %3) : (f32, vector<2xf32>, f32, f16) -> ()
    gpu.return
  }
}
