// Tensor helpers for tests, with TensorFlow's names (test::AsTensor,
// test::ExpectTensorEqual, test::ExpectTensorNear) and per-dtype default
// tolerances, so ported TF kernel tests read the same.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"

namespace minflow {
namespace test {

// A 1-D tensor holding `vals`, or `vals` laid out in `shape` (row-major;
// the element counts must agree).
template <typename T>
Tensor AsTensor(absl::Span<const T> vals) {
  Tensor t(DataTypeToEnum<T>::v(),
           TensorShape({static_cast<int64_t>(vals.size())}));
  for (size_t i = 0; i < vals.size(); ++i) t.flat<T>()(i) = vals[i];
  return t;
}
template <typename T>
Tensor AsTensor(absl::Span<const T> vals, const TensorShape& shape) {
  Tensor t(DataTypeToEnum<T>::v(), shape);
  EXPECT_EQ(static_cast<int64_t>(vals.size()), shape.num_elements())
      << "AsTensor: " << vals.size() << " values for shape "
      << shape.DebugString();
  const int64_t n =
      std::min<int64_t>(static_cast<int64_t>(vals.size()), t.NumElements());
  for (int64_t i = 0; i < n; ++i) t.flat<T>()(i) = vals[i];
  return t;
}
template <typename T>
Tensor AsTensor(std::initializer_list<T> vals) {
  return AsTensor<T>(absl::Span<const T>(vals.begin(), vals.size()));
}
template <typename T>
Tensor AsTensor(std::initializer_list<T> vals, const TensorShape& shape) {
  return AsTensor<T>(absl::Span<const T>(vals.begin(), vals.size()), shape);
}

template <typename T>
Tensor AsScalar(const T& val) {
  Tensor t(DataTypeToEnum<T>::v(), TensorShape());
  t.scalar<T>()() = val;
  return t;
}

// Overwrites the elements of `*tensor` with `vals` (counts must agree).
template <typename T>
void FillValues(Tensor* tensor, absl::Span<const T> vals) {
  ASSERT_EQ(static_cast<int64_t>(vals.size()), tensor->NumElements());
  auto flat = tensor->flat<T>();
  for (size_t i = 0; i < vals.size(); ++i) flat(i) = vals[i];
}
template <typename T>
void FillValues(Tensor* tensor, std::initializer_list<T> vals) {
  FillValues<T>(tensor, absl::Span<const T>(vals.begin(), vals.size()));
}

// Sets element i of `*tensor` to fn(i).
template <typename T>
void FillFn(Tensor* tensor, const std::function<T(int)>& fn) {
  auto flat = tensor->flat<T>();
  for (int64_t i = 0; i < flat.size(); ++i) flat(i) = fn(static_cast<int>(i));
}

// Default tolerances: a few ulps of the type's precision, loose enough for
// reassociated sums (sharded reductions, blocked GEMM) at test sizes.
// Integers, bool and strings compare exactly.
struct Tolerance {
  double atol = 0;
  double rtol = 0;
};
inline Tolerance DefaultTolerance(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
    case DT_COMPLEX64:
      return {1e-5, 1e-5};
    case DT_DOUBLE:
    case DT_COMPLEX128:
      return {1e-10, 1e-10};
    case DT_HALF:
      return {5e-3, 5e-3};
    case DT_BFLOAT16:
      return {3e-2, 3e-2};
    default:
      return {0, 0};
  }
}

namespace internal {

template <typename T>
constexpr bool kIsLowPrecisionFloat =
    std::is_same<T, half>::value || std::is_same<T, bfloat16>::value;

// Printable form: half/bfloat16 as float, int8 as a number.
template <typename T>
auto Printable(const T& v) {
  if constexpr (kIsLowPrecisionFloat<T>) {
    return static_cast<float>(v);
  } else if constexpr (std::is_same<T, int8_t>::value ||
                       std::is_same<T, uint8_t>::value) {
    return static_cast<int>(v);
  } else if constexpr (std::is_same<T, qint8>::value ||
                       std::is_same<T, quint8>::value ||
                       std::is_same<T, qint16>::value ||
                       std::is_same<T, quint16>::value ||
                       std::is_same<T, qint32>::value) {
    return static_cast<int64_t>(v.value);
  } else {
    return v;
  }
}

template <typename T>
double ToDouble(const T& v) {
  if constexpr (kIsLowPrecisionFloat<T>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

template <typename T>
bool Near(const T& a, const T& b, double atol, double rtol) {
  if constexpr (std::is_floating_point<T>::value || kIsLowPrecisionFloat<T>) {
    const double x = ToDouble(a);
    const double y = ToDouble(b);
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    if (std::isinf(x) || std::isinf(y)) return x == y;
    return std::abs(x - y) <= atol + rtol * std::abs(y);
  } else if constexpr (std::is_same<T, complex64>::value ||
                       std::is_same<T, complex128>::value) {
    return Near(a.real(), b.real(), atol, rtol) &&
           Near(a.imag(), b.imag(), atol, rtol);
  } else {
    return a == b;
  }
}

template <typename T>
bool Equal(const T& a, const T& b) {
  if constexpr (std::is_floating_point<T>::value || kIsLowPrecisionFloat<T>) {
    // NaNs compare equal to each other, so "same output" holds for them.
    const double x = ToDouble(a);
    const double y = ToDouble(b);
    return x == y || (std::isnan(x) && std::isnan(y));
  } else if constexpr (std::is_same<T, complex64>::value ||
                       std::is_same<T, complex128>::value) {
    return Equal(a.real(), b.real()) && Equal(a.imag(), b.imag());
  } else {
    return a == b;
  }
}

// EXPECTs equal dtype and shape; false when they differ.
bool ExpectSameTypeAndShape(const Tensor& x, const Tensor& y,
                            DataType expected_dtype);

// Compares element-wise with `close`, reporting the first mismatches.
template <typename T, typename Close>
void CompareElements(const Tensor& x, const Tensor& y, Close close,
                     const std::string& what) {
  const auto a = x.unaligned_flat<T>();
  const auto b = y.unaligned_flat<T>();
  int reported = 0;
  int64_t mismatches = 0;
  for (int64_t i = 0; i < a.size(); ++i) {
    if (close(a(i), b(i))) continue;
    ++mismatches;
    if (reported < 10) {
      ++reported;
      ADD_FAILURE() << what << " mismatch at flat index " << i << ": "
                    << Printable(a(i)) << " vs expected " << Printable(b(i));
    }
  }
  if (mismatches > reported) {
    ADD_FAILURE() << what << ": " << mismatches << " mismatches in total of "
                  << a.size() << " elements";
  }
}

}  // namespace internal

// Same dtype, shape and values (NaN equals NaN). `y` is the expectation.
template <typename T>
void ExpectTensorEqual(const Tensor& x, const Tensor& y) {
  if (!internal::ExpectSameTypeAndShape(x, y, DataTypeToEnum<T>::v())) return;
  internal::CompareElements<T>(
      x, y, [](const T& a, const T& b) { return internal::Equal(a, b); },
      "ExpectTensorEqual");
}

// |x - y| <= atol + rtol * |y| element-wise (NaN matches NaN, infinities
// must be equal). Without tolerances, DefaultTolerance(dtype).
template <typename T>
void ExpectTensorNear(const Tensor& x, const Tensor& y, double atol,
                      double rtol = 0) {
  if (!internal::ExpectSameTypeAndShape(x, y, DataTypeToEnum<T>::v())) return;
  internal::CompareElements<T>(
      x, y,
      [atol, rtol](const T& a, const T& b) {
        return internal::Near(a, b, atol, rtol);
      },
      absl::StrCat("ExpectTensorNear(atol=", atol, ", rtol=", rtol, ")"));
}
template <typename T>
void ExpectTensorNear(const Tensor& x, const Tensor& y) {
  const Tolerance tol = DefaultTolerance(DataTypeToEnum<T>::v());
  ExpectTensorNear<T>(x, y, tol.atol, tol.rtol);
}

// Dtype-dispatched forms: exact for integers, bool and strings; with the
// default tolerances (or those given, when >= 0) for floating types.
void ExpectEqual(const Tensor& x, const Tensor& y);
void ExpectClose(const Tensor& x, const Tensor& y, double atol = -1,
                 double rtol = -1);

}  // namespace test
}  // namespace minflow
