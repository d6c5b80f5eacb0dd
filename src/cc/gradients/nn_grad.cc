// Gradients of the neural-network ops: the activations (through their
// *Grad ops), BiasAdd (BiasAddGrad), Softmax, LogSoftmax, the softmax
// cross-entropies and FusedBatchNorm/V2/V3 (FusedBatchNormGrad*).
#include <string>
#include <vector>

#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"
#include "src/cc/gradients/grad_helpers.h"

namespace minflow {
namespace ops {
namespace {

// ReluGrad from Relu's input, as TensorFlow does: at 0 the gradient is 0.
Status ReluGradient(const Scope& scope, const Operation& op,
                    const std::vector<Output>& grad_inputs,
                    std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(ReluGrad(scope, grad_inputs[0], op.input(0)));
  return scope.status();
}
REGISTER_GRADIENT_OP("Relu", ReluGradient);

// The other activations through their *Grad ops, from the forward op's
// input (Relu6, LeakyRelu, Softplus, Softsign) or output (Elu, Selu), as
// TensorFlow's gradients.
Status Relu6Gradient(const Scope& scope, const Operation& op,
                     const std::vector<Output>& grad_inputs,
                     std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(Relu6Grad(scope, grad_inputs[0], op.input(0)));
  return scope.status();
}
REGISTER_GRADIENT_OP("Relu6", Relu6Gradient);

Status EluGradient(const Scope& scope, const Operation& op,
                   const std::vector<Output>& grad_inputs,
                   std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(EluGrad(scope, grad_inputs[0], op.output(0)));
  return scope.status();
}
REGISTER_GRADIENT_OP("Elu", EluGradient);

Status SeluGradient(const Scope& scope, const Operation& op,
                    const std::vector<Output>& grad_inputs,
                    std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(SeluGrad(scope, grad_inputs[0], op.output(0)));
  return scope.status();
}
REGISTER_GRADIENT_OP("Selu", SeluGradient);

Status LeakyReluGradient(const Scope& scope, const Operation& op,
                         const std::vector<Output>& grad_inputs,
                         std::vector<Output>* grad_outputs) {
  float alpha;
  MF_RETURN_IF_ERROR(GetNodeAttr(op.node()->def(), "alpha", &alpha));
  grad_outputs->push_back(LeakyReluGrad(scope, grad_inputs[0], op.input(0),
                                        LeakyReluGrad::Alpha(alpha)));
  return scope.status();
}
REGISTER_GRADIENT_OP("LeakyRelu", LeakyReluGradient);

Status SoftplusGradient(const Scope& scope, const Operation& op,
                        const std::vector<Output>& grad_inputs,
                        std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(SoftplusGrad(scope, grad_inputs[0], op.input(0)));
  return scope.status();
}
REGISTER_GRADIENT_OP("Softplus", SoftplusGradient);

Status SoftsignGradient(const Scope& scope, const Operation& op,
                        const std::vector<Output>& grad_inputs,
                        std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(SoftsignGrad(scope, grad_inputs[0], op.input(0)));
  return scope.status();
}
REGISTER_GRADIENT_OP("Softsign", SoftsignGradient);

// The value's gradient passes through; the bias's is summed over all but
// the channel dimension.
Status BiasAddGradient(const Scope& scope, const Operation& op,
                       const std::vector<Output>& grad_inputs,
                       std::vector<Output>* grad_outputs) {
  std::string data_format;
  MF_RETURN_IF_ERROR(
      GetNodeAttr(op.node()->def(), "data_format", &data_format));
  grad_outputs->push_back(Identity(scope, grad_inputs[0]));
  grad_outputs->push_back(
      BiasAddGrad(scope, grad_inputs[0], BiasAddGrad::DataFormat(data_format)));
  return scope.status();
}
REGISTER_GRADIENT_OP("BiasAdd", BiasAddGradient);

// Whether `grad` is the zeros AddSymbolicGradients gives an output that
// received no gradient (see Note [Symbolic gradients]): TensorFlow's
// IsZero, which lets the cross-entropies skip their second-order term.
bool IsZerosLike(const Output& grad) {
  return grad.node() != nullptr && grad.node()->type_string() == "ZerosLike";
}

// For s = softmax(x) along the last axis and an upstream gradient g:
// dx = (g - sum(g * s, -1)) * s, the Jacobian of softmax applied to g.
Output SoftmaxBackward(const Scope& scope, const Output& s, const Output& g) {
  auto dot = Sum(scope, Mul(scope, g, s), -1, Sum::KeepDims(true));
  return Mul(scope, Sub(scope, g, dot), s);
}

Status SoftmaxGradient(const Scope& scope, const Operation& op,
                       const std::vector<Output>& grad_inputs,
                       std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(SoftmaxBackward(scope, op.output(0), grad_inputs[0]));
  return scope.status();
}
REGISTER_GRADIENT_OP("Softmax", SoftmaxGradient);

// For y = x - logsumexp(x): dx = g - exp(y) * sum(g, -1).
Status LogSoftmaxGradient(const Scope& scope, const Operation& op,
                          const std::vector<Output>& grad_inputs,
                          std::vector<Output>* grad_outputs) {
  const Output& g = grad_inputs[0];
  auto sum = Sum(scope, g, -1, Sum::KeepDims(true));
  grad_outputs->push_back(
      Sub(scope, g, Mul(scope, Exp(scope, op.output(0)), sum)));
  return scope.status();
}
REGISTER_GRADIENT_OP("LogSoftmax", LogSoftmaxGradient);

// Note [Cross-entropy gradients]
// The cross-entropy ops return the loss and, as `backprop`, the loss's
// gradient with respect to the logits (softmax - labels), so the logits'
// gradient is that row scaled by the loss's gradient. A gradient reaching
// `backprop` itself (a second derivative, or a graph that uses it) adds
// the softmax Jacobian applied to it, since d(backprop)/d(logits) is the
// softmax's Jacobian whatever the labels. TensorFlow adds the same term
// for SoftmaxCrossEntropyWithLogits and refuses it (PreventGradient) for
// the sparse op; minflow adds it to both. Only the loss's gradient is the
// exact derivative for labels whose rows sum to 1, as TensorFlow's: the
// op's backprop assumes it.
Output CrossEntropyLogitsGradient(const Scope& scope, const Operation& op,
                                  const std::vector<Output>& grad_inputs) {
  Output grad = Mul(scope, ExpandDims(scope, grad_inputs[0], -1), op.output(1));
  if (!IsZerosLike(grad_inputs[1])) {
    grad = Add(
        scope, grad,
        SoftmaxBackward(scope, Softmax(scope, op.input(0)), grad_inputs[1]));
  }
  return grad;
}

// The labels' gradient is -log_softmax(logits) scaled by the loss's, minus
// backprop's (d(backprop)/d(labels) = -1; TensorFlow leaves that term out).
// Both are summed back to their input's shape when the op broadcast them.
Status SoftmaxCrossEntropyWithLogitsGradient(
    const Scope& scope, const Operation& op,
    const std::vector<Output>& grad_inputs, std::vector<Output>* grad_outputs) {
  Output labels_grad = Mul(scope, ExpandDims(scope, grad_inputs[0], -1),
                           Neg(scope, LogSoftmax(scope, op.input(0))));
  if (!IsZerosLike(grad_inputs[1])) {
    labels_grad = Sub(scope, labels_grad, grad_inputs[1]);
  }
  return internal::ReduceBinaryGradients(
      scope, op, CrossEntropyLogitsGradient(scope, op, grad_inputs),
      labels_grad, grad_outputs);
}
REGISTER_GRADIENT_OP("SoftmaxCrossEntropyWithLogits",
                     SoftmaxCrossEntropyWithLogitsGradient);

// The labels are indices: they have no gradient.
Status SparseSoftmaxCrossEntropyWithLogitsGradient(
    const Scope& scope, const Operation& op,
    const std::vector<Output>& grad_inputs, std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(CrossEntropyLogitsGradient(scope, op, grad_inputs));
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("SparseSoftmaxCrossEntropyWithLogits",
                     SparseSoftmaxCrossEntropyWithLogitsGradient);

// FusedBatchNorm, V2 and V3 through FusedBatchNormGrad of the same
// version, as TensorFlow: training differentiates through the batch
// statistics (the forward op's reserve_space_1/2); inference treats the
// given mean and variance as constants. The mean and variance inputs get
// no gradient in either mode.
Status FusedBatchNormGradient(const Scope& scope, const Operation& op,
                              const std::vector<Output>& grad_inputs,
                              std::vector<Output>* grad_outputs) {
  const NodeDef& def = op.node()->def();
  float epsilon;
  std::string data_format;
  bool is_training;
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "epsilon", &epsilon));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "data_format", &data_format));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "is_training", &is_training));
  const Output& dy = grad_inputs[0];
  const Output x = op.input(0);
  const Output scale = op.input(1);
  const Output mean = is_training ? op.output(3) : op.input(3);
  const Output variance = is_training ? op.output(4) : op.input(4);
  const std::string& type = op.node()->type_string();
  Output dx, dscale, doffset;
  if (type == "FusedBatchNormV3") {
    auto g =
        FusedBatchNormGradV3(scope, dy, x, scale, mean, variance, op.output(5),
                             FusedBatchNormGradV3::Epsilon(epsilon)
                                 .DataFormat(data_format)
                                 .IsTraining(is_training));
    dx = g.x_backprop;
    dscale = g.scale_backprop;
    doffset = g.offset_backprop;
  } else if (type == "FusedBatchNormV2") {
    auto g = FusedBatchNormGradV2(scope, dy, x, scale, mean, variance,
                                  FusedBatchNormGradV2::Epsilon(epsilon)
                                      .DataFormat(data_format)
                                      .IsTraining(is_training));
    dx = g.x_backprop;
    dscale = g.scale_backprop;
    doffset = g.offset_backprop;
  } else {
    auto g = FusedBatchNormGrad(scope, dy, x, scale, mean, variance,
                                FusedBatchNormGrad::Epsilon(epsilon)
                                    .DataFormat(data_format)
                                    .IsTraining(is_training));
    dx = g.x_backprop;
    dscale = g.scale_backprop;
    doffset = g.offset_backprop;
  }
  grad_outputs->push_back(dx);
  grad_outputs->push_back(dscale);
  grad_outputs->push_back(doffset);
  grad_outputs->push_back(NoGradient());
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("FusedBatchNorm", FusedBatchNormGradient);
REGISTER_GRADIENT_OP("FusedBatchNormV2", FusedBatchNormGradient);
REGISTER_GRADIENT_OP("FusedBatchNormV3", FusedBatchNormGradient);

}  // namespace
}  // namespace ops
}  // namespace minflow
