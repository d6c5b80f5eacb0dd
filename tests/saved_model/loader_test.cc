#include "minflow/saved_model/loader.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/example.pb.h"
#include "minflow/io/tensor_bundle.h"
#include "minflow/saved_model.pb.h"
#include "minflow/saved_model/constants.h"
#include "minflow/saved_model/export.h"
#include "minflow/saved_model/signature.h"
#include "tests/testlib/nested_proto.h"
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

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

Status Load(const std::string& dir, SavedModelBundle* bundle,
            const std::unordered_set<std::string>& tags = {"serve"}) {
  return LoadSavedModel(SessionOptions(), RunOptions(), dir, tags, bundle);
}

// Runs `signature_key` of the bundle with one input and one output.
StatusOr<Tensor> RunSignature(const SavedModelBundle& bundle,
                              const std::string& signature_key,
                              const Tensor& input) {
  MF_ASSIGN_OR_RETURN(
      SignatureTensors sig,
      GetSignatureTensors(bundle.meta_graph_def, signature_key));
  if (sig.inputs.size() != 1 || sig.outputs.size() != 1) {
    return errors::InvalidArgument("expected one input and one output");
  }
  std::vector<Tensor> outputs;
  MF_RETURN_IF_ERROR(bundle.session->Run({{sig.inputs[0].tensor_name, input}},
                                         {sig.outputs[0].tensor_name}, {},
                                         &outputs));
  return outputs.at(0);
}

class LoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(
        ::testing::TempDir(), "/loader_test_",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A copy of testdata SavedModel `name` to damage; returns its path.
  std::string CopyOf(const std::string& name) {
    const std::string copy = dir_ + "/" + name;
    fs::copy(Testdata(name), copy, fs::copy_options::recursive);
    return copy;
  }

  std::string dir_;
};

// Counts the fields of `message` and of every message inside it that the
// schema does not know.
int CountUnknownFields(const google::protobuf::Message& message) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  int unknown = reflection->GetUnknownFields(message).field_count();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields) {
    if (field->cpp_type() !=
        google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) {
      continue;
    }
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        unknown += CountUnknownFields(
            reflection->GetRepeatedMessage(message, field, i));
      }
    } else {
      unknown += CountUnknownFields(reflection->GetMessage(message, field));
    }
  }
  return unknown;
}

// minflow's protos have every field TensorFlow wrote into these files.
TEST_F(LoaderTest, TensorFlowsSavedModelsParseWithoutUnknownFields) {
  for (const char* name :
       {"saved_model_half_plus_two_cpu", "saved_model_half_plus_two_tf2_cpu",
        "saved_model_half_plus_three"}) {
    SCOPED_TRACE(name);
    SavedModel saved_model;
    MF_ASSERT_OK(ReadSavedModel(Testdata(name), &saved_model));
    ASSERT_EQ(saved_model.meta_graphs_size(), 1);
    EXPECT_EQ(CountUnknownFields(saved_model), 0);
    EXPECT_GT(saved_model.meta_graphs(0).signature_def_size(), 0);
  }
}

TEST_F(LoaderTest, TensorFlow1HalfPlusTwoGivesHalfXPlusTwo) {
  const std::string dir = Testdata("saved_model_half_plus_two_cpu");
  EXPECT_TRUE(MaybeSavedModelDirectory(dir));
  SavedModelBundle bundle;
  MF_ASSERT_OK(Load(dir, &bundle));
  EXPECT_THAT(bundle.meta_graph_def.meta_info_def().tags(),
              ElementsAre(kSavedModelTagServe));
  ASSERT_EQ(bundle.GetSignatures().count(kDefaultServingSignatureDefKey), 1);

  auto sig = GetSignatureTensors(bundle.meta_graph_def,
                                 kDefaultServingSignatureDefKey);
  MF_ASSERT_OK(sig.status());
  EXPECT_EQ(sig->method_name, kPredictMethodName);
  ASSERT_EQ(sig->inputs.size(), 1);
  EXPECT_EQ(sig->inputs[0].key, "x");
  EXPECT_EQ(sig->inputs[0].tensor_name, "x:0");
  EXPECT_EQ(sig->inputs[0].dtype, DT_FLOAT);
  EXPECT_EQ(sig->inputs[0].shape.DebugString(), "[?,1]");
  ASSERT_EQ(sig->outputs.size(), 1);
  EXPECT_EQ(sig->outputs[0].key, "y");
  EXPECT_EQ(sig->outputs[0].tensor_name, "y:0");

  auto y = RunSignature(bundle, kDefaultServingSignatureDefKey,
                        test::AsTensor<float>({1, 2, 3}, TensorShape({3, 1})));
  MF_ASSERT_OK(y.status());
  test::ExpectTensorEqual<float>(
      *y, test::AsTensor<float>({2.5f, 3.0f, 3.5f}, TensorShape({3, 1})));
}

