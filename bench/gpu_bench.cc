// GPU figures (issue 21), each against a reference measured in the same run
// on the same stream:
//  - AddV2's kernel vs a device-to-device copy, as achieved bandwidth;
//  - MatMul's kernel vs a direct cublasSgemm;
//  - a session's per-node cost on a chain of GPU nodes vs a bare loop of
//    kernel launches;
//  - the same chain's step launched as a CUDA Graph (use_cuda_graphs) vs
//    run through the executor.
// The ratios are printed after the benchmarks. Exits 0 with a note when the
// machine has no GPU.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "minflow/core/tensor.h"
#include "minflow/cuda/gpu_info.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "minflow/tensor.pb.h"
#include "src/cuda/gpu_device.h"

namespace minflow {
namespace bench {

cudaError_t LaunchAddOne(const float* in, float* out, int n,
                         cudaStream_t stream);

namespace {

using Clock = std::chrono::steady_clock;

// Figures of each benchmark's last (longest) run, for the ratios.
std::map<std::string, double>& Figures() {
  static auto* figures = new std::map<std::string, double>();
  return *figures;
}

// A time figure of a repeated benchmark: the fastest repetition, since
// on a shared machine noise only ever adds time.
void RecordFastest(const std::string& key, double micros) {
  auto [it, inserted] = Figures().emplace(key, micros);
  if (!inserted && micros < it->second) it->second = micros;
}

GpuDevice* Device() {
  static GpuDevice* device = [] {
    std::unique_ptr<GpuDevice> d;
    const Status s = GpuDevice::Create(0, &d);
    if (!s.ok()) {
      std::fprintf(stderr, "cannot make GPU 0: %s\n",
                   std::string(s.message()).c_str());
      std::abort();
    }
    return d.release();
  }();
  return device;
}

Tensor DeviceTensor(const TensorShape& shape, float value) {
  Tensor t(Device()->GetAllocator(AllocatorAttributes()), DT_FLOAT, shape);
  std::vector<float> host(t.NumElements(), value);
  cudaMemcpy(const_cast<char*>(t.tensor_data().data()), host.data(),
             t.TotalBytes(), cudaMemcpyHostToDevice);
  return t;
}

// Runs `kernel` on `inputs` `iterations` times on the device, then waits.
void RunKernel(OpKernel* kernel, const std::vector<Tensor*>& inputs,
               int64_t iterations) {
  std::vector<TensorValue> values;
  for (Tensor* t : inputs) values.emplace_back(t);
  for (int64_t i = 0; i < iterations; ++i) {
    OpKernelContext::Params params;
    params.device = Device();
    params.op_kernel = kernel;
    params.inputs = values;
    OpKernelContext ctx(&params);
    Device()->Compute(kernel, &ctx);
    if (!ctx.status().ok()) {
      std::fprintf(stderr, "%s\n", std::string(ctx.status().message()).c_str());
      std::abort();
    }
  }
  const Status s = Device()->Sync();
  if (!s.ok()) std::abort();
}

std::unique_ptr<OpKernel> MakeKernel(const NodeDef& def) {
  std::unique_ptr<OpKernel> kernel;
  const Status s = CreateOpKernel(DEVICE_GPU, Device(), nullptr, def,
                                  /*graph_def_version=*/1000, &kernel);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    std::abort();
  }
  return kernel;
}

constexpr int kInnerLoops = 20;

// --- AddV2 vs D2D copy: bytes each moves (2 reads + 1 write vs 1 + 1).

void BM_D2DCopy(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor src = DeviceTensor(TensorShape({n}), 1.0f);
  Tensor dst = DeviceTensor(TensorShape({n}), 0.0f);
  const auto start = Clock::now();
  for (auto _ : state) {
    for (int i = 0; i < kInnerLoops; ++i) {
      cudaMemcpyAsync(const_cast<char*>(dst.tensor_data().data()),
                      src.tensor_data().data(), n * sizeof(float),
                      cudaMemcpyDeviceToDevice, Device()->cuda_stream());
    }
    cudaStreamSynchronize(Device()->cuda_stream());
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  const double bytes =
      2.0 * n * sizeof(float) * kInnerLoops * state.iterations();
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  Figures()[absl::StrCat("copy_GBps_", n)] = bytes / seconds / 1e9;
}

void BM_AddV2Kernel(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = DeviceTensor(TensorShape({n}), 1.0f);
  Tensor b = DeviceTensor(TensorShape({n}), 2.0f);
  NodeDef def;
  def.set_name("add");
  def.set_op("AddV2");
  def.add_input("a");
  def.add_input("b");
  AddNodeAttr("T", DT_FLOAT, &def);
  std::unique_ptr<OpKernel> kernel = MakeKernel(def);
  const auto start = Clock::now();
  for (auto _ : state) RunKernel(kernel.get(), {&a, &b}, kInnerLoops);
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  const double bytes =
      3.0 * n * sizeof(float) * kInnerLoops * state.iterations();
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  Figures()[absl::StrCat("add_GBps_", n)] = bytes / seconds / 1e9;
}

// --- MatMul vs cublasSgemm on the same handle and stream.

void BM_CublasSgemm(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Tensor a = DeviceTensor(TensorShape({n, n}), 0.5f);
  Tensor b = DeviceTensor(TensorShape({n, n}), 0.25f);
  Tensor c = DeviceTensor(TensorShape({n, n}), 0.0f);
  const float alpha = 1.0f, beta = 0.0f;
  const auto start = Clock::now();
  for (auto _ : state) {
    for (int i = 0; i < kInnerLoops; ++i) {
      cublasSgemm(Device()->cublas_handle(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
                  &alpha, b.flat<float>().data(), n, a.flat<float>().data(), n,
                  &beta, const_cast<float*>(c.flat<float>().data()), n);
    }
    cudaStreamSynchronize(Device()->cuda_stream());
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  const double flops = 2.0 * n * n * n * kInnerLoops * state.iterations();
  state.counters["TFLOPs"] = benchmark::Counter(flops / seconds / 1e12);
  Figures()[absl::StrCat("cublas_TFLOPs_", n)] = flops / seconds / 1e12;
}

void BM_MatMulKernel(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Tensor a = DeviceTensor(TensorShape({n, n}), 0.5f);
  Tensor b = DeviceTensor(TensorShape({n, n}), 0.25f);
  NodeDef def;
  def.set_name("mm");
  def.set_op("MatMul");
  def.add_input("a");
  def.add_input("b");
  AddNodeAttr("T", DT_FLOAT, &def);
  AddNodeAttr("transpose_a", false, &def);
  AddNodeAttr("transpose_b", false, &def);
  std::unique_ptr<OpKernel> kernel = MakeKernel(def);
  const auto start = Clock::now();
  for (auto _ : state) RunKernel(kernel.get(), {&a, &b}, kInnerLoops);
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  const double flops = 2.0 * n * n * n * kInnerLoops * state.iterations();
  state.counters["TFLOPs"] = benchmark::Counter(flops / seconds / 1e12);
  Figures()[absl::StrCat("matmul_TFLOPs_", n)] = flops / seconds / 1e12;
}

// --- Per-node cost: a session running a chain of `length` AddV2s on GPU
// tensors of one element (fed in, fetched out) vs `length` bare launches
// (and one copy out), both ending in one synchronisation; the per-node
// figure is the slope between two lengths, so the copies cancel.

GraphDef GpuChain(int length) {
  GraphDef g;
  auto add_const = [&](const std::string& name, float v) {
    NodeDef* n = g.add_node();
    n->set_name(name);
    n->set_op("Const");
    AddNodeAttr("dtype", DT_FLOAT, n);
    Tensor t(DT_FLOAT, TensorShape({1}));
    t.flat<float>()(0) = v;
    TensorProto proto;
    t.AsProtoTensorContent(&proto);
    AttrValue value;
    *value.mutable_tensor() = proto;
    AddNodeAttr("value", value, n);
  };
  // x is fed, so constant folding cannot collapse the chain.
  NodeDef* x = g.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  AddNodeAttr("dtype", DT_FLOAT, x);
  add_const("one", 1.0f);
  std::string prev = "x";
  for (int i = 0; i < length; ++i) {
    NodeDef* n = g.add_node();
    n->set_name(absl::StrCat("add", i));
    n->set_op("AddV2");
    n->add_input(prev);
    n->add_input("one");
    AddNodeAttr("T", DT_FLOAT, n);
    prev = n->name();
  }
  return g;
}

// range(1) = 1: with use_cuda_graphs, so every timed run launches the
// step's CUDA Graph (the first two runs, which record it, are untimed).
void BM_SessionGpuChain(benchmark::State& state) {
  const int length = static_cast<int>(state.range(0));
  const bool captured = state.range(1) != 0;
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(1);
  options.config.mutable_gpu_options()
      ->mutable_experimental()
      ->set_use_cuda_graphs(captured);
  auto session = Session::Create(GpuChain(length), options);
  if (!session.ok()) {
    state.SkipWithError(std::string(session.status().message()).c_str());
    return;
  }
  const std::string fetch = absl::StrCat("add", length - 1);
  Tensor x(DT_FLOAT, TensorShape({1}));
  x.flat<float>()(0) = 0.0f;
  std::vector<Tensor> out;
  for (int warm = 0; warm < 2; ++warm) {
    const Status s = (*session)->Run({{"x", x}}, {fetch}, {}, &out);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
  }
  const auto start = Clock::now();
  for (auto _ : state) {
    const Status s = (*session)->Run({{"x", x}}, {fetch}, {}, &out);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  if (out[0].flat<float>()(0) != static_cast<float>(length)) {
    state.SkipWithError("wrong chain result");
    return;
  }
  RecordFastest(absl::StrCat(captured ? "captured_us_" : "session_us_", length),
                seconds / state.iterations() * 1e6);
}

// The same AddV2 kernel called straight, without the executor: where the
// session's per-node cost goes (executor vs kernel and launch).
void BM_KernelChain(benchmark::State& state) {
  const int length = static_cast<int>(state.range(0));
  Tensor a = DeviceTensor(TensorShape({1}), 0.0f);
  Tensor one = DeviceTensor(TensorShape({1}), 1.0f);
  NodeDef def;
  def.set_name("add");
  def.set_op("AddV2");
  def.add_input("a");
  def.add_input("one");
  AddNodeAttr("T", DT_FLOAT, &def);
  std::unique_ptr<OpKernel> kernel = MakeKernel(def);
  const auto start = Clock::now();
  for (auto _ : state) RunKernel(kernel.get(), {&a, &one}, length);
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  RecordFastest(absl::StrCat("kernel_us_", length),
                seconds / state.iterations() * 1e6);
}

void BM_BareLaunchChain(benchmark::State& state) {
  const int length = static_cast<int>(state.range(0));
  Tensor a = DeviceTensor(TensorShape({1}), 0.0f);
  Tensor b = DeviceTensor(TensorShape({1}), 0.0f);
  float* pa = const_cast<float*>(a.flat<float>().data());
  float* pb = const_cast<float*>(b.flat<float>().data());
  float result = 0;
  const auto start = Clock::now();
  for (auto _ : state) {
    for (int i = 0; i < length; ++i) {
      LaunchAddOne(i % 2 == 0 ? pa : pb, i % 2 == 0 ? pb : pa, 1,
                   Device()->cuda_stream());
    }
    cudaMemcpyAsync(&result, pa, sizeof(float), cudaMemcpyDeviceToHost,
                    Device()->cuda_stream());
    cudaStreamSynchronize(Device()->cuda_stream());
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  RecordFastest(absl::StrCat("bare_us_", length),
                seconds / state.iterations() * 1e6);
}

constexpr int64_t kBig = int64_t{1} << 26;  // 256 MiB of floats

void Register() {
  for (int64_t n : {int64_t{1} << 20, kBig}) {
    benchmark::RegisterBenchmark("BM_D2DCopy", BM_D2DCopy)
        ->Arg(n)
        ->UseRealTime();
    benchmark::RegisterBenchmark("BM_AddV2Kernel", BM_AddV2Kernel)
        ->Arg(n)
        ->UseRealTime();
  }
  for (int n : {1024, 4096}) {
    benchmark::RegisterBenchmark("BM_CublasSgemm", BM_CublasSgemm)
        ->Arg(n)
        ->UseRealTime();
    benchmark::RegisterBenchmark("BM_MatMulKernel", BM_MatMulKernel)
        ->Arg(n)
        ->UseRealTime();
  }
  for (int length : {100, 1000}) {
    // Repeated, the fastest repetition counting: per-node figures are a
    // difference of two times, so noise in either moves them most.
    benchmark::RegisterBenchmark("BM_SessionGpuChain", BM_SessionGpuChain)
        ->Args({length, 0})
        ->UseRealTime()
        ->Repetitions(5);
    benchmark::RegisterBenchmark("BM_SessionGpuChain", BM_SessionGpuChain)
        ->Args({length, 1})
        ->UseRealTime()
        ->Repetitions(5);
    benchmark::RegisterBenchmark("BM_KernelChain", BM_KernelChain)
        ->Arg(length)
        ->UseRealTime()
        ->Repetitions(5);
    benchmark::RegisterBenchmark("BM_BareLaunchChain", BM_BareLaunchChain)
        ->Arg(length)
        ->UseRealTime()
        ->Repetitions(5);
  }
}

void PrintRatios() {
  auto& f = Figures();
  std::printf("\n# GPU figures (same run, same stream)\n");
  for (int64_t n : {int64_t{1} << 20, kBig}) {
    const double add = f[absl::StrCat("add_GBps_", n)];
    const double copy = f[absl::StrCat("copy_GBps_", n)];
    std::printf(
        "AddV2 %lld floats: %.1f GB/s vs D2D copy %.1f GB/s = %.3fx (goal >= "
        "0.95)\n",
        static_cast<long long>(n), add, copy, copy > 0 ? add / copy : 0);
  }
  for (int n : {1024, 4096}) {
    const double mm = f[absl::StrCat("matmul_TFLOPs_", n)];
    const double cublas = f[absl::StrCat("cublas_TFLOPs_", n)];
    std::printf(
        "MatMul %d^3: %.2f TFLOP/s vs cublasSgemm %.2f = %.3fx (goal >= "
        "0.97)\n",
        n, mm, cublas, cublas > 0 ? mm / cublas : 0);
  }
  const double session_slope =
      (f["session_us_1000"] - f["session_us_100"]) / 900.0;
  const double bare_slope = (f["bare_us_1000"] - f["bare_us_100"]) / 900.0;
  const double kernel_slope =
      (f["kernel_us_1000"] - f["kernel_us_100"]) / 900.0;
  std::printf(
      "per-node: session %.3f us vs bare launch %.3f us = %.2fx (goal <= "
      "1.3); the kernel alone, without the executor: %.3f us = %.2fx\n",
      session_slope, bare_slope,
      bare_slope > 0 ? session_slope / bare_slope : 0, kernel_slope,
      bare_slope > 0 ? kernel_slope / bare_slope : 0);
  for (int length : {100, 1000}) {
    const double captured = f[absl::StrCat("captured_us_", length)];
    const double uncaptured = f[absl::StrCat("session_us_", length)];
    std::printf(
        "CUDA Graph replay, %d-node chain: %.1f us vs uncaptured %.1f us = "
        "%.3fx (goal <= 0.35)\n",
        length, captured, uncaptured,
        uncaptured > 0 ? captured / uncaptured : 0);
  }
  const double captured_slope =
      (f["captured_us_1000"] - f["captured_us_100"]) / 900.0;
  std::printf("per-node, replayed: %.3f us = %.2fx a bare launch\n",
              captured_slope, bare_slope > 0 ? captured_slope / bare_slope : 0);
}

}  // namespace
}  // namespace bench
}  // namespace minflow

int main(int argc, char** argv) {
  int count = 0;
  if (!minflow::GetGpuCount(&count).ok() || count == 0) {
    std::printf("gpu_bench: no GPU on this machine; nothing measured\n");
    return 0;
  }
  minflow::GpuProperties props;
  if (minflow::GetGpuProperties(0, &props).ok()) {
    benchmark::AddCustomContext("gpu", props.DebugString());
    std::printf("%s\n", props.DebugString().c_str());
  }
  minflow::bench::Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  minflow::bench::PrintRatios();
  return 0;
}
