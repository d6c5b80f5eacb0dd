// Shape inference: the InferenceContext a shape function sees, with
// TensorFlow's names, handle identity and Merge/Relax semantics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "minflow/core/logging.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_def_builder.h"

namespace minflow {

class NodeDef;
class OpDef;
class Tensor;
class TensorShapeProto;

namespace shape_inference {

class InferenceContext;
class ShapeManager;

// A dimension: a size >= 0 or unknown (-1). Immutable once made; only a
// ShapeManager makes them, and handles compare by identity.
class Dimension {
 public:
  int64_t value() const { return value_; }

 private:
  friend class InferenceContext;
  friend class ShapeManager;
  explicit Dimension(int64_t value) : value_(value < 0 ? -1 : value) {}

  const int64_t value_;
};

// A pointer to a Dimension owned by a ShapeManager. Two handles are "the
// same" only when they point to the same object (SameHandle); equal values
// do not make handles the same. A default handle is unset (IsSet() false);
// the InferenceContext accessors treat it as an unknown dimension.
class DimensionHandle {
 public:
  DimensionHandle() = default;
  bool SameHandle(DimensionHandle d) const { return ptr_ == d.ptr_; }
  std::size_t Handle() const { return reinterpret_cast<std::size_t>(ptr_); }
  bool IsSet() const { return ptr_ != nullptr; }

 private:
  friend class InferenceContext;
  friend class ShapeManager;
  DimensionHandle(const Dimension* dim) : ptr_(dim) {}  // NOLINT
  const Dimension* operator->() const { return ptr_; }

  const Dimension* ptr_ = nullptr;
};

// A shape: a list of dimension handles, or an unknown rank. Immutable once
// made; owned by a ShapeManager.
class Shape {
 private:
  friend class InferenceContext;
  friend class ShapeManager;
  Shape() : rank_(-1) {}  // unknown rank
  explicit Shape(absl::Span<const DimensionHandle> dims)
      : rank_(static_cast<int32_t>(dims.size())),
        dims_(dims.begin(), dims.end()) {}

  const int32_t rank_;
  const absl::InlinedVector<DimensionHandle, 4> dims_;
};

// A pointer to a Shape owned by a ShapeManager, compared by identity like
// DimensionHandle. An unset handle reads as an unknown shape.
class ShapeHandle {
 public:
  ShapeHandle() = default;
  bool SameHandle(ShapeHandle s) const { return ptr_ == s.ptr_; }
  std::size_t Handle() const { return reinterpret_cast<std::size_t>(ptr_); }
  bool IsSet() const { return ptr_ != nullptr; }

 private:
  friend class InferenceContext;
  friend class ShapeManager;
  ShapeHandle(const Shape* shape) : ptr_(shape) {}  // NOLINT
  const Shape* operator->() const { return ptr_; }

  const Shape* ptr_ = nullptr;
};

// Either an existing dimension (kept as is, so its identity survives) or a
// constant size (>= 0, or -1 for unknown) to make a new dimension from.
struct DimensionOrConstant {
  DimensionOrConstant(DimensionHandle d) : dim(d) {}  // NOLINT
  DimensionOrConstant(int64_t v) : val(v) {}          // NOLINT

  DimensionHandle dim;  // used when set
  int64_t val = -1;     // used when dim is unset
};

// The shape and dtype of a value behind a resource or variant handle.
struct ShapeAndType {
  ShapeAndType() = default;
  ShapeAndType(ShapeHandle s, DataType t) : shape(s), dtype(t) {}
  ShapeHandle shape;
  DataType dtype = DT_INVALID;
};

// Owns every Shape and Dimension made through it; handles stay valid until
// it is destroyed. An InferenceContext makes its own, or shares one its
// caller owns (ShapeRefiner shares one across a graph so output handles of
// one node can be inputs of the next). Not thread-safe.
class ShapeManager {
 public:
  ShapeManager() = default;
  ShapeManager(const ShapeManager&) = delete;
  ShapeManager& operator=(const ShapeManager&) = delete;

