// Conv3D (NDHWC, CPU): tiled im2col + GEMM over output voxels, as Conv2D.
// See Note [Conv2D as tiled im2col + GEMM] in conv_2d_op.cc.
#define EIGEN_USE_THREADS

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/synchronization/mutex.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_ops_common.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

constexpr int64_t kTileBytes = 512 * 1024;
constexpr int64_t kMinTileVoxels = 32;
constexpr int64_t kMaxWindowArg = std::numeric_limits<int32_t>::max();

template <typename T>
using RowMatrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
template <typename T>
using ConstStridedMap = Eigen::Map<const RowMatrix<T>, 0, Stride>;
template <typename T>
using StridedMap = Eigen::Map<RowMatrix<T>, 0, Stride>;

// The geometry of one NDHWC convolution; spatial arrays in D, H, W order.
struct Conv3DDimensions {
  int64_t batch = 0;
  int64_t in_depth = 0;
  int64_t out_depth = 0;
  std::array<int64_t, 3> input{};
  std::array<int64_t, 3> filter{};
  std::array<int64_t, 3> stride{};
  std::array<int64_t, 3> output{};
  std::array<int64_t, 3> pad_before{};
};

// Writes the patches of output voxels [p0, p1) into `dst`, one row of
// filter volume x in_depth values per voxel (zeros in the padding).
template <typename T>
void Im2Col3D(const Conv3DDimensions& d, const T* input, int64_t p0, int64_t p1,
              T* dst) {
  const int64_t c = d.in_depth;
  const int64_t run = d.filter[2] * c;  // one filter row of a patch
  for (int64_t p = p0; p < p1; ++p) {
    int64_t rest = p;
    const int64_t ow = rest % d.output[2];
    rest /= d.output[2];
    const int64_t oh = rest % d.output[1];
    rest /= d.output[1];
    const int64_t od = rest % d.output[0];
    const int64_t n = rest / d.output[0];
    const int64_t id0 = od * d.stride[0] - d.pad_before[0];
    const int64_t ih0 = oh * d.stride[1] - d.pad_before[1];
    const int64_t iw0 = ow * d.stride[2] - d.pad_before[2];
    const bool cols_inside = iw0 >= 0 && iw0 + d.filter[2] <= d.input[2];
    for (int64_t kd = 0; kd < d.filter[0]; ++kd) {
      const int64_t id = id0 + kd;
      for (int64_t kh = 0; kh < d.filter[1]; ++kh, dst += run) {
        const int64_t ih = ih0 + kh;
        if (id < 0 || id >= d.input[0] || ih < 0 || ih >= d.input[1]) {
          std::fill_n(dst, run, T(0));
          continue;
        }
        const T* row =
            input + ((n * d.input[0] + id) * d.input[1] + ih) * d.input[2] * c;
        if (cols_inside) {
          std::copy_n(row + iw0 * c, run, dst);
          continue;
        }
        for (int64_t kw = 0; kw < d.filter[2]; ++kw) {
          const int64_t iw = iw0 + kw;
          if (iw < 0 || iw >= d.input[2]) {
            std::fill_n(dst + kw * c, c, T(0));
          } else {
            std::copy_n(row + iw * c, c, dst + kw * c);
          }
        }
      }
    }
  }
}

// The filter and the output are not empty (Compute checks).
template <typename T>
Status LaunchConv3D(OpKernelContext* ctx, const Conv3DDimensions& d,
                    const T* input, const T* filter, T* output) {
  const int64_t patch_size =
      d.filter[0] * d.filter[1] * d.filter[2] * d.in_depth;
  const int64_t voxels = d.batch * d.output[0] * d.output[1] * d.output[2];
  const int64_t tile = std::max<int64_t>(
      kMinTileVoxels,
      kTileBytes / (patch_size * static_cast<int64_t>(sizeof(T))));
  absl::Mutex mu;
  Status status;
  auto work = [&](int64_t start, int64_t limit) {
    Tensor scratch;
    Status s = ctx->allocate_temp(
        DataTypeToEnum<T>::v(),
        TensorShape({std::min(tile, limit - start) * patch_size}), &scratch);
    if (!s.ok()) {
      absl::MutexLock lock(&mu);
      status.Update(s);
      return;
    }
    for (int64_t p0 = start; p0 < limit; p0 += tile) {
      const int64_t p1 = std::min(limit, p0 + tile);
      Im2Col3D<T>(d, input, p0, p1, scratch.base<T>());
      ConstStridedMap<T> lhs(scratch.base<const T>(), p1 - p0, patch_size,
                             Stride(patch_size));
      ConstStridedMap<T> rhs(filter, patch_size, d.out_depth,
                             Stride(d.out_depth));
      StridedMap<T> out(output + p0 * d.out_depth, p1 - p0, d.out_depth,
                        Stride(d.out_depth));
      out.noalias() = lhs * rhs;
    }
  };
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  const int64_t cost_per_voxel = patch_size * d.out_depth + patch_size;
  Shard(workers->num_threads, workers->workers, voxels, cost_per_voxel, work);
  return status;
}

