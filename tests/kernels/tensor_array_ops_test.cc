// TensorFlow 1's TensorArray through a Session: a TF1 while loop that
// writes rows and stacks them (what tf.TensorArray.stack() builds),
// scatter/gather and split/concat round trips, arrays that live for one
// step only, shape inference through the handle, and every error the
// kernels give, with TensorFlow's wording.
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "minflow/core/resource_handle.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_def_util.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/op_def.pb.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::minflow::testing::Tf1GraphBuilder;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Tensor Floats(std::vector<float> values, TensorShape shape) {
  Tensor t(DT_FLOAT, shape);
  for (size_t i = 0; i < values.size(); ++i) t.flat<float>()(i) = values[i];
  return t;
}

Tensor Ints(std::vector<int32_t> values) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<int32_t>()(i) = values[i];
  return t;
}

Tensor Int64s(std::vector<int64_t> values) {
  Tensor t(DT_INT64, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<int64_t>()(i) = values[i];
  return t;
}

std::vector<float> Values(const Tensor& t) {
  std::vector<float> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = t.flat<float>()(i);
  return v;
}

struct ArrayOptions {
  DataType dtype = DT_FLOAT;
  PartialTensorShape element_shape;  // unknown rank
  bool dynamic_size = false;
  bool clear_after_read = true;
  bool identical_element_shapes = false;
  std::string tensor_array_name;
};

// The TensorArrayV3 node `name`: its handle is "name", its flow "name:1".
std::string Array(Tf1GraphBuilder& b, const std::string& name,
                  const std::string& size, const ArrayOptions& o = {}) {
  NodeDef* n = b.Node(name, "TensorArrayV3", {size});
  AddNodeAttr("dtype", o.dtype, n);
  AddNodeAttr("element_shape", o.element_shape, n);
  AddNodeAttr("dynamic_size", o.dynamic_size, n);
  AddNodeAttr("clear_after_read", o.clear_after_read, n);
  AddNodeAttr("identical_element_shapes", o.identical_element_shapes, n);
  AddNodeAttr("tensor_array_name", o.tensor_array_name, n);
  return name;
}

std::string Write(Tf1GraphBuilder& b, const std::string& name,
                  const std::string& ta, const std::string& index,
                  const std::string& value, const std::string& flow,
                  DataType t = DT_FLOAT) {
  AddNodeAttr("T", t,
              b.Node(name, "TensorArrayWriteV3", {ta, index, value, flow}));
  return name;
}

std::string Read(Tf1GraphBuilder& b, const std::string& name,
                 const std::string& ta, const std::string& index,
                 const std::string& flow, DataType dtype = DT_FLOAT) {
  AddNodeAttr("dtype", dtype,
              b.Node(name, "TensorArrayReadV3", {ta, index, flow}));
  return name;
}

std::string Gather(Tf1GraphBuilder& b, const std::string& name,
                   const std::string& ta, const std::string& indices,
                   const std::string& flow, DataType dtype = DT_FLOAT) {
  AddNodeAttr("dtype", dtype,
              b.Node(name, "TensorArrayGatherV3", {ta, indices, flow}));
  return name;
}

std::string Scatter(Tf1GraphBuilder& b, const std::string& name,
                    const std::string& ta, const std::string& indices,
                    const std::string& value, const std::string& flow) {
  AddNodeAttr("T", DT_FLOAT,
              b.Node(name, "TensorArrayScatterV3", {ta, indices, value, flow}));
  return name;
}

std::string Split(Tf1GraphBuilder& b, const std::string& name,
                  const std::string& ta, const std::string& value,
                  const std::string& lengths, const std::string& flow) {
  AddNodeAttr("T", DT_FLOAT,
              b.Node(name, "TensorArraySplitV3", {ta, value, lengths, flow}));
  return name;
}

std::string Concat(Tf1GraphBuilder& b, const std::string& name,
                   const std::string& ta, const std::string& flow) {
  AddNodeAttr("dtype", DT_FLOAT,
              b.Node(name, "TensorArrayConcatV3", {ta, flow}));
  return name;
}

std::string Size(Tf1GraphBuilder& b, const std::string& name,
                 const std::string& ta, const std::string& flow) {
  b.Node(name, "TensorArraySizeV3", {ta, flow});
  return name;
}

std::unique_ptr<Session> MakeSession(const GraphDef& graph) {
  auto session = Session::Create(graph, SessionOptions());
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(session).value() : nullptr;
}

// Runs `graph` once, fetching `fetches` with `feeds`.
Status RunGraph(const GraphDef& graph,
                const std::vector<std::pair<std::string, Tensor>>& feeds,
                const std::vector<std::string>& fetches,
                std::vector<Tensor>* out) {
  auto session = Session::Create(graph, SessionOptions());
  MF_RETURN_IF_ERROR(session.status());
  return (*session)->Run(feeds, fetches, {}, out);
}

TEST(TensorArrayOpsTest, OpDefsAreTensorFlowsExactly) {
  std::ifstream file(MINFLOW_TF_OPS_PBTXT);
  ASSERT_TRUE(file) << MINFLOW_TF_OPS_PBTXT;
  std::stringstream buffer;
  buffer << file.rdbuf();
  OpList tf_ops;
  ASSERT_TRUE(
      google::protobuf::TextFormat::ParseFromString(buffer.str(), &tf_ops));
  int checked = 0;
  for (const OpDef& tf : tf_ops.op()) {
    if (tf.name().rfind("TensorArray", 0) != 0 ||
        tf.name().find("V3") == std::string::npos ||
        tf.name() == "TensorArrayGradV3") {
      continue;
    }
    const OpRegistrationData* data = OpRegistry::Global()->LookUp(tf.name());
    ASSERT_NE(data, nullptr) << tf.name();
    std::string difference;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&difference);
    // TensorFlow's list carries no docs; minflow writes its own.
    OpDef ours = data->op_def;
    RemoveDescriptionsFromOpDef(&ours);
    EXPECT_TRUE(differencer.Compare(tf, ours)) << difference;
    ++checked;
  }
  EXPECT_EQ(checked, 9);
}

