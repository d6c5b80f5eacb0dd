// Ops that move data between the spatial dims and the depth or batch dim:
// DepthToSpace, SpaceToDepth, SpaceToBatchND and BatchToSpaceND. TensorFlow
// declares them in array_ops; they live here so that array_ops.cc keeps to
// indexing and reshaping. Interfaces match TensorFlow's.
#include <cstdint>
#include <string>
#include <vector>

#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"
#include "minflow/framework/tensor_format.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// DepthToSpace (`to_space`) or SpaceToDepth on [N, H, W, C], [N, C, H, W],
// or NCHW_VECT_C's [N, C/4, H, W, 4] (depth counted in groups of four).
Status DepthSpaceShape(InferenceContext* c, bool to_space) {
  std::string format_str;
  MF_RETURN_IF_ERROR(c->GetAttr("data_format", &format_str));
  const bool vect_c = format_str == "NCHW_VECT_C";
  TensorFormat format = FORMAT_NCHW;
  if (!vect_c)
    MF_RETURN_IF_ERROR(GetTensorFormatFromString(format_str, &format));
  ShapeHandle input;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), vect_c ? 5 : 4, &input));
  int64_t block_size;
  MF_RETURN_IF_ERROR(c->GetAttr("block_size", &block_size));
  if (block_size < 2) {
    return errors::InvalidArgument("Block size must be greater than 1.");
  }
  const int h = GetTensorDimIndex(format, 'H');
  const int w = GetTensorDimIndex(format, 'W');
  const int d = GetTensorDimIndex(format, 'C');
  DimensionHandle height;
  DimensionHandle width;
  DimensionHandle depth;
  if (to_space) {
    MF_RETURN_IF_ERROR(c->Multiply(c->Dim(input, h), block_size, &height));
    MF_RETURN_IF_ERROR(c->Multiply(c->Dim(input, w), block_size, &width));
    MF_RETURN_IF_ERROR(c->Divide(c->Dim(input, d), block_size * block_size,
                                 /*evenly_divisible=*/true, &depth));
  } else {
    MF_RETURN_IF_ERROR(c->Divide(c->Dim(input, h), block_size,
                                 /*evenly_divisible=*/true, &height));
    MF_RETURN_IF_ERROR(c->Divide(c->Dim(input, w), block_size,
                                 /*evenly_divisible=*/true, &width));
    MF_RETURN_IF_ERROR(
        c->Multiply(c->Dim(input, d), block_size * block_size, &depth));
  }
  std::vector<DimensionHandle> dims(vect_c ? 5 : 4);
  dims[0] = c->Dim(input, 0);
  dims[h] = height;
  dims[w] = width;
  dims[d] = depth;
  if (vect_c) dims[4] = c->MakeDim(4);
  c->set_output(0, c->MakeShape(dims));
  return OkStatus();
}

// The number of block dims M of SpaceToBatchND / BatchToSpaceND from
// block_shape's shape, and the input checked to have rank > M.
Status BlockDims(InferenceContext* c, ShapeHandle* input,
                 int64_t* num_block_dims) {
  const ShapeHandle block_shape = c->input(1);
  if (c->Rank(block_shape) != 1) {
    return errors::InvalidArgument("block_shape must have rank 1.");
  }
  const DimensionHandle m = c->Dim(block_shape, 0);
  if (!c->ValueKnown(m)) {
    return errors::InvalidArgument("block_shape must have known size.");
  }
  *num_block_dims = c->Value(m);
  MF_RETURN_IF_ERROR(
      c->WithRankAtLeast(c->input(0), *num_block_dims + 1, input));
  ShapeHandle unused;
  return c->Merge(c->input(2), c->Matrix(*num_block_dims, 2), &unused);
}

