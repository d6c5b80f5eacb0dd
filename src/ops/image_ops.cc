// Image ops: ExtractImagePatches, the resize family (ResizeBilinear,
// ResizeNearestNeighbor, ResizeBicubic) and CropAndResize. Interfaces match
// TensorFlow's.
#include <cstdint>
#include <vector>

#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/padding.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

Status GetFourIntsAttr(InferenceContext* c, const char* name,
                       std::vector<int64_t>* values) {
  MF_RETURN_IF_ERROR(c->GetAttr(name, values));
  if (values->size() != 4) {
    return errors::InvalidArgument(
        "ExtractImagePatches requires the ", name,
        " attribute to contain 4 values, but got: ", values->size());
  }
  return OkStatus();
}

// [N, H, W, C] -> [N, H', W', ksize_rows * ksize_cols * C]: every patch of
// the (dilated) window flattened into the depth.
Status ExtractImagePatchesShape(InferenceContext* c) {
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  std::vector<int64_t> ksizes;
  std::vector<int64_t> strides;
  std::vector<int64_t> rates;
  MF_RETURN_IF_ERROR(GetFourIntsAttr(c, "ksizes", &ksizes));
  MF_RETURN_IF_ERROR(GetFourIntsAttr(c, "strides", &strides));
  MF_RETURN_IF_ERROR(GetFourIntsAttr(c, "rates", &rates));
  if (ksizes[1] <= 0 || ksizes[2] <= 0) {
    return errors::InvalidArgument("ksizes must be positive, but got ",
                                   ksizes[1], " and ", ksizes[2]);
  }
  int64_t patch;
  if (__builtin_mul_overflow(ksizes[1], ksizes[2], &patch)) {
    return errors::InvalidArgument("ksizes overflow: ", ksizes[1], " * ",
                                   ksizes[2]);
  }
  DimensionHandle depth;
  MF_RETURN_IF_ERROR(c->Multiply(c->Dim(input, 3), patch, &depth));
  Padding padding;
  MF_RETURN_IF_ERROR(shape_inference::GetPaddingAttr(c, "padding", &padding));
  if (padding == EXPLICIT) {
    return errors::InvalidArgument(
        "ExtractImagePatches takes SAME or VALID "
        "padding");
  }
  DimensionHandle rows;
  DimensionHandle cols;
  MF_RETURN_IF_ERROR(shape_inference::GetWindowedOutputSizeFromDimsV2(
      c, c->Dim(input, 1), ksizes[1], rates[1], strides[1], padding, 0, 0,
      &rows));
  MF_RETURN_IF_ERROR(shape_inference::GetWindowedOutputSizeFromDimsV2(
      c, c->Dim(input, 2), ksizes[2], rates[2], strides[2], padding, 0, 0,
      &cols));
  c->set_output(0, c->MakeShape({c->Dim(input, 0), rows, cols, depth}));
  return OkStatus();
}

// [N, H, W, C] and size = [new_height, new_width] -> [N, new_height,
// new_width, C], the new sizes as far as the size tensor's value is known
// (TensorFlow's ResizeShapeFn; its values are checked by the kernels).
Status ResizeShape(InferenceContext* c) {
  ShapeHandle images;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &images));
  ShapeHandle size;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &size));
  DimensionHandle unused;
  MF_RETURN_IF_ERROR(c->WithValue(c->Dim(size, 0), 2, &unused));
  ShapeHandle new_size;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &new_size));
  MF_RETURN_IF_ERROR(c->WithRank(new_size, 2, &new_size));
  c->set_output(0, c->MakeShape({c->Dim(images, 0), c->Dim(new_size, 0),
                                 c->Dim(new_size, 1), c->Dim(images, 3)}));
  return OkStatus();
}

// image [N, H, W, C], boxes [num_boxes, 4], box_ind [num_boxes] and
// crop_size = [crop_height, crop_width] -> [num_boxes, crop_height,
// crop_width, C] (TensorFlow's SetOutputToSizedImage).
Status CropAndResizeShape(InferenceContext* c) {
  ShapeHandle image;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &image));
  ShapeHandle boxes;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &boxes));
  ShapeHandle box_ind;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &box_ind));
  DimensionHandle num_boxes;
  MF_RETURN_IF_ERROR(
      c->Merge(c->Dim(boxes, 0), c->Dim(box_ind, 0), &num_boxes));
  DimensionHandle unused;
  MF_RETURN_IF_ERROR(c->WithValue(c->Dim(boxes, 1), 4, &unused));
  ShapeHandle size;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(3), 1, &size));
  MF_RETURN_IF_ERROR(c->WithValue(c->Dim(size, 0), 2, &unused));
  ShapeHandle crop;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(3, &crop));
  MF_RETURN_IF_ERROR(c->WithRank(crop, 2, &crop));
  c->set_output(0, c->MakeShape({num_boxes, c->Dim(crop, 0), c->Dim(crop, 1),
                                 c->Dim(image, 3)}));
  return OkStatus();
}

}  // namespace

REGISTER_OP("CropAndResize")
    .Input("image: T")
    .Input("boxes: float")
    .Input("box_ind: int32")
    .Input("crop_size: int32")
    .Output("crops: float")
    .Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, double}")
    .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
    .Attr("extrapolation_value: float = 0")
    .SetShapeFn(CropAndResizeShape);

REGISTER_OP("ResizeBilinear")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, "
        "float, double, bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape);

REGISTER_OP("ResizeNearestNeighbor")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: T")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, "
        "bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape);

REGISTER_OP("ResizeBicubic")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, "
        "bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape);

REGISTER_OP("ExtractImagePatches")
    .Input("images: T")
    .Output("patches: T")
    .Attr("ksizes: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("rates: list(int) >= 4")
    .Attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, "
        "uint16, uint32, uint64, complex64, complex128, bool}")
    .Attr("padding: {'SAME', 'VALID'}")
    .SetShapeFn(ExtractImagePatchesShape);

}  // namespace minflow
