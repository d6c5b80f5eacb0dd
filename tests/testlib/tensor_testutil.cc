#include "tests/testlib/tensor_testutil.h"

#include "minflow/core/dtype_dispatch.h"

namespace minflow {
namespace test {
namespace internal {

bool ExpectSameTypeAndShape(const Tensor& x, const Tensor& y,
                            DataType expected_dtype) {
  bool ok = true;
  if (x.dtype() != expected_dtype || y.dtype() != expected_dtype) {
    ADD_FAILURE() << "dtypes " << DataTypeString(x.dtype()) << " and "
                  << DataTypeString(y.dtype()) << " where "
                  << DataTypeString(expected_dtype) << " was expected";
    ok = false;
  }
  if (!x.shape().IsSameSize(y.shape())) {
    ADD_FAILURE() << "shape " << x.shape().DebugString() << " vs expected "
                  << y.shape().DebugString();
    ok = false;
  }
  return ok;
}

}  // namespace internal

void ExpectEqual(const Tensor& x, const Tensor& y) {
  if (x.dtype() != y.dtype()) {
    ADD_FAILURE() << "dtype " << DataTypeString(x.dtype()) << " vs expected "
                  << DataTypeString(y.dtype());
    return;
  }
  const bool known = VisitDataType(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ExpectTensorEqual<T>(x, y);
  });
  if (!known) ADD_FAILURE() << "cannot compare " << DataTypeString(x.dtype());
}

void ExpectClose(const Tensor& x, const Tensor& y, double atol, double rtol) {
  if (x.dtype() != y.dtype()) {
    ADD_FAILURE() << "dtype " << DataTypeString(x.dtype()) << " vs expected "
                  << DataTypeString(y.dtype());
    return;
  }
  const Tolerance tol = DefaultTolerance(x.dtype());
  if (atol < 0) atol = tol.atol;
  if (rtol < 0) rtol = tol.rtol;
  const bool known = VisitDataType(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ExpectTensorNear<T>(x, y, atol, rtol);
  });
  if (!known) ADD_FAILURE() << "cannot compare " << DataTypeString(x.dtype());
}

}  // namespace test
}  // namespace minflow
