// _FusedConv2D and _FusedMatMul (BiasAdd + Relu) against the unfused chain
// Conv2D (or MatMul) -> BiasAdd -> Relu run as three kernels in the same
// binary, each through the OpKernel (context, allocation, validation
// included). The goal: fused <= 0.8x the unfused time. Arg:
// intra-op threads.
#include <memory>
#include <string>
#include <vector>

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

NodeDef Node(const std::string& op, int num_inputs) {
  NodeDef node;
  node.set_name(op);
  node.set_op(op);
  for (int i = 0; i < num_inputs; ++i) {
    node.add_input("in" + std::to_string(i));
  }
  AddNodeAttr("T", DT_FLOAT, &node);
  return node;
}

NodeDef ConvNode(const std::string& op, bool fused) {
  NodeDef node = Node(op, fused ? 3 : 2);
  const std::vector<int64_t> strides = {1, 1, 1, 1};
  AddNodeAttr("strides", absl::Span<const int64_t>(strides), &node);
  AddNodeAttr("padding", "SAME", &node);
  if (fused) {
    AddNodeAttr("num_args", 1, &node);
    AddNodeAttr("TArgs", std::vector<DataType>{DT_FLOAT}, &node);
    AddNodeAttr("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"},
                &node);
  }
  return node;
}

NodeDef MatMulNode(const std::string& op, bool fused) {
  NodeDef node = Node(op, fused ? 3 : 2);
  if (fused) {
    AddNodeAttr("num_args", 1, &node);
    AddNodeAttr("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"},
                &node);
  }
  return node;
}

// Runs `nodes` in sequence, each fed output 0 of the one before as its
// first input (the first gets inputs[0]) plus its own extra inputs, until
// the benchmark stops.
void RunChain(benchmark::State& state, const std::vector<NodeDef>& nodes,
              std::vector<std::vector<Tensor>> inputs, double flops) {
  CpuDeviceOptions options;
  options.intra_op_threads = static_cast<int>(state.range(0));
  CpuDevice device(options);
  std::vector<std::unique_ptr<OpKernel>> kernels(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Status made =
        CreateOpKernel(DEVICE_CPU, &device, nullptr, nodes[i], 0, &kernels[i]);
    if (!made.ok()) {
      state.SkipWithError(std::string(made.message()).c_str());
      return;
    }
  }
  for (auto _ : state) {
    Tensor prev;
    for (size_t i = 0; i < kernels.size(); ++i) {
      std::vector<TensorValue> values;
      if (i > 0) values.emplace_back(&prev);
      for (Tensor& t : inputs[i]) values.emplace_back(&t);
      OpKernelContext::Params params;
      params.device = &device;
      params.op_kernel = kernels[i].get();
      params.inputs = values;
      OpKernelContext ctx(&params);
      device.Compute(kernels[i].get(), &ctx);
      if (!ctx.status().ok()) {
        state.SkipWithError(std::string(ctx.status().message()).c_str());
        return;
      }
      prev = *ctx.mutable_output(0);
    }
    benchmark::DoNotOptimize(prev);
  }
  if (flops > 0) {
    state.counters["FLOP/s"] =
        benchmark::Counter(flops * static_cast<double>(state.iterations()),
                           benchmark::Counter::kIsRate);
  }
}

// A convolution layer: input [1, h, w, c], filter [r, r, c, k], stride 1,
// SAME padding.
struct ConvLayer {
  int64_t h, w, c, r, k;
  double flops() const { return 2.0 * h * w * k * r * r * c; }
};
// ResNet-50 conv2_x layers on [1,56,56,64]: the 3x3 64->64 one and the
// 1x1 64->256 expansion (little arithmetic per output value, so the
// epilogue's memory traffic matters most there).
constexpr ConvLayer kResNet3x3{56, 56, 64, 3, 64};
constexpr ConvLayer kResNet1x1{56, 56, 64, 1, 256};
// VGG-16's first layer, 3 -> 64 channels at 224x224: 27 multiply-adds per
// output value and a 12.25 MiB output, larger than the last-level cache
// share of one core, so each unfused pass over it goes to memory.
constexpr ConvLayer kVggConv1{224, 224, 3, 3, 64};

void FusedConv(benchmark::State& state, const ConvLayer& l) {
  RunChain(state, {ConvNode("_FusedConv2D", true)},
           {{RandomFloats(TensorShape({1, l.h, l.w, l.c})),
             RandomFloats(TensorShape({l.r, l.r, l.c, l.k})),
             RandomFloats(TensorShape({l.k}))}},
           l.flops());
}

