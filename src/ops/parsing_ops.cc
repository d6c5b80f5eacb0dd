// tf.Example parsing: ParseExample and ParseExampleV2, as in TensorFlow
// Serving's regress and classify signatures. Interfaces match TensorFlow's;
// the CPU kernels (src/kernels/example_parsing_ops.cc) parse dense features
// only.
#include <vector>

#include "minflow/core/tensor_shape.h"
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// The outputs of both ops for `num_sparse` sparse and `dense_shapes` dense
// features, starting at output 0: sparse indices [?, rank + 1], values
// [?] and dense shapes [rank + 1], where rank is serialized's (0 or 1),
// then each dense value as serialized's shape followed by its feature's.
Status ParseExampleOutputs(InferenceContext* c, int num_sparse,
                           const std::vector<PartialTensorShape>& dense_shapes,
                           int* next_output) {
  ShapeHandle serialized;
  MF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(0), 1, &serialized));
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &unused));
  const int64_t index_width = c->RankKnown(serialized)
                                  ? c->Rank(serialized) + 1
                                  : InferenceContext::kUnknownDim;
  int out = 0;
  for (int i = 0; i < num_sparse; ++i) {
    c->set_output(out++, c->Matrix(InferenceContext::kUnknownDim, index_width));
  }
  for (int i = 0; i < num_sparse; ++i) {
    c->set_output(out++, c->Vector(InferenceContext::kUnknownDim));
  }
  for (int i = 0; i < num_sparse; ++i) {
    c->set_output(out++, c->Vector(index_width));
  }
  for (const PartialTensorShape& shape : dense_shapes) {
    ShapeHandle feature;
    MF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &feature));
    ShapeHandle dense;
    MF_RETURN_IF_ERROR(c->Concatenate(serialized, feature, &dense));
    c->set_output(out++, dense);
  }
  *next_output = out;
  return OkStatus();
}

Status ParseExampleShape(InferenceContext* c) {
  int num_sparse = 0;
  MF_RETURN_IF_ERROR(c->GetAttr("Nsparse", &num_sparse));
  std::vector<PartialTensorShape> dense_shapes;
  MF_RETURN_IF_ERROR(c->GetAttr("dense_shapes", &dense_shapes));
  int next = 0;
  return ParseExampleOutputs(c, num_sparse, dense_shapes, &next);
}

// As ParseExample, then ragged values and row splits, both vectors.
Status ParseExampleV2Shape(InferenceContext* c) {
  int num_sparse = 0;
  MF_RETURN_IF_ERROR(c->GetAttr("num_sparse", &num_sparse));
  std::vector<PartialTensorShape> dense_shapes;
  MF_RETURN_IF_ERROR(c->GetAttr("dense_shapes", &dense_shapes));
  int next = 0;
  MF_RETURN_IF_ERROR(ParseExampleOutputs(c, num_sparse, dense_shapes, &next));
  for (; next < c->num_outputs(); ++next) {
    c->set_output(next, c->Vector(InferenceContext::kUnknownDim));
  }
  return OkStatus();
}

}  // namespace

REGISTER_OP("ParseExample")
    .Input("serialized: string")
    .Input("names: string")
    .Input("sparse_keys: Nsparse * string")
    .Input("dense_keys: Ndense * string")
    .Input("dense_defaults: Tdense")
    .Output("sparse_indices: Nsparse * int64")
    .Output("sparse_values: sparse_types")
    .Output("sparse_shapes: Nsparse * int64")
    .Output("dense_values: Tdense")
    .Attr("Nsparse: int >= 0")
    .Attr("Ndense: int >= 0")
    .Attr("sparse_types: list({float,int64,string}) >= 0")
    .Attr("Tdense: list({float,int64,string}) >= 0")
    .Attr("dense_shapes: list(shape) >= 0")
    .SetShapeFn(ParseExampleShape);

REGISTER_OP("ParseExampleV2")
    .Input("serialized: string")
    .Input("names: string")
    .Input("sparse_keys: string")
    .Input("dense_keys: string")
    .Input("ragged_keys: string")
    .Input("dense_defaults: Tdense")
    .Output("sparse_indices: num_sparse * int64")
    .Output("sparse_values: sparse_types")
    .Output("sparse_shapes: num_sparse * int64")
    .Output("dense_values: Tdense")
    .Output("ragged_values: ragged_value_types")
    .Output("ragged_row_splits: ragged_split_types")
    .Attr("Tdense: list({float,int64,string}) >= 0")
    .Attr("num_sparse: int >= 0")
    .Attr("sparse_types: list({float,int64,string}) >= 0")
    .Attr("ragged_value_types: list({float,int64,string}) >= 0")
    .Attr("ragged_split_types: list({int32,int64}) >= 0")
    .Attr("dense_shapes: list(shape) >= 0")
    .SetShapeFn(ParseExampleV2Shape);

}  // namespace minflow
