// Gradients through conditionals: TF1 Switch/Merge conds, and the
// functional If and Case (with nesting), run in a session for both
// branches and compared with the derivative worked out by hand.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "minflow/cc/framework/client_session.h"
#include "minflow/cc/framework/gradients.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/framework/function.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// square(x) = x^2, triple(x) = 3x, first(a, b) = a, second(a, b) = b,
// square_then(x) = If(true, x, square, triple) = x^2 (a conditional inside
// a branch), noisy(x) = x + RandomUniform (stateful).
constexpr char kLibrary[] = R"pb(
  function {
    signature {
      name: "square"
      input_arg { name: "x" type: DT_FLOAT }
      output_arg { name: "y" type: DT_FLOAT }
    }
    node_def {
      name: "sq"
      op: "Square"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    ret { key: "y" value: "sq:y:0" }
  }
  function {
    signature {
      name: "triple"
      input_arg { name: "x" type: DT_FLOAT }
      output_arg { name: "y" type: DT_FLOAT }
    }
    node_def {
      name: "three"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            float_val: 3
            tensor_shape {}
          }
        }
      }
    }
    node_def {
      name: "mul"
      op: "Mul"
      input: "x"
      input: "three:output:0"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    ret { key: "y" value: "mul:z:0" }
  }
  function {
    signature {
      name: "first"
      input_arg { name: "a" type: DT_FLOAT }
      input_arg { name: "b" type: DT_FLOAT }
      output_arg { name: "y" type: DT_FLOAT }
    }
    node_def {
      name: "id"
      op: "Identity"
      input: "a"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    ret { key: "y" value: "id:output:0" }
  }
  function {
    signature {
      name: "second"
      input_arg { name: "a" type: DT_FLOAT }
      input_arg { name: "b" type: DT_FLOAT }
      output_arg { name: "y" type: DT_FLOAT }
    }
    node_def {
      name: "id"
      op: "Identity"
      input: "b"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    ret { key: "y" value: "id:output:0" }
  }
  function {
    signature {
      name: "square_then"
      input_arg { name: "x" type: DT_FLOAT }
      output_arg { name: "y" type: DT_FLOAT }
    }
    node_def {
      name: "yes"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_BOOL }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_BOOL
            bool_val: true
            tensor_shape {}
          }
        }
      }
    }
    node_def {
      name: "pick"
      op: "StatelessIf"
      input: "yes:output:0"
      input: "x"
      attr {
        key: "Tcond"
        value { type: DT_BOOL }
      }
      attr {
        key: "Tin"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "Tout"
        value { list { type: DT_FLOAT } }
      }
      attr {
        key: "then_branch"
        value { func { name: "square" } }
      }
      attr {
        key: "else_branch"
        value { func { name: "triple" } }
      }
    }
    ret { key: "y" value: "pick:output:0" }
  }
  function {
    signature {
      name: "noisy"
      input_arg { name: "x" type: DT_FLOAT }
      output_arg { name: "y" type: DT_FLOAT }
      is_stateful: true
    }
    node_def {
      name: "shape"
      op: "Shape"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node_def {
      name: "noise"
      op: "RandomUniform"
      input: "shape:output:0"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node_def {
      name: "add"
      op: "AddV2"
      input: "x"
      input: "noise:output:0"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    ret { key: "y" value: "add:z:0" }
  }
)pb";

NameAttrList Fn(const std::string& name) {
  NameAttrList f;
  f.set_name(name);
  return f;
}

class ControlFlowGradTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GraphDef def;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
        kLibrary, def.mutable_library()));
    MF_ASSERT_OK(ImportGraphDef(GraphConstructorOptions(), def, root_.graph()));
  }

  // Runs `fetch` with x = {1, 2, -3} and pred (or index) = `which`.
  Tensor Run(const Output& fetch, const Output& which, const Tensor& value) {
    ClientSession session(root_);
    std::vector<Tensor> out;
    Status s =
        session.Run({{x_, test::AsTensor<float>({1, 2, -3})}, {which, value}},
                    {fetch}, &out);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? out[0] : Tensor();
  }
  Tensor RunPred(const Output& fetch, bool pred) {
    return Run(fetch, pred_, test::AsScalar<bool>(pred));
  }

  Output Gradient(const Output& y) {
    std::vector<Output> grads;
    Status s = AddSymbolicGradients(root_, {y}, {x_}, &grads);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? grads[0] : Output();
  }

  Scope root_ = Scope::NewRootScope();
  Output x_ = ops::Placeholder(root_.WithOpName("x"), DT_FLOAT);
  Output pred_ = ops::Placeholder(root_.WithOpName("pred"), DT_BOOL);
};

