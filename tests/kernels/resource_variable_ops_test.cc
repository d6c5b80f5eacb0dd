// TensorFlow 2 resource variables through a Session: state that lives
// across Run calls of one session (and only that session), shape inference
// through the handle, every error the kernels give, and concurrent steps
// that read and update one variable.
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/resource_handle.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::minflow::testing::Tf1GraphBuilder;
using ::testing::AllOf;
using ::testing::HasSubstr;

Tensor Floats(std::vector<float> values, TensorShape shape) {
  Tensor t(DT_FLOAT, shape);
  for (size_t i = 0; i < values.size(); ++i) t.flat<float>()(i) = values[i];
  return t;
}

// v: a float variable of `shape`; "init" assigns `init`, "add" adds
// `delta`, "sub" subtracts it, "read" reads it.
GraphDef VariableGraph(const TensorShape& shape, const Tensor& init,
                       const Tensor& delta, DataType read_dtype = DT_FLOAT) {
  Tf1GraphBuilder b;
  NodeDef* v = b.Node("v", "VarHandleOp");
  AddNodeAttr("dtype", DT_FLOAT, v);
  AddNodeAttr("shape", PartialTensorShape(shape), v);
  AddNodeAttr("shared_name", "v", v);
  b.Const("init_value", init);
  b.Const("delta", delta);
  AddNodeAttr("dtype", DT_FLOAT,
              b.Node("init", "AssignVariableOp", {"v", "init_value"}));
  AddNodeAttr("dtype", DT_FLOAT,
              b.Node("add", "AssignAddVariableOp", {"v", "delta"}));
  AddNodeAttr("dtype", DT_FLOAT,
              b.Node("sub", "AssignSubVariableOp", {"v", "delta"}));
  AddNodeAttr("dtype", read_dtype, b.Node("read", "ReadVariableOp", {"v"}));
  b.Node("initialized", "VarIsInitializedOp", {"v"});
  AddNodeAttr("ignore_lookup_error", false,
              b.Node("destroy", "DestroyResourceOp", {"v"}));
  return b.graph();
}

std::unique_ptr<Session> MakeSession(const GraphDef& graph) {
  auto session = Session::Create(graph, SessionOptions());
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(session).value() : nullptr;
}

float ReadScalar(Session* session) {
  std::vector<Tensor> out;
  const Status s = session->Run({}, {"read"}, {}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return s.ok() ? out[0].scalar<float>()() : -1;
}

TEST(ResourceVariableOpsTest, CounterIncrementedByAHundredRunsReadsAHundred) {
  auto session =
      MakeSession(VariableGraph(TensorShape({}), Tensor(0.0f), Tensor(1.0f)));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  for (int i = 0; i < 100; ++i) {
    MF_ASSERT_OK(session->Run({}, {}, {"add"}, &out));
  }
  EXPECT_EQ(ReadScalar(session.get()), 100);
  MF_ASSERT_OK(session->Run({}, {}, {"sub"}, &out));
  EXPECT_EQ(ReadScalar(session.get()), 99);
}

TEST(ResourceVariableOpsTest, StateIsPerSession) {
  const GraphDef graph =
      VariableGraph(TensorShape({}), Tensor(5.0f), Tensor(1.0f));
  auto first = MakeSession(graph);
  auto second = MakeSession(graph);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(first->Run({}, {}, {"init"}, &out));
  MF_ASSERT_OK(first->Run({}, {}, {"add"}, &out));
  EXPECT_EQ(ReadScalar(first.get()), 6);
  EXPECT_THAT(second->Run({}, {"read"}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("Could not read variable v"),
                             HasSubstr("{{node read}}"))));
  MF_ASSERT_OK(second->Run({}, {"initialized"}, {}, &out));
  EXPECT_FALSE(out[0].scalar<bool>()());
  MF_ASSERT_OK(first->Run({}, {"initialized"}, {}, &out));
  EXPECT_TRUE(out[0].scalar<bool>()());
}

