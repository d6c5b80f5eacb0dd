// Gradients of the array ops: the ops that only move values (reshapes,
// transposes, concatenation and splitting, slicing, gathering, padding,
// tiling, broadcasting), the pass-through ops (Identity and its kin, the
// variables' reads), the guide's ZeroOut, and the integer and shape ops
// declared without gradient. The formulas are TensorFlow's
// (cc/gradients/array_grad.cc, python/ops/array_grad.py); gradients that TF
// returns as IndexedSlices (GatherV2) are dense here.
#include <cstdint>
#include <string>
#include <vector>

#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"

namespace minflow {
namespace ops {
namespace {

// ---- Pass-through: dx = dy ---------------------------------------------

Status IdentityGrad(const Scope& scope, const Operation& op,
                    const std::vector<Output>& grad_inputs,
                    std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(Identity(scope, grad_inputs[0]));
  return scope.status();
}
REGISTER_GRADIENT_OP("Identity", IdentityGrad);
REGISTER_GRADIENT_OP("RefIdentity", IdentityGrad);
REGISTER_GRADIENT_OP("Snapshot", IdentityGrad);
REGISTER_GRADIENT_OP("PlaceholderWithDefault", IdentityGrad);
REGISTER_GRADIENT_OP("EnsureShape", IdentityGrad);
// The gradient of a read goes to the resource handle, as in TensorFlow,
// where an optimiser picks it up. AddSymbolicGradients stops at resource
// edges (Note [Symbolic gradients]), so today it is reached only by
// differentiating with respect to the read's output.
REGISTER_GRADIENT_OP("ReadVariableOp", IdentityGrad);

Status IdentityNGrad(const Scope& scope, const Operation& op,
                     const std::vector<Output>& grad_inputs,
                     std::vector<Output>* grad_outputs) {
  for (const Output& g : grad_inputs) {
    grad_outputs->push_back(Identity(scope, g));
  }
  return scope.status();
}
REGISTER_GRADIENT_OP("IdentityN", IdentityNGrad);

// ---- Reshapes: back to the input's shape ---------------------------------

// The second input (a shape or an axis) has no gradient.
Status ReshapeGrad(const Scope& scope, const Operation& op,
                   const std::vector<Output>& grad_inputs,
                   std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(
      Reshape(scope, grad_inputs[0], Shape(scope, op.input(0))));
  if (op.num_inputs() == 2) grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("Reshape", ReshapeGrad);
REGISTER_GRADIENT_OP("ExpandDims", ReshapeGrad);
REGISTER_GRADIENT_OP("Squeeze", ReshapeGrad);

Status TransposeGrad(const Scope& scope, const Operation& op,
                     const std::vector<Output>& grad_inputs,
                     std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(
      Transpose(scope, grad_inputs[0], InvertPermutation(scope, op.input(1))));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("Transpose", TransposeGrad);

Status ReverseV2Grad(const Scope& scope, const Operation& op,
                     const std::vector<Output>& grad_inputs,
                     std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(ReverseV2(scope, grad_inputs[0], op.input(1)));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("ReverseV2", ReverseV2Grad);

// ---- Joining and splitting -----------------------------------------------

// Value i gets the slice of dy that starts at ConcatOffset's offset i and
// has value i's shape. ConcatOffset takes an int32 axis (negative allowed).
Status ConcatV2Grad(const Scope& scope, const Operation& op,
                    const std::vector<Output>& grad_inputs,
                    std::vector<Output>* grad_outputs) {
  const int n = op.num_inputs() - 1;
  Output axis = op.input(n);
  if (axis.type() != DT_INT32) axis = Cast(scope, axis, DT_INT32);
  std::vector<Output> values;
  for (int i = 0; i < n; ++i) values.push_back(op.input(i));
  auto shapes = ShapeN(scope, values);
  auto offsets = ConcatOffset(scope, axis, shapes.output);
  for (int i = 0; i < n; ++i) {
    grad_outputs->push_back(
        Slice(scope, grad_inputs[0], offsets[i], shapes[i]));
  }
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("ConcatV2", ConcatV2Grad);

// The parts' gradients joined along the split axis (outputs that received
// nothing come as zeros).
Output JoinParts(const Scope& scope, const std::vector<Output>& parts,
                 const Output& axis) {
  if (parts.size() == 1) return Identity(scope, parts[0]);
  return ConcatV2(scope, parts, axis);
}

Status SplitGrad(const Scope& scope, const Operation& op,
                 const std::vector<Output>& grad_inputs,
                 std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(NoGradient());
  grad_outputs->push_back(JoinParts(scope, grad_inputs, op.input(0)));
  return scope.status();
}
REGISTER_GRADIENT_OP("Split", SplitGrad);

Status SplitVGrad(const Scope& scope, const Operation& op,
                  const std::vector<Output>& grad_inputs,
                  std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(JoinParts(scope, grad_inputs, op.input(2)));
  grad_outputs->push_back(NoGradient());
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("SplitV", SplitVGrad);

Status PackGrad(const Scope& scope, const Operation& op,
                const std::vector<Output>& grad_inputs,
                std::vector<Output>* grad_outputs) {
  int64_t axis;
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "axis", &axis));
  auto parts =
      Unpack(scope, grad_inputs[0], op.num_inputs(), Unpack::Axis(axis));
  for (const Output& part : parts.output) grad_outputs->push_back(part);
  return scope.status();
}
REGISTER_GRADIENT_OP("Pack", PackGrad);

Status UnpackGrad(const Scope& scope, const Operation& op,
                  const std::vector<Output>& grad_inputs,
                  std::vector<Output>* grad_outputs) {
  int64_t axis;
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "axis", &axis));
  grad_outputs->push_back(Pack(scope, grad_inputs, Pack::Axis(axis)));
  return scope.status();
}
REGISTER_GRADIENT_OP("Unpack", UnpackGrad);

// ---- Slicing ---------------------------------------------------------------

// dy padded back to the input's shape: begin before, and what the slice
// left out after, in each dimension.
Status SliceGrad(const Scope& scope, const Operation& op,
                 const std::vector<Output>& grad_inputs,
                 std::vector<Output>* grad_outputs) {
  const Output input = op.input(0);
  const Output begin = op.input(1);
  const DataType index = op.input_type(1);
  auto input_shape = Shape(scope, input, Shape::OutType(index));
  auto slice_shape = Shape(scope, op.output(0), Shape::OutType(index));
  auto column = Pack(scope, {Rank(scope, input).output, Const(scope, 1)});
  auto before = Reshape(scope, begin, column);
  auto after = Reshape(
      scope, Sub(scope, Sub(scope, input_shape, slice_shape), begin), column);
  auto paddings = ConcatV2(scope, {before.output, after.output}, 1);
  grad_outputs->push_back(Pad(scope, grad_inputs[0], paddings));
  grad_outputs->push_back(NoGradient());
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("Slice", SliceGrad);

// The five masks of a StridedSlice or StridedSliceGrad node.
template <typename Attrs>
Status ReadSliceMasks(const Operation& op, Attrs* attrs) {
  const NodeDef& def = op.node()->def();
  int64_t begin, end, ellipsis, new_axis, shrink;
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "begin_mask", &begin));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "end_mask", &end));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "ellipsis_mask", &ellipsis));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "new_axis_mask", &new_axis));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "shrink_axis_mask", &shrink));
  *attrs = attrs->BeginMask(begin)
               .EndMask(end)
               .EllipsisMask(ellipsis)
               .NewAxisMask(new_axis)
               .ShrinkAxisMask(shrink);
  return OkStatus();
}

