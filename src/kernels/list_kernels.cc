// CPU kernels of TensorFlow 2's TensorList ops (src/ops/list_ops.cc), with
// TensorFlow's checks and messages. Lists are TensorList values in
// DT_VARIANT scalars; the kernels that change a list do it in place when
// they own it (See Note [TensorList storage] in tensor_list.h), and the
// readers that build one tensor from many elements (Stack, Gather, Concat)
// copy whole rows, memcpy for fixed-size dtypes (list_kernels_common.h has
// what the kernels share). One kernel per op serves every element dtype:
// the dtype is data here, not a template argument.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "minflow/framework/op_kernel.h"
#include "src/kernels/list_kernels_common.h"
#include "src/kernels/tensor_list.h"

namespace minflow {
namespace {

// ---------------------------------------------------------------------------
// Making lists.

class EmptyTensorListOp : public OpKernel {
 public:
  explicit EmptyTensorListOp(OpKernelConstruction* c) : OpKernel(c) {
    OP_REQUIRES_OK(c, c->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* c) override {
    const Tensor& max_t = c->input(1);
    OP_REQUIRES(c, TensorShapeUtils::IsScalar(max_t.shape()),
                errors::InvalidArgument(
                    "max_num_elements expected to be a scalar but got shape: ",
                    max_t.shape().DebugString()));
    const int32_t max_num_elements = max_t.scalar<int32_t>()();
    OP_REQUIRES(c, max_num_elements >= -1,
                errors::InvalidArgument(
                    "max_num_elements must be -1 (no limit) or non-negative, "
                    "but got ",
                    max_num_elements));
    PartialTensorShape shape;
    OP_REQUIRES_OK(c, ElementShapeFromTensor(c->input(0), &shape));
    OP_REQUIRES_OK(c, NewListOutput(c, 0,
                                    TensorList(element_dtype_, std::move(shape),
                                               max_num_elements)));
  }

 private:
  DataType element_dtype_ = DT_INVALID;
};

class TensorListReserveOp : public OpKernel {
 public:
  explicit TensorListReserveOp(OpKernelConstruction* c) : OpKernel(c) {
    OP_REQUIRES_OK(c, c->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* c) override {
    PartialTensorShape shape;
    OP_REQUIRES_OK(c, ElementShapeFromTensor(c->input(0), &shape));
    const Tensor& n_t = c->input(1);
    OP_REQUIRES(c, TensorShapeUtils::IsScalar(n_t.shape()),
                errors::InvalidArgument(
                    "The num_elements to reserve must be a tensor size 1, but "
                    "got ",
                    n_t.shape().DebugString()));
    const int32_t n = n_t.scalar<int32_t>()();
    OP_REQUIRES(c, n >= 0,
                errors::InvalidArgument("The num_elements to reserve must be a "
                                        "non negative number, but got ",
                                        n));
    TensorList list(element_dtype_, std::move(shape));
    list.tensors().resize(static_cast<size_t>(n), Tensor(DT_INVALID));
    OP_REQUIRES_OK(c, NewListOutput(c, 0, std::move(list)));
  }

 private:
  DataType element_dtype_ = DT_INVALID;
};

// Checks that `t` can be cut into rows that fit `element_shape`.
Status CheckRowsFit(const Tensor& t, const PartialTensorShape& element_shape) {
  if (!TensorShapeUtils::IsVectorOrHigher(t.shape())) {
    return errors::InvalidArgument(
        "Tensor must be at least a vector, but saw shape: ",
        t.shape().DebugString());
  }
  TensorShape row_shape = t.shape();
  row_shape.RemoveDim(0);
  if (!element_shape.IsCompatibleWith(row_shape)) {
    return errors::InvalidArgument(
        "Specified a list with shape ", element_shape.DebugString(),
        " from a tensor with shape ", row_shape.DebugString());
  }
  return OkStatus();
}

class TensorListFromTensorOp : public OpKernel {
 public:
  explicit TensorListFromTensorOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* c) override {
    const Tensor& t = c->input(0);
    PartialTensorShape shape;
    OP_REQUIRES_OK(c, ElementShapeFromTensor(c->input(1), &shape));
    OP_REQUIRES_OK(c, CheckRowsFit(t, shape));
    TensorList list(t.dtype(), std::move(shape));
    const int64_t n = t.dim_size(0);
    list.tensors().reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      list.tensors().push_back(RowOf(t, i, i + 1, /*keep_dim=*/false));
    }
    OP_REQUIRES_OK(c, NewListOutput(c, 0, std::move(list)));
  }
};

// The largest of `indices` (-1 when empty); InvalidArgument for a negative
// index or a count other than the tensor's rows.
Status ScatterIndices(const Tensor& t, const Tensor& indices,
                      int64_t* highest) {
  if (!TensorShapeUtils::IsVector(indices.shape())) {
    return errors::InvalidArgument("indices must be a vector, but got shape ",
                                   indices.shape().DebugString());
  }
  if (indices.NumElements() != t.dim_size(0)) {
    return errors::InvalidArgument(
        "Expected len(indices) == tensor.shape[0], but saw: ",
        indices.NumElements(), " vs. ", t.dim_size(0));
  }
  *highest = -1;
  for (int64_t i = 0; i < indices.NumElements(); ++i) {
    const int32_t index = indices.flat<int32_t>()(i);
    if (index < 0) {
      return errors::InvalidArgument(
          "Indices in TensorListScatter must all be non-negative.");
    }
    *highest = std::max<int64_t>(*highest, index);
  }
  return OkStatus();
}

// list[indices[i]] = t[i], growing the list to reach the highest index.
void Scatter(const Tensor& t, const Tensor& indices, int64_t highest,
             TensorList* list) {
  if (highest >= static_cast<int64_t>(list->tensors().size())) {
    list->tensors().resize(static_cast<size_t>(highest + 1),
                           Tensor(DT_INVALID));
  }
  for (int64_t i = 0; i < indices.NumElements(); ++i) {
    list->tensors()[indices.flat<int32_t>()(i)] =
        RowOf(t, i, i + 1, /*keep_dim=*/false);
  }
}

// TensorListScatter (v1) and TensorListScatterV2 (with num_elements).
class TensorListScatterOp : public OpKernel {
 public:
  explicit TensorListScatterOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* c) override {
    const Tensor& t = c->input(0);
    const Tensor& indices = c->input(1);
    PartialTensorShape shape;
    OP_REQUIRES_OK(c, ElementShapeFromTensor(c->input(2), &shape));
    OP_REQUIRES_OK(c, CheckRowsFit(t, shape));
    int64_t highest = -1;
    OP_REQUIRES_OK(c, ScatterIndices(t, indices, &highest));
    TensorList list(t.dtype(), std::move(shape));
    if (c->num_inputs() > 3) {
      int32_t num_elements = 0;
      OP_REQUIRES_OK(c, ScalarInput(c, 3, "num_elements", &num_elements));
      OP_REQUIRES(c, num_elements >= -1,
                  errors::InvalidArgument(
                      "TensorListScatter expects num_elements >= -1, found: ",
                      num_elements));
      if (num_elements >= 0) {
        OP_REQUIRES(c, highest < num_elements,
                    errors::InvalidArgument(
                        "TensorListScatter: Trying to scatter at index ",
                        highest, " in list with size ", num_elements));
        list.tensors().resize(static_cast<size_t>(num_elements),
                              Tensor(DT_INVALID));
      }
    }
    Scatter(t, indices, highest, &list);
    OP_REQUIRES_OK(c, NewListOutput(c, 0, std::move(list)));
  }
};

class TensorListSplitOp : public OpKernel {
 public:
  explicit TensorListSplitOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* c) override {
    const Tensor& t = c->input(0);
    OP_REQUIRES(c, TensorShapeUtils::IsVectorOrHigher(t.shape()),
                errors::InvalidArgument(
                    "Tensor must be at least a vector, but saw shape: ",
                    t.shape().DebugString()));
    PartialTensorShape shape;
    OP_REQUIRES_OK(c, ElementShapeFromTensor(c->input(1), &shape));
    OP_REQUIRES(c, shape.unknown_rank() || shape.dims() >= 1,
                errors::InvalidArgument(
                    "TensorListSplit requires element_shape to be at least of "
                    "rank 1, but saw: ",
                    shape.DebugString()));
    TensorShape rest = t.shape();
    rest.RemoveDim(0);
    PartialTensorShape rows = PartialTensorShape({-1}).Concatenate(rest);
    OP_REQUIRES(c, shape.IsCompatibleWith(rows),
                errors::InvalidArgument(
                    "Tried to split tensors with shape ", rows.DebugString(),
                    " into a list with element shape ", shape.DebugString()));
    const Tensor& lengths = c->input(2);
    OP_REQUIRES(c, TensorShapeUtils::IsVector(lengths.shape()),
                errors::InvalidArgument(
                    "Expected lengths to be a vector, received shape: ",
                    lengths.shape().DebugString()));
    TensorList list(t.dtype(), std::move(shape));
    const int64_t total = t.dim_size(0);
    int64_t start = 0;
    for (int64_t i = 0; i < lengths.NumElements(); ++i) {
      const int64_t length = lengths.flat<int64_t>()(i);
      OP_REQUIRES(
          c, length >= 0,
          errors::InvalidArgument("Invalid value in lengths: ", length));
      OP_REQUIRES(c, length <= total - start,
                  errors::InvalidArgument("Attempting to slice [", start, ", ",
                                          start + length,
                                          "] from tensor with length ", total));
      list.tensors().push_back(
          RowOf(t, start, start + length, /*keep_dim=*/true));
      start += length;
    }
    OP_REQUIRES(c, start == total,
                errors::InvalidArgument(
                    "Unused values in tensor. Length of tensor: ", total,
                    " Values used: ", start));
    OP_REQUIRES_OK(c, NewListOutput(c, 0, std::move(list)));
  }
};

