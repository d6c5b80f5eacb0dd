// `minflow infer`, `minflow validate`'s collecting pipeline, a Session's
// run and the C API must agree on every node's output shapes for every
// bundled graph: all four go through the graph pipeline, and this checks
// that nothing on the way (an option, a version default, a copy) makes one
// of them refine differently.
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "minflow/c/c_api.h"
#include "minflow/config.pb.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

// node name -> "[2,?], [3]" (one entry per output).
using Shapes = std::map<std::string, std::string>;

// What `minflow infer GRAPH` prints: "name = Op -> float [2,3], int32 []".
Shapes FromInferCommand(const std::string& path) {
  const std::string command =
      absl::StrCat(MINFLOW_CLI, " infer '", path, "' 2>&1");
  FILE* pipe = popen(command.c_str(), "r");
  Shapes shapes;
  if (pipe == nullptr) return shapes;
  std::string out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    out.append(buffer, n);
  EXPECT_EQ(0, pclose(pipe)) << out;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    const std::vector<std::string> sides = absl::StrSplit(line, " -> ");
    if (sides.size() != 2) continue;
    const std::string name = std::string(
        absl::string_view(sides[0]).substr(0, sides[0].find(" = ")));
    std::vector<std::string> dims;
    if (sides[1] != "(no outputs)") {
      for (absl::string_view output : absl::StrSplit(sides[1], ", ")) {
        dims.emplace_back(output.substr(output.find(' ') + 1));
      }
    }
    shapes[name] = absl::StrJoin(dims, ", ");
  }
  return shapes;
}

Shapes FromGraph(const Graph& graph) {
  Shapes shapes;
  for (const Node* n : graph.nodes()) {
    std::vector<std::string> dims;
    for (const PartialTensorShape& s : n->output_shapes()) {
      dims.push_back(s.DebugString());
    }
    shapes[n->name()] = absl::StrJoin(dims, ", ");
  }
  return shapes;
}

// `minflow validate`'s way: the pipeline collecting every error.
Shapes FromValidatePipeline(const GraphDef& graph_def) {
  std::vector<Status> errors;
  GraphPipelineOptions options;
  options.errors = &errors;
  std::unique_ptr<GraphPipeline> pipeline;
  GraphPipeline::Prepare(graph_def, options, &pipeline).IgnoreError();
  EXPECT_TRUE(errors.empty());
  return pipeline == nullptr ? Shapes() : FromGraph(pipeline->graph());
}

// A session's run: the graph the executor ran, with the shapes its kernels
// were built with (RunOptions.output_partition_graphs). The passes are off
// so every node is there; Placeholders get zeros.
Shapes FromSessionRun(const GraphDef& graph_def) {
  SessionOptions options;
  options.config.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_disable_meta_optimizer(true);
  auto session = Session::Create(graph_def, options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return {};
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const NodeDef& n : graph_def.node()) {
    if (n.op() == "Placeholder") {
      PartialTensorShape declared;
      PartialTensorShape::BuildPartialTensorShape(n.attr().at("shape").shape(),
                                                  &declared)
          .IgnoreError();
      std::vector<int64_t> dims;
      for (int i = 0; i < declared.dims(); ++i) {
        // Unknown dims: large enough for the bundled graphs' windows.
        dims.push_back(declared.dim_size(i) < 0 ? 8 : declared.dim_size(i));
      }
      Tensor t(n.attr().at("dtype").type(), TensorShape(dims));
      memset(t.data(), 0, t.TotalBytes());
      feeds.emplace_back(n.name(), t);
    }
  }
  // Every node runs: fetched when it has outputs, else as a target.
  std::vector<std::string> outputs, targets;
  for (const NodeDef& n : graph_def.node()) {
    if (n.op() == "Placeholder") continue;
    (n.op() == "NoOp" ? targets : outputs).push_back(n.name());
  }
  RunOptions run_options;
  run_options.set_output_partition_graphs(true);
  RunMetadata metadata;
  std::vector<Tensor> out;
  const Status s =
      (*session)->Run(run_options, feeds, outputs, targets, &out, &metadata);
  EXPECT_TRUE(s.ok()) << s;
  Shapes shapes;
  if (metadata.partition_graphs_size() != 1) return shapes;
  for (const NodeDef& n : metadata.partition_graphs(0).node()) {
    if (n.op() == "_Arg" || n.op() == "_Retval") continue;
    std::vector<std::string> dims;
    auto it = n.attr().find("_output_shapes");
    if (it != n.attr().end()) {
      for (const TensorShapeProto& proto : it->second.list().shape()) {
        PartialTensorShape shape;
        PartialTensorShape::BuildPartialTensorShape(proto, &shape)
            .IgnoreError();
        dims.push_back(shape.DebugString());
      }
    }
    shapes[n.name()] = absl::StrJoin(dims, ", ");
  }
  // Placeholders were fed: their _Arg carries their shape.
  for (const NodeDef& n : metadata.partition_graphs(0).node()) {
    if (n.op() != "_Arg") continue;
    const std::string& fed = feeds.at(n.attr().at("index").i()).first;
    auto it = n.attr().find("_output_shapes");
    if (it == n.attr().end()) continue;
    PartialTensorShape shape;
    PartialTensorShape::BuildPartialTensorShape(it->second.list().shape(0),
                                                &shape)
        .IgnoreError();
    shapes[fed] = shape.DebugString();
  }
  return shapes;
}

