#include "minflow/framework/shape_inference.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"
#include "minflow/tensor_shape.pb.h"

namespace minflow {
namespace shape_inference {

namespace {

// Errors that come from one input's shape or value carry its index as a
// payload, so AttachContext can name the input even though the check that
// failed (WithRank, Merge, ...) only saw a handle.
constexpr char kInputIndexPayload[] = "minflow.shape_inference.input_index";

}  // namespace

// ---------------------------------------------------------------------------
// ShapeManager

ShapeHandle ShapeManager::MakeShape(absl::Span<const DimensionHandle> dims) {
  shapes_.push_back(Shape(dims));
  return ShapeHandle(&shapes_.back());
}

ShapeHandle ShapeManager::UnknownShape() {
  shapes_.push_back(Shape());
  return ShapeHandle(&shapes_.back());
}

DimensionHandle ShapeManager::MakeDim(int64_t value) {
  dims_.push_back(Dimension(value));
  return DimensionHandle(&dims_.back());
}

// ---------------------------------------------------------------------------
// Construction

InferenceContext::InferenceContext(
    int graph_def_version, const NodeDef& node_def, const OpDef& op_def,
    const std::vector<ShapeHandle>& input_shapes,
    const std::vector<const Tensor*>& input_tensors,
    const std::vector<ShapeHandle>& input_tensors_as_shapes,
    ShapeManager* shape_manager)
    : graph_def_version_(graph_def_version),
      node_def_(&node_def),
      owned_manager_(shape_manager == nullptr ? new ShapeManager : nullptr),
      manager_(shape_manager == nullptr ? owned_manager_.get()
                                        : shape_manager) {
  inputs_ = input_shapes;
  input_tensors_as_shapes_ = input_tensors_as_shapes;
  Init(op_def, input_tensors);
}

InferenceContext::InferenceContext(
    int graph_def_version, const NodeDef& node_def, const OpDef& op_def,
    const std::vector<PartialTensorShape>& input_shapes,
    const std::vector<const Tensor*>& input_tensors,
    const std::vector<PartialTensorShape>& input_tensors_as_shapes)
    : graph_def_version_(graph_def_version),
      node_def_(&node_def),
      owned_manager_(new ShapeManager),
      manager_(owned_manager_.get()) {
  inputs_.reserve(input_shapes.size());
  for (const PartialTensorShape& p : input_shapes) {
    ShapeHandle s;
    construction_status_.Update(MakeShapeFromPartialTensorShape(p, &s));
    inputs_.push_back(s);
  }
  for (const PartialTensorShape& p : input_tensors_as_shapes) {
    ShapeHandle s;
    construction_status_.Update(MakeShapeFromPartialTensorShape(p, &s));
    input_tensors_as_shapes_.push_back(s);
  }
  Init(op_def, input_tensors);
}

InferenceContext::~InferenceContext() = default;

void InferenceContext::Init(const OpDef& op_def,
                            const std::vector<const Tensor*>& tensors) {
  input_tensors_ = tensors;
  const Status names = NameRangesForNode(AttrSlice(*node_def_), op_def,
                                         &input_name_map_, &output_name_map_);
  construction_status_.Update(names);
  int num_outputs = 0;
  for (const auto& entry : output_name_map_) {
    num_outputs = std::max(num_outputs, entry.second.second);
  }
  // Output lists come from attrs (num_split = 1e9 is one attr away).
  if (num_outputs > kMaxOutputs) {
    construction_status_.Update(errors::InvalidArgument(
        "Node has ", num_outputs, " outputs, more than the ", kMaxOutputs,
        " shape inference supports"));
    num_outputs = 0;
  }
  outputs_.resize(num_outputs);
  output_handle_shapes_and_types_.resize(num_outputs);
  if (names.ok()) CheckInputCount();
  if (input_tensors_.size() > inputs_.size()) {
    construction_status_.Update(
        errors::InvalidArgument("More input tensors (", input_tensors_.size(),
                                ") than inputs (", inputs_.size(), ")"));
  }
  input_tensors_.resize(inputs_.size());
  // Shape functions read constant inputs trusting their shapes; a value that
  // contradicts its input's shape is the caller's error.
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const Tensor* t = input_tensors_[i];
    if (t == nullptr || !RankKnown(inputs_[i])) continue;
    bool compatible = Rank(inputs_[i]) == t->dims();
    for (int d = 0; compatible && d < t->dims(); ++d) {
      const int64_t v = Value(inputs_[i]->dims_[d]);
      compatible = v == kUnknownDim || v == t->dim_size(d);
    }
    if (!compatible) {
      construction_status_.Update(errors::InvalidArgument(
          "Input tensor ", i, " has shape ", t->shape().DebugString(),
          ", which does not match input ", i, "'s shape ",
          DebugString(inputs_[i])));
    }
  }
  input_tensors_as_shapes_.resize(
      std::max(inputs_.size(), input_tensors_as_shapes_.size()));
  requested_input_tensor_.assign(inputs_.size(), false);
  requested_input_tensor_as_partial_shape_.assign(inputs_.size(), false);
  input_handle_shapes_and_types_.resize(inputs_.size());
}

void InferenceContext::CheckInputCount() {
  int expected = 0;
  for (const auto& entry : input_name_map_) {
    expected = std::max(expected, entry.second.second);
  }
  if (static_cast<int>(inputs_.size()) != expected) {
    construction_status_.Update(errors::InvalidArgument(
        "Wrong number of inputs passed: ", inputs_.size(), " while ", expected,
        " expected based on NodeDef"));
  }
}

// ---------------------------------------------------------------------------
// Running and errors

Status InferenceContext::Run(const ShapeInferenceFn& fn) {
  if (!construction_status_.ok()) return AttachContext(construction_status_);
  deferred_error_ = OkStatus();
  Status s = fn ? fn(this) : OkStatus();
  if (!fn) {
    for (int i = 0; i < num_outputs(); ++i) outputs_[i] = UnknownShape();
  }
  if (s.ok()) s = deferred_error_;
  if (s.ok()) {
    for (int i = 0; i < num_outputs(); ++i) {
      const ShapeHandle o = outputs_[i];
      if (!o.IsSet()) {
        s = errors::Internal("Shape function of op '", op(),
                             "' did not set output ", i);
        break;
      }
      if (Rank(o) > kMaxTensorRank) {
        s = errors::InvalidArgument("Output ", i, " would have rank ", Rank(o),
                                    ", beyond the maximum of ", kMaxTensorRank);
        break;
      }
      // A shape whose known dims alone overflow int64 can never exist.
      int64_t product = 1;
      bool overflow = false;
      for (int d = 0; d < Rank(o) && !overflow; ++d) {
        const int64_t v = o->dims_[d]->value_;
        if (v > 0) overflow = __builtin_mul_overflow(product, v, &product);
      }
      if (overflow) {
        s = errors::InvalidArgument("Output ", i, " shape ", DebugString(o),
                                    " has more elements than int64 can count");
        break;
      }
    }
  }
  return s.ok() ? s : AttachContext(s);
}

void InferenceContext::SetDeferredError(Status s) {
  if (deferred_error_.ok()) deferred_error_ = std::move(s);
}

Status InferenceContext::ShapeError(ShapeHandle s, std::string message) const {
  Status status = errors::InvalidArgument(std::move(message));
  if (!s.IsSet()) return status;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].SameHandle(s))
      return InputError(static_cast<int>(i), status);
  }
  return status;
}

