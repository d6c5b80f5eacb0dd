#include "minflow/framework/padding.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/core/logging.h"

namespace minflow {

Status GetPaddingFromString(absl::string_view str, Padding* padding) {
  if (str == "VALID") {
    *padding = VALID;
  } else if (str == "SAME") {
    *padding = SAME;
  } else if (str == "EXPLICIT") {
    *padding = EXPLICIT;
  } else {
    // TensorFlow's words first: users search for them.
    return errors::InvalidArgument(
        str,
        " is not an allowed padding type (padding must be SAME, VALID "
        "or EXPLICIT)");
  }
  return OkStatus();
}

std::string ToString(Padding padding) {
  switch (padding) {
    case VALID:
      return "VALID";
    case SAME:
      return "SAME";
    case EXPLICIT:
      return "EXPLICIT";
  }
  return absl::StrCat("Padding(", static_cast<int>(padding), ")");
}

Status CheckValidPadding(Padding padding,
                         const std::vector<int64_t>& explicit_paddings,
                         int num_dims, TensorFormat data_format) {
  MF_CHECK_GE(num_dims, 2) << "CheckValidPadding needs batch and feature dims";
  const std::string list =
      absl::StrCat("[", absl::StrJoin(explicit_paddings, ","), "]");
  if (padding != EXPLICIT) {
    if (!explicit_paddings.empty()) {
      return errors::InvalidArgument(
          "explicit_paddings attribute must be empty if the padding attribute "
          "is not EXPLICIT, but got ",
          list, " with padding ", ToString(padding));
    }
    return OkStatus();
  }
  if (explicit_paddings.size() != static_cast<size_t>(2) * num_dims) {
    return errors::InvalidArgument(
        "explicit_paddings attribute must contain ", 2 * num_dims,
        " values, but got: ", explicit_paddings.size());
  }
  for (int64_t p : explicit_paddings) {
    if (p < 0) {
      return errors::InvalidArgument(
          "All elements of explicit_paddings must be nonnegative, but got ",
          list);
    }
  }
  const int batch = GetTensorBatchDimIndex(num_dims, data_format);
  const int feature = GetTensorFeatureDimIndex(num_dims, data_format);
  if (explicit_paddings[2 * batch] != 0 ||
      explicit_paddings[2 * batch + 1] != 0 ||
      explicit_paddings[2 * feature] != 0 ||
      explicit_paddings[2 * feature + 1] != 0) {
    return errors::InvalidArgument(
        "Nonzero explicit padding in the batch or depth dimensions is not "
        "supported, but got ",
        list, " for data format ", ToString(data_format));
  }
  return OkStatus();
}

}  // namespace minflow
