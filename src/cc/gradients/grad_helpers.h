// What the gradient functions of src/cc/gradients share.
#pragma once

#include <cstdint>
#include <vector>

#include "minflow/cc/framework/ops.h"
#include "minflow/cc/framework/scope.h"
#include "minflow/core/status.h"
#include "minflow/core/types.h"

namespace minflow {
namespace internal {

// A scalar Const `value` of `dtype` (a floating-point type).
Output ScalarLike(const Scope& scope, double value, DataType dtype);

// Unimplemented for a complex `dtype`: these gradients are written for real
// types (complex ones need conjugates, which come later).
Status RequireRealGradient(const Operation& op, DataType dtype);

// The gradients of a broadcasting binary op: `gx`, `gy` (in the broadcast
// output's shape) summed over the axes where x, y were broadcast
// (BroadcastGradientArgs) and reshaped to x's and y's shapes.
Status ReduceBinaryGradients(const Scope& scope, const Operation& op,
                             const Output& gx, const Output& gy,
                             std::vector<Output>* grad_outputs);

// The values of `output` when it is a Const of int32 or int64 scalar or
// vector; false otherwise.
bool ConstantInts(const Output& output, std::vector<int64_t>* values);

// Which of `input`'s dims a reduction over `axes` removes, when the input's
// rank and the axes (a Const) are known; false otherwise.
bool StaticReducedAxes(const Output& input, const Output& axes,
                       std::vector<bool>* reduced);

// The gradient of a reduction's input: `grad` (the reduced output's
// gradient) broadcast back to the shape of `input`, reduced along
// `axes` (scalar or vector, negative allowed).
Output BroadcastReducedGradient(const Scope& scope, const Output& grad,
                                const Output& input, const Output& axes);

}  // namespace internal
}  // namespace minflow