  ShapeHandle MakeShape(absl::Span<const DimensionHandle> dims);
  ShapeHandle UnknownShape();
  DimensionHandle MakeDim(int64_t value);
  // Objects made so far (for tests and memory accounting).
  std::size_t num_shapes() const { return shapes_.size(); }
  std::size_t num_dims() const { return dims_.size(); }

 private:
  // Deques never move their elements, so handles stay valid as they grow.
  std::deque<Shape> shapes_;
  std::deque<Dimension> dims_;
};

// What a shape function sees of one node: its attrs, the shapes (and, when
// known, the values) of its inputs, and the outputs it must set. Shape
// functions report bad input as InvalidArgument; Run() adds the node, the
// op, the input shapes and, when an error comes from an input's shape or
// value, that input's index. Not thread-safe; one context per node.
//
// The NodeDef (and any Tensor passed in) must outlive the context. Shapes
// made through the context live as long as its ShapeManager.
class InferenceContext {
 public:
  static constexpr int64_t kUnknownDim = -1;
  static constexpr int32_t kUnknownRank = -1;
  // The most outputs a node may have (a construction error beyond).
  static constexpr int kMaxOutputs = 1 << 20;

  // Inputs as handles (possibly from `shape_manager`, or from another
  // context sharing it). `input_tensors[i]` is the value of input i when
  // known (nullptr otherwise) and `input_tensors_as_shapes[i]` the value of
  // a shape-valued input i when partly known (unset otherwise); both may be
  // shorter than the inputs. `shape_manager` may be null: the context then
  // owns one. A construction error (an input count that disagrees with the
  // NodeDef's attrs, a bad attr) is kept in construction_status() and
  // returned by Run().
  InferenceContext(int graph_def_version, const NodeDef& node_def,
                   const OpDef& op_def,
                   const std::vector<ShapeHandle>& input_shapes,
                   const std::vector<const Tensor*>& input_tensors,
                   const std::vector<ShapeHandle>& input_tensors_as_shapes,
                   ShapeManager* shape_manager = nullptr);
  // Inputs as PartialTensorShapes; each gets its own new dimensions.
  InferenceContext(
      int graph_def_version, const NodeDef& node_def, const OpDef& op_def,
      const std::vector<PartialTensorShape>& input_shapes,
      const std::vector<const Tensor*>& input_tensors,
      const std::vector<PartialTensorShape>& input_tensors_as_shapes = {});
  ~InferenceContext();
  InferenceContext(const InferenceContext&) = delete;
  InferenceContext& operator=(const InferenceContext&) = delete;

  // Runs `fn` on this context. Returns the construction error if any; else
  // fn's error with the node context appended (" for '{{node n}} = Op[..]'
  // with input shapes: [2,3], ?"); else an error for any output fn left
  // unset, for an output of rank > kMaxTensorRank or with more elements
  // than int64 holds, and for bad arguments fn passed to accessors (see
  // input() and Dim()).
  Status Run(const ShapeInferenceFn& fn);

  Status construction_status() const { return construction_status_; }

  // ---- Inputs and outputs ----------------------------------------------
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  // An out-of-range index is a bug in the shape function: it reads as an
  // unknown shape and makes Run() fail.
  ShapeHandle input(int64_t idx) const;
  // The shapes of the inputs of arg `input_name` (a list for `N * T`).
  Status input(absl::string_view input_name,
               std::vector<ShapeHandle>* output) const;
  // Narrows input idx with `shape` (Merge); false if they are incompatible,
  // leaving the input as it was.
  bool MergeInput(int idx, ShapeHandle shape);
  // Widens input idx with `shape` (Relax); true when the input changed.
  bool RelaxInput(int idx, ShapeHandle shape);
  void SetInput(int idx, ShapeHandle shape);

