// Helpers shared by the linear-algebra and NN kernel tests: deterministic
// pseudo-random tensors and tolerances for comparing against a reference
// loop that accumulates in double.
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "minflow/node_def.pb.h"
#include "tests/testlib/shape_inference_testutil.h"

namespace minflow {
namespace test {

// Values in [-1, 1) for floating types and in [-3, 3] for integers, from a
// fixed hash of (seed, index) so failures reproduce.
template <typename T>
Tensor RandomTensor(const TensorShape& shape, uint32_t seed) {
  Tensor t(DataTypeToEnum<T>::v(), shape);
  T* data = t.base<T>();
  uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    state ^= state >> 33;
    state *= 0xff51afd7ed558ccdull;
    state ^= state >> 29;
    state += 0x632BE59BD9B14E9Bull;
    const uint32_t r = static_cast<uint32_t>(state >> 40);  // 24 bits
    if constexpr (std::is_integral<T>::value) {
      data[i] = static_cast<T>(static_cast<int>(r % 7) - 3);
    } else {
      data[i] = static_cast<T>(static_cast<float>(r) / (1 << 23) - 1.0f);
    }
  }
  return t;
}

// Absolute tolerance for a sum of `terms` products of values in [-1, 1]:
// a few rounding errors of the type per term; zero for integers.
template <typename T>
double SumTolerance(int64_t terms) {
  double eps = 0;
  if constexpr (std::is_same<T, float>::value) eps = 1.2e-7;
  if constexpr (std::is_same<T, double>::value) eps = 2.3e-16;
  if constexpr (std::is_same<T, half>::value) eps = 9.8e-4;
  if constexpr (std::is_same<T, bfloat16>::value) eps = 7.9e-3;
  return 4 * eps * static_cast<double>(terms + 1);
}

// Element i of a tensor of T as double.
template <typename T>
double ValueAt(const Tensor& t, int64_t i) {
  return static_cast<double>(static_cast<float>(t.base<const T>()[i]));
}
template <>
inline double ValueAt<double>(const Tensor& t, int64_t i) {
  return t.base<const double>()[i];
}
template <>
inline double ValueAt<int64_t>(const Tensor& t, int64_t i) {
  return static_cast<double>(t.base<const int64_t>()[i]);
}
template <>
inline double ValueAt<int32_t>(const Tensor& t, int64_t i) {
  return static_cast<double>(t.base<const int32_t>()[i]);
}

// EXPECTs `out` to have `shape` and each element within `atol` (plus a
// relative 1e-6 for floating types) of `ref`, reporting the first few
// mismatches.
template <typename T>
void ExpectNearReference(const Tensor& out, const TensorShape& shape,
                         const std::vector<double>& ref, double atol) {
  ASSERT_EQ(out.dtype(), DataTypeToEnum<T>::v());
  ASSERT_EQ(out.shape().DebugString(), shape.DebugString());
  ASSERT_EQ(out.NumElements(), static_cast<int64_t>(ref.size()));
  const double rtol = std::is_integral<T>::value ? 0 : 1e-6;
  int reported = 0;
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const double got = ValueAt<T>(out, i);
    const double want = ref[i];
    if (got == want) continue;  // also equal infinities
    const double diff = got > want ? got - want : want - got;
    const double scale = want < 0 ? -want : want;
    if (diff <= atol + rtol * scale) continue;
    ADD_FAILURE() << "element " << i << ": got " << got << ", want " << want
                  << " (atol " << atol << ")";
    if (++reported == 10) return;
  }
}

// The output shape the op's registered shape function predicts for
// `node_def` given fully known `inputs`, as "[2,3]" (the notation's "dI_J"
// references replaced by the input dims they name), or "error: ..." when
// the shape function fails.
inline std::string PredictedOutputShape(const NodeDef& node_def,
                                        absl::Span<const TensorShape> inputs) {
  ShapeInferenceTestOp op(node_def.op());
  op.node_def = node_def;
  std::vector<std::string> ins;
  for (const TensorShape& s : inputs) ins.push_back(s.DebugString());
  const StatusOr<std::string> out =
      ShapeInferenceTestutil::Infer(op, absl::StrJoin(ins, ";"));
  if (!out.ok()) return "error: " + std::string(out.status().message());
  const std::string& n = *out;
  std::string result;
  auto read_number = [&n](size_t* i) {
    int64_t v = 0;
    while (*i < n.size() && std::isdigit(static_cast<unsigned char>(n[*i]))) {
      v = v * 10 + (n[(*i)++] - '0');
    }
    return v;
  };
  for (size_t i = 0; i < n.size();) {
    if (n[i] == 'd' && i + 1 < n.size() &&
        std::isdigit(static_cast<unsigned char>(n[i + 1]))) {
      ++i;
      const int64_t input = read_number(&i);
      ++i;  // '_'
      const int64_t dim = read_number(&i);
      if (input >= static_cast<int64_t>(inputs.size()) ||
          dim >= inputs[input].dims()) {
        return "error: bad reference in " + n;
      }
      result += std::to_string(inputs[input].dim_size(static_cast<int>(dim)));
    } else {
      result += n[i++];
    }
  }
  return result;
}

}  // namespace test
}  // namespace minflow
