// The graph pipeline: import and refinement once, shapes on the nodes,
// copies, signatures (rewrite, passes, placement) and the pass registry.
#include "minflow/graph/graph_pipeline.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/logging.h"
#include "minflow/framework/device.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/optimization_registry.h"
#include "minflow/graph/subgraph.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// x: [?, 3] -> relu -> neg; c = Const 2x3, m = MatMul(x, transpose(c)).
constexpr char kGraph[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value {
        shape {
          dim { size: -1 }
          dim { size: 3 }
        }
      }
    }
  }
  node {
    name: "relu"
    op: "Relu"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "neg"
    op: "Neg"
    input: "relu"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "c"
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
          tensor_shape {
            dim { size: 2 }
            dim { size: 3 }
          }
          float_val: [ 1, 2, 3, 4, 5, 6 ]
        }
      }
    }
  }
  node {
    name: "m"
    op: "MatMul"
    input: "x"
    input: "c"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "transpose_b"
      value { b: true }
    }
  }
  versions { producer: 2100 }
)pb";

std::unique_ptr<GraphPipeline> PrepareOrDie(const std::string& text) {
  std::unique_ptr<GraphPipeline> pipeline;
  MF_CHECK_OK(GraphPipeline::Prepare(ParseTextProtoOrDie<GraphDef>(text),
                                     GraphPipelineOptions(), &pipeline));
  return pipeline;
}

std::string ShapeOf(const Graph& graph, const std::string& node,
                    int output = 0) {
  const Node* n = graph.FindNodeByName(node);
  return n == nullptr ? "(no node)" : n->output_shape(output).DebugString();
}

TEST(GraphPipelineTest, PrepareAttachesEveryNodesShapes) {
  const int64_t before = GraphPipeline::num_graphs_prepared();
  std::unique_ptr<GraphPipeline> pipeline = PrepareOrDie(kGraph);
  EXPECT_EQ(before + 1, GraphPipeline::num_graphs_prepared());
  const Graph& g = pipeline->graph();
  EXPECT_EQ(5, g.num_nodes());
  for (const Node* n : g.nodes()) {
    EXPECT_EQ(static_cast<size_t>(n->num_outputs()), n->output_shapes().size())
        << n->name();
  }
  EXPECT_EQ("[?,3]", ShapeOf(g, "neg"));
  EXPECT_EQ("[2,3]", ShapeOf(g, "c"));
  EXPECT_EQ("[?,2]", ShapeOf(g, "m"));
}

TEST(GraphPipelineTest, PrepareFailsFastNamingTheNode) {
  std::unique_ptr<GraphPipeline> pipeline;
  GraphDef bad = ParseTextProtoOrDie<GraphDef>(kGraph);
  bad.mutable_node(4)->mutable_attr()->erase("transpose_b");
  EXPECT_THAT(GraphPipeline::Prepare(bad, GraphPipelineOptions(), &pipeline),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("{{node m}} = MatMul")));
  EXPECT_EQ(nullptr, pipeline);
}

TEST(GraphPipelineTest, CollectingKeepsTheValidPartAndEveryError) {
  GraphDef bad = ParseTextProtoOrDie<GraphDef>(kGraph);
  bad.mutable_node(4)->mutable_attr()->erase("transpose_b");  // shape error
  NodeDef* unknown = bad.add_node();
  unknown->set_name("u");
  unknown->set_op("NoSuchOp");  // import error
  std::vector<Status> errors;
  GraphPipelineOptions options;
  options.errors = &errors;
  std::unique_ptr<GraphPipeline> pipeline;
  const Status first = GraphPipeline::Prepare(bad, options, &pipeline);
  ASSERT_EQ(2u, errors.size());
  EXPECT_EQ(first, errors[0]);
  EXPECT_THAT(errors[0],
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("NoSuchOp")));
  EXPECT_THAT(errors[1], StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("{{node m}}")));
  ASSERT_NE(nullptr, pipeline);
  EXPECT_EQ("[?,3]", ShapeOf(pipeline->graph(), "neg"));
  EXPECT_TRUE(pipeline->graph().FindNodeByName("m")->output_shapes().empty());
}

TEST(GraphPipelineTest, CloneCopiesGraphAndShapesWithoutRefining) {
  std::unique_ptr<GraphPipeline> pipeline = PrepareOrDie(kGraph);
  const int64_t before = GraphPipeline::num_graphs_prepared();
  std::unique_ptr<GraphPipeline> copy = pipeline->Clone();
  EXPECT_EQ(before, GraphPipeline::num_graphs_prepared());
  GraphDef a, b;
  pipeline->graph().ToGraphDef(&a, /*add_shapes=*/true);
  copy->graph().ToGraphDef(&b, /*add_shapes=*/true);
  EXPECT_EQ(a.DebugString(), b.DebugString());
  for (const Node* n : pipeline->graph().nodes()) {
    const Node* c = copy->graph().FindNodeByName(n->name());
    ASSERT_NE(nullptr, c);
    EXPECT_EQ(n->id(), c->id());
    EXPECT_NE(n, c);
  }
}