// ---------------------------------------------------------------------------
// Changing lists (in place when owned).

class TensorListPushBackOp : public OpKernel {
 public:
  explicit TensorListPushBackOp(OpKernelConstruction* c) : OpKernel(c) {
    OP_REQUIRES_OK(c, c->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* c) override {
    const Tensor& item = c->input(1);
    const TensorList* l = nullptr;
    OP_REQUIRES_OK(c, GetInputList(c, 0, &l));
    OP_REQUIRES(c, l->element_shape.IsCompatibleWith(item.shape()),
                errors::InvalidArgument(
                    "Tried to append a tensor with incompatible shape to a "
                    "list. Op element shape: ",
                    item.shape().DebugString(),
                    " list shape: ", l->element_shape.DebugString()));
    OP_REQUIRES_OK(c, CheckElementDtype(*l, element_dtype_));
    if (l->max_num_elements != -1) {
      OP_REQUIRES(
          c, static_cast<int64_t>(l->tensors().size()) < l->max_num_elements,
          errors::InvalidArgument(
              "Tried to push item into a full list list size: ",
              l->tensors().size(), " max_num_elements: ", l->max_num_elements));
    }
    TensorList* out = nullptr;
    OP_REQUIRES_OK(c, ForwardInputOrCreateNewList(c, 0, 0, *l, &out));
    out->tensors().push_back(item);
  }

 private:
  DataType element_dtype_ = DT_INVALID;
};

class TensorListSetItemOp : public OpKernel {
 public:
  explicit TensorListSetItemOp(OpKernelConstruction* c) : OpKernel(c) {
    OP_REQUIRES_OK(c, c->GetAttr("element_dtype", &element_dtype_));
    OP_REQUIRES_OK(c, c->GetAttr("resize_if_index_out_of_bounds", &resize_));
  }
  void Compute(OpKernelContext* c) override {
    const TensorList* l = nullptr;
    OP_REQUIRES_OK(c, GetInputList(c, 0, &l));
    OP_REQUIRES_OK(c, CheckElementDtype(*l, element_dtype_));
    int32_t index = 0;
    OP_REQUIRES_OK(c, ScalarInput(c, 1, "index", &index));
    const Tensor& item = c->input(2);
    OP_REQUIRES(c, l->element_shape.IsCompatibleWith(item.shape()),
                errors::InvalidArgument(
                    "Tried to set a tensor with incompatible shape at a list "
                    "index. Item element shape: ",
                    item.shape().DebugString(),
                    " list shape: ", l->element_shape.DebugString()));
    const int64_t size = static_cast<int64_t>(l->tensors().size());
    OP_REQUIRES(
        c, index >= 0 && (resize_ || index < size),
        errors::InvalidArgument("Trying to modify element ", index,
                                " in a list with ", size, " elements."));
    TensorList* out = nullptr;
    OP_REQUIRES_OK(c, ForwardInputOrCreateNewList(c, 0, 0, *l, &out));
    if (index >= size) {
      out->tensors().resize(static_cast<size_t>(index) + 1, Tensor(DT_INVALID));
    }
    out->tensors()[index] = item;
  }

