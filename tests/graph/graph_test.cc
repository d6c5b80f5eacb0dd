#include "minflow/graph/graph.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/op_def.pb.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::ProtoToText;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// Test-only ops, independent of the built-in op set.
REGISTER_OP("GraphUnitSource").Output("y: float");
REGISTER_OP("GraphUnitUnary").Input("x: float").Output("y: float");
REGISTER_OP("GraphUnitBinary")
    .Input("a: T")
    .Input("b: T")
    .Output("y: T")
    .Attr("T: type");
REGISTER_OP("GraphUnitTwoOut").Output("a: float").Output("b: int32");
REGISTER_OP("GraphUnitStateful").Output("y: float").SetIsStateful();

NodeDef Def(const std::string& name, const std::string& op) {
  NodeDef def;
  def.set_name(name);
  def.set_op(op);
  return def;
}

// Adds a node that needs no attrs; fails the test on error.
Node* Add(Graph* g, const std::string& name,
          const std::string& op = "GraphUnitUnary") {
  StatusOr<Node*> node = g->AddNode(Def(name, op));
  EXPECT_TRUE(node.ok()) << node.status();
  return node.ok() ? *node : nullptr;
}

std::vector<std::string> Names(const std::vector<Node*>& nodes) {
  std::vector<std::string> names;
  for (const Node* n : nodes) names.push_back(n->name());
  return names;
}

TEST(GraphTest, AddNodeLooksUpTheOpAndComputesTypes) {
  Graph g(OpRegistry::Global());
  NodeDef def = Def("b", "GraphUnitBinary");
  AddNodeAttr("T", DT_INT32, &def);
  StatusOr<Node*> b = g.AddNode(def);
  MF_ASSERT_OK(b.status());
  EXPECT_EQ((*b)->name(), "b");
  EXPECT_EQ((*b)->type_string(), "GraphUnitBinary");
  EXPECT_EQ((*b)->op_def().name(), "GraphUnitBinary");
  EXPECT_THAT((*b)->input_types(), ElementsAre(DT_INT32, DT_INT32));
  EXPECT_THAT((*b)->output_types(), ElementsAre(DT_INT32));
  EXPECT_EQ((*b)->num_inputs(), 2);
  EXPECT_EQ((*b)->num_outputs(), 1);
  EXPECT_TRUE((*b)->IsOp("GraphUnitBinary"));
  EXPECT_FALSE((*b)->IsStateful());
  EXPECT_EQ((*b)->requested_device(), "");
  EXPECT_EQ((*b)->assigned_device_name(), "");
  Node* s = Add(&g, "s", "GraphUnitStateful");
  EXPECT_TRUE(s->IsStateful());
  EXPECT_EQ(g.num_nodes(), 2);
  EXPECT_EQ(g.num_edges(), 0);
}

TEST(GraphTest, AddNodeRejectsUnknownOpsAndMissingAttrs) {
  Graph g(OpRegistry::Global());
  EXPECT_THAT(
      g.AddNode(Def("x", "GraphUnitNoSuchOp")).status(),
      StatusIs(absl::StatusCode::kNotFound,
               HasSubstr("Op type not registered 'GraphUnitNoSuchOp'")));
  // T has no default, so the types cannot be computed.
  EXPECT_FALSE(g.AddNode(Def("b", "GraphUnitBinary")).ok());
  EXPECT_EQ(g.num_nodes(), 0);
  EXPECT_EQ(g.FindNodeByName("x"), nullptr);
  EXPECT_EQ(g.FindNodeByName("b"), nullptr);
}

TEST(GraphTest, DuplicateNameIsRejectedAndLeavesTheGraphAsItWas) {
  Graph g(OpRegistry::Global());
  Node* a = Add(&g, "a");
  NodeDef dup = Def("a", "GraphUnitSource");
  EXPECT_THAT(g.AddNode(dup).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Node name 'a' is used by more than one "
                                 "node")));
  EXPECT_EQ(g.num_nodes(), 1);
  EXPECT_EQ(g.FindNodeByName("a"), a);
  EXPECT_EQ(a->type_string(), "GraphUnitUnary");
  // The failed add used no id.
  Node* b = Add(&g, "b");
  EXPECT_EQ(b->id(), a->id() + 1);
  EXPECT_EQ(g.num_node_ids(), 2);
}

