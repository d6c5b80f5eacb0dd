// Pad, PadV2 (a constant border) and MirrorPad (a REFLECT or SYMMETRIC
// border). All three walk the output row by row: a row is either all
// border, or border + one input row + border. MirrorPadGrad, MirrorPad's
// gradient, adds each padded element back onto the one it mirrors.
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "minflow/core/types.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

enum class PadMode { kConstant, kReflect, kSymmetric };

// One dimension of the problem: `size` input elements, padded with
// `before` and `after`.
struct PadDim {
  int64_t size;
  int64_t before;
  int64_t after;
  int64_t out() const { return before + size + after; }
};

// The input index that output index `o` of `d` reads, or -1 for the
// constant border. Mirror modes were validated: before, after < size
// (REFLECT) or <= size (SYMMETRIC).
int64_t SourceIndex(const PadDim& d, PadMode mode, int64_t o) {
  const int64_t i = o - d.before;
  if (i >= 0 && i < d.size) return i;
  if (mode == PadMode::kConstant) return -1;
  const int64_t offset = mode == PadMode::kReflect ? 1 : 0;
  return i < 0 ? -i - 1 + offset : 2 * d.size - i - 1 - offset;
}

// Merges dims that need no index mapping of their own: two adjacent
// unpadded dims always; for a constant border also a padded dim with the
// unpadded dims inside it (its border rows are just longer).
absl::InlinedVector<PadDim, 8> Simplify(absl::Span<const PadDim> dims,
                                        PadMode mode) {
  absl::InlinedVector<PadDim, 8> out;
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    const PadDim& cur = dims[d];
    if (!out.empty() && out.back().before == 0 && out.back().after == 0 &&
        (mode == PadMode::kConstant || (cur.before == 0 && cur.after == 0))) {
      const int64_t inner = out.back().size;
      out.back() = {cur.size * inner, cur.before * inner, cur.after * inner};
    } else {
      out.push_back(cur);
    }
  }
  return absl::InlinedVector<PadDim, 8>(out.rbegin(), out.rend());
}

template <typename E>
void PadRows(const DeviceBase::CpuWorkerThreads* workers, const E* in,
             absl::Span<const PadDim> dims, PadMode mode, const E& value,
             E* out) {
  const int rank = static_cast<int>(dims.size());
  const PadDim& last = dims[rank - 1];
  const int64_t row_out = last.out();
  // Input strides and, per outer dim, the input index of each output index.
  absl::InlinedVector<int64_t, 8> in_strides(rank);
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; --d) {
    in_strides[d] = s;
    s *= dims[d].size;
  }
  std::vector<std::vector<int64_t>> maps(rank - 1);
  int64_t rows = 1;
  for (int d = 0; d < rank - 1; ++d) {
    maps[d].resize(dims[d].out());
    for (int64_t o = 0; o < dims[d].out(); ++o) {
      maps[d][o] = SourceIndex(dims[d], mode, o);
    }
    rows *= dims[d].out();
  }

  auto work = [&](int64_t begin, int64_t end) {
    absl::InlinedVector<int64_t, 8> idx(rank, 0);
    int64_t rem = begin;
    for (int d = rank - 2; d >= 0; --d) {
      idx[d] = rem % dims[d].out();
      rem /= dims[d].out();
    }
    E* o = out + begin * row_out;
    for (int64_t r = begin; r < end; ++r, o += row_out) {
      int64_t src = 0;
      bool border = false;
      for (int d = 0; d < rank - 1; ++d) {
        const int64_t i = maps[d][idx[d]];
        if (i < 0) {
          border = true;
          break;
        }
        src += i * in_strides[d];
      }
      if (border) {
        std::fill(o, o + row_out, value);
      } else {
        const E* row = in + src;
        if (mode == PadMode::kConstant) {
          std::fill(o, o + last.before, value);
          std::fill(o + last.before + last.size, o + row_out, value);
        } else {
          for (int64_t k = 0; k < last.before; ++k) {
            o[k] = row[SourceIndex(last, mode, k)];
          }
          for (int64_t k = last.before + last.size; k < row_out; ++k) {
            o[k] = row[SourceIndex(last, mode, k)];
          }
        }
        CopyElements(o + last.before, row, last.size);
      }
      for (int d = rank - 2; d >= 0; --d) {
        if (++idx[d] < dims[d].out()) break;
        idx[d] = 0;
      }
    }
  };
  const int64_t cost =
      MoveCost(row_out * static_cast<int64_t>(sizeof(E))) + rank;
  if (workers == nullptr) {
    work(0, rows);
  } else {
    Shard(workers->num_threads, workers->workers, rows, cost, work);
  }
}