TEST(GraphPipelineTest, SignatureRewritesPlacesAndKeepsShapes) {
  std::unique_ptr<GraphPipeline> pipeline = PrepareOrDie(kGraph);
  CpuDevice cpu;
  SignatureOptions options;
  options.devices = {&cpu};
  PreparedGraph prepared;
  MF_ASSERT_OK(
      pipeline->PrepareForSignature({"x"}, {"neg"}, {}, options, &prepared));
  const Graph& g = *prepared.graph;
  // x was replaced by an _Arg; c and m are not needed.
  EXPECT_EQ(nullptr, g.FindNodeByName("m"));
  EXPECT_EQ(nullptr, g.FindNodeByName("x"));
  int args = 0, retvals = 0;
  for (const Node* n : g.nodes()) {
    EXPECT_EQ(cpu.name(), n->assigned_device_name()) << n->name();
    if (n->IsOp(kArgOp)) {
      ++args;
      EXPECT_EQ("[?,3]", n->output_shape(0).DebugString());
    }
    if (n->IsOp(kRetvalOp)) ++retvals;
  }
  EXPECT_EQ(1, args);
  EXPECT_EQ(1, retvals);
  EXPECT_EQ("[?,3]", ShapeOf(g, "relu"));
  ASSERT_EQ(1u, prepared.feed_nodes.size());
  EXPECT_EQ("x", prepared.feed_nodes[0]->name());
  EXPECT_EQ(0, prepared.feed_ports[0]);
  // The pipeline's own graph is untouched.
  EXPECT_NE(nullptr, pipeline->graph().FindNodeByName("m"));
  EXPECT_EQ(5, pipeline->graph().num_nodes());
}

TEST(GraphPipelineTest, SignatureErrors) {
  std::unique_ptr<GraphPipeline> pipeline = PrepareOrDie(kGraph);
  PreparedGraph prepared;
  EXPECT_THAT(pipeline->PrepareForSignature({}, {"neg"}, {}, {}, &prepared),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("You must feed a value for placeholder "
                                 "tensor 'x'")));
  EXPECT_THAT(pipeline->PrepareForSignature({}, {"nope"}, {}, {}, &prepared),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("'nope'")));
  EXPECT_THAT(
      pipeline->PrepareForSignature({"x:7"}, {"neg"}, {}, {}, &prepared),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has 1 outputs")));
  SignatureOptions unknown_pass;
  unknown_pass.passes.disabled = {"no_such_pass"};
  EXPECT_THAT(pipeline->PrepareForSignature({"x"}, {"neg"}, {}, unknown_pass,
                                            &prepared),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'no_such_pass'"),
                             HasSubstr("constant_folding"))));
}

TEST(GraphPipelineTest, EmptySignatureKeepsTheWholeGraph) {
  std::unique_ptr<GraphPipeline> pipeline = PrepareOrDie(kGraph);
  CpuDevice cpu;
  SignatureOptions options;
  options.devices = {&cpu};
  options.passes.rewriter.set_disable_meta_optimizer(true);
  PreparedGraph prepared;
  MF_ASSERT_OK(pipeline->PrepareForSignature({}, {}, {}, options, &prepared));
  EXPECT_EQ(5, prepared.graph->num_nodes());
  EXPECT_EQ(cpu.name(),
            prepared.graph->FindNodeByName("m")->assigned_device_name());
  for (const GraphPassRecord& r : prepared.passes) EXPECT_FALSE(r.ran());
}

