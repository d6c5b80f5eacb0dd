// The optimiser updates of src/ops/training_ops.cc on the CPU, for float
// and double. One kernel class per optimiser serves both forms: the Apply*
// op, whose variables come as references (TF1 VariableV2), and the
// ResourceApply* op, whose variables come as resource handles.
#define EIGEN_USE_THREADS

#include <algorithm>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "minflow/framework/resource_lookup.h"
#include "minflow/framework/resource_var.h"
#include "minflow/node_def.pb.h"
#include "src/kernels/training_op_functor.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

// Note [Updating a variable and its slots]
// An update reads and writes the variable and its slots together, so it
// holds all their locks at once: a reference input's mutex is its
// variable's, a handle's variable is looked up and its Var::mu() used.
// The locks are taken in address order, each once (two inputs may name one
// variable), so two updates over overlapping variables cannot deadlock.
// TensorFlow locks only with use_locking; minflow always does, as Assign
// does, because a writer may replace a tensor that a reader is copying.
// Under the locks each tensor is made safe to write in place with
// PrepareToUpdateVariable (a reader holding its buffer keeps its value:
// the copy-on-write rule of resource_var.h), and then the functor updates
// the buffers in place.

// The variables of one update (inputs [0, n)), found, locked and made
// writable by Acquire; unlocked and released when this object goes. See
// Note [Updating a variable and its slots].
class LockedVariables {
 public:
  LockedVariables() = default;
  LockedVariables(const LockedVariables&) = delete;
  LockedVariables& operator=(const LockedVariables&) = delete;
  ~LockedVariables() {
    for (absl::Mutex* mu : locked_) mu->Unlock();
    for (Var* var : vars_) var->Unref();
  }

  // Finds the storage of inputs [0, num_vars) and locks it. `names` are
  // the inputs' names in the OpDef, for messages.
  Status Acquire(OpKernelContext* ctx, absl::Span<const char* const> names,
                 DataType dtype) {
    const int num_vars = static_cast<int>(names.size());
    std::vector<absl::Mutex*> mutexes;
    for (int i = 0; i < num_vars; ++i) {
      if (ctx->input_is_ref(i)) {
        mutexes.push_back(ctx->input_ref_mutex(i));
        tensors_.push_back(ctx->params().inputs[i].tensor);
        continue;
      }
      const ResourceHandle* handle = nullptr;
      MF_RETURN_IF_ERROR(HandleFromInput(ctx, i, &handle));
      Var* var = nullptr;
      const Status s = LookupResource<Var>(ctx, *handle, &var);
      if (errors::IsNotFound(s)) {
        return errors::FailedPrecondition(
            "Attempting to use uninitialized variables: ", names[i], " (",
            handle->name(), ", which was never assigned)");
      }
      MF_RETURN_IF_ERROR(s);
      vars_.push_back(var);
      if (var->dtype() != dtype) {
        return errors::InvalidArgument(
            names[i], " is a variable of ", DataTypeString(var->dtype()),
            ", but the op's T is ", DataTypeString(dtype));
      }
      mutexes.push_back(var->mu());
      tensors_.push_back(var->tensor());
    }
    std::sort(mutexes.begin(), mutexes.end());
    mutexes.erase(std::unique(mutexes.begin(), mutexes.end()), mutexes.end());
    for (absl::Mutex* mu : mutexes) {
      mu->Lock();
      locked_.push_back(mu);
    }
    for (int i = 0; i < num_vars; ++i) {
      if (!tensors_[i]->IsInitialized()) {
        return errors::FailedPrecondition(
            "Attempting to use uninitialized variables: ", names[i], " (",
            ctx->op_kernel().def().input(i), ")");
      }
      if (i > 0 && !tensors_[i]->shape().IsSameSize(tensors_[0]->shape())) {
        return errors::InvalidArgument(names[0], " and ", names[i],
                                       " do not have the same shape",
                                       tensors_[0]->shape().DebugString(), " ",
                                       tensors_[i]->shape().DebugString());
      }
    }
    for (Tensor* t : tensors_) {
      MF_RETURN_IF_ERROR(PrepareToUpdateVariable(ctx, t));
    }
    return OkStatus();
  }

