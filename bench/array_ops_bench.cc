// Data-movement kernels in GB/s next to memcpy of the same bytes, in the
// same binary: Transpose of [64,64,64,64] floats by [0,3,1,2] and ConcatV2
// of 8 x [1024,1024] floats (64 MiB and 32 MiB out). Each is run through
// CreateOpKernel and an OpKernelContext, as the executor does, on a
// CpuDevice with the thread count given as the benchmark argument; the
// references are a plain memcpy (one thread) and a memcpy split over the
// same pool. Bytes processed count the output once (read + write of each
// byte, as for memcpy). Outputs come from a recycling allocator so that
// page faults of fresh 64 MiB buffers are not measured (the executor's
// allocator reuses memory the same way).
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bench/memcpy_reference.h"
#include "benchmark/benchmark.h"
#include "minflow/core/allocator.h"
#include "minflow/core/tensor.h"
#include "minflow/core/threadpool.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/node_def.pb.h"

namespace minflow {
namespace {

// Keeps freed blocks by size and hands them out again.
class RecyclingAllocator final : public Allocator {
 public:
  ~RecyclingAllocator() override {
    for (auto& [size, ptr] : free_) cpu_allocator()->DeallocateRaw(ptr, size);
  }
  std::string Name() const override { return "recycling"; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = free_.find(num_bytes);
      if (it != free_.end()) {
        void* p = it->second;
        free_.erase(it);
        return p;
      }
    }
    return cpu_allocator()->AllocateRaw(alignment, num_bytes);
  }
  void DeallocateRaw(void* ptr, size_t num_bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    free_.emplace(num_bytes, ptr);
  }
  AllocatorStats GetStats() const override { return {}; }
  void ResetPeak() override {}

 private:
  std::mutex mu_;
  std::multimap<size_t, void*> free_;
};

Tensor Filled(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  float* p = t.base<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = static_cast<float>(i);
  return t;
}

// One kernel on one device, run as the executor would.
class KernelRunner {
 public:
  KernelRunner(int threads, const NodeDef& node, std::vector<Tensor> inputs)
      : inputs_(std::move(inputs)) {
    CpuDeviceOptions options;
    options.intra_op_threads = threads;
    options.allocator = &allocator_;
    device_ = std::make_unique<CpuDevice>(options);
    status_ =
        CreateOpKernel(DEVICE_CPU, device_.get(), nullptr, node, 0, &kernel_);
    for (Tensor& t : inputs_) values_.emplace_back(&t);
  }
  const Status& status() const { return status_; }

  // Runs once; the output is released (recycled) at return.
  Status Run() {
    OpKernelContext::Params params;
    params.device = device_.get();
    params.op_kernel = kernel_.get();
    params.inputs = values_;
    OpKernelContext ctx(&params);
    kernel_->Compute(&ctx);
    benchmark::DoNotOptimize(ctx.mutable_output(0));
    return ctx.status();
  }

 private:
  RecyclingAllocator allocator_;
  std::unique_ptr<CpuDevice> device_;
  std::unique_ptr<OpKernel> kernel_;
  std::vector<Tensor> inputs_;
  std::vector<TensorValue> values_;
  Status status_;
};

void RunKernelBench(benchmark::State& state, KernelRunner& runner,
                    int64_t bytes) {
  if (!runner.status().ok()) {
    state.SkipWithError(std::string(runner.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    const Status s = runner.Run();
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["threads"] = static_cast<double>(state.range(0));
}

constexpr int64_t kTransposeBytes = int64_t{64} * 64 * 64 * 64 * 4;
constexpr int kConcatInputs = 8;
constexpr int64_t kConcatBytes = int64_t{kConcatInputs} * 1024 * 1024 * 4;

void BM_Transpose_Float_64x64x64x64_0312(benchmark::State& state) {
  NodeDef node;
  node.set_name("transpose");
  node.set_op("Transpose");
  node.add_input("x");
  node.add_input("perm");
  AddNodeAttr("T", DT_FLOAT, &node);
  AddNodeAttr("Tperm", DT_INT32, &node);
  Tensor perm(DT_INT32, TensorShape({4}));
  const int32_t p[] = {0, 3, 1, 2};
  std::memcpy(perm.data(), p, sizeof(p));
  KernelRunner runner(static_cast<int>(state.range(0)), node,
                      {Filled(TensorShape({64, 64, 64, 64})), perm});
  RunKernelBench(state, runner, kTransposeBytes);
}

// `axis` 0 is one contiguous copy per input; axis 1 interleaves rows.
void BM_ConcatV2_Float_8x1024x1024(benchmark::State& state, int axis) {
  NodeDef node;
  node.set_name("concat");
  node.set_op("ConcatV2");
  std::vector<Tensor> inputs;
  for (int i = 0; i < kConcatInputs; ++i) {
    node.add_input("x" + std::to_string(i));
    inputs.push_back(Filled(TensorShape({1024, 1024})));
  }
  node.add_input("axis");
  inputs.push_back(Tensor(axis));
  AddNodeAttr("T", DT_FLOAT, &node);
  AddNodeAttr("N", kConcatInputs, &node);
  AddNodeAttr("Tidx", DT_INT32, &node);
  KernelRunner runner(static_cast<int>(state.range(0)), node,
                      std::move(inputs));
  RunKernelBench(state, runner, kConcatBytes);
}
void BM_ConcatV2_Float_8x1024x1024_Axis0(benchmark::State& state) {
  BM_ConcatV2_Float_8x1024x1024(state, 0);
}
void BM_ConcatV2_Float_8x1024x1024_Axis1(benchmark::State& state) {
  BM_ConcatV2_Float_8x1024x1024(state, 1);
}

void BM_Reference_Memcpy_64MiB(benchmark::State& state) {
  bench::ReferenceMemcpy(state, kTransposeBytes);
}
void BM_Reference_Memcpy_32MiB(benchmark::State& state) {
  bench::ReferenceMemcpy(state, kConcatBytes);
}

using bench::ThreadArgs;

BENCHMARK(BM_Transpose_Float_64x64x64x64_0312)->Apply(ThreadArgs);
BENCHMARK(BM_Reference_Memcpy_64MiB)->Apply(ThreadArgs);
BENCHMARK(BM_ConcatV2_Float_8x1024x1024_Axis0)->Apply(ThreadArgs);
BENCHMARK(BM_ConcatV2_Float_8x1024x1024_Axis1)->Apply(ThreadArgs);
BENCHMARK(BM_Reference_Memcpy_32MiB)->Apply(ThreadArgs);

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