// for i in range(1000): ta = ta.write(i, [i, 2i, 3i]); then ta.stack(),
// the way TF 1's Python builds it: the handle enters the loop as a
// constant, the flow as a loop variable.
GraphDef RowsLoopGraph(int rows, int parallel_iterations) {
  Tf1GraphBuilder b;
  b.Const("zero", 0);
  b.Const("initial_size", 0);
  ArrayOptions o;
  o.dynamic_size = true;
  o.element_shape = PartialTensorShape({3});
  Array(b, "ta", "initial_size", o);
  const std::vector<std::string> exits = b.While(
      "loop", {"zero", "ta:1"},
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/rows", rows, {pivot});
        return b.Add("loop/less", "Less", {v[0], "loop/rows"});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        const std::string handle =
            b.Enter("loop/handle", "ta", "loop", /*is_constant=*/true,
                    parallel_iterations, DT_RESOURCE);
        b.Const("loop/one", 1, {pivot});
        b.Const("loop/coefficients", Floats({1, 2, 3}, TensorShape({3})),
                {pivot});
        NodeDef* cast = b.Node("loop/i_float", "Cast", {v[0]});
        AddNodeAttr("SrcT", DT_INT32, cast);
        AddNodeAttr("DstT", DT_FLOAT, cast);
        b.Add("loop/row", "Mul", {"loop/i_float", "loop/coefficients"},
              DT_FLOAT);
        Write(b, "loop/write", handle, v[0], "loop/row", v[1]);
        return std::vector<std::string>{
            b.Add("loop/next_i", "AddV2", {v[0], "loop/one"}), "loop/write"};
      },
      parallel_iterations, {DT_INT32, DT_FLOAT});
  Size(b, "size", "ta", exits[1]);
  b.Const("range_start", 0);
  b.Const("range_delta", 1);
  AddNodeAttr("Tidx", DT_INT32,
              b.Node("range", "Range", {"range_start", "size", "range_delta"}));
  Gather(b, "stack", "ta", "range", exits[1]);
  return b.graph();
}

TEST(TensorArrayOpsTest, WhileLoopWritesAThousandRowsAndStacksThem) {
  auto session = MakeSession(RowsLoopGraph(1000, 10));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {"stack", "size"}, {}, &out));
  ASSERT_EQ(out[0].shape().DebugString(), "[1000,3]");
  EXPECT_EQ(out[1].scalar<int32_t>()(), 1000);
  const auto rows = out[0].matrix<float>();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(rows(i, 0), i) << i;
    ASSERT_EQ(rows(i, 1), 2 * i) << i;
    ASSERT_EQ(rows(i, 2), 3 * i) << i;
  }
}

TEST(TensorArrayOpsTest, WhileLoopStacksTheSameWithOneIterationAtATime) {
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(RowsLoopGraph(50, 1), {}, {"stack"}, &out));
  ASSERT_EQ(out[0].shape().DebugString(), "[50,3]");
  EXPECT_EQ(out[0].matrix<float>()(49, 2), 147);
}

