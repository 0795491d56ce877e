// Example: row softmax over [1024, 32000] f32 logits, fused into one kernel.
#include "ExampleMain.h"

int main() {
  using namespace tilec;
  return example::runExample("softmax", [](Graph &g) {
    g.output(nn::softmax(g.input("logits", {1024, 32000}, DType::F32)));
  }, 1e-5);
}
