// Image ops: ExtractImagePatches, the resize family (ResizeBilinear,
// ResizeNearestNeighbor, ResizeBicubic), CropAndResize and non-max
// suppression (NonMaxSuppressionV3-V5, CombinedNonMaxSuppression). Interfaces
// match TensorFlow's.
#include <algorithm>
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

// boxes [num_boxes, 4], scores [num_boxes] and scalar max_output_size,
// iou_threshold, score_threshold (and soft_nms_sigma when `soft`); the
// selection is a vector of unknown length, or of max_output_size when
// pad_to_max_output_size. Outputs after the selected indices (and scores)
// are the scalar valid_outputs.
Status NonMaxSuppressionShape(InferenceContext* c, bool soft,
                              bool has_valid_outputs) {
  ShapeHandle boxes;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &boxes));
  ShapeHandle scores;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &scores));
  ShapeHandle unused_shape;
  for (int i = 2; i < (soft ? 6 : 5); ++i) {
    MF_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &unused_shape));
  }
  DimensionHandle unused;
  MF_RETURN_IF_ERROR(c->Merge(c->Dim(boxes, 0), c->Dim(scores, 0), &unused));
  MF_RETURN_IF_ERROR(c->WithValue(c->Dim(boxes, 1), 4, &unused));
  const int selections = soft ? 2 : 1;
  bool pad = false;
  if (has_valid_outputs) {
    MF_RETURN_IF_ERROR(c->GetAttr("pad_to_max_output_size", &pad));
  }
  DimensionHandle length = c->UnknownDim();
  if (pad) MF_RETURN_IF_ERROR(c->MakeDimForScalarInput(2, &length));
  for (int i = 0; i < selections; ++i) c->set_output(i, c->Vector(length));
  if (has_valid_outputs) c->set_output(selections, c->Scalar());
  return OkStatus();
}

// boxes [batch, num_anchors, q, 4], scores [batch, num_anchors,
// num_classes] (q is 1 or num_classes) and four scalars -> nmsed_boxes
// [batch, size, 4], nmsed_scores and nmsed_classes [batch, size],
// valid_detections [batch], size being max_total_size, or with
// pad_per_class min(max_total_size, max_output_size_per_class *
// num_classes).
Status CombinedNonMaxSuppressionShape(InferenceContext* c) {
  ShapeHandle boxes;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &boxes));
  ShapeHandle scores;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 3, &scores));
  ShapeHandle unused_shape;
  for (int i = 2; i < 6; ++i) {
    MF_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &unused_shape));
  }
  DimensionHandle unused;
  MF_RETURN_IF_ERROR(c->Merge(c->Dim(boxes, 0), c->Dim(scores, 0), &unused));
  MF_RETURN_IF_ERROR(c->Merge(c->Dim(boxes, 1), c->Dim(scores, 1), &unused));
  MF_RETURN_IF_ERROR(c->WithValue(c->Dim(boxes, 3), 4, &unused));
  const DimensionHandle q = c->Dim(boxes, 2);
  const DimensionHandle classes = c->Dim(scores, 2);
  if (c->ValueKnown(q) && c->ValueKnown(classes) && c->Value(q) != 1 &&
      c->Value(q) != c->Value(classes)) {
    return errors::InvalidArgument(
        "third dimension of boxes must be either 1 or equal to the third "
        "dimension of scores");
  }
  DimensionHandle total;
  MF_RETURN_IF_ERROR(c->MakeDimForScalarInput(3, &total));
  if (c->ValueKnown(total) && c->Value(total) <= 0) {
    return errors::InvalidArgument("max_total_size should be > 0 ");
  }
  DimensionHandle per_class;
  MF_RETURN_IF_ERROR(c->MakeDimForScalarInput(2, &per_class));
  bool pad_per_class;
  MF_RETURN_IF_ERROR(c->GetAttr("pad_per_class", &pad_per_class));
  DimensionHandle size = c->UnknownDim();
  if (!pad_per_class) {
    size = total;
  } else {
    if (c->ValueKnown(per_class) && c->Value(per_class) <= 0) {
      return errors::InvalidArgument(
          "max_output_size_per_class must be > 0 if pad_per_class is true ");
    }
    if (c->ValueKnown(total) && c->ValueKnown(per_class) &&
        c->ValueKnown(classes)) {
      int64_t all_classes;
      if (__builtin_mul_overflow(c->Value(per_class), c->Value(classes),
                                 &all_classes)) {
        all_classes = c->Value(total);
      }
      size = c->MakeDim(std::min(c->Value(total), all_classes));
    }
  }
  const DimensionHandle batch = c->Dim(boxes, 0);
  c->set_output(0, c->MakeShape({batch, size, 4}));
  c->set_output(1, c->MakeShape({batch, size}));
  c->set_output(2, c->MakeShape({batch, size}));
  c->set_output(3, c->Vector(batch));
  return OkStatus();
}

}  // namespace

