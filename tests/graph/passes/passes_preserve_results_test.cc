// Every optimisation pass keeps every result: each bundled graph, and
// graphs shaped like the peer harness's workloads (an MLP, a small CNN with
// batch norms, a chain with repeated constants, wide parallel MatMuls),
// runs with all passes on and with each pass off in turn, and the fetched
// values agree (exactly for integers, to float rounding for floats: the
// remapper's fusions and folded batch norms reassociate).
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/optimization_registry.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

using GraphBuilder = ::minflow::testing::Tf1GraphBuilder;

struct Workload {
  std::string name;
  GraphDef graph;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
};

Tensor RandomFloats(const TensorShape& shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Tensor t(DT_FLOAT, shape);
  auto flat = t.flat<float>();
  for (int64_t i = 0; i < flat.size(); ++i) flat(i) = dist(gen);
  return t;
}

std::string FloatConst(GraphBuilder* b, const std::string& name,
                       const TensorShape& shape, uint32_t seed) {
  return b->Const(name, RandomFloats(shape, seed));
}

NodeDef* Typed(NodeDef* n, DataType t = DT_FLOAT) {
  AddNodeAttr("T", t, n);
  return n;
}

// x [8,64] -> (MatMul + BiasAdd + Relu) x 2 -> MatMul + BiasAdd -> Softmax.
Workload Mlp() {
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT);
  std::string h = "x";
  const int64_t widths[] = {64, 48, 32, 10};
  for (int layer = 0; layer < 3; ++layer) {
    const std::string p = absl::StrCat("l", layer, "/");
    FloatConst(&b, p + "w", TensorShape({widths[layer], widths[layer + 1]}),
               10 + layer);
    FloatConst(&b, p + "b", TensorShape({widths[layer + 1]}), 20 + layer);
    NodeDef* mm = Typed(b.Node(p + "matmul", "MatMul", {h, p + "w"}));
    AddNodeAttr("transpose_a", false, mm);
    AddNodeAttr("transpose_b", false, mm);
    Typed(b.Node(p + "bias", "BiasAdd", {p + "matmul", p + "b"}));
    h = p + "bias";
    if (layer < 2) h = b.Add(p + "relu", "Relu", {h}, DT_FLOAT);
  }
  b.Add("probs", "Softmax", {h}, DT_FLOAT);
  return {"mlp",
          b.graph(),
          {{"x", RandomFloats(TensorShape({8, 64}), 1)}},
          {"probs"}};
}

