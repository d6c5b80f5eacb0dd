// Gradients of the reductions beyond Sum and Mean (Max, Min, Prod, L2Loss,
// EuclideanNorm), of the scans (Cumsum, Cumprod) and of the segment
// reductions (SegmentSum, UnsortedSegmentSum/Max/Min).
// Each reduced gradient is broadcast back over the reduced axes by
// BroadcastReducedGradient (see Note [Broadcasting a reduction's
// gradient]).
#include <vector>

#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"
#include "src/cc/gradients/grad_helpers.h"

namespace minflow {
namespace ops {
namespace {

using internal::BroadcastReducedGradient;
using internal::RequireRealGradient;

// Max and Min: the gradient goes to the elements equal to the result,
// split evenly between ties (TensorFlow's rule: each of k equal extrema
// gets dy / k, so the sum over them is dy).
Status MaxMinReductionGrad(const Scope& scope, const Operation& op,
                           const std::vector<Output>& grad_inputs,
                           std::vector<Output>* grad_outputs) {
  const DataType dtype = op.output_type(0);
  MF_RETURN_IF_ERROR(RequireRealGradient(op, dtype));
  const Output x = op.input(0);
  const Output axes = op.input(1);
  auto y = BroadcastReducedGradient(scope, op.output(0), x, axes);
  auto g = BroadcastReducedGradient(scope, grad_inputs[0], x, axes);
  auto picked = Cast(scope, Equal(scope, y, x), dtype);
  auto count =
      BroadcastReducedGradient(scope, Sum(scope, picked, axes), x, axes);
  grad_outputs->push_back(Mul(scope, Div(scope, picked, count), g));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("Max", MaxMinReductionGrad);
REGISTER_GRADIENT_OP("Min", MaxMinReductionGrad);

// Note [Prod's gradient without division]
// d prod(x) / d x_i is the product of every other element. Dividing the
// product by x_i fails where x_i is 0, so, as TensorFlow does, the reduced
// axes are moved to the front and flattened into one, and the product of
// the others is built as exclusive cumulative products from both ends:
// cumprod_exclusive(x) * cumprod_exclusive_reverse(x). The reduced and
// kept axes are found in the graph (Where over a mask of the axes), so
// shapes known only at run time work.
Status ProdGrad(const Scope& scope, const Operation& op,
                const std::vector<Output>& grad_inputs,
                std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  const Output x = op.input(0);
  const Output axes = op.input(1);
  auto shape = Shape(scope, x);
  auto rank = Rank(scope, x);
  auto wrapped =
      FloorMod(scope, Reshape(scope, Cast(scope, axes, DT_INT32), {-1}), rank);
  auto mask = Sum(scope, OneHot(scope, wrapped, rank, 1, 0), 0);
  auto positions = [&](const Output& selected) {
    return Cast(scope, Reshape(scope, Where(scope, selected), {-1}), DT_INT32)
        .y;
  };
  auto reduced = positions(Greater(scope, mask, 0));
  auto kept = positions(Equal(scope, mask, 0));
  auto perm = ConcatV2(scope, {reduced, kept}, 0);
  auto reduced_num = Prod(scope, GatherV2(scope, shape, reduced, 0), 0);
  auto kept_num = Prod(scope, GatherV2(scope, shape, kept, 0), 0);
  auto permuted = Transpose(scope, x, perm);
  auto flat =
      Reshape(scope, permuted, Pack(scope, {reduced_num.output, kept_num}));
  auto before = Cumprod(scope, flat, 0, Cumprod::Exclusive(true));
  auto after = Cumprod(scope, flat, 0, Cumprod::Exclusive(true).Reverse(true));
  auto others =
      Reshape(scope, Mul(scope, before, after), Shape(scope, permuted));
  auto unpermuted = Transpose(scope, others, InvertPermutation(scope, perm));
  auto g = BroadcastReducedGradient(scope, grad_inputs[0], x, axes);
  grad_outputs->push_back(Mul(scope, unpermuted, g));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("Prod", ProdGrad);

// L2Loss = sum(x^2) / 2: d = x dy.
Status L2LossGrad(const Scope& scope, const Operation& op,
                  const std::vector<Output>& grad_inputs,
                  std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  grad_outputs->push_back(Mul(scope, op.input(0), grad_inputs[0]));
  return scope.status();
}
REGISTER_GRADIENT_OP("L2Loss", L2LossGrad);

// ||x|| over the axes: d = x / ||x|| dy (NaN where the norm is 0, as in
// TensorFlow).
Status EuclideanNormGrad(const Scope& scope, const Operation& op,
                         const std::vector<Output>& grad_inputs,
                         std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  const Output x = op.input(0);
  const Output axes = op.input(1);
  auto norm = BroadcastReducedGradient(scope, op.output(0), x, axes);
  auto g = BroadcastReducedGradient(scope, grad_inputs[0], x, axes);
  grad_outputs->push_back(Mul(scope, RealDiv(scope, x, norm), g));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("EuclideanNorm", EuclideanNormGrad);

// Each x_i feeds the sums that come after it (before it when reversed):
// the gradient is the cumulative sum of dy the other way round.
Status CumsumGrad(const Scope& scope, const Operation& op,
                  const std::vector<Output>& grad_inputs,
                  std::vector<Output>* grad_outputs) {
  bool exclusive = false, reverse = false;
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "exclusive", &exclusive));
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "reverse", &reverse));
  grad_outputs->push_back(
      Cumsum(scope, grad_inputs[0], op.input(1),
             Cumsum::Exclusive(exclusive).Reverse(!reverse)));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("Cumsum", CumsumGrad);

// y_i is the product of the x_j up to i: dy_i/dx_k = y_i / x_k for the
// y_i that include x_k, so d x_k = (reverse cumsum of y dy)_k / x_k.
// Like TensorFlow's, it divides by x and is not defined where x is 0.
Status CumprodGrad(const Scope& scope, const Operation& op,
                   const std::vector<Output>& grad_inputs,
                   std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  bool exclusive = false, reverse = false;
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "exclusive", &exclusive));
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "reverse", &reverse));
  auto weighted = Mul(scope, op.output(0), grad_inputs[0]);
  auto summed = Cumsum(scope, weighted, op.input(1),
                       Cumsum::Exclusive(exclusive).Reverse(!reverse));
  grad_outputs->push_back(RealDiv(scope, summed, op.input(0)));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("Cumprod", CumprodGrad);

