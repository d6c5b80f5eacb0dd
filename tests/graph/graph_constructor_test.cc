#include "minflow/graph/graph_constructor.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "tests/testlib/nested_proto.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Test-only ops, independent of the built-in op set.
REGISTER_OP("GraphTestSource").Output("out: float").Attr("value: float = 1.0");
REGISTER_OP("GraphTestIntSource").Output("out: int32");
REGISTER_OP("GraphTestUnary").Input("x: T").Output("y: T").Attr("T: type");
REGISTER_OP("GraphTestAddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: type");
REGISTER_OP("GraphTestTwoOut").Output("a: float").Output("b: int32");
REGISTER_OP("GraphTestSink").Input("x: float");

Status Import(const std::string& text, Graph* graph) {
  return ConvertGraphDefToGraph(GraphConstructorOptions(),
                                ParseTextProtoOrDie<GraphDef>(text), graph);
}

TEST(GraphConstructorTest, ImportsNodesEdgesAndDefaults) {
  Graph g(OpRegistry::Global());
  MF_ASSERT_OK(Import(R"pb(
                        node { name: "a" op: "GraphTestSource" }
                        node { name: "two" op: "GraphTestTwoOut" }
                        node {
                          name: "u"
                          op: "GraphTestUnary"
                          input: "two:1"
                          attr {
                            key: "T"
                            value { type: DT_INT32 }
                          }
                        }
                        node {
                          name: "sum"
                          op: "GraphTestAddN"
                          input: "a"
                          input: "two:0"
                          input: "^u"
                          attr {
                            key: "N"
                            value { i: 2 }
                          }
                          attr {
                            key: "T"
                            value { type: DT_FLOAT }
                          }
                        }
                        versions { producer: 1882 min_consumer: 12 }
                      )pb",
                      &g));
  EXPECT_EQ(g.num_nodes(), 4);
  Node* a = g.FindNodeByName("a");
  ASSERT_NE(a, nullptr);
  // The default of `value` was added.
  EXPECT_EQ(a->def().attr().at("value").f(), 1.0f);
  Node* sum = g.FindNodeByName("sum");
  EXPECT_EQ(sum->num_inputs(), 2);
  EXPECT_EQ(sum->in_edges().size(), 3u);
  const Edge* e = nullptr;
  MF_ASSERT_OK(sum->input_edge(1, &e));
  EXPECT_EQ(e->src->name(), "two");
  EXPECT_EQ(e->src_output, 0);
  EXPECT_EQ(g.versions().producer(), 1882);
}

// Two outputs, a non-zero port, a control input: what export must rebuild.
constexpr char kPortsAndControlGraph[] = R"pb(
  node { name: "two" op: "GraphTestTwoOut" }
  node {
    name: "u"
    op: "GraphTestUnary"
    input: "two:1"
    input: "^two"
    attr {
      key: "T"
      value { type: DT_INT32 }
    }
  }
  node { name: "s" op: "GraphTestSink" input: "two" }
)pb";

TEST(GraphConstructorTest, ExportRoundTripsAndImportIsDeterministic) {
  const std::string text = kPortsAndControlGraph;
  Graph g1(OpRegistry::Global());
  MF_ASSERT_OK(Import(text, &g1));
  GraphDef out1;
  g1.ToGraphDef(&out1);
  Graph g2(OpRegistry::Global());
  MF_ASSERT_OK(ConvertGraphDefToGraph(GraphConstructorOptions(), out1, &g2));
  GraphDef out2;
  g2.ToGraphDef(&out2);
  EXPECT_EQ(out1.SerializeAsString(), out2.SerializeAsString());
  Graph g3(OpRegistry::Global());
  MF_ASSERT_OK(Import(text, &g3));
  GraphDef out3;
  g3.ToGraphDef(&out3);
  EXPECT_EQ(out1.SerializeAsString(), out3.SerializeAsString());
  EXPECT_EQ(out1.node(1).input(0), "two:1");
  EXPECT_EQ(out1.node(1).input(1), "^two");
}

