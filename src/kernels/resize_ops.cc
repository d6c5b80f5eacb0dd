// ResizeBilinear, ResizeNearestNeighbor and ResizeBicubic (CPU): an NHWC
// image batch resized to size = [new_height, new_width], with TensorFlow's
// coordinate conventions (align_corners, half_pixel_centers) and arithmetic.
// See Note [Resize coordinates].
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

// Note [Resize coordinates]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// Output index o of a dimension maps to an input coordinate, computed in
// float as TensorFlow does (which input pixel a nearest-neighbour output
// copies depends on it), with
//   scale = align_corners && out > 1 ? (in - 1) / (out - 1) : in / out
//   legacy (no half_pixel_centers):  o * scale
//   half_pixel_centers:              (o + 0.5) * scale - 0.5
//   half_pixel_centers, nearest:     (o + 0.5) * scale
// Nearest neighbour takes the pixel at the coordinate rounded (align_corners)
// or floored, clamped into the image. Bilinear blends the pixels at the
// floor and the ceiling of the coordinate (each clamped into the image) by
// its fraction, rows after columns, in float. Bicubic takes the four pixels
// at floor - 1 .. floor + 2, weighted by Keys' cubic with a = -0.75 (a =
// -0.5 with half_pixel_centers), the fraction rounded to a multiple of 1/1024
// (TensorFlow reads the weights from a 1025-entry table); without
// half_pixel_centers taps outside the image repeat the edge pixel, with it
// they get weight 0 and the other weights are scaled to sum to 1.

struct ResizeGeometry {
  int64_t batch = 0;
  int64_t in_height = 0;
  int64_t in_width = 0;
  int64_t channels = 0;
  int64_t out_height = 0;
  int64_t out_width = 0;
  float height_scale = 0;
  float width_scale = 0;
};

float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return align_corners && out > 1
             ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
             : static_cast<float>(in) / static_cast<float>(out);
}

// TensorFlow's ImageResizerState checks, in its order and words.
Status ComputeResizeGeometry(const Tensor& images, const Tensor& size,
                             bool align_corners, ResizeGeometry* g) {
  if (images.dims() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional",
                                   images.shape().DebugString());
  }
  if (size.dims() != 1) {
    return errors::InvalidArgument("shape_t must be 1-dimensional",
                                   size.shape().DebugString());
  }
  if (size.NumElements() != 2) {
    return errors::InvalidArgument("shape_t must have two elements",
                                   size.shape().DebugString());
  }
  g->batch = images.dim_size(0);
  g->in_height = images.dim_size(1);
  g->in_width = images.dim_size(2);
  g->channels = images.dim_size(3);
  g->out_height = size.base<const int32_t>()[0];
  g->out_width = size.base<const int32_t>()[1];
  constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();
  if (g->in_height > kMaxInt32 || g->in_width > kMaxInt32) {
    return errors::InvalidArgument(
        "input sizes must be between 0 and max int32");
  }
  if (g->out_height <= 0 || g->out_width <= 0) {
    return errors::InvalidArgument("output dimensions must be positive");
  }
  if (g->channels <= 0) {
    return errors::InvalidArgument("image must have at least one channel");
  }
  if (g->in_height <= 0 || g->in_width <= 0) {
    return errors::InvalidArgument("input image must be of non-zero size");
  }
  g->height_scale = ResizeScale(g->in_height, g->out_height, align_corners);
  g->width_scale = ResizeScale(g->in_width, g->out_width, align_corners);
  return OkStatus();
}

// Attrs shared by the three kernels, read and checked once.
Status ReadResizeAttrs(OpKernelConstruction* ctx, bool* align_corners,
                       bool* half_pixel_centers) {
  MF_RETURN_IF_ERROR(ctx->GetAttr("align_corners", align_corners));
  MF_RETURN_IF_ERROR(ctx->GetAttr("half_pixel_centers", half_pixel_centers));
  if (*align_corners && *half_pixel_centers) {
    return errors::InvalidArgument(
        "If half_pixel_centers is True, align_corners must be False.");
  }
  return OkStatus();
}

