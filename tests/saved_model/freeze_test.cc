#include "minflow/saved_model/freeze.h"

#include <cmath>
#include <filesystem>
#include <fstream>
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
#include "minflow/saved_model.pb.h"
#include "minflow/saved_model/constants.h"
#include "minflow/saved_model/export.h"
#include "minflow/saved_model/loader.h"
#include "minflow/saved_model/signature.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

namespace fs = std::filesystem;
using ::minflow::testing::ParseTextProtoOrDie;
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

std::vector<std::string> Keys(const std::vector<FrozenTensor>& tensors) {
  std::vector<std::string> keys;
  for (const FrozenTensor& t : tensors) keys.push_back(t.key);
  return keys;
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

// A model shaped as Keras writes one, plus functional control flow that
// reads variables: "kernel" [2,2] and "bias" [2] and a scalar "w" are
// variables in the checkpoint (written by ExportSavedModel, which reads
// each through a ReadVariableOp in the main graph); the patch below adds
//  - serving_default: Placeholder "serving_default_input_1" [?,2] ->
//    StatefulPartitionedCall of the signature wrapper, which calls the
//    model function through another StatefulPartitionedCall; the model
//    function gets the variables' handles as captured inputs and computes
//    softmax(input @ kernel + bias), as a Keras Dense layer does;
//  - loop: x * w * w * w, read in a While body;
//  - branch: p ? x * w : x, read in an If branch;
//  - lookup: ResourceGather of rows of "kernel";
//  - mutates: an output that waits for an AssignAddVariableOp.
constexpr char kKerasShapedPatch[] = R"pb(
  node {
    name: "serving_default_input_1"
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
          dim { size: 2 }
        }
      }
    }
  }
  node {
    name: "StatefulPartitionedCall"
    op: "StatefulPartitionedCall"
    input: "serving_default_input_1"
    input: "kernel/handle"
    input: "bias/handle"
    attr {
      key: "Tin"
      value { list { type: DT_FLOAT type: DT_RESOURCE type: DT_RESOURCE } }
    }
    attr {
      key: "Tout"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "f"
      value { func { name: "__inference_signature_wrapper_99" } }
    }
  }
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "p"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_BOOL }
    }
  }
  node {
    name: "ids"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
  }
  node {
    name: "i0"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape {}
          int_val: 0
        }
      }
    }
  }
  node {
    name: "loop"
    op: "While"
    input: "i0"
    input: "x"
    input: "w/handle"
    attr {
      key: "T"
      value { list { type: DT_INT32 type: DT_FLOAT type: DT_RESOURCE } }
    }
    attr {
      key: "cond"
      value { func { name: "less_than_3" } }
    }
    attr {
      key: "body"
      value { func { name: "times_w" } }
    }
  }
  node {
    name: "branch"
    op: "If"
    input: "p"
    input: "x"
    input: "w/handle"
    attr {
      key: "Tcond"
      value { type: DT_BOOL }
    }
    attr {
      key: "Tin"
      value { list { type: DT_FLOAT type: DT_RESOURCE } }
    }
    attr {
      key: "Tout"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "then_branch"
      value { func { name: "scale_by_w" } }
    }
    attr {
      key: "else_branch"
      value { func { name: "pass_x" } }
    }
  }
  node {
    name: "lookup"
    op: "ResourceGather"
    input: "kernel/handle"
    input: "ids"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "Tindices"
      value { type: DT_INT32 }
    }
  }
  node {
    name: "bump"
    op: "AssignAddVariableOp"
    input: "w/handle"
    input: "x"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "after_bump"
    op: "Identity"
    input: "x"
    input: "^bump"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  library {
    function {
      signature {
        name: "__inference_signature_wrapper_99"
        input_arg { name: "input_1" type: DT_FLOAT }
        input_arg { name: "unknown" type: DT_RESOURCE }
        input_arg { name: "unknown_0" type: DT_RESOURCE }
        output_arg { name: "identity" type: DT_FLOAT }
        is_stateful: true
      }
      node_def {
        name: "StatefulPartitionedCall"
        op: "StatefulPartitionedCall"
        input: "input_1"
        input: "unknown"
        input: "unknown_0"
        attr {
          key: "Tin"
          value { list { type: DT_FLOAT type: DT_RESOURCE type: DT_RESOURCE } }
        }
        attr {
          key: "Tout"
          value { list { type: DT_FLOAT } }
        }
        attr {
          key: "f"
          value { func { name: "__inference_model_call_77" } }
        }
      }
      node_def {
        name: "Identity"
        op: "Identity"
        input: "StatefulPartitionedCall:output:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "identity" value: "Identity:output:0" }
    }
    function {
      signature {
        name: "__inference_model_call_77"
        input_arg { name: "inputs" type: DT_FLOAT }
        input_arg { name: "matmul_readvariableop_resource" type: DT_RESOURCE }
        input_arg { name: "biasadd_readvariableop_resource" type: DT_RESOURCE }
        output_arg { name: "identity" type: DT_FLOAT }
        is_stateful: true
      }
      node_def {
        name: "MatMul/ReadVariableOp"
        op: "ReadVariableOp"
        input: "matmul_readvariableop_resource"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "MatMul"
        op: "MatMul"
        input: "inputs"
        input: "MatMul/ReadVariableOp:value:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "BiasAdd/ReadVariableOp"
        op: "ReadVariableOp"
        input: "biasadd_readvariableop_resource"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "BiasAdd"
        op: "BiasAdd"
        input: "MatMul:product:0"
        input: "BiasAdd/ReadVariableOp:value:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "Softmax"
        op: "Softmax"
        input: "BiasAdd:output:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "identity" value: "Softmax:softmax:0" }
    }
    function {
      signature {
        name: "less_than_3"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
        input_arg { name: "h" type: DT_RESOURCE }
        output_arg { name: "more" type: DT_BOOL }
      }
      node_def {
        name: "three"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 3
            }
          }
        }
      }
      node_def {
        name: "less"
        op: "Less"
        input: "i"
        input: "three:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      ret { key: "more" value: "less:z:0" }
    }
    function {
      signature {
        name: "times_w"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "acc" type: DT_FLOAT }
        input_arg { name: "h" type: DT_RESOURCE }
        output_arg { name: "i_next" type: DT_INT32 }
        output_arg { name: "acc_next" type: DT_FLOAT }
        output_arg { name: "h_next" type: DT_RESOURCE }
        is_stateful: true
      }
      node_def {
        name: "one"
        op: "Const"
        attr {
          key: "dtype"
          value { type: DT_INT32 }
        }
        attr {
          key: "value"
          value {
            tensor {
              dtype: DT_INT32
              tensor_shape {}
              int_val: 1
            }
          }
        }
      }
      node_def {
        name: "next"
        op: "AddV2"
        input: "i"
        input: "one:output:0"
        attr {
          key: "T"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "read"
        op: "ReadVariableOp"
        input: "h"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "scaled"
        op: "Mul"
        input: "acc"
        input: "read:value:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "i_next" value: "next:z:0" }
      ret { key: "acc_next" value: "scaled:z:0" }
      ret { key: "h_next" value: "h" }
    }
    function {
      signature {
        name: "scale_by_w"
        input_arg { name: "v" type: DT_FLOAT }
        input_arg { name: "h" type: DT_RESOURCE }
        output_arg { name: "out" type: DT_FLOAT }
        is_stateful: true
      }
      node_def {
        name: "read"
        op: "ReadVariableOp"
        input: "h"
        attr {
          key: "dtype"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "scaled"
        op: "Mul"
        input: "v"
        input: "read:value:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      ret { key: "out" value: "scaled:z:0" }
    }
    function {
      signature {
        name: "pass_x"
        input_arg { name: "v" type: DT_FLOAT }
        input_arg { name: "h" type: DT_RESOURCE }
        output_arg { name: "out" type: DT_FLOAT }
      }
      ret { key: "out" value: "v" }
    }
  }
)pb";

TensorInfo Info(const std::string& name, DataType dtype) {
  TensorInfo info;
  info.set_name(name);
  info.set_dtype(dtype);
  return info;
}

SignatureDef Signature(
    const std::vector<std::pair<std::string, TensorInfo>>& inputs,
    const std::vector<std::pair<std::string, TensorInfo>>& outputs) {
  SignatureDef signature;
  signature.set_method_name("tensorflow/serving/predict");
  for (const auto& [key, info] : inputs) {
    (*signature.mutable_inputs())[key] = info;
  }
  for (const auto& [key, info] : outputs) {
    (*signature.mutable_outputs())[key] = info;
  }
  return signature;
}

class KerasShapedModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(
        ::testing::TempDir(), "/freeze_test_",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    SavedModelExport model;
    model.graph = ParseTextProtoOrDie<GraphDef>(R"pb(
      node {
        name: "kernel"
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
                dim { size: 2 }
              }
              float_val: [ 1, -1, 0.5, 2 ]
            }
          }
        }
      }
      node {
        name: "bias"
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
              tensor_shape { dim { size: 2 } }
              float_val: [ 0.25, -0.25 ]
            }
          }
        }
      }
      node {
        name: "w"
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
              tensor_shape {}
              float_val: 2
            }
          }
        }
      }
    )pb");
    model.variables = {"kernel", "bias", "w"};
    MF_ASSERT_OK(ExportSavedModel(model, dir_));

    SavedModel saved_model;
    MF_ASSERT_OK(ReadSavedModel(dir_, &saved_model));
    MetaGraphDef* meta_graph = saved_model.mutable_meta_graphs(0);
    meta_graph->mutable_graph_def()->MergeFrom(
        ParseTextProtoOrDie<GraphDef>(kKerasShapedPatch));
    auto& signatures = *meta_graph->mutable_signature_def();
    signatures["serving_default"] =
        Signature({{"input_1", Info("serving_default_input_1:0", DT_FLOAT)}},
                  {{"dense", Info("StatefulPartitionedCall:0", DT_FLOAT)}});
    signatures["loop"] = Signature({{"x", Info("x:0", DT_FLOAT)}},
                                   {{"y", Info("loop:1", DT_FLOAT)}});
    signatures["branch"] =
        Signature({{"x", Info("x:0", DT_FLOAT)}, {"p", Info("p:0", DT_BOOL)}},
                  {{"z", Info("branch:0", DT_FLOAT)}});
    signatures["lookup"] = Signature({{"ids", Info("ids:0", DT_INT32)}},
                                     {{"rows", Info("lookup:0", DT_FLOAT)}});
    signatures["mutates"] = Signature({{"x", Info("x:0", DT_FLOAT)}},
                                      {{"y", Info("after_bump:0", DT_FLOAT)}});
    std::ofstream out(dir_ + "/saved_model.pb", std::ios::binary);
    ASSERT_TRUE(saved_model.SerializeToOstream(&out));
  }
  void TearDown() override { fs::remove_all(dir_); }

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

  std::string dir_;
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
