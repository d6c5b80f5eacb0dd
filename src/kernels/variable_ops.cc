// TensorFlow 1 reference variables. VariableV2 keeps a Var in the session's
// ResourceMgr (under `container`/`shared_name`, the node's name by default)
// and outputs a reference to its tensor; Assign, AssignAdd and AssignSub
// update the variable through that reference under its mutex and hand the
// reference on. Updates never write into a buffer a reader may hold: the
// variable's tensor is replaced instead (see Var in resource_var.h).
#include <string>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/resource_var.h"
#include "minflow/node_def.pb.h"
#include "src/kernels/variable_ops_common.h"

namespace minflow {
namespace {

class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
    if (shared_name_.empty()) shared_name_ = name();
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    OP_REQUIRES(ctx, rm != nullptr,
                errors::Internal("No resource manager for variable ", name()));
    const std::string& container =
        container_.empty() ? rm->default_container() : container_;
    Var* var = nullptr;
    OP_REQUIRES_OK(ctx,
                   rm->LookupOrCreate<Var>(container, shared_name_, &var,
                                           [this](Var** created) -> Status {
                                             *created = new Var(dtype_);
                                             return OkStatus();
                                           }));
    core::ScopedUnref unref(var);
    OP_REQUIRES(ctx, var->dtype() == dtype_,
                errors::InvalidArgument(
                    "Variable ", container, "/", shared_name_, " holds ",
                    DataTypeString(var->dtype()), ", but this node declares ",
                    DataTypeString(dtype_)));
    ctx->set_output_ref(0, var->mu(), var->tensor(), var);
  }
  bool IsExpensive() override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
  std::string container_;
  std::string shared_name_;
};

// The variable takes the value's buffer when nothing else holds it, else
// a copy: a tensor the caller fed may be written again by the caller.
// `use_locking` is accepted and the update always takes the variable's
// lock, so concurrent steps never race.
class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& rhs = ctx->input(1);
    {
      absl::MutexLock lock(ctx->input_ref_mutex(0));
      const Tensor old = ctx->mutable_input(0, /*lock_held=*/true);
      OP_REQUIRES(
          ctx,
          !validate_shape_ || !old.IsInitialized() ||
              old.shape().IsSameSize(rhs.shape()),
          errors::InvalidArgument(
              "Assign requires shapes of both tensors to match. lhs shape= ",
              old.shape().DebugString(),
              " rhs shape= ", rhs.shape().DebugString()));
      Tensor value;
      OP_REQUIRES_OK(ctx, ValueForVariable(ctx, rhs, &value));
      ctx->replace_ref_input(0, value, /*lock_held=*/true);
    }
    ctx->forward_ref_input_to_ref_output(0, 0);
  }
  bool IsExpensive() override { return false; }

 private:
  bool validate_shape_ = true;
};

// AssignAdd, AssignSub: the sum is written to a new buffer that replaces
// the variable's, so a reader holding the old value keeps it unchanged.
class DenseUpdateOp : public OpKernel {
 public:
  DenseUpdateOp(OpKernelConstruction* ctx, DenseUpdate op)
      : OpKernel(ctx), op_(op) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& rhs = ctx->input(1);
    {
      absl::MutexLock lock(ctx->input_ref_mutex(0));
      const Tensor old = ctx->mutable_input(0, /*lock_held=*/true);
      OP_REQUIRES(ctx, old.IsInitialized(),
                  errors::FailedPrecondition(
                      "Attempting to use uninitialized value ",
                      def().input_size() > 0 ? def().input(0) : name()));
      OP_REQUIRES(ctx, old.shape().IsSameSize(rhs.shape()),
                  errors::InvalidArgument(
                      "Parameters and update must be the same size: "
                      "variable shape ",
                      old.shape().DebugString(), ", update shape ",
                      rhs.shape().DebugString()));
      Tensor result;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_temp(old.dtype(), old.shape(), &result));
      OP_REQUIRES_OK(ctx, ApplyDenseUpdate(op_, old, rhs, &result));
      ctx->replace_ref_input(0, result, /*lock_held=*/true);
    }
    ctx->forward_ref_input_to_ref_output(0, 0);
  }

 private:
  const DenseUpdate op_;
};

class AssignAddOp : public DenseUpdateOp {
 public:
  explicit AssignAddOp(OpKernelConstruction* ctx)
      : DenseUpdateOp(ctx, DenseUpdate::kAdd) {}
};

class AssignSubOp : public DenseUpdateOp {
 public:
  explicit AssignSubOp(OpKernelConstruction* ctx)
      : DenseUpdateOp(ctx, DenseUpdate::kSub) {}
};

class IsVariableInitializedOp : public OpKernel {
 public:
  explicit IsVariableInitializedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const bool initialized =
        ctx->mutable_input(0, /*lock_held=*/false).IsInitialized();
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<bool>()() = initialized;
  }
  bool IsExpensive() override { return false; }
};

REGISTER_KERNEL_BUILDER(Name("VariableV2").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL_BUILDER(Name("Variable").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL_BUILDER(Name("Assign").Device(DEVICE_CPU), AssignOp);
REGISTER_KERNEL_BUILDER(Name("AssignAdd").Device(DEVICE_CPU), AssignAddOp);
REGISTER_KERNEL_BUILDER(Name("AssignSub").Device(DEVICE_CPU), AssignSubOp);
REGISTER_KERNEL_BUILDER(Name("IsVariableInitialized").Device(DEVICE_CPU),
                        IsVariableInitializedOp);

}  // namespace
}  // namespace minflow
