// Conv2D, Conv2DBackpropInput, DepthwiseConv2dNative and MaxPool run
// through the OpKernel (context, allocation, validation included).
// Reference in the same run: the GEMM a convolution reduces to once its
// patches exist ([pixels, patch] x [patch, out_depth], Eigen's matrix
// product, one thread), so the ratio shows what the patch gathering and
// sharding cost; Conv2DBackpropInput is compared with the Conv2D of the
// same FLOPs. Arg: intra-op threads.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "bench/memcpy_reference.h"
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

void SetFlops(benchmark::State& state, double flops_per_iteration) {
  state.counters["FLOP/s"] = benchmark::Counter(
      flops_per_iteration * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

// One kernel on its own CPU device with `threads` intra-op threads, run
// until the benchmark stops.
void RunKernel(benchmark::State& state, const NodeDef& node, int threads,
               std::vector<Tensor> inputs, double flops) {
  CpuDeviceOptions options;
  options.intra_op_threads = threads;
  CpuDevice device(options);
  std::unique_ptr<OpKernel> kernel;
  const Status made =
      CreateOpKernel(DEVICE_CPU, &device, nullptr, node, 0, &kernel);
  if (!made.ok()) {
    state.SkipWithError(std::string(made.message()).c_str());
    return;
  }
  std::vector<TensorValue> values;
  for (Tensor& t : inputs) values.emplace_back(&t);
  for (auto _ : state) {
    OpKernelContext::Params params;
    params.device = &device;
    params.op_kernel = kernel.get();
    params.inputs = values;
    OpKernelContext ctx(&params);
    device.Compute(kernel.get(), &ctx);
    if (!ctx.status().ok()) {
      state.SkipWithError(std::string(ctx.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(ctx.mutable_output(0));
  }
  SetFlops(state, flops);
}

NodeDef WindowNode(const std::string& op, const std::string& padding,
                   std::vector<int64_t> strides) {
  NodeDef node;
  node.set_name("bench");
  node.set_op(op);
  node.add_input("input");
  if (op != "MaxPool") node.add_input("filter");
  AddNodeAttr("T", DT_FLOAT, &node);
  AddNodeAttr("strides", absl::Span<const int64_t>(strides), &node);
  AddNodeAttr("padding", padding, &node);
  return node;
}

// [1,64,64,32] x [3,3,32,64] SAME: 4096 pixels, 288-value patches.
void BM_Conv2D(benchmark::State& state) {
  RunKernel(state, WindowNode("Conv2D", "SAME", {1, 1, 1, 1}),
            static_cast<int>(state.range(0)),
            {RandomFloats(TensorShape({1, 64, 64, 32})),
             RandomFloats(TensorShape({3, 3, 32, 64}))},
            2.0 * 64 * 64 * 64 * 288);
}
BENCHMARK(BM_Conv2D)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();

// cnn_small's first layer (peer harness): [1,64,64,3] x [3,3,3,32] SAME,
// 27-value patches, computed directly (Note [Shallow-input convolutions]);
// and with 64 output channels, as VGG's first layer. Args: threads,
// out_depth.
void BM_Conv2DThreeChannels(benchmark::State& state) {
  const int64_t out_depth = state.range(1);
  RunKernel(state, WindowNode("Conv2D", "SAME", {1, 1, 1, 1}),
            static_cast<int>(state.range(0)),
            {RandomFloats(TensorShape({1, 64, 64, 3})),
             RandomFloats(TensorShape({3, 3, 3, out_depth}))},
            2.0 * 64 * 64 * out_depth * 27);
}
BENCHMARK(BM_Conv2DThreeChannels)
    ->ArgNames({"threads", "out_depth"})
    ->ArgsProduct({{1, 2}, {16, 32, 64}})
    ->UseRealTime();

// A ResNet stem at batch 1: [1,224,224,3] x [7,7,3,64] SAME, stride 2,
// 147-value patches: too large a filter for the direct path (Note
// [Shallow-input convolutions]), so through the library.
void BM_Conv2DStem(benchmark::State& state) {
  RunKernel(state, WindowNode("Conv2D", "SAME", {1, 2, 2, 1}),
            static_cast<int>(state.range(0)),
            {RandomFloats(TensorShape({1, 224, 224, 3})),
             RandomFloats(TensorShape({7, 7, 3, 64}))},
            2.0 * 112 * 112 * 64 * 147);
}
BENCHMARK(BM_Conv2DStem)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// ResNet-50's deepest 3x3 layer at batch 1, [1,7,7,512] x [3,3,512,512]
// (9 MiB of filter), with the filter marked as a Const's (the
// constant_filters pass; its reordered copy is kept) and unmarked
// (reordered on every call). Args: marked, threads.
void BM_Conv2DDeepLayer(benchmark::State& state) {
  NodeDef node = WindowNode("Conv2D", "SAME", {1, 1, 1, 1});
  AddNodeAttr("_is_filter_const", state.range(0) != 0, &node);
  RunKernel(state, node, static_cast<int>(state.range(1)),
            {RandomFloats(TensorShape({1, 7, 7, 512})),
             RandomFloats(TensorShape({3, 3, 512, 512}))},
            2.0 * 7 * 7 * 512 * 9 * 512);
}
BENCHMARK(BM_Conv2DDeepLayer)
    ->ArgNames({"marked", "threads"})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Args({0, 2})
    ->Args({1, 2})
    ->UseRealTime();

// Reference: the [4096, 288] x [288, 64] GEMM alone, one thread.
void BM_Reference_EigenGemmOfConv2D(benchmark::State& state) {
  using RowMatrix =
      Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const RowMatrix patches = RowMatrix::Random(4096, 288);
  const RowMatrix filter = RowMatrix::Random(288, 64);
  RowMatrix out(4096, 64);
  for (auto _ : state) {
    out.noalias() = patches * filter;
    benchmark::DoNotOptimize(out.data());
  }
  SetFlops(state, 2.0 * 4096 * 64 * 288);
}
BENCHMARK(BM_Reference_EigenGemmOfConv2D)->UseRealTime();

// A ResNet bottleneck 1x1: the input is the patch matrix (no copy).
void BM_Conv2D_1x1(benchmark::State& state) {
  RunKernel(state, WindowNode("Conv2D", "VALID", {1, 1, 1, 1}),
            static_cast<int>(state.range(0)),
            {RandomFloats(TensorShape({1, 56, 56, 64})),
             RandomFloats(TensorShape({1, 1, 64, 256}))},
            2.0 * 56 * 56 * 64 * 256);
}
BENCHMARK(BM_Conv2D_1x1)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();

// A decoder's 2x upsampling: the transposed 3x3 stride-2 SAME convolution
// from [1,64,64,64] to [1,128,128,32]. Its FLOPs (2 x 4096 x 64 x 288) are
// BM_Conv2D's, the same-run reference.
void BM_Conv2DBackpropInput(benchmark::State& state) {
  NodeDef node;
  node.set_name("bench");
  node.set_op("Conv2DBackpropInput");
  node.add_input("input_sizes");
  node.add_input("filter");
  node.add_input("out_backprop");
  AddNodeAttr("T", DT_FLOAT, &node);
  AddNodeAttr("strides", absl::Span<const int64_t>({1, 2, 2, 1}), &node);
  AddNodeAttr("padding", "SAME", &node);
  Tensor sizes(DT_INT32, TensorShape({4}));
  const int32_t dims[4] = {1, 128, 128, 32};
  std::copy_n(dims, 4, sizes.base<int32_t>());
  RunKernel(state, node, static_cast<int>(state.range(0)),
            {sizes, RandomFloats(TensorShape({3, 3, 32, 64})),
             RandomFloats(TensorShape({1, 64, 64, 64}))},
            2.0 * 64 * 64 * 64 * 288);
}
BENCHMARK(BM_Conv2DBackpropInput)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime();

// A MobileNet depthwise 3x3 on [1,112,112,32].
void BM_DepthwiseConv2dNative(benchmark::State& state) {
  RunKernel(state, WindowNode("DepthwiseConv2dNative", "SAME", {1, 1, 1, 1}),
            static_cast<int>(state.range(0)),
            {RandomFloats(TensorShape({1, 112, 112, 32})),
             RandomFloats(TensorShape({3, 3, 32, 1}))},
            2.0 * 112 * 112 * 32 * 9);
}
BENCHMARK(BM_DepthwiseConv2dNative)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime();

// The ResNet stem's 3x3 stride-2 max pool on [1,112,112,64].
void BM_MaxPool(benchmark::State& state) {
  NodeDef node = WindowNode("MaxPool", "SAME", {1, 2, 2, 1});
  AddNodeAttr("ksize", absl::Span<const int64_t>({1, 3, 3, 1}), &node);
  RunKernel(state, node, static_cast<int>(state.range(0)),
            {RandomFloats(TensorShape({1, 112, 112, 64}))}, 56.0 * 56 * 64 * 9);
  state.SetBytesProcessed(state.iterations() * 112 * 112 * 64 * 4);
}
BENCHMARK(BM_MaxPool)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();

// cnn_small's 2x2 stride-2 pools (peer harness): [1,64,64,32] and
// [1,32,32,64]. Args: input rows (= columns), channels, threads.
void BM_MaxPoolCnnSmall(benchmark::State& state) {
  const int64_t rows = state.range(0), depth = state.range(1);
  NodeDef node = WindowNode("MaxPool", "VALID", {1, 2, 2, 1});
  AddNodeAttr("ksize", absl::Span<const int64_t>({1, 2, 2, 1}), &node);
  RunKernel(state, node, static_cast<int>(state.range(2)),
            {RandomFloats(TensorShape({1, rows, rows, depth}))},
            rows * rows * depth);
  state.SetBytesProcessed(state.iterations() * rows * rows * depth * 4);
}
BENCHMARK(BM_MaxPoolCnnSmall)
    ->ArgNames({"rows", "depth", "threads"})
    ->Args({64, 32, 1})
    ->Args({32, 64, 1})
    ->Args({64, 32, 2})
    ->UseRealTime();

// pool1's input bytes copied on the same threads: what reading it once and
// writing it once costs (a 2x2 pool writes a quarter). Arg: threads.
void BM_MaxPoolCnnSmallMemcpy(benchmark::State& state) {
  constexpr int64_t kBytes = 64 * 64 * 32 * sizeof(float);
  bench::ReferenceMemcpy(state, kBytes);
  state.SetBytesProcessed(state.iterations() * kBytes);
}
BENCHMARK(BM_MaxPoolCnnSmallMemcpy)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime();

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
