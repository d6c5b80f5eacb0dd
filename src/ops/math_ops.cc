// Math ops: element-wise unary and binary (broadcasting) arithmetic,
// comparisons and logic, Select, AddN, Cast, MatMul, BatchMatMul
// (V1-V3), Einsum, reductions, ArgMax/ArgMin, Range and LinSpace, segment
// reductions, Bucketize, ClipByValue and L2Loss (an nn op in TensorFlow, kept
// with the reductions here). Interfaces match TensorFlow's.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/einsum_spec.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

Status ArgOpShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  const ShapeHandle input = c->input(0);
  if (!c->RankKnown(input)) return shape_inference::UnknownShape(c);
  const int32_t rank = c->Rank(input);
  // A scalar or a vector reduces to a scalar whatever the axis.
  if (rank <= 1) return shape_inference::ScalarShape(c);
  const Tensor* dim_t = c->input_tensor(1);
  if (dim_t == nullptr) {
    c->set_output(0, c->UnknownShapeOfRank(rank - 1));
    return OkStatus();
  }
  int64_t dimension;
  MF_RETURN_IF_ERROR(c->GetScalarFromTensor(dim_t, &dimension));
  const int64_t axis = dimension < 0 ? dimension + rank : dimension;
  if (axis < 0 || axis >= rank) {
    return errors::InvalidArgument(
        "Dimension (", dimension, ") must be in the range [", -rank, ", ", rank,
        "), where ", rank, " is the number of dimensions in the input.");
  }
  std::vector<DimensionHandle> dims;
  for (int i = 0; i < rank; ++i) {
    if (i != axis) dims.push_back(c->Dim(input, i));
  }
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

// The length of Range(start, limit, delta), checked as TensorFlow's kernel
// does; integer arithmetic is done in 128 bits so no input overflows.
Status RangeLength(const Tensor& start_t, const Tensor& limit_t,
                   const Tensor& delta_t, int64_t* length) {
  if (start_t.dtype() != limit_t.dtype() ||
      start_t.dtype() != delta_t.dtype()) {
    return errors::InvalidArgument(
        "Range start, limit and delta must have "
        "one dtype");
  }
  for (const Tensor* t : {&start_t, &limit_t, &delta_t}) {
    if (t->NumElements() != 1) {
      return errors::InvalidArgument(
          "Range start, limit and delta must be "
          "scalars, but got shape ",
          t->shape().DebugString());
    }
  }
  const DataType dtype = start_t.dtype();
  if (DataTypeIsInteger(dtype)) {
    __int128 vals[3];
    const Tensor* ts[3] = {&start_t, &limit_t, &delta_t};
    for (int i = 0; i < 3; ++i) {
      if (dtype == DT_UINT64) {
        vals[i] = ts[i]->scalar<uint64_t>()();
        continue;
      }
      switch (dtype) {
        case DT_INT8:
          vals[i] = ts[i]->scalar<int8_t>()();
          break;
        case DT_INT16:
          vals[i] = ts[i]->scalar<int16_t>()();
          break;
        case DT_INT32:
          vals[i] = ts[i]->scalar<int32_t>()();
          break;
        case DT_INT64:
          vals[i] = ts[i]->scalar<int64_t>()();
          break;
        case DT_UINT8:
          vals[i] = ts[i]->scalar<uint8_t>()();
          break;
        case DT_UINT16:
          vals[i] = ts[i]->scalar<uint16_t>()();
          break;
        case DT_UINT32:
          vals[i] = ts[i]->scalar<uint32_t>()();
          break;
        default:
          return errors::InvalidArgument("Unsupported Range dtype ",
                                         DataTypeString(dtype));
      }
    }
    const __int128 start = vals[0], limit = vals[1], delta = vals[2];
    if (start > limit && delta > 0) {
      return errors::InvalidArgument("Requires start <= limit when delta > 0: ",
                                     static_cast<int64_t>(start), "/",
                                     static_cast<int64_t>(limit));
    }
    if (start < limit && delta < 0) {
      return errors::InvalidArgument("Requires start >= limit when delta < 0: ",
                                     static_cast<int64_t>(start), "/",
                                     static_cast<int64_t>(limit));
    }
    if (delta == 0) return errors::InvalidArgument("Requires delta != 0");
    const __int128 span = limit > start ? limit - start : start - limit;
    const __int128 step = delta > 0 ? delta : -delta;
    const __int128 n = (span + step - 1) / step;
    if (n > std::numeric_limits<int64_t>::max()) {
      return errors::InvalidArgument("Requires ((limit - start) / delta) <= ",
                                     std::numeric_limits<int64_t>::max());
    }
    *length = static_cast<int64_t>(n);
    return OkStatus();
  }
  double vals[3];
  const Tensor* ts[3] = {&start_t, &limit_t, &delta_t};
  for (int i = 0; i < 3; ++i) {
    switch (dtype) {
      case DT_FLOAT:
        vals[i] = ts[i]->scalar<float>()();
        break;
      case DT_DOUBLE:
        vals[i] = ts[i]->scalar<double>()();
        break;
      case DT_HALF:
        vals[i] = static_cast<float>(ts[i]->scalar<half>()());
        break;
      case DT_BFLOAT16:
        vals[i] = static_cast<float>(ts[i]->scalar<bfloat16>()());
        break;
      default:
        return errors::InvalidArgument("Unsupported Range dtype ",
                                       DataTypeString(dtype));
    }
  }
  const double start = vals[0], limit = vals[1], delta = vals[2];
  if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) {
    return errors::InvalidArgument("Requires finite start, limit and delta");
  }
  if (start > limit && delta > 0) {
    return errors::InvalidArgument(
        "Requires start <= limit when delta > 0: ", start, "/", limit);
  }
  if (start < limit && delta < 0) {
    return errors::InvalidArgument(
        "Requires start >= limit when delta < 0: ", start, "/", limit);
  }
  if (delta == 0) return errors::InvalidArgument("Requires delta != 0");
  const double n = std::ceil(std::abs((limit - start) / delta));
  if (!(n < 9.2e18)) {
    return errors::InvalidArgument("Requires ((limit - start) / delta) <= ",
                                   std::numeric_limits<int64_t>::max());
  }
  *length = static_cast<int64_t>(n);
  return OkStatus();
}

