// Input for tools/input-file.test: does not parse (shape mismatch).
func.func @bad(%x: tensor<4x64xf32>, %y: tensor<4x32xf32>) -> tensor<4x64xf32> {
  %0 = graph.add %x, %y : (tensor<4x64xf32>, tensor<4x32xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}
