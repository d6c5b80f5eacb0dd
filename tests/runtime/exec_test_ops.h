// Test-only ops and CPU kernels for the executor's and the session's tests,
// independent of the built-in op set. Registers them: include from one file
// per test binary.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace exec_test {

REGISTER_OP("ExecTestConst")
    .Output("y: float")
    .Attr("value: float")
    .Attr("size: int = 1");
REGISTER_OP("ExecTestAddOne").Input("x: float").Output("y: float");
REGISTER_OP("ExecTestAdd")
    .Input("a: float")
    .Input("b: float")
    .Output("y: float");
REGISTER_OP("ExecTestFail").Input("x: float").Output("y: float");
REGISTER_OP("ExecTestWaitForCancel").Input("x: float").Output("y: float");

// How many times ExecTestAddOne ran, and how many ExecTestWaitForCancel
// kernels are waiting now (so a test can cancel once one is).
inline std::atomic<int> g_add_one_runs{0};
inline std::atomic<int> g_waiting{0};

// `size` copies of `value`.
class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &value_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("size", &size_));
    OP_REQUIRES(ctx, size_ >= 0,
                errors::InvalidArgument("size must be >= 0, but got ", size_));
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({size_}), &out));
    out->flat<float>().setConstant(value_);
  }

 private:
  float value_ = 0;
  int64_t size_ = 0;
};

class AddOneOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ++g_add_one_runs;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, ctx->input(0).shape(), &out));
    out->flat<float>() = ctx->input(0).flat<float>() + 1.0f;
  }
};

// Expensive, so that with a pool it runs there.
class AddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->input(0).shape() == ctx->input(1).shape(),
                errors::InvalidArgument("shapes differ"));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0, 1}, 0, ctx->input(0).shape(), &out));
    out->flat<float>() =
        ctx->input(0).flat<float>() + ctx->input(1).flat<float>();
  }
  bool IsExpensive() override { return true; }
};

class FailOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(errors::InvalidArgument("deliberate failure"));
  }
};

class WaitForCancelOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ++g_waiting;
    while (!ctx->IsCancelled()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    --g_waiting;
    ctx->SetStatus(errors::Cancelled("noticed cancellation"));
  }
};

REGISTER_KERNEL_BUILDER(Name("ExecTestConst").Device(DEVICE_CPU), ConstOp);
REGISTER_KERNEL_BUILDER(Name("ExecTestAddOne").Device(DEVICE_CPU), AddOneOp);
REGISTER_KERNEL_BUILDER(Name("ExecTestAdd").Device(DEVICE_CPU), AddOp);
REGISTER_KERNEL_BUILDER(Name("ExecTestFail").Device(DEVICE_CPU), FailOp);
REGISTER_KERNEL_BUILDER(Name("ExecTestWaitForCancel").Device(DEVICE_CPU),
                        WaitForCancelOp);

}  // namespace exec_test
}  // namespace minflow
