// Optimiser updates (TensorFlow's training_ops): one step of gradient
// descent, momentum, Adam, RMSProp or Adagrad applied to a variable and its
// slots. The Apply* ops take TF1 reference variables and pass the variable's
// reference on; the ResourceApply* ops take resource handles and have no
// outputs. Kernels: src/kernels/training_ops.cc.
#include <string>

#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"

namespace minflow {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// The shape of the value behind input `index`: for a resource input the
// variable's shape from the handle's data (unknown without it; the handle
// itself is a scalar), else the input's own shape.
StatusOr<ShapeHandle> VariableInputShape(InferenceContext* c, int index,
                                         bool is_resource) {
  if (!is_resource) return c->input(index);
  const std::vector<shape_inference::ShapeAndType>* data =
      c->input_handle_shapes_and_types(index);
  if (data == nullptr || data->empty() || (*data)[0].dtype == DT_INVALID) {
    return c->UnknownShape();
  }
  DataType t = DT_INVALID;
  MF_RETURN_IF_ERROR(c->GetAttr("T", &t));
  if ((*data)[0].dtype != t) {
    return errors::InvalidArgument("Input ", index, " is a variable of ",
                                   DataTypeString((*data)[0].dtype),
                                   ", but T is ", DataTypeString(t));
  }
  return (*data)[0].shape;
}

// Inputs [0, num_vars) are the variable and its slots, which must have one
// shape; `grad_index` is the gradient, of that shape too; every other
// input is a hyperparameter and must be a scalar. The ref forms output the
// variable (its reference).
template <bool is_resource>
OpShapeInferenceFn ApplyShape(int num_vars, int grad_index) {
  return [num_vars, grad_index](InferenceContext* c) -> Status {
    ShapeHandle s;
    for (int i = 0; i < num_vars; ++i) {
      MF_ASSIGN_OR_RETURN(ShapeHandle var,
                          VariableInputShape(c, i, is_resource));
      if (i == 0) {
        s = var;
      } else {
        MF_RETURN_IF_ERROR(c->Merge(s, var, &s));
      }
    }
    for (int i = num_vars; i < c->num_inputs(); ++i) {
      if (i == grad_index) {
        MF_RETURN_IF_ERROR(c->Merge(s, c->input(i), &s));
      } else {
        ShapeHandle unused;
        MF_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &unused));
      }
    }
    if (c->num_outputs() > 0) c->set_output(0, s);
    return OkStatus();
  };
}

// The documentation of an Apply* op and its ResourceApply* twin: the
// summary, then the update formula, then (for the ref form) what it outputs,
// then the inputs and attrs shared by both.
std::string ApplyDoc(const char* summary, const char* formula, bool ref,
                     const char* args) {
  std::string doc = std::string(summary) + "\n\n" + formula;
  if (ref) doc += "The output is var's reference.\n";
  doc += "\n";
  doc += args;
  doc +=
      "use_locking: Accepted for compatibility: the update always holds the\n"
      "  locks of the variable and its slots.\n";
  return doc;
}

constexpr char kGradientDescentFormula[] = "var -= alpha * delta.\n";
constexpr char kGradientDescentArgs[] =
    R"doc(alpha: The learning rate, a scalar.
delta: The gradient, shaped as var.
)doc";

constexpr char kMomentumFormula[] =
    R"doc(accum = accum * momentum + grad, then var -= lr * accum; with
use_nesterov, var -= lr * (grad + momentum * accum) instead.
)doc";
constexpr char kMomentumArgs[] =
    R"doc(accum: The accumulated velocity, shaped as var.
lr: The learning rate, a scalar.
grad: The gradient, shaped as var.
momentum: The momentum, a scalar.
use_nesterov: Use Nesterov momentum.
)doc";

constexpr char kAdamFormula[] =
    R"doc(With lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power):
m += (grad - m) * (1 - beta1), v += (grad^2 - v) * (1 - beta2), then
var -= lr_t * m / (sqrt(v) + epsilon); with use_nesterov, m is replaced by
beta1 * m + (1 - beta1) * grad in that last step. The caller keeps
beta1_power and beta2_power (beta1^t and beta2^t at step t).
)doc";
constexpr char kAdamArgs[] = R"doc(m: The first-moment estimate, shaped as var.
v: The second-moment estimate, shaped as var.
beta1_power: beta1 to the power of the step number, a scalar.
beta2_power: beta2 to the power of the step number, a scalar.
lr: The learning rate, a scalar.
beta1: The first moment's decay, a scalar.
beta2: The second moment's decay, a scalar.
epsilon: The denominator's offset, a scalar.
grad: The gradient, shaped as var.
use_nesterov: Use Nesterov momentum.
)doc";

constexpr char kRMSPropFormula[] =
    R"doc(ms += (grad^2 - ms) * (1 - rho), mom = mom * momentum +
