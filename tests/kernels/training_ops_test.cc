// The optimiser kernels (src/kernels/training_ops.cc) through a Session, on
// TF1 reference variables (Apply*) and resource variables (ResourceApply*),
// in float and double: one or two steps against steps computed by hand from
// TensorFlow's formulas, and every error the kernels give.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::minflow::testing::Tf1GraphBuilder;
using ::testing::AllOf;
using ::testing::HasSubstr;

enum class Form { kRef, kResource };

const char* FormName(Form form) {
  return form == Form::kRef ? "ref" : "resource";
}

template <typename T>
Tensor Values(std::vector<double> values) {
  Tensor t(DataTypeToEnum<T>::value,
           TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) {
    t.flat<T>()(i) = static_cast<T>(values[i]);
  }
  return t;
}

template <typename T>
Tensor Scalar(double value) {
  return Tensor(static_cast<T>(value));
}

// One update op over `num_vars` variables ("var0" is the variable, the
// rest its slots), each initialised by "init<i>" from the fed
// "init_value<i>", and its other inputs fed as "in<j>". "update" is the
// op, "read<i>" reads variable i. Variables have unknown shapes unless
// `shapes` gives them, so that the kernel's own checks are reached.
struct UpdateGraph {
  UpdateGraph(const std::string& op, Form form, DataType dtype, int num_vars,
              int num_others,
              const std::vector<PartialTensorShape>& shapes = {})
      : form(form), num_vars(num_vars) {
    Tf1GraphBuilder b;
    std::vector<std::string> inputs;
    for (int i = 0; i < num_vars; ++i) {
      const std::string var = absl::StrCat("var", i);
      const std::string init = absl::StrCat("init_value", i);
      const PartialTensorShape shape =
          shapes.empty() ? PartialTensorShape() : shapes[i];
      NodeDef* v =
          b.Node(var, form == Form::kRef ? "VariableV2" : "VarHandleOp");
      AddNodeAttr("dtype", dtype, v);
      AddNodeAttr("shape", shape, v);
      b.Placeholder(init, dtype);
      if (form == Form::kRef) {
        NodeDef* a = b.Node(absl::StrCat("init", i), "Assign", {var, init});
        AddNodeAttr("T", dtype, a);
        AddNodeAttr("validate_shape", false, a);
        b.Add(absl::StrCat("read", i), "Identity", {var}, dtype);
      } else {
        AddNodeAttr(
            "dtype", dtype,
            b.Node(absl::StrCat("init", i), "AssignVariableOp", {var, init}));
        AddNodeAttr("dtype", dtype,
                    b.Node(absl::StrCat("read", i), "ReadVariableOp", {var}));
      }
      inputs.push_back(var);
    }
    for (int j = 0; j < num_others; ++j) {
      inputs.push_back(b.Placeholder(absl::StrCat("in", j), dtype));
    }
    update =
        b.Node("update", form == Form::kRef ? op : "Resource" + op, inputs);
    AddNodeAttr("T", dtype, update);
    graph = b.graph();
    update = graph.mutable_node(graph.node_size() - 1);
  }

  // Sets a bool attr of the update op (use_nesterov, update_slots).
  UpdateGraph& Attr(const std::string& name, bool value) {
    AddNodeAttr(name, value, update);
    return *this;
  }

  Status Start() {
    auto s = Session::Create(graph, SessionOptions());
    if (!s.ok()) return s.status();
    session = std::move(s).value();
    return OkStatus();
  }

  // Initialises the first values.size() variables.
  Status Init(const std::vector<Tensor>& values) {
    std::vector<std::pair<std::string, Tensor>> feeds;
    std::vector<std::string> targets;
    for (size_t i = 0; i < values.size(); ++i) {
      feeds.emplace_back(absl::StrCat("init_value", i), values[i]);
      targets.push_back(absl::StrCat("init", i));
    }
    std::vector<Tensor> out;
    return session->Run(feeds, {}, targets, &out);
  }

  Status Step(const std::vector<Tensor>& others) {
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (size_t j = 0; j < others.size(); ++j) {
      feeds.emplace_back(absl::StrCat("in", j), others[j]);
    }
    std::vector<Tensor> out;
    return session->Run(feeds, {}, {"update"}, &out);
  }

  Tensor Read(int i) {
    std::vector<Tensor> out;
    const Status s = session->Run({}, {absl::StrCat("read", i)}, {}, &out);
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? out[0] : Tensor();
  }