Status RangeShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(shape_inference::AppendErrorContext(
      c->WithRank(c->input(0), 0, &unused), " for 'start'"));
  MF_RETURN_IF_ERROR(shape_inference::AppendErrorContext(
      c->WithRank(c->input(1), 0, &unused), " for 'limit'"));
  MF_RETURN_IF_ERROR(shape_inference::AppendErrorContext(
      c->WithRank(c->input(2), 0, &unused), " for 'delta'"));
  const Tensor* start = c->input_tensor(0);
  const Tensor* limit = c->input_tensor(1);
  const Tensor* delta = c->input_tensor(2);
  if (start == nullptr || limit == nullptr || delta == nullptr) {
    c->set_output(0, c->Vector(InferenceContext::kUnknownDim));
    return OkStatus();
  }
  int64_t length;
  MF_RETURN_IF_ERROR(RangeLength(*start, *limit, *delta, &length));
  c->set_output(0, c->Vector(length));
  return OkStatus();
}

Status SelectShape(InferenceContext* c) {
  // `t` and `e` have one shape; `cond` is a scalar, that shape, or a vector
  // over its first dimension.
  ShapeHandle data = c->input(1);
  MF_RETURN_IF_ERROR(c->Merge(data, c->input(2), &data));
  ShapeHandle cond = c->input(0);
  if (!c->RankKnown(cond) || !c->RankKnown(data)) {
    c->set_output(0, data);
    return OkStatus();
  }
  const int32_t cond_rank = c->Rank(cond);
  const int32_t data_rank = c->Rank(data);
  if (cond_rank == 0) {
    c->set_output(0, data);
    return OkStatus();
  }
  if (cond_rank != 1 || data_rank == 0) {
    MF_RETURN_IF_ERROR(c->Merge(data, cond, &data));
    c->set_output(0, data);
    return OkStatus();
  }
  MF_RETURN_IF_ERROR(c->Merge(cond, c->Vector(c->Dim(data, 0)), &cond));
  c->set_output(0, data);
  return OkStatus();
}

Status SelectV2Shape(InferenceContext* c) {
  ShapeHandle then_else;
  MF_RETURN_IF_ERROR(shape_inference::BroadcastBinaryOpOutputShapeFnHelper(
      c, c->input(1), c->input(2), true, &then_else));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(shape_inference::BroadcastBinaryOpOutputShapeFnHelper(
      c, c->input(0), then_else, true, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status AddNShape(InferenceContext* c) {
  ShapeHandle cur = c->input(c->num_inputs() - 1);
  for (int i = c->num_inputs() - 2; i >= 0; --i) {
    MF_RETURN_IF_ERROR(shape_inference::AppendErrorContext(
        c->Merge(c->input(i), cur, &cur),
        absl::StrCat("From merging shape ", i, " with other shapes.")));
  }
  c->set_output(0, cur);
  return OkStatus();
}

Status LinSpaceShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(shape_inference::AppendErrorContext(
      c->WithRank(c->input(0), 0, &unused), " for 'start'"));
  MF_RETURN_IF_ERROR(shape_inference::AppendErrorContext(
      c->WithRank(c->input(1), 0, &unused), " for 'stop'"));
  MF_RETURN_IF_ERROR(shape_inference::AppendErrorContext(
      c->WithRank(c->input(2), 0, &unused), " for 'num'"));
  const Tensor* num_t = c->input_tensor(2);
  if (num_t == nullptr) {
    c->set_output(0, c->Vector(InferenceContext::kUnknownDim));
    return OkStatus();
  }
  int64_t num;
  MF_RETURN_IF_ERROR(c->GetScalarFromTensor(num_t, &num));
  if (num <= 0) return errors::InvalidArgument("Requires num > 0: ", num);
  c->set_output(0, c->Vector(num));
  return OkStatus();
}

// [?] + data.shape[1:]: the number of segments is the last id + 1, a value
// shape inference does not see.
Status SegmentReductionShape(InferenceContext* c) {
  ShapeHandle data;
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &data));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &unused));
  ShapeHandle suffix;
  MF_RETURN_IF_ERROR(c->Subshape(data, 1, &suffix));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(
      c->Concatenate(c->Vector(InferenceContext::kUnknownDim), suffix, &out));
  c->set_output(0, out);
  return OkStatus();
}

// [num_segments] + data.shape[rank(segment_ids):], where data's shape starts
// with segment_ids' shape.
Status UnsortedSegmentReductionShape(InferenceContext* c) {
  ShapeHandle data = c->input(0);
  ShapeHandle segment_ids = c->input(1);
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  if (!c->RankKnown(segment_ids)) {
    c->set_output(0, c->UnknownShape());
    return OkStatus();
  }
  MF_RETURN_IF_ERROR(c->MergePrefix(data, segment_ids, &data, &segment_ids));
  DimensionHandle num_segments;
  MF_RETURN_IF_ERROR(c->MakeDimForScalarInput(2, &num_segments));
  ShapeHandle suffix;
  MF_RETURN_IF_ERROR(c->Subshape(data, c->Rank(segment_ids), &suffix));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->Concatenate(c->Vector(num_segments), suffix, &out));
  c->set_output(0, out);
  return OkStatus();
}

}  // namespace

// ---- Unary ------------------------------------------------------------------

#define MF_UNARY_OP(name, types, doc)              \
  REGISTER_OP(name)                                \
      .Input("x: T")                               \
      .Output("y: T")                              \
      .Attr("T: {" types "}")                      \
      .SetShapeFn(shape_inference::UnchangedShape) \
      .Doc(doc)