TEST(GraphConstructorTest, UnknownOpIsNotFoundNamingNode) {
  Graph g(OpRegistry::Global());
  EXPECT_THAT(
      Import("node { name: 'x' op: 'GraphTestSourc' }", &g),
      StatusIs(absl::StatusCode::kNotFound,
               AllOf(HasSubstr("Op type not registered 'GraphTestSourc'"),
                     HasSubstr("{{node x}}"))));
}

TEST(GraphConstructorTest, RejectsMissingInputNode) {
  Graph g(OpRegistry::Global());
  EXPECT_THAT(
      Import("node { name: 's' op: 'GraphTestSink' input: 'nope' }", &g),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("Unknown input node 'nope'"),
                     HasSubstr("{{node s}} = GraphTestSink"))));
}

TEST(GraphConstructorTest, RejectsPortOutOfRange) {
  Graph g(OpRegistry::Global());
  EXPECT_THAT(Import(R"pb(
                       node { name: "a" op: "GraphTestSource" }
                       node { name: "s" op: "GraphTestSink" input: "a:1" }
                     )pb",
                     &g),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("invalid output 1 of source node a which has "
                                 "1 outputs")));
}

TEST(GraphConstructorTest, RejectsMalformedPort) {
  Graph g(OpRegistry::Global());
  EXPECT_THAT(Import(R"pb(
                       node { name: "a" op: "GraphTestSource" }
                       node { name: "s" op: "GraphTestSink" input: "a:x" }
                     )pb",
                     &g),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("malformed output port")));
}

TEST(GraphConstructorTest, RejectsWrongInputCount) {
  Graph g(OpRegistry::Global());
  EXPECT_THAT(
      Import(R"pb(
               node { name: "a" op: "GraphTestSource" }
               node { name: "s" op: "GraphTestSink" input: "a" input: "a" }
             )pb",
             &g),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("{{node s}}")));
}

TEST(GraphConstructorTest, RejectsDtypeMismatch) {
  Graph g(OpRegistry::Global());
  EXPECT_THAT(Import(R"pb(
                       node { name: "i" op: "GraphTestIntSource" }
                       node { name: "s" op: "GraphTestSink" input: "i" }
                     )pb",
                     &g),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Input 0 of node s was passed int32 from i:0 "
                                 "incompatible with expected float")));
}

TEST(GraphConstructorTest, RejectsDuplicateNames) {
  Graph g(OpRegistry::Global());
  EXPECT_THAT(Import(R"pb(
                       node { name: "a" op: "GraphTestSource" }
                       node { name: "a" op: "GraphTestSource" }
                     )pb",
                     &g),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'a' is used by more than one node")));
}

TEST(GraphConstructorTest, RejectsInvalidNames) {
  Graph g(OpRegistry::Global());
  EXPECT_THAT(Import("node { name: '_a' op: 'GraphTestSource' }", &g),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'_a' (op GraphTestSource) is not valid")));
  Graph g2(OpRegistry::Global());
  EXPECT_THAT(Import("node { name: '' op: 'GraphTestSource' }", &g2),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(GraphConstructorTest, CycleErrorNamesANodeOnTheCycle) {
  Graph g(OpRegistry::Global());
  const Status s = Import(R"pb(
                            node {
                              name: "a"
                              op: "GraphTestUnary"
                              input: "c"
                              attr {
                                key: "T"
                                value { type: DT_FLOAT }
                              }
                            }
                            node {
                              name: "b"
                              op: "GraphTestUnary"
                              input: "a"
                              attr {
                                key: "T"
                                value { type: DT_FLOAT }
                              }
                            }
                            node {
                              name: "c"
                              op: "GraphTestUnary"
                              input: "b"
                              attr {
                                key: "T"
                                value { type: DT_FLOAT }
                              }
                            }
                            node {
                              name: "d"
                              op: "GraphTestUnary"
                              input: "c"
                              attr {
                                key: "T"
                                value { type: DT_FLOAT }
                              }
                            }
                          )pb",
                          &g);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("Graph has a cycle")));
  EXPECT_THAT(std::string(s.message()),
              ::testing::ContainsRegex("node '(a|b|c)'"));
}

