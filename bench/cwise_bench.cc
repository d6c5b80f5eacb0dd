// AddV2 run through its OpKernel (context, validation, broadcast planning,
// output forwarding or allocation included) next to hand-written loops in
// the same binary run: memcpy and the triad a[i] = b[i] + c[i] on 16 Mi
// floats, small sizes on 1 and 2 intra-op threads (tensors under ~32 K
// elements must not pay for threads), and a row broadcast. Bytes counted:
// every byte read plus every byte written.
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "minflow/core/tensor.h"
#include "minflow/core/threadpool.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/node_def.pb.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {
namespace {

constexpr int64_t kBig = int64_t{16} << 20;  // 16 Mi floats, 64 MiB each

Tensor RandomFloats(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  t.flat<float>().setRandom();
  return t;
}

void SetBytes(benchmark::State& state, int64_t bytes_per_iteration) {
  state.SetBytesProcessed(bytes_per_iteration * state.iterations());
}

NodeDef AddV2Node() {
  NodeDef node;
  node.set_name("bench");
  node.set_op("AddV2");
  node.add_input("x");
  node.add_input("y");
  AddNodeAttr("T", DT_FLOAT, &node);
  return node;
}

// AddV2 on its own CPU device with `threads` intra-op threads. With
// `forward`, input 0 is held only by the runner, so the kernel writes in
// place (what the executor allows on an input's last use); without, the
// runner keeps a second reference and every call allocates its output.
class AddV2Runner {
 public:
  AddV2Runner(int threads, Tensor x, Tensor y, bool forward)
      : x_(std::move(x)), y_(std::move(y)) {
    if (!forward) x_alias_ = x_;
    CpuDeviceOptions options;
    options.intra_op_threads = threads;
    device_ = std::make_unique<CpuDevice>(options);
    status_ = CreateOpKernel(DEVICE_CPU, device_.get(), nullptr, AddV2Node(), 0,
                             &kernel_);
    values_ = {TensorValue(&x_), TensorValue(&y_)};
  }

  const Status& status() const { return status_; }

  Status Run() {
    OpKernelContext::Params params;
    params.device = device_.get();
    params.op_kernel = kernel_.get();
    params.inputs = values_;
    OpKernelContext ctx(&params);
    device_->Compute(kernel_.get(), &ctx);
    benchmark::DoNotOptimize(ctx.mutable_output(0)->data());
    forwarded_ = ctx.mutable_output(0)->SharesBufferWith(x_);
    return ctx.status();
  }
  bool forwarded() const { return forwarded_; }