 private:
  DataType element_dtype_ = DT_INVALID;
  bool resize_ = false;
};

// Zeros of the element shape (the list's merged with input `shape_input`
// and with its set elements): what reading an unset element gives.
Status ZerosForUnsetElement(OpKernelContext* c, const TensorList& list,
                            int shape_input, int output, const char* what) {
  PartialTensorShape shape;
  MF_RETURN_IF_ERROR(ElementShapeFromInput(c, list, shape_input, &shape));
  MF_RETURN_IF_ERROR(MergeWithSetElements(list, &shape));
  TensorShape full;
  if (!shape.AsTensorShape(&full)) {
    return errors::InvalidArgument(
        "Trying to read an uninitialized tensor but element_shape is not "
        "fully defined: ",
        shape.DebugString(), " and no list element is set", what);
  }
  MF_RETURN_IF_ERROR(CheckCanCopyRows(list.element_dtype));
  Tensor* out = nullptr;
  MF_RETURN_IF_ERROR(c->allocate_output(output, full, &out));
  ZeroValues(out->dtype(), out->data(), out->NumElements());
  return OkStatus();
}

class TensorListPopBackOp : public OpKernel {
 public:
  explicit TensorListPopBackOp(OpKernelConstruction* c) : OpKernel(c) {
    OP_REQUIRES_OK(c, c->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* c) override {
    const TensorList* l = nullptr;
    OP_REQUIRES_OK(c, GetInputList(c, 0, &l));
    OP_REQUIRES_OK(c, CheckElementDtype(*l, element_dtype_));
    OP_REQUIRES(c, !l->tensors().empty(),
                errors::InvalidArgument("Trying to pop from an empty list."));
    const Tensor& last = l->tensors().back();
    if (last.dtype() != DT_INVALID) {
      c->set_output(1, last);
    } else {
      OP_REQUIRES_OK(c, ZerosForUnsetElement(c, *l, 1, 1, "."));
    }
    TensorList* out = nullptr;
    OP_REQUIRES_OK(c, ForwardInputOrCreateNewList(c, 0, 0, *l, &out));
    out->tensors().pop_back();
  }

 private:
  DataType element_dtype_ = DT_INVALID;
};

class TensorListResizeOp : public OpKernel {
 public:
  explicit TensorListResizeOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* c) override {
    const TensorList* l = nullptr;
    OP_REQUIRES_OK(c, GetInputList(c, 0, &l));
    int32_t size = 0;
    OP_REQUIRES_OK(c, ScalarInput(c, 1, "size", &size));
    OP_REQUIRES(
        c, size >= 0,
        errors::InvalidArgument(
            "TensorListResize expects size to be non-negative. Got: ", size));
    TensorList* out = nullptr;
    OP_REQUIRES_OK(c, ForwardInputOrCreateNewList(c, 0, 0, *l, &out));
    out->tensors().resize(static_cast<size_t>(size), Tensor(DT_INVALID));
  }
};

class TensorListScatterIntoExistingListOp : public OpKernel {
 public:
  explicit TensorListScatterIntoExistingListOp(OpKernelConstruction* c)
      : OpKernel(c) {
    OP_REQUIRES_OK(c, c->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* c) override {
    const TensorList* l = nullptr;
    OP_REQUIRES_OK(c, GetInputList(c, 0, &l));
    OP_REQUIRES_OK(c, CheckElementDtype(*l, element_dtype_));
    const Tensor& t = c->input(1);
    const Tensor& indices = c->input(2);
    OP_REQUIRES_OK(c, CheckRowsFit(t, l->element_shape));
    int64_t highest = -1;
    OP_REQUIRES_OK(c, ScatterIndices(t, indices, &highest));
    TensorList* out = nullptr;
    OP_REQUIRES_OK(c, ForwardInputOrCreateNewList(c, 0, 0, *l, &out));
    Scatter(t, indices, highest, out);
  }

 private:
  DataType element_dtype_ = DT_INVALID;
};

// ---------------------------------------------------------------------------
// Reading lists.

class TensorListLengthOp : public OpKernel {
 public:
  explicit TensorListLengthOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* c) override {
    const TensorList* l = nullptr;
    OP_REQUIRES_OK(c, GetInputList(c, 0, &l));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(c, c->allocate_output(0, TensorShape(), &out));
    out->scalar<int32_t>()() = static_cast<int32_t>(l->tensors().size());
  }
};

class TensorListElementShapeOp : public OpKernel {
 public:
  explicit TensorListElementShapeOp(OpKernelConstruction* c) : OpKernel(c) {}
  void Compute(OpKernelContext* c) override {
    const TensorList* l = nullptr;
    OP_REQUIRES_OK(c, GetInputList(c, 0, &l));
    const PartialTensorShape& shape = l->element_shape;
    Tensor* out = nullptr;
    const bool unknown = shape.unknown_rank();
    OP_REQUIRES_OK(
        c, c->allocate_output(
               0, unknown ? TensorShape() : TensorShape({shape.dims()}), &out));
    for (int64_t i = 0; i < out->NumElements(); ++i) {
      const int64_t d = unknown ? -1 : shape.dim_size(static_cast<int>(i));
      if (out->dtype() == DT_INT32) {
        out->flat<int32_t>()(i) = static_cast<int32_t>(d);
      } else {
        out->flat<int64_t>()(i) = d;
      }
    }
  }
};

class TensorListGetItemOp : public OpKernel {
 public:
  explicit TensorListGetItemOp(OpKernelConstruction* c) : OpKernel(c) {
    OP_REQUIRES_OK(c, c->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* c) override {
    const TensorList* l = nullptr;
    OP_REQUIRES_OK(c, GetInputList(c, 0, &l));
    OP_REQUIRES_OK(c, CheckElementDtype(*l, element_dtype_));
    int32_t index = 0;
    OP_REQUIRES_OK(c, ScalarInput(c, 1, "index", &index));
    const int64_t size = static_cast<int64_t>(l->tensors().size());
    OP_REQUIRES(
        c, index >= 0 && index < size,
        errors::InvalidArgument("Trying to access element ", index,
                                " in a list with ", size, " elements."));
    const Tensor& item = l->tensors()[index];
    if (item.dtype() != DT_INVALID) {
      c->set_output(0, item);
      return;
    }
    OP_REQUIRES_OK(c, ZerosForUnsetElement(c, *l, 2, 0, "."));
  }

 private:
  DataType element_dtype_ = DT_INVALID;
};

// The fully defined element shape for reading `rows` of the list (Stack,
// Gather): input `shape_input` merged with the list's and its set elements'.
Status RowShape(OpKernelContext* c, const TensorList& list, int shape_input,
                const char* verb, TensorShape* row_shape) {
  PartialTensorShape shape;
  MF_RETURN_IF_ERROR(ElementShapeFromInput(c, list, shape_input, &shape));
  if (!shape.IsFullyDefined() && list.tensors().empty()) {
    return errors::InvalidArgument("Tried to ", verb,
                                   " elements of an empty list with "
                                   "non-fully-defined element_shape: ",
                                   shape.DebugString());
  }
  MF_RETURN_IF_ERROR(MergeWithSetElements(list, &shape));
  if (!shape.AsTensorShape(row_shape)) {
    return errors::InvalidArgument(
        "Tried to ", verb,
        " list which only contains uninitialized tensors and has a "
        "non-fully-defined element_shape: ",
        shape.DebugString());
  }
  return CheckCanCopyRows(list.element_dtype);
}

class TensorListStackOp : public OpKernel {
 public:
  explicit TensorListStackOp(OpKernelConstruction* c) : OpKernel(c) {
    OP_REQUIRES_OK(c, c->GetAttr("element_dtype", &element_dtype_));
    OP_REQUIRES_OK(c, c->GetAttr("num_elements", &num_elements_));
  }
  void Compute(OpKernelContext* c) override {
    const TensorList* l = nullptr;
    OP_REQUIRES_OK(c, GetInputList(c, 0, &l));
    OP_REQUIRES_OK(c, CheckElementDtype(*l, element_dtype_));
    const int64_t size = static_cast<int64_t>(l->tensors().size());
    OP_REQUIRES(c, num_elements_ == -1 || size == num_elements_,
                errors::InvalidArgument(
                    "Operation expected a list with ", num_elements_,
                    " elements but got a list with ", size, " elements."));
    TensorShape row_shape;
    OP_REQUIRES_OK(c, RowShape(c, *l, 1, "stack", &row_shape));
    TensorShape out_shape = row_shape;
    out_shape.InsertDim(0, size);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(c, c->allocate_output(0, out_shape, &out));
    std::vector<const Tensor*> rows(static_cast<size_t>(size));
    for (int64_t i = 0; i < size; ++i) {
      const Tensor& t = l->tensors()[i];
      rows[i] = t.dtype() == DT_INVALID ? nullptr : &t;
    }
    OP_REQUIRES_OK(c, CopyRowsInto(rows, row_shape, {}, out));
  }

