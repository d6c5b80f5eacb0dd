// NodeDef helpers: typed attr access, attr defaults, validation of a node
// against its OpDef, the input/output types and index ranges a node's attrs
// imply, inference of type and length attrs from input types, and the
// summaries used in error messages.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "google/protobuf/map.h"
#include "minflow/attr_value.pb.h"
#include "minflow/core/status.h"
#include "minflow/core/types.h"
#include "minflow/framework/attr_value_util.h"

namespace minflow {

class NodeDef;
class OpDef;
class PartialTensorShape;
class Tensor;
class TensorShape;

using AttrValueMap = google::protobuf::Map<std::string, AttrValue>;

// Node attrs whose names start with '_' are minflow's own (placement,
// colocation, ...) and are allowed on any node.
inline constexpr char kColocationAttrName[] = "_class";
inline constexpr char kColocationGroupPrefix[] = "loc:@";

// A read-only view of a set of attrs: a NodeDef's, or a bare map. Cheap to
// copy; the NodeDef or map must outlive it.
class AttrSlice {
 public:
  AttrSlice();                         // no attrs
  AttrSlice(const NodeDef& node_def);  // NOLINT: implicit, as TensorFlow
  explicit AttrSlice(const AttrValueMap* a);

  int size() const { return attrs_->size(); }

  // nullptr when absent.
  const AttrValue* Find(absl::string_view attr_name) const;
  // NotFound "No attr named 'x' in NodeDef:" with the node named (unless the
  // attr is internal, '_'-prefixed, where absence is common).
  Status Find(absl::string_view attr_name, const AttrValue** attr_value) const;

  // Same names with equal values.
  bool EqualAttrs(AttrSlice other) const;

  // SummarizeNodeDef() of the node, or "[a=1, b=...]" for a bare map.
  std::string SummarizeNode() const;
  // "a=1, b=DT_FLOAT" in map order.
  std::string DebugString() const;

  AttrValueMap::const_iterator begin() const { return attrs_->begin(); }
  AttrValueMap::const_iterator end() const { return attrs_->end(); }

  // The NodeDef viewed, or nullptr for a bare map.
  const NodeDef* node_def() const { return ndef_; }

 private:
  const NodeDef* ndef_;
  const AttrValueMap* attrs_;
};

// "{{node name}} = Op[a=1, b=DT_FLOAT, _device=\"/device:CPU:0\"](in1, in2)"
// with attrs sorted by name; at most `max_inputs_in_summary` inputs (all
// when negative).
std::string SummarizeNodeDef(const NodeDef& node_def,
                             int max_inputs_in_summary = -1);
// "a=1, b=DT_FLOAT, _device=\"...\"", sorted by name.
std::string SummarizeAttrs(const NodeDef& node_def);
// "{{node name}}" (or the original names it was made from), the marker
// tools look for in errors.
std::string FormatNodeDefForError(const NodeDef& node_def);
// Appends " [[{{node name}}]]" to a non-OK status.
Status AttachDef(const Status& status, const NodeDef& node_def);

// Typed access. NotFound when the attr is absent; InvalidArgument naming
// the attr and both types when it holds another type ("AttrValue had value
// with type 'int' when 'string' expected\n\t for attr 'x'"), and when the
// value does not fit (an int32 out of range, an invalid shape).
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::string* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   int64_t* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   int32_t* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   float* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   bool* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   DataType* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   TensorShapeProto* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   TensorShape* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   PartialTensorShape* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   TensorProto* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   Tensor* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   NameAttrList* value);
// Pointers into the attr map, valid while it is unchanged.
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   const TensorProto** value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   const NameAttrList** value);

// List forms: "list(<type>)" attrs, appended to *value.
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<std::string>* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<int64_t>* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<int32_t>* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<float>* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<bool>* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<DataType>* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   DataTypeVector* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<TensorShapeProto>* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<TensorShape>* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<PartialTensorShape>* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<TensorProto>* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<Tensor>* value);
Status GetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                   std::vector<NameAttrList>* value);

