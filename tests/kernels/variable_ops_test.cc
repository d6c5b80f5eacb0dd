// TensorFlow 1 reference variables through a Session: VariableV2's output
// is a reference that Assign/AssignAdd/AssignSub update through, that
// RefIdentity, RefSwitch and RefMerge pass on, and that any other consumer
// (Identity, a fetch) reads as the variable's value when it runs.
#include <atomic>
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

NodeDef* Variable(Tf1GraphBuilder* b, const std::string& name, DataType dtype,
                  const PartialTensorShape& shape,
                  const std::string& shared_name = "") {
  NodeDef* v = b->Node(name, "VariableV2");
  AddNodeAttr("dtype", dtype, v);
  AddNodeAttr("shape", shape, v);
  AddNodeAttr("shared_name", shared_name, v);
  return v;
}

NodeDef* Assign(Tf1GraphBuilder* b, const std::string& name,
                const std::string& var, const std::string& value,
                bool validate_shape = true) {
  NodeDef* a = b->Node(name, "Assign", {var, value});
  AddNodeAttr("T", DT_FLOAT, a);
  AddNodeAttr("validate_shape", validate_shape, a);
  return a;
}

std::unique_ptr<Session> MakeSession(const GraphDef& graph) {
  auto session = Session::Create(graph, SessionOptions());
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(session).value() : nullptr;
}

// counter = 0 ("init"); "increment" = AssignAdd(counter, 1); "read" and
// "initialized" look at it.
GraphDef CounterGraph() {
  Tf1GraphBuilder b;
  Variable(&b, "counter", DT_FLOAT, PartialTensorShape({}));
  b.Const("zero", Tensor(0.0f));
  b.Const("one", Tensor(1.0f));
  Assign(&b, "init", "counter", "zero");
  b.Add("increment", "AssignAdd", {"counter", "one"}, DT_FLOAT);
  b.Add("decrement", "AssignSub", {"counter", "one"}, DT_FLOAT);
  b.Add("read", "Identity", {"counter"}, DT_FLOAT);
  AddNodeAttr("dtype", DT_FLOAT,
              b.Node("initialized", "IsVariableInitialized", {"counter"}));
  return b.graph();
}

TEST(VariableOpsTest, CounterIncrementedByAHundredRunsReadsAHundred) {
  auto session = MakeSession(CounterGraph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {"initialized"}, {}, &out));
  EXPECT_FALSE(out[0].scalar<bool>()());
  MF_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  MF_ASSERT_OK(session->Run({}, {"initialized"}, {}, &out));
  EXPECT_TRUE(out[0].scalar<bool>()());
  for (int i = 1; i <= 100; ++i) {
    // Fetching AssignAdd's output (a reference) gives the updated value.
    MF_ASSERT_OK(session->Run({}, {"increment"}, {}, &out));
    ASSERT_EQ(out[0].dtype(), DT_FLOAT);
    ASSERT_EQ(out[0].scalar<float>()(), i);
  }
  MF_ASSERT_OK(session->Run({}, {"read"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 100);
  MF_ASSERT_OK(session->Run({}, {"decrement"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 99);
}

TEST(VariableOpsTest, UsingAnUninitializedVariableNamesIt) {
  auto session = MakeSession(CounterGraph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({}, {"read"}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("uninitialized value counter"),
                             HasSubstr("{{node read}}"))));
  EXPECT_THAT(session->Run({}, {}, {"increment"}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("uninitialized value counter"),
                             HasSubstr("{{node increment}}"))));
  EXPECT_THAT(session->Run({}, {"counter"}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("uninitialized value")));
}

TEST(VariableOpsTest, StateIsPerSession) {
  const GraphDef graph = CounterGraph();
  auto first = MakeSession(graph);
  auto second = MakeSession(graph);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(first->Run({}, {}, {"init"}, &out));
  MF_ASSERT_OK(first->Run({}, {}, {"increment"}, &out));
  MF_ASSERT_OK(second->Run({}, {"initialized"}, {}, &out));
  EXPECT_FALSE(out[0].scalar<bool>()());
}

TEST(VariableOpsTest, AssignChecksTheShapeOnlyWithValidateShape) {
  Tf1GraphBuilder b;
  Variable(&b, "v", DT_FLOAT, PartialTensorShape());  // unknown shape
  Tensor two(DT_FLOAT, TensorShape({2}));
  two.flat<float>().setConstant(2);
  Tensor three(DT_FLOAT, TensorShape({3}));
  three.flat<float>().setConstant(3);
  b.Const("two", two);
  b.Const("three", three);
  Assign(&b, "init", "v", "two");
  Assign(&b, "strict", "v", "three", /*validate_shape=*/true);
  Assign(&b, "reshape", "v", "three", /*validate_shape=*/false);
  b.Add("read", "Identity", {"v"}, DT_FLOAT);
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  EXPECT_THAT(session->Run({}, {}, {"strict"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("Assign requires shapes of both tensors "
                                       "to match. lhs shape= [2] rhs shape= "
                                       "[3]"),
                             HasSubstr("{{node strict}}"))));
  // Fetching Assign's output reads the variable after the assignment.
  MF_ASSERT_OK(session->Run({}, {"reshape"}, {}, &out));
  EXPECT_EQ(out[0].shape().DebugString(), "[3]");
  MF_ASSERT_OK(session->Run({}, {"read"}, {}, &out));
  EXPECT_EQ(out[0].SummarizeValue(5), "[3 3 3]");
}

TEST(VariableOpsTest, DeclaredShapeIsCheckedAtCreate) {
  Tf1GraphBuilder b;
  Variable(&b, "v", DT_FLOAT, PartialTensorShape({2}));
  Tensor three(DT_FLOAT, TensorShape({3}));
  three.flat<float>().setZero();
  b.Const("three", three);
  Assign(&b, "init", "v", "three");
  EXPECT_THAT(
      Session::Create(b.graph(), SessionOptions()).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("node init")));
}

