// The optimisers of minflow/cc/training/optimizer.h: each one minimises
// (w * x - y)^2 over a resource variable w in float and double, and over a
// TF1 reference variable, until w is y / x; slots and Adam's beta powers
// are made and initialised as TensorFlow 1 does; variables without a
// gradient are skipped, and none with one is an error.
#include "minflow/cc/training/optimizer.h"

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/cc/framework/client_session.h"
#include "minflow/cc/framework/scope.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/graph/graph.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

using MakeOptimizer = std::function<std::unique_ptr<Optimizer>()>;

struct OptimizerCase {
  std::string name;
  MakeOptimizer make;
  int steps;
};

// Each optimiser with settings that converge on the problem below within
// its step count (RMSProp with momentum and decay 0.9 circles the minimum
// at about lr's distance; decay 0.99 damps that).
std::vector<OptimizerCase> Cases() {
  return {
      {"GradientDescent",
       [] { return std::make_unique<GradientDescentOptimizer>(0.05); }, 100},
      {"Momentum",
       [] { return std::make_unique<MomentumOptimizer>(0.01, 0.9); }, 400},
      {"NesterovMomentum",
       [] { return std::make_unique<MomentumOptimizer>(0.01, 0.9, true); },
       400},
      {"Adam", [] { return std::make_unique<AdamOptimizer>(0.1); }, 600},
      {"NesterovAdam",
       [] {
         return std::make_unique<AdamOptimizer>(0.1, 0.9, 0.999, 1e-8, true);
       },
       600},
      {"RMSProp", [] { return std::make_unique<RMSPropOptimizer>(0.02); }, 600},
      {"RMSPropWithMomentum",
       [] { return std::make_unique<RMSPropOptimizer>(0.01, 0.99, 0.5); }, 600},
      {"Adagrad", [] { return std::make_unique<AdagradOptimizer>(0.5); }, 400},
  };
}

// w, initialised to 0 by "w_init"; loss = (w * 2 - 6)^2, minimal at w = 3.
struct Problem {
  explicit Problem(DataType dtype, bool resource = true)
      : root(Scope::NewRootScope()), dtype(dtype) {
    Tensor zero(dtype, TensorShape({}));
    Tensor two(dtype, TensorShape({}));
    Tensor six(dtype, TensorShape({}));
    if (dtype == DT_DOUBLE) {
      zero.scalar<double>()() = 0;
      two.scalar<double>()() = 2;
      six.scalar<double>()() = 6;
    } else {
      zero.scalar<float>()() = 0;
      two.scalar<float>()() = 2;
      six.scalar<float>()() = 6;
    }
    Output value;
    if (resource) {
      w = ops::VarHandleOp(root.WithOpName("w"), dtype, TensorShape({}));
      init = ops::AssignVariableOp(root.WithOpName("w_init"), w,
                                   ops::Const(root, Input::Initializer(zero)))
                 .operation;
      value = ops::ReadVariableOp(root, w, dtype);
    } else {
      w = ops::VariableV2(root.WithOpName("w"), TensorShape({}), dtype);
      init = ops::Assign(root.WithOpName("w_init"), w,
                         ops::Const(root, Input::Initializer(zero)))
                 .operation;
      value = ops::Identity(root, w);
    }
    read = value;
    loss = ops::Square(
        root, ops::Sub(root,
                       ops::Mul(root, value,
                                ops::Const(root, Input::Initializer(two))),
                       ops::Const(root, Input::Initializer(six))));
  }

  double Value(ClientSession* session, const Output& out) {
    std::vector<Tensor> fetched;
    const Status s = session->Run({out}, &fetched);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return NAN;
    return dtype == DT_DOUBLE ? fetched[0].scalar<double>()()
                              : fetched[0].scalar<float>()();
  }

  Scope root;
  DataType dtype;
  Output w;
  Output read;
  Operation init;
  Output loss;
};

