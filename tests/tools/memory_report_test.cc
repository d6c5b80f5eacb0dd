// LivenessBoundBytes on hand-made step stats: sequential and overlapping
// lifetimes, consumers that keep a tensor alive, and what is not counted.
#include "tools/memory_report.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/graph.pb.h"
#include "minflow/step_stats.pb.h"

namespace minflow {
namespace tools {
namespace {

// Adds node `name` (op `op`, reading `inputs`) to `graph`, and to `stats`
// as running from `start` to `end` (ns) with one float output of
// `elements` elements (none when 0).
void AddNode(const std::string& name, const std::string& op,
             std::vector<std::string> inputs, int64_t start, int64_t end,
             int64_t elements, GraphDef* graph, StepStats* stats) {
  NodeDef* node = graph->add_node();
  node->set_name(name);
  node->set_op(op);
  for (const std::string& in : inputs) node->add_input(in);
  if (stats->dev_stats_size() == 0) stats->add_dev_stats();
  NodeExecStats* ns = stats->mutable_dev_stats(0)->add_node_stats();
  ns->set_node_name(name);
  ns->set_all_start_nanos(start);
  ns->set_all_end_rel_nanos(end - start);
  if (elements > 0) {
    NodeOutput* out = ns->add_output();
    out->set_slot(0);
    out->mutable_tensor_description()->set_dtype(DT_FLOAT);
    out->mutable_tensor_description()->mutable_shape()->add_dim()->set_size(
        elements);
  }
}

TEST(LivenessBoundTest, AChainNeedsTwoNeighboursAtOnce) {
  // a -> b -> c, one after another: a's output lives until b ends, b's
  // from b's start: 100 + 200 floats at most, never all three.
  GraphDef graph;
  StepStats stats;
  AddNode("a", "Relu", {}, 0, 10, 100, &graph, &stats);
  AddNode("b", "Relu", {"a"}, 10, 20, 200, &graph, &stats);
  AddNode("c", "Relu", {"b:0"}, 20, 30, 50, &graph, &stats);
  EXPECT_EQ(LivenessBoundBytes(stats, graph), (100 + 200) * 4);
}

TEST(LivenessBoundTest, ALateConsumerKeepsATensorAlive) {
  // a's output is read by d at the end, so it is alive with b and c.
  GraphDef graph;
  StepStats stats;
  AddNode("a", "Relu", {}, 0, 10, 100, &graph, &stats);
  AddNode("b", "Relu", {"a"}, 10, 20, 200, &graph, &stats);
  AddNode("c", "Relu", {"b"}, 20, 30, 300, &graph, &stats);
  AddNode("d", "AddV2", {"c", "a"}, 30, 40, 300, &graph, &stats);
  // During d: a, c and d's output.
  EXPECT_EQ(LivenessBoundBytes(stats, graph), (100 + 300 + 300) * 4);
}

TEST(LivenessBoundTest, OverlappingNodesCountTogether) {
  GraphDef graph;
  StepStats stats;
  AddNode("a", "Relu", {}, 0, 50, 100, &graph, &stats);
  AddNode("b", "Relu", {}, 10, 40, 100, &graph, &stats);
  EXPECT_EQ(LivenessBoundBytes(stats, graph), 800);
}

TEST(LivenessBoundTest, ConstantsFeedsAndControlEdgesAreNotCounted) {
  GraphDef graph;
  StepStats stats;
  AddNode("w", "Const", {}, 0, 1, 1000, &graph, &stats);
  AddNode("x", "_Arg", {}, 0, 1, 1000, &graph, &stats);
  AddNode("y", "MatMul", {"x", "w"}, 1, 5, 10, &graph, &stats);
  AddNode("z", "NoOp", {"^y"}, 5, 6, 0, &graph, &stats);
  EXPECT_EQ(LivenessBoundBytes(stats, graph), 40);
}

TEST(LivenessBoundTest, EmptyStepNeedsNothing) {
  EXPECT_EQ(LivenessBoundBytes(StepStats(), GraphDef()), 0);
}

}  // namespace
}  // namespace tools
}  // namespace minflow
