// MF_Status, MF_Buffer and MF_Version, and the helpers every C API file uses.
#include <cstdlib>
#include <cstring>

#include "minflow/c/c_api.h"
#include "src/c/c_api_internal.h"

using minflow::Status;

namespace minflow {
namespace c_api {

void Set(MF_Status* out, const Status& s) {
  if (out == nullptr) return;
  out->status = s;
  out->message = std::string(s.message());
}

bool IsNodeOf(const Graph& graph, const Node* node) {
  return node != nullptr && graph.FindNodeId(node->id()) == node;
}

Status NullArgument(const char* function, const char* what) {
  return errors::InvalidArgument(function, ": ", what, " must not be NULL");
}

Status CopyToBuffer(const std::string& bytes, MF_Buffer* out) {
  if (out->data != nullptr) {
    return errors::InvalidArgument(
        "The output MF_Buffer must be empty (from MF_NewBuffer), but it holds ",
        out->length, " bytes");
  }
  void* copy = std::malloc(bytes.empty() ? 1 : bytes.size());
  if (copy == nullptr) {
    return errors::ResourceExhausted("Cannot allocate ", bytes.size(),
                                     " bytes for an MF_Buffer");
  }
  std::memcpy(copy, bytes.data(), bytes.size());
  out->data = copy;
  out->length = bytes.size();
  out->data_deallocator = [](void* data, size_t) { std::free(data); };
  return OkStatus();
}

Status MessageToBuffer(const char* function,
                       const google::protobuf::MessageLite& message,
                       MF_Buffer* out) {
  if (out == nullptr) return NullArgument(function, "the output buffer");
  std::string bytes;
  if (!message.SerializeToString(&bytes)) {
    return errors::Internal(function, ": cannot serialize the ",
                            message.GetTypeName());
  }
  return CopyToBuffer(bytes, out);
}

}  // namespace c_api
}  // namespace minflow

extern "C" {

const char* MF_Version(void) { return MINFLOW_VERSION; }

MF_Status* MF_NewStatus(void) { return new MF_Status; }

void MF_DeleteStatus(MF_Status* s) { delete s; }

void MF_SetStatus(MF_Status* s, MF_Code code, const char* msg) {
  if (s == nullptr) return;
  if (code == MF_OK) {
    minflow::c_api::SetOk(s);
    return;
  }
  // Codes outside the canonical range become MF_UNKNOWN rather than an
  // absl::Status that claims to be something it is not.
  const int value = static_cast<int>(code);
  const auto absl_code = value > 0 && value <= MF_UNAUTHENTICATED
                             ? static_cast<absl::StatusCode>(value)
                             : absl::StatusCode::kUnknown;
  minflow::c_api::Set(s, Status(absl_code, msg == nullptr ? "" : msg));
}

MF_Code MF_GetCode(const MF_Status* s) {
  if (s == nullptr) return MF_INVALID_ARGUMENT;
  return static_cast<MF_Code>(s->status.code());
}

const char* MF_Message(const MF_Status* s) {
  if (s == nullptr) return "MF_Message: the status is NULL";
  return s->message.c_str();
}

MF_Buffer* MF_NewBuffer(void) { return new MF_Buffer{nullptr, 0, nullptr}; }

MF_Buffer* MF_NewBufferFromString(const void* proto, size_t proto_len) {
  if (proto == nullptr && proto_len != 0) return nullptr;
  MF_Buffer* buffer = MF_NewBuffer();
  const Status s = minflow::c_api::CopyToBuffer(
      proto_len == 0 ? std::string()
                     : std::string(static_cast<const char*>(proto), proto_len),
      buffer);
  if (!s.ok()) {
    delete buffer;
    return nullptr;
  }
  return buffer;
}

void MF_DeleteBuffer(MF_Buffer* buffer) {
  if (buffer == nullptr) return;
  if (buffer->data_deallocator != nullptr) {
    buffer->data_deallocator(const_cast<void*>(buffer->data), buffer->length);
  }
  delete buffer;
}

MF_Buffer MF_GetBuffer(MF_Buffer* buffer) {
  if (buffer == nullptr) return MF_Buffer{nullptr, 0, nullptr};
  return *buffer;
}

}  // extern "C"