TEST(GraphTest, IdsAreDenseAndStayStableAcrossRemovals) {
  Graph g(OpRegistry::Global());
  std::vector<Node*> nodes;
  for (int i = 0; i < 40; ++i) nodes.push_back(Add(&g, absl::StrCat("n", i)));
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(nodes[i]->id(), i);
    EXPECT_EQ(g.FindNodeId(i), nodes[i]);
  }
  g.RemoveNode(nodes[3]);
  g.RemoveNode(nodes[17]);
  EXPECT_EQ(g.num_nodes(), 38);
  EXPECT_EQ(g.num_node_ids(), 40);
  EXPECT_EQ(g.FindNodeId(3), nullptr);
  EXPECT_EQ(g.FindNodeId(17), nullptr);
  EXPECT_EQ(g.FindNodeId(-1), nullptr);
  EXPECT_EQ(g.FindNodeId(40), nullptr);
  // Survivors keep their ids and addresses.
  for (int i : {0, 4, 16, 18, 39}) {
    EXPECT_EQ(g.FindNodeId(i), nodes[i]);
    EXPECT_EQ(nodes[i]->name(), absl::StrCat("n", i));
  }
  // nodes() lists live nodes in id order.
  const std::vector<Node*> live = g.nodes();
  ASSERT_EQ(live.size(), 38u);
  for (size_t i = 1; i < live.size(); ++i) {
    EXPECT_LT(live[i - 1]->id(), live[i]->id());
  }
  // A removed name is free again; ids are never reused.
  Node* again = Add(&g, "n3");
  EXPECT_EQ(again->id(), 40);
  EXPECT_EQ(g.FindNodeByName("n3"), again);
  EXPECT_EQ(g.FindNodeId(3), nullptr);
}

TEST(GraphTest, FindNodeByName) {
  Graph g(OpRegistry::Global());
  Node* a = Add(&g, "scope/a");
  Node* b = Add(&g, "b");
  EXPECT_EQ(g.FindNodeByName("scope/a"), a);
  EXPECT_EQ(g.FindNodeByName("b"), b);
  EXPECT_EQ(g.FindNodeByName("a"), nullptr);
  EXPECT_EQ(g.FindNodeByName(""), nullptr);
  EXPECT_EQ(g.FindNodeByName("B"), nullptr);
}