  Form form;
  int num_vars;
  GraphDef graph;
  NodeDef* update = nullptr;
  std::unique_ptr<Session> session;
};

template <typename T>
void ExpectValues(const Tensor& t, std::vector<double> expected,
                  const std::string& what) {
  ASSERT_EQ(t.dtype(), DataTypeToEnum<T>::value) << what;
  ASSERT_EQ(t.NumElements(), static_cast<int64_t>(expected.size())) << what;
  const double tolerance = sizeof(T) == 4 ? 2e-6 : 1e-12;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(static_cast<double>(t.flat<T>()(i)), expected[i],
                tolerance * std::max(1.0, std::abs(expected[i])))
        << what << "[" << i << "]";
  }
}

template <typename T>
class TrainingOpsTest : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TrainingOpsTest, Types);

TYPED_TEST(TrainingOpsTest, GradientDescentSubtractsAlphaTimesDelta) {
  using T = TypeParam;
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyGradientDescent", form, DataTypeToEnum<T>::value, 1, 2);
    MF_ASSERT_OK(g.Start());
    MF_ASSERT_OK(g.Init({Values<T>({1, 2, 3})}));
    MF_ASSERT_OK(g.Step({Scalar<T>(0.5), Values<T>({0.2, -0.4, 1})}));
    // var - 0.5 * delta.
    ExpectValues<T>(g.Read(0), {0.9, 2.2, 2.5}, "var");
  }
}

TYPED_TEST(TrainingOpsTest, MomentumTwoSteps) {
  using T = TypeParam;
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyMomentum", form, DataTypeToEnum<T>::value, 2, 3);
    MF_ASSERT_OK(g.Start());
    MF_ASSERT_OK(g.Init({Values<T>({1, 2}), Values<T>({0.1, 0.2})}));
    // lr, grad, momentum.
    const std::vector<Tensor> in = {Scalar<T>(0.1), Values<T>({1, -1}),
                                    Scalar<T>(0.9)};
    MF_ASSERT_OK(g.Step(in));
    // accum = 0.9 * [0.1, 0.2] + [1, -1]; var -= 0.1 * accum.
    ExpectValues<T>(g.Read(1), {1.09, -0.82}, "accum");
    ExpectValues<T>(g.Read(0), {0.891, 2.082}, "var");
    MF_ASSERT_OK(g.Step(in));
    // accum = 0.9 * [1.09, -0.82] + [1, -1].
    ExpectValues<T>(g.Read(1), {1.981, -1.738}, "accum");
    ExpectValues<T>(g.Read(0), {0.6929, 2.2558}, "var");
  }
}

TYPED_TEST(TrainingOpsTest, NesterovMomentumLooksAhead) {
  using T = TypeParam;
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyMomentum", form, DataTypeToEnum<T>::value, 2, 3);
    g.Attr("use_nesterov", true);
    MF_ASSERT_OK(g.Start());
    MF_ASSERT_OK(g.Init({Values<T>({1, 2}), Values<T>({0.1, 0.2})}));
    MF_ASSERT_OK(g.Step({Scalar<T>(0.1), Values<T>({1, -1}), Scalar<T>(0.9)}));
    // accum = [1.09, -0.82]; var -= 0.1 * grad + 0.1 * 0.9 * accum.
    ExpectValues<T>(g.Read(1), {1.09, -0.82}, "accum");
    ExpectValues<T>(g.Read(0), {0.8019, 2.1738}, "var");
  }
}

TYPED_TEST(TrainingOpsTest, AdamTwoSteps) {
  using T = TypeParam;
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyAdam", form, DataTypeToEnum<T>::value, 3, 7);
    MF_ASSERT_OK(g.Start());
    MF_ASSERT_OK(
        g.Init({Values<T>({1, 2}), Values<T>({0, 0}), Values<T>({0, 0})}));
    const Tensor grad = Values<T>({0.5, -1});
    // beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad.
    MF_ASSERT_OK(
        g.Step({Scalar<T>(0.9), Scalar<T>(0.999), Scalar<T>(0.1),
                Scalar<T>(0.9), Scalar<T>(0.999), Scalar<T>(1e-8), grad}));
    // m = 0.1 * grad, v = 0.001 * grad^2; lr_t = 0.1 * sqrt(0.001) / 0.1,
    // so the step is lr_t * m / sqrt(v) = 0.1 * sign(grad) (less epsilon's
    // share: 0.1 * 1e-8 / sqrt(v)).
    ExpectValues<T>(g.Read(1), {0.05, -0.1}, "m");
    ExpectValues<T>(g.Read(2), {0.00025, 0.001}, "v");
    ExpectValues<T>(g.Read(0), {0.9000000632455132, 2.0999999683772335}, "var");
    // Step 2: beta powers 0.9^2 and 0.999^2.
    MF_ASSERT_OK(
        g.Step({Scalar<T>(0.81), Scalar<T>(0.998001), Scalar<T>(0.1),
                Scalar<T>(0.9), Scalar<T>(0.999), Scalar<T>(1e-8), grad}));
    // m = 0.05 + 0.1 * (0.5 - 0.05), v = 0.00025 + 0.001 * (0.25 - 0.00025);
    // lr_t = 0.1 * sqrt(0.001999) / 0.19.
    ExpectValues<T>(g.Read(1), {0.095, -0.19}, "m");
    ExpectValues<T>(g.Read(2), {0.00049975, 0.001999}, "v");
    ExpectValues<T>(g.Read(0), {0.800000107978038, 2.1999999460109656}, "var");
  }
}