REGISTER_OP("NonMaxSuppressionV3")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("T_threshold: {half, float} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) {
      return NonMaxSuppressionShape(c, /*soft=*/false,
                                    /*has_valid_outputs=*/false);
    })
    .Doc(R"doc(
Greedily picks boxes by descending score, dropping those that overlap a picked one.

A box is dropped when its intersection over union with an already picked
box exceeds iou_threshold. Boxes scoring at or below score_threshold are
never picked.

boxes: [num_boxes, 4], each [y1, x1, y2, x2]; either corner order works.
scores: [num_boxes], one score per box.
max_output_size: A scalar, the most boxes to pick.
iou_threshold: A scalar in [0, 1].
score_threshold: A scalar.
selected_indices: Indices into boxes, best first.
)doc");

REGISTER_OP("NonMaxSuppressionV4")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T_threshold")
    .Input("score_threshold: T_threshold")
    .Output("selected_indices: int32")
    .Output("valid_outputs: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("T_threshold: {half, float} = DT_FLOAT")
    .Attr("pad_to_max_output_size: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return NonMaxSuppressionShape(c, /*soft=*/false,
                                    /*has_valid_outputs=*/true);
    })
    .Doc(R"doc(
NonMaxSuppressionV3 that can pad its output to max_output_size.

boxes: [num_boxes, 4], each [y1, x1, y2, x2]; either corner order works.
scores: [num_boxes], one score per box.
max_output_size: A scalar, the most boxes to pick.
iou_threshold: A scalar in [0, 1].
score_threshold: A scalar.
selected_indices: Indices into boxes, best first.
valid_outputs: A scalar, how many of selected_indices are real picks.
pad_to_max_output_size: Pad selected_indices with 0s to max_output_size.
)doc");

REGISTER_OP("NonMaxSuppressionV5")
    .Input("boxes: T")
    .Input("scores: T")
    .Input("max_output_size: int32")
    .Input("iou_threshold: T")
    .Input("score_threshold: T")
    .Input("soft_nms_sigma: T")
    .Output("selected_indices: int32")
    .Output("selected_scores: T")
    .Output("valid_outputs: int32")
    .Attr("T: {half, float} = DT_FLOAT")
    .Attr("pad_to_max_output_size: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      return NonMaxSuppressionShape(c, /*soft=*/true,
                                    /*has_valid_outputs=*/true);
    })
    .Doc(R"doc(
NonMaxSuppressionV4 with optional soft suppression, also returning the scores.

With soft_nms_sigma > 0, an overlapping box is not dropped: its score
decays by exp(-iou^2 / (2 * soft_nms_sigma)), a Gaussian of the overlap, and
it stays a candidate while its score is above score_threshold.

boxes: [num_boxes, 4], each [y1, x1, y2, x2]; either corner order works.
scores: [num_boxes], one score per box.
max_output_size: A scalar, the most boxes to pick.
iou_threshold: A scalar in [0, 1]; used by hard suppression.
score_threshold: A scalar.
soft_nms_sigma: A scalar; 0 gives hard suppression.
selected_indices: Indices into boxes, best first.
selected_scores: The (possibly decayed) score of each pick.
valid_outputs: A scalar, how many of selected_indices are real picks.
pad_to_max_output_size: Pad the outputs with 0s to max_output_size.
)doc");

