// RUN: tilec-opt --split-input-file --verify-diagnostics %s

// The verifier of tile.wgmma_rs (the register-A wgmma).

gpu.module @bad_n {
  llvm.func @k(%acc: !llvm.struct<(f32, f32, f32)>, %a: i32, %d: i64) {
    // expected-error @+1 {{N = 6 (2 x the accumulators a thread) must be a multiple of 8 in [8, 256]}}
    %0 = tile.wgmma_rs %acc, [%a, %a, %a, %a], %d {multiplicand = bf16} : !llvm.struct<(f32, f32, f32)>
    llvm.return
  }
}

// -----

gpu.module @bad_a {
  llvm.func @k(%acc: !llvm.struct<(f32, f32, f32, f32)>, %a: i32, %d: i64) {
    // expected-error @+1 {{A's fragment is 4 i32 a thread, got 2}}
    %0 = tile.wgmma_rs %acc, [%a, %a], %d {multiplicand = bf16} : !llvm.struct<(f32, f32, f32, f32)>
    llvm.return
  }
}

// -----

gpu.module @bad_type {
  llvm.func @k(%acc: !llvm.struct<(f32, f32, f32, f32)>, %a: i32, %d: i64) {
    // expected-error @+1 {{multiplicands must be bf16 or f16, got 'f32'}}
    %0 = tile.wgmma_rs %acc, [%a, %a, %a, %a], %d {multiplicand = f32} : !llvm.struct<(f32, f32, f32, f32)>
    llvm.return
  }
}

// -----

gpu.module @bad_acc {
  llvm.func @k(%acc: !llvm.struct<(f32, f32, i32, f32)>, %a: i32, %d: i64) {
    // expected-error @+1 {{accumulators must be a struct of f32}}
    %0 = tile.wgmma_rs %acc, [%a, %a, %a, %a], %d {multiplicand = bf16} : !llvm.struct<(f32, f32, i32, f32)>
    llvm.return
  }
}