TEST(GraphConstructorTest, SelfLoopIsACycle) {
  Graph g(OpRegistry::Global());
  EXPECT_THAT(
      Import(R"pb(
               node {
                 name: "a"
                 op: "GraphTestUnary"
                 input: "a"
                 attr {
                   key: "T"
                   value { type: DT_FLOAT }
                 }
               }
             )pb",
             &g),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("node 'a' (GraphTestUnary) is its own ancestor")));
}

// Collecting mode (options.errors): see Note [Collecting import errors].
std::vector<Status> ImportCollecting(const std::string& text, Graph* graph,
                                     Status* returned = nullptr) {
  std::vector<Status> errors;
  GraphConstructorOptions options;
  options.errors = &errors;
  Status s = ConvertGraphDefToGraph(options,
                                    ParseTextProtoOrDie<GraphDef>(text), graph);
  if (returned != nullptr) *returned = s;
  return errors;
}

// Text of a GraphTestUnary node over float inputs.
std::string Unary(const std::string& name, const std::string& input) {
  return absl::StrCat("node { name: '", name, "' op: 'GraphTestUnary' input: '",
                      input,
                      "' attr { key: 'T' value { type: DT_FLOAT } } }\n");
}

TEST(GraphConstructorTest, CollectingModeReportsEveryIndependentError) {
  Graph g(OpRegistry::Global());
  Status returned;
  const std::vector<Status> errors = ImportCollecting(
      R"pb(
        node { name: "a" op: "GraphTestSource" }
        node { name: "typo" op: "GraphTestSourc" }
        node { name: "lost" op: "GraphTestSink" input: "ghost" }
        node { name: "i" op: "GraphTestIntSource" }
        node { name: "mismatch" op: "GraphTestSink" input: "i" }
        node { name: "ok" op: "GraphTestSink" input: "a" }
      )pb",
      &g, &returned);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_THAT(errors[0], StatusIs(absl::StatusCode::kNotFound,
                                  AllOf(HasSubstr("Op type not registered "
                                                  "'GraphTestSourc'"),
                                        HasSubstr("{{node typo}}"))));
  EXPECT_THAT(errors[1], StatusIs(absl::StatusCode::kInvalidArgument,
                                  AllOf(HasSubstr("Unknown input node 'ghost'"),
                                        HasSubstr("{{node lost}}"))));
  EXPECT_THAT(errors[2],
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Input 0 of node mismatch was passed int32")));
  EXPECT_EQ(returned, errors[0]);
  // The graph keeps exactly the valid nodes.
  EXPECT_EQ(g.num_nodes(), 3);
  EXPECT_NE(g.FindNodeByName("ok"), nullptr);
  EXPECT_EQ(g.FindNodeByName("mismatch"), nullptr);
  EXPECT_EQ(g.FindNodeByName("lost"), nullptr);
}

TEST(GraphConstructorTest, CollectingModeDoesNotCascadeToConsumers) {
  Graph g(OpRegistry::Global());
  // `bad` is an unknown op and `wrong` has a port out of range: the nodes
  // reading them (by data or control edge, directly or further down) are
  // left out without errors of their own.
  const std::vector<Status> errors = ImportCollecting(
      R"pb(
        node { name: "a" op: "GraphTestSource" }
        node { name: "bad" op: "NoSuchOpAnywhere" }
        node {
          name: "reads_bad"
          op: "GraphTestAddN"
          input: "a"
          input: "bad:1"
          attr {
            key: "N"
            value { i: 2 }
          }
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node { name: "after_bad" op: "GraphTestSink" input: "reads_bad" }
        node { name: "control_on_bad" op: "GraphTestSource" input: "^bad" }
        node { name: "wrong" op: "GraphTestSink" input: "a:3" }
        node { name: "after_wrong" op: "GraphTestSource" input: "^wrong" }
        node { name: "fine" op: "GraphTestSink" input: "a" }
      )pb",
      &g);
  ASSERT_EQ(errors.size(), 2u) << errors[0] << "\n" << errors.back();
  EXPECT_THAT(errors[0],
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("{{node bad}}")));
  EXPECT_THAT(errors[1], StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("{{node wrong}}")));
  std::vector<std::string> names;
  for (const Node* n : g.nodes()) names.push_back(n->name());
  EXPECT_THAT(names, ::testing::ElementsAre("a", "fine"));
}

