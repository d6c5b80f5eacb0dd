// GoogleTest helpers for Status: MF_ASSERT_OK, MF_EXPECT_OK and
// StatusIs(code, message_matcher).
#pragma once

#include <ostream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/status.h"

namespace minflow {
namespace testing {

// Prints "OK" or "INVALID_ARGUMENT: message" in failure output.
std::string StatusToString(const Status& s);

namespace internal_status {
inline const Status& GetStatus(const Status& s) { return s; }
template <typename T>
const Status& GetStatus(const StatusOr<T>& s) {
  return s.status();
}
}  // namespace internal_status

MATCHER_P2(StatusIs, code, message_matcher,
           "has code " + std::string(absl::StatusCodeToString(code))) {
  const Status& s = ::minflow::testing::internal_status::GetStatus(arg);
  if (s.code() != code) {
    *result_listener << "whose status is " << StatusToString(s);
    return false;
  }
  return ::testing::ExplainMatchResult(
      message_matcher, std::string(s.message()), result_listener);
}

// StatusIs(code): any message.
MATCHER_P(StatusIs, code,
          "has code " + std::string(absl::StatusCodeToString(code))) {
  const Status& s = ::minflow::testing::internal_status::GetStatus(arg);
  if (s.code() != code) {
    *result_listener << "whose status is " << StatusToString(s);
    return false;
  }
  return true;
}

}  // namespace testing
}  // namespace minflow

#define MF_EXPECT_OK(expr)                                                \
  do {                                                                    \
    const ::minflow::Status _mf_s = (expr);                               \
    EXPECT_TRUE(_mf_s.ok()) << ::minflow::testing::StatusToString(_mf_s); \
  } while (0)

#define MF_ASSERT_OK(expr)                                                \
  do {                                                                    \
    const ::minflow::Status _mf_s = (expr);                               \
    ASSERT_TRUE(_mf_s.ok()) << ::minflow::testing::StatusToString(_mf_s); \
  } while (0)