TEST(TensorArrayOpsTest, ShapeInferenceSeesThroughTheHandle) {
  Tf1GraphBuilder b;
  b.Const("size", 4);
  b.Const("index", 1);
  b.Const("indices", Ints({0, 2}));
  ArrayOptions o;
  o.element_shape = PartialTensorShape({2, 3});
  Array(b, "ta", "size", o);
  Read(b, "read", "ta", "index", "ta:1");
  Gather(b, "gather", "ta", "indices", "ta:1");
  Concat(b, "concat", "ta", "ta:1");
  b.Add("handle_copy", "Identity", {"ta"}, DT_RESOURCE);
  Read(b, "read_through_identity", "handle_copy", "index", "ta:1");
  GraphDef graph = b.graph();
  // And through a loop's Enter: the stack of RowsLoopGraph.
  const GraphDef rows = RowsLoopGraph(10, 10);
  for (const NodeDef& n : rows.node()) {
    NodeDef* copy = graph.add_node();
    *copy = n;
    copy->set_name("rows/" + n.name());
    for (std::string& input : *copy->mutable_input()) {
      input = (input[0] == '^') ? "^rows/" + input.substr(1) : "rows/" + input;
    }
    for (auto& attr : *copy->mutable_attr()) {
      if (attr.first == "frame_name") attr.second.set_s("rows/loop");
    }
  }
  std::unique_ptr<GraphPipeline> pipeline;
  MF_ASSERT_OK(
      GraphPipeline::Prepare(graph, GraphPipelineOptions(), &pipeline));
  auto shape_of = [&](const std::string& name, int port = 0) {
    const Node* n = pipeline->graph().FindNodeByName(name);
    EXPECT_NE(n, nullptr) << name;
    if (n == nullptr || port >= static_cast<int>(n->output_shapes().size())) {
      ADD_FAILURE() << name << ":" << port << " has no inferred shape";
      return std::string();
    }
    return n->output_shape(port).DebugString();
  };
  EXPECT_EQ(shape_of("ta"), "[]");
  EXPECT_EQ(shape_of("ta", 1), "[]");
  EXPECT_EQ(shape_of("read"), "[2,3]");
  EXPECT_EQ(shape_of("gather"), "[2,2,3]");
  EXPECT_EQ(shape_of("concat"), "[?,3]");
  EXPECT_EQ(shape_of("concat", 1), "[?]");
  EXPECT_EQ(shape_of("read_through_identity"), "[2,3]");
  EXPECT_EQ(shape_of("rows/stack"), "[?,3]");
}

TEST(TensorArrayOpsTest, ShapeFunctionsRejectValuesThatCannotFit) {
  Tf1GraphBuilder b;
  b.Const("size", 2);
  b.Const("index", 0);
  b.Const("value", Floats({1, 2}, TensorShape({2})));
  ArrayOptions o;
  o.element_shape = PartialTensorShape({3});
  Array(b, "ta", "size", o);
  Write(b, "write", "ta", "index", "value", "ta:1");
  EXPECT_THAT(
      Session::Create(b.graph(), SessionOptions()).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("node write")));

  Tf1GraphBuilder d;
  d.Const("size", 2);
  d.Const("index", 0);
  Array(d, "ta", "size");
  Read(d, "read", "ta", "index", "ta:1", DT_INT32);
  EXPECT_THAT(Session::Create(d.graph(), SessionOptions()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("TensorArray dtype is float but Op "
                                       "requested dtype int32"),
                             HasSubstr("node read"))));
}

TEST(TensorArrayOpsTest, ScatterThenGatherRoundTrip) {
  Tf1GraphBuilder b;
  b.Const("size", 4);
  b.Const("scatter_indices", Ints({3, 0, 2, 1}));
  b.Const("value", Floats({30, 31, 0, 1, 20, 21, 10, 11}, TensorShape({4, 2})));
  b.Const("gather_indices", Ints({0, 1, 2, 3}));
  b.Const("two", 2);
  ArrayOptions o;
  o.clear_after_read = false;
  Array(b, "ta", "size", o);
  Scatter(b, "scatter", "ta", "scatter_indices", "value", "ta:1");
  Gather(b, "gather", "ta", "gather_indices", "scatter");
  Read(b, "read", "ta", "two", "scatter");
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(b.graph(), {}, {"gather", "read"}, &out));
  EXPECT_EQ(out[0].shape().DebugString(), "[4,2]");
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 1, 10, 11, 20, 21, 30, 31));
  EXPECT_EQ(out[1].shape().DebugString(), "[2]");
  EXPECT_THAT(Values(out[1]), ElementsAre(20, 21));
}

