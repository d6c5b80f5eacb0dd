// Gradients of the math ops: element-wise arithmetic (broadcasting reduced
// through BroadcastGradientArgs), unary math, Select, AddN, ClipByValue,
// MatMul, BatchMatMul and Einsum, Sum, Mean, Cast, and the math ops without
// gradient (comparisons, rounding, logical ops, ArgMax/ArgMin). The other
// reductions and the scans are in reduction_grad.cc.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"
#include "src/cc/gradients/grad_helpers.h"

namespace minflow {
namespace ops {
namespace {

using internal::ReduceBinaryGradients;
using internal::RequireRealGradient;
using internal::ScalarLike;

Status AddGrad(const Scope& scope, const Operation& op,
               const std::vector<Output>& grad_inputs,
               std::vector<Output>* grad_outputs) {
  return ReduceBinaryGradients(scope, op, grad_inputs[0], grad_inputs[0],
                               grad_outputs);
}
REGISTER_GRADIENT_OP("Add", AddGrad);
REGISTER_GRADIENT_OP("AddV2", AddGrad);

Status SubGrad(const Scope& scope, const Operation& op,
               const std::vector<Output>& grad_inputs,
               std::vector<Output>* grad_outputs) {
  return ReduceBinaryGradients(scope, op, grad_inputs[0],
                               Neg(scope, grad_inputs[0]), grad_outputs);
}
REGISTER_GRADIENT_OP("Sub", SubGrad);

// d(x*y) = dz*y, x*dz
Status MulGrad(const Scope& scope, const Operation& op,
               const std::vector<Output>& grad_inputs,
               std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  const Output& g = grad_inputs[0];
  return ReduceBinaryGradients(scope, op, Mul(scope, g, op.input(1)),
                               Mul(scope, op.input(0), g), grad_outputs);
}
REGISTER_GRADIENT_OP("Mul", MulGrad);

// d(x/y) = dz/y, -dz*x/y^2
Status DivGrad(const Scope& scope, const Operation& op,
               const std::vector<Output>& grad_inputs,
               std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  const Output& g = grad_inputs[0];
  const Output x = op.input(0);
  const Output y = op.input(1);
  auto gx = RealDiv(scope, g, y);
  auto gy = Mul(scope, g, RealDiv(scope, RealDiv(scope, Neg(scope, x), y), y));
  return ReduceBinaryGradients(scope, op, gx, gy, grad_outputs);
}
REGISTER_GRADIENT_OP("Div", DivGrad);
REGISTER_GRADIENT_OP("RealDiv", DivGrad);

Status NegGrad(const Scope& scope, const Operation& op,
               const std::vector<Output>& grad_inputs,
               std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(Neg(scope, grad_inputs[0]));
  return scope.status();
}
REGISTER_GRADIENT_OP("Neg", NegGrad);

// d(x^2) = 2x dy
Status SquareGrad(const Scope& scope, const Operation& op,
                  const std::vector<Output>& grad_inputs,
                  std::vector<Output>* grad_outputs) {
  const DataType dtype = op.output_type(0);
  MF_RETURN_IF_ERROR(RequireRealGradient(op, dtype));
  auto two_x = Mul(scope, ScalarLike(scope, 2.0, dtype), op.input(0));
  grad_outputs->push_back(Mul(scope, grad_inputs[0], two_x));
  return scope.status();
}
REGISTER_GRADIENT_OP("Square", SquareGrad);

// Sqrt, Rsqrt and Reciprocal use their *Grad ops, written in terms of the
// forward output y as TensorFlow's are.
template <typename GradOp>
Status GradFromOutput(const Scope& scope, const Operation& op,
                      const std::vector<Output>& grad_inputs,
                      std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  grad_outputs->push_back(GradOp(scope, op.output(0), grad_inputs[0]));
  return scope.status();
}
REGISTER_GRADIENT_OP("Sqrt", GradFromOutput<SqrtGrad>);
REGISTER_GRADIENT_OP("Rsqrt", GradFromOutput<RsqrtGrad>);
REGISTER_GRADIENT_OP("Reciprocal", GradFromOutput<ReciprocalGrad>);

// d(exp(x)) = dy * y
Status ExpGrad(const Scope& scope, const Operation& op,
               const std::vector<Output>& grad_inputs,
               std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  grad_outputs->push_back(Mul(scope, grad_inputs[0], op.output(0)));
  return scope.status();
}
REGISTER_GRADIENT_OP("Exp", ExpGrad);

// d(log(x)) = dy / x
Status LogGrad(const Scope& scope, const Operation& op,
               const std::vector<Output>& grad_inputs,
               std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  grad_outputs->push_back(RealDiv(scope, grad_inputs[0], op.input(0)));
  return scope.status();
}
REGISTER_GRADIENT_OP("Log", LogGrad);

Status TanhGradient(const Scope& scope, const Operation& op,
                    const std::vector<Output>& grad_inputs,
                    std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  grad_outputs->push_back(ops::TanhGrad(scope, op.output(0), grad_inputs[0]));
  return scope.status();
}
REGISTER_GRADIENT_OP("Tanh", TanhGradient);

Status SigmoidGradient(const Scope& scope, const Operation& op,
                       const std::vector<Output>& grad_inputs,
                       std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  grad_outputs->push_back(
      ops::SigmoidGrad(scope, op.output(0), grad_inputs[0]));
  return scope.status();
}
REGISTER_GRADIENT_OP("Sigmoid", SigmoidGradient);

// The unary ops whose gradient is dy * f'(x), f' built from x or y
// (the forward output) by a Derivative.
using Derivative = Output (*)(const Scope& scope, const Output& x,
                              const Output& y, DataType dtype);

template <Derivative D>
Status ChainGrad(const Scope& scope, const Operation& op,
                 const std::vector<Output>& grad_inputs,
                 std::vector<Output>* grad_outputs) {
  const DataType dtype = op.output_type(0);
  MF_RETURN_IF_ERROR(RequireRealGradient(op, dtype));
  grad_outputs->push_back(
      Mul(scope, grad_inputs[0], D(scope, op.input(0), op.output(0), dtype)));
  return scope.status();
}

// 1 - x^2 and 1 + x^2, the pieces of the inverse trigonometric ones.
Output OneMinusSquare(const Scope& s, const Output& x, DataType dtype) {
  return Sub(s, ScalarLike(s, 1, dtype), Square(s, x));
}
Output OnePlusSquare(const Scope& s, const Output& x, DataType dtype) {
  return AddV2(s, ScalarLike(s, 1, dtype), Square(s, x));
}
// 2 / sqrt(pi) * exp(-x^2), the derivative of erf.
Output ErfDerivative(const Scope& s, const Output& x, const Output&,
                     DataType dtype) {
  const double two_over_sqrt_pi = 2 / std::sqrt(M_PI);
  return Mul(s, ScalarLike(s, two_over_sqrt_pi, dtype),
             Exp(s, Neg(s, Square(s, x))));
}

// At 0 Abs takes TensorFlow's subgradient 0 (Sign(0)).
Output AbsDerivative(const Scope& s, const Output& x, const Output&, DataType) {
  return Sign(s, x);
}
Output SinDerivative(const Scope& s, const Output& x, const Output&, DataType) {
  return Cos(s, x);
}
Output CosDerivative(const Scope& s, const Output& x, const Output&, DataType) {
  return Neg(s, Sin(s, x));
}
// 1 / cos(x)^2
Output TanDerivative(const Scope& s, const Output& x, const Output&, DataType) {
  return Square(s, Reciprocal(s, Cos(s, x)));
}
Output AsinDerivative(const Scope& s, const Output& x, const Output&,
                      DataType dtype) {
  return Rsqrt(s, OneMinusSquare(s, x, dtype));
}
Output AcosDerivative(const Scope& s, const Output& x, const Output&,
                      DataType dtype) {
  return Neg(s, Rsqrt(s, OneMinusSquare(s, x, dtype)));
}
Output AtanDerivative(const Scope& s, const Output& x, const Output&,
                      DataType dtype) {
  return Reciprocal(s, OnePlusSquare(s, x, dtype));
}
Output SinhDerivative(const Scope& s, const Output& x, const Output&,
                      DataType) {
  return Cosh(s, x);
}
Output CoshDerivative(const Scope& s, const Output& x, const Output&,
                      DataType) {
  return Sinh(s, x);
}
// From y: d asinh(x) = 1 / cosh(y), d acosh(x) = 1 / sinh(y).
Output AsinhDerivative(const Scope& s, const Output&, const Output& y,
                       DataType) {
  return Reciprocal(s, Cosh(s, y));
}
Output AcoshDerivative(const Scope& s, const Output&, const Output& y,
                       DataType) {
  return Reciprocal(s, Sinh(s, y));
}
Output AtanhDerivative(const Scope& s, const Output& x, const Output&,
                       DataType dtype) {
  return Reciprocal(s, OneMinusSquare(s, x, dtype));
}
Output Log1pDerivative(const Scope& s, const Output& x, const Output&,
                       DataType dtype) {
  return Reciprocal(s, AddV2(s, ScalarLike(s, 1, dtype), x));
}
Output Expm1Derivative(const Scope& s, const Output& x, const Output&,
                       DataType) {
  return Exp(s, x);
}
Output ErfcDerivative(const Scope& s, const Output& x, const Output& y,
                      DataType dtype) {
  return Neg(s, ErfDerivative(s, x, y, dtype));
}

REGISTER_GRADIENT_OP("Abs", ChainGrad<AbsDerivative>);
REGISTER_GRADIENT_OP("Sin", ChainGrad<SinDerivative>);
REGISTER_GRADIENT_OP("Cos", ChainGrad<CosDerivative>);
REGISTER_GRADIENT_OP("Tan", ChainGrad<TanDerivative>);
REGISTER_GRADIENT_OP("Asin", ChainGrad<AsinDerivative>);
REGISTER_GRADIENT_OP("Acos", ChainGrad<AcosDerivative>);
REGISTER_GRADIENT_OP("Atan", ChainGrad<AtanDerivative>);
REGISTER_GRADIENT_OP("Sinh", ChainGrad<SinhDerivative>);
REGISTER_GRADIENT_OP("Cosh", ChainGrad<CoshDerivative>);
REGISTER_GRADIENT_OP("Asinh", ChainGrad<AsinhDerivative>);
REGISTER_GRADIENT_OP("Acosh", ChainGrad<AcoshDerivative>);
REGISTER_GRADIENT_OP("Atanh", ChainGrad<AtanhDerivative>);
REGISTER_GRADIENT_OP("Log1p", ChainGrad<Log1pDerivative>);
REGISTER_GRADIENT_OP("Expm1", ChainGrad<Expm1Derivative>);
REGISTER_GRADIENT_OP("Erf", ChainGrad<ErfDerivative>);
REGISTER_GRADIENT_OP("Erfc", ChainGrad<ErfcDerivative>);

// ---- Binary ops beyond the four arithmetic ones ----------------------------

// d(x^y) = dz * y * x^(y-1), dz * z * log(x); the second is taken as 0
// where x <= 0 (log undefined there), as TensorFlow does.
Status PowGrad(const Scope& scope, const Operation& op,
               const std::vector<Output>& grad_inputs,
               std::vector<Output>* grad_outputs) {
  const DataType dtype = op.output_type(0);
  MF_RETURN_IF_ERROR(RequireRealGradient(op, dtype));
  const Output& g = grad_inputs[0];
  const Output x = op.input(0);
  const Output y = op.input(1);
  auto y_minus_one = Sub(scope, y, ScalarLike(scope, 1, dtype));
  auto gx = Mul(scope, g, Mul(scope, y, Pow(scope, x, y_minus_one)));
  auto positive = Greater(scope, x, ScalarLike(scope, 0, dtype));
  auto safe_x = SelectV2(scope, positive, x, OnesLike(scope, x));
  auto log_x =
      SelectV2(scope, positive, Log(scope, safe_x), ZerosLike(scope, x));
  auto gy = Mul(scope, g, Mul(scope, op.output(0), log_x));
  return ReduceBinaryGradients(scope, op, gx, gy, grad_outputs);
}
REGISTER_GRADIENT_OP("Pow", PowGrad);

// The gradient goes to whichever input was picked; on a tie, to x
// (TensorFlow's GreaterEqual/LessEqual mask).
template <bool kMax>
Status MaxMinGrad(const Scope& scope, const Operation& op,
                  const std::vector<Output>& grad_inputs,
                  std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  const Output& g = grad_inputs[0];
  const Output x = op.input(0);
  const Output y = op.input(1);
  Output x_picked =
      kMax ? Output(GreaterEqual(scope, x, y)) : Output(LessEqual(scope, x, y));
  auto zeros = ZerosLike(scope, g);
  return ReduceBinaryGradients(scope, op, SelectV2(scope, x_picked, g, zeros),
                               SelectV2(scope, x_picked, zeros, g),
                               grad_outputs);
}
REGISTER_GRADIENT_OP("Maximum", MaxMinGrad<true>);
REGISTER_GRADIENT_OP("Minimum", MaxMinGrad<false>);

// d((x-y)^2) = 2 (x - y) dz, and its negation for y.
Status SquaredDifferenceGrad(const Scope& scope, const Operation& op,
                             const std::vector<Output>& grad_inputs,
                             std::vector<Output>* grad_outputs) {
  const DataType dtype = op.output_type(0);
  MF_RETURN_IF_ERROR(RequireRealGradient(op, dtype));
  auto diff = Sub(scope, op.input(0), op.input(1));
  auto gx =
      Mul(scope, Mul(scope, ScalarLike(scope, 2, dtype), grad_inputs[0]), diff);
  return ReduceBinaryGradients(scope, op, gx, Neg(scope, gx), grad_outputs);
}
REGISTER_GRADIENT_OP("SquaredDifference", SquaredDifferenceGrad);

// x mod y = x - floor(x / y) * y: dz for x, -floor(x / y) dz for y.
Status FloorModGrad(const Scope& scope, const Operation& op,
                    const std::vector<Output>& grad_inputs,
                    std::vector<Output>* grad_outputs) {
  const Output& g = grad_inputs[0];
  auto quotient = FloorDiv(scope, op.input(0), op.input(1));
  return ReduceBinaryGradients(
      scope, op, g, Mul(scope, g, Neg(scope, quotient)), grad_outputs);
}
REGISTER_GRADIENT_OP("FloorMod", FloorModGrad);

// 1 where x != 0, else 0, in x's type: Xlogy and Xdivy are 0 there
// whatever y is, so x's partial is masked by it.
Output NonZeroMask(const Scope& scope, const Output& x, DataType dtype) {
  return Cast(scope, NotEqual(scope, x, ScalarLike(scope, 0, dtype)), dtype);
}

// d(x log y) = log(y) (0 where x == 0), x / y (0 where x == 0).
Status XlogyGrad(const Scope& scope, const Operation& op,
                 const std::vector<Output>& grad_inputs,
                 std::vector<Output>* grad_outputs) {
  const DataType dtype = op.output_type(0);
  MF_RETURN_IF_ERROR(RequireRealGradient(op, dtype));
  const Output& g = grad_inputs[0];
  const Output x = op.input(0);
  const Output y = op.input(1);
  auto dx = Xlogy(scope, NonZeroMask(scope, x, dtype), y);
  auto dy = Xdivy(scope, x, y);
  return ReduceBinaryGradients(scope, op, Mul(scope, g, dx), Mul(scope, g, dy),
                               grad_outputs);
}
REGISTER_GRADIENT_OP("Xlogy", XlogyGrad);

// d(x / y) = 1 / y, -x / y^2, both 0 where x == 0.
Status XdivyGrad(const Scope& scope, const Operation& op,
                 const std::vector<Output>& grad_inputs,
                 std::vector<Output>* grad_outputs) {
  const DataType dtype = op.output_type(0);
  MF_RETURN_IF_ERROR(RequireRealGradient(op, dtype));
  const Output& g = grad_inputs[0];
  const Output x = op.input(0);
  const Output y = op.input(1);
  auto dx = Xdivy(scope, NonZeroMask(scope, x, dtype), y);
  auto dy = Xdivy(scope, Neg(scope, x), Square(scope, y));
  return ReduceBinaryGradients(scope, op, Mul(scope, g, dx), Mul(scope, g, dy),
                               grad_outputs);
}
REGISTER_GRADIENT_OP("Xdivy", XdivyGrad);

// Div's gradient with every division made safe: 0 where y == 0.
Status DivNoNanGrad(const Scope& scope, const Operation& op,
                    const std::vector<Output>& grad_inputs,
                    std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  const Output& g = grad_inputs[0];
  const Output x = op.input(0);
  const Output y = op.input(1);
  auto gx = DivNoNan(scope, g, y);
  auto gy =
      Mul(scope, g, DivNoNan(scope, DivNoNan(scope, Neg(scope, x), y), y));
  return ReduceBinaryGradients(scope, op, gx, gy, grad_outputs);
}
REGISTER_GRADIENT_OP("DivNoNan", DivNoNanGrad);

// Mul's gradient, each product 0 where its second factor is 0.
Status MulNoNanGrad(const Scope& scope, const Operation& op,
                    const std::vector<Output>& grad_inputs,
                    std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  const Output& g = grad_inputs[0];
  return ReduceBinaryGradients(scope, op, MulNoNan(scope, g, op.input(1)),
                               MulNoNan(scope, op.input(0), g), grad_outputs);
}
REGISTER_GRADIENT_OP("MulNoNan", MulNoNanGrad);

// z = atan2(y, x) (inputs y, x): dz/dy = x / (x^2 + y^2),
// dz/dx = -y / (x^2 + y^2).
Status Atan2Grad(const Scope& scope, const Operation& op,
                 const std::vector<Output>& grad_inputs,
                 std::vector<Output>* grad_outputs) {
  const Output y = op.input(0);
  const Output x = op.input(1);
  auto scaled = RealDiv(scope, grad_inputs[0],
                        AddV2(scope, Square(scope, x), Square(scope, y)));
  return ReduceBinaryGradients(scope, op, Mul(scope, x, scaled),
                               Mul(scope, Neg(scope, y), scaled), grad_outputs);
}
REGISTER_GRADIENT_OP("Atan2", Atan2Grad);

// ---- Selection and aggregation ----------------------------------------------

// The gradient goes to t where condition holds and to e elsewhere; the
// condition gets none. Select's vector condition picks rows of t and e,
// so its own masking applies to the gradient as it is.
Status SelectGrad(const Scope& scope, const Operation& op,
                  const std::vector<Output>& grad_inputs,
                  std::vector<Output>* grad_outputs) {
  const Output& g = grad_inputs[0];
  const Output c = op.input(0);
  auto zeros = ZerosLike(scope, g);
  grad_outputs->push_back(NoGradient());
  grad_outputs->push_back(Select(scope, c, g, zeros));
  grad_outputs->push_back(Select(scope, c, zeros, g));
  return scope.status();
}
REGISTER_GRADIENT_OP("Select", SelectGrad);

// Sums `grad` (in the shape of the broadcast result) down to the shape of
// `x`, one of the inputs that were broadcast into it.
Output SumToShapeOf(const Scope& scope, const Output& grad, const Output& x) {
  auto sx = Shape(scope, x);
  auto axes = BroadcastGradientArgs(scope, sx, Shape(scope, grad));
  return Reshape(scope, Sum(scope, grad, axes.r0), sx);
}

// SelectV2 broadcasts all three inputs: each masked gradient is summed
// back to the shape of its input.
Status SelectV2Grad(const Scope& scope, const Operation& op,
                    const std::vector<Output>& grad_inputs,
                    std::vector<Output>* grad_outputs) {
  const Output& g = grad_inputs[0];
  const Output c = op.input(0);
  auto zeros = ZerosLike(scope, g);
  grad_outputs->push_back(NoGradient());
  grad_outputs->push_back(
      SumToShapeOf(scope, SelectV2(scope, c, g, zeros), op.input(1)));
  grad_outputs->push_back(
      SumToShapeOf(scope, SelectV2(scope, c, zeros, g), op.input(2)));
  return scope.status();
}
REGISTER_GRADIENT_OP("SelectV2", SelectV2Grad);

// Every input of a sum gets the sum's gradient.
Status AddNGrad(const Scope& scope, const Operation& op,
                const std::vector<Output>& grad_inputs,
                std::vector<Output>* grad_outputs) {
  for (int i = 0; i < op.num_inputs(); ++i) {
    grad_outputs->push_back(Identity(scope, grad_inputs[0]));
  }
  return scope.status();
}
REGISTER_GRADIENT_OP("AddN", AddNGrad);

// Inside [min, max] the gradient passes to t; below min it goes to
// clip_value_min and above max to clip_value_max, summed down to their
// shapes (a scalar bound gets the sum over every clipped element).
Status ClipByValueGrad(const Scope& scope, const Operation& op,
                       const std::vector<Output>& grad_inputs,
                       std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  const Output& g = grad_inputs[0];
  const Output t = op.input(0);
  auto below = Less(scope, t, op.input(1));
  auto above = Greater(scope, t, op.input(2));
  auto zeros = ZerosLike(scope, g);
  grad_outputs->push_back(
      SelectV2(scope, LogicalOr(scope, below, above), zeros, g));
  grad_outputs->push_back(
      SumToShapeOf(scope, SelectV2(scope, below, g, zeros), op.input(1)));
  grad_outputs->push_back(
      SumToShapeOf(scope, SelectV2(scope, above, g, zeros), op.input(2)));
  return scope.status();
}
REGISTER_GRADIENT_OP("ClipByValue", ClipByValueGrad);

// For C = op(A) x op(B), with op a transpose or not:
//   C = A B    : dA = dC B^T,   dB = A^T dC
//   C = A^T B  : dA = B dC^T,   dB = A dC
//   C = A B^T  : dA = dC B,     dB = dC^T A
//   C = A^T B^T: dA = B^T dC^T, dB = dC^T A^T
Status MatMulGrad(const Scope& scope, const Operation& op,
                  const std::vector<Output>& grad_inputs,
                  std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  bool ta = false, tb = false;
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "transpose_a", &ta));
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "transpose_b", &tb));
  const Output& g = grad_inputs[0];
  const Output a = op.input(0);
  const Output b = op.input(1);
  auto mm = [&](const Output& l, const Output& r, bool tl, bool tr) {
    return MatMul(scope, l, r, MatMul::TransposeA(tl).TransposeB(tr)).product;
  };
  if (!ta && !tb) {
    grad_outputs->push_back(mm(g, b, false, true));
    grad_outputs->push_back(mm(a, g, true, false));
  } else if (ta && !tb) {
    grad_outputs->push_back(mm(b, g, false, true));
    grad_outputs->push_back(mm(a, g, false, false));
  } else if (!ta && tb) {
    grad_outputs->push_back(mm(g, b, false, false));
    grad_outputs->push_back(mm(g, a, true, false));
  } else {
    grad_outputs->push_back(mm(b, g, true, true));
    grad_outputs->push_back(mm(g, a, true, true));
  }
  return scope.status();
}
REGISTER_GRADIENT_OP("MatMul", MatMulGrad);

