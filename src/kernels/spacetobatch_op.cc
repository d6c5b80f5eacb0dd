// SpaceToBatchND and BatchToSpaceND: blocks of the M spatial dims (those
// after the batch) move into the batch dim, after zero padding, or back out
// of it, then cropped. Both are row copies over bytes (a row being the
// contiguous dims after the spatial ones), one instantiation per element
// size.
//
// SpaceToBatchND: out[(o_1..o_M offsets) * B + b, i_1..i_M, rest] =
// padded[b, i_1 * block_1 + o_1, ..., rest], the offsets flattened with the
// first block dim outermost. BatchToSpaceND undoes it and crops.
#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

using Dims = absl::InlinedVector<int64_t, 4>;

// The geometry of one call, validated: the input batch and spatial sizes,
// the output's, the block, the leading pad (SpaceToBatchND) or crop
// (BatchToSpaceND), and the length of a row.
struct Plan {
  int64_t in_batch = 0;
  int64_t out_batch = 0;
  Dims in_spatial;
  Dims out_spatial;
  Dims block;
  Dims start;
  int64_t row = 1;
};

// The values of an int32 or int64 tensor (the op's type attrs allow no
// other).
void ReadInts(const Tensor& t, Dims* out) {
  out->clear();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    out->push_back(t.dtype() == DT_INT32
                       ? static_cast<int64_t>(t.base<const int32_t>()[i])
                       : t.base<const int64_t>()[i]);
  }
}

Status MakePlan(bool to_batch, const Tensor& input, const Tensor& block_t,
                const Tensor& pads_t, Plan* p) {
  const char* pads_name = to_batch ? "paddings" : "crops";
  if (block_t.dims() != 1) {
    return errors::InvalidArgument("block_shape rank should be 1 instead of ",
                                   block_t.dims());
  }
  const int64_t m = block_t.dim_size(0);
  if (input.dims() < 1 + m) {
    return errors::InvalidArgument("input rank should be >= ", 1 + m,
                                   " instead of ", input.dims());
  }
  if (pads_t.dims() != 2 || pads_t.dim_size(0) != m ||
      pads_t.dim_size(1) != 2) {
    return errors::InvalidArgument(pads_name, " should have shape [", m,
                                   ", 2] instead of ",
                                   pads_t.shape().DebugString());
  }
  Dims pads;
  ReadInts(block_t, &p->block);
  ReadInts(pads_t, &pads);
  int64_t product = 1;
  for (int64_t i = 0; i < m; ++i) {
    if (p->block[i] < 1) {
      return errors::InvalidArgument("block_shape must be positive, but got ",
                                     "block_shape[", i, "]=", p->block[i]);
    }
    if (__builtin_mul_overflow(product, p->block[i], &product)) {
      return errors::InvalidArgument("Product of block sizes overflows int64");
    }
  }
  p->in_batch = input.dim_size(0);
  if (to_batch) {
    if (__builtin_mul_overflow(p->in_batch, product, &p->out_batch)) {
      return errors::InvalidArgument(
          "Output batch size overflows int64: ", p->in_batch, " * ", product);
    }
  } else {
    if (p->in_batch % product != 0) {
      return errors::InvalidArgument(
          "Input batch dimension (", p->in_batch,
          ") is not divisible by product of block sizes (", product, ")");
    }
    p->out_batch = p->in_batch / product;
  }
  for (int64_t i = 0; i < m; ++i) {
    const int64_t start = pads[2 * i];
    const int64_t end = pads[2 * i + 1];
    if (start < 0 || end < 0) {
      return errors::InvalidArgument(to_batch ? "Paddings must be non-negative"
                                              : "Crops must be "
                                                "non-negative",
                                     ", but got ", pads_name, "[", i, "]=[",
                                     start, ",", end, "]");
    }
    const int64_t size = input.dim_size(i + 1);
    const int64_t b = p->block[i];
    int64_t out = 0;
    if (to_batch) {
      int64_t padded = 0;
      if (__builtin_add_overflow(size, start, &padded) ||
          __builtin_add_overflow(padded, end, &padded)) {
        return errors::InvalidArgument("padded_shape[", i, "] overflows int64");
      }
      if (padded % b != 0) {
        return errors::InvalidArgument("padded_shape[", i, "]=", padded,
                                       " is not divisible by block_shape[", i,
                                       "]=", b);
      }
      out = padded / b;
    } else {
      if (__builtin_mul_overflow(size, b, &out)) {
        return errors::InvalidArgument("Uncropped size of dimension ", i + 1,
                                       " overflows int64: ", size, " * ", b);
      }
      // start and end are nonnegative: no overflow below.
      out = out - start - end;
      if (out < 0) {
        return errors::InvalidArgument("cropped_shape[", i, "]=", out,
                                       " must be non-negative");
      }
    }
    p->in_spatial.push_back(size);
    p->out_spatial.push_back(out);
    p->start.push_back(start);
  }
  for (int d = static_cast<int>(m) + 1; d < input.dims(); ++d) {
    p->row *= input.dim_size(d);
  }
  return OkStatus();
}

