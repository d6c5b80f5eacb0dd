// CropAndResize (CPU): each box [y1, x1, y2, x2] (normalised coordinates,
// flipping allowed) of image box_ind[b] is sampled on a crop_height x
// crop_width grid, bilinearly or at the nearest pixel. Grid points outside
// the image take extrapolation_value. Coordinates are computed in float as
// TensorFlow does, so results match it bit for bit in the common cases.
#define EIGEN_USE_THREADS

#include <cmath>
#include <cstdint>
#include <string>

#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"

namespace minflow {
namespace {

// The input coordinate of grid point `i` of `n` along a box edge [lo, hi]
// of an image dimension of `size` pixels.
inline float GridCoordinate(int64_t i, int64_t n, float lo, float hi,
                            int64_t size) {
  const float extent = static_cast<float>(size - 1);
  if (n > 1) {
    const float scale = (hi - lo) * extent / static_cast<float>(n - 1);
    return lo * extent + static_cast<float>(i) * scale;
  }
  // TensorFlow's 0.5 is a double: the centre is computed in double.
  return static_cast<float>(0.5 * (lo + hi) * static_cast<double>(size - 1));
}

// NaN counts as outside, so it never reaches an index conversion.
inline bool Inside(float v, int64_t size) {
  return v >= 0 && v <= static_cast<float>(size - 1);
}

struct CropGeometry {
  int64_t batch = 0;
  int64_t height = 0;
  int64_t width = 0;
  int64_t depth = 0;
  int64_t num_boxes = 0;
  int64_t crop_height = 0;
  int64_t crop_width = 0;
};

// Output rows [r0, r1), a row being one (box, y) pair.
template <typename T>
void CropRows(const CropGeometry& g, const T* image, const float* boxes,
              const int32_t* box_ind, bool bilinear, float extrapolation,
              float* crops, int64_t r0, int64_t r1) {
  const int64_t depth = g.depth;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t b = r / g.crop_height;
    const int64_t y = r % g.crop_height;
    const float* box = boxes + 4 * b;
    const T* img = image + box_ind[b] * g.height * g.width * depth;
    float* out = crops + r * g.crop_width * depth;
    const float in_y =
        GridCoordinate(y, g.crop_height, box[0], box[2], g.height);
    if (!Inside(in_y, g.height)) {
      for (int64_t i = 0; i < g.crop_width * depth; ++i) out[i] = extrapolation;
      continue;
    }
    const int64_t top = static_cast<int64_t>(std::floor(in_y));
    const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
    const float y_lerp = in_y - static_cast<float>(top);
    const int64_t nearest_y = static_cast<int64_t>(std::round(in_y));
    for (int64_t x = 0; x < g.crop_width; ++x) {
      float* o = out + x * depth;
      const float in_x =
          GridCoordinate(x, g.crop_width, box[1], box[3], g.width);
      if (!Inside(in_x, g.width)) {
        for (int64_t d = 0; d < depth; ++d) o[d] = extrapolation;
        continue;
      }
      if (!bilinear) {
        const int64_t nearest_x = static_cast<int64_t>(std::round(in_x));
        const T* p = img + (nearest_y * g.width + nearest_x) * depth;
        for (int64_t d = 0; d < depth; ++d) o[d] = static_cast<float>(p[d]);
        continue;
      }
      const int64_t left = static_cast<int64_t>(std::floor(in_x));
      const int64_t right = static_cast<int64_t>(std::ceil(in_x));
      const float x_lerp = in_x - static_cast<float>(left);
      const T* tl = img + (top * g.width + left) * depth;
      const T* tr = img + (top * g.width + right) * depth;
      const T* bl = img + (bottom * g.width + left) * depth;
      const T* br = img + (bottom * g.width + right) * depth;
      for (int64_t d = 0; d < depth; ++d) {
        const float t =
            static_cast<float>(tl[d]) +
            (static_cast<float>(tr[d]) - static_cast<float>(tl[d])) * x_lerp;
        const float u =
            static_cast<float>(bl[d]) +
            (static_cast<float>(br[d]) - static_cast<float>(bl[d])) * x_lerp;
        o[d] = t + (u - t) * y_lerp;
      }
    }
  }
}

template <typename T>
class CropAndResizeOp : public OpKernel {
 public:
  explicit CropAndResizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string method;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("method", &method));
    OP_REQUIRES(ctx, method == "bilinear" || method == "nearest",
                errors::InvalidArgument(
                    "method must be 'bilinear' or 'nearest'", method));
    bilinear_ = method == "bilinear";
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("extrapolation_value", &extrapolation_value_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    const Tensor& box_ind = ctx->input(2);
    const Tensor& crop_size = ctx->input(3);
    OP_REQUIRES(ctx, image.dims() == 4,
                errors::InvalidArgument("input image must be 4-D",
                                        image.shape().DebugString()));
    CropGeometry g;
    g.batch = image.dim_size(0);
    g.height = image.dim_size(1);
    g.width = image.dim_size(2);
    g.depth = image.dim_size(3);
    OP_REQUIRES(ctx, g.height > 0 && g.width > 0,
                errors::InvalidArgument("image dimensions must be positive"));
    if (boxes.NumElements() != 0 || box_ind.NumElements() != 0) {
      OP_REQUIRES(ctx, boxes.dims() == 2,
                  errors::InvalidArgument("boxes must be 2-D",
                                          boxes.shape().DebugString()));
      g.num_boxes = boxes.dim_size(0);
      OP_REQUIRES(ctx, boxes.dim_size(1) == 4,
                  errors::InvalidArgument("boxes must have 4 columns"));
      OP_REQUIRES(ctx, box_ind.dims() == 1,
                  errors::InvalidArgument("box_index must be 1-D",
                                          box_ind.shape().DebugString()));
      OP_REQUIRES(ctx, box_ind.dim_size(0) == g.num_boxes,
                  errors::InvalidArgument("box_index has incompatible shape"));
    }
    OP_REQUIRES(ctx, crop_size.dims() == 1,
                errors::InvalidArgument("crop_size must be 1-D",
                                        crop_size.shape().DebugString()));
    OP_REQUIRES(ctx, crop_size.dim_size(0) == 2,
                errors::InvalidArgument("crop_size must have two elements",
                                        crop_size.shape().DebugString()));
    g.crop_height = crop_size.base<const int32_t>()[0];
    g.crop_width = crop_size.base<const int32_t>()[1];
    OP_REQUIRES(ctx, g.crop_height > 0 && g.crop_width > 0,
                errors::InvalidArgument("crop dimensions must be positive"));
    const int32_t* ind = box_ind.base<const int32_t>();
    for (int64_t b = 0; b < g.num_boxes; ++b) {
      OP_REQUIRES(
          ctx, ind[b] >= 0 && ind[b] < g.batch,
          errors::OutOfRange("box_index has values outside [0, batch_size): "
                             "box_index[",
                             b, "] = ", ind[b], " with batch_size ", g.batch));
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::BuildTensorShape(
                            {g.num_boxes, g.crop_height, g.crop_width, g.depth},
                            &out_shape));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;
    const T* img = image.base<const T>();
    const float* box = boxes.base<const float>();
    float* out = output->base<float>();
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    Shard(workers->num_threads, workers->workers, g.num_boxes * g.crop_height,
          g.crop_width * g.depth * 12, [&](int64_t r0, int64_t r1) {
            CropRows<T>(g, img, box, ind, bilinear_, extrapolation_value_, out,
                        r0, r1);
          });
  }

 private:
  bool bilinear_ = true;
  float extrapolation_value_ = 0;
};

#define REGISTER_CPU(T)                                 \
  REGISTER_KERNEL_BUILDER(Name("CropAndResize")         \
                              .Device(DEVICE_CPU)       \
                              .TypeConstraint<T>("T")   \
                              .HostMemory("crop_size"), \
                          CropAndResizeOp<T>);
TF_CALL_uint8(REGISTER_CPU) TF_CALL_uint16(REGISTER_CPU)
    TF_CALL_int8(REGISTER_CPU) TF_CALL_int16(REGISTER_CPU)
        TF_CALL_int32(REGISTER_CPU) TF_CALL_int64(REGISTER_CPU)
            TF_CALL_half(REGISTER_CPU) TF_CALL_float(REGISTER_CPU)
                TF_CALL_double(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
