// Transpose: y = x with its dimensions permuted by `perm`.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_join.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"
#include "src/kernels/transpose_functor.h"

namespace minflow {

namespace internal {

void ReduceTransposeDimensions(absl::Span<const int64_t> in_dims,
                               absl::Span<const int32_t> perm,
                               absl::InlinedVector<int64_t, 8>* new_dims,
                               absl::InlinedVector<int32_t, 8>* new_perm) {
  const int rank = static_cast<int>(in_dims.size());
  // Input dims that survive (size > 1), renumbered densely.
  absl::InlinedVector<int32_t, 8> renumber(rank, -1);
  absl::InlinedVector<int64_t, 8> kept_dims;
  for (int d = 0; d < rank; ++d) {
    if (in_dims[d] != 1) {
      renumber[d] = static_cast<int32_t>(kept_dims.size());
      kept_dims.push_back(in_dims[d]);
    }
  }
  absl::InlinedVector<int32_t, 8> kept_perm;
  for (int d = 0; d < rank; ++d) {
    if (renumber[perm[d]] >= 0) kept_perm.push_back(renumber[perm[d]]);
  }
  // Merge runs p, p+1, ... of consecutive input dims in the output order:
  // group g starts at output position starts[g].
  const int n = static_cast<int>(kept_perm.size());
  absl::InlinedVector<int32_t, 8> group_of_input(n, -1);
  absl::InlinedVector<int32_t, 8> group_heads;  // input dim heading group g
  for (int i = 0; i < n; ++i) {
    if (i > 0 && kept_perm[i] == kept_perm[i - 1] + 1) {
      group_of_input[kept_perm[i]] = group_of_input[kept_perm[i - 1]];
    } else {
      group_of_input[kept_perm[i]] = static_cast<int32_t>(group_heads.size());
      group_heads.push_back(kept_perm[i]);
    }
  }
  // Groups in input order give the new input dims; the output order of the
  // groups is the new permutation.
  const int groups = static_cast<int>(group_heads.size());
  absl::InlinedVector<int32_t, 8> input_rank_of_group(groups, 0);
  new_dims->clear();
  for (int d = 0; d < n; ++d) {
    const int32_t g = group_of_input[d];
    if (d == group_heads[g]) {
      input_rank_of_group[g] = static_cast<int32_t>(new_dims->size());
      new_dims->push_back(kept_dims[d]);
    } else {
      new_dims->back() *= kept_dims[d];
    }
  }
  new_perm->clear();
  for (int g = 0; g < groups; ++g) new_perm->push_back(input_rank_of_group[g]);
}

bool NonSingletonDimensionsAlign(absl::Span<const int64_t> in_dims,
                                 absl::Span<const int32_t> perm) {
  int last = -1;
  for (int32_t p : perm) {
    if (in_dims[p] == 1) continue;
    if (p < last) return false;
    last = p;
  }
  return true;
}

}  // namespace internal

namespace {

// The output dim that reads the input's contiguous dim is tiled against
// the output's own contiguous dim, so both sides of a tile stay in L1.
template <typename E>
constexpr int64_t TileSize() {
  return sizeof(E) <= 4 ? 32 : (sizeof(E) == 8 ? 16 : 8);
}

// Transpose whose innermost output dim is not the input's innermost dim.
// `dims` and `perm` are reduced (see ReduceTransposeDimensions).
template <typename E>
void TransposeTiled(const DeviceBase::CpuWorkerThreads* workers, const E* in,
                    absl::Span<const int64_t> dims,
                    absl::Span<const int32_t> perm, E* out) {
  const int rank = static_cast<int>(dims.size());
  const auto in_strides = DenseStrides(dims);
  absl::InlinedVector<int64_t, 8> out_dims(rank);
  for (int d = 0; d < rank; ++d) out_dims[d] = dims[perm[d]];
  const auto out_strides = DenseStrides(out_dims);

  const int l = rank - 1;
  const int j = static_cast<int>(std::find(perm.begin(), perm.end(), rank - 1) -
                                 perm.begin());
  const int64_t nj = out_dims[j];
  const int64_t nl = out_dims[l];
  const int64_t out_stride_j = out_strides[j];
  const int64_t in_stride_l = in_strides[perm[l]];

  absl::InlinedVector<int64_t, 8> other_sizes;
  absl::InlinedVector<int64_t, 8> other_in;
  absl::InlinedVector<int64_t, 8> other_out;
  for (int d = 0; d < rank; ++d) {
    if (d == j || d == l) continue;
    other_sizes.push_back(out_dims[d]);
    other_in.push_back(in_strides[perm[d]]);
    other_out.push_back(out_strides[d]);
  }
  const int num_other = static_cast<int>(other_sizes.size());

  constexpr int64_t kTile = TileSize<E>();
  const int64_t tiles_j = (nj + kTile - 1) / kTile;
  int64_t units = tiles_j;
  for (int64_t s : other_sizes) units *= s;

  auto work = [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t tj = u % tiles_j;
      int64_t rem = u / tiles_j;
      int64_t in_off = 0;
      int64_t out_off = 0;
      for (int d = num_other - 1; d >= 0; --d) {
        const int64_t i = rem % other_sizes[d];
        rem /= other_sizes[d];
        in_off += i * other_in[d];
        out_off += i * other_out[d];
      }
      const int64_t j0 = tj * kTile;
      const int64_t jn = std::min(kTile, nj - j0);
      const E* in_tile = in + in_off + j0;  // input stride of dim j is 1
      E* out_tile = out + out_off + j0 * out_stride_j;
      for (int64_t l0 = 0; l0 < nl; l0 += kTile) {
        const int64_t ln = std::min(kTile, nl - l0);
        for (int64_t jj = 0; jj < jn; ++jj) {
          E* o = out_tile + jj * out_stride_j + l0;
          const E* i = in_tile + jj + l0 * in_stride_l;
          for (int64_t ll = 0; ll < ln; ++ll) o[ll] = i[ll * in_stride_l];
        }
      }
    }
  };
  const int64_t cost = kTile * nl * 2;
  if (workers == nullptr) {
    work(0, units);
  } else {
    Shard(workers->num_threads, workers->workers, units, cost, work);
  }
}

}  // namespace

