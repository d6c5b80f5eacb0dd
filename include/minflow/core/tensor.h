// Tensor: a dtype, a shape and a refcounted buffer, with Eigen views.
// Copies share the buffer (cheap); the buffer is freed when the last copy
// goes. A Tensor object is not thread-safe to mutate; distinct copies may be
// used from different threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "minflow/core/allocator.h"
#include "minflow/core/logging.h"
#include "minflow/core/refcount.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/tensor_types.h"
#include "minflow/core/types.h"

namespace minflow {

class TensorProto;

// Refcounted memory behind one or more Tensors. Ref/Unref are thread-safe.
class TensorBuffer {
 public:
  explicit TensorBuffer(void* data) : data_(data) {}
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  virtual size_t size() const = 0;
  // The buffer that owns the memory (itself, unless this is a slice).
  virtual TensorBuffer* root_buffer() = 0;

  void Ref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Deletes the buffer when the count reaches zero.
  void Unref() const;
  bool RefCountIsOne() const {
    return refs_.load(std::memory_order_acquire) == 1;
  }

 protected:
  virtual ~TensorBuffer() = default;

 private:
  void* const data_;
  mutable std::atomic<int> refs_{1};
};

// Limits applied when decoding a TensorProto, which is untrusted input.
struct TensorProtoOptions {
  // The most bytes a decoded tensor may take; the shorthand that repeats the
  // last value lets a few bytes of proto ask for any size, so this bounds it.
  int64_t max_bytes = int64_t{1} << 34;
  Allocator* allocator = nullptr;  // nullptr means cpu_allocator()
};

class Tensor {
 public:
  // A float tensor of shape [0] with no buffer.
  Tensor() : Tensor(DT_FLOAT) {}
  // A tensor of `type` and shape [0] with no buffer.
  explicit Tensor(DataType type);
  // Allocates from `a`. If the allocation fails the tensor is left
  // uninitialized (!IsInitialized()); Allocate() reports why instead.
  Tensor(Allocator* a, DataType type, const TensorShape& shape);
  Tensor(DataType type, const TensorShape& shape)
      : Tensor(cpu_allocator(), type, shape) {}
  // Wraps memory the caller owns; `release(data)` is called when the last
  // reference goes. `data` must hold shape.num_elements() values of `type`
  // (not DT_STRING).
  Tensor(DataType type, const TensorShape& shape, void* data,
         std::function<void(void*)> release);

  // Scalars, as TensorFlow's constructors.
  explicit Tensor(float v) : Tensor(DT_FLOAT, TensorShape()) {
    scalar<float>()() = v;
  }
  explicit Tensor(double v) : Tensor(DT_DOUBLE, TensorShape()) {
    scalar<double>()() = v;
  }
  explicit Tensor(int32_t v) : Tensor(DT_INT32, TensorShape()) {
    scalar<int32_t>()() = v;
  }
  explicit Tensor(int64_t v) : Tensor(DT_INT64, TensorShape()) {
    scalar<int64_t>()() = v;
  }
  explicit Tensor(bool v) : Tensor(DT_BOOL, TensorShape()) {
    scalar<bool>()() = v;
  }
  explicit Tensor(half v) : Tensor(DT_HALF, TensorShape()) {
    scalar<half>()() = v;
  }
  explicit Tensor(bfloat16 v) : Tensor(DT_BFLOAT16, TensorShape()) {
    scalar<bfloat16>()() = v;
  }
  explicit Tensor(const std::string& v) : Tensor(DT_STRING, TensorShape()) {
    scalar<std::string>()() = v;
  }
  explicit Tensor(const char* v) : Tensor(std::string(v)) {}

