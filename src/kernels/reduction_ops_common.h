// Shared setup of the reduction kernels (Sum, Mean, Prod, Max, Min) on every
// device: axis validation and TensorFlow's ReductionHelper, which merges the
// input's dimensions into alternating runs of reduced and kept ones so
// kernels need only a few reduction patterns, and the Eigen reductions of
// those patterns (reduction_ops.cc on the CPU, reduction_ops_gpu.cu on the
// GPU).
#pragma once

#include <cstdint>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/tensor_types.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {

class OpKernelContext;

// Not thread-safe; one per Compute call.
class ReductionHelper {
 public:
  // Reads the reduction axes (an int32 or int64 tensor of any shape; each
  // in [-rank, rank), none repeated) and plans the reduction of `data`.
  // InvalidArgument, with TensorFlow's messages, for a bad axis.
  Status Simplify(const Tensor& data, const Tensor& axis, bool keep_dims);

  // The input viewed as data_reshape(): runs of dims alternate between
  // reduced and kept, starting with a reduced run iff reduce_first_axis().
  // ndims() == 0 means there is nothing to reduce (a scalar, or only size-1
  // dims reduced).
  int ndims() const { return static_cast<int>(data_reshape_.size()); }
  bool reduce_first_axis() const { return reduce_first_axis_; }
  absl::Span<const int64_t> data_reshape() const { return data_reshape_; }

  // The op's output shape (reduced dims dropped, or 1 with keep_dims).
  TensorShape out_shape() const;
  // The output as the kept runs of data_reshape().
  TensorShape out_reshape() const;

  // For ndims() > 3: data_reshape() permuted by permutation() puts every
  // kept run first and every reduced run last, with shape shuffled_shape().
  TensorShape shuffled_shape() const;
  absl::InlinedVector<int32_t, 8> permutation() const;

 private:
  bool reduce_first_axis_ = false;
  absl::InlinedVector<int64_t, 4> data_reshape_;
  absl::InlinedVector<int64_t, 4> out_shape_;
  absl::InlinedVector<int64_t, 4> out_reshape_;
};

// The start every reduction kernel shares: plans the reduction of input 0
// over the axes in input 1 into `helper`. When nothing is reduced, output 0
// is the input reshaped and *out stays null; otherwise *out is the
// allocated output. Errors name the bad axis.
Status StartReduction(OpKernelContext* ctx, bool keep_dims,
                      ReductionHelper* helper, Tensor** out);

namespace reduction {

enum class Kind { kSum, kMean, kProd, kMax, kMin };

template <typename C, Kind K>
struct EigenReducer;
template <typename C>
struct EigenReducer<C, Kind::kSum> {
  using type = Eigen::internal::SumReducer<C>;
};
template <typename C>
struct EigenReducer<C, Kind::kMean> {
  using type = Eigen::internal::SumReducer<C>;
};
template <typename C>
struct EigenReducer<C, Kind::kProd> {
  using type = Eigen::internal::ProdReducer<C>;
};
template <typename C>
struct EigenReducer<C, Kind::kMax> {
  using type = Eigen::internal::MaxReducer<C, Eigen::PropagateNaN>;
};
template <typename C>
struct EigenReducer<C, Kind::kMin> {
  using type = Eigen::internal::MinReducer<C, Eigen::PropagateNaN>;
};

// A reduction of at most three merged dims (see ReductionHelper).
struct Plan {
  absl::InlinedVector<int64_t, 3> dims;
  bool reduce_first = false;
};

// out = reduce(in) for the five patterns TensorFlow's ReductionOp has;
// type2index axes let Eigen pick its inner/outer fast paths at compile time.
template <typename Device, typename C, typename Reducer>
void ReduceEigen(const Device& d, const C* in, const Plan& p, C* out) {
  const Reducer reducer;
  const Eigen::IndexList<Eigen::type2index<0>> k0;
  const Eigen::IndexList<Eigen::type2index<1>> k1;
  const Eigen::IndexList<Eigen::type2index<0>, Eigen::type2index<2>> k02;
  if (p.dims.size() == 1) {
    typename TTypes<C, 0>::Tensor o(out);
    typename TTypes<C, 1>::ConstTensor i(in, p.dims[0]);
    o.device(d) = i.reduce(k0, reducer);
  } else if (p.dims.size() == 2) {
    typename TTypes<C, 2>::ConstTensor i(in, p.dims[0], p.dims[1]);
    typename TTypes<C, 1>::Tensor o(out, p.dims[p.reduce_first ? 1 : 0]);
    if (p.reduce_first) {
      o.device(d) = i.reduce(k0, reducer);
    } else {
      o.device(d) = i.reduce(k1, reducer);
    }
  } else {
    typename TTypes<C, 3>::ConstTensor i(in, p.dims[0], p.dims[1], p.dims[2]);
    if (p.reduce_first) {
      typename TTypes<C, 1>::Tensor o(out, p.dims[1]);
      o.device(d) = i.reduce(k02, reducer);
    } else {
      typename TTypes<C, 2>::Tensor o(out, p.dims[0], p.dims[2]);
      o.device(d) = i.reduce(k1, reducer);
    }
  }
}

// Views `data`, whose reduction `helper` planned into `out_size` values, as
// at most three merged dims for ReduceEigen: fills *plan and points *src at
// `data`, or, past three merged dims, at *scratch holding `data` transposed
// so that every reduced run is innermost (a [out_size, count] matrix). CPU
// only.
Status PrepareReductionInput(OpKernelContext* ctx,
                             const ReductionHelper& helper, const Tensor& data,
                             int64_t out_size, Plan* plan, const Tensor** src,
                             Tensor* scratch);

// A CPU reduction kernel's input, planned: see BeginCpuReduction.
struct CpuReduction {
  Tensor* out = nullptr;  // null: the input was forwarded as the output
  int64_t out_size = 0;
  bool empty_input = false;  // then the plan is not made
  Plan plan;
  const Tensor* src = nullptr;  // the input, or `scratch` transposed
  Tensor scratch;

  // Whether the kernel is done before reducing anything: the input was
  // forwarded, the output is empty, or the input is (and the output is
  // filled with `identity`, what the reduction of nothing gives).
  template <typename T>
  bool DoneWith(T identity) const {
    if (out == nullptr || out_size == 0) return true;
    if (!empty_input) return false;
    T* data = out->base<T>();
    for (int64_t i = 0; i < out_size; ++i) data[i] = identity;
    return true;
  }
};

// The first steps of every CPU reduction kernel: StartReduction (the axes
// checked, the output allocated, or the input forwarded when nothing is
// reduced), then PrepareReductionInput for a non-empty input and output.
Status BeginCpuReduction(OpKernelContext* ctx, bool keep_dims, CpuReduction* r);

// What an empty reduction yields (TensorFlow's identities; Mean of nothing
// is NaN for floating types and 0 for integers).
template <typename T, Kind K>
T ReductionIdentity() {
  constexpr bool kFloat = !std::is_integral<T>::value;
  switch (K) {
    case Kind::kSum:
      return T(0);
    case Kind::kMean:
      return kFloat ? Eigen::NumTraits<T>::quiet_NaN() : T(0);
    case Kind::kProd:
      return T(1);
    case Kind::kMax:
      return kFloat ? -Eigen::NumTraits<T>::infinity()
                    : Eigen::NumTraits<T>::lowest();
    case Kind::kMin:
      return kFloat ? Eigen::NumTraits<T>::infinity()
                    : Eigen::NumTraits<T>::highest();
  }
  return T(0);
}

}  // namespace reduction
}  // namespace minflow
