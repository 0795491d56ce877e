// RUN: tilec-opt --split-input-file --tilec-fuse %s | FileCheck %s
// RUN: tilec-opt --split-input-file --tilec-fuse="sibling-gemm-rows=64" %s | FileCheck %s --check-prefix=ROWS64

// Two 16-bit GEMMs of at most 2048 rows (sibling-gemm-rows) reading one
// lhs with weights of one shape (a decoder's k and v projections) are one
// kernel of two products, each with its own epilogue and output.
// CHECK-LABEL: func.func @k_and_v
//       CHECK:   %[[F:.+]]:2 = graph.fusion(%arg0, %arg1, %arg2 : tensor<16x256xbf16>, tensor<128x256xbf16>, tensor<128x256xbf16>) attributes {domain = array<i64: 16, 128>
//       CHECK:     graph.matmul
//       CHECK:     graph.neg
//       CHECK:     graph.matmul
//       CHECK:     graph.yield
//   CHECK-NOT:   graph.fusion
func.func @k_and_v(%h: tensor<16x256xbf16>, %wk: tensor<128x256xbf16>, %wv: tensor<128x256xbf16>) -> (tensor<16x128xbf16>, tensor<16x128xbf16>) {
  %k = graph.matmul %h, %wk {transpose_b = true} : (tensor<16x256xbf16>, tensor<128x256xbf16>) -> tensor<16x128xbf16>
  %n = graph.neg %k : (tensor<16x128xbf16>) -> tensor<16x128xbf16>
  %v = graph.matmul %h, %wv {transpose_b = true} : (tensor<16x256xbf16>, tensor<128x256xbf16>) -> tensor<16x128xbf16>
  return %n, %v : tensor<16x128xbf16>, tensor<16x128xbf16>
}

// -----

// f32, or weights of other shapes: two kernels; the 128-row pair is one
// (five kernels). With sibling-gemm-rows=64 (the default before run s33b)
// the 128-row pair is two kernels too.
// CHECK-LABEL: func.func @not_siblings
// CHECK-NEXT:    %{{.+}}:2 = graph.fusion(%arg0, %arg1, %arg2 : tensor<128x256xbf16>, tensor<128x256xbf16>, tensor<128x256xbf16>)
// CHECK-COUNT-4: graph.fusion(
// CHECK-NOT:     graph.fusion(
// ROWS64-LABEL: func.func @not_siblings
// ROWS64-COUNT-6: graph.fusion
func.func @not_siblings(%h: tensor<128x256xbf16>, %w: tensor<128x256xbf16>, %u: tensor<128x256xbf16>,
                        %x: tensor<16x256xf32>, %wf: tensor<128x256xf32>, %uf: tensor<128x256xf32>,
                        %y: tensor<16x256xbf16>, %wy: tensor<128x256xbf16>, %uy: tensor<64x256xbf16>)
    -> (tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x128xbf16>, tensor<16x64xbf16>) {
  %a = graph.matmul %h, %w {transpose_b = true} : (tensor<128x256xbf16>, tensor<128x256xbf16>) -> tensor<128x128xbf16>
  %b = graph.matmul %h, %u {transpose_b = true} : (tensor<128x256xbf16>, tensor<128x256xbf16>) -> tensor<128x128xbf16>
  %c = graph.matmul %x, %wf {transpose_b = true} : (tensor<16x256xf32>, tensor<128x256xf32>) -> tensor<16x128xf32>
  %d = graph.matmul %x, %uf {transpose_b = true} : (tensor<16x256xf32>, tensor<128x256xf32>) -> tensor<16x128xf32>
  %e = graph.matmul %y, %wy {transpose_b = true} : (tensor<16x256xbf16>, tensor<128x256xbf16>) -> tensor<16x128xbf16>
  %f = graph.matmul %y, %uy {transpose_b = true} : (tensor<16x256xbf16>, tensor<64x256xbf16>) -> tensor<16x64xbf16>
  return %a, %b, %c, %d, %e, %f : tensor<128x128xbf16>, tensor<128x128xbf16>, tensor<16x128xf32>, tensor<16x128xf32>, tensor<16x128xbf16>, tensor<16x64xbf16>
}

// -----

// Past 2048 rows: two kernels (measured neutral at 2048 tokens, not past).
// CHECK-LABEL: func.func @past_2048_rows
// CHECK-COUNT-2: graph.fusion(
// CHECK-NOT:     graph.fusion(
func.func @past_2048_rows(%h: tensor<4096x256xbf16>, %wk: tensor<128x256xbf16>, %wv: tensor<128x256xbf16>) -> (tensor<4096x128xbf16>, tensor<4096x128xbf16>) {
  %k = graph.matmul %h, %wk {transpose_b = true} : (tensor<4096x256xbf16>, tensor<128x256xbf16>) -> tensor<4096x128xbf16>
  %v = graph.matmul %h, %wv {transpose_b = true} : (tensor<4096x256xbf16>, tensor<128x256xbf16>) -> tensor<4096x128xbf16>
  return %k, %v : tensor<4096x128xbf16>, tensor<4096x128xbf16>
}