TEST(GraphConstructorTest, CollectingModeReportsEachCycleOnce) {
  Graph g(OpRegistry::Global());
  const std::vector<Status> errors = ImportCollecting(
      "node { name: 'src' op: 'GraphTestSource' }\n" + Unary("a", "b") +
          Unary("b", "a") + Unary("after_ab", "b") + Unary("self", "self") +
          Unary("c", "src") + Unary("d", "e") + Unary("e", "d") +
          Unary("ok", "c"),
      &g);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_THAT(errors[0], StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("node 'a' (GraphTestUnary) is its "
                                            "own ancestor")));
  EXPECT_THAT(errors[1], StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("node 'self'")));
  EXPECT_THAT(errors[2], StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("node 'd'")));
  std::vector<std::string> names;
  for (const Node* n : g.nodes()) names.push_back(n->name());
  EXPECT_THAT(names, ::testing::ElementsAre("src", "c", "ok"));
  std::vector<Node*> order;
  MF_EXPECT_OK(TopologicalOrder(g, &order));
}

TEST(GraphConstructorTest, CollectingModeReportsNamesAndVersions) {
  Graph g(OpRegistry::Global());
  const std::vector<Status> errors = ImportCollecting(
      R"pb(
        node { name: "a" op: "GraphTestSource" }
        node { name: "a" op: "GraphTestSource" }
        node { name: "_bad" op: "GraphTestSource" }
        node { name: "reads_bad" op: "GraphTestSink" input: "_bad" }
        node { name: "reads_a" op: "GraphTestSink" input: "a" }
        versions { producer: 10 min_consumer: 999999 }
      )pb",
      &g);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_THAT(errors[0], StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("min_consumer version 999999")));
  EXPECT_THAT(errors[1], StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("'a' is used by more than one")));
  EXPECT_THAT(errors[2], StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("'_bad' (op GraphTestSource)")));
  EXPECT_EQ(g.num_nodes(), 2);  // the first `a` and reads_a
}

TEST(GraphConstructorTest, CollectingModeOnAValidGraphMatchesFailFast) {
  const std::string text = "node { name: 'src' op: 'GraphTestSource' }\n" +
                           Unary("a", "src") + Unary("b", "a") +
                           "node { name: 's' op: 'GraphTestSink' input: 'b' "
                           "input: '^a' }";
  Graph collected(OpRegistry::Global());
  Status returned;
  EXPECT_TRUE(ImportCollecting(text, &collected, &returned).empty());
  MF_EXPECT_OK(returned);
  Graph fail_fast(OpRegistry::Global());
  MF_ASSERT_OK(Import(text, &fail_fast));
  GraphDef a, b;
  collected.ToGraphDef(&a);
  fail_fast.ToGraphDef(&b);
  EXPECT_EQ(a.SerializeAsString(), b.SerializeAsString());
}

TEST(GraphConstructorTest, VersionsAreChecked) {
  Graph g(OpRegistry::Global());
  EXPECT_THAT(Import("versions { producer: 10 min_consumer: 999999 }", &g),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("needs a newer runtime")));
  Graph g2(OpRegistry::Global());
  EXPECT_THAT(Import("versions { producer: -1 }", &g2),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("producer version -1")));
  Graph g3(OpRegistry::Global());
  EXPECT_THAT(Import(absl::StrCat("versions { producer: 5 bad_consumers: ",
                                  kGraphDefVersion, " }"),
                     &g3),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("disallows consumer")));
}

