// MaxPoolWithArgmax (NHWC, CPU): the max of each window and the flat index
// of the input element it came from, ((b * H + y) * W + x) * C + c with
// include_batch_in_index, (y * W + x) * C + c without. As TensorFlow's CPU
// kernel: the first maximum in row-major window order wins, padding never
// does, and a NaN wins only as the window's first element (no comparison
// replaces it, and it replaces nothing).
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_ops_common.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

template <typename T, typename Targmax>
void MaxPoolWithArgmaxRange(const PoolDimensions& d, bool include_batch,
                            const T* input, int64_t p0, int64_t p1, T* output,
                            Targmax* argmax) {
  const int64_t c = d.in_depth;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t ow = p % d.out_cols;
    const int64_t oh = (p / d.out_cols) % d.out_rows;
    const int64_t n = p / (d.out_cols * d.out_rows);
    const int64_t h0 = oh * d.stride_rows - d.pad_rows_before;
    const int64_t w0 = ow * d.stride_cols - d.pad_cols_before;
    const int64_t h_lo = std::max<int64_t>(h0, 0);
    const int64_t h_hi = std::min(h0 + d.filter_rows, d.input_rows);
    const int64_t w_lo = std::max<int64_t>(w0, 0);
    const int64_t w_hi = std::min(w0 + d.filter_cols, d.input_cols);
    T* out = output + p * c;
    Targmax* arg = argmax + p * c;
    std::fill_n(out, c, Eigen::NumTraits<T>::lowest());
    std::fill_n(arg, c, Targmax(-1));
    const int64_t base = include_batch ? n * d.input_rows : 0;
    for (int64_t h = h_lo; h < h_hi; ++h) {
      for (int64_t w = w_lo; w < w_hi; ++w) {
        const int64_t pixel = (n * d.input_rows + h) * d.input_cols + w;
        const int64_t index = ((base + h) * d.input_cols + w) * c;
        const T* src = input + pixel * c;
        for (int64_t q = 0; q < c; ++q) {
          // -1 until the first element: the lowest value must still win.
          if (src[q] > out[q] || arg[q] < 0) {
            out[q] = src[q];
            arg[q] = static_cast<Targmax>(index + q);
          }
        }
      }
    }
  }
}

template <typename Device, typename T, typename Targmax>
class MaxPoolingWithArgmaxOp : public OpKernel {
 public:
  explicit MaxPoolingWithArgmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ksize", &params_.ksize));
    OP_REQUIRES(ctx, params_.ksize.size() == 4,
                errors::InvalidArgument("Sliding window ksize field must "
                                        "specify 4 dimensions"));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("strides", &params_.strides));
    OP_REQUIRES(ctx, params_.strides.size() == 4,
                errors::InvalidArgument("Sliding window stride field must "
                                        "specify 4 dimensions"));
    std::string padding;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("padding", &padding));
    OP_REQUIRES_OK(ctx, GetPaddingFromString(padding, &params_.padding));
    params_.data_format = FORMAT_NHWC;
    // Zero or negative windows and strides, batch windows, limits.
    OP_REQUIRES_OK(ctx, CheckPoolWindow(&params_));
    OP_REQUIRES(ctx, params_.ksize[3] == 1,
                errors::Unimplemented(
                    "MaxPoolWithArgmax does not support pooling across depth: "
                    "ksize ",
                    params_.ksize[3], " on the depth dimension"));
    OP_REQUIRES_OK(
        ctx, ctx->GetAttr("include_batch_in_index", &include_batch_in_index_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() == 4,
                errors::InvalidArgument("tensor_in must be 4-dimensional (2)"));
    OP_REQUIRES(ctx, input.NumElements() > 0,
                errors::InvalidArgument("tensor_in must not be empty (2)"));
    PoolDimensions d;
    OP_REQUIRES_OK(ctx, ComputePoolDimensions(params_, input.shape(), &d));
    TensorShape out_shape;
    OP_REQUIRES_OK(
        ctx, TensorShape::BuildTensorShape(
                 {d.batch, d.out_rows, d.out_cols, d.out_depth}, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    Tensor* argmax = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, out_shape, &argmax));
    if (out_shape.num_elements() == 0) return;
    // The largest index must fit Targmax.
    const int64_t max_index = include_batch_in_index_
                                  ? input.NumElements() - 1
                                  : input.NumElements() / d.batch - 1;
    OP_REQUIRES(
        ctx,
        max_index <= static_cast<int64_t>(Eigen::NumTraits<Targmax>::highest()),
        errors::InvalidArgument("input too large for Targmax ",
                                DataTypeString(DataTypeToEnum<Targmax>::v()),
                                ": ", input.shape().DebugString()));
    const T* in = input.base<const T>();
    T* out = output->base<T>();
    Targmax* arg = argmax->base<Targmax>();
    const bool include_batch = include_batch_in_index_;
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    const int64_t pixels = d.batch * d.out_rows * d.out_cols;
    // In double: the window's size may not fit in int64 (SAME pads any
    // window), and the Shard cost is only a hint.
    const double taps =
        static_cast<double>(d.filter_rows) * d.filter_cols * d.in_depth * 2;
    const int64_t cost = static_cast<int64_t>(
        std::min(taps, static_cast<double>(int64_t{1} << 50)));
    Shard(workers->num_threads, workers->workers, pixels, cost,
          [&](int64_t start, int64_t limit) {
            MaxPoolWithArgmaxRange<T, Targmax>(d, include_batch, in, start,
                                               limit, out, arg);
          });
  }

 private:
  PoolParameters params_;
  bool include_batch_in_index_ = false;
};

#define REGISTER_CPU(T)                                            \
  REGISTER_KERNEL_BUILDER(Name("MaxPoolWithArgmax")                \
                              .Device(DEVICE_CPU)                  \
                              .TypeConstraint<T>("T")              \
                              .TypeConstraint<int64_t>("Targmax"), \
                          MaxPoolingWithArgmaxOp<CPUDevice, T, int64_t>);
TF_CALL_float(REGISTER_CPU) TF_CALL_double(REGISTER_CPU)
    TF_CALL_half(REGISTER_CPU) TF_CALL_bfloat16(REGISTER_CPU)
        TF_CALL_int32(REGISTER_CPU) TF_CALL_int64(REGISTER_CPU)
            TF_CALL_uint8(REGISTER_CPU) TF_CALL_int8(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
