// GatherNd in GB/s next to memcpy of the same output bytes, in the same
// binary: rows (1 KiB slices of a [4096,256] float table picked by 64 Ki
// index tuples of depth 1, 64 MiB out), and single elements (1 Mi tuples
// of depth 2 into a [1024,1024] float matrix, 4 MiB out), where the
// per-tuple work of validating and locating dominates. Each kernel is run
// through CreateOpKernel and an OpKernelContext, as the executor does, on
// a CpuDevice with the thread count given as the benchmark argument.
// Bytes processed count the output once. Outputs come from a recycling
// allocator so page faults of fresh buffers are not measured.
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

// A GatherNd kernel over float params and int32 indices, run as the
// executor would.
class GatherNdRunner {
 public:
  GatherNdRunner(int threads, Tensor params, Tensor indices)
      : inputs_{std::move(params), std::move(indices)} {
    NodeDef node;
    node.set_name("gather_nd");
    node.set_op("GatherNd");
    node.add_input("params");
    node.add_input("indices");
    AddNodeAttr("Tparams", DT_FLOAT, &node);
    AddNodeAttr("Tindices", DT_INT32, &node);
    AddNodeAttr("bad_indices_policy", "", &node);
    CpuDeviceOptions options;
    options.intra_op_threads = threads;
    options.allocator = &allocator_;
    device_ = std::make_unique<CpuDevice>(options);
    status_ =
        CreateOpKernel(DEVICE_CPU, device_.get(), nullptr, node, 0, &kernel_);
    for (Tensor& t : inputs_) values_.emplace_back(&t);
  }

  void Bench(benchmark::State& state, int64_t bytes) {
    if (!status_.ok()) {
      state.SkipWithError(std::string(status_.message()).c_str());
      return;
    }
    for (auto _ : state) {
      OpKernelContext::Params params;
      params.device = device_.get();
      params.op_kernel = kernel_.get();
      params.inputs = values_;
      OpKernelContext ctx(&params);
      kernel_->Compute(&ctx);
      benchmark::DoNotOptimize(ctx.mutable_output(0));
      if (!ctx.status().ok()) {
        state.SkipWithError(std::string(ctx.status().message()).c_str());
        return;
      }
    }
    state.SetBytesProcessed(state.iterations() * bytes);
    state.counters["threads"] = static_cast<double>(state.range(0));
  }

 private:
  RecyclingAllocator allocator_;
  std::unique_ptr<CpuDevice> device_;
  std::unique_ptr<OpKernel> kernel_;
  std::vector<Tensor> inputs_;
  std::vector<TensorValue> values_;
  Status status_;
};

Tensor Filled(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  float* p = t.base<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = static_cast<float>(i);
  return t;
}

// Indices [n, depth], coordinate d of tuple i spread over [0, dims[d]).
Tensor Indices(int64_t n, const std::vector<int64_t>& dims) {
  const int64_t depth = static_cast<int64_t>(dims.size());
  Tensor t(DT_INT32, TensorShape({n, depth}));
  int32_t* p = t.base<int32_t>();
  uint64_t x = 88172645463325252ull;
  for (int64_t i = 0; i < n * depth; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    p[i] = static_cast<int32_t>(x % static_cast<uint64_t>(dims[i % depth]));
  }
  return t;
}

constexpr int64_t kRowTuples = 64 * 1024;
constexpr int64_t kRowBytes = kRowTuples * 256 * 4;  // 64 MiB
constexpr int64_t kElementTuples = 1024 * 1024;
constexpr int64_t kElementBytes = kElementTuples * 4;  // 4 MiB

void BM_GatherNd_Float_Rows_4096x256_64Ki(benchmark::State& state) {
  GatherNdRunner runner(static_cast<int>(state.range(0)),
                        Filled(TensorShape({4096, 256})),
                        Indices(kRowTuples, {4096}));
  runner.Bench(state, kRowBytes);
}

void BM_GatherNd_Float_Elements_1024x1024_1Mi(benchmark::State& state) {
  GatherNdRunner runner(static_cast<int>(state.range(0)),
                        Filled(TensorShape({1024, 1024})),
                        Indices(kElementTuples, {1024, 1024}));
  runner.Bench(state, kElementBytes);
}

// The same element gather as a bare loop (no validation, no kernel), one
// thread: the floor for scattered 4-byte reads.
void BM_Reference_HandGather_Elements_1024x1024_1Mi(benchmark::State& state) {
  const Tensor params = Filled(TensorShape({1024, 1024}));
  const Tensor indices = Indices(kElementTuples, {1024, 1024});
  std::vector<float> out(kElementTuples);
  const float* p = params.base<const float>();
  const int32_t* idx = indices.base<const int32_t>();
  for (auto _ : state) {
    for (int64_t i = 0; i < kElementTuples; ++i) {
      out[i] = p[int64_t{idx[2 * i]} * 1024 + idx[2 * i + 1]];
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kElementBytes);
}

void BM_Reference_Memcpy_64MiB(benchmark::State& state) {
  bench::ReferenceMemcpy(state, kRowBytes);
}
void BM_Reference_Memcpy_4MiB(benchmark::State& state) {
  bench::ReferenceMemcpy(state, kElementBytes);
}

using bench::ThreadArgs;

BENCHMARK(BM_GatherNd_Float_Rows_4096x256_64Ki)->Apply(ThreadArgs);
BENCHMARK(BM_Reference_Memcpy_64MiB)->Apply(ThreadArgs);
BENCHMARK(BM_GatherNd_Float_Elements_1024x1024_1Mi)->Apply(ThreadArgs);
BENCHMARK(BM_Reference_Memcpy_4MiB)->Apply(ThreadArgs);
BENCHMARK(BM_Reference_HandGather_Elements_1024x1024_1Mi)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
