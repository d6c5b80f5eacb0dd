// TensorFlow 1's TensorArray kernels (the V3 ops). TensorArrayV3 creates a
// TensorArray (tensor_array.h) in the step's container under a name unique
// in the process, so the arrays of several nodes, loop iterations and
// concurrent steps never collide, and the executor drops them when the step
// ends. The other kernels find it through the handle in input 0; their
// flow inputs and outputs carry no data, only the order TF's Python gives
// the ops. Messages are TensorFlow's.
#include <atomic>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "minflow/core/refcount.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/resource_lookup.h"
#include "minflow/framework/step_container.h"
#include "src/kernels/data_movement.h"
#include "src/kernels/tensor_array.h"

namespace minflow {
namespace {

// The TensorArray behind input 0, with a reference the caller must drop.
Status GetTensorArray(OpKernelContext* ctx, TensorArray** array) {
  const ResourceHandle* handle = nullptr;
  MF_RETURN_IF_ERROR(HandleFromInput(ctx, 0, &handle));
  return LookupResource<TensorArray>(ctx, *handle, array);
}

// Output `output` is the flow input `input`, which must be a scalar.
Status ForwardFlow(OpKernelContext* ctx, int input, int output) {
  const Tensor& flow = ctx->input(input);
  if (!TensorShapeUtils::IsScalar(flow.shape())) {
    return errors::InvalidArgument("flow_in must be a scalar, but got shape ",
                                   flow.shape().DebugString());
  }
  ctx->set_output(output, flow);
  return OkStatus();
}

Status CheckReadDtype(const TensorArray& array, DataType requested) {
  if (array.dtype() == requested) return OkStatus();
  return errors::InvalidArgument(
      "TensorArray dtype is ", DataTypeString(array.dtype()),
      " but Op requested dtype ", DataTypeString(requested), ".");
}

Status CheckWriteDtype(const TensorArray& array, const Tensor& value) {
  if (array.dtype() == value.dtype()) return OkStatus();
  return errors::InvalidArgument(
      "TensorArray dtype is ", DataTypeString(array.dtype()),
      " but Op is trying to write dtype ", DataTypeString(value.dtype()), ".");
}

// Gather, Concat, Scatter and Split move elements' bytes.
Status CheckMovable(DataType dtype) {
  if (IsMovableDataType(dtype)) return OkStatus();
  return errors::Unimplemented("TensorArray of ", DataTypeString(dtype),
                               " does not support this op");
}

// A scalar int32 index.
Status GetIndex(OpKernelContext* ctx, int input, int32_t* index) {
  const Tensor& t = ctx->input(input);
  if (!TensorShapeUtils::IsScalar(t.shape())) {
    return errors::InvalidArgument(
        "TensorArray index must be scalar, but had shape: ",
        t.shape().DebugString());
  }
  *index = t.scalar<int32_t>()();
  return OkStatus();
}

// A vector of int32 indices.
Status GetIndices(OpKernelContext* ctx, int input,
                  std::vector<int32_t>* indices) {
  const Tensor& t = ctx->input(input);
  if (!TensorShapeUtils::IsVector(t.shape())) {
    return errors::InvalidArgument(
        "Expected indices to be a vector, but received shape: ",
        t.shape().DebugString());
  }
  const auto v = t.vec<int32_t>();
  indices->assign(v.data(), v.data() + v.size());
  return OkStatus();
}

// Rows [start, limit) of `value` as one element of `shape`, sharing the
// buffer when the rows are aligned (Eigen views need that), else a copy.
Tensor Rows(const Tensor& value, int64_t start, int64_t limit,
            const TensorShape& shape) {
  Tensor rows = value.Slice(start, limit);
  if (!rows.IsAligned()) rows = rows.DeepCopy();
  Tensor element;
  MF_CHECK(element.CopyFrom(rows, shape));
  return element;
}

// [n] + shape; InvalidArgument past the maximum rank or element count
// (repeated gather indices can ask for more than memory holds).
Status PrependDim(int64_t n, const TensorShape& shape, TensorShape* out) {
  std::vector<int64_t> dims;
  dims.reserve(shape.dims() + 1);
  dims.push_back(n);
  for (int64_t d : shape.dim_sizes()) dims.push_back(d);
  return TensorShape::BuildTensorShape(dims, out);
}

// `values` (all non-empty pieces of `dtype`) one after another into `out`.
void CopyOneAfterAnother(OpKernelContext* ctx,
                         const std::vector<Tensor>& values, Tensor* out) {
  std::vector<const void*> pieces;
  std::vector<int64_t> widths;
  pieces.reserve(values.size());
  widths.reserve(values.size());
  for (const Tensor& v : values) {
    widths.push_back(v.NumElements());
    pieces.push_back(v.NumElements() == 0 ? nullptr : ElementAt(v, 0));
  }
  if (out->NumElements() == 0) return;
  ConcatRows(ctx->device()->tensorflow_cpu_worker_threads(), out->dtype(),
             pieces, widths, /*rows=*/1, const_cast<void*>(ElementAt(*out, 0)));
}

class TensorArrayOp : public OpKernel {
 public:
  explicit TensorArrayOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &element_shape_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dynamic_size", &dynamic_size_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("clear_after_read", &clear_after_read_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("identical_element_shapes",
                                     &identical_element_shapes_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("tensor_array_name", &name_));
    if (name_.empty()) name_ = name();
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& size = ctx->input(0);
    OP_REQUIRES(ctx, TensorShapeUtils::IsScalar(size.shape()),
                errors::InvalidArgument(
                    "TensorArray size must be scalar, but had shape: ",
                    size.shape().DebugString()));
    const int32_t n = size.scalar<int32_t>()();
    OP_REQUIRES(ctx, n >= 0,
                errors::InvalidArgument("Size should be >= 0, but got ", n));
    OP_REQUIRES(ctx, n <= TensorArray::kMaxSize,
                errors::ResourceExhausted("TensorArray size ", n,
                                          " is past the limit of ",
                                          TensorArray::kMaxSize, " elements"));
    OP_REQUIRES(ctx, ctx->step_container() != nullptr,
                errors::FailedPrecondition(
                    "TensorArrayV3 must run in a step (it has no step "
                    "container to hold the TensorArray)"));
    // Process-wide, like TensorFlow's: one counter per kernel would let two
    // nodes with the same tensor_array_name collide in one step.
    static std::atomic<int64_t> counter{0};
    const std::string unique = absl::StrCat(name_, "_", counter.fetch_add(1));
    const ResourceHandle handle = MakeResourceHandle<TensorArray>(
        ctx, ctx->step_container()->name(), unique, {{dtype_, element_shape_}});
    OP_REQUIRES_OK(ctx, CreateResource<TensorArray>(
                            ctx, handle,
                            new TensorArray(unique, dtype_, element_shape_, n,
                                            dynamic_size_, clear_after_read_,
                                            identical_element_shapes_)));
    OP_REQUIRES_OK(ctx, MakeResourceHandleToOutput(ctx, 0, handle));
    Tensor* flow = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(), &flow));
    flow->scalar<float>()() = 0.0f;
  }
  bool IsExpensive() override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
  PartialTensorShape element_shape_;
  bool dynamic_size_ = false;
  bool clear_after_read_ = true;
  bool identical_element_shapes_ = false;
  std::string name_;
};