TYPED_TEST(TrainingOpsTest, NesterovAdamUsesTheNextMoment) {
  using T = TypeParam;
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyAdam", form, DataTypeToEnum<T>::value, 3, 7);
    g.Attr("use_nesterov", true);
    MF_ASSERT_OK(g.Start());
    MF_ASSERT_OK(
        g.Init({Values<T>({1, 2}), Values<T>({0, 0}), Values<T>({0, 0})}));
    MF_ASSERT_OK(g.Step({Scalar<T>(0.9), Scalar<T>(0.999), Scalar<T>(0.1),
                         Scalar<T>(0.9), Scalar<T>(0.999), Scalar<T>(1e-8),
                         Values<T>({0.5, -1})}));
    // The step uses 0.9 * m + 0.1 * grad = 0.19 * grad instead of
    // m = 0.1 * grad: 1.9 times the plain step.
    ExpectValues<T>(g.Read(0), {0.8100001201664752, 2.1899999399167434}, "var");
  }
}

TYPED_TEST(TrainingOpsTest, RMSPropTwoSteps) {
  using T = TypeParam;
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyRMSProp", form, DataTypeToEnum<T>::value, 3, 5);
    MF_ASSERT_OK(g.Start());
    MF_ASSERT_OK(
        g.Init({Values<T>({1, 2}), Values<T>({1, 1}), Values<T>({0, 0})}));
    // lr, rho, momentum, epsilon, grad.
    const std::vector<Tensor> in = {Scalar<T>(0.01), Scalar<T>(0.9),
                                    Scalar<T>(0.5), Scalar<T>(1e-10),
                                    Values<T>({0.5, -1})};
    MF_ASSERT_OK(g.Step(in));
    // ms = 1 + 0.1 * (grad^2 - 1); mom = 0.01 * grad / sqrt(ms).
    ExpectValues<T>(g.Read(1), {0.925, 1.0}, "ms");
    ExpectValues<T>(g.Read(2), {0.00519875244881935, -0.0099999999995}, "mom");
    ExpectValues<T>(g.Read(0), {0.9948012475511806, 2.0099999999995}, "var");
    MF_ASSERT_OK(g.Step(in));
    // ms = 0.925 + 0.1 * (0.25 - 0.925); mom = 0.5 * mom + 0.01 * grad /
    // sqrt(ms).
    ExpectValues<T>(g.Read(1), {0.8575, 1.0}, "ms");
    ExpectValues<T>(g.Read(2), {0.007998868695655225, -0.014999999999250002},
                    "mom");
    ExpectValues<T>(g.Read(0), {0.9868023788555254, 2.0249999999987502}, "var");
  }
}

TYPED_TEST(TrainingOpsTest, AdagradTwoSteps) {
  using T = TypeParam;
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyAdagrad", form, DataTypeToEnum<T>::value, 2, 2);
    MF_ASSERT_OK(g.Start());
    MF_ASSERT_OK(g.Init({Values<T>({1, 2}), Values<T>({0.1, 0.1})}));
    const std::vector<Tensor> in = {Scalar<T>(0.1), Values<T>({0.5, -1})};
    MF_ASSERT_OK(g.Step(in));
    // accum = 0.1 + grad^2; var -= 0.1 * grad / sqrt(accum).
    ExpectValues<T>(g.Read(1), {0.35, 1.1}, "accum");
    ExpectValues<T>(g.Read(0), {0.9154845745271484, 2.0953462589245593}, "var");
    MF_ASSERT_OK(g.Step(in));
    ExpectValues<T>(g.Read(1), {0.6, 2.1}, "accum");
    ExpectValues<T>(g.Read(0), {0.8509348520903581, 2.1643528148587947}, "var");
  }
}

