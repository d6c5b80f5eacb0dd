#include "minflow/framework/function.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "minflow/framework/attr_value_util.h"
#include "minflow/framework/node_name.h"
#include "minflow/framework/op_def_util.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"

namespace minflow {

// Note [Functions]
// A FunctionDef is written in its own dialect: a node's input is an input
// arg of the function ("x", every tensor of it when it is a list), or an
// output arg of another node ("node:out_arg:index", or "node:out_arg" for
// all of that arg's tensors), or "^node"; attrs may be placeholders ("$T")
// that the call fills in. Instantiation translates that into an ordinary
// GraphDef: each input tensor becomes an `_Arg` node, each output tensor a
// `_Retval`, and "node:out_arg:index" becomes "node:port" through the op's
// output arg ranges under the substituted attrs. The graph layer imports
// that GraphDef as a Graph (with the same importer and checks as any
// graph), which the shape refiner looks into and the lowering pass
// inlines; nothing downstream needs to know the dialect.

namespace {

bool IsValidFunctionName(absl::string_view name) {
  return IsValidNodeName(name, /*allow_leading_underscore=*/true);
}

Status FunctionError(absl::string_view function, const Status& s) {
  return Status(s.code(),
                absl::StrCat("In function '", function, "': ", s.message()));
}

Status NodeInFunctionError(absl::string_view function, const NodeDef& node,
                           const Status& s) {
  return Status(s.code(), absl::StrCat("In function '", function, "', node '",
                                       node.name(), "' (", node.op(),
                                       "): ", s.message()));
}

// A FunctionDef input, split: "x" (arg), "n:out" or "n:out:2" (node),
// "^n" (control).
struct FunctionInput {
  bool control = false;
  std::string node;     // or the arg name
  std::string out_arg;  // empty for an arg or a control input
  int index = -1;       // -1: every tensor of out_arg (or of the arg)
};

Status ParseFunctionInput(absl::string_view input, FunctionInput* out) {
  *out = FunctionInput();
  if (absl::StartsWith(input, "^")) {
    out->control = true;
    input.remove_prefix(1);
    if (input.empty()) return errors::InvalidArgument("empty control input");
    out->node = std::string(input);
    return OkStatus();
  }
  std::vector<absl::string_view> parts = absl::StrSplit(input, ':');
  if (parts.empty() || parts.size() > 3 || parts[0].empty()) {
    return errors::InvalidArgument("malformed input '", input,
                                   "' (expected 'arg', 'node:out_arg' or "
                                   "'node:out_arg:index')");
  }
  out->node = std::string(parts[0]);
  if (parts.size() >= 2) {
    if (parts[1].empty()) {
      return errors::InvalidArgument("malformed input '", input, "'");
    }
    int as_number = 0;
    if (absl::SimpleAtoi(parts[1], &as_number)) {
      return errors::InvalidArgument(
          "input '", input,
          "' uses a graph's 'node:port' form; inside a function it is "
          "'node:out_arg:index'");
    }
    out->out_arg = std::string(parts[1]);
  }
  if (parts.size() == 3 &&
      (!absl::SimpleAtoi(parts[2], &out->index) || out->index < 0)) {
    return errors::InvalidArgument("input '", input,
                                   "' has an index that is not a number >= 0");
  }
  return OkStatus();
}

// Replaces every placeholder ("$T") in `value`, including inside the attrs
// of a func attr, by what `attrs` sets.
Status Substitute(const AttrSlice& attrs, AttrValue* value) {
  if (!value->placeholder().empty()) {
    const AttrValue* actual = attrs.Find(value->placeholder());
    if (actual == nullptr) {
      return errors::InvalidArgument(
          "attr placeholder '$", value->placeholder(),
          "' is not set by the call (it sets: ", attrs.DebugString(), ")");
    }
    *value = *actual;
    return OkStatus();
  }
  if (value->has_func()) {
    for (auto& [name, inner] : *value->mutable_func()->mutable_attr()) {
      MF_RETURN_IF_ERROR(Substitute(attrs, &inner));
    }
  }
  if (value->has_list()) {
    for (NameAttrList& f : *value->mutable_list()->mutable_func()) {
      for (auto& [name, inner] : *f.mutable_attr()) {
        MF_RETURN_IF_ERROR(Substitute(attrs, &inner));
      }
    }
  }
  return OkStatus();
}

// The types of one signature arg under `attrs`.
Status ArgTypes(const OpDef::ArgDef& arg, const AttrSlice& attrs,
                DataTypeVector* types) {
  types->clear();
  if (!arg.type_list_attr().empty()) {
    DataTypeVector list;
    MF_RETURN_IF_ERROR(GetNodeAttr(attrs, arg.type_list_attr(), &list));
    *types = list;
    return OkStatus();
  }
  DataType type = arg.type();
  if (!arg.type_attr().empty()) {
    MF_RETURN_IF_ERROR(GetNodeAttr(attrs, arg.type_attr(), &type));
  }
  if (type == DT_INVALID) {
    return errors::InvalidArgument("arg '", arg.name(), "' has no type");
  }
  int64_t n = 1;
  if (!arg.number_attr().empty()) {
    MF_RETURN_IF_ERROR(GetNodeAttr(attrs, arg.number_attr(), &n));
    // A call has as many inputs as this, so a count past any real graph's
    // is an attr to refuse before allocating for it.
    constexpr int64_t kMaxListLength = 1 << 20;
    if (n < 0 || n > kMaxListLength) {
      return errors::InvalidArgument("arg '", arg.name(), "' has ",
                                     arg.number_attr(), " = ", n,
                                     ", not in [0, ", kMaxListLength, "]");
    }
  }
  types->assign(n, arg.is_ref() ? MakeRefType(type) : type);
  return OkStatus();
}

// Equal messages give equal bytes (maps in key order).
std::string DeterministicBytes(const google::protobuf::Message& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

// Names not yet in `used`, close to `base`.
std::string UniqueName(absl::flat_hash_set<std::string>* used,
                       const std::string& base) {
  std::string name = base;
  for (int i = 1; used->contains(name); ++i) name = absl::StrCat(base, "_", i);
  used->insert(name);
  return name;
}

}  // namespace

struct FunctionLibraryDefinition::Entry {
  FunctionDef fdef;
  OpRegistrationData registration;
};

FunctionLibraryDefinition::FunctionLibraryDefinition(
    const OpRegistryInterface* default_registry)
    : default_registry_(default_registry) {}

FunctionLibraryDefinition::~FunctionLibraryDefinition() = default;

Status FunctionLibraryDefinition::AddFunctionDef(const FunctionDef& fdef) {
  MF_RETURN_IF_ERROR(ValidateFunctionDef(fdef));
  const std::string& name = fdef.signature().name();
  const OpRegistrationData* op = nullptr;
  if (default_registry_->LookUp(name, &op).ok()) {
    return errors::InvalidArgument("Function '", name,
                                   "' has the name of a registered op");
  }
  auto it = functions_.find(name);
  if (it != functions_.end()) {
    if (DeterministicBytes(it->second->fdef) == DeterministicBytes(fdef)) {
      return OkStatus();
    }
    return errors::InvalidArgument("Function '", name,
                                   "' is defined twice, differently");
  }
  auto entry = std::make_unique<Entry>();
  entry->fdef = fdef;
  entry->registration.op_def = fdef.signature();
  entry->registration.is_function_op = true;
  entry->registration.owner = "function library";
  functions_.emplace(name, std::move(entry));
  return OkStatus();
}

Status FunctionLibraryDefinition::AddLibrary(
    const FunctionDefLibrary& library) {
  for (const FunctionDef& fdef : library.function()) {
    MF_RETURN_IF_ERROR(AddFunctionDef(fdef));
  }
  for (const GradientDef& g : library.gradient()) gradients_.push_back(g);
  // The ops of a function's nodes are looked up when it is instantiated, as
  // in TensorFlow: a SavedModel keeps functions no signature calls (Keras's
  // training-mode variants, with dropout's random ops), and those must not
  // stop it loading.
  return OkStatus();
}

const FunctionDef* FunctionLibraryDefinition::Find(
    absl::string_view name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : &it->second->fdef;
}

std::vector<std::string> FunctionLibraryDefinition::ListFunctionNames() const {
  std::vector<std::string> names;
  names.reserve(functions_.size());
  for (const auto& [name, entry] : functions_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

void FunctionLibraryDefinition::ToProto(FunctionDefLibrary* library) const {
  library->Clear();
  for (const std::string& name : ListFunctionNames()) {
    *library->add_function() = functions_.at(name)->fdef;
  }
  for (const GradientDef& g : gradients_) *library->add_gradient() = g;
}

Status FunctionLibraryDefinition::LookUp(
    absl::string_view op_type_name,
    const OpRegistrationData** op_reg_data) const {
  // Functions first: a miss in the registry builds a message with
  // suggestions, which a function's name would pay on every lookup. (A
  // function cannot take a registered op's name: AddFunctionDef refuses.)
  auto it = functions_.find(op_type_name);
  if (it != functions_.end()) {
    *op_reg_data = &it->second->registration;
    return OkStatus();
  }
  return default_registry_->LookUp(op_type_name, op_reg_data);
}

Status ValidateFunctionDef(const FunctionDef& fdef) {
  const OpDef& sig = fdef.signature();
  const std::string& fname = sig.name();
  if (fname.empty()) {
    return errors::InvalidArgument("A FunctionDef has no signature name");
  }
  absl::flat_hash_set<std::string> args;
  for (const OpDef::ArgDef& arg : sig.input_arg()) {
    if (!IsValidFunctionName(arg.name()) || !args.insert(arg.name()).second) {
      return FunctionError(
          fname, errors::InvalidArgument("input arg name '", arg.name(),
                                         "' is invalid or used twice"));
    }
  }
  absl::flat_hash_set<std::string> outputs;
  for (const OpDef::ArgDef& arg : sig.output_arg()) {
    if (!IsValidFunctionName(arg.name()) ||
        !outputs.insert(arg.name()).second) {
      return FunctionError(
          fname, errors::InvalidArgument("output arg name '", arg.name(),
                                         "' is invalid or used twice"));
    }
  }
  for (const auto& [index, unused] : fdef.arg_attr()) {
    if (index >= static_cast<uint32_t>(sig.input_arg_size())) {
      return FunctionError(
          fname, errors::InvalidArgument("`arg_attr` names input arg ", index,
                                         ", but the function has ",
                                         sig.input_arg_size()));
    }
  }
  absl::flat_hash_set<std::string> nodes;
  for (const NodeDef& node : fdef.node_def()) {
    if (!IsValidFunctionName(node.name())) {
      return NodeInFunctionError(fname, node,
                                 errors::InvalidArgument("invalid node name"));
    }
    if (args.contains(node.name())) {
      return NodeInFunctionError(
          fname, node,
          errors::InvalidArgument("the node's name is also an input arg's"));
    }
    if (!nodes.insert(node.name()).second) {
      return NodeInFunctionError(
          fname, node,
          errors::InvalidArgument("two nodes of the function are named '",
                                  node.name(), "'"));
    }
    if (node.op().empty()) {
      return NodeInFunctionError(fname, node,
                                 errors::InvalidArgument("the node has no op"));
    }
  }
  auto check_ref = [&](absl::string_view ref, bool allow_arg) -> Status {
    FunctionInput in;
    MF_RETURN_IF_ERROR(ParseFunctionInput(ref, &in));
    if (in.control || !in.out_arg.empty()) {
      if (!nodes.contains(in.node) && !(in.control && args.contains(in.node))) {
        return errors::InvalidArgument("'", ref,
                                       "' names no node of the "
                                       "function");
      }
      return OkStatus();
    }
    if (!allow_arg || !args.contains(in.node)) {
      return errors::InvalidArgument(
          "'", ref,
          "' is neither an input arg of the function nor 'node:out_arg:index'");
    }
    return OkStatus();
  };
  for (const NodeDef& node : fdef.node_def()) {
    for (const std::string& input : node.input()) {
      Status s = check_ref(input, /*allow_arg=*/true);
      if (!s.ok()) return NodeInFunctionError(fname, node, s);
    }
  }
  for (const OpDef::ArgDef& arg : sig.output_arg()) {
    auto it = fdef.ret().find(arg.name());
    if (it == fdef.ret().end()) {
      return FunctionError(fname,
                           errors::InvalidArgument("output '", arg.name(),
                                                   "' has no `ret` entry"));
    }
    Status s = check_ref(it->second, /*allow_arg=*/true);
    if (!s.ok()) {
      return FunctionError(fname, errors::InvalidArgument("ret '", arg.name(),
                                                          "': ", s.message()));
    }
  }
  absl::flat_hash_set<std::string> control_outputs(sig.control_output().begin(),
                                                   sig.control_output().end());
  for (const auto& [key, value] : fdef.control_ret()) {
    if (!control_outputs.contains(key)) {
      return FunctionError(
          fname, errors::InvalidArgument("`control_ret` entry '", key,
                                         "' is not a control output"));
    }
    if (!nodes.contains(value)) {
      return FunctionError(
          fname, errors::InvalidArgument("`control_ret` '", key, "' names '",
                                         value, "', no node of the function"));
    }
  }
  return OkStatus();
}

std::string FunctionInstantiationKey(absl::string_view name, AttrSlice attrs) {
  std::map<std::string, std::string> sorted;
  for (const auto& [key, value] : attrs) {
    sorted[key] = SummarizeAttrValue(value);
  }
  std::vector<std::string> parts;
  for (const auto& [key, value] : sorted) {
    parts.push_back(absl::StrCat(key, "=", value));
  }
  return absl::StrCat(name, "[", absl::StrJoin(parts, ", "), "]");
}

Status InstantiateFunction(const FunctionDef& fdef, AttrSlice call_attrs,
                           const OpRegistryInterface& ops,
                           InstantiationResult* result) {
  *result = InstantiationResult();
  const OpDef& sig = fdef.signature();
  const std::string& fname = sig.name();
  MF_RETURN_IF_ERROR(ValidateFunctionDef(fdef));

  // The call's attrs, completed by the signature's defaults.
  AttrValueMap attr_map;
  for (const auto& [key, value] : call_attrs) attr_map[key] = value;
  for (const OpDef::AttrDef& attr : sig.attr()) {
    if (attr_map.find(attr.name()) == attr_map.end() &&
        attr.has_default_value()) {
      attr_map[attr.name()] = attr.default_value();
    }
  }
  const AttrSlice attrs(&attr_map);

  absl::flat_hash_set<std::string> used;
  for (const NodeDef& node : fdef.node_def()) used.insert(node.name());
  GraphDef& body = result->body;
  // Arg name -> the "node:port" of each of its tensors.
  absl::flat_hash_map<std::string, std::vector<std::string>> arg_tensors;
  for (int arg_index = 0; arg_index < sig.input_arg_size(); ++arg_index) {
    const OpDef::ArgDef& arg = sig.input_arg(arg_index);
    // The arg's attrs (_output_shapes, _user_specified_name, ...) go onto
    // each of its _Arg nodes, as TensorFlow puts them.
    auto arg_attrs = fdef.arg_attr().find(static_cast<uint32_t>(arg_index));
    DataTypeVector types;
    Status s = ArgTypes(arg, attrs, &types);
    if (!s.ok()) return FunctionError(fname, s);
    std::vector<std::string>& tensors = arg_tensors[arg.name()];
    for (size_t i = 0; i < types.size(); ++i) {
      NodeDef* n = body.add_node();
      n->set_name(UniqueName(&used, types.size() == 1 &&
                                            arg.number_attr().empty() &&
                                            arg.type_list_attr().empty()
                                        ? arg.name()
                                        : absl::StrCat(arg.name(), "_", i)));
      n->set_op("_Arg");
      if (arg_attrs != fdef.arg_attr().end()) {
        for (const auto& [key, value] : arg_attrs->second.attr()) {
          if (key != "T" && key != "index") (*n->mutable_attr())[key] = value;
        }
      }
      AddNodeAttr("T", types[i], n);
      AddNodeAttr("index", static_cast<int64_t>(result->arg_types.size()), n);
      result->arg_types.push_back(types[i]);
      tensors.push_back(n->name());
    }
  }

  // Each node with its attrs substituted and defaulted, and its output
  // ranges.
  absl::flat_hash_map<std::string, NameRangeMap> output_ranges;
  for (const NodeDef& original : fdef.node_def()) {
    NodeDef* n = body.add_node();
    *n = original;
    n->clear_input();
    for (auto& [key, value] : *n->mutable_attr()) {
      Status s = Substitute(attrs, &value);
      if (!s.ok()) return NodeInFunctionError(fname, original, s);
    }
    const OpDef* op_def = nullptr;
    Status s = ops.LookUpOpDef(n->op(), &op_def);
    if (!s.ok()) return NodeInFunctionError(fname, original, s);
    AddDefaultsToNodeDef(*op_def, n);
    s = NameRangesForNode(AttrSlice(*n), *op_def, nullptr,
                          &output_ranges[n->name()]);
    if (!s.ok()) return NodeInFunctionError(fname, original, s);
  }

  // A reference in the function's dialect -> "node:port" inputs.
  auto resolve = [&](absl::string_view ref,
                     std::vector<std::string>* out) -> Status {
    FunctionInput in;
    MF_RETURN_IF_ERROR(ParseFunctionInput(ref, &in));
    if (in.control) {
      auto arg = arg_tensors.find(in.node);
      if (arg != arg_tensors.end()) {
        for (const std::string& t : arg->second) out->push_back("^" + t);
      } else {
        out->push_back("^" + in.node);
      }
      return OkStatus();
    }
    if (in.out_arg.empty()) {
      const std::vector<std::string>& tensors = arg_tensors.at(in.node);
      out->insert(out->end(), tensors.begin(), tensors.end());
      return OkStatus();
    }
    const NameRangeMap& ranges = output_ranges.at(in.node);
    auto range = ranges.find(in.out_arg);
    if (range == ranges.end()) {
      std::vector<std::string> names;
      for (const auto& [name, r] : ranges) names.push_back(name);
      std::sort(names.begin(), names.end());
      return errors::InvalidArgument(
          "'", ref, "': node '", in.node, "' has no output arg '", in.out_arg,
          "' (it has: ", absl::StrJoin(names, ", "), ")");
    }
    const auto [start, limit] = range->second;
    if (in.index >= 0) {
      if (in.index >= limit - start) {
        return errors::InvalidArgument("'", ref, "': output arg '", in.out_arg,
                                       "' has ", limit - start, " tensor(s)");
      }
      out->push_back(absl::StrCat(in.node, ":", start + in.index));
      return OkStatus();
    }
    for (int port = start; port < limit; ++port) {
      out->push_back(absl::StrCat(in.node, ":", port));
    }
    return OkStatus();
  };

  const int first_node = static_cast<int>(result->arg_types.size());
  for (int i = 0; i < fdef.node_def_size(); ++i) {
    const NodeDef& original = fdef.node_def(i);
    NodeDef* n = body.mutable_node(first_node + i);
    std::vector<std::string> data;
    std::vector<std::string> control;
    for (const std::string& input : original.input()) {
      std::vector<std::string>& into =
          absl::StartsWith(input, "^") ? control : data;
      Status s = resolve(input, &into);
      if (!s.ok()) return NodeInFunctionError(fname, original, s);
    }
    for (std::string& input : data) n->add_input(std::move(input));
    for (std::string& input : control) n->add_input(std::move(input));
  }

  for (const OpDef::ArgDef& arg : sig.output_arg()) {
    DataTypeVector types;
    Status s = ArgTypes(arg, attrs, &types);
    if (!s.ok()) return FunctionError(fname, s);
    std::vector<std::string> tensors;
    s = resolve(fdef.ret().at(arg.name()), &tensors);
    if (!s.ok()) {
      return FunctionError(fname, errors::InvalidArgument("ret '", arg.name(),
                                                          "': ", s.message()));
    }
    if (tensors.size() != types.size()) {
      return FunctionError(
          fname, errors::InvalidArgument(
                     "output '", arg.name(), "' has ", types.size(),
                     " tensor(s) but its `ret` '", fdef.ret().at(arg.name()),
                     "' gives ", tensors.size()));
    }
    for (size_t i = 0; i < types.size(); ++i) {
      NodeDef* n = body.add_node();
      n->set_name(UniqueName(&used, absl::StrCat(arg.name(), "_RetVal")));
      n->set_op("_Retval");
      n->add_input(tensors[i]);
      AddNodeAttr("T", types[i], n);
      AddNodeAttr("index", static_cast<int64_t>(result->ret_types.size()), n);
      result->ret_types.push_back(types[i]);
    }
  }
  for (const std::string& control_output : sig.control_output()) {
    auto it = fdef.control_ret().find(control_output);
    if (it != fdef.control_ret().end()) {
      result->control_ret_nodes.push_back(it->second);
    }
  }
  return OkStatus();
}

}  // namespace minflow
