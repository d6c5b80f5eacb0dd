#include "minflow/core/tensor.h"

#include <cstring>
#include <new>
#include <sstream>

#include "minflow/core/dtype_dispatch.h"
#include "minflow/core/resource_handle.h"
#include "minflow/core/variant.h"

namespace minflow {
namespace {

// Element types that are C++ objects rather than plain bytes: constructed
// in place, destroyed with the buffer, copied one by one.
template <typename Fn>
bool VisitObjectType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_STRING:
      fn(TypeTag<std::string>{});
      return true;
    case DT_RESOURCE:
      fn(TypeTag<ResourceHandle>{});
      return true;
    case DT_VARIANT:
      fn(TypeTag<Variant>{});
      return true;
    default:
      return false;
  }
}

// Memory from an Allocator; object elements (strings, resource handles,
// variants) are constructed in place and destroyed with the buffer.
class AllocatedBuffer final : public TensorBuffer {
 public:
  AllocatedBuffer(Allocator* a, void* data, size_t bytes, DataType dtype,
                  int64_t num_elements)
      : TensorBuffer(data),
        allocator_(a),
        bytes_(bytes),
        dtype_(dtype),
        num_elements_(num_elements) {}
  size_t size() const override { return bytes_; }
  TensorBuffer* root_buffer() override { return this; }

 private:
  ~AllocatedBuffer() override {
    VisitObjectType(dtype_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* objects = static_cast<T*>(data());
      for (int64_t i = 0; i < num_elements_; ++i) objects[i].~T();
    });
    allocator_->DeallocateRaw(data(), bytes_);
  }

  Allocator* const allocator_;
  const size_t bytes_;
  const DataType dtype_;
  const int64_t num_elements_;
};

// A range of another buffer; keeps the root alive.
class SubBuffer final : public TensorBuffer {
 public:
  SubBuffer(TensorBuffer* root, void* data, size_t bytes)
      : TensorBuffer(data), root_(root->root_buffer()), bytes_(bytes) {
    root_->Ref();
  }
  size_t size() const override { return bytes_; }
  TensorBuffer* root_buffer() override { return root_; }

 private:
  ~SubBuffer() override { root_->Unref(); }

  TensorBuffer* const root_;
  const size_t bytes_;
};

// Caller-owned memory released through a callback.
class ExternalBuffer final : public TensorBuffer {
 public:
  ExternalBuffer(void* data, size_t bytes, std::function<void(void*)> release)
      : TensorBuffer(data), bytes_(bytes), release_(std::move(release)) {}
  size_t size() const override { return bytes_; }
  TensorBuffer* root_buffer() override { return this; }

 private:
  ~ExternalBuffer() override {
    if (release_) release_(data());
  }

  const size_t bytes_;
  std::function<void(void*)> release_;
};

// A reference to a variable's tensor (Note [Ref edges]).
class RefBuffer final : public TensorBuffer {
 public:
  RefBuffer(Tensor* target, absl::Mutex* mu, const core::RefCounted* owner)
      : TensorBuffer(nullptr), target_(target), mu_(mu), owner_(owner) {
    if (owner_ != nullptr) owner_->Ref();
  }
  size_t size() const override { return 0; }
  TensorBuffer* root_buffer() override { return this; }
  Tensor* target() const { return target_; }
  absl::Mutex* mu() const { return mu_; }

 private:
  ~RefBuffer() override {
    if (owner_ != nullptr) owner_->Unref();
  }

  Tensor* const target_;
  absl::Mutex* const mu_;
  const core::RefCounted* const owner_;
};

size_t ElementSize(DataType dtype) {
  size_t size = DataTypeSize(dtype);
  VisitObjectType(
      dtype, [&](auto tag) { size = sizeof(typename decltype(tag)::type); });
  return size;
}

// Returns nullptr and sets *status when the memory cannot be had.
TensorBuffer* AllocateBuffer(Allocator* a, DataType dtype,
                             const TensorShape& shape, Status* status) {
  const size_t elem = ElementSize(dtype);
  if (elem == 0) {
    *status = errors::InvalidArgument("Cannot allocate a tensor of type ",
                                      DataTypeString(dtype));
    return nullptr;
  }
  const int64_t n = shape.num_elements();
  if (n == 0) return nullptr;
  if (static_cast<uint64_t>(n) > SIZE_MAX / elem) {
    *status = errors::ResourceExhausted("Tensor of shape ", shape.DebugString(),
                                        " and type ", DataTypeString(dtype),
                                        " is too large to allocate");
    return nullptr;
  }
  const size_t bytes = static_cast<size_t>(n) * elem;
  void* data = a->AllocateRaw(kAllocatorAlignment, bytes);
  if (data == nullptr) {
    *status = errors::ResourceExhausted("OOM when allocating tensor with shape",
                                        shape.DebugString(), " and type ",
                                        DataTypeString(dtype), " (", bytes,
                                        " bytes) on ", a->Name());
    return nullptr;
  }
  VisitObjectType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* objects = static_cast<T*>(data);
    for (int64_t i = 0; i < n; ++i) new (&objects[i]) T();
  });
  return new AllocatedBuffer(a, data, bytes, dtype, n);
}

}  // namespace

