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
    .SetShapeFn(ParseExampleShape)
    .Doc(R"doc(
Parses serialized tf.Example protos into tensors, one per feature key.

minflow's CPU kernel parses dense features of fixed shape only; sparse
features and dense ones with an unknown dimension are Unimplemented.

serialized: A vector of serialized Example protos.
names: A vector of names for the examples, used in error messages; may be
  empty.
sparse_keys: The feature names to parse as sparse tensors.
dense_keys: The feature names to parse as dense tensors.
dense_defaults: For each dense key, the value used when an example lacks
  the feature; an empty tensor makes the feature required.
sparse_indices: For each sparse key, the indices of its sparse tensor.
sparse_values: For each sparse key, the values of its sparse tensor.
sparse_shapes: For each sparse key, the dense shape of its sparse tensor.
dense_values: For each dense key, [batch] + its dense_shape.
sparse_types: The value type of each sparse feature.
Tdense: The value type of each dense feature.
dense_shapes: The shape of one example's value of each dense feature.
)doc");

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
    .SetShapeFn(ParseExampleV2Shape)
    .Doc(R"doc(
ParseExample with its keys as vector inputs, and ragged features.

minflow's CPU kernel parses dense features of fixed shape only; sparse and
ragged features and dense ones with an unknown dimension are
Unimplemented.

serialized: Serialized Example protos, of any shape; the dense outputs
  start with that shape.
names: Names for the examples, used in error messages; may be empty.
sparse_keys: A vector of the feature names to parse as sparse tensors.
dense_keys: A vector of the feature names to parse as dense tensors.
ragged_keys: A vector of the feature names to parse as ragged tensors.
dense_defaults: For each dense key, the value used when an example lacks
  the feature; an empty tensor makes the feature required.
dense_values: For each dense key, serialized's shape + its dense_shape.
ragged_values: For each ragged key, the flat values.
ragged_row_splits: For each ragged key, where each example's values start.
num_sparse: The number of sparse keys.
sparse_types: The value type of each sparse feature.
ragged_value_types: The value type of each ragged feature.
ragged_split_types: The type of each ragged feature's row splits.
Tdense: The value type of each dense feature.
dense_shapes: The shape of one example's value of each dense feature.
)doc");

}  // namespace minflow
