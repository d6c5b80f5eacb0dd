// Gradients of the math ops: element-wise arithmetic (broadcasting reduced
// through BroadcastGradientArgs), unary math, MatMul, Sum, Mean, Cast, and
// the math ops without gradient (comparisons, ArgMax/ArgMin).
#include <vector>

#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/ops/standard_ops.h"
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

// d(sqrt(x)) = dy * 0.5 / y
Status SqrtGrad(const Scope& scope, const Operation& op,
                const std::vector<Output>& grad_inputs,
                std::vector<Output>* grad_outputs) {
  const DataType dtype = op.output_type(0);
  MF_RETURN_IF_ERROR(RequireRealGradient(op, dtype));
  auto half_dy = Mul(scope, grad_inputs[0], ScalarLike(scope, 0.5, dtype));
  grad_outputs->push_back(RealDiv(scope, half_dy, op.output(0)));
  return scope.status();
}
REGISTER_GRADIENT_OP("Sqrt", SqrtGrad);

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

REGISTER_NO_GRADIENT_OP("Equal");
REGISTER_NO_GRADIENT_OP("NotEqual");
REGISTER_NO_GRADIENT_OP("Less");
REGISTER_NO_GRADIENT_OP("LessEqual");
REGISTER_NO_GRADIENT_OP("Greater");
REGISTER_NO_GRADIENT_OP("GreaterEqual");
REGISTER_NO_GRADIENT_OP("ArgMax");
REGISTER_NO_GRADIENT_OP("ArgMin");

}  // namespace
}  // namespace ops
}  // namespace minflow
