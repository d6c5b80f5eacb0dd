#include "minflow/graph/subgraph.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// Test-only ops, independent of the built-in op set.
REGISTER_OP("SubgraphTestTwoOut").Output("a: float").Output("b: int32");
REGISTER_OP("SubgraphTestUnary").Input("x: float").Output("y: float");
REGISTER_OP("SubgraphTestIntUnary").Input("x: int32").Output("y: int32");
REGISTER_OP("SubgraphTestSource").Output("y: float");

// ---- RewriteGraphForExecution -----------------------------------------------

// two:0 -> l -> m, two:0 -> r -> unused, two:1 -> i; m waits for r.
constexpr char kGraph[] = R"pb(
  node { name: "two" op: "SubgraphTestTwoOut" device: "/device:CPU:0" }
  node { name: "l" op: "SubgraphTestUnary" input: "two" }
  node { name: "r" op: "SubgraphTestUnary" input: "two:0" }
  node { name: "m" op: "SubgraphTestUnary" input: "l" input: "^r" }
  node { name: "unused" op: "SubgraphTestUnary" input: "r" }
  node { name: "i" op: "SubgraphTestIntUnary" input: "two:1" }
  node { name: "lonely" op: "SubgraphTestSource" }
)pb";

class SubgraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    graph_ = std::make_unique<Graph>(OpRegistry::Global());
    MF_ASSERT_OK(ConvertGraphDefToGraph(GraphConstructorOptions(),
                                        ParseTextProtoOrDie<GraphDef>(kGraph),
                                        graph_.get()));
  }

  Status Rewrite(std::vector<std::string> feeds,
                 std::vector<std::string> fetches,
                 std::vector<std::string> targets = {}) {
    return RewriteGraphForExecution(feeds, fetches, targets, graph_.get());
  }

  std::vector<std::string> NodeNames() const {
    std::vector<std::string> names;
    for (const Node* n : graph_->nodes()) names.push_back(n->name());
    return names;
  }

  // The nodes of one op, by name.
  std::vector<Node*> NodesOf(const std::string& op) const {
    std::vector<Node*> nodes;
    for (Node* n : graph_->nodes()) {
      if (n->type_string() == op) nodes.push_back(n);
    }
    return nodes;
  }

  // "src:port" of the data edge into `node`'s input `index`.
  std::string InputOf(const Node* node, int index) const {
    const Edge* e = nullptr;
    const Status s = node->input_edge(index, &e);
    if (!s.ok()) return std::string(s.message());
    return absl::StrCat(e->src->name(), ":", e->src_output);
  }

  static int64_t Index(const Node* n) {
    int64_t index = -1;
    EXPECT_TRUE(GetNodeAttr(AttrSlice(n->def()), "index", &index).ok());
    return index;
  }
  static DataType Type(const Node* n) {
    DataType type = DT_INVALID;
    EXPECT_TRUE(GetNodeAttr(AttrSlice(n->def()), "T", &type).ok());
    return type;
  }

  std::unique_ptr<Graph> graph_;
};

TEST_F(SubgraphTest, FetchesBecomeRetvalsAndPruningKeepsWhatTheyNeed) {
  MF_ASSERT_OK(Rewrite({}, {"m", "i:0"}));
  const std::vector<Node*> retvals = NodesOf(kRetvalOp);
  ASSERT_EQ(retvals.size(), 2u);
  for (const Node* ret : retvals) {
    if (Index(ret) == 0) {
      EXPECT_EQ(InputOf(ret, 0), "m:0");
      EXPECT_EQ(Type(ret), DT_FLOAT);
    } else {
      EXPECT_EQ(Index(ret), 1);
      EXPECT_EQ(InputOf(ret, 0), "i:0");
      EXPECT_EQ(Type(ret), DT_INT32);
    }
    EXPECT_EQ(ret->num_outputs(), 0);
  }
  EXPECT_THAT(NodesOf(kArgOp), IsEmpty());
  // r stays for m's control input; unused and lonely go.
  std::vector<std::string> kept;
  for (const Node* n : graph_->nodes()) {
    if (!n->IsOp(kRetvalOp)) kept.push_back(n->name());
  }
  EXPECT_THAT(kept, UnorderedElementsAre("two", "l", "r", "m", "i"));
}

