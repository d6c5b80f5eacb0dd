// ops::Const, written by hand as TensorFlow's cc/ops/const_op.h: a
// constant from any Input::Initializer (a scalar, braced lists, a Tensor).
// The other ops' classes are generated (minflow/cc/ops/standard_ops.h).
#pragma once

#include "minflow/cc/framework/ops.h"
#include "minflow/cc/framework/scope.h"

namespace minflow {
namespace ops {

// A Const node holding `value` (its dtype and shape), named "Const" or
// from the scope. Errors (a ragged list) go to the scope's status and give
// a null Output.
Output Const(const Scope& scope, const Input::Initializer& value);

}  // namespace ops
}  // namespace minflow
