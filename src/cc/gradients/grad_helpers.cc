#include "src/cc/gradients/grad_helpers.h"

#include <algorithm>

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

namespace {

// A Const holding `values`, as int32.
Output Int32Const(const Scope& scope, const std::vector<int32_t>& values) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<int32_t>()(i) = values[i];
  return ops::Const(scope, Input::Initializer(t));
}

// The output axes along which an operand of shape `mine` was broadcast
// against `other`, when the static shapes decide it: axes the operand
// lacks or has as 1 (summing over an axis that was 1 in the output too
// changes nothing). False when an unknown dim of `mine` may be a 1 that was
// broadcast.
bool StaticBroadcastAxes(const PartialTensorShape& mine,
                         const PartialTensorShape& other, int rank,
                         std::vector<int32_t>* axes) {
  axes->clear();
  const int pad = rank - mine.dims();
  const int other_pad = rank - other.dims();
  for (int i = 0; i < rank; ++i) {
    if (i < pad) {
      axes->push_back(i);
      continue;
    }
    const int64_t d = mine.dim_size(i - pad);
    if (d == 1) {
      axes->push_back(i);
    } else if (d < 0) {
      const bool other_one =
          i < other_pad || other.dim_size(i - other_pad) == 1;
      if (!other_one) return false;
    }
  }
  return true;
}

}  // namespace

// Note [Broadcasting a binary op's gradient]
// Where both operands' ranks are known when the gradient is built and their
// static shapes decide which axes each was broadcast along (TensorFlow's
// SmartBroadcastGradientArgs does the same), each gradient is summed over
// Const axes: nothing for an operand that was not broadcast, a Sum keeping
// the dims for one of the output's rank, a Sum and a Reshape otherwise.
// Otherwise the axes come from BroadcastGradientArgs on the runtime shapes.
Status ReduceBinaryGradients(const Scope& scope, const Operation& op,
                             const Output& gx, const Output& gy,
                             std::vector<Output>* grad_outputs) {
  const PartialTensorShape sx = op.input(0).shape();
  const PartialTensorShape sy = op.input(1).shape();
  if (!sx.unknown_rank() && !sy.unknown_rank()) {
    const int rank = std::max(sx.dims(), sy.dims());
    std::vector<int32_t> ax, ay;
    if (StaticBroadcastAxes(sx, sy, rank, &ax) &&
        StaticBroadcastAxes(sy, sx, rank, &ay)) {
      auto reduce = [&](const Output& g, const Output& input,
                        const PartialTensorShape& shape,
                        const std::vector<int32_t>& axes) -> Output {
        if (axes.empty()) return g;
        if (shape.dims() == rank) {
          return ops::Sum(scope, g, Int32Const(scope, axes),
                          ops::Sum::KeepDims(true));
        }
        return ops::Reshape(scope, ops::Sum(scope, g, Int32Const(scope, axes)),
                            ops::Shape(scope, input));
      };
      grad_outputs->push_back(reduce(gx, op.input(0), sx, ax));
      grad_outputs->push_back(reduce(gy, op.input(1), sy, ay));
      return scope.status();
    }
  }
  auto shape_x = ops::Shape(scope, op.input(0));
  auto shape_y = ops::Shape(scope, op.input(1));
  auto axes = ops::BroadcastGradientArgs(scope, shape_x, shape_y);
  grad_outputs->push_back(
      ops::Reshape(scope, ops::Sum(scope, gx, axes.r0), shape_x));
  grad_outputs->push_back(
      ops::Reshape(scope, ops::Sum(scope, gy, axes.r1), shape_y));
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