TEST(ResourceVariableOpsTest, ErrorsNameTheNode) {
  auto session =
      MakeSession(VariableGraph(TensorShape({}), Tensor(0.0f), Tensor(1.0f)));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({}, {}, {"add"}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("Could not update variable v"),
                             HasSubstr("{{node add}}"))));
  MF_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  MF_ASSERT_OK(session->Run({}, {}, {"destroy"}, &out));
  EXPECT_THAT(session->Run({}, {"read"}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("does not exist")));
  // Destroying what is gone is an error unless ignore_lookup_error.
  EXPECT_THAT(
      session->Run({}, {}, {"destroy"}, &out),
      StatusIs(absl::StatusCode::kNotFound, HasSubstr("{{node destroy}}")));
}

TEST(ResourceVariableOpsTest, ReadWithAnotherDtypeIsRefused) {
  // The handle says float; shape inference refuses an int32 read at once.
  const GraphDef graph =
      VariableGraph(TensorShape({}), Tensor(0.0f), Tensor(1.0f), DT_INT32);
  EXPECT_THAT(Session::Create(graph, SessionOptions()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("wrong dtype"), HasSubstr("read"))));
}

TEST(ResourceVariableOpsTest, AssignAddWithAnotherShapeIsRefused) {
  // The shapes of a variable of unknown shape are checked when it runs.
  Tf1GraphBuilder b;
  NodeDef* v = b.Node("v", "VarHandleOp");
  AddNodeAttr("dtype", DT_FLOAT, v);
  AddNodeAttr("shape", PartialTensorShape(), v);
  b.Const("init_value", Floats({1, 2}, TensorShape({2})));
  b.Const("delta", Floats({1, 2, 3}, TensorShape({3})));
  AddNodeAttr("dtype", DT_FLOAT,
              b.Node("init", "AssignVariableOp", {"v", "init_value"}));
  AddNodeAttr("dtype", DT_FLOAT,
              b.Node("add", "AssignAddVariableOp", {"v", "delta"}));
  NodeDef* strict = b.Node("strict", "AssignVariableOp", {"v", "delta"});
  AddNodeAttr("dtype", DT_FLOAT, strict);
  AddNodeAttr("validate_shape", true, strict);
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  EXPECT_THAT(session->Run({}, {}, {"add"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("shapes must be equal"),
                             HasSubstr("{{node add}}"))));
  EXPECT_THAT(
      session->Run({}, {}, {"strict"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("wrong shape")));
}

TEST(ResourceVariableOpsTest, ShapeInferenceSeesThroughTheHandle) {
  const GraphDef graph = VariableGraph(
      TensorShape({2, 3}), Floats({0, 0, 0, 0, 0, 0}, TensorShape({2, 3})),
      Floats({1, 1, 1, 1, 1, 1}, TensorShape({2, 3})));
  std::unique_ptr<GraphPipeline> pipeline;
  MF_ASSERT_OK(
      GraphPipeline::Prepare(graph, GraphPipelineOptions(), &pipeline));
  const Node* read = pipeline->graph().FindNodeByName("read");
  ASSERT_NE(read, nullptr);
  ASSERT_EQ(read->output_shapes().size(), 1u);
  EXPECT_EQ(read->output_shape(0).DebugString(), "[2,3]");
}

TEST(ResourceVariableOpsTest, AssignOfTheWrongShapeFailsAtCreate) {
  const GraphDef graph =
      VariableGraph(TensorShape({2}), Floats({0, 0, 0}, TensorShape({3})),
                    Floats({1, 1}, TensorShape({2})));
  // AssignVariableOp's validate_shape is false by default, so only the
  // handle's shape and AssignAdd's value are checked: they agree. An
  // AssignAdd of the wrong shape does not.
  MF_EXPECT_OK(Session::Create(graph, SessionOptions()).status());
  const GraphDef bad =
      VariableGraph(TensorShape({2}), Floats({0, 0}, TensorShape({2})),
                    Floats({1, 1, 1}, TensorShape({3})));
  EXPECT_THAT(
      Session::Create(bad, SessionOptions()).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("node add")));
}

