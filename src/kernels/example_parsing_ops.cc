// ParseExample and ParseExampleV2 on the CPU, for dense features: each
// serialized tf.Example gives, for every dense key, the feature's values
// (or the key's default when the example lacks it) shaped as dense_shapes
// says, under the serialized input's shape.
//
// Sparse and ragged features, and variable-length dense ones (an unknown
// dimension in dense_shapes), are Unimplemented for now. The messages
// follow TensorFlow's ("Name: <unknown>, Feature: x ... is required but
// could not be found.") so that users can search for them.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "minflow/core/proto_limits.h"
#include "minflow/example.pb.h"
#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace {

struct DenseFeature {
  std::string key;
  DataType dtype = DT_INVALID;
  TensorShape shape;  // of one example's values
  const Tensor* default_value = nullptr;
};

Status ParseOneExample(const std::string& bytes, int64_t index,
                       Example* example) {
  google::protobuf::io::CodedInputStream input(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  input.SetRecursionLimit(kProtoRecursionLimit);
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !example->ParseFromCodedStream(&input) ||
      !input.ConsumedEntireMessage()) {
    return errors::InvalidArgument("Could not parse example input ", index,
                                   " (", bytes.size(), " bytes)");
  }
  return OkStatus();
}

// Copies `count` values of `feature` (which must hold `dtype`) to `out`.
Status CopyValues(const Feature& feature, const DenseFeature& dense,
                  int64_t index, int64_t count, Tensor* out, int64_t offset) {
  const auto mismatch = [&](int64_t size) {
    return errors::InvalidArgument(
        "Name: <unknown>, Key: ", dense.key, ", Index: ", index,
        ".  Number of ", DataTypeString(dense.dtype),
        " values != expected.  values size: ", size,
        " but output shape: ", dense.shape.DebugString());
  };
  const auto wrong_type = [&] {
    return errors::InvalidArgument("Name: <unknown>, Key: ", dense.key,
                                   ", Index: ", index,
                                   ".  Data types don't match. Expected type: ",
                                   DataTypeString(dense.dtype));
  };
  switch (dense.dtype) {
    case DT_FLOAT: {
      if (!feature.has_float_list()) return wrong_type();
      const auto& values = feature.float_list().value();
      if (values.size() != count) return mismatch(values.size());
      auto flat = out->flat<float>();
      for (int64_t i = 0; i < count; ++i) flat(offset + i) = values[i];
      return OkStatus();
    }
    case DT_INT64: {
      if (!feature.has_int64_list()) return wrong_type();
      const auto& values = feature.int64_list().value();
      if (values.size() != count) return mismatch(values.size());
      auto flat = out->flat<int64_t>();
      for (int64_t i = 0; i < count; ++i) flat(offset + i) = values[i];
      return OkStatus();
    }
    case DT_STRING: {
      if (!feature.has_bytes_list()) return wrong_type();
      const auto& values = feature.bytes_list().value();
      if (values.size() != count) return mismatch(values.size());
      auto flat = out->flat<tstring>();
      for (int64_t i = 0; i < count; ++i) flat(offset + i) = values[i];
      return OkStatus();
    }
    default:
      return errors::InvalidArgument("Unsupported dense dtype ",
                                     DataTypeString(dense.dtype));
  }
}

void CopyDefault(const Tensor& value, int64_t count, Tensor* out,
                 int64_t offset) {
  switch (value.dtype()) {
    case DT_FLOAT:
      for (int64_t i = 0; i < count; ++i) {
        out->flat<float>()(offset + i) = value.flat<float>()(i);
      }
      break;
    case DT_INT64:
      for (int64_t i = 0; i < count; ++i) {
        out->flat<int64_t>()(offset + i) = value.flat<int64_t>()(i);
      }
      break;
    default:
      for (int64_t i = 0; i < count; ++i) {
        out->flat<tstring>()(offset + i) = value.flat<tstring>()(i);
      }
      break;
  }
}

// Fills the dense outputs, starting at output `first_output`.
void ParseDense(OpKernelContext* ctx, const std::vector<DenseFeature>& dense,
                int first_output) {
  const Tensor& serialized = ctx->input(0);
  const auto examples = serialized.flat<tstring>();
  std::vector<Tensor*> outputs(dense.size(), nullptr);
  for (size_t j = 0; j < dense.size(); ++j) {
    TensorShape shape = serialized.shape();
    shape.AppendShape(dense[j].shape);
    OP_REQUIRES_OK(ctx, ctx->allocate_output(first_output + static_cast<int>(j),
                                             shape, &outputs[j]));
  }
  for (int64_t i = 0; i < examples.size(); ++i) {
    Example example;
    OP_REQUIRES_OK(ctx, ParseOneExample(examples(i), i, &example));
    const auto& features = example.features().feature();
    for (size_t j = 0; j < dense.size(); ++j) {
      const int64_t count = dense[j].shape.num_elements();
      const auto it = features.find(dense[j].key);
      if (it == features.end()) {
        OP_REQUIRES(ctx, dense[j].default_value->NumElements() > 0,
                    errors::InvalidArgument(
                        "Name: <unknown>, Feature: ", dense[j].key,
                        " (data type: ", DataTypeString(dense[j].dtype),
                        ") is required but could not be found."));
        CopyDefault(*dense[j].default_value, count, outputs[j], i * count);
        continue;
      }
      OP_REQUIRES_OK(ctx, CopyValues(it->second, dense[j], i, count, outputs[j],
                                     i * count));
    }
  }
}