// The element zero of every movable type is all-zero bytes, except
// strings, whose zero is "".
template <typename E>
E ZeroValue() {
  if constexpr (std::is_trivially_copyable<E>::value) {
    E v;
    std::memset(&v, 0, sizeof(E));
    return v;
  } else {
    return E();
  }
}

// Entry i of an int32 or int64 paddings matrix.
int64_t ReadPadding(const Tensor& t, int64_t i) {
  return t.dtype() == DT_INT32
             ? static_cast<int64_t>(t.base<const int32_t>()[i])
             : t.base<const int64_t>()[i];
}

class PadOpBase : public OpKernel {
 public:
  PadOpBase(OpKernelConstruction* ctx, PadMode mode)
      : OpKernel(ctx), mode_(mode) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in0 = ctx->input(0);
    const Tensor& in1 = ctx->input(1);
    const int dims = in0.dims();
    OP_REQUIRES(
        ctx, TensorShapeUtils::IsMatrix(in1.shape()) && in1.dim_size(1) == 2,
        errors::InvalidArgument("paddings must be a matrix with 2 columns: ",
                                in1.shape().DebugString()));
    OP_REQUIRES(
        ctx, dims == in1.dim_size(0),
        errors::InvalidArgument(
            "The first dimension of paddings must be the rank of "
            "inputs",
            in1.shape().DebugString(), ", ", in0.shape().DebugString()));
    const void* value = nullptr;
    if (ctx->num_inputs() == 3) {
      const Tensor& constant_values = ctx->input(2);
      OP_REQUIRES(
          ctx, TensorShapeUtils::IsScalar(constant_values.shape()),
          errors::InvalidArgument("constant_values must be a scalar. Found: ",
                                  constant_values.shape().DebugString()));
      value = constant_values.data();
    }

    absl::InlinedVector<PadDim, 8> pad_dims(dims);
    absl::InlinedVector<int64_t, 8> out_dims(dims);
    for (int d = 0; d < dims; ++d) {
      const int64_t before = ReadPadding(in1, 2 * d);
      const int64_t after = ReadPadding(in1, 2 * d + 1);
      const int64_t size = in0.dim_size(d);
      switch (mode_) {
        case PadMode::kConstant:
          OP_REQUIRES(ctx, before >= 0 && after >= 0,
                      errors::InvalidArgument("Paddings must be non-negative: ",
                                              before, " ", after));
          break;
        case PadMode::kSymmetric:
          OP_REQUIRES(ctx, before >= 0 && after >= 0,
                      errors::InvalidArgument("paddings must be non-negative: ",
                                              before, " ", after));
          OP_REQUIRES(ctx, before <= size && after <= size,
                      errors::InvalidArgument(
                          "paddings must be no greater than the dimension "
                          "size: ",
                          before, ", ", after, " greater than ", size));
          break;
        case PadMode::kReflect:
          OP_REQUIRES(ctx, before >= 0 && after >= 0,
                      errors::InvalidArgument("paddings must be non-negative: ",
                                              before, " ", after));
          OP_REQUIRES(ctx, before < size && after < size,
                      errors::InvalidArgument(
                          "paddings must be less than the dimension size: ",
                          before, ", ", after, " not less than ", size));
          break;
      }
      constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
      OP_REQUIRES(ctx, before <= kMax - size && after <= kMax - size - before,
                  errors::InvalidArgument("Padded size of dimension ", d,
                                          " overflows int64: ", before, " + ",
                                          size, " + ", after));
      pad_dims[d] = {size, before, after};
      out_dims[d] = before + size + after;
    }
    TensorShape output_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &output_shape));

    // No padding at all (or nothing to write): the input, reshaped.
    if (output_shape.num_elements() == in0.NumElements()) {
      Tensor out;
      OP_REQUIRES(ctx, out.CopyFrom(in0, output_shape),
                  errors::Internal("Pad: reshape failed"));
      ctx->set_output(0, std::move(out));
      return;
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, output_shape, &output));
    const auto simple = Simplify(pad_dims, mode_);
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    const bool ok = VisitElementSize(in0.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E pad =
          value != nullptr ? *static_cast<const E*>(value) : ZeroValue<E>();
      PadRows<E>(workers, static_cast<const E*>(in0.data()), simple, mode_, pad,
                 static_cast<E*>(output->data()));
    });
    OP_REQUIRES(ctx, ok,
                errors::Unimplemented("Pad of ", DataTypeString(in0.dtype()),
                                      " is not supported"));
  }

 private:
  const PadMode mode_;
};