  Tensor(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor();

  // A reference to `*target`, the storage of a TF1 variable, as ref-typed
  // edges carry it (see Note [Ref edges]). Its dtype is the ref type of
  // target's; `owner` (if given) is kept alive while the reference is;
  // `mu` guards `*target` and must outlive the reference too.
  static Tensor MakeRef(Tensor* target, absl::Mutex* mu,
                        const core::RefCounted* owner);
  // A scalar of `type` with no buffer, so !IsInitialized(): what a
  // variable holds before its first assignment.
  static Tensor Unallocated(DataType type);
  // True for a tensor made by MakeRef.
  bool IsRef() const { return IsRefType(dtype_); }
  // The referenced tensor and its mutex; IsRef() must hold.
  Tensor* RefTarget() const;
  absl::Mutex* RefMutex() const;

  // Allocates a tensor; ResourceExhausted naming the bytes when the
  // allocator refuses, InvalidArgument for a dtype minflow cannot hold.
  static StatusOr<Tensor> Allocate(Allocator* a, DataType type,
                                   const TensorShape& shape);

  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int d) const { return shape_.dim_size(d); }
  int64_t NumElements() const { return shape_.num_elements(); }
  bool IsSameSize(const Tensor& b) const { return shape_.IsSameSize(b.shape_); }
  // True when the tensor has a buffer, or needs none (zero elements).
  bool IsInitialized() const;
  // Bytes of the element data (0 for strings' heap data).
  size_t TotalBytes() const;
  size_t AllocatedBytes() const;
  bool IsAligned() const;
  bool SharesBufferWith(const Tensor& b) const;
  // True when this Tensor is the only reference to its memory, so a kernel
  // may write its output into it.
  bool RefCountIsOne() const;

  // Shares `other`'s buffer under `shape`; false if the element counts
  // differ.
  bool CopyFrom(const Tensor& other, const TensorShape& shape);
  // Rows [dim0_start, dim0_limit) of dimension 0, sharing the buffer. The
  // result may be unaligned. Requires dims() >= 1 and a valid range.
  Tensor Slice(int64_t dim0_start, int64_t dim0_limit) const;
  // Element-wise copy into a fresh buffer.
  Tensor DeepCopy() const;

  // TensorFlow-compatible bool form; see TensorFromProto for the reason.
  bool FromProto(const TensorProto& proto);
  bool FromProto(Allocator* a, const TensorProto& proto);
  // Typed *_val fields (half/bfloat16 in half_val).
  void AsProtoField(TensorProto* proto) const;
  // Raw little-endian bytes in tensor_content (strings go in string_val).
  void AsProtoTensorContent(TensorProto* proto) const;

  // Eigen views; CHECK that T matches dtype() and the rank fits (kernels
  // validate inputs first, so a mismatch here is a minflow bug).
  template <typename T>
  typename TTypes<T>::Flat flat();
  template <typename T>
  typename TTypes<T>::ConstFlat flat() const;
  template <typename T>
  typename TTypes<T>::UnalignedFlat unaligned_flat();
  template <typename T>
  typename TTypes<T>::UnalignedConstFlat unaligned_flat() const;
  template <typename T>
  typename TTypes<T>::Vec vec() {
    return tensor<T, 1>();
  }
  template <typename T>
  typename TTypes<T>::ConstVec vec() const {
    return tensor<T, 1>();
  }
  template <typename T>
  typename TTypes<T>::Matrix matrix() {
    return tensor<T, 2>();
  }
  template <typename T>
  typename TTypes<T>::ConstMatrix matrix() const {
    return tensor<T, 2>();
  }
  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::Tensor tensor();
  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::ConstTensor tensor() const;
  template <typename T>
  typename TTypes<T>::Scalar scalar();
  template <typename T>
  typename TTypes<T>::ConstScalar scalar() const;
  // The same elements viewed with `new_sizes` (same element count).
  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::Tensor shaped(absl::Span<const int64_t> new_sizes);
  template <typename T, size_t NDIMS>
  typename TTypes<T, NDIMS>::ConstTensor shaped(
      absl::Span<const int64_t> new_sizes) const;
  // Collapses the leading dims into the first of NDIMS dims.
  template <typename T, size_t NDIMS = 2>
  typename TTypes<T, NDIMS>::Tensor flat_inner_dims();
  template <typename T, size_t NDIMS = 2>
  typename TTypes<T, NDIMS>::ConstTensor flat_inner_dims() const;
  // Collapses the trailing dims into the last of NDIMS dims.
  template <typename T, size_t NDIMS = 2>
  typename TTypes<T, NDIMS>::Tensor flat_outer_dims();
  template <typename T, size_t NDIMS = 2>
  typename TTypes<T, NDIMS>::ConstTensor flat_outer_dims() const;

