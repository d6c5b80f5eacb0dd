#include "src/cc/gradients/grad_helpers.h"

#include "absl/strings/str_cat.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/graph/graph.h"

namespace minflow {
namespace internal {

Output ScalarLike(const Scope& scope, double value, DataType dtype) {
  if (dtype == DT_DOUBLE) return ops::Const(scope, value);
  Output f = ops::Const(scope, static_cast<float>(value));
  return dtype == DT_FLOAT ? f : ops::Cast(scope, f, dtype);
}

Status RequireRealGradient(const Operation& op, DataType dtype) {
  if (dtype == DT_COMPLEX64 || dtype == DT_COMPLEX128) {
    return errors::Unimplemented("The gradient of op ",
                                 op.node()->type_string(),
                                 " is implemented for real types only, but "
                                 "got ",
                                 DataTypeString(dtype));
  }
  return OkStatus();
}

Status ReduceBinaryGradients(const Scope& scope, const Operation& op,
                             const Output& gx, const Output& gy,
                             std::vector<Output>* grad_outputs) {
  auto sx = ops::Shape(scope, op.input(0));
  auto sy = ops::Shape(scope, op.input(1));
  auto axes = ops::BroadcastGradientArgs(scope, sx, sy);
  grad_outputs->push_back(
      ops::Reshape(scope, ops::Sum(scope, gx, axes.r0), sx));
  grad_outputs->push_back(
      ops::Reshape(scope, ops::Sum(scope, gy, axes.r1), sy));
  return scope.status();
}

// Note [Broadcasting a reduction's gradient]
// The reduced output's gradient is reshaped to the input's shape with the
// reduced axes set to 1, then broadcast over them. That shape is computed
// in the graph, so it works for shapes known only when the graph runs:
// mask = min(sum(one_hot(axes mod rank, rank)), 1) marks the reduced axes,
// and shape - (shape - 1) * mask puts a 1 exactly there.
Output BroadcastReducedGradient(const Scope& scope, const Output& grad,
                                const Output& input, const Output& axes) {
  auto shape = ops::Shape(scope, input);
  auto rank = ops::Rank(scope, input);
  auto flat_axes = ops::Reshape(scope, ops::Cast(scope, axes, DT_INT32), {-1});
  auto wrapped = ops::FloorMod(scope, flat_axes, rank);
  auto hot = ops::OneHot(scope, wrapped, rank, 1, 0);
  auto mask = ops::Minimum(scope, ops::Sum(scope, hot, 0), 1);
  auto kept =
      ops::Sub(scope, shape, ops::Mul(scope, ops::Sub(scope, shape, 1), mask));
  return ops::BroadcastTo(scope, ops::Reshape(scope, grad, kept), shape);
}

}  // namespace internal
}  // namespace minflow