// Runs w's initialiser, then the optimiser's, then `steps` train steps;
// returns w.
double Train(Problem* p, Optimizer* optimizer, const Operation& train,
             int steps) {
  ClientSession session(p->root);
  std::vector<Tensor> out;
  EXPECT_TRUE(session.Run({}, {}, {p->init}, &out).ok());
  if (!optimizer->initializers().empty()) {
    EXPECT_TRUE(session.Run({}, {}, optimizer->initializers(), &out).ok());
  }
  for (int i = 0; i < steps; ++i) {
    const Status s = session.Run({}, {}, {train}, &out);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) return NAN;
  }
  return p->Value(&session, p->read);
}

template <typename T>
class OptimizerTest : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(OptimizerTest, Types);

TYPED_TEST(OptimizerTest, EveryOptimizerFindsTheMinimumOfAResourceVariable) {
  for (const OptimizerCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    Problem p(DataTypeToEnum<TypeParam>::value);
    std::unique_ptr<Optimizer> optimizer = c.make();
    Operation train;
    MF_ASSERT_OK(optimizer->Minimize(p.root, p.loss, {p.w}, &train));
    EXPECT_NEAR(Train(&p, optimizer.get(), train, c.steps), 3.0, 1e-3);
  }
}

TEST(OptimizerTest, EveryOptimizerFindsTheMinimumOfAReferenceVariable) {
  for (const OptimizerCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    Problem p(DT_FLOAT, /*resource=*/false);
    std::unique_ptr<Optimizer> optimizer = c.make();
    Operation train;
    MF_ASSERT_OK(optimizer->Minimize(p.root, p.loss, {p.w}, &train));
    EXPECT_NEAR(Train(&p, optimizer.get(), train, c.steps), 3.0, 1e-3);
  }
}

// The first step of gradient descent, checked by hand: the gradient at
// w = 0 is 2 * (0 * 2 - 6) * 2 = -24, so w = 0 - 0.05 * -24 = 1.2.
TEST(OptimizerTest, OneGradientDescentStepIsTheHandComputedOne) {
  Problem p(DT_DOUBLE);
  GradientDescentOptimizer sgd(0.05);
  Operation train;
  MF_ASSERT_OK(sgd.Minimize(p.root, p.loss, {p.w}, &train));
  EXPECT_NEAR(Train(&p, &sgd, train, 1), 1.2, 1e-12);
}

TEST(OptimizerTest, AdamMakesItsSlotsAndBetaPowers) {
  Problem p(DT_FLOAT);
  AdamOptimizer adam(0.1);
  Operation train;
  MF_ASSERT_OK(adam.Minimize(p.root, p.loss, {p.w}, &train));
  // m and v, then beta1_power and beta2_power.
  EXPECT_EQ(adam.initializers().size(), 4u);
  EXPECT_EQ(adam.GetSlotNames(), (std::vector<std::string>{"m", "v"}));
  auto m = adam.GetSlot(p.w, "m");
  auto v = adam.GetSlot(p.w, "v");
  MF_ASSERT_OK(m.status());
  MF_ASSERT_OK(v.status());
  EXPECT_EQ(m->node()->name(), "Adam/w/m");
  EXPECT_EQ(m->node()->type_string(), "VarHandleOp");
  EXPECT_THAT(adam.GetSlot(p.w, "momentum").status(),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("Adam has no slot 'momentum'")));
  Node* beta1_power = p.root.graph()->FindNodeByName("Adam/beta1_power");
  ASSERT_NE(beta1_power, nullptr);
  const Output read_m = ops::ReadVariableOp(p.root, *m, DT_FLOAT);
  const Output read_v = ops::ReadVariableOp(p.root, *v, DT_FLOAT);
  const Output read_beta1 =
      ops::ReadVariableOp(p.root, Output(beta1_power, 0), DT_FLOAT);
  ClientSession session(p.root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({}, {}, {p.init}, &out));
  MF_ASSERT_OK(session.Run({}, {}, adam.initializers(), &out));
  EXPECT_EQ(p.Value(&session, read_m), 0);
  EXPECT_EQ(p.Value(&session, read_v), 0);
  EXPECT_FLOAT_EQ(p.Value(&session, read_beta1), 0.9f);
  MF_ASSERT_OK(session.Run({}, {}, {train}, &out));
  // One step: m = 0.1 * g and v = 0.001 * g^2 with g = -24; beta1^2.
  EXPECT_FLOAT_EQ(p.Value(&session, read_m), -2.4f);
  // (1 - 0.999 in float is 0.99998713e-3).
  EXPECT_NEAR(p.Value(&session, read_v), 0.576, 1e-5);
  EXPECT_FLOAT_EQ(p.Value(&session, read_beta1), 0.81f);
  // lr_t * m / sqrt(v) = 0.1 * sqrt(0.001) / 0.1 * 2.4 / sqrt(0.576) = 0.1.
  EXPECT_NEAR(p.Value(&session, p.read), 0.1, 1e-6);
}