// x [2,12,12,3] -> Conv2D + BiasAdd + Relu -> Conv2D + FusedBatchNormV3
// (inference) + Relu6 -> MaxPool -> Reshape -> MatMul.
Workload SmallCnn() {
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT);
  auto conv = [&](const std::string& name, const std::string& in,
                  const std::string& filter) {
    NodeDef* n = Typed(b.Node(name, "Conv2D", {in, filter}));
    AddNodeAttr("strides", std::vector<int64_t>{1, 1, 1, 1}, n);
    AddNodeAttr("padding", "SAME", n);
    return name;
  };
  FloatConst(&b, "f1", TensorShape({3, 3, 3, 8}), 31);
  FloatConst(&b, "b1", TensorShape({8}), 32);
  conv("conv1", "x", "f1");
  Typed(b.Node("bias1", "BiasAdd", {"conv1", "b1"}));
  b.Add("relu1", "Relu", {"bias1"}, DT_FLOAT);
  FloatConst(&b, "f2", TensorShape({3, 3, 8, 8}), 33);
  conv("conv2", "relu1", "f2");
  FloatConst(&b, "scale", TensorShape({8}), 34);
  FloatConst(&b, "offset", TensorShape({8}), 35);
  FloatConst(&b, "mean", TensorShape({8}), 36);
  Tensor variance = RandomFloats(TensorShape({8}), 37);
  for (int i = 0; i < 8; ++i) {
    variance.flat<float>()(i) = std::fabs(variance.flat<float>()(i)) + 0.5f;
  }
  b.Const("variance", variance);
  NodeDef* bn = Typed(b.Node("bn", "FusedBatchNormV3",
                             {"conv2", "scale", "offset", "mean", "variance"}));
  AddNodeAttr("U", DT_FLOAT, bn);
  AddNodeAttr("is_training", false, bn);
  AddNodeAttr("epsilon", 0.001f, bn);
  b.Add("relu2", "Relu6", {"bn"}, DT_FLOAT);
  NodeDef* pool = Typed(b.Node("pool", "MaxPool", {"relu2"}));
  AddNodeAttr("ksize", std::vector<int64_t>{1, 2, 2, 1}, pool);
  AddNodeAttr("strides", std::vector<int64_t>{1, 2, 2, 1}, pool);
  AddNodeAttr("padding", "VALID", pool);
  Tensor shape(DT_INT32, TensorShape({2}));
  shape.flat<int32_t>()(0) = 2;
  shape.flat<int32_t>()(1) = 6 * 6 * 8;
  b.Const("flat_shape", shape);
  NodeDef* reshape = Typed(b.Node("flat", "Reshape", {"pool", "flat_shape"}));
  AddNodeAttr("Tshape", DT_INT32, reshape);
  FloatConst(&b, "fc", TensorShape({6 * 6 * 8, 5}), 38);
  NodeDef* mm = Typed(b.Node("logits", "MatMul", {"flat", "fc"}));
  AddNodeAttr("transpose_a", false, mm);
  AddNodeAttr("transpose_b", false, mm);
  return {"cnn",
          b.graph(),
          {{"x", RandomFloats(TensorShape({2, 12, 12, 3}), 2)}},
          {"logits"}};
}

// y = x; 200 times: y = (y * 1 + 0) + c_k, with only 4 distinct constants
// (CSE merges them; the arithmetic optimizer drops the *1 and +0).
Workload ChainWithRepeatedConstants() {
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT);
  Tensor one(DT_FLOAT, TensorShape({}));
  one.scalar<float>()() = 1.0f;
  Tensor zero(DT_FLOAT, TensorShape({}));
  zero.scalar<float>()() = 0.0f;
  std::string y = "x";
  for (int k = 0; k < 200; ++k) {
    const std::string p = absl::StrCat("s", k, "/");
    FloatConst(&b, p + "c", TensorShape({4}), k % 4);
    b.Const(p + "one", one);
    b.Const(p + "zero", zero);
    b.Add(p + "scaled", "Mul", {y, p + "one"}, DT_FLOAT);
    b.Add(p + "shifted", "AddV2", {p + "scaled", p + "zero"}, DT_FLOAT);
    b.Add(p + "id", "Identity", {p + "c"}, DT_FLOAT);
    y = b.Add(p + "y", "AddV2", {p + "shifted", p + "id"}, DT_FLOAT);
  }
  b.Add("out", "Identity", {y}, DT_FLOAT);
  return {
      "chain", b.graph(), {{"x", RandomFloats(TensorShape({4}), 3)}}, {"out"}};
}

// 16 MatMuls of x [16,32] by their own [32,32] weights, summed (AddN).
Workload WideMatMuls() {
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT);
  std::vector<std::string> products;
  for (int k = 0; k < 16; ++k) {
    const std::string w =
        FloatConst(&b, absl::StrCat("w", k), TensorShape({32, 32}), 100 + k);
    NodeDef* mm = Typed(b.Node(absl::StrCat("mm", k), "MatMul", {"x", w}));
    AddNodeAttr("transpose_a", false, mm);
    AddNodeAttr("transpose_b", false, mm);
    products.push_back(mm->name());
  }
  NodeDef* sum = Typed(b.Node("sum", "AddN", products));
  AddNodeAttr("N", int64_t{16}, sum);
  return {"wide",
          b.graph(),
          {{"x", RandomFloats(TensorShape({16, 32}), 4)}},
          {"sum"}};
}

