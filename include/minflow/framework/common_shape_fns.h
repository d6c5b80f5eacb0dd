// Shape functions shared by many ops (TensorFlow's common_shape_fns.h):
// pass-through, broadcasting, matmul, convolution and pooling windows,
// reductions, concatenation. Each is a ShapeInferenceFn or a helper for one.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"
#include "minflow/framework/padding.h"
#include "minflow/framework/shape_inference.h"
#include "minflow/framework/tensor_format.h"

namespace minflow {
namespace shape_inference {

// Padding, TensorFormat and their parsers are in padding.h and
// tensor_format.h, shared with the kernels.

// The padding attr `attr_name` of the node ("padding").
Status GetPaddingAttr(InferenceContext* c, absl::string_view attr_name,
                      Padding* padding);

// The length of a window of `filter_size` taps, `dilation_rate` apart,
// moved by `stride` over `input_size`: VALID/EXPLICIT
// (input + pads - (filter-1)*dilation - 1) / stride + 1, SAME
// ceil(input / stride). Unknown in, unknown out. InvalidArgument for
// stride <= 0, dilation < 1, or a window larger than the padded input.
Status GetWindowedOutputSizeFromDimsV2(
    InferenceContext* c, DimensionHandle input_size,
    DimensionOrConstant filter_size, int64_t dilation_rate, int64_t stride,
    Padding padding_type, int64_t padding_before, int64_t padding_after,
    DimensionHandle* output_size);
// As above with dilation 1; EXPLICIT is Internal (use V2).
Status GetWindowedOutputSizeFromDims(InferenceContext* c,
                                     DimensionHandle input_size,
                                     DimensionOrConstant filter_size,
                                     int64_t stride, Padding padding_type,
                                     DimensionHandle* output_size);

// ---- Simple shape functions ----------------------------------------------
// Output 0 is input 0 (the same handle).
Status UnchangedShape(InferenceContext* c);
// Output 0 is input 0 checked to have rank `rank` (at least, at most).
Status UnchangedShapeWithRank(InferenceContext* c, int32_t rank);
Status UnchangedShapeWithRankAtLeast(InferenceContext* c, int32_t rank);
Status UnchangedShapeWithRankAtMost(InferenceContext* c, int32_t rank);
// Output 0 is a scalar.
Status ScalarShape(InferenceContext* c);
// For ops without outputs.
Status NoOutputs(InferenceContext* c);
// Every output unknown.
Status UnknownShape(InferenceContext* c);
// Output 0 is Merge(input 0, input 1).
Status MergeBothInputsShapeFn(InferenceContext* c);

// ---- Linear algebra ---------------------------------------------------------
// [m,k] x [k,n] -> [m,n] with `transpose_a` / `transpose_b`.
Status MatMulShape(InferenceContext* c);
// [..., m, k] x [..., k, n] with `adj_x` / `adj_y`; batch dims broadcast.
Status BatchMatMulV2Shape(InferenceContext* c);

// ---- Broadcasting -----------------------------------------------------------
// Numpy broadcasting of `shape_x` and `shape_y` into *out. With unknown
// dims TensorFlow assumes the program is valid: a known dim > 1 wins over
// an unknown one, a 1 yields the other side, two unknowns yield the same
// handle if they are one dim or a new unknown dim. With
// `incompatible_shape_error` false, shapes that cannot broadcast give a
// scalar (and unknowns that might not, an unknown shape) instead of an
// error.
Status BroadcastBinaryOpOutputShapeFnHelper(InferenceContext* c,
                                            ShapeHandle shape_x,
                                            ShapeHandle shape_y,
                                            bool incompatible_shape_error,
                                            ShapeHandle* out);
// Output `output_index` is the broadcast of inputs 0 and 1.
Status BroadcastBinaryOpOutputShapeFn(InferenceContext* c, int output_index);
Status BroadcastBinaryOpShapeFn(InferenceContext* c);

// ---- Neural network ---------------------------------------------------------
// value [..., C] (NHWC) or [N, C, ...] (NCHW) plus bias [C].
Status BiasAddShape(InferenceContext* c);
// input [N,H,W,C] (or NCHW) * filter [R,S,C/groups,K] with `strides`,
// `dilations`, `padding`, `data_format` (and `explicit_paddings` in the
// WithExplicitPadding form).
Status Conv2DShape(InferenceContext* c);
Status Conv2DShapeWithExplicitPadding(InferenceContext* c);
// input [N,H,W,C] * filter [R,S,C,M] -> [N,H',W',C*M].
Status DepthwiseConv2DNativeShape(InferenceContext* c);
Status DepthwiseConv2DNativeShapeWithExplicitPadding(InferenceContext* c);
// `ksize`, `strides`, `padding`, `data_format`; MaxPool may pool over depth
// and takes `explicit_paddings` when the op has it.
Status MaxPoolShape(InferenceContext* c);
Status AvgPoolShape(InferenceContext* c);
// MaxPoolV2: as MaxPool with ksize and strides from the last two inputs
// (vectors of 4); an unknown shape while either value is unknown.
Status MaxPoolV2Shape(InferenceContext* c);

// ---- Reductions and concatenation -------------------------------------------
// Input 0 reduced over the axes in input 1 (a constant scalar or vector,
// negative axes from the end) with attr `keep_dims`. Unknown axes give an
// unknown shape (of the input's rank with keep_dims). InvalidArgument for
// out-of-range or duplicate axes.
Status ReductionShape(InferenceContext* c);
// Concat of inputs [start_value_index, end_value_index) along the scalar
// axis in input dim_index.
Status ConcatShapeHelper(InferenceContext* c, int start_value_index,
                         int end_value_index, int dim_index);
// Concat: axis first, then the values. ConcatV2: values, then the axis.
Status ConcatShape(InferenceContext* c, int num_inputs_to_concat);
Status ConcatV2Shape(InferenceContext* c);

// Input 0 sliced by begin (input 1) and size (input 2, -1 for "the rest").
Status SliceShape(InferenceContext* c);

// ---- Values of constant inputs
// ------------------------------------------------ The elements of
// int16/int32/int64 tensor `t` (any rank) widened to int64. InvalidArgument
// naming `what` for other dtypes.
Status GetIntValues(const Tensor& t, absl::string_view what,
                    std::vector<int64_t>* values);

// `s` with "\n\t<context>" appended (TF_RETURN_WITH_CONTEXT_IF_ERROR's
// wording), keeping the payloads that let Run() name the input at fault.
Status AppendErrorContext(const Status& s, absl::string_view context);

}  // namespace shape_inference
}  // namespace minflow
