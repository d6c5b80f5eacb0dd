#include "minflow/cc/framework/gradients.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/cc/framework/client_session.h"
#include "minflow/cc/framework/op_builder.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/graph/graph.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {

// Ops for the error paths: one without gradient, one whose gradient
// returns too many tensors. Never run, so no kernels.
REGISTER_OP("GradientsTestNoGrad")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("A test op with no registered gradient.");
REGISTER_OP("GradientsTestBadGrad")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("A test op whose gradient returns two tensors for one input.");

REGISTER_OP("GradientsTestTwoOutputs")
    .Input("x: float")
    .Output("a: float")
    .Output("b: float")
    .SetShapeFn([](shape_inference::InferenceContext* c) {
      c->set_output(0, c->input(0));
      c->set_output(1, c->input(0));
      return OkStatus();
    })
    .Doc("A test op with two outputs.");

namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

Status BadGrad(const Scope& scope, const Operation& op,
               const std::vector<Output>& grad_inputs,
               std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(grad_inputs[0]);
  grad_outputs->push_back(grad_inputs[0]);
  return OkStatus();
}
REGISTER_GRADIENT_OP("GradientsTestBadGrad", BadGrad);

// What the two-output op's gradient was given for its unused output.
std::string* unused_output_grad_op = new std::string;
Status TwoOutputsGrad(const Scope& scope, const Operation& op,
                      const std::vector<Output>& grad_inputs,
                      std::vector<Output>* grad_outputs) {
  *unused_output_grad_op = grad_inputs[1].node()->type_string();
  grad_outputs->push_back(grad_inputs[0]);
  return OkStatus();
}
REGISTER_GRADIENT_OP("GradientsTestTwoOutputs", TwoOutputsGrad);

Output MakeOp(const Scope& scope, const char* type, const Output& x) {
  OpBuilder b(scope, type);
  b.Input(x);
  b.Finish();
  return b.GetOutput("y");
}

class GradientsTest : public ::testing::Test {
 protected:
  // Runs `fetches` feeding x.
  std::vector<Tensor> Run(const std::vector<Output>& fetches) {
    ClientSession session(root_);
    std::vector<Tensor> out;
    Status s =
        session.Run({{x_, test::AsTensor<float>({1, 2, 3})}}, fetches, &out);
    EXPECT_TRUE(s.ok()) << s;
    return out;
  }

  Scope root_ = Scope::NewRootScope();
  Output x_ = ops::Placeholder(root_.WithOpName("x"), DT_FLOAT);
};

TEST_F(GradientsTest, SquareGivesTwoX) {
  auto y = ops::Square(root_, x_);
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y}, {x_}, &grads));
  ASSERT_EQ(grads.size(), 1u);
  test::ExpectTensorNear<float>(Run(grads)[0], test::AsTensor<float>({2, 4, 6}),
                                1e-6);
}

TEST_F(GradientsTest, GradYsScaleTheResult) {
  auto y = ops::Square(root_, x_);
  auto dy = ops::Const(root_, {1.f, 10.f, 100.f});
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y}, {x_}, {dy}, &grads));
  test::ExpectTensorNear<float>(Run(grads)[0],
                                test::AsTensor<float>({2, 40, 600}), 1e-4);
}

TEST_F(GradientsTest, FanOutIsSummed) {
  // y = x^2 - x: x feeds two ops, whose gradients meet in an AddN.
  auto y = ops::Sub(root_, ops::Square(root_, x_), ops::Identity(root_, x_));
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y}, {x_}, &grads));
  EXPECT_EQ(grads[0].node()->type_string(), "AddN");
  test::ExpectTensorNear<float>(Run(grads)[0], test::AsTensor<float>({1, 3, 5}),
                                1e-6);
}

TEST_F(GradientsTest, MultipleYsAreSummed) {
  auto y1 = ops::Square(root_, x_);
  auto y2 = ops::Neg(root_, x_);
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y1, y2}, {x_}, &grads));
  test::ExpectTensorNear<float>(Run(grads)[0], test::AsTensor<float>({1, 3, 5}),
                                1e-6);
}

