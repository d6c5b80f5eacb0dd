#include "src/kernels/list_kernels_common.h"

#include <cstring>
#include <string>
#include <vector>

#include "minflow/core/variant.h"
#include "src/kernels/data_movement.h"

namespace minflow {

// TensorFlow's TensorShapeFromTensor: a vector of dims (-1 unknown), or the
// scalar -1 for an unknown rank.
Status ElementShapeFromTensor(const Tensor& t, PartialTensorShape* out) {
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) {
    return errors::InvalidArgument(
        "Expected an int32 or int64 shape tensor; found ",
        DataTypeString(t.dtype()));
  }
  auto value = [&t](int64_t i) -> int64_t {
    return t.dtype() == DT_INT32 ? t.flat<int32_t>()(i) : t.flat<int64_t>()(i);
  };
  if (t.dims() == 0) {
    if (value(0) == -1) {
      *out = PartialTensorShape();
      return OkStatus();
    }
    return errors::InvalidArgument(
        "The only valid scalar shape tensor is the fully unknown shape "
        "specified as -1.");
  }
  if (t.dims() != 1) {
    return errors::InvalidArgument("Shape must be at most rank 1 but is rank ",
                                   t.dims());
  }
  std::vector<int64_t> dims(static_cast<size_t>(t.NumElements()));
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = value(i);
  return PartialTensorShape::BuildPartialTensorShape(dims, out);
}

// The list held by input `index`.
Status GetInputList(OpKernelContext* c, int index, const TensorList** list) {
  const Tensor& t = c->input(index);
  if (t.dtype() != DT_VARIANT || !TensorShapeUtils::IsScalar(t.shape())) {
    return errors::InvalidArgument("Input list must be a scalar saw: ",
                                   t.shape().DebugString());
  }
  const Variant& v = t.scalar<Variant>()();
  *list = v.get<TensorList>();
  if (*list == nullptr) {
    return errors::InvalidArgument("Input handle is not a list. Saw: '",
                                   v.TypeName(), "'");
  }
  return OkStatus();
}

Status CheckElementDtype(const TensorList& list, DataType element_dtype) {
  if (list.element_dtype != element_dtype) {
    return errors::InvalidArgument(
        "Invalid data types; op elements ", DataTypeString(element_dtype),
        " but list elements ", DataTypeString(list.element_dtype));
  }
  return OkStatus();
}

Status ScalarInput(OpKernelContext* c, int index, const char* name,
                   int32_t* value) {
  const Tensor& t = c->input(index);
  if (!TensorShapeUtils::IsScalar(t.shape())) {
    return errors::InvalidArgument(name, " must be a scalar, but got shape ",
                                   t.shape().DebugString());
  }
  *value = t.scalar<int32_t>()();
  return OkStatus();
}

// Output `output_index` becomes input `input_index`'s list, to be changed:
// the input itself when nobody else can see it, else a copy.
Status ForwardInputOrCreateNewList(OpKernelContext* c, int input_index,
                                   int output_index, const TensorList& input,
                                   TensorList** output) {
  Tensor* out = nullptr;
  if (input.RefCountIsOne() &&
      c->forward_input_to_output_with_shape(input_index, output_index,
                                            TensorShape(), &out)) {
    *output = out->scalar<Variant>()().get<TensorList>();
    MF_CHECK(*output != nullptr);  // the buffer GetInputList looked at
    return OkStatus();
  }
  MF_RETURN_IF_ERROR(c->allocate_output(output_index, TensorShape(), &out));
  out->scalar<Variant>()() = input.Copy();
  *output = out->scalar<Variant>()().get<TensorList>();
  return OkStatus();
}

Status NewListOutput(OpKernelContext* c, int index, TensorList list) {
  Tensor* out = nullptr;
  MF_RETURN_IF_ERROR(c->allocate_output(index, TensorShape(), &out));
  out->scalar<Variant>()() = std::move(list);
  return OkStatus();
}

// The element shape the op's input `index` asks for, merged with the
// list's.
Status ElementShapeFromInput(OpKernelContext* c, const TensorList& list,
                             int index, PartialTensorShape* shape) {
  PartialTensorShape requested;
  MF_RETURN_IF_ERROR(ElementShapeFromTensor(c->input(index), &requested));
  return requested.MergeWith(list.element_shape, shape);
}