Status InferenceContext::InputError(int input_idx, Status s) const {
  if (!s.ok() && !s.GetPayload(kInputIndexPayload).has_value()) {
    s.SetPayload(kInputIndexPayload, absl::Cord(absl::StrCat(input_idx)));
  }
  return s;
}

std::string InferenceContext::op() const { return node_def_->op(); }

Status InferenceContext::AttachContext(const Status& status) {
  if (status.ok()) return status;
  std::vector<std::string> input_shapes;
  input_shapes.reserve(inputs_.size());
  for (const ShapeHandle& s : inputs_) input_shapes.push_back(DebugString(s));

  std::vector<std::string> from_tensors;
  std::vector<std::string> from_shapes;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (requested_input_tensor_as_partial_shape_[i] &&
        input_tensors_as_shapes_[i].IsSet() &&
        RankKnown(input_tensors_as_shapes_[i])) {
      from_shapes.push_back(absl::StrCat(
          "input[", i, "] = ", DebugString(input_tensors_as_shapes_[i])));
    } else if (requested_input_tensor_[i] && input_tensors_[i] != nullptr) {
      from_tensors.push_back(absl::StrCat(
          "input[", i, "] = <", input_tensors_[i]->SummarizeValue(256), ">"));
    }
  }
  std::string context =
      absl::StrCat(" for '", SummarizeNodeDef(*node_def_),
                   "' with input shapes: ", absl::StrJoin(input_shapes, ", "));
  if (!from_tensors.empty()) {
    absl::StrAppend(&context, " and with computed input tensors: ",
                    absl::StrJoin(from_tensors, ", "));
  }
  if (!from_shapes.empty()) {
    absl::StrAppend(&context,
                    " and with input tensors computed as partial shapes: ",
                    absl::StrJoin(from_shapes, ","));
  }
  const auto payload = status.GetPayload(kInputIndexPayload);
  if (payload.has_value()) {
    absl::StrAppend(&context, "; error in input ", std::string(*payload));
  }
  absl::StrAppend(&context, ".");
  return Status(status.code(), absl::StrCat(status.message(), context));
}