TYPED_TEST(TrainingOpsTest, AdagradWithoutUpdateSlotsKeepsTheAccumulator) {
  using T = TypeParam;
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyAdagrad", form, DataTypeToEnum<T>::value, 2, 2);
    g.Attr("update_slots", false);
    MF_ASSERT_OK(g.Start());
    MF_ASSERT_OK(g.Init({Values<T>({1, 2}), Values<T>({0.25, 4})}));
    MF_ASSERT_OK(g.Step({Scalar<T>(0.1), Values<T>({0.5, -1})}));
    // var -= 0.1 * grad / sqrt([0.25, 4]).
    ExpectValues<T>(g.Read(1), {0.25, 4}, "accum");
    ExpectValues<T>(g.Read(0), {0.9, 2.05}, "var");
  }
}

// The ref form's output is the variable's reference: fetching it reads the
// updated value.
TEST(TrainingOpsTest, RefFormOutputsTheUpdatedVariable) {
  UpdateGraph g("ApplyGradientDescent", Form::kRef, DT_FLOAT, 1, 2);
  MF_ASSERT_OK(g.Start());
  MF_ASSERT_OK(g.Init({Values<float>({4})}));
  std::vector<Tensor> out;
  MF_ASSERT_OK(
      g.session->Run({{"in0", Scalar<float>(1)}, {"in1", Values<float>({1.5})}},
                     {"update"}, {}, &out));
  ExpectValues<float>(out[0], {2.5}, "update");
}

// A value read before an update keeps its value: the update writes into a
// copy while the reader holds the variable's buffer.
TEST(TrainingOpsTest, AValueReadBeforeAnUpdateDoesNotChange) {
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyMomentum", form, DT_FLOAT, 2, 3);
    MF_ASSERT_OK(g.Start());
    MF_ASSERT_OK(g.Init({Values<float>({1, 2}), Values<float>({0, 0})}));
    const Tensor var_before = g.Read(0);
    const Tensor accum_before = g.Read(1);
    MF_ASSERT_OK(
        g.Step({Scalar<float>(1), Values<float>({1, 1}), Scalar<float>(0.5)}));
    ExpectValues<float>(var_before, {1, 2}, "var read before");
    ExpectValues<float>(accum_before, {0, 0}, "accum read before");
    ExpectValues<float>(g.Read(0), {0, 1}, "var");
  }
}

// One variable given as both var and accum is locked once, not twice.
TEST(TrainingOpsTest, OneVariableAsVarAndSlotDoesNotDeadlock) {
  Tf1GraphBuilder b;
  NodeDef* v = b.Node("v", "VarHandleOp");
  AddNodeAttr("dtype", DT_FLOAT, v);
  AddNodeAttr("shape", PartialTensorShape({1}), v);
  b.Const("value", Values<float>({2}));
  AddNodeAttr("dtype", DT_FLOAT,
              b.Node("init", "AssignVariableOp", {"v", "value"}));
  b.Const("lr", Scalar<float>(0.5));
  b.Const("grad", Values<float>({1}));
  b.Const("momentum", Scalar<float>(1));
  AddNodeAttr("T", DT_FLOAT,
              b.Node("update", "ResourceApplyMomentum",
                     {"v", "v", "lr", "grad", "momentum"}));
  AddNodeAttr("dtype", DT_FLOAT, b.Node("read", "ReadVariableOp", {"v"}));
  auto session = Session::Create(b.graph(), SessionOptions());
  MF_ASSERT_OK(session.status());
  std::vector<Tensor> out;
  MF_ASSERT_OK((*session)->Run({}, {}, {"init"}, &out));
  MF_ASSERT_OK((*session)->Run({}, {}, {"update"}, &out));
  MF_ASSERT_OK((*session)->Run({}, {"read"}, {}, &out));
  // accum = 2 * 1 + 1 = 3 (the same buffer), then var = 3 - 0.5 * 3.
  ExpectValues<float>(out[0], {1.5}, "v");
}

// Runs each target in its own thread, `runs` times.
void RunConcurrently(Session* session, std::vector<std::string> targets,
                     int runs) {
  std::vector<std::thread> threads;
  for (const std::string& target : targets) {
    threads.emplace_back([session, target, runs] {
      std::vector<Tensor> unused;
      for (int i = 0; i < runs; ++i) {
        const Status s = session->Run({}, {}, {target}, &unused);
        ASSERT_TRUE(s.ok()) << s;
      }
    });
  }
  for (std::thread& t : threads) t.join();
}