#define MF_UNARY_REAL_TYPES "bfloat16, half, float, double"
#define MF_UNARY_COMPLEX_TYPES \
  "bfloat16, half, float, double, complex64, complex128"
#define MF_UNARY_SIGNED_TYPES                                             \
  "bfloat16, half, float, double, int8, int16, int32, int64, complex64, " \
  "complex128"

MF_UNARY_OP("Neg", MF_UNARY_SIGNED_TYPES, "Negates each element of x: y = -x.");
MF_UNARY_OP("Abs", "bfloat16, half, float, double, int8, int16, int32, int64",
            "Absolute value of each element of x.\n\nOn integers the most "
            "negative value stays itself, as in two's complement.");
MF_UNARY_OP("Sign", MF_UNARY_SIGNED_TYPES,
            "-1, 0 or 1 by the sign of each element of x.\n\nFor complex x "
            "TensorFlow gives x / |x|; minflow's CPU kernel takes real types "
            "only.");
MF_UNARY_OP(
    "Square",
    "bfloat16, half, float, double, int8, int16, int32, int64, uint8, "
    "uint16, uint32, uint64, complex64, complex128",
    "Squares each element of x: y = x * x.\n\nIntegers wrap on overflow.");
MF_UNARY_OP(
    "Sqrt", MF_UNARY_COMPLEX_TYPES,
    "Square root of each element of x.\n\nNegative real inputs give NaN.");
MF_UNARY_OP(
    "Rsqrt", MF_UNARY_COMPLEX_TYPES,
    "Reciprocal of the square root of each element of x: y = 1 / sqrt(x).");
MF_UNARY_OP("Exp", MF_UNARY_COMPLEX_TYPES,
            "Natural exponential of each element of x: y = e^x.");
MF_UNARY_OP("Log", MF_UNARY_COMPLEX_TYPES,
            "Natural logarithm of each element of x.\n\n0 gives -inf; negative "
            "real inputs give NaN.");
MF_UNARY_OP("Log1p", MF_UNARY_COMPLEX_TYPES,
            "log(1 + x) for each element, accurate where x is near 0.");
MF_UNARY_OP("Tanh", MF_UNARY_COMPLEX_TYPES,
            "Hyperbolic tangent of each element of x.");
MF_UNARY_OP("Sigmoid", MF_UNARY_COMPLEX_TYPES,
            "Logistic function of each element of x: y = 1 / (1 + exp(-x)).");
// The gradients of Tanh and Sigmoid, written in terms of the forward
// output y as TensorFlow's are (cheaper than recomputing from x).
REGISTER_OP("TanhGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr("T: {" MF_UNARY_COMPLEX_TYPES "}")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn)
    .Doc(R"doc(
The gradient of Tanh from its output: z = dy * (1 - y * y).

y: Tanh's output.
dy: The gradient flowing into y; the same shape as y.
)doc");
REGISTER_OP("SigmoidGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr("T: {" MF_UNARY_COMPLEX_TYPES "}")
    .SetShapeFn(shape_inference::MergeBothInputsShapeFn)
    .Doc(R"doc(
The gradient of Sigmoid from its output: z = dy * y * (1 - y).

y: Sigmoid's output.
dy: The gradient flowing into y; the same shape as y.
)doc");
// The gradients of Sqrt, Rsqrt and Reciprocal, from the forward output y
// as TensorFlow writes them (the backward graph then needs no x).
#define MF_UNARY_GRAD_OP(name, doc)                             \
  REGISTER_OP(name)                                             \
      .Input("y: T")                                            \
      .Input("dy: T")                                           \
      .Output("z: T")                                           \
      .Attr("T: {" MF_UNARY_COMPLEX_TYPES "}")                  \
      .SetShapeFn(shape_inference::MergeBothInputsShapeFn)      \
      .Doc(doc                                                  \
           "\n\ny: The forward op's output.\ndy: The gradient " \
           "flowing into y; the same shape as y.")
MF_UNARY_GRAD_OP("SqrtGrad",
                 "The gradient of Sqrt from its output: z = dy * 0.5 / y.");
MF_UNARY_GRAD_OP("RsqrtGrad",
                 "The gradient of Rsqrt from its output: z = dy * -0.5 * y^3.");
MF_UNARY_GRAD_OP(
    "ReciprocalGrad",
    "The gradient of Reciprocal from its output: z = -dy * y * y.");
#undef MF_UNARY_GRAD_OP
MF_UNARY_OP("Sin", MF_UNARY_COMPLEX_TYPES,
            "Sine of each element of x, in radians.");
MF_UNARY_OP("Cos", MF_UNARY_COMPLEX_TYPES,
            "Cosine of each element of x, in radians.");
MF_UNARY_OP(
    "Atan", MF_UNARY_COMPLEX_TYPES,
    "Inverse tangent of each element of x, in radians within [-pi/2, pi/2].");
MF_UNARY_OP("Tan", MF_UNARY_COMPLEX_TYPES,
            "Tangent of each element of x, in radians.");
MF_UNARY_OP("Asin", MF_UNARY_COMPLEX_TYPES,
            "Inverse sine of each element of x, in radians within [-pi/2, "
            "pi/2].\n\nReal inputs outside [-1, 1] give NaN.");
MF_UNARY_OP("Acos", MF_UNARY_COMPLEX_TYPES,
            "Inverse cosine of each element of x, in radians within [0, "
            "pi].\n\nReal inputs outside [-1, 1] give NaN.");
MF_UNARY_OP("Sinh", MF_UNARY_COMPLEX_TYPES,
            "Hyperbolic sine of each element of x.");
MF_UNARY_OP("Cosh", MF_UNARY_COMPLEX_TYPES,
            "Hyperbolic cosine of each element of x.");
MF_UNARY_OP("Asinh", MF_UNARY_COMPLEX_TYPES,
            "Inverse hyperbolic sine of each element of x.");
MF_UNARY_OP("Acosh", MF_UNARY_COMPLEX_TYPES,
            "Inverse hyperbolic cosine of each element of x.\n\nReal inputs "
            "below 1 give NaN.");
MF_UNARY_OP("Atanh", MF_UNARY_COMPLEX_TYPES,
            "Inverse hyperbolic tangent of each element of x.\n\nReal inputs "
            "outside [-1, 1] give NaN; -1 and 1 give -inf and inf.");
MF_UNARY_OP("Expm1", MF_UNARY_COMPLEX_TYPES,
            "exp(x) - 1 for each element, accurate where x is near 0.");
MF_UNARY_OP("Erf", MF_UNARY_REAL_TYPES,
            "Gauss error function of each element of x.");
MF_UNARY_OP("Erfc", MF_UNARY_REAL_TYPES,
            "Complementary error function of each element of x: 1 - erf(x).");
MF_UNARY_OP("Rint", MF_UNARY_REAL_TYPES,
            "Rounds each element of x to the nearest integer, ties to even.");
MF_UNARY_OP("Floor", MF_UNARY_REAL_TYPES,
            "Rounds each element of x down to an integer.");
MF_UNARY_OP("Ceil", MF_UNARY_REAL_TYPES,
            "Rounds each element of x up to an integer.");
MF_UNARY_OP("Round", MF_UNARY_SIGNED_TYPES,
            "Rounds each element of x to the nearest integer, ties to "
            "even.\n\nIntegers pass through unchanged.");
MF_UNARY_OP("Reciprocal", MF_UNARY_SIGNED_TYPES,
            "1 / x for each element of x.\n\nminflow's CPU kernel takes "
            "floating types only.");

#undef MF_UNARY_OP
#undef MF_UNARY_REAL_TYPES
#undef MF_UNARY_COMPLEX_TYPES
#undef MF_UNARY_SIGNED_TYPES

// Floating-point classification: bool output.
#define MF_CLASSIFY_OP(name, doc)                  \
  REGISTER_OP(name)                                \
      .Input("x: T")                               \
      .Output("y: bool")                           \
      .Attr("T: {bfloat16, half, float, double}")  \
      .SetShapeFn(shape_inference::UnchangedShape) \
      .Doc(doc)

MF_CLASSIFY_OP("IsNan", "True where an element of x is NaN.");
MF_CLASSIFY_OP("IsInf", "True where an element of x is +inf or -inf.");
MF_CLASSIFY_OP("IsFinite",
               "True where an element of x is neither NaN nor infinite.");
#undef MF_CLASSIFY_OP

REGISTER_OP("LogicalNot")
    .Input("x: bool")
    .Output("y: bool")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("Boolean negation of each element of x.");

REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr("SrcT: type")
    .Attr("DstT: type")
    .Attr("Truncate: bool = false")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Converts each element of x from type SrcT to type DstT.

Floating to integer rounds toward zero and saturates: NaN becomes 0 and
values out of range become the type's min or max (TensorFlow's result there
depends on the CPU). Integer to integer keeps the low bits. A number becomes
bool true where it is not zero. The CPU kernel casts between bool and the
real number types.

Truncate: When narrowing a floating type, drop the extra mantissa bits
  instead of rounding to nearest.
)doc");

