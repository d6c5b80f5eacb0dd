// TensorFlow 2 resource variables. VarHandleOp hands out a handle to a Var
// in the session's ResourceMgr; AssignVariableOp creates the Var on first
// use; reads share the variable's buffer under its lock, and updates write
// in place only when no reader holds that buffer, else into a copy (the
// copy-on-write rule of Var in resource_var.h), so concurrent steps that
// read and assign one variable are safe.
#include <string>

#include "absl/base/call_once.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/resource_lookup.h"
#include "minflow/framework/resource_var.h"
#include "minflow/node_def.pb.h"
#include "src/kernels/data_movement.h"
#include "src/kernels/variable_ops_common.h"

namespace minflow {
namespace {

// The variable behind input 0, with a reference the caller must drop
// (core::ScopedUnref); `verb` names the access in errors. A variable that
// does not exist is FailedPrecondition: it was never assigned, or deleted.
Status LookupVariable(OpKernelContext* ctx, const char* verb, DataType dtype,
                      Var** var, const ResourceHandle** handle_out = nullptr) {
  const ResourceHandle* handle = nullptr;
  MF_RETURN_IF_ERROR(HandleFromInput(ctx, 0, &handle));
  if (handle_out != nullptr) *handle_out = handle;
  Status s = LookupResource<Var>(ctx, *handle, var);
  if (errors::IsNotFound(s)) {
    return errors::FailedPrecondition(
        "Could not ", verb, " variable ", handle->name(), " from container ",
        handle->container(),
        ": it does not exist (it was never assigned, or it was deleted). ",
        s.message());
  }
  MF_RETURN_IF_ERROR(s);
  if (dtype != DT_INVALID && (*var)->dtype() != dtype) {
    const DataType held = (*var)->dtype();
    (*var)->Unref();
    *var = nullptr;
    return errors::InvalidArgument(
        "Trying to ", verb, " variable with wrong dtype. Expected ",
        DataTypeString(held), " got ", DataTypeString(dtype));
  }
  return OkStatus();
}

class VarHandleOp : public OpKernel {
 public:
  explicit VarHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape_));
    if (shared_name_.empty()) shared_name_ = name();
  }

  // The handle is the same on every call: made once, then shared.
  void Compute(OpKernelContext* ctx) override {
    absl::call_once(once_, [&] {
      handle_ = Tensor(DT_RESOURCE, TensorShape());
      handle_.scalar<ResourceHandle>()() = MakeResourceHandle<Var>(
          ctx, container_, shared_name_, {{dtype_, shape_}});
    });
    ctx->set_output(0, handle_);
  }
  bool IsExpensive() override { return false; }

 private:
  std::string container_;
  std::string shared_name_;
  DataType dtype_ = DT_INVALID;
  PartialTensorShape shape_;
  absl::once_flag once_;
  Tensor handle_;
};

class ReadVariableOp : public OpKernel {
 public:
  explicit ReadVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    Var* var = nullptr;
    const ResourceHandle* handle = nullptr;
    OP_REQUIRES_OK(ctx, LookupVariable(ctx, "read", dtype_, &var, &handle));
    core::ScopedUnref unref(var);
    Tensor value;
    {
      absl::ReaderMutexLock lock(var->mu());
      value = *var->tensor();
    }
    OP_REQUIRES(
        ctx, value.IsInitialized(),
        errors::FailedPrecondition("Could not read variable ", handle->name(),
                                   ": it is not initialized"));
    ctx->set_output(0, std::move(value));
  }
  bool IsExpensive() override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
};

class AssignVariableOp : public OpKernel {
 public:
  explicit AssignVariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    if (ctx->def().attr().count("validate_shape") > 0) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const ResourceHandle* handle = nullptr;
    OP_REQUIRES_OK(ctx, HandleFromInput(ctx, 0, &handle));
    const Tensor& value = ctx->input(1);
    Var* var = nullptr;
    OP_REQUIRES_OK(ctx, LookupOrCreateResource<Var>(
                            ctx, *handle, &var, [this](Var** created) {
                              *created = new Var(dtype_);
                              return OkStatus();
                            }));
    core::ScopedUnref unref(var);
    OP_REQUIRES(
        ctx, var->dtype() == dtype_,
        errors::InvalidArgument(
            "Trying to assign variable with wrong dtype. Expected ",
            DataTypeString(var->dtype()), " got ", DataTypeString(dtype_)));
    absl::MutexLock lock(var->mu());
    Tensor* held = var->tensor();
    OP_REQUIRES(
        ctx,
        !validate_shape_ || !held->IsInitialized() ||
            held->shape().IsSameSize(value.shape()),
        errors::InvalidArgument("Trying to assign to variable ", handle->name(),
                                " with tensor with wrong shape. Expected ",
                                held->shape().DebugString(), " got ",
                                value.shape().DebugString()));
    // Shares the value's buffer only when nothing else holds it.
    OP_REQUIRES_OK(ctx, ValueForVariable(ctx, value, held));
  }
  bool IsExpensive() override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
  bool validate_shape_ = false;
};

