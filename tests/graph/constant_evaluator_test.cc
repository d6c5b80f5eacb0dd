#include "minflow/graph/constant_evaluator.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/node_def.pb.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

NodeDef Def(const char* text) { return ParseTextProtoOrDie<NodeDef>(text); }

Tensor Ints(std::vector<int32_t> values) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<int32_t>()(i) = values[i];
  return t;
}

TEST(ConstantEvaluatorTest, RunsTheKernel) {
  ConstantEvaluator evaluator(2100);
  std::vector<Tensor> out;
  MF_ASSERT_OK(
      evaluator.Evaluate(Def("name: 'add' op: 'AddV2' input: 'a' input: 'b' "
                             "attr { key: 'T' value { type: DT_INT32 } }"),
                         {Ints({1, 2, 3}), Ints({10, 20, 30})},
                         {PartialTensorShape({3})}, 1024, &out));
  ASSERT_EQ(1u, out.size());
  EXPECT_EQ(11, out[0].flat<int32_t>()(0));
  EXPECT_EQ(33, out[0].flat<int32_t>()(2));
  EXPECT_EQ(1, evaluator.num_evaluated());
}

TEST(ConstantEvaluatorTest, RefusesUnknownOrLargeOutputsWithoutRunning) {
  ConstantEvaluator evaluator(2100);
  const NodeDef fill =
      Def("name: 'fill' op: 'Fill' input: 'd' input: 'v' "
          "attr { key: 'T' value { type: DT_INT32 } }");
  Tensor seven(DT_INT32, TensorShape({}));
  seven.scalar<int32_t>()() = 7;
  std::vector<Tensor> out;
  EXPECT_THAT(evaluator.Evaluate(fill, {Ints({1 << 30}), seven},
                                 {PartialTensorShape({1 << 30})}, 1024, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("exceed 1024 bytes")));
  EXPECT_THAT(evaluator.Evaluate(fill, {Ints({4}), seven},
                                 {PartialTensorShape({-1})}, 1024, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("no known shape")));
  EXPECT_EQ(0, evaluator.num_evaluated());
}

TEST(ConstantEvaluatorTest, TheKernelsErrorComesBack) {
  ConstantEvaluator evaluator(2100);
  std::vector<Tensor> out;
  // Reshape of 3 elements to [2]: the kernel rejects it.
  EXPECT_THAT(
      evaluator.Evaluate(Def("name: 'r' op: 'Reshape' input: 'a' input: 's' "
                             "attr { key: 'T' value { type: DT_INT32 } }"),
                         {Ints({1, 2, 3}), Ints({2})},
                         {PartialTensorShape({2})}, 1024, &out),
      StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_TRUE(out.empty());
}

TEST(ConstantEvaluatorTest, ChecksInputsAgainstTheNode) {
  ConstantEvaluator evaluator(2100);
  std::vector<Tensor> out;
  const NodeDef neg =
      Def("name: 'n' op: 'Neg' input: 'a' "
          "attr { key: 'T' value { type: DT_FLOAT } }");
  EXPECT_THAT(evaluator.Evaluate(neg, {Ints({1})}, {PartialTensorShape({1})},
                                 1024, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("input 0 is int32")));
  EXPECT_THAT(
      evaluator.Evaluate(neg, {}, {PartialTensorShape({1})}, 1024, &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1 inputs")));
}

REGISTER_OP("EvalTestStateful").Output("y: float").SetIsStateful();

class StatefulOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<float>()() = 1;
  }
};
REGISTER_KERNEL_BUILDER(Name("EvalTestStateful").Device(DEVICE_CPU),
                        StatefulOp);

TEST(ConstantEvaluatorTest, StatefulOpsAreNeverEvaluated) {
  const NodeDef stateful = Def("name: 's' op: 'EvalTestStateful'");
  EXPECT_FALSE(ConstantEvaluator::CanEvaluate(stateful));
  ConstantEvaluator evaluator(2100);
  std::vector<Tensor> out;
  EXPECT_THAT(
      evaluator.Evaluate(stateful, {}, {PartialTensorShape({})}, 1024, &out),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("stateful")));
  EXPECT_EQ(0, evaluator.num_evaluated());
  EXPECT_FALSE(ConstantEvaluator::CanEvaluate(Def("name: 'q' op: 'NoSuchOp'")));
  EXPECT_TRUE(ConstantEvaluator::CanEvaluate(
      Def("name: 'n' op: 'Neg' attr { key: 'T' value { type: DT_FLOAT } }")));
}

}  // namespace
}  // namespace minflow
