// The TensorFlow compatibility header: its aliases, Status and macros, and
// the "Create an op" guide's listings (tests/core/testdata/tf_guide_ops/,
// written as the guide shows them with only the includes changed), built
// into a custom-op library, loaded and run.
#include "minflow/framework/tf_compat.h"

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/framework/load_library.h"
#include "minflow/graph.pb.h"
#include "minflow/op_def.pb.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

static_assert(std::is_same_v<tensorflow::int8, std::int8_t>);
static_assert(std::is_same_v<tensorflow::int16, std::int16_t>);
static_assert(std::is_same_v<tensorflow::int32, std::int32_t>);
static_assert(std::is_same_v<tensorflow::int64, std::int64_t>);
static_assert(std::is_same_v<tensorflow::uint8, std::uint8_t>);
static_assert(std::is_same_v<tensorflow::uint16, std::uint16_t>);
static_assert(std::is_same_v<tensorflow::uint32, std::uint32_t>);
static_assert(std::is_same_v<tensorflow::uint64, std::uint64_t>);
static_assert(std::is_same_v<tensorflow::string, std::string>);
static_assert(tensorflow::kint32max == 2147483647);
static_assert(tensorflow::kint32min == -2147483647 - 1);
static_assert(tensorflow::kint64max == std::numeric_limits<int64_t>::max());
static_assert(tensorflow::kint64min == std::numeric_limits<int64_t>::min());
static_assert(tensorflow::kint8min == -128 && tensorflow::kint8max == 127);
static_assert(tensorflow::kint16max == 32767 && tensorflow::kuint8max == 255);
static_assert(tensorflow::kuint16max == 65535);
static_assert(tensorflow::kuint32max == 4294967295u);
static_assert(tensorflow::kuint64max == std::numeric_limits<uint64_t>::max());
// The framework's types are minflow's own, not copies.
static_assert(std::is_same_v<tensorflow::Tensor, Tensor>);
static_assert(std::is_same_v<tensorflow::OpKernel, OpKernel>);
static_assert(tensorflow::DT_FLOAT == DT_FLOAT);
static_assert(std::is_same_v<tensorflow::shape_inference::InferenceContext,
                             shape_inference::InferenceContext>);

TEST(TfCompatTest, StatusOkIsMinflowsOkStatus) {
  const tensorflow::Status ok = tensorflow::Status::OK();
  EXPECT_TRUE(ok.ok());
  const Status as_minflow = ok;
  EXPECT_EQ(as_minflow, OkStatus());
  EXPECT_EQ(tensorflow::OkStatus(), OkStatus());
}

