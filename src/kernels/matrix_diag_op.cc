// MatrixDiagV3 (build matrices from diagonals k[0]..k[1], padded) and
// MatrixSetDiagV3 (overwrite those diagonals of input matrices). Diagonals
// are stored from the highest (k[1]) down, each as long as the longest one;
// `align` says on which side a shorter super- and sub-diagonal sits (TF's
// "SUPER_SUB" naming, e.g. RIGHT_LEFT). Written over element bytes, so
// every POD type shares one instantiation per element size.
#include <algorithm>
#include <cstdint>
#include <string>

#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

// How the diagonals of one call are laid out.
struct DiagLayout {
  int64_t lower = 0;
  int64_t upper = 0;
  int64_t rows = 0;  // of each matrix
  int64_t cols = 0;
  int64_t max_diag_len = 0;
  bool left_align_super = false;
  bool left_align_sub = true;

  int64_t num_diags() const { return upper - lower + 1; }
  // The length of diagonal d and where its first element sits in its row of
  // the packed diagonals.
  int64_t DiagLen(int64_t d) const {
    return std::min(rows + std::min<int64_t>(0, d),
                    cols - std::max<int64_t>(0, d));
  }
  int64_t ContentOffset(int64_t d) const {
    const bool left =
        (d >= 0 && left_align_super) || (d <= 0 && left_align_sub);
    return left ? 0 : max_diag_len - DiagLen(d);
  }
};

Status ReadAlign(OpKernelConstruction* ctx, DiagLayout* layout) {
  std::string align;
  MF_RETURN_IF_ERROR(ctx->GetAttr("align", &align));
  layout->left_align_super = align == "LEFT_LEFT" || align == "LEFT_RIGHT";
  layout->left_align_sub = align == "LEFT_LEFT" || align == "RIGHT_LEFT";
  return OkStatus();
}

// k: a scalar or a vector of one or two int32s, lower <= upper.
Status ReadK(const Tensor& k, DiagLayout* layout) {
  if (!TensorShapeUtils::IsScalar(k.shape()) &&
      !TensorShapeUtils::IsVector(k.shape())) {
    return errors::InvalidArgument(
        "diag_index must be a scalar or vector, received shape: ",
        k.shape().DebugString());
  }
  if (k.NumElements() < 1 || k.NumElements() > 2) {
    return errors::InvalidArgument(
        "diag_index must have only one or two elements, received ",
        k.NumElements(), " elements.");
  }
  layout->lower = k.flat<int32_t>()(0);
  layout->upper = k.NumElements() > 1 ? k.flat<int32_t>()(1) : layout->lower;
  if (layout->lower > layout->upper) {
    return errors::InvalidArgument(
        "lower_diag_index must not be larger than upper_diag_index: ",
        layout->lower, " > ", layout->upper);
  }
  return OkStatus();
}

Status CheckScalar(const Tensor& t, const char* name) {
  if (!TensorShapeUtils::IsScalar(t.shape())) {
    return errors::InvalidArgument(name, " must be a scalar, but got shape ",
                                   t.shape().DebugString());
  }
  return OkStatus();
}

// out[b] = the matrix whose diagonals lower..upper come from diag[b] and
// whose other elements are `pad`.
template <typename E>
void FillMatrices(const CpuWorkerThreads* workers, const DiagLayout& l,
                  int64_t batch, const E* diag, E pad, E* out) {
  const int64_t diag_batch = l.num_diags() * l.max_diag_len;
  auto work = [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      E* o = out + b * l.rows * l.cols;
      const E* in = diag + b * diag_batch;
      for (int64_t i = 0; i < l.rows; ++i) {
        for (int64_t j = 0; j < l.cols; ++j) {
          const int64_t d = j - i;
          if (d < l.lower || d > l.upper) {
            o[i * l.cols + j] = pad;
            continue;
          }
          const int64_t pos = j - std::max<int64_t>(d, 0) + l.ContentOffset(d);
          o[i * l.cols + j] = in[(l.upper - d) * l.max_diag_len + pos];
        }
      }
    }
  };
  Shard(workers->num_threads, workers->workers, batch,
        MoveCost(l.rows * l.cols * static_cast<int64_t>(sizeof(E))) * 4 + 16,
        work);
}