Workload FromFile(const std::string& relative,
                  std::vector<std::pair<std::string, Tensor>> feeds,
                  std::vector<std::string> fetches) {
  Workload w;
  w.name = relative;
  const Status read = ReadGraphDefFile(
      absl::StrCat(MINFLOW_SOURCE_DIR, "/", relative), &w.graph);
  EXPECT_TRUE(read.ok()) << read;
  w.feeds = std::move(feeds);
  w.fetches = std::move(fetches);
  return w;
}

std::vector<Workload> Workloads() {
  Tensor digits = RandomFloats(TensorShape({4, 35}), 5);
  Tensor acc0 = RandomFloats(TensorShape({2}), 6);
  return {
      Mlp(),
      SmallCnn(),
      ChainWithRepeatedConstants(),
      WideMatMuls(),
      FromFile("examples/graphs/digits_mlp.pbtxt", {{"x", digits}},
               {"probs", "digit"}),
      FromFile("tests/tools/data/foldable.pbtxt",
               {{"x", RandomFloats(TensorShape({}), 7)}}, {"out"}),
      FromFile("tests/tools/data/while_loop.pbtxt",
               {{"limit", Tensor(int32_t{5})}}, {"count", "grown", "kept"}),
      FromFile("tests/tools/data/functional_ops.pbtxt",
               {{"acc0", acc0}, {"idx", Tensor(int32_t{1})}},
               {"loop:1", "case", "pick"}),
  };
}

// Session options running every registered pass but `off` (none if empty).
SessionOptions WithoutPass(const std::string& off) {
  SessionOptions options;
  options.config.set_intra_op_parallelism_threads(2);
  RewriterConfig* rewriter =
      options.config.mutable_graph_options()->mutable_rewrite_options();
  for (const auto* entry : OptimizationPassRegistry::Global()->Passes()) {
    if (entry->pass->name() != off) {
      rewriter->add_optimizers(std::string(entry->pass->name()));
    }
  }
  return options;
}

Status RunWorkload(const Workload& w, const SessionOptions& options,
                   std::vector<Tensor>* out) {
  MF_ASSIGN_OR_RETURN(auto session, Session::Create(w.graph, options));
  return session->Run(w.feeds, w.fetches, {}, out);
}

void ExpectClose(const Tensor& expected, const Tensor& actual,
                 const std::string& what) {
  ASSERT_EQ(expected.dtype(), actual.dtype()) << what;
  ASSERT_EQ(expected.shape(), actual.shape()) << what;
  if (expected.dtype() != DT_FLOAT) {
    EXPECT_EQ(expected.DebugString(), actual.DebugString()) << what;
    return;
  }
  auto e = expected.flat<float>();
  auto a = actual.flat<float>();
  for (int64_t i = 0; i < e.size(); ++i) {
    ASSERT_NEAR(e(i), a(i), 1e-4f * (1.0f + std::fabs(e(i))))
        << what << " element " << i;
  }
}

class PassesPreserveResultsTest : public ::testing::TestWithParam<int> {};

TEST_P(PassesPreserveResultsTest, EachPassOffGivesTheSameResults) {
  const Workload w = Workloads()[GetParam()];
  SCOPED_TRACE(w.name);
  std::vector<Tensor> all_on;
  MF_ASSERT_OK(RunWorkload(w, WithoutPass(""), &all_on));
  ASSERT_EQ(all_on.size(), w.fetches.size());
  int compared = 0;
  for (const auto* entry : OptimizationPassRegistry::Global()->Passes()) {
    const std::string pass(entry->pass->name());
    // Function calls and functional control flow have no kernels: without
    // the lowering a graph that has them cannot run at all.
    if (pass == "lower_functional_ops" && w.graph.has_library()) continue;
    std::vector<Tensor> out;
    const Status s = RunWorkload(w, WithoutPass(pass), &out);
    ASSERT_TRUE(s.ok()) << pass << " off: " << s;
    ASSERT_EQ(out.size(), all_on.size());
    for (size_t i = 0; i < out.size(); ++i) {
      ExpectClose(all_on[i], out[i],
                  absl::StrCat(w.fetches[i], " with ", pass, " off"));
    }
    ++compared;
  }
  EXPECT_GE(compared, 6);
}