TEST(ResourceVariableOpsTest, GatherAndScatter) {
  Tf1GraphBuilder b;
  NodeDef* v = b.Node("v", "VarHandleOp");
  AddNodeAttr("dtype", DT_FLOAT, v);
  AddNodeAttr("shape", PartialTensorShape({3, 2}), v);
  b.Const("init_value", Floats({0, 1, 10, 11, 20, 21}, TensorShape({3, 2})));
  AddNodeAttr("dtype", DT_FLOAT,
              b.Node("init", "AssignVariableOp", {"v", "init_value"}));
  Tensor rows(DT_INT32, TensorShape({2}));
  rows.vec<int32_t>()(0) = 2;
  rows.vec<int32_t>()(1) = 0;
  b.Const("rows", rows);
  Tensor bad_rows(DT_INT64, TensorShape({1}));
  bad_rows.vec<int64_t>()(0) = 3;
  b.Const("bad_rows", bad_rows);
  for (const char* name : {"gather", "bad_gather"}) {
    NodeDef* g =
        b.Node(name, "ResourceGather",
               {"v", std::string(name) == "gather" ? "rows" : "bad_rows"});
    AddNodeAttr("dtype", DT_FLOAT, g);
    AddNodeAttr("Tindices", std::string(name) == "gather" ? DT_INT32 : DT_INT64,
                g);
  }
  b.Const("updates", Floats({5, 6, 7, 8}, TensorShape({2, 2})));
  for (const char* op : {"ResourceScatterAdd", "ResourceScatterUpdate"}) {
    NodeDef* s = b.Node(op, op, {"v", "rows", "updates"});
    AddNodeAttr("dtype", DT_FLOAT, s);
    AddNodeAttr("Tindices", DT_INT32, s);
  }
  AddNodeAttr("dtype", DT_FLOAT, b.Node("read", "ReadVariableOp", {"v"}));
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  MF_ASSERT_OK(session->Run({}, {"gather"}, {}, &out));
  EXPECT_EQ(out[0].shape().DebugString(), "[2,2]");
  EXPECT_EQ(out[0].SummarizeValue(10), "[[20 21]\n [0 1]]");
  EXPECT_THAT(session->Run({}, {"bad_gather"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("indices[0] = 3 is not in [0, 3)"),
                             HasSubstr("{{node bad_gather}}"))));
  MF_ASSERT_OK(session->Run({}, {}, {"ResourceScatterAdd"}, &out));
  MF_ASSERT_OK(session->Run({}, {"read"}, {}, &out));
  EXPECT_EQ(out[0].SummarizeValue(10), "[[7 9]\n [10 11]\n [25 27]]");
  MF_ASSERT_OK(session->Run({}, {}, {"ResourceScatterUpdate"}, &out));
  MF_ASSERT_OK(session->Run({}, {"read"}, {}, &out));
  EXPECT_EQ(out[0].SummarizeValue(10), "[[7 8]\n [10 11]\n [5 6]]");
}

TEST(ResourceVariableOpsTest, HandleCarriesDtypeAndShape) {
  Tf1GraphBuilder b;
  NodeDef* v = b.Node("v", "VarHandleOp");
  AddNodeAttr("dtype", DT_INT64, v);
  AddNodeAttr("shape", PartialTensorShape({-1, 4}), v);
  AddNodeAttr("container", "box", v);
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {"v"}, {}, &out));
  ASSERT_EQ(out[0].dtype(), DT_RESOURCE);
  const ResourceHandle& handle = out[0].scalar<ResourceHandle>()();
  EXPECT_EQ(handle.name(), "v");  // the node's name: shared_name is empty
  EXPECT_EQ(handle.container(), "box");
  ASSERT_EQ(handle.dtypes_and_shapes().size(), 1u);
  EXPECT_EQ(handle.dtypes_and_shapes()[0].dtype, DT_INT64);
  EXPECT_EQ(handle.dtypes_and_shapes()[0].shape.DebugString(), "[?,4]");
  EXPECT_THAT(handle.DebugString(), HasSubstr("name=\"v\""));
}

