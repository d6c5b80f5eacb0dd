// Tile(input, multiples): output[i] = input[i mod input.shape], with
// output.shape = input.shape * multiples.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "absl/container/inlined_vector.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

// Output rows (the last dim) are the input row repeated: copy it once,
// then double the filled prefix until the row is full.
template <typename E>
void TileRows(const DeviceBase::CpuWorkerThreads* workers, const E* in,
              absl::Span<const int64_t> in_dims,
              absl::Span<const int64_t> multiples, E* out) {
  const int rank = static_cast<int>(in_dims.size());
  const int64_t in_row = in_dims[rank - 1];
  const int64_t out_row = in_row * multiples[rank - 1];
  absl::InlinedVector<int64_t, 8> out_dims(rank);
  for (int d = 0; d < rank; ++d) out_dims[d] = in_dims[d] * multiples[d];
  const auto in_strides = DenseStrides(in_dims);
  int64_t rows = 1;
  for (int d = 0; d < rank - 1; ++d) rows *= out_dims[d];

  auto work = [&](int64_t begin, int64_t end) {
    absl::InlinedVector<int64_t, 8> idx(rank, 0);
    int64_t rem = begin;
    for (int d = rank - 2; d >= 0; --d) {
      idx[d] = rem % out_dims[d];
      rem /= out_dims[d];
    }
    E* o = out + begin * out_row;
    for (int64_t r = begin; r < end; ++r, o += out_row) {
      int64_t src = 0;
      for (int d = 0; d < rank - 1; ++d) {
        src += (idx[d] % in_dims[d]) * in_strides[d];
      }
      CopyElements(o, in + src, in_row);
      for (int64_t filled = in_row; filled < out_row;) {
        const int64_t n = std::min(filled, out_row - filled);
        CopyElements(o + filled, o, n);
        filled += n;
      }
      for (int d = rank - 2; d >= 0; --d) {
        if (++idx[d] < out_dims[d]) break;
        idx[d] = 0;
      }
    }
  };
  const int64_t cost =
      MoveCost(out_row * static_cast<int64_t>(sizeof(E))) + rank;
  if (workers == nullptr) {
    work(0, rows);
  } else {
    Shard(workers->num_threads, workers->workers, rows, cost, work);
  }
}

// Tmultiples: int32 or int64.
class TileOp : public OpKernel {
 public:
  explicit TileOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& multiples = ctx->input(1);
    const int input_dims = input.dims();
    OP_REQUIRES(
        ctx,
        TensorShapeUtils::IsVector(multiples.shape()) &&
            multiples.NumElements() == input_dims,
        errors::InvalidArgument(
            "Expected multiples argument to be a vector of length ", input_dims,
            " but got shape ", multiples.shape().DebugString()));
    if (input_dims == 0) {
      ctx->set_output(0, input);
      return;
    }
    absl::InlinedVector<int64_t, 8> m(input_dims);
    absl::InlinedVector<int64_t, 8> out_dims(input_dims);
    for (int i = 0; i < input_dims; ++i) {
      m[i] = multiples.dtype() == DT_INT32
                 ? static_cast<int64_t>(multiples.base<const int32_t>()[i])
                 : multiples.base<const int64_t>()[i];
      OP_REQUIRES(ctx, m[i] >= 0,
                  errors::InvalidArgument("Expected multiples[", i,
                                          "] >= 0, but got ", m[i]));
      const int64_t size = input.dim_size(i);
      OP_REQUIRES(
          ctx, size == 0 || m[i] <= std::numeric_limits<int64_t>::max() / size,
          errors::InvalidArgument("Tiled size of dimension ", i,
                                  " overflows int64: ", size, " * ", m[i]));
      out_dims[i] = size * m[i];
    }
    TensorShape output_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &output_shape));
    if (output_shape == input.shape()) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, output_shape, &output));
    if (output_shape.num_elements() == 0) return;
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    const bool ok = VisitElementSize(input.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      TileRows<E>(workers, static_cast<const E*>(input.data()),
                  input.shape().dim_sizes(), m,
                  static_cast<E*>(output->data()));
    });
    OP_REQUIRES(ctx, ok,
                errors::Unimplemented("Tile of ", DataTypeString(input.dtype()),
                                      " is not supported"));
  }
};

// No T constraint, as TF: Tile moves bytes, so every type works.
REGISTER_KERNEL_BUILDER(Name("Tile")
                            .Device(DEVICE_CPU)
                            .HostMemory("multiples")
                            .TypeConstraint<int32_t>("Tmultiples"),
                        TileOp);
REGISTER_KERNEL_BUILDER(Name("Tile")
                            .Device(DEVICE_CPU)
                            .HostMemory("multiples")
                            .TypeConstraint<int64_t>("Tmultiples"),
                        TileOp);

}  // namespace
}  // namespace minflow