template <typename Device, typename T>
class Conv3DOp : public OpKernel {
 public:
  explicit Conv3DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string data_format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &data_format));
    int spatial_dims = 0;
    OP_REQUIRES_OK(ctx, GetTensorFormatAndSpatialDimsFromString(
                            data_format, &format_, &spatial_dims));
    OP_REQUIRES(ctx, spatial_dims == 3,
                errors::InvalidArgument("Invalid data format"));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &strides_));
    OP_REQUIRES(ctx, strides_.size() == 5,
                errors::InvalidArgument("Sliding window strides field must "
                                        "specify 5 dimensions"));
    const int n = GetTensorBatchDimIndex(5, format_);
    const int c = GetTensorFeatureDimIndex(5, format_);
    OP_REQUIRES(
        ctx, strides_[n] == 1 && strides_[c] == 1,
        errors::InvalidArgument("Current implementation does not yet support "
                                "strides in the batch and depth dimensions."));
    for (int i = 0; i < 3; ++i) {
      const int64_t s = strides_[GetTensorSpatialDimIndex(5, format_, i)];
      OP_REQUIRES(
          ctx, s > 0,
          errors::InvalidArgument("Spatial strides should be larger than 0."));
      OP_REQUIRES(ctx, s <= kMaxWindowArg,
                  errors::InvalidArgument("strides must each be at most ",
                                          kMaxWindowArg, ", but got ", s));
    }
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dilations", &dilations_));
    OP_REQUIRES(ctx, dilations_.size() == 5,
                errors::InvalidArgument("Dilation rates field must "
                                        "specify 5 dimensions"));
    OP_REQUIRES(ctx, dilations_[n] == 1 && dilations_[c] == 1,
                errors::InvalidArgument(
                    "Current implementation does not yet support "
                    "dilation rates in the batch and depth dimensions."));
    for (int i = 0; i < 3; ++i) {
      const int64_t r = dilations_[GetTensorSpatialDimIndex(5, format_, i)];
      OP_REQUIRES(
          ctx, r > 0,
          errors::InvalidArgument("Dilated rates should be larger than 0."));
      OP_REQUIRES(ctx, r <= kMaxWindowArg,
                  errors::InvalidArgument("dilations must each be at most ",
                                          kMaxWindowArg, ", but got ", r));
    }
    std::string padding;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    OP_REQUIRES_OK(ctx, GetPaddingFromString(padding, &padding_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    OP_REQUIRES(ctx, input.dims() == 5,
                errors::InvalidArgument("input must be 5-dimensional"));
    OP_REQUIRES(ctx, filter.dims() == 5,
                errors::InvalidArgument("filter must be 5-dimensional"));
    Conv3DDimensions d;
    d.batch = input.dim_size(GetTensorBatchDimIndex(5, format_));
    d.in_depth = input.dim_size(GetTensorFeatureDimIndex(5, format_));
    const int64_t filter_depth = filter.dim_size(3);
    d.out_depth = filter.dim_size(4);
    OP_REQUIRES(ctx, filter_depth != 0,
                errors::InvalidArgument("filter_depth must be non-zero"));
    OP_REQUIRES(ctx, d.in_depth % filter_depth == 0,
                errors::InvalidArgument(
                    "Input depth must be evenly divisible by filter depth: ",
                    d.in_depth, " vs ", filter_depth));
    OP_REQUIRES(
        ctx, filter.NumElements() > 0,
        errors::InvalidArgument("filter must not have zero elements "
                                "(i.e. all dimensions must be non-zero)"));
    for (int i = 0; i < 3; ++i) {
      const int dim = GetTensorSpatialDimIndex(5, format_, i);
      d.input[i] = input.dim_size(dim);
      d.filter[i] = filter.dim_size(i);
      d.stride[i] = strides_[dim];
      OP_REQUIRES(ctx, d.input[i] <= kMaxWindowArg,
                  errors::InvalidArgument("input too large: ",
                                          input.shape().DebugString()));
      OP_REQUIRES(ctx, d.filter[i] <= kMaxWindowArg,
                  errors::InvalidArgument("filter too large: ",
                                          filter.shape().DebugString()));
      int64_t pad_after = 0;
      OP_REQUIRES_OK(ctx,
                     GetWindowedOutputSizeVerbose(
                         d.input[i], d.filter[i], dilations_[dim], d.stride[i],
                         padding_, &d.output[i], &d.pad_before[i], &pad_after));
    }
    TensorShape out_shape;
    const std::vector<int64_t> out_dims =
        format_ == FORMAT_NHWC
            ? std::vector<int64_t>{d.batch, d.output[0], d.output[1],
                                   d.output[2], d.out_depth}
            : std::vector<int64_t>{d.batch, d.out_depth, d.output[0],
                                   d.output[1], d.output[2]};
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(out_dims, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    // TensorFlow's CPU launcher: NDHWC, no dilations, no groups.
    OP_REQUIRES(ctx, format_ == FORMAT_NHWC,
                errors::InvalidArgument("CPU implementation of Conv3D "
                                        "currently only supports the NHWC "
                                        "tensor format."));
    OP_REQUIRES(ctx,
                dilations_[1] == 1 && dilations_[2] == 1 && dilations_[3] == 1,
                errors::InvalidArgument("CPU implementation of Conv3D "
                                        "currently only supports dilated rates "
                                        "of 1."));
    OP_REQUIRES(ctx, filter_depth == d.in_depth,
                errors::InvalidArgument(
                    "Number of channels in filter (", filter_depth,
                    ") must match last dimension of input (", d.in_depth, ")"));
    OP_REQUIRES_OK(ctx,
                   LaunchConv3D<T>(ctx, d, input.base<const T>(),
                                   filter.base<const T>(), output->base<T>()));
  }

 private:
  TensorFormat format_ = FORMAT_NHWC;
  std::vector<int64_t> strides_;
  std::vector<int64_t> dilations_;
  Padding padding_ = VALID;
};

#define REGISTER_CPU(T)                                         \
  REGISTER_KERNEL_BUILDER(                                      \
      Name("Conv3D").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      Conv3DOp<CPUDevice, T>);
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
