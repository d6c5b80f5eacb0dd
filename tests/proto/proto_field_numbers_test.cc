// Pins minflow's protos to TensorFlow's wire and text format: every field of
// the graph-facing messages by name, number, type and cardinality, the
// DataType values, and real TF text (the TF op list, a TF-written GraphDef).

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "minflow/attr_value.pb.h"
#include "minflow/full_type.pb.h"
#include "minflow/function.pb.h"
#include "minflow/graph.pb.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"
#include "minflow/resource_handle.pb.h"
#include "minflow/tensor.pb.h"
#include "minflow/tensor_shape.pb.h"
#include "minflow/types.pb.h"
#include "minflow/versions.pb.h"

namespace minflow {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::TextFormat;

constexpr bool kRep = true;   // repeated (maps count as repeated)
constexpr bool kOne = false;  // singular

constexpr FieldDescriptor::Type kStr = FieldDescriptor::TYPE_STRING;
constexpr FieldDescriptor::Type kBytes = FieldDescriptor::TYPE_BYTES;
constexpr FieldDescriptor::Type kBool = FieldDescriptor::TYPE_BOOL;
constexpr FieldDescriptor::Type kI32 = FieldDescriptor::TYPE_INT32;
constexpr FieldDescriptor::Type kI64 = FieldDescriptor::TYPE_INT64;
constexpr FieldDescriptor::Type kU32 = FieldDescriptor::TYPE_UINT32;
constexpr FieldDescriptor::Type kU64 = FieldDescriptor::TYPE_UINT64;
constexpr FieldDescriptor::Type kF32 = FieldDescriptor::TYPE_FLOAT;
constexpr FieldDescriptor::Type kF64 = FieldDescriptor::TYPE_DOUBLE;
constexpr FieldDescriptor::Type kEnum = FieldDescriptor::TYPE_ENUM;
constexpr FieldDescriptor::Type kMsg = FieldDescriptor::TYPE_MESSAGE;

struct FieldSpec {
  const char* message;  // full name, package "minflow"
  const char* field;
  int number;
  FieldDescriptor::Type type;
  bool repeated;
};

// Copied by hand from TensorFlow's .proto files; keep in sync with TF, not
// with minflow's protos.
const FieldSpec kFields[] = {
    {"minflow.GraphDef", "node", 1, kMsg, kRep},
    {"minflow.GraphDef", "library", 2, kMsg, kOne},
    {"minflow.GraphDef", "version", 3, kI32, kOne},
    {"minflow.GraphDef", "versions", 4, kMsg, kOne},
    {"minflow.GraphDef", "debug_info", 5, kMsg, kOne},

    {"minflow.NodeDef", "name", 1, kStr, kOne},
    {"minflow.NodeDef", "op", 2, kStr, kOne},
    {"minflow.NodeDef", "input", 3, kStr, kRep},
    {"minflow.NodeDef", "device", 4, kStr, kOne},
    {"minflow.NodeDef", "attr", 5, kMsg, kRep},
    {"minflow.NodeDef", "experimental_debug_info", 6, kMsg, kOne},
    {"minflow.NodeDef", "experimental_type", 7, kMsg, kOne},
    {"minflow.NodeDef.ExperimentalDebugInfo", "original_node_names", 1, kStr,
     kRep},
    {"minflow.NodeDef.ExperimentalDebugInfo", "original_func_names", 2, kStr,
     kRep},

    {"minflow.AttrValue", "list", 1, kMsg, kOne},
    {"minflow.AttrValue", "s", 2, kBytes, kOne},
    {"minflow.AttrValue", "i", 3, kI64, kOne},
    {"minflow.AttrValue", "f", 4, kF32, kOne},
    {"minflow.AttrValue", "b", 5, kBool, kOne},
    {"minflow.AttrValue", "type", 6, kEnum, kOne},
    {"minflow.AttrValue", "shape", 7, kMsg, kOne},
    {"minflow.AttrValue", "tensor", 8, kMsg, kOne},
    {"minflow.AttrValue", "placeholder", 9, kStr, kOne},
    {"minflow.AttrValue", "func", 10, kMsg, kOne},
    {"minflow.AttrValue.ListValue", "s", 2, kBytes, kRep},
    {"minflow.AttrValue.ListValue", "i", 3, kI64, kRep},
    {"minflow.AttrValue.ListValue", "f", 4, kF32, kRep},
    {"minflow.AttrValue.ListValue", "b", 5, kBool, kRep},
    {"minflow.AttrValue.ListValue", "type", 6, kEnum, kRep},
    {"minflow.AttrValue.ListValue", "shape", 7, kMsg, kRep},
    {"minflow.AttrValue.ListValue", "tensor", 8, kMsg, kRep},
    {"minflow.AttrValue.ListValue", "func", 9, kMsg, kRep},
    {"minflow.NameAttrList", "name", 1, kStr, kOne},
    {"minflow.NameAttrList", "attr", 2, kMsg, kRep},

    {"minflow.TensorProto", "dtype", 1, kEnum, kOne},
    {"minflow.TensorProto", "tensor_shape", 2, kMsg, kOne},
    {"minflow.TensorProto", "version_number", 3, kI32, kOne},
    {"minflow.TensorProto", "tensor_content", 4, kBytes, kOne},
    {"minflow.TensorProto", "float_val", 5, kF32, kRep},
    {"minflow.TensorProto", "double_val", 6, kF64, kRep},
    {"minflow.TensorProto", "int_val", 7, kI32, kRep},
    {"minflow.TensorProto", "string_val", 8, kBytes, kRep},
    {"minflow.TensorProto", "scomplex_val", 9, kF32, kRep},
    {"minflow.TensorProto", "int64_val", 10, kI64, kRep},
    {"minflow.TensorProto", "bool_val", 11, kBool, kRep},
    {"minflow.TensorProto", "dcomplex_val", 12, kF64, kRep},
    {"minflow.TensorProto", "half_val", 13, kI32, kRep},
    {"minflow.TensorProto", "resource_handle_val", 14, kMsg, kRep},
    {"minflow.TensorProto", "variant_val", 15, kMsg, kRep},
    {"minflow.TensorProto", "uint32_val", 16, kU32, kRep},
    {"minflow.TensorProto", "uint64_val", 17, kU64, kRep},
    {"minflow.TensorProto", "float8_val", 18, kBytes, kOne},
    {"minflow.VariantTensorDataProto", "type_name", 1, kStr, kOne},
    {"minflow.VariantTensorDataProto", "metadata", 2, kBytes, kOne},
    {"minflow.VariantTensorDataProto", "tensors", 3, kMsg, kRep},

    {"minflow.TensorShapeProto", "dim", 2, kMsg, kRep},
    {"minflow.TensorShapeProto", "unknown_rank", 3, kBool, kOne},
    {"minflow.TensorShapeProto.Dim", "size", 1, kI64, kOne},
    {"minflow.TensorShapeProto.Dim", "name", 2, kStr, kOne},

    {"minflow.ResourceHandleProto", "device", 1, kStr, kOne},
    {"minflow.ResourceHandleProto", "container", 2, kStr, kOne},
    {"minflow.ResourceHandleProto", "name", 3, kStr, kOne},
    {"minflow.ResourceHandleProto", "hash_code", 4, kU64, kOne},
    {"minflow.ResourceHandleProto", "maybe_type_name", 5, kStr, kOne},
    {"minflow.ResourceHandleProto", "dtypes_and_shapes", 6, kMsg, kRep},
    {"minflow.ResourceHandleProto.DtypeAndShape", "dtype", 1, kEnum, kOne},
    {"minflow.ResourceHandleProto.DtypeAndShape", "shape", 2, kMsg, kOne},

    {"minflow.FullTypeDef", "type_id", 1, kEnum, kOne},
    {"minflow.FullTypeDef", "args", 2, kMsg, kRep},
    {"minflow.FullTypeDef", "s", 3, kStr, kOne},
    {"minflow.FullTypeDef", "i", 4, kI64, kOne},

    {"minflow.OpDef", "name", 1, kStr, kOne},
    {"minflow.OpDef", "input_arg", 2, kMsg, kRep},
    {"minflow.OpDef", "output_arg", 3, kMsg, kRep},
    {"minflow.OpDef", "attr", 4, kMsg, kRep},
    {"minflow.OpDef", "summary", 5, kStr, kOne},
    {"minflow.OpDef", "description", 6, kStr, kOne},
    {"minflow.OpDef", "deprecation", 8, kMsg, kOne},
    {"minflow.OpDef", "is_aggregate", 16, kBool, kOne},
    {"minflow.OpDef", "is_stateful", 17, kBool, kOne},
    {"minflow.OpDef", "is_commutative", 18, kBool, kOne},
    {"minflow.OpDef", "allows_uninitialized_input", 19, kBool, kOne},
    {"minflow.OpDef", "control_output", 20, kStr, kRep},
    {"minflow.OpDef", "is_distributed_communication", 21, kBool, kOne},
    {"minflow.OpDef.ArgDef", "name", 1, kStr, kOne},
    {"minflow.OpDef.ArgDef", "description", 2, kStr, kOne},
    {"minflow.OpDef.ArgDef", "type", 3, kEnum, kOne},
    {"minflow.OpDef.ArgDef", "type_attr", 4, kStr, kOne},
    {"minflow.OpDef.ArgDef", "number_attr", 5, kStr, kOne},
    {"minflow.OpDef.ArgDef", "type_list_attr", 6, kStr, kOne},
    {"minflow.OpDef.ArgDef", "handle_data", 7, kMsg, kRep},
    {"minflow.OpDef.ArgDef", "is_ref", 16, kBool, kOne},
    {"minflow.OpDef.ArgDef", "experimental_full_type", 17, kMsg, kOne},
    {"minflow.OpDef.AttrDef", "name", 1, kStr, kOne},
    {"minflow.OpDef.AttrDef", "type", 2, kStr, kOne},
    {"minflow.OpDef.AttrDef", "default_value", 3, kMsg, kOne},
    {"minflow.OpDef.AttrDef", "description", 4, kStr, kOne},
    {"minflow.OpDef.AttrDef", "has_minimum", 5, kBool, kOne},
    {"minflow.OpDef.AttrDef", "minimum", 6, kI64, kOne},
    {"minflow.OpDef.AttrDef", "allowed_values", 7, kMsg, kOne},
    {"minflow.OpDeprecation", "version", 1, kI32, kOne},
    {"minflow.OpDeprecation", "explanation", 2, kStr, kOne},
    {"minflow.OpList", "op", 1, kMsg, kRep},

    {"minflow.FunctionDefLibrary", "function", 1, kMsg, kRep},
    {"minflow.FunctionDefLibrary", "gradient", 2, kMsg, kRep},
    {"minflow.FunctionDefLibrary", "registered_gradients", 3, kMsg, kRep},
    {"minflow.FunctionDef", "signature", 1, kMsg, kOne},
    {"minflow.FunctionDef", "node_def", 3, kMsg, kRep},
    {"minflow.FunctionDef", "ret", 4, kMsg, kRep},
    {"minflow.FunctionDef", "attr", 5, kMsg, kRep},
    {"minflow.FunctionDef", "control_ret", 6, kMsg, kRep},
    {"minflow.FunctionDef", "arg_attr", 7, kMsg, kRep},
    {"minflow.FunctionDef", "resource_arg_unique_id", 8, kMsg, kRep},
    {"minflow.FunctionDef.ArgAttrs", "attr", 1, kMsg, kRep},
    {"minflow.GradientDef", "function_name", 1, kStr, kOne},
    {"minflow.GradientDef", "gradient_func", 2, kStr, kOne},
    {"minflow.RegisteredGradient", "gradient_func", 1, kStr, kOne},
    {"minflow.RegisteredGradient", "registered_op_type", 2, kStr, kOne},

    {"minflow.VersionDef", "producer", 1, kI32, kOne},
    {"minflow.VersionDef", "min_consumer", 2, kI32, kOne},
    {"minflow.VersionDef", "bad_consumers", 3, kI32, kRep},
};

// Makes sure every generated file is linked in and registered in the pool.
void TouchGeneratedFiles() {
  (void)GraphDef::descriptor();
  (void)OpList::descriptor();
  (void)FunctionDefLibrary::descriptor();
  (void)ResourceHandleProto::descriptor();
  (void)FullTypeDef::descriptor();
}

const Descriptor* FindMessage(const std::string& full_name) {
  TouchGeneratedFiles();
  return DescriptorPool::generated_pool()->FindMessageTypeByName(full_name);
}

TEST(ProtoFieldNumbersTest, EveryPinnedFieldHasTensorFlowNumberAndType) {
  for (const FieldSpec& spec : kFields) {
    SCOPED_TRACE(std::string(spec.message) + "." + spec.field);
    const Descriptor* message = FindMessage(spec.message);
    ASSERT_NE(message, nullptr) << "message not found";
    const FieldDescriptor* field = message->FindFieldByName(spec.field);
    ASSERT_NE(field, nullptr) << "field not found";
    EXPECT_EQ(field->number(), spec.number);
    EXPECT_EQ(field->type(), spec.type) << field->type_name();
    EXPECT_EQ(field->is_repeated(), spec.repeated);
    if (field->is_repeated() && field->is_packable()) {
      EXPECT_TRUE(field->is_packed()) << "TF packs repeated scalars";
    }
  }
}

TEST(ProtoFieldNumbersTest, TableCoversEveryFieldOfPinnedMessages) {
  std::set<std::pair<std::string, std::string>> pinned;
  std::set<std::string> messages;
  for (const FieldSpec& spec : kFields) {
    pinned.emplace(spec.message, spec.field);
    messages.insert(spec.message);
  }
  for (const std::string& name : messages) {
    const Descriptor* message = FindMessage(name);
    ASSERT_NE(message, nullptr) << name;
    for (int i = 0; i < message->field_count(); ++i) {
      const FieldDescriptor* field = message->field(i);
      EXPECT_TRUE(pinned.count({name, field->name()}) == 1)
          << name << "." << field->name() << " (" << field->number()
          << ") is not pinned in kFields";
    }
  }
}

TEST(ProtoFieldNumbersTest, MapFieldsHaveTensorFlowKeyAndValueTypes) {
  struct MapSpec {
    const char* message;
    const char* field;
    FieldDescriptor::Type key;
    FieldDescriptor::Type value;
  };
  const MapSpec kMaps[] = {
      {"minflow.NodeDef", "attr", kStr, kMsg},
      {"minflow.NameAttrList", "attr", kStr, kMsg},
      {"minflow.FunctionDef", "attr", kStr, kMsg},
      {"minflow.FunctionDef", "arg_attr", kU32, kMsg},
      {"minflow.FunctionDef", "resource_arg_unique_id", kU32, kU32},
      {"minflow.FunctionDef", "ret", kStr, kStr},
      {"minflow.FunctionDef", "control_ret", kStr, kStr},
      {"minflow.FunctionDef.ArgAttrs", "attr", kStr, kMsg},
  };
  for (const MapSpec& spec : kMaps) {
    SCOPED_TRACE(std::string(spec.message) + "." + spec.field);
    const Descriptor* message = FindMessage(spec.message);
    ASSERT_NE(message, nullptr);
    const FieldDescriptor* field = message->FindFieldByName(spec.field);
    ASSERT_NE(field, nullptr);
    ASSERT_TRUE(field->is_map());
    const Descriptor* entry = field->message_type();
    EXPECT_EQ(entry->map_key()->type(), spec.key);
    EXPECT_EQ(entry->map_value()->type(), spec.value);
  }
}

TEST(ProtoFieldNumbersTest, AttrValueAlternativesShareOneOneof) {
  const Descriptor* attr_value = AttrValue::descriptor();
  for (int i = 0; i < attr_value->field_count(); ++i) {
    const FieldDescriptor* field = attr_value->field(i);
    ASSERT_NE(field->containing_oneof(), nullptr) << field->name();
    EXPECT_EQ(field->containing_oneof()->name(), "value");
  }
  const Descriptor* full_type = FullTypeDef::descriptor();
  EXPECT_EQ(full_type->FindFieldByName("s")->containing_oneof()->name(),
            "attr");
  EXPECT_EQ(full_type->FindFieldByName("i")->containing_oneof()->name(),
            "attr");
}

TEST(ProtoFieldNumbersTest, DataTypeValuesMatchTensorFlow) {
  EXPECT_EQ(DT_INVALID, 0);
  EXPECT_EQ(DT_FLOAT, 1);
  EXPECT_EQ(DT_DOUBLE, 2);
  EXPECT_EQ(DT_INT32, 3);
  EXPECT_EQ(DT_UINT8, 4);
  EXPECT_EQ(DT_STRING, 7);
  EXPECT_EQ(DT_COMPLEX64, 8);
  EXPECT_EQ(DT_INT64, 9);
  EXPECT_EQ(DT_BOOL, 10);
  EXPECT_EQ(DT_QINT8, 11);
  EXPECT_EQ(DT_BFLOAT16, 14);
  EXPECT_EQ(DT_UINT16, 17);
  EXPECT_EQ(DT_COMPLEX128, 18);
  EXPECT_EQ(DT_HALF, 19);
  EXPECT_EQ(DT_RESOURCE, 20);
  EXPECT_EQ(DT_VARIANT, 21);
  EXPECT_EQ(DT_UINT32, 22);
  EXPECT_EQ(DT_UINT64, 23);
  EXPECT_EQ(DT_FLOAT8_E5M2, 24);
  EXPECT_EQ(DT_FLOAT8_E4M3FN, 25);
  EXPECT_EQ(DT_INT4, 29);
  EXPECT_EQ(DT_UINT4, 30);
  EXPECT_EQ(DT_FLOAT_REF, 101);
  EXPECT_EQ(DT_INT32_REF, 103);
  EXPECT_EQ(DT_HALF_REF, 119);
  EXPECT_EQ(DT_RESOURCE_REF, 120);
  EXPECT_EQ(DT_UINT64_REF, 123);
}

// As in TF's types_test: each base type X has X_REF = X + 100, and no other
// values exist.
TEST(ProtoFieldNumbersTest, EveryDataTypeHasMatchingRefType) {
  const EnumDescriptor* data_type = DataType_descriptor();
  int base_count = 0;
  for (int i = 0; i < data_type->value_count(); ++i) {
    const auto* value = data_type->value(i);
    SCOPED_TRACE(value->name());
    if (value->number() == 0) {
      EXPECT_EQ(value->name(), "DT_INVALID");
    } else if (value->number() < 100) {
      ++base_count;
      const auto* ref = data_type->FindValueByNumber(value->number() + 100);
      ASSERT_NE(ref, nullptr) << "missing _REF value";
      EXPECT_EQ(ref->name(), value->name() + "_REF");
    } else {
      const auto* base = data_type->FindValueByNumber(value->number() - 100);
      ASSERT_NE(base, nullptr) << "_REF value without a base type";
      EXPECT_EQ(value->name(), base->name() + "_REF");
    }
  }
  EXPECT_EQ(data_type->value_count(), 1 + 2 * base_count);
}

TEST(ProtoFieldNumbersTest, FullTypeIdValuesMatchTensorFlow) {
  EXPECT_EQ(TFT_UNSET, 0);
  EXPECT_EQ(TFT_VAR, 1);
  EXPECT_EQ(TFT_ANY, 2);
  EXPECT_EQ(TFT_PRODUCT, 3);
  EXPECT_EQ(TFT_NAMED, 4);
  EXPECT_EQ(TFT_FOR_EACH, 20);
  EXPECT_EQ(TFT_CALLABLE, 100);
  EXPECT_EQ(TFT_TENSOR, 1000);
  EXPECT_EQ(TFT_ARRAY, 1001);
  EXPECT_EQ(TFT_OPTIONAL, 1002);
  EXPECT_EQ(TFT_SHAPE_TENSOR, 1005);
  EXPECT_EQ(TFT_BOOL, 200);
  EXPECT_EQ(TFT_INT32, 207);
  EXPECT_EQ(TFT_FLOAT, 210);
  EXPECT_EQ(TFT_BFLOAT16, 215);
  EXPECT_EQ(TFT_STRING, 214);
  EXPECT_EQ(TFT_DATASET, 10102);
  EXPECT_EQ(TFT_RAGGED, 10103);
  EXPECT_EQ(TFT_MUTEX_LOCK, 10202);
  EXPECT_EQ(TFT_LEGACY_VARIANT, 10203);
}

// Collects text-format errors so a failure names the offending line.
class CollectingErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    errors_ << "line " << (line + 1) << ":" << (column + 1) << ": " << message
            << "\n";
  }
  void AddWarning(int line, google::protobuf::io::ColumnNumber column,
                  const std::string& message) override {
    AddError(line, column, message);
  }
  std::string str() const { return errors_.str(); }

 private:
  std::ostringstream errors_;
};

