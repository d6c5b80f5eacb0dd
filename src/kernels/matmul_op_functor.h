// MatMul as one Eigen contraction, shared by MatMul, BatchMatMulV2 and
// Conv2D's GEMM and by their GPU twins. nvcc-safe: Eigen and the tensor
// aliases only.
#pragma once

#include "minflow/core/tensor_types.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {
namespace functor {

// The contracted dims: (1, 0) is in0 * in1; (0, 0) transposes in0, (1, 1)
// transposes in1.
using MatMulDimPair = Eigen::array<Eigen::IndexPair<Eigen::DenseIndex>, 1>;

inline MatMulDimPair MakeMatMulDimPair(bool transpose_a, bool transpose_b) {
  MatMulDimPair dim_pair;
  dim_pair[0].first = transpose_a ? 0 : 1;
  dim_pair[0].second = transpose_b ? 1 : 0;
  return dim_pair;
}

// out = contract(in0, in1, dim_pair), evaluated on `d`. `out` must not
// alias an input.
template <typename Device, typename Out, typename In0, typename In1>
void MatMul(const Device& d, Out out, In0 in0, In1 in1,
            const MatMulDimPair& dim_pair) {
  out.device(d) = in0.contract(in1, dim_pair);
}

// As MatMul, with Eigen's contraction OutputKernel `output_kernel` applied
// to each finished block of `out` (see Note [Fused epilogues]).
template <typename Device, typename Out, typename In0, typename In1,
          typename OutputKernel>
void MatMulWithOutputKernel(const Device& d, Out out, In0 in0, In1 in1,
                            const MatMulDimPair& dim_pair,
                            const OutputKernel& output_kernel) {
  out.device(d) = in0.contract(in1, dim_pair, output_kernel);
}

// TensorFlow's MatMulFunctor: specialised per device (the CPU one in
// matmul_op.cc, declared extern for other kernel files below).
template <typename Device, typename T>
struct MatMulFunctor {
  void operator()(const Device& d, typename TTypes<T>::Matrix out,
                  typename TTypes<T>::ConstMatrix in0,
                  typename TTypes<T>::ConstMatrix in1,
                  const MatMulDimPair& dim_pair);
};

}  // namespace functor
}  // namespace minflow
