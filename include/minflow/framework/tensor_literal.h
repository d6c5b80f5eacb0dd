// Tensor literals for the command line (`minflow infer-op --tensor`,
// `minflow run --feed`): "[1,2,3]", "int64:[2,-1]", "[[1.5,2],[3,4]]",
// "true", "string:[\"a\",\"b\"]".
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"
#include "minflow/core/types.h"

namespace minflow {

class Tensor;

// Parses `text`: an optional dtype prefix ("int64:", "float:", "DT_HALF:";
// the names DataTypeFromString takes) and a value: a scalar or nested
// brackets of equal-length lists. Scalars are integers, reals (with '.', an
// exponent, inf or nan), true/false, or double-quoted strings (backslash
// escapes \" and \\ inside). Without a prefix the dtype follows the
// values: int32 for integers, float when any is real, bool, or string; an
// integer outside int32 then is an error that suggests "int64:".
// InvalidArgument, naming the problem and its offset, for integers that do
// not fit the dtype, reals for an integer dtype, ragged lists, mixed kinds,
// nesting deeper than kMaxTensorRank and dtypes literals cannot hold
// (complex, quantized, resource, variant). Spaces are ignored outside
// strings.
Status ParseTensorLiteral(absl::string_view text, Tensor* out);

// As above, but a literal without a prefix takes `dtype` (a feed for a float
// placeholder may be written [1,2]); a prefix still wins.
Status ParseTensorLiteral(absl::string_view text, DataType dtype, Tensor* out);

}  // namespace minflow