// Keras-style: the signature's output is a StatefulPartitionedCall into a
// function reading resource variables; the restore op is another call.
TEST_F(LoaderTest, TensorFlow2HalfPlusTwoRunsThroughItsFunctions) {
  const std::string dir = Testdata("saved_model_half_plus_two_tf2_cpu");
  SavedModelBundle bundle;
  MF_ASSERT_OK(Load(dir, &bundle));
  auto sig = GetSignatureTensors(bundle.meta_graph_def,
                                 kDefaultServingSignatureDefKey);
  MF_ASSERT_OK(sig.status());
  ASSERT_EQ(sig->inputs.size(), 1);
  EXPECT_EQ(sig->inputs[0].key, "x");
  EXPECT_EQ(sig->inputs[0].tensor_name, "serving_default_x:0");
  ASSERT_EQ(sig->outputs.size(), 1);
  EXPECT_EQ(sig->outputs[0].key, "y");
  EXPECT_EQ(sig->outputs[0].tensor_name, "StatefulPartitionedCall_5:0");

  auto y = RunSignature(bundle, kDefaultServingSignatureDefKey,
                        test::AsTensor<float>({4}, TensorShape({1})));
  MF_ASSERT_OK(y.status());
  test::ExpectTensorEqual<float>(*y,
                                 test::AsTensor<float>({4}, TensorShape({1})));
  // The restored variables, read directly.
  std::vector<Tensor> values;
  MF_ASSERT_OK(bundle.session->Run(
      {}, {"a/Read/ReadVariableOp:0", "b/Read/ReadVariableOp:0"}, {}, &values));
  EXPECT_EQ(values[0].scalar<float>()(), 0.5f);
  EXPECT_EQ(values[1].scalar<float>()(), 2.0f);
}

// The TF 2 init op assigns the asset's path, fed by the loader, to a
// variable.
TEST_F(LoaderTest, TensorFlow2InitOpGetsTheAssetsAbsolutePath) {
  const std::string dir = Testdata("saved_model_half_plus_two_tf2_cpu");
  SavedModelBundle bundle;
  MF_ASSERT_OK(Load(dir, &bundle));
  std::vector<Tensor> values;
  MF_ASSERT_OK(
      bundle.session->Run({}, {"Variable/Read/ReadVariableOp:0"}, {}, &values));
  const std::string path = values.at(0).scalar<tstring>()();
  EXPECT_EQ(path, fs::absolute(fs::path(dir) / "assets/foo.txt").string());
  EXPECT_EQ(ReadAll(path), "asset-file-contents");
}

// TF 1 with assets in the saved_model_assets collection and a
// legacy_init_op.
TEST_F(LoaderTest, TensorFlow1HalfPlusThreeWithAssetAndLegacyInitOp) {
  const std::string dir = Testdata("saved_model_half_plus_three");
  SavedModelBundle bundle;
  MF_ASSERT_OK(Load(dir, &bundle));
  auto y = RunSignature(bundle, kDefaultServingSignatureDefKey,
                        test::AsTensor<float>({0, 4}, TensorShape({2})));
  MF_ASSERT_OK(y.status());
  test::ExpectTensorEqual<float>(*y, test::AsTensor<float>({3, 5}));
  // legacy_init_op ("group_deps") assigned the asset's name.
  std::vector<Tensor> values;
  MF_ASSERT_OK(bundle.session->Run({}, {"filename_tensor:0"}, {}, &values));
  EXPECT_EQ(values.at(0).scalar<tstring>()(), "foo.txt");
}

// TensorFlow Serving's regress signatures parse serialized tf.Examples
// (ParseExample in TF 1, ParseExampleV2 inside a function in TF 2).
TEST_F(LoaderTest, RegressSignaturesParseExamples) {
  std::vector<tstring> examples;
  for (float x : {3.0f, -2.0f}) {
    Example example;
    (*example.mutable_features()->mutable_feature())["x"]
        .mutable_float_list()
        ->add_value(x);
    examples.push_back(example.SerializeAsString());
  }
  for (const char* name :
       {"saved_model_half_plus_two_cpu", "saved_model_half_plus_two_tf2_cpu"}) {
    SCOPED_TRACE(name);
    SavedModelBundle bundle;
    MF_ASSERT_OK(Load(Testdata(name), &bundle));
    auto y = RunSignature(bundle, "regress_x_to_y",
                          test::AsTensor<tstring>(examples));
    MF_ASSERT_OK(y.status());
    ASSERT_EQ(y->NumElements(), 2);
    EXPECT_EQ(y->flat<float>()(0), 3.5f);
    EXPECT_EQ(y->flat<float>()(1), 1.0f);
  }
}