// Eight threads: four add one to every element of a 4096-float variable,
// four read it. Every read must be one consistent value (all elements
// equal: an update never writes into a buffer a reader holds), and the
// final value counts every add.
TEST(ResourceVariableOpsTest, ConcurrentReadsAndUpdatesAreConsistent) {
  constexpr int64_t kSize = 4096;
  Tensor zeros(DT_FLOAT, TensorShape({kSize}));
  zeros.flat<float>().setZero();
  Tensor ones(DT_FLOAT, TensorShape({kSize}));
  ones.flat<float>().setConstant(1);
  auto session = MakeSession(VariableGraph(TensorShape({kSize}), zeros, ones));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  constexpr int kStepsPerThread = 200;
  std::atomic<int> torn_reads{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kStepsPerThread; ++i) {
        std::vector<Tensor> result;
        if (t % 2 == 0) {
          if (!session->Run({}, {}, {"add"}, &result).ok()) ++failures;
          continue;
        }
        if (!session->Run({}, {"read"}, {}, &result).ok()) {
          ++failures;
          continue;
        }
        const auto v = result[0].flat<float>();
        for (int64_t k = 1; k < kSize; ++k) {
          if (v(k) != v(0)) {
            ++torn_reads;
            break;
          }
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(torn_reads.load(), 0);
  MF_ASSERT_OK(session->Run({}, {"read"}, {}, &out));
  EXPECT_EQ(out[0].flat<float>()(0), 4 * kStepsPerThread);
  EXPECT_EQ(out[0].flat<float>()(kSize - 1), 4 * kStepsPerThread);
}

// TensorFlow's savers run DisableCopyOnRead before reading a variable:
// accepted on an existing variable, NotFound otherwise.
TEST(ResourceVariableOpsTest, DisableCopyOnReadNeedsAnExistingVariable) {
  GraphDef graph = VariableGraph(TensorShape({}), Tensor(1.0f), Tensor(1.0f));
  Tf1GraphBuilder b;
  b.Node("disable", "DisableCopyOnRead", {"v"});
  *graph.add_node() = b.graph().node(0);
  auto session = MakeSession(graph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({}, {}, {"disable"}, &out),
              StatusIs(absl::StatusCode::kNotFound));
  MF_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  MF_ASSERT_OK(session->Run({}, {}, {"disable"}, &out));
  EXPECT_EQ(ReadScalar(session.get()), 1.0f);
}

}  // namespace
}  // namespace minflow

namespace minflow {
namespace {

// The caller keeps its fed tensor and may write into it again: the
// variable must not see that.
TEST(ResourceVariableOpsTest, AssigningAFedTensorCopiesIt) {
  Tf1GraphBuilder b;
  NodeDef* v = b.Node("v", "VarHandleOp");
  AddNodeAttr("dtype", DT_FLOAT, v);
  AddNodeAttr("shape", PartialTensorShape({2}), v);
  b.Placeholder("value", DT_FLOAT);
  AddNodeAttr("dtype", DT_FLOAT,
              b.Node("assign", "AssignVariableOp", {"v", "value"}));
  AddNodeAttr("dtype", DT_FLOAT, b.Node("read", "ReadVariableOp", {"v"}));
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  Tensor fed = Floats({1, 2}, TensorShape({2}));
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({{"value", fed}}, {}, {"assign"}, &out));
  fed.flat<float>()(0) = 100;
  MF_ASSERT_OK(session->Run({}, {"read"}, {}, &out));
  EXPECT_EQ(out[0].SummarizeValue(5), "[1 2]");
}

}  // namespace
}  // namespace minflow
