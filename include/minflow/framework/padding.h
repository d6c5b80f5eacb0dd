// The padding of windowed ops (TensorFlow's util/padding.h): parsing the
// `padding` attr and checking the `explicit_paddings` EXPLICIT takes.
// Shared by shape functions and kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"
#include "minflow/framework/tensor_format.h"

namespace minflow {

// How a window meets the border: VALID only where it fits, SAME so that
// the output has ceil(input / stride) positions, EXPLICIT with the pads of
// `explicit_paddings`. The values are TensorFlow's.
enum Padding { VALID = 1, SAME = 2, EXPLICIT = 3 };

// Parses "VALID", "SAME" or "EXPLICIT" (exactly, case included) into
// *padding. InvalidArgument "<str> is not an allowed padding type (padding
// must be SAME, VALID or EXPLICIT)" for anything else.
Status GetPaddingFromString(absl::string_view str, Padding* padding);

// "VALID", "SAME" or "EXPLICIT".
std::string ToString(Padding padding);

// TensorFlow's CheckValidPadding for a tensor of `num_dims` dims laid out
// as `data_format`: EXPLICIT needs 2 * num_dims (before, after) pairs, all
// nonnegative, zero on the batch and feature dims; the other paddings need
// an empty list. InvalidArgument, in TensorFlow's words, otherwise.
Status CheckValidPadding(Padding padding,
                         const std::vector<int64_t>& explicit_paddings,
                         int num_dims, TensorFormat data_format);

}  // namespace minflow
