// The convolution gradients against the forward Conv2D, in one benchmark:
// every iteration runs Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter
// of the same layer one after the other, so the three see the same machine
// (this VM's speed moves between benchmarks), and the counters x_input and
// x_filter are each backprop's time over the forward's (issue 20's goal:
// <= 2.5 for the 3x3x64x64 layer on [1,56,56,64], SAME, stride 1). Arg:
// intra-op threads; a second shape, stride 2, runs the GEMM + col2im path
// of Conv2DBackpropInput. Each kernel runs through the OpKernel (context,
// allocation, validation included).
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/node_def.pb.h"

namespace minflow {
namespace {

Tensor RandomFloats(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  t.flat<float>().setRandom();
  return t;
}

Tensor Sizes(const TensorShape& shape) {
  Tensor t(DT_INT32, TensorShape({4}));
  for (int i = 0; i < 4; ++i) {
    t.flat<int32_t>()(i) = static_cast<int32_t>(shape.dim_size(i));
  }
  return t;
}

NodeDef ConvNode(const std::string& op, int64_t stride) {
  NodeDef node;
  node.set_name(op);
  node.set_op(op);
  for (int i = 0; i < (op == "Conv2D" ? 2 : 3); ++i) {
    node.add_input(absl::StrCat("in", i));
  }
  AddNodeAttr("T", DT_FLOAT, &node);
  AddNodeAttr("strides", absl::Span<const int64_t>({1, stride, stride, 1}),
              &node);
  AddNodeAttr("padding", "SAME", &node);
  return node;
}

// One kernel and its inputs on a shared device.
class KernelRun {
 public:
  KernelRun(Device* device, const NodeDef& node, std::vector<Tensor> inputs)
      : device_(device), inputs_(std::move(inputs)) {
    status_ = CreateOpKernel(DEVICE_CPU, device, nullptr, node, 0, &kernel_);
    for (Tensor& t : inputs_) values_.emplace_back(&t);
  }
  const Status& status() const { return status_; }

  // Runs the kernel once; its wall time in seconds, or -1 on failure.
  double Run() {
    const auto start = std::chrono::steady_clock::now();
    OpKernelContext::Params params;
    params.device = device_;
    params.op_kernel = kernel_.get();
    params.inputs = values_;
    OpKernelContext ctx(&params);
    device_->Compute(kernel_.get(), &ctx);
    if (!ctx.status().ok()) {
      status_ = ctx.status();
      return -1;
    }
    benchmark::DoNotOptimize(ctx.mutable_output(0));
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

 private:
  Device* device_;
  std::vector<Tensor> inputs_;
  std::vector<TensorValue> values_;
  std::unique_ptr<OpKernel> kernel_;
  Status status_;
};

// Args: threads, stride. The layer: [1,56,56,64] * [3,3,64,64], SAME.
void BM_Conv2DBackpropOverForward(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const int64_t stride = state.range(1);
  const int64_t out = (56 + stride - 1) / stride;
  const TensorShape input_shape({1, 56, 56, 64});
  const TensorShape filter_shape({3, 3, 64, 64});
  const TensorShape out_shape({1, out, out, 64});
  const Tensor input = RandomFloats(input_shape);
  const Tensor filter = RandomFloats(filter_shape);
  const Tensor dy = RandomFloats(out_shape);

  CpuDeviceOptions options;
  options.intra_op_threads = threads;
  CpuDevice device(options);
  KernelRun forward(&device, ConvNode("Conv2D", stride), {input, filter});
  KernelRun backprop_input(&device, ConvNode("Conv2DBackpropInput", stride),
                           {Sizes(input_shape), filter, dy});
  KernelRun backprop_filter(&device, ConvNode("Conv2DBackpropFilter", stride),
                            {input, Sizes(filter_shape), dy});
  for (const KernelRun* k : {&forward, &backprop_input, &backprop_filter}) {
    if (!k->status().ok()) {
      return state.SkipWithError(std::string(k->status().message()).c_str());
    }
  }
  double seconds[3] = {0, 0, 0};
  KernelRun* runs[3] = {&forward, &backprop_input, &backprop_filter};
  for (auto _ : state) {
    for (int i = 0; i < 3; ++i) {
      const double s = runs[i]->Run();
      if (s < 0) {
        return state.SkipWithError(
            std::string(runs[i]->status().message()).c_str());
      }
      seconds[i] += s;
    }
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["forward_ms"] = 1e3 * seconds[0] / n;
  state.counters["input_ms"] = 1e3 * seconds[1] / n;
  state.counters["filter_ms"] = 1e3 * seconds[2] / n;
  state.counters["x_input"] = seconds[1] / seconds[0];
  state.counters["x_filter"] = seconds[2] / seconds[0];
}
BENCHMARK(BM_Conv2DBackpropOverForward)
    ->ArgNames({"threads", "stride"})
    ->Args({1, 1})
    ->Args({2, 1})
    ->Args({2, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