  // The value of input idx when known, else nullptr. Records the request
  // (requested_input_tensor) so a caller can supply it and run again.
  const Tensor* input_tensor(int idx);
  bool requested_input_tensor(int idx) const;
  bool requested_input_tensor_as_partial_shape(int idx) const;
  void set_input_tensors(const std::vector<const Tensor*>& input_tensors);
  void set_input_tensors_as_shapes(
      const std::vector<ShapeHandle>& input_tensors_as_shapes);
  const std::vector<ShapeHandle>& input_tensors_as_shapes() const {
    return input_tensors_as_shapes_;
  }

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // An out-of-range index makes Run() fail.
  void set_output(int idx, ShapeHandle shape);
  Status set_output(absl::string_view output_name,
                    const std::vector<ShapeHandle>& shapes);
  ShapeHandle output(int64_t idx) const;
  Status output(absl::string_view output_name,
                std::vector<ShapeHandle>* output) const;

  // Handle data (the shapes and dtypes behind resource/variant inputs and
  // outputs); nullptr when unknown.
  const std::vector<ShapeAndType>* input_handle_shapes_and_types(int idx);
  void set_input_handle_shapes_and_types(
      int idx, const std::vector<ShapeAndType>& shapes_and_types);
  const std::vector<ShapeAndType>* output_handle_shapes_and_types(int idx);
  void set_output_handle_shapes_and_types(
      int idx, const std::vector<ShapeAndType>& shapes_and_types);

  // ---- The node ----------------------------------------------------------
  const NodeDef& node_def() const { return *node_def_; }
  AttrSlice attrs() const { return AttrSlice(*node_def_); }
  std::string op() const;
  int graph_def_version() const { return graph_def_version_; }

  // Reads attr `attr_name` (through GetNodeAttr). NotFound names the attr
  // and the node when it is absent.
  template <class T>
  Status GetAttr(absl::string_view attr_name, T* value) const {
    return GetNodeAttr(attrs(), attr_name, value);
  }

  // ---- Reading shapes and dimensions -------------------------------------
  static int32_t Rank(ShapeHandle s) {
    return s.IsSet() ? s->rank_ : kUnknownRank;
  }
  static bool RankKnown(ShapeHandle s) { return Rank(s) != kUnknownRank; }
  static int64_t Value(DimensionOrConstant d) {
    return d.dim.IsSet() ? d.dim->value_ : d.val;
  }
  static bool ValueKnown(DimensionOrConstant d) {
    return Value(d) != kUnknownDim;
  }
  // Dimension idx of `s` (negative counts from the end); unknown when the
  // rank is unknown. An index outside a known rank is a shape-function bug:
  // it reads as unknown and makes Run() fail.
  DimensionHandle Dim(ShapeHandle s, int64_t idx);
  // As Dim, for a shape whose rank is known.
  DimensionHandle DimKnownRank(ShapeHandle s, int64_t idx);
  static bool FullyDefined(ShapeHandle s);
  // The product of the dims; unknown if any dim or the rank is unknown. A
  // product past int64 makes Run() fail ("element count overflow").
  DimensionHandle NumElements(ShapeHandle s);

  // "[2,?]", "?" for an unknown rank; "?" or the value for a dimension.
  // Static (they only read the handle), callable as c->DebugString(s).
  static std::string DebugString(ShapeHandle s);
  static std::string DebugString(DimensionHandle d);
  // "InferenceContext for node: <summary>".
  std::string DebugString() const;

  // ---- Checks that narrow --------------------------------------------------
  // `shape` if its rank is `rank`; a new shape of `rank` unknown dims if its
  // rank is unknown; InvalidArgument "Shape must be rank R but is rank E"
  // otherwise (also for rank beyond kMaxTensorRank).
  Status WithRank(ShapeHandle shape, int64_t rank, ShapeHandle* out);
  // `shape` if its rank is >= rank; unknown if unknown; else InvalidArgument.
  Status WithRankAtLeast(ShapeHandle shape, int64_t rank, ShapeHandle* out);
  Status WithRankAtMost(ShapeHandle shape, int64_t rank, ShapeHandle* out);
  // `dim` if its value is `value`; a new dim of `value` if unknown;
  // InvalidArgument "Dimension must be V but is E" otherwise.
  Status WithValue(DimensionHandle dim, int64_t value, DimensionHandle* out);