// Each slice of data gets the gradient of the segment it was summed into.
Status SegmentSumGrad(const Scope& scope, const Operation& op,
                      const std::vector<Output>& grad_inputs,
                      std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(GatherV2(scope, grad_inputs[0], op.input(1), 0));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("SegmentSum", SegmentSumGrad);

// The unsorted segment ops' ids may have several dimensions, and a
// negative id drops its slice. Gathers the rows of `params` at `ids` (a
// slice of data's shape each) and 0 for the dropped ones; sets *kept to
// the mask of the slices not dropped, shaped to broadcast against them.
Output GatherKeptSlices(const Scope& scope, const Output& params,
                        const Output& ids, DataType ids_type, Output* kept) {
  auto zero = Cast(scope, Const(scope, 0), ids_type);
  auto gathered = GatherV2(scope, params, Maximum(scope, ids, zero), 0);
  // ids' shape with a 1 for each slice dimension, to broadcast the mask.
  auto slice_rank = Reshape(scope, Sub(scope, Rank(scope, params), 1), {1});
  auto mask_shape = ConcatV2(
      scope, {Shape(scope, ids).output, Fill(scope, slice_rank, 1).output}, 0);
  *kept = Reshape(scope, GreaterEqual(scope, ids, zero), mask_shape);
  return SelectV2(scope, *kept, gathered, ZerosLike(scope, gathered));
}

Status UnsortedSegmentSumGrad(const Scope& scope, const Operation& op,
                              const std::vector<Output>& grad_inputs,
                              std::vector<Output>* grad_outputs) {
  Output kept;
  grad_outputs->push_back(GatherKeptSlices(scope, grad_inputs[0], op.input(1),
                                           op.input_type(1), &kept));
  grad_outputs->push_back(NoGradient());
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("UnsortedSegmentSum", UnsortedSegmentSumGrad);

// As the Max/Min reductions: the gradient of a segment goes to the
// elements equal to its result, split evenly between ties.
Status UnsortedSegmentMaxMinGrad(const Scope& scope, const Operation& op,
                                 const std::vector<Output>& grad_inputs,
                                 std::vector<Output>* grad_outputs) {
  const DataType dtype = op.output_type(0);
  MF_RETURN_IF_ERROR(RequireRealGradient(op, dtype));
  const Output x = op.input(0);
  const Output ids = op.input(1);
  const DataType ids_type = op.input_type(1);
  Output kept;
  auto result = GatherKeptSlices(scope, op.output(0), ids, ids_type, &kept);
  auto picked = LogicalAnd(scope, Equal(scope, x, result), kept);
  auto count =
      UnsortedSegmentSum(scope, Cast(scope, picked, dtype), ids, op.input(2));
  // DivNoNan: a segment that no id names has count 0, and no element
  // gathers its share.
  auto shared = DivNoNan(scope, grad_inputs[0], count);
  auto spread = GatherKeptSlices(scope, shared, ids, ids_type, &kept);
  grad_outputs->push_back(
      SelectV2(scope, picked, spread, ZerosLike(scope, spread)));
  grad_outputs->push_back(NoGradient());
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("UnsortedSegmentMax", UnsortedSegmentMaxMinGrad);
REGISTER_GRADIENT_OP("UnsortedSegmentMin", UnsortedSegmentMaxMinGrad);

}  // namespace
}  // namespace ops
}  // namespace minflow