Shapes FromCApi(const std::string& bytes) {
  Shapes shapes;
  MF_Status* status = MF_NewStatus();
  MF_Graph* graph = MF_NewGraph();
  MF_Buffer* buffer = MF_NewBufferFromString(bytes.data(), bytes.size());
  MF_GraphImportGraphDef(graph, buffer, nullptr, status);
  EXPECT_EQ(MF_OK, MF_GetCode(status)) << MF_Message(status);
  size_t pos = 0;
  MF_Operation* oper;
  while ((oper = MF_GraphNextOperation(graph, &pos)) != nullptr) {
    std::vector<std::string> dims;
    for (int i = 0; i < MF_OperationNumOutputs(oper); ++i) {
      const MF_Output output{oper, i};
      const int rank = MF_GraphGetTensorNumDims(graph, output, status);
      if (rank < 0) {
        dims.push_back(PartialTensorShape().DebugString());
        continue;
      }
      std::vector<int64_t> d(rank);
      MF_GraphGetTensorShape(graph, output, d.data(), rank, status);
      dims.push_back(PartialTensorShape(d).DebugString());
    }
    shapes[MF_OperationName(oper)] = absl::StrJoin(dims, ", ");
  }
  MF_DeleteBuffer(buffer);
  MF_DeleteGraph(graph);
  MF_DeleteStatus(status);
  return shapes;
}

class ShapeAgreementTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ShapeAgreementTest, InferValidateRunAndTheCApiAgree) {
  const std::string path =
      absl::StrCat(MINFLOW_SOURCE_DIR, "/examples/graphs/", GetParam());
  GraphDef graph_def;
  MF_ASSERT_OK(ReadGraphDefFile(path, &graph_def));
  std::string binary;
  ASSERT_TRUE(graph_def.SerializeToString(&binary));

  const Shapes infer = FromInferCommand(path);
  ASSERT_EQ(static_cast<size_t>(graph_def.node_size()), infer.size());
  EXPECT_EQ(infer, FromValidatePipeline(graph_def));
  EXPECT_EQ(infer, FromCApi(binary));
  const Shapes run = FromSessionRun(graph_def);
  ASSERT_FALSE(run.empty());
  for (const auto& [name, shapes] : run) {
    auto it = infer.find(name);
    ASSERT_NE(it, infer.end()) << name;
    EXPECT_EQ(it->second, shapes) << name;
  }
  // Every node with outputs ran, so all are compared.
  for (const auto& [name, shapes] : infer) {
    if (!shapes.empty()) {
      EXPECT_TRUE(run.count(name)) << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BundledGraphs, ShapeAgreementTest,
                         ::testing::Values("digits_mlp.pbtxt",
                                           "median_pool_fused.pbtxt",
                                           "median_pool_composite.pbtxt"));

}  // namespace
}  // namespace minflow
