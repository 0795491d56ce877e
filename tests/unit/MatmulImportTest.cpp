// Import of matmul nodes into the graph dialect, and the compile-cache key
// (no lowering: fusion of graph.matmul is tested with the passes).
#include "tilec/compiler/Executable.h"
#include "tilec/compiler/Internal.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>

using namespace tilec;

TEST(MatmulImportTest, ImportsTransposeAttributes) {
  Graph g("mm");
  Tensor a = g.input("a", {2, 3, 5}, DType::BF16);
  Tensor b = g.input("b", {7, 5}, DType::BF16);
  Tensor aT = g.input("aT", {2, 5, 3}, DType::BF16);
  Tensor bb = g.input("bb", {2, 5, 7}, DType::BF16);
  g.output(matmul(a, b, DType::F32, false, true));
  g.output(matmul(aT, bb, true, false));
  mlir::MLIRContext ctx;
  // importGraph runs the verifier, so this also checks the imported types.
  auto module = importGraph(ctx, g);
  ASSERT_TRUE(module.ok()) << module.message();
  std::string str;
  llvm::raw_string_ostream os(str);
  (*module)->print(os);
  EXPECT_NE(str.find("graph.matmul %arg0, %arg1 {transpose_b = true} : "
                       "(tensor<2x3x5xbf16>, tensor<7x5xbf16>) -> tensor<2x3x7xf32>"),
            std::string::npos)
      << str;
  EXPECT_NE(str.find("graph.matmul %arg2, %arg3 {transpose_a = true} : "
                       "(tensor<2x5x3xbf16>, tensor<2x5x7xbf16>) -> tensor<2x3x7xbf16>"),
            std::string::npos)
      << str;
}

TEST(MatmulImportTest, FingerprintIncludesTransposes) {
  auto build = [](Graph &g, bool ta, bool tb) {
    Tensor a = g.input("a", {4, 4}, DType::F32);
    Tensor b = g.input("b", {4, 4}, DType::F32);
    g.output(matmul(a, b, ta, tb));
  };
  CompileOptions options;
  Graph g00("mm"), g01("mm"), g10("mm"), g01again("mm");
  build(g00, false, false);
  build(g01, false, true);
  build(g10, true, false);
  build(g01again, false, true);
  std::string f00 = graphFingerprint(g00, options), f01 = graphFingerprint(g01, options),
              f10 = graphFingerprint(g10, options);
  EXPECT_NE(f00, f01);
  EXPECT_NE(f00, f10);
  EXPECT_NE(f01, f10);
  EXPECT_EQ(f01, graphFingerprint(g01again, options));
}

// Causal masks of one shape and different periods are different graphs:
// the fingerprint (the program cache's key) names the period.
TEST(MatmulImportTest, FingerprintIncludesTheCausalPeriod) {
  auto build = [](Graph &g, int64_t period) {
    g.output(g.input("x", {8, 12}, DType::F32) + g.causal_mask({8, 12}, period));
  };
  CompileOptions options;
  Graph g2("mask"), g4("mask"), g4again("mask");
  build(g2, 2);
  build(g4, 4);
  build(g4again, 4);
  EXPECT_NE(graphFingerprint(g2, options), graphFingerprint(g4, options));
  EXPECT_EQ(graphFingerprint(g4, options), graphFingerprint(g4again, options));
  // ... and its past (the keys before the runs).
  Graph p3("mask"), p5("mask");
  p3.output(p3.input("x", {8, 12}, DType::F32) + p3.causal_mask({8, 12}, 4, 0, 3));
  p5.output(p5.input("x", {8, 12}, DType::F32) + p5.causal_mask({8, 12}, 4, 0, 5));
  EXPECT_NE(graphFingerprint(p3, options), graphFingerprint(p5, options));
}

// Transposes of a cube swap different dims into the same result shape: the
// fingerprint (the program cache's key) names both dims, so that one graph
// never runs the other's program.
TEST(MatmulImportTest, FingerprintIncludesBothTransposedDims) {
  auto build = [](Graph &g, int d0, int d1) {
    g.output(transpose(g.input("x", {4, 4, 4}, DType::F32), d0, d1));
  };
  CompileOptions options;
  Graph g01("t"), g02("t"), g12("t");
  build(g01, 0, 1);
  build(g02, 0, 2);
  build(g12, 1, 2);
  std::string f01 = graphFingerprint(g01, options), f02 = graphFingerprint(g02, options),
              f12 = graphFingerprint(g12, options);
  EXPECT_NE(f01, f02);
  EXPECT_NE(f01, f12);
  EXPECT_NE(f02, f12);
}