TEST_F(SubgraphTest, FeedsBecomeArgsForEveryConsumerOfThatOutput) {
  MF_ASSERT_OK(Rewrite({"two:0"}, {"m", "unused", "i"}));
  const std::vector<Node*> args = NodesOf(kArgOp);
  ASSERT_EQ(args.size(), 1u);
  const Node* arg = args[0];
  EXPECT_EQ(Index(arg), 0);
  EXPECT_EQ(Type(arg), DT_FLOAT);
  EXPECT_THAT(arg->output_types(), ElementsAre(DT_FLOAT));
  // The endpoint asks for the device the fed node asked for.
  EXPECT_EQ(arg->requested_device(), "/device:CPU:0");
  const std::string arg_out = absl::StrCat(arg->name(), ":0");
  EXPECT_EQ(InputOf(graph_->FindNodeByName("l"), 0), arg_out);
  EXPECT_EQ(InputOf(graph_->FindNodeByName("r"), 0), arg_out);
  // two:1 is not fed, so two stays for i.
  EXPECT_EQ(InputOf(graph_->FindNodeByName("i"), 0), "two:1");
  EXPECT_NE(graph_->FindNodeByName("two"), nullptr);
}

// A fed Placeholder's control edges move to its feed (TensorFlow's rule for
// converted graphs, whose Consts wait on "^input"); a fed node of any other
// op keeps them, as it may still have to run.
TEST(SubgraphControlEdgesTest, OnlyAFedPlaceholderHandsOverItsControlEdges) {
  constexpr char kText[] = R"pb(
    node {
      name: "input"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node { name: "src" op: "SubgraphTestSource" }
    node { name: "waits_input" op: "SubgraphTestSource" input: "^input" }
    node { name: "waits_src" op: "SubgraphTestSource" input: "^src" }
  )pb";
  Graph graph(OpRegistry::Global());
  MF_ASSERT_OK(ConvertGraphDefToGraph(
      GraphConstructorOptions(), ParseTextProtoOrDie<GraphDef>(kText), &graph));
  MF_ASSERT_OK(RewriteGraphForExecution(
      {"input", "src"}, {"waits_input", "waits_src"}, {}, &graph));
  EXPECT_EQ(graph.FindNodeByName("input"), nullptr);  // pruned: never runs
  ASSERT_NE(graph.FindNodeByName("src"), nullptr);    // still waited for
  auto control_sources = [&](const std::string& name) {
    std::vector<std::string> sources;
    for (const Edge* e : graph.FindNodeByName(name)->in_edges()) {
      if (e->IsControlEdge()) sources.push_back(e->src->type_string());
    }
    return sources;
  };
  EXPECT_THAT(control_sources("waits_input"), ElementsAre(kArgOp));
  EXPECT_THAT(control_sources("waits_src"), ElementsAre("SubgraphTestSource"));
}

TEST_F(SubgraphTest, FeedingEveryOutputOfANodePrunesIt) {
  MF_ASSERT_OK(Rewrite({"two:0", "two:1"}, {"m", "i"}));
  EXPECT_EQ(graph_->FindNodeByName("two"), nullptr);
  const std::vector<Node*> args = NodesOf(kArgOp);
  ASSERT_EQ(args.size(), 2u);
  for (const Node* arg : args) {
    EXPECT_EQ(Type(arg), Index(arg) == 0 ? DT_FLOAT : DT_INT32);
  }
  // The int feed reaches i.
  const Node* i = graph_->FindNodeByName("i");
  const Edge* e = nullptr;
  MF_ASSERT_OK(i->input_edge(0, &e));
  EXPECT_TRUE(e->src->IsOp(kArgOp));
  EXPECT_EQ(Index(e->src), 1);
}

TEST_F(SubgraphTest, FetchOfAFedTensorReadsTheFeed) {
  MF_ASSERT_OK(Rewrite({"l"}, {"l:0", "m"}));
  const std::vector<Node*> args = NodesOf(kArgOp);
  ASSERT_EQ(args.size(), 1u);
  for (const Node* ret : NodesOf(kRetvalOp)) {
    if (Index(ret) == 0) {
      EXPECT_EQ(InputOf(ret, 0), absl::StrCat(args[0]->name(), ":0"));
    } else {
      EXPECT_EQ(InputOf(ret, 0), "m:0");
    }
  }
  // l's own input is no longer needed, but m still waits for r.
  EXPECT_EQ(graph_->FindNodeByName("l"), nullptr);
  EXPECT_NE(graph_->FindNodeByName("r"), nullptr);
  EXPECT_NE(graph_->FindNodeByName("two"), nullptr);
}

TEST_F(SubgraphTest, TargetsKeepWhatTheyNeedWithoutARetval) {
  MF_ASSERT_OK(Rewrite({}, {}, {"unused", "lonely"}));
  EXPECT_THAT(NodesOf(kRetvalOp), IsEmpty());
  EXPECT_THAT(NodeNames(),
              UnorderedElementsAre("two", "r", "unused", "lonely"));
}

