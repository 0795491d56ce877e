// A small graph-dialect program for tilec's file input (not a test itself:
// tests/lit/lit.cfg.py excludes Inputs/). Scaled softmax over rows of 256 f16.
func.func @scaled_softmax(%x: tensor<16x256xf16>, %scale: tensor<256xf16>) -> tensor<16x256xf16> {
  %0 = graph.broadcast %scale : (tensor<256xf16>) -> tensor<16x256xf16>
  %1 = graph.mul %x, %0 : (tensor<16x256xf16>, tensor<16x256xf16>) -> tensor<16x256xf16>
  %2 = graph.reduce_max %1 {axis = 1 : i64} : (tensor<16x256xf16>) -> tensor<16x1xf16>
  %3 = graph.broadcast %2 : (tensor<16x1xf16>) -> tensor<16x256xf16>
  %4 = graph.sub %1, %3 : (tensor<16x256xf16>, tensor<16x256xf16>) -> tensor<16x256xf16>
  %5 = graph.exp %4 : (tensor<16x256xf16>) -> tensor<16x256xf16>
  %6 = graph.reduce_sum %5 {axis = 1 : i64} : (tensor<16x256xf16>) -> tensor<16x1xf16>
  %7 = graph.broadcast %6 : (tensor<16x1xf16>) -> tensor<16x256xf16>
  %8 = graph.div %5, %7 : (tensor<16x256xf16>, tensor<16x256xf16>) -> tensor<16x256xf16>
  return %8 : tensor<16x256xf16>
}
