// MaxPool, MaxPoolV2 and AvgPool (NHWC, CPU): a direct loop over each output
// pixel's window, vectorised over channels and sharded over output pixels.
// Padded positions never count: MaxPool ignores them, AvgPool divides by the
// number of taps inside the image (TensorFlow's semantics).
#define EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_ops_common.h"

namespace minflow {
namespace {

using CPUDevice = Eigen::ThreadPoolDevice;

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// The max of an empty window (one wholly in EXPLICIT padding), as
// TensorFlow's reducer starts: -inf where the type has it.
template <typename T>
T MaxIdentity() {
  if constexpr (Eigen::NumTraits<T>::IsInteger) {
    return Eigen::NumTraits<T>::lowest();
  } else {
    return -Eigen::NumTraits<T>::infinity();
  }
}

// An output pixel as (image, row, column), stepped through in order: a
// division per pixel cost more than a 2x2 window's maxima (pool1 of
// cnn_small, 32x32x32 outputs: 32 us on one thread).
struct OutputPixel {
  OutputPixel(const Conv2DDimensions& d, int64_t p)
      : n(p / d.out_cols / d.out_rows),
        oh(p / d.out_cols % d.out_rows),
        ow(p % d.out_cols) {}
  void Next(const Conv2DDimensions& d) {
    if (++ow < d.out_cols) return;
    ow = 0;
    if (++oh < d.out_rows) return;
    oh = 0;
    ++n;
  }
  int64_t n, oh, ow;
};

// Calls fn(first input pixel of the tap row, taps in that row) for each row
// of output pixel `o`'s window that lies inside the image; the taps of a row
// are consecutive input pixels. Returns the number of taps visited.
template <typename Fn>
int64_t ForEachWindowRow(const Conv2DDimensions& d, const OutputPixel& o,
                         Fn fn) {
  const int64_t h_start = o.oh * d.stride_rows - d.pad_rows_before;
  const int64_t w_start = o.ow * d.stride_cols - d.pad_cols_before;
  const int64_t h0 = std::max<int64_t>(h_start, 0);
  const int64_t h1 = std::min(h_start + d.filter_rows, d.input_rows);
  const int64_t w0 = std::max<int64_t>(w_start, 0);
  const int64_t w1 = std::min(w_start + d.filter_cols, d.input_cols);
  if (h1 <= h0 || w1 <= w0) return 0;
  for (int64_t h = h0; h < h1; ++h) {
    fn((o.n * d.input_rows + h) * d.input_cols + w0, w1 - w0);
  }
  return (h1 - h0) * (w1 - w0);
}

// std::max's choice, which Eigen's max also makes: a NaN in x never wins.
template <typename T>
inline T MaxOf(T m, T x) {
  return m < x ? x : m;
}

template <typename T>
constexpr bool kPacketPool =
    std::is_same_v<T, float> || std::is_same_v<T, double>;

// The maxima over one window wholly inside the image, whose top-left tap's
// channels start at `window`, into `out`.
template <typename T, int kRows, int kCols>
inline void MaxOfWindow(const PoolDimensions& d, const T* window, T* out) {
  using Packet = typename Eigen::internal::packet_traits<T>::type;
  constexpr int64_t kSize = Eigen::internal::unpacket_traits<Packet>::size;
  const int64_t rows = kRows > 0 ? kRows : d.filter_rows;
  const int64_t cols = kCols > 0 ? kCols : d.filter_cols;
  const int64_t depth = d.in_depth;
  const int64_t row_stride = d.input_cols * depth;  // between input rows
  const int64_t vector_depth = depth / kSize * kSize;
  for (int64_t c = 0; c < vector_depth; c += kSize) {
    Packet m = Eigen::internal::pset1<Packet>(MaxIdentity<T>());
    for (int64_t r = 0; r < rows; ++r) {
      const T* x = window + r * row_stride + c;
      for (int64_t t = 0; t < cols; ++t) {
        // pmax(m, x) is m < x ? x : m, as MaxOf: a NaN never wins.
        m = Eigen::internal::pmax(
            m, Eigen::internal::ploadu<Packet>(x + t * depth));
      }
    }
    Eigen::internal::pstoreu(out + c, m);
  }
  for (int64_t c = vector_depth; c < depth; ++c) {
    T m = MaxIdentity<T>();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t t = 0; t < cols; ++t) {
        m = MaxOf(m, window[r * row_stride + t * depth + c]);
      }
    }
    out[c] = m;
  }
}