// StridedSliceGrad takes int32 or int64 indices; StridedSlice also int16.
Output AsSliceIndex(const Scope& scope, const Output& x) {
  return x.type() == DT_INT16 ? Cast(scope, x, DT_INT32) : x;
}

Status StridedSliceGradient(const Scope& scope, const Operation& op,
                            const std::vector<Output>& grad_inputs,
                            std::vector<Output>* grad_outputs) {
  StridedSliceGrad::Attrs attrs;
  MF_RETURN_IF_ERROR(ReadSliceMasks(op, &attrs));
  const Output begin = AsSliceIndex(scope, op.input(1));
  const Output end = AsSliceIndex(scope, op.input(2));
  const Output strides = AsSliceIndex(scope, op.input(3));
  auto shape = Shape(scope, op.input(0), Shape::OutType(begin.type()));
  grad_outputs->push_back(StridedSliceGrad(scope, shape, begin, end, strides,
                                           grad_inputs[0], attrs));
  for (int i = 0; i < 3; ++i) grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("StridedSlice", StridedSliceGradient);

// StridedSliceGrad is linear in dy; its adjoint is the slice itself.
Status StridedSliceGradGradient(const Scope& scope, const Operation& op,
                                const std::vector<Output>& grad_inputs,
                                std::vector<Output>* grad_outputs) {
  StridedSlice::Attrs attrs;
  MF_RETURN_IF_ERROR(ReadSliceMasks(op, &attrs));
  for (int i = 0; i < 4; ++i) grad_outputs->push_back(NoGradient());
  grad_outputs->push_back(StridedSlice(scope, grad_inputs[0], op.input(1),
                                       op.input(2), op.input(3), attrs));
  return scope.status();
}
REGISTER_GRADIENT_OP("StridedSliceGrad", StridedSliceGradGradient);

// ---- Gathering -------------------------------------------------------------

// Note [Dense gather gradients]
// TensorFlow returns the gradient of a gather's params as IndexedSlices;
// minflow has no sparse gradients, so it is summed into a dense tensor.
// params is batch + outer + [N] + inner (batch its first batch_dims dims,
// N the gathered axis) and dy is batch + outer + idx + inner (idx the
// indices' dims after the batch). As [B, O, M, K] (the products), dy goes
// to [B, M, O, K]; row (i, j) goes to segment i * N + indices[i, j], so
// each batch entry sums into its own N rows and repeated indices add up;
// the [B * N, O, K] sums go back to [B, O, N, K], which is params' shape.
// With batch_dims = 0, B is 1. GatherV2 and ResourceGather share this.
Status DenseGatherGrad(const Scope& scope, const Output& params_shape,
                       const Output& indices_in, const Output& axis_in,
                       int64_t batch_dims, const Output& dy, Output* dparams) {
  // Segment ids are int32, as the shapes they are built from.
  Output indices = indices_in;
  if (indices.type() != DT_INT32) indices = Cast(scope, indices, DT_INT32);
  Output axis = axis_in;
  if (axis.type() != DT_INT32) axis = Cast(scope, axis, DT_INT32);
  // A negative axis or batch_dims counts from the end; the kernel checked
  // the ranges.
  auto axis_nn = FloorMod(scope, axis, Size(scope, params_shape));
  Output b = Const(scope, static_cast<int32_t>(batch_dims));
  if (batch_dims < 0) b = Add(scope, b, Rank(scope, indices_in));
  auto b_vec = ExpandDims(scope, b, 0);
  auto after_axis = ExpandDims(scope, Add(scope, axis_nn, 1), 0);
  auto size = [&](const Output& shape) { return Prod(scope, shape, 0); };
  auto batch = size(Slice(scope, params_shape, {0}, b_vec));
  auto outer = size(Slice(scope, params_shape, b_vec,
                          ExpandDims(scope, Sub(scope, axis_nn, b), 0)));
  auto n = GatherV2(scope, params_shape, axis_nn, 0);
  auto inner = size(Slice(scope, params_shape, after_axis, {-1}));
  auto idx = size(Slice(scope, Shape(scope, indices), b_vec, {-1}));
  auto dy4 = Reshape(
      scope, dy,
      Pack(scope, {batch.output, outer.output, idx.output, inner.output}));
  auto values = Reshape(
      scope, Transpose(scope, dy4, {0, 2, 1, 3}),
      Pack(scope, {Mul(scope, batch, idx).z, outer.output, inner.output}));
  auto offsets = Mul(scope, Range(scope, 0, batch, 1), n);
  auto ids = Reshape(
      scope,
      Add(scope,
          Reshape(scope, indices, Pack(scope, {batch.output, idx.output})),
          ExpandDims(scope, offsets, 1)),
      {-1});
  auto sums = UnsortedSegmentSum(scope, values, ids, Mul(scope, batch, n));
  auto back = Transpose(scope,
                        Reshape(scope, sums,
                                Pack(scope, {batch.output, n.output,
                                             outer.output, inner.output})),
                        {0, 2, 1, 3});
  *dparams = Reshape(scope, back, params_shape);
  return scope.status();
}

Status GatherV2Grad(const Scope& scope, const Operation& op,
                    const std::vector<Output>& grad_inputs,
                    std::vector<Output>* grad_outputs) {
  int64_t batch_dims;
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "batch_dims", &batch_dims));
  Output dparams;
  MF_RETURN_IF_ERROR(DenseGatherGrad(scope, Shape(scope, op.input(0)),
                                     op.input(1), op.input(2), batch_dims,
                                     grad_inputs[0], &dparams));
  grad_outputs->push_back(dparams);
  grad_outputs->push_back(NoGradient());
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("GatherV2", GatherV2Grad);