lr * grad / sqrt(ms + epsilon), then var -= mom.
)doc";
constexpr char kRMSPropArgs[] =
    R"doc(ms: The mean square of the gradients, shaped as var.
mom: The momentum slot, shaped as var.
lr: The learning rate, a scalar.
rho: The mean square's decay, a scalar.
momentum: The momentum, a scalar.
epsilon: The offset under the square root, a scalar.
grad: The gradient, shaped as var.
)doc";

constexpr char kAdagradFormula[] =
    R"doc(accum += grad^2 (only with update_slots), then
var -= lr * grad / sqrt(accum).
)doc";
constexpr char kAdagradArgs[] =
    R"doc(accum: The sum of the squared gradients, shaped as var.
lr: The learning rate, a scalar.
grad: The gradient, shaped as var.
update_slots: Whether to add grad^2 to accum first.
)doc";

}  // namespace

REGISTER_OP("ApplyGradientDescent")
    .Input("var: Ref(T)")
    .Input("alpha: T")
    .Input("delta: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ApplyShape<false>(1, 2))
    .Doc(ApplyDoc(
        "Subtracts alpha * delta from the variable that var refers to.",
        kGradientDescentFormula, true, kGradientDescentArgs));

REGISTER_OP("ResourceApplyGradientDescent")
    .Input("var: resource")
    .Input("alpha: T")
    .Input("delta: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetIsStateful()
    .SetShapeFn(ApplyShape<true>(1, 2))
    .Doc(ApplyDoc("Subtracts alpha * delta from a resource variable.",
                  kGradientDescentFormula, false, kGradientDescentArgs));

REGISTER_OP("ApplyMomentum")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Input("momentum: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn(ApplyShape<false>(2, 3))
    .Doc(ApplyDoc(
        "One momentum step on the variables that var and accum refer to.",
        kMomentumFormula, true, kMomentumArgs));

REGISTER_OP("ResourceApplyMomentum")
    .Input("var: resource")
    .Input("accum: resource")
    .Input("lr: T")
    .Input("grad: T")
    .Input("momentum: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetIsStateful()
    .SetShapeFn(ApplyShape<true>(2, 3))
    .Doc(ApplyDoc("One momentum step on resource variables var and accum.",
                  kMomentumFormula, false, kMomentumArgs));

REGISTER_OP("ApplyAdam")
    .Input("var: Ref(T)")
    .Input("m: Ref(T)")
    .Input("v: Ref(T)")
    .Input("beta1_power: T")
    .Input("beta2_power: T")
    .Input("lr: T")
    .Input("beta1: T")
    .Input("beta2: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn(ApplyShape<false>(3, 9))
    .Doc(ApplyDoc("One Adam step on the variables that var, m and v refer to.",
                  kAdamFormula, true, kAdamArgs));

REGISTER_OP("ResourceApplyAdam")
    .Input("var: resource")
    .Input("m: resource")
    .Input("v: resource")
    .Input("beta1_power: T")
    .Input("beta2_power: T")
    .Input("lr: T")
    .Input("beta1: T")
    .Input("beta2: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetIsStateful()
    .SetShapeFn(ApplyShape<true>(3, 9))
    .Doc(ApplyDoc("One Adam step on resource variables var, m and v.",
                  kAdamFormula, false, kAdamArgs));

REGISTER_OP("ApplyRMSProp")
    .Input("var: Ref(T)")
    .Input("ms: Ref(T)")
    .Input("mom: Ref(T)")
    .Input("lr: T")
    .Input("rho: T")
    .Input("momentum: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ApplyShape<false>(3, 7))
    .Doc(ApplyDoc(
        "One RMSProp step on the variables that var, ms and mom refer to.",
        kRMSPropFormula, true, kRMSPropArgs));

REGISTER_OP("ResourceApplyRMSProp")
    .Input("var: resource")
    .Input("ms: resource")
    .Input("mom: resource")
    .Input("lr: T")
    .Input("rho: T")
    .Input("momentum: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetIsStateful()
    .SetShapeFn(ApplyShape<true>(3, 7))
    .Doc(ApplyDoc("One RMSProp step on resource variables var, ms and mom.",
                  kRMSPropFormula, false, kRMSPropArgs));

REGISTER_OP("ApplyAdagrad")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("update_slots: bool = true")
    .SetShapeFn(ApplyShape<false>(2, 3))
    .Doc(ApplyDoc(
        "One Adagrad step on the variables that var and accum refer to.",
        kAdagradFormula, true, kAdagradArgs));

REGISTER_OP("ResourceApplyAdagrad")
    .Input("var: resource")
    .Input("accum: resource")
    .Input("lr: T")
    .Input("grad: T")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("update_slots: bool = true")
    .SetIsStateful()
    .SetShapeFn(ApplyShape<true>(2, 3))
    .Doc(ApplyDoc("One Adagrad step on resource variables var and accum.",
                  kAdagradFormula, false, kAdagradArgs));

}  // namespace minflow