// ---------------------------------------------------------------------------
// Inputs and outputs

ShapeHandle InferenceContext::input(int64_t idx) const {
  if (idx < 0 || idx >= num_inputs()) {
    const_cast<InferenceContext*>(this)->SetDeferredError(
        errors::Internal("Shape function of op '", node_def_->op(),
                         "' asked for input ", idx, " of ", num_inputs()));
    return const_cast<InferenceContext*>(this)->UnknownShape();
  }
  return inputs_[idx];
}

Status InferenceContext::input(absl::string_view input_name,
                               std::vector<ShapeHandle>* output) const {
  const auto it = input_name_map_.find(input_name);
  if (it == input_name_map_.end()) {
    return errors::InvalidArgument("Unknown input name: ", input_name);
  }
  output->clear();
  for (int i = it->second.first; i < it->second.second; ++i) {
    output->push_back(inputs_[i]);
  }
  return OkStatus();
}

bool InferenceContext::MergeInput(int idx, ShapeHandle shape) {
  if (idx < 0 || idx >= num_inputs()) return false;
  ShapeHandle merged;
  if (!Merge(inputs_[idx], shape, &merged).ok()) return false;
  inputs_[idx] = merged;
  return true;
}

bool InferenceContext::RelaxInput(int idx, ShapeHandle shape) {
  if (idx < 0 || idx >= num_inputs()) return false;
  ShapeHandle relaxed;
  Relax(inputs_[idx], shape, &relaxed);
  if (relaxed.SameHandle(inputs_[idx])) return false;
  inputs_[idx] = relaxed;
  return true;
}

void InferenceContext::SetInput(int idx, ShapeHandle shape) {
  if (idx < 0 || idx >= num_inputs()) {
    SetDeferredError(errors::Internal("SetInput index ", idx, " out of range"));
    return;
  }
  inputs_[idx] = shape;
}

const Tensor* InferenceContext::input_tensor(int idx) {
  if (idx < 0 || idx >= num_inputs()) {
    SetDeferredError(errors::Internal("Shape function of op '", op(),
                                      "' asked for input tensor ", idx, " of ",
                                      num_inputs()));
    return nullptr;
  }
  requested_input_tensor_[idx] = true;
  return input_tensors_[idx];
}

bool InferenceContext::requested_input_tensor(int idx) const {
  return idx >= 0 && idx < num_inputs() && requested_input_tensor_[idx];
}

