// The data formats of image-like tensors (TensorFlow's util/tensor_format.h,
// the two layouts minflow's ops take): parsing the `data_format` attr, and
// where the batch, feature and spatial dims of each layout are. Shared by
// shape functions and kernels.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"

namespace minflow {

// Batch first, then the spatial dims and the features last (NHWC,
// TensorFlow's default) or the features right after the batch (NCHW).
// The values are TensorFlow's.
enum TensorFormat { FORMAT_NHWC = 0, FORMAT_NCHW = 1 };

// Parses "NHWC" or "NCHW" (exactly, case included) into *format and returns
// true; returns false and leaves *format alone for anything else.
bool FormatFromString(absl::string_view str, TensorFormat* format);

// As FormatFromString, for a `data_format` attr: InvalidArgument
// "Invalid data format string: <str> (data_format must be NHWC or NCHW)"
// for anything else.
Status GetTensorFormatFromString(absl::string_view str, TensorFormat* format);

// As GetTensorFormatFromString, also taking the 3-D names of the same two
// layouts ("NDHWC" is FORMAT_NHWC, "NCDHW" FORMAT_NCHW, as TensorFlow's
// parser has them); *num_spatial_dims is 2 or 3. For ops such as
// FusedBatchNormV3 that take either.
Status GetTensorFormatAndSpatialDimsFromString(absl::string_view str,
                                               TensorFormat* format,
                                               int* num_spatial_dims);

// "NHWC" or "NCHW".
std::string ToString(TensorFormat format);

// Dim indices in a tensor of `num_dims` dims (batch, spatial dims, features;
// num_dims >= 2) laid out as `format`. The batch is always dim 0; the
// features are the last dim in NHWC and dim 1 in NCHW; spatial dim
// `spatial_dim` (0 for rows) follows the batch (NHWC) or the features
// (NCHW).
int GetTensorBatchDimIndex(int num_dims, TensorFormat format);
int GetTensorFeatureDimIndex(int num_dims, TensorFormat format);
int GetTensorSpatialDimIndex(int num_dims, TensorFormat format,
                             int spatial_dim);

// The index of dim 'N', 'H', 'W' or 'C' in a 4-D tensor (or a 4-element
// attr such as strides) laid out as `format`. Any other character is a bug
// in the caller (MF_CHECK).
int GetTensorDimIndex(TensorFormat format, char dimension);

}  // namespace minflow