// out[b] (a copy of the input) gets diagonals lower..upper from diag[b].
template <typename E>
void SetDiagonals(const CpuWorkerThreads* workers, const DiagLayout& l,
                  int64_t batch, const E* diag, E* out) {
  const int64_t diag_batch = l.num_diags() * l.max_diag_len;
  auto work = [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      E* o = out + b * l.rows * l.cols;
      for (int64_t d = l.lower; d <= l.upper; ++d) {
        const E* in = diag + b * diag_batch + (l.upper - d) * l.max_diag_len +
                      l.ContentOffset(d);
        const int64_t y = std::max<int64_t>(0, -d);
        const int64_t x = std::max<int64_t>(0, d);
        const int64_t len = l.DiagLen(d);
        for (int64_t n = 0; n < len; ++n) {
          o[(n + y) * l.cols + n + x] = in[n];
        }
      }
    }
  };
  Shard(workers->num_threads, workers->workers, batch,
        MoveCost(diag_batch * static_cast<int64_t>(sizeof(E))) * 4 + 16, work);
}

class MatrixDiagOp : public OpKernel {
 public:
  explicit MatrixDiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadAlign(ctx, &align_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& diagonal = ctx->input(0);
    DiagLayout l = align_;
    OP_REQUIRES_OK(ctx, ReadK(ctx->input(1), &l));
    OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(2), "num_rows"));
    OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(3), "num_cols"));
    OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(4), "padding_value"));
    int64_t num_rows = ctx->input(2).scalar<int32_t>()();
    int64_t num_cols = ctx->input(3).scalar<int32_t>()();
    const TensorShape& shape = diagonal.shape();
    const int rank = shape.dims();
    OP_REQUIRES(ctx, TensorShapeUtils::IsVectorOrHigher(shape),
                errors::InvalidArgument(
                    "diagonal must be at least 1-dim, received shape: ",
                    shape.DebugString()));
    OP_REQUIRES(ctx,
                l.lower == l.upper ||
                    (rank >= 2 && shape.dim_size(rank - 2) == l.num_diags()),
                errors::InvalidArgument(
                    "The number of diagonals provided in the input does not "
                    "match the lower_diag_index and upper_diag_index range."));
    l.max_diag_len = shape.dim_size(rank - 1);
    const int64_t min_num_rows = l.max_diag_len - std::min<int64_t>(l.upper, 0);
    const int64_t min_num_cols = l.max_diag_len + std::max<int64_t>(l.lower, 0);
    OP_REQUIRES(ctx, num_rows == -1 || num_rows >= min_num_rows,
                errors::InvalidArgument("The number of rows is too small."));
    OP_REQUIRES(ctx, num_cols == -1 || num_cols >= min_num_cols,
                errors::InvalidArgument("The number of columns is too small."));
    if (num_rows == -1 && num_cols == -1) {
      num_rows = std::max(min_num_rows, min_num_cols);
      num_cols = num_rows;
    } else if (num_rows == -1) {
      num_rows = min_num_rows;
    } else if (num_cols == -1) {
      num_cols = min_num_cols;
    }
    OP_REQUIRES(ctx, num_rows == min_num_rows || num_cols == min_num_cols,
                errors::InvalidArgument(
                    "The number of rows or columns is not consistent with "
                    "the specified d_lower, d_upper, and diagonal."));
    // With these sizes no diagonal in range is longer than max_diag_len,
    // so every read stays inside `diagonal`.
    l.rows = num_rows;
    l.cols = num_cols;
    TensorShape out_shape = shape;
    if (l.num_diags() == 1) {
      out_shape.set_dim(rank - 1, num_rows);
      OP_REQUIRES_OK(ctx, out_shape.AddDimWithStatus(num_cols));
    } else {
      out_shape.set_dim(rank - 2, num_rows);
      out_shape.set_dim(rank - 1, num_cols);
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    const int64_t batch = out_shape.num_elements() / (num_rows * num_cols);
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    const bool ok = VisitElementSize(diagonal.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      FillMatrices<E>(workers, l, batch, diagonal.base<const E>(),
                      *ctx->input(4).base<const E>(), out->base<E>());
    });
    OP_REQUIRES(ctx, ok,
                errors::Unimplemented("MatrixDiagV3 of ",
                                      DataTypeString(diagonal.dtype()),
                                      " is not supported"));
  }

 private:
  DiagLayout align_;
};

