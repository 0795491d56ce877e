// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-fuse="attention=auto" %s | FileCheck %s
// RUN: not tilec-opt --tilec-fuse="attention=yes" %s 2>&1 | FileCheck %s --check-prefix=BAD

// attention=auto (the default) by shape: one flash kernel where the query
// rows of a batch are at least 256, the keys at least 4096, the keys at
// least 2048 over 64 rows or more, or at least 512 over at most 16 rows;
// three kernels elsewhere. The fusion of
// attention's output says which and why (attention_choice).
// BAD: attention must be auto, true or false, got 'yes'

// 64 query rows over 528 keys, 8 kv heads (a decode step of 16 tokens with
// 4 grouped heads, after 512): three kernels, measured faster there.
// CHECK-LABEL: func.func @few_rows_few_keys
// CHECK-COUNT-3: graph.fusion
//   CHECK-NOT:   attention,
//       CHECK:   attention_choice = "three kernels by shape
func.func @few_rows_few_keys(%q: tensor<8x64x64xbf16>, %k: tensor<8x528x64xbf16>, %v: tensor<8x528x32xbf16>) -> tensor<8x64x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<8x64x64xbf16>, tensor<8x528x64xbf16>) -> tensor<8x64x528xf32>
  %mx = graph.reduce_max %s {axis = 2 : i64} : (tensor<8x64x528xf32>) -> tensor<8x64x1xf32>
  %mxb = graph.broadcast %mx : (tensor<8x64x1xf32>) -> tensor<8x64x528xf32>
  %d = graph.sub %s, %mxb : (tensor<8x64x528xf32>, tensor<8x64x528xf32>) -> tensor<8x64x528xf32>
  %e = graph.exp %d : (tensor<8x64x528xf32>) -> tensor<8x64x528xf32>
  %l = graph.reduce_sum %e {axis = 2 : i64} : (tensor<8x64x528xf32>) -> tensor<8x64x1xf32>
  %lb = graph.broadcast %l : (tensor<8x64x1xf32>) -> tensor<8x64x528xf32>
  %p = graph.div %e, %lb : (tensor<8x64x528xf32>, tensor<8x64x528xf32>) -> tensor<8x64x528xf32>
  %p16 = graph.cast %p : (tensor<8x64x528xf32>) -> tensor<8x64x528xbf16>
  %o = graph.matmul %p16, %v : (tensor<8x64x528xbf16>, tensor<8x528x32xbf16>) -> tensor<8x64x32xbf16>
  return %o : tensor<8x64x32xbf16>
}

// -----

// 64 rows over 2047 keys: three kernels.
// CHECK-LABEL: func.func @rows_64_keys_2047
// CHECK-COUNT-3: graph.fusion
//   CHECK-NOT:   attention,
//       CHECK:   attention_choice = "three kernels by shape
func.func @rows_64_keys_2047(%q: tensor<64x64xbf16>, %k: tensor<2047x64xbf16>, %v: tensor<2047x32xbf16>) -> tensor<64x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<64x64xbf16>, tensor<2047x64xbf16>) -> tensor<64x2047xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<64x2047xf32>) -> tensor<64x1xf32>
  %mxb = graph.broadcast %mx : (tensor<64x1xf32>) -> tensor<64x2047xf32>
  %d = graph.sub %s, %mxb : (tensor<64x2047xf32>, tensor<64x2047xf32>) -> tensor<64x2047xf32>
  %e = graph.exp %d : (tensor<64x2047xf32>) -> tensor<64x2047xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<64x2047xf32>) -> tensor<64x1xf32>
  %lb = graph.broadcast %l : (tensor<64x1xf32>) -> tensor<64x2047xf32>
  %p = graph.div %e, %lb : (tensor<64x2047xf32>, tensor<64x2047xf32>) -> tensor<64x2047xf32>
  %p16 = graph.cast %p : (tensor<64x2047xf32>) -> tensor<64x2047xbf16>
  %o = graph.matmul %p16, %v : (tensor<64x2047xbf16>, tensor<2047x32xbf16>) -> tensor<64x32xbf16>
  return %o : tensor<64x32xbf16>
}

// -----

