// Example: RMSNorm over a [4096, 4096] bf16 activation, fused into one kernel.
#include "ExampleMain.h"

int main() {
  using namespace tilec;
  return example::runExample("rmsnorm", [](Graph &g) {
    Tensor x = g.input("x", {4096, 4096}, DType::BF16);
    Tensor w = g.input("w", {4096}, DType::BF16);
    g.output(nn::rms_norm(x, w, 1e-6));
  }, 2e-2);
}
