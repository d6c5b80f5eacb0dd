// InferenceContext, continued: shapes from tensor values and protos,
// dimensions from scalar inputs, and dimension arithmetic (kept apart from
// shape_inference.cc, which holds the context's core and Merge/Relax).
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/shape_inference.h"
#include "minflow/tensor_shape.pb.h"

namespace minflow {
namespace shape_inference {

// ---------------------------------------------------------------------------
// Shapes from tensors and protos

Status InferenceContext::MakeShapeFromShapeTensor(int input_idx,
                                                  ShapeHandle* out) {
  return MakeShapeFromShapeTensorImpl(input_idx, /*treat_scalar=*/false, out);
}

Status InferenceContext::MakeShapeFromShapeTensorTreatScalarAsUnknownShape(
    int input_idx, ShapeHandle* out) {
  return MakeShapeFromShapeTensorImpl(input_idx, /*treat_scalar=*/true, out);
}

Status InferenceContext::MakeShapeFromShapeTensorImpl(int input_idx,
                                                      bool treat_scalar,
                                                      ShapeHandle* out) {
  *out = ShapeHandle();
  if (input_idx < 0 || input_idx >= num_inputs()) {
    return errors::Internal("Shape function of op '", op(),
                            "' asked for shape tensor ", input_idx, " of ",
                            num_inputs());
  }
  ShapeHandle input_shape;
  if (treat_scalar) {
    MF_RETURN_IF_ERROR(WithRankAtMost(input(input_idx), 1, &input_shape));
  } else {
    MF_RETURN_IF_ERROR(WithRank(input(input_idx), 1, &input_shape));
  }
  requested_input_tensor_as_partial_shape_[input_idx] = true;
  const ShapeHandle as_shape = input_tensors_as_shapes_[input_idx];
  if (as_shape.IsSet() && RankKnown(as_shape)) {
    *out = as_shape;
    return OkStatus();
  }
  return InputError(
      input_idx, InternalMakeShapeFromTensor(
                     treat_scalar, input_tensor(input_idx), input_shape, out));
}

Status InferenceContext::MakeShapeFromTensor(const Tensor* t,
                                             ShapeHandle tensor_shape,
                                             ShapeHandle* out) {
  return InternalMakeShapeFromTensor(/*treat_scalar=*/false, t, tensor_shape,
                                     out);
}

namespace {

template <typename T>
Status DimsFromShapeTensor(const Tensor& t, InferenceContext* c,
                           std::vector<DimensionHandle>* dims) {
  auto flat = t.flat<T>();
  dims->reserve(flat.size());
  for (int64_t i = 0; i < flat.size(); ++i) {
    const int64_t v = flat(i);
    if (v < -1) {
      return errors::InvalidArgument("Invalid value in tensor used for shape: ",
                                     v);
    }
    dims->push_back(c->MakeDim(v));
  }
  return OkStatus();
}

}  // namespace

Status InferenceContext::InternalMakeShapeFromTensor(bool treat_scalar,
                                                     const Tensor* t,
                                                     ShapeHandle tensor_shape,
                                                     ShapeHandle* out) {
  *out = ShapeHandle();
  if (!treat_scalar) {
    MF_RETURN_IF_ERROR(WithRank(tensor_shape, 1, &tensor_shape));
  }
  if (t == nullptr) {
    if (Rank(tensor_shape) == 0) return ReturnUnknownShape(out);
    const DimensionHandle shape_dim = Dim(tensor_shape, 0);
    if (!ValueKnown(shape_dim)) return ReturnUnknownShape(out);
    const int64_t num_dims = Value(shape_dim);
    if (num_dims > kMaxTensorRank) {
      return errors::InvalidArgument(
          "Shape tensor has ", num_dims,
          " elements, more than the maximum rank of ", kMaxTensorRank);
    }
    std::vector<DimensionHandle> dims(num_dims);
    for (auto& d : dims) d = UnknownDim();
    return ReturnCreatedShape(dims, out);
  }
  if (t->dtype() != DT_INT32 && t->dtype() != DT_INT64) {
    return errors::InvalidArgument(
        "Input tensor must be int32 or int64, but was ",
        DataTypeString(t->dtype()));
  }
  if (t->dims() == 0) {
    const int64_t v = t->dtype() == DT_INT32 ? t->scalar<int32_t>()()
                                             : t->scalar<int64_t>()();
    if (treat_scalar && v == -1) return ReturnUnknownShape(out);
    if (treat_scalar) {
      return errors::InvalidArgument(
          "Input tensor must be rank 1, or if its rank 0 it must have value -1 "
          "(representing an unknown shape).  Saw value: ",
          v);
    }
  }
  if (t->dims() != 1) {
    return errors::InvalidArgument("Input tensor must be rank 1, but was rank ",
                                   t->dims(), ". Saw tensor shape ",
                                   t->shape().DebugString());
  }
  if (t->NumElements() > kMaxTensorRank) {
    return errors::InvalidArgument("Shape tensor has ", t->NumElements(),
                                   " elements, more than the maximum rank of ",
                                   kMaxTensorRank);
  }
  std::vector<DimensionHandle> dims;
  if (t->dtype() == DT_INT32) {
    MF_RETURN_IF_ERROR(DimsFromShapeTensor<int32_t>(*t, this, &dims));
  } else {
    MF_RETURN_IF_ERROR(DimsFromShapeTensor<int64_t>(*t, this, &dims));
  }
  return ReturnCreatedShape(dims, out);
}

Status InferenceContext::MakeShapeFromShapeProto(const TensorShapeProto& proto,
                                                 ShapeHandle* out) {
  *out = ShapeHandle();
  PartialTensorShape partial;
  MF_RETURN_IF_ERROR(
      PartialTensorShape::BuildPartialTensorShape(proto, &partial));
  return MakeShapeFromPartialTensorShape(partial, out);
}

Status InferenceContext::MakeShapeFromPartialTensorShape(
    const PartialTensorShape& partial_shape, ShapeHandle* out) {
  *out = ShapeHandle();
  if (partial_shape.unknown_rank()) return ReturnUnknownShape(out);
  const int rank = partial_shape.dims();
  absl::InlinedVector<DimensionHandle, 4> dims(rank);
  for (int i = 0; i < rank; ++i) {
    dims[i] = manager_->MakeDim(partial_shape.dim_size(i));
  }
  return ReturnCreatedShape(dims, out);
}

Status InferenceContext::MakeShapeFromTensorShape(const TensorShape& shape,
                                                  ShapeHandle* out) {
  return MakeShapeFromPartialTensorShape(PartialTensorShape(shape), out);
}

PartialTensorShape InferenceContext::AsPartialTensorShape(ShapeHandle s) {
  if (!RankKnown(s)) return PartialTensorShape();
  absl::InlinedVector<int64_t, 4> dims;
  for (const DimensionHandle& d : s->dims_) dims.push_back(Value(d));
  PartialTensorShape result;
  // Values are >= -1 and the rank within limits by construction.
  MF_CHECK_OK(PartialTensorShape::BuildPartialTensorShape(dims, &result));
  return result;
}

// ---------------------------------------------------------------------------
// Scalars from tensors

Status InferenceContext::GetScalarFromTensor(const Tensor* t, int64_t* val) {
  if (t->dims() != 0) {
    return errors::InvalidArgument("Input must be scalar but has rank ",
                                   t->dims());
  }
  if (t->dtype() == DT_INT32) {
    *val = t->scalar<int32_t>()();
  } else if (t->dtype() == DT_INT64) {
    *val = t->scalar<int64_t>()();
  } else if (t->dtype() == DT_INT16) {
    *val = t->scalar<int16_t>()();
  } else {
    return errors::InvalidArgument(
        "Scalar input for dim size must be int32 or int64");
  }
  return OkStatus();
}

Status InferenceContext::GetScalarFromTensor(const Tensor* t, int64_t idx,
                                             int64_t* val) {
  if (t->dims() != 1) {
    return errors::InvalidArgument("Input must be 1D but has rank ", t->dims());
  }
  if (idx < 0 || idx >= t->NumElements()) {
    return errors::InvalidArgument("Index ", idx, " out of range for ",
                                   t->NumElements(), " elements");
  }
  if (t->dtype() == DT_INT32) {
    *val = t->flat<int32_t>()(idx);
  } else if (t->dtype() == DT_INT64) {
    *val = t->flat<int64_t>()(idx);
  } else {
    return errors::InvalidArgument("Tensor input must be int32 or int64.");
  }
  return OkStatus();
}

Status InferenceContext::MakeDimForScalarInput(int idx, DimensionHandle* out) {
  const Tensor* t = input_tensor(idx);
  if (t == nullptr) {
    *out = UnknownDim();
    return OkStatus();
  }
  int64_t val;
  MF_RETURN_IF_ERROR(InputError(idx, GetScalarFromTensor(t, &val)));
  if (val < 0) {
    return InputError(idx, errors::InvalidArgument(
                               "Dimension size, given by scalar input ", idx,
                               ", must be non-negative but is ", val));
  }
  *out = MakeDim(val);
  return OkStatus();
}

Status InferenceContext::MakeDimForScalarInputWithNegativeIndexing(
    int idx, int input_rank, DimensionHandle* out) {
  const Tensor* t = input_tensor(idx);
  if (t == nullptr) {
    *out = UnknownDim();
    return OkStatus();
  }
  int64_t val;
  MF_RETURN_IF_ERROR(InputError(idx, GetScalarFromTensor(t, &val)));
  const bool out_of_range =
      input_rank >= 0 && (val >= input_rank || val < -int64_t{input_rank});
  if (out_of_range) {
    return InputError(
        idx, errors::InvalidArgument("Dimension size, given by scalar input ",
                                     val, " must be in range [-", input_rank,
                                     ", ", input_rank, ")"));
  }
  if (val < 0) {
    if (input_rank < 0) {
      *out = UnknownDim();
      return OkStatus();
    }
    val += input_rank;
  }
  *out = MakeDim(val);
  return OkStatus();
}

// ---------------------------------------------------------------------------
// Dimension arithmetic

namespace {

Status CheckConstant(DimensionOrConstant d) {
  if (!d.dim.IsSet() && d.val < InferenceContext::kUnknownDim) {
    return errors::InvalidArgument(
        "Dimension size must be non-negative, but "
        "got ",
        d.val);
  }
  return OkStatus();
}

}  // namespace

Status InferenceContext::Add(DimensionHandle first, DimensionOrConstant second,
                             DimensionHandle* out) {
  MF_RETURN_IF_ERROR(CheckConstant(second));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (a == 0) {
    *out = MakeDim(second);
  } else if (b == 0) {
    *out = first;
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    int64_t sum;
    if (__builtin_add_overflow(a, b, &sum)) {
      return errors::InvalidArgument("Dimension size overflow from adding ", a,
                                     " and ", b);
    }
    *out = MakeDim(sum);
  }
  return OkStatus();
}

Status InferenceContext::Subtract(DimensionHandle first,
                                  DimensionOrConstant second,
                                  DimensionHandle* out) {
  MF_RETURN_IF_ERROR(CheckConstant(second));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (b == 0) {
    *out = first;
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    if (a < b) {
      return errors::InvalidArgument(
          "Negative dimension size caused by subtracting ", b, " from ", a);
    }
    *out = MakeDim(a - b);
  }
  return OkStatus();
}

Status InferenceContext::Multiply(DimensionHandle first,
                                  DimensionOrConstant second,
                                  DimensionHandle* out) {
  MF_RETURN_IF_ERROR(CheckConstant(second));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (a == 0) {
    *out = first;
  } else if (b == 0) {
    *out = MakeDim(second);
  } else if (a == 1) {
    *out = MakeDim(second);
  } else if (b == 1) {
    *out = first;
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    int64_t product;
    if (__builtin_mul_overflow(a, b, &product)) {
      return errors::InvalidArgument(
          "Negative dimension size caused by overflow when multiplying ", a,
          " and ", b);
    }
    *out = MakeDim(product);
  }
  return OkStatus();
}

Status InferenceContext::Divide(DimensionHandle dividend,
                                DimensionOrConstant divisor,
                                bool evenly_divisible, DimensionHandle* out) {
  const int64_t divisor_value = Value(divisor);
  if (divisor_value == 1) {
    *out = dividend;
  } else if (!ValueKnown(dividend) ||
             (divisor.dim.IsSet() && !ValueKnown(divisor.dim))) {
    *out = UnknownDim();
  } else {
    const int64_t v = Value(dividend);
    if (divisor_value <= 0) {
      return errors::InvalidArgument("Divisor must be positive but is ",
                                     divisor_value);
    }
    if (evenly_divisible && v % divisor_value != 0) {
      return errors::InvalidArgument(
          "Dimension size must be evenly divisible by ", divisor_value,
          " but is ", v);
    }
    *out = MakeDim(v / divisor_value);
  }
  return OkStatus();
}

Status InferenceContext::Min(DimensionHandle first, DimensionOrConstant second,
                             DimensionHandle* out) {
  MF_RETURN_IF_ERROR(CheckConstant(second));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (a == 0) {
    *out = first;
  } else if (b == 0) {
    *out = MakeDim(second);
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    *out = a <= b ? first : MakeDim(second);
  }
  return OkStatus();
}

Status InferenceContext::Max(DimensionHandle first, DimensionOrConstant second,
                             DimensionHandle* out) {
  MF_RETURN_IF_ERROR(CheckConstant(second));
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    *out = a >= b ? first : MakeDim(second);
  }
  return OkStatus();
}

}  // namespace shape_inference
}  // namespace minflow
