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

// An f32 exp or exp2 marked afn and tile.flush_exp becomes the
// ex2.approx.ftz intrinsic element by element (exp: of x log2 e); without
// afn it stays.

// CHECK-LABEL: gpu.func @flush
//  CHECK-SAME:   (%[[A:.+]]: f32, %[[V:.+]]: vector<2xf32>)
//       CHECK:   %[[L:.+]] = arith.constant 1.44269502 : f32
//       CHECK:   %[[AL:.+]] = arith.mulf %[[A]], %[[L]]
//       CHECK:   llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[AL]]) : (f32) -> f32
//       CHECK:   %[[E0:.+]] = vector.extract %[[V]][0]
//       CHECK:   llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[E0]]) : (f32) -> f32
//       CHECK:   vector.insert
//       CHECK:   %[[E1:.+]] = vector.extract %[[V]][1]
//       CHECK:   llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[E1]]) : (f32) -> f32
//       CHECK:   vector.insert
//       CHECK:   math.exp %[[A]] {tile.flush_exp} : f32
gpu.module @m2 {
  gpu.func @flush(%a: f32, %v: vector<2xf32>) kernel {
    %0 = math.exp %a fastmath<afn> {tile.flush_exp} : f32
    %1 = math.exp2 %v fastmath<afn> {tile.flush_exp} : vector<2xf32>
    %2 = math.exp %a {tile.flush_exp} : f32
    "test.use"(%0, %1, %2) : (f32, vector<2xf32>, f32) -> ()
    gpu.return
  }
}
