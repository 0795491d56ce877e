// A concatenation split at column 5 (forces vector_width 1) and a part of a
// row as a second result (columns 8..31 of the exp).
func.func @odd_split(%a: tensor<16x5xf32>, %b: tensor<16x59xf32>) -> (tensor<16x64xf32>, tensor<16x24xf32>) {
  %0 = graph.concat %a, %b {axis = 1 : i64} : (tensor<16x5xf32>, tensor<16x59xf32>) -> tensor<16x64xf32>
  %1 = graph.exp %0 : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %2 = graph.slice %1 {axis = 1 : i64, start = 8 : i64, end = 32 : i64} : (tensor<16x64xf32>) -> tensor<16x24xf32>
  return %1, %2 : tensor<16x64xf32>, tensor<16x24xf32>
}