template <typename T, int kRows, int kCols>
void MaxPoolInsidePixels(const PoolDimensions& d, const T* input, T* output,
                         int64_t p0, int64_t p1) {
  const int64_t depth = d.in_depth;
  OutputPixel o(d, p0);
  for (int64_t p = p0; p < p1; ++p, o.Next(d)) {
    const T* window =
        input + ((o.n * d.input_rows + o.oh * d.stride_rows) * d.input_cols +
                 o.ow * d.stride_cols) *
                    depth;
    MaxOfWindow<T, kRows, kCols>(d, window, output + p * depth);
  }
}

template <typename T>
void MaxPoolPixels(const PoolDimensions& d, const T* input, T* output,
                   int64_t p0, int64_t p1) {
  const int64_t depth = d.in_depth;
  OutputPixel o(d, p0);
  for (int64_t p = p0; p < p1; ++p, o.Next(d)) {
    T* out = output + p * depth;
    if constexpr (kPacketPool<T>) {
      // A window inside the image takes the register loop; those that
      // reach into the padding (a SAME pool's edges) the loop below.
      const int64_t h = o.oh * d.stride_rows - d.pad_rows_before;
      const int64_t w = o.ow * d.stride_cols - d.pad_cols_before;
      if (h >= 0 && w >= 0 && h + d.filter_rows <= d.input_rows &&
          w + d.filter_cols <= d.input_cols) {
        MaxOfWindow<T, 0, 0>(
            d, input + ((o.n * d.input_rows + h) * d.input_cols + w) * depth,
            out);
        continue;
      }
    }
    std::fill(out, out + depth, MaxIdentity<T>());
    ForEachWindowRow(d, o, [&](int64_t pixel, int64_t taps) {
      for (int64_t t = 0; t < taps; ++t) {
        const T* x = input + (pixel + t) * depth;
        // Plain loops: Eigen's per-statement set-up cost more than a
        // 32-channel tap's maxima.
        for (int64_t c = 0; c < depth; ++c) out[c] = MaxOf(out[c], x[c]);
      }
    });
  }
}

// Whether every window lies wholly inside the image (no padding reached).
bool WindowsInsideImage(const Conv2DDimensions& d) {
  return d.pad_rows_before == 0 && d.pad_cols_before == 0 &&
         (d.out_rows - 1) * d.stride_rows + d.filter_rows <= d.input_rows &&
         (d.out_cols - 1) * d.stride_cols + d.filter_cols <= d.input_cols;
}

// MaxPool where every window is inside the image, for types Eigen
// vectorises: each output pixel's channels a packet at a time, the packet's
// maximum over the window held in a register. kRows and kCols are the window
// (0: read from `d`). cnn_small's 2x2 pool over [1,64,64,32] took 19-25 us
// in the loop above, whose per-tap channel loops cost more set-up than work
// at 32 channels; a loop like this one, written by hand outside minflow,
// took 6 us.
// The fast loop for `d` when it applies: returns false otherwise.
template <typename T>
bool MaxPoolInside(const PoolDimensions& d, const T* input, T* output,
                   int64_t p0, int64_t p1) {
  if constexpr (!kPacketPool<T>) {
    return false;
  } else {
    if (d.depth_window > 1 || !WindowsInsideImage(d)) return false;
    if (d.filter_rows == 2 && d.filter_cols == 2) {
      MaxPoolInsidePixels<T, 2, 2>(d, input, output, p0, p1);
    } else if (d.filter_rows == 3 && d.filter_cols == 3) {
      MaxPoolInsidePixels<T, 3, 3>(d, input, output, p0, p1);
    } else {
      MaxPoolInsidePixels<T, 0, 0>(d, input, output, p0, p1);
    }
    return true;
  }
}

// Pools across channels: output channel c is the max of input channels
// [c * window, (c + 1) * window) of the same pixel.
template <typename T>
void DepthMaxPoolPixels(const PoolDimensions& d, const T* input, T* output,
                        int64_t p0, int64_t p1) {
  const int64_t window = d.depth_window;
  for (int64_t p = p0; p < p1; ++p) {
    const T* in = input + p * d.in_depth;
    T* out = output + p * d.out_depth;
    for (int64_t c = 0; c < d.out_depth; ++c) {
      out[c] = ConstArrayMap<T>(in + c * window, window).maxCoeff();
    }
  }
}

template <typename T>
void AvgPoolPixels(const PoolDimensions& d, const T* input, T* output,
                   int64_t p0, int64_t p1) {
  const int64_t depth = d.in_depth;
  OutputPixel o(d, p0);
  for (int64_t p = p0; p < p1; ++p, o.Next(d)) {
    ArrayMap<T> out(output + p * depth, depth);
    out.setZero();
    const int64_t count =
        ForEachWindowRow(d, o, [&](int64_t pixel, int64_t taps) {
          for (int64_t t = 0; t < taps; ++t) {
            out += ConstArrayMap<T>(input + (pixel + t) * depth, depth);
          }
        });
    // SAME and VALID windows always hold at least one tap.
    if (count > 0) out /= static_cast<T>(count);
  }
}