// Output rows [r0, r1): each row is copied from its input row or, for
// SpaceToBatchND's padding, zeroed.
template <typename E>
void MoveRows(bool to_batch, const Plan& p, const E* in, E* out, int64_t r0,
              int64_t r1) {
  const int m = static_cast<int>(p.block.size());
  Dims pos(m);  // output spatial position
  Dims src(m);  // input spatial position
  for (int64_t r = r0; r < r1; ++r) {
    int64_t rest = r;
    for (int d = m - 1; d >= 0; --d) {
      pos[d] = rest % p.out_spatial[d];
      rest /= p.out_spatial[d];
    }
    const int64_t ob = rest;  // output batch index
    int64_t in_b = 0;
    bool inside = true;
    if (to_batch) {
      int64_t offsets = ob / p.in_batch;
      for (int d = m - 1; d >= 0; --d) {
        const int64_t off = offsets % p.block[d];
        offsets /= p.block[d];
        src[d] = pos[d] * p.block[d] + off - p.start[d];
        inside = inside && src[d] >= 0 && src[d] < p.in_spatial[d];
      }
      in_b = ob % p.in_batch;
    } else {
      int64_t offsets = 0;
      for (int d = 0; d < m; ++d) {
        const int64_t padded = pos[d] + p.start[d];
        src[d] = padded / p.block[d];
        offsets = offsets * p.block[d] + padded % p.block[d];
      }
      in_b = offsets * p.out_batch + ob;
    }
    E* dst = out + r * p.row;
    if (!inside) {
      for (int64_t i = 0; i < p.row; ++i) dst[i] = E{};
      continue;
    }
    int64_t in_row = in_b;
    for (int d = 0; d < m; ++d) in_row = in_row * p.in_spatial[d] + src[d];
    CopyElements(dst, in + in_row * p.row, p.row);
  }
}

template <bool kToBatch>
class SpaceBatchOp : public OpKernel {
 public:
  explicit SpaceBatchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Plan p;
    OP_REQUIRES_OK(ctx,
                   MakePlan(kToBatch, input, ctx->input(1), ctx->input(2), &p));
    TensorShape out_shape;
    Dims dims = {p.out_batch};
    dims.insert(dims.end(), p.out_spatial.begin(), p.out_spatial.end());
    for (int d = static_cast<int>(p.block.size()) + 1; d < input.dims(); ++d) {
      dims.push_back(input.dim_size(d));
    }
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(dims, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    const int64_t rows = out_shape.num_elements() / p.row;
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    const bool ok = VisitElementSize(input.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* in = static_cast<const E*>(ElementAt(input, 0));
      E* out = const_cast<E*>(static_cast<const E*>(ElementAt(*output, 0)));
      Shard(workers->num_threads, workers->workers, rows,
            MoveCost(p.row * static_cast<int64_t>(sizeof(E))) + 10,
            [&](int64_t r0, int64_t r1) {
              MoveRows<E>(kToBatch, p, in, out, r0, r1);
            });
    });
    OP_REQUIRES(ctx, ok,
                errors::Unimplemented(type_string(), " of ",
                                      DataTypeString(input.dtype()),
                                      " is not supported"));
  }
};

#define REGISTER_CPU(T)                                  \
  REGISTER_KERNEL_BUILDER(Name("SpaceToBatchND")         \
                              .Device(DEVICE_CPU)        \
                              .TypeConstraint<T>("T")    \
                              .HostMemory("block_shape") \
                              .HostMemory("paddings"),   \
                          SpaceBatchOp<true>);           \
  REGISTER_KERNEL_BUILDER(Name("BatchToSpaceND")         \
                              .Device(DEVICE_CPU)        \
                              .TypeConstraint<T>("T")    \
                              .HostMemory("block_shape") \
                              .HostMemory("crops"),      \
                          SpaceBatchOp<false>);
TF_CALL_REAL_NUMBER_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
