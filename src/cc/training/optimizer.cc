#include "minflow/cc/training/optimizer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/framework/gradients.h"
#include "minflow/cc/ops/const_op.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"
#include "minflow/node_def.pb.h"

namespace minflow {
namespace {

// Note [What an optimiser differentiates]
// A resource variable's value enters the loss through ReadVariableOps on
// its handle, and the handle itself carries no gradient (DT_RESOURCE).
// So the optimiser differentiates the loss with respect to the outputs of
// every ReadVariableOp and ResourceGather that consumes the handle, and a
// variable's gradient is the sum over them: a read's gradient as it is
// (ReadVariableOp's pass-through gradient, without needing it), a gather's
// made dense by ResourceGather's registered gradient (Note [Dense gather
// gradients]). A TF1 reference variable is differentiated directly: its
// consumers read it as a value.

StatusOr<TrainableVariable> FindVariable(const Output& v, size_t index) {
  if (v.node() == nullptr) {
    return errors::InvalidArgument("var_list[", index, "] is a null Output");
  }
  TrainableVariable var;
  var.variable = v;
  var.name = absl::StrReplaceAll(v.node()->name(), {{"/", "_"}});
  if (v.type() == DT_RESOURCE) {
    if (v.node()->type_string() != "VarHandleOp") {
      return errors::InvalidArgument(
          "var_list[", index, "] ('", v.name(),
          "') is a resource, but not a VarHandleOp's handle: it comes from ",
          v.node()->type_string());
    }
    var.is_resource = true;
    MF_RETURN_IF_ERROR(GetNodeAttr(v.node()->def(), "dtype", &var.dtype));
    MF_RETURN_IF_ERROR(GetNodeAttr(v.node()->def(), "shape", &var.shape));
    return var;
  }
  if (IsRefType(v.type())) {
    var.dtype = RemoveRefType(v.type());
    var.shape = v.shape();
    return var;
  }
  return errors::InvalidArgument(
      "var_list[", index, "] ('", v.name(),
      "') is not a variable (a VarHandleOp's handle or a VariableV2's "
      "reference), but a ",
      DataTypeString(v.type()), " output of ", v.node()->type_string());
}

// The outputs through which `var`'s value enters a computation.
std::vector<Output> ValueOutputs(const TrainableVariable& var) {
  if (!var.is_resource) return {var.variable};
  std::vector<Output> reads;
  for (const Edge* e : var.variable.node()->out_edges()) {
    if (e->IsControlEdge() || e->src_output != var.variable.index()) continue;
    if (e->dst->type_string() == "ReadVariableOp" ||
        e->dst->type_string() == "ResourceGather") {
      reads.push_back(Output(e->dst, 0));
    }
  }
  return reads;
}

// The variable's gradient from the gradient `dy` of one of its
// ValueOutputs.
Status VariableGradient(const Scope& scope, const Output& value,
                        const Output& dy, Output* grad) {
  if (value.node()->type_string() != "ResourceGather") {
    *grad = dy;
    return OkStatus();
  }
  ops::GradFunc gather_grad = nullptr;
  MF_RETURN_IF_ERROR(
      ops::GradOpRegistry::Global()->Lookup("ResourceGather", &gather_grad));
  std::vector<Output> dx;
  MF_RETURN_IF_ERROR(gather_grad(scope, Operation(value.node()), {dy}, &dx));
  *grad = dx.at(0);
  return scope.status();
}

}  // namespace

Optimizer::~Optimizer() = default;

Status Optimizer::Minimize(const Scope& scope, const Output& loss,
                           const std::vector<Output>& var_list,
                           Operation* train_op) {
  std::vector<GradAndVar> grads_and_vars;
  MF_RETURN_IF_ERROR(ComputeGradients(scope, loss, var_list, &grads_and_vars));
  return ApplyGradients(scope, grads_and_vars, train_op);
}

// See Note [What an optimiser differentiates].
Status Optimizer::ComputeGradients(const Scope& scope, const Output& loss,
                                   const std::vector<Output>& var_list,
                                   std::vector<GradAndVar>* grads_and_vars) {
  MF_RETURN_IF_ERROR(scope.status());
  if (var_list.empty()) {
    return errors::InvalidArgument(name_, ": var_list is empty");
  }
  std::vector<Output> xs;
  std::vector<std::pair<size_t, size_t>> ranges;  // per variable, in xs
  for (size_t i = 0; i < var_list.size(); ++i) {
    MF_ASSIGN_OR_RETURN(TrainableVariable var, FindVariable(var_list[i], i));
    const std::vector<Output> values = ValueOutputs(var);
    ranges.emplace_back(xs.size(), xs.size() + values.size());
    xs.insert(xs.end(), values.begin(), values.end());
  }
  std::vector<Output> grads;
  if (!xs.empty()) {
    MF_RETURN_IF_ERROR(AddSymbolicGradients(scope, {loss}, xs, &grads));
  }
  grads_and_vars->clear();
  for (size_t i = 0; i < var_list.size(); ++i) {
    std::vector<Output> parts;
    for (size_t j = ranges[i].first; j < ranges[i].second; ++j) {
      if (grads[j].node() == nullptr) continue;
      Output part;
      MF_RETURN_IF_ERROR(VariableGradient(scope, xs[j], grads[j], &part));
      parts.push_back(part);
    }
    Output grad = NoGradient();
    if (parts.size() == 1) {
      grad = parts[0];
    } else if (parts.size() > 1) {
      grad = ops::AddN(scope, parts);
    }
    grads_and_vars->push_back({grad, var_list[i]});
  }
  return scope.status();
}

Status Optimizer::ApplyGradients(const Scope& scope,
                                 const std::vector<GradAndVar>& grads_and_vars,
                                 Operation* train_op) {
  MF_RETURN_IF_ERROR(scope.status());
  std::vector<TrainableVariable> vars;
  std::vector<Output> grads;
  std::vector<std::string> all_names;
  for (size_t i = 0; i < grads_and_vars.size(); ++i) {
    const GradAndVar& gv = grads_and_vars[i];
    MF_ASSIGN_OR_RETURN(TrainableVariable var, FindVariable(gv.variable, i));
    all_names.push_back(gv.variable.node()->name());
    if (gv.gradient.node() == nullptr) continue;
    if (var.dtype != DT_FLOAT && var.dtype != DT_DOUBLE) {
      return errors::InvalidArgument(
          name_, ": variable '", gv.variable.node()->name(), "' is ",
          DataTypeString(var.dtype),
          "; the optimisers update float and double variables");
    }
    if (gv.gradient.type() != var.dtype) {
      return errors::InvalidArgument(
          name_, ": the gradient of variable '", gv.variable.node()->name(),
          "' is ", DataTypeString(gv.gradient.type()), ", but the variable is ",
          DataTypeString(var.dtype));
    }
    vars.push_back(std::move(var));
    grads.push_back(gv.gradient);
  }
  if (vars.empty()) {
    return errors::InvalidArgument(
        "No gradients provided for any variable: [",
        absl::StrJoin(all_names, ", "),
        "]. Check that the loss depends on them through ops with gradients.");
  }
  const Scope opt = scope.NewSubScope(name_);
  MF_RETURN_IF_ERROR(Prepare(opt, vars));
  std::vector<Operation> updates;
  for (size_t i = 0; i < vars.size(); ++i) {
    const TrainableVariable& var = vars[i];
    std::map<std::string, Output>& slots = slots_[var.variable.name()];
    for (const std::string& slot : GetSlotNames()) {
      if (slots.count(slot) > 0) continue;
      MF_ASSIGN_OR_RETURN(slots[slot],
                          MakeVariable(opt.NewSubScope(var.name), slot, var,
                                       SlotInitialValue(slot), false));
    }
    // "<name>/update_<var>/ResourceApplyAdam", as TensorFlow names it.
    MF_ASSIGN_OR_RETURN(
        Operation update,
        ApplyDense(opt.NewSubScope("update_" + var.name), grads[i], var));
    updates.push_back(update);
  }
  std::vector<Operation> extra;
  MF_RETURN_IF_ERROR(Finish(opt, updates, &extra));
  updates.insert(updates.end(), extra.begin(), extra.end());
  *train_op =
      ops::NoOp(opt.WithOpName("train").WithControlDependencies(updates))
          .operation;
  return opt.status();
}

StatusOr<Output> Optimizer::GetSlot(const Output& variable,
                                    const std::string& slot_name) const {
  auto var = slots_.find(variable.name());
  if (var != slots_.end()) {
    auto slot = var->second.find(slot_name);
    if (slot != var->second.end()) return slot->second;
  }
  return errors::NotFound(name_, " has no slot '", slot_name,
                          "' for variable '", variable.name(), "'");
}

Status Optimizer::Prepare(const Scope& scope,
                          const std::vector<TrainableVariable>& vars) {
  return OkStatus();
}

Status Optimizer::Finish(const Scope& scope,
                         const std::vector<Operation>& updates,
                         std::vector<Operation>* extra) {
  return OkStatus();
}

double Optimizer::SlotInitialValue(const std::string& slot_name) const {
  return 0;
}

Output Optimizer::Slot(const TrainableVariable& var,
                       const std::string& slot_name) {
  return slots_[var.variable.name()][slot_name];
}

StatusOr<Output> Optimizer::MakeVariable(const Scope& scope,
                                         const std::string& name,
                                         const TrainableVariable& like,
                                         double value, bool scalar) {
  const PartialTensorShape shape = scalar ? PartialTensorShape({}) : like.shape;
  const Output fill = Constant(scope, value, like.dtype);
  // A shape known now gives a Const; otherwise the shape is read from the
  // variable's value when the initialiser runs.
  Output dims;
  TensorShape known;
  if (shape.AsTensorShape(&known)) {
    Tensor t(DT_INT64, TensorShape({known.dims()}));
    for (int d = 0; d < known.dims(); ++d)
      t.vec<int64_t>()(d) = known.dim_size(d);
    dims = ops::Const(scope, Input::Initializer(t));
  } else {
    dims = ops::Shape(scope, Value(scope, like),
                      ops::Shape::Attrs().OutType(DT_INT64));
  }
  const Output initial = ops::Fill(scope, dims, fill);
  Output variable;
  Operation init;
  if (like.is_resource) {
    variable = ops::VarHandleOp(scope.WithOpName(name), like.dtype, shape);
    init = ops::AssignVariableOp(scope, variable, initial).operation;
  } else {
    variable = ops::VariableV2(scope.WithOpName(name), shape, like.dtype);
    init = ops::Assign(scope, variable, initial).operation;
  }
  MF_RETURN_IF_ERROR(scope.status());
  initializers_.push_back(init);
  return variable;
}

Output Optimizer::Value(const Scope& scope, const TrainableVariable& var) {
  if (!var.is_resource) return var.variable;
  return ops::ReadVariableOp(scope, var.variable, var.dtype);
}

Output Optimizer::Constant(const Scope& scope, double value, DataType dtype) {
  Tensor t(dtype, TensorShape({}));
  if (dtype == DT_DOUBLE) {
    t.scalar<double>()() = value;
  } else {
    t.scalar<float>()() = static_cast<float>(value);
  }
  return ops::Const(scope, Input::Initializer(t));
}

GradientDescentOptimizer::GradientDescentOptimizer(double learning_rate,
                                                   std::string name)
    : Optimizer(std::move(name)), learning_rate_(learning_rate) {}

StatusOr<Operation> GradientDescentOptimizer::ApplyDense(
    const Scope& scope, const Output& grad, const TrainableVariable& var) {
  const Output lr = Constant(scope, learning_rate_, var.dtype);
  if (var.is_resource) {
    return ops::ResourceApplyGradientDescent(scope, var.variable, lr, grad)
        .operation;
  }
  return ops::ApplyGradientDescent(scope, var.variable, lr, grad).operation;
}

MomentumOptimizer::MomentumOptimizer(double learning_rate, double momentum,
                                     bool use_nesterov, std::string name)
    : Optimizer(std::move(name)),
      learning_rate_(learning_rate),
      momentum_(momentum),
      use_nesterov_(use_nesterov) {}

StatusOr<Operation> MomentumOptimizer::ApplyDense(
    const Scope& scope, const Output& grad, const TrainableVariable& var) {
  const Output lr = Constant(scope, learning_rate_, var.dtype);
  const Output momentum = Constant(scope, momentum_, var.dtype);
  const Output accum = Slot(var, "momentum");
  if (var.is_resource) {
    return ops::ResourceApplyMomentum(
               scope, var.variable, accum, lr, grad, momentum,
               ops::ResourceApplyMomentum::Attrs().UseNesterov(use_nesterov_))
        .operation;
  }
  return ops::ApplyMomentum(
             scope, var.variable, accum, lr, grad, momentum,
             ops::ApplyMomentum::Attrs().UseNesterov(use_nesterov_))
      .operation;
}

AdamOptimizer::AdamOptimizer(double learning_rate, double beta1, double beta2,
                             double epsilon, bool use_nesterov,
                             std::string name)
    : Optimizer(std::move(name)),
      learning_rate_(learning_rate),
      beta1_(beta1),
      beta2_(beta2),
      epsilon_(epsilon),
      use_nesterov_(use_nesterov) {}

// The beta powers are made once, like the first variable (resource or
// reference, its dtype): TensorFlow 1 keeps them beside the first variable
// too.
// Each ApplyGradients reads them once: the updates and the powers' own
// update share the reads (one node each instead of one per variable).
Status AdamOptimizer::Prepare(const Scope& scope,
                              const std::vector<TrainableVariable>& vars) {
  if (beta1_power_.variable.node() == nullptr) {
    const TrainableVariable& first = vars[0];
    MF_ASSIGN_OR_RETURN(
        Output b1, MakeVariable(scope, "beta1_power", first, beta1_, true));
    MF_ASSIGN_OR_RETURN(
        Output b2, MakeVariable(scope, "beta2_power", first, beta2_, true));
    beta1_power_ = {b1, first.is_resource, first.dtype, PartialTensorShape({}),
                    "beta1_power"};
    beta2_power_ = {b2, first.is_resource, first.dtype, PartialTensorShape({}),
                    "beta2_power"};
  }
  beta1_power_value_ = Value(scope, beta1_power_);
  beta2_power_value_ = Value(scope, beta2_power_);
  return scope.status();
}

StatusOr<Operation> AdamOptimizer::ApplyDense(const Scope& scope,
                                              const Output& grad,
                                              const TrainableVariable& var) {
  const DataType dtype = var.dtype;
  Output beta1_power = beta1_power_value_;
  Output beta2_power = beta2_power_value_;
  if (beta1_power_.dtype != dtype) {
    beta1_power = ops::Cast(scope, beta1_power, dtype);
    beta2_power = ops::Cast(scope, beta2_power, dtype);
  }
  const Output lr = Constant(scope, learning_rate_, dtype);
  const Output beta1 = Constant(scope, beta1_, dtype);
  const Output beta2 = Constant(scope, beta2_, dtype);
  const Output epsilon = Constant(scope, epsilon_, dtype);
  const Output m = Slot(var, "m");
  const Output v = Slot(var, "v");
  if (var.is_resource) {
    return ops::ResourceApplyAdam(
               scope, var.variable, m, v, beta1_power, beta2_power, lr, beta1,
               beta2, epsilon, grad,
               ops::ResourceApplyAdam::Attrs().UseNesterov(use_nesterov_))
        .operation;
  }
  return ops::ApplyAdam(scope, var.variable, m, v, beta1_power, beta2_power, lr,
                        beta1, beta2, epsilon, grad,
                        ops::ApplyAdam::Attrs().UseNesterov(use_nesterov_))
      .operation;
}

// After every update has read them, beta1_power *= beta1 and
// beta2_power *= beta2, so the next step sees beta^(t+1).
Status AdamOptimizer::Finish(const Scope& scope,
                             const std::vector<Operation>& updates,
                             std::vector<Operation>* extra) {
  const Scope after = scope.WithControlDependencies(updates);
  struct Power {
    const TrainableVariable* variable;
    Output value;
    double beta;
  };
  for (const Power& power :
       {Power{&beta1_power_, beta1_power_value_, beta1_},
        Power{&beta2_power_, beta2_power_value_, beta2_}}) {
    // The value read before the updates, which do not change it.
    const Output next = ops::Mul(
        scope, power.value, Constant(scope, power.beta, power.variable->dtype));
    if (power.variable->is_resource) {
      extra->push_back(
          ops::AssignVariableOp(after, power.variable->variable, next)
              .operation);
    } else {
      extra->push_back(
          ops::Assign(after, power.variable->variable, next).operation);
    }
  }
  return after.status();
}

RMSPropOptimizer::RMSPropOptimizer(double learning_rate, double decay,
                                   double momentum, double epsilon,
                                   std::string name)
    : Optimizer(std::move(name)),
      learning_rate_(learning_rate),
      decay_(decay),
      momentum_(momentum),
      epsilon_(epsilon) {}

// TensorFlow 1 starts the mean square at one, so the first steps are not
// huge.
double RMSPropOptimizer::SlotInitialValue(const std::string& slot_name) const {
  return slot_name == "rms" ? 1.0 : 0.0;
}

StatusOr<Operation> RMSPropOptimizer::ApplyDense(const Scope& scope,
                                                 const Output& grad,
                                                 const TrainableVariable& var) {
  const DataType dtype = var.dtype;
  const Output lr = Constant(scope, learning_rate_, dtype);
  const Output rho = Constant(scope, decay_, dtype);
  const Output momentum = Constant(scope, momentum_, dtype);
  const Output epsilon = Constant(scope, epsilon_, dtype);
  const Output ms = Slot(var, "rms");
  const Output mom = Slot(var, "momentum");
  if (var.is_resource) {
    return ops::ResourceApplyRMSProp(scope, var.variable, ms, mom, lr, rho,
                                     momentum, epsilon, grad)
        .operation;
  }
  return ops::ApplyRMSProp(scope, var.variable, ms, mom, lr, rho, momentum,
                           epsilon, grad)
      .operation;
}

AdagradOptimizer::AdagradOptimizer(double learning_rate,
                                   double initial_accumulator_value,
                                   std::string name)
    : Optimizer(std::move(name)),
      learning_rate_(learning_rate),
      initial_accumulator_value_(initial_accumulator_value) {}

double AdagradOptimizer::SlotInitialValue(const std::string& slot_name) const {
  return initial_accumulator_value_;
}

// TensorFlow refuses the value when the optimiser is made; a constructor
// here cannot fail, so the first ApplyGradients does, before adding ops.
Status AdagradOptimizer::Prepare(const Scope& scope,
                                 const std::vector<TrainableVariable>& vars) {
  if (!(initial_accumulator_value_ > 0)) {
    return errors::InvalidArgument(
        name(), ": initial_accumulator_value must be positive, but got ",
        initial_accumulator_value_);
  }
  return OkStatus();
}

StatusOr<Operation> AdagradOptimizer::ApplyDense(const Scope& scope,
                                                 const Output& grad,
                                                 const TrainableVariable& var) {
  const Output lr = Constant(scope, learning_rate_, var.dtype);
  const Output accum = Slot(var, "accumulator");
  if (var.is_resource) {
    return ops::ResourceApplyAdagrad(scope, var.variable, accum, lr, grad)
        .operation;
  }
  return ops::ApplyAdagrad(scope, var.variable, accum, lr, grad).operation;
}

}  // namespace minflow
