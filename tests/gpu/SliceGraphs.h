// Graphs with slices, concatenations and inputs broadcast along row dims:
// assembled with ptxas by the CPU tests and run against the reference by the
// GPU tests.
#pragma once

#include "tilec/Graph.h"

#include <functional>
#include <string>
#include <vector>

namespace tilec::testgraphs {

struct SliceGraph {
  std::string name;
  std::function<void(Graph &)> build;
  double tolerance;
  bool streamed = false; // rows too wide for registers
  int64_t cluster = 1;    // CTAs a row (sm_90a clusters)
  std::string scheduleOptions = "";
};

inline std::vector<SliceGraph> sliceGraphs() {
  std::vector<SliceGraph> graphs;
  for (DType dtype : {DType::F32, DType::BF16})
    // Three pieces, one computed, joined at columns 7 and 30 (scalar accesses).
    graphs.push_back({std::string("pieces_") + dtypeName(dtype),
                      [dtype](Graph &g) {
                        Tensor x = g.input("x", {5, 37}, dtype);
                        g.output(concat({exp(slice(x, -1, 30, 37)),
                                         slice(x, -1, 0, 23) * 2.0, slice(x, -1, 10, 17)},
                                        -1));
                      },
                      dtype == DType::F32 ? 1e-5 : 2e-2});
  graphs.push_back({"part_out",
                    [](Graph &g) {
                      Tensor x = g.input("x", {6, 64}, DType::F32);
                      Tensor h = exp(x);
                      g.output(sum(h, -1));
                      g.output(slice(h, -1, 8, 40)); // a 32-column window of the row
                    },
                    1e-5});
  graphs.push_back({"part_divided_by_the_row_sum",
                    [](Graph &g) {
                      Tensor x = g.input("x", {6, 64}, DType::F32);
                      Tensor e = exp(x);
                      g.output(slice(e, -1, 16, 48) / sum(e, -1));
                    },
                    1e-5});
  graphs.push_back({"narrow_rows_of_a_wider_input",
                    [](Graph &g) {
                      Tensor x = g.input("x", {9, 100}, DType::BF16);
                      g.output(nn::softmax(slice(x, -1, 16, 80)));
                    },
                    2e-2});
  graphs.push_back({"inputs_broadcast_along_row_dims",
                    [](Graph &g) {
                      Tensor x = g.input("x", {4, 6, 32}, DType::F32);
                      Tensor scale = g.input("scale", {4, 1, 1}, DType::F32); // row / 6
                      Tensor bias = g.input("bias", {6, 32}, DType::F32);     // row % 6
                      Tensor c = g.input("c", {4, 1, 32}, DType::F32);        // row / 6
                      g.output(x * scale + bias + c);
                    },
                    1e-5});
  // Pieces one column wide are per-row scalars: a column appended, one
  // picked out of a computed row and broadcast back.
  graphs.push_back({"append_column",
                    [](Graph &g) {
                      Tensor x = g.input("x", {10, 63}, DType::F32);
                      Tensor y = g.input("y", {10, 1}, DType::F32);
                      g.output(concat({x, exp(y)}, -1));
                    },
                    1e-5});
  graphs.push_back({"one_column_of_a_computed_row",
                    [](Graph &g) {
                      Tensor x = g.input("x", {12, 40}, DType::BF16);
                      Tensor e = exp(x);
                      g.output(x * slice(e, -1, 5, 6));
                    },
                    2e-2});
  struct Rope {
    int64_t tokens, heads, dim;
    DType dtype;
  };
  // dim 10: half 5 forces scalar accesses; 64 and 256: other chunk layouts.
  for (Rope r : {Rope{5, 2, 2, DType::F32}, Rope{7, 3, 10, DType::F32}, Rope{7, 3, 10, DType::BF16},
                 Rope{9, 5, 64, DType::BF16}, Rope{33, 8, 256, DType::F32},
                 Rope{2, 40, 128, DType::BF16}})
    graphs.push_back({"rope_" + std::to_string(r.tokens) + "x" + std::to_string(r.heads) +
                          "x" + std::to_string(r.dim) + "_" + dtypeName(r.dtype),
                      [r](Graph &g) {
                        Tensor x = g.input("x", {r.tokens, r.heads, r.dim}, r.dtype);
                        Tensor c = g.input("cos", {r.tokens, 1, r.dim}, r.dtype);
                        Tensor s = g.input("sin", {r.tokens, 1, r.dim}, r.dtype);
                        g.output(nn::rope(x, c, s));
                      },
                      r.dtype == DType::F32 ? 1e-5 : 2e-2});
  // Slices along row dims gather rows (of an input: one kernel): rows 2-4
  // through exp; one element of the sliced dim with a column slice on top;
  // a slice returned as it is (a row copy).
  for (DType dtype : {DType::F32, DType::BF16}) {
    double tol = dtype == DType::F32 ? 1e-5 : 2e-2;
    std::string suffix = std::string("_") + dtypeName(dtype);
    graphs.push_back({"row_slice" + suffix,
                      [dtype](Graph &g) { g.output(exp(slice(g.input("x", {8, 64}, dtype), 0, 2, 5))); },
                      tol});
    graphs.push_back({"row_and_col_slice" + suffix,
                      [dtype](Graph &g) {
                        Tensor y = g.input("y", {3, 8, 64}, dtype);
                        g.output(-slice(slice(y, 1, 6, 7), 2, 16, 48));
                      },
                      tol});
    graphs.push_back({"row_slice_copy" + suffix,
                      [dtype](Graph &g) { g.output(slice(g.input("z", {5, 7, 100}, dtype), 0, 1, 4)); },
                      tol});
    // Concatenations along row dims gather rows from their pieces (inputs:
    // one kernel): three pieces of rows through exp; the KV-cache append
    // (one new position after the cached ones, along the sequence dim)
    // returned as is (a row copy); pieces of one row dim of 1 joined along
    // the outer dim, under a slice of columns.
    graphs.push_back({"row_concat" + suffix,
                      [dtype](Graph &g) {
                        Tensor a = g.input("a", {8, 64}, dtype), b = g.input("b", {3, 64}, dtype);
                        g.output(exp(concat({a, b, a}, 0)));
                      },
                      tol});
    graphs.push_back({"kv_append" + suffix,
                      [dtype](Graph &g) {
                        Tensor cache = g.input("cache", {2, 4, 37, 128}, dtype);
                        g.output(concat({cache, g.input("k", {2, 4, 1, 128}, dtype)}, 2));
                      },
                      tol});
    graphs.push_back({"outer_concat_col_slice" + suffix,
                      [dtype](Graph &g) {
                        Tensor a = g.input("a", {1, 3, 100}, dtype), b = g.input("b", {2, 3, 100}, dtype);
                        g.output(-slice(concat({a, b}, 0), 2, 8, 72));
                      },
                      tol});
  }
  // A rotated row (windows at offsets) reduced: streamed by one CTA a row
  // (clusters off), or on sm_90a split over a cluster of 8 CTAs, each
  // loading its windows' columns.
  auto rotate = [](Graph &g) {
    Tensor x = g.input("x", {3, 40000}, DType::F32);
    g.output(nn::softmax(concat({slice(x, -1, 20000, 40000), slice(x, -1, 0, 20000)}, -1)));
  };
  graphs.push_back({"streamed_rotate", rotate, 1e-5, /*streamed=*/true, /*cluster=*/1,
                    "row-cluster-max=1"});
  graphs.push_back({"cluster_rotate", rotate, 1e-5, /*streamed=*/false, /*cluster=*/8});
  return graphs;
}

} // namespace tilec::testgraphs