  Tensor* tensor(int i) const { return tensors_[i]; }

 private:
  std::vector<Tensor*> tensors_;
  std::vector<Var*> vars_;
  std::vector<absl::Mutex*> locked_;
};

// What every optimiser kernel shares: inputs [0, num_vars) are the variable
// and its slots, input `grad_index` the gradient, every other input a scalar
// hyperparameter. Subclasses compute the update.
class TrainingOp : public OpKernel {
 public:
  TrainingOp(OpKernelConstruction* ctx, std::vector<const char*> input_names,
             int num_vars, int grad_index)
      : OpKernel(ctx),
        input_names_(std::move(input_names)),
        num_vars_(num_vars),
        grad_index_(grad_index) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &dtype_));
    bool use_locking = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(grad_index_);
    std::vector<const Tensor*> scalars;
    for (int i = num_vars_; i < ctx->num_inputs(); ++i) {
      if (i == grad_index_) continue;
      const Tensor& s = ctx->input(i);
      OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(s.shape()),
                  errors::InvalidArgument(input_names_[i], " is not a scalar: ",
                                          s.shape().DebugString()));
      scalars.push_back(&s);
    }
    {
      LockedVariables vars;
      OP_REQUIRES_OK(
          ctx,
          vars.Acquire(ctx, absl::MakeConstSpan(input_names_).first(num_vars_),
                       dtype_));
      OP_REQUIRES(ctx, vars.tensor(0)->shape().IsSameSize(grad.shape()),
                  errors::InvalidArgument(input_names_[0], " and ",
                                          input_names_[grad_index_],
                                          " do not have the same shape",
                                          vars.tensor(0)->shape().DebugString(),
                                          " ", grad.shape().DebugString()));
      Apply(ctx->eigen_device<CPUDevice>(), vars, scalars, grad);
    }
    if (ctx->num_outputs() > 0) ctx->forward_ref_input_to_ref_output(0, 0);
  }

 protected:
  // Updates the variables (locked, same shape as grad) from the scalars,
  // in input order.
  virtual void Apply(const CPUDevice& d, const LockedVariables& vars,
                     const std::vector<const Tensor*>& scalars,
                     const Tensor& grad) = 0;

 private:
  const std::vector<const char*> input_names_;
  const int num_vars_;
  const int grad_index_;
  DataType dtype_ = DT_INVALID;
};

template <typename T>
T Scalar(const Tensor* t) {
  return t->scalar<T>()();
}

template <typename T>
typename TTypes<T>::Flat Flat(const LockedVariables& vars, int i) {
  return vars.tensor(i)->flat<T>();
}

template <typename T>
class ApplyGradientDescentOp : public TrainingOp {
 public:
  explicit ApplyGradientDescentOp(OpKernelConstruction* ctx)
      : TrainingOp(ctx, {"var", "alpha", "delta"}, 1, 2) {}

 protected:
  void Apply(const CPUDevice& d, const LockedVariables& vars,
             const std::vector<const Tensor*>& s, const Tensor& grad) override {
    functor::ApplyGradientDescent<CPUDevice, T>()(
        d, Flat<T>(vars, 0), Scalar<T>(s[0]), grad.flat<T>());
  }
};

template <typename T>
class ApplyMomentumOp : public TrainingOp {
 public:
  explicit ApplyMomentumOp(OpKernelConstruction* ctx)
      : TrainingOp(ctx, {"var", "accum", "lr", "grad", "momentum"}, 2, 3) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
  }

 protected:
  void Apply(const CPUDevice& d, const LockedVariables& vars,
             const std::vector<const Tensor*>& s, const Tensor& grad) override {
    functor::ApplyMomentum<CPUDevice, T>()(
        d, Flat<T>(vars, 0), Flat<T>(vars, 1), Scalar<T>(s[0]), grad.flat<T>(),
        Scalar<T>(s[1]), use_nesterov_);
  }

 private:
  bool use_nesterov_ = false;
};

