// Shared setup of the element-wise kernels, for every device: numpy-style
// broadcast planning (BCastList / BCast, TensorFlow's names), and the
// UnaryOp / BinaryOp kernel templates that validate inputs, pick the
// same-shape, scalar or broadcast path and call the functors of
// cwise_op_functor.h.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"
#include "minflow/framework/op_kernel.h"
#include "src/kernels/cwise_op_functor.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {

using CPUDevice = Eigen::ThreadPoolDevice;

// Note [Broadcast planning]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Shapes are aligned at their last dimension and padded with leading 1s; a
// dimension is compatible when the sizes agree or one of them is 1 (so 0
// broadcasts against 1 but not against 5). With `fewer_dims_optimization`,
// dimensions where every input is 1 are dropped and adjacent dimensions with
// the same broadcasting pattern (which inputs are 1) are merged, so
// [2,3,4] + [4] becomes [6,4] + [1,4] and identical shapes become one flat
// dimension. Kernels then need only low-rank broadcast code: binary ops
// instantiate ranks 2, 3 and 5 (4 is padded to 5) and, like TensorFlow,
// report Unimplemented past 5 merged dimensions.

namespace internal {

using BCastVec = absl::InlinedVector<int64_t, 4>;

// The planner behind BCastList<N>: fills reshape[i] / bcast[i] (N each),
// `output` (the broadcast shape, uncollapsed) and `result` (the collapsed
// one). Returns false when the shapes are not broadcastable.
bool PlanBroadcast(absl::Span<const absl::Span<const int64_t>> shapes,
                   bool fewer_dims_optimization, BCastVec* reshape,
                   BCastVec* bcast, BCastVec* output, BCastVec* result);

}  // namespace internal

// The broadcast of N shapes (Note [Broadcast planning]). Input i, viewed
// with shape reshape(i) and broadcast by the factors bcast(i), has the
// shape result_shape(); output_shape() is the same shape uncollapsed, the
// one the op returns. Value type; thread-compatible.
template <int N>
class BCastList {
 public:
  using Vec = internal::BCastVec;

  explicit BCastList(const std::array<absl::Span<const int64_t>, N>& shapes,
                     bool fewer_dims_optimization = true) {
    valid_ = internal::PlanBroadcast(shapes, fewer_dims_optimization,
                                     reshape_.data(), bcast_.data(), &output_,
                                     &result_);
  }

  bool IsValid() const { return valid_; }
  // True when some input is actually broadcast (some factor is not 1).
  bool IsBroadcastingRequired() const {
    for (const Vec& b : bcast_) {
      for (int64_t f : b) {
        if (f != 1) return true;
      }
    }
    return false;
  }
  const Vec& reshape(int i) const { return reshape_[i]; }
  const Vec& bcast(int i) const { return bcast_[i]; }
  const Vec& result_shape() const { return result_; }
  const Vec& output_shape() const { return output_; }

  static TensorShape ToShape(const Vec& vec) {
    return TensorShape(absl::Span<const int64_t>(vec));
  }
  // `vec` (size <= NDIMS) with leading `pad` values up to NDIMS entries.
  template <int NDIMS>
  static Eigen::array<Eigen::DenseIndex, NDIMS> ToIndexArray(const Vec& vec,
                                                             int64_t pad = 1) {
    Eigen::array<Eigen::DenseIndex, NDIMS> ret;
    const int offset = NDIMS - static_cast<int>(vec.size());
    for (int i = 0; i < NDIMS; ++i) {
      ret[i] = i < offset ? pad : vec[i - offset];
    }
    return ret;
  }

 protected:
  bool valid_ = true;
  std::array<Vec, N> reshape_;
  std::array<Vec, N> bcast_;
  Vec output_;
  Vec result_;
};

// Two shapes: x (input 0) and y (input 1).
class BCast : public BCastList<2> {
 public:
  BCast(absl::Span<const int64_t> x, absl::Span<const int64_t> y,
        bool fewer_dims_optimization = true)
      : BCastList<2>({x, y}, fewer_dims_optimization) {}
  const Vec& x_reshape() const { return reshape_[0]; }
  const Vec& x_bcast() const { return bcast_[0]; }
  const Vec& y_reshape() const { return reshape_[1]; }
  const Vec& y_bcast() const { return bcast_[1]; }
};

// Element strides of an input viewed with `reshape` over the collapsed
// result dims: 0 along broadcast dims, row-major otherwise. For hand-written
// broadcast loops.
internal::BCastVec BCastStrides(const internal::BCastVec& reshape);

