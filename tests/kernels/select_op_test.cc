// Select (TensorFlow's v1 rules) and SelectV2 (broadcasting) against a naive
// reference, over numeric and string dtypes.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "tests/kernels/cwise_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

class SelectOpTest : public test::CwiseOpsTestBase {
 protected:
  template <typename T>
  Status Run(const std::string& op, const Tensor& cond, const Tensor& t,
             const Tensor& e) {
    MakeNode(op)
        .Input(DT_BOOL)
        .Input(DataTypeToEnum<T>::v())
        .Input(DataTypeToEnum<T>::v());
    MF_RETURN_IF_ERROR(MakeOp());
    AddInputTensor(cond);
    AddInputTensor(t);
    AddInputTensor(e);
    return RunOpKernel();
  }

  // SelectV2 on random inputs of these shapes, against numpy broadcasting.
  template <typename T>
  void CheckV2(const TensorShape& c, const TensorShape& t,
               const TensorShape& e) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << c.DebugString() << " " << t.DebugString() << " "
                 << e.DebugString());
    const Tensor cond = test::RandomValues<bool>(c, 1, 0, 1);
    const Tensor then = test::RandomValues<T>(t, 2, -100, 100);
    const Tensor else_ = test::RandomValues<T>(e, 3, -100, 100);
    MF_ASSERT_OK(Run<T>("SelectV2", cond, then, else_));
    TensorShape ct;
    TensorShape out;
    ASSERT_TRUE(test::BroadcastShapes(c, t, &ct));
    ASSERT_TRUE(test::BroadcastShapes(ct, e, &out));
    std::vector<double> want(out.num_elements());
    for (int64_t i = 0; i < out.num_elements(); ++i) {
      want[i] =
          cond.base<bool>()[test::BroadcastOffset(out, c, i)]
              ? test::ElementAt<T>(then, test::BroadcastOffset(out, t, i))
              : test::ElementAt<T>(else_, test::BroadcastOffset(out, e, i));
    }
    test::ExpectMatches<T>(*GetOutput(0), out, want, {0, 0});
    ExpectShapeFnAgrees();
  }
};

TEST_P(SelectOpTest, ElementwiseCondition) {
  MF_ASSERT_OK(Run<float>("Select", test::AsTensor<bool>({true, false, true}),
                          test::AsTensor<float>({1, 2, 3}),
                          test::AsTensor<float>({-1, -2, -3})));
  test::ExpectTensorEqual<float>(*GetOutput(0),
                                 test::AsTensor<float>({1, -2, 3}));
  ExpectShapeFnAgrees();
}

TEST_P(SelectOpTest, ScalarConditionPicksAWholeInput) {
  MF_ASSERT_OK(Run<int32_t>("Select", test::AsScalar<bool>(false),
                            test::AsTensor<int32_t>({1, 2}),
                            test::AsTensor<int32_t>({3, 4})));
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>({3, 4}));
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(2)));
  ExpectShapeFnAgrees();
}

TEST_P(SelectOpTest, VectorConditionPicksRows) {
  MF_ASSERT_OK(Run<double>(
      "Select", test::AsTensor<bool>({false, true}),
      test::AsTensor<double>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})),
      test::AsTensor<double>({-1, -2, -3, -4, -5, -6}, TensorShape({2, 3}))));
  test::ExpectTensorEqual<double>(
      *GetOutput(0),
      test::AsTensor<double>({-1, -2, -3, 4, 5, 6}, TensorShape({2, 3})));
  ExpectShapeFnAgrees();
}

TEST_P(SelectOpTest, LargeRowSelectIsSharded) {
  const TensorShape shape({1000, 1025});
  const Tensor cond = test::RandomValues<bool>(TensorShape({1000}), 4, 0, 1);
  const Tensor t = test::RandomValues<int64_t>(shape, 5, -1000, 1000);
  const Tensor e = test::RandomValues<int64_t>(shape, 6, -1000, 1000);
  MF_ASSERT_OK(Run<int64_t>("Select", cond, t, e));
  const Tensor& out = *GetOutput(0);
  for (int64_t i = 0; i < out.NumElements(); i += 101) {
    const Tensor& src = cond.base<bool>()[i / 1025] ? t : e;
    ASSERT_EQ(out.base<int64_t>()[i], src.base<int64_t>()[i]) << i;
  }
}

TEST_P(SelectOpTest, Strings) {
  MF_ASSERT_OK(Run<std::string>("Select", test::AsTensor<bool>({true, false}),
                                test::AsTensor<std::string>({"a", "b"}),
                                test::AsTensor<std::string>({"c", "d"})));
  test::ExpectTensorEqual<std::string>(*GetOutput(0),
                                       test::AsTensor<std::string>({"a", "d"}));
  MF_ASSERT_OK(Run<std::string>("SelectV2", test::AsTensor<bool>({true, false}),
                                test::AsScalar<std::string>("then"),
                                test::AsTensor<std::string>({"c", "d"})));
  test::ExpectTensorEqual<std::string>(
      *GetOutput(0), test::AsTensor<std::string>({"then", "d"}));
}

