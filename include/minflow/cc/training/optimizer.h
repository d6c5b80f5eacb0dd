// Optimisers that add "minimise this loss over these variables" to a graph,
// in the manner of TensorFlow 1's tf.compat.v1.train.Optimizer: gradients
// from AddSymbolicGradients, one Apply op per variable (src/ops/
// training_ops.cc), slot variables made as needed, and a train op that
// groups the updates.
//
//   auto w = ops::VarHandleOp(root.WithOpName("w"), DT_FLOAT,
//                             TensorShape({}));
//   auto loss = ops::Square(root, ops::Sub(root,
//       ops::Mul(root, ops::ReadVariableOp(root, w, DT_FLOAT), x), y));
//   AdamOptimizer adam(0.1);
//   Operation train;
//   MF_RETURN_IF_ERROR(adam.Minimize(root, loss, {w}, &train));
//   // Run w's initialiser and adam.initializers() once, then `train`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "minflow/cc/framework/ops.h"
#include "minflow/cc/framework/scope.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"

namespace minflow {

// A variable's gradient; `gradient` is NoGradient() (a null Output) when
// the loss does not depend on the variable.
struct GradAndVar {
  Output gradient;
  Output variable;
};

// A variable an optimiser updates, as Minimize and ApplyGradients find it:
// `variable` is a resource handle (a VarHandleOp's output) or a TF1
// reference (a VariableV2's output).
struct TrainableVariable {
  Output variable;
  bool is_resource = false;
  DataType dtype = DT_INVALID;
  PartialTensorShape shape;
  // The variable node's name with '/' as '_', for naming its slots.
  std::string name;
};

// The base of the optimisers below. An optimiser object belongs to one
// graph: it remembers the slots and other state it made there, so calling
// ApplyGradients again reuses them. Not thread-safe (graph building is
// not).
class Optimizer {
 public:
  virtual ~Optimizer();
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // ComputeGradients, then ApplyGradients. Resource variables are
  // differentiated through the ReadVariableOps that read their handle (the
  // gradients of all of a handle's reads are summed); reference variables
  // directly. Errors: see the two steps.
  Status Minimize(const Scope& scope, const Output& loss,
                  const std::vector<Output>& var_list, Operation* train_op);

  // The gradient of `loss` (summed over its elements) with respect to
  // each variable of `var_list`, in order; NoGradient() where the loss
  // does not depend on it. InvalidArgument for an Output that is not a
  // variable (not a VarHandleOp's handle nor a reference); the errors of
  // AddSymbolicGradients (an op without gradient on the path, ...).
  Status ComputeGradients(const Scope& scope, const Output& loss,
                          const std::vector<Output>& var_list,
                          std::vector<GradAndVar>* grads_and_vars);

  // Adds one update per pair that has a gradient (pairs without one are
  // skipped, as TensorFlow does) and sets *train_op to a NoOp that runs
  // them all. Slots are made the first time a variable is updated; their
  // initialisers join initializers(). InvalidArgument when no pair has a
  // gradient ("No gradients provided for any variable"), or for a
  // variable that is neither float nor double, or whose gradient has
  // another dtype.
  Status ApplyGradients(const Scope& scope,
                        const std::vector<GradAndVar>& grads_and_vars,
                        Operation* train_op);

  // The ops that give the slots and the optimiser's own variables (Adam's
  // beta powers) their first values, for the caller to run once before
  // training. A slot of a variable whose shape is not fully known is
  // initialised from the variable's value, so the variable's own
  // initialiser must have run first.
  const std::vector<Operation>& initializers() const { return initializers_; }

  // The slot variable `slot_name` (GetSlotNames()) of `variable`;
  // NotFound when it has not been made.
  StatusOr<Output> GetSlot(const Output& variable,
                           const std::string& slot_name) const;
  // The names of this optimiser's slots, e.g. {"m", "v"} for Adam.
  virtual std::vector<std::string> GetSlotNames() const = 0;

  // The name of the optimiser's sub-scope and train op ("Adam", ...).
  const std::string& name() const { return name_; }

 protected:
  explicit Optimizer(std::string name) : name_(std::move(name)) {}

  // Called once per ApplyGradients before any update, with the variables
  // that will be updated: makes the optimiser's own variables.
  virtual Status Prepare(const Scope& scope,
                         const std::vector<TrainableVariable>& vars);
  // Adds the update of `var` by `grad` (same dtype and shape). Slots are
  // made before (GetSlotNames), and are found with Slot().
  virtual StatusOr<Operation> ApplyDense(const Scope& scope, const Output& grad,
                                         const TrainableVariable& var) = 0;
  // Called after the updates were added; may add ops that must follow
  // them all (Adam's beta power updates) to *extra.
  virtual Status Finish(const Scope& scope,
                        const std::vector<Operation>& updates,
                        std::vector<Operation>* extra);
  // A slot's first value: 0 unless an optimiser says otherwise.
  virtual double SlotInitialValue(const std::string& slot_name) const;

