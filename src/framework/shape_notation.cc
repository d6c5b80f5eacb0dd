#include "minflow/framework/shape_notation.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "minflow/attr_value.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/attr_value_util.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_def_util.h"
#include "minflow/framework/tensor_literal.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"

namespace minflow {
namespace shape_inference {

Status ParseShapeNotation(absl::string_view text, PartialTensorShape* shape) {
  std::string s(text);
  s.erase(std::remove_if(s.begin(), s.end(),
                         [](char ch) { return absl::ascii_isspace(ch); }),
          s.end());
  if (s == "?") {
    *shape = PartialTensorShape();
    return OkStatus();
  }
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') {
    return errors::InvalidArgument("Invalid shape '", text,
                                   "': expected '?' or '[d0,d1,...]'");
  }
  const absl::string_view body = absl::string_view(s).substr(1, s.size() - 2);
  std::vector<int64_t> dims;
  if (!body.empty()) {
    for (absl::string_view part : absl::StrSplit(body, ',')) {
      if (part == "?") {
        dims.push_back(-1);
        continue;
      }
      int64_t v;
      if (!absl::SimpleAtoi(part, &v) || v < 0) {
        return errors::InvalidArgument("Invalid dimension '", part,
                                       "' in shape '", text,
                                       "': expected '?' or a size >= 0");
      }
      dims.push_back(v);
    }
  }
  return PartialTensorShape::BuildPartialTensorShape(dims, shape);
}

Status ParseShapeListNotation(absl::string_view text,
                              std::vector<PartialTensorShape>* shapes) {
  shapes->clear();
  if (absl::StripAsciiWhitespace(text).empty()) return OkStatus();
  for (absl::string_view part : absl::StrSplit(text, ';')) {
    PartialTensorShape shape;
    MF_RETURN_IF_ERROR(ParseShapeNotation(part, &shape));
    shapes->push_back(shape);
  }
  return OkStatus();
}

std::string OutputNotation(InferenceContext* c,
                           absl::Span<const ShapeHandle> inputs, int idx) {
  const ShapeHandle out = c->output(idx);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (out.SameHandle(inputs[i])) return absl::StrCat("in", i);
  }
  if (!InferenceContext::RankKnown(out)) return "?";
  std::vector<std::string> dims;
  for (int d = 0; d < InferenceContext::Rank(out); ++d) {
    const DimensionHandle dim = c->DimKnownRank(out, d);
    std::string text;
    for (size_t i = 0; i < inputs.size() && text.empty(); ++i) {
      if (!InferenceContext::RankKnown(inputs[i])) continue;
      for (int j = 0; j < InferenceContext::Rank(inputs[i]); ++j) {
        if (dim.SameHandle(c->DimKnownRank(inputs[i], j))) {
          text = absl::StrCat("d", i, "_", j);
          break;
        }
      }
    }
    dims.push_back(text.empty() ? c->DebugString(dim) : text);
  }
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

void CompleteNodeDefForInference(const OpDef& op_def, int num_inputs,
                                 NodeDef* node_def) {
  AddDefaultsToNodeDef(op_def, node_def);
  // Inputs of fixed length, and the one list whose length the inputs give.
  int fixed = 0;
  const OpDef_ArgDef* open_arg = nullptr;
  int open_args = 0;
  for (const OpDef_ArgDef& arg : op_def.input_arg()) {
    if (!arg.number_attr().empty()) {
      const AttrValue* n = AttrSlice(*node_def).Find(arg.number_attr());
      if (n != nullptr && n->value_case() == AttrValue::kI) {
        fixed += static_cast<int>(
            std::max<int64_t>(0, std::min<int64_t>(n->i(), 1 << 20)));
      } else {
        open_arg = &arg;
        ++open_args;
      }
    } else if (!arg.type_list_attr().empty()) {
      const AttrValue* t = AttrSlice(*node_def).Find(arg.type_list_attr());
      if (t != nullptr && t->has_list()) {
        fixed += t->list().type_size();
      } else {
        open_arg = &arg;
        ++open_args;
      }
    } else {
      ++fixed;
    }
  }
  const int length = num_inputs - fixed;
  if (open_args == 1 && length >= 0) {
    if (!open_arg->number_attr().empty()) {
      AddNodeAttr(open_arg->number_attr(), int64_t{length}, node_def);
    } else {
      DataType dtype = DT_FLOAT;
      const OpDef_AttrDef* attr = FindAttr(open_arg->type_list_attr(), op_def);
      if (attr != nullptr && attr->has_allowed_values() &&
          attr->allowed_values().list().type_size() > 0) {
        dtype = attr->allowed_values().list().type(0);
      }
      AddNodeAttr(open_arg->type_list_attr(),
                  std::vector<DataType>(length, dtype), node_def);
    }
  }
  node_def->clear_input();
  for (int i = 0; i < num_inputs; ++i) {
    node_def->add_input(absl::StrCat("in", i));
  }
}

std::string NotationRun::OutputsString() const {
  return absl::StrJoin(outputs, ";");
}

Status RunShapeInferenceFromNotation(
    const OpRegistryInterface& registry, absl::string_view input_spec,
    absl::Span<const Tensor* const> input_tensors, int graph_def_version,
    NodeDef* node_def, NotationRun* run) {
  const OpRegistrationData* reg = nullptr;
  MF_RETURN_IF_ERROR(registry.LookUp(node_def->op(), &reg));
  std::vector<PartialTensorShape> shapes;
  MF_RETURN_IF_ERROR(ParseShapeListNotation(input_spec, &shapes));
  if (input_tensors.size() > shapes.size()) {
    return errors::InvalidArgument("A value was given for input ",
                                   input_tensors.size() - 1, " but the op has ",
                                   shapes.size(), " inputs");
  }
  CompleteNodeDefForInference(reg->op_def, static_cast<int>(shapes.size()),
                              node_def);
  if (node_def->name().empty()) node_def->set_name(node_def->op());
  run->node_def = node_def;
  run->context = std::make_unique<InferenceContext>(
      graph_def_version, *node_def, reg->op_def, shapes,
      std::vector<const Tensor*>(input_tensors.begin(), input_tensors.end()));
  InferenceContext* c = run->context.get();
  run->inputs.clear();
  for (int i = 0; i < c->num_inputs(); ++i) run->inputs.push_back(c->input(i));
  MF_RETURN_IF_ERROR(c->Run(reg->shape_inference_fn));
  run->outputs.clear();
  for (int i = 0; i < c->num_outputs(); ++i) {
    run->outputs.push_back(OutputNotation(c, run->inputs, i));
  }
  return OkStatus();
}

namespace {

bool IsQuoted(absl::string_view v) {
  return v.size() >= 2 && (v.front() == '\'' || v.front() == '"') &&
         v.back() == v.front();
}

// Rewrites the command-line conveniences into TensorFlow's attr syntax, or
// builds the AttrValue directly; false when `value` needs no rewriting.
Status ConvenientAttrValue(absl::string_view type, absl::string_view value,
                           AttrValue* out, bool* done) {
  *done = false;
  DataType dtype;
  if (type == "string" && !IsQuoted(value)) {
    SetAttrValue(value, out);
    *done = true;
  } else if (type == "type" && DataTypeFromString(value, &dtype)) {
    SetAttrValue(dtype, out);
    *done = true;
  } else if (type == "list(type)" && absl::StartsWith(value, "[") &&
             absl::EndsWith(value, "]")) {
    std::vector<DataType> types;
    const absl::string_view body = value.substr(1, value.size() - 2);
    for (absl::string_view item :
         absl::StrSplit(body, ',', absl::SkipEmpty())) {
      if (!DataTypeFromString(absl::StripAsciiWhitespace(item), &dtype)) {
        return OkStatus();  // not names: let the proto syntax have a go
      }
      types.push_back(dtype);
    }
    SetAttrValue(types, out);
    *done = true;
  } else if (type == "list(string)" && absl::StartsWith(value, "[") &&
             value.find_first_of("'\"") == absl::string_view::npos) {
    std::vector<std::string> items;
    const absl::string_view body = value.substr(1, value.size() - 2);
    for (absl::string_view item :
         absl::StrSplit(body, ',', absl::SkipEmpty())) {
      items.emplace_back(absl::StripAsciiWhitespace(item));
    }
    SetAttrValue(items, out);
    *done = true;
  } else if (type == "shape" &&
             (value == "?" || absl::StartsWith(value, "["))) {
    PartialTensorShape shape;
    MF_RETURN_IF_ERROR(ParseShapeNotation(value, &shape));
    SetAttrValue(shape, out);
    *done = true;
  } else if (type == "tensor" && !absl::StartsWith(value, "{")) {
    Tensor t;
    MF_RETURN_IF_ERROR(ParseTensorLiteral(value, &t));
    SetAttrValue(t, out);
    *done = true;
  }
  return OkStatus();
}

}  // namespace

Status AddAttrFromText(const OpDef& op_def, absl::string_view attr,
                       NodeDef* node_def) {
  const size_t eq = attr.find('=');
  if (eq == absl::string_view::npos) {
    return errors::InvalidArgument("Expected --attr name=value, got '", attr,
                                   "'");
  }
  const absl::string_view name = absl::StripAsciiWhitespace(attr.substr(0, eq));
  const absl::string_view value =
      absl::StripAsciiWhitespace(attr.substr(eq + 1));
  const OpDef_AttrDef* def = FindAttr(name, op_def);
  if (def == nullptr) {
    std::vector<std::string> names;
    for (const OpDef_AttrDef& a : op_def.attr()) names.push_back(a.name());
    return errors::InvalidArgument(
        "Op '", op_def.name(), "' has no attr named '", name, "'",
        names.empty()
            ? std::string("; it has no attrs")
            : absl::StrCat("; its attrs are: ", absl::StrJoin(names, ", ")));
  }
  AttrValue value_proto;
  bool done = false;
  MF_RETURN_IF_ERROR(
      ConvenientAttrValue(def->type(), value, &value_proto, &done));
  if (!done) {
    MF_RETURN_IF_ERROR(ParseAttrValueOrError(def->type(), value, &value_proto));
  }
  MF_RETURN_IF_ERROR(AttrValueHasType(value_proto, def->type()));
  AddNodeAttr(name, value_proto, node_def);
  return OkStatus();
}

Status RunInferOpRequest(const OpRegistryInterface& registry,
                         const InferOpRequest& request, std::string* outputs) {
  const OpRegistrationData* reg = nullptr;
  MF_RETURN_IF_ERROR(registry.LookUp(request.op, &reg));
  NodeDef node_def;
  node_def.set_name(request.op);
  node_def.set_op(request.op);
  for (const std::string& attr : request.attrs) {
    MF_RETURN_IF_ERROR(AddAttrFromText(reg->op_def, attr, &node_def));
  }
  std::vector<PartialTensorShape> shapes;
  MF_RETURN_IF_ERROR(ParseShapeListNotation(request.inputs, &shapes));
  std::vector<Tensor> values(shapes.size());
  std::vector<const Tensor*> tensors(shapes.size(), nullptr);
  for (const std::string& spec : request.tensors) {
    const size_t eq = spec.find('=');
    int index;
    if (eq == std::string::npos ||
        !absl::SimpleAtoi(absl::string_view(spec).substr(0, eq), &index)) {
      return errors::InvalidArgument("Expected --tensor I=<literal>, got '",
                                     spec, "'");
    }
    if (index < 0 || index >= static_cast<int>(shapes.size())) {
      return errors::InvalidArgument("--tensor ", index,
                                     " names no input: the op has ",
                                     shapes.size(), " inputs");
    }
    MF_RETURN_IF_ERROR(ParseTensorLiteral(
        absl::string_view(spec).substr(eq + 1), &values[index]));
    tensors[index] = &values[index];
  }
  NotationRun run;
  MF_RETURN_IF_ERROR(
      RunShapeInferenceFromNotation(registry, request.inputs, tensors,
                                    kNotationGraphDefVersion, &node_def, &run));
  *outputs = run.OutputsString();
  return OkStatus();
}

}  // namespace shape_inference
}  // namespace minflow