// The gradient of the gathered variable, dense (Note [Dense gather
// gradients]), as the gradient of the handle: AddSymbolicGradients does not
// follow resource edges, so Optimizer::ComputeGradients differentiates with
// respect to the gather's output and calls this to reach the variable
// (Note [What an optimiser differentiates]).
Status ResourceGatherGrad(const Scope& scope, const Operation& op,
                          const std::vector<Output>& grad_inputs,
                          std::vector<Output>* grad_outputs) {
  int64_t batch_dims;
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "batch_dims", &batch_dims));
  Output dvalue;
  MF_RETURN_IF_ERROR(
      DenseGatherGrad(scope, VariableShape(scope, op.input(0)), op.input(1),
                      Const(scope, static_cast<int32_t>(batch_dims)),
                      batch_dims, grad_inputs[0], &dvalue));
  grad_outputs->push_back(dvalue);
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("ResourceGather", ResourceGatherGrad);

// ---- Padding, tiling, broadcasting ---------------------------------------

// The unpadded middle of dy. PadV2's constant has no gradient, as in
// TensorFlow.
Status PadGrad(const Scope& scope, const Operation& op,
               const std::vector<Output>& grad_inputs,
               std::vector<Output>* grad_outputs) {
  const Output input = op.input(0);
  const Output paddings = op.input(1);
  auto before = Reshape(scope, Slice(scope, paddings, {0, 0}, {-1, 1}), {-1});
  auto size = Shape(scope, input, Shape::OutType(paddings.type()));
  grad_outputs->push_back(Slice(scope, grad_inputs[0], before, size));
  grad_outputs->push_back(NoGradient());
  if (op.num_inputs() == 3) grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("Pad", PadGrad);
REGISTER_GRADIENT_OP("PadV2", PadGrad);

Status MirrorPadGradient(const Scope& scope, const Operation& op,
                         const std::vector<Output>& grad_inputs,
                         std::vector<Output>* grad_outputs) {
  std::string mode;
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "mode", &mode));
  grad_outputs->push_back(
      MirrorPadGrad(scope, grad_inputs[0], op.input(1), mode));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("MirrorPad", MirrorPadGradient);