class TensorArrayWriteOp : public OpKernel {
 public:
  explicit TensorArrayWriteOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    int32_t index = 0;
    OP_REQUIRES_OK(ctx, GetIndex(ctx, 1, &index));
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    core::ScopedUnref unref(array);
    const Tensor& value = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckWriteDtype(*array, value));
    OP_REQUIRES_OK(ctx, array->Write(index, value));
    OP_REQUIRES_OK(ctx, ForwardFlow(ctx, 3, 0));
  }
  bool IsExpensive() override { return false; }
};

class TensorArrayReadOp : public OpKernel {
 public:
  explicit TensorArrayReadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    int32_t index = 0;
    OP_REQUIRES_OK(ctx, GetIndex(ctx, 1, &index));
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    core::ScopedUnref unref(array);
    OP_REQUIRES_OK(ctx, CheckReadDtype(*array, dtype_));
    Tensor value;
    OP_REQUIRES_OK(ctx, array->Read(ctx, index, &value));
    ctx->set_output(0, std::move(value));
  }
  bool IsExpensive() override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
};

// Stacks the elements at `indices`: [len(indices)] + element shape.
class TensorArrayGatherOp : public OpKernel {
 public:
  explicit TensorArrayGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &element_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<int32_t> indices;
    OP_REQUIRES_OK(ctx, GetIndices(ctx, 1, &indices));
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    core::ScopedUnref unref(array);
    OP_REQUIRES_OK(ctx, CheckReadDtype(*array, dtype_));
    OP_REQUIRES_OK(ctx, CheckMovable(dtype_));
    // The op's element_shape narrows the array's, as in TensorFlow.
    OP_REQUIRES_OK(ctx, array->MergeElementShape(element_shape_));
    const int64_t n = static_cast<int64_t>(indices.size());
    if (n == 0) {
      PartialTensorShape element_shape;
      OP_REQUIRES_OK(ctx, array->ElementShape(&element_shape));
      TensorShape shape;
      OP_REQUIRES(ctx, element_shape.AsTensorShape(&shape),
                  errors::InvalidArgument(
                      "TensorArray has size zero, but element shape ",
                      element_shape.DebugString(),
                      " is not fully defined. Currently only static shapes are "
                      "supported when packing zero-size TensorArrays."));
      OP_REQUIRES_OK(ctx, PrependDim(0, shape, &shape));
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
      return;
    }
    std::vector<Tensor> values;
    OP_REQUIRES_OK(ctx, array->ReadMany(ctx, indices, &values));
    const TensorShape& first = values[0].shape();
    OP_REQUIRES(
        ctx, element_shape_.IsCompatibleWith(first),
        errors::InvalidArgument("TensorArray was passed element_shape ",
                                element_shape_.DebugString(),
                                " which does not match the Tensor at index 0: ",
                                first.DebugString()));
    for (int64_t i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, values[i].shape() == first,
                  errors::InvalidArgument(
                      "TensorArray has inconsistent shapes.  Index 0 has "
                      "shape: ",
                      first.DebugString(), " but index ", i,
                      " has shape: ", values[i].shape().DebugString()));
    }
    TensorShape shape;
    OP_REQUIRES_OK(ctx, PrependDim(n, first, &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    CopyOneAfterAnother(ctx, values, out);
  }

 private:
  DataType dtype_ = DT_INVALID;
  PartialTensorShape element_shape_;
};