// Like GetNodeAttr, but false (leaving *value alone) instead of an error.
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    std::string* value);
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    int64_t* value);
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    int32_t* value);
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    float* value);
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    bool* value);
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    DataType* value);
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    TensorShape* value);
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    const TensorProto** value);
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    const NameAttrList** value);
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    std::vector<std::string>* value);
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    std::vector<int64_t>* value);
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    std::vector<int32_t>* value);
bool TryGetNodeAttr(const AttrSlice& attrs, absl::string_view attr_name,
                    std::vector<DataType>* value);

// The string value of a "string" attr, or "" when absent or not a string.
const std::string& GetNodeAttrString(const AttrSlice& attrs,
                                     absl::string_view attr_name);

bool HasNodeAttr(const NodeDef& node_def, absl::string_view attr_name);

// Sets (or replaces) attr `name` of `*node_def`. `value` is anything
// SetAttrValue accepts.
void AddNodeAttr(absl::string_view name, const AttrValue& value,
                 NodeDef* node_def);
template <typename T>
void AddNodeAttr(absl::string_view name, const T& value, NodeDef* node_def) {
  AttrValue attr_value;
  SetAttrValue(value, &attr_value);
  AddNodeAttr(name, attr_value, node_def);
}

// Adds each attr of `op_def` that has a default and is missing from
// `*node_def`.
void AddDefaultsToNodeDef(const OpDef& op_def, NodeDef* node_def);

// Checks `node_def` against `op_def`: the op names agree; data inputs come
// before control inputs ("^name"); every attr of the op is present, holds
// its type and respects its minimum and allowed values; no attr unknown to
// the op (except '_'-prefixed ones); and the number of data inputs is what
// the attrs imply once lists are expanded. InvalidArgument in TensorFlow's
// words, naming the node and summarizing the op.
Status ValidateNodeDef(const NodeDef& node_def, const OpDef& op_def);

// The types of the node's inputs and outputs, lists expanded and refs
// applied ("T" = DT_FLOAT, "N" = 3 make "x: N * T" three DT_FLOATs).
// Errors when an attr needed is missing or of the wrong type.
Status InOutTypesForNode(const NodeDef& node_def, const OpDef& op_def,
                         DataTypeVector* inputs, DataTypeVector* outputs);
Status InputTypesForNode(const NodeDef& node_def, const OpDef& op_def,
                         DataTypeVector* inputs);
Status OutputTypesForNode(const NodeDef& node_def, const OpDef& op_def,
                          DataTypeVector* outputs);
Status OutputTypesForNode(const AttrSlice& attrs, const OpDef& op_def,
                          DataTypeVector* outputs);
Status InputTypeForNode(const NodeDef& node_def, const OpDef& op_def,
                        int input_port, DataType* input_type);
Status OutputTypeForNode(const NodeDef& node_def, const OpDef& op_def,
                         int output_port, DataType* output_type);
Status NumOutputsForNode(const NodeDef& node_def, const OpDef& op_def,
                         int* num_outputs);

// Arg name -> [start, limit) among the node's inputs (or outputs) after
// list expansion. Either map may be null.
using NameRangeMap = absl::flat_hash_map<std::string, std::pair<int, int>>;
Status NameRangesForNode(const AttrSlice& attrs, const OpDef& op_def,
                         NameRangeMap* inputs, NameRangeMap* outputs);

// Sets the attrs that the types of a node's inputs determine, as a graph
// builder or the C API must before validation: the `type` attr of `x: T`,
// the length and type attrs of `x: N * T`, the `list(type)` attr of `x: L`.
// `arg_types[i]` holds the types of the tensors fed to the op's i-th input
// arg (one for a single tensor, any number for a list). Ref inputs may feed
// non-ref args; a Ref arg needs a ref input. Attrs already set must agree.
// InvalidArgument naming the op, the arg and the disagreement; the node is
// still to be completed by AddDefaultsToNodeDef and checked by
// ValidateNodeDef (allowed values, minimums).
Status InferAttrsFromInputTypes(const OpDef& op_def,
                                absl::Span<const DataTypeVector> arg_types,
                                NodeDef* node_def);
// As above from the node's input types in one flat list. Splits the list
// among the input args using the attrs already set and the fixed-size args;
// InvalidArgument when the split is ambiguous (two lists of unknown length)
// or impossible.
Status InferAttrsFromFlatInputTypes(const OpDef& op_def,
                                    DataTypeSlice input_types,
                                    NodeDef* node_def);

}  // namespace minflow