TEST_F(SubgraphTest, SameTensorFetchedTwiceGetsTwoRetvals) {
  MF_ASSERT_OK(Rewrite({}, {"l", "l:0"}));
  const std::vector<Node*> retvals = NodesOf(kRetvalOp);
  ASSERT_EQ(retvals.size(), 2u);
  std::vector<int64_t> indices;
  for (const Node* ret : retvals) {
    indices.push_back(Index(ret));
    EXPECT_EQ(InputOf(ret, 0), "l:0");
  }
  EXPECT_THAT(indices, UnorderedElementsAre(0, 1));
}

TEST_F(SubgraphTest, UnknownFeedFetchOrTargetIsNotFound) {
  EXPECT_THAT(Rewrite({"nope:0"}, {"m"}),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("Feed 'nope:0'"),
                             HasSubstr("no node named 'nope'"))));
  SetUp();
  EXPECT_THAT(Rewrite({}, {"nope"}),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("Fetch 'nope'"),
                             HasSubstr("no node named 'nope'"))));
  SetUp();
  EXPECT_THAT(Rewrite({}, {"m"}, {"nope"}),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("Target 'nope'"),
                             HasSubstr("no node named 'nope'"))));
}

TEST_F(SubgraphTest, TensorFedTwiceIsRejected) {
  EXPECT_THAT(Rewrite({"l", "l:0"}, {"m"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Tensor 'l:0' is fed more than once")));
}

TEST_F(SubgraphTest, PortOutOfRangeIsRejected) {
  EXPECT_THAT(Rewrite({}, {"l:1"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("Fetch 'l:1'"),
                             HasSubstr("node 'l' (SubgraphTestUnary) has 1 "
                                       "outputs"))));
  SetUp();
  EXPECT_THAT(
      Rewrite({"two:2"}, {"m"}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("Feed 'two:2'"), HasSubstr("has 2 outputs"))));
}

TEST_F(SubgraphTest, MalformedNamesAreRejected) {
  EXPECT_THAT(Rewrite({}, {"^m"}), StatusIs(absl::StatusCode::kInvalidArgument,
                                            HasSubstr("Tensor name '^m'")));
  SetUp();
  EXPECT_THAT(Rewrite({"l:x"}, {"m"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Tensor name 'l:x'")));
}

// ---- PruneForRoots ----------------------------------------------------------

TEST_F(SubgraphTest, PruneKeepsAncestorsAlongDataAndControlEdges) {
  Node* m = graph_->FindNodeByName("m");
  PruneForRoots({m}, graph_.get());
  // Descendants and unrelated nodes go.
  EXPECT_THAT(NodeNames(), UnorderedElementsAre("two", "l", "r", "m"));
  // Edges between kept nodes are untouched.
  EXPECT_EQ(InputOf(m, 0), "l:0");
  EXPECT_EQ(graph_->FindNodeByName("r")->out_edges().size(), 1u);
}

TEST_F(SubgraphTest, PruneWithSeveralOrNoRoots) {
  PruneForRoots({graph_->FindNodeByName("i"), graph_->FindNodeByName("lonely"),
                 graph_->FindNodeByName("i")},
                graph_.get());
  EXPECT_THAT(NodeNames(), UnorderedElementsAre("two", "i", "lonely"));
  PruneForRoots({}, graph_.get());
  EXPECT_THAT(NodeNames(), IsEmpty());
  EXPECT_EQ(graph_->num_edges(), 0);
}

TEST(PruneForRootsTest, DeepChainNeedsNoRecursion) {
  constexpr int kDepth = 200000;
  Graph g(OpRegistry::Global());
  GraphDef def;
  def.add_node()->set_name("n0");
  def.mutable_node(0)->set_op("SubgraphTestSource");
  for (int i = 1; i < kDepth; ++i) {
    NodeDef* n = def.add_node();
    n->set_name(absl::StrCat("n", i));
    n->set_op("SubgraphTestUnary");
    n->add_input(absl::StrCat("n", i - 1));
  }
  // A side branch off the middle that nothing needs.
  NodeDef* side = def.add_node();
  side->set_name("side");
  side->set_op("SubgraphTestUnary");
  side->add_input("n100");
  MF_ASSERT_OK(
      ConvertGraphDefToGraph(GraphConstructorOptions(), std::move(def), &g));
  PruneForRoots({g.FindNodeByName(absl::StrCat("n", kDepth - 1))}, &g);
  EXPECT_EQ(g.num_nodes(), kDepth);
  EXPECT_EQ(g.FindNodeByName("side"), nullptr);
  EXPECT_NE(g.FindNodeByName("n0"), nullptr);
}

}  // namespace
}  // namespace minflow
