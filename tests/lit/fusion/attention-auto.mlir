// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-fuse="attention=auto" %s | FileCheck %s
// RUN: not tilec-opt --tilec-fuse="attention=yes" %s 2>&1 | FileCheck %s --check-prefix=BAD

// attention=auto (the default) by shape: one flash kernel where the keys
// are at least 1024 or the query rows of a batch at least 256; three
// kernels below both.
// BAD: attention must be auto, true or false, got 'yes'

// 64 query rows over 528 keys, 8 kv heads (a decode step of 16 tokens with
// 4 grouped heads, after 512): three kernels, measured faster there.
// CHECK-LABEL: func.func @few_rows_few_keys
// CHECK-COUNT-3: graph.fusion
//   CHECK-NOT:   attention
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

// 255 rows over 1023 keys: both under the rule's bounds, three kernels.
// CHECK-LABEL: func.func @rows_and_keys_just_under
// CHECK-COUNT-3: graph.fusion
//   CHECK-NOT:   attention
func.func @rows_and_keys_just_under(%q: tensor<255x64xbf16>, %k: tensor<1023x64xbf16>, %v: tensor<1023x32xbf16>) -> tensor<255x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<255x64xbf16>, tensor<1023x64xbf16>) -> tensor<255x1023xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<255x1023xf32>) -> tensor<255x1xf32>
  %mxb = graph.broadcast %mx : (tensor<255x1xf32>) -> tensor<255x1023xf32>
  %d = graph.sub %s, %mxb : (tensor<255x1023xf32>, tensor<255x1023xf32>) -> tensor<255x1023xf32>
  %e = graph.exp %d : (tensor<255x1023xf32>) -> tensor<255x1023xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<255x1023xf32>) -> tensor<255x1xf32>
  %lb = graph.broadcast %l : (tensor<255x1xf32>) -> tensor<255x1023xf32>
  %p = graph.div %e, %lb : (tensor<255x1023xf32>, tensor<255x1023xf32>) -> tensor<255x1023xf32>
  %p16 = graph.cast %p : (tensor<255x1023xf32>) -> tensor<255x1023xbf16>
  %o = graph.matmul %p16, %v : (tensor<255x1023xbf16>, tensor<1023x32xbf16>) -> tensor<255x32xbf16>
  return %o : tensor<255x32xbf16>
}

// -----

// 4 rows (one token, 4 grouped heads) over 1024 keys: flash.
// CHECK-LABEL: func.func @keys_1024
//       CHECK:   graph.fusion({{.*}}) attributes {attention
//   CHECK-NOT:   graph.fusion
func.func @keys_1024(%q: tensor<4x64xbf16>, %k: tensor<1024x64xbf16>, %v: tensor<1024x32xbf16>) -> tensor<4x32xbf16> {
  %s = graph.matmul %q, %k {transpose_b = true} : (tensor<4x64xbf16>, tensor<1024x64xbf16>) -> tensor<4x1024xf32>
  %mx = graph.reduce_max %s {axis = 1 : i64} : (tensor<4x1024xf32>) -> tensor<4x1xf32>
  %mxb = graph.broadcast %mx : (tensor<4x1xf32>) -> tensor<4x1024xf32>
  %d = graph.sub %s, %mxb : (tensor<4x1024xf32>, tensor<4x1024xf32>) -> tensor<4x1024xf32>
  %e = graph.exp %d : (tensor<4x1024xf32>) -> tensor<4x1024xf32>
  %l = graph.reduce_sum %e {axis = 1 : i64} : (tensor<4x1024xf32>) -> tensor<4x1xf32>
  %lb = graph.broadcast %l : (tensor<4x1xf32>) -> tensor<4x1024xf32>
  %p = graph.div %e, %lb : (tensor<4x1024xf32>, tensor<4x1024xf32>) -> tensor<4x1024xf32>
  %p16 = graph.cast %p : (tensor<4x1024xf32>) -> tensor<4x1024xbf16>
  %o = graph.matmul %p16, %v : (tensor<4x1024xbf16>, tensor<1024x32xbf16>) -> tensor<4x32xbf16>
  return %o : tensor<4x32xbf16>
}

// -----

// 256 query rows (a prefill) over 72 keys: flash.
// CHECK-LABEL: func.func @rows_256
//       CHECK:   graph.fusion({{.*}}) attributes {attention
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

