// Batched matrix products shared by BatchMatMul, BatchMatMulV2/V3 and
// Einsum: the batch-dim broadcast plan and one launcher that fills an
// already allocated output.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/op_kernel.h"

namespace minflow {

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

// out[b] = op(x[bx(b)]) * op(y[by(b)]) for every output batch b, op an
// adjoint per flag. Preconditions (checked by the caller): x and y have
// rank >= 2, `bcast` is valid and was built from their shapes, the inner
// dims agree, and `out` has shape bcast.output_batch_shape() + [m, n].
// Instantiated for the core real types (float, double, int32, int64,
// half, bfloat16).
template <typename T>
void LaunchBatchMatMul(OpKernelContext* ctx, const Tensor& x, const Tensor& y,
                       bool adj_x, bool adj_y,
                       const internal::MatMulBCast& bcast, Tensor* out);

}  // namespace minflow