TEST(GraphConstructorTest, LongChainImportsWithoutRecursion) {
  GraphDef def;
  NodeDef* first = def.add_node();
  first->set_name("n0");
  first->set_op("GraphTestSource");
  for (int i = 1; i < 100000; ++i) {
    NodeDef* n = def.add_node();
    n->set_name(absl::StrCat("n", i));
    n->set_op("GraphTestUnary");
    n->add_input(absl::StrCat("n", i - 1));
    (*n->mutable_attr())["T"].set_type(DT_FLOAT);
  }
  Graph g(OpRegistry::Global());
  MF_ASSERT_OK(ConvertGraphDefToGraph(GraphConstructorOptions(), def, &g));
  EXPECT_EQ(g.num_nodes(), 100000);
}

TEST(GraphConstructorTest, NodeWithMillionInputsIsRejectedQuickly) {
  GraphDef def;
  NodeDef* a = def.add_node();
  a->set_name("a");
  a->set_op("GraphTestSource");
  NodeDef* s = def.add_node();
  s->set_name("s");
  s->set_op("GraphTestSink");
  for (int i = 0; i < 1000000; ++i) s->add_input("a");
  Graph g(OpRegistry::Global());
  EXPECT_THAT(
      ConvertGraphDefToGraph(GraphConstructorOptions(), def, &g),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("{{node s}}")));
}

TEST(GraphConstructorTest, PrefixRenamesNodesAndInputs) {
  GraphConstructorOptions options;
  options.prefix = "imported/";
  Graph g(OpRegistry::Global());
  MF_ASSERT_OK(ConvertGraphDefToGraph(
      options, ParseTextProtoOrDie<GraphDef>(R"pb(
        node { name: "a" op: "GraphTestSource" }
        node { name: "s" op: "GraphTestSink" input: "a" input: "^a" }
      )pb"),
      &g));
  EXPECT_NE(g.FindNodeByName("imported/a"), nullptr);
  EXPECT_EQ(g.FindNodeByName("imported/s")->in_edges().size(), 2u);
}

// The rvalue overload moves the NodeDefs out instead of copying them; the
// graph and every error must be what the copying overload gives.
TEST(GraphConstructorTest, MovingImportMatchesCopyingImport) {
  const GraphDef def = ParseTextProtoOrDie<GraphDef>(kPortsAndControlGraph);
  for (const std::string& prefix : {std::string(), std::string("p/")}) {
    GraphConstructorOptions options;
    options.prefix = prefix;
    Graph copied(OpRegistry::Global());
    MF_ASSERT_OK(ConvertGraphDefToGraph(options, def, &copied));
    Graph moved(OpRegistry::Global());
    GraphDef consumed = def;
    MF_ASSERT_OK(ConvertGraphDefToGraph(options, std::move(consumed), &moved));
    GraphDef out_copied, out_moved;
    copied.ToGraphDef(&out_copied);
    moved.ToGraphDef(&out_moved);
    EXPECT_EQ(out_copied.SerializeAsString(), out_moved.SerializeAsString());
  }

  // Errors found after the NodeDef has been taken still name it as the
  // user wrote it (without the prefix).
  const GraphDef bad = ParseTextProtoOrDie<GraphDef>(R"pb(
    node { name: "two" op: "GraphTestTwoOut" }
    node {
      name: "u"
      op: "GraphTestUnary"
      input: "two:1"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
      attr {
        key: "bogus"
        value { i: 1 }
      }
    }
  )pb");
  for (const std::string& prefix : {std::string(), std::string("p/")}) {
    GraphConstructorOptions options;
    options.prefix = prefix;
    Graph copied(OpRegistry::Global());
    const Status from_copy = ConvertGraphDefToGraph(options, bad, &copied);
    Graph moved(OpRegistry::Global());
    GraphDef consumed = bad;
    const Status from_move =
        ConvertGraphDefToGraph(options, std::move(consumed), &moved);
    EXPECT_THAT(from_move,
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("attr 'bogus'"),
                               HasSubstr("{{node u}} = GraphTestUnary"))));
    EXPECT_EQ(from_copy.message(), from_move.message());
  }
}

