#include "src/kernels/variable_ops_common.h"

#include <type_traits>

#include "minflow/core/dtype_dispatch.h"

namespace minflow {
namespace {

template <typename T>
constexpr bool kIsNumber =
    (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) ||
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16> ||
    std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

}  // namespace

Status ApplyDenseUpdate(DenseUpdate op, const Tensor& lhs, const Tensor& rhs,
                        Tensor* out) {
  bool numeric = false;
  VisitDataType(lhs.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsNumber<T>) {
      numeric = true;
      auto a = lhs.unaligned_flat<T>();
      auto b = rhs.unaligned_flat<T>();
      auto o = out->unaligned_flat<T>();
      if (op == DenseUpdate::kAdd) {
        o = a + b;
      } else {
        o = a - b;
      }
    }
  });
  if (!numeric) {
    return errors::InvalidArgument("Cannot ", DenseUpdateName(op),
                                   " values of type ",
                                   DataTypeString(lhs.dtype()));
  }
  return OkStatus();
}

const char* DenseUpdateName(DenseUpdate op) {
  return op == DenseUpdate::kAdd ? "add" : "subtract";
}

}  // namespace minflow