void UnfusedConv(benchmark::State& state, const ConvLayer& l) {
  RunChain(state,
           {ConvNode("Conv2D", false), Node("BiasAdd", 2), Node("Relu", 1)},
           {{RandomFloats(TensorShape({1, l.h, l.w, l.c})),
             RandomFloats(TensorShape({l.r, l.r, l.c, l.k}))},
            {RandomFloats(TensorShape({l.k}))},
            {}},
           l.flops());
}

void BM_FusedConv2D_BiasAddRelu_3x3(benchmark::State& state) {
  FusedConv(state, kResNet3x3);
}
BENCHMARK(BM_FusedConv2D_BiasAddRelu_3x3)->Arg(1)->Arg(2)->UseRealTime();

void BM_Conv2D_BiasAdd_Relu_Unfused_3x3(benchmark::State& state) {
  UnfusedConv(state, kResNet3x3);
}
BENCHMARK(BM_Conv2D_BiasAdd_Relu_Unfused_3x3)->Arg(1)->Arg(2)->UseRealTime();

void BM_FusedConv2D_BiasAddRelu_1x1(benchmark::State& state) {
  FusedConv(state, kResNet1x1);
}
BENCHMARK(BM_FusedConv2D_BiasAddRelu_1x1)->Arg(1)->Arg(2)->UseRealTime();

void BM_Conv2D_BiasAdd_Relu_Unfused_1x1(benchmark::State& state) {
  UnfusedConv(state, kResNet1x1);
}
BENCHMARK(BM_Conv2D_BiasAdd_Relu_Unfused_1x1)->Arg(1)->Arg(2)->UseRealTime();

void BM_FusedConv2D_BiasAddRelu_Vgg1(benchmark::State& state) {
  FusedConv(state, kVggConv1);
}
BENCHMARK(BM_FusedConv2D_BiasAddRelu_Vgg1)->Arg(1)->Arg(2)->UseRealTime();

void BM_Conv2D_BiasAdd_Relu_Unfused_Vgg1(benchmark::State& state) {
  UnfusedConv(state, kVggConv1);
}
BENCHMARK(BM_Conv2D_BiasAdd_Relu_Unfused_Vgg1)->Arg(1)->Arg(2)->UseRealTime();

// A BERT-base dense layer on 128 tokens: [128,768] x [768,768].
constexpr int64_t kM = 128, kN = 768, kDepth = 768;
const double kMatMulFlops = 2.0 * kM * kN * kDepth;

void BM_FusedMatMul_BiasAddRelu(benchmark::State& state) {
  RunChain(state, {MatMulNode("_FusedMatMul", true)},
           {{RandomFloats(TensorShape({kM, kDepth})),
             RandomFloats(TensorShape({kDepth, kN})),
             RandomFloats(TensorShape({kN}))}},
           kMatMulFlops);
}
BENCHMARK(BM_FusedMatMul_BiasAddRelu)->Arg(1)->Arg(2)->UseRealTime();

void BM_MatMul_BiasAdd_Relu_Unfused(benchmark::State& state) {
  RunChain(state,
           {MatMulNode("MatMul", false), Node("BiasAdd", 2), Node("Relu", 1)},
           {{RandomFloats(TensorShape({kM, kDepth})),
             RandomFloats(TensorShape({kDepth, kN}))},
            {RandomFloats(TensorShape({kN}))},
            {}},
           kMatMulFlops);
}
BENCHMARK(BM_MatMul_BiasAdd_Relu_Unfused)->Arg(1)->Arg(2)->UseRealTime();

// The epilogue alone as the unfused chain runs it: BiasAdd then Relu on a
// [rows, channels] tensor the size of each output above. Fusion can save at
// most about this much.
void BM_BiasAdd_Relu_Only(benchmark::State& state) {
  const int64_t rows = state.range(1);
  const int64_t channels = state.range(2);
  RunChain(state, {Node("BiasAdd", 2), Node("Relu", 1)},
           {{RandomFloats(TensorShape({rows, channels})),
             RandomFloats(TensorShape({channels}))},
            {}},
           0);
}
BENCHMARK(BM_BiasAdd_Relu_Only)
    ->Args({1, kResNet3x3.h* kResNet3x3.w, kResNet3x3.k})
    ->Args({1, kResNet1x1.h* kResNet1x1.w, kResNet1x1.k})
    ->Args({1, kVggConv1.h* kVggConv1.w, kVggConv1.k})
    ->Args({1, kM, kN})
    ->UseRealTime();

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