void TensorBuffer::Unref() const {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

// Default-made tensors fill every executor output slot, so their shape is
// copied from one made once rather than built (and checked) each time.
static const TensorShape& EmptyVectorShape() {
  static const TensorShape* const shape = new TensorShape({0});
  return *shape;
}

Tensor::Tensor(DataType type) : dtype_(type), shape_(EmptyVectorShape()) {}

Tensor::Tensor(Allocator* a, DataType type, const TensorShape& shape)
    : dtype_(type), shape_(shape) {
  Status ignored;
  buf_ = AllocateBuffer(a, type, shape, &ignored);
}

Tensor::Tensor(DataType type, const TensorShape& shape, void* data,
               std::function<void(void*)> release)
    : dtype_(type), shape_(shape) {
  MF_CHECK(type != DT_STRING && DataTypeSize(type) > 0);
  buf_ = new ExternalBuffer(data, shape.num_elements() * DataTypeSize(type),
                            std::move(release));
}

StatusOr<Tensor> Tensor::Allocate(Allocator* a, DataType type,
                                  const TensorShape& shape) {
  Tensor t(type);
  t.shape_ = shape;
  Status status;
  t.buf_ = AllocateBuffer(a, type, shape, &status);
  MF_RETURN_IF_ERROR(status);
  return t;
}

Tensor Tensor::MakeRef(Tensor* target, absl::Mutex* mu,
                       const core::RefCounted* owner) {
  // A writer may be replacing *target right now (Assign on another step):
  // its dtype is read under the variable's lock, which the caller must not
  // hold.
  DataType dtype = DT_INVALID;
  {
    absl::ReaderMutexLock lock(mu);
    dtype = target->dtype();
  }
  Tensor ref(MakeRefType(dtype));
  ref.shape_.Clear();  // a scalar
  ref.buf_ = new RefBuffer(target, mu, owner);
  return ref;
}

Tensor Tensor::Unallocated(DataType type) {
  Tensor t(type);
  t.shape_.Clear();  // a scalar
  return t;
}

Tensor* Tensor::RefTarget() const {
  MF_CHECK(IsRef() && buf_ != nullptr) << "RefTarget() of a non-ref tensor";
  return static_cast<RefBuffer*>(buf_)->target();
}

absl::Mutex* Tensor::RefMutex() const {
  MF_CHECK(IsRef() && buf_ != nullptr) << "RefMutex() of a non-ref tensor";
  return static_cast<RefBuffer*>(buf_)->mu();
}

Tensor::Tensor(const Tensor& other)
    : dtype_(other.dtype_), shape_(other.shape_), buf_(other.buf_) {
  if (buf_ != nullptr) buf_->Ref();
}

Tensor::Tensor(Tensor&& other) noexcept
    : dtype_(other.dtype_), shape_(std::move(other.shape_)), buf_(other.buf_) {
  other.buf_ = nullptr;
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this == &other) return *this;
  if (other.buf_ != nullptr) other.buf_->Ref();
  if (buf_ != nullptr) buf_->Unref();
  dtype_ = other.dtype_;
  // Note [Copying a shape]: absl::InlinedVector's copy assignment goes
  // through a general element loop, its copy constructor through one memcpy
  // of the inline buffer. Tensors are copied at every executor hand-off, so
  // the shape is copy-constructed in place.
  shape_.~TensorShape();
  new (&shape_) TensorShape(other.shape_);
  buf_ = other.buf_;
  return *this;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this == &other) return *this;
  if (buf_ != nullptr) buf_->Unref();
  dtype_ = other.dtype_;
  // As for the copy (Note [Copying a shape]): move assignment of an inline
  // absl::InlinedVector is an element loop, move construction one memcpy.
  shape_.~TensorShape();
  new (&shape_) TensorShape(std::move(other.shape_));
  buf_ = other.buf_;
  other.buf_ = nullptr;
  return *this;
}

Tensor::~Tensor() {
  if (buf_ != nullptr) buf_->Unref();
}

bool Tensor::IsInitialized() const {
  return buf_ != nullptr || NumElements() == 0;
}

size_t Tensor::TotalBytes() const {
  return static_cast<size_t>(NumElements()) * DataTypeSize(dtype_);
}

size_t Tensor::AllocatedBytes() const {
  return buf_ == nullptr ? 0 : buf_->size();
}

bool Tensor::IsAligned() const {
  return reinterpret_cast<uintptr_t>(data()) % EIGEN_MAX_ALIGN_BYTES == 0;
}

bool Tensor::SharesBufferWith(const Tensor& b) const {
  return buf_ != nullptr && b.buf_ != nullptr &&
         buf_->root_buffer() == b.buf_->root_buffer();
}

bool Tensor::RefCountIsOne() const {
  return buf_ != nullptr && buf_->RefCountIsOne() &&
         buf_->root_buffer()->RefCountIsOne();
}

bool Tensor::CopyFrom(const Tensor& other, const TensorShape& shape) {
  if (other.NumElements() != shape.num_elements()) return false;
  Tensor copy = other;  // keeps `other`'s buffer alive if this == &other
  dtype_ = copy.dtype_;
  shape_ = shape;
  std::swap(buf_, copy.buf_);
  return true;
}

