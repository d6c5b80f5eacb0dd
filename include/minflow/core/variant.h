// Variant: one value of any copyable C++ type, the element type of
// DT_VARIANT tensors (TensorFlow's TensorList is one). Copying a Variant
// copies the value; make large values cheap to copy (share their storage)
// as TensorList does. A Variant is not thread-safe to mutate; distinct
// copies may be used from different threads.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>

namespace minflow {

namespace internal {
// "minflow::TensorList" from a mangled type_info name.
std::string DemangleTypeName(const char* mangled);

template <typename T, typename = void>
struct HasTypeNameMember : std::false_type {};
template <typename T>
struct HasTypeNameMember<
    T, std::void_t<decltype(std::declval<const T&>().TypeName())>>
    : std::true_type {};

template <typename T, typename = void>
struct HasDebugStringMember : std::false_type {};
template <typename T>
struct HasDebugStringMember<
    T, std::void_t<decltype(std::declval<const T&>().DebugString())>>
    : std::true_type {};
}  // namespace internal

// The name a value's type goes by in errors: its TypeName() member when it
// has one (TensorFlow's convention), else the demangled C++ name.
template <typename T>
std::string VariantTypeName(const T& value) {
  if constexpr (internal::HasTypeNameMember<T>::value) {
    return std::string(value.TypeName());
  } else {
    return internal::DemangleTypeName(typeid(T).name());
  }
}

class Variant {
 public:
  Variant() = default;
  template <typename T, typename VT = std::decay_t<T>,
            typename = std::enable_if_t<!std::is_same_v<VT, Variant>>>
  Variant(T&& value)  // NOLINT: implicit, as TensorFlow's
      : value_(std::make_unique<Holder<VT>>(std::forward<T>(value))) {}

  Variant(const Variant& other)
      : value_(other.value_ == nullptr ? nullptr : other.value_->Clone()) {}
  Variant(Variant&& other) noexcept = default;
  Variant& operator=(const Variant& other) {
    if (this != &other) Variant(other).swap(*this);
    return *this;
  }
  Variant& operator=(Variant&& other) noexcept = default;
  template <typename T, typename VT = std::decay_t<T>,
            typename = std::enable_if_t<!std::is_same_v<VT, Variant>>>
  Variant& operator=(T&& value) {
    value_ = std::make_unique<Holder<VT>>(std::forward<T>(value));
    return *this;
  }

  void swap(Variant& other) noexcept { value_.swap(other.value_); }
  bool is_empty() const { return value_ == nullptr; }
  void clear() { value_.reset(); }

  // The value if it is a T, else null.
  template <typename T>
  T* get() {
    return is_empty() || value_->Type() != std::type_index(typeid(T))
               ? nullptr
               : &static_cast<Holder<T>*>(value_.get())->value;
  }
  template <typename T>
  const T* get() const {
    return is_empty() || value_->Type() != std::type_index(typeid(T))
               ? nullptr
               : &static_cast<const Holder<T>*>(value_.get())->value;
  }

  // "TensorList", or "<empty>".
  std::string TypeName() const {
    return is_empty() ? "<empty>" : value_->TypeName();
  }
  std::string DebugString() const {
    return is_empty() ? "Variant<empty>" : value_->DebugString();
  }

 private:
  struct Base {
    virtual ~Base() = default;
    virtual std::unique_ptr<Base> Clone() const = 0;
    virtual std::type_index Type() const = 0;
    virtual std::string TypeName() const = 0;
    virtual std::string DebugString() const = 0;
  };
  template <typename T>
  struct Holder final : Base {
    template <typename U>
    explicit Holder(U&& v) : value(std::forward<U>(v)) {}
    std::unique_ptr<Base> Clone() const override {
      return std::make_unique<Holder<T>>(value);
    }
    std::type_index Type() const override { return typeid(T); }
    std::string TypeName() const override { return VariantTypeName(value); }
    std::string DebugString() const override {
      if constexpr (internal::HasDebugStringMember<T>::value) {
        return value.DebugString();
      } else {
        return "Variant<type: " + TypeName() + ">";
      }
    }
    T value;
  };

  std::unique_ptr<Base> value_;
};

}  // namespace minflow
