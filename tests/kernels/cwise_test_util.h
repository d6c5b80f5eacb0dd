// Helpers for the element-wise, reduction and softmax kernel tests:
// deterministic random tensors, a naive numpy-broadcast reference, element
// access as double, comparison against a reference with per-dtype
// tolerances, and the op's own shape function as the oracle for output
// shapes.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_notation.h"
#include "minflow/node_def.pb.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace test {

template <typename T>
constexpr bool kIsLowFloat =
    std::is_same<T, half>::value || std::is_same<T, bfloat16>::value;

template <typename T>
double ToDouble(T v) {
  if constexpr (kIsLowFloat<T>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

template <typename T>
T FromDouble(double v) {
  if constexpr (kIsLowFloat<T>) {
    return static_cast<T>(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
double ElementAt(const Tensor& t, int64_t i) {
  return ToDouble(t.base<const T>()[i]);
}

// Uniform values in [lo, hi] (integers: rounded toward zero) from a fixed
// hash of (seed, index), so failures reproduce.
template <typename T>
Tensor RandomValues(const TensorShape& shape, uint64_t seed, double lo,
                    double hi) {
  Tensor t(DataTypeToEnum<T>::v(), shape);
  T* data = t.base<T>();
  uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const double u = static_cast<double>(z >> 11) / 9007199254740992.0;
    const double v = lo + (hi - lo) * u;
    if constexpr (std::is_same<T, bool>::value) {
      data[i] = u < 0.5;
    } else if constexpr (std::is_integral<T>::value) {
      data[i] = static_cast<T>(std::trunc(v));
    } else {
      data[i] = FromDouble<T>(v);
    }
  }
  return t;
}

template <typename T>
Tensor FromDoubles(const TensorShape& shape, const std::vector<double>& v) {
  Tensor t(DataTypeToEnum<T>::v(), shape);
  EXPECT_EQ(static_cast<int64_t>(v.size()), t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.base<T>()[i] = FromDouble<T>(v[i]);
  }
  return t;
}

// Tolerances for results computed by Eigen's vectorised math against a
// double-precision reference: a few ulps of T.
template <typename T>
Tolerance MathTolerance() {
  if constexpr (std::is_same<T, float>::value) return {1e-6, 4e-6};
  if constexpr (std::is_same<T, double>::value) return {1e-14, 1e-13};
  if constexpr (std::is_same<T, half>::value) return {1e-3, 2e-3};
  if constexpr (std::is_same<T, bfloat16>::value) return {8e-3, 1.6e-2};
  return {0, 0};
}

// EXPECTs `actual` to equal `expected` (a double per element, rounded to
// T) within `tol` (exact for integers and bool), with the shape `shape`.
template <typename T>
void ExpectMatches(const Tensor& actual, const TensorShape& shape,
                   const std::vector<double>& expected,
                   Tolerance tol = MathTolerance<T>()) {
  ASSERT_EQ(actual.dtype(), DataTypeToEnum<T>::v());
  ASSERT_EQ(actual.shape().DebugString(), shape.DebugString());
  const Tensor want = FromDoubles<T>(shape, expected);
  if constexpr (std::is_integral<T>::value) {
    ExpectTensorEqual<T>(actual, want);
  } else {
    ExpectTensorNear<T>(actual, want, tol.atol, tol.rtol);
  }
}

// numpy broadcasting of two shapes; false when incompatible.
inline bool BroadcastShapes(const TensorShape& a, const TensorShape& b,
                            TensorShape* out) {
  const int rank = std::max(a.dims(), b.dims());
  std::vector<int64_t> dims(rank);
  for (int j = 0; j < rank; ++j) {
    const int ia = a.dims() - rank + j;
    const int ib = b.dims() - rank + j;
    const int64_t da = ia >= 0 ? a.dim_size(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim_size(ib) : 1;
    if (da != db && da != 1 && db != 1) return false;
    dims[j] = da == 1 ? db : da;
  }
  *out = TensorShape(absl::Span<const int64_t>(dims));
  return true;
}

// The flat index into an input of shape `in` that output element `i` (of
// the broadcast shape `out`) reads.
inline int64_t BroadcastOffset(const TensorShape& out, const TensorShape& in,
                               int64_t i) {
  int64_t offset = 0;
  int64_t in_stride = 1;
  for (int j = out.dims() - 1; j >= 0; --j) {
    const int64_t coord = i % out.dim_size(j);
    i /= out.dim_size(j);
    const int ij = in.dims() - out.dims() + j;
    if (ij < 0) continue;
    const int64_t d = in.dim_size(ij);
    if (d != 1) offset += coord * in_stride;
    in_stride *= d;
  }
  return offset;
}

// What the op's registered shape function predicts for output `idx` of
// `node` given these input values ("[2,3]"), or its error.
inline StatusOr<std::string> ShapeFnPrediction(
    const NodeDef& node, const std::vector<const Tensor*>& inputs,
    int idx = 0) {
  std::vector<std::string> specs;
  for (const Tensor* t : inputs) specs.push_back(t->shape().DebugString());
  NodeDef def = node;
  shape_inference::NotationRun run;
  MF_RETURN_IF_ERROR(shape_inference::RunShapeInferenceFromNotation(
      *OpRegistry::Global(), absl::StrJoin(specs, ";"), inputs,
      shape_inference::kNotationGraphDefVersion, &def, &run));
  return run.context->DebugString(run.context->output(idx));
}

// Kernel tests run on every kernel-test device (Note in
// op_kernel_test_base.h) and can check the output shape against the op's
// shape function.
class CwiseOpsTestBase : public OpsTestBaseP {
 protected:
  // EXPECTs output `idx` of the last run to have the shape the op's shape
  // function predicts for the inputs of that run.
  void ExpectShapeFnAgrees(int idx = 0) {
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < op_kernel()->num_inputs(); ++i) {
      inputs.push_back(&GetInput(i));
    }
    const StatusOr<std::string> predicted =
        ShapeFnPrediction(*node_def(), inputs, idx);
    ASSERT_TRUE(predicted.ok()) << predicted.status();
    ASSERT_NE(GetOutput(idx), nullptr);
    EXPECT_EQ(*predicted, GetOutput(idx)->shape().DebugString())
        << "shape function and kernel disagree for " << node_def()->op();
  }
};

}  // namespace test
}  // namespace minflow
