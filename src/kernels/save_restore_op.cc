// SaveV2, RestoreV2, MergeV2Checkpoints and ShardedFilename on the CPU: glue
// between the ops' inputs and the tensor bundle reader and writer
// (minflow/io/tensor_bundle.h), which hold the format and its checks.
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/str_format.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/io/tensor_bundle.h"

namespace minflow {
namespace {

// Checks SaveV2/RestoreV2's first three inputs: a scalar prefix and two
// vectors of `num_tensors` names and slice specs. Only empty slice specs
// (whole tensors) are supported.
Status ValidateSaveRestoreInputs(OpKernelContext* ctx, const char* op,
                                 int64_t num_tensors) {
  const Tensor& prefix = ctx->input(0);
  const Tensor& names = ctx->input(1);
  const Tensor& slices = ctx->input(2);
  if (!TensorShapeUtils::IsScalar(prefix.shape())) {
    return errors::InvalidArgument(op, ": prefix must be a scalar, but got ",
                                   "shape ", prefix.shape().DebugString());
  }
  if (!TensorShapeUtils::IsVector(names.shape()) ||
      !TensorShapeUtils::IsVector(slices.shape())) {
    return errors::InvalidArgument(
        op, ": tensor_names and shape_and_slices must be vectors, but got ",
        "shapes ", names.shape().DebugString(), " and ",
        slices.shape().DebugString());
  }
  if (names.NumElements() != num_tensors ||
      slices.NumElements() != num_tensors) {
    return errors::InvalidArgument(
        op, ": tensor_names and shape_and_slices must both have ", num_tensors,
        " elements (one per tensor), but got ", names.NumElements(), " and ",
        slices.NumElements());
  }
  const std::string& path = prefix.scalar<tstring>()();
  const auto name_flat = names.flat<tstring>();
  const auto slice_flat = slices.flat<tstring>();
  for (int64_t i = 0; i < num_tensors; ++i) {
    if (!slice_flat(i).empty()) {
      return errors::Unimplemented(
          op, " of checkpoint ", path, ": tensor ", name_flat(i),
          " has slice spec \"", slice_flat(i),
          "\", but minflow supports only whole tensors (an empty spec)");
    }
  }
  return OkStatus();
}

class SaveV2Op : public OpKernel {
 public:
  explicit SaveV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtypes", &dtypes_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int64_t num_tensors = ctx->num_inputs() - 3;
    OP_REQUIRES(
        ctx, num_tensors == static_cast<int64_t>(dtypes_.size()),
        errors::InvalidArgument("SaveV2: dtypes has ", dtypes_.size(),
                                " types, but got ", num_tensors, " tensors"));
    OP_REQUIRES_OK(ctx, ValidateSaveRestoreInputs(ctx, "SaveV2", num_tensors));
    const std::string& prefix = ctx->input(0).scalar<tstring>()();
    const auto names = ctx->input(1).flat<tstring>();
    BundleWriter writer(prefix);
    OP_REQUIRES_OK(ctx, writer.status());
    for (int64_t i = 0; i < num_tensors; ++i) {
      OP_REQUIRES_OK(ctx, writer.Add(names(i), ctx->input(3 + i)));
    }
    OP_REQUIRES_OK(ctx, writer.Finish());
  }

 private:
  DataTypeVector dtypes_;
};

class RestoreV2Op : public OpKernel {
 public:
  explicit RestoreV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtypes", &dtypes_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int64_t num_tensors = static_cast<int64_t>(dtypes_.size());
    OP_REQUIRES_OK(ctx,
                   ValidateSaveRestoreInputs(ctx, "RestoreV2", num_tensors));
    const std::string& prefix = ctx->input(0).scalar<tstring>()();
    const auto names = ctx->input(1).flat<tstring>();
    auto reader = BundleReader::Open(prefix);
    OP_REQUIRES_OK(ctx, reader.status());
    for (int64_t i = 0; i < num_tensors; ++i) {
      Tensor restored;
      OP_REQUIRES_OK(ctx, (*reader)->Lookup(names(i), &restored));
      OP_REQUIRES(
          ctx, restored.dtype() == dtypes_[i],
          errors::InvalidArgument(
              "tensor_name = ", names(i), "; expected dtype ",
              DataTypeString(dtypes_[i]), " does not equal restored dtype ",
              DataTypeString(restored.dtype()), " (checkpoint ", prefix, ")"));
      ctx->set_output(static_cast<int>(i), std::move(restored));
    }
  }

