// The C API's functions: a graph (or part of one) turned into a FunctionDef,
// FunctionDefs in and out as bytes, and functions added to a graph's
// library. See Note [Graph to function].
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "minflow/c/c_api.h"
#include "minflow/framework/function.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/function.pb.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_to_function.h"
#include "minflow/op_def.pb.h"
#include "src/c/c_api_internal.h"

struct MF_Function {
  minflow::FunctionDef fdef;
};

namespace minflow {
namespace c_api {
namespace {

// Note [Graph to function]
// MF_GraphToFunction cuts a function out of a graph at its inputs: each
// input is an output of a Placeholder outside the body (with all
// operations, the input Placeholders are what is left out), each output is
// produced by a body operation or is an input. Body nodes keep their graph
// names; an edge between body nodes becomes TensorFlow's
// "node:out_arg:index" (the output arg of the producer's OpDef and the
// position in it), an edge from an input becomes the input arg's name. Any
// other edge into the body (from an operation neither in the body nor an
// input) would make the function depend on a tensor it cannot see, so it
// is an error naming both operations, as is a Placeholder in the body that
// is not an input (nothing could feed it). The FunctionDef is checked with
// ValidateFunctionDef, the check every library applies on import.

// `name` as a function arg name: characters TensorFlow's node names allow
// but arg names do not read well with become '_'.
std::string ArgNameFor(absl::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c == '/' || c == '.' || c == '-' || c == '>') c = '_';
  }
  return out;
}

// `base`, or `base_1`, `base_2`, ... : the first not in `used`, then added.
std::string Unique(const std::string& base,
                   absl::flat_hash_set<std::string>* used) {
  std::string name = base;
  for (int i = 1; used->contains(name); ++i) name = absl::StrCat(base, "_", i);
  used->insert(name);
  return name;
}

std::string OperationName(const Node* node) {
  return absl::StrCat("operation '", node->name(), "' (op ",
                      node->type_string(), ")");
}

// The same function gives the same bytes (maps such as `ret` and `attr`
// serialize in any order otherwise), for hashes and for comparing copies.
std::string DeterministicBytes(const FunctionDef& fdef) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    fdef.SerializeToCodedStream(&coded);
  }  // the streams give back their unused space here
  return bytes;
}

struct Boundary {
  const Node* node;
  int index;
  bool operator==(const Boundary& o) const {
    return node == o.node && index == o.index;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Boundary& b) {
    return H::combine(std::move(h), b.node, b.index);
  }
};

Status CheckOutput(const MF_Graph& g, const MF_Output& out, const char* what,
                   int i) ABSL_SHARED_LOCKS_REQUIRED(g.mu) {
  const Node* node = ToNode(out.oper);
  if (node == nullptr || !IsNodeOf(g.graph, node)) {
    return errors::InvalidArgument("MF_GraphToFunction: ", what, "[", i,
                                   "] is NULL or an operation of another "
                                   "graph");
  }
  if (out.index < 0 || out.index >= node->num_outputs()) {
    return errors::OutOfRange("MF_GraphToFunction: ", what, "[", i,
                              "] names output ", out.index, " of ",
                              OperationName(node), ", which has ",
                              node->num_outputs(), " outputs");
  }
  return OkStatus();
}

