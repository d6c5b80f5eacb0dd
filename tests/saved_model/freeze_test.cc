#include "minflow/saved_model/freeze.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/example.pb.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "minflow/saved_model/constants.h"
#include "minflow/saved_model/loader.h"
#include "minflow/saved_model/signature.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Testdata(const std::string& name) {
  return absl::StrCat(MINFLOW_SAVED_MODEL_TESTDATA, "/", name);
}

std::map<std::string, int> OpCounts(const GraphDef& graph) {
  std::map<std::string, int> counts;
  for (const NodeDef& node : graph.node()) ++counts[node.op()];
  return counts;
}

// Fails for any trace of variables, checkpoints or functions.
void ExpectSelfContained(const GraphDef& graph) {
  EXPECT_EQ(graph.library().function_size(), 0);
  for (const NodeDef& node : graph.node()) {
    for (const char* op :
         {"ReadVariableOp", "ResourceGather", "VariableV2", "Assign",
          "AssignVariableOp", "RestoreV2", "SaveV2", "PartitionedCall",
          "StatefulPartitionedCall", "While", "If"}) {
      EXPECT_NE(node.op(), op) << node.name();
    }
  }
}

// Runs `graph` in a fresh session.
StatusOr<std::vector<Tensor>> RunFrozen(
    const GraphDef& graph,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches) {
  MF_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                      Session::Create(graph, SessionOptions()));
  std::vector<Tensor> outputs;
  MF_RETURN_IF_ERROR(session->Run(feeds, fetches, {}, &outputs));
  return outputs;
}

// What the loaded model's signature gives for `feeds` (by key).
StatusOr<std::vector<Tensor>> RunLoaded(
    const std::string& dir, const std::string& key,
    const std::vector<std::pair<std::string, Tensor>>& feeds_by_key) {
  SavedModelBundle bundle;
  MF_RETURN_IF_ERROR(
      LoadSavedModel(SessionOptions(), RunOptions(), dir, {"serve"}, &bundle));
  MF_ASSIGN_OR_RETURN(SignatureTensors sig,
                      GetSignatureTensors(bundle.meta_graph_def, key));
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [feed_key, value] : feeds_by_key) {
    for (const SignatureTensor& in : sig.inputs) {
      if (in.key == feed_key) feeds.emplace_back(in.tensor_name, value);
    }
  }
  std::vector<std::string> fetches;
  for (const SignatureTensor& out : sig.outputs) {
    fetches.push_back(out.tensor_name);
  }
  std::vector<Tensor> outputs;
  MF_RETURN_IF_ERROR(bundle.session->Run(feeds, fetches, {}, &outputs));
  return outputs;
}

TEST(FreezeSavedModelTest, TensorFlow1VariablesBecomeConsts) {
  FrozenSignature frozen;
  MF_ASSERT_OK(FreezeSavedModel(Testdata("saved_model_half_plus_two_cpu"),
                                {"serve"}, "serving_default", &frozen));
  ExpectSelfContained(frozen.graph_def);
  EXPECT_EQ(frozen.num_variables, 2);
  ASSERT_EQ(frozen.inputs.size(), 1u);
  EXPECT_EQ(frozen.inputs[0].key, "x");
  EXPECT_EQ(frozen.inputs[0].tensor_name, "x:0");
  ASSERT_EQ(frozen.outputs.size(), 1u);
  EXPECT_EQ(frozen.outputs[0].tensor_name, "y:0");
  // y = a * x + b: the fed Identity x became a Placeholder, a and b Consts.
  const auto counts = OpCounts(frozen.graph_def);
  EXPECT_EQ(counts.at("Placeholder"), 1);
  EXPECT_EQ(counts.at("Const"), 2);

  const Tensor x = test::AsTensor<float>({1, 2, 3}, TensorShape({3, 1}));
  auto y = RunFrozen(frozen.graph_def, {{"x:0", x}}, {"y:0"});
  MF_ASSERT_OK(y.status());
  test::ExpectTensorEqual<float>(
      y->at(0), test::AsTensor<float>({2.5f, 3, 3.5f}, TensorShape({3, 1})));
}

