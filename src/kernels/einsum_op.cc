// Einsum for one or two operands, as TensorFlow's: each operand is first
// brought to the labels it keeps (a transpose that also takes repeated
// labels' diagonals and sums labels no one else needs); two operands then
// meet in one broadcasting BatchMatMul, [batch.., free0, contract] x
// [batch.., contract, free1], whose result is transposed to the output.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "minflow/framework/einsum_spec.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/batch_matmul_op.h"

namespace minflow {
namespace {

// out[keep...] = sum of in over every label not in `keep`, reading each
// repeated input label on its diagonal. `in_labels` names in's axes;
// `keep` (distinct, all in `in_labels`) names out's axes, whose sizes are
// the input's. `out` holds the product of those sizes.
template <typename T>
void ContractOperand(const Tensor& in, const std::vector<int>& in_labels,
                     const std::vector<int>& keep, T* out, int64_t out_size) {
  std::fill_n(out, out_size, T(0));
  if (in.NumElements() == 0) return;
  // The distinct labels of `in`, with their size and summed strides.
  std::vector<int> labels;
  std::vector<int64_t> sizes, in_strides;
  int64_t stride = 1;
  std::vector<int64_t> axis_stride(in.dims());
  for (int a = in.dims() - 1; a >= 0; --a) {
    axis_stride[a] = stride;
    stride *= in.dim_size(a);
  }
  for (int a = 0; a < in.dims(); ++a) {
    const auto it = std::find(labels.begin(), labels.end(), in_labels[a]);
    if (it == labels.end()) {
      labels.push_back(in_labels[a]);
      sizes.push_back(in.dim_size(a));
      in_strides.push_back(axis_stride[a]);
    } else {
      in_strides[it - labels.begin()] += axis_stride[a];
    }
  }
  const int n = static_cast<int>(labels.size());
  std::vector<int64_t> out_strides(n, 0);
  int64_t out_stride = 1;
  for (int k = static_cast<int>(keep.size()) - 1; k >= 0; --k) {
    const int u = static_cast<int>(
        std::find(labels.begin(), labels.end(), keep[k]) - labels.begin());
    out_strides[u] = out_stride;
    out_stride *= sizes[u];
  }
  const T* data = in.base<const T>();
  std::vector<int64_t> counter(n, 0);
  int64_t in_off = 0, out_off = 0;
  while (true) {
    out[out_off] += data[in_off];
    int u = n - 1;
    for (; u >= 0; --u) {
      if (++counter[u] < sizes[u]) {
        in_off += in_strides[u];
        out_off += out_strides[u];
        break;
      }
      in_off -= in_strides[u] * (sizes[u] - 1);
      out_off -= out_strides[u] * (sizes[u] - 1);
      counter[u] = 0;
    }
    if (u < 0) break;
  }
}

template <typename T>
class EinsumOp : public OpKernel {
 public:
  explicit EinsumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("equation", &equation_));
    OP_REQUIRES_OK(ctx,
                   ParseEinsumEquation(equation_, ctx->num_inputs(), &parsed_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int num_inputs = ctx->num_inputs();
    std::vector<int> ranks;
    for (int i = 0; i < num_inputs; ++i) ranks.push_back(ctx->input(i).dims());
    EinsumLabels labels;
    OP_REQUIRES_OK(ctx, ResolveEinsumLabels(parsed_, ranks, &labels));

    // Each label's size: named labels agree everywhere, ellipsis dims
    // broadcast. -1: not seen yet.
    std::vector<int64_t> size(labels.num_labels, -1);
    for (int i = 0; i < num_inputs; ++i) {
      const Tensor& in = ctx->input(i);
      for (int a = 0; a < in.dims(); ++a) {
        const int l = labels.inputs[i][a];
        const int64_t d = in.dim_size(a);
        if (size[l] == -1 || size[l] == d) {
          size[l] = d;
          continue;
        }
        const bool broadcast =
            l >= EinsumLabels::kFirstEllipsisLabel && (size[l] == 1 || d == 1);
        OP_REQUIRES(ctx, broadcast,
                    errors::InvalidArgument(
                        "Expected dimension ", size[l], " at axis ", a,
                        " of the input shaped ", in.shape().DebugString(),
                        " but got dimension ", d));
        if (size[l] == 1) size[l] = d;
      }
    }
    absl::InlinedVector<int64_t, 8> out_dims;
    for (int l : labels.output) out_dims.push_back(size[l]);
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &out_shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (num_inputs == 1) {
      ContractOperand<T>(ctx->input(0), labels.inputs[0], labels.output,
                         out->base<T>(), out->NumElements());
      return;
    }
    ComputeBinary(ctx, labels, size, out);
  }

 private:
  void ComputeBinary(OpKernelContext* ctx, const EinsumLabels& labels,
                     const std::vector<int64_t>& size, Tensor* out) {
    const Tensor& in0 = ctx->input(0);
    const Tensor& in1 = ctx->input(1);
    auto has = [](const std::vector<int>& v, int l) {
      return std::find(v.begin(), v.end(), l) != v.end();
    };
    auto own_size = [](const Tensor& t, const std::vector<int>& v, int l) {
      return t.dim_size(
          static_cast<int>(std::find(v.begin(), v.end(), l) - v.begin()));
    };
    // Label classes, each in order of first appearance.
    std::vector<int> batch, free0, free1, contract;
    std::vector<bool> done(labels.num_labels, false);
    for (int i = 0; i < 2; ++i) {
      for (int l : labels.inputs[i]) {
        if (done[l]) continue;
        done[l] = true;
        const bool in_0 = has(labels.inputs[0], l);
        const bool in_1 = has(labels.inputs[1], l);
        const bool in_out = has(labels.output, l);
        if (in_0 && in_1) {
          if (in_out) {
            batch.push_back(l);
          } else if (own_size(in0, labels.inputs[0], l) ==
                     own_size(in1, labels.inputs[1], l)) {
            contract.push_back(l);
          }
          // Else a broadcast ellipsis dim summed away: sum(a * b) over it,
          // one side of size 1, is each side summed on its own.
        } else if (in_out) {
          (in_0 ? free0 : free1).push_back(l);
        }
        // Else a label of one operand only, summed inside it.
      }
    }
    auto concat = [](std::initializer_list<const std::vector<int>*> parts) {
      std::vector<int> r;
      for (const auto* p : parts) r.insert(r.end(), p->begin(), p->end());
      return r;
    };
    auto product = [&](const Tensor& t, const std::vector<int>& v,
                       const std::vector<int>& ls) {
      int64_t p = 1;
      for (int l : ls) p *= own_size(t, v, l);
      return p;
    };
    // Operand shapes: [batch dims (own sizes)..., rows, cols].
    auto prepare = [&](const Tensor& in, const std::vector<int>& in_labels,
                       const std::vector<int>& rows,
                       const std::vector<int>& cols, Tensor* t) -> Status {
      absl::InlinedVector<int64_t, 8> dims;
      for (int l : batch) dims.push_back(own_size(in, in_labels, l));
      dims.push_back(product(in, in_labels, rows));
      dims.push_back(product(in, in_labels, cols));
      TensorShape shape;
      MF_RETURN_IF_ERROR(TensorShape::BuildTensorShape(dims, &shape));
      MF_RETURN_IF_ERROR(ctx->allocate_temp(DataTypeToEnum<T>::v(), shape, t));
      ContractOperand<T>(in, in_labels, concat({&batch, &rows, &cols}),
                         t->base<T>(), t->NumElements());
      return OkStatus();
    };
    Tensor x, y;
    OP_REQUIRES_OK(ctx, prepare(in0, labels.inputs[0], free0, contract, &x));
    OP_REQUIRES_OK(ctx, prepare(in1, labels.inputs[1], contract, free1, &y));
    const internal::MatMulBCast bcast(x.shape().dim_sizes(),
                                      y.shape().dim_sizes());
    MF_CHECK(bcast.IsValid()) << "einsum batch dims were checked";

    // The product's labels are [batch, free0, free1] at the full sizes;
    // when that is the output's order the product is written in place.
    const std::vector<int> product_labels = concat({&batch, &free0, &free1});
    absl::InlinedVector<int64_t, 8> mm_dims = bcast.output_batch_shape();
    mm_dims.push_back(x.dim_size(x.dims() - 2));
    mm_dims.push_back(y.dim_size(y.dims() - 1));
    TensorShape mm_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(mm_dims, &mm_shape));
    Tensor mm;
    if (product_labels == labels.output) {
      MF_CHECK(mm.CopyFrom(*out, mm_shape)) << "einsum output reshape";
      LaunchBatchMatMul<T>(ctx, x, y, false, false, bcast, &mm);
      return;
    }
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_temp(DataTypeToEnum<T>::v(), mm_shape, &mm));
    LaunchBatchMatMul<T>(ctx, x, y, false, false, bcast, &mm);
    absl::InlinedVector<int64_t, 8> pdims;
    for (int l : product_labels) pdims.push_back(size[l]);
    TensorShape p_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(pdims, &p_shape));
    Tensor view;
    MF_CHECK(view.CopyFrom(mm, p_shape)) << "einsum product reshape";
    ContractOperand<T>(view, product_labels, labels.output, out->base<T>(),
                       out->NumElements());
  }

  std::string equation_;
  EinsumEquation parsed_;
};

// TensorFlow's CPU list less complex (minflow's matmul is real-only).
#define REGISTER_CPU(T)    \
  REGISTER_KERNEL_BUILDER( \
      Name("Einsum").Device(DEVICE_CPU).TypeConstraint<T>("T"), EinsumOp<T>);
MF_CALL_CORE_FLOAT_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