// Pad(input, paddings) and PadV2(input, paddings, constant_values).
class PadOp : public PadOpBase {
 public:
  explicit PadOp(OpKernelConstruction* ctx)
      : PadOpBase(ctx, PadMode::kConstant) {}
};

PadMode ParseMirrorMode(OpKernelConstruction* ctx) {
  std::string mode;
  const Status s = ctx->GetAttr("mode", &mode);
  if (!s.ok()) {
    ctx->CtxFailure(s);
  } else if (mode == "REFLECT") {
    return PadMode::kReflect;
  } else if (mode == "SYMMETRIC") {
    return PadMode::kSymmetric;
  } else {
    ctx->CtxFailure(
        errors::InvalidArgument("mode must be either REFLECT or SYMMETRIC."));
  }
  return PadMode::kReflect;
}

// MirrorPad(input, paddings; mode).
class MirrorPadOp : public PadOpBase {
 public:
  explicit MirrorPadOp(OpKernelConstruction* ctx)
      : PadOpBase(ctx, ParseMirrorMode(ctx)) {}
};

// MirrorPadGrad(grad, paddings; mode): the output has the forward input's
// shape, grad's dims less both paddings; element i of it sums every element
// of grad that MirrorPad copied from i.
// acc += v; signed integers wrap around (two's complement) rather than
// overflow, which is undefined: a gradient of large int32 values sums as
// TensorFlow's kernels sum it in practice.
template <typename T>
inline void AddWrapping(T& acc, T v) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using Unsigned = std::make_unsigned_t<T>;
    acc = static_cast<T>(static_cast<Unsigned>(acc) + static_cast<Unsigned>(v));
  } else {
    acc += v;
  }
}