  void* data() const { return buf_ == nullptr ? nullptr : buf_->data(); }
  template <typename T>
  T* base() const {
    return static_cast<T*>(data());
  }
  // The raw bytes (not meaningful for strings).
  absl::string_view tensor_data() const;

  // The first `max_entries` values in nested brackets, "..." when cut.
  std::string SummarizeValue(int64_t max_entries, bool print_v2 = true) const;
  // "Tensor<type: float shape: [2] values: [1 2]>".
  std::string DebugString(int num_values = 3) const;

 private:
  template <typename T>
  void CheckType() const;
  template <typename T>
  void CheckTypeAndAligned() const;
  template <size_t NDIMS>
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> ComputeFlatInnerDims() const;
  template <size_t NDIMS>
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> ComputeFlatOuterDims() const;
  template <size_t NDIMS>
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> CheckedDims(
      absl::Span<const int64_t> sizes) const;

  friend Status TensorFromProto(const TensorProto&, Tensor*,
                                const TensorProtoOptions&);

  DataType dtype_;
  TensorShape shape_;
  TensorBuffer* buf_ = nullptr;
};

// Note [Ref edges]
// ~~~~~~~~~~~~~~~~
// A TF1 variable's output is a reference to its storage, not a value: a
// consumer whose input is ref-typed (Assign, RefIdentity, RefSwitch)
// updates the variable through it, and one whose input is not (Identity,
// MatMul) reads the variable's value as of the moment it runs. The executor
// moves a reference through its input slots as a Tensor made by
// Tensor::MakeRef (ref dtype, a buffer pointing at the variable's tensor and
// mutex), so frames, Switch and Merge carry it like any value; just before a
// kernel runs, a reference arriving at a non-ref input is replaced by the
// variable's current value, read under the variable's mutex.

// Decodes a TensorProto (tensor_content or typed *_val fields, with
// TensorFlow's shorthand where fewer values than elements repeat the last).
// InvalidArgument for anything malformed: an unknown dtype, a bad shape, a
// content size that disagrees with the shape, more values than elements,
// a corrupt string; ResourceExhausted past options.max_bytes.
Status TensorFromProto(const TensorProto& proto, Tensor* out,
                       const TensorProtoOptions& options = {});

// ---------------------------------------------------------------------------
// Implementation of the templates.

template <typename T>
void Tensor::CheckType() const {
  MF_CHECK(DataTypeToEnum<T>::v() == dtype_)
      << "Tensor has type " << DataTypeString(dtype_) << ", accessed as "
      << DataTypeString(DataTypeToEnum<T>::v());
}

template <typename T>
void Tensor::CheckTypeAndAligned() const {
  CheckType<T>();
  MF_CHECK(IsAligned()) << "aligned view of an unaligned tensor slice";
}

template <size_t NDIMS>
Eigen::DSizes<Eigen::DenseIndex, NDIMS> Tensor::CheckedDims(
    absl::Span<const int64_t> sizes) const {
  MF_CHECK_EQ(sizes.size(), NDIMS);
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> dsizes;
  int64_t count = 1;
  for (size_t d = 0; d < NDIMS; ++d) {
    dsizes[d] = sizes[d];
    count *= sizes[d];
  }
  MF_CHECK_EQ(count, NumElements());
  return dsizes;
}

template <typename T>
typename TTypes<T>::Flat Tensor::flat() {
  CheckTypeAndAligned<T>();
  return typename TTypes<T>::Flat(base<T>(), NumElements());
}
template <typename T>
typename TTypes<T>::ConstFlat Tensor::flat() const {
  CheckTypeAndAligned<T>();
  return typename TTypes<T>::ConstFlat(base<const T>(), NumElements());
}
template <typename T>
typename TTypes<T>::UnalignedFlat Tensor::unaligned_flat() {
  CheckType<T>();
  return typename TTypes<T>::UnalignedFlat(base<T>(), NumElements());
}
template <typename T>
typename TTypes<T>::UnalignedConstFlat Tensor::unaligned_flat() const {
  CheckType<T>();
  return typename TTypes<T>::UnalignedConstFlat(base<const T>(), NumElements());
}

template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::tensor() {
  CheckTypeAndAligned<T>();
  MF_CHECK_EQ(dims(), static_cast<int>(NDIMS));
  return typename TTypes<T, NDIMS>::Tensor(
      base<T>(), CheckedDims<NDIMS>(shape_.dim_sizes()));
}
template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::ConstTensor Tensor::tensor() const {
  CheckTypeAndAligned<T>();
  MF_CHECK_EQ(dims(), static_cast<int>(NDIMS));
  return typename TTypes<T, NDIMS>::ConstTensor(
      base<const T>(), CheckedDims<NDIMS>(shape_.dim_sizes()));
}

template <typename T>
typename TTypes<T>::Scalar Tensor::scalar() {
  CheckTypeAndAligned<T>();
  MF_CHECK_EQ(NumElements(), 1) << "scalar() of shape " << shape_.DebugString();
  return typename TTypes<T>::Scalar(base<T>());
}
template <typename T>
typename TTypes<T>::ConstScalar Tensor::scalar() const {
  CheckTypeAndAligned<T>();
  MF_CHECK_EQ(NumElements(), 1) << "scalar() of shape " << shape_.DebugString();
  return typename TTypes<T>::ConstScalar(base<const T>());
}

template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::shaped(
    absl::Span<const int64_t> new_sizes) {
  CheckTypeAndAligned<T>();
  return typename TTypes<T, NDIMS>::Tensor(base<T>(),
                                           CheckedDims<NDIMS>(new_sizes));
}
template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::ConstTensor Tensor::shaped(
    absl::Span<const int64_t> new_sizes) const {
  CheckTypeAndAligned<T>();
  return typename TTypes<T, NDIMS>::ConstTensor(base<const T>(),
                                                CheckedDims<NDIMS>(new_sizes));
}

template <size_t NDIMS>
Eigen::DSizes<Eigen::DenseIndex, NDIMS> Tensor::ComputeFlatInnerDims() const {
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> sizes;
  const int rank = dims();
  const int64_t n = static_cast<int64_t>(NDIMS);
  int64_t first = 1;
  for (int d = 0; d < rank; ++d) {
    if (d < rank - (n - 1)) {
      first *= shape_.dim_size(d);
    }
  }
  sizes[0] = first;
  for (int64_t i = 1; i < n; ++i) {
    const int64_t d = rank - n + i;
    sizes[i] = d >= 0 ? shape_.dim_size(static_cast<int>(d)) : 1;
  }
  return sizes;
}

template <size_t NDIMS>
Eigen::DSizes<Eigen::DenseIndex, NDIMS> Tensor::ComputeFlatOuterDims() const {
  Eigen::DSizes<Eigen::DenseIndex, NDIMS> sizes;
  const int rank = dims();
  const int64_t n = static_cast<int64_t>(NDIMS);
  for (int64_t i = 0; i < n - 1; ++i) {
    sizes[i] = i < rank ? shape_.dim_size(static_cast<int>(i)) : 1;
  }
  int64_t last = 1;
  for (int d = static_cast<int>(n) - 1; d < rank; ++d)
    last *= shape_.dim_size(d);
  sizes[n - 1] = last;
  return sizes;
}

template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::flat_inner_dims() {
  CheckTypeAndAligned<T>();
  return typename TTypes<T, NDIMS>::Tensor(base<T>(),
                                           ComputeFlatInnerDims<NDIMS>());
}
template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::ConstTensor Tensor::flat_inner_dims() const {
  CheckTypeAndAligned<T>();
  return typename TTypes<T, NDIMS>::ConstTensor(base<const T>(),
                                                ComputeFlatInnerDims<NDIMS>());
}
template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::flat_outer_dims() {
  CheckTypeAndAligned<T>();
  return typename TTypes<T, NDIMS>::Tensor(base<T>(),
                                           ComputeFlatOuterDims<NDIMS>());
}
template <typename T, size_t NDIMS>
typename TTypes<T, NDIMS>::ConstTensor Tensor::flat_outer_dims() const {
  CheckTypeAndAligned<T>();
  return typename TTypes<T, NDIMS>::ConstTensor(base<const T>(),
                                                ComputeFlatOuterDims<NDIMS>());
}

}  // namespace minflow