TEST_P(SelectOpTest, EmptyInputs) {
  MF_ASSERT_OK(Run<float>("Select", Tensor(DT_BOOL, TensorShape({0})),
                          Tensor(DT_FLOAT, TensorShape({0, 4})),
                          Tensor(DT_FLOAT, TensorShape({0, 4}))));
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[0,4]");
  MF_ASSERT_OK(Run<float>("SelectV2", Tensor(DT_BOOL, TensorShape({3, 0})),
                          test::AsScalar<float>(1),
                          Tensor(DT_FLOAT, TensorShape({1, 1}))));
  EXPECT_EQ(GetOutput(0)->shape().DebugString(), "[3,0]");
}

TEST_P(SelectOpTest, ScalarConditionNeedsSameShapedBranches) {
  EXPECT_THAT(Run<float>("Select", test::AsScalar<bool>(true),
                         Tensor(DT_FLOAT, TensorShape({2})),
                         Tensor(DT_FLOAT, TensorShape({3}))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'then' and 'else' must have the same size.  "
                                 "but received: [2] vs. [3]")));
}

TEST_P(SelectOpTest, VectorConditionErrors) {
  EXPECT_THAT(Run<float>("Select", test::AsTensor<bool>({true}),
                         test::AsScalar<float>(1), test::AsScalar<float>(2)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'then' must be at least a vector, but saw "
                                 "shape: []")));
  EXPECT_THAT(Run<float>("Select", test::AsTensor<bool>({true, false}),
                         Tensor(DT_FLOAT, TensorShape({3, 2})),
                         Tensor(DT_FLOAT, TensorShape({3, 2}))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Number of batches of 'then' must match size "
                                 "of 'cond', but saw: 3 vs. 2")));
  EXPECT_THAT(Run<float>("Select", test::AsTensor<bool>({true, false}),
                         Tensor(DT_FLOAT, TensorShape({2, 2})),
                         Tensor(DT_FLOAT, TensorShape({2, 3}))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'then' and 'else' must have the same size.  "
                                 "but received: [2,2] vs. [2,3]")));
}

TEST_P(SelectOpTest, ElementwiseNeedsSameShapes) {
  EXPECT_THAT(
      Run<float>("Select", test::AsTensor<bool>({true, false}),
                 Tensor(DT_FLOAT, TensorShape({3})),
                 Tensor(DT_FLOAT, TensorShape({3}))),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          HasSubstr("Inputs to operation op of type Select must have the "
                    "same size and shape.  Input 0: [2] != input 1: [3]")));
  EXPECT_THAT(Run<float>("Select", Tensor(DT_BOOL, TensorShape({2, 2})),
                         Tensor(DT_FLOAT, TensorShape({2, 2})),
                         Tensor(DT_FLOAT, TensorShape({2, 1}))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Input 0: [2,2] != input 2: [2,1]")));
}

TEST_P(SelectOpTest, SelectV2Broadcasts) {
  const std::vector<std::vector<TensorShape>> cases = {
      {TensorShape({}), TensorShape({}), TensorShape({})},
      {TensorShape({4}), TensorShape({4}), TensorShape({4})},
      {TensorShape({}), TensorShape({3, 2}), TensorShape({3, 2})},
      {TensorShape({3, 1}), TensorShape({1, 4}), TensorShape({})},
      {TensorShape({2, 1, 5}), TensorShape({3, 1}), TensorShape({5})},
      {TensorShape({1, 2, 1, 2, 1, 2}), TensorShape({2, 1, 2, 1, 2, 1}),
       TensorShape({2, 2, 2, 2, 2, 2})},
      {TensorShape({1000, 1}), TensorShape({1, 1050}), TensorShape({1050})},
  };
  for (const auto& c : cases) {
    CheckV2<float>(c[0], c[1], c[2]);
    CheckV2<int32_t>(c[0], c[1], c[2]);
  }
  CheckV2<half>(TensorShape({2, 1}), TensorShape({3}), TensorShape({2, 3}));
  CheckV2<bool>(TensorShape({2, 1}), TensorShape({3}), TensorShape({2, 3}));
  CheckV2<int64_t>(TensorShape({2, 1}), TensorShape({3}), TensorShape({1}));
}

TEST_P(SelectOpTest, SelectV2WritesInPlaceIntoAForwardableBranch) {
  MF_ASSERT_OK(Run<float>("SelectV2", test::AsTensor<bool>({true, false}),
                          test::AsTensor<float>({1, 2}),
                          test::AsScalar<float>(0)));
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(1)));
  test::ExpectTensorEqual<float>(*GetOutput(0), test::AsTensor<float>({1, 0}));
}

TEST_P(SelectOpTest, SelectV2RejectsUnbroadcastableShapes) {
  EXPECT_THAT(Run<float>("SelectV2", Tensor(DT_BOOL, TensorShape({2})),
                         Tensor(DT_FLOAT, TensorShape({3})),
                         Tensor(DT_FLOAT, TensorShape({}))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("condition [2], then [3], and else [] must be "
                                 "broadcastable")));
}

MF_INSTANTIATE_KERNEL_TEST_DEVICES(SelectOpTest);

}  // namespace
}  // namespace minflow
