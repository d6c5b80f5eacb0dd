// Snappy decompression of one block, for reading tables that TensorFlow
// wrote compressed (the index of many TF2 checkpoints). minflow never
// writes snappy. The input is untrusted.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"

namespace minflow {
namespace io {

// Decompresses `compressed` into *out. DataLoss, with a reason, for a
// truncated or malformed stream; the output is never larger than a valid
// stream of this size could produce, so a hostile length cannot cause a
// huge allocation.
Status SnappyUncompress(absl::string_view compressed, std::string* out);

}  // namespace io
}  // namespace minflow