TEST(OptimizerTest, SlotsStartWhereTensorFlowStartsThem) {
  struct Expected {
    std::function<std::unique_ptr<Optimizer>()> make;
    std::vector<std::pair<std::string, float>> slots;
  };
  const std::vector<Expected> cases = {
      {[] { return std::make_unique<MomentumOptimizer>(0.1, 0.9); },
       {{"momentum", 0}}},
      {[] { return std::make_unique<RMSPropOptimizer>(0.1); },
       {{"rms", 1}, {"momentum", 0}}},
      {[] { return std::make_unique<AdagradOptimizer>(0.1, 0.25); },
       {{"accumulator", 0.25f}}},
  };
  for (const Expected& e : cases) {
    Problem p(DT_FLOAT);
    std::unique_ptr<Optimizer> optimizer = e.make();
    SCOPED_TRACE(optimizer->name());
    Operation train;
    MF_ASSERT_OK(optimizer->Minimize(p.root, p.loss, {p.w}, &train));
    EXPECT_EQ(optimizer->initializers().size(), e.slots.size());
    std::vector<Output> reads;
    for (const auto& [name, value] : e.slots) {
      auto slot = optimizer->GetSlot(p.w, name);
      MF_ASSERT_OK(slot.status());
      reads.push_back(ops::ReadVariableOp(p.root, *slot, DT_FLOAT));
    }
    ClientSession session(p.root);
    std::vector<Tensor> out;
    MF_ASSERT_OK(session.Run({}, {}, optimizer->initializers(), &out));
    for (size_t i = 0; i < reads.size(); ++i) {
      EXPECT_EQ(p.Value(&session, reads[i]), e.slots[i].second)
          << e.slots[i].first;
    }
  }
}

// A slot of a variable whose shape is known only when it runs is shaped
// from the variable's value.
TEST(OptimizerTest, SlotsOfAVariableOfUnknownShapeTakeItsValueShape) {
  Scope root = Scope::NewRootScope();
  auto w = ops::VarHandleOp(root.WithOpName("w"), DT_FLOAT,
                            PartialTensorShape({-1}));
  auto init =
      ops::AssignVariableOp(root, w, ops::Const(root, {1.0f, 2.0f, 3.0f}));
  auto loss =
      ops::Sum(root, ops::Square(root, ops::ReadVariableOp(root, w, DT_FLOAT)),
               ops::Const(root, 0));
  MomentumOptimizer momentum(0.1, 0.5);
  Operation train;
  MF_ASSERT_OK(momentum.Minimize(root, loss, {w}, &train));
  auto slot = momentum.GetSlot(w, "momentum");
  MF_ASSERT_OK(slot.status());
  const Output read_slot = ops::ReadVariableOp(root, *slot, DT_FLOAT);
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({}, {}, {init.operation}, &out));
  MF_ASSERT_OK(session.Run({}, {}, momentum.initializers(), &out));
  MF_ASSERT_OK(session.Run({}, {}, {train}, &out));
  MF_ASSERT_OK(session.Run({read_slot}, &out));
  // accum = grad = 2 * w.
  ASSERT_EQ(out[0].NumElements(), 3);
  EXPECT_FLOAT_EQ(out[0].flat<float>()(0), 2);
  EXPECT_FLOAT_EQ(out[0].flat<float>()(2), 6);
}