// Note [CPU broadcast loops]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// On the CPU, broadcasting binary ops and SelectV2 walk the output in runs
// along the innermost merged dimension (ForEachBroadcastRun), where each
// input either advances by one element or repeats one value; those inner
// loops vectorise, and blocks of the output are spread over the intra-op
// threads with Eigen's cost model (ThreadPoolDevice::parallelFor), so small
// tensors stay on the calling thread. Eigen's broadcasting evaluators would
// do the same work but cost ~30 s of compile time per rank and per file, and
// stop at a fixed rank; the hand loop has neither limit. Same-shape and
// scalar operands stay single Eigen expressions.

// Calls fn(out_index, in_index, count) for the runs that cover output
// elements [begin, end) of a broadcast with merged output `dims` (as
// BCastList::result_shape()) and per-input `strides` (BCastStrides). Within
// a run, input i advances by strides[i].back() (0 or 1) per element.
template <int N, typename Fn>
void ForEachBroadcastRun(absl::Span<const int64_t> dims,
                         const std::array<internal::BCastVec, N>& strides,
                         int64_t begin, int64_t end, Fn&& fn) {
  if (begin >= end) return;
  const int k = static_cast<int>(dims.size());
  absl::InlinedVector<int64_t, 8> idx(k, 0);
  int64_t rem = begin;
  for (int j = k - 1; j >= 0; --j) {
    idx[j] = rem % dims[j];
    rem /= dims[j];
  }
  std::array<int64_t, N> in{};
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < k; ++j) in[i] += idx[j] * strides[i][j];
  }
  const int64_t inner = dims[k - 1];
  int64_t o = begin;
  while (true) {
    const int64_t n = std::min(inner - idx[k - 1], end - o);
    fn(o, in, n);
    o += n;
    if (o >= end) return;
    // Back to the start of the row, then carry into the outer dimensions.
    for (int i = 0; i < N; ++i) in[i] -= idx[k - 1] * strides[i][k - 1];
    idx[k - 1] = 0;
    for (int j = k - 2; j >= 0; --j) {
      ++idx[j];
      for (int i = 0; i < N; ++i) in[i] += strides[i][j];
      if (idx[j] < dims[j]) break;
      for (int i = 0; i < N; ++i) in[i] -= idx[j] * strides[i][j];
      idx[j] = 0;
    }
  }
}

// Base of every binary element-wise kernel: checks the signature, and plans
// and allocates the output of each call (BinaryOpState).
class BinaryOpShared : public OpKernel {
 public:
  BinaryOpShared(OpKernelConstruction* ctx, DataType out, DataType in);

 protected:
  // One call's inputs, plan and output. Errors go to `ctx`; the caller
  // returns when !ctx->status().ok() or `done` (the output is already final).
  struct BinaryOpState {
    BinaryOpState(OpKernelContext* ctx, bool incompatible_shape_error);
    const Tensor& in0;
    const Tensor& in1;
    // Planned only when the shapes differ and neither is a scalar; the
    // common cases (same shape, a scalar operand) need no plan.
    std::optional<BCast> bcast;
    Tensor* out = nullptr;
    int64_t out_num_elements = 0;
    int64_t in0_num_elements = 0;
    int64_t in1_num_elements = 0;
    int ndims = 0;
    bool done = false;
  };

  void SetUnimplementedError(OpKernelContext* ctx);

  // Equal/NotEqual's attr: false turns incompatible shapes into a scalar
  // answer instead of an error.
  bool incompatible_shape_error_ = true;
};

// out = Functor(in0, in1) with broadcasting. See cwise_op_functor.h for the
// Functor descriptors.
template <typename Device, typename Functor>
class BinaryOp : public BinaryOpShared {
 public:
  using Tin = typename Functor::in_type;
  using Tout = typename Functor::out_type;

  explicit BinaryOp(OpKernelConstruction* ctx)
      : BinaryOpShared(ctx, DataTypeToEnum<Tout>::v(),
                       DataTypeToEnum<Tin>::v()) {}