// Test passes, in a registry of their own.
class RecordingPass : public GraphOptimizationPass {
 public:
  RecordingPass(std::string name, std::vector<std::string>* log,
                bool remove_neg = false, bool fail = false)
      : name_(std::move(name)),
        log_(log),
        remove_neg_(remove_neg),
        fail_(fail) {}
  absl::string_view name() const override { return name_; }
  absl::string_view preserves() const override { return "everything"; }
  bool EnabledBy(const RewriterConfig& config) const override {
    return name_ != "arithmetic" ||
           config.arithmetic_optimization() != RewriterConfig::OFF;
  }
  Status Run(const GraphOptimizationContext& context,
             Graph* graph) const override {
    log_->push_back(absl::StrCat(name_, context.devices.empty() ? "" : "@"));
    if (fail_) return errors::Internal("broken on purpose");
    if (remove_neg_) {
      // Reroute neg's consumer to relu and drop neg.
      Node* neg = graph->FindNodeByName("neg");
      Node* relu = graph->FindNodeByName("relu");
      if (neg != nullptr && relu != nullptr) {
        const std::vector<const Edge*> out = neg->out_edges();
        for (const Edge* e : out) {
          Node* dst = e->dst;
          const int port = e->dst_input;
          graph->RemoveEdge(e);
          graph->AddEdge(relu, 0, dst, port);
        }
        graph->RemoveNode(neg);
      }
    }
    return OkStatus();
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
  bool remove_neg_;
  bool fail_;
};

TEST(OptimizationPassRegistryTest, PhasesRunInOrderAndAreRecorded) {
  std::vector<std::string> log;
  OptimizationPassRegistry registry;
  registry.Register(OptimizationPhase::kPostPlacement, 0,
                    std::make_unique<RecordingPass>("late", &log));
  registry.Register(OptimizationPhase::kPrePlacement, 20,
                    std::make_unique<RecordingPass>("second", &log, true));
  registry.Register(OptimizationPhase::kPrePlacement, 10,
                    std::make_unique<RecordingPass>("first", &log));
  std::vector<std::string> names;
  for (const auto* e : registry.Passes()) {
    names.emplace_back(e->pass->name());
  }
  EXPECT_THAT(names, ElementsAre("first", "second", "late"));

  std::unique_ptr<GraphPipeline> pipeline = PrepareOrDie(kGraph);
  CpuDevice cpu;
  SignatureOptions options;
  options.devices = {&cpu};
  options.registry = &registry;
  PreparedGraph prepared;
  MF_ASSERT_OK(pipeline->PrepareForSignature({"x"}, {"neg", "relu"}, {},
                                             options, &prepared));
  // Post-placement passes see the devices.
  EXPECT_THAT(log, ElementsAre("first", "second", "late@"));
  ASSERT_EQ(3u, prepared.passes.size());
  const GraphPassRecord& second = prepared.passes[1];
  EXPECT_EQ("second", second.name());
  EXPECT_EQ("pre_placement", second.phase());
  EXPECT_TRUE(second.ran());
  EXPECT_EQ(second.nodes_before() - 1, second.nodes_after());
  EXPECT_GE(second.duration_us(), 0);
  EXPECT_EQ("post_placement", prepared.passes[2].phase());
}

TEST(OptimizationPassRegistryTest, SelectionByConfigNameAndList) {
  std::vector<std::string> log;
  OptimizationPassRegistry registry;
  registry.Register(OptimizationPhase::kPrePlacement, 0,
                    std::make_unique<RecordingPass>("arithmetic", &log));
  registry.Register(OptimizationPhase::kPrePlacement, 1,
                    std::make_unique<RecordingPass>("other", &log));
  std::unique_ptr<GraphPipeline> pipeline = PrepareOrDie(kGraph);
  auto run = [&](const PassSelection& selection) {
    log.clear();
    SignatureOptions options;
    options.registry = &registry;
    options.passes = selection;
    PreparedGraph prepared;
    MF_CHECK_OK(
        pipeline->PrepareForSignature({"x"}, {"neg"}, {}, options, &prepared));
    return log;
  };
  PassSelection all;
  EXPECT_THAT(run(all), ElementsAre("arithmetic", "other"));
  PassSelection toggle;
  toggle.rewriter.set_arithmetic_optimization(RewriterConfig::OFF);
  EXPECT_THAT(run(toggle), ElementsAre("other"));
  PassSelection by_name;
  by_name.disabled = {"other"};
  EXPECT_THAT(run(by_name), ElementsAre("arithmetic"));
  PassSelection listed;
  listed.rewriter.add_optimizers("other");
  EXPECT_THAT(run(listed), ElementsAre("other"));
  PassSelection none;
  none.rewriter.set_disable_meta_optimizer(true);
  EXPECT_TRUE(run(none).empty());
}

TEST(OptimizationPassRegistryTest, AFailingPassFailsTheSignatureByName) {
  std::vector<std::string> log;
  OptimizationPassRegistry registry;
  registry.Register(
      OptimizationPhase::kPrePlacement, 0,
      std::make_unique<RecordingPass>("broken", &log, false, true));
  std::unique_ptr<GraphPipeline> pipeline = PrepareOrDie(kGraph);
  SignatureOptions options;
  options.registry = &registry;
  PreparedGraph prepared;
  EXPECT_THAT(
      pipeline->PrepareForSignature({"x"}, {"neg"}, {}, options, &prepared),
      StatusIs(
          absl::StatusCode::kInternal,
          AllOf(HasSubstr("pass 'broken'"), HasSubstr("broken on purpose"))));
}

TEST(OptimizationPassRegistryTest, TheGlobalRegistryHoldsConstantFolding) {
  const auto* entry =
      OptimizationPassRegistry::Global()->Find("constant_folding");
  ASSERT_NE(nullptr, entry);
  EXPECT_EQ(OptimizationPhase::kPrePlacement, entry->phase);
  EXPECT_FALSE(entry->pass->preserves().empty());
  RewriterConfig off;
  off.set_constant_folding(RewriterConfig::OFF);
  EXPECT_FALSE(entry->pass->EnabledBy(off));
  EXPECT_TRUE(entry->pass->EnabledBy(RewriterConfig()));
}

}  // namespace
}  // namespace minflow