// 64 rows over 2048 keys: flash.
// CHECK-LABEL: func.func @rows_64_keys_2048
//       CHECK:   graph.fusion({{.*}}) attributes {attention, attention_choice = "flash by shape
//   CHECK-NOT:   graph.fusion
func.func @rows_64_keys_2048(%q: tensor<64x64xbf16>, %k: tensor<2048x64xbf16>, %v: tensor<2048x32xbf16>) -> tensor<64x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<64x64xbf16>, tensor<2048x64xbf16>) -> tensor<64x2048xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<64x2048xf32>) -> tensor<64x1xf32>
  %mxb = graph.broadcast %mx : (tensor<64x1xf32>) -> tensor<64x2048xf32>
  %d = graph.sub %s, %mxb : (tensor<64x2048xf32>, tensor<64x2048xf32>) -> tensor<64x2048xf32>
  %e = graph.exp %d : (tensor<64x2048xf32>) -> tensor<64x2048xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<64x2048xf32>) -> tensor<64x1xf32>
  %lb = graph.broadcast %l : (tensor<64x1xf32>) -> tensor<64x2048xf32>
  %p = graph.div %e, %lb : (tensor<64x2048xf32>, tensor<64x2048xf32>) -> tensor<64x2048xf32>
  %p16 = graph.cast %p : (tensor<64x2048xf32>) -> tensor<64x2048xbf16>
  %o = graph.matmul %p16, %v : (tensor<64x2048xbf16>, tensor<2048x32xbf16>) -> tensor<64x32xbf16>
  return %o : tensor<64x32xbf16>
}

// -----

// 63 rows over 4095 keys: three kernels.
// CHECK-LABEL: func.func @rows_63_keys_4095
// CHECK-COUNT-3: graph.fusion
//   CHECK-NOT:   attention,
//       CHECK:   attention_choice = "three kernels by shape
func.func @rows_63_keys_4095(%q: tensor<63x64xbf16>, %k: tensor<4095x64xbf16>, %v: tensor<4095x32xbf16>) -> tensor<63x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<63x64xbf16>, tensor<4095x64xbf16>) -> tensor<63x4095xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<63x4095xf32>) -> tensor<63x1xf32>
  %mxb = graph.broadcast %mx : (tensor<63x1xf32>) -> tensor<63x4095xf32>
  %d = graph.sub %s, %mxb : (tensor<63x4095xf32>, tensor<63x4095xf32>) -> tensor<63x4095xf32>
  %e = graph.exp %d : (tensor<63x4095xf32>) -> tensor<63x4095xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<63x4095xf32>) -> tensor<63x1xf32>
  %lb = graph.broadcast %l : (tensor<63x1xf32>) -> tensor<63x4095xf32>
  %p = graph.div %e, %lb : (tensor<63x4095xf32>, tensor<63x4095xf32>) -> tensor<63x4095xf32>
  %p16 = graph.cast %p : (tensor<63x4095xf32>) -> tensor<63x4095xbf16>
  %o = graph.matmul %p16, %v : (tensor<63x4095xbf16>, tensor<4095x32xbf16>) -> tensor<63x32xbf16>
  return %o : tensor<63x32xbf16>
}

// -----

// 4 rows (one token, 4 grouped heads) over 4096 keys: flash.
// CHECK-LABEL: func.func @rows_4_keys_4096
//       CHECK:   graph.fusion({{.*}}) attributes {attention, attention_choice = "flash by shape
//   CHECK-NOT:   graph.fusion
func.func @rows_4_keys_4096(%q: tensor<4x64xbf16>, %k: tensor<4096x64xbf16>, %v: tensor<4096x32xbf16>) -> tensor<4x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<4x64xbf16>, tensor<4096x64xbf16>) -> tensor<4x4096xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<4x4096xf32>) -> tensor<4x1xf32>
  %mxb = graph.broadcast %mx : (tensor<4x1xf32>) -> tensor<4x4096xf32>
  %d = graph.sub %s, %mxb : (tensor<4x4096xf32>, tensor<4x4096xf32>) -> tensor<4x4096xf32>
  %e = graph.exp %d : (tensor<4x4096xf32>) -> tensor<4x4096xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<4x4096xf32>) -> tensor<4x1xf32>
  %lb = graph.broadcast %l : (tensor<4x1xf32>) -> tensor<4x4096xf32>
  %p = graph.div %e, %lb : (tensor<4x4096xf32>, tensor<4x4096xf32>) -> tensor<4x4096xf32>
  %p16 = graph.cast %p : (tensor<4x4096xf32>) -> tensor<4x4096xbf16>
  %o = graph.matmul %p16, %v : (tensor<4x4096xbf16>, tensor<4096x32xbf16>) -> tensor<4x32xbf16>
  return %o : tensor<4x32xbf16>
}