  // The slot `slot_name` of `var` (made by ApplyGradients before
  // ApplyDense).
  Output Slot(const TrainableVariable& var, const std::string& slot_name);
  // A new variable of `var`'s kind (resource or reference), dtype and
  // shape, named `name` in `scope`, initialised to `value` by an op added
  // to initializers(); `scalar` makes a scalar instead.
  StatusOr<Output> MakeVariable(const Scope& scope, const std::string& name,
                                const TrainableVariable& like, double value,
                                bool scalar);
  // The value of a variable (ReadVariableOp, or the reference itself).
  static Output Value(const Scope& scope, const TrainableVariable& var);
  // A scalar Const of `dtype`.
  static Output Constant(const Scope& scope, double value, DataType dtype);

 private:
  const std::string name_;
  std::vector<Operation> initializers_;
  // Slots by variable (its Output's name), then by slot name.
  std::map<std::string, std::map<std::string, Output>> slots_;
};

// var -= learning_rate * grad (ApplyGradientDescent).
class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(double learning_rate,
                                    std::string name = "GradientDescent");
  std::vector<std::string> GetSlotNames() const override { return {}; }

 protected:
  StatusOr<Operation> ApplyDense(const Scope& scope, const Output& grad,
                                 const TrainableVariable& var) override;

 private:
  const double learning_rate_;
};

// Momentum, optionally Nesterov's (ApplyMomentum); slot "momentum".
class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(double learning_rate, double momentum,
                    bool use_nesterov = false, std::string name = "Momentum");
  std::vector<std::string> GetSlotNames() const override {
    return {"momentum"};
  }

 protected:
  StatusOr<Operation> ApplyDense(const Scope& scope, const Output& grad,
                                 const TrainableVariable& var) override;

 private:
  const double learning_rate_;
  const double momentum_;
  const bool use_nesterov_;
};

// Adam (ApplyAdam) with TensorFlow 1's defaults; slots "m" and "v", and
// two scalar variables beta1_power and beta2_power (in the dtype of the
// first variable updated, cast for others) that the train op multiplies
// by beta1 and beta2 after the updates.
class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(double learning_rate = 0.001, double beta1 = 0.9,
                         double beta2 = 0.999, double epsilon = 1e-8,
                         bool use_nesterov = false, std::string name = "Adam");
  std::vector<std::string> GetSlotNames() const override { return {"m", "v"}; }

 protected:
  Status Prepare(const Scope& scope,
                 const std::vector<TrainableVariable>& vars) override;
  StatusOr<Operation> ApplyDense(const Scope& scope, const Output& grad,
                                 const TrainableVariable& var) override;
  Status Finish(const Scope& scope, const std::vector<Operation>& updates,
                std::vector<Operation>* extra) override;

 private:
  const double learning_rate_;
  const double beta1_;
  const double beta2_;
  const double epsilon_;
  const bool use_nesterov_;
  TrainableVariable beta1_power_;
  TrainableVariable beta2_power_;
  // This ApplyGradients' one read of each power, which every update and
  // the powers' own update share.
  Output beta1_power_value_;
  Output beta2_power_value_;
};

// RMSProp (ApplyRMSProp, not centered) with TensorFlow 1's defaults;
// slots "rms" (starting at 1) and "momentum".
class RMSPropOptimizer : public Optimizer {
 public:
  explicit RMSPropOptimizer(double learning_rate, double decay = 0.9,
                            double momentum = 0.0, double epsilon = 1e-10,
                            std::string name = "RMSProp");
  std::vector<std::string> GetSlotNames() const override {
    return {"rms", "momentum"};
  }

 protected:
  StatusOr<Operation> ApplyDense(const Scope& scope, const Output& grad,
                                 const TrainableVariable& var) override;
  double SlotInitialValue(const std::string& slot_name) const override;

 private:
  const double learning_rate_;
  const double decay_;
  const double momentum_;
  const double epsilon_;
};

// Adagrad (ApplyAdagrad); slot "accumulator", starting at
// initial_accumulator_value (which must be positive).
class AdagradOptimizer : public Optimizer {
 public:
  explicit AdagradOptimizer(double learning_rate,
                            double initial_accumulator_value = 0.1,
                            std::string name = "Adagrad");
  std::vector<std::string> GetSlotNames() const override {
    return {"accumulator"};
  }

 protected:
  Status Prepare(const Scope& scope,
                 const std::vector<TrainableVariable>& vars) override;
  StatusOr<Operation> ApplyDense(const Scope& scope, const Output& grad,
                                 const TrainableVariable& var) override;
  double SlotInitialValue(const std::string& slot_name) const override;

 private:
  const double learning_rate_;
  const double initial_accumulator_value_;
};

}  // namespace minflow