REGISTER_OP("CombinedNonMaxSuppression")
    .Input("boxes: float")
    .Input("scores: float")
    .Input("max_output_size_per_class: int32")
    .Input("max_total_size: int32")
    .Input("iou_threshold: float")
    .Input("score_threshold: float")
    .Output("nmsed_boxes: float")
    .Output("nmsed_scores: float")
    .Output("nmsed_classes: float")
    .Output("valid_detections: int32")
    .Attr("pad_per_class: bool = false")
    .Attr("clip_boxes: bool = true")
    .SetShapeFn(CombinedNonMaxSuppressionShape)
    .Doc(R"doc(
Non-max suppression per image and class, then the best picks over all classes.

Score ties go to the lower box index within a class and to the lower class
across classes (TensorFlow leaves that order open).

boxes: [batch, num_boxes, q, 4]; q is 1 (boxes shared by every class) or
  the number of classes.
scores: [batch, num_boxes, num_classes].
max_output_size_per_class: A scalar, the most picks per class.
max_total_size: A scalar, the most picks per image.
nmsed_boxes: [batch, max_detections, 4], zero-padded.
nmsed_scores: [batch, max_detections], zero-padded.
nmsed_classes: [batch, max_detections], the class of each pick.
valid_detections: [batch], how many picks of each image are real.
pad_per_class: Size the outputs to max_output_size_per_class * num_classes
  (capped by max_total_size) instead of max_total_size.
clip_boxes: Clip the output boxes to [0, 1].
)doc");

REGISTER_OP("CropAndResize")
    .Input("image: T")
    .Input("boxes: float")
    .Input("box_ind: int32")
    .Input("crop_size: int32")
    .Output("crops: float")
    .Attr("T: {uint8, uint16, int8, int16, int32, int64, half, float, double}")
    .Attr("method: {'bilinear', 'nearest'} = 'bilinear'")
    .Attr("extrapolation_value: float = 0")
    .SetShapeFn(CropAndResizeShape)
    .Doc(R"doc(
Crops boxes out of a batch of images and resizes each to crop_size.

Boxes may extend past the image or be flipped; sample points outside the
image take extrapolation_value.

image: [batch, height, width, depth].
boxes: [num_boxes, 4], each [y1, x1, y2, x2] in coordinates normalised to
  [0, 1] over the image's height and width.
box_ind: [num_boxes], which image of the batch each box is on.
crop_size: A vector [crop_height, crop_width].
crops: [num_boxes, crop_height, crop_width, depth].
method: How to sample: bilinear or nearest.
)doc");

REGISTER_OP("ResizeBilinear")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, "
        "float, double, bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape)
    .Doc(R"doc(
Resizes a batch of NHWC images to size with bilinear interpolation.

size: A vector [new_height, new_width].
align_corners: Map the corner pixels of input and output onto each other.
half_pixel_centers: Sample at pixel centres (x + 0.5), as most image
  libraries do. Not with align_corners.
)doc");

REGISTER_OP("ResizeNearestNeighbor")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: T")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, "
        "bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape)
    .Doc(R"doc(
Resizes a batch of NHWC images to size, taking the nearest pixel.

size: A vector [new_height, new_width].
align_corners: Map the corner pixels of input and output onto each other.
half_pixel_centers: Sample at pixel centres (x + 0.5), as most image
  libraries do. Not with align_corners.
)doc");

REGISTER_OP("ResizeBicubic")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, "
        "bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false")
    .SetShapeFn(ResizeShape)
    .Doc(R"doc(
Resizes a batch of NHWC images to size with bicubic interpolation.

size: A vector [new_height, new_width].
align_corners: Map the corner pixels of input and output onto each other.
half_pixel_centers: Sample at pixel centres (x + 0.5), as most image
  libraries do. Not with align_corners.
)doc");

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
    .SetShapeFn(ExtractImagePatchesShape)
    .Doc(R"doc(
Gathers the patches of an NHWC image batch into the channel dimension.

Each output pixel holds one ksize_rows x ksize_cols patch, flattened in
row-major order with the channels innermost.

ksizes: [1, ksize_rows, ksize_cols, 1].
strides: [1, stride_rows, stride_cols, 1], the distance between patches.
rates: [1, rate_rows, rate_cols, 1], the spacing of the pixels a patch
  takes; 1 is a dense patch.
padding: SAME pads so that there are ceil(in / stride) patches per
  dimension, with zeros; VALID uses only patches that fit inside the image.
)doc");

}  // namespace minflow