// Writes row i of value at indices[i].
class TensorArrayScatterOp : public OpKernel {
 public:
  explicit TensorArrayScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    std::vector<int32_t> indices;
    OP_REQUIRES_OK(ctx, GetIndices(ctx, 1, &indices));
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    core::ScopedUnref unref(array);
    const Tensor& value = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckWriteDtype(*array, value));
    OP_REQUIRES_OK(ctx, CheckMovable(value.dtype()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsVectorOrHigher(value.shape()),
                errors::InvalidArgument(
                    "Input value for unpack must be at least a vector but "
                    "received shape: ",
                    value.shape().DebugString()));
    const int64_t n = static_cast<int64_t>(indices.size());
    OP_REQUIRES(ctx, n == value.dim_size(0),
                errors::InvalidArgument(
                    "Expected len(indices) == values.shape[0], but saw: ", n,
                    " vs. ", value.dim_size(0)));
    TensorShape element_shape = value.shape();
    element_shape.RemoveDim(0);
    std::vector<Tensor> elements;
    elements.reserve(indices.size());
    for (int64_t i = 0; i < n; ++i) {
      elements.push_back(Rows(value, i, i + 1, element_shape));
    }
    // Out-of-range and negative indices fail in the write, with its
    // message.
    OP_REQUIRES_OK(ctx, array->WriteMany(indices, elements));
    OP_REQUIRES_OK(ctx, ForwardFlow(ctx, 3, 0));
  }
};

