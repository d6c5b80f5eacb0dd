// BatchMatMulV2: output[..., :, :] = op(x[..., :, :]) * op(y[..., :, :]),
// op an adjoint per attr (a transpose: only real types are registered), the
// batch dims broadcast as numpy does.
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>
#include <vector>

#include "Eigen/Core"
#include "absl/container/inlined_vector.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/matmul_op_functor.h"

namespace minflow {

using CPUDevice = Eigen::ThreadPoolDevice;

namespace internal {

// TensorFlow's MatMulBCast: broadcasts the batch dims of x and y (all but
// the last two) and maps each output batch to the x and y batches it reads.
class MatMulBCast {
 public:
  MatMulBCast(absl::Span<const int64_t> x_dims,
              absl::Span<const int64_t> y_dims) {
    const int x_rank = static_cast<int>(x_dims.size()) - 2;
    const int y_rank = static_cast<int>(y_dims.size()) - 2;
    const int rank = std::max(x_rank, y_rank);
    // Batch dims right-aligned; missing ones are 1.
    absl::InlinedVector<int64_t, 8> xb(rank, 1), yb(rank, 1);
    std::copy(x_dims.begin(), x_dims.begin() + x_rank,
              xb.begin() + (rank - x_rank));
    std::copy(y_dims.begin(), y_dims.begin() + y_rank,
              yb.begin() + (rank - y_rank));
    bool same = true;
    for (int i = 0; i < rank; ++i) {
      if (xb[i] == yb[i]) {
        output_batch_shape_.push_back(xb[i]);
      } else if (xb[i] == 1 || yb[i] == 1) {
        output_batch_shape_.push_back(xb[i] == 1 ? yb[i] : xb[i]);
        same = false;
      } else {
        valid_ = false;
        return;
      }
    }
    broadcasting_ = !same;
    xb_ = xb;
    yb_ = yb;
  }

  bool IsValid() const { return valid_; }
  bool IsBroadcastingRequired() const { return broadcasting_; }
  const absl::InlinedVector<int64_t, 8>& output_batch_shape() const {
    return output_batch_shape_;
  }

  // (*x_idx)[b], (*y_idx)[b]: the x and y batches output batch b reads.
  // `output_batch_size` must be the product of output_batch_shape(), known
  // not to overflow (the output shape was built with a check); x's and y's
  // batch counts are no larger, so no stride below overflows either.
  void ComputeIndices(int64_t output_batch_size, std::vector<int64_t>* x_idx,
                      std::vector<int64_t>* y_idx) const {
    const int rank = static_cast<int>(output_batch_shape_.size());
    x_idx->assign(output_batch_size, 0);
    y_idx->assign(output_batch_size, 0);
    // Row-major strides of x's and y's batch dims, 0 where broadcast.
    absl::InlinedVector<int64_t, 8> xs(rank, 0), ys(rank, 0);
    int64_t x_stride = 1, y_stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
      xs[i] = xb_[i] == 1 ? 0 : x_stride;
      ys[i] = yb_[i] == 1 ? 0 : y_stride;
      x_stride *= xb_[i];
      y_stride *= yb_[i];
    }
    absl::InlinedVector<int64_t, 8> counter(rank, 0);
    int64_t xi = 0, yi = 0;
    for (int64_t b = 0; b < output_batch_size; ++b) {
      (*x_idx)[b] = xi;
      (*y_idx)[b] = yi;
      for (int i = rank - 1; i >= 0; --i) {
        if (++counter[i] < output_batch_shape_[i]) {
          xi += xs[i];
          yi += ys[i];
          break;
        }
        counter[i] = 0;
        xi -= xs[i] * (output_batch_shape_[i] - 1);
        yi -= ys[i] * (output_batch_shape_[i] - 1);
      }
    }
  }

 private:
  bool valid_ = true;
  bool broadcasting_ = false;
  absl::InlinedVector<int64_t, 8> output_batch_shape_;
  absl::InlinedVector<int64_t, 8> xb_, yb_;
};

}  // namespace internal

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

template <typename Device, typename T>
class BatchMatMulV2Op : public OpKernel {
 public:
  explicit BatchMatMulV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
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
    if (out->NumElements() == 0) return;
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
    if (batch == 1 || cost_per_product >= kMaxCostOuterParallelism) {
      const Device& d = ctx->eigen_device<Device>();
      const functor::MatMulDimPair dim_pair =
          functor::MakeMatMulDimPair(adj_x_, adj_y_);
      for (int64_t b = 0; b < batch; ++b) {
        functor::MatMul<Device>(d, TensorMap2<T>(z_data + b * z_size, m, n),
                                ConstTensorMap2<T>(x_batch(b), x_rows, x_cols),
                                ConstTensorMap2<T>(y_batch(b), y_rows, y_cols),
                                dim_pair);
      }
      return;
    }
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    Shard(workers->num_threads, workers->workers, batch, cost_per_product,
          [&](int64_t start, int64_t limit) {
            for (int64_t b = start; b < limit; ++b) {
              SequentialProduct<T>(x_batch(b), x_rows, x_cols, adj_x_,
                                   y_batch(b), y_rows, y_cols, adj_y_,
                                   z_data + b * z_size, m, n);
            }
          });
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

#define REGISTER_CPU(T)                                                \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("BatchMatMulV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BatchMatMulV2Op<CPUDevice, T>);
MF_CALL_CORE_REAL_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
