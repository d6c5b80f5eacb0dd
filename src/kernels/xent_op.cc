// SoftmaxCrossEntropyWithLogits on CPU: for each row i of logits and labels
// (broadcast against each other to [batch, classes], as TensorFlow's
// softmax_cross_entropy_with_logits_v2 kernel allows),
//   loss[i]     = sum_j labels[i][j] * (logsumexp(logits[i]) - logits[i][j])
//   backprop[i] = softmax(logits[i]) - labels[i]
// half and bfloat16 compute each row in float.
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

// How an input of rank <= 2 is read at [i, j] of the broadcast [batch,
// classes]: element i * row + j * col (a stride of 0 repeats it).
struct Strides {
  int64_t row = 0;
  int64_t col = 0;
};

Strides BroadcastStrides(const TensorShape& shape) {
  const int64_t rows = shape.dims() == 2 ? shape.dim_size(0) : 1;
  const int64_t cols = shape.dims() >= 1 ? shape.dim_size(shape.dims() - 1) : 1;
  return {rows == 1 ? 0 : cols, cols == 1 ? 0 : 1};
}

// The numpy broadcast of two shapes into *dims; false when they do not
// broadcast.
bool BroadcastShapes(const TensorShape& a, const TensorShape& b,
                     std::vector<int64_t>* dims) {
  const int rank = std::max(a.dims(), b.dims());
  for (int d = 0; d < rank; ++d) {
    const int da = d - (rank - a.dims());
    const int db = d - (rank - b.dims());
    const int64_t sa = da >= 0 ? a.dim_size(da) : 1;
    const int64_t sb = db >= 0 ? b.dim_size(db) : 1;
    if (sa != sb && sa != 1 && sb != 1) return false;
    dims->push_back(sa == 1 ? sb : sa);
  }
  return true;
}

template <typename T>
class SoftmaxXentOp : public OpKernel {
 public:
  explicit SoftmaxXentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    const auto in_dims = logits.shape().dim_sizes();
    std::vector<int64_t> dims(in_dims.begin(), in_dims.end());
    if (logits.shape() != labels.shape()) {
      dims.clear();
      OP_REQUIRES(ctx, BroadcastShapes(logits.shape(), labels.shape(), &dims),
                  errors::InvalidArgument(
                      type_string(),
                      ": logits and labels must be broadcastable: "
                      "logits_size=",
                      logits.shape().DebugString(),
                      " labels_size=", labels.shape().DebugString()));
    }
    const TensorShape shape(dims);
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrix(shape),
                errors::InvalidArgument(
                    type_string(),
                    ": logits and labels must be either 2-dimensional, or "
                    "broadcasted to be 2-dimensional, but got logits ",
                    logits.shape().DebugString(), " and labels ",
                    labels.shape().DebugString()));
    const int64_t batch = shape.dim_size(0);
    const int64_t classes = shape.dim_size(1);
    Tensor* loss = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, shape, &backprop));
    if (batch == 0) return;
    T* loss_out = loss->base<T>();
    if (classes == 0) {
      // An empty sum: TensorFlow's loss too.
      std::fill(loss_out, loss_out + batch, T(0));
      return;
    }
    const Strides ls = BroadcastStrides(logits.shape());
    const Strides ys = BroadcastStrides(labels.shape());
    const T* l = logits.base<const T>();
    const T* y = labels.base<const T>();
    T* back_out = backprop->base<T>();
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    Shard(workers->num_threads, workers->workers, batch,
          /*cost_per_unit=*/classes * 40, [&](int64_t b0, int64_t b1) {
            for (int64_t i = b0; i < b1; ++i) {
              Row(l + i * ls.row, ls.col, y + i * ys.row, ys.col, classes,
                  loss_out + i, back_out + i * classes);
            }
          });
  }

 private:
  using A = std::conditional_t<std::is_same<T, double>::value, double, float>;

  static void Row(const T* l, int64_t lc, const T* y, int64_t yc,
                  int64_t classes, T* loss, T* backprop) {
    A max = static_cast<A>(l[0]);
    for (int64_t j = 1; j < classes; ++j) {
      max = std::max(max, static_cast<A>(l[j * lc]));
    }
    A sum = 0;
    for (int64_t j = 0; j < classes; ++j) {
      sum += std::exp(static_cast<A>(l[j * lc]) - max);
    }
    const A log_sum = std::log(sum);
    const A inv_sum = A(1) / sum;
    A total = 0;
    for (int64_t j = 0; j < classes; ++j) {
      const A label = static_cast<A>(y[j * yc]);
      total += label * (log_sum - (static_cast<A>(l[j * lc]) - max));
      const A p = std::exp(static_cast<A>(l[j * lc]) - max) * inv_sum;
      backprop[j] = static_cast<T>(p - label);
    }
    *loss = static_cast<T>(total);
  }
};

#define REGISTER_CPU(T)                                         \
  REGISTER_KERNEL_BUILDER(Name("SoftmaxCrossEntropyWithLogits") \
                              .Device(DEVICE_CPU)               \
                              .TypeConstraint<T>("T"),          \
                          SoftmaxXentOp<T>);
MF_CALL_CORE_FLOAT_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
