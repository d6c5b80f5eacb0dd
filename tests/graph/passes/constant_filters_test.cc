// The constant_filters pass (Note [Marking constant filters]): which
// convolutions and products it marks, which it leaves, and that sessions
// give the same results with the marks (whose kernels keep reordered
// filters and packed weights) as without, run after run and from several
// threads at once.
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/device.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/runtime/device_factory.h"
#include "minflow/runtime/session.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/kernels/nn_test_util.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

using GraphBuilder = ::minflow::testing::Tf1GraphBuilder;

Tensor Values(const TensorShape& shape, int seed) {
  return test::RandomTensor<float>(shape, seed);
}

// x [1,12,12,8] -> Conv2D (3x3x8x16 Const filter) -> BiasAdd -> Relu
// ("fused", which the remapper makes a _FusedConv2D), and a plain Conv2D
// ("plain", 1x1x8x4 Const filter) of the same input; a third convolution
// ("fed") takes its filter from a placeholder.
GraphDef ConvGraph() {
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT);
  b.Placeholder("f", DT_FLOAT);
  b.Const("w", Values(TensorShape({3, 3, 8, 16}), 1));
  b.Const("bias", Values(TensorShape({16}), 2));
  b.Const("w1", Values(TensorShape({1, 1, 8, 4}), 3));
  auto conv = [&](const std::string& name, const std::string& filter) {
    NodeDef* n = b.Node(name, "Conv2D", {"x", filter});
    AddNodeAttr("T", DT_FLOAT, n);
    AddNodeAttr("strides", std::vector<int64_t>{1, 1, 1, 1}, n);
    AddNodeAttr("padding", std::string("SAME"), n);
  };
  conv("conv", "w");
  b.Add("biased", "BiasAdd", {"conv", "bias"}, DT_FLOAT);
  b.Add("fused", "Relu", {"biased"}, DT_FLOAT);
  conv("plain", "w1");
  conv("fed", "f");
  return b.graph();
}

const std::vector<std::string> kFetches = {"fused", "plain", "fed"};

// The prepared signature's nodes, by name, with whether each is marked.
std::vector<std::pair<std::string, bool>> Marks(
    const GraphDef& graph, bool remapping,
    const std::vector<std::string>& fetches = kFetches) {
  PassSelection passes;
  if (!remapping) passes.rewriter.set_remapping(RewriterConfig::OFF);
  const test::PlacedSignature placed =
      test::PrepareSignatureOnDevices(graph, {"x", "f"}, fetches, passes);
  std::vector<std::pair<std::string, bool>> marks;
  for (const Node* n : placed.prepared.graph.graph->nodes()) {
    if (!n->IsOp("Conv2D") && !n->IsOp("_FusedConv2D") && !n->IsOp("MatMul") &&
        !n->IsOp("_FusedMatMul")) {
      continue;
    }
    bool marked = false;
    TryGetNodeAttr(AttrSlice(n->def()), "_is_filter_const", &marked);
    marks.emplace_back(n->name(), marked);
  }
  return marks;
}

TEST(ConstantFiltersTest, MarksConvolutionsWhoseFilterIsAConst) {
  EXPECT_THAT(Marks(ConvGraph(), /*remapping=*/true),
              ::testing::UnorderedElementsAre(std::make_pair("fused", true),
                                              std::make_pair("plain", true),
                                              std::make_pair("fed", false)));
}

TEST(ConstantFiltersTest, RemappingOffLeavesEveryConvolutionUnmarked) {
  EXPECT_THAT(Marks(ConvGraph(), /*remapping=*/false),
              ::testing::UnorderedElementsAre(std::make_pair("conv", false),
                                              std::make_pair("plain", false),
                                              std::make_pair("fed", false)));
}

// A TF1 variable's filter (read through an Identity of its ref output) can
// change between runs: left unmarked.
TEST(ConstantFiltersTest, VariableFilterIsNotMarked) {
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT);
  b.Placeholder("f", DT_FLOAT);
  NodeDef* v = b.Node("v", "VariableV2", {});
  AddNodeAttr("dtype", DT_FLOAT, v);
  AddNodeAttr("shape", TensorShape({1, 1, 8, 4}), v);
  b.Add("v_read", "Identity", {"v"}, DT_FLOAT);
  NodeDef* n = b.Node("plain", "Conv2D", {"x", "v_read"});
  AddNodeAttr("T", DT_FLOAT, n);
  AddNodeAttr("strides", std::vector<int64_t>{1, 1, 1, 1}, n);
  AddNodeAttr("padding", std::string("SAME"), n);
  EXPECT_THAT(Marks(b.graph(), /*remapping=*/true, {"plain", "f"}),
              ::testing::ElementsAre(std::make_pair("plain", false)));
}