// The parser rejects unknown field and enum names by default, so success
// means every name TF writes is known to minflow.
template <typename Proto>
bool ParseText(const std::string& text, Proto* proto, std::string* errors) {
  CollectingErrors collector;
  TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  const bool ok = parser.ParseFromString(text, proto);
  *errors = collector.str();
  return ok;
}

TEST(ProtoFieldNumbersTest, ParsesTensorFlowOpListWithoutUnknownFields) {
  const std::string path = MINFLOW_TF_OPS_PBTXT;
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "TensorFlow's op list is missing: " << path;
  std::stringstream buffer;
  buffer << in.rdbuf();

  OpList ops;
  std::string errors;
  ASSERT_TRUE(ParseText(buffer.str(), &ops, &errors)) << errors;
  EXPECT_GT(ops.op_size(), 1500);

  // Spot-check fields beyond the basics, so a silently dropped field shows.
  int full_typed_args = 0;
  int distributed = 0;
  int deprecated = 0;
  for (const OpDef& op : ops.op()) {
    for (const OpDef::ArgDef& arg : op.output_arg()) {
      if (arg.has_experimental_full_type()) ++full_typed_args;
    }
    if (op.is_distributed_communication()) ++distributed;
    if (op.has_deprecation()) ++deprecated;
  }
  EXPECT_GT(full_typed_args, 0);
  EXPECT_GT(distributed, 0);
  EXPECT_GT(deprecated, 0);

  // Binary round trip of the whole list.
  std::string bytes;
  ASSERT_TRUE(ops.SerializeToString(&bytes));
  OpList reparsed;
  ASSERT_TRUE(reparsed.ParseFromString(bytes));
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(ops, reparsed));
}