// MatMul's rule per batch, with adj_x/adj_y for the transposes (the types
// are real, so an adjoint is a transpose). BatchMatMulV2 and V3 broadcast
// the batch dimensions: each gradient is summed back over the batch axes
// its input was broadcast along (BroadcastGradientArgs of the batch
// shapes), as ReduceBinaryGradients does for element-wise ops.
Status BatchMatMulGrad(const Scope& scope, const Operation& op,
                       const std::vector<Output>& grad_inputs,
                       std::vector<Output>* grad_outputs) {
  const DataType dtype = op.output_type(0);
  MF_RETURN_IF_ERROR(RequireRealGradient(op, dtype));
  if (op.input_type(0) != dtype || op.input_type(1) != dtype) {
    return errors::Unimplemented("The gradient of ", op.node()->type_string(),
                                 " needs inputs of its output type ",
                                 DataTypeString(dtype), ", but got ",
                                 DataTypeString(op.input_type(0)), " and ",
                                 DataTypeString(op.input_type(1)));
  }
  bool adj_x = false, adj_y = false;
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "adj_x", &adj_x));
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "adj_y", &adj_y));
  const Output& g = grad_inputs[0];
  const Output x = op.input(0);
  const Output y = op.input(1);
  auto bmm = [&](const Output& l, const Output& r, bool al, bool ar) {
    return BatchMatMulV2(scope, l, r, BatchMatMulV2::AdjX(al).AdjY(ar)).output;
  };
  Output gx, gy;
  if (!adj_x && !adj_y) {
    gx = bmm(g, y, false, true);
    gy = bmm(x, g, true, false);
  } else if (adj_x && !adj_y) {
    gx = bmm(y, g, false, true);
    gy = bmm(x, g, false, false);
  } else if (!adj_x && adj_y) {
    gx = bmm(g, y, false, false);
    gy = bmm(g, x, true, false);
  } else {
    gx = bmm(y, g, true, true);
    gy = bmm(g, x, true, true);
  }
  // The batch shapes: everything but the two matrix dimensions.
  auto batch_shape = [&](const Output& shape) {
    return StridedSlice(scope, shape, {0}, {-2}, {1}).output;
  };
  auto sx = Shape(scope, x);
  auto sy = Shape(scope, y);
  auto axes = BroadcastGradientArgs(scope, batch_shape(sx), batch_shape(sy));
  grad_outputs->push_back(Reshape(scope, Sum(scope, gx, axes.r0), sx));
  grad_outputs->push_back(Reshape(scope, Sum(scope, gy, axes.r1), sy));
  return scope.status();
}
REGISTER_GRADIENT_OP("BatchMatMul", BatchMatMulGrad);
REGISTER_GRADIENT_OP("BatchMatMulV2", BatchMatMulGrad);
REGISTER_GRADIENT_OP("BatchMatMulV3", BatchMatMulGrad);