// -----

// 255 query rows over 72 keys: three kernels.
// CHECK-LABEL: func.func @rows_255
// CHECK-COUNT-3: graph.fusion
//   CHECK-NOT:   attention,
//       CHECK:   attention_choice = "three kernels by shape
func.func @rows_255(%q: tensor<255x64xbf16>, %k: tensor<72x64xbf16>, %v: tensor<72x32xbf16>) -> tensor<255x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<255x64xbf16>, tensor<72x64xbf16>) -> tensor<255x72xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<255x72xf32>) -> tensor<255x1xf32>
  %mxb = graph.broadcast %mx : (tensor<255x1xf32>) -> tensor<255x72xf32>
  %d = graph.sub %s, %mxb : (tensor<255x72xf32>, tensor<255x72xf32>) -> tensor<255x72xf32>
  %e = graph.exp %d : (tensor<255x72xf32>) -> tensor<255x72xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<255x72xf32>) -> tensor<255x1xf32>
  %lb = graph.broadcast %l : (tensor<255x1xf32>) -> tensor<255x72xf32>
  %p = graph.div %e, %lb : (tensor<255x72xf32>, tensor<255x72xf32>) -> tensor<255x72xf32>
  %p16 = graph.cast %p : (tensor<255x72xf32>) -> tensor<255x72xbf16>
  %o = graph.matmul %p16, %v : (tensor<255x72xbf16>, tensor<72x32xbf16>) -> tensor<255x32xbf16>
  return %o : tensor<255x32xbf16>
}

// -----

// 256 query rows (a prefill) over 72 keys: flash.
// CHECK-LABEL: func.func @rows_256
//       CHECK:   graph.fusion({{.*}}) attributes {attention, attention_choice = "flash by shape
//   CHECK-NOT:   graph.fusion
func.func @rows_256(%q: tensor<256x64xbf16>, %k: tensor<72x64xbf16>, %v: tensor<72x32xbf16>) -> tensor<256x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<256x64xbf16>, tensor<72x64xbf16>) -> tensor<256x72xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<256x72xf32>) -> tensor<256x1xf32>
  %mxb = graph.broadcast %mx : (tensor<256x1xf32>) -> tensor<256x72xf32>
  %d = graph.sub %s, %mxb : (tensor<256x72xf32>, tensor<256x72xf32>) -> tensor<256x72xf32>
  %e = graph.exp %d : (tensor<256x72xf32>) -> tensor<256x72xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<256x72xf32>) -> tensor<256x1xf32>
  %lb = graph.broadcast %l : (tensor<256x1xf32>) -> tensor<256x72xf32>
  %p = graph.div %e, %lb : (tensor<256x72xf32>, tensor<256x72xf32>) -> tensor<256x72xf32>
  %p16 = graph.cast %p : (tensor<256x72xf32>) -> tensor<256x72xbf16>
  %o = graph.matmul %p16, %v : (tensor<256x72xbf16>, tensor<72x32xbf16>) -> tensor<256x32xbf16>
  return %o : tensor<256x32xbf16>
}

// -----