StatusOr<FunctionDef> GraphToFunction(
    const MF_Graph& g, const char* fn_name, int num_opers,
    const MF_Operation* const* opers, int ninputs, const MF_Output* inputs,
    int noutputs, const MF_Output* outputs, const char* const* output_names,
    const char* description) ABSL_SHARED_LOCKS_REQUIRED(g.mu) {
  if (fn_name == nullptr || fn_name[0] == '\0') {
    return errors::InvalidArgument("MF_GraphToFunction: fn_name is empty");
  }
  const std::string fn = fn_name;
  auto error = [&fn](auto&&... args) {
    return errors::InvalidArgument("MF_GraphToFunction '", fn, "': ", args...);
  };
  if (ninputs < 0 || (ninputs > 0 && inputs == nullptr) || noutputs < 0 ||
      (noutputs > 0 && outputs == nullptr) ||
      (num_opers > 0 && opers == nullptr)) {
    return error(
        "inputs, outputs and opers must hold as many entries as "
        "their counts say");
  }
  // The function's inputs, by tensor: arg name.
  absl::flat_hash_map<Boundary, std::string> input_args;
  absl::flat_hash_set<const Node*> input_nodes;
  for (int i = 0; i < ninputs; ++i) {
    MF_RETURN_IF_ERROR(CheckOutput(g, inputs[i], "inputs", i));
    const Node* node = ToNode(inputs[i].oper);
    if (!node->IsPlaceholder()) {
      return error("input ", i, " is output ", inputs[i].index, " of ",
                   OperationName(node),
                   ", but a function's inputs must be outputs of Placeholders "
                   "(the boundary where callers' tensors come in)");
    }
    if (!input_args.emplace(Boundary{node, inputs[i].index}, "").second) {
      return error("input ", i, " (", node->name(), ":", inputs[i].index,
                   ") is listed twice");
    }
    input_nodes.insert(node);
  }
  // The body.
  std::vector<const Node*> body;
  if (num_opers < 0) {
    for (const Node* node : g.graph.nodes()) {
      if (!input_nodes.contains(node)) body.push_back(node);
    }
  } else {
    absl::flat_hash_set<const Node*> seen;
    for (int i = 0; i < num_opers; ++i) {
      const Node* node = ToNode(opers[i]);
      if (node == nullptr || !IsNodeOf(g.graph, node)) {
        return error("opers[", i, "] is NULL or an operation of another graph");
      }
      if (input_nodes.contains(node)) {
        return error(OperationName(node),
                     " is both in opers and a Placeholder whose output is an "
                     "input");
      }
      if (seen.insert(node).second) body.push_back(node);
    }
  }
  const absl::flat_hash_set<const Node*> in_body(body.begin(), body.end());

  FunctionDef fdef;
  OpDef* sig = fdef.mutable_signature();
  sig->set_name(fn);
  if (description != nullptr) sig->set_description(description);
  absl::flat_hash_set<std::string> used;  // node and input arg names
  for (const Node* node : body) used.insert(node->name());
  for (int i = 0; i < ninputs; ++i) {
    const Node* node = ToNode(inputs[i].oper);
    std::string base = ArgNameFor(node->name());
    if (inputs[i].index > 0) absl::StrAppend(&base, "_", inputs[i].index);
    const std::string name = Unique(base, &used);
    input_args[Boundary{node, inputs[i].index}] = name;
    OpDef::ArgDef* arg = sig->add_input_arg();
    arg->set_name(name);
    arg->set_type(node->output_type(inputs[i].index));
  }
  for (const Node* node : body) {
    if (node->IsPlaceholder()) {
      return error(OperationName(node),
                   " is in the body but none of its outputs is an input: "
                   "nothing could feed it");
    }
    NodeDef* def = fdef.add_node_def();
    *def = node->def();
    def->clear_input();
    std::vector<const Edge*> data(node->num_inputs(), nullptr);
    std::vector<const Node*> controls;
    for (const Edge* e : node->in_edges()) {
      if (e->IsControlEdge()) {
        controls.push_back(e->src);
      } else {
        data[e->dst_input] = e;
      }
    }
    for (const Edge* e : data) {
      if (e == nullptr) {
        return errors::Internal("MF_GraphToFunction: ", OperationName(node),
                                " has an input without an edge");
      }
      auto arg = input_args.find(Boundary{e->src, e->src_output});
      if (arg != input_args.end()) {
        def->add_input(arg->second);
      } else if (in_body.contains(e->src)) {
        MF_ASSIGN_OR_RETURN(std::string ref,
                            FunctionOutputRef(*e->src, e->src_output));
        def->add_input(std::move(ref));
      } else {
        return error(OperationName(node), " reads ", e->src->name(), ":",
                     e->src_output,
                     ", which is neither an input of the function nor made "
                     "in its body");
      }
    }
    for (const Node* src : controls) {
      if (!in_body.contains(src)) {
        return error(OperationName(node), " has a control input from '",
                     src->name(), "', which is not in the function's body");
      }
      def->add_input(absl::StrCat("^", src->name()));
    }
  }
  absl::flat_hash_set<std::string> output_arg_names;
  for (int i = 0; i < noutputs; ++i) {
    MF_RETURN_IF_ERROR(CheckOutput(g, outputs[i], "outputs", i));
    const Node* node = ToNode(outputs[i].oper);
    std::string ref;
    auto arg = input_args.find(Boundary{node, outputs[i].index});
    if (arg != input_args.end()) {
      ref = arg->second;
    } else if (in_body.contains(node)) {
      MF_ASSIGN_OR_RETURN(ref, FunctionOutputRef(*node, outputs[i].index));
    } else {
      return error("output ", i, " is ", node->name(), ":", outputs[i].index,
                   ", but ", OperationName(node),
                   " is not in the function's body");
    }
    std::string name;
    if (output_names != nullptr) {
      if (output_names[i] == nullptr) {
        return error("output_names[", i, "] is NULL");
      }
      name = output_names[i];
      if (!output_arg_names.insert(name).second) {
        return error("output name '", name, "' is used twice");
      }
    } else {
      std::string base = ArgNameFor(node->name());
      if (outputs[i].index > 0) absl::StrAppend(&base, "_", outputs[i].index);
      name = Unique(base, &output_arg_names);
    }
    OpDef::ArgDef* out = sig->add_output_arg();
    out->set_name(name);
    out->set_type(node->output_type(outputs[i].index));
    (*fdef.mutable_ret())[name] = std::move(ref);
  }
  MF_RETURN_IF_ERROR(ValidateFunctionDef(fdef));
  return fdef;
}

}  // namespace
}  // namespace c_api
}  // namespace minflow