// Note [Memory plan]: runs served from the plan's arena (the third and
// fourth; the second is recorded) give what a session without a plan gives.
TEST_P(PassesPreserveResultsTest, MemoryPlanGivesTheSameResults) {
  const Workload w = Workloads()[GetParam()];
  SCOPED_TRACE(w.name);
  setenv("MINFLOW_MEMORY_PLAN", "0", 1);
  std::vector<Tensor> unplanned;
  const Status ran = RunWorkload(w, WithoutPass(""), &unplanned);
  unsetenv("MINFLOW_MEMORY_PLAN");
  MF_ASSERT_OK(ran);
  auto session = Session::Create(w.graph, WithoutPass(""));
  MF_ASSERT_OK(session.status());
  CallableOptions callable;
  std::vector<Tensor> feeds;
  for (const auto& [name, value] : w.feeds) {
    callable.add_feed(name);
    feeds.push_back(value);
  }
  for (const std::string& fetch : w.fetches) callable.add_fetch(fetch);
  Session::CallableHandle handle = 0;
  MF_ASSERT_OK((*session)->MakeCallable(callable, &handle));
  for (int run = 0; run < 4; ++run) {
    std::vector<Tensor> out;
    MF_ASSERT_OK((*session)->RunCallable(handle, feeds, &out, nullptr));
    ASSERT_EQ(out.size(), unplanned.size());
    for (size_t i = 0; i < out.size(); ++i) {
      ExpectClose(unplanned[i], out[i],
                  absl::StrCat(w.fetches[i], ", run ", run));
    }
  }
  MemoryPlanStats plan;
  MF_ASSERT_OK((*session)->GetCallableMemoryPlan(handle, &plan));
  if (plan.planned && plan.planned_buffers > 0) {
    EXPECT_GT(plan.arena_hits, 0);
  }
}

std::string WorkloadName(const ::testing::TestParamInfo<int>& info) {
  static const char* const kNames[] = {"Mlp",       "SmallCnn",     "Chain",
                                       "Wide",      "DigitsMlp",    "Foldable",
                                       "WhileLoop", "FunctionalOps"};
  return kNames[info.param];
}

INSTANTIATE_TEST_SUITE_P(Workloads, PassesPreserveResultsTest,
                         ::testing::Range(0, 8), WorkloadName);

// The comparisons above mean something only if each pass changes some
// workload: every pass must add or remove nodes in at least one, except
// constant_filters, which only marks convolutions (and must mark one).
TEST(PassesPreserveResultsTest, EveryPassChangesSomeWorkload) {
  std::set<std::string> changed;
  for (const Workload& w : Workloads()) {
    auto session = Session::Create(w.graph, WithoutPass(""));
    ASSERT_TRUE(session.ok()) << w.name << ": " << session.status();
    std::vector<Tensor> out;
    RunOptions options;
    options.set_output_partition_graphs(true);
    RunMetadata metadata;
    MF_ASSERT_OK(
        (*session)->Run(options, w.feeds, w.fetches, {}, &out, &metadata));
    for (const GraphPassRecord& record : metadata.graph_passes()) {
      if (record.ran() && record.nodes_before() != record.nodes_after()) {
        changed.insert(record.name());
      }
    }
    for (const GraphDef& partition : metadata.partition_graphs()) {
      for (const NodeDef& n : partition.node()) {
        if (n.attr().contains("_is_filter_const")) {
          changed.insert("constant_filters");
        }
      }
    }
  }
  for (const auto* entry : OptimizationPassRegistry::Global()->Passes()) {
    EXPECT_TRUE(changed.count(std::string(entry->pass->name())))
        << entry->pass->name() << " changed no workload";
  }
}

}  // namespace
}  // namespace minflow
