#include "src/graph/foreign_model_format.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "google/protobuf/unknown_field_set.h"

namespace minflow {
namespace internal {
namespace {

constexpr char kWhatMinflowRuns[] =
    "minflow runs TensorFlow GraphDefs (binary .pb or text .pbtxt)";

Status SavedModelError() {
  return errors::InvalidArgument(
      "This is a TensorFlow SavedModel, not a GraphDef: give the minflow "
      "command its directory instead, or load it with LoadSavedModel "
      "(minflow/saved_model/loader.h); ",
      kWhatMinflowRuns, ".");
}

// A binary proto whose first field is field 1 as a varint is not a
// GraphDef (its field 1, `node`, is a message). TensorFlow's SavedModel
// (saved_model_schema_version = 1, meta_graphs = 2) and ONNX's ModelProto
// (ir_version = 1, ..., graph = 7) both start that way.
Status RejectForeignProto(absl::string_view bytes) {
  if (bytes.empty() || static_cast<unsigned char>(bytes[0]) != 0x08) {
    return OkStatus();
  }
  google::protobuf::UnknownFieldSet fields;
  if (!fields.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return OkStatus();
  }
  bool has_onnx_graph = false, has_meta_graphs = false;
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::UnknownField& field = fields.field(i);
    const bool is_message =
        field.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED;
    has_onnx_graph |= field.number() == 7 && is_message;
    has_meta_graphs |= field.number() == 2 && is_message;
  }
  if (has_onnx_graph) {
    return errors::InvalidArgument(
        "This is an ONNX model, not a TensorFlow graph; ", kWhatMinflowRuns,
        ".");
  }
  if (has_meta_graphs) return SavedModelError();
  return OkStatus();
}

// saved_model.pbtxt starts with one of SavedModel's two fields.
bool IsTextSavedModel(absl::string_view bytes) {
  absl::string_view text = absl::StripLeadingAsciiWhitespace(bytes);
  while (absl::StartsWith(text, "#")) {
    const size_t end = text.find('\n');
    text = end == absl::string_view::npos
               ? absl::string_view()
               : absl::StripLeadingAsciiWhitespace(text.substr(end));
  }
  return absl::StartsWith(text, "saved_model_schema_version") ||
         absl::StartsWith(text, "meta_graphs");
}

}  // namespace

Status RejectForeignModelBytes(absl::string_view bytes) {
  // A FlatBuffer names its schema in bytes 4..7; TensorFlow Lite's is TFL3.
  if (bytes.size() >= 8 && bytes.substr(4, 4) == "TFL3") {
    return errors::InvalidArgument(
        "This is a TensorFlow Lite model (.tflite), not a TensorFlow graph; ",
        kWhatMinflowRuns, ".");
  }
  if (IsTextSavedModel(bytes)) return SavedModelError();
  return RejectForeignProto(bytes);
}

Status RejectDirectory(const std::string& path) {
  std::error_code error;
  const std::filesystem::path dir(path);
  if (std::filesystem::exists(dir / "saved_model.pb", error) ||
      std::filesystem::exists(dir / "saved_model.pbtxt", error)) {
    return errors::Prefix(SavedModelError(), path, ": ");
  }
  return errors::NotFound("Cannot open graph file '", path,
                          "': it is a directory");
}

}  // namespace internal
}  // namespace minflow
