// SparseSoftmaxCrossEntropyWithLogits on CPU: for each row i of logits
// [batch, classes] with class labels[i],
//   loss[i]     = logsumexp(logits[i]) - logits[i][labels[i]]
//   backprop[i] = softmax(logits[i]) - one_hot(labels[i])
// Every label is checked before anything is computed, as TensorFlow's CPU
// kernel does (its GPU kernel gives NaN rows instead). half and bfloat16
// compute each row in float.
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

template <typename T>
using AccumulatorType =
    std::conditional_t<std::is_same<T, double>::value, double, float>;

// One row: loss and backprop from logits and the (valid) label. backprop
// may be logits (a forwarded input): each logit is read before its own
// element is written, and the label's logit before any is.
template <typename T, typename Index>
void SparseXentRow(const T* logits, int64_t classes, Index label, T* loss,
                   T* backprop) {
  using A = AccumulatorType<T>;
  A max = static_cast<A>(logits[0]);
  for (int64_t j = 1; j < classes; ++j) {
    max = std::max(max, static_cast<A>(logits[j]));
  }
  A sum = 0;
  for (int64_t j = 0; j < classes; ++j) {
    sum += std::exp(static_cast<A>(logits[j]) - max);
  }
  *loss = static_cast<T>(std::log(sum) - (static_cast<A>(logits[label]) - max));
  const A inv_sum = A(1) / sum;
  for (int64_t j = 0; j < classes; ++j) {
    const A p = std::exp(static_cast<A>(logits[j]) - max) * inv_sum;
    backprop[j] = static_cast<T>(j == label ? p - A(1) : p);
  }
}

template <typename T, typename Index>
class SparseSoftmaxXentOp : public OpKernel {
 public:
  explicit SparseSoftmaxXentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrix(logits.shape()),
                errors::InvalidArgument(type_string(),
                                        ": logits must be 2-D, but got shape ",
                                        logits.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(labels.shape()),
                errors::InvalidArgument(type_string(),
                                        ": labels must be 1-D, but got shape ",
                                        labels.shape().DebugString()));
    const int64_t batch = logits.dim_size(0);
    const int64_t classes = logits.dim_size(1);
    OP_REQUIRES(ctx, batch == labels.dim_size(0),
                errors::InvalidArgument(
                    type_string(),
                    ": logits and labels must have the same first dimension, "
                    "got logits shape ",
                    logits.shape().DebugString(), " and labels shape ",
                    labels.shape().DebugString()));
    OP_REQUIRES(ctx, classes > 0,
                errors::InvalidArgument(
                    type_string(),
                    ": Must have at least one class, but got logits shape ",
                    logits.shape().DebugString()));
    const Index* label = labels.base<const Index>();
    for (int64_t i = 0; i < batch; ++i) {
      OP_REQUIRES(ctx, label[i] >= 0 && label[i] < classes,
                  errors::InvalidArgument(
                      type_string(), ": Received a label value of ", label[i],
                      " which is outside the valid range of [0, ", classes,
                      ").  Label values: ",
                      labels.SummarizeValue(labels.NumElements(),
                                            /*print_v2=*/false)));
    }

    Tensor* loss = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({batch}), &loss));
    Tensor* backprop = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 1, logits.shape(), &backprop));
    if (batch == 0) return;
    const T* in = logits.base<const T>();
    T* loss_out = loss->base<T>();
    T* back_out = backprop->base<T>();
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    Shard(workers->num_threads, workers->workers, batch,
          /*cost_per_unit=*/classes * 30, [&](int64_t b0, int64_t b1) {
            for (int64_t i = b0; i < b1; ++i) {
              SparseXentRow<T, Index>(in + i * classes, classes, label[i],
                                      loss_out + i, back_out + i * classes);
            }
          });
  }
};

#define REGISTER_CPU(T)                                               \
  REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits") \
                              .Device(DEVICE_CPU)                     \
                              .TypeConstraint<T>("T")                 \
                              .TypeConstraint<int32_t>("Tlabels"),    \
                          SparseSoftmaxXentOp<T, int32_t>);           \
  REGISTER_KERNEL_BUILDER(Name("SparseSoftmaxCrossEntropyWithLogits") \
                              .Device(DEVICE_CPU)                     \
                              .TypeConstraint<T>("T")                 \
                              .TypeConstraint<int64_t>("Tlabels"),    \
                          SparseSoftmaxXentOp<T, int64_t>);
MF_CALL_CORE_FLOAT_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