bool InferenceContext::requested_input_tensor_as_partial_shape(int idx) const {
  return idx >= 0 && idx < num_inputs() &&
         requested_input_tensor_as_partial_shape_[idx];
}

void InferenceContext::set_input_tensors(
    const std::vector<const Tensor*>& input_tensors) {
  input_tensors_ = input_tensors;
  input_tensors_.resize(inputs_.size());
}

void InferenceContext::set_input_tensors_as_shapes(
    const std::vector<ShapeHandle>& input_tensors_as_shapes) {
  input_tensors_as_shapes_ = input_tensors_as_shapes;
  input_tensors_as_shapes_.resize(
      std::max(inputs_.size(), input_tensors_as_shapes_.size()));
}

void InferenceContext::set_output(int idx, ShapeHandle shape) {
  if (idx < 0 || idx >= num_outputs()) {
    SetDeferredError(errors::Internal("Shape function of op '", op(),
                                      "' set output ", idx, " of ",
                                      num_outputs()));
    return;
  }
  outputs_[idx] = shape;
}

Status InferenceContext::set_output(absl::string_view output_name,
                                    const std::vector<ShapeHandle>& shapes) {
  const auto it = output_name_map_.find(output_name);
  if (it == output_name_map_.end()) {
    return errors::InvalidArgument("Unknown output name: ", output_name);
  }
  const int start = it->second.first;
  const int size = it->second.second - start;
  if (size != static_cast<int>(shapes.size())) {
    return errors::InvalidArgument("Must have exactly ", shapes.size(),
                                   " shapes.");
  }
  for (int i = 0; i < size; ++i) outputs_[start + i] = shapes[i];
  return OkStatus();
}

ShapeHandle InferenceContext::output(int64_t idx) const {
  if (idx < 0 || idx >= num_outputs()) return ShapeHandle();
  return outputs_[idx];
}

Status InferenceContext::output(absl::string_view output_name,
                                std::vector<ShapeHandle>* output) const {
  const auto it = output_name_map_.find(output_name);
  if (it == output_name_map_.end()) {
    return errors::InvalidArgument("Unknown output name: ", output_name);
  }
  output->clear();
  for (int i = it->second.first; i < it->second.second; ++i) {
    output->push_back(outputs_[i]);
  }
  return OkStatus();
}

const std::vector<ShapeAndType>*
InferenceContext::input_handle_shapes_and_types(int idx) {
  if (idx < 0 || idx >= num_inputs()) return nullptr;
  return input_handle_shapes_and_types_[idx].get();
}

void InferenceContext::set_input_handle_shapes_and_types(
    int idx, const std::vector<ShapeAndType>& shapes_and_types) {
  if (idx < 0 || idx >= num_inputs()) return;
  input_handle_shapes_and_types_[idx] =
      std::make_unique<std::vector<ShapeAndType>>(shapes_and_types);
}

const std::vector<ShapeAndType>*
InferenceContext::output_handle_shapes_and_types(int idx) {
  if (idx < 0 || idx >= num_outputs()) return nullptr;
  return output_handle_shapes_and_types_[idx].get();
}

void InferenceContext::set_output_handle_shapes_and_types(
    int idx, const std::vector<ShapeAndType>& shapes_and_types) {
  if (idx < 0 || idx >= num_outputs()) return;
  output_handle_shapes_and_types_[idx] =
      std::make_unique<std::vector<ShapeAndType>>(shapes_and_types);
}

// ---------------------------------------------------------------------------
// Reading

DimensionHandle InferenceContext::Dim(ShapeHandle s, int64_t idx) {
  if (!RankKnown(s)) return UnknownDim();
  return DimKnownRank(s, idx);
}

DimensionHandle InferenceContext::DimKnownRank(ShapeHandle s, int64_t idx) {
  const int64_t rank = Rank(s);
  const int64_t i = idx < 0 ? idx + rank : idx;
  if (rank < 0 || i < 0 || i >= rank) {
    SetDeferredError(errors::Internal("Shape function of op '", op(),
                                      "' asked for dimension ", idx,
                                      " of shape ", DebugString(s)));
    return UnknownDim();
  }
  return s->dims_[i];
}