TEST(FreezeSavedModelTest, TensorFlow2CallsAreInlinedAndReadsBecomeConsts) {
  const std::string dir = Testdata("saved_model_half_plus_two_tf2_cpu");
  FrozenSignature frozen;
  MF_ASSERT_OK(FreezeSavedModel(dir, {"serve"}, "serving_default", &frozen));
  ExpectSelfContained(frozen.graph_def);
  for (const NodeDef& node : frozen.graph_def.node()) {
    EXPECT_NE(node.op(), "VarHandleOp") << node.name();
  }
  EXPECT_EQ(frozen.num_variables, 2);
  // The PlaceholderWithDefault is a Placeholder of the same name; the call's
  // output an Identity named after its key.
  EXPECT_EQ(frozen.inputs[0].tensor_name, "serving_default_x:0");
  EXPECT_EQ(frozen.outputs[0].tensor_name, "y:0");

  const Tensor x = test::AsTensor<float>({3.0f}, TensorShape({1}));
  auto expected = RunLoaded(dir, "serving_default", {{"x", x}});
  MF_ASSERT_OK(expected.status());
  auto y = RunFrozen(frozen.graph_def, {{"serving_default_x:0", x}}, {"y:0"});
  MF_ASSERT_OK(y.status());
  test::ExpectTensorEqual<float>(y->at(0), expected->at(0));
  test::ExpectTensorEqual<float>(y->at(0), test::AsTensor<float>({3.5f}));
}

TEST(FreezeSavedModelTest, RegressSignatureParsesExamplesAfterFreezing) {
  const std::string dir = Testdata("saved_model_half_plus_two_tf2_cpu");
  FrozenSignature frozen;
  MF_ASSERT_OK(FreezeSavedModel(dir, {"serve"}, "regress_x_to_y", &frozen));
  ExpectSelfContained(frozen.graph_def);
  Example example;
  (*example.mutable_features()->mutable_feature())["x"]
      .mutable_float_list()
      ->add_value(4.0f);
  Tensor serialized(DT_STRING, TensorShape({1}));
  serialized.flat<std::string>()(0) = example.SerializeAsString();
  auto expected = RunLoaded(dir, "regress_x_to_y", {{"inputs", serialized}});
  MF_ASSERT_OK(expected.status());
  auto y =
      RunFrozen(frozen.graph_def, {{frozen.inputs[0].tensor_name, serialized}},
                {frozen.outputs[0].tensor_name});
  MF_ASSERT_OK(y.status());
  test::ExpectTensorEqual<float>(y->at(0), expected->at(0));
  EXPECT_FLOAT_EQ(y->at(0).flat<float>()(0), 4.0f);
}

TEST(FreezeSavedModelTest, UnknownSignatureListsTheKeys) {
  FrozenSignature frozen;
  EXPECT_THAT(
      FreezeSavedModel(Testdata("saved_model_half_plus_two_cpu"), {"serve"},
                       "nope", &frozen),
      StatusIs(absl::StatusCode::kNotFound,
               AllOf(HasSubstr("'nope'"), HasSubstr("regress_x2_to_y3"))));
  EXPECT_THAT(FreezeSavedModel(Testdata("saved_model_half_plus_two_cpu"),
                               {"train"}, "serving_default", &frozen),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("serve")));
}

// tests/testdata/saved_models/keras_shaped (its README says what it holds):
// Keras's serving_default shape, and variables read in a While body, an If
// branch and a ResourceGather.
class KerasShapedModelTest : public ::testing::Test {
 protected:
  // Freezes `key`, checks the result holds no variable, call or loop op,
  // and that it gives what the loaded model gives for `feeds` (by key).
  void ExpectFrozenMatchesLoaded(
      const std::string& key,
      const std::vector<std::pair<std::string, Tensor>>& feeds,
      const Tensor& expected) {
    FrozenSignature frozen;
    MF_ASSERT_OK(FreezeSavedModel(dir_, {"serve"}, key, &frozen));
    ExpectSelfContained(frozen.graph_def);
    auto loaded = RunLoaded(dir_, key, feeds);
    MF_ASSERT_OK(loaded.status());
    test::ExpectTensorNear<float>(loaded->at(0), expected, 1e-6);

    std::vector<std::pair<std::string, Tensor>> frozen_feeds;
    for (const auto& [feed_key, value] : feeds) {
      for (const FrozenTensor& in : frozen.inputs) {
        if (in.key == feed_key)
          frozen_feeds.emplace_back(in.tensor_name, value);
      }
    }
    ASSERT_EQ(frozen_feeds.size(), feeds.size());
    auto y = RunFrozen(frozen.graph_def, frozen_feeds,
                       {frozen.outputs[0].tensor_name});
    MF_ASSERT_OK(y.status());
    test::ExpectTensorEqual<float>(y->at(0), loaded->at(0));
  }

