#include "minflow/framework/tensor_format.h"

#include "minflow/core/logging.h"

namespace minflow {

bool FormatFromString(absl::string_view str, TensorFormat* format) {
  if (str == "NHWC") {
    *format = FORMAT_NHWC;
    return true;
  }
  if (str == "NCHW") {
    *format = FORMAT_NCHW;
    return true;
  }
  return false;
}

Status GetTensorFormatFromString(absl::string_view str, TensorFormat* format) {
  if (!FormatFromString(str, format)) {
    // TensorFlow's shape functions say "Invalid data format string: X";
    // the rest names the attr and what it takes.
    return errors::InvalidArgument("Invalid data format string: ", str,
                                   " (data_format must be NHWC or NCHW)");
  }
  return OkStatus();
}

Status GetTensorFormatAndSpatialDimsFromString(absl::string_view str,
                                               TensorFormat* format,
                                               int* num_spatial_dims) {
  if (str == "NDHWC" || str == "NCDHW") {
    *format = str == "NDHWC" ? FORMAT_NHWC : FORMAT_NCHW;
    *num_spatial_dims = 3;
    return OkStatus();
  }
  if (!FormatFromString(str, format)) {
    return errors::InvalidArgument(
        "Invalid data format string: ", str,
        " (data_format must be NHWC, NCHW, NDHWC or NCDHW)");
  }
  *num_spatial_dims = 2;
  return OkStatus();
}

std::string ToString(TensorFormat format) {
  return format == FORMAT_NCHW ? "NCHW" : "NHWC";
}

int GetTensorBatchDimIndex(int /*num_dims*/, TensorFormat /*format*/) {
  return 0;
}

int GetTensorFeatureDimIndex(int num_dims, TensorFormat format) {
  return format == FORMAT_NCHW ? 1 : num_dims - 1;
}

int GetTensorSpatialDimIndex(int /*num_dims*/, TensorFormat format,
                             int spatial_dim) {
  return format == FORMAT_NCHW ? spatial_dim + 2 : spatial_dim + 1;
}

int GetTensorDimIndex(TensorFormat format, char dimension) {
  constexpr int kDims = 4;
  switch (dimension) {
    case 'N':
      return GetTensorBatchDimIndex(kDims, format);
    case 'H':
      return GetTensorSpatialDimIndex(kDims, format, 0);
    case 'W':
      return GetTensorSpatialDimIndex(kDims, format, 1);
    case 'C':
      return GetTensorFeatureDimIndex(kDims, format);
  }
  MF_CHECK(false) << "GetTensorDimIndex: no dimension '" << dimension << "' in "
                  << ToString(format);
  return -1;
}

}  // namespace minflow