 private:
  Tensor x_;
  Tensor y_;
  Tensor x_alias_;
  std::vector<TensorValue> values_;
  std::unique_ptr<CpuDevice> device_;
  std::unique_ptr<OpKernel> kernel_;
  Status status_;
  bool forwarded_ = false;
};

// Args: {elements, intra-op threads, forward (1) or allocate (0)}.
void BM_AddV2(benchmark::State& state) {
  const int64_t n = state.range(0);
  const bool forward = state.range(2) != 0;
  AddV2Runner runner(static_cast<int>(state.range(1)),
                     RandomFloats(TensorShape({n})),
                     RandomFloats(TensorShape({n})), forward);
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
  if (runner.forwarded() != forward) {
    state.SkipWithError("forwarding did not behave as the variant assumes");
  }
  SetBytes(state, 3 * n * static_cast<int64_t>(sizeof(float)));
}
BENCHMARK(BM_AddV2)
    ->ArgNames({"n", "threads", "forward"})
    ->Args({kBig, 1, 1})
    ->Args({kBig, 2, 1})
    ->Args({kBig, 1, 0})
    ->Args({kBig, 2, 0})
    ->UseRealTime();

// Small tensors: 2 threads must not be slower than 1 below ~32 K elements.
BENCHMARK(BM_AddV2)
    ->ArgNames({"n", "threads", "forward"})
    ->ArgsProduct({{1 << 10, 1 << 12, 1 << 15, 1 << 17, 1 << 20}, {1, 2}, {1}})
    ->UseRealTime();

// Reference: a[i] = b[i] + c[i] by hand, over `threads` threads.
void BM_Reference_Triad(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  std::vector<float> a(n, 0.0f);
  Tensor bt = RandomFloats(TensorShape({n}));
  Tensor ct = RandomFloats(TensorShape({n}));
  const float* b = bt.base<const float>();
  const float* c = ct.base<const float>();
  float* pa = a.data();
  thread::ThreadPool pool("triad", threads);
  auto triad = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) pa[i] = b[i] + c[i];
  };
  for (auto _ : state) {
    if (threads == 1) {
      triad(0, n);
    } else {
      // Equal halves, the calling thread taking one, as a hand-tuned loop
      // would.
      const int64_t block = (n + threads - 1) / threads;
      pool.ParallelFor(threads, /*cost_per_unit=*/1'000'000,
                       [&](int64_t first, int64_t last) {
                         triad(first * block, std::min(n, last * block));
                       });
    }
    benchmark::ClobberMemory();
  }
  SetBytes(state, 3 * n * static_cast<int64_t>(sizeof(float)));
}
BENCHMARK(BM_Reference_Triad)
    ->ArgNames({"n", "threads"})
    ->Args({kBig, 1})
    ->Args({kBig, 2})
    ->ArgsProduct({{1 << 10, 1 << 12, 1 << 15, 1 << 17, 1 << 20}, {1}})
    ->UseRealTime();

// Reference: memcpy of 16 Mi floats (one read, one write).
void BM_Reference_Memcpy(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> dst(n, 0.0f);
  Tensor src = RandomFloats(TensorShape({n}));
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), n * sizeof(float));
    benchmark::ClobberMemory();
  }
  SetBytes(state, 2 * n * static_cast<int64_t>(sizeof(float)));
}
BENCHMARK(BM_Reference_Memcpy)->ArgNames({"n"})->Arg(kBig)->UseRealTime();

// A row broadcast, [rows, 4096] + [4096] (bias-add shaped), forwarded.
void BM_AddV2_RowBroadcast(benchmark::State& state) {
  const int64_t rows = state.range(0);
  constexpr int64_t kCols = 4096;
  AddV2Runner runner(static_cast<int>(state.range(1)),
                     RandomFloats(TensorShape({rows, kCols})),
                     RandomFloats(TensorShape({kCols})), /*forward=*/true);
  for (auto _ : state) {
    const Status s = runner.Run();
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
  }
  SetBytes(state, (2 * rows * kCols + kCols) * int64_t{sizeof(float)});
}
BENCHMARK(BM_AddV2_RowBroadcast)
    ->ArgNames({"rows", "threads"})
    ->Args({4096, 1})
    ->Args({4096, 2})
    ->UseRealTime();

// Reference: the same row broadcast by hand, in place, one thread.
void BM_Reference_RowBroadcast(benchmark::State& state) {
  const int64_t rows = state.range(0);
  constexpr int64_t kCols = 4096;
  Tensor at = RandomFloats(TensorShape({rows, kCols}));
  Tensor bt = RandomFloats(TensorShape({kCols}));
  float* a = at.base<float>();
  const float* b = bt.base<const float>();
  for (auto _ : state) {
    for (int64_t r = 0; r < rows; ++r) {
      float* row = a + r * kCols;
      for (int64_t c = 0; c < kCols; ++c) row[c] = row[c] + b[c];
    }
    benchmark::ClobberMemory();
  }
  SetBytes(state, (2 * rows * kCols + kCols) * int64_t{sizeof(float)});
}
BENCHMARK(BM_Reference_RowBroadcast)
    ->ArgNames({"rows"})
    ->Arg(4096)
    ->UseRealTime();

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
