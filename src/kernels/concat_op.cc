// ConcatV2 and Pack on the CPU: the kernels of concat_op.h joining rows with
// ConcatRows (data_movement.h) over the intra-op threads. Also
// ConcatOffset, the integer helper of ConcatV2's gradient.
#include "src/kernels/concat_op.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

// Views every input as [outer, inner_i] (outer = the product of the dims
// before the axis) and writes the rows of `output` one after another.
struct CpuJoiner {
  static void Join(OpKernelContext* ctx, const OpInputList& values,
                   int64_t outer, Tensor* output);
};

void CpuJoiner::Join(OpKernelContext* ctx, const OpInputList& values,
                     int64_t outer, Tensor* output) {
  if (output->NumElements() == 0) return;
  absl::InlinedVector<const void*, 16> pointers;
  absl::InlinedVector<int64_t, 16> widths;
  for (const Tensor& in : values) {
    const int64_t n = in.NumElements();
    pointers.push_back(n > 0 ? in.data() : nullptr);
    widths.push_back(n > 0 ? n / outer : 0);
  }
  ConcatRows(ctx->device()->tensorflow_cpu_worker_threads(), output->dtype(),
             pointers, widths, outer, output->data());
}

#define REGISTER_CPU(T)                                       \
  REGISTER_KERNEL_BUILDER(Name("ConcatV2")                    \
                              .Device(DEVICE_CPU)             \
                              .TypeConstraint<T>("T")         \
                              .HostMemory("axis"),            \
                          ConcatV2Op<CpuJoiner>);             \
  REGISTER_KERNEL_BUILDER(                                    \
      Name("Pack").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      PackOp<CpuJoiner>);
TF_CALL_ALL_TYPES(REGISTER_CPU)
TF_CALL_QUANTIZED_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

// ConcatOffset(concat_dim, shape_0 .. shape_{N-1}): where each concatenated
// tensor starts. Integer work on small vectors, all on the host.
template <typename T>
class ConcatOffsetOp : public OpKernel {
 public:
  explicit ConcatOffsetOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& concat_dim = ctx->input(0);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(concat_dim.shape()),
                errors::InvalidArgument(
                    "ConcatOffset: concat_dim must be a scalar, but got shape ",
                    concat_dim.shape().DebugString()));
    const int n = ctx->num_inputs() - 1;
    const Tensor& first = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(first.shape()),
                errors::InvalidArgument(
                    "ConcatOffset: shape 0 must be a vector, but got shape ",
                    first.shape().DebugString()));
    const int64_t dims = first.NumElements();
    const int64_t raw = concat_dim.base<const int32_t>()[0];
    const int64_t axis = raw < 0 ? raw + dims : raw;
    OP_REQUIRES(ctx, axis >= 0 && axis < dims,
                errors::InvalidArgument("ConcatOffset: concat_dim must be in [",
                                        -dims, ", ", dims, "), but got ", raw));
    const T* s0 = first.base<const T>();
    int64_t offset = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& shape = ctx->input(1 + i);
      OP_REQUIRES(ctx,
                  TensorShapeUtils::IsVector(shape.shape()) &&
                      shape.NumElements() == dims,
                  errors::InvalidArgument("ConcatOffset: shape ", i,
                                          " must be a vector of ", dims,
                                          " elements, but got shape ",
                                          shape.shape().DebugString()));
      const T* s = shape.base<const T>();
      for (int64_t j = 0; j < dims; ++j) {
        OP_REQUIRES(
            ctx, s[j] >= 0,
            errors::InvalidArgument(
                "ConcatOffset: shape ", i, " must not be negative, ",
                "but got ", static_cast<int64_t>(s[j]), " in dimension ", j));
        OP_REQUIRES(
            ctx, j == axis || s[j] == s0[j],
            errors::InvalidArgument("ConcatOffset: shape ", i,
                                    " must match shape 0 in ", "dimension ", j,
                                    ", but got ", static_cast<int64_t>(s[j]),
                                    " and ", static_cast<int64_t>(s0[j])));
      }
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({dims}), &out));
      T* o = out->base<T>();
      for (int64_t j = 0; j < dims; ++j) o[j] = 0;
      o[axis] = static_cast<T>(offset);
      // offset <= max(T) here, so the subtraction cannot wrap.
      OP_REQUIRES(ctx, s[axis] <= std::numeric_limits<T>::max() - offset,
                  errors::InvalidArgument(
                      "ConcatOffset: the concatenated size overflows ",
                      DataTypeString(DataTypeToEnum<T>::v())));
      offset += s[axis];
    }
  }
};

REGISTER_KERNEL_BUILDER(Name("ConcatOffset")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<int32_t>("shape_type"),
                        ConcatOffsetOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("ConcatOffset")
                            .Device(DEVICE_CPU)
                            .TypeConstraint<int64_t>("shape_type"),
                        ConcatOffsetOp<int64_t>);

}  // namespace
}  // namespace minflow
