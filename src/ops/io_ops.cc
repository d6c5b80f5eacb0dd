// Checkpoint ops: SaveV2 and RestoreV2 write and read tensor bundles
// (minflow/io/tensor_bundle.h); MergeV2Checkpoints joins bundles into one;
// ShardedFilename names one shard of a sharded checkpoint.
// Interfaces match TensorFlow's.
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// prefix: scalar; tensor_names and shape_and_slices: vectors of one length.
Status CheckSaveRestoreInputs(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &unused));
  ShapeHandle names;
  ShapeHandle slices;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &names));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &slices));
  DimensionHandle unused_dim;
  return c->Merge(c->Dim(names, 0), c->Dim(slices, 0), &unused_dim);
}

Status SaveV2Shape(InferenceContext* c) {
  MF_RETURN_IF_ERROR(CheckSaveRestoreInputs(c));
  return shape_inference::NoOutputs(c);
}

// The restored shapes are known only when the file is read.
Status RestoreV2Shape(InferenceContext* c) {
  MF_RETURN_IF_ERROR(CheckSaveRestoreInputs(c));
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, c->UnknownShape());
  }
  return OkStatus();
}

Status MergeV2CheckpointsShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  return shape_inference::NoOutputs(c);
}

Status ShardedFilenameShape(InferenceContext* c) {
  ShapeHandle unused;
  for (int i = 0; i < 3; ++i) {
    MF_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &unused));
  }
  return shape_inference::ScalarShape(c);
}

}  // namespace

REGISTER_OP("SaveV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Input("tensors: dtypes")
    .Attr("dtypes: list(type) >= 1")
    .SetIsStateful()
    .SetShapeFn(SaveV2Shape)
    .Doc(R"doc(
Writes tensors to a checkpoint (a tensor bundle) under prefix.

prefix: A scalar, the path prefix of the bundle's files.
tensor_names: A vector, the name of each tensor in the bundle.
shape_and_slices: A vector of slice specs, one per tensor; minflow supports
  only "" (the whole tensor).
tensors: The tensors to save.
)doc");

REGISTER_OP("RestoreV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Output("tensors: dtypes")
    .Attr("dtypes: list(type) >= 1")
    .SetIsStateful()
    .SetShapeFn(RestoreV2Shape)
    .Doc(R"doc(
Reads tensors by name from the checkpoint under prefix.

prefix: A scalar, the path prefix of the bundle's files.
tensor_names: A vector, the names of the tensors to read.
shape_and_slices: A vector of slice specs, one per tensor; minflow supports
  only "" (the whole tensor).
dtypes: The types of the tensors, which must match the checkpoint.
)doc");

REGISTER_OP("MergeV2Checkpoints")
    .Input("checkpoint_prefixes: string")
    .Input("destination_prefix: string")
    .Attr("delete_old_dirs: bool = true")
    .Attr("allow_missing_files: bool = false")
    .SetIsStateful()
    .SetShapeFn(MergeV2CheckpointsShape)
    .Doc(R"doc(
Merges the checkpoint bundles under checkpoint_prefixes into one.

checkpoint_prefixes: A vector of bundle prefixes, such as the shards a
  sharded save wrote.
destination_prefix: A scalar, the prefix of the merged bundle.
delete_old_dirs: Remove the directories of the inputs when they are left
  empty.
allow_missing_files: Skip input bundles that do not exist instead of
  failing.
)doc");

REGISTER_OP("ShardedFilename")
    .Input("basename: string")
    .Input("shard: int32")
    .Input("num_shards: int32")
    .Output("filename: string")
    .SetShapeFn(ShardedFilenameShape)
    .Doc(R"doc(
The file name of one shard of a sharded checkpoint.

The result is basename-<shard>-of-<num_shards>, both numbers written with
five digits.

basename: A scalar.
shard: A scalar, counting from 0.
num_shards: A scalar.
)doc");

}  // namespace minflow