// MirrorPadGrad is linear; its adjoint is MirrorPad.
Status MirrorPadGradGradient(const Scope& scope, const Operation& op,
                             const std::vector<Output>& grad_inputs,
                             std::vector<Output>* grad_outputs) {
  std::string mode;
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "mode", &mode));
  grad_outputs->push_back(MirrorPad(scope, grad_inputs[0], op.input(1), mode));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("MirrorPadGrad", MirrorPadGradGradient);

// dy viewed as [m0, s0, m1, s1, ...] (multiples interleaved with the input's
// dims) and summed over the multiples' axes 0, 2, 4, ...
Status TileGrad(const Scope& scope, const Operation& op,
                const std::vector<Output>& grad_inputs,
                std::vector<Output>* grad_outputs) {
  const Output multiples = op.input(1);
  auto input_shape =
      Shape(scope, op.input(0), Shape::OutType(multiples.type()));
  auto split_shape = Reshape(
      scope,
      Transpose(scope, Pack(scope, {multiples, input_shape.output}), {1, 0}),
      {-1});
  auto axes = Range(scope, 0, Size(scope, split_shape), 2);
  grad_outputs->push_back(
      Sum(scope, Reshape(scope, grad_inputs[0], split_shape), axes));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("Tile", TileGrad);

// dy summed over the axes the input was broadcast along.
Status BroadcastToGrad(const Scope& scope, const Operation& op,
                       const std::vector<Output>& grad_inputs,
                       std::vector<Output>* grad_outputs) {
  const Output shape = op.input(1);
  auto input_shape = Shape(scope, op.input(0), Shape::OutType(shape.type()));
  auto axes = BroadcastGradientArgs(scope, input_shape, shape);
  auto sum = Sum(scope, grad_inputs[0], axes.r0, Sum::KeepDims(true));
  grad_outputs->push_back(Reshape(scope, sum, input_shape));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("BroadcastTo", BroadcastToGrad);

// ---- The guide's ZeroOut ---------------------------------------------------

// ZeroOut keeps element preserve_index and zeros the rest: the gradient is
// zeros with dy's element preserve_index in its place, which is ZeroOut of
// dy. (The guide's Python gradient builds the same tensor for index 0 with
// sparse_to_dense.)
Status ZeroOutGrad(const Scope& scope, const Operation& op,
                   const std::vector<Output>& grad_inputs,
                   std::vector<Output>* grad_outputs) {
  int64_t preserve_index;
  MF_RETURN_IF_ERROR(
      GetNodeAttr(op.node()->def(), "preserve_index", &preserve_index));
  grad_outputs->push_back(
      ZeroOut(scope, grad_inputs[0], ZeroOut::PreserveIndex(preserve_index)));
  return scope.status();
}
REGISTER_GRADIENT_OP("ZeroOut", ZeroOutGrad);

// ---- No gradient: integer and shape ops -----------------------------------

REGISTER_NO_GRADIENT_OP("Shape");
REGISTER_NO_GRADIENT_OP("ShapeN");
REGISTER_NO_GRADIENT_OP("Size");
REGISTER_NO_GRADIENT_OP("Rank");
REGISTER_NO_GRADIENT_OP("ZerosLike");
REGISTER_NO_GRADIENT_OP("OnesLike");
REGISTER_NO_GRADIENT_OP("StopGradient");
REGISTER_NO_GRADIENT_OP("BroadcastGradientArgs");
REGISTER_NO_GRADIENT_OP("BroadcastArgs");
REGISTER_NO_GRADIENT_OP("ConcatOffset");
REGISTER_NO_GRADIENT_OP("InvertPermutation");
REGISTER_NO_GRADIENT_OP("OneHot");
REGISTER_NO_GRADIENT_OP("Where");
// Unique's idx is an integer output; declared so, a y = Unique(x) on the
// path stops the gradient instead of failing the whole call.
REGISTER_NO_GRADIENT_OP("Unique");

}  // namespace
}  // namespace ops
}  // namespace minflow
