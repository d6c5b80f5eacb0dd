// The common_subexpression_elimination pass, run through the graph pipeline
// as a session runs it.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/logging.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/runtime/session.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;

constexpr char kPass[] = "common_subexpression_elimination";

// A float Const; `value` is the body of its tensor (after dtype and shape).
std::string FloatConst(const std::string& name, const std::string& value,
                       const std::string& shape = "",
                       const std::string& extra = "") {
  return absl::StrCat(
      "node { name: '", name, "' op: 'Const' ", extra,
      " attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { ",
      shape, " } ", value, " } } } }\n");
}

std::string Op(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs,
               const std::string& type = "DT_FLOAT",
               const std::string& extra = "") {
  std::string s = absl::StrCat("node { name: '", name, "' op: '", op, "' ");
  for (const std::string& in : inputs)
    absl::StrAppend(&s, "input: '", in, "' ");
  absl::StrAppend(&s, extra, " attr { key: 'T' value { type: ", type,
                  " } } }\n");
  return s;
}

std::string Placeholder(const std::string& name,
                        const std::string& type = "DT_FLOAT") {
  return absl::StrCat(
      "node { name: '", name,
      "' op: 'Placeholder' attr { key: 'dtype' value { type: ", type,
      " } } attr { key: 'shape' value { shape {} } } }\n");
}

using Prepared = test::PreparedSignature;

// Prepares the signature with only this pass (or, with `on` false, none).
Prepared Prepare(const std::string& text, const std::vector<std::string>& feeds,
                 const std::vector<std::string>& fetches,
                 const std::vector<std::string>& targets = {}, bool on = true) {
  PassSelection passes;
  if (on) {
    passes.rewriter.add_optimizers(kPass);
  } else {
    passes.rewriter.set_disable_meta_optimizer(true);
  }
  return test::PrepareSignature(ParseTextProtoOrDie<GraphDef>(text), feeds,
                                fetches, targets, passes);
}

int CountOp(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node* node : g.nodes()) n += node->IsOp(op);
  return n;
}

const Node* DataInput(const Graph& g, const std::string& name, int index) {
  const Node* n = g.FindNodeByName(name);
  MF_CHECK(n != nullptr) << name;
  const Edge* e = nullptr;
  MF_CHECK_OK(n->input_edge(index, &e));
  return e->src;
}

const GraphPassRecord* Record(const std::vector<GraphPassRecord>& records) {
  return test::FindPassRecord(records, kPass);
}

