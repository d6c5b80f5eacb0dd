// Shared by the array kernel tests (tests/kernels/*_op_test.cc for the
// data-movement kernels): inputs with distinct values for any dtype, a
// naive reference built from source indices, and a check of the output
// shapes against the op's shape function, when it has one.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/dtype_dispatch.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"
#include "minflow/op_def.pb.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace test {

// Element i of a test input: distinct across i for wide types, spread over
// the whole range (and both signs) for narrow ones; strings alternate
// between short and heap-allocated lengths.
template <typename T>
T TestValue(int64_t i) {
  if constexpr (std::is_same<T, bool>::value) {
    return (i * 7) % 3 == 0;
  } else if constexpr (std::is_same<T, std::string>::value) {
    return i % 3 == 0 ? absl::StrCat("s", i)
                      : absl::StrCat("a longer string past SSO, #", i);
  } else if constexpr (std::is_same<T, complex64>::value ||
                       std::is_same<T, complex128>::value) {
    using R = typename T::value_type;
    return T(static_cast<R>(i) + R(0.25), -static_cast<R>(i));
  } else if constexpr (std::is_same<T, half>::value ||
                       std::is_same<T, bfloat16>::value) {
    return T(static_cast<float>(i % 256) - 128.0f);
  } else if constexpr (std::is_floating_point<T>::value) {
    return static_cast<T>(i) * T(0.5) - T(3);
  } else if constexpr (std::is_integral<T>::value) {
    return static_cast<T>(i * 2654435761u + 17);
  } else {
    // Quantized: the storage integer.
    T v;
    v.value = static_cast<decltype(v.value)>(i * 2654435761u + 17);
    return v;
  }
}

// A tensor of `dtype` whose element i is TestValue(i + offset).
inline Tensor MakeTestTensor(DataType dtype, const TensorShape& shape,
                             int64_t offset = 0) {
  Tensor t(dtype, shape);
  const bool ok = VisitDataType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = t.base<T>();
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      data[i] = TestValue<T>(i + offset);
    }
  });
  EXPECT_TRUE(ok) << DataTypeString(dtype);
  return t;
}

// The expected result of a data-movement op: element j is element src[j]
// of `input`, or element 0 of `fill` where src[j] < 0.
inline Tensor GatherReference(const Tensor& input, const TensorShape& shape,
                              const std::vector<int64_t>& src,
                              const Tensor* fill = nullptr) {
  Tensor t(input.dtype(), shape);
  EXPECT_EQ(static_cast<int64_t>(src.size()), shape.num_elements());
  VisitDataType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = t.base<T>();
    for (size_t j = 0; j < src.size(); ++j) {
      if (src[j] >= 0) {
        out[j] = input.base<const T>()[src[j]];
      } else {
        out[j] = fill->base<const T>()[0];
      }
    }
  });
  return t;
}

// Row-major helpers for references.
inline std::vector<int64_t> Strides(const TensorShape& shape) {
  std::vector<int64_t> s(shape.dims(), 1);
  for (int d = shape.dims() - 2; d >= 0; --d) {
    s[d] = s[d + 1] * shape.dim_size(d + 1);
  }
  return s;
}
inline std::vector<int64_t> Unravel(int64_t flat, const TensorShape& shape) {
  std::vector<int64_t> idx(shape.dims());
  for (int d = shape.dims() - 1; d >= 0; --d) {
    idx[d] = flat % shape.dim_size(d);
    flat /= shape.dim_size(d);
  }
  return idx;
}

// Every width the data-movement kernels instantiate (1, 2, 4, 8, 16 bytes,
// strings) plus bool.
inline std::vector<DataType> MovementTypes() {
  return {DT_FLOAT,      DT_INT8, DT_HALF,  DT_INT64,
          DT_COMPLEX128, DT_BOOL, DT_STRING};
}