 private:
  DataType element_dtype_ = DT_INVALID;
  int64_t num_elements_ = -1;
};

class TensorListGatherOp : public OpKernel {
 public:
  explicit TensorListGatherOp(OpKernelConstruction* c) : OpKernel(c) {
    OP_REQUIRES_OK(c, c->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* c) override {
    const TensorList* l = nullptr;
    OP_REQUIRES_OK(c, GetInputList(c, 0, &l));
    OP_REQUIRES_OK(c, CheckElementDtype(*l, element_dtype_));
    const Tensor& indices = c->input(1);
    OP_REQUIRES(
        c, TensorShapeUtils::IsVector(indices.shape()),
        errors::InvalidArgument("indices must be a vector, but got shape ",
                                indices.shape().DebugString()));
    const int64_t size = static_cast<int64_t>(l->tensors().size());
    std::vector<const Tensor*> rows(static_cast<size_t>(indices.NumElements()));
    for (size_t i = 0; i < rows.size(); ++i) {
      const int32_t index = indices.flat<int32_t>()(i);
      OP_REQUIRES(c, index >= 0 && index < size,
                  errors::InvalidArgument("Index ", index,
                                          " out of range; list only has ", size,
                                          " elements."));
      const Tensor& t = l->tensors()[index];
      rows[i] = t.dtype() == DT_INVALID ? nullptr : &t;
    }
    TensorShape row_shape;
    OP_REQUIRES_OK(c, RowShape(c, *l, 2, "gather", &row_shape));
    TensorShape out_shape = row_shape;
    out_shape.InsertDim(0, indices.NumElements());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(c, c->allocate_output(0, out_shape, &out));
    OP_REQUIRES_OK(c, CopyRowsInto(rows, row_shape, {}, out));
  }

 private:
  DataType element_dtype_ = DT_INVALID;
};

class TensorListConcatV2Op : public OpKernel {
 public:
  explicit TensorListConcatV2Op(OpKernelConstruction* c) : OpKernel(c) {
    OP_REQUIRES_OK(c, c->GetAttr("element_dtype", &element_dtype_));
  }
  void Compute(OpKernelContext* c) override {
    const TensorList* l = nullptr;
    OP_REQUIRES_OK(c, GetInputList(c, 0, &l));
    PartialTensorShape shape;
    OP_REQUIRES_OK(c, ElementShapeFromInput(c, *l, 1, &shape));
    OP_REQUIRES(c, shape.unknown_rank() || shape.dims() >= 1,
                errors::InvalidArgument(
                    "Concat requires elements to be at least vectors, found "
                    "scalars instead."));
    OP_REQUIRES_OK(c, CheckElementDtype(*l, element_dtype_));
    const int64_t first_dim = shape.unknown_rank() ? -1 : shape.dim_size(0);
    PartialTensorShape rest;
    if (!shape.unknown_rank()) {
      rest = PartialTensorShape(shape.dim_sizes().subspan(1));
    }
    const std::vector<Tensor>& tensors = l->tensors();
    OP_REQUIRES(c, !tensors.empty() || rest.IsFullyDefined(),
                errors::InvalidArgument(
                    "All except the first dimension must be fully defined when "
                    "concating an empty tensor list. element_shape: ",
                    rest.DebugString()));
    for (size_t i = 0; i < tensors.size(); ++i) {
      const Tensor& t = tensors[i];
      if (t.dtype() == DT_INVALID) continue;
      OP_REQUIRES(
          c, t.dims() >= 1,
          errors::InvalidArgument("Concat saw a scalar shape at index ", i,
                                  " but requires at least vectors."));
      const PartialTensorShape before = rest;
      const PartialTensorShape t_rest(t.shape().dim_sizes().subspan(1));
      OP_REQUIRES_OK(c, before.MergeWith(t_rest, &rest));
    }
    TensorShape row_shape;
    OP_REQUIRES(c, rest.AsTensorShape(&row_shape),
                errors::InvalidArgument(
                    "Trying to concat list with only uninitialized tensors but "
                    "element_shape_except_first_dim is not fully defined: ",
                    rest.DebugString()));
    OP_REQUIRES_OK(c, CheckCanCopyRows(element_dtype_));
    const Tensor& leading_dims = c->input(2);
    Tensor* lengths_t = nullptr;
    OP_REQUIRES_OK(c,
                   c->allocate_output(
                       1, TensorShape({static_cast<int64_t>(tensors.size())}),
                       &lengths_t));
    std::vector<int64_t> lengths(tensors.size());
    std::vector<const Tensor*> rows(tensors.size());
    int64_t total = 0;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const Tensor& t = tensors[i];
      int64_t dim = 0;
      if (t.dtype() != DT_INVALID) {
        dim = t.dim_size(0);
        rows[i] = &t;
      } else if (static_cast<int64_t>(i) < leading_dims.NumElements()) {
        dim = leading_dims.flat<int64_t>()(i);
        OP_REQUIRES(
            c, dim >= 0,
            errors::InvalidArgument("leading_dims[", i,
                                    "] must be non-negative, but got ", dim));
      } else {
        OP_REQUIRES(c, first_dim != -1,
                    errors::InvalidArgument(
                        "List contains uninitialized tensor at index ", i,
                        " but leading_dims has only ",
                        leading_dims.NumElements(), " elements."));
        dim = first_dim;
      }
      OP_REQUIRES(c, dim <= std::numeric_limits<int64_t>::max() - total,
                  errors::InvalidArgument("Concatenated length overflows"));
      lengths[i] = dim;
      lengths_t->flat<int64_t>()(i) = dim;
      total += dim;
    }
    std::vector<int64_t> out_dims = {total};
    out_dims.insert(out_dims.end(), row_shape.dim_sizes().begin(),
                    row_shape.dim_sizes().end());
    TensorShape out_shape;
    OP_REQUIRES_OK(c, TensorShape::BuildTensorShape(out_dims, &out_shape));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(c, c->allocate_output(0, out_shape, &out));
    OP_REQUIRES_OK(c, CopyRowsInto(rows, row_shape, lengths, out));
  }

