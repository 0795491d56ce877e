// RUN: tilec-opt --pass-pipeline='builtin.module(gpu.module(tilec-lower-wgmma-rs))' %s | FileCheck %s

// tile.wgmma_rs becomes the register-A instruction: N / 2 accumulators
// out, tied to the same N / 2 in, A's four registers from $N, B's
// descriptor after them; scale-d from zero_acc, B's transpose from b_mn.

// CHECK-LABEL: gpu.module @rs
//       CHECK:   %[[A0:.+]] = llvm.extractvalue %{{.+}}[0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
//       CHECK:   %[[A7:.+]] = llvm.extractvalue %{{.+}}[7]
//       CHECK:   llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7}, {$16, $17, $18, $19}, $20, p, 1, 1, 1;\0A}\0A", "=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,r,r,r,r,l" %[[A0]], {{.+}}, %[[A7]], %arg1, %arg2, %arg3, %arg4, %arg5 : (f32, f32, f32, f32, f32, f32, f32, f32, i32, i32, i32, i32, i64) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
//   CHECK-NOT:   tile.wgmma_rs
//       CHECK:   setp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, {$8, $9, $10, $11}, $12, p, 1, 1, 0;
gpu.module @rs {
  llvm.func @k(%acc: !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>, %a0: i32, %a1: i32, %a2: i32, %a3: i32, %d: i64, %acc4: !llvm.struct<(f32, f32, f32, f32)>) {
    %0 = tile.wgmma_rs %acc, [%a0, %a1, %a2, %a3], %d {multiplicand = bf16, b_mn = true} : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %1 = tile.wgmma_rs %acc4, [%a0, %a1, %a2, %a3], %d {multiplicand = f16, zero_acc = true} : !llvm.struct<(f32, f32, f32, f32)>
    llvm.return
  }
}