  const std::string dir_ = Testdata("keras_shaped");
};

TEST_F(KerasShapedModelTest, ServingDefaultThroughNestedCalls) {
  const Tensor input =
      test::AsTensor<float>({1, 2, -1, 0}, TensorShape({2, 2}));
  // logits = input @ kernel + bias, per row; softmax in double.
  std::vector<float> expected;
  const double kernel[2][2] = {{1, -1}, {0.5, 2}};
  const double bias[2] = {0.25, -0.25};
  const double in[2][2] = {{1, 2}, {-1, 0}};
  for (int r = 0; r < 2; ++r) {
    double logits[2];
    for (int c = 0; c < 2; ++c) {
      logits[c] = in[r][0] * kernel[0][c] + in[r][1] * kernel[1][c] + bias[c];
    }
    const double sum = std::exp(logits[0]) + std::exp(logits[1]);
    for (int c = 0; c < 2; ++c) {
      expected.push_back(static_cast<float>(std::exp(logits[c]) / sum));
    }
  }
  ExpectFrozenMatchesLoaded(
      "serving_default", {{"input_1", input}},
      test::AsTensor<float>(expected, TensorShape({2, 2})));

  FrozenSignature frozen;
  MF_ASSERT_OK(FreezeSavedModel(dir_, {"serve"}, "serving_default", &frozen));
  EXPECT_EQ(frozen.num_variables, 2);  // kernel and bias, not w
  EXPECT_EQ(frozen.inputs[0].tensor_name, "serving_default_input_1:0");
  EXPECT_EQ(frozen.outputs[0].tensor_name, "dense:0");
  for (const NodeDef& node : frozen.graph_def.node()) {
    EXPECT_NE(node.op(), "VarHandleOp") << node.name();
  }
}

TEST_F(KerasShapedModelTest, ReadInAWhileBodyRunsInTheLoopsFrame) {
  ExpectFrozenMatchesLoaded("loop", {{"x", Tensor(1.5f)}}, Tensor(12.0f));
  // The loop is lowered; the read's Const waits on the handle's Enter.
  FrozenSignature frozen;
  MF_ASSERT_OK(FreezeSavedModel(dir_, {"serve"}, "loop", &frozen));
  int reads = 0;
  for (const NodeDef& node : frozen.graph_def.node()) {
    if (!absl::EndsWith(node.name(), "/read")) continue;
    ++reads;
    EXPECT_EQ(node.op(), "Const");
    ASSERT_EQ(node.input_size(), 1) << node.name();
    EXPECT_EQ(node.input(0)[0], '^') << node.name();
  }
  EXPECT_EQ(reads, 1);
  EXPECT_EQ(OpCounts(frozen.graph_def).count("NextIteration"), 1u);
}

TEST_F(KerasShapedModelTest, ReadInAnIfBranchFollowsTheBranch) {
  ExpectFrozenMatchesLoaded(
      "branch", {{"x", Tensor(3.0f)}, {"p", Tensor(true)}}, Tensor(6.0f));
  ExpectFrozenMatchesLoaded(
      "branch", {{"x", Tensor(3.0f)}, {"p", Tensor(false)}}, Tensor(3.0f));
}

TEST_F(KerasShapedModelTest, ResourceGatherBecomesGatherV2) {
  ExpectFrozenMatchesLoaded(
      "lookup", {{"ids", test::AsTensor<int32_t>({1, 0, 1})}},
      test::AsTensor<float>({0.5f, 2, 1, -1, 0.5f, 2}, TensorShape({3, 2})));
  FrozenSignature frozen;
  MF_ASSERT_OK(FreezeSavedModel(dir_, {"serve"}, "lookup", &frozen));
  EXPECT_EQ(OpCounts(frozen.graph_def).at("GatherV2"), 1);
}

TEST_F(KerasShapedModelTest, OutputThatChangesAVariableIsRefused) {
  FrozenSignature frozen;
  EXPECT_THAT(
      FreezeSavedModel(dir_, {"serve"}, "mutates", &frozen),
      StatusIs(absl::StatusCode::kUnimplemented,
               AllOf(HasSubstr("'bump'"), HasSubstr("AssignAddVariableOp"))));
}

}  // namespace
}  // namespace minflow