TEST_F(ControlFlowGradTest, SwitchMergeCondTakesTheLiveBranch) {
  // y = pred ? x^2 : 3x.
  auto sw = ops::Switch(root_, x_, pred_);
  auto t = ops::Square(root_, sw.output_true);
  auto f = ops::Mul(root_, sw.output_false, ops::Const(root_, 3.f));
  auto y = ops::Merge(root_, {f, t}).output;
  const Output dx = Gradient(y);
  test::ExpectTensorNear<float>(RunPred(dx, true),
                                test::AsTensor<float>({2, 4, -6}), 1e-6);
  test::ExpectTensorNear<float>(RunPred(dx, false),
                                test::AsTensor<float>({3, 3, 3}), 1e-6);
}

TEST_F(ControlFlowGradTest, ABranchThatIgnoresItsInputGivesZeros) {
  // y = pred ? x^2 : 5 (the constant made in the branch, as tf.cond
  // makes it: it waits on the branch's pivot).
  auto sw = ops::Switch(root_, x_, pred_);
  auto t = ops::Square(root_, sw.output_true);
  auto pivot = ops::Identity(root_, sw.output_false);
  auto f = ops::Const(root_.WithControlDependencies(pivot), {5.f, 5.f, 5.f});
  auto y = ops::Merge(root_, {f, t}).output;
  const Output dx = Gradient(y);
  test::ExpectTensorNear<float>(RunPred(dx, true),
                                test::AsTensor<float>({2, 4, -6}), 1e-6);
  test::ExpectTensorNear<float>(RunPred(dx, false),
                                test::AsTensor<float>({0, 0, 0}), 1e-6);
}

TEST_F(ControlFlowGradTest, CondAndOutsideUseAreSummed) {
  // y = (pred ? x^2 : 3x) + x.
  auto sw = ops::Switch(root_, x_, pred_);
  auto t = ops::Square(root_, sw.output_true);
  auto f = ops::Mul(root_, sw.output_false, ops::Const(root_, 3.f));
  auto y = ops::AddV2(root_, ops::Merge(root_, {f, t}).output, x_);
  const Output dx = Gradient(y);
  test::ExpectTensorNear<float>(RunPred(dx, true),
                                test::AsTensor<float>({3, 5, -5}), 1e-6);
  test::ExpectTensorNear<float>(RunPred(dx, false),
                                test::AsTensor<float>({4, 4, 4}), 1e-6);
}

TEST_F(ControlFlowGradTest, NestedSwitchMergeConds) {
  // y = pred ? (pred ? x^2 : 0) : 3x: the inner cond sits in the outer
  // true branch.
  auto outer = ops::Switch(root_, x_, pred_);
  auto inner_pred = ops::Switch(root_, pred_, pred_).output_true;
  auto inner = ops::Switch(root_, outer.output_true, inner_pred);
  auto sq = ops::Square(root_, inner.output_true);
  auto zero = ops::ZerosLike(root_, inner.output_false);
  auto inner_y = ops::Merge(root_, {zero, sq}).output;
  auto f = ops::Mul(root_, outer.output_false, ops::Const(root_, 3.f));
  auto y = ops::Merge(root_, {f, inner_y}).output;
  const Output dx = Gradient(y);
  test::ExpectTensorNear<float>(RunPred(dx, true),
                                test::AsTensor<float>({2, 4, -6}), 1e-6);
  test::ExpectTensorNear<float>(RunPred(dx, false),
                                test::AsTensor<float>({3, 3, 3}), 1e-6);
}