bool InferenceContext::FullyDefined(ShapeHandle s) {
  if (!RankKnown(s)) return false;
  for (const DimensionHandle& d : s->dims_) {
    if (!ValueKnown(d)) return false;
  }
  return true;
}

DimensionHandle InferenceContext::NumElements(ShapeHandle s) {
  if (!RankKnown(s)) return UnknownDim();
  int64_t size = 1;
  bool overflow = false;
  for (const DimensionHandle& d : s->dims_) {
    const int64_t v = Value(d);
    if (v == kUnknownDim) return UnknownDim();
    overflow = overflow || __builtin_mul_overflow(size, v, &size);
  }
  if (overflow) {
    SetDeferredError(ShapeError(
        s, absl::StrCat("Element count overflow: the number of elements of ",
                        DebugString(s), " does not fit in int64")));
    return UnknownDim();
  }
  return MakeDim(size);
}

std::string InferenceContext::DebugString(ShapeHandle s) {
  if (!RankKnown(s)) return "?";
  std::string out = "[";
  for (size_t i = 0; i < s->dims_.size(); ++i) {
    if (i > 0) out += ",";
    out += DebugString(s->dims_[i]);
  }
  out += "]";
  return out;
}

std::string InferenceContext::DebugString(DimensionHandle d) {
  return ValueKnown(d) ? absl::StrCat(Value(d)) : "?";
}

std::string InferenceContext::DebugString() const {
  return absl::StrCat("InferenceContext for node: ",
                      SummarizeNodeDef(*node_def_));
}

// ---------------------------------------------------------------------------
// Rank and value checks

Status InferenceContext::WithRank(ShapeHandle shape, int64_t rank,
                                  ShapeHandle* out) {
  if (rank > kMaxTensorRank || rank < 0) {
    *out = ShapeHandle();
    return errors::InvalidArgument(
        "Rank ", rank, " is outside the valid range [0, ", kMaxTensorRank, "]");
  }
  const int32_t existing = Rank(shape);
  if (existing == rank) {
    *out = shape;
    return OkStatus();
  }
  if (existing == kUnknownRank) {
    *out = UnknownShapeOfRank(rank);
    return OkStatus();
  }
  *out = ShapeHandle();
  return ShapeError(shape, absl::StrCat("Shape must be rank ", rank,
                                        " but is rank ", existing));
}

Status InferenceContext::WithRankAtLeast(ShapeHandle shape, int64_t rank,
                                         ShapeHandle* out) {
  const int32_t existing = Rank(shape);
  if (existing >= rank) {
    *out = shape;
    return OkStatus();
  }
  if (existing == kUnknownRank) return ReturnUnknownShape(out);
  *out = ShapeHandle();
  return ShapeError(shape, absl::StrCat("Shape must be at least rank ", rank,
                                        " but is rank ", existing));
}

Status InferenceContext::WithRankAtMost(ShapeHandle shape, int64_t rank,
                                        ShapeHandle* out) {
  const int32_t existing = Rank(shape);
  if (existing == kUnknownRank) return ReturnUnknownShape(out);
  if (existing <= rank) {
    *out = shape;
    return OkStatus();
  }
  *out = ShapeHandle();
  return ShapeError(shape, absl::StrCat("Shape must be at most rank ", rank,
                                        " but is rank ", existing));
}

Status InferenceContext::WithValue(DimensionHandle dim, int64_t value,
                                   DimensionHandle* out) {
  const int64_t existing = Value(dim);
  if (existing == value) {
    *out = dim;
    return OkStatus();
  }
  if (existing == kUnknownDim) {
    *out = MakeDim(value);
    return OkStatus();
  }
  *out = DimensionHandle();
  return errors::InvalidArgument("Dimension must be ", value, " but is ",
                                 existing);
}

