// RowDomain's row maps against brute force: the row of the input buffer
// that each domain row reads through a transpose of two row dims, or
// through a slice along a row dim.
#include "tilec/Passes/RowDomain.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using tilec::RowDomain;
using tilec::RowMapTerm;

namespace {

int64_t apply(const llvm::SmallVector<RowMapTerm> &terms, int64_t row) {
  int64_t sum = 0;
  for (const RowMapTerm &t : terms) {
    int64_t v = row / t.div;
    if (t.mod != 0)
      v %= t.mod;
    sum += v * t.mul + t.add;
  }
  return sum;
}

/// Row r's digits over row dims `dims` (row-major).
std::vector<int64_t> digitsOf(int64_t r, const std::vector<int64_t> &dims, size_t rowDims) {
  std::vector<int64_t> digit(rowDims);
  for (size_t i = rowDims; i-- > 0;) {
    digit[i] = r % dims[i];
    r /= dims[i];
  }
  return digit;
}

/// The row-major row index of `digit` over row dims `dims`.
int64_t rowOf(const std::vector<int64_t> &digit, const std::vector<int64_t> &dims) {
  int64_t row = 0;
  for (size_t i = 0; i < digit.size(); ++i)
    row = row * dims[i] + digit[i];
  return row;
}

} // namespace

// Every pair of row dims of several shapes (dims of 1 among them): domain
// row r (row-major over the transposed row dims) reads the input row whose
// digits are r's with d0 and d1 swapped.
TEST(RowDomainTest, TransposedRowMapGathersThePermutedRow) {
  for (const std::vector<int64_t> &in :
       std::vector<std::vector<int64_t>>{{8, 32, 128}, {3, 4, 5, 16}, {1, 6, 1, 7, 8},
                                         {5, 1, 3, 4}, {2, 3, 4, 5, 6, 8}}) {
    size_t rowDims = in.size() - 1;
    for (size_t d0 = 0; d0 < rowDims; ++d0)
      for (size_t d1 = d0 + 1; d1 < rowDims; ++d1) {
        SCOPED_TRACE(std::to_string(in.size()) + "-d " + std::to_string(d0) + " " +
                     std::to_string(d1) + " " + std::to_string(in[0]));
        std::vector<int64_t> out = in;
        std::swap(out[d0], out[d1]);
        auto domain = RowDomain::fromFullShape(out);
        ASSERT_TRUE(domain.has_value());
        auto terms = domain->transposedRowMap(in, d0, d1);
        int64_t rows = domain->rows(), bad = 0;
        for (int64_t r = 0; r < rows; ++r) {
          // r's digits over the output's row dims, swapped, then the
          // input's row-major index.
          std::vector<int64_t> digit = digitsOf(r, out, rowDims);
          std::swap(digit[d0], digit[d1]);
          bad += apply(terms, r) != rowOf(digit, in);
        }
        EXPECT_EQ(bad, 0);
      }
  }
}

// Every row dim of several shapes (dims of 1 among them), sliced at the
// start, in the middle and at the end, one element or several: domain row
// r (row-major over the slice's row dims) reads the input row whose digits
// are r's, `start` added at the sliced dim.
TEST(RowDomainTest, SlicedRowMapOffsetsOneDigit) {
  for (const std::vector<int64_t> &in :
       std::vector<std::vector<int64_t>>{{8, 128}, {3, 4, 5, 16}, {1, 6, 1, 7, 8},
                                         {5, 2, 3, 4}, {7, 3, 8}}) {
    size_t rowDims = in.size() - 1;
    for (size_t axis = 0; axis < rowDims; ++axis)
      for (auto [start, end] : std::vector<std::pair<int64_t, int64_t>>{
               {0, 1}, {1, in[axis]}, {in[axis] / 2, in[axis] / 2 + 1}, {in[axis] - 1, in[axis]}}) {
        if (start >= end || end > in[axis] || (start == 0 && end == in[axis]))
          continue;
        SCOPED_TRACE(std::to_string(in.size()) + "-d axis " + std::to_string(axis) + " [" +
                     std::to_string(start) + ", " + std::to_string(end) + ")");
        std::vector<int64_t> out = in;
        out[axis] = end - start;
        auto domain = RowDomain::fromFullShape(out);
        ASSERT_TRUE(domain.has_value());
        auto terms = domain->slicedRowMap(in, axis, start);
        int64_t rows = 1;
        for (size_t i = 0; i < rowDims; ++i)
          rows *= out[i];
        for (int64_t r = 0; r < rows; ++r) {
          // r's digits over the output's row dims, then the input row.
          std::vector<int64_t> digit = digitsOf(r, out, rowDims);
          digit[axis] += start;
          ASSERT_EQ(apply(terms, r), rowOf(digit, in)) << "row " << r;
        }
      }
  }
}