class AssignUpdateVariableOp : public OpKernel {
 public:
  AssignUpdateVariableOp(OpKernelConstruction* ctx, DenseUpdate op)
      : OpKernel(ctx), op_(op) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    Var* var = nullptr;
    const ResourceHandle* handle = nullptr;
    OP_REQUIRES_OK(ctx, LookupVariable(ctx, "update", dtype_, &var, &handle));
    core::ScopedUnref unref(var);
    const Tensor& value = ctx->input(1);
    absl::MutexLock lock(var->mu());
    Tensor* held = var->tensor();
    OP_REQUIRES(
        ctx, held->IsInitialized(),
        errors::FailedPrecondition("Could not update variable ", handle->name(),
                                   ": it is not initialized"));
    OP_REQUIRES(ctx, held->shape().IsSameSize(value.shape()),
                errors::InvalidArgument(
                    "Cannot update variable with shape ",
                    held->shape().DebugString(), " using a Tensor with shape ",
                    value.shape().DebugString(), ", shapes must be equal."));
    if (held->RefCountIsOne()) {
      OP_REQUIRES_OK(ctx, ApplyDenseUpdate(op_, *held, value, held));
      return;
    }
    Tensor result;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_temp(held->dtype(), held->shape(), &result));
    OP_REQUIRES_OK(ctx, ApplyDenseUpdate(op_, *held, value, &result));
    *held = std::move(result);
  }
  bool IsExpensive() override { return false; }

 private:
  const DenseUpdate op_;
  DataType dtype_ = DT_INVALID;
};

class AssignAddVariableOp : public AssignUpdateVariableOp {
 public:
  explicit AssignAddVariableOp(OpKernelConstruction* ctx)
      : AssignUpdateVariableOp(ctx, DenseUpdate::kAdd) {}
};

class AssignSubVariableOp : public AssignUpdateVariableOp {
 public:
  explicit AssignSubVariableOp(OpKernelConstruction* ctx)
      : AssignUpdateVariableOp(ctx, DenseUpdate::kSub) {}
};

class VarIsInitializedOp : public OpKernel {
 public:
  explicit VarIsInitializedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const ResourceHandle* handle = nullptr;
    OP_REQUIRES_OK(ctx, HandleFromInput(ctx, 0, &handle));
    Var* var = nullptr;
    const Status s = LookupResource<Var>(ctx, *handle, &var);
    OP_REQUIRES(ctx, s.ok() || errors::IsNotFound(s), s);
    bool initialized = false;
    if (s.ok()) {
      initialized = var->is_initialized();
      var->Unref();
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<bool>()() = initialized;
  }
  bool IsExpensive() override { return false; }
};

// TensorFlow switches a variable out of its copy-on-read mode before a
// checkpoint reads it. minflow's Var has one mode (copy on write, see
// resource_var.h), so there is nothing to switch: the kernel only checks
// that the variable exists, as TensorFlow's does.
class DisableCopyOnReadOp : public OpKernel {
 public:
  explicit DisableCopyOnReadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const ResourceHandle* handle = nullptr;
    OP_REQUIRES_OK(ctx, HandleFromInput(ctx, 0, &handle));
    Var* var = nullptr;
    OP_REQUIRES_OK(ctx, LookupResource<Var>(ctx, *handle, &var));
    var->Unref();
  }
  bool IsExpensive() override { return false; }
};

class DestroyResourceOp : public OpKernel {
 public:
  explicit DestroyResourceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("ignore_lookup_error", &ignore_lookup_error_));
  }
  void Compute(OpKernelContext* ctx) override {
    const ResourceHandle* handle = nullptr;
    OP_REQUIRES_OK(ctx, HandleFromInput(ctx, 0, &handle));
    const Status s = DeleteResource(ctx, *handle);
    if (ignore_lookup_error_ && errors::IsNotFound(s)) return;
    OP_REQUIRES_OK(ctx, s);
  }
  bool IsExpensive() override { return false; }

 private:
  bool ignore_lookup_error_ = true;
};