TEST(GraphConstructorTest, RejectsAPrefixThatMakesInvalidNames) {
  GraphConstructorOptions options;
  options.prefix = "bad prefix/";
  Graph g(OpRegistry::Global());
  EXPECT_THAT(
      ConvertGraphDefToGraph(options, ParseTextProtoOrDie<GraphDef>(R"pb(
                               node { name: "a" op: "GraphTestSource" }
                             )pb"),
                             &g),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("import prefix 'bad prefix/' makes node name "
                         "'bad prefix/a' invalid")));
}

TEST(GraphConstructorTest, ImportGraphDefAddsToANonEmptyGraph) {
  Graph g(OpRegistry::Global());
  MF_ASSERT_OK(Import(R"pb(
                        node { name: "a" op: "GraphTestSource" }
                        versions { producer: 7 }
                      )pb",
                      &g));
  std::vector<Node*> added;
  MF_ASSERT_OK(ImportGraphDef(
      GraphConstructorOptions(), ParseTextProtoOrDie<GraphDef>(R"pb(
        node { name: "s" op: "GraphTestSink" input: "a" input: "^a" }
        versions { producer: 9 }
      )pb"),
      &g, &added));
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0]->name(), "s");
  EXPECT_EQ(added[0]->in_edges().size(), 2u);
  EXPECT_EQ(g.num_nodes(), 2);
  EXPECT_EQ(g.versions().producer(), 7);  // a non-empty graph keeps its own
}

TEST(GraphConstructorTest, FailedImportGraphDefLeavesTheGraphUnchanged) {
  Graph g(OpRegistry::Global());
  MF_ASSERT_OK(Import(R"pb(node { name: "a" op: "GraphTestSource" })pb", &g));
  const GraphConstructorOptions options;
  // The second node fails after the first was added: both are removed.
  EXPECT_THAT(ImportGraphDef(options, ParseTextProtoOrDie<GraphDef>(R"pb(
                               node { name: "b" op: "GraphTestSource" }
                               node { name: "c" op: "GraphTestSink" input: "x" }
                             )pb"),
                             &g),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Unknown input node 'x'")));
  EXPECT_THAT(ImportGraphDef(options, ParseTextProtoOrDie<GraphDef>(R"pb(
                               node { name: "a" op: "GraphTestSource" }
                             )pb"),
                             &g),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("used by more than one node")));
  EXPECT_EQ(g.num_nodes(), 1);
  EXPECT_EQ(g.FindNodeByName("b"), nullptr);
  EXPECT_TRUE(g.FindNodeByName("a")->out_edges().empty());
  // A prefixed import names only its own nodes.
  GraphConstructorOptions prefixed;
  prefixed.prefix = "p/";
  EXPECT_THAT(ImportGraphDef(prefixed, ParseTextProtoOrDie<GraphDef>(R"pb(
                               node { name: "s" op: "GraphTestSink" input: "a" }
                             )pb"),
                             &g),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Unknown input node 'p/a'")));
}

TEST(GraphConstructorTest, InputMapRewiresDataInputsToExistingTensors) {
  Graph g(OpRegistry::Global());
  MF_ASSERT_OK(Import(R"pb(node { name: "two" op: "GraphTestTwoOut" })pb", &g));
  GraphConstructorOptions options;
  options.prefix = "p/";
  options.input_map.push_back({TensorId{"src", 0}, TensorId{"two", 0}});
  options.input_map.push_back({TensorId{"gone", 2}, TensorId{"two", 0}});
  options.input_map.push_back({TensorId{"src", 3}, TensorId{"two", 0}});
  std::vector<TensorId> missing;
  options.missing_unused_input_map_keys = &missing;
  std::vector<Node*> added;
  MF_ASSERT_OK(ImportGraphDef(
      options, ParseTextProtoOrDie<GraphDef>(R"pb(
        node { name: "src" op: "GraphTestSource" }
        node { name: "s" op: "GraphTestSink" input: "src:0" input: "^src" }
      )pb"),
      &g, &added));
  ASSERT_EQ(added.size(), 2u);
  const Edge* in = nullptr;
  MF_ASSERT_OK(added[1]->input_edge(0, &in));
  EXPECT_EQ(in->src->name(), "two");  // mapped, not prefixed
  EXPECT_EQ(added[1]->def().input(0), "two:0");
  EXPECT_EQ(added[1]->def().input(1), "^p/src");  // control: not mapped
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0].ToString(), "gone:2");
  EXPECT_EQ(missing[1].ToString(), "src:3");  // src has one output

  // The new edge is checked: two:1 is int32, the sink wants float.
  options.input_map = {{TensorId{"src", 0}, TensorId{"two", 1}}};
  options.prefix = "q/";
  EXPECT_THAT(
      ImportGraphDef(options, ParseTextProtoOrDie<GraphDef>(R"pb(
                       node { name: "src" op: "GraphTestSource" }
                       node { name: "s" op: "GraphTestSink" input: "src" }
                     )pb"),
                     &g),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("q/s"), HasSubstr("int32"))));
  EXPECT_EQ(g.FindNodeByName("q/src"), nullptr);
}