// Updates from concurrent steps: each holds all its variables' locks,
// taken in one order, so no update is lost, and two updates naming the
// variables in opposite orders do not deadlock.
TEST(TrainingOpsTest, ConcurrentUpdatesAreNotLostAndDoNotDeadlock) {
  Tf1GraphBuilder b;
  b.Const("zero", Values<float>({0}));
  for (const char* name : {"a", "b"}) {
    NodeDef* v = b.Node(name, "VarHandleOp");
    AddNodeAttr("dtype", DT_FLOAT, v);
    AddNodeAttr("shape", PartialTensorShape({1}), v);
    AddNodeAttr("dtype", DT_FLOAT,
                b.Node(absl::StrCat("init_", name), "AssignVariableOp",
                       {name, "zero"}));
    AddNodeAttr("dtype", DT_FLOAT,
                b.Node(absl::StrCat("read_", name), "ReadVariableOp", {name}));
  }
  b.Const("one", Scalar<float>(1));
  b.Const("minus_one", Values<float>({-1}));
  b.Const("zero_momentum", Scalar<float>(0));
  // a -= 1 * -1.
  AddNodeAttr("T", DT_FLOAT,
              b.Node("increment", "ResourceApplyGradientDescent",
                     {"a", "one", "minus_one"}));
  // Momentum over (a, b) and over (b, a).
  AddNodeAttr("T", DT_FLOAT,
              b.Node("ab", "ResourceApplyMomentum",
                     {"a", "b", "one", "minus_one", "zero_momentum"}));
  AddNodeAttr("T", DT_FLOAT,
              b.Node("ba", "ResourceApplyMomentum",
                     {"b", "a", "one", "minus_one", "zero_momentum"}));
  auto session = Session::Create(b.graph(), SessionOptions());
  MF_ASSERT_OK(session.status());
  std::vector<Tensor> out;
  MF_ASSERT_OK((*session)->Run({}, {}, {"init_a", "init_b"}, &out));
  constexpr int kRuns = 200;
  RunConcurrently(session->get(), {"increment", "increment"}, kRuns);
  MF_ASSERT_OK((*session)->Run({}, {"read_a"}, {}, &out));
  ExpectValues<float>(out[0], {2 * kRuns}, "a");
  // Finishing is the check: a deadlock would hang here (ctest's timeout).
  RunConcurrently(session->get(), {"ab", "ba"}, kRuns);
}

TEST(TrainingOpsTest, AHyperparameterThatIsNotAScalarIsInvalid) {
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyAdam", form, DT_FLOAT, 3, 7);
    MF_ASSERT_OK(g.Start());
    MF_ASSERT_OK(g.Init(
        {Values<float>({1, 2}), Values<float>({0, 0}), Values<float>({0, 0})}));
    EXPECT_THAT(
        g.Step({Scalar<float>(0.9), Scalar<float>(0.999), Scalar<float>(0.1),
                Values<float>({0.9, 0.9}), Scalar<float>(0.999),
                Scalar<float>(1e-8), Values<float>({1, 1})}),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 AllOf(HasSubstr("beta1 is not a scalar: [2]"),
                       HasSubstr("{{node update}}"), HasSubstr("ApplyAdam"))));
  }
}

TEST(TrainingOpsTest, AGradientOfAnotherShapeIsInvalid) {
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyGradientDescent", form, DT_DOUBLE, 1, 2);
    MF_ASSERT_OK(g.Start());
    MF_ASSERT_OK(g.Init({Values<double>({1, 2})}));
    EXPECT_THAT(g.Step({Scalar<double>(0.1), Values<double>({1, 2, 3})}),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("var and delta do not have the same "
                                         "shape[2] [3]"),
                               HasSubstr("ApplyGradientDescent"))));
    // Nothing was written.
    ExpectValues<double>(g.Read(0), {1, 2}, "var");
  }
}

TEST(TrainingOpsTest, ASlotOfAnotherShapeIsInvalid) {
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyRMSProp", form, DT_FLOAT, 3, 5);
    MF_ASSERT_OK(g.Start());
    MF_ASSERT_OK(g.Init({Values<float>({1, 2}), Values<float>({1, 1}),
                         Values<float>({0, 0, 0})}));
    EXPECT_THAT(
        g.Step({Scalar<float>(0.01), Scalar<float>(0.9), Scalar<float>(0.5),
                Scalar<float>(1e-10), Values<float>({1, 1})}),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 AllOf(HasSubstr("var and mom do not have the same "
                                 "shape[2] [3]"),
                       HasSubstr("ApplyRMSProp"))));
  }
}