TEST(TensorArrayOpsTest, SplitThenConcatRoundTrip) {
  Tf1GraphBuilder b;
  b.Const("size", 3);
  b.Const("value",
          Floats({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, TensorShape({6, 2})));
  b.Const("lengths", Int64s({1, 3, 2}));
  b.Const("one", 1);
  ArrayOptions o;
  o.clear_after_read = false;
  Array(b, "ta", "size", o);
  Split(b, "split", "ta", "value", "lengths", "ta:1");
  Concat(b, "concat", "ta", "split");
  Read(b, "read", "ta", "one", "split");
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(b.graph(), {}, {"concat", "concat:1", "read"}, &out));
  EXPECT_EQ(out[0].shape().DebugString(), "[6,2]");
  EXPECT_THAT(Values(out[0]),
              ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
  ASSERT_EQ(out[1].dtype(), DT_INT64);
  EXPECT_EQ(out[1].vec<int64_t>()(0), 1);
  EXPECT_EQ(out[1].vec<int64_t>()(1), 3);
  EXPECT_EQ(out[1].vec<int64_t>()(2), 2);
  EXPECT_EQ(out[2].shape().DebugString(), "[3,2]");
  EXPECT_THAT(Values(out[2]), ElementsAre(2, 3, 4, 5, 6, 7));
}

TEST(TensorArrayOpsTest, ZeroSizeArraysGatherAndConcatWithKnownShapes) {
  Tf1GraphBuilder b;
  b.Const("size", 0);
  b.Const("no_indices", Ints({}));
  ArrayOptions o;
  o.element_shape = PartialTensorShape({2});
  Array(b, "ta", "size", o);
  Gather(b, "gather", "ta", "no_indices", "ta:1");
  ArrayOptions rows;
  rows.element_shape = PartialTensorShape({-1, 4});
  Array(b, "tb", "size", rows);
  NodeDef* concat = b.Node("concat", "TensorArrayConcatV3", {"tb", "tb:1"});
  AddNodeAttr("dtype", DT_FLOAT, concat);
  AddNodeAttr("element_shape_except0", PartialTensorShape({4}), concat);
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(b.graph(), {}, {"gather", "concat", "concat:1"}, &out));
  EXPECT_EQ(out[0].shape().DebugString(), "[0,2]");
  EXPECT_EQ(out[1].shape().DebugString(), "[0,4]");
  EXPECT_EQ(out[2].shape().DebugString(), "[0]");
}

TEST(TensorArrayOpsTest, UnwrittenElementReadsAsZerosWhenItsShapeIsKnown) {
  Tf1GraphBuilder b;
  b.Const("size", 2);
  b.Const("index", 1);
  ArrayOptions known;
  known.element_shape = PartialTensorShape({2, 2});
  Array(b, "ta", "size", known);
  Read(b, "read", "ta", "index", "ta:1");
  Array(b, "unknown", "size");
  Read(b, "read_unknown", "unknown", "index", "unknown:1");
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(b.graph(), {}, {"read"}, &out));
  EXPECT_EQ(out[0].shape().DebugString(), "[2,2]");
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 0, 0, 0));
  EXPECT_THAT(
      RunGraph(b.graph(), {}, {"read_unknown"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr(": Could not read from TensorArray index 1.  "
                               "Furthermore, the element shape is not fully "
                               "defined: ?."),
                     HasSubstr("{{node read_unknown}}"))));
}