// x [1,300] -> MatMul (300x517 Const w) -> BiasAdd -> Relu ("dense",
// which the remapper makes a _FusedMatMul); a plain MatMul ("logits",
// Const [10,300] transposed) of the same input; and one ("fed") whose b is
// fed.
GraphDef DenseGraph() {
  GraphBuilder b;
  b.Placeholder("x", DT_FLOAT);
  b.Placeholder("f", DT_FLOAT);
  b.Const("w", Values(TensorShape({300, 517}), 1));
  b.Const("bias", Values(TensorShape({517}), 2));
  b.Const("w_t", Values(TensorShape({10, 300}), 3));
  auto matmul = [&](const std::string& name, const std::string& weights,
                    bool transpose_b) {
    NodeDef* n = b.Node(name, "MatMul", {"x", weights});
    AddNodeAttr("T", DT_FLOAT, n);
    AddNodeAttr("transpose_a", false, n);
    AddNodeAttr("transpose_b", transpose_b, n);
  };
  matmul("product", "w", false);
  b.Add("biased", "BiasAdd", {"product", "bias"}, DT_FLOAT);
  b.Add("dense", "Relu", {"biased"}, DT_FLOAT);
  matmul("logits", "w_t", true);
  matmul("fed", "f", false);
  return b.graph();
}

TEST(ConstantFiltersTest, MarksProductsWhoseWeightsAreAConst) {
  EXPECT_THAT(
      Marks(DenseGraph(), /*remapping=*/true, {"dense", "logits", "fed"}),
      ::testing::UnorderedElementsAre(std::make_pair("dense", true),
                                      std::make_pair("logits", true),
                                      std::make_pair("fed", false)));
}

std::unique_ptr<Session> MakeSession(bool remapping,
                                     const GraphDef& graph = ConvGraph()) {
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(2);
  options.config.set_intra_op_parallelism_threads(2);
  if (!remapping) {
    options.config.mutable_graph_options()
        ->mutable_rewrite_options()
        ->set_remapping(RewriterConfig::OFF);
  }
  auto session = Session::Create(graph, options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(session).value() : nullptr;
}

// The marked kernels keep their copies of the Consts from the first run
// on; every later run, and runs from four threads at once, must give what
// the unmarked graph gives. The fed node takes a new operand each run, so
// a kept copy of it would show.
void ExpectSessionsAgree(const GraphDef& graph, const TensorShape& x_shape,
                         const TensorShape& f_shape,
                         const std::vector<std::string>& fetches) {
  std::unique_ptr<Session> marked = MakeSession(true, graph);
  std::unique_ptr<Session> unmarked = MakeSession(false, graph);
  ASSERT_NE(marked, nullptr);
  ASSERT_NE(unmarked, nullptr);
  const Tensor x = Values(x_shape, 4);
  std::vector<std::vector<Tensor>> expected;
  for (int run = 0; run < 3; ++run) {
    const std::vector<std::pair<std::string, Tensor>> feeds = {
        {"x", x}, {"f", Values(f_shape, 10 + run)}};
    std::vector<Tensor> want, got;
    MF_ASSERT_OK(unmarked->Run(feeds, fetches, {}, &want));
    MF_ASSERT_OK(marked->Run(feeds, fetches, {}, &got));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      SCOPED_TRACE(fetches[i]);
      test::ExpectTensorNear<float>(got[i], want[i], 1e-5, 1e-5);
    }
    expected.push_back(std::move(want));
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        const int run = (t + i) % 3;
        std::vector<Tensor> got;
        MF_EXPECT_OK(marked->Run({{"x", x}, {"f", Values(f_shape, 10 + run)}},
                                 fetches, {}, &got));
        if (got.size() != fetches.size()) continue;
        for (size_t k = 0; k < got.size(); ++k) {
          test::ExpectTensorNear<float>(got[k], expected[run][k], 1e-5, 1e-5);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
}

TEST(ConstantFiltersTest, SessionsAgreeWithAndWithoutTheMarks) {
  ExpectSessionsAgree(ConvGraph(), TensorShape({1, 12, 12, 8}),
                      TensorShape({3, 3, 8, 2}), kFetches);
}

TEST(ConstantFiltersTest, DenseSessionsAgreeWithAndWithoutTheMarks) {
  ExpectSessionsAgree(DenseGraph(), TensorShape({1, 300}),
                      TensorShape({300, 64}), {"dense", "logits", "fed"});
}

}  // namespace
}  // namespace minflow