// Note [Merge and Relax]
// Merge narrows two descriptions of one value into the most specific one:
// the same handle or an unknown side gives back the other handle untouched;
// otherwise ranks must agree and, per dim, known values must agree. If one
// side is at least as informative in every dim, that very handle comes back
// (callers and tests rely on identity to see that nothing new was learnt);
// only when each side knows something the other lacks is a new shape made,
// and its dims are the original dim handles. Relax widens instead (joining
// what a loop's iterations may see): the same handle, or identical ranks and
// values, give back `s_old`; differing ranks or an unknown side give an
// unknown shape; per dim, differing or unknown values give a new unknown
// dim, equal values keep `d_old`. Both follow TensorFlow exactly.

Status InferenceContext::Merge(DimensionHandle d0, DimensionHandle d1,
                               DimensionHandle* out) {
  if (d0.SameHandle(d1) || !ValueKnown(d1)) {
    *out = d0;
  } else if (!ValueKnown(d0)) {
    *out = d1;
  } else if (Value(d0) == Value(d1)) {
    *out = d0;
  } else {
    *out = DimensionHandle();
    return errors::InvalidArgument("Dimensions must be equal, but are ",
                                   Value(d0), " and ", Value(d1));
  }
  return OkStatus();
}

Status InferenceContext::Merge(ShapeHandle s0, ShapeHandle s1,
                               ShapeHandle* out) {
  if (s0.SameHandle(s1) || !RankKnown(s1)) {
    *out = s0;
    return OkStatus();
  }
  if (!RankKnown(s0)) {
    *out = s1;
    return OkStatus();
  }
  const int32_t rank = Rank(s0);
  if (rank != Rank(s1)) {
    *out = ShapeHandle();
    return ShapeError(s1, absl::StrCat("Shapes must be equal rank, but are ",
                                       rank, " and ", Rank(s1)));
  }
  bool return_s0 = true;
  bool return_s1 = true;
  for (int i = 0; i < rank; ++i) {
    const DimensionHandle d0 = s0->dims_[i];
    const DimensionHandle d1 = s1->dims_[i];
    if (d0.SameHandle(d1)) continue;
    const int64_t v0 = Value(d0);
    const int64_t v1 = Value(d1);
    if (v0 == kUnknownDim) {
      if (v1 != kUnknownDim) return_s0 = false;
    } else if (v1 == kUnknownDim) {
      return_s1 = false;
    } else if (v0 != v1) {
      *out = ShapeHandle();
      return ShapeError(
          s1, absl::StrCat("Dimension ", i,
                           " in both shapes must be equal, but are ", v0,
                           " and ", v1, ". Shapes are ", DebugString(s0),
                           " and ", DebugString(s1), "."));
    }
  }
  if (return_s0 || return_s1) {
    *out = return_s0 ? s0 : s1;
    return OkStatus();
  }
  std::vector<DimensionHandle> dims(rank);
  for (int i = 0; i < rank; ++i) {
    // Cannot fail: every pair was checked above.
    MF_CHECK_OK(Merge(s0->dims_[i], s1->dims_[i], &dims[i]));
  }
  return ReturnCreatedShape(dims, out);
}

Status InferenceContext::MergePrefix(ShapeHandle s, ShapeHandle prefix,
                                     ShapeHandle* s_out,
                                     ShapeHandle* prefix_out) {
  *s_out = *prefix_out = ShapeHandle();
  if (!RankKnown(prefix) || !RankKnown(s)) {
    *s_out = s;
    *prefix_out = prefix;
    return OkStatus();
  }
  const int32_t rank = Rank(prefix);
  MF_RETURN_IF_ERROR(WithRankAtLeast(s, rank, &s));
  std::vector<DimensionHandle> dims(rank);
  for (int i = 0; i < rank; ++i) {
    MF_RETURN_IF_ERROR(Merge(s->dims_[i], prefix->dims_[i], &dims[i]));
  }
  *prefix_out = MakeShape(dims);
  for (int i = rank; i < Rank(s); ++i) dims.push_back(s->dims_[i]);
  *s_out = MakeShape(dims);
  return OkStatus();
}

