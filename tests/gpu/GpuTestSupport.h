// Shared setup for GPU tests: one context per process, skipped (with a
// visible message) where no GPU or driver exists.
#pragma once

#include "tilec/runtime/Cuda.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>

namespace tilec::testing {

/// The process-wide context, or nullptr with `why` set.
inline std::shared_ptr<rt::Context> gpuContext(std::string &why) {
  static std::string reason;
  static std::shared_ptr<rt::Context> ctx = [] {
    auto c = rt::Context::create(0);
    if (!c) {
      reason = c.message();
      return std::shared_ptr<rt::Context>();
    }
    return c.take();
  }();
  why = reason;
  return ctx;
}

/// Fresh seeds each run (printed on failure through SCOPED_TRACE).
inline uint64_t freshSeed() {
  static std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

/// How often `needle` occurs in `text` (instructions in PTX).
inline size_t occurrences(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

} // namespace tilec::testing

#define TILEC_REQUIRE_GPU(ctxVar)                                              \
  std::string tilecNoGpuReason;                                                \
  auto ctxVar = ::tilec::testing::gpuContext(tilecNoGpuReason);                \
  if (!ctxVar)                                                                 \
  GTEST_SKIP() << "GPU test skipped: " << tilecNoGpuReason