  // See Note [Merge and Relax] in shape_inference.cc for the exact rules.
  // Merge narrows: an unknown side yields the other handle itself, a side
  // at least as informative everywhere yields that very handle, otherwise a
  // new shape; InvalidArgument when ranks or known dims disagree.
  Status Merge(ShapeHandle s0, ShapeHandle s1, ShapeHandle* out);
  Status Merge(DimensionHandle d0, DimensionHandle d1, DimensionHandle* out);
  // Merges `prefix` with the leading dims of `s`; *s_out is `s` with the
  // merged prefix, *prefix_out the merged prefix.
  Status MergePrefix(ShapeHandle s, ShapeHandle prefix, ShapeHandle* s_out,
                     ShapeHandle* prefix_out);
  // Relax widens: `s_old` when both agree exactly; unknown where they differ
  // or either is unknown. Never fails.
  void Relax(ShapeHandle s_old, ShapeHandle s_new, ShapeHandle* out);
  void Relax(DimensionHandle d_old, DimensionHandle d_new,
             DimensionHandle* out);

  // ---- Building shapes -----------------------------------------------------
  // Dims [start, end) of `s` (negative values count from the end; values
  // past the rank are clamped). `s` itself when that is all of it.
  Status Subshape(ShapeHandle s, int64_t start, ShapeHandle* out);
  Status Subshape(ShapeHandle s, int64_t start, int64_t end, ShapeHandle* out);
  // Every `stride`-th dim from start towards end (stride may be negative,
  // then start/end default as in Python slicing when given as int64 limits).
  Status Subshape(ShapeHandle s, int64_t start, int64_t end, int64_t stride,
                  ShapeHandle* out);
  // s1's dims then s2's, keeping both sets of handles; unknown if either
  // rank is.
  Status Concatenate(ShapeHandle s1, ShapeHandle s2, ShapeHandle* out);
  // `s` with dim `dim_index` (negative from the end) replaced by `new_dim`.
  Status ReplaceDim(ShapeHandle s, int64_t dim_index, DimensionHandle new_dim,
                    ShapeHandle* out);

  ShapeHandle MakeShape(const std::vector<DimensionHandle>& dims);
  ShapeHandle MakeShape(std::initializer_list<DimensionOrConstant> dims);
  ShapeHandle UnknownShape();
  // A shape of `rank` new unknown dims (unknown shape for kUnknownRank).
  // Ranks beyond kMaxTensorRank make Run() fail.
  ShapeHandle UnknownShapeOfRank(int64_t rank);
  ShapeHandle Scalar();
  ShapeHandle Vector(DimensionOrConstant dim);
  ShapeHandle Matrix(DimensionOrConstant dim1, DimensionOrConstant dim2);

  // The shape held by 1-D int32/int64 input `input_idx` (-1 for an unknown
  // dim). From input_tensors_as_shapes when known, else from the tensor;
  // with neither, `[?,...]` sized by the input's length or unknown.
  // InvalidArgument for a non-vector input, values below -1, other dtypes,
  // or more than kMaxTensorRank values.
  Status MakeShapeFromShapeTensor(int input_idx, ShapeHandle* out);
  // As above, but a scalar input is allowed and must be -1: unknown rank.
  Status MakeShapeFromShapeTensorTreatScalarAsUnknownShape(int input_idx,
                                                           ShapeHandle* out);
  // The shape held by tensor `t` (nullptr: unknown values) whose own shape
  // is `tensor_shape`.
  Status MakeShapeFromTensor(const Tensor* t, ShapeHandle tensor_shape,
                             ShapeHandle* out);
  Status MakeShapeFromShapeProto(const TensorShapeProto& proto,
                                 ShapeHandle* out);
  Status MakeShapeFromPartialTensorShape(
      const PartialTensorShape& partial_shape, ShapeHandle* out);
  Status MakeShapeFromTensorShape(const TensorShape& shape, ShapeHandle* out);
  // Reverse direction, for callers that need values: unknown rank/dims
  // become the PartialTensorShape's unknowns.
  static PartialTensorShape AsPartialTensorShape(ShapeHandle s);

