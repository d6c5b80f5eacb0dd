// ConcatV2 and Pack on the CPU: the kernels of concat_op.h joining rows with
// ConcatRows (data_movement.h) over the intra-op threads.
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

}  // namespace
}  // namespace minflow
