// The gradient kernels of the nn ops against their forward kernels in the
// same binary, each run through the OpKernel (context, allocation and
// validation included): SparseSoftmaxCrossEntropyWithLogits against
// Softmax on the same logits, FusedBatchNormGradV3 (training) against
// FusedBatchNormV3 (training) on the same x, and EluGrad against Elu. Arg:
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

// Runs `node` on `inputs` until the benchmark stops; bytes processed are
// those of the inputs.
void RunKernel(benchmark::State& state, const NodeDef& node,
               std::vector<Tensor> inputs) {
  CpuDeviceOptions options;
  options.intra_op_threads = static_cast<int>(state.range(0));
  CpuDevice device(options);
  std::unique_ptr<OpKernel> kernel;
  const Status made =
      CreateOpKernel(DEVICE_CPU, &device, nullptr, node, 0, &kernel);
  if (!made.ok()) {
    state.SkipWithError(std::string(made.message()).c_str());
    return;
  }
  int64_t bytes = 0;
  for (const Tensor& t : inputs) bytes += t.TotalBytes();
  for (auto _ : state) {
    std::vector<TensorValue> values;
    for (Tensor& t : inputs) values.emplace_back(&t);
    OpKernelContext::Params params;
    params.device = &device;
    params.op_kernel = kernel.get();
    params.inputs = values;
    OpKernelContext ctx(&params);
    device.Compute(kernel.get(), &ctx);
    if (!ctx.status().ok()) {
      state.SkipWithError(std::string(ctx.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(*ctx.mutable_output(0));
  }
  state.SetBytesProcessed(bytes * static_cast<int64_t>(state.iterations()));
}

// The digits MLP's batch (64 x 10) and an ImageNet-sized one (256 x 1000).
constexpr int64_t kXentShapes[][2] = {{64, 10}, {256, 1000}};

void BM_SparseSoftmaxXent(benchmark::State& state) {
  const auto& s = kXentShapes[state.range(1)];
  Tensor labels(DT_INT64, TensorShape({s[0]}));
  for (int64_t i = 0; i < s[0]; ++i) labels.flat<int64_t>()(i) = i % s[1];
  NodeDef node = Node("SparseSoftmaxCrossEntropyWithLogits", 2);
  AddNodeAttr("Tlabels", DT_INT64, &node);
  RunKernel(state, node, {RandomFloats(TensorShape({s[0], s[1]})), labels});
}

void BM_Softmax_Reference(benchmark::State& state) {
  const auto& s = kXentShapes[state.range(1)];
  RunKernel(state, Node("Softmax", 1),
            {RandomFloats(TensorShape({s[0], s[1]}))});
}

NodeDef BatchNormNode(const std::string& op) {
  NodeDef node = Node(op, op == "FusedBatchNormV3" ? 5 : 6);
  AddNodeAttr("U", DT_FLOAT, &node);
  AddNodeAttr("is_training", true, &node);
  return node;
}

// ResNet-50's conv2_x activations, [1, 56, 56, 64] NHWC.
const TensorShape kBnShape({1, 56, 56, 64});

void BM_FusedBatchNormGradV3_Training(benchmark::State& state) {
  const TensorShape c({64});
  Tensor variance = RandomFloats(c);
  variance.flat<float>() = variance.flat<float>().abs() + 0.5f;
  RunKernel(state, BatchNormNode("FusedBatchNormGradV3"),
            {RandomFloats(kBnShape), RandomFloats(kBnShape), RandomFloats(c),
             RandomFloats(c), variance, RandomFloats(TensorShape({}))});
}

void BM_FusedBatchNormV3_Training_Reference(benchmark::State& state) {
  const TensorShape c({64});
  RunKernel(state, BatchNormNode("FusedBatchNormV3"),
            {RandomFloats(kBnShape), RandomFloats(c), RandomFloats(c),
             RandomFloats(c), RandomFloats(c)});
}

void BM_EluGrad(benchmark::State& state) {
  RunKernel(state, Node("EluGrad", 2),
            {RandomFloats(kBnShape), RandomFloats(kBnShape)});
}

void BM_Elu_Reference(benchmark::State& state) {
  RunKernel(state, Node("Elu", 1), {RandomFloats(kBnShape)});
}

BENCHMARK(BM_SparseSoftmaxXent)->ArgsProduct({{1, 4}, {0, 1}});
BENCHMARK(BM_Softmax_Reference)->ArgsProduct({{1, 4}, {0, 1}});
BENCHMARK(BM_FusedBatchNormGradV3_Training)->Arg(1)->Arg(4);
BENCHMARK(BM_FusedBatchNormV3_Training_Reference)->Arg(1)->Arg(4);
BENCHMARK(BM_EluGrad)->Arg(1)->Arg(4);
BENCHMARK(BM_Elu_Reference)->Arg(1)->Arg(4);

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