// The no-copy ops must hand out the input's own buffer; an empty tensor
// has no buffer to share, so there is nothing to check.
inline void ExpectSharesBuffer(const Tensor& out, const Tensor& in) {
  if (in.NumElements() == 0) return;
  EXPECT_TRUE(out.SharesBufferWith(in)) << out.shape().DebugString();
}

// A CPU kernel test with the array ops registered.
class ArrayOpTest : public OpsTestBase {
 protected:
  // Runs the kernel, asserts OK, and checks the output shapes against the
  // op's shape function given every input's shape and value.
  void RunAndCheckShapes() {
    const Status s = RunOpKernel();
    ASSERT_TRUE(s.ok()) << ::minflow::testing::StatusToString(s);
    if (!skip_shape_fn_) ExpectShapeFnAgrees();
  }

  // Runs the kernel and expects `code` with `substr` in the message.
  void ExpectRunError(absl::StatusCode code, const std::string& substr) {
    EXPECT_THAT(RunOpKernel(), ::minflow::testing::StatusIs(
                                   code, ::testing::HasSubstr(substr)));
  }
  void ExpectInvalid(const std::string& substr) {
    ExpectRunError(absl::StatusCode::kInvalidArgument, substr);
  }

  // Runs the kernel on `inputs` as they are (the fixture would copy
  // them): for shapes too large to allocate, wrapped around a few bytes by
  // HugeTensor, which a kernel must reject before reading.
  Status RunOnTensors(std::vector<Tensor>* inputs) {
    std::vector<TensorValue> values;
    for (Tensor& t : *inputs) values.emplace_back(&t);
    OpKernelContext::Params params;
    params.device = device();
    params.op_kernel = op_kernel();
    params.inputs = values;
    OpKernelContext ctx(&params);
    op_kernel()->Compute(&ctx);
    return ctx.status();
  }
  // Set by tests of inputs the kernel accepts (as TF's kernel does) but the
  // shape function rejects (as TF's does), each saying why.
  bool skip_shape_fn_ = false;

  static Tensor HugeTensor(DataType dtype, const TensorShape& shape) {
    alignas(64) static unsigned char bytes[64] = {};
    return Tensor(dtype, shape, bytes, [](void*) {});
  }

  void ExpectShapeFnAgrees() {
    const OpRegistrationData* reg =
        OpRegistry::Global()->LookUp(node_def()->op());
    ASSERT_NE(reg, nullptr);
    if (!reg->shape_inference_fn) return;  // no prediction to compare with
    std::vector<PartialTensorShape> shapes;
    std::vector<const Tensor*> values;
    for (int i = 0; i < op_kernel()->num_inputs(); ++i) {
      shapes.emplace_back(GetInput(i).shape());
      values.push_back(&GetInput(i));
    }
    shape_inference::InferenceContext c(0, *node_def(), reg->op_def, shapes,
                                        values);
    const Status s = c.Run(reg->shape_inference_fn);
    ASSERT_TRUE(s.ok()) << "shape function: "
                        << ::minflow::testing::StatusToString(s);
    for (int o = 0; o < op_kernel()->num_outputs(); ++o) {
      const Tensor* out = GetOutput(o);
      ASSERT_NE(out, nullptr) << "output " << o;
      // Compared through the "[2,?]" form: "?" for an unknown rank or dim.
      const std::string predicted = c.DebugString(c.output(o));
      const std::string actual = out->shape().DebugString();
      if (predicted.find('?') == std::string::npos) {
        EXPECT_EQ(predicted, actual) << "output " << o;
        continue;
      }
      if (predicted == "?") continue;
      const std::vector<std::string> dims = absl::StrSplit(
          absl::string_view(predicted).substr(1, predicted.size() - 2), ',');
      ASSERT_EQ(static_cast<int>(dims.size()), out->dims())
          << predicted << " vs " << actual;
      for (int d = 0; d < out->dims(); ++d) {
        if (dims[d] != "?") {
          EXPECT_EQ(dims[d], std::to_string(out->dim_size(d)))
              << predicted << " vs " << actual;
        }
      }
    }
  }
};

}  // namespace test
}  // namespace minflow
