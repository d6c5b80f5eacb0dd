// What the TF1 variable kernels (variable_ops.cc) and the resource
// variable kernels (resource_variable_ops.cc) share: the element-wise
// update of a variable's value, and the dtypes it is defined for.
#pragma once

#include <type_traits>

#include "minflow/core/status.h"
#include "minflow/core/tensor.h"

namespace minflow {

enum class DenseUpdate { kAdd, kSub };

// Element types a variable update may add to or subtract from.
template <typename T>
inline constexpr bool kIsNumber =
    (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) ||
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16> ||
    std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

// *out = lhs (op) rhs, element-wise; lhs, rhs and *out have one dtype and
// one shape, checked by the caller, and *out may share lhs's buffer.
// InvalidArgument for a dtype that is not a number type.
Status ApplyDenseUpdate(DenseUpdate op, const Tensor& lhs, const Tensor& rhs,
                        Tensor* out);

// "add"/"subtract", for messages.
const char* DenseUpdateName(DenseUpdate op);

}  // namespace minflow