TEST_F(LoaderTest, SignatureTensorsOfAnUnknownKeyListTheKeys) {
  SavedModelBundle bundle;
  MF_ASSERT_OK(Load(Testdata("saved_model_half_plus_three"), &bundle));
  EXPECT_THAT(GetSignatureTensors(bundle.meta_graph_def, "nope").status(),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("nope"), HasSubstr("serving_default"),
                             HasSubstr("tensorflow/serving/regress"))));
}

TEST_F(LoaderTest, WrongTagsListTheAvailableTags) {
  const std::string dir = Testdata("saved_model_half_plus_two_cpu");
  SavedModelBundle bundle;
  EXPECT_THAT(Load(dir, &bundle, {"serve", "gpu"}),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("tags 'gpu, serve'"),
                             HasSubstr("available tags '[serve]'"),
                             HasSubstr(dir + "/saved_model.pb"))));
  EXPECT_EQ(bundle.session, nullptr);
}

TEST_F(LoaderTest, MissingDirectoryIsNotFound) {
  SavedModelBundle bundle;
  EXPECT_THAT(
      Load(dir_ + "/absent", &bundle),
      StatusIs(absl::StatusCode::kNotFound, HasSubstr(dir_ + "/absent")));
  EXPECT_FALSE(MaybeSavedModelDirectory(dir_ + "/absent"));
}

TEST_F(LoaderTest, MissingSavedModelPbIsNotFound) {
  SavedModelBundle bundle;
  EXPECT_FALSE(MaybeSavedModelDirectory(dir_));
  EXPECT_THAT(Load(dir_, &bundle),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr(dir_), HasSubstr("saved_model.pb"))));
}

TEST_F(LoaderTest, TruncatedSavedModelPbIsAnErrorNamingTheFile) {
  const std::string dir = CopyOf("saved_model_half_plus_two_cpu");
  const std::string pb = dir + "/saved_model.pb";
  const std::string bytes = ReadAll(pb);
  WriteAll(pb, bytes.substr(0, bytes.size() / 2));
  SavedModelBundle bundle;
  EXPECT_THAT(Load(dir, &bundle),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(pb), HasSubstr("truncated"))));
  // Wherever the file is cut, loading fails cleanly.
  for (size_t size = 0; size < bytes.size(); size += 97) {
    WriteAll(pb, bytes.substr(0, size));
    EXPECT_FALSE(Load(dir, &bundle).ok()) << size;
  }
}

// Flipped bytes either still load or are errors; nothing crashes.
TEST_F(LoaderTest, CorruptSavedModelPbNeverCrashes) {
  const std::string dir = CopyOf("saved_model_half_plus_two_cpu");
  const std::string pb = dir + "/saved_model.pb";
  const std::string bytes = ReadAll(pb);
  for (size_t i = 1; i < bytes.size(); i += 211) {
    std::string corrupt = bytes;
    corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
    WriteAll(pb, corrupt);
    SavedModelBundle bundle;
    const Status s = Load(dir, &bundle);
    if (!s.ok()) {
      EXPECT_THAT(std::string(s.message()), HasSubstr(dir)) << i;
    }
  }
}

TEST_F(LoaderTest, CorruptSavedModelPbtxtIsAnErrorNamingTheFile) {
  WriteAll(dir_ + "/saved_model.pbtxt", "meta_graphs { nope: 1 }");
  SavedModelBundle bundle;
  EXPECT_THAT(Load(dir_, &bundle),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(dir_ + "/saved_model.pbtxt"),
                             HasSubstr("line 1"))));
}

TEST_F(LoaderTest, MissingVariablesDataIsAnErrorNamingIt) {
  const std::string dir = CopyOf("saved_model_half_plus_two_cpu");
  fs::remove(dir + "/variables/variables.data-00000-of-00001");
  SavedModelBundle bundle;
  const Status s = Load(dir, &bundle);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr(dir + "/variables/variables"),
                    HasSubstr("restoring the variables")));
}

// Stack depth stays bounded whatever the file: 20,000 levels of tensors
// inside the MetaGraph's graph.
TEST_F(LoaderTest, DeeplyNestedSavedModelIsRefused) {
  std::vector<int> fields = {2, 2};  // SavedModel.meta_graphs, graph_def
  for (int field : test::DeepGraphDefFields(10000)) fields.push_back(field);
  WriteAll(dir_ + "/saved_model.pb", test::NestedMessageBytes(fields));
  SavedModelBundle bundle;
  EXPECT_THAT(Load(dir_, &bundle),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(dir_ + "/saved_model.pb"),
                             HasSubstr("levels deep"))));
}

