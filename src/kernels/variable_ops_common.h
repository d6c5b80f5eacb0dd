// What the TF1 variable kernels (variable_ops.cc) and the resource
// variable kernels (resource_variable_ops.cc) share: the element-wise
// update of a variable's value, and the dtypes it is defined for.
#pragma once

#include "minflow/core/status.h"
#include "minflow/core/tensor.h"

namespace minflow {

enum class DenseUpdate { kAdd, kSub };

// *out = lhs (op) rhs, element-wise; lhs, rhs and *out have one dtype and
// one shape, checked by the caller, and *out may share lhs's buffer.
// InvalidArgument for a dtype that is not a number type.
Status ApplyDenseUpdate(DenseUpdate op, const Tensor& lhs, const Tensor& rhs,
                        Tensor* out);

// "add"/"subtract", for messages.
const char* DenseUpdateName(DenseUpdate op);

}  // namespace minflow