TEST_F(ControlFlowGradTest, IfDifferentiatesBothBranches) {
  for (const bool stateless : {false, true}) {
    SCOPED_TRACE(stateless ? "StatelessIf" : "If");
    Output y = stateless ? ops::StatelessIf(root_, pred_, {x_}, {DT_FLOAT},
                                            Fn("square"), Fn("triple"))
                               .output[0]
                         : ops::If(root_, pred_, {x_}, {DT_FLOAT}, Fn("square"),
                                   Fn("triple"))
                               .output[0];
    const Output dx = Gradient(y);
    EXPECT_EQ(dx.node()->type_string(), stateless ? "StatelessIf" : "If");
    test::ExpectTensorNear<float>(RunPred(dx, true),
                                  test::AsTensor<float>({2, 4, -6}), 1e-6);
    test::ExpectTensorNear<float>(RunPred(dx, false),
                                  test::AsTensor<float>({3, 3, 3}), 1e-6);
  }
  // The gradient branches are in the library, under fresh names.
  const FunctionLibraryDefinition* library = root_.graph()->flib_def();
  EXPECT_NE(library->Find("square_grad"), nullptr);
  EXPECT_NE(library->Find("square_grad_1"), nullptr);
  EXPECT_NE(library->Find("triple_grad"), nullptr);
}

TEST_F(ControlFlowGradTest, AnInputNoBranchUsesHasNoGradient) {
  auto b = ops::Const(root_, {4.f, 4.f, 4.f});
  auto y = ops::If(root_, pred_, {x_, b}, {DT_FLOAT}, Fn("first"), Fn("first"))
               .output[0];
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y}, {x_, b}, &grads));
  EXPECT_EQ(grads[1].node(), nullptr);
  test::ExpectTensorNear<float>(RunPred(grads[0], false),
                                test::AsTensor<float>({1, 1, 1}), 1e-6);
}

TEST_F(ControlFlowGradTest, AnInputOneBranchIgnoresGetsZerosThere) {
  // then: first(x, b) = x; else: second(x, b) = b.
  auto b = ops::Placeholder(root_.WithOpName("b"), DT_FLOAT);
  auto y = ops::If(root_, pred_, {x_, b}, {DT_FLOAT}, Fn("first"), Fn("second"))
               .output[0];
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root_, {y}, {x_, b}, &grads));
  for (const bool pred : {true, false}) {
    SCOPED_TRACE(pred);
    ClientSession session(root_);
    std::vector<Tensor> out;
    MF_ASSERT_OK(session.Run({{x_, test::AsTensor<float>({1, 2})},
                              {b, test::AsTensor<float>({5, 6})},
                              {pred_, test::AsScalar<bool>(pred)}},
                             grads, &out));
    const float dx = pred ? 1 : 0;
    test::ExpectTensorNear<float>(out[0], test::AsTensor<float>({dx, dx}),
                                  1e-6);
    test::ExpectTensorNear<float>(
        out[1], test::AsTensor<float>({1 - dx, 1 - dx}), 1e-6);
  }
}

TEST_F(ControlFlowGradTest, NestedIfInABranch) {
  auto y =
      ops::If(root_, pred_, {x_}, {DT_FLOAT}, Fn("square_then"), Fn("triple"))
          .output[0];
  const Output dx = Gradient(y);
  test::ExpectTensorNear<float>(RunPred(dx, true),
                                test::AsTensor<float>({2, 4, -6}), 1e-6);
  test::ExpectTensorNear<float>(RunPred(dx, false),
                                test::AsTensor<float>({3, 3, 3}), 1e-6);
}

TEST_F(ControlFlowGradTest, CaseDifferentiatesEveryBranch) {
  auto index = ops::Placeholder(root_.WithOpName("index"), DT_INT32);
  auto y = ops::Case(root_, index, {x_}, {DT_FLOAT},
                     {Fn("square"), Fn("triple"), Fn("square_then")})
               .output[0];
  const Output dx = Gradient(y);
  EXPECT_EQ(dx.node()->type_string(), "Case");
  const std::vector<std::vector<float>> want = {
      {2, 4, -6}, {3, 3, 3}, {2, 4, -6}};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    test::ExpectTensorNear<float>(Run(dx, index, test::AsScalar<int32_t>(i)),
                                  test::AsTensor<float>(want[i]), 1e-6);
  }
}

TEST_F(ControlFlowGradTest, AStatefulBranchIsRefusedNamingTheNode) {
  auto y = ops::If(root_, pred_, {x_}, {DT_FLOAT}, Fn("noisy"), Fn("triple"))
               .output[0];
  std::vector<Output> grads;
  EXPECT_THAT(AddSymbolicGradients(root_, {y}, {x_}, &grads),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("stateful node 'noise' (op RandomUniform)")));
}

}  // namespace
}  // namespace minflow