TEST(ProtoFieldNumbersTest, ParsesTensorFlowTextGraphDefAndRoundTrips) {
  // As TF's text_format writes a one-constant graph.
  const std::string text = R"pb(
    node {
      name: "a"
      op: "Const"
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape { dim { size: 2 } }
            float_val: 1
          }
        }
      }
    }
    versions { producer: 1882 }
  )pb";

  GraphDef graph;
  std::string errors;
  ASSERT_TRUE(ParseText(text, &graph, &errors)) << errors;
  ASSERT_EQ(graph.node_size(), 1);
  const NodeDef& node = graph.node(0);
  EXPECT_EQ(node.name(), "a");
  EXPECT_EQ(node.op(), "Const");
  ASSERT_EQ(node.attr().count("value"), 1u);
  const TensorProto& tensor = node.attr().at("value").tensor();
  EXPECT_EQ(tensor.dtype(), DT_FLOAT);
  ASSERT_EQ(tensor.tensor_shape().dim_size(), 1);
  EXPECT_EQ(tensor.tensor_shape().dim(0).size(), 2);
  ASSERT_EQ(tensor.float_val_size(), 1);
  EXPECT_EQ(tensor.float_val(0), 1.0f);
  EXPECT_EQ(graph.versions().producer(), 1882);

  std::string bytes;
  ASSERT_TRUE(graph.SerializeToString(&bytes));
  GraphDef reparsed;
  ASSERT_TRUE(reparsed.ParseFromString(bytes));
  EXPECT_TRUE(
      google::protobuf::util::MessageDifferencer::Equals(graph, reparsed));
  std::string bytes_again;
  ASSERT_TRUE(reparsed.SerializeToString(&bytes_again));
  EXPECT_EQ(bytes, bytes_again);
}

TEST(ProtoFieldNumbersTest, ParsesHandEncodedTensorFlowWireBytes) {
  // GraphDef { node { name: "a" op: "NoOp" } versions { producer: 1882 } },
  // encoded by hand from TF's field numbers.
  const unsigned char kWire[] = {
      0x0a, 0x09,                         // node (1), 9 bytes
      0x0a, 0x01, 'a',                    //   name (1)
      0x12, 0x04, 'N',  'o',  'O',  'p',  //   op (2)
      0x22, 0x03, 0x08, 0xda, 0x0e,       // versions (4) { producer (1) }
  };
  const std::string bytes(reinterpret_cast<const char*>(kWire), sizeof(kWire));
  GraphDef graph;
  ASSERT_TRUE(graph.ParseFromString(bytes));
  ASSERT_EQ(graph.node_size(), 1);
  EXPECT_EQ(graph.node(0).name(), "a");
  EXPECT_EQ(graph.node(0).op(), "NoOp");
  EXPECT_EQ(graph.versions().producer(), 1882);
  EXPECT_TRUE(graph.GetReflection()->GetUnknownFields(graph).empty());
}

}  // namespace
}  // namespace minflow