TEST(TensorArrayOpsTest, AnArrayLivesForOneStep) {
  Tf1GraphBuilder b;
  b.Const("size", 1);
  b.Const("index", 0);
  b.Placeholder("value", DT_FLOAT);
  Array(b, "ta", "size");
  Write(b, "write", "ta", "index", "value", "ta:1");
  Read(b, "read", "ta", "index", "write");
  Size(b, "size_of", "ta", "ta:1");
  auto session = MakeSession(b.graph());
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  // A second run writes index 0 again: it must get a new array.
  MF_ASSERT_OK(
      session->Run({{"value", Tensor(1.0f)}}, {"read", "ta"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 1.0f);
  const Tensor old_handle = out[1];
  MF_ASSERT_OK(session->Run({{"value", Tensor(2.0f)}}, {"read"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 2.0f);
  // The first run's array is gone with its step.
  EXPECT_THAT(session->Run({{"ta", old_handle}}, {"size_of"}, {}, &out),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("ta_"), HasSubstr("{{node size_of}}"))));
}

TEST(TensorArrayOpsTest, ArraysOfOneNameAndOfEveryLoopIterationNeverCollide) {
  Tf1GraphBuilder b;
  b.Const("zero", 0);
  b.Const("zero_f", Tensor(0.0f));
  b.Const("one_size", 1);
  // Two arrays named alike in one step.
  ArrayOptions named;
  named.tensor_array_name = "same";
  Array(b, "a", "one_size", named);
  Array(b, "b", "one_size", named);
  b.Const("seven", Tensor(7.0f));
  b.Const("eight", Tensor(8.0f));
  Write(b, "write_a", "a", "zero", "seven", "a:1");
  Write(b, "write_b", "b", "zero", "eight", "b:1");
  Read(b, "read_a", "a", "zero", "write_a");
  Read(b, "read_b", "b", "zero", "write_b");
  // sum = 0; for i in range(20): ta = TensorArray(1); ta.write(0, i);
  // sum += ta.read(0): one array per iteration, all named alike.
  const std::vector<std::string> exits = b.While(
      "loop", {"zero", "zero_f"},
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/n", 20, {pivot});
        return b.Add("loop/less", "Less", {v[0], "loop/n"});
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("loop/size", 1, {pivot});
        b.Const("loop/index", 0, {pivot});
        b.Const("loop/one", 1, {pivot});
        Array(b, "loop/ta", "loop/size");
        NodeDef* cast = b.Node("loop/i_float", "Cast", {v[0]});
        AddNodeAttr("SrcT", DT_INT32, cast);
        AddNodeAttr("DstT", DT_FLOAT, cast);
        Write(b, "loop/write", "loop/ta", "loop/index", "loop/i_float",
              "loop/ta:1");
        Read(b, "loop/read", "loop/ta", "loop/index", "loop/write");
        return std::vector<std::string>{
            b.Add("loop/next_i", "AddV2", {v[0], "loop/one"}),
            b.Add("loop/sum", "AddV2", {v[1], "loop/read"}, DT_FLOAT)};
      },
      10, {DT_INT32, DT_FLOAT});
  std::vector<Tensor> out;
  MF_ASSERT_OK(RunGraph(b.graph(), {}, {"read_a", "read_b", exits[1]}, &out));
  EXPECT_EQ(out[0].scalar<float>()(), 7.0f);
  EXPECT_EQ(out[1].scalar<float>()(), 8.0f);
  EXPECT_EQ(out[2].scalar<float>()(), 190.0f);  // 0 + 1 + ... + 19
}

// --- Errors -----------------------------------------------------------------

// An array of `size` (a Placeholder) with `o`; "value" is a float
// Placeholder of any shape, "index" an int32 Placeholder.
Tf1GraphBuilder ErrorGraph(const ArrayOptions& o = {}) {
  Tf1GraphBuilder b;
  b.Placeholder("size", DT_INT32);
  b.Placeholder("index", DT_INT32);
  b.Placeholder("value", DT_FLOAT);
  b.Placeholder("value2", DT_FLOAT);
  Array(b, "ta", "size", o);
  return b;
}

std::vector<std::pair<std::string, Tensor>> Feeds(
    int32_t size, const Tensor& index, const Tensor& value,
    const Tensor& value2 = Tensor(0.0f)) {
  return {{"size", Tensor(size)},
          {"index", index},
          {"value", value},
          {"value2", value2}};
}

TEST(TensorArrayOpsTest, WritingAnIndexTwiceFails) {
  Tf1GraphBuilder b = ErrorGraph();
  Write(b, "w1", "ta", "index", "value", "ta:1");
  Write(b, "w2", "ta", "index", "value", "w1");
  std::vector<Tensor> out;
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(3, Tensor(2), Tensor(1.0f)), {"w2"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr(": Could not write to TensorArray index 2 "
                               "because it has already been written to."),
                     HasSubstr("{{node w2}}"))));
}

TEST(TensorArrayOpsTest, WritingAnIndexAlreadyReadFails) {
  ArrayOptions o;
  o.element_shape = PartialTensorShape({});
  Tf1GraphBuilder b = ErrorGraph(o);
  Read(b, "r", "ta", "index", "ta:1");
  AddNodeAttr("T", DT_FLOAT,
              b.Node("w", "TensorArrayWriteV3",
                     {"ta", "index", "value", "ta:1", "^r"}));
  std::vector<Tensor> out;
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(3, Tensor(0), Tensor(1.0f)), {"w"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("Could not write to TensorArray index 0 "
                               "because it has already been read."),
                     HasSubstr("{{node w}}"))));
}