// Runs fn(b, y) for every output row (batch * out_height of
// them), split over the device's threads.
template <typename Fn>
void ForEachOutputRow(OpKernelContext* ctx, const ResizeGeometry& g,
                      int64_t cost_per_row, Fn fn) {
  const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
  Shard(workers->num_threads, workers->workers, g.batch * g.out_height,
        cost_per_row, [&](int64_t begin, int64_t end) {
          for (int64_t row = begin; row < end; ++row) {
            fn(row / g.out_height, row % g.out_height);
          }
        });
}

// The common start of Compute: the checks and the output. False (with the
// kernel's status set) on failure.
bool PrepareResize(OpKernelContext* ctx, bool align_corners, ResizeGeometry* g,
                   Tensor** output) {
  Status s =
      ComputeResizeGeometry(ctx->input(0), ctx->input(1), align_corners, g);
  TensorShape shape;
  if (s.ok()) {
    s = TensorShape::BuildTensorShape(
        {g->batch, g->out_height, g->out_width, g->channels}, &shape);
  }
  if (s.ok()) s = ctx->allocate_output(0, shape, output);
  if (!s.ok()) ctx->SetStatus(s);
  return s.ok();
}

// --- Nearest neighbour

// The input index each output index of one dimension copies.
std::vector<int64_t> NearestIndices(int64_t out_size, int64_t in_size,
                                    float scale, bool align_corners,
                                    bool half_pixel_centers) {
  std::vector<int64_t> index(out_size);
  for (int64_t o = 0; o < out_size; ++o) {
    const float in = half_pixel_centers ? (static_cast<float>(o) + 0.5f) * scale
                                        : static_cast<float>(o) * scale;
    const int64_t i =
        static_cast<int64_t>(align_corners ? std::round(in) : std::floor(in));
    index[o] = std::clamp<int64_t>(i, 0, in_size - 1);
  }
  return index;
}

