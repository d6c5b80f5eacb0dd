// NumPy .npy files (format 1.0-3.0, C order) <-> Tensor, for every numeric
// dtype and bool. The header is untrusted: a malformed or truncated file is
// InvalidArgument / DataLoss, never a crash.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"

namespace minflow {

// Decodes .npy bytes. Supports little-endian (or byte-order-free) dtypes:
// b1, i1/u1, i2/u2, i4/u4, i8/u8, f2, f4, f8, c8, c16. Fortran order, object
// arrays and big-endian data are InvalidArgument naming what was found.
Status NpyToTensor(absl::string_view bytes, Tensor* tensor);

// Encodes a tensor as .npy (version 1.0). InvalidArgument for dtypes NumPy
// has no equivalent of (string, bfloat16, quantized).
Status TensorToNpy(const Tensor& tensor, std::string* bytes);

Status ReadNpyFile(const std::string& path, Tensor* tensor);
Status WriteNpyFile(const std::string& path, const Tensor& tensor);

}  // namespace minflow