TEST(VariableOpsTest, VariablesSharingANameShareState) {
  Tf1GraphBuilder b;
  Variable(&b, "a", DT_FLOAT, PartialTensorShape({}), "shared");
  Variable(&b, "b", DT_FLOAT, PartialTensorShape({}), "shared");
  Variable(&b, "c", DT_INT32, PartialTensorShape({}), "shared");
  b.Const("seven", Tensor(7.0f));
  Assign(&b, "init", "a", "seven");
  b.Add("read_b", "Identity", {"b"}, DT_FLOAT);
  b.Add("read_c", "Identity", {"c"}, DT_INT32);
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  MF_ASSERT_OK(session->Run({}, {"read_b"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 7);
  EXPECT_THAT(session->Run({}, {"read_c"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("holds float"), HasSubstr("int32"),
                             HasSubstr("{{node c}}"))));
}

// RefSwitch routes the reference by a predicate, AssignAdd or AssignSub
// updates through it, RefMerge and RefIdentity pass the result on.
TEST(VariableOpsTest, ReferencesFlowThroughRefControlFlow) {
  Tf1GraphBuilder b;
  Variable(&b, "v", DT_FLOAT, PartialTensorShape({}));
  b.Const("ten", Tensor(10.0f));
  b.Const("one", Tensor(1.0f));
  Assign(&b, "init", "v", "ten");
  b.Placeholder("up", DT_BOOL);
  b.Add("switch", "RefSwitch", {"v", "up"}, DT_FLOAT);
  b.Add("inc", "AssignAdd", {"switch:1", "one"}, DT_FLOAT);
  b.Add("dec", "AssignSub", {"switch:0", "one"}, DT_FLOAT);
  NodeDef* merge = b.Node("merge", "RefMerge", {"inc", "dec"});
  AddNodeAttr("T", DT_FLOAT, merge);
  AddNodeAttr("N", int64_t{2}, merge);
  b.Add("ref", "RefIdentity", {"merge"}, DT_FLOAT);
  b.Add("value", "Identity", {"ref"}, DT_FLOAT);
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  MF_ASSERT_OK(session->Run({{"up", Tensor(true)}}, {"value"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 11);
  MF_ASSERT_OK(session->Run({{"up", Tensor(false)}}, {"value"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 10);
  MF_ASSERT_OK(
      session->Run({{"up", Tensor(false)}}, {"value", "merge:1"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 9);
  EXPECT_EQ(out[1].scalar<int32_t>()(), 1);
}

// Four threads add one to every element of a 4096-float variable, four
// read it through Identity; no read sees a half-applied update.
TEST(VariableOpsTest, ConcurrentReadsAndUpdatesAreConsistent) {
  constexpr int64_t kSize = 4096;
  Tf1GraphBuilder b;
  Variable(&b, "v", DT_FLOAT, PartialTensorShape({kSize}));
  Tensor zeros(DT_FLOAT, TensorShape({kSize}));
  zeros.flat<float>().setZero();
  Tensor ones(DT_FLOAT, TensorShape({kSize}));
  ones.flat<float>().setConstant(1);
  b.Const("zeros", zeros);
  b.Const("ones", ones);
  Assign(&b, "init", "v", "zeros");
  b.Add("add", "AssignAdd", {"v", "ones"}, DT_FLOAT);
  b.Add("read", "Identity", {"v"}, DT_FLOAT);
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  constexpr int kSteps = 200;
  std::atomic<int> torn{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kSteps; ++i) {
        std::vector<Tensor> result;
        const bool writer = t % 2 == 0;
        if (!session
                 ->Run({},
                       writer ? std::vector<std::string>{}
                              : std::vector<std::string>{"read"},
                       writer ? std::vector<std::string>{"add"}
                              : std::vector<std::string>{},
                       &result)
                 .ok()) {
          ++failures;
          continue;
        }
        if (writer) continue;
        const auto v = result[0].flat<float>();
        for (int64_t k = 1; k < kSize; ++k) {
          if (v(k) != v(0)) {
            ++torn;
            break;
          }
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(torn.load(), 0);
  MF_ASSERT_OK(session->Run({}, {"read"}, {}, &out));
  EXPECT_EQ(out[0].flat<float>()(kSize - 1), 4 * kSteps);
}

}  // namespace
}  // namespace minflow

namespace minflow {
namespace {

// A ref input must come from a ref output, as TensorFlow checks at import.
TEST(VariableOpsTest, AssignToAValueIsRefusedAtImport) {
  Tf1GraphBuilder b;
  b.Const("not_a_variable", Tensor(1.0f));
  b.Const("value", Tensor(2.0f));
  b.Add("assign", "Assign", {"not_a_variable", "value"}, DT_FLOAT);
  EXPECT_THAT(Session::Create(b.graph(), SessionOptions()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("float_ref"), HasSubstr("assign"))));
}

}  // namespace
}  // namespace minflow

namespace minflow {
namespace {

TEST(VariableOpsTest, AssigningAFedTensorCopiesIt) {
  Tf1GraphBuilder b;
  Variable(&b, "v", DT_FLOAT, PartialTensorShape({}));
  b.Placeholder("value", DT_FLOAT);
  Assign(&b, "assign", "v", "value");
  b.Add("read", "Identity", {"v"}, DT_FLOAT);
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  Tensor fed(3.0f);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({{"value", fed}}, {}, {"assign"}, &out));
  fed.scalar<float>()() = 100;
  MF_ASSERT_OK(session->Run({}, {"read"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 3);
}

}  // namespace
}  // namespace minflow