class MatrixSetDiagOp : public OpKernel {
 public:
  explicit MatrixSetDiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadAlign(ctx, &align_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& diag = ctx->input(1);
    DiagLayout l = align_;
    OP_REQUIRES_OK(ctx, ReadK(ctx->input(2), &l));
    const TensorShape& input_shape = input.shape();
    const TensorShape& diag_shape = diag.shape();
    OP_REQUIRES(ctx, TensorShapeUtils::IsMatrixOrHigher(input_shape),
                errors::InvalidArgument(
                    "input must be at least 2-dim, received shape: ",
                    input_shape.DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsVectorOrHigher(diag_shape),
                errors::InvalidArgument(
                    "diagonal must be at least 1-dim, received shape: ",
                    diag_shape.DebugString()));
    const int rank = input_shape.dims();
    l.rows = input_shape.dim_size(rank - 2);
    l.cols = input_shape.dim_size(rank - 1);
    OP_REQUIRES(ctx, (-l.rows < l.lower && l.lower < l.cols) || l.lower == 0,
                errors::InvalidArgument(
                    "lower_diag_index is out of bound: ", l.lower,
                    " It must be between ", -l.rows, " and ", l.cols));
    OP_REQUIRES(ctx, (-l.rows < l.upper && l.upper < l.cols) || l.upper == 0,
                errors::InvalidArgument(
                    "upper_diag_index is out of bound: ", l.upper,
                    " It must be between ", -l.rows, " and ", l.cols));
    OP_REQUIRES(
        ctx,
        l.lower == l.upper || (diag_shape.dims() == rank &&
                               diag_shape.dim_size(rank - 2) == l.num_diags()),
        errors::InvalidArgument(
            "The number of diagonals provided in `diag` is not consistent "
            "with `lower_diag_index` and `upper_diag_index`"));
    l.max_diag_len = std::min(l.rows + std::min<int64_t>(l.upper, 0),
                              l.cols - std::max<int64_t>(l.lower, 0));
    TensorShape expected = input_shape;
    expected.RemoveDim(rank - 1);
    expected.RemoveDim(rank - 2);
    if (l.num_diags() > 1) expected.AddDim(l.num_diags());
    expected.AddDim(std::max<int64_t>(l.max_diag_len, 0));
    OP_REQUIRES(
        ctx, expected == diag_shape,
        errors::InvalidArgument(
            "Either first dimensions of diagonal don't match input.shape[:-2], "
            "or diagonal.shape[:-1] is not equal to the longests diagonal in "
            "range [lower_diag_index:upper_diag_index].\nInput shape: ",
            input_shape.DebugString(),
            "\nDiagonal shape: ", diag_shape.DebugString(),
            "\nExpected diagonal shape: ", expected.DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, input_shape, &out));
    if (input.NumElements() == 0) return;
    const int64_t batch = input.NumElements() / (l.rows * l.cols);
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    const bool ok = VisitElementSize(input.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      if (!out->SharesBufferWith(input)) {
        CopyElements(out->base<E>(), input.base<const E>(),
                     input.NumElements());
      }
      SetDiagonals<E>(workers, l, batch, diag.base<const E>(), out->base<E>());
    });
    OP_REQUIRES(ctx, ok,
                errors::Unimplemented("MatrixSetDiagV3 of ",
                                      DataTypeString(input.dtype()),
                                      " is not supported"));
  }

 private:
  DiagLayout align_;
};

#define REGISTER_CPU(T)                                     \
  REGISTER_KERNEL_BUILDER(Name("MatrixDiagV3")              \
                              .Device(DEVICE_CPU)           \
                              .TypeConstraint<T>("T")       \
                              .HostMemory("k")              \
                              .HostMemory("num_rows")       \
                              .HostMemory("num_cols")       \
                              .HostMemory("padding_value"), \
                          MatrixDiagOp);                    \
  REGISTER_KERNEL_BUILDER(Name("MatrixSetDiagV3")           \
                              .Device(DEVICE_CPU)           \
                              .TypeConstraint<T>("T")       \
                              .HostMemory("k"),             \
                          MatrixSetDiagOp);
TF_CALL_POD_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