TEST_F(GradientsTest, AYThatFeedsAnotherYGetsBoth) {
  auto y1 = ops::Square(root_, x_);
  auto y2 = ops::Neg(root_, y1);  // d(y1 + y2)/dx = 2x - 2x = 0
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y1, y2}, {x_}, &grads));
  test::ExpectTensorNear<float>(Run(grads)[0], test::AsTensor<float>({0, 0, 0}),
                                1e-6);
}

TEST_F(GradientsTest, XThatIsAlsoYGetsItsGradY) {
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {x_}, {x_}, &grads));
  test::ExpectTensorNear<float>(Run(grads)[0], test::AsTensor<float>({1, 1, 1}),
                                1e-6);
}

TEST_F(GradientsTest, XComputedFromAnotherXGivesTotalDerivatives) {
  auto x2 = ops::Square(root_, x_);
  auto y = ops::Neg(root_, x2);
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y}, {x_, x2}, &grads));
  std::vector<Tensor> out = Run(grads);
  test::ExpectTensorNear<float>(out[0], test::AsTensor<float>({-2, -4, -6}),
                                1e-6);
  test::ExpectTensorNear<float>(out[1], test::AsTensor<float>({-1, -1, -1}),
                                1e-6);
}

TEST_F(GradientsTest, UnusedXGetsNoGradientOrZerosWhenAsked) {
  auto unused = ops::Placeholder(root_.WithOpName("unused"), DT_FLOAT);
  auto y = ops::Square(root_, x_);
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y}, {x_, unused}, &grads));
  ASSERT_EQ(grads.size(), 2u);
  EXPECT_NE(grads[0].node(), nullptr);
  EXPECT_EQ(grads[1].node(), nullptr);
  EXPECT_EQ(grads[1], NoGradient());
  MF_ASSERT_OK(ZerosForNoGradients(root_, {x_, unused}, &grads));
  ClientSession session(root_);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({{x_, test::AsTensor<float>({1, 2, 3})},
                            {unused, test::AsTensor<float>({5, 6})}},
                           grads, &out));
  test::ExpectTensorNear<float>(out[0], test::AsTensor<float>({2, 4, 6}), 1e-6);
  test::ExpectTensorEqual<float>(out[1], test::AsTensor<float>({0, 0}));
}

TEST_F(GradientsTest, StopGradientCutsItsPath) {
  // y = x^2 + stop(x^2): only the first term is differentiated.
  auto sq = ops::Square(root_, x_);
  auto y = ops::Add(root_, sq, ops::StopGradient(root_, sq));
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y}, {x_}, &grads));
  test::ExpectTensorNear<float>(Run(grads)[0], test::AsTensor<float>({2, 4, 6}),
                                1e-6);
  // Every path cut: no gradient at all.
  auto stopped = ops::StopGradient(root_, x_);
  MF_ASSERT_OK(AddSymbolicGradients(root_, {stopped}, {x_}, &grads));
  EXPECT_EQ(grads[0].node(), nullptr);
}

TEST_F(GradientsTest, IntegerEdgesCarryNoGradient) {
  // y = x + float(int(x)): the integer round trip contributes nothing.
  auto through_int = ops::Cast(root_, ops::Cast(root_, x_, DT_INT32), DT_FLOAT);
  auto y = ops::Add(root_, x_, through_int);
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y}, {x_}, &grads));
  test::ExpectTensorNear<float>(Run(grads)[0], test::AsTensor<float>({1, 1, 1}),
                                1e-6);
  MF_ASSERT_OK(AddSymbolicGradients(root_, {through_int}, {x_}, &grads));
  EXPECT_EQ(grads[0].node(), nullptr);
  // The gradient of x*size(x): Size's integer output is not followed.
  auto scaled =
      ops::Mul(root_, x_, ops::Cast(root_, ops::Size(root_, x_), DT_FLOAT));
  MF_ASSERT_OK(AddSymbolicGradients(root_, {scaled}, {x_}, &grads));
  test::ExpectTensorNear<float>(Run(grads)[0], test::AsTensor<float>({3, 3, 3}),
                                1e-6);
}