TEST(TensorArrayOpsTest, WritingOutOfRangeFailsUnlessDynamicSize) {
  Tf1GraphBuilder b = ErrorGraph();
  Write(b, "w", "ta", "index", "value", "ta:1");
  Size(b, "size_after", "ta", "w");
  std::vector<Tensor> out;
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(3, Tensor(5), Tensor(1.0f)), {"w"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr(": Tried to write to index 5 but array is not "
                               "resizeable and size is: 3"),
                     HasSubstr("{{node w}}"))));
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(3, Tensor(-1), Tensor(1.0f)), {"w"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Tried to write to index -1")));
  ArrayOptions dynamic;
  dynamic.dynamic_size = true;
  Tf1GraphBuilder d = ErrorGraph(dynamic);
  Write(d, "w", "ta", "index", "value", "ta:1");
  Size(d, "size_after", "ta", "w");
  MF_ASSERT_OK(RunGraph(d.graph(), Feeds(3, Tensor(5), Tensor(1.0f)),
                        {"size_after"}, &out));
  EXPECT_EQ(out[0].scalar<int32_t>()(), 6);
  EXPECT_THAT(
      RunGraph(d.graph(), Feeds(3, Tensor(int32_t{1} << 30), Tensor(1.0f)),
               {"w"}, &out),
      StatusIs(absl::StatusCode::kResourceExhausted,
               HasSubstr("holds at most")));
}

TEST(TensorArrayOpsTest, ReadingOutOfRangeFails) {
  Tf1GraphBuilder b = ErrorGraph();
  Read(b, "r", "ta", "index", "ta:1");
  std::vector<Tensor> out;
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(3, Tensor(3), Tensor(1.0f)), {"r"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("Tried to read from index 3 but array size "
                               "is: 3"),
                     HasSubstr("{{node r}}"))));
}

TEST(TensorArrayOpsTest, ValuesMustFitTheElementShape) {
  ArrayOptions o;
  o.element_shape = PartialTensorShape({3});
  Tf1GraphBuilder b = ErrorGraph(o);
  Write(b, "w", "ta", "index", "value", "ta:1");
  std::vector<Tensor> out;
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(3, Tensor(0), Floats({1, 2}, TensorShape({2}))),
               {"w"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr(": Could not write to TensorArray index 0 "
                               "because the value shape is [2] which is "
                               "incompatible with the TensorArray's inferred "
                               "element shape: [3] (consider setting "
                               "infer_shape=False)."),
                     HasSubstr("{{node w}}"))));
}

TEST(TensorArrayOpsTest, IdenticalElementShapesFixTheShapeAtTheFirstWrite) {
  ArrayOptions o;
  o.identical_element_shapes = true;
  Tf1GraphBuilder b = ErrorGraph(o);
  b.Const("one", 1);
  Write(b, "w0", "ta", "index", "value", "ta:1");
  Write(b, "w1", "ta", "one", "value2", "w0");
  std::vector<Tensor> out;
  EXPECT_THAT(
      RunGraph(b.graph(),
               Feeds(3, Tensor(0), Floats({1, 2}, TensorShape({2})),
                     Floats({1, 2, 3}, TensorShape({3}))),
               {"w1"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("because the value shape is [3] which is "
                               "incompatible with the TensorArray's inferred "
                               "element shape: [2]"),
                     HasSubstr("{{node w1}}"))));
}

TEST(TensorArrayOpsTest, GatherOfElementsOfDifferentShapesFails) {
  Tf1GraphBuilder b = ErrorGraph();
  b.Const("one", 1);
  b.Const("both", Ints({0, 1}));
  Write(b, "w0", "ta", "index", "value", "ta:1");
  Write(b, "w1", "ta", "one", "value2", "w0");
  Gather(b, "g", "ta", "both", "w1");
  std::vector<Tensor> out;
  EXPECT_THAT(
      RunGraph(b.graph(),
               Feeds(2, Tensor(0), Floats({1, 2}, TensorShape({2})),
                     Floats({1, 2, 3}, TensorShape({3}))),
               {"g"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("TensorArray has inconsistent shapes.  Index 0 "
                               "has shape: [2] but index 1 has shape: [3]"),
                     HasSubstr("{{node g}}"))));
}

TEST(TensorArrayOpsTest, ConcatNeedsVectorsOfOneRowShape) {
  Tf1GraphBuilder b = ErrorGraph();
  b.Const("one", 1);
  Write(b, "w0", "ta", "index", "value", "ta:1");
  Write(b, "w1", "ta", "one", "value2", "w0");
  Concat(b, "c", "ta", "w1");
  std::vector<Tensor> out;
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(2, Tensor(0), Tensor(1.0f), Tensor(2.0f)),
               {"c"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("Concat saw a scalar shape at index 0 "
                               "but requires at least vectors."),
                     HasSubstr("{{node c}}"))));
  EXPECT_THAT(
      RunGraph(b.graph(),
               Feeds(2, Tensor(0), Floats({1, 2}, TensorShape({1, 2})),
                     Floats({1, 2, 3}, TensorShape({1, 3}))),
               {"c"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("TensorArray has inconsistent shapes.  Index 0 has "
                         "(excepting dimension 0) shape: [2] but index 1 has "
                         "(excepting dimension 0) shape: [3]")));
}