enum class PoolKind { kMax, kAvg };

// The int32 values of a window input (MaxPoolV2's ksize or strides), of
// any shape as TensorFlow reads them; CheckPoolWindow checks the count.
std::vector<int64_t> WindowValues(const Tensor& t) {
  const int32_t* v = t.base<const int32_t>();
  return std::vector<int64_t>(v, v + t.NumElements());
}

// kWindowFromInputs: MaxPoolV2, whose ksize and strides are inputs 1 and 2
// rather than attrs.
template <typename Device, typename T, PoolKind kKind,
          bool kWindowFromInputs = false>
class PoolingOp : public OpKernel {
 public:
  explicit PoolingOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if constexpr (kWindowFromInputs) {
      OP_REQUIRES_OK(ctx, InitPoolFormatAndPadding(ctx, &params_));
    } else {
      OP_REQUIRES_OK(ctx, InitPoolParameters(ctx, &params_));
    }
    OP_REQUIRES(ctx, params_.data_format == FORMAT_NHWC,
                errors::InvalidArgument(
                    "Default ",
                    kKind == PoolKind::kMax ? "MaxPoolingOp" : "AvgPoolingOp",
                    " only supports NHWC on device type CPU"));
    if constexpr (kKind == PoolKind::kAvg) {
      OP_REQUIRES(ctx, params_.ksize[3] == 1,
                  errors::Unimplemented(
                      "Non-spatial pooling is not yet supported: AvgPool "
                      "needs ksize[3] == 1, but got ",
                      params_.ksize[3]));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const PoolParameters* params = &params_;
    PoolParameters from_inputs;
    if constexpr (kWindowFromInputs) {
      from_inputs = params_;
      from_inputs.ksize = WindowValues(ctx->input(1));
      from_inputs.strides = WindowValues(ctx->input(2));
      OP_REQUIRES_OK(ctx, CheckPoolWindow(&from_inputs));
      params = &from_inputs;
    }
    PoolDimensions d;
    OP_REQUIRES_OK(ctx, ComputePoolDimensions(*params, input.shape(), &d));
    TensorShape out_shape;
    OP_REQUIRES_OK(
        ctx, TensorShape::BuildTensorShape(
                 {d.batch, d.out_rows, d.out_cols, d.out_depth}, &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    const T* in = input.base<const T>();
    T* out = output->base<T>();
    const int64_t pixels = d.batch * d.out_rows * d.out_cols;
    const int64_t cost_per_pixel =
        d.filter_rows * d.filter_cols * d.in_depth + d.in_depth;
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    Shard(workers->num_threads, workers->workers, pixels, cost_per_pixel,
          [&](int64_t start, int64_t limit) {
            if constexpr (kKind == PoolKind::kAvg) {
              AvgPoolPixels<T>(d, in, out, start, limit);
            } else if (d.depth_window > 1) {
              DepthMaxPoolPixels<T>(d, in, out, start, limit);
            } else if (!MaxPoolInside<T>(d, in, out, start, limit)) {
              MaxPoolPixels<T>(d, in, out, start, limit);
            }
          });
  }

 private:
  PoolParameters params_;
};

#define REGISTER_MAX(T)                                          \
  REGISTER_KERNEL_BUILDER(                                       \
      Name("MaxPool").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      PoolingOp<CPUDevice, T, PoolKind::kMax>);                  \
  REGISTER_KERNEL_BUILDER(Name("MaxPoolV2")                      \
                              .Device(DEVICE_CPU)                \
                              .TypeConstraint<T>("T")            \
                              .HostMemory("ksize")               \
                              .HostMemory("strides"),            \
                          PoolingOp<CPUDevice, T, PoolKind::kMax, true>);
TF_CALL_float(REGISTER_MAX) TF_CALL_double(REGISTER_MAX)
    TF_CALL_half(REGISTER_MAX) TF_CALL_bfloat16(REGISTER_MAX)
        TF_CALL_int32(REGISTER_MAX) TF_CALL_int64(REGISTER_MAX)
            TF_CALL_uint8(REGISTER_MAX) TF_CALL_int8(REGISTER_MAX)
#undef REGISTER_MAX

#define REGISTER_AVG(T)                                          \
  REGISTER_KERNEL_BUILDER(                                       \
      Name("AvgPool").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      PoolingOp<CPUDevice, T, PoolKind::kAvg>);
                TF_CALL_float(REGISTER_AVG) TF_CALL_double(REGISTER_AVG)
#undef REGISTER_AVG

}  // namespace
}  // namespace minflow
