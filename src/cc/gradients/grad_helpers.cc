#include "src/cc/gradients/grad_helpers.h"

#include "absl/strings/str_cat.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"
#include "minflow/tensor.pb.h"

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

bool ConstantInts(const Output& output, std::vector<int64_t>* values) {
  if (output.node() == nullptr || !output.node()->IsConstant()) return false;
  TensorProto proto;
  if (!GetNodeAttr(output.node()->def(), "value", &proto).ok()) return false;
  Tensor t;
  TensorProtoOptions options;
  options.max_bytes = 1 << 16;  // shapes and axes, not data
  if (!TensorFromProto(proto, &t, options).ok() || t.dims() > 1) return false;
  values->clear();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (t.dtype() == DT_INT32) {
      values->push_back(t.flat<int32_t>()(i));
    } else if (t.dtype() == DT_INT64) {
      values->push_back(t.flat<int64_t>()(i));
    } else {
      return false;
    }
  }
  return true;
}

bool StaticReducedAxes(const Output& input, const Output& axes,
                       std::vector<bool>* reduced) {
  const PartialTensorShape shape = input.shape();
  std::vector<int64_t> values;
  if (shape.unknown_rank() || !ConstantInts(axes, &values)) return false;
  const int rank = shape.dims();
  reduced->assign(rank, false);
  for (int64_t axis : values) {
    if (axis < -rank || axis >= rank) return false;  // the kernel reports it
    (*reduced)[axis < 0 ? axis + rank : axis] = true;
  }
  return true;
}

// Note [Broadcasting a reduction's gradient]
// The reduced output's gradient is reshaped to the input's shape with the
// reduced axes set to 1, then broadcast over them. Where the input's rank
// and the axes are known when the gradient is built (the common case: axes
// are a Const), that shape is a Const too, with -1 for the one dimension
// it may not know: three nodes. Otherwise it is computed in the graph, so
// it works for shapes known only when the graph runs:
// mask = min(sum(one_hot(axes mod rank, rank)), 1) marks the reduced axes,
// and shape - (shape - 1) * mask puts a 1 exactly there.
Output BroadcastReducedGradient(const Scope& scope, const Output& grad,
                                const Output& input, const Output& axes) {
  std::vector<bool> reduced;
  if (StaticReducedAxes(input, axes, &reduced)) {
    const PartialTensorShape shape = input.shape();
    Tensor kept(DT_INT32, TensorShape({shape.dims()}));
    int unknown = 0;
    bool positive = true;
    for (int i = 0; i < shape.dims(); ++i) {
      const int64_t d = reduced[i] ? 1 : shape.dim_size(i);
      if (d < 0) ++unknown;
      // A 0 among the known sizes would leave a -1 undefined.
      if (d == 0) positive = false;
      kept.flat<int32_t>()(i) = static_cast<int32_t>(d);
    }
    if (unknown <= 1 && positive) {
      Output full;
      if (shape.IsFullyDefined()) {
        Tensor dims(DT_INT64, TensorShape({shape.dims()}));
        for (int i = 0; i < shape.dims(); ++i) {
          dims.flat<int64_t>()(i) = shape.dim_size(i);
        }
        full = ops::Const(scope, Input::Initializer(dims));
      } else {
        full = ops::Shape(scope, input);
      }
      return ops::BroadcastTo(
          scope,
          ops::Reshape(scope, grad,
                       ops::Const(scope, Input::Initializer(kept))),
          full);
    }
  }
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