template <typename T>
class ApplyAdamOp : public TrainingOp {
 public:
  explicit ApplyAdamOp(OpKernelConstruction* ctx)
      : TrainingOp(ctx,
                   {"var", "m", "v", "beta1_power", "beta2_power", "lr",
                    "beta1", "beta2", "epsilon", "grad"},
                   3, 9) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
  }

 protected:
  void Apply(const CPUDevice& d, const LockedVariables& vars,
             const std::vector<const Tensor*>& s, const Tensor& grad) override {
    functor::ApplyAdam<CPUDevice, T>()(
        d, Flat<T>(vars, 0), Flat<T>(vars, 1), Flat<T>(vars, 2),
        Scalar<T>(s[0]), Scalar<T>(s[1]), Scalar<T>(s[2]), Scalar<T>(s[3]),
        Scalar<T>(s[4]), Scalar<T>(s[5]), grad.flat<T>(), use_nesterov_);
  }

 private:
  bool use_nesterov_ = false;
};

template <typename T>
class ApplyRMSPropOp : public TrainingOp {
 public:
  explicit ApplyRMSPropOp(OpKernelConstruction* ctx)
      : TrainingOp(
            ctx,
            {"var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"}, 3,
            7) {}

 protected:
  void Apply(const CPUDevice& d, const LockedVariables& vars,
             const std::vector<const Tensor*>& s, const Tensor& grad) override {
    functor::ApplyRMSProp<CPUDevice, T>()(d, Flat<T>(vars, 0), Flat<T>(vars, 1),
                                          Flat<T>(vars, 2), Scalar<T>(s[0]),
                                          Scalar<T>(s[1]), Scalar<T>(s[2]),
                                          Scalar<T>(s[3]), grad.flat<T>());
  }
};

template <typename T>
class ApplyAdagradOp : public TrainingOp {
 public:
  explicit ApplyAdagradOp(OpKernelConstruction* ctx)
      : TrainingOp(ctx, {"var", "accum", "lr", "grad"}, 2, 3) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("update_slots", &update_slots_));
  }

 protected:
  void Apply(const CPUDevice& d, const LockedVariables& vars,
             const std::vector<const Tensor*>& s, const Tensor& grad) override {
    functor::ApplyAdagrad<CPUDevice, T>()(d, Flat<T>(vars, 0), Flat<T>(vars, 1),
                                          Scalar<T>(s[0]), grad.flat<T>(),
                                          update_slots_);
  }

 private:
  bool update_slots_ = true;
};

#define REGISTER_BOTH_FORMS(op, kernel, T)                                    \
  REGISTER_KERNEL_BUILDER(Name(op).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
                          kernel<T>);                                         \
  REGISTER_KERNEL_BUILDER(                                                    \
      Name("Resource" op).Device(DEVICE_CPU).TypeConstraint<T>("T"),          \
      kernel<T>);
#define REGISTER_CPU(T)                                                  \
  REGISTER_BOTH_FORMS("ApplyGradientDescent", ApplyGradientDescentOp, T) \
  REGISTER_BOTH_FORMS("ApplyMomentum", ApplyMomentumOp, T)               \
  REGISTER_BOTH_FORMS("ApplyAdam", ApplyAdamOp, T)                       \
  REGISTER_BOTH_FORMS("ApplyRMSProp", ApplyRMSPropOp, T)                 \
  REGISTER_BOTH_FORMS("ApplyAdagrad", ApplyAdagradOp, T)
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU)
#undef REGISTER_CPU
#undef REGISTER_BOTH_FORMS

}  // namespace
}  // namespace minflow
