#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/example.pb.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

std::string FloatExample(const std::string& key,
                         const std::vector<float>& values) {
  Example example;
  Feature& feature = (*example.mutable_features()->mutable_feature())[key];
  for (float v : values) feature.mutable_float_list()->add_value(v);
  return example.SerializeAsString();
}

// Dense float feature "x" of shape [1] with default `def` (empty: required),
// through ParseExample (v1) or ParseExampleV2.
class ExampleParsingOpsTest : public test::OpsTestBase,
                              public ::testing::WithParamInterface<bool> {
 protected:
  bool v2() const { return GetParam(); }

  Status Parse(const std::vector<std::string>& serialized, const Tensor& def,
               const PartialTensorShape& shape = PartialTensorShape({1})) {
    if (v2()) {
      MakeNode("ParseExampleV2")
          .Input(DT_STRING)
          .Input(DT_STRING)
          .Input(DT_STRING)
          .Input(DT_STRING)
          .Input(DT_STRING)
          .Input(DataTypeSlice({DT_FLOAT}))
          .Attr("num_sparse", 0)
          .Attr("sparse_types", DataTypeSlice({}))
          .Attr("ragged_value_types", DataTypeSlice({}))
          .Attr("ragged_split_types", DataTypeSlice({}))
          .Attr("dense_shapes", std::vector<PartialTensorShape>{shape});
    } else {
      MakeNode("ParseExample")
          .Input(DT_STRING)
          .Input(DT_STRING)
          .Input(DataTypeSlice({}))           // sparse_keys
          .Input(DataTypeSlice({DT_STRING}))  // dense_keys
          .Input(DataTypeSlice({DT_FLOAT}))
          .Attr("Nsparse", 0)
          .Attr("sparse_types", DataTypeSlice({}))
          .Attr("dense_shapes", std::vector<PartialTensorShape>{shape});
    }
    MF_RETURN_IF_ERROR(MakeOp());
    AddInputTensor(test::AsTensor<tstring>(
        std::vector<tstring>(serialized.begin(), serialized.end())));
    AddInputTensor(Tensor(DT_STRING, TensorShape({0})));  // names
    if (v2()) {
      AddInputTensor(Tensor(DT_STRING, TensorShape({0})));  // sparse_keys
      AddInputTensor(test::AsTensor<tstring>({"x"}));       // dense_keys
      AddInputTensor(Tensor(DT_STRING, TensorShape({0})));  // ragged_keys
    } else {
      AddInputTensor(Tensor("x"));
    }
    AddInputTensor(def);
    return RunOpKernel();
  }
};

TEST_P(ExampleParsingOpsTest, DenseFeatureBatchedWithDefaults) {
  MF_ASSERT_OK(Parse({FloatExample("x", {3}), FloatExample("other", {1}),
                      FloatExample("x", {-1.5f})},
                     test::AsTensor<float>({7})));
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({3, 7, -1.5f}, TensorShape({3, 1})));
}

TEST_P(ExampleParsingOpsTest, MissingRequiredFeatureIsAnError) {
  EXPECT_THAT(
      Parse({FloatExample("other", {1})}, Tensor(DT_FLOAT, TensorShape({0}))),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Feature: x (data type: float) is required "
                         "but could not be found.")));
}

TEST_P(ExampleParsingOpsTest, WrongCountOrTypeOrBytesAreErrors) {
  EXPECT_THAT(
      Parse({FloatExample("x", {1, 2})}, Tensor(DT_FLOAT, TensorShape({0}))),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("values size: 2 but output shape: [1]")));
  Example ints;
  (*ints.mutable_features()->mutable_feature())["x"]
      .mutable_int64_list()
      ->add_value(1);
  EXPECT_THAT(
      Parse({ints.SerializeAsString()}, Tensor(DT_FLOAT, TensorShape({0}))),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Data types don't match")));
  EXPECT_THAT(Parse({std::string("\xff\xff\xff", 3)},
                    Tensor(DT_FLOAT, TensorShape({0}))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Could not parse example input 0")));
}

TEST_P(ExampleParsingOpsTest, VariableLengthDenseIsUnimplemented) {
  EXPECT_THAT(
      Parse({FloatExample("x", {1})}, Tensor(DT_FLOAT, TensorShape({0})),
            PartialTensorShape({-1})),
      StatusIs(absl::StatusCode::kUnimplemented,
               HasSubstr("fixed-length dense features only")));
}

INSTANTIATE_TEST_SUITE_P(V1AndV2, ExampleParsingOpsTest, ::testing::Bool());

}  // namespace
}  // namespace minflow