 private:
  DataType element_dtype_ = DT_INVALID;
};

REGISTER_KERNEL_BUILDER(Name("EmptyTensorList").Device(DEVICE_CPU),
                        EmptyTensorListOp);
REGISTER_KERNEL_BUILDER(Name("TensorListReserve").Device(DEVICE_CPU),
                        TensorListReserveOp);
REGISTER_KERNEL_BUILDER(Name("TensorListFromTensor").Device(DEVICE_CPU),
                        TensorListFromTensorOp);
REGISTER_KERNEL_BUILDER(Name("TensorListScatter").Device(DEVICE_CPU),
                        TensorListScatterOp);
REGISTER_KERNEL_BUILDER(Name("TensorListScatterV2").Device(DEVICE_CPU),
                        TensorListScatterOp);
REGISTER_KERNEL_BUILDER(Name("TensorListSplit").Device(DEVICE_CPU),
                        TensorListSplitOp);
REGISTER_KERNEL_BUILDER(Name("TensorListPushBack").Device(DEVICE_CPU),
                        TensorListPushBackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListSetItem").Device(DEVICE_CPU),
                        TensorListSetItemOp);
REGISTER_KERNEL_BUILDER(Name("TensorListPopBack").Device(DEVICE_CPU),
                        TensorListPopBackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListResize").Device(DEVICE_CPU),
                        TensorListResizeOp);
REGISTER_KERNEL_BUILDER(
    Name("TensorListScatterIntoExistingList").Device(DEVICE_CPU),
    TensorListScatterIntoExistingListOp);
REGISTER_KERNEL_BUILDER(Name("TensorListLength").Device(DEVICE_CPU),
                        TensorListLengthOp);
REGISTER_KERNEL_BUILDER(Name("TensorListElementShape").Device(DEVICE_CPU),
                        TensorListElementShapeOp);
REGISTER_KERNEL_BUILDER(Name("TensorListGetItem").Device(DEVICE_CPU),
                        TensorListGetItemOp);
REGISTER_KERNEL_BUILDER(Name("TensorListStack").Device(DEVICE_CPU),
                        TensorListStackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListGather").Device(DEVICE_CPU),
                        TensorListGatherOp);
REGISTER_KERNEL_BUILDER(Name("TensorListConcatV2").Device(DEVICE_CPU),
                        TensorListConcatV2Op);

}  // namespace
}  // namespace minflow
