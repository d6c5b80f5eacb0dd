// The headers nearly every test includes, compiled once for all tests when
// MINFLOW_PRECOMPILED_HEADERS is on (tests/testlib/CMakeLists.txt). Parsing
// them (GoogleTest, Eigen's Tensor module, the protobuf messages) takes
// about 5 s per test file: a third of a from-scratch CI build before this.
// Each test still includes what it uses; this list only makes that cheap.
#ifndef MINFLOW_TESTS_TESTLIB_PRECOMPILED_HEADERS_H_
#define MINFLOW_TESTS_TESTLIB_PRECOMPILED_HEADERS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"

#endif  // MINFLOW_TESTS_TESTLIB_PRECOMPILED_HEADERS_H_