Status DoTranspose(const DeviceBase::CpuWorkerThreads* workers,
                   const Tensor& in, absl::Span<const int32_t> perm,
                   Tensor* out) {
  const int rank = in.dims();
  if (static_cast<int>(perm.size()) != rank || out->dims() != rank ||
      out->dtype() != in.dtype()) {
    return errors::InvalidArgument("DoTranspose: perm of size ", perm.size(),
                                   " for ", in.shape().DebugString(), " -> ",
                                   out->shape().DebugString());
  }
  absl::InlinedVector<bool, 8> seen(rank, false);
  for (int d = 0; d < rank; ++d) {
    if (perm[d] < 0 || perm[d] >= rank || seen[perm[d]] ||
        out->dim_size(d) != in.dim_size(perm[d])) {
      return errors::InvalidArgument(
          "DoTranspose: invalid perm {", absl::StrJoin(perm, ","), "} for ",
          in.shape().DebugString(), " -> ", out->shape().DebugString());
    }
    seen[perm[d]] = true;
  }
  if (!IsMovableDataType(in.dtype())) {
    return errors::Unimplemented("Transpose of ", DataTypeString(in.dtype()),
                                 " is not supported");
  }
  if (in.NumElements() == 0) return OkStatus();

  absl::InlinedVector<int64_t, 8> dims;
  absl::InlinedVector<int32_t, 8> new_perm;
  internal::ReduceTransposeDimensions(in.shape().dim_sizes(), perm, &dims,
                                      &new_perm);
  const int r = static_cast<int>(dims.size());
  if (r == 0 || new_perm.back() == r - 1) {
    // Rows along the innermost dim stay contiguous: a strided gather of
    // whole rows (or, for an identity, one contiguous copy).
    absl::InlinedVector<int64_t, 8> sizes(r);
    absl::InlinedVector<int64_t, 8> strides(r);
    const auto in_strides = DenseStrides(dims);
    for (int d = 0; d < r; ++d) {
      sizes[d] = dims[new_perm[d]];
      strides[d] = in_strides[new_perm[d]];
    }
    CopyStridedBox(workers, in.dtype(), in.data(), sizes, strides, out->data());
    return OkStatus();
  }
  VisitElementSize(in.dtype(), [&](auto tag) {
    using E = typename decltype(tag)::type;
    TransposeTiled<E>(workers, static_cast<const E*>(in.data()), dims, new_perm,
                      static_cast<E*>(out->data()));
  });
  return OkStatus();
}