TEST(TrainingOpsTest, AnUninitializedSlotIsAFailedPreconditionNamingIt) {
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyAdagrad", form, DT_FLOAT, 2, 2);
    MF_ASSERT_OK(g.Start());
    MF_ASSERT_OK(g.Init({Values<float>({1, 2})}));  // accum left out
    EXPECT_THAT(
        g.Step({Scalar<float>(0.1), Values<float>({1, 1})}),
        StatusIs(absl::StatusCode::kFailedPrecondition,
                 AllOf(HasSubstr("Attempting to use uninitialized variables: "
                                 "accum"),
                       HasSubstr("var1"), HasSubstr("ApplyAdagrad"))));
  }
}

// With known shapes, a mismatch is found when the session is made, by the
// shape function reading the variables' shapes through their handles.
TEST(TrainingOpsTest, KnownShapesAreCheckedWhenTheGraphIsBuilt) {
  for (Form form : {Form::kRef, Form::kResource}) {
    SCOPED_TRACE(FormName(form));
    UpdateGraph g("ApplyMomentum", form, DT_FLOAT, 2, 3,
                  {PartialTensorShape({2}), PartialTensorShape({3})});
    EXPECT_THAT(g.Start(), StatusIs(absl::StatusCode::kInvalidArgument,
                                    HasSubstr("node update")));
  }
}

TEST(TrainingOpsTest, AVariableOfAnotherDtypeIsInvalid) {
  Tf1GraphBuilder b;
  NodeDef* v = b.Node("v", "VarHandleOp");
  AddNodeAttr("dtype", DT_FLOAT, v);
  AddNodeAttr("shape", PartialTensorShape({1}), v);
  b.Const("alpha", Scalar<double>(1));
  b.Const("delta", Values<double>({1}));
  AddNodeAttr("T", DT_DOUBLE,
              b.Node("update", "ResourceApplyGradientDescent",
                     {"v", "alpha", "delta"}));
  EXPECT_THAT(Session::Create(b.graph(), SessionOptions()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("variable of float, but T is double"),
                             HasSubstr("node update"))));
}

// Two handles of one variable that disagree on its dtype get past shape
// inference; the kernel checks the variable it finds.
TEST(TrainingOpsTest, AVariableFoundWithAnotherDtypeIsInvalid) {
  Tf1GraphBuilder b;
  for (const auto& [name, dtype] :
       {std::pair<const char*, DataType>{"as_float", DT_FLOAT},
        std::pair<const char*, DataType>{"as_double", DT_DOUBLE}}) {
    NodeDef* v = b.Node(name, "VarHandleOp");
    AddNodeAttr("dtype", dtype, v);
    AddNodeAttr("shape", PartialTensorShape({1}), v);
    AddNodeAttr("shared_name", "x", v);
  }
  b.Const("value", Values<float>({1}));
  AddNodeAttr("dtype", DT_FLOAT,
              b.Node("init", "AssignVariableOp", {"as_float", "value"}));
  b.Const("alpha", Scalar<double>(1));
  b.Const("delta", Values<double>({1}));
  AddNodeAttr("T", DT_DOUBLE,
              b.Node("update", "ResourceApplyGradientDescent",
                     {"as_double", "alpha", "delta"}));
  auto session = Session::Create(b.graph(), SessionOptions());
  MF_ASSERT_OK(session.status());
  std::vector<Tensor> out;
  MF_ASSERT_OK((*session)->Run({}, {}, {"init"}, &out));
  EXPECT_THAT((*session)->Run({}, {}, {"update"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("var is a variable of float, but the "
                                       "op's T is double"),
                             HasSubstr("ResourceApplyGradientDescent"))));
}

// The kernels are float and double only.
TEST(TrainingOpsTest, HalfHasNoKernel) {
  UpdateGraph g("ApplyGradientDescent", Form::kResource, DT_HALF, 1, 2);
  MF_ASSERT_OK(g.Start());
  EXPECT_THAT(g.Step({Tensor(DT_HALF, TensorShape({})),
                      Tensor(DT_HALF, TensorShape({1}))}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("No kernel for op "
                                       "ResourceApplyGradientDescent"),
                             HasSubstr("DT_DOUBLE"))));
}

}  // namespace
}  // namespace minflow
