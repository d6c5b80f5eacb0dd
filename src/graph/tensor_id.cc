#include "minflow/graph/tensor_id.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace minflow {
namespace {

constexpr char kExpectedForms[] =
    "expected 'node' or 'node:port' with a port >= 0";

// "node" or "node:port"; `what` starts the error message.
Status ParseDataName(absl::string_view name, const char* what,
                     TensorIdView* id) {
  id->node = name;
  id->port = 0;
  const size_t colon = name.rfind(':');
  if (colon != absl::string_view::npos) {
    int port = 0;
    if (!absl::SimpleAtoi(name.substr(colon + 1), &port) || port < 0) {
      return errors::InvalidArgument(what, " '", name,
                                     "' has a malformed output port (",
                                     kExpectedForms, ")");
    }
    id->node = name.substr(0, colon);
    id->port = port;
  }
  if (id->node.empty()) {
    return errors::InvalidArgument(what, " '", name, "' names no node (",
                                   kExpectedForms, ")");
  }
  return OkStatus();
}

}  // namespace

std::string TensorId::ToString() const { return absl::StrCat(node, ":", port); }

Status ParseNodeInput(absl::string_view input, TensorIdView* id) {
  if (absl::ConsumePrefix(&input, "^")) {
    id->node = input;
    id->port = kControlSlot;
    return input.empty() ? errors::InvalidArgument("Empty control input '^'")
                         : OkStatus();
  }
  return ParseDataName(input, "Input", id);
}

Status ParseTensorName(absl::string_view name, TensorId* id) {
  if (absl::StartsWith(name, "^")) {
    return errors::InvalidArgument(
        "Tensor name '", name,
        "' names a control input; feeds and fetches name tensors (",
        kExpectedForms, ")");
  }
  TensorIdView view;
  MF_RETURN_IF_ERROR(ParseDataName(name, "Tensor name", &view));
  id->node = std::string(view.node);
  id->port = view.port;
  return OkStatus();
}

}  // namespace minflow