namespace {

template <typename Tperm>
Status PermutationHelper(const Tensor& perm, int dims,
                         std::vector<int32_t>* permutation) {
  if (perm.NumElements() != dims) {
    return errors::InvalidArgument("transpose expects a vector of size ", dims,
                                   ". But input(1) is a vector of size ",
                                   perm.NumElements());
  }
  const Tperm* p = perm.base<const Tperm>();
  permutation->resize(dims);
  for (int i = 0; i < dims; ++i) {
    // Values outside int32 are out of range anyway; clamp so the range
    // check below reports them without a narrowing surprise.
    const Tperm v = p[i];
    (*permutation)[i] = v < 0 ? -1
                              : static_cast<int32_t>(std::min<int64_t>(
                                    static_cast<int64_t>(v),
                                    std::numeric_limits<int32_t>::max()));
  }
  return OkStatus();
}

}  // namespace

namespace internal {

Status StartTranspose(OpKernelContext* ctx, std::vector<int32_t>* permutation,
                      Tensor** output) {
  *output = nullptr;
  const Tensor& input = ctx->input(0);
  const Tensor& perm = ctx->input(1);
  if (!TensorShapeUtils::IsVector(perm.shape())) {
    return errors::InvalidArgument("perm must be rank 1, got shape ",
                                   perm.shape().DebugString());
  }
  const int dims = input.dims();
  if (perm.dtype() == DT_INT32) {
    MF_RETURN_IF_ERROR(PermutationHelper<int32_t>(perm, dims, permutation));
  } else {
    MF_RETURN_IF_ERROR(PermutationHelper<int64_t>(perm, dims, permutation));
  }
  // TF's messages: a value out of range, then a value missing.
  absl::InlinedVector<bool, 8> bits(dims, false);
  absl::InlinedVector<int64_t, 8> out_dims(dims);
  bool is_identity = true;
  for (int i = 0; i < dims; ++i) {
    const int32_t d = (*permutation)[i];
    if (d < 0 || d >= dims) {
      return errors::InvalidArgument(
          perm.dtype() == DT_INT32
              ? static_cast<int64_t>(perm.base<const int32_t>()[i])
              : perm.base<const int64_t>()[i],
          " is out of range [0 .. ", dims, ")");
    }
    bits[d] = true;
    out_dims[i] = input.dim_size(d);
    is_identity &= d == i;
  }
  for (int i = 0; i < dims; ++i) {
    if (!bits[i]) {
      return errors::InvalidArgument(i, " is missing from {",
                                     absl::StrJoin(*permutation, ","), "}.");
    }
  }
  TensorShape shape;
  MF_RETURN_IF_ERROR(TensorShape::BuildTensorShape(out_dims, &shape));
  if (dims <= 1 || is_identity) {
    ctx->set_output(0, input);
    return OkStatus();
  }
  if (NonSingletonDimensionsAlign(input.shape().dim_sizes(), *permutation)) {
    Tensor shared;
    if (!shared.CopyFrom(input, shape)) {
      return errors::Internal("Transpose: reshape to ", shape.DebugString(),
                              " failed");
    }
    ctx->set_output(0, std::move(shared));
    return OkStatus();
  }
  return ctx->allocate_output(0, shape, output);
}

}  // namespace internal

namespace {

// Transpose (T: any type; Tperm: int32 or int64). The output shares the
// input's buffer when the transpose only moves size-1 dimensions.
class TransposeOp : public OpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    std::vector<int32_t> permutation;
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, internal::StartTranspose(ctx, &permutation, &output));
    if (output == nullptr || output->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx,
                   DoTranspose(ctx->device()->tensorflow_cpu_worker_threads(),
                               ctx->input(0), permutation, output));
  }
};

#define REGISTER_CPU(T)                               \
  REGISTER_KERNEL_BUILDER(Name("Transpose")           \
                              .Device(DEVICE_CPU)     \
                              .TypeConstraint<T>("T") \
                              .HostMemory("perm"),    \
                          TransposeOp);
TF_CALL_ALL_TYPES(REGISTER_CPU)
TF_CALL_QUANTIZED_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