// Einsum of one or two operands, for equations with an explicit "->", no
// "..." and no label repeated within a term; other equations are
// Unimplemented. An operand's gradient is itself an einsum: the output's
// gradient contracted with the other operand, onto the operand's labels
// that the output or the other operand have. A label that only this
// operand has was summed by the forward op, so the gradient is broadcast
// along it (reshaped to size 1 there, then BroadcastTo).
Status EinsumGrad(const Scope& scope, const Operation& op,
                  const std::vector<Output>& grad_inputs,
                  std::vector<Output>* grad_outputs) {
  MF_RETURN_IF_ERROR(RequireRealGradient(op, op.output_type(0)));
  std::string equation;
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "equation", &equation));
  equation.erase(std::remove(equation.begin(), equation.end(), ' '),
                 equation.end());
  auto unsupported = [&](absl::string_view why) {
    return errors::Unimplemented("The gradient of Einsum is implemented for ",
                                 "equations without ", why, ", but got '",
                                 equation, "'");
  };
  const size_t arrow = equation.find("->");
  if (arrow == std::string::npos) return unsupported("an implicit output");
  if (equation.find("...") != std::string::npos) return unsupported("\"...\"");
  const std::string out_labels = equation.substr(arrow + 2);
  std::vector<std::string> terms =
      absl::StrSplit(equation.substr(0, arrow), ',');
  terms.push_back(out_labels);
  for (const std::string& t : terms) {
    for (size_t i = 0; i < t.size(); ++i) {
      if (t.find(t[i], i + 1) != std::string::npos) {
        return unsupported("a label repeated within a term");
      }
    }
  }
  terms.pop_back();
  if (static_cast<int>(terms.size()) != op.num_inputs()) {
    return errors::InvalidArgument("Einsum equation '", equation, "' has ",
                                   terms.size(), " operands, but the node has ",
                                   op.num_inputs(), " inputs");
  }
  const Output& g = grad_inputs[0];
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string& own = terms[i];
    const std::string other = terms.size() == 2 ? terms[1 - i] : "";
    // own's labels that the gradient einsum can produce, and a 1/0 mask of
    // them over own's axes.
    std::string reached;
    std::vector<int32_t> reached_mask;
    for (char c : own) {
      const bool in = out_labels.find(c) != std::string::npos ||
                      other.find(c) != std::string::npos;
      if (in) reached += c;
      reached_mask.push_back(in ? 1 : 0);
    }
    Output grad = other.empty()
                      ? Einsum(scope, {g}, out_labels + "->" + reached).output
                      : Einsum(scope, {g, op.input(1 - i)},
                               out_labels + "," + other + "->" + reached)
                            .output;
    if (reached.size() != own.size()) {
      // shape * mask + (1 - mask): 1 along the labels only `own` has.
      auto shape = Shape(scope, op.input(i));
      Tensor mask_t(DT_INT32,
                    TensorShape({static_cast<int64_t>(reached_mask.size())}));
      for (size_t a = 0; a < reached_mask.size(); ++a) {
        mask_t.flat<int32_t>()(a) = reached_mask[a];
      }
      auto mask = Const(scope, mask_t);
      auto kept = AddV2(scope, Mul(scope, shape, mask), Sub(scope, 1, mask));
      grad = BroadcastTo(scope, Reshape(scope, grad, kept), shape);
    }
    grad_outputs->push_back(grad);
  }
  return scope.status();
}
REGISTER_GRADIENT_OP("Einsum", EinsumGrad);