// Two reads of one variable: the gradient is the sum over both.
TEST(OptimizerTest, GradientsOfSeveralReadsOfAVariableAreSummed) {
  Problem p(DT_DOUBLE);
  const Output again = ops::ReadVariableOp(p.root, p.w, DT_DOUBLE);
  const Output loss = ops::Mul(p.root, p.read, again);  // w^2
  GradientDescentOptimizer sgd(0.1);
  std::vector<GradAndVar> grads;
  MF_ASSERT_OK(sgd.ComputeGradients(p.root, loss, {p.w}, &grads));
  ASSERT_EQ(grads.size(), 1u);
  ASSERT_NE(grads[0].gradient.node(), nullptr);
  auto set = ops::AssignVariableOp(
      p.root, p.w, ops::Const(p.root, Input::Initializer(Tensor(3.0))));
  ClientSession session(p.root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({}, {}, {set.operation}, &out));
  EXPECT_EQ(p.Value(&session, grads[0].gradient), 6.0);
}

// An embedding table trained through ResourceGather: the loss is
// sum(gather(table, [0, 2, 0]) * [[1, 2], [3, 4], [5, 6]]), so row 0 gets
// [1 + 5, 2 + 6], row 2 gets [3, 4] (a repeated index adds up), rows 1 and
// 3 get nothing, and, with a read of the table as well (loss + sum(table)),
// every row gets 1 more. One step of gradient descent with rate 0.5.
TEST(OptimizerTest, GatheredRowsOfAResourceVariableTrain) {
  Scope root = Scope::NewRootScope();
  auto table = ops::VarHandleOp(root, DT_FLOAT, TensorShape({4, 2}));
  auto init = ops::AssignVariableOp(
      root, table,
      ops::Const(root, {{1.f, 1.f}, {2.f, 2.f}, {3.f, 3.f}, {4.f, 4.f}}));
  auto rows = ops::ResourceGather(root, table, {0, 2, 0}, DT_FLOAT);
  auto weights = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}});
  auto gathered = ops::Sum(root, ops::Mul(root, rows, weights), {0, 1});
  auto read = ops::ReadVariableOp(root, table, DT_FLOAT);
  auto loss = ops::Add(root, gathered, ops::Sum(root, read, {0, 1}));
  GradientDescentOptimizer sgd(0.5);
  Operation train;
  MF_ASSERT_OK(sgd.Minimize(root, loss, {table}, &train));
  // Made before the session: a ClientSession whose graph grew starts again.
  auto after = ops::ReadVariableOp(root, table, DT_FLOAT);
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({}, {}, {init.operation}, &out));
  MF_ASSERT_OK(session.Run({}, {}, {train}, &out));
  MF_ASSERT_OK(session.Run({after}, &out));
  const std::vector<float> expected = {1 - 0.5f * 7, 1 - 0.5f * 9, 2 - 0.5f * 1,
                                       2 - 0.5f * 1, 3 - 0.5f * 4, 3 - 0.5f * 5,
                                       4 - 0.5f * 1, 4 - 0.5f * 1};
  ASSERT_EQ(out[0].NumElements(), 8);
  for (int i = 0; i < 8; ++i) {
    EXPECT_FLOAT_EQ(out[0].flat<float>()(i), expected[i]) << "element " << i;
  }
}