// Every element one after another along dimension 0, and their lengths.
class TensorArrayConcatOp : public OpKernel {
 public:
  explicit TensorArrayConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(
        ctx, ctx->GetAttr("element_shape_except0", &element_shape_except0_));
  }

  void Compute(OpKernelContext* ctx) override {
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    core::ScopedUnref unref(array);
    OP_REQUIRES_OK(ctx, CheckReadDtype(*array, dtype_));
    OP_REQUIRES_OK(ctx, CheckMovable(dtype_));
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, array->Size(&size));
    Tensor* lengths = nullptr;
    if (size == 0) {
      TensorShape shape;
      OP_REQUIRES(ctx, element_shape_except0_.AsTensorShape(&shape),
                  errors::InvalidArgument(
                      "TensorArray has size zero, but element_shape_except0 ",
                      element_shape_except0_.DebugString(),
                      " is not fully defined. Currently only static shapes are "
                      "supported when concatenating zero-size TensorArrays."));
      OP_REQUIRES_OK(ctx, PrependDim(0, shape, &shape));
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({0}), &lengths));
      return;
    }
    std::vector<int32_t> indices(size);
    for (int32_t i = 0; i < size; ++i) indices[i] = i;
    std::vector<Tensor> values;
    OP_REQUIRES_OK(ctx, array->ReadMany(ctx, indices, &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({size}), &lengths));
    auto lengths_v = lengths->vec<int64_t>();
    TensorShape except0;
    int64_t rows = 0;
    for (int32_t i = 0; i < size; ++i) {
      const TensorShape& shape = values[i].shape();
      OP_REQUIRES(ctx, TensorShapeUtils::IsVectorOrHigher(shape),
                  errors::InvalidArgument(
                      "Concat saw a scalar shape at index ", i,
                      " but requires at least vectors.  Did you mean to call "
                      "stack instead?"));
      TensorShape rest = shape;
      rest.RemoveDim(0);
      if (i == 0) {
        except0 = rest;
        OP_REQUIRES(ctx, element_shape_except0_.IsCompatibleWith(except0),
                    errors::InvalidArgument(
                        "TensorArray was passed element_shape_except0 ",
                        element_shape_except0_.DebugString(),
                        " but index 0 has (excepting dimension 0) shape: ",
                        except0.DebugString(), " which does not match."));
      } else {
        OP_REQUIRES(
            ctx, rest == except0,
            errors::InvalidArgument(
                "TensorArray has inconsistent shapes.  Index 0 has "
                "(excepting dimension 0) shape: ",
                except0.DebugString(), " but index ", i,
                " has (excepting dimension 0) shape: ", rest.DebugString()));
      }
      lengths_v(i) = shape.dim_size(0);
      // Elements with no columns can have any number of rows.
      OP_REQUIRES(
          ctx, shape.dim_size(0) <= std::numeric_limits<int64_t>::max() - rows,
          errors::InvalidArgument(
              "Concatenating the TensorArray's elements overflows "
              "dimension 0"));
      rows += shape.dim_size(0);
    }
    TensorShape shape;
    OP_REQUIRES_OK(ctx, PrependDim(rows, except0, &shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    CopyOneAfterAnother(ctx, values, out);
  }

 private:
  DataType dtype_ = DT_INVALID;
  PartialTensorShape element_shape_except0_;
};

