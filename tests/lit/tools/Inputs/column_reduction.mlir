// Input for tools/input-file.test: a reduction along axis 0 (strided rows).
func.func @column_sum(%x: tensor<4x64xf32>) -> tensor<1x64xf32> {
  %0 = graph.reduce_sum %x {axis = 0 : i64} : (tensor<4x64xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}