 private:
  DataTypeVector dtypes_;
};

class MergeV2CheckpointsOp : public OpKernel {
 public:
  explicit MergeV2CheckpointsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("delete_old_dirs", &delete_old_dirs_));
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("allow_missing_files", &allow_missing_files_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sources = ctx->input(0);
    const Tensor& destination = ctx->input(1);
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(sources.shape()),
                errors::InvalidArgument(
                    "MergeV2Checkpoints: checkpoint_prefixes must be a "
                    "vector, but got shape ",
                    sources.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(destination.shape()),
                errors::InvalidArgument(
                    "MergeV2Checkpoints: destination_prefix must be a scalar, "
                    "but got shape ",
                    destination.shape().DebugString()));
    const std::string& merged = destination.scalar<tstring>()();
    const auto flat = sources.flat<tstring>();
    const std::vector<std::string> prefixes(flat.data(),
                                            flat.data() + flat.size());
    OP_REQUIRES_OK(ctx, MergeBundles(prefixes, merged, allow_missing_files_));
    if (delete_old_dirs_) {
      // As TensorFlow does: each source's directory goes if it is now empty
      // and is not the destination's; failures are ignored.
      namespace fs = std::filesystem;
      const fs::path merged_dir = fs::path(merged).parent_path();
      for (const std::string& prefix : prefixes) {
        const fs::path dir = fs::path(prefix).parent_path();
        if (dir.empty() || dir == merged_dir) continue;
        std::error_code ec;
        if (fs::is_empty(dir, ec) && !ec) fs::remove(dir, ec);
      }
    }
  }

 private:
  bool delete_old_dirs_ = true;
  bool allow_missing_files_ = false;
};

// "<basename>-<shard>-of-<num_shards>", both numbers five digits wide, as
// TensorFlow names a sharded checkpoint's files.
class ShardedFilenameOp : public OpKernel {
 public:
  explicit ShardedFilenameOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < 3; ++i) {
      OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(ctx->input(i).shape()),
                  errors::InvalidArgument(
                      "ShardedFilename: input ", i, " must be a scalar, ",
                      "but got shape ", ctx->input(i).shape().DebugString()));
    }
    const int32_t shard = ctx->input(1).scalar<int32_t>()();
    const int32_t num_shards = ctx->input(2).scalar<int32_t>()();
    OP_REQUIRES(ctx, shard >= 0 && num_shards > 0 && shard < num_shards,
                errors::InvalidArgument(
                    "ShardedFilename: shard must be in [0, num_shards), but "
                    "got shard ",
                    shard, " and num_shards ", num_shards));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<tstring>()() =
        absl::StrFormat("%s-%05d-of-%05d", ctx->input(0).scalar<tstring>()(),
                        shard, num_shards);
  }
};

REGISTER_KERNEL_BUILDER(Name("SaveV2").Device(DEVICE_CPU), SaveV2Op);
REGISTER_KERNEL_BUILDER(Name("RestoreV2").Device(DEVICE_CPU), RestoreV2Op);
REGISTER_KERNEL_BUILDER(Name("ShardedFilename").Device(DEVICE_CPU),
                        ShardedFilenameOp);
REGISTER_KERNEL_BUILDER(Name("MergeV2Checkpoints").Device(DEVICE_CPU),
                        MergeV2CheckpointsOp);

}  // namespace
}  // namespace minflow