TEST(GraphTest, AddEdgeConnectsPortsInInsertionOrder) {
  Graph g(OpRegistry::Global());
  Node* two = Add(&g, "two", "GraphUnitTwoOut");
  NodeDef def = Def("bin", "GraphUnitBinary");
  AddNodeAttr("T", DT_FLOAT, &def);
  Node* bin = *g.AddNode(def);
  Node* src = Add(&g, "src", "GraphUnitSource");
  const Edge* e1 = g.AddEdge(two, 0, bin, 1);
  const Edge* e0 = g.AddEdge(src, 0, bin, 0);
  const Edge* c = g.AddControlEdge(src, two);
  EXPECT_EQ(g.num_edges(), 3);
  EXPECT_EQ(e1->src, two);
  EXPECT_EQ(e1->src_output, 0);
  EXPECT_EQ(e1->dst, bin);
  EXPECT_EQ(e1->dst_input, 1);
  EXPECT_FALSE(e1->IsControlEdge());
  EXPECT_TRUE(c->IsControlEdge());
  EXPECT_EQ(c->src_output, kControlSlot);
  EXPECT_EQ(c->dst_input, kControlSlot);
  EXPECT_NE(e0->id, e1->id);
  EXPECT_THAT(bin->in_edges(), ElementsAre(e1, e0));
  EXPECT_THAT(src->out_edges(), ElementsAre(e0, c));
  EXPECT_THAT(two->in_edges(), ElementsAre(c));
  const Edge* found = nullptr;
  MF_EXPECT_OK(bin->input_edge(0, &found));
  EXPECT_EQ(found, e0);
  MF_EXPECT_OK(bin->input_edge(1, &found));
  EXPECT_EQ(found, e1);
  EXPECT_THAT(bin->input_edge(2, &found),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Node bin has no edge into input 2")));
  // Control edges are not inputs.
  EXPECT_THAT(two->input_edge(0, &found),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(GraphTest, AddControlEdgeKeepsOneEdgePerPair) {
  Graph g(OpRegistry::Global());
  Node* a = Add(&g, "a", "GraphUnitSource");
  Node* b = Add(&g, "b", "GraphUnitSource");
  const Edge* first = g.AddControlEdge(a, b);
  EXPECT_EQ(g.AddControlEdge(a, b), first);
  EXPECT_EQ(g.num_edges(), 1);
  EXPECT_NE(g.AddControlEdge(b, a), first);
  EXPECT_EQ(g.num_edges(), 2);
}

TEST(GraphTest, RemoveEdgeUpdatesBothEnds) {
  Graph g(OpRegistry::Global());
  Node* a = Add(&g, "a", "GraphUnitSource");
  Node* b = Add(&g, "b");
  Node* c = Add(&g, "c");
  const Edge* ab = g.AddEdge(a, 0, b, 0);
  const Edge* ac = g.AddEdge(a, 0, c, 0);
  const Edge* bc = g.AddControlEdge(b, c);
  g.RemoveEdge(ab);
  EXPECT_EQ(g.num_edges(), 2);
  EXPECT_THAT(a->out_edges(), ElementsAre(ac));
  EXPECT_TRUE(b->in_edges().empty());
  g.RemoveEdge(bc);
  EXPECT_TRUE(b->out_edges().empty());
  EXPECT_THAT(c->in_edges(), ElementsAre(ac));
  EXPECT_EQ(g.num_edges(), 1);
  // The input can be connected again.
  const Edge* again = g.AddEdge(c, 0, b, 0);
  const Edge* found = nullptr;
  MF_EXPECT_OK(b->input_edge(0, &found));
  EXPECT_EQ(found, again);
}

TEST(GraphTest, RemoveNodeRemovesEveryEdgeTouchingIt) {
  Graph g(OpRegistry::Global());
  Node* a = Add(&g, "a", "GraphUnitSource");
  Node* b = Add(&g, "b");
  Node* c = Add(&g, "c");
  Node* d = Add(&g, "d");
  g.AddEdge(a, 0, b, 0);
  g.AddEdge(b, 0, c, 0);
  g.AddControlEdge(b, d);
  g.AddControlEdge(a, b);
  const Edge* ad = g.AddEdge(a, 0, d, 0);
  // A self loop is in both of b's lists.
  g.AddControlEdge(b, b);
  EXPECT_EQ(g.num_edges(), 6);
  g.RemoveNode(b);
  EXPECT_EQ(g.num_nodes(), 3);
  EXPECT_EQ(g.num_edges(), 1);
  EXPECT_EQ(g.FindNodeByName("b"), nullptr);
  EXPECT_THAT(a->out_edges(), ElementsAre(ad));
  EXPECT_TRUE(c->in_edges().empty());
  EXPECT_THAT(d->in_edges(), ElementsAre(ad));
  EXPECT_THAT(Names(g.nodes()), ElementsAre("a", "c", "d"));
}

constexpr char kRoundTrip[] = R"pb(
  node { name: "src" op: "GraphUnitSource" device: "/device:CPU:0" }
  node { name: "two" op: "GraphUnitTwoOut" }
  node {
    name: "bin"
    op: "GraphUnitBinary"
    input: "two"
    input: "src"
    input: "^s"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node { name: "s" op: "GraphUnitStateful" }
  node {
    name: "pair"
    op: "GraphUnitBinary"
    input: "bin"
    input: "two"
    input: "^src"
    input: "^s"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "ints"
    op: "GraphUnitBinary"
    input: "two:1"
    input: "two:1"
    attr {
      key: "T"
      value { type: DT_INT32 }
    }
  }
  versions { producer: 27 min_consumer: 3 }
)pb";

TEST(GraphTest, ToGraphDefRoundTrips) {
  const GraphDef original = ParseTextProtoOrDie<GraphDef>(kRoundTrip);
  Graph g(OpRegistry::Global());
  MF_ASSERT_OK(ConvertGraphDefToGraph(GraphConstructorOptions(), original, &g));
  GraphDef exported;
  g.ToGraphDef(&exported);
  // The same nodes, in order, with the same inputs, devices and attrs.
  EXPECT_EQ(ProtoToText(exported), ProtoToText(original));
  // And importing the export gives the same graph again.
  Graph g2(OpRegistry::Global());
  MF_ASSERT_OK(
      ConvertGraphDefToGraph(GraphConstructorOptions(), exported, &g2));
  GraphDef again;
  g2.ToGraphDef(&again);
  EXPECT_EQ(ProtoToText(again), ProtoToText(exported));
  EXPECT_EQ(g2.versions().producer(), 27);
  EXPECT_EQ(g2.versions().min_consumer(), 3);
}

TEST(GraphTest, ToGraphDefRebuildsInputsFromEdges) {
  Graph g(OpRegistry::Global());
  Node* two = Add(&g, "two", "GraphUnitTwoOut");
  Node* src = Add(&g, "src", "GraphUnitSource");
  NodeDef def = Def("bin", "GraphUnitBinary");
  AddNodeAttr("T", DT_INT32, &def);
  def.add_input("stale");  // inputs come from edges, not from the NodeDef
  Node* bin = *g.AddNode(def);
  Node* removed = Add(&g, "removed", "GraphUnitSource");
  // Added out of port order, with control edges in between.
  g.AddControlEdge(src, bin);
  g.AddEdge(two, 1, bin, 1);
  g.AddControlEdge(two, bin);
  g.AddEdge(two, 1, bin, 0);
  g.RemoveNode(removed);
  bin->set_assigned_device_name("/job:localhost/replica:0/task:0/device:CPU:0");
  VersionDef versions;
  versions.set_producer(5);
  g.set_versions(versions);

  GraphDef out;
  out.add_node()->set_name("cleared");
  g.ToGraphDef(&out);
  ASSERT_EQ(out.node_size(), 3);
  EXPECT_EQ(out.versions().producer(), 5);
  EXPECT_EQ(out.node(0).name(), "two");
  EXPECT_EQ(out.node(1).name(), "src");
  const NodeDef& b = out.node(2);
  EXPECT_EQ(b.name(), "bin");
  EXPECT_THAT(b.input(), ElementsAre("two:1", "two:1", "^src", "^two"));
  // The assigned device wins over the requested one.
  EXPECT_EQ(b.device(), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(b.attr().at("T").type(), DT_INT32);
}

TEST(GraphTest, TopologicalOrderPutsEveryNodeAfterItsInputs) {
  Graph g(OpRegistry::Global());
  MF_ASSERT_OK(ConvertGraphDefToGraph(GraphConstructorOptions(),
                                      ParseTextProtoOrDie<GraphDef>(kRoundTrip),
                                      &g));
  // A node added last that the first node waits for: the order follows
  // edges, not ids.
  Node* late = Add(&g, "late", "GraphUnitSource");
  g.AddControlEdge(late, g.FindNodeByName("src"));
  std::vector<Node*> order;
  MF_ASSERT_OK(TopologicalOrder(g, &order));
  ASSERT_EQ(static_cast<int>(order.size()), g.num_nodes());
  std::vector<int> position(g.num_node_ids(), -1);
  for (size_t i = 0; i < order.size(); ++i) position[order[i]->id()] = i;
  for (const Node* n : g.nodes()) {
    ASSERT_GE(position[n->id()], 0) << n->name();
    for (const Edge* e : n->in_edges()) {
      EXPECT_LT(position[e->src->id()], position[n->id()])
          << e->src->name() << " -> " << n->name();
    }
  }
  EXPECT_LT(position[late->id()], position[g.FindNodeByName("src")->id()]);
}

TEST(GraphTest, TopologicalOrderNamesANodeOnACycle) {
  Graph g(OpRegistry::Global());
  // "down" hangs below the cycle and "up" above it; the lowest id is
  // "down", so the search has to walk back into the cycle.
  Node* down = Add(&g, "down");
  Node* up = Add(&g, "up", "GraphUnitSource");
  Node* a = Add(&g, "a");
  Node* b = Add(&g, "b");
  Node* c = Add(&g, "c");
  g.AddEdge(up, 0, a, 0);
  g.AddEdge(a, 0, b, 0);
  g.AddEdge(b, 0, c, 0);
  g.AddControlEdge(c, a);
  g.AddEdge(c, 0, down, 0);
  std::vector<Node*> order;
  const Status s = TopologicalOrder(g, &order);
  EXPECT_THAT(
      s, StatusIs(
             absl::StatusCode::kInvalidArgument,
             AllOf(HasSubstr("Graph has a cycle: node '"),
                   HasSubstr("GraphUnitUnary) is its own ancestor"),
                   AnyOf(HasSubstr("'a'"), HasSubstr("'b'"), HasSubstr("'c'")),
                   Not(HasSubstr("'down'")), Not(HasSubstr("'up'")))));
  // A self loop is a cycle too.
  Graph g2(OpRegistry::Global());
  Node* self = Add(&g2, "self", "GraphUnitSource");
  g2.AddControlEdge(self, self);
  EXPECT_THAT(TopologicalOrder(g2, &order),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("node 'self' (GraphUnitSource)")));
}

TEST(GraphTest, DeepChainNeedsNoRecursion) {
  // Deep enough that a recursive walk would overflow a thread's stack.
  constexpr int kDepth = 200000;
  Graph g(OpRegistry::Global());
  g.Reserve(kDepth, kDepth);
  Node* prev = Add(&g, "n0", "GraphUnitSource");
  for (int i = 1; i < kDepth; ++i) {
    Node* n = Add(&g, absl::StrCat("n", i));
    g.AddEdge(prev, 0, n, 0);
    prev = n;
  }
  // One more node, after the chain's end.
  g.AddControlEdge(prev, Add(&g, "after_chain", "GraphUnitSource"));
  std::vector<Node*> order;
  MF_ASSERT_OK(TopologicalOrder(g, &order));
  ASSERT_EQ(static_cast<int>(order.size()), kDepth + 1);
  for (int i = 0; i < kDepth; ++i) {
    ASSERT_EQ(order[i]->id(), i);
  }
  EXPECT_EQ(order.back()->name(), "after_chain");
  // A cycle through the whole chain is found without recursion as well.
  g.AddControlEdge(prev, g.FindNodeByName("n0"));
  EXPECT_THAT(TopologicalOrder(g, &order),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Graph has a cycle")));
}

}  // namespace
}  // namespace minflow
