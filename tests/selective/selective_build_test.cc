// A library made by minflow_add_selective_library for the digits MLP
// (digits_mlp_ops.txt) runs that graph, and ops it does not list are absent:
// no OpDef, no kernel. This binary links only that library, not libminflow.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/npy.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/op.h"
#include "minflow/framework/selective_registration.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/kernel_def.pb.h"
#include "minflow/runtime/session.h"

namespace minflow {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SelectiveBuildTest, HoldsExactlyTheListedOps) {
  EXPECT_THAT(SelectedOps(), ElementsAre("ArgMax", "BiasAdd", "Const", "MatMul",
                                         "Placeholder", "Relu", "Softmax"));
  OpList public_ops;
  OpRegistry::Global()->Export(/*include_internal=*/false, &public_ops);
  std::vector<std::string> names;
  for (const OpDef& op : public_ops.op()) names.push_back(op.name());
  EXPECT_THAT(names, ElementsAre("ArgMax", "BiasAdd", "Const", "MatMul",
                                 "Placeholder", "Relu", "Softmax"));
  // The runtime's own ops stay.
  EXPECT_NE(OpRegistry::Global()->LookUp("_Arg"), nullptr);
  EXPECT_NE(OpRegistry::Global()->LookUp("_Retval"), nullptr);
  EXPECT_TRUE(OpRegistry::Global()->registration_errors().empty());
}

TEST(SelectiveBuildTest, UnlistedOpsAndTheirKernelsAreAbsent) {
  for (const char* op : {"Conv2D", "AddV2", "MedianPool2D", "ZeroOut"}) {
    EXPECT_EQ(OpRegistry::Global()->LookUp(op), nullptr) << op;
    EXPECT_EQ(GetRegisteredKernelsForOp(op).kernel_size(), 0) << op;
  }
  EXPECT_GT(GetRegisteredKernelsForOp("MatMul").kernel_size(), 0);
  GraphDef graph_def;
  NodeDef* conv = graph_def.add_node();
  conv->set_name("conv");
  conv->set_op("Conv2D");
  const auto session = Session::Create(graph_def, SessionOptions());
  EXPECT_FALSE(session.ok());
  EXPECT_THAT(std::string(session.status().message()),
              HasSubstr("Op type not registered 'Conv2D'"));
}

TEST(SelectiveBuildTest, RunsTheGraphItWasBuiltFor) {
  GraphDef graph_def;
  ASSERT_TRUE(ReadGraphDefFile(MINFLOW_DIGITS_GRAPH, &graph_def).ok());
  Tensor samples;
  ASSERT_TRUE(ReadNpyFile(MINFLOW_DIGITS_SAMPLE, &samples).ok());
  auto session = Session::Create(graph_def, SessionOptions());
  ASSERT_TRUE(session.ok()) << session.status().message();
  std::vector<Tensor> out;
  const Status run = (*session)->Run({{"x", samples}}, {"digit"}, {}, &out);
  ASSERT_TRUE(run.ok()) << run.message();
  ASSERT_EQ(out[0].NumElements(), 10);
  // The bundled samples are the digits 0..9 in order (as the main job
  // prints them).
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(out[0].flat<int64_t>()(i), i);
}

}  // namespace
}  // namespace minflow
