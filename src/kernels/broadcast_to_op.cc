// BroadcastTo(input, shape): input repeated along its size-1 (and missing
// leading) dims to `shape`, numpy's rule. BroadcastArgs(s0, s1): the shape
// two shapes broadcast to. BroadcastGradientArgs(s0, s1): the axes of that
// shape to sum each input's gradient over.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_join.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

template <typename Index>
std::vector<int64_t> VectorValues(const Tensor& t) {
  std::vector<int64_t> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    v[i] = static_cast<int64_t>(t.base<const Index>()[i]);
  }
  return v;
}

// The numpy broadcast of `a` and `b`, or false when they do not broadcast.
bool BroadcastDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                   std::vector<int64_t>* out) {
  const size_t rank = std::max(a.size(), b.size());
  out->assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) return false;
    (*out)[rank - 1 - i] = x == 1 ? y : x;
  }
  return true;
}

template <typename Index>
class BroadcastToOp : public OpKernel {
 public:
  explicit BroadcastToOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& shape_t = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(shape_t.shape()),
                errors::InvalidArgument(
                    "shape must be a vector of {int32,int64}, got shape ",
                    shape_t.shape().DebugString()));
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(
                            VectorValues<Index>(shape_t), &out_shape));
    if (out_shape == input.shape()) {
      ctx->set_output(0, input);
      return;
    }
    OP_REQUIRES(ctx, input.dims() <= out_shape.dims(),
                errors::InvalidArgument(
                    "Rank of input (", input.dims(),
                    ") must be no greater than rank of output shape (",
                    out_shape.dims(), ")."));
    // Input dim d sits under output dim d + offset: equal, or 1 (repeated
    // with stride 0). As in TF, shapes that do not broadcast at all are
    // "incompatible"; ones that broadcast to something else than `shape`
    // (an output dim of 1 under a larger input dim) are "unable".
    const int offset = out_shape.dims() - input.dims();
    bool compatible = true;
    bool reaches_shape = true;
    for (int d = 0; d < input.dims(); ++d) {
      const int64_t in_dim = input.dim_size(d);
      const int64_t out_dim = out_shape.dim_size(d + offset);
      if (in_dim == out_dim || in_dim == 1) continue;
      if (out_dim == 1) {
        reaches_shape = false;
      } else {
        compatible = false;
      }
    }
    OP_REQUIRES(ctx, compatible,
                errors::InvalidArgument(
                    "Incompatible shapes: ", input.shape().DebugString(),
                    " vs. ", out_shape.DebugString()));
    OP_REQUIRES(ctx, reaches_shape,
                errors::InvalidArgument("Unable to broadcast tensor of shape ",
                                        input.shape().DebugString(),
                                        " to tensor of shape ",
                                        out_shape.DebugString()));
    absl::InlinedVector<int64_t, 8> sizes(out_shape.dims());
    absl::InlinedVector<int64_t, 8> strides(out_shape.dims(), 0);
    int64_t stride = 1;
    for (int d = out_shape.dims() - 1; d >= 0; --d) {
      sizes[d] = out_shape.dim_size(d);
      if (d < offset) continue;
      const int64_t in_dim = input.dim_size(d - offset);
      strides[d] = in_dim == 1 ? 0 : stride;
      stride *= in_dim;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    OP_REQUIRES(
        ctx, IsMovableDataType(input.dtype()),
        errors::Unimplemented("BroadcastTo of ", DataTypeString(input.dtype()),
                              " is not supported"));
    CopyStridedBox(ctx->device()->tensorflow_cpu_worker_threads(),
                   input.dtype(), input.data(), sizes, strides, out->data());
  }
};

template <typename T>
class BroadcastArgsOp : public OpKernel {
 public:
  explicit BroadcastArgsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> shapes[2];
    for (int i = 0; i < 2; ++i) {
      const Tensor& in = ctx->input(i);
      OP_REQUIRES(ctx, TensorShapeUtils::IsVector(in.shape()),
                  errors::InvalidArgument("In[", i, "] must be a vector.",
                                          in.shape().DebugString()));
      shapes[i] = VectorValues<T>(in);
    }
    std::vector<int64_t> out_dims;
    OP_REQUIRES(ctx, BroadcastDims(shapes[0], shapes[1], &out_dims),
                errors::InvalidArgument(
                    "Incompatible shapes: [", absl::StrJoin(shapes[0], ","),
                    "] vs. [", absl::StrJoin(shapes[1], ","), "]"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, TensorShape({static_cast<int64_t>(out_dims.size())}), &out));
    for (size_t i = 0; i < out_dims.size(); ++i) {
      out->base<T>()[i] = static_cast<T>(out_dims[i]);
    }
  }

  bool IsExpensive() override { return false; }
};