TEST(TensorArrayOpsTest, ReadingTwiceAfterClearAfterReadFails) {
  Tf1GraphBuilder b = ErrorGraph();
  Write(b, "w", "ta", "index", "value", "ta:1");
  Read(b, "r1", "ta", "index", "w");
  AddNodeAttr("dtype", DT_FLOAT,
              b.Node("r2", "TensorArrayReadV3", {"ta", "index", "w", "^r1"}));
  std::vector<Tensor> out;
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(1, Tensor(0), Tensor(1.0f)), {"r2"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr(": Could not read index 0 twice because it was "
                               "cleared after a previous read (perhaps try "
                               "setting clear_after_read = false?)."),
                     HasSubstr("{{node r2}}"))));
}

TEST(TensorArrayOpsTest, UsingAClosedArrayFails) {
  Tf1GraphBuilder b = ErrorGraph();
  b.Node("close", "TensorArrayCloseV3", {"ta"});
  b.Node("close_again", "TensorArrayCloseV3", {"ta", "^close"});
  b.Node("size_after", "TensorArraySizeV3", {"ta", "ta:1", "^close_again"});
  AddNodeAttr("T", DT_FLOAT,
              b.Node("w", "TensorArrayWriteV3",
                     {"ta", "index", "value", "ta:1", "^close"}));
  std::vector<Tensor> out;
  EXPECT_THAT(RunGraph(b.graph(), Feeds(1, Tensor(0), Tensor(1.0f)),
                       {"size_after"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("has already been closed."),
                             HasSubstr("{{node size_after}}"))));
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(1, Tensor(0), Tensor(1.0f)), {"w"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("has already been closed."),
                     HasSubstr("{{node w}}"))));
}

TEST(TensorArrayOpsTest, SizeMustBeANonNegativeScalarWithinTheLimit) {
  Tf1GraphBuilder b = ErrorGraph();
  Size(b, "s", "ta", "ta:1");
  std::vector<Tensor> out;
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(-1, Tensor(0), Tensor(1.0f)), {"s"}, &out),
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          AllOf(HasSubstr("Size should be >= 0"), HasSubstr("{{node ta}}"))));
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(int32_t{1} << 30, Tensor(0), Tensor(1.0f)),
               {"s"}, &out),
      StatusIs(absl::StatusCode::kResourceExhausted,
               HasSubstr("past the limit")));
  // The largest array costs nothing until its elements are used.
  MF_ASSERT_OK(RunGraph(b.graph(),
                        Feeds(int32_t{1} << 24, Tensor(0), Tensor(1.0f)), {"s"},
                        &out));
  EXPECT_EQ(out[0].scalar<int32_t>()(), int32_t{1} << 24);
  auto feeds = Feeds(1, Tensor(0), Tensor(1.0f));
  feeds[0].second = Ints({1, 2});
  EXPECT_THAT(RunGraph(b.graph(), feeds, {"s"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("TensorArray size must be scalar, but had "
                                 "shape: [2]")));
}

TEST(TensorArrayOpsTest, IndexAndIndicesMustHaveTheirRanks) {
  Tf1GraphBuilder b = ErrorGraph();
  Read(b, "r", "ta", "index", "ta:1");
  Gather(b, "g", "ta", "index", "ta:1");
  Scatter(b, "s", "ta", "index", "value", "ta:1");
  std::vector<Tensor> out;
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(2, Ints({0, 1}), Tensor(1.0f)), {"r"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("TensorArray index must be scalar, but had "
                               "shape: [2]"),
                     HasSubstr("{{node r}}"))));
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(2, Tensor(0), Tensor(1.0f)), {"g"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Expected indices to be a vector, but received "
                         "shape: []")));
  EXPECT_THAT(
      RunGraph(b.graph(),
               Feeds(2, Ints({0, 1}), Floats({1, 2, 3}, TensorShape({3}))),
               {"s"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("Expected len(indices) == values.shape[0], but "
                               "saw: 2 vs. 3"),
                     HasSubstr("{{node s}}"))));
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(2, Ints({0, 1}), Tensor(1.0f)), {"s"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Input value for unpack must be at least a vector")));
  EXPECT_THAT(RunGraph(b.graph(),
                       Feeds(2, Ints({0, 2}), Floats({1, 2}, TensorShape({2}))),
                       {"s"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Tried to write to index 2 but array is not "
                                 "resizeable and size is: 2")));
}