TEST(TfCompatTest, StatusConvertsBothWaysKeepingCodeAndMessage) {
  const tensorflow::Status from_minflow = errors::NotFound("no ", 7);
  EXPECT_EQ(from_minflow.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(from_minflow.error_message(), "no 7");
  const Status back = from_minflow;
  EXPECT_THAT(back, StatusIs(absl::StatusCode::kNotFound, "no 7"));
  const tensorflow::Status made(absl::StatusCode::kAborted, "stop");
  EXPECT_THAT(Status(made), StatusIs(absl::StatusCode::kAborted, "stop"));
}

TEST(TfCompatTest, ErrorsGiveTensorFlowsStatusWithTheCode) {
  const tensorflow::Status s = tensorflow::errors::InvalidArgument("x ", 3);
  EXPECT_THAT(Status(s), StatusIs(absl::StatusCode::kInvalidArgument, "x 3"));
  EXPECT_TRUE(tensorflow::errors::IsInvalidArgument(s));
  EXPECT_TRUE(tensorflow::errors::IsUnimplemented(
      tensorflow::errors::Unimplemented("later")));
  EXPECT_THAT(Status(tensorflow::errors::AppendToMessage(s, "more")),
              StatusIs(absl::StatusCode::kInvalidArgument, "x 3\n\tmore"));
}

Status FailsWhen(bool fail) {
  return fail ? errors::Internal("boom") : OkStatus();
}

TEST(TfCompatTest, ReturnIfErrorMixesWithStatusOkInOneLambda) {
  // One deduced return type: what the guide's shape functions rely on.
  const auto lambda = [](bool fail) {
    TF_RETURN_IF_ERROR(FailsWhen(fail));
    if (!fail) return tensorflow::Status::OK();
    return tensorflow::errors::Internal("not reached");
  };
  EXPECT_TRUE(lambda(false).ok());
  EXPECT_THAT(Status(lambda(true)),
              StatusIs(absl::StatusCode::kInternal, "boom"));
}

Status MinflowFunctionUsingTfReturnIfError(bool fail, int* reached) {
  TF_RETURN_IF_ERROR(FailsWhen(fail));
  ++*reached;
  return OkStatus();
}

TEST(TfCompatTest, ReturnIfErrorWorksInFunctionsReturningMinflowStatus) {
  int reached = 0;
  EXPECT_THAT(MinflowFunctionUsingTfReturnIfError(true, &reached),
              StatusIs(absl::StatusCode::kInternal, "boom"));
  EXPECT_EQ(reached, 0);
  MF_EXPECT_OK(MinflowFunctionUsingTfReturnIfError(false, &reached));
  EXPECT_EQ(reached, 1);
}

// --- The guide's listings, as a custom-op library.

class TfGuideOpsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    OpList ops;
    MF_ASSERT_OK(LoadOpLibrary(TF_GUIDE_OPS_LIB, &ops));
    std::vector<std::string> names;
    for (const OpDef& op : ops.op()) names.push_back(op.name());
    EXPECT_THAT(
        names, UnorderedElementsAre("Guide>ZeroOut", "Guide>ZeroOutPolymorphic",
                                    "Guide>Example"));
  }

  // Runs `op` (with `attrs`, text-format attr entries) on a vector Const of
  // `dtype` holding `values` (text-format, e.g. "float_val: [1, 2]") and
  // shape `dims`.
  StatusOr<Tensor> Run(const std::string& op, const std::string& dtype,
                       const std::string& values, const std::string& dims,
                       const std::string& attrs = "") {
    const std::string graph = absl::StrCat(
        "node { name: 'c' op: 'Const' attr { key: 'dtype' value { type: ",
        dtype, " } } attr { key: 'value' value { tensor { dtype: ", dtype,
        " tensor_shape { ", dims, " } ", values, " } } } } node { name: 'z' ",
        "op: '", op, "' input: 'c' ", attrs, " }");
    MF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                        Session::Create(ParseTextProtoOrDie<GraphDef>(graph),
                                        SessionOptions()));
    std::vector<Tensor> outputs;
    MF_RETURN_IF_ERROR(session->Run({}, {"z"}, {}, &outputs));
    return outputs.at(0);
  }

  template <typename T>
  static std::vector<T> Values(const Tensor& t) {
    const auto flat = t.flat<T>();
    return std::vector<T>(flat.data(), flat.data() + flat.size());
  }
};

TEST_F(TfGuideOpsTest, ZeroOutKeepsTheFirstElement) {
  const auto out =
      Run("Guide>ZeroOut", "DT_INT32", "int_val: [5, 4, 3]", "dim { size: 3 }");
  MF_ASSERT_OK(out.status());
  EXPECT_THAT(Values<int32_t>(*out), ElementsAre(5, 0, 0));
  // Its shape function passes the input's shape on, any rank.
  const auto matrix = Run("Guide>ZeroOut", "DT_INT32", "int_val: [7, 1, 2, 3]",
                          "dim { size: 2 } dim { size: 2 }");
  MF_ASSERT_OK(matrix.status());
  EXPECT_EQ(matrix->shape().DebugString(), "[2,2]");
  EXPECT_THAT(Values<int32_t>(*matrix), ElementsAre(7, 0, 0, 0));
}

