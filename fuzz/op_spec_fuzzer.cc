// Feeds arbitrary text through the REGISTER_OP language: each line of the
// input is one builder call (its first byte picks which), and a "P" line
// goes through ParseAttrValue. Every input must give an OpDef or an error,
// never a crash; and whatever ValidateOpDef accepts must survive a text
// round trip and be compatible with itself.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "google/protobuf/text_format.h"
#include "minflow/attr_value.pb.h"
#include "minflow/framework/attr_value_util.h"
#include "minflow/framework/op_def_builder.h"
#include "minflow/framework/op_def_util.h"

namespace minflow {
namespace {

void CheckValidOpDef(const OpDef& op_def) {
  (void)SummarizeOpDef(op_def);
  (void)LintOpDef(op_def);
  if (!OpDefCompatible(op_def, op_def).ok()) __builtin_trap();
  std::string text;
  google::protobuf::TextFormat::PrintToString(op_def, &text);
  OpDef again;
  if (!google::protobuf::TextFormat::ParseFromString(text, &again) ||
      !OpDefEqual(op_def, again) || !ValidateOpDef(again).ok()) {
    __builtin_trap();
  }
}

void FuzzOneSpec(const std::string& input) {
  std::vector<std::string> lines = absl::StrSplit(input, '\n');
  OpDefBuilder builder(lines.empty() || lines[0].empty() ? "Fuzz" : lines[0]);
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty()) continue;
    const std::string rest = line.substr(1);
    switch (line[0]) {
      case 'I':
        builder.Input(rest);
        break;
      case 'O':
        builder.Output(rest);
        break;
      case 'C':
        builder.ControlOutput(rest);
        break;
      case 'D':
        builder.Doc(rest);
        break;
      case 'S':
        builder.SetIsStateful().SetIsCommutative();
        break;
      case 'X':
        builder.Deprecated(static_cast<int>(rest.size()), rest);
        break;
      case 'P': {
        // "P<type>|<text>"
        const size_t bar = rest.find('|');
        AttrValue value;
        if (bar != std::string::npos &&
            ParseAttrValue(rest.substr(0, bar), rest.substr(bar + 1), &value)) {
          (void)SummarizeAttrValue(value);
          if (!AreAttrValuesEqual(value, value)) __builtin_trap();
        }
        break;
      }
      default:
        builder.Attr(rest);
        break;
    }
  }
  OpRegistrationData data;
  if (!builder.Finalize(&data).ok()) return;
  if (ValidateOpDef(data.op_def).ok()) CheckValidOpDef(data.op_def);
}

}  // namespace
}  // namespace minflow

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  minflow::FuzzOneSpec(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