TEST(TensorArrayOpsTest, SplitLengthsMustAddUpToTheRows) {
  Tf1GraphBuilder b = ErrorGraph();
  b.Placeholder("lengths", DT_INT64);
  Split(b, "s", "ta", "value", "lengths", "ta:1");
  const Tensor rows = Floats({1, 2, 3, 4}, TensorShape({4}));
  std::vector<Tensor> out;
  auto feeds = Feeds(2, Tensor(0), rows);
  feeds.push_back({"lengths", Int64s({1, 2})});
  EXPECT_THAT(
      RunGraph(b.graph(), feeds, {"s"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("Expected sum of lengths to be equal to "
                               "values.shape[0], but sum of lengths is 3"),
                     HasSubstr("{{node s}}"))));
  feeds.back().second = Int64s({5, -1});
  EXPECT_THAT(RunGraph(b.graph(), feeds, {"s"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Expected sum of lengths to be equal")));
  feeds.back().second = Int64s({-1, 5});
  EXPECT_THAT(RunGraph(b.graph(), feeds, {"s"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Expected lengths to be non-negative")));
  feeds.back().second = Int64s({1, 1, 2});
  EXPECT_THAT(RunGraph(b.graph(), feeds, {"s"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("TensorArray's size is not equal to the size "
                                 "of lengths (3 vs. 2), and the TensorArray "
                                 "is not marked as dynamically resizeable.")));
  feeds.back().second = Int64s({4});
  feeds[2].second = Tensor(1.0f);
  EXPECT_THAT(RunGraph(b.graph(), feeds, {"s"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Expected value to be at least a vector")));
}

TEST(TensorArrayOpsTest, ZeroSizeGatherNeedsAFullyKnownShape) {
  Tf1GraphBuilder b = ErrorGraph();
  b.Const("no_indices", Ints({}));
  Gather(b, "g", "ta", "no_indices", "ta:1");
  Concat(b, "c", "ta", "ta:1");
  std::vector<Tensor> out;
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(0, Tensor(0), Tensor(1.0f)), {"g"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("TensorArray has size zero, but element shape "
                               "? is not fully defined."),
                     HasSubstr("{{node g}}"))));
  EXPECT_THAT(
      RunGraph(b.graph(), Feeds(0, Tensor(0), Tensor(1.0f)), {"c"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("TensorArray has size zero, but "
                         "element_shape_except0 ? is not fully defined.")));
}

TEST(TensorArrayOpsTest, ReadingOrWritingAnotherDtypeFails) {
  // Shape inference catches a dtype mismatch when it sees the handle's
  // producer (ShapeFunctionsRejectValuesThatCannotFit); here it sees the
  // first input of a Merge, an int32 array's handle, but the float array's
  // comes.
  Tf1GraphBuilder b;
  b.Const("size", 1);
  b.Const("index", 0);
  b.Const("yes", Tensor(true));
  b.Const("int_value", Tensor(int32_t{5}));
  Array(b, "floats", "size");
  ArrayOptions ints;
  ints.dtype = DT_INT32;
  Array(b, "ints", "size", ints);
  b.Add("pick_floats", "Switch", {"floats", "yes"}, DT_RESOURCE);
  b.Add("drop_ints", "Switch", {"ints", "yes"}, DT_RESOURCE);
  b.Merge("handle", {"drop_ints:0", "pick_floats:1"}, DT_RESOURCE);
  Write(b, "w", "handle", "index", "int_value", "floats:1", DT_INT32);
  Read(b, "r", "handle", "index", "floats:1", DT_INT32);
  std::vector<Tensor> out;
  EXPECT_THAT(RunGraph(b.graph(), {}, {"w"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("TensorArray dtype is float but Op is "
                                       "trying to write dtype int32."),
                             HasSubstr("{{node w}}"))));
  EXPECT_THAT(RunGraph(b.graph(), {}, {"r"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("TensorArray dtype is float but Op "
                                       "requested dtype int32."),
                             HasSubstr("{{node r}}"))));
}

TEST(TensorArrayOpsTest, AHandleThatIsNotAScalarFails) {
  Tf1GraphBuilder b;
  b.Placeholder("handles", DT_RESOURCE);
  b.Placeholder("flow", DT_FLOAT);
  Size(b, "s", "handles", "flow");
  std::vector<Tensor> out;
  EXPECT_THAT(
      RunGraph(b.graph(),
               {{"handles", Tensor(DT_RESOURCE, TensorShape({3}))},
                {"flow", Tensor(0.0f)}},
               {"s"}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("{{node s}}")));
}

}  // namespace
}  // namespace minflow
