// Eigen tensor-map aliases (TTypes) used by kernels on every device. Includes
// only Eigen so that nvcc can compile functor headers that use it.
#pragma once

#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {

// Row-major maps over tensor memory. The aligned forms assume the
// 64-byte alignment every fresh buffer has; slices may not (see
// Tensor::IsAligned and the unaligned_* accessors).
template <typename T, int NDIMS = 1, typename IndexType = Eigen::DenseIndex>
struct TTypes {
  using Tensor =
      Eigen::TensorMap<Eigen::Tensor<T, NDIMS, Eigen::RowMajor, IndexType>,
                       Eigen::Aligned>;
  using ConstTensor = Eigen::TensorMap<
      Eigen::Tensor<const T, NDIMS, Eigen::RowMajor, IndexType>,
      Eigen::Aligned>;
  using UnalignedTensor =
      Eigen::TensorMap<Eigen::Tensor<T, NDIMS, Eigen::RowMajor, IndexType>>;
  using UnalignedConstTensor = Eigen::TensorMap<
      Eigen::Tensor<const T, NDIMS, Eigen::RowMajor, IndexType>>;

  using Scalar = Eigen::TensorMap<
      Eigen::TensorFixedSize<T, Eigen::Sizes<>, Eigen::RowMajor, IndexType>,
      Eigen::Aligned>;
  using ConstScalar =
      Eigen::TensorMap<Eigen::TensorFixedSize<const T, Eigen::Sizes<>,
                                              Eigen::RowMajor, IndexType>,
                       Eigen::Aligned>;

  using Flat = Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, IndexType>,
                                Eigen::Aligned>;
  using ConstFlat =
      Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor, IndexType>,
                       Eigen::Aligned>;
  using UnalignedFlat =
      Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, IndexType>>;
  using UnalignedConstFlat =
      Eigen::TensorMap<Eigen::Tensor<const T, 1, Eigen::RowMajor, IndexType>>;
  using Vec = Flat;
  using ConstVec = ConstFlat;
  using Matrix =
      Eigen::TensorMap<Eigen::Tensor<T, 2, Eigen::RowMajor, IndexType>,
                       Eigen::Aligned>;
  using ConstMatrix =
      Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, IndexType>,
                       Eigen::Aligned>;
};

}  // namespace minflow