// ---- A SavedModel written by minflow -------------------------------------

GraphDef SmallModel() {
  return ParseTextProtoOrDie<GraphDef>(R"pb(
    node {
      name: "x"
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
            tensor_shape {
              dim { size: 2 }
              dim { size: 3 }
            }
            float_val: [ 1, -2, 0.25, 3.5, 1e-3, -7 ]
          }
        }
      }
    }
    node {
      name: "b"
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
            tensor_shape { dim { size: 3 } }
            float_val: [ 0.5, -1, 2 ]
          }
        }
      }
    }
    node {
      name: "xw"
      op: "MatMul"
      input: [ "x", "w" ]
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "y"
      op: "Add"
      input: [ "xw", "b" ]
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb");
}

SignatureDef SmallModelSignature() {
  return ParseTextProtoOrDie<SignatureDef>(R"pb(
    inputs {
      key: "x"
      value {
        name: "x:0"
        dtype: DT_FLOAT
        tensor_shape {
          dim { size: -1 }
          dim { size: 2 }
        }
      }
    }
    outputs {
      key: "y"
      value {
        name: "y:0"
        dtype: DT_FLOAT
        tensor_shape {
          dim { size: -1 }
          dim { size: 3 }
        }
      }
    }
    method_name: "tensorflow/serving/predict"
  )pb");
}

SavedModelExport SmallModelExport() {
  SavedModelExport model;
  model.graph = SmallModel();
  model.variables = {"w", "b"};
  model.signatures[kDefaultServingSignatureDefKey] = SmallModelSignature();
  return model;
}

TEST_F(LoaderTest, SavedModelWrittenByMinflowGivesTheFrozenGraphsOutputs) {
  const Tensor x = test::AsTensor<float>({1, 2, -3, 0.5f, 1e6f, -1e-6f},
                                         TensorShape({3, 2}));
  auto frozen = Session::Create(SmallModel(), SessionOptions());
  MF_ASSERT_OK(frozen.status());
  std::vector<Tensor> expected;
  MF_ASSERT_OK((*frozen)->Run({{"x", x}}, {"y"}, {}, &expected));

  const std::string dir = dir_ + "/model";
  MF_ASSERT_OK(ExportSavedModel(SmallModelExport(), dir));
  // The variables are in the checkpoint, the Consts gone from the graph.
  auto reader = BundleReader::Open(dir + "/variables/variables");
  MF_ASSERT_OK(reader.status());
  std::vector<std::string> keys;
  MF_ASSERT_OK((*reader)->ListKeys(&keys));
  EXPECT_THAT(keys, ElementsAre("b", "w"));

  SavedModelBundle bundle;
  MF_ASSERT_OK(Load(dir, &bundle));
  for (const NodeDef& node : bundle.meta_graph_def.graph_def().node()) {
    if (node.name() == "w" || node.name() == "b") {
      EXPECT_EQ(node.op(), "ReadVariableOp") << node.name();
    }
  }
  auto y = RunSignature(bundle, kDefaultServingSignatureDefKey, x);
  MF_ASSERT_OK(y.status());
  test::ExpectTensorEqual<float>(*y, expected.at(0));
}

TEST_F(LoaderTest, SavedModelAsTextLoads) {
  const std::string dir = dir_ + "/model";
  MF_ASSERT_OK(ExportSavedModel(SmallModelExport(), dir));
  SavedModel saved_model;
  MF_ASSERT_OK(ReadSavedModel(dir, &saved_model));
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(saved_model, &text));
  fs::remove(dir + "/saved_model.pb");
  WriteAll(dir + "/saved_model.pbtxt", text);
  SavedModelBundle bundle;
  MF_ASSERT_OK(Load(dir, &bundle));
  auto y = RunSignature(bundle, kDefaultServingSignatureDefKey,
                        test::AsTensor<float>({1, 0}, TensorShape({1, 2})));
  MF_ASSERT_OK(y.status());
  test::ExpectTensorEqual<float>(
      *y, test::AsTensor<float>({1.5f, -3.0f, 2.25f}, TensorShape({1, 3})));
}

TEST_F(LoaderTest, ExportRefusesANonEmptyDirectoryAndNonConstVariables) {
  const std::string dir = dir_ + "/model";
  MF_ASSERT_OK(ExportSavedModel(SmallModelExport(), dir));
  EXPECT_THAT(ExportSavedModel(SmallModelExport(), dir),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr(dir)));
  SavedModelExport model = SmallModelExport();
  model.variables = {"xw"};
  EXPECT_THAT(ExportSavedModel(model, dir_ + "/other"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'xw'"), HasSubstr("MatMul"))));
}

}  // namespace
}  // namespace minflow
