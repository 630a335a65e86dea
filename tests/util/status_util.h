// Status helpers for GoogleTest cases: ASSERT_OK(status expression) fails
// the test with the status's message; Unwrap(result) returns the value,
// recording a failure (and returning a moved-from default) on error.
#pragma once

#include <utility>

#include <gtest/gtest.h>

#include "common/status.h"

#define ASSERT_OK(expr)                      \
  do {                                       \
    ::quiver::Status _st = (expr);           \
    ASSERT_TRUE(_st.ok()) << _st.ToString(); \
  } while (false)

namespace quiver::testing {

template <typename T>
T Unwrap(Result<T> r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).ValueOrDie();
}

}  // namespace quiver::testing