// Element i is the next lengths[i] rows of value.
class TensorArraySplitOp : public OpKernel {
 public:
  explicit TensorArraySplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    core::ScopedUnref unref(array);
    const Tensor& value = ctx->input(1);
    const Tensor& lengths = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckWriteDtype(*array, value));
    OP_REQUIRES_OK(ctx, CheckMovable(value.dtype()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsVector(lengths.shape()),
                errors::InvalidArgument(
                    "Expected lengths to be a vector, received shape: ",
                    lengths.shape().DebugString()));
    OP_REQUIRES(ctx, TensorShapeUtils::IsVectorOrHigher(value.shape()),
                errors::InvalidArgument(
                    "Expected value to be at least a vector, but received "
                    "shape: ",
                    value.shape().DebugString()));
    const int64_t n = lengths.NumElements();
    OP_REQUIRES(ctx, n <= TensorArray::kMaxSize,
                errors::ResourceExhausted(
                    "Splitting into ", n, " elements passes the limit of ",
                    TensorArray::kMaxSize, " elements of a TensorArray"));
    const auto lengths_v = lengths.vec<int64_t>();
    const int64_t rows = value.dim_size(0);
    // Bounded by rows at every step, so the running sum cannot overflow.
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(ctx, lengths_v(i) >= 0,
                  errors::InvalidArgument(
                      "Expected lengths to be non-negative, but lengths[", i,
                      "] is ", lengths_v(i)));
      OP_REQUIRES(
          ctx, lengths_v(i) <= rows - total,
          errors::InvalidArgument(
              "Expected sum of lengths to be equal to "
              "values.shape[0], but sum of lengths is more than ",
              rows, " and value's shape is: ", value.shape().DebugString()));
      total += lengths_v(i);
    }
    OP_REQUIRES(
        ctx, total == rows,
        errors::InvalidArgument(
            "Expected sum of lengths to be equal to values.shape[0], "
            "but sum of lengths is ",
            total, " and value's shape is: ", value.shape().DebugString()));
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, array->Size(&size));
    OP_REQUIRES(ctx, array->dynamic_size() || size == n,
                errors::InvalidArgument(
                    "TensorArray's size is not equal to the size of lengths (",
                    n, " vs. ", size,
                    "), and the TensorArray is not marked as dynamically "
                    "resizeable."));
    std::vector<int32_t> indices(n);
    std::vector<Tensor> elements;
    elements.reserve(n);
    int64_t start = 0;
    for (int64_t i = 0; i < n; ++i) {
      indices[i] = static_cast<int32_t>(i);
      TensorShape shape = value.shape();
      shape.set_dim(0, lengths_v(i));
      elements.push_back(Rows(value, start, start + lengths_v(i), shape));
      start += lengths_v(i);
    }
    OP_REQUIRES_OK(ctx, array->WriteMany(indices, elements));
    OP_REQUIRES_OK(ctx, ForwardFlow(ctx, 3, 0));
  }
};

class TensorArraySizeOp : public OpKernel {
 public:
  explicit TensorArraySizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    core::ScopedUnref unref(array);
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, array->Size(&size));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<int32_t>()() = size;
  }
  bool IsExpensive() override { return false; }
};

// Drops the elements at once; the (empty) array stays in the step's
// container until the step ends, so later uses say it was closed.
class TensorArrayCloseOp : public OpKernel {
 public:
  explicit TensorArrayCloseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    TensorArray* array = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &array));
    core::ScopedUnref unref(array);
    array->Close();
  }
  bool IsExpensive() override { return false; }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("TensorArrayV3").Device(DEVICE_CPU),
                        TensorArrayOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayWriteV3").Device(DEVICE_CPU),
                        TensorArrayWriteOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayReadV3").Device(DEVICE_CPU),
                        TensorArrayReadOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayGatherV3").Device(DEVICE_CPU),
                        TensorArrayGatherOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayScatterV3").Device(DEVICE_CPU),
                        TensorArrayScatterOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayConcatV3").Device(DEVICE_CPU),
                        TensorArrayConcatOp);
REGISTER_KERNEL_BUILDER(Name("TensorArraySplitV3").Device(DEVICE_CPU),
                        TensorArraySplitOp);
REGISTER_KERNEL_BUILDER(Name("TensorArraySizeV3").Device(DEVICE_CPU),
                        TensorArraySizeOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayCloseV3").Device(DEVICE_CPU),
                        TensorArrayCloseOp);

}  // namespace minflow