TEST_F(GradientsTest, ZerosLikeContributesNothing) {
  auto y = ops::Add(root_, ops::Square(root_, x_), ops::ZerosLike(root_, x_));
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y}, {x_}, &grads));
  test::ExpectTensorNear<float>(Run(grads)[0], test::AsTensor<float>({2, 4, 6}),
                                1e-6);
}

TEST_F(GradientsTest, UnusedOutputOfAMultiOutputOpGetsZeros) {
  OpBuilder b(root_, "GradientsTestTwoOutputs");
  b.Input(x_);
  b.Finish();
  auto y = ops::Square(root_, b.GetOutput("a"));  // b is not used
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y}, {x_}, &grads));
  EXPECT_EQ(*unused_output_grad_op, "ZerosLike");
}

TEST_F(GradientsTest, OpWithoutGradientIsNotFoundNamingOpAndNode) {
  auto y = MakeOp(root_.WithOpName("lonely"), "GradientsTestNoGrad", x_);
  std::vector<Output> grads;
  Status s = AddSymbolicGradients(root_, {y}, {x_}, &grads);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kNotFound,
                          HasSubstr("No gradient defined for op: "
                                    "GradientsTestNoGrad")));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kNotFound,
                          HasSubstr("Node 'lonely' (op GradientsTestNoGrad)")));
  // The error is the scope's too, as for any op that fails.
  EXPECT_FALSE(root_.ok());
}

TEST_F(GradientsTest, GradientWithTheWrongNumberOfOutputsIsAnError) {
  auto y = MakeOp(root_.WithOpName("bad"), "GradientsTestBadGrad", x_);
  std::vector<Output> grads;
  EXPECT_THAT(AddSymbolicGradients(root_, {y}, {x_}, &grads),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("The gradient function of op "
                                 "GradientsTestBadGrad returned 2 gradients "
                                 "for node 'bad', but the op has 1 inputs")));
}

TEST_F(GradientsTest, LoopOnThePathIsOutOfScope) {
  // A loop's Merge made before its Enter: the loop is still what is named.
  auto merge = ops::Merge(root_.WithOpName("merge"), {x_, x_});
  auto enter = ops::Enter(root_.WithOpName("enter"), merge.output, "loop");
  auto y = ops::Square(root_, enter);
  std::vector<Output> grads;
  EXPECT_THAT(AddSymbolicGradients(root_, {y}, {x_}, &grads),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("Gradients of while loops are out of scope: "
                                 "node 'enter' (op Enter)")));
}

TEST_F(GradientsTest, ControlFlowOffThePathIsFine) {
  auto pred = ops::Const(root_, true);
  ops::Switch(root_, x_, pred);  // consumes x but does not lead to y
  auto y = ops::Square(root_, x_);
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y}, {x_}, &grads));
  test::ExpectTensorNear<float>(Run(grads)[0], test::AsTensor<float>({2, 4, 6}),
                                1e-6);
}

TEST_F(GradientsTest, RejectsBadArguments) {
  auto y = ops::Square(root_, x_);
  std::vector<Output> grads;
  EXPECT_THAT(AddSymbolicGradients(root_, {y}, {x_}, {}, &grads),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("got 1 ys but 0 grad_ys")));
  auto wrong = ops::Const(root_, {1.0, 2.0, 3.0});
  EXPECT_THAT(AddSymbolicGradients(root_, {y}, {x_}, {wrong}, &grads),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("grad_ys[0] must have the dtype of ys[0] "
                                 "(float), but got double")));
  EXPECT_THAT(AddSymbolicGradients(root_, {y}, {Output()}, &grads),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("xs[0] is a null Output")));
  Scope other = Scope::NewRootScope();
  auto elsewhere = ops::Placeholder(other.WithOpName("elsewhere"), DT_FLOAT);
  EXPECT_THAT(AddSymbolicGradients(root_, {y}, {elsewhere}, &grads),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("xs[0] ('elsewhere') belongs to another "
                                 "graph")));
}

}  // namespace
}  // namespace minflow