// At most 16 rows over 512 keys or more (decode: 1-16 query heads a kv
// head and token): flash.
// CHECK-LABEL: func.func @rows_16_keys_512
//       CHECK:   graph.fusion({{.*}}) attributes {attention, attention_choice = "flash by shape: 16 query rows a batch over 512 keys
//   CHECK-NOT:   graph.fusion
func.func @rows_16_keys_512(%q: tensor<16x64xbf16>, %k: tensor<512x64xbf16>, %v: tensor<512x32xbf16>) -> tensor<16x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<16x64xbf16>, tensor<512x64xbf16>) -> tensor<16x512xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<16x512xf32>) -> tensor<16x1xf32>
  %mxb = graph.broadcast %mx : (tensor<16x1xf32>) -> tensor<16x512xf32>
  %d = graph.sub %s, %mxb : (tensor<16x512xf32>, tensor<16x512xf32>) -> tensor<16x512xf32>
  %e = graph.exp %d : (tensor<16x512xf32>) -> tensor<16x512xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<16x512xf32>) -> tensor<16x1xf32>
  %lb = graph.broadcast %l : (tensor<16x1xf32>) -> tensor<16x512xf32>
  %p = graph.div %e, %lb : (tensor<16x512xf32>, tensor<16x512xf32>) -> tensor<16x512xf32>
  %p16 = graph.cast %p : (tensor<16x512xf32>) -> tensor<16x512xbf16>
  %o = graph.matmul %p16, %v : (tensor<16x512xbf16>, tensor<512x32xbf16>) -> tensor<16x32xbf16>
  return %o : tensor<16x32xbf16>
}

// -----

// 16 rows over 511 keys, and 17 over 1024: three kernels.
// CHECK-LABEL: func.func @rows_16_keys_511
// CHECK-COUNT-3: graph.fusion
//   CHECK-NOT:   attention,
//       CHECK:   attention_choice = "three kernels by shape
func.func @rows_16_keys_511(%q: tensor<16x64xbf16>, %k: tensor<511x64xbf16>, %v: tensor<511x32xbf16>) -> tensor<16x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<16x64xbf16>, tensor<511x64xbf16>) -> tensor<16x511xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<16x511xf32>) -> tensor<16x1xf32>
  %mxb = graph.broadcast %mx : (tensor<16x1xf32>) -> tensor<16x511xf32>
  %d = graph.sub %s, %mxb : (tensor<16x511xf32>, tensor<16x511xf32>) -> tensor<16x511xf32>
  %e = graph.exp %d : (tensor<16x511xf32>) -> tensor<16x511xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<16x511xf32>) -> tensor<16x1xf32>
  %lb = graph.broadcast %l : (tensor<16x1xf32>) -> tensor<16x511xf32>
  %p = graph.div %e, %lb : (tensor<16x511xf32>, tensor<16x511xf32>) -> tensor<16x511xf32>
  %p16 = graph.cast %p : (tensor<16x511xf32>) -> tensor<16x511xbf16>
  %o = graph.matmul %p16, %v : (tensor<16x511xbf16>, tensor<511x32xbf16>) -> tensor<16x32xbf16>
  return %o : tensor<16x32xbf16>
}

// -----

// CHECK-LABEL: func.func @rows_17_keys_1024
// CHECK-COUNT-3: graph.fusion
//   CHECK-NOT:   attention,
//       CHECK:   attention_choice = "three kernels by shape
func.func @rows_17_keys_1024(%q: tensor<17x64xbf16>, %k: tensor<1024x64xbf16>, %v: tensor<1024x32xbf16>) -> tensor<17x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<17x64xbf16>, tensor<1024x64xbf16>) -> tensor<17x1024xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<17x1024xf32>) -> tensor<17x1xf32>
  %mxb = graph.broadcast %mx : (tensor<17x1xf32>) -> tensor<17x1024xf32>
  %d = graph.sub %s, %mxb : (tensor<17x1024xf32>, tensor<17x1024xf32>) -> tensor<17x1024xf32>
  %e = graph.exp %d : (tensor<17x1024xf32>) -> tensor<17x1024xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<17x1024xf32>) -> tensor<17x1xf32>
  %lb = graph.broadcast %l : (tensor<17x1xf32>) -> tensor<17x1024xf32>
  %p = graph.div %e, %lb : (tensor<17x1024xf32>, tensor<17x1024xf32>) -> tensor<17x1024xf32>
  %p16 = graph.cast %p : (tensor<17x1024xf32>) -> tensor<17x1024xbf16>
  %o = graph.matmul %p16, %v : (tensor<17x1024xbf16>, tensor<1024x32xbf16>) -> tensor<17x32xbf16>
  return %o : tensor<17x32xbf16>
}
