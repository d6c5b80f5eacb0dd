// Symbolic gradients (TensorFlow's cc/framework/gradients.h): adds to a
// graph the ops computing d(sum of ys)/d(xs), each op's part made by the
// gradient function registered for its type (grad_op_registry.h).
//
//   auto y = ops::Square(root, x);
//   std::vector<Output> grads;
//   MF_RETURN_IF_ERROR(AddSymbolicGradients(root, {y}, {x}, &grads));
//   // grads[0] is 2 * x (as a subgraph); run it with a ClientSession.
#pragma once

#include <vector>

#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/framework/ops.h"
#include "minflow/cc/framework/scope.h"
#include "minflow/core/status.h"

namespace minflow {

// Adds the gradients of `ys` with respect to `xs` to `scope`'s graph,
// `grad_ys[i]` being the gradient flowing into `ys[i]` (same dtype), and
// sets `*grad_xs` to one Output per x. See Note [Symbolic gradients] in
// gradients.cc for the rules; in short: gradients reaching one tensor from
// several consumers are summed; only floating-point and complex edges
// carry gradients; an x that no y depends on through such edges, or whose
// every path is cut by an op without gradient (StopGradient, Shape, ...),
// gets NoGradient(); an op on the path with no registered gradient is
// NotFound naming it. Conditionals (Switch/Merge, If, Case) are
// differentiated; a loop on the path is Unimplemented.
Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& ys,
                            const std::vector<Output>& xs,
                            const std::vector<Output>& grad_ys,
                            std::vector<Output>* grad_xs);

// As above with grad_ys all ones (OnesLike(y)): the gradient of the sum of
// the elements of ys.
Status AddSymbolicGradients(const Scope& scope, const std::vector<Output>& ys,
                            const std::vector<Output>& xs,
                            std::vector<Output>* grad_xs);

// Whether edges of `dtype` (a reference type counts as its value type)
// carry gradients: the floating-point and complex types.
bool CarriesGradient(DataType dtype);

// Replaces each NoGradient() in `*grad_xs` by zeros shaped as the matching
// x (ZerosLike), for callers that want a tensor for every x (TensorFlow
// Python's unconnected_gradients=ZERO). `xs` and `*grad_xs` pair up.
Status ZerosForNoGradients(const Scope& scope, const std::vector<Output>& xs,
                           std::vector<Output>* grad_xs);

}  // namespace minflow