// input [B, S_1..S_M, R...] -> [B * prod(block), (S_i + pads) / block_i,
// R...] for SpaceToBatchND (`to_batch`), or [B / prod(block), S_i * block_i
// - crops, R...] for BatchToSpaceND; each part as far as the constant
// block_shape and paddings / crops tell.
Status SpaceBatchShape(InferenceContext* c, bool to_batch) {
  ShapeHandle input;
  int64_t m;
  MF_RETURN_IF_ERROR(BlockDims(c, &input, &m));
  const Tensor* block_t = c->input_tensor(1);
  const Tensor* pads_t = c->input_tensor(2);
  DimensionHandle batch = c->Dim(input, 0);
  std::vector<int64_t> block;
  if (block_t != nullptr) {
    MF_RETURN_IF_ERROR(
        shape_inference::GetIntValues(*block_t, "block_shape", &block));
    for (int64_t i = 0; i < m; ++i) {
      if (block[i] < 1) {
        return errors::InvalidArgument("block_shape must be positive");
      }
      if (!c->ValueKnown(batch)) {
        batch = c->UnknownDim();
      } else if (to_batch) {
        MF_RETURN_IF_ERROR(c->Multiply(batch, block[i], &batch));
      } else {
        MF_RETURN_IF_ERROR(
            c->Divide(batch, block[i], /*evenly_divisible=*/true, &batch));
      }
    }
  } else if (m > 0) {
    batch = c->UnknownDim();
    block_t = nullptr;
  }
  std::vector<DimensionHandle> dims(m + 1);
  for (auto& dim : dims) dim = c->UnknownDim();
  dims[0] = batch;
  if (pads_t != nullptr) {
    std::vector<int64_t> pads;
    MF_RETURN_IF_ERROR(shape_inference::GetIntValues(
        *pads_t, to_batch ? "paddings" : "crops", &pads));
    for (int64_t i = 0; i < m; ++i) {
      const int64_t start = pads[2 * i];
      const int64_t end = pads[2 * i + 1];
      if (start < 0 || end < 0) {
        return errors::InvalidArgument(to_batch ? "paddings" : "crops",
                                       " cannot be negative");
      }
      if (block_t == nullptr) continue;
      DimensionHandle size = c->Dim(input, i + 1);
      if (to_batch) {
        MF_RETURN_IF_ERROR(c->Add(size, start, &size));
        MF_RETURN_IF_ERROR(c->Add(size, end, &size));
        MF_RETURN_IF_ERROR(
            c->Divide(size, block[i], /*evenly_divisible=*/true, &dims[i + 1]));
      } else {
        MF_RETURN_IF_ERROR(c->Multiply(size, block[i], &size));
        MF_RETURN_IF_ERROR(c->Subtract(size, start, &size));
        MF_RETURN_IF_ERROR(c->Subtract(size, end, &dims[i + 1]));
      }
    }
  }
  ShapeHandle rest;
  MF_RETURN_IF_ERROR(c->Subshape(input, m + 1, &rest));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->Concatenate(c->MakeShape(dims), rest, &out));
  c->set_output(0, out);
  return OkStatus();
}

}  // namespace

REGISTER_OP("DepthToSpace")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn([](InferenceContext* c) {
      return DepthSpaceShape(c, /*to_space=*/true);
    })
    .Doc(R"doc(
Moves blocks of channels into block_size x block_size spatial blocks.

The inverse of SpaceToDepth: [b, h, w, c] becomes [b, h * block_size,
w * block_size, c / (block_size * block_size)].

block_size: The side of a spatial block; block_size * block_size must
  divide the channel count.
data_format: The layout of input and output; the CPU kernel takes NHWC
  only.
)doc");

REGISTER_OP("SpaceToDepth")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn([](InferenceContext* c) {
      return DepthSpaceShape(c, /*to_space=*/false);
    })
    .Doc(R"doc(
Moves each block_size x block_size spatial block into the channels.

[b, h, w, c] becomes [b, h / block_size, w / block_size,
c * block_size * block_size]; h and w must be multiples of block_size.

block_size: The side of a spatial block.
data_format: The layout of input and output; the CPU kernel takes NHWC
  only.
)doc");

REGISTER_OP("SpaceToBatchND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = DT_INT32")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn([](InferenceContext* c) {
      return SpaceBatchShape(c, /*to_batch=*/true);
    })
    .Doc(R"doc(
Pads the spatial dimensions and moves blocks of them into the batch dimension.

With M = len(block_shape), input is [batch] + spatial (M dims) + rest. The
padded spatial dims are divided by block_shape and the batch is multiplied
by prod(block_shape).

block_shape: A vector of M block sizes, each >= 1.
paddings: An [M, 2] matrix of (before, after) zero padding per spatial
  dimension; each padded size must be a multiple of its block size.
)doc");

REGISTER_OP("BatchToSpaceND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("crops: Tcrops")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = DT_INT32")
    .Attr("Tcrops: {int32, int64} = DT_INT32")
    .SetShapeFn([](InferenceContext* c) {
      return SpaceBatchShape(c, /*to_batch=*/false);
    })
    .Doc(R"doc(
Moves blocks of the batch dimension back into the spatial dimensions, then crops.

The inverse of SpaceToBatchND.

block_shape: A vector of M block sizes, each >= 1; the batch must be a
  multiple of their product.
crops: An [M, 2] matrix of (before, after) amounts to crop per spatial
  dimension.
)doc");

}  // namespace minflow