// Two variables: y = a * x + b fitted to points of y = 2x + 1 with Adam.
TEST(OptimizerTest, AdamFitsALineWithTwoVariables) {
  Scope root = Scope::NewRootScope();
  auto a = ops::VarHandleOp(root.WithOpName("a"), DT_FLOAT, TensorShape({}));
  auto b = ops::VarHandleOp(root.WithOpName("b"), DT_FLOAT, TensorShape({}));
  auto init_a = ops::AssignVariableOp(root, a, ops::Const(root, 0.0f));
  auto init_b = ops::AssignVariableOp(root, b, ops::Const(root, 0.0f));
  const Output x = ops::Const(root, {-1.0f, 0.0f, 1.0f, 2.0f});
  const Output y = ops::Const(root, {-1.0f, 1.0f, 3.0f, 5.0f});
  const Output read_a = ops::ReadVariableOp(root, a, DT_FLOAT);
  const Output read_b = ops::ReadVariableOp(root, b, DT_FLOAT);
  const Output loss = ops::Mean(
      root,
      ops::Square(
          root,
          ops::Sub(root, ops::Add(root, ops::Mul(root, read_a, x), read_b), y)),
      ops::Const(root, 0));
  AdamOptimizer adam(0.05);
  Operation train;
  MF_ASSERT_OK(adam.Minimize(root, loss, {a, b}, &train));
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({}, {}, {init_a.operation, init_b.operation}, &out));
  MF_ASSERT_OK(session.Run({}, {}, adam.initializers(), &out));
  for (int i = 0; i < 1500; ++i) {
    MF_ASSERT_OK(session.Run({}, {}, {train}, &out));
  }
  MF_ASSERT_OK(session.Run({read_a, read_b, loss}, &out));
  EXPECT_NEAR(out[0].scalar<float>()(), 2.0f, 1e-3);
  EXPECT_NEAR(out[1].scalar<float>()(), 1.0f, 1e-3);
  EXPECT_LT(out[2].scalar<float>()(), 1e-5);
}

// TensorFlow skips a variable without a gradient; it gets no slots and
// keeps its value.
TEST(OptimizerTest, AVariableOffTheLossPathIsSkipped) {
  Problem p(DT_FLOAT);
  auto unused =
      ops::VarHandleOp(p.root.WithOpName("unused"), DT_FLOAT, TensorShape({}));
  auto init_unused =
      ops::AssignVariableOp(p.root, unused, ops::Const(p.root, 7.0f));
  const Output read_unused = ops::ReadVariableOp(p.root, unused, DT_FLOAT);
  AdamOptimizer adam(0.1);
  Operation train;
  MF_ASSERT_OK(adam.Minimize(p.root, p.loss, {p.w, unused}, &train));
  EXPECT_THAT(adam.GetSlot(unused, "m").status(),
              StatusIs(absl::StatusCode::kNotFound));
  ClientSession session(p.root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({}, {}, {init_unused.operation}, &out));
  EXPECT_NEAR(Train(&p, &adam, train, 600), 3.0, 1e-3);
  // Train made its own session; this one still sees its own state.
  EXPECT_EQ(p.Value(&session, read_unused), 7.0);
}

TEST(OptimizerTest, NoVariableWithAGradientIsAnError) {
  Problem p(DT_FLOAT);
  auto other =
      ops::VarHandleOp(p.root.WithOpName("other"), DT_FLOAT, TensorShape({}));
  GradientDescentOptimizer sgd(0.1);
  Operation train;
  EXPECT_THAT(
      sgd.Minimize(p.root, p.loss, {other}, &train),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("No gradients provided for any variable: [other]")));
  // A stop-gradient on the path cuts it too.
  const Output cut = ops::StopGradient(p.root, p.loss);
  EXPECT_THAT(
      sgd.Minimize(p.root, cut, {p.w}, &train),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("No gradients provided for any variable: [w]")));
}

TEST(OptimizerTest, SomethingThatIsNotAVariableIsAnError) {
  Problem p(DT_FLOAT);
  GradientDescentOptimizer sgd(0.1);
  Operation train;
  EXPECT_THAT(
      sgd.Minimize(p.root, p.loss, {p.read}, &train),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("var_list[0]"), HasSubstr("is not a variable"),
                     HasSubstr("ReadVariableOp"))));
  EXPECT_THAT(sgd.Minimize(p.root, p.loss, {}, &train),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("var_list is empty")));
}

TEST(OptimizerTest, AdagradNeedsAPositiveInitialAccumulator) {
  Problem p(DT_FLOAT);
  AdagradOptimizer adagrad(0.1, 0.0);
  Operation train;
  EXPECT_THAT(
      adagrad.Minimize(p.root, p.loss, {p.w}, &train),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("initial_accumulator_value must be positive")));
  EXPECT_TRUE(adagrad.initializers().empty());
}

}  // namespace
}  // namespace minflow
