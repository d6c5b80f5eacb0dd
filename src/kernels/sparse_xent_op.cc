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
#include <vector>

#include "Eigen/Core"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

template <typename T>
using AccumulatorType =
    std::conditional_t<std::is_same<T, double>::value, double, float>;

// One row: loss and backprop from logits and the (valid) label, with the
// exponentials in `buf` (classes long) computed by Eigen's vectorised exp.
// backprop may be logits (a forwarded input): the row is read whole into
// buf, and the label's logit, before any of it is written.
template <typename T, typename Index>
void SparseXentRow(const T* logits, int64_t classes, Index label, T* loss,
                   T* backprop, AccumulatorType<T>* buf) {
  using A = AccumulatorType<T>;
  using Row = Eigen::Array<A, Eigen::Dynamic, 1>;
  const Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> in(logits,
                                                                classes);
  Eigen::Map<Row> e(buf, classes);
  e = in.template cast<A>();
  const A max = e.maxCoeff();
  const A shifted_label = e[label] - max;
  e = (e - max).exp();
  const A sum = e.sum();
  *loss = static_cast<T>(std::log(sum) - shifted_label);
  Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> out(backprop, classes);
  out = (e * (A(1) / sum)).template cast<T>();
  backprop[label] = static_cast<T>(static_cast<A>(backprop[label]) - A(1));
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
            // Aligned the same way every time: Eigen's vectorised sum
            // starts with scalar steps up to the first aligned element,
            // so a buffer aligned differently from run to run would add
            // in another order and the loss would differ in its last bits.
            std::vector<AccumulatorType<T>,
                        Eigen::aligned_allocator<AccumulatorType<T>>>
                buf(classes);
            for (int64_t i = b0; i < b1; ++i) {
              SparseXentRow<T, Index>(in + i * classes, classes, label[i],
                                      loss_out + i, back_out + i * classes,
                                      buf.data());
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
