// Kernel lookup and instantiation costs, paid once per node when a session
// builds its executor, and the per-call cost of an OpKernelContext around a
// trivial Compute, paid once per node per step. References in the same run:
// a flat_hash_map lookup of the op name, and a direct virtual call.
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "benchmark/benchmark.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "minflow/kernel_def.pb.h"
#include "minflow/node_def.pb.h"

namespace minflow {
namespace {

// An op with a kernel per real type, as a typical math family registers.
REGISTER_OP("BenchTyped")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: realnumbertype")
    .Attr("mode: string = 'a'")
    .Attr("axis: int = 0");

template <typename T>
class PassThrough : public OpKernel {
 public:
  explicit PassThrough(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string mode;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("mode", &mode));
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis));
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};

#define REGISTER_CPU(T)                                             \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("BenchTyped").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      PassThrough<T>);
TF_CALL_REAL_NUMBER_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

NodeDef BenchNode(DataType dtype) {
  NodeDef node;
  node.set_name("bench");
  node.set_op("BenchTyped");
  node.add_input("x");
  AddNodeAttr("T", dtype, &node);
  AddNodeAttr("mode", "a", &node);
  AddNodeAttr("axis", 0, &node);
  return node;
}

// DT_FLOAT is among the last registered (TensorFlow's list order), so the
// lookup checks most of the op's registrations.
void BM_FindKernelDef(benchmark::State& state) {
  const NodeDef node = BenchNode(DT_FLOAT);
  for (auto _ : state) {
    const KernelDef* def = nullptr;
    const Status s = FindKernelDef(DEVICE_CPU, node, &def, nullptr);
    benchmark::DoNotOptimize(def);
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FindKernelDef);

// Reference: finding one entry by op name in a hash map of the same size as
// the registry.
void BM_Reference_HashMapLookup(benchmark::State& state) {
  absl::flat_hash_map<std::string, int> map;
  const KernelList all = GetAllRegisteredKernels();
  for (int i = 0; i < all.kernel_size(); ++i) {
    map[all.kernel(i).op() + std::to_string(i)] = i;
  }
  map["BenchTyped"] = -1;
  const std::string key = "BenchTyped";
  for (auto _ : state) {
    auto it = map.find(key);
    benchmark::DoNotOptimize(it);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Reference_HashMapLookup);

void BM_CreateOpKernel(benchmark::State& state) {
  CpuDeviceOptions options;
  options.intra_op_threads = 1;
  CpuDevice device(options);
  const NodeDef node = BenchNode(DT_FLOAT);
  for (auto _ : state) {
    std::unique_ptr<OpKernel> kernel;
    const Status s =
        CreateOpKernel(DEVICE_CPU, &device, nullptr, node, 0, &kernel);
    benchmark::DoNotOptimize(kernel.get());
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CreateOpKernel);

// One step's overhead for a node: context construction, Compute (which
// shares its input to its output), context destruction.
void BM_OpKernelContext_RunTrivialKernel(benchmark::State& state) {
  CpuDeviceOptions options;
  options.intra_op_threads = 1;
  CpuDevice device(options);
  std::unique_ptr<OpKernel> kernel;
  if (!CreateOpKernel(DEVICE_CPU, &device, nullptr, BenchNode(DT_FLOAT), 0,
                      &kernel)
           .ok()) {
    state.SkipWithError("CreateOpKernel failed");
    return;
  }
  Tensor x(DT_FLOAT, TensorShape({16}));
  std::vector<TensorValue> inputs = {TensorValue(&x)};
  for (auto _ : state) {
    OpKernelContext::Params params;
    params.device = &device;
    params.op_kernel = kernel.get();
    params.inputs = inputs;
    OpKernelContext ctx(&params);
    device.Compute(kernel.get(), &ctx);
    benchmark::DoNotOptimize(ctx.mutable_output(0));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_OpKernelContext_RunTrivialKernel);

// Reference: the virtual call alone, with a pre-built context.
void BM_Reference_VirtualCompute(benchmark::State& state) {
  CpuDeviceOptions options;
  options.intra_op_threads = 1;
  CpuDevice device(options);
  std::unique_ptr<OpKernel> kernel;
  if (!CreateOpKernel(DEVICE_CPU, &device, nullptr, BenchNode(DT_FLOAT), 0,
                      &kernel)
           .ok()) {
    state.SkipWithError("CreateOpKernel failed");
    return;
  }
  Tensor x(DT_FLOAT, TensorShape({16}));
  std::vector<TensorValue> inputs = {TensorValue(&x)};
  OpKernelContext::Params params;
  params.device = &device;
  params.op_kernel = kernel.get();
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  for (auto _ : state) {
    kernel->Compute(&ctx);
    benchmark::DoNotOptimize(ctx.mutable_output(0));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Reference_VirtualCompute);

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