void InferenceContext::Relax(DimensionHandle d_old, DimensionHandle d_new,
                             DimensionHandle* out) {
  if (d_old.SameHandle(d_new)) {
    *out = d_old;
  } else if (!ValueKnown(d_old) || !ValueKnown(d_new)) {
    *out = UnknownDim();
  } else if (Value(d_old) == Value(d_new)) {
    *out = d_old;
  } else {
    *out = UnknownDim();
  }
}

void InferenceContext::Relax(ShapeHandle s_old, ShapeHandle s_new,
                             ShapeHandle* out) {
  if (s_old.SameHandle(s_new)) {
    *out = s_old;
    return;
  }
  if (!RankKnown(s_old) || !RankKnown(s_new)) {
    *out = UnknownShape();
    return;
  }
  const int32_t rank = Rank(s_old);
  if (rank != Rank(s_new)) {
    *out = UnknownShape();
    return;
  }
  bool return_old = true;
  for (int i = 0; i < rank; ++i) {
    const DimensionHandle d0 = s_old->dims_[i];
    const DimensionHandle d1 = s_new->dims_[i];
    if (d0.SameHandle(d1)) continue;
    const int64_t v0 = Value(d0);
    const int64_t v1 = Value(d1);
    if (v0 == kUnknownDim || v1 == kUnknownDim || v0 != v1) {
      return_old = false;
      break;
    }
  }
  if (return_old) {
    *out = s_old;
    return;
  }
  std::vector<DimensionHandle> dims(rank);
  for (int i = 0; i < rank; ++i) {
    Relax(s_old->dims_[i], s_new->dims_[i], &dims[i]);
  }
  *out = MakeShape(dims);
}

// ---------------------------------------------------------------------------
// Building shapes

Status InferenceContext::ReturnCreatedShape(
    absl::Span<const DimensionHandle> dims, ShapeHandle* out) {
  if (dims.size() > static_cast<size_t>(kMaxTensorRank)) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Shape would have rank ", dims.size(),
                                   ", beyond the maximum of ", kMaxTensorRank);
  }
  *out = manager_->MakeShape(dims);
  return OkStatus();
}

Status InferenceContext::Subshape(ShapeHandle s, int64_t start,
                                  ShapeHandle* out) {
  return Subshape(s, start, std::numeric_limits<int64_t>::max(), out);
}

Status InferenceContext::Subshape(ShapeHandle s, int64_t start, int64_t end,
                                  ShapeHandle* out) {
  return Subshape(s, start, end, 1, out);
}

Status InferenceContext::Subshape(ShapeHandle s, int64_t start_in,
                                  int64_t end_in, int64_t stride,
                                  ShapeHandle* out) {
  if (stride == 0) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Subshape stride must be non-zero");
  }
  int64_t start = start_in;
  int64_t end = end_in;
  const int64_t rank = Rank(s);
  if (start == 0 && stride == 1 &&
      ((RankKnown(s) && end >= rank) ||
       end == std::numeric_limits<int64_t>::max())) {
    *out = s;
    return OkStatus();
  }
  if (!RankKnown(s)) return ReturnUnknownShape(out);
  if (start > rank) start = rank;
  if (end > rank) end = rank;
  if (stride < 0 && start == rank) --start;
  if (start < 0) {
    start += rank;
    if (start < 0) {
      *out = ShapeHandle();
      return errors::InvalidArgument("Subshape start out of bounds: ", start_in,
                                     ", for shape with rank ", rank);
    }
  }
  if (end < 0) {
    // A negative stride may run to just before dim 0 (end == -1 after
    // clamping means "through dim 0").
    end += rank;
    if (end < 0 && !(stride < 0 && end == -1)) {
      *out = ShapeHandle();
      return errors::InvalidArgument("Subshape end out of bounds: ", end_in,
                                     ", for shape with rank ", rank);
    }
  }
  if (stride > 0 && start > end) {
    *out = ShapeHandle();
    return errors::InvalidArgument(
        "Subshape must have computed start <= end, but is ", start, " and ",
        end, " (computed from start ", start_in, " and end ", end_in,
        " over shape with rank ", rank, ")");
  }
  if (stride < 0 && start < end) {
    *out = ShapeHandle();
    return errors::InvalidArgument(
        "Subshape must have computed start >= end since stride is negative, "
        "but is ",
        start, " and ", end, " (computed from start ", start_in, " and end ",
        end_in, " over shape with rank ", rank, " and stride", stride, ")");
  }
  std::vector<DimensionHandle> dims;
  for (int64_t i = start; stride > 0 ? i < end : i > end; i += stride) {
    dims.push_back(s->dims_[i]);
  }
  return ReturnCreatedShape(dims, out);
}