namespace c_api = minflow::c_api;
namespace errors = minflow::errors;

extern "C" {

MF_Function* MF_GraphToFunction(const MF_Graph* fn_body, const char* fn_name,
                                unsigned char append_hash_to_fn_name,
                                int num_opers, const MF_Operation* const* opers,
                                int ninputs, const MF_Output* inputs,
                                int noutputs, const MF_Output* outputs,
                                const char* const* output_names,
                                const MF_FunctionOptions* opts,
                                const char* description, MF_Status* status) {
  (void)opts;  // no options yet; TensorFlow passes NULL too
  if (fn_body == nullptr) {
    c_api::Set(status, c_api::NullArgument("MF_GraphToFunction", "fn_body"));
    return nullptr;
  }
  MF_Graph* g = const_cast<MF_Graph*>(fn_body);
  minflow::StatusOr<minflow::FunctionDef> fdef;
  {
    absl::ReaderMutexLock lock(&g->mu);
    fdef =
        c_api::GraphToFunction(*g, fn_name, num_opers, opers, ninputs, inputs,
                               noutputs, outputs, output_names, description);
  }
  if (!fdef.ok()) {
    c_api::Set(status, fdef.status());
    return nullptr;
  }
  if (append_hash_to_fn_name) {
    // The same body gives the same name, so copying it twice is harmless.
    const std::string bytes = c_api::DeterministicBytes(*fdef);
    const size_t hash = std::hash<std::string>()(bytes);
    fdef->mutable_signature()->set_name(
        absl::StrCat(fn_name, "_", absl::Hex(hash, absl::kZeroPad16)));
  }
  c_api::SetOk(status);
  return new MF_Function{*std::move(fdef)};
}

const char* MF_FunctionName(MF_Function* func) {
  return func == nullptr ? nullptr : func->fdef.signature().name().c_str();
}

void MF_FunctionToFunctionDef(MF_Function* func, MF_Buffer* output_func_def,
                              MF_Status* status) {
  if (func == nullptr || output_func_def == nullptr) {
    c_api::Set(status, c_api::NullArgument(
                           "MF_FunctionToFunctionDef",
                           func == nullptr ? "func" : "output_func_def"));
    return;
  }
  c_api::Set(status, c_api::CopyToBuffer(c_api::DeterministicBytes(func->fdef),
                                         output_func_def));
}

MF_Function* MF_FunctionImportFunctionDef(const void* proto, size_t proto_len,
                                          MF_Status* status) {
  if (proto == nullptr && proto_len > 0) {
    c_api::Set(status,
               c_api::NullArgument("MF_FunctionImportFunctionDef", "proto"));
    return nullptr;
  }
  auto func = std::make_unique<MF_Function>();
  if (proto_len > static_cast<size_t>(INT32_MAX) ||
      !func->fdef.ParseFromArray(proto, static_cast<int>(proto_len))) {
    c_api::Set(status, errors::InvalidArgument(
                           "MF_FunctionImportFunctionDef: the bytes are not "
                           "a binary FunctionDef"));
    return nullptr;
  }
  const minflow::Status valid = minflow::ValidateFunctionDef(func->fdef);
  c_api::Set(status, valid);
  return valid.ok() ? func.release() : nullptr;
}

void MF_DeleteFunction(MF_Function* func) { delete func; }

void MF_GraphCopyFunction(MF_Graph* g, const MF_Function* func,
                          const MF_Function* grad, MF_Status* status) {
  if (g == nullptr || func == nullptr) {
    c_api::Set(status, c_api::NullArgument("MF_GraphCopyFunction",
                                           g == nullptr ? "g" : "func"));
    return;
  }
  minflow::GraphDef def;
  minflow::FunctionDefLibrary* library = def.mutable_library();
  *library->add_function() = func->fdef;
  if (grad != nullptr) {
    *library->add_function() = grad->fdef;
    minflow::GradientDef* gradient = library->add_gradient();
    gradient->set_function_name(func->fdef.signature().name());
    gradient->set_gradient_func(grad->fdef.signature().name());
  }
  absl::MutexLock lock(&g->mu);
  *def.mutable_versions() = g->graph.versions();
  std::vector<minflow::Node*> added;
  c_api::Set(status, c_api::ImportAndRefine(
                         g, minflow::GraphConstructorOptions(), def, &added));
}

int MF_GraphNumFunctions(MF_Graph* g) {
  if (g == nullptr) return -1;
  absl::ReaderMutexLock lock(&g->mu);
  const minflow::FunctionLibraryDefinition* library = g->graph.flib_def();
  return library == nullptr ? 0 : library->num_functions();
}

}  // extern "C"