// Checks the dense keys' shapes and defaults; `keys` are the dense keys.
Status MakeDense(OpKernelContext* ctx, const std::vector<std::string>& keys,
                 const DataTypeVector& dtypes,
                 const std::vector<PartialTensorShape>& shapes,
                 int first_default_input, std::vector<DenseFeature>* dense) {
  if (keys.size() != dtypes.size() || keys.size() != shapes.size()) {
    return errors::InvalidArgument(
        "Expected len(dense_keys) == len(Tdense) == len(dense_shapes), but "
        "got ",
        keys.size(), ", ", dtypes.size(), " and ", shapes.size());
  }
  for (size_t j = 0; j < keys.size(); ++j) {
    DenseFeature feature;
    feature.key = keys[j];
    feature.dtype = dtypes[j];
    if (!shapes[j].AsTensorShape(&feature.shape)) {
      return errors::Unimplemented(
          "Dense feature '", keys[j], "' has shape ", shapes[j].DebugString(),
          ": minflow parses fixed-length dense features only");
    }
    feature.default_value = &ctx->input(first_default_input + j);
    const int64_t n = feature.default_value->NumElements();
    if (n != 0 && n != feature.shape.num_elements()) {
      return errors::InvalidArgument(
          "Default value for key '", keys[j], "' must have ",
          feature.shape.num_elements(), " elements (shape ",
          feature.shape.DebugString(), ") or none, but has ", n);
    }
    dense->push_back(std::move(feature));
  }
  return OkStatus();
}

Status CheckSerialized(OpKernelContext* ctx, bool vector_only) {
  const TensorShape& shape = ctx->input(0).shape();
  if (shape.dims() > 1 || (vector_only && shape.dims() != 1)) {
    return errors::InvalidArgument("Expected serialized to be a ",
                                   vector_only ? "" : "scalar or ",
                                   "vector, got shape: ", shape.DebugString());
  }
  return OkStatus();
}

class ParseExampleOp : public OpKernel {
 public:
  explicit ParseExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Nsparse", &num_sparse_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Ndense", &num_dense_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Tdense", &dense_types_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dense_shapes", &dense_shapes_));
    OP_REQUIRES(ctx, num_sparse_ == 0,
                errors::Unimplemented("ParseExample: minflow parses dense "
                                      "features only, but got ",
                                      num_sparse_, " sparse keys"));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, CheckSerialized(ctx, /*vector_only=*/true));
    // Inputs: serialized, names, sparse_keys (0), dense_keys, defaults.
    std::vector<std::string> keys;
    for (int j = 0; j < num_dense_; ++j) {
      const Tensor& key = ctx->input(2 + j);
      OP_REQUIRES(
          ctx, key.NumElements() == 1,
          errors::InvalidArgument("dense_keys[", j, "] must be a scalar"));
      keys.push_back(key.flat<tstring>()(0));
    }
    std::vector<DenseFeature> dense;
    OP_REQUIRES_OK(ctx, MakeDense(ctx, keys, dense_types_, dense_shapes_,
                                  2 + num_dense_, &dense));
    ParseDense(ctx, dense, 0);
  }

 private:
  int num_sparse_ = 0;
  int num_dense_ = 0;
  DataTypeVector dense_types_;
  std::vector<PartialTensorShape> dense_shapes_;
};

class ParseExampleV2Op : public OpKernel {
 public:
  explicit ParseExampleV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_sparse", &num_sparse_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Tdense", &dense_types_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dense_shapes", &dense_shapes_));
    DataTypeVector ragged_types;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ragged_value_types", &ragged_types));
    OP_REQUIRES(
        ctx, num_sparse_ == 0 && ragged_types.empty(),
        errors::Unimplemented(
            "ParseExampleV2: minflow parses dense features only, but "
            "got ",
            num_sparse_, " sparse and ", ragged_types.size(), " ragged keys"));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, CheckSerialized(ctx, /*vector_only=*/false));
    // Inputs: serialized, names, sparse_keys, dense_keys, ragged_keys,
    // dense_defaults.
    const Tensor& dense_keys = ctx->input(3);
    OP_REQUIRES(ctx, dense_keys.dims() <= 1,
                errors::InvalidArgument("dense_keys must be a vector, got "
                                        "shape: ",
                                        dense_keys.shape().DebugString()));
    std::vector<std::string> keys;
    for (int64_t j = 0; j < dense_keys.NumElements(); ++j) {
      keys.push_back(dense_keys.flat<tstring>()(j));
    }
    std::vector<DenseFeature> dense;
    OP_REQUIRES_OK(
        ctx, MakeDense(ctx, keys, dense_types_, dense_shapes_, 5, &dense));
    ParseDense(ctx, dense, 0);
  }

 private:
  int num_sparse_ = 0;
  DataTypeVector dense_types_;
  std::vector<PartialTensorShape> dense_shapes_;
};

REGISTER_KERNEL_BUILDER(Name("ParseExample").Device(DEVICE_CPU),
                        ParseExampleOp);
REGISTER_KERNEL_BUILDER(Name("ParseExampleV2").Device(DEVICE_CPU),
                        ParseExampleV2Op);

}  // namespace
}  // namespace minflow