// ---- Binary, with numpy broadcasting ---------------------------------------

// Each binary op's doc states the numpy broadcasting of x and y, so that
// the generated wrappers and docstrings say it where users read.
#define MF_BINARY_OP(name, types, doc)                       \
  REGISTER_OP(name)                                          \
      .Input("x: T")                                         \
      .Input("y: T")                                         \
      .Output("z: T")                                        \
      .Attr("T: {" types "}")                                \
      .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn) \
      .Doc(doc)

#define MF_BINARY_ARITH_TYPES                                          \
  "bfloat16, half, float, double, uint8, int8, uint16, int16, int32, " \
  "uint32, uint64, int64, complex64, complex128"
#define MF_BINARY_MINMAX_TYPES                                         \
  "bfloat16, half, float, double, int8, uint8, int16, uint16, int32, " \
  "uint32, int64, uint64"

MF_BINARY_OP("Add",
             "bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
             "complex64, complex128, string",
             "Element-wise x + y, with broadcasting.\n\nx and y broadcast as "
             "in numpy. On strings it concatenates.");
MF_BINARY_OP("AddV2",
             "bfloat16, half, float, double, uint8, uint16, uint32, uint64, "
             "int8, int16, int32, int64, complex64, complex128",
             "Element-wise x + y, with broadcasting.\n\nx and y broadcast as "
             "in numpy. Unlike Add it has no string form,\nso graph rewrites "
             "may treat it as commutative and aggregate.")
    .SetIsAggregate()
    .SetIsCommutative();
MF_BINARY_OP(
    "Sub",
    "bfloat16, half, float, double, uint8, int8, uint16, int16, "
    "int32, int64, complex64, complex128, uint32, uint64",
    "Element-wise x - y, with broadcasting.\n\nx and y broadcast as in numpy.");
MF_BINARY_OP("Mul", MF_BINARY_ARITH_TYPES,
             "Element-wise x * y, with broadcasting.\n\nx and y broadcast as "
             "in numpy.")
    .SetIsCommutative();
MF_BINARY_OP("Div", MF_BINARY_ARITH_TYPES,
             "Element-wise x / y, with broadcasting.\n\nx and y broadcast as "
             "in numpy. Integers divide rounding toward\nzero; an integer "
             "divisor of 0 is an InvalidArgument error.");
MF_BINARY_OP("RealDiv", MF_BINARY_ARITH_TYPES,
             "Element-wise x / y for floating and complex types, with "
             "broadcasting.\n\nx and y broadcast as in numpy.");
