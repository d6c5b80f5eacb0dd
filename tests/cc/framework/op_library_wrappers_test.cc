// minflow_add_cc_op_wrappers: the classes generated for a custom-op
// library's ops (tests/framework/testdata/op_libraries/good.cc).
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "load_test_good_cc_ops.h"
#include "minflow/cc/framework/client_session.h"
#include "minflow/framework/load_library.h"
#include "minflow/graph/graph.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

TEST(OpLibraryWrappersTest, OpFailsUntilItsLibraryIsLoaded) {
  Scope root = Scope::NewRootScope();
  auto y = ops::LoadTest::Double(root.WithOpName("twice"), {1.f, 2.f});
  EXPECT_EQ(y.node(), nullptr);
  EXPECT_THAT(root.status(), StatusIs(absl::StatusCode::kNotFound,
                                      AllOf(HasSubstr("LoadTest>Double"),
                                            HasSubstr("{{node twice}}"))));
}

TEST(OpLibraryWrappersTest, GeneratedClassRunsTheLibrarysOp) {
  MF_ASSERT_OK(LoadOpLibrary(MINFLOW_GOOD_OP_LIBRARY, nullptr));
  Scope root = Scope::NewRootScope();
  auto y = ops::LoadTest::Double(root, {1.f, 2.f});
  MF_ASSERT_OK(root.status());
  EXPECT_EQ(y.node()->type_string(), "LoadTest>Double");
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({y}, &out));
  test::ExpectTensorEqual<float>(out[0], test::AsTensor<float>({2.f, 4.f}));
}

}  // namespace
}  // namespace minflow
