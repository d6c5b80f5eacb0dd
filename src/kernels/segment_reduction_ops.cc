// SegmentSum (sorted segment ids over dimension 0) and UnsortedSegmentSum,
// UnsortedSegmentMax, UnsortedSegmentMin (ids of any shape that data's shape
// starts with). Every id is checked before any output row is touched.
#include <cstdint>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cwise_op_functor.h"

namespace minflow {
namespace {

enum class SegmentKind { kSum, kMax, kMin };

// How one segment folds a row of data into its output row, and what an
// empty segment holds (TensorFlow's: 0 for sums, the type's lowest value for
// Max and its highest for Min).
template <typename T, SegmentKind K>
struct SegmentReducer {
  static T Identity() {
    if constexpr (K == SegmentKind::kSum) {
      return T(0);
    } else if constexpr (K == SegmentKind::kMax) {
      return Eigen::NumTraits<T>::lowest();
    } else {
      return Eigen::NumTraits<T>::highest();
    }
  }
  static void Fold(const T* in, int64_t n, T* out) {
    for (int64_t k = 0; k < n; ++k) {
      if constexpr (K == SegmentKind::kSum) {
        // Integer sums wrap; see Note [Integer overflow in kernels].
        if constexpr (functor::internal::IsInt<T>::value) {
          out[k] = functor::internal::WrapAdd(out[k], in[k]);
        } else {
          out[k] = out[k] + in[k];
        }
      } else if constexpr (K == SegmentKind::kMax) {
        if (out[k] < in[k]) out[k] = in[k];
      } else {
        if (in[k] < out[k]) out[k] = in[k];
      }
    }
  }
};

// "[1,2]": the position of flat index `i` in `shape`, for messages.
std::string PositionString(const TensorShape& shape, int64_t i) {
  absl::InlinedVector<int64_t, 8> pos(shape.dims());
  for (int d = shape.dims() - 1; d >= 0; --d) {
    pos[d] = i % shape.dim_size(d);
    i /= shape.dim_size(d);
  }
  return absl::StrCat("[", absl::StrJoin(pos, ","), "]");
}

template <typename T>
void FillRows(T value, int64_t n, T* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = value;
}

template <typename T, typename Index, SegmentKind K>
class UnsortedSegmentReductionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& segment_ids = ctx->input(1);
    const Tensor& num_segments = ctx->input(2);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(num_segments.shape()),
                errors::InvalidArgument("num_segments should be a scalar, "
                                        "not shape ",
                                        num_segments.shape().DebugString()));
    bool starts_with = data.dims() >= segment_ids.dims();
    for (int d = 0; starts_with && d < segment_ids.dims(); ++d) {
      starts_with = data.dim_size(d) == segment_ids.dim_size(d);
    }
    OP_REQUIRES(
        ctx, starts_with,
        errors::InvalidArgument("data.shape = ", data.shape().DebugString(),
                                " does not start with segment_ids.shape = ",
                                segment_ids.shape().DebugString()));
    const int64_t output_rows =
        num_segments.dtype() == DT_INT32
            ? static_cast<int64_t>(num_segments.scalar<int32_t>()())
            : num_segments.scalar<int64_t>()();
    OP_REQUIRES(ctx, output_rows >= 0,
                errors::InvalidArgument("Input num_segments == ", output_rows,
                                        " must not be negative."));
    absl::InlinedVector<int64_t, 8> dims = {output_rows};
    int64_t inner = 1;
    for (int d = segment_ids.dims(); d < data.dims(); ++d) {
      dims.push_back(data.dim_size(d));
      inner *= data.dim_size(d);
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims, &out_shape));

    // Negative ids drop their row, as TensorFlow's CPU kernel does.
    const Index* ids = segment_ids.base<const Index>();
    const int64_t n = segment_ids.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = static_cast<int64_t>(ids[i]);
      OP_REQUIRES(ctx, id < output_rows,
                  errors::InvalidArgument(
                      "segment_ids", PositionString(segment_ids.shape(), i),
                      " = ", id, " is out of range [0, ", output_rows, ")"));
    }

    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    using Reducer = SegmentReducer<T, K>;
    T* out_data = out->base<T>();
    FillRows(Reducer::Identity(), out_shape.num_elements(), out_data);
    const T* in = data.base<const T>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = static_cast<int64_t>(ids[i]);
      if (id < 0) continue;
      Reducer::Fold(in + i * inner, inner, out_data + id * inner);
    }
  }
};