class VariableShapeOp : public OpKernel {
 public:
  explicit VariableShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("out_type", &out_type_));
  }
  void Compute(OpKernelContext* ctx) override {
    Var* var = nullptr;
    OP_REQUIRES_OK(ctx,
                   LookupVariable(ctx, "read the shape of", DT_INVALID, &var));
    core::ScopedUnref unref(var);
    TensorShape shape;
    {
      absl::ReaderMutexLock lock(var->mu());
      shape = var->tensor()->shape();
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({shape.dims()}), &out));
    for (int d = 0; d < shape.dims(); ++d) {
      if (out_type_ == DT_INT32) {
        OP_REQUIRES(ctx, shape.dim_size(d) <= INT32_MAX,
                    errors::InvalidArgument("Variable dimension ", d, " (",
                                            shape.dim_size(d),
                                            ") does not fit in int32"));
        out->vec<int32_t>()(d) = static_cast<int32_t>(shape.dim_size(d));
      } else {
        out->vec<int64_t>()(d) = shape.dim_size(d);
      }
    }
  }
  bool IsExpensive() override { return false; }

 private:
  DataType out_type_ = DT_INT32;
};

// Reads the indices of input 1 as int64, checking each against [0, limit).
Status ReadIndices(const Tensor& indices, int64_t limit,
                   std::vector<int64_t>* out) {
  const int64_t n = indices.NumElements();
  out->resize(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = indices.dtype() == DT_INT32 ? indices.flat<int32_t>()(i)
                                                  : indices.flat<int64_t>()(i);
    if (v < 0 || v >= limit) {
      return errors::InvalidArgument("indices[", i, "] = ", v,
                                     " is not in [0, ", limit, ")");
    }
    (*out)[i] = v;
  }
  return OkStatus();
}

// out = params[:b] + indices[b:] + params[b+1:], rows picked per batch.
class ResourceGatherOp : public OpKernel {
 public:
  explicit ResourceGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
    OP_REQUIRES(ctx, batch_dims_ >= 0,
                errors::InvalidArgument("batch_dims must be non-negative, got ",
                                        batch_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    Var* var = nullptr;
    OP_REQUIRES_OK(ctx, LookupVariable(ctx, "gather from", dtype_, &var));
    core::ScopedUnref unref(var);
    Tensor params;
    {
      absl::ReaderMutexLock lock(var->mu());
      params = *var->tensor();
    }
    OP_REQUIRES(ctx, params.IsInitialized(),
                errors::FailedPrecondition(
                    "Could not gather from variable: it is not initialized"));
    const Tensor& indices = ctx->input(1);
    const int b = static_cast<int>(batch_dims_);
    OP_REQUIRES(ctx, params.dims() > b && indices.dims() >= b,
                errors::InvalidArgument("batch_dims (", b,
                                        ") must be less than the rank of the "
                                        "variable (",
                                        params.dims(),
                                        ") and at most the rank of "
                                        "indices (",
                                        indices.dims(), ")"));
    TensorShape out_shape;
    int64_t batch = 1;
    for (int d = 0; d < b; ++d) {
      OP_REQUIRES(ctx, params.dim_size(d) == indices.dim_size(d),
                  errors::InvalidArgument("params.shape[", d,
                                          "] = ", params.dim_size(d),
                                          " must equal indices.shape[", d,
                                          "] = ", indices.dim_size(d)));
      batch *= params.dim_size(d);
      out_shape.AddDim(params.dim_size(d));
    }
    for (int d = b; d < indices.dims(); ++d) {
      out_shape.AddDim(indices.dim_size(d));
    }
    int64_t inner = 1;
    for (int d = b + 1; d < params.dims(); ++d) {
      out_shape.AddDim(params.dim_size(d));
      inner *= params.dim_size(d);
    }
    const int64_t gather_dim = params.dim_size(b);
    std::vector<int64_t> rows;
    OP_REQUIRES_OK(ctx, ReadIndices(indices, gather_dim, &rows));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t per_batch = batch == 0 ? 0 : indices.NumElements() / batch;
    const bool known = VisitElementSize(params.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* src = static_cast<const E*>(params.data());
      E* dst = static_cast<E*>(out->data());
      for (int64_t r = 0; r < static_cast<int64_t>(rows.size()); ++r) {
        const int64_t bi = per_batch == 0 ? 0 : r / per_batch;
        CopyElements(dst + r * inner, src + (bi * gather_dim + rows[r]) * inner,
                     inner);
      }
    });
    OP_REQUIRES(ctx, known,
                errors::InvalidArgument("ResourceGather does not support ",
                                        DataTypeString(params.dtype())));
  }

 private:
  DataType dtype_ = DT_INVALID;
  int64_t batch_dims_ = 0;
};

enum class ScatterKind { kUpdate, kAdd };