TEST(GraphConstructorTest, ParsesTextAndBinaryByContent) {
  GraphDef def = ParseTextProtoOrDie<GraphDef>(
      "node { name: 'a' op: 'GraphTestSource' } versions { producer: 3 }");
  GraphDef from_text, from_binary;
  MF_ASSERT_OK(ParseGraphDef(
      "node { name: 'a' op: 'GraphTestSource' } versions { producer: 3 }",
      &from_text));
  MF_ASSERT_OK(ParseGraphDef(def.SerializeAsString(), &from_binary));
  EXPECT_EQ(from_text.SerializeAsString(), def.SerializeAsString());
  EXPECT_EQ(from_binary.SerializeAsString(), def.SerializeAsString());
}

TEST(GraphConstructorTest, TruncatedOrGarbageBytesAreInvalidArgument) {
  GraphDef def = ParseTextProtoOrDie<GraphDef>(
      "node { name: 'abcdef' op: 'GraphTestSource' }");
  const std::string bytes = def.SerializeAsString();
  GraphDef out;
  EXPECT_THAT(ParseGraphDef(bytes.substr(0, bytes.size() - 3), &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("neither a binary nor a text")));
  EXPECT_THAT(ParseGraphDef("node { name: 'a' op: ", &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("as text: line 1")));
  EXPECT_THAT(ReadGraphDefFile("/nonexistent/graph.pb", &out),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("Cannot open")));
}

// Found in review: 100,000 levels overflowed the recursive parsers' stack.
TEST(GraphConstructorTest, DeeplyNestedTextIsAParseErrorNotACrash) {
  GraphDef out;
  EXPECT_THAT(ParseGraphDef(test::DeepGraphDefText(50000), &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Message is too deep, the parser exceeded the "
                                 "configured recursion limit of 100")));
}

TEST(GraphConstructorTest, DeeplyNestedBinaryIsAParseErrorNotACrash) {
  GraphDef out;
  EXPECT_THAT(
      ParseGraphDef(test::NestedMessageBytes(test::DeepGraphDefFields(50000)),
                    &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("nests messages more than 100 levels deep")));
}

TEST(GraphConstructorTest, NestingLimitIsOneHundredLevelsForTextAndBinary) {
  // 4 + 2 * 48 = 100 levels below the GraphDef parse; 102 do not.
  GraphDef out;
  MF_EXPECT_OK(ParseGraphDef(test::DeepGraphDefText(48), &out));
  EXPECT_EQ(out.node_size(), 1);
  MF_EXPECT_OK(ParseGraphDef(
      test::NestedMessageBytes(test::DeepGraphDefFields(48)), &out));
  EXPECT_EQ(out.node_size(), 1);
  EXPECT_THAT(ParseGraphDef(test::DeepGraphDefText(49), &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("recursion limit of 100")));
  EXPECT_THAT(ParseGraphDef(
                  test::NestedMessageBytes(test::DeepGraphDefFields(49)), &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("more than 100 levels deep")));
}

}  // namespace
}  // namespace minflow