MF_BINARY_OP("FloorDiv", MF_BINARY_ARITH_TYPES,
             "Element-wise floor(x / y), with broadcasting.\n\nx and y "
             "broadcast as in numpy. Integers round toward -inf,\nunlike Div; "
             "an integer divisor of 0 is an InvalidArgument error.");
MF_BINARY_OP("FloorMod",
             "int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
             "bfloat16, half, float, double",
             "Element-wise remainder of floor division, with "
             "broadcasting.\n\nx and y broadcast as in numpy. The result has "
             "the sign of y,\nso x == FloorDiv(x, y) * y + FloorMod(x, y). An "
             "integer divisor of 0 is an\nInvalidArgument error.");
// TensorFlow's list names half twice (float16 and half).
MF_BINARY_OP(
    "Mod", "int32, int64, float16, half, bfloat16, float, double",
    "Element-wise remainder of truncating division, with broadcasting.\n\nx "
    "and y broadcast as in numpy. The result has the sign of x (C's\n% and "
    "fmod). An integer divisor of 0 is an InvalidArgument error.");
MF_BINARY_OP("TruncateDiv", MF_BINARY_ARITH_TYPES,
             "Element-wise x / y rounded toward zero, with broadcasting.\n\nx "
             "and y broadcast as in numpy. An integer divisor of 0 is "
             "an\nInvalidArgument error.");
MF_BINARY_OP(
    "TruncateMod", "int32, int64, bfloat16, half, float, double",
    "Element-wise remainder of truncating division, with broadcasting.\n\nx "
    "and y broadcast as in numpy. The result has the sign of x, as Mod.");
MF_BINARY_OP(
    "Xlogy", "half, bfloat16, float, double, complex64, complex128",
    "Element-wise x * log(y), and 0 where x is 0, with broadcasting.\n\nx and "
    "y broadcast as in numpy. The 0 holds even where y is 0 or NaN.");
MF_BINARY_OP("Xdivy", "half, bfloat16, float, double, complex64, complex128",
             "Element-wise x / y, and 0 where x is 0, with broadcasting.\n\nx "
             "and y broadcast as in numpy. The 0 holds even where y is 0.");
MF_BINARY_OP("DivNoNan", "half, float, bfloat16, double, complex64, complex128",
             "Element-wise x / y, and 0 where y is 0, with broadcasting.\n\nx "
             "and y broadcast as in numpy.");
MF_BINARY_OP(
    "MulNoNan", "bfloat16, half, float, double, complex64, complex128",
    "Element-wise x * y, and 0 where y is 0, with broadcasting.\n\nx and y "
    "broadcast as in numpy. The 0 holds even where x is inf or NaN.");
MF_BINARY_OP("Maximum", MF_BINARY_MINMAX_TYPES,
             "Element-wise larger of x and y, with broadcasting.\n\nx and y "
             "broadcast as in numpy.");
MF_BINARY_OP("Minimum", MF_BINARY_MINMAX_TYPES,
             "Element-wise smaller of x and y, with broadcasting.\n\nx and y "
             "broadcast as in numpy.");
MF_BINARY_OP("Pow",
             "bfloat16, float, half, double, int8, int16, int32, int64, "
             "complex64, complex128",
             "Element-wise x raised to the power y, with broadcasting.\n\nx "
             "and y broadcast as in numpy. For integers a negative exponent is "
             "an\nInvalidArgument error.");
MF_BINARY_OP("SquaredDifference",
             "bfloat16, half, float, double, int32, int64, complex64, "
             "complex128",
             "Element-wise (x - y) * (x - y), with broadcasting.\n\nx and y "
             "broadcast as in numpy.")
    .SetIsCommutative();

#undef MF_BINARY_OP
#undef MF_BINARY_ARITH_TYPES
#undef MF_BINARY_MINMAX_TYPES

// atan(y / x) in the right quadrant; note the inputs are named y, x.
REGISTER_OP("Atan2")
    .Input("y: T")
    .Input("x: T")
    .Output("z: T")
    .Attr("T: {bfloat16, half, float, double}")
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn)
    .Doc(R"doc(
Element-wise angle of the point (x, y), in radians within [-pi, pi].

It is atan(y / x) placed in the quadrant that the signs of x and y select.
y and x broadcast as in numpy; note that y comes first.
)doc");

namespace {

// Comparisons: bool output; Equal/NotEqual may turn incompatible shapes into
// a scalar instead of an error (incompatible_shape_error = false).
Status EqualityComparisonShape(InferenceContext* c) {
  bool incompatible_shape_error = true;
  MF_RETURN_IF_ERROR(
      c->GetAttr("incompatible_shape_error", &incompatible_shape_error));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(shape_inference::BroadcastBinaryOpOutputShapeFnHelper(
      c, c->input(0), c->input(1), incompatible_shape_error, &out));
  c->set_output(0, out);
  return OkStatus();
}

}  // namespace

#define MF_EQUALITY_OP(name, doc)                    \
  REGISTER_OP(name)                                  \
      .Input("x: T")                                 \
      .Input("y: T")                                 \
      .Output("z: bool")                             \
      .Attr("T: type")                               \
      .Attr("incompatible_shape_error: bool = true") \
      .SetIsCommutative()                            \
      .SetShapeFn(EqualityComparisonShape)           \
      .Doc(doc)

MF_EQUALITY_OP("Equal", R"doc(
Element-wise x == y, with broadcasting.

x and y broadcast as in numpy.

incompatible_shape_error: When false, shapes that do not broadcast give a
  scalar false instead of an error.
)doc");
MF_EQUALITY_OP("NotEqual", R"doc(
Element-wise x != y, with broadcasting.

x and y broadcast as in numpy.

incompatible_shape_error: When false, shapes that do not broadcast give a
  scalar true instead of an error.
)doc");
#undef MF_EQUALITY_OP