Status SumGrad(const Scope& scope, const Operation& op,
               const std::vector<Output>& grad_inputs,
               std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(internal::BroadcastReducedGradient(
      scope, grad_inputs[0], op.input(0), op.input(1)));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("Sum", SumGrad);

// Sum's gradient divided by the number of elements each output averaged.
Status MeanGrad(const Scope& scope, const Operation& op,
                const std::vector<Output>& grad_inputs,
                std::vector<Output>* grad_outputs) {
  const DataType dtype = op.output_type(0);
  auto spread = internal::BroadcastReducedGradient(scope, grad_inputs[0],
                                                   op.input(0), op.input(1));
  // How many inputs each output averages: a Const when the reduced dims
  // are known; size(input) / the kept dims' product when only those are;
  // otherwise computed from both shapes in the graph.
  std::vector<bool> reduced;
  if (internal::StaticReducedAxes(op.input(0), op.input(1), &reduced)) {
    const PartialTensorShape shape = op.input(0).shape();
    int64_t reduced_count = 1, kept_count = 1;
    bool reduced_known = true, kept_known = true;
    for (int i = 0; i < shape.dims(); ++i) {
      const int64_t d = shape.dim_size(i);
      bool& known = reduced[i] ? reduced_known : kept_known;
      int64_t& count = reduced[i] ? reduced_count : kept_count;
      if (d < 0) {
        known = false;
      } else {
        count *= d;
      }
    }
    if (reduced_known) {
      grad_outputs->push_back(
          RealDiv(scope, spread,
                  internal::ScalarLike(
                      scope, std::max<int64_t>(reduced_count, 1), dtype)));
      grad_outputs->push_back(NoGradient());
      return scope.status();
    }
    if (kept_known && kept_count > 0) {
      auto count = Div(scope, Size(scope, op.input(0)),
                       static_cast<int32_t>(kept_count));
      grad_outputs->push_back(
          RealDiv(scope, spread, Cast(scope, count, dtype)));
      grad_outputs->push_back(NoGradient());
      return scope.status();
    }
  }
  auto in_size = Prod(scope, Shape(scope, op.input(0)), 0);
  auto out_size = Prod(scope, Shape(scope, op.output(0)), 0);
  // max(.., 1): an empty output has no gradient to divide.
  auto count = Div(scope, in_size, Maximum(scope, out_size, 1));
  grad_outputs->push_back(RealDiv(scope, spread, Cast(scope, count, dtype)));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("Mean", MeanGrad);

// Between floating-point types the gradient is cast back; to or from an
// integer type nothing flows.
Status CastGrad(const Scope& scope, const Operation& op,
                const std::vector<Output>& grad_inputs,
                std::vector<Output>* grad_outputs) {
  auto is_float = [](DataType t) {
    return t == DT_FLOAT || t == DT_DOUBLE || t == DT_HALF || t == DT_BFLOAT16;
  };
  const DataType src = op.input_type(0);
  if (is_float(src) && is_float(op.output_type(0))) {
    grad_outputs->push_back(Cast(scope, grad_inputs[0], src));
  } else {
    grad_outputs->push_back(NoGradient());
  }
  return scope.status();
}
REGISTER_GRADIENT_OP("Cast", CastGrad);

// Comparisons, logical ops, classification, rounding and integer division
// have no gradient (TensorFlow's NotDifferentiable and the ops whose
// gradient it gives as None): a piecewise-constant function's derivative
// is 0 almost everywhere.
REGISTER_NO_GRADIENT_OP("Equal");
REGISTER_NO_GRADIENT_OP("NotEqual");
REGISTER_NO_GRADIENT_OP("Less");
REGISTER_NO_GRADIENT_OP("LessEqual");
REGISTER_NO_GRADIENT_OP("Greater");
REGISTER_NO_GRADIENT_OP("GreaterEqual");
REGISTER_NO_GRADIENT_OP("ArgMax");
REGISTER_NO_GRADIENT_OP("ArgMin");
REGISTER_NO_GRADIENT_OP("LogicalAnd");
REGISTER_NO_GRADIENT_OP("LogicalOr");
REGISTER_NO_GRADIENT_OP("LogicalNot");
REGISTER_NO_GRADIENT_OP("IsNan");
REGISTER_NO_GRADIENT_OP("IsInf");
REGISTER_NO_GRADIENT_OP("IsFinite");
REGISTER_NO_GRADIENT_OP("Sign");
REGISTER_NO_GRADIENT_OP("Floor");
REGISTER_NO_GRADIENT_OP("Ceil");
REGISTER_NO_GRADIENT_OP("Round");
REGISTER_NO_GRADIENT_OP("Rint");
REGISTER_NO_GRADIENT_OP("FloorDiv");
REGISTER_NO_GRADIENT_OP("TruncateDiv");
REGISTER_NO_GRADIENT_OP("Bucketize");
REGISTER_NO_GRADIENT_OP("Range");
REGISTER_NO_GRADIENT_OP("LinSpace");
REGISTER_NO_GRADIENT_OP("All");
REGISTER_NO_GRADIENT_OP("Any");
REGISTER_NO_GRADIENT_OP("Invert");
REGISTER_NO_GRADIENT_OP("BitwiseAnd");
REGISTER_NO_GRADIENT_OP("BitwiseOr");
REGISTER_NO_GRADIENT_OP("BitwiseXor");
REGISTER_NO_GRADIENT_OP("LeftShift");
REGISTER_NO_GRADIENT_OP("RightShift");

}  // namespace
}  // namespace ops
}  // namespace minflow
