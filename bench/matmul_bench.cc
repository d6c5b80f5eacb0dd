// MatMul and BatchMatMulV2 run through the OpKernel (context, allocation,
// validation included), next to direct Eigen products on the same thread
// count in the same run: Eigen's tensor contraction on an
// Eigen::ThreadPoolDevice (what the kernel calls) and, single-threaded,
// Eigen's matrix product (Eigen's plain GEMM; it has no thread pool of its
// own without OpenMP). Args: {n (m = k = n), intra-op threads}.
#define EIGEN_USE_THREADS

#include <memory>
#include <string>
#include <vector>

#include "Eigen/Core"
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

// Random values in [-1, 1].
Tensor RandomFloats(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  t.flat<float>().setRandom();
  t.flat<float>() = t.flat<float>() * 2.0f - 1.0f;
  return t;
}

void SetFlops(benchmark::State& state, double flops_per_iteration) {
  state.counters["FLOP/s"] = benchmark::Counter(
      flops_per_iteration * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

// One kernel on its own CPU device with `threads` intra-op threads.
class KernelRunner {
 public:
  KernelRunner(const NodeDef& node, int threads, std::vector<Tensor> inputs)
      : inputs_(std::move(inputs)) {
    CpuDeviceOptions options;
    options.intra_op_threads = threads;
    device_ = std::make_unique<CpuDevice>(options);
    status_ =
        CreateOpKernel(DEVICE_CPU, device_.get(), nullptr, node, 0, &kernel_);
    for (Tensor& t : inputs_) values_.emplace_back(&t);
  }

  const Status& status() const { return status_; }

  // One Compute in a fresh context; the output is freed with it.
  Status Run() {
    OpKernelContext::Params params;
    params.device = device_.get();
    params.op_kernel = kernel_.get();
    params.inputs = values_;
    OpKernelContext ctx(&params);
    device_->Compute(kernel_.get(), &ctx);
    benchmark::DoNotOptimize(ctx.mutable_output(0));
    return ctx.status();
  }

 private:
  std::vector<Tensor> inputs_;
  std::vector<TensorValue> values_;
  std::unique_ptr<CpuDevice> device_;
  std::unique_ptr<OpKernel> kernel_;
  Status status_;
};

NodeDef MatMulNode(const std::string& op) {
  NodeDef node;
  node.set_name("bench");
  node.set_op(op);
  node.add_input("a");
  node.add_input("b");
  AddNodeAttr("T", DT_FLOAT, &node);
  return node;
}

void RunKernel(benchmark::State& state, KernelRunner& runner, double flops) {
  if (!runner.status().ok()) {
    state.SkipWithError(std::string(runner.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    const Status s = runner.Run();
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
  }
  SetFlops(state, flops);
}

void BM_MatMul(benchmark::State& state) {
  const int64_t n = state.range(0);
  KernelRunner runner(
      MatMulNode("MatMul"), static_cast<int>(state.range(1)),
      {RandomFloats(TensorShape({n, n})), RandomFloats(TensorShape({n, n}))});
  RunKernel(state, runner, 2.0 * n * n * n);
}
BENCHMARK(BM_MatMul)
    ->ArgNames({"n", "threads"})
    ->Args({1024, 1})
    ->Args({1024, 2})
    ->Args({2048, 1})
    ->Args({2048, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Reference: the same contraction straight on an Eigen::ThreadPoolDevice
// over a pool of the same size, output preallocated.
void BM_Reference_EigenContraction(benchmark::State& state) {
  const int64_t n = state.range(0);
  thread::ThreadPool pool("bench", static_cast<int>(state.range(1)));
  const Eigen::ThreadPoolDevice& d = pool.eigen_device();
  const Tensor a = RandomFloats(TensorShape({n, n}));
  const Tensor b = RandomFloats(TensorShape({n, n}));
  Tensor c(DT_FLOAT, TensorShape({n, n}));
  const Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims = {
      Eigen::IndexPair<Eigen::DenseIndex>(1, 0)};
  for (auto _ : state) {
    c.matrix<float>().device(d) =
        a.matrix<float>().contract(b.matrix<float>(), dims);
    benchmark::DoNotOptimize(c.base<float>());
  }
  SetFlops(state, 2.0 * n * n * n);
}
BENCHMARK(BM_Reference_EigenContraction)
    ->ArgNames({"n", "threads"})
    ->Args({1024, 1})
    ->Args({1024, 2})
    ->Args({2048, 1})
    ->Args({2048, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Reference: Eigen's matrix product (its GEMM), one thread.
void BM_Reference_EigenMatMul(benchmark::State& state) {
  const int64_t n = state.range(0);
  using RowMatrix =
      Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const RowMatrix a = RowMatrix::Random(n, n);
  const RowMatrix b = RowMatrix::Random(n, n);
  RowMatrix c(n, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  SetFlops(state, 2.0 * n * n * n);
}
BENCHMARK(BM_Reference_EigenMatMul)
    ->ArgNames({"n", "threads"})
    ->Args({1024, 1})
    ->Args({2048, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// A dense layer at batch 1, [1,k] x [k,n] (mlp_b1's 784x512 and 512x512):
// a matrix-vector product, split over the pool's threads by column (Note
// [GEMV over the intra-op pool]). With const_b the node is marked as the
// constant_filters pass marks a product whose b is a Const, and reads b
// from the column panels it packed on the first run (Note [Packed GEMV
// panels]). The reference is Eigen's GEMV on one thread, output
// preallocated; 2 * k * n FLOPs, and 4 * k * n bytes of matrix read per
// product. 2048x512 (4 MiB) is past L2 whatever the replacement policy
// leaves there, as mlp_b1's two matrices together are.
void BM_MatMul_Gemv(benchmark::State& state) {
  const int64_t k = state.range(0);
  const int64_t n = state.range(1);
  NodeDef node = MatMulNode("MatMul");
  if (state.range(3) != 0) AddNodeAttr("_is_filter_const", true, &node);
  KernelRunner runner(
      node, static_cast<int>(state.range(2)),
      {RandomFloats(TensorShape({1, k})), RandomFloats(TensorShape({k, n}))});
  RunKernel(state, runner, 2.0 * k * n);
}
BENCHMARK(BM_MatMul_Gemv)
    ->ArgNames({"k", "n", "threads", "const_b"})
    ->ArgsProduct({{784}, {512}, {1, 2}, {0, 1}})
    ->ArgsProduct({{512}, {512}, {1, 2}, {0, 1}})
    ->ArgsProduct({{2048}, {512}, {1}, {0, 1}})
    ->ArgsProduct({{2048}, {2048}, {1, 2}, {0, 1}})
    ->UseRealTime();

void BM_Reference_EigenGemv(benchmark::State& state) {
  const int64_t k = state.range(0);
  const int64_t n = state.range(1);
  using RowMatrix =
      Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::RowVectorXf a = Eigen::RowVectorXf::Random(k);
  const RowMatrix b = RowMatrix::Random(k, n);
  Eigen::RowVectorXf c(n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  SetFlops(state, 2.0 * k * n);
}
BENCHMARK(BM_Reference_EigenGemv)
    ->ArgNames({"k", "n", "threads"})
    ->Args({784, 512, 1})
    ->Args({512, 512, 1})
    ->Args({2048, 512, 1})
    ->Args({2048, 2048, 1})
    ->UseRealTime();

// Reference: reading the same [k,n] matrix once (its sum), one thread.
// At batch 1 a dense layer reads each weight once, so this is the floor
// for BM_MatMul_Gemv at 1 thread: a matrix larger than L2 (784x512 is
// 1.5 MiB) comes from L3 on every product, here as in mlp_b1.
void BM_Reference_ReadMatrix(benchmark::State& state) {
  const int64_t k = state.range(0);
  const int64_t n = state.range(1);
  const Eigen::VectorXf b = Eigen::VectorXf::Random(k * n);
  for (auto _ : state) {
    float sum = b.sum();
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(state.iterations() * k * n *
                          static_cast<int64_t>(sizeof(float)));
}
BENCHMARK(BM_Reference_ReadMatrix)
    ->ArgNames({"k", "n"})
    ->Args({784, 512})
    ->Args({512, 512})
    ->Args({2048, 512})
    ->UseRealTime();

// BatchMatMulV2 [8,128,64] x [8,64,128]: small products, run in parallel
// across the batch.
void BM_BatchMatMulV2(benchmark::State& state) {
  const int64_t batch = 8, m = 128, k = 64, n = 128;
  KernelRunner runner(MatMulNode("BatchMatMulV2"),
                      static_cast<int>(state.range(0)),
                      {RandomFloats(TensorShape({batch, m, k})),
                       RandomFloats(TensorShape({batch, k, n}))});
  RunKernel(state, runner, 2.0 * batch * m * n * k);
}
BENCHMARK(BM_BatchMatMulV2)
    ->ArgNames({"threads"})
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// Reference: the 8 products as one loop of Eigen matrix products, one
// thread.
void BM_Reference_EigenBatchMatMul(benchmark::State& state) {
  const int64_t batch = 8, m = 128, k = 64, n = 128;
  using RowMatrix =
      Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  std::vector<RowMatrix> x, y, z;
  for (int64_t i = 0; i < batch; ++i) {
    x.push_back(RowMatrix::Random(m, k));
    y.push_back(RowMatrix::Random(k, n));
    z.emplace_back(m, n);
  }
  for (auto _ : state) {
    for (int64_t i = 0; i < batch; ++i) z[i].noalias() = x[i] * y[i];
    benchmark::DoNotOptimize(z[0].data());
  }
  SetFlops(state, 2.0 * batch * m * n * k);
}
BENCHMARK(BM_Reference_EigenBatchMatMul)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