// r0 (r1): the axes of the broadcast shape where s0 (s1), padded with
// leading 1s, is 1. Axes where both are 1 are in both lists: summing over a
// size-1 axis changes nothing, and the caller reshapes anyway.
template <typename T>
class BroadcastGradientArgsOp : public OpKernel {
 public:
  explicit BroadcastGradientArgsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> shapes[2];
    for (int i = 0; i < 2; ++i) {
      const Tensor& in = ctx->input(i);
      OP_REQUIRES(ctx, TensorShapeUtils::IsVector(in.shape()),
                  errors::InvalidArgument("s", i, " must be a vector, but got ",
                                          in.shape().DebugString()));
      shapes[i] = VectorValues<T>(in);
      for (int64_t d : shapes[i]) {
        OP_REQUIRES(ctx, d >= 0,
                    errors::InvalidArgument(
                        "s", i, " must hold no negative dimension, but got [",
                        absl::StrJoin(shapes[i], ","), "]"));
      }
    }
    std::vector<int64_t> out_dims;
    OP_REQUIRES(ctx, BroadcastDims(shapes[0], shapes[1], &out_dims),
                errors::InvalidArgument(
                    "Incompatible shapes: [", absl::StrJoin(shapes[0], ","),
                    "] vs. [", absl::StrJoin(shapes[1], ","), "]"));
    const size_t rank = out_dims.size();
    for (int i = 0; i < 2; ++i) {
      const std::vector<int64_t>& s = shapes[i];
      const size_t pad = rank - s.size();
      std::vector<T> axes;
      for (size_t a = 0; a < rank; ++a) {
        if (a < pad || s[a - pad] == 1) axes.push_back(static_cast<T>(a));
      }
      Tensor* out = nullptr;
      OP_REQUIRES_OK(
          ctx, ctx->allocate_output(
                   i, TensorShape({static_cast<int64_t>(axes.size())}), &out));
      std::copy(axes.begin(), axes.end(), out->base<T>());
    }
  }

  bool IsExpensive() override { return false; }
};

#define REGISTER_CPU(T)                                        \
  REGISTER_KERNEL_BUILDER(Name("BroadcastTo")                  \
                              .Device(DEVICE_CPU)              \
                              .TypeConstraint<T>("T")          \
                              .TypeConstraint<int32_t>("Tidx") \
                              .HostMemory("shape"),            \
                          BroadcastToOp<int32_t>);             \
  REGISTER_KERNEL_BUILDER(Name("BroadcastTo")                  \
                              .Device(DEVICE_CPU)              \
                              .TypeConstraint<T>("T")          \
                              .TypeConstraint<int64_t>("Tidx") \
                              .HostMemory("shape"),            \
                          BroadcastToOp<int64_t>);
TF_CALL_ALL_TYPES(REGISTER_CPU)
TF_CALL_QUANTIZED_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

#define REGISTER_CPU(T)                               \
  REGISTER_KERNEL_BUILDER(Name("BroadcastArgs")       \
                              .Device(DEVICE_CPU)     \
                              .TypeConstraint<T>("T") \
                              .HostMemory("s0")       \
                              .HostMemory("s1")       \
                              .HostMemory("r0"),      \
                          BroadcastArgsOp<T>);
REGISTER_CPU(int32_t)
REGISTER_CPU(int64_t)
#undef REGISTER_CPU

#define REGISTER_CPU(T)                                 \
  REGISTER_KERNEL_BUILDER(Name("BroadcastGradientArgs") \
                              .Device(DEVICE_CPU)       \
                              .TypeConstraint<T>("T")   \
                              .HostMemory("s0")         \
                              .HostMemory("s1")         \
                              .HostMemory("r0")         \
                              .HostMemory("r1"),        \
                          BroadcastGradientArgsOp<T>);
REGISTER_CPU(int32_t)
REGISTER_CPU(int64_t)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
