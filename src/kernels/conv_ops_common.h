// Attr parsing and output-size arithmetic shared by the windowed kernels
// (Conv2D, DepthwiseConv2dNative, MaxPool, AvgPool) and their future GPU
// twins: TensorFlow's windowed output size and the validated 2-D geometry
// each kernel computes over (padding and data formats are the framework's,
// minflow/framework/padding.h and tensor_format.h). Pure functions
// of attrs and shapes; no kernel state.
#pragma once

#include <cstdint>
#include <vector>

#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/framework/padding.h"
#include "minflow/framework/tensor_format.h"

namespace minflow {

class OpKernelConstruction;

// TensorFlow's GetWindowedOutputSizeVerbose: the output length of a window
// of `filter_size` taps `dilation_rate` apart moved by `stride` over
// `input_size` elements. For EXPLICIT, *padding_before/after are inputs;
// otherwise outputs (SAME puts the odd element after). InvalidArgument for
// stride <= 0, dilation < 1 or a negative output size. All arguments must
// be below 2^31 (the callers check), so nothing overflows.
Status GetWindowedOutputSizeVerbose(int64_t input_size, int64_t filter_size,
                                    int64_t dilation_rate, int64_t stride,
                                    Padding padding, int64_t* output_size,
                                    int64_t* padding_before,
                                    int64_t* padding_after);

// The attrs of Conv2D and DepthwiseConv2dNative, validated.
struct Conv2DParameters {
  std::vector<int64_t> dilations;
  std::vector<int64_t> strides;
  Padding padding = VALID;
  std::vector<int64_t> explicit_paddings;
  TensorFormat data_format = FORMAT_NHWC;
};

// Reads and checks `strides`, `dilations`, `padding`, `explicit_paddings`
// and `data_format` as TensorFlow's InitConv2DParameters does: 4 strides and
// dilations, 1 on batch and depth, positive (and below 2^31) on rows and
// cols; a valid padding. InvalidArgument otherwise.
Status InitConv2DParameters(const OpKernelConstruction* context,
                            Conv2DParameters* params);

// The geometry of one 2-D windowed op: every size a kernel loops over.
struct Conv2DDimensions {
  int64_t batch = 0;
  int64_t input_rows = 0;
  int64_t input_cols = 0;
  int64_t in_depth = 0;
  int64_t filter_rows = 0;
  int64_t filter_cols = 0;
  int64_t patch_depth = 0;  // filter input depth (in_depth / groups)
  int64_t out_depth = 0;
  int64_t stride_rows = 1;
  int64_t stride_cols = 1;
  int64_t dilation_rows = 1;
  int64_t dilation_cols = 1;
  int64_t out_rows = 0;
  int64_t out_cols = 0;
  int64_t pad_rows_before = 0;
  int64_t pad_rows_after = 0;
  int64_t pad_cols_before = 0;
  int64_t pad_cols_after = 0;
};

// Conv2D: input [N,H,W,C] (or NCHW), filter [R,S,C/groups,K]. Checks ranks
// ("input must be 4-dimensional[..]", "filter must be 4-dimensional: [..]"),
// sizes below 2^31, "input depth must be evenly divisible by filter depth",
// "output depth must be evenly divisible by number of groups"; then the
// output size. InvalidArgument on any failure.
Status ComputeConv2DDimension(const Conv2DParameters& params,
                              const TensorShape& input,
                              const TensorShape& filter,
                              Conv2DDimensions* dimensions);

// DepthwiseConv2dNative: filter [R,S,C,M]; in_depth must equal the filter's
// ("input and filter must have the same depth: 3 vs 4"); out_depth = C*M.
Status ComputeDepthwiseConv2DDimension(const Conv2DParameters& params,
                                       const TensorShape& input,
                                       const TensorShape& filter,
                                       Conv2DDimensions* dimensions);

// The attrs of MaxPool and AvgPool, validated.
struct PoolParameters {
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  Padding padding = VALID;
  std::vector<int64_t> explicit_paddings;  // MaxPool only
  TensorFormat data_format = FORMAT_NHWC;
};

// Reads and checks the pooling attrs as TensorFlow's MaxPoolingOp does:
// 4 ksize and strides, each positive (and below 2^31) (InvalidArgument);
// none on the batch dim ("Pooling is not yet supported on the batch
// dimension.") and a depth window only alone and equal to its stride
// (Unimplemented); `explicit_paddings` only when the op has it. Kernels
// that cannot pool over depth reject depth windows themselves.
Status InitPoolParameters(const OpKernelConstruction* context,
                          PoolParameters* params);

// For MaxPoolV2, whose window comes as inputs: reads only `data_format`,
// `padding` (and `explicit_paddings`); the kernel fills ksize and strides
// per call and checks them with CheckPoolWindow.
Status InitPoolFormatAndPadding(const OpKernelConstruction* context,
                                PoolParameters* params);

// The window checks of InitPoolParameters on params->ksize and
// params->strides (data_format must be set).
Status CheckPoolWindow(const PoolParameters* params);

// Pooling geometry: filter_* is the spatial window. A depth window
// (ksize[3] > 1) pools across channels instead, as TensorFlow's MaxPool
// does: it must divide the depth (Unimplemented otherwise), spatial strides
// are ignored, and the output is [N,H,W,C/depth_window].
struct PoolDimensions : Conv2DDimensions {
  int64_t depth_window = 1;
};

// Checks an NHWC input ("tensor_in must be 4-dimensional: [..]",
// InvalidArgument) and computes the output geometry.
Status ComputePoolDimensions(const PoolParameters& params,
                             const TensorShape& input,
                             PoolDimensions* dimensions);

}  // namespace minflow