  // `d` itself when set, else a new dim of the constant.
  DimensionHandle MakeDim(DimensionOrConstant d);
  DimensionHandle UnknownDim();

  // The value of scalar int32/int64 tensor `t` (non-null).
  Status GetScalarFromTensor(const Tensor* t, int64_t* val);
  // Element idx of 1-D int32/int64 tensor `t`.
  Status GetScalarFromTensor(const Tensor* t, int64_t idx, int64_t* val);
  // A dim from scalar input idx: unknown when its value is unknown;
  // InvalidArgument when negative.
  Status MakeDimForScalarInput(int idx, DimensionHandle* out);
  // A dim from scalar input idx read as an axis of a tensor of rank
  // `input_rank` (negative counts from the end; unknown rank keeps negative
  // values unknown).
  Status MakeDimForScalarInputWithNegativeIndexing(int idx, int input_rank,
                                                   DimensionHandle* out);

  // ---- Dimension arithmetic
  // -------------------------------------------------- Each returns an existing
  // handle where the result is one of the operands (x+0, x*1, x-0, x/1,
  // min/max), unknown when an operand is unknown (save the identities above),
  // and InvalidArgument on overflow or a negative result.
  Status Add(DimensionHandle first, DimensionOrConstant second,
             DimensionHandle* out);
  Status Subtract(DimensionHandle first, DimensionOrConstant second,
                  DimensionHandle* out);
  Status Multiply(DimensionHandle first, DimensionOrConstant second,
                  DimensionHandle* out);
  // InvalidArgument for a divisor <= 0 and, when `evenly_divisible`, for a
  // known dividend the divisor does not divide.
  Status Divide(DimensionHandle dividend, DimensionOrConstant divisor,
                bool evenly_divisible, DimensionHandle* out);
  Status Min(DimensionHandle first, DimensionOrConstant second,
             DimensionHandle* out);
  Status Max(DimensionHandle first, DimensionOrConstant second,
             DimensionHandle* out);

  // Adds the node context to `status` as Run() does.
  Status AttachContext(const Status& status);

  ShapeManager* shape_manager() { return manager_; }

 private:
  void Init(const OpDef& op_def, const std::vector<const Tensor*>& tensors);
  void CheckInputCount();
  Status ReturnUnknownShape(ShapeHandle* out) {
    *out = UnknownShape();
    return OkStatus();
  }
  Status ReturnCreatedShape(absl::Span<const DimensionHandle> dims,
                            ShapeHandle* out);
  Status MakeShapeFromShapeTensorImpl(int input_idx, bool treat_scalar,
                                      ShapeHandle* out);
  Status InternalMakeShapeFromTensor(bool treat_scalar, const Tensor* t,
                                     ShapeHandle tensor_shape,
                                     ShapeHandle* out);
  // Records a shape-function bug (bad index) for Run() to report.
  void SetDeferredError(Status s);
  // InvalidArgument tagged with the index of the input `s` is, if any.
  Status ShapeError(ShapeHandle s, std::string message) const;
  Status InputError(int input_idx, Status s) const;

  const int graph_def_version_;
  const NodeDef* const node_def_;
  std::unique_ptr<ShapeManager> owned_manager_;
  ShapeManager* manager_;

  std::vector<ShapeHandle> inputs_;
  std::vector<const Tensor*> input_tensors_;
  std::vector<bool> requested_input_tensor_;
  std::vector<bool> requested_input_tensor_as_partial_shape_;
  std::vector<ShapeHandle> input_tensors_as_shapes_;
  std::vector<ShapeHandle> outputs_;
  std::vector<std::unique_ptr<std::vector<ShapeAndType>>>
      input_handle_shapes_and_types_;
  std::vector<std::unique_ptr<std::vector<ShapeAndType>>>
      output_handle_shapes_and_types_;
  NameRangeMap input_name_map_;
  NameRangeMap output_name_map_;
  Status construction_status_;
  Status deferred_error_;
};

}  // namespace shape_inference
}  // namespace minflow