#define MF_COMPARISON_OP(name, doc)                          \
  REGISTER_OP(name)                                          \
      .Input("x: T")                                         \
      .Input("y: T")                                         \
      .Output("z: bool")                                     \
      .Attr("T: realnumbertype")                             \
      .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn) \
      .Doc(doc)

MF_COMPARISON_OP(
    "Less",
    "Element-wise x < y, with broadcasting.\n\nx and y broadcast as in numpy.");
MF_COMPARISON_OP("LessEqual",
                 "Element-wise x <= y, with broadcasting.\n\nx and y broadcast "
                 "as in numpy.");
MF_COMPARISON_OP(
    "Greater",
    "Element-wise x > y, with broadcasting.\n\nx and y broadcast as in numpy.");
MF_COMPARISON_OP("GreaterEqual",
                 "Element-wise x >= y, with broadcasting.\n\nx and y broadcast "
                 "as in numpy.");
#undef MF_COMPARISON_OP

REGISTER_OP("LogicalAnd")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn)
    .Doc("Element-wise x AND y, with broadcasting as in numpy.");

REGISTER_OP("LogicalOr")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetIsCommutative()
    .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn)
    .Doc("Element-wise x OR y, with broadcasting as in numpy.");

REGISTER_OP("Select")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectShape)
    .Doc(R"doc(
Takes elements from t where condition is true and from e where it is false.

t and e have the same shape. condition has that shape too, or is a vector
whose length is their first dimension: then it picks whole rows. A scalar
condition picks all of t or all of e.
)doc");

REGISTER_OP("SelectV2")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectV2Shape)
    .Doc(R"doc(
Takes elements from t where condition is true and from e where it is false.

condition, t and e broadcast together as in numpy; the output has the
broadcast shape.
)doc");

REGISTER_OP("AddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr("T: {numbertype, variant}")
    .SetIsCommutative()
    .SetIsAggregate()
    .SetShapeFn(AddNShape)
    .Doc(R"doc(
Adds N tensors of the same shape and type element-wise.

No broadcasting: every input must have the output's shape.
)doc");

// ---- Linear algebra
// -----------------------------------------------------------

REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, uint8, uint16, "
        "uint32, uint64, complex64, complex128}")
    .Attr("grad_a: bool = false")
    .Attr("grad_b: bool = false")
    .SetShapeFn(shape_inference::MatMulShape)
    .Doc(R"doc(
Matrix product of two 2-D tensors.

The inner dimensions, after the optional transposes, must agree.

transpose_a: Use the transpose of a.
transpose_b: Use the transpose of b.
grad_a: A hint that this product computes a gradient of a; ignored.
grad_b: A hint that this product computes a gradient of b; ignored.
)doc");

namespace {

// TensorFlow's BatchMatMulShape: V1 merges the batch dims (no broadcast).
Status BatchMatMulV1Shape(InferenceContext* c) {
  ShapeHandle a;
  ShapeHandle b;
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &a));
  MF_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, &b));
  bool adj_x;
  bool adj_y;
  MF_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x));
  MF_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y));
  const DimensionHandle rows = c->Dim(a, adj_x ? -1 : -2);
  const DimensionHandle cols = c->Dim(b, adj_y ? -2 : -1);
  ShapeHandle a_batch;
  ShapeHandle b_batch;
  ShapeHandle batch;
  MF_RETURN_IF_ERROR(c->Subshape(a, 0, -2, &a_batch));
  MF_RETURN_IF_ERROR(c->Subshape(b, 0, -2, &b_batch));
  MF_RETURN_IF_ERROR(c->Merge(a_batch, b_batch, &batch));
  DimensionHandle inner;
  MF_RETURN_IF_ERROR(
      c->Merge(c->Dim(a, adj_x ? -2 : -1), c->Dim(b, adj_y ? -1 : -2), &inner));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->Concatenate(batch, c->Matrix(rows, cols), &out));
  c->set_output(0, out);
  return OkStatus();
}

}  // namespace

REGISTER_OP("BatchMatMul")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, complex64, "
        "complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(BatchMatMulV1Shape)
    .Doc(R"doc(
Matrix products of the matching inner matrices of two tensors.

x and y have rank >= 2 and the same leading (batch) dimensions, without
broadcasting; the last two dimensions of each are one matrix.

adj_x: Use the adjoint (conjugate transpose) of each matrix of x.
adj_y: Use the adjoint (conjugate transpose) of each matrix of y.
grad_x: A hint that this product computes a gradient of x; ignored.
grad_y: A hint that this product computes a gradient of y; ignored.
)doc");

REGISTER_OP("BatchMatMulV2")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, half, float, double, int16, int32, int64, uint8, "
        "uint16, uint32, uint64, complex64, complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(shape_inference::BatchMatMulV2Shape)
    .Doc(R"doc(
Matrix products over batches of matrices, broadcasting the batch dimensions.

The last two dimensions of x and y are the matrices; the dimensions before
them broadcast as in numpy, so a plain matrix multiplies every matrix of a
batch.

adj_x: Use the adjoint (conjugate transpose) of each matrix of x.
adj_y: Use the adjoint (conjugate transpose) of each matrix of y.
grad_x: A hint that this product computes a gradient of x; ignored.
grad_y: A hint that this product computes a gradient of y; ignored.
)doc");