TEST(CommonSubexpressionEliminationTest, MergesEqualConstsWrittenDifferently) {
  // 2.0 as float_val and as tensor_content; Mul is commutative, so
  // Mul(x, two) and Mul(two_bytes, x) merge once their Consts have.
  const std::string text =
      Placeholder("x") + FloatConst("two", "float_val: 2") +
      FloatConst("two_bytes", "tensor_content: '\\000\\000\\000\\100'") +
      FloatConst("three", "float_val: 3") + Op("m1", "Mul", {"x", "two"}) +
      Op("m2", "Mul", {"two_bytes", "x"}) + Op("m3", "Mul", {"x", "three"}) +
      Op("s", "AddV2", {"m1", "m2"}) + Op("out", "AddV2", {"s", "m3"});
  Prepared p = Prepare(text, {"x"}, {"out"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(2, CountOp(g, "Const"));
  EXPECT_EQ(2, CountOp(g, "Mul"));
  EXPECT_EQ(2, CountOp(g, "AddV2"));
  EXPECT_NE(nullptr, g.FindNodeByName("two"));  // the first one stays
  EXPECT_EQ(nullptr, g.FindNodeByName("two_bytes"));
  EXPECT_EQ(nullptr, g.FindNodeByName("m2"));
  EXPECT_EQ(DataInput(g, "s", 0), DataInput(g, "s", 1));
  const GraphPassRecord* record = Record(p.graph.passes);
  ASSERT_NE(nullptr, record);
  EXPECT_TRUE(record->ran());
  // _arg, _retval, 3 Consts, 3 Muls, 2 AddV2s.
  EXPECT_EQ(10, record->nodes_before());
  EXPECT_EQ(8, record->nodes_after());
}

TEST(CommonSubexpressionEliminationTest, DifferentValuesShapesOrDtypesStay) {
  // +0 and -0 differ in one bit; 1 and [1] in shape; 1.0f and 1.0 in dtype.
  const std::string text =
      Placeholder("x") + FloatConst("pos", "float_val: 0") +
      FloatConst("neg", "float_val: -0.0") + FloatConst("one", "float_val: 1") +
      FloatConst("one_vec", "float_val: 1", "dim { size: 1 }") +
      "node { name: 'one_d' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_DOUBLE } } attr { key: 'value' value { tensor { dtype: DT_DOUBLE "
      "tensor_shape {} double_val: 1 } } } }\n" +
      Op("a", "AddV2", {"x", "pos"}) + Op("b", "AddV2", {"x", "neg"}) +
      Op("c", "AddV2", {"x", "one"}) + Op("d", "AddV2", {"x", "one_vec"}) +
      Op("e", "Neg", {"one_d"}, "DT_DOUBLE");
  Prepared p = Prepare(text, {"x"}, {"a", "b", "c", "d", "e"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(5, CountOp(g, "Const"));
  EXPECT_EQ(4, CountOp(g, "AddV2"));
}

TEST(CommonSubexpressionEliminationTest, InputOrderMattersUnlessCommutative) {
  const std::string text =
      Placeholder("x") + Placeholder("y") + Op("s1", "Sub", {"x", "y"}) +
      Op("s2", "Sub", {"y", "x"}) + Op("s3", "Sub", {"x", "y"}) +
      Op("a1", "AddV2", {"x", "y"}) + Op("a2", "AddV2", {"y", "x"}) +
      // Maximum(-0, +0) is -0 and Maximum(+0, -0) is +0: floats stay apart.
      Op("f1", "Maximum", {"x", "y"}) + Op("f2", "Maximum", {"y", "x"}) +
      Placeholder("i", "DT_INT32") + Placeholder("j", "DT_INT32") +
      Op("n1", "Maximum", {"i", "j"}, "DT_INT32") +
      Op("n2", "Maximum", {"j", "i"}, "DT_INT32");
  Prepared p = Prepare(text, {"x", "y", "i", "j"},
                       {"s1", "s2", "s3", "a1", "a2", "f1", "f2", "n1", "n2"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(2, CountOp(g, "Sub"));
  EXPECT_NE(nullptr, g.FindNodeByName("s2"));
  EXPECT_EQ(nullptr, g.FindNodeByName("s3"));
  EXPECT_EQ(1, CountOp(g, "AddV2"));
  EXPECT_EQ(3, CountOp(g, "Maximum"));
  EXPECT_EQ(nullptr, g.FindNodeByName("n2"));
}

TEST(CommonSubexpressionEliminationTest, ControlInputsCompareAsASet) {
  const std::string text =
      Placeholder("x") + Placeholder("y") +
      FloatConst("c1", "float_val: 1", "", "input: '^x' input: '^y'") +
      FloatConst("c2", "float_val: 1", "", "input: '^y' input: '^x'") +
      FloatConst("c3", "float_val: 1", "", "input: '^x'") +
      Op("a", "AddV2", {"x", "c1"}) + Op("b", "AddV2", {"x", "c2"}) +
      Op("c", "AddV2", {"x", "c3"});
  Prepared p = Prepare(text, {"x", "y"}, {"a", "b", "c"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(2, CountOp(g, "Const"));
  EXPECT_EQ(nullptr, g.FindNodeByName("c2"));
  EXPECT_NE(nullptr, g.FindNodeByName("c3"));
  EXPECT_EQ(2, CountOp(g, "AddV2"));
}

TEST(CommonSubexpressionEliminationTest, ChainsOfDuplicatesMergeInOneRun) {
  const std::string text = Placeholder("x") + Op("n1", "Neg", {"x"}) +
                           Op("e1", "Exp", {"n1"}) + Op("t1", "Tanh", {"e1"}) +
                           Op("n2", "Neg", {"x"}) + Op("e2", "Exp", {"n2"}) +
                           Op("t2", "Tanh", {"e2"}) +
                           Op("out", "Mul", {"t1", "t2"});
  Prepared p = Prepare(text, {"x"}, {"out"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(1, CountOp(g, "Neg"));
  EXPECT_EQ(1, CountOp(g, "Exp"));
  EXPECT_EQ(1, CountOp(g, "Tanh"));
  EXPECT_EQ(DataInput(g, "out", 0), DataInput(g, "out", 1));
}

TEST(CommonSubexpressionEliminationTest, PreservedNodesAreNeverRemoved) {
  const std::string text = Placeholder("x") + Op("n1", "Neg", {"x"}) +
                           Op("n2", "Neg", {"x"}) + Op("n3", "Neg", {"x"}) +
                           Op("out", "AddV2", {"n1", "n3"});
  {
    // n2 is a target: it is the one that stays, and out reads it.
    Prepared p = Prepare(text, {"x"}, {"out"}, {"n2"});
    const Graph& g = *p.graph.graph;
    EXPECT_EQ(1, CountOp(g, "Neg"));
    EXPECT_NE(nullptr, g.FindNodeByName("n2"));
    EXPECT_EQ(g.FindNodeByName("n2"), DataInput(g, "out", 0));
    EXPECT_EQ(g.FindNodeByName("n2"), DataInput(g, "out", 1));
  }
  {
    // Two targets: both stay; n3 goes to the first.
    Prepared p = Prepare(text, {"x"}, {"out"}, {"n2", "n1"});
    const Graph& g = *p.graph.graph;
    EXPECT_EQ(2, CountOp(g, "Neg"));
    EXPECT_EQ(nullptr, g.FindNodeByName("n3"));
  }
}

TEST(CommonSubexpressionEliminationTest, ColocationPeersAreKept) {
  // out asks to sit with n2: n2 is the one that stays.
  const std::string coloc =
      "attr { key: '_class' value { list { s: 'loc:@n2' } } }";
  const std::string text = Placeholder("x") + Op("n1", "Neg", {"x"}) +
                           Op("n2", "Neg", {"x"}) +
                           Op("out", "AddV2", {"n1", "n2"}, "DT_FLOAT", coloc);
  Prepared p = Prepare(text, {"x"}, {"out"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(1, CountOp(g, "Neg"));
  EXPECT_NE(nullptr, g.FindNodeByName("n2"));
  auto session =
      Session::Create(ParseTextProtoOrDie<GraphDef>(text), SessionOptions());
  MF_ASSERT_OK(session.status());
  Tensor x(DT_FLOAT, TensorShape({}));
  x.scalar<float>()() = 1.5f;
  std::vector<Tensor> out;
  MF_ASSERT_OK((*session)->Run({{"x", x}}, {"out"}, {}, &out));
  EXPECT_EQ(-3.0f, out[0].scalar<float>()());
}

TEST(CommonSubexpressionEliminationTest, NodesThatMustNotMergeStay) {
  const std::string random =
      "attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'seed' value { i: 1 } } attr { key: 'seed2' value { i: 2 "
      "} }";
  const std::string text =
      Placeholder("x") + Placeholder("p", "DT_BOOL") +
      "node { name: 'dims' op: 'Const' attr { key: 'dtype' value { type: "
      "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 "
      "tensor_shape { dim { size: 1 } } int_val: 2 } } } }\n" +
      // Stateful: two draws are two different tensors.
      Op("r1", "RandomUniform", {"dims"}, "DT_INT32", random) +
      Op("r2", "RandomUniform", {"dims"}, "DT_INT32", random) +
      // Control flow.
      Op("sw1", "Switch", {"x", "p"}) + Op("sw2", "Switch", {"x", "p"}) +
      // Reads of a TF1 variable.
      "node { name: 'v' op: 'VariableV2' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } attr { key: 'shape' value { shape {} } } }\n" +
      Op("read1", "Identity", {"v"}) + Op("read2", "Identity", {"v"}) +
      // Another device.
      Op("n1", "Neg", {"x"}) +
      Op("n2", "Neg", {"x"}, "DT_FLOAT", "device: '/device:CPU:0'");
  Prepared p =
      Prepare(text, {"x", "p"},
              {"r1", "r2", "sw1:1", "sw2:1", "read1", "read2", "n1", "n2"});
  const Graph& g = *p.graph.graph;
  EXPECT_EQ(2, CountOp(g, "RandomUniform"));
  EXPECT_EQ(2, CountOp(g, "Switch"));
  EXPECT_EQ(2, CountOp(g, "Identity"));
  EXPECT_EQ(2, CountOp(g, "Neg"));
}

TEST(CommonSubexpressionEliminationTest, SwitchedOffByTogglesAndByName) {
  const std::string text = Placeholder("x") + Op("n1", "Neg", {"x"}) +
                           Op("n2", "Neg", {"x"}) +
                           Op("out", "AddV2", {"n1", "n2"});
  std::unique_ptr<GraphPipeline> pipeline;
  MF_ASSERT_OK(GraphPipeline::Prepare(ParseTextProtoOrDie<GraphDef>(text),
                                      GraphPipelineOptions(), &pipeline));
  SignatureOptions arithmetic_off, cse_off, by_name;
  arithmetic_off.passes.rewriter.set_arithmetic_optimization(
      RewriterConfig::OFF);
  cse_off.passes.rewriter.set_common_subgraph_elimination(RewriterConfig::OFF);
  by_name.passes.disabled = {kPass};
  for (const SignatureOptions& options : {arithmetic_off, cse_off, by_name}) {
    PreparedGraph prepared;
    MF_ASSERT_OK(
        pipeline->PrepareForSignature({"x"}, {"out"}, {}, options, &prepared));
    EXPECT_EQ(2, CountOp(*prepared.graph, "Neg"));
    const GraphPassRecord* record = Record(prepared.passes);
    ASSERT_NE(nullptr, record);
    EXPECT_FALSE(record->ran());
  }
}

// x + c_0 + c_1 + ... with the constants drawn from 8 values, as the peer
// benchmark's chain graphs are.
std::string ChainGraph(int length) {
  std::string text = Placeholder("x");
  std::string prev = "x";
  for (int i = 0; i < length; ++i) {
    const std::string c = absl::StrCat("c_", i);
    const std::string add = absl::StrCat("add_", i);
    absl::StrAppend(&text,
                    FloatConst(c, absl::StrCat("float_val: ", (i * 5) % 8)),
                    Op(add, "AddV2", {prev, c}));
    prev = add;
  }
  return text;
}

TEST(CommonSubexpressionEliminationTest, AChainKeepsOneConstPerValue) {
  Prepared p = Prepare(ChainGraph(200), {"x"}, {"add_199"});
  EXPECT_EQ(8, CountOp(*p.graph.graph, "Const"));
  EXPECT_EQ(200, CountOp(*p.graph.graph, "AddV2"));
}

TEST(CommonSubexpressionEliminationTest,
     SessionResultsAreTheSameWithAndWithout) {
  const std::string text = ChainGraph(100) + FloatConst("two", "float_val: 2") +
                           FloatConst("two_again", "float_val: 2") +
                           Op("m1", "Mul", {"add_99", "two"}) +
                           Op("m2", "Mul", {"two_again", "add_99"}) +
                           Op("out", "Sub", {"m1", "m2"}) +
                           Op("out2", "AddV2", {"m1", "m2"});
  const GraphDef graph = ParseTextProtoOrDie<GraphDef>(text);
  Tensor x(DT_FLOAT, TensorShape({}));
  x.scalar<float>()() = 0.25f;
  std::vector<std::vector<float>> results;
  for (RewriterConfig::Toggle toggle :
       {RewriterConfig::DEFAULT, RewriterConfig::OFF}) {
    SessionOptions options;
    options.config.mutable_graph_options()
        ->mutable_rewrite_options()
        ->set_arithmetic_optimization(toggle);
    auto session = Session::Create(graph, options);
    MF_ASSERT_OK(session.status());
    std::vector<Tensor> out;
    RunMetadata metadata;
    MF_ASSERT_OK((*session)->Run(RunOptions(), {{"x", x}}, {"out", "out2"}, {},
                                 &out, &metadata));
    results.push_back({out[0].scalar<float>()(), out[1].scalar<float>()()});
    const std::vector<GraphPassRecord> records(metadata.graph_passes().begin(),
                                               metadata.graph_passes().end());
    const GraphPassRecord* record = Record(records);
    ASSERT_NE(nullptr, record);
    EXPECT_EQ(toggle == RewriterConfig::DEFAULT, record->ran());
    if (record->ran()) {
      EXPECT_LT(record->nodes_after(), record->nodes_before());
    }
  }
  EXPECT_EQ(0.0f, results[0][0]);
  EXPECT_EQ(results[0], results[1]);
}

}  // namespace
}  // namespace minflow
