// ExtractImagePatches(images; ksizes, strides, rates, padding): every
// ksize_rows x ksize_cols window (taps `rates` apart) of an NHWC image,
// flattened into the depth dim: patches[b, r, c, (i*ksize_cols + j)*depth
// + d] = images[b, r*stride_rows + i*rate_rows - pad_top, ..., d], zero
// outside the image (SAME padding).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/padding.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_ops_common.h"
#include "src/kernels/data_movement.h"

namespace minflow {
namespace {

struct PatchGeometry {
  int64_t batch, in_rows, in_cols, depth;
  int64_t ksize_rows, ksize_cols, stride_rows, stride_cols;
  int64_t rate_rows, rate_cols;
  int64_t out_rows, out_cols, pad_top, pad_left;
};

template <typename E>
void ExtractPatches(const DeviceBase::CpuWorkerThreads* workers, const E* in,
                    const PatchGeometry& g, E* out) {
  const int64_t patch = g.ksize_rows * g.ksize_cols * g.depth;
  E zero;
  std::memset(&zero, 0, sizeof(E));
  auto work = [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const int64_t c = p % g.out_cols;
      const int64_t r = (p / g.out_cols) % g.out_rows;
      const int64_t b = p / (g.out_cols * g.out_rows);
      E* o = out + p * patch;
      for (int64_t i = 0; i < g.ksize_rows; ++i) {
        const int64_t y = r * g.stride_rows + i * g.rate_rows - g.pad_top;
        for (int64_t j = 0; j < g.ksize_cols; ++j, o += g.depth) {
          const int64_t x = c * g.stride_cols + j * g.rate_cols - g.pad_left;
          if (y < 0 || y >= g.in_rows || x < 0 || x >= g.in_cols) {
            std::fill(o, o + g.depth, zero);
          } else {
            CopyElements(o,
                         in + ((b * g.in_rows + y) * g.in_cols + x) * g.depth,
                         g.depth);
          }
        }
      }
    }
  };
  Shard(workers->num_threads, workers->workers,
        g.batch * g.out_rows * g.out_cols,
        MoveCost(patch * static_cast<int64_t>(sizeof(E))) +
            g.ksize_rows * g.ksize_cols,
        work);
}

// TF's ParseAttributeVec4: 4 values, 1 on batch and depth, >= 1 on space.
void ParseAttributeVec4(OpKernelConstruction* ctx, const std::string& name,
                        std::vector<int32_t>* attr) {
  OP_REQUIRES_OK(ctx, ctx->GetAttr(name, attr));
  OP_REQUIRES(ctx, attr->size() == 4,
              errors::InvalidArgument(name, " must have 4 elements, but got ",
                                      attr->size()));
  OP_REQUIRES(ctx, (*attr)[0] == 1 && (*attr)[3] == 1,
              errors::Unimplemented("Only support ", name, " across space."));
  OP_REQUIRES(ctx, (*attr)[1] >= 1 && (*attr)[2] >= 1,
              errors::InvalidArgument(name, " is out of range."));
}

class ExtractImagePatchesOp : public OpKernel {
 public:
  explicit ExtractImagePatchesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ParseAttributeVec4(ctx, "ksizes", &ksizes_);
    if (!ctx->status().ok()) return;
    ParseAttributeVec4(ctx, "strides", &strides_);
    if (!ctx->status().ok()) return;
    ParseAttributeVec4(ctx, "rates", &rates_);
    if (!ctx->status().ok()) return;
    std::string padding;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    OP_REQUIRES_OK(ctx, GetPaddingFromString(padding, &padding_));
    OP_REQUIRES(ctx, padding_ != EXPLICIT,
                errors::InvalidArgument(
                    "ExtractImagePatches takes SAME or VALID padding"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() == 4,
                errors::InvalidArgument("input must be 4-dimensional",
                                        input.shape().DebugString()));
    PatchGeometry g;
    g.batch = input.dim_size(0);
    g.in_rows = input.dim_size(1);
    g.in_cols = input.dim_size(2);
    g.depth = input.dim_size(3);
    // GetWindowedOutputSizeVerbose needs its arguments below 2^31 (TF
    // holds these sizes in int).
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    OP_REQUIRES(ctx, g.in_rows <= kMax && g.in_cols <= kMax,
                errors::InvalidArgument(
                    "ExtractImagePatches: image rows and cols must be at most ",
                    kMax, ", but got shape ", input.shape().DebugString()));
    g.ksize_rows = ksizes_[1];
    g.ksize_cols = ksizes_[2];
    g.stride_rows = strides_[1];
    g.stride_cols = strides_[2];
    g.rate_rows = rates_[1];
    g.rate_cols = rates_[2];
    int64_t unused_after = 0;
    OP_REQUIRES_OK(ctx, GetWindowedOutputSizeVerbose(
                            g.in_rows, g.ksize_rows, g.rate_rows, g.stride_rows,
                            padding_, &g.out_rows, &g.pad_top, &unused_after));
    OP_REQUIRES_OK(ctx, GetWindowedOutputSizeVerbose(
                            g.in_cols, g.ksize_cols, g.rate_cols, g.stride_cols,
                            padding_, &g.out_cols, &g.pad_left, &unused_after));
    // ksize_rows * ksize_cols < 2^62; times depth is checked.
    const int64_t window = g.ksize_rows * g.ksize_cols;
    OP_REQUIRES(
        ctx,
        g.depth == 0 || window <= std::numeric_limits<int64_t>::max() / g.depth,
        errors::InvalidArgument("ExtractImagePatches: patch size ", window,
                                " * ", g.depth, " overflows int64"));
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(
                            {g.batch, g.out_rows, g.out_cols, window * g.depth},
                            &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    VisitElementSize(input.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      if constexpr (std::is_trivially_copyable<E>::value) {
        ExtractPatches<E>(workers, input.base<const E>(), g, output->base<E>());
      }
    });
  }

 private:
  std::vector<int32_t> ksizes_;
  std::vector<int32_t> strides_;
  std::vector<int32_t> rates_;
  Padding padding_ = VALID;
};

#define REGISTER_CPU(T)                                                      \
  REGISTER_KERNEL_BUILDER(                                                   \
      Name("ExtractImagePatches").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ExtractImagePatchesOp);
TF_CALL_REAL_NUMBER_TYPES(REGISTER_CPU)
TF_CALL_COMPLEX_TYPES(REGISTER_CPU)
TF_CALL_bool(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