// var[indices[i], ...] (=|+=) updates[i, ...]; a scalar update applies to
// every picked row.
class ResourceScatterOp : public OpKernel {
 public:
  ResourceScatterOp(OpKernelConstruction* ctx, ScatterKind kind)
      : OpKernel(ctx), kind_(kind) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    Var* var = nullptr;
    OP_REQUIRES_OK(ctx, LookupVariable(ctx, "update", dtype_, &var));
    core::ScopedUnref unref(var);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    absl::MutexLock lock(var->mu());
    Tensor* params = var->tensor();
    OP_REQUIRES(ctx, params->IsInitialized() && params->dims() >= 1,
                errors::InvalidArgument(
                    "The variable to scatter into must be initialized and "
                    "have rank at least 1, but it has shape ",
                    params->shape().DebugString()));
    const int64_t n = indices.NumElements();
    const int64_t inner = params->dim_size(0) == 0
                              ? 0
                              : params->NumElements() / params->dim_size(0);
    const bool scalar_update = updates.dims() == 0;
    if (!scalar_update) {
      TensorShape expected = indices.shape();
      for (int d = 1; d < params->dims(); ++d) {
        expected.AddDim(params->dim_size(d));
      }
      OP_REQUIRES(
          ctx, updates.shape().IsSameSize(expected),
          errors::InvalidArgument(
              "updates must be a scalar or have shape indices.shape + "
              "params.shape[1:] = ",
              expected.DebugString(), ", got ", updates.shape().DebugString()));
    }
    std::vector<int64_t> rows;
    OP_REQUIRES_OK(ctx, ReadIndices(indices, params->dim_size(0), &rows));
    OP_REQUIRES_OK(ctx, PrepareToUpdateVariable(ctx, params));
    Status status = OkStatus();
    const bool known = VisitDataType(params->dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* dst = params->base<T>();
      const T* src = updates.base<const T>();
      for (int64_t i = 0; i < n; ++i) {
        T* row = dst + rows[i] * inner;
        for (int64_t j = 0; j < inner; ++j) {
          const T& u = scalar_update ? src[0] : src[i * inner + j];
          if (kind_ == ScatterKind::kUpdate) {
            row[j] = u;
          } else if constexpr (!kIsNumber<T>) {
            status = errors::InvalidArgument("Cannot add values of type ",
                                             DataTypeString(params->dtype()));
            return;
          } else {
            row[j] = row[j] + u;
          }
        }
      }
    });
    OP_REQUIRES_OK(ctx, status);
    OP_REQUIRES(ctx, known,
                errors::InvalidArgument("Cannot scatter into a variable of ",
                                        DataTypeString(params->dtype())));
  }

 private:
  const ScatterKind kind_;
  DataType dtype_ = DT_INVALID;
};

class ResourceScatterUpdateOp : public ResourceScatterOp {
 public:
  explicit ResourceScatterUpdateOp(OpKernelConstruction* ctx)
      : ResourceScatterOp(ctx, ScatterKind::kUpdate) {}
};

class ResourceScatterAddOp : public ResourceScatterOp {
 public:
  explicit ResourceScatterAddOp(OpKernelConstruction* ctx)
      : ResourceScatterOp(ctx, ScatterKind::kAdd) {}
};

REGISTER_KERNEL_BUILDER(Name("VarHandleOp").Device(DEVICE_CPU), VarHandleOp);
REGISTER_KERNEL_BUILDER(Name("ReadVariableOp").Device(DEVICE_CPU),
                        ReadVariableOp);
REGISTER_KERNEL_BUILDER(Name("AssignVariableOp").Device(DEVICE_CPU),
                        AssignVariableOp);
REGISTER_KERNEL_BUILDER(Name("AssignAddVariableOp").Device(DEVICE_CPU),
                        AssignAddVariableOp);
REGISTER_KERNEL_BUILDER(Name("AssignSubVariableOp").Device(DEVICE_CPU),
                        AssignSubVariableOp);
REGISTER_KERNEL_BUILDER(Name("VarIsInitializedOp").Device(DEVICE_CPU),
                        VarIsInitializedOp);
REGISTER_KERNEL_BUILDER(Name("DisableCopyOnRead").Device(DEVICE_CPU),
                        DisableCopyOnReadOp);
REGISTER_KERNEL_BUILDER(Name("DestroyResourceOp").Device(DEVICE_CPU),
                        DestroyResourceOp);
REGISTER_KERNEL_BUILDER(Name("VariableShape").Device(DEVICE_CPU),
                        VariableShapeOp);
REGISTER_KERNEL_BUILDER(Name("ResourceGather").Device(DEVICE_CPU),
                        ResourceGatherOp);
REGISTER_KERNEL_BUILDER(Name("ResourceScatterUpdate").Device(DEVICE_CPU),
                        ResourceScatterUpdateOp);
REGISTER_KERNEL_BUILDER(Name("ResourceScatterAdd").Device(DEVICE_CPU),
                        ResourceScatterAddOp);

}  // namespace
}  // namespace minflow
