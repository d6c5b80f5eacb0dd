#include "minflow/cc/framework/op_builder.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "minflow/attr_value.pb.h"
#include "minflow/cc/ops/const_op.h"
#include "minflow/framework/attr_value_util.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/shape_refiner.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"

namespace minflow {

struct OpBuilder::Impl {
  explicit Impl(const Scope& s) : scope(s) {}

  Scope scope;
  NodeDef def;
  // The tensors of each input argument added, in order.
  std::vector<std::vector<::minflow::Output>> args;
  // The first problem met before Finish (a bad Input, an unknown op).
  Status status;
  const OpDef* op_def = nullptr;
  Node* node = nullptr;

  // The Output an Input stands for, making a Const for a value.
  ::minflow::Output Resolve(const ::minflow::Input& input) {
    if (!input.status().ok()) {
      if (status.ok()) status = input.status();
      return ::minflow::Output();
    }
    if (!input.is_constant()) {
      if (input.node() == nullptr && status.ok()) {
        status = errors::InvalidArgument(
            "an input is the null Output of an op that failed");
      }
      return input.output();
    }
    return ops::Const(scope.NewSubScope("Const"),
                      Input::Initializer(input.tensor()));
  }

  Status Build();
};

OpBuilder::OpBuilder(const Scope& scope, absl::string_view op_type)
    : impl_(std::make_unique<Impl>(scope)) {
  impl_->def.set_op(std::string(op_type));
  impl_->status = OpRegistry::Global()->LookUpOpDef(op_type, &impl_->op_def);
}

OpBuilder::~OpBuilder() = default;

OpBuilder& OpBuilder::Input(const ::minflow::Input& input) {
  if (!impl_->scope.ok()) return *this;
  impl_->args.push_back({impl_->Resolve(input)});
  return *this;
}

OpBuilder& OpBuilder::Input(const InputList& inputs) {
  if (!impl_->scope.ok()) return *this;
  std::vector<::minflow::Output> outputs;
  outputs.reserve(inputs.size());
  for (const ::minflow::Input& input : inputs) {
    outputs.push_back(impl_->Resolve(input));
  }
  impl_->args.push_back(std::move(outputs));
  return *this;
}

OpBuilder& OpBuilder::RawAttr(absl::string_view name, const AttrValue& value) {
  (*impl_->def.mutable_attr())[std::string(name)] = value;
  return *this;
}

// Every typed setter goes through one AttrValue.
#define MF_OP_BUILDER_ATTR(TYPE)                                   \
  OpBuilder& OpBuilder::Attr(absl::string_view name, TYPE value) { \
    AttrValue attr;                                                \
    SetAttrValue(value, &attr);                                    \
    return RawAttr(name, attr);                                    \
  }
MF_OP_BUILDER_ATTR(bool)
MF_OP_BUILDER_ATTR(int64_t)
MF_OP_BUILDER_ATTR(float)
MF_OP_BUILDER_ATTR(absl::string_view)
MF_OP_BUILDER_ATTR(DataType)
MF_OP_BUILDER_ATTR(const PartialTensorShape&)
MF_OP_BUILDER_ATTR(const Tensor&)
MF_OP_BUILDER_ATTR(const NameAttrList&)
MF_OP_BUILDER_ATTR(absl::Span<const int64_t>)
MF_OP_BUILDER_ATTR(absl::Span<const float>)
MF_OP_BUILDER_ATTR(absl::Span<const DataType>)
MF_OP_BUILDER_ATTR(absl::Span<const std::string>)
MF_OP_BUILDER_ATTR(absl::Span<const PartialTensorShape>)
MF_OP_BUILDER_ATTR(absl::Span<const Tensor>)
MF_OP_BUILDER_ATTR(const std::vector<bool>&)
#undef MF_OP_BUILDER_ATTR

OpBuilder& OpBuilder::Attr(absl::string_view name,
                           const std::vector<NameAttrList>& value) {
  AttrValue attr;
  SetAttrValue(absl::MakeConstSpan(value), &attr);
  return RawAttr(name, attr);
}

// Note [Ops checked where they are made]
// Finish does what the importer and the refiner do for a GraphDef, for one
// node, so a mistake fails at the wrapper call that made it, naming that
// node and op: the inputs' dtypes set the type attrs (as the C API's
// MF_FinishOperation does), the NodeDef is validated against the OpDef, the
// inputs' dtypes are checked against what the attrs imply, and the shape
// function runs on the inputs' inferred shapes (ShapeRefiner::AddNode, so
// each op costs its own inference, not the graph's). A node that fails is
// removed again, so the graph stays one that sessions can run.
Status OpBuilder::Impl::Build() {
  const std::string name = scope.GetUniqueNameForOp(def.op());
  def.set_name(name);
  MF_RETURN_IF_ERROR(status);
  if (!scope.device().empty()) def.set_device(scope.device());
  if (static_cast<int>(args.size()) != op_def->input_arg_size()) {
    return errors::InvalidArgument("Op ", def.op(), " takes ",
                                   op_def->input_arg_size(),
                                   " input arguments, but got ", args.size());
  }
  Graph* graph = scope.graph();
  // An Output of another scope's graph, or past its node's outputs, would
  // corrupt this graph: checked before anything reads it.
  auto of_this_graph = [graph](const Node* node) {
    return graph->FindNodeId(node->id()) == node;
  };
  std::vector<DataTypeVector> arg_types(args.size());
  std::vector<const ::minflow::Output*> flat;
  for (size_t a = 0; a < args.size(); ++a) {
    for (const ::minflow::Output& out : args[a]) {
      if (!of_this_graph(out.node())) {
        return errors::InvalidArgument("Input '", out.node()->name(),
                                       "' of op ", def.op(),
                                       " belongs to another graph");
      }
      if (out.index() < 0 || out.index() >= out.node()->num_outputs()) {
        return errors::OutOfRange("Input '", out.node()->name(), "' of op ",
                                  def.op(), " names output ", out.index(),
                                  ", but the node has ",
                                  out.node()->num_outputs(), " outputs");
      }
      arg_types[a].push_back(out.type());
      def.add_input(out.index() == 0 ? out.node()->name() : out.name());
      flat.push_back(&out);
    }
  }
  std::vector<Node*> controls;
  for (const Operation& dep : scope.control_deps()) {
    if (dep.node() == nullptr) continue;
    if (!of_this_graph(dep.node())) {
      return errors::InvalidArgument("Control dependency '", dep.name(),
                                     "' of op ", def.op(),
                                     " belongs to another graph");
    }
    def.add_input(absl::StrCat("^", dep.name()));
    controls.push_back(dep.node());
  }
  MF_RETURN_IF_ERROR(InferAttrsFromInputTypes(*op_def, arg_types, &def));
  AddDefaultsToNodeDef(*op_def, &def);
  MF_RETURN_IF_ERROR(ValidateNodeDef(def, *op_def));
  DataTypeVector in_types, out_types;
  MF_RETURN_IF_ERROR(InOutTypesForNode(def, *op_def, &in_types, &out_types));
  if (in_types.size() != flat.size()) {
    return errors::InvalidArgument("Op ", def.op(), " expects ",
                                   in_types.size(), " inputs, but got ",
                                   flat.size());
  }
  for (size_t i = 0; i < flat.size(); ++i) {
    const DataType given = flat[i]->type();
    const bool fits = IsRefType(in_types[i])
                          ? given == in_types[i]
                          : RemoveRefType(given) == in_types[i];
    if (!fits) {
      // TensorFlow's wording.
      return errors::InvalidArgument(
          "Input ", i, " of node ", name, " was passed ", DataTypeString(given),
          " from ", flat[i]->name(), " incompatible with expected ",
          DataTypeString(in_types[i]), ".");
    }
  }
  MF_ASSIGN_OR_RETURN(node, graph->AddNode(std::move(def), op_def, in_types,
                                           std::move(out_types)));
  for (size_t i = 0; i < flat.size(); ++i) {
    graph->AddEdge(flat[i]->node(), flat[i]->index(), node,
                   static_cast<int>(i));
  }
  for (Node* control : controls) graph->AddControlEdge(control, node);
  Status refined = scope.refiner()->AddNode(*graph, *node);
  if (!refined.ok()) {
    graph->RemoveNode(node);
    node = nullptr;
    return refined;
  }
  std::vector<PartialTensorShape> shapes;
  shapes.reserve(node->num_outputs());
  for (int i = 0; i < node->num_outputs(); ++i) {
    shapes.push_back(scope.refiner()->OutputPartialShape(node->id(), i));
  }
  node->set_output_shapes(std::move(shapes));
  return OkStatus();
}

Operation OpBuilder::Finish() {
  if (!impl_->scope.ok()) return Operation();
  Status built = impl_->Build();
  if (!built.ok()) {
    // The refiner's and the validator's errors name the node already.
    if (!absl::StrContains(built.message(), "{{node ")) {
      built =
          errors::AttachNodeContext(built, impl_->def.name(), impl_->def.op());
    }
    impl_->node = nullptr;
    impl_->scope.UpdateStatus(built);
    return Operation();
  }
  return Operation(impl_->node);
}

::minflow::Output OpBuilder::GetOutput(absl::string_view arg_name) const {
  OutputList outputs = GetOutputList(arg_name);
  return outputs.empty() ? ::minflow::Output() : outputs[0];
}

OutputList OpBuilder::GetOutputList(absl::string_view arg_name) const {
  Node* node = impl_->node;
  if (node == nullptr) return {};
  NameRangeMap ranges;
  if (!NameRangesForNode(node->def(), node->op_def(), nullptr, &ranges).ok()) {
    return {};
  }
  auto it = ranges.find(arg_name);
  if (it == ranges.end()) return {};
  OutputList outputs;
  for (int i = it->second.first; i < it->second.second; ++i) {
    outputs.emplace_back(node, i);
  }
  return outputs;
}

}  // namespace minflow