template <typename T>
class ResizeNearestNeighborOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx,
                   ReadResizeAttrs(ctx, &align_corners_, &half_pixel_centers_));
  }

  void Compute(OpKernelContext* ctx) override {
    ResizeGeometry g;
    Tensor* output = nullptr;
    if (!PrepareResize(ctx, align_corners_, &g, &output)) return;
    // Coordinates are floats: past 2^24 they no longer name every pixel.
    OP_REQUIRES(ctx, g.in_height < (1 << 24) && g.in_width < (1 << 24),
                errors::InvalidArgument(
                    "nearest neighbor requires max height & width of 2^24"));
    if (output->NumElements() == 0) return;
    const std::vector<int64_t> ys =
        NearestIndices(g.out_height, g.in_height, g.height_scale,
                       align_corners_, half_pixel_centers_);
    const std::vector<int64_t> xs =
        NearestIndices(g.out_width, g.in_width, g.width_scale, align_corners_,
                       half_pixel_centers_);
    const T* in = ctx->input(0).base<const T>();
    T* out = output->base<T>();
    ForEachOutputRow(
        ctx, g, g.out_width * g.channels, [&](int64_t b, int64_t y) {
          const T* in_row =
              in + (b * g.in_height + ys[y]) * g.in_width * g.channels;
          T* out_row = out + (b * g.out_height + y) * g.out_width * g.channels;
          for (int64_t x = 0; x < g.out_width; ++x) {
            std::copy_n(in_row + xs[x] * g.channels, g.channels,
                        out_row + x * g.channels);
          }
        });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

// --- Bilinear

struct LinearTap {
  int64_t lower = 0;  // input index at the coordinate's floor, clamped
  int64_t upper = 0;  // at its ceiling, clamped
  float lerp = 0;     // the coordinate's fraction
};

std::vector<LinearTap> LinearTaps(int64_t out_size, int64_t in_size,
                                  float scale, bool half_pixel_centers) {
  std::vector<LinearTap> taps(out_size);
  for (int64_t o = 0; o < out_size; ++o) {
    const float in = half_pixel_centers
                         ? (static_cast<float>(o) + 0.5f) * scale - 0.5f
                         : static_cast<float>(o) * scale;
    const float in_floor = std::floor(in);
    taps[o].lower = std::max<int64_t>(static_cast<int64_t>(in_floor), 0);
    taps[o].upper =
        std::min<int64_t>(static_cast<int64_t>(std::ceil(in)), in_size - 1);
    taps[o].lerp = in - in_floor;
  }
  return taps;
}

template <typename T>
class ResizeBilinearOp : public OpKernel {
 public:
  explicit ResizeBilinearOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx,
                   ReadResizeAttrs(ctx, &align_corners_, &half_pixel_centers_));
  }

  void Compute(OpKernelContext* ctx) override {
    ResizeGeometry g;
    Tensor* output = nullptr;
    if (!PrepareResize(ctx, align_corners_, &g, &output)) return;
    if (output->NumElements() == 0) return;
    const std::vector<LinearTap> ys = LinearTaps(
        g.out_height, g.in_height, g.height_scale, half_pixel_centers_);
    const std::vector<LinearTap> xs =
        LinearTaps(g.out_width, g.in_width, g.width_scale, half_pixel_centers_);
    const T* in = ctx->input(0).base<const T>();
    float* out = output->base<float>();
    const int64_t c_count = g.channels;
    ForEachOutputRow(
        ctx, g, 8 * g.out_width * c_count, [&](int64_t b, int64_t y) {
          const int64_t row_size = g.in_width * c_count;
          const T* top = in + (b * g.in_height + ys[y].lower) * row_size;
          const T* bottom = in + (b * g.in_height + ys[y].upper) * row_size;
          const float y_lerp = ys[y].lerp;
          float* o = out + (b * g.out_height + y) * g.out_width * c_count;
          for (int64_t x = 0; x < g.out_width; ++x) {
            const int64_t left = xs[x].lower * c_count;
            const int64_t right = xs[x].upper * c_count;
            const float x_lerp = xs[x].lerp;
            for (int64_t c = 0; c < c_count; ++c) {
              const float top_left = static_cast<float>(top[left + c]);
              const float top_right = static_cast<float>(top[right + c]);
              const float bottom_left = static_cast<float>(bottom[left + c]);
              const float bottom_right = static_cast<float>(bottom[right + c]);
              const float t = top_left + (top_right - top_left) * x_lerp;
              const float u =
                  bottom_left + (bottom_right - bottom_left) * x_lerp;
              o[x * c_count + c] = t + (u - t) * y_lerp;
            }
          }
        });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

// --- Bicubic

constexpr int kCubicTableSize = 1024;

// Keys' cubic at distances i / 1024 (entry 2i) and 1 + i / 1024 (entry
// 2i + 1) for i in [0, 1024], computed in double and stored as float.
std::vector<float> CubicTable(double a) {
  std::vector<float> table(2 * (kCubicTableSize + 1));
  for (int i = 0; i <= kCubicTableSize; ++i) {
    const double near = static_cast<float>(i * 1.0 / kCubicTableSize);
    table[2 * i] =
        static_cast<float>(((a + 2) * near - (a + 3)) * near * near + 1);
    const double far = near + 1.0;
    table[2 * i + 1] =
        static_cast<float>(((a * far - 5 * a) * far + 8 * a) * far - 4 * a);
  }
  return table;
}

const std::vector<float>& CubicWeights(bool half_pixel_centers) {
  static const std::vector<float>* const legacy =
      new std::vector<float>(CubicTable(-0.75));
  static const std::vector<float>* const keys =
      new std::vector<float>(CubicTable(-0.5));
  return half_pixel_centers ? *keys : *legacy;
}

struct CubicTaps {
  std::array<int64_t, 4> index;
  std::array<float, 4> weight;
};

std::vector<CubicTaps> CubicTapsFor(int64_t out_size, int64_t in_size,
                                    float scale, bool half_pixel_centers) {
  const std::vector<float>& table = CubicWeights(half_pixel_centers);
  std::vector<CubicTaps> taps(out_size);
  for (int64_t o = 0; o < out_size; ++o) {
    const float in = half_pixel_centers
                         ? (static_cast<float>(o) + 0.5f) * scale - 0.5f
                         : static_cast<float>(o) * scale;
    const int64_t in_floor = static_cast<int64_t>(std::floor(in));
    const float delta = in - static_cast<float>(in_floor);
    const int64_t step = std::lrint(delta * kCubicTableSize);
    CubicTaps& t = taps[o];
    t.weight = {table[2 * step + 1], table[2 * step],
                table[2 * (kCubicTableSize - step)],
                table[2 * (kCubicTableSize - step) + 1]};
    for (int k = 0; k < 4; ++k) {
      const int64_t at = in_floor - 1 + k;
      t.index[k] = std::clamp<int64_t>(at, 0, in_size - 1);
      if (half_pixel_centers && t.index[k] != at) t.weight[k] = 0;
    }
    if (half_pixel_centers) {
      const float sum = t.weight[0] + t.weight[1] + t.weight[2] + t.weight[3];
      if (std::abs(sum) >= 1000.0f * std::numeric_limits<float>::min()) {
        const float inverse = 1.0f / sum;
        for (float& w : t.weight) w *= inverse;
      }
    }
  }
  return taps;
}

template <typename T>
class ResizeBicubicOp : public OpKernel {
 public:
  explicit ResizeBicubicOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx,
                   ReadResizeAttrs(ctx, &align_corners_, &half_pixel_centers_));
  }

  void Compute(OpKernelContext* ctx) override {
    ResizeGeometry g;
    Tensor* output = nullptr;
    if (!PrepareResize(ctx, align_corners_, &g, &output)) return;
    if (output->NumElements() == 0) return;
    const std::vector<CubicTaps> ys = CubicTapsFor(
        g.out_height, g.in_height, g.height_scale, half_pixel_centers_);
    const std::vector<CubicTaps> xs = CubicTapsFor(
        g.out_width, g.in_width, g.width_scale, half_pixel_centers_);
    const T* in = ctx->input(0).base<const T>();
    float* out = output->base<float>();
    const int64_t c_count = g.channels;
    ForEachOutputRow(
        ctx, g, 40 * g.out_width * c_count, [&](int64_t b, int64_t y) {
          const int64_t row_size = g.in_width * c_count;
          std::array<const T*, 4> rows;
          for (int k = 0; k < 4; ++k) {
            rows[k] = in + (b * g.in_height + ys[y].index[k]) * row_size;
          }
          float* o = out + (b * g.out_height + y) * g.out_width * c_count;
          for (int64_t x = 0; x < g.out_width; ++x) {
            const CubicTaps& tx = xs[x];
            for (int64_t c = 0; c < c_count; ++c) {
              // Each of the four rows along x, then the rows along y.
              float sum = 0;
              for (int k = 0; k < 4; ++k) {
                const T* r = rows[k] + c;
                const float along_x =
                    tx.weight[0] *
                        static_cast<float>(r[tx.index[0] * c_count]) +
                    tx.weight[1] *
                        static_cast<float>(r[tx.index[1] * c_count]) +
                    tx.weight[2] *
                        static_cast<float>(r[tx.index[2] * c_count]) +
                    tx.weight[3] * static_cast<float>(r[tx.index[3] * c_count]);
                sum += ys[y].weight[k] * along_x;
              }
              o[x * c_count + c] = sum;
            }
          }
        });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

// TensorFlow's CPU types for the three ops: the real number types their
// OpDefs allow (not uint32 and uint64). The per-type code is one loop nest.
#define MF_CALL_RESIZE_TYPES(m)                                             \
  TF_CALL_int8(m) TF_CALL_uint8(m) TF_CALL_int16(m) TF_CALL_uint16(m)       \
      TF_CALL_int32(m) TF_CALL_int64(m) TF_CALL_half(m) TF_CALL_bfloat16(m) \
          TF_CALL_float(m) TF_CALL_double(m)

#define REGISTER_CPU(T)                                                        \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ResizeNearestNeighbor").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ResizeNearestNeighborOp<T>);                                             \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ResizeBilinear").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
      ResizeBilinearOp<T>);                                                    \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ResizeBicubic").Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
      ResizeBicubicOp<T>);
MF_CALL_RESIZE_TYPES(REGISTER_CPU)
#undef REGISTER_CPU
#undef MF_CALL_RESIZE_TYPES

}  // namespace
}  // namespace minflow
