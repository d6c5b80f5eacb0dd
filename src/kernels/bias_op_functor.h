// BiasAdd as one Eigen broadcast-add per layout. nvcc-safe: Eigen and the
// tensor aliases only.
#pragma once

#include "minflow/core/tensor_types.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {
namespace functor {

// Channels last: input viewed as [rows, channels]; output[r, c] =
// input[r, c] + bias[c]. `output` may share `input`'s buffer.
template <typename Device, typename T>
struct BiasNHWC {
  void operator()(const Device& d, typename TTypes<T, 2>::ConstTensor input,
                  typename TTypes<T>::ConstVec bias,
                  typename TTypes<T, 2>::Tensor output) {
    const Eigen::DSizes<Eigen::Index, 2> one_by_channels(1, bias.size());
    const Eigen::DSizes<Eigen::Index, 2> rows_by_one(input.dimension(0), 1);
    output.device(d) =
        input + bias.reshape(one_by_channels).broadcast(rows_by_one);
  }
};

// Channels first: input viewed as [batch, channels, inner]; output[b, c, i]
// = input[b, c, i] + bias[c]. `output` may share `input`'s buffer.
template <typename Device, typename T>
struct BiasNCHW {
  void operator()(const Device& d, typename TTypes<T, 3>::ConstTensor input,
                  typename TTypes<T>::ConstVec bias,
                  typename TTypes<T, 3>::Tensor output) {
    const Eigen::DSizes<Eigen::Index, 3> shape(1, bias.size(), 1);
    const Eigen::DSizes<Eigen::Index, 3> bcast(input.dimension(0), 1,
                                               input.dimension(2));
    output.device(d) = input + bias.reshape(shape).broadcast(bcast);
  }
};

}  // namespace functor
}  // namespace minflow
