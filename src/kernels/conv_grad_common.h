// What the convolution backprop kernels share (Conv2DBackpropInput,
// Conv2DBackpropFilter and the depthwise pair): reading a sizes input and
// checking out_backprop against the forward geometry.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "Eigen/Core"
#include "absl/synchronization/mutex.h"
#include "minflow/core/logging.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "src/kernels/conv_ops_common.h"

namespace minflow {

// The shape held by a sizes input (`input_sizes`, `filter_sizes`): an int32
// vector of 4 non-negative values. InvalidArgument naming `label` (the op)
// and `what` (the input) otherwise.
Status ShapeFromSizesTensor(const char* label, const char* what,
                            const Tensor& sizes, TensorShape* shape);

// Whether a depthwise forward geometry is wanted (filter [R,S,C,M]) rather
// than Conv2D's (filter [R,S,C/groups,K]).
enum class ConvKind { kConv2D, kDepthwise };

// TensorFlow's ConvBackpropComputeDimensionsV2 for NHWC: the forward
// geometry of `input` and `filter` (all 4-D), whose output must have
// `out_backprop`'s shape. InvalidArgument naming `label` otherwise.
Status ComputeConvBackpropDimensions(const char* label, ConvKind kind,
                                     const Conv2DParameters& params,
                                     const TensorShape& input,
                                     const TensorShape& filter,
                                     const TensorShape& out_backprop,
                                     Conv2DDimensions* d);

// Note [Filter gradients as per-thread partial sums]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A filter's gradient is a sum over every output pixel, and every pixel
// adds into the whole filter. So [0, total) is split by Shard into at most
// one contiguous range per thread; each range sums into its own buffer of
// `size` values (the first range to start straight into `out`), and the
// buffers are added into `out` at the end. No two threads write the same
// memory and there is no lock in the loop.
//
// `sum_range(start, limit, sum)` must write all `size` values of `sum`
// (it starts uninitialised).
template <typename T>
Status ShardWithPartialSums(
    OpKernelContext* ctx, int64_t total, int64_t cost_per_unit, int64_t size,
    T* out, const std::function<Status(int64_t, int64_t, T*)>& sum_range) {
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  const int num_threads = std::max(1, workers->num_threads);
  // Allocated by the ranges that run, so a job Shard keeps on fewer
  // threads does not pay for every thread's buffer.
  std::vector<Tensor> partials(num_threads);
  std::atomic<int> next_range{0};
  absl::Mutex mu;
  Status status;
  Shard(num_threads, workers->workers, total, cost_per_unit,
        [&](int64_t start, int64_t limit) {
          // Shard makes at most num_threads blocks.
          const int range = next_range.fetch_add(1);
          MF_CHECK(range < num_threads);
          Status s;
          T* sum = out;
          if (range > 0) {
            s = ctx->allocate_temp(DataTypeToEnum<T>::v(), TensorShape({size}),
                                   &partials[range]);
            sum = s.ok() ? partials[range].base<T>() : nullptr;
          }
          if (s.ok()) s = sum_range(start, limit, sum);
          if (!s.ok()) {
            absl::MutexLock lock(&mu);
            status.Update(s);
          }
        });
  MF_RETURN_IF_ERROR(status);
  // Every block ran and took one range, so ranges [0, used) are written.
  const int used = next_range.load();
  Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> result(out, size);
  for (int i = 1; i < used; ++i) {
    result += Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(
        partials[i].base<const T>(), size);
  }
  return OkStatus();
}

}  // namespace minflow
