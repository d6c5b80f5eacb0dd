// The headers nearly every kernel source includes, compiled once for the
// kernels layer when MINFLOW_PRECOMPILED_HEADERS is on
// (src/kernels/CMakeLists.txt). Eigen's Tensor module alone takes seconds
// to parse in each of the ~100 kernel files.
#ifndef MINFLOW_SRC_KERNELS_PRECOMPILED_HEADERS_H_
#define MINFLOW_SRC_KERNELS_PRECOMPILED_HEADERS_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

#endif  // MINFLOW_SRC_KERNELS_PRECOMPILED_HEADERS_H_