template <typename T>
class MirrorPadGradOp : public OpKernel {
 public:
  explicit MirrorPadGradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), mode_(ParseMirrorMode(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& paddings = ctx->input(1);
    const int rank = grad.dims();
    OP_REQUIRES(
        ctx,
        TensorShapeUtils::IsMatrix(paddings.shape()) &&
            paddings.dim_size(1) == 2 && paddings.dim_size(0) == rank,
        errors::InvalidArgument("MirrorPadGrad: paddings must be a [", rank,
                                ", 2] matrix for an input of rank ", rank,
                                ", but got ", paddings.shape().DebugString()));
    absl::InlinedVector<PadDim, 8> pad_dims(rank);
    absl::InlinedVector<int64_t, 8> out_dims(rank);
    for (int d = 0; d < rank; ++d) {
      const int64_t before = ReadPadding(paddings, 2 * d);
      const int64_t after = ReadPadding(paddings, 2 * d + 1);
      OP_REQUIRES(ctx, before >= 0 && after >= 0,
                  errors::InvalidArgument(
                      "MirrorPadGrad: paddings must be non-negative, but got ",
                      before, ", ", after, " in dimension ", d));
      const int64_t padded = grad.dim_size(d);
      // before + after cannot overflow: each is at most padded here.
      OP_REQUIRES(
          ctx, before <= padded && after <= padded - before,
          errors::InvalidArgument(
              "MirrorPadGrad: paddings must add up to at most the "
              "input's size, but got ",
              before, " + ", after, " for size ", padded, " in dimension ", d));
      const int64_t size = padded - before - after;
      const int64_t slack = mode_ == PadMode::kReflect ? 0 : 1;
      OP_REQUIRES(
          ctx, before < size + slack && after < size + slack,
          errors::InvalidArgument(
              "MirrorPadGrad: paddings must be ",
              mode_ == PadMode::kReflect ? "less than" : "no greater than",
              " the output's size, but got ", before, ", ", after, " for size ",
              size, " in dimension ", d));
      pad_dims[d] = {size, before, after};
      out_dims[d] = size;
    }
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape(out_dims), &output));
    T* out = output->base<T>();
    std::fill(out, out + output->NumElements(), T(0));
    const T* in = grad.base<const T>();
    if (grad.NumElements() == 0) return;
    if (rank == 0) {
      out[0] = in[0];
      return;
    }
    // Per dim, the output index each grad index adds to (with the output's
    // stride folded in); rows of the last dim are walked with an odometer.
    const auto out_strides = DenseStrides(out_dims);
    std::vector<std::vector<int64_t>> maps(rank);
    for (int d = 0; d < rank; ++d) {
      maps[d].resize(pad_dims[d].out());
      for (int64_t o = 0; o < pad_dims[d].out(); ++o) {
        maps[d][o] = SourceIndex(pad_dims[d], mode_, o) * out_strides[d];
      }
    }
    const int64_t row = grad.dim_size(rank - 1);
    const int64_t rows = grad.NumElements() / row;
    const std::vector<int64_t>& last = maps[rank - 1];
    absl::InlinedVector<int64_t, 8> idx(rank, 0);
    for (int64_t r = 0; r < rows; ++r, in += row) {
      int64_t base = 0;
      for (int d = 0; d < rank - 1; ++d) base += maps[d][idx[d]];
      for (int64_t k = 0; k < row; ++k) AddWrapping(out[base + last[k]], in[k]);
      for (int d = rank - 2; d >= 0; --d) {
        if (++idx[d] < grad.dim_size(d)) break;
        idx[d] = 0;
      }
    }
  }

 private:
  const PadMode mode_;
};

#define REGISTER_CPU(T)                                \
  REGISTER_KERNEL_BUILDER(Name("MirrorPadGrad")        \
                              .Device(DEVICE_CPU)      \
                              .TypeConstraint<T>("T")  \
                              .HostMemory("paddings"), \
                          MirrorPadGradOp<T>);
TF_CALL_NUMBER_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

#define REGISTER_CPU(T)                                       \
  REGISTER_KERNEL_BUILDER(Name("Pad")                         \
                              .Device(DEVICE_CPU)             \
                              .TypeConstraint<T>("T")         \
                              .HostMemory("paddings"),        \
                          PadOp);                             \
  REGISTER_KERNEL_BUILDER(Name("PadV2")                       \
                              .Device(DEVICE_CPU)             \
                              .TypeConstraint<T>("T")         \
                              .HostMemory("paddings")         \
                              .HostMemory("constant_values"), \
                          PadOp);                             \
  REGISTER_KERNEL_BUILDER(Name("MirrorPad")                   \
                              .Device(DEVICE_CPU)             \
                              .TypeConstraint<T>("T")         \
                              .HostMemory("paddings"),        \
                          MirrorPadOp);
TF_CALL_ALL_TYPES(REGISTER_CPU)
TF_CALL_QUANTIZED_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
