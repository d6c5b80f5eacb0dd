#include "src/kernels/variable_ops_common.h"

#include "minflow/core/dtype_dispatch.h"

namespace minflow {
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
