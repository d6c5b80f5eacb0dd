// Shared by the TensorList kernels (list_kernels.cc): reading a list from
// an input, TensorFlow's element-shape rules, forwarding a solely owned
// list, and moving element rows in and out of tensors. See Note
// [TensorList storage] in tensor_list.h.
#pragma once

#include <cstdint>

#include "absl/types/span.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/framework/op_kernel.h"
#include "src/kernels/tensor_list.h"

namespace minflow {

// TensorFlow's TensorShapeFromTensor: a vector of dims (-1 unknown), or the
// scalar -1 for an unknown rank.
Status ElementShapeFromTensor(const Tensor& t, PartialTensorShape* out);

// The list held by input `index`.
Status GetInputList(OpKernelContext* c, int index, const TensorList** list);

Status CheckElementDtype(const TensorList& list, DataType element_dtype);

Status ScalarInput(OpKernelContext* c, int index, const char* name,
                   int32_t* value);

// Output `output_index` becomes input `input_index`'s list, to be changed:
// the input itself when nobody else can see it, else a copy.
Status ForwardInputOrCreateNewList(OpKernelContext* c, int input_index,
                                   int output_index, const TensorList& input,
                                   TensorList** output);

Status NewListOutput(OpKernelContext* c, int index, TensorList list);

// The element shape the op's input `index` asks for, merged with the
// list's.
Status ElementShapeFromInput(OpKernelContext* c, const TensorList& list,
                             int index, PartialTensorShape* shape);

// Merges `shape` with the shapes of the list's set elements (when the
// list's own element shape leaves something unknown).
Status MergeWithSetElements(const TensorList& list, PartialTensorShape* shape);

bool CanCopyRows(DataType dtype);

Status CheckCanCopyRows(DataType dtype);

// dst[0, n) = src[0, n) for elements of `dtype`.
void CopyValues(DataType dtype, const void* src, void* dst, int64_t n);

// dst[0, n) = zeros (empty strings, empty variants): an unset element.
void ZeroValues(DataType dtype, void* dst, int64_t n);

// Writes the element tensors `rows` (nullptr: an unset element, written as
// zeros of `row_shape`, which must then be fully defined) one after the
// other into `out`, checking that each fits `row_shape`. For Concat the
// rows have their own leading dims: `row_shape` is then the shape past the
// first dim and `lengths` gives each row's first dim.
Status CopyRowsInto(absl::Span<const Tensor* const> rows,
                    const TensorShape& row_shape,
                    absl::Span<const int64_t> lengths, Tensor* out);

// Row `i` of `t` (dims >= 1) as a tensor of its own, aligned (a slice that
// is not gets its own buffer).
Tensor RowOf(const Tensor& t, int64_t begin, int64_t end, bool keep_dim);

}  // namespace minflow