template <typename T, typename Index>
class SegmentSumOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& segment_ids = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVectorOrHigher(data.shape()),
                errors::InvalidArgument("input must be at least rank 1"));
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(segment_ids.shape()),
                errors::InvalidArgument("segment_ids should be a vector."));
    const int64_t n = segment_ids.NumElements();
    OP_REQUIRES(ctx, n == data.dim_size(0),
                errors::InvalidArgument("segment_ids should be the same size "
                                        "as dimension 0 of input."));
    const Index* ids = segment_ids.base<const Index>();
    // The ids must be non-negative and sorted; the last one sets the size.
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = static_cast<int64_t>(ids[i]);
      OP_REQUIRES(ctx, id >= 0,
                  errors::InvalidArgument("segment ids must be >= 0, but got "
                                          "segment_ids[",
                                          i, "] = ", id));
      OP_REQUIRES(ctx, i == 0 || static_cast<int64_t>(ids[i - 1]) <= id,
                  errors::InvalidArgument(
                      "segment ids are not increasing: segment_ids[", i, "] = ",
                      id, " follows ", static_cast<int64_t>(ids[i - 1])));
    }
    const int64_t output_rows =
        n == 0 ? 0 : static_cast<int64_t>(ids[n - 1]) + 1;
    TensorShape out_shape = data.shape();
    out_shape.set_dim(0, output_rows);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    const int64_t inner = out_shape.num_elements() / output_rows;
    using Reducer = SegmentReducer<T, SegmentKind::kSum>;
    T* out_data = out->base<T>();
    FillRows(Reducer::Identity(), out_shape.num_elements(), out_data);
    const T* in = data.base<const T>();
    for (int64_t i = 0; i < n; ++i) {
      Reducer::Fold(in + i * inner, inner,
                    out_data + static_cast<int64_t>(ids[i]) * inner);
    }
  }
};

constexpr DataType kNumSegmentsTypes[] = {DT_INT32, DT_INT64};

#define REGISTER_UNSORTED(NAME, KIND, T, Index)              \
  REGISTER_KERNEL_BUILDER(                                   \
      Name(NAME)                                             \
          .Device(DEVICE_CPU)                                \
          .TypeConstraint<T>("T")                            \
          .TypeConstraint<Index>("Tindices")                 \
          .TypeConstraint("Tnumsegments", kNumSegmentsTypes) \
          .HostMemory("num_segments"),                       \
      UnsortedSegmentReductionOp<T, Index, KIND>);
#define REGISTER_INDEX(T, Index)                                       \
  REGISTER_UNSORTED("UnsortedSegmentSum", SegmentKind::kSum, T, Index) \
  REGISTER_UNSORTED("UnsortedSegmentMax", SegmentKind::kMax, T, Index) \
  REGISTER_UNSORTED("UnsortedSegmentMin", SegmentKind::kMin, T, Index) \
  REGISTER_KERNEL_BUILDER(Name("SegmentSum")                           \
                              .Device(DEVICE_CPU)                      \
                              .TypeConstraint<T>("T")                  \
                              .TypeConstraint<Index>("Tindices"),      \
                          SegmentSumOp<T, Index>);
// The per-type code is a plain loop, so every real type TensorFlow
// registers costs little.
#define REGISTER_CPU(T)      \
  REGISTER_INDEX(T, int32_t) \
  REGISTER_INDEX(T, int64_t)
TF_CALL_REAL_NUMBER_TYPES(REGISTER_CPU)
#undef REGISTER_CPU
#undef REGISTER_INDEX
#undef REGISTER_UNSORTED

}  // namespace
}  // namespace minflow