  void Compute(OpKernelContext* ctx) override {
    BinaryOpState state(ctx, incompatible_shape_error_);
    if (!ctx->status().ok() || state.done) return;
    if (state.out_num_elements == 0) return;
    if constexpr (Functor::kHasErrors &&
                  std::is_same<Device, CPUDevice>::value) {
      // Every element of in1 reaches some output element here, so scanning
      // it first reports exactly what TensorFlow's per-element flag does.
      const Tin* y = state.in1.template base<const Tin>();
      for (int64_t i = 0; i < state.in1_num_elements; ++i) {
        if (!Functor::RightOperandIsValid(y[i])) {
          ctx->SetStatus(errors::InvalidArgument(Functor::kErrorMessage));
          return;
        }
      }
    }
    const Device& d = ctx->eigen_device<Device>();
    const Tensor& in0 = state.in0;
    const Tensor& in1 = state.in1;
    Tensor* out = state.out;
    if (state.ndims <= 1) {
      auto out_flat = out->template flat<Tout>();
      if (state.in1_num_elements == 1) {
        functor::BinaryFunctor<Device, Functor, 1>().Right(
            d, out_flat, in0.template flat<Tin>(), in1.template scalar<Tin>());
      } else if (state.in0_num_elements == 1) {
        functor::BinaryFunctor<Device, Functor, 1>().Left(
            d, out_flat, in0.template scalar<Tin>(), in1.template flat<Tin>());
      } else {
        functor::BinaryFunctor<Device, Functor, 1>()(
            d, out_flat, in0.template flat<Tin>(), in1.template flat<Tin>());
      }
      return;
    }
    const BCast& bcast = *state.bcast;
    if constexpr (std::is_same<Device, CPUDevice>::value) {
      BCastOnCpu(d, bcast, in0.template base<const Tin>(),
                 in1.template base<const Tin>(), out->template base<Tout>());
      return;
    } else {
      switch (state.ndims) {
        case 2:
          RunBCast<2>(d, bcast, in0, in1, out);
          return;
        case 3:
          RunBCast<3>(d, bcast, in0, in1, out);
          return;
        case 4:
        case 5:
          RunBCast<5>(d, bcast, in0, in1, out);
          return;
        default:
          SetUnimplementedError(ctx);
      }
    }
  }

 private:
  // See Note [CPU broadcast loops].
  // A template so that a GPU build, where CPUDevice is incomplete (no
  // EIGEN_USE_THREADS), does not compile its body.
  template <typename CpuDevice = CPUDevice>
  static void BCastOnCpu(const CpuDevice& d, const BCast& bcast, const Tin* x,
                         const Tin* y, Tout* out) {
    using F = typename Functor::func;
    const std::array<internal::BCastVec, 2> strides = {
        BCastStrides(bcast.x_reshape()), BCastStrides(bcast.y_reshape())};
    const internal::BCastVec& dims = bcast.result_shape();
    int64_t total = 1;
    for (int64_t dim : dims) total *= dim;
    const bool x_inner_bcast = strides[0].back() == 0;
    const bool y_inner_bcast = strides[1].back() == 0;
    const Eigen::TensorOpCost cost(2 * sizeof(Tin), sizeof(Tout),
                                   Eigen::internal::functor_traits<F>::Cost);
    ::minflow::internal::CpuParallelFor(
        d, total, cost, 1, [&](Eigen::Index begin, Eigen::Index end) {
          const F f{};
          ForEachBroadcastRun<2>(
              dims, strides, begin, end,
              [&](int64_t o, const std::array<int64_t, 2>& in, int64_t n) {
                Tout* po = out + o;
                const Tin* px = x + in[0];
                const Tin* py = y + in[1];
                if (x_inner_bcast) {
                  const Tin xs = *px;
                  for (int64_t k = 0; k < n; ++k) po[k] = f(xs, py[k]);
                } else if (y_inner_bcast) {
                  const Tin ys = *py;
                  for (int64_t k = 0; k < n; ++k) po[k] = f(px[k], ys);
                } else {
                  for (int64_t k = 0; k < n; ++k) po[k] = f(px[k], py[k]);
                }
              });
        });
  }

  // Eigen's broadcasting evaluators, for devices without a hand loop.
  template <int NDIMS>
  static void RunBCast(const Device& d, const BCast& bcast, const Tensor& in0,
                       const Tensor& in1, Tensor* out) {
    const auto out_dims = BCast::ToIndexArray<NDIMS>(bcast.result_shape());
    const auto x_dims = BCast::ToIndexArray<NDIMS>(bcast.x_reshape());
    const auto y_dims = BCast::ToIndexArray<NDIMS>(bcast.y_reshape());
    typename TTypes<Tout, NDIMS>::Tensor out_t(out->template base<Tout>(),
                                               out_dims);
    typename TTypes<Tin, NDIMS>::ConstTensor x_t(in0.template base<const Tin>(),
                                                 x_dims);
    typename TTypes<Tin, NDIMS>::ConstTensor y_t(in1.template base<const Tin>(),
                                                 y_dims);
    functor::BinaryFunctor<Device, Functor, NDIMS>().BCast(
        d, out_t, x_t, BCast::ToIndexArray<NDIMS>(bcast.x_bcast()), y_t,
        BCast::ToIndexArray<NDIMS>(bcast.y_bcast()));
  }
};

// out = Functor(in), in place when input 0 may be forwarded.
template <typename Device, typename Functor>
class UnaryOp : public OpKernel {
 public:
  using Tin = typename Functor::in_type;
  using Tout = typename Functor::out_type;

  explicit UnaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->MatchSignature({DataTypeToEnum<Tin>::v()},
                                            {DataTypeToEnum<Tout>::v()}));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    functor::UnaryFunctor<Device, Functor>()(ctx->eigen_device<Device>(),
                                             out->template flat<Tout>(),
                                             in.template flat<Tin>());
  }
};

}  // namespace minflow