Status InferenceContext::Concatenate(ShapeHandle s1, ShapeHandle s2,
                                     ShapeHandle* out) {
  if (!RankKnown(s1) || !RankKnown(s2)) return ReturnUnknownShape(out);
  std::vector<DimensionHandle> dims;
  dims.reserve(s1->dims_.size() + s2->dims_.size());
  dims.insert(dims.end(), s1->dims_.begin(), s1->dims_.end());
  dims.insert(dims.end(), s2->dims_.begin(), s2->dims_.end());
  return ReturnCreatedShape(dims, out);
}

Status InferenceContext::ReplaceDim(ShapeHandle s, int64_t dim_index_in,
                                    DimensionHandle new_dim, ShapeHandle* out) {
  if (!RankKnown(s)) return ReturnUnknownShape(out);
  const int64_t rank = Rank(s);
  const int64_t dim_index =
      dim_index_in < 0 ? dim_index_in + rank : dim_index_in;
  if (dim_index < 0 || dim_index >= rank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("Out of range dim_index ", dim_index_in,
                                   " for shape with ", rank, " dimensions");
  }
  std::vector<DimensionHandle> dims(s->dims_.begin(), s->dims_.end());
  dims[dim_index] = new_dim;
  return ReturnCreatedShape(dims, out);
}

ShapeHandle InferenceContext::MakeShape(
    const std::vector<DimensionHandle>& dims) {
  return manager_->MakeShape(dims);
}

ShapeHandle InferenceContext::MakeShape(
    std::initializer_list<DimensionOrConstant> dims) {
  absl::InlinedVector<DimensionHandle, 4> handles;
  handles.reserve(dims.size());
  for (const DimensionOrConstant& d : dims) handles.push_back(MakeDim(d));
  return manager_->MakeShape(handles);
}

ShapeHandle InferenceContext::UnknownShape() {
  return manager_->UnknownShape();
}

ShapeHandle InferenceContext::UnknownShapeOfRank(int64_t rank) {
  if (rank == kUnknownRank) return UnknownShape();
  if (rank < 0 || rank > kMaxTensorRank) {
    SetDeferredError(errors::InvalidArgument("Rank ", rank,
                                             " is outside the valid range [0, ",
                                             kMaxTensorRank, "]"));
    return UnknownShape();
  }
  absl::InlinedVector<DimensionHandle, 4> dims(rank);
  for (auto& d : dims) d = UnknownDim();
  return manager_->MakeShape(dims);
}

ShapeHandle InferenceContext::Scalar() { return MakeShape({}); }

ShapeHandle InferenceContext::Vector(DimensionOrConstant dim) {
  return MakeShape({dim});
}

ShapeHandle InferenceContext::Matrix(DimensionOrConstant dim1,
                                     DimensionOrConstant dim2) {
  return MakeShape({dim1, dim2});
}

DimensionHandle InferenceContext::MakeDim(DimensionOrConstant d) {
  if (d.dim.IsSet()) return d.dim;
  MF_DCHECK(d.val >= kUnknownDim) << "negative dimension " << d.val;
  return manager_->MakeDim(d.val);
}

DimensionHandle InferenceContext::UnknownDim() {
  return manager_->MakeDim(kUnknownDim);
}

}  // namespace shape_inference
}  // namespace minflow