TEST_F(TfGuideOpsTest, PolymorphicZeroOutRunsForEachRegisteredType) {
  const std::string keep_1 = "attr { key: 'preserve_index' value { i: 1 } }";
  auto floats =
      Run("Guide>ZeroOutPolymorphic", "DT_FLOAT", "float_val: [1.5, -2.5, 3]",
          "dim { size: 3 }",
          absl::StrCat("attr { key: 'T' value { type: DT_FLOAT } } ", keep_1));
  MF_ASSERT_OK(floats.status());
  EXPECT_THAT(Values<float>(*floats), ElementsAre(0.0f, -2.5f, 0.0f));
  auto doubles =
      Run("Guide>ZeroOutPolymorphic", "DT_DOUBLE", "double_val: [0.25, 8]",
          "dim { size: 2 }", "attr { key: 'T' value { type: DT_DOUBLE } }");
  MF_ASSERT_OK(doubles.status());
  EXPECT_THAT(Values<double>(*doubles), ElementsAre(0.25, 0.0));
  auto int64s =
      Run("Guide>ZeroOutPolymorphic", "DT_INT64",
          "int64_val: [9000000000, 2, 3]", "dim { size: 3 }",
          absl::StrCat("attr { key: 'T' value { type: DT_INT64 } } ", keep_1));
  MF_ASSERT_OK(int64s.status());
  EXPECT_THAT(Values<int64_t>(*int64s), ElementsAre(0, 2, 0));
  auto int32s =
      Run("Guide>ZeroOutPolymorphic", "DT_INT32", "int_val: [4, 5]",
          "dim { size: 2 }",
          absl::StrCat("attr { key: 'T' value { type: DT_INT32 } } ", keep_1));
  MF_ASSERT_OK(int32s.status());
  EXPECT_THAT(Values<int32_t>(*int32s), ElementsAre(0, 5));
}

TEST_F(TfGuideOpsTest, PolymorphicZeroOutReportsItsErrors) {
  const std::string float_t = "attr { key: 'T' value { type: DT_FLOAT } } ";
  // The kernel: an index past the input.
  EXPECT_THAT(Run("Guide>ZeroOutPolymorphic", "DT_FLOAT", "float_val: [1, 2]",
                  "dim { size: 2 }",
                  float_t + "attr { key: 'preserve_index' value { i: 2 } }")
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("preserve_index out of range")));
  // The shape function: errors::InvalidArgument and TF_RETURN_IF_ERROR
  // beside Status::OK() in one lambda.
  EXPECT_THAT(Run("Guide>ZeroOutPolymorphic", "DT_FLOAT", "float_val: [1, 2]",
                  "dim { size: 2 }",
                  float_t + "attr { key: 'preserve_index' value { i: -1 } }")
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Need preserve_index >= 0, got -1")));
  EXPECT_THAT(Run("Guide>ZeroOutPolymorphic", "DT_FLOAT", "float_val: [1]",
                  "dim { size: 1 } dim { size: 1 }", float_t)
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Shape must be rank 1 but is rank 2")));
}

TEST_F(TfGuideOpsTest, ExampleDoublesThroughItsCpuFunctor) {
  auto floats =
      Run("Guide>Example", "DT_FLOAT", "float_val: [1.5, -2, 0]",
          "dim { size: 3 }", "attr { key: 'T' value { type: DT_FLOAT } }");
  MF_ASSERT_OK(floats.status());
  EXPECT_THAT(Values<float>(*floats), ElementsAre(3.0f, -4.0f, 0.0f));
  auto int32s =
      Run("Guide>Example", "DT_INT32", "int_val: [7, -8]", "dim { size: 2 }",
          "attr { key: 'T' value { type: DT_INT32 } }");
  MF_ASSERT_OK(int32s.status());
  EXPECT_THAT(Values<int32_t>(*int32s), ElementsAre(14, -16));
  // Only the types the listing registers have kernels.
  EXPECT_THAT(
      Run("Guide>Example", "DT_DOUBLE", "double_val: [1]", "dim { size: 1 }",
          "attr { key: 'T' value { type: DT_DOUBLE } }")
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("No kernel for op Guide>Example")));
}

}  // namespace
}  // namespace minflow