Tensor Tensor::Slice(int64_t dim0_start, int64_t dim0_limit) const {
  MF_CHECK_GE(dims(), 1);
  MF_CHECK(0 <= dim0_start && dim0_start <= dim0_limit &&
           dim0_limit <= dim_size(0))
      << "slice [" << dim0_start << ", " << dim0_limit << ") of "
      << shape_.DebugString();
  Tensor result(dtype_);
  result.shape_ = shape_;
  result.shape_.set_dim(0, dim0_limit - dim0_start);
  if (buf_ == nullptr || result.NumElements() == 0) return result;
  const int64_t row = dim_size(0) == 0 ? 0 : NumElements() / dim_size(0);
  const size_t elem = ElementSize(dtype_);
  char* start = static_cast<char*>(buf_->data()) + dim0_start * row * elem;
  result.buf_ = new SubBuffer(buf_, start, result.NumElements() * elem);
  return result;
}

Tensor Tensor::DeepCopy() const {
  Tensor copy(dtype_, shape_);
  if (NumElements() == 0 || buf_ == nullptr) return copy;
  const bool objects = VisitObjectType(dtype_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = base<const T>();
    T* dst = copy.base<T>();
    for (int64_t i = 0; i < NumElements(); ++i) dst[i] = src[i];
  });
  if (!objects) std::memcpy(copy.data(), data(), TotalBytes());
  return copy;
}

absl::string_view Tensor::tensor_data() const {
  if (buf_ == nullptr || !DataTypeCanUseMemcpy(dtype_)) {
    return absl::string_view();
  }
  return absl::string_view(static_cast<const char*>(data()), TotalBytes());
}

namespace {

template <typename T>
void PrintValue(std::ostream& os, const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    os << '"' << v << '"';
  } else if constexpr (std::is_same_v<T, bool>) {
    os << (v ? "True" : "False");
  } else if constexpr (std::is_same_v<T, int8_t> ||
                       std::is_same_v<T, uint8_t>) {
    os << static_cast<int>(v);
  } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    os << static_cast<float>(v);
  } else if constexpr (std::is_same_v<T, qint8> || std::is_same_v<T, quint8> ||
                       std::is_same_v<T, qint16> ||
                       std::is_same_v<T, quint16> ||
                       std::is_same_v<T, qint32>) {
    os << static_cast<int64_t>(v.value);
  } else if constexpr (std::is_same_v<T, complex64> ||
                       std::is_same_v<T, complex128>) {
    os << "(" << v.real() << "," << v.imag() << ")";
  } else {
    os << v;
  }
}

// Prints values in nested brackets, as numpy does, stopping after `limit`.
template <typename T>
void PrintNested(std::ostream& os, const T* data, const TensorShape& shape,
                 int dim, int64_t offset, int64_t limit, int64_t* printed) {
  if (dim == shape.dims()) {
    PrintValue(os, data[offset]);
    ++*printed;
    return;
  }
  int64_t stride = 1;
  for (int d = dim + 1; d < shape.dims(); ++d) stride *= shape.dim_size(d);
  os << "[";
  for (int64_t i = 0; i < shape.dim_size(dim); ++i) {
    if (*printed >= limit) {
      os << "...";
      break;
    }
    if (i > 0) os << (dim + 1 == shape.dims() ? " " : "\n ");
    PrintNested(os, data, shape, dim + 1, offset + i * stride, limit, printed);
  }
  os << "]";
}

}  // namespace

std::string Tensor::SummarizeValue(int64_t max_entries, bool print_v2) const {
  if (!IsInitialized()) return "<uninitialized>";
  if (NumElements() == 0) return "[]";
  std::ostringstream os;
  if (IsRef()) return "<reference to a variable>";
  if (dtype_ == DT_RESOURCE || dtype_ == DT_VARIANT) {
    const int64_t n = std::min(max_entries, NumElements());
    for (int64_t i = 0; i < n; ++i) {
      if (i > 0) os << " ";
      os << (dtype_ == DT_RESOURCE
                 ? base<const ResourceHandle>()[i].DebugString()
                 : base<const Variant>()[i].DebugString());
    }
    if (n < NumElements()) os << "...";
    return os.str();
  }
  const bool known = VisitDataType(dtype_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    int64_t printed = 0;
    if (print_v2) {
      PrintNested(os, base<const T>(), shape_, 0, 0, max_entries, &printed);
    } else {
      const int64_t n = std::min(max_entries, NumElements());
      for (int64_t i = 0; i < n; ++i) {
        if (i > 0) os << " ";
        PrintValue(os, base<const T>()[i]);
      }
      if (n < NumElements()) os << "...";
    }
  });
  if (!known) return "<unprintable dtype>";
  return os.str();
}

std::string Tensor::DebugString(int num_values) const {
  return absl::StrCat("Tensor<type: ", DataTypeString(dtype_),
                      " shape: ", shape_.DebugString(),
                      " values: ", SummarizeValue(num_values, false), ">");
}

}  // namespace minflow
