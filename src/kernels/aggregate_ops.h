// The AddN kernel over any Eigen device: the sum of N same-shape tensors,
// in place in one of them when it may be forwarded. aggregate_ops.cc
// registers it for the CPU, aggregate_ops_gpu.cu for the GPU.
#pragma once

#include <algorithm>
#include <numeric>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "minflow/framework/op_kernel.h"
#include "src/kernels/aggregate_ops_functor.h"

namespace minflow {

template <typename Device, typename T>
class AddNOp : public OpKernel {
 public:
  explicit AddNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const int num = ctx->num_inputs();
    const Tensor& input0 = ctx->input(0);
    if (num == 1) {
      ctx->set_output(0, input0);
      return;
    }
    for (int i = 1; i < num; ++i) {
      OP_REQUIRES(
          ctx, input0.shape().IsSameSize(ctx->input(i).shape()),
          errors::InvalidArgument(
              "Inputs to operation ", name(), " of type ", type_string(),
              " must have the same size and shape.  Input 0: ",
              input0.shape().DebugString(), " != input ", i, ": ",
              ctx->input(i).shape().DebugString()));
    }
    // The forwarded input goes first, so the first pass (which writes the
    // output) reads it before anything overwrites it.
    absl::InlinedVector<int, 8> order(num);
    std::iota(order.begin(), order.end(), 0);
    Tensor* out = nullptr;
    for (int i = 0; i < num && out == nullptr; ++i) {
      if (ctx->forward_input_to_output_with_shape(i, 0, input0.shape(), &out)) {
        std::swap(order[0], order[i]);
      }
    }
    if (out == nullptr) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input0.shape(), &out));
    }
    if (out->NumElements() == 0) return;

    using ConstFlat = typename TTypes<T>::ConstFlat;
    absl::InlinedVector<ConstFlat, 8> in;
    for (int i : order) in.push_back(ctx->input(i).template flat<T>());
    const Device& d = ctx->eigen_device<Device>();
    auto out_flat = out->template flat<T>();
    const functor::AddNChunk<Device, T> chunk;
    const int first = std::min(num, 4);
    chunk(d, out_flat, in.data(), first, /*accumulate=*/false);
    for (int i = first; i < num; i += 3) {
      chunk(d, out_flat, in.data() + i, std::min(num - i, 3),
            /*accumulate=*/true);
    }
  }
};

}  // namespace minflow
