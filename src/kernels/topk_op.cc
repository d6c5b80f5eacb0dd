// TopKV2(input, k; sorted): the k largest entries of each row (last dim)
// and their indices, largest first, equal values by lower index first (as
// TF). NaN ranks above every number (numpy's sort order), so a row holding
// NaNs still has a strict weak order and a defined answer.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "Eigen/Core"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

// a ranks before b: a larger value, NaN first, ties by lower index.
template <typename T>
struct RanksBefore {
  const T* row;
  bool operator()(int32_t a, int32_t b) const {
    const T va = row[a];
    const T vb = row[b];
    const bool na = Eigen::numext::isnan(va);
    const bool nb = Eigen::numext::isnan(vb);
    if (na || nb) return na && nb ? a < b : na;
    if (vb < va) return true;
    if (va < vb) return false;
    return a < b;
  }
};

void StoreIndex(Tensor* indices, int64_t at, int32_t value) {
  switch (indices->dtype()) {
    case DT_INT16:
      indices->base<int16_t>()[at] = static_cast<int16_t>(value);
      break;
    case DT_INT32:
      indices->base<int32_t>()[at] = value;
      break;
    default:
      indices->base<int64_t>()[at] = value;
      break;
  }
}

int64_t MaxIndexValue(DataType dtype) {
  switch (dtype) {
    case DT_INT16:
      return std::numeric_limits<int16_t>::max();
    case DT_INT32:
      return std::numeric_limits<int32_t>::max();
    default:
      return std::numeric_limits<int64_t>::max();
  }
}

template <typename T>
class TopKOp : public OpKernel {
 public:
  explicit TopKOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    // Output is always sorted, which `sorted = false` also allows.
    bool sorted = true;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("sorted", &sorted));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& k_in = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(k_in.shape()),
                errors::InvalidArgument("k must be scalar, got shape ",
                                        k_in.shape().DebugString()));
    int64_t k = 0;
    switch (k_in.dtype()) {
      case DT_INT16:
        k = *k_in.base<const int16_t>();
        break;
      case DT_INT32:
        k = *k_in.base<const int32_t>();
        break;
      default:
        k = *k_in.base<const int64_t>();
        break;
    }
    OP_REQUIRES(ctx, k >= 0, errors::InvalidArgument("Need k >= 0, got ", k));
    OP_REQUIRES(ctx, input.dims() >= 1,
                errors::InvalidArgument("input must be >= 1-D, got shape ",
                                        input.shape().DebugString()));
    const int64_t num_cols = input.dim_size(input.dims() - 1);
    OP_REQUIRES(
        ctx, num_cols >= k,
        errors::InvalidArgument("input must have at least k columns. Had ",
                                num_cols, ", needed ", k));
    const int64_t num_rows = num_cols == 0 ? 0 : input.NumElements() / num_cols;
    OP_REQUIRES(ctx, num_cols <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument(
                    "Last dimension of flattened input must be <= INT_MAX, "
                    "got ",
                    num_cols));
    const DataType index_type = ctx->expected_output_dtype(1);
    OP_REQUIRES(ctx, num_cols == 0 || num_cols - 1 <= MaxIndexValue(index_type),
                errors::InvalidArgument("input has ", num_cols,
                                        " columns, too many for index_type ",
                                        DataTypeString(index_type)));

    TensorShape output_shape = input.shape();
    output_shape.set_dim(input.dims() - 1, k);
    Tensor* values = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, output_shape, &values));
    Tensor* indices = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, output_shape, &indices));
    if (k == 0 || num_rows == 0) return;

    const T* in = input.base<const T>();
    T* out_values = values->base<T>();
    auto work = [&](int64_t begin, int64_t end) {
      std::vector<int32_t> order;
      for (int64_t r = begin; r < end; ++r) {
        const T* row = in + r * num_cols;
        const RanksBefore<T> before{row};
        int64_t out = r * k;
        if (k == 1) {
          int32_t best = 0;
          for (int32_t c = 1; c < num_cols; ++c) {
            if (before(c, best)) best = c;
          }
          out_values[out] = row[best];
          StoreIndex(indices, out, best);
          continue;
        }
        order.resize(num_cols);
        for (int32_t c = 0; c < num_cols; ++c) order[c] = c;
        if (k < num_cols) {
          std::nth_element(order.begin(), order.begin() + k, order.end(),
                           before);
        }
        std::sort(order.begin(), order.begin() + k, before);
        for (int64_t i = 0; i < k; ++i, ++out) {
          out_values[out] = row[order[i]];
          StoreIndex(indices, out, order[i]);
        }
      }
    };
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    Shard(workers->num_threads, workers->workers, num_rows,
          num_cols * 4 + k * 16, work);
  }
};

#define REGISTER_CPU(T)                               \
  REGISTER_KERNEL_BUILDER(Name("TopKV2")              \
                              .Device(DEVICE_CPU)     \
                              .TypeConstraint<T>("T") \
                              .HostMemory("k"),       \
                          TopKOp<T>);
TF_CALL_REAL_NUMBER_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