REGISTER_OP("BatchMatMulV3")
    .Input("x: Ta")
    .Input("y: Tb")
    .Output("output: Tout")
    .Attr(
        "Ta: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
        "complex64, complex128}")
    .Attr(
        "Tb: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
        "complex64, complex128}")
    .Attr(
        "Tout: {bfloat16, half, float, double, int16, int32, int64, complex64, "
        "complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(shape_inference::BatchMatMulV2Shape)
    .Doc(R"doc(
BatchMatMulV2 whose inputs and output may have different types.

Ta: The type of x.
Tb: The type of y.
Tout: The type of the products.
adj_x: Use the adjoint (conjugate transpose) of each matrix of x.
adj_y: Use the adjoint (conjugate transpose) of each matrix of y.
grad_x: A hint that this product computes a gradient of x; ignored.
grad_y: A hint that this product computes a gradient of y; ignored.
)doc");

namespace {

// The output's dims from the inputs' labels: a named label's dims merge; an
// ellipsis dim broadcasts (1 gives way; unknown stays unknown unless the
// other side is known and not 1). Unknown rank gives an unknown shape.
Status EinsumShape(InferenceContext* c) {
  std::string equation;
  MF_RETURN_IF_ERROR(c->GetAttr("equation", &equation));
  EinsumEquation parsed;
  MF_RETURN_IF_ERROR(ParseEinsumEquation(equation, c->num_inputs(), &parsed));
  std::vector<int> ranks;
  for (int i = 0; i < c->num_inputs(); ++i) {
    if (!c->RankKnown(c->input(i))) {
      c->set_output(0, c->UnknownShape());
      return OkStatus();
    }
    ranks.push_back(c->Rank(c->input(i)));
  }
  EinsumLabels labels;
  MF_RETURN_IF_ERROR(ResolveEinsumLabels(parsed, ranks, &labels));
  std::vector<DimensionHandle> dims(labels.num_labels);
  std::vector<bool> seen(labels.num_labels, false);
  for (int i = 0; i < c->num_inputs(); ++i) {
    for (int a = 0; a < ranks[i]; ++a) {
      const int l = labels.inputs[i][a];
      const DimensionHandle d = c->Dim(c->input(i), a);
      if (!seen[l]) {
        seen[l] = true;
        dims[l] = d;
      } else if (l < EinsumLabels::kFirstEllipsisLabel) {
        MF_RETURN_IF_ERROR(c->Merge(dims[l], d, &dims[l]));
      } else if (c->ValueKnown(d) && c->Value(d) != 1) {
        if (c->ValueKnown(dims[l]) && c->Value(dims[l]) != 1 &&
            c->Value(dims[l]) != c->Value(d)) {
          return errors::InvalidArgument(
              "Expected dimension ", c->Value(dims[l]), " at axis ", a,
              " of input ", i, " but got dimension ", c->Value(d));
        }
        dims[l] = d;
      } else if (!c->ValueKnown(d) && c->ValueKnown(dims[l]) &&
                 c->Value(dims[l]) == 1) {
        dims[l] = d;
      }
    }
  }
  std::vector<DimensionHandle> out;
  for (int l : labels.output) out.push_back(dims[l]);
  c->set_output(0, c->MakeShape(out));
  return OkStatus();
}

}  // namespace

REGISTER_OP("Einsum")
    .Input("inputs: N * T")
    .Output("output: T")
    .Attr("equation: string")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .SetShapeFn(EinsumShape)
    .Doc(R"doc(
Contracts the inputs as a numpy-style Einstein summation equation says.

equation: Such as "ij,jk->ik": one comma-separated letter group per input,
  then "->" and the output's letters. Letters missing from the output are
  summed over; "..." stands for broadcast dimensions.
)doc");

// ---- Reductions
// -----------------------------------------------------------------

// Note [Reduction docs]
// Every reduction takes the axes to reduce (a scalar or a vector; negative
// counts from the end; an empty vector reduces nothing) and keep_dims; the
// text of those is shared here.
#define MF_REDUCTION_ARGS_DOC                                               \
  "reduction_indices: The axes to reduce: a scalar or a vector, negative\n" \
  "  values counting from the end. An empty vector reduces nothing.\n"      \
  "keep_dims: Keep each reduced axis as a dimension of size 1.\n"

#define MF_REDUCTION_OP(name, types, doc)          \
  REGISTER_OP(name)                                \
      .Input("input: T")                           \
      .Input("reduction_indices: Tidx")            \
      .Output("output: T")                         \
      .Attr("keep_dims: bool = false")             \
      .Attr("T: " types)                           \
      .Attr("Tidx: {int32, int64} = DT_INT32")     \
      .SetShapeFn(shape_inference::ReductionShape) \
      .Doc(doc "\n\n" MF_REDUCTION_ARGS_DOC)

MF_REDUCTION_OP(
    "Sum", "numbertype",
    "Sum of the elements over the given axes.\n\nAn empty reduction gives 0.");
MF_REDUCTION_OP("Mean", "numbertype",
                "Mean of the elements over the given axes.\n\nOn integers the "
                "sum is divided with truncation.");
MF_REDUCTION_OP("Prod", "numbertype",
                "Product of the elements over the given axes.\n\nAn empty "
                "reduction gives 1.");
MF_REDUCTION_OP("Max", "{realnumbertype, quantizedtype}",
                "Largest element over the given axes.\n\nAn empty reduction "
                "gives the lowest value of T.");
MF_REDUCTION_OP("Min", "{realnumbertype, quantizedtype}",
                "Smallest element over the given axes.\n\nAn empty reduction "
                "gives the highest value of T.");
#undef MF_REDUCTION_OP

REGISTER_OP("ArgMax")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr("T: {realnumbertype, quantizedtype, bool}")
    .Attr("Tidx: {int16, int32, int64} = DT_INT32")
    .Attr("output_type: {int16, uint16, int32, int64} = DT_INT64")
    .SetShapeFn(ArgOpShape)
    .Doc(R"doc(
Index of the largest element along one axis.

The axis is removed from the shape. Ties give the first index; NaN is never
chosen, so a row of NaNs gives 0.

dimension: The axis, a scalar; negative counts from the end.
output_type: The type of the indices.
)doc");

REGISTER_OP("ArgMin")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr("T: {realnumbertype, quantizedtype, bool}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("output_type: {int32, int64} = DT_INT64")
    .SetShapeFn(ArgOpShape)
    .Doc(R"doc(
Index of the smallest element along one axis.

The axis is removed from the shape. Ties give the first index; NaN is never
chosen, so a row of NaNs gives 0.

dimension: The axis, a scalar; negative counts from the end.
output_type: The type of the indices.
)doc");

// ---- Range
// ------------------------------------------------------------------------

REGISTER_OP("Range")
    .Input("start: Tidx")
    .Input("limit: Tidx")
    .Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr(
        "Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, "
        "uint16, uint32, uint64} = DT_INT32")
    .SetShapeFn(RangeShape)
    .Doc(R"doc(
The sequence start, start + delta, ... up to but excluding limit.

The length is ceil((limit - start) / delta). A delta that steps away from
limit is an error.

start: A scalar.
limit: A scalar, not part of the sequence.
delta: A scalar step, not 0; it may be negative.
)doc");

REGISTER_OP("LinSpace")
    .Input("start: T")
    .Input("stop: T")
    .Input("num: Tidx")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(LinSpaceShape)
    .Doc(R"doc(
num evenly spaced values from start to stop, both included.

num = 1 gives just start.

num: A positive scalar.
)doc");

// ---- Logical and norm reductions --------------------------------------------

#define MF_BOOL_REDUCTION_OP(name, doc)            \
  REGISTER_OP(name)                                \
      .Input("input: bool")                        \
      .Input("reduction_indices: Tidx")            \
      .Output("output: bool")                      \
      .Attr("keep_dims: bool = false")             \
      .Attr("Tidx: {int32, int64} = DT_INT32")     \
      .SetShapeFn(shape_inference::ReductionShape) \
      .Doc(doc "\n\n" MF_REDUCTION_ARGS_DOC)

MF_BOOL_REDUCTION_OP("All",
                     "Logical AND of the elements over the given axes.\n\nAn "
                     "empty reduction gives true.");
MF_BOOL_REDUCTION_OP("Any",
                     "Logical OR of the elements over the given axes.\n\nAn "
                     "empty reduction gives false.");
#undef MF_REDUCTION_ARGS_DOC
#undef MF_BOOL_REDUCTION_OP

REGISTER_OP("EuclideanNorm")
    .Input("input: T")
    .Input("reduction_indices: Tidx")
    .Output("output: T")
    .Attr("keep_dims: bool = false")
    .Attr("T: numbertype")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::ReductionShape)
    .Doc(R"doc(
Square root of the sum of squared magnitudes over the given axes.

reduction_indices: The axes to reduce: a scalar or a vector, negative
  values counting from the end.
keep_dims: Keep each reduced axis as a dimension of size 1.
)doc");

REGISTER_OP("L2Loss")
    .Input("t: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(shape_inference::ScalarShape)
    .Doc("Half the sum of the squares of all elements of t: sum(t * t) / 2.");

// ---- Segment reductions -----------------------------------------------------

REGISTER_OP("SegmentSum")
    .Input("data: T")
    .Input("segment_ids: Tindices")
    .Output("output: T")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn(SegmentReductionShape)
    .Doc(R"doc(
Sums the slices of data along axis 0 that share a segment id.

output[i] is the sum of the data[j] with segment_ids[j] == i; ids missing
from segment_ids give zero slices.

segment_ids: A vector as long as data's first dimension, sorted ascending
  and not negative. The last id plus one is the output's first dimension.
)doc");

#define MF_UNSORTED_SEGMENT_ARGS_DOC                                         \
  "segment_ids: A prefix of data's shape, the segment of each slice, in\n"   \
  "  any order. Negative ids drop their slice; ids >= num_segments are an\n" \
  "  error.\n"                                                               \
  "num_segments: A scalar, the output's first dimension.\n"

#define MF_UNSORTED_SEGMENT_OP(name, types, index_types, doc) \
  REGISTER_OP(name)                                           \
      .Input("data: T")                                       \
      .Input("segment_ids: Tindices")                         \
      .Input("num_segments: Tnumsegments")                    \
      .Output("output: T")                                    \
      .Attr("T: " types)                                      \
      .Attr("Tindices: {" index_types "}")                    \
      .Attr("Tnumsegments: {int32, int64} = DT_INT32")        \
      .SetShapeFn(UnsortedSegmentReductionShape)              \
      .Doc(doc "\n\n" MF_UNSORTED_SEGMENT_ARGS_DOC)

MF_UNSORTED_SEGMENT_OP("UnsortedSegmentSum", "numbertype",
                       "int16, int32, int64",
                       "Sums the slices of data that share a segment id.\n\n"
                       "An empty segment gives 0.");
MF_UNSORTED_SEGMENT_OP("UnsortedSegmentMax", "realnumbertype", "int32, int64",
                       "Largest of the slices of data that share a segment "
                       "id.\n\nAn empty segment gives the lowest value of T.");
MF_UNSORTED_SEGMENT_OP("UnsortedSegmentMin", "realnumbertype", "int32, int64",
                       "Smallest of the slices of data that share a segment "
                       "id.\n\nAn empty segment gives the highest value of "
                       "T.");
#undef MF_UNSORTED_SEGMENT_OP
#undef MF_UNSORTED_SEGMENT_ARGS_DOC

// ---- Element-wise helpers ---------------------------------------------------

REGISTER_OP("Bucketize")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: {int32, int64, float, double}")
    .Attr("boundaries: list(float)")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Index of the bucket that each element of input falls into.

The result is the number of boundaries that are <= the element, so values
below the first boundary go to bucket 0.

boundaries: Sorted ascending.
)doc");

REGISTER_OP("ClipByValue")
    .Input("t: T")
    .Input("clip_value_min: T")
    .Input("clip_value_max: T")
    .Output("output: T")
    .Attr("T: numbertype")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Clamps each element of t into [clip_value_min, clip_value_max].

clip_value_min: A scalar or a tensor of t's shape.
clip_value_max: A scalar or a tensor of t's shape.
)doc");

}  // namespace minflow
