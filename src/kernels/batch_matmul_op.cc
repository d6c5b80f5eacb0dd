// BatchMatMul, BatchMatMulV2 and BatchMatMulV3:
// output[..., :, :] = op(x[..., :, :]) * op(y[..., :, :]), op an adjoint
// per attr (a transpose: only real types are registered). V2 and V3
// broadcast the batch dims as numpy does; V1 requires them equal.
#define EIGEN_USE_THREADS

#include "src/kernels/batch_matmul_op.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "absl/container/inlined_vector.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cpu_gemm.h"
#include "src/kernels/matmul_op_functor.h"

namespace minflow {

using CPUDevice = Eigen::ThreadPoolDevice;

namespace {

template <typename T>
using RowMatrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const RowMatrix<T>>;
template <typename T>
using MatrixMap = Eigen::Map<RowMatrix<T>>;
template <typename T>
using ConstTensorMap2 =
    Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor>>;
template <typename T>
using TensorMap2 = Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor>>;

// One small product on the calling thread. Eigen's matrix product picks a
// coefficient loop for tiny sizes and its GEMM otherwise.
template <typename T>
void SequentialProduct(const T* x, int64_t x_rows, int64_t x_cols, bool adj_x,
                       const T* y, int64_t y_rows, int64_t y_cols, bool adj_y,
                       T* z, int64_t z_rows, int64_t z_cols) {
  ConstMatrixMap<T> xm(x, x_rows, x_cols);
  ConstMatrixMap<T> ym(y, y_rows, y_cols);
  MatrixMap<T> zm(z, z_rows, z_cols);
  if (!adj_x && !adj_y) {
    zm.noalias() = xm * ym;
  } else if (!adj_x) {
    zm.noalias() = xm * ym.transpose();
  } else if (!adj_y) {
    zm.noalias() = xm.transpose() * ym;
  } else {
    zm.noalias() = xm.transpose() * ym.transpose();
  }
}

}  // namespace

template <typename T>
void LaunchBatchMatMul(OpKernelContext* ctx, const Tensor& x, const Tensor& y,
                       bool adj_x, bool adj_y,
                       const internal::MatMulBCast& bcast, Tensor* out) {
  if (out->NumElements() == 0) return;
  const int64_t x_rows = x.dim_size(x.dims() - 2);
  const int64_t x_cols = x.dim_size(x.dims() - 1);
  const int64_t y_rows = y.dim_size(y.dims() - 2);
  const int64_t y_cols = y.dim_size(y.dims() - 1);
  const int64_t m = adj_x ? x_cols : x_rows;
  const int64_t k = adj_x ? x_rows : x_cols;
  const int64_t n = adj_y ? y_rows : y_cols;
  if (k == 0) {
    // Empty inner dimension: every output is an empty sum.
    std::fill_n(out->base<T>(), out->NumElements(), T(0));
    return;
  }

  // The output is non-empty, so its batch count is a checked product.
  int64_t batch = 1;
  for (int64_t d : bcast.output_batch_shape()) batch *= d;
  std::vector<int64_t> x_idx, y_idx;
  if (bcast.IsBroadcastingRequired()) {
    bcast.ComputeIndices(batch, &x_idx, &y_idx);
  }
  const T* x_data = x.base<const T>();
  const T* y_data = y.base<const T>();
  T* z_data = out->base<T>();
  const int64_t x_size = x_rows * x_cols;
  const int64_t y_size = y_rows * y_cols;
  const int64_t z_size = m * n;
  auto x_batch = [&](int64_t b) {
    return x_data + (x_idx.empty() ? b : x_idx[b]) * x_size;
  };
  auto y_batch = [&](int64_t b) {
    return y_data + (y_idx.empty() ? b : y_idx[b]) * y_size;
  };

  // TensorFlow's split: big matrices use every thread inside each
  // product; many small ones run whole products in parallel.
  constexpr int64_t kMaxCostOuterParallelism = 128 * 128 * 256;
  const int64_t cost_per_product = m * n * k;
  // Float products through the GEMM library (Note [CPU GEMM library]).
  bool library = false;
  if constexpr (std::is_same_v<T, float>) {
    library = internal::UseLibraryGemm(m, n, k);
  }
  // Generic, so that only float instantiates its body.
  auto library_args = [&](auto b) {
    return internal::GemmArgs{
        adj_x,      adj_y,  m,          n,      k,
        x_batch(b), x_cols, y_batch(b), y_cols, z_data + b * z_size,
        n};
  };
  if (batch == 1 || cost_per_product >= kMaxCostOuterParallelism) {
    if constexpr (std::is_same_v<T, float>) {
      bool done = library;
      for (int64_t b = 0; done && b < batch; ++b) {
        done = internal::ShardedLibraryGemm(ctx, library_args(b));
      }
      if (done) return;
    }
    const CPUDevice& d = ctx->eigen_device<CPUDevice>();
    const functor::MatMulDimPair dim_pair =
        functor::MakeMatMulDimPair(adj_x, adj_y);
    for (int64_t b = 0; b < batch; ++b) {
      functor::MatMul<CPUDevice>(d, TensorMap2<T>(z_data + b * z_size, m, n),
                                 ConstTensorMap2<T>(x_batch(b), x_rows, x_cols),
                                 ConstTensorMap2<T>(y_batch(b), y_rows, y_cols),
                                 dim_pair);
    }
    return;
  }
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  Shard(
      workers->num_threads, workers->workers, batch, cost_per_product,
      [&](int64_t start, int64_t limit) {
        for (int64_t b = start; b < limit; ++b) {
          if constexpr (std::is_same_v<T, float>) {
            if (library && internal::LibraryGemmOnThisThread(library_args(b))) {
              continue;
            }
          }
          SequentialProduct<T>(x_batch(b), x_rows, x_cols, adj_x, y_batch(b),
                               y_rows, y_cols, adj_y, z_data + b * z_size, m,
                               n);
        }
      });
}

#define INSTANTIATE(T)                                                \
  template void LaunchBatchMatMul<T>(OpKernelContext*, const Tensor&, \
                                     const Tensor&, bool, bool,       \
                                     const internal::MatMulBCast&, Tensor*);
MF_CALL_CORE_REAL_TYPES(INSTANTIATE)
#undef INSTANTIATE

namespace {

// One kernel for the three versions. `kBroadcast` is false for V1, which
// requires equal ranks and equal batch dims, as TensorFlow's does.
template <typename T, bool kBroadcast>
class BatchMatMulOp : public OpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if (!kBroadcast) {
      OP_REQUIRES(
          ctx, x.dims() == y.dims(),
          errors::InvalidArgument(
              "In[0] and In[1] has different ndims: ", x.shape().DebugString(),
              " vs. ", y.shape().DebugString()));
      OP_REQUIRES(ctx, x.dims() >= 2,
                  errors::InvalidArgument(
                      "In[0] and In[1] ndims must be >= 2: ", x.dims()));
      for (int i = 0; i < x.dims() - 2; ++i) {
        OP_REQUIRES(ctx, x.dim_size(i) == y.dim_size(i),
                    errors::InvalidArgument(
                        "In[0].dim(", i, ") and In[1].dim(", i,
                        ") must be the same: ", x.shape().DebugString(), " vs ",
                        y.shape().DebugString()));
      }
    }
    OP_REQUIRES(
        ctx, x.dims() >= 2,
        errors::InvalidArgument("In[0] ndims must be >= 2: ", x.dims()));
    OP_REQUIRES(
        ctx, y.dims() >= 2,
        errors::InvalidArgument("In[1] ndims must be >= 2: ", y.dims()));
    const internal::MatMulBCast bcast(x.shape().dim_sizes(),
                                      y.shape().dim_sizes());
    OP_REQUIRES(ctx, bcast.IsValid(),
                errors::InvalidArgument(
                    "In[0] and In[1] must have compatible batch dimensions: ",
                    x.shape().DebugString(), " vs. ", y.shape().DebugString()));
    const int64_t x_rows = x.dim_size(x.dims() - 2);
    const int64_t x_cols = x.dim_size(x.dims() - 1);
    const int64_t y_rows = y.dim_size(y.dims() - 2);
    const int64_t y_cols = y.dim_size(y.dims() - 1);
    const int64_t m = adj_x_ ? x_cols : x_rows;
    const int64_t k = adj_x_ ? x_rows : x_cols;
    const int64_t k_y = adj_y_ ? y_cols : y_rows;
    const int64_t n = adj_y_ ? y_rows : y_cols;
    OP_REQUIRES(ctx, k == k_y,
                errors::InvalidArgument("Matrix size-incompatible: In[0]: ",
                                        x.shape().DebugString(),
                                        ", In[1]: ", y.shape().DebugString()));
    absl::InlinedVector<int64_t, 8> out_dims = bcast.output_batch_shape();
    out_dims.push_back(m);
    out_dims.push_back(n);
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &out_shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    LaunchBatchMatMul<T>(ctx, x, y, adj_x_, adj_y_, bcast, out);
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

// TensorFlow registers V3 on the CPU only with Ta == Tb == Tout.
#define REGISTER_CPU(T)                                                \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("BatchMatMulV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BatchMatMulOp<T, true>);                                         \
  REGISTER_KERNEL_BUILDER(Name("BatchMatMulV3")                        \
                              .Device(DEVICE_CPU)                      \
                              .TypeConstraint<T>("Ta")                 \
                              .TypeConstraint<T>("Tb")                 \
                              .TypeConstraint<T>("Tout"),              \
                          BatchMatMulOp<T, true>);                     \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("BatchMatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
      BatchMatMulOp<T, false>);
MF_CALL_CORE_REAL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
