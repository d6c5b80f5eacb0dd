// Softmax and LogSoftmax over the last dimension of a [batch, classes]
// matrix, as one Eigen expression per step on any Eigen device (TensorFlow's
// SoftmaxEigenImpl). nvcc-safe: Eigen and the tensor-type aliases only.
#pragma once

#include "minflow/core/tensor_types.h"

namespace minflow {
namespace functor {

template <typename Device, typename T>
struct SoftmaxFunctor {
  // softmax = exp(logits - max) / sum(exp(logits - max)) per row, or its log
  // when `log`. `softmax` may alias `logits` (each step finishes reading a
  // row's statistics before writing it).
  void operator()(const Device& d, typename TTypes<T>::ConstMatrix logits,
                  typename TTypes<T>::Matrix softmax, bool log) const {
    constexpr int kBatchDim = 0;
    constexpr int kClassDim = 1;
    const Eigen::DenseIndex batch_size = logits.dimension(kBatchDim);
    const Eigen::DenseIndex num_classes = logits.dimension(kClassDim);

    // Reduce along classes, then broadcast the per-row value back.
    Eigen::IndexList<Eigen::type2index<kClassDim>> along_class;
    Eigen::IndexList<Eigen::DenseIndex, Eigen::type2index<1>> batch_by_one;
    batch_by_one.set(0, batch_size);
    Eigen::IndexList<Eigen::type2index<1>, Eigen::DenseIndex> one_by_class;
    one_by_class.set(1, num_classes);

    auto shifted_logits = logits - logits.maximum(along_class)
                                       .eval()
                                       .reshape(batch_by_one)
                                       .broadcast(one_by_class);
    if (log) {
      softmax.device(d) = shifted_logits;
      softmax.device(d) = softmax - softmax.exp()
                                        .sum(along_class)
                                        .log()
                                        .eval()
                                        .reshape(batch_by_one)
                                        .broadcast(one_by_class);
    } else {
      softmax.device(d) = shifted_logits.exp();
      softmax.device(d) = softmax * softmax.sum(along_class)
                                        .inverse()
                                        .eval()
                                        .reshape(batch_by_one)
                                        .broadcast(one_by_class);
    }
  }
};

}  // namespace functor
}  // namespace minflow
