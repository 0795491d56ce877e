// Shared by the unit tests: the message of the tilec::Error a call throws.
#pragma once

#include "tilec/Graph.h"

#include <gtest/gtest.h>

#include <string>

namespace tilec::testing {

/// Runs `fn`, expects a tilec::Error and returns its message.
template <typename Fn> std::string errorOf(Fn fn) {
  try {
    fn();
  } catch (const Error &e) {
    return e.what();
  }
  ADD_FAILURE() << "expected tilec::Error";
  return "";
}

} // namespace tilec::testing