// Merges `shape` with the shapes of the list's set elements (when the
// list's own element shape leaves something unknown).
Status MergeWithSetElements(const TensorList& list, PartialTensorShape* shape) {
  if (list.element_shape.IsFullyDefined()) return OkStatus();
  for (const Tensor& t : list.tensors()) {
    if (t.dtype() == DT_INVALID) continue;
    const PartialTensorShape before = *shape;
    MF_RETURN_IF_ERROR(before.MergeWith(t.shape(), shape));
  }
  return OkStatus();
}

bool CanCopyRows(DataType dtype) {
  return dtype == DT_VARIANT || IsMovableDataType(dtype);
}

Status CheckCanCopyRows(DataType dtype) {
  if (!CanCopyRows(dtype)) {
    return errors::Unimplemented("TensorList elements of type ",
                                 DataTypeString(dtype),
                                 " cannot be stacked or concatenated");
  }
  return OkStatus();
}

// dst[0, n) = src[0, n) for elements of `dtype`.
void CopyValues(DataType dtype, const void* src, void* dst, int64_t n) {
  if (dtype == DT_VARIANT) {
    const Variant* s = static_cast<const Variant*>(src);
    Variant* d = static_cast<Variant*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
    return;
  }
  const bool ok = VisitElementSize(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    CopyElements(static_cast<E*>(dst), static_cast<const E*>(src), n);
  });
  MF_CHECK(ok) << "CheckCanCopyRows let " << DataTypeString(dtype) << " by";
}

// dst[0, n) = zeros (empty strings, empty variants): an unset element.
void ZeroValues(DataType dtype, void* dst, int64_t n) {
  if (dtype == DT_VARIANT) {
    Variant* d = static_cast<Variant*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i].clear();
    return;
  }
  if (dtype == DT_STRING) {
    std::string* d = static_cast<std::string*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i].clear();
    return;
  }
  if (n > 0) std::memset(dst, 0, static_cast<size_t>(n) * DataTypeSize(dtype));
}

// Writes the element tensors `rows` (nullptr: an unset element, written as
// zeros of `row_shape`, which must then be fully defined) one after the
// other into `out`, checking that each fits `row_shape`. For Concat the
// rows have their own leading dims: `row_shape` is then the shape past the
// first dim and `lengths` gives each row's first dim.
Status CopyRowsInto(absl::Span<const Tensor* const> rows,
                    const TensorShape& row_shape,
                    absl::Span<const int64_t> lengths, Tensor* out) {
  const DataType dtype = out->dtype();
  const int64_t row_elements = row_shape.num_elements();
  const size_t element_size = dtype == DT_VARIANT  ? sizeof(Variant)
                              : dtype == DT_STRING ? sizeof(std::string)
                                                   : DataTypeSize(dtype);
  char* dst = static_cast<char*>(out->data());
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t length = lengths.empty() ? 1 : lengths[i];
    const int64_t n = length * row_elements;
    const Tensor* row = rows[i];
    if (row == nullptr) {
      ZeroValues(dtype, dst, n);
    } else {
      TensorShape expected = row_shape;
      if (!lengths.empty()) expected.InsertDim(0, length);
      if (row->shape() != expected) {
        return errors::InvalidArgument("Element ", i, " of the list has shape ",
                                       row->shape().DebugString(),
                                       " but the op expected ",
                                       expected.DebugString());
      }
      CopyValues(dtype, row->data(), dst, n);
    }
    dst += static_cast<size_t>(n) * element_size;
  }
  return OkStatus();
}

// Row `i` of `t` (dims >= 1) as a tensor of its own, aligned (a slice that
// is not gets its own buffer).
Tensor RowOf(const Tensor& t, int64_t begin, int64_t end, bool keep_dim) {
  Tensor row = t.Slice(begin, end);
  if (!keep_dim) {
    TensorShape shape = row.shape();
    shape.RemoveDim(0);
    const bool ok = row.CopyFrom(row, shape);
    MF_CHECK(ok);  // one row: the same element count
  }
  return row.IsAligned() ? row : row.DeepCopy();
}

}  // namespace minflow
