// MaxPool3D and AvgPool3D (NDHWC, CPU): a direct loop over each output
// voxel's window, channels innermost (contiguous), sharded over voxels.
// As TensorFlow, padding never wins a max and never counts in an average.
#define EIGEN_USE_THREADS

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_ops_common.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

constexpr int64_t kMaxWindowArg = std::numeric_limits<int32_t>::max();

enum class PoolKind { kMax, kAvg };

// The geometry of one NDHWC pool; spatial arrays in D, H, W order.
struct Pool3DDimensions {
  int64_t batch = 0;
  int64_t depth = 0;
  std::array<int64_t, 3> input{};
  std::array<int64_t, 3> window{};
  std::array<int64_t, 3> stride{};
  std::array<int64_t, 3> output{};
  std::array<int64_t, 3> pad_before{};
};

template <typename T, PoolKind kKind>
void Pool3DRange(const Pool3DDimensions& d, const T* input, int64_t p0,
                 int64_t p1, T* output) {
  const int64_t c = d.depth;
  std::vector<float> acc(c);
  for (int64_t p = p0; p < p1; ++p) {
    int64_t rest = p;
    int64_t o[3];
    for (int i = 2; i >= 0; --i) {
      o[i] = rest % d.output[i];
      rest /= d.output[i];
    }
    const int64_t n = rest;
    int64_t lo[3], hi[3];
    for (int i = 0; i < 3; ++i) {
      const int64_t start = o[i] * d.stride[i] - d.pad_before[i];
      lo[i] = std::max<int64_t>(start, 0);
      hi[i] = std::min(start + d.window[i], d.input[i]);
    }
    std::fill(acc.begin(), acc.end(),
              kKind == PoolKind::kMax ? -std::numeric_limits<float>::infinity()
                                      : 0.0f);
    for (int64_t z = lo[0]; z < hi[0]; ++z) {
      for (int64_t y = lo[1]; y < hi[1]; ++y) {
        for (int64_t x = lo[2]; x < hi[2]; ++x) {
          const T* src =
              input +
              (((n * d.input[0] + z) * d.input[1] + y) * d.input[2] + x) * c;
          for (int64_t q = 0; q < c; ++q) {
            const float v = static_cast<float>(src[q]);
            if (kKind == PoolKind::kMax) {
              // NaN propagates, as Eigen's max reducer keeps it.
              if (v > acc[q] || v != v) acc[q] = v;
            } else {
              acc[q] += v;
            }
          }
        }
      }
    }
    // A window always holds at least one input voxel: VALID windows lie
    // inside the input and SAME pads less than a window on each side.
    const float count =
        static_cast<float>((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
    T* dst = output + p * c;
    for (int64_t q = 0; q < c; ++q) {
      dst[q] =
          static_cast<T>(kKind == PoolKind::kMax ? acc[q] : acc[q] / count);
    }
  }
}

template <typename Device, typename T, PoolKind kKind>
class Pooling3DOp : public OpKernel {
 public:
  explicit Pooling3DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string data_format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &data_format));
    int spatial_dims = 0;
    OP_REQUIRES_OK(ctx, GetTensorFormatAndSpatialDimsFromString(
                            data_format, &format_, &spatial_dims));
    OP_REQUIRES(ctx, spatial_dims == 3,
                errors::InvalidArgument("Invalid data format"));
    OP_REQUIRES(ctx, format_ == FORMAT_NHWC,
                errors::InvalidArgument("Default Pooling3DOp only supports "
                                        "NDHWC on device type CPU"));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ksize", &ksize_));
    OP_REQUIRES(ctx, ksize_.size() == 5,
                errors::InvalidArgument("Sliding window ksize field must "
                                        "specify 5 dimensions"));
    OP_REQUIRES(ctx,
                std::all_of(ksize_.begin(), ksize_.end(),
                            [](int64_t k) { return k > 0; }),
                errors::InvalidArgument("Sliding window ksize field must "
                                        "have non-negative dimensions"));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    OP_REQUIRES(ctx, strides_.size() == 5,
                errors::InvalidArgument("Sliding window stride field must "
                                        "specify 5 dimensions"));
    OP_REQUIRES(ctx, ksize_[0] == 1 && strides_[0] == 1,
                errors::Unimplemented(
                    "Pooling is not yet supported on the batch dimension."));
    OP_REQUIRES(ctx, ksize_[4] == 1 && strides_[4] == 1,
                errors::Unimplemented(
                    "Pooling is not yet supported on the depth dimension."));
    for (int i = 1; i < 4; ++i) {
      OP_REQUIRES(
          ctx, strides_[i] > 0,
          errors::InvalidArgument("Stride must be > 0, but got ", strides_[i]));
      OP_REQUIRES(
          ctx, ksize_[i] <= kMaxWindowArg && strides_[i] <= kMaxWindowArg,
          errors::InvalidArgument("ksize and strides must each be at most ",
                                  kMaxWindowArg));
    }
    std::string padding;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    OP_REQUIRES_OK(ctx, GetPaddingFromString(padding, &padding_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() == 5,
                errors::InvalidArgument("tensor_in must be 5-dimensional"));
    Pool3DDimensions d;
    d.batch = input.dim_size(0);
    d.depth = input.dim_size(4);
    for (int i = 0; i < 3; ++i) {
      d.input[i] = input.dim_size(1 + i);
      d.window[i] = ksize_[1 + i];
      d.stride[i] = strides_[1 + i];
      OP_REQUIRES(ctx, d.input[i] <= kMaxWindowArg,
                  errors::InvalidArgument("input too large: ",
                                          input.shape().DebugString()));
      int64_t pad_after = 0;
      OP_REQUIRES_OK(
          ctx, GetWindowedOutputSizeVerbose(
                   d.input[i], d.window[i], /*dilation_rate=*/1, d.stride[i],
                   padding_, &d.output[i], &d.pad_before[i], &pad_after));
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(
        ctx, TensorShape::BuildTensorShape(
                 {d.batch, d.output[0], d.output[1], d.output[2], d.depth},
                 &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    const T* in = input.base<const T>();
    T* out = output->base<T>();
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    const int64_t voxels = d.batch * d.output[0] * d.output[1] * d.output[2];
    // In double: the window's volume may not fit in int64 (SAME pads any
    // window), and the Shard cost is only a hint.
    const double volume = static_cast<double>(d.window[0]) * d.window[1] *
                          d.window[2] * (d.depth + 1);
    const int64_t cost = static_cast<int64_t>(
        std::min(volume, static_cast<double>(int64_t{1} << 50)));
    Shard(workers->num_threads, workers->workers, voxels, cost,
          [&](int64_t start, int64_t limit) {
            Pool3DRange<T, kKind>(d, in, start, limit, out);
          });
  }

 private:
  TensorFormat format_ = FORMAT_NHWC;
  std::vector<int64_t> ksize_;
  std::vector<int64_t> strides_;
  Padding padding_ = VALID;
};

#define REGISTER_CPU(T)                                            \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("MaxPool3D").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      Pooling3DOp<CPUDevice, T, PoolKind::kMax>);                  \
  REGISTER_KERNEL_BUILDER(                                         \
      Name("AvgPool3D").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      Pooling3DOp<CPUDevice, T, PoolKind::kAvg>);
TF_CALL_float(REGISTER_CPU) TF_CALL_half(REGISTER_CPU)
    TF_CALL_bfloat16(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
