// StatelessRandomUniformV2, StatelessRandomNormalV2 and
// StatelessTruncatedNormalV2 (src/kernels/stateless_random_ops_v2.cc).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "src/kernels/random/philox.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using random::PhiloxRandom;
using ::testing::HasSubstr;

class StatelessRunner : public test::OpsTestBase {
 public:
  void TestBody() override {}

  void Make(const std::string& op, DataType dtype = DT_FLOAT,
            DataType tshape = DT_INT32) {
    MakeNode(op)
        .Input(tshape)
        .Input(DT_UINT64)
        .Input(DT_UINT64)
        .Input(DT_INT32)
        .Attr("dtype", dtype);
    MF_ASSERT_OK(MakeOp());
  }
  // Runs with shape, key, counter and alg given as vectors (alg_dims 0: a
  // scalar).
  Status Feed(const std::vector<int32_t>& shape,
              const std::vector<uint64_t>& key,
              const std::vector<uint64_t>& counter, int32_t alg,
              bool alg_scalar = true) {
    ClearInputs();
    AddInputFromArray<int32_t>(
        TensorShape({static_cast<int64_t>(shape.size())}), shape);
    AddInputFromArray<uint64_t>(TensorShape({static_cast<int64_t>(key.size())}),
                                key);
    AddInputFromArray<uint64_t>(
        TensorShape({static_cast<int64_t>(counter.size())}), counter);
    AddInputFromArray<int32_t>(alg_scalar ? TensorShape({}) : TensorShape({1}),
                               {alg});
    return RunOpKernel();
  }
};
using StatelessRandomOpsV2Test = StatelessRunner;

constexpr int32_t kPhilox = 1;

TEST_F(StatelessRandomOpsV2Test, UniformIsPhiloxAtTheGivenKeyAndCounter) {
  Make("StatelessRandomUniformV2");
  const uint64_t key = 0x0123456789abcdefull;
  const uint64_t c0 = 0xfedcba9876543210ull, c1 = 42;
  MF_ASSERT_OK(Feed({3, 5}, {key}, {c0, c1}, kPhilox));
  const Tensor& out = *GetOutput(0);
  EXPECT_EQ(out.shape(), TensorShape({3, 5}));
  PhiloxRandom gen(
      {{static_cast<uint32_t>(c0), static_cast<uint32_t>(c0 >> 32),
        static_cast<uint32_t>(c1), static_cast<uint32_t>(c1 >> 32)}},
      {{static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)}});
  for (int i = 0; i < 15; i += 4) {
    const PhiloxRandom::ResultType b = gen();
    for (int j = 0; j < 4 && i + j < 15; ++j) {
      EXPECT_EQ(static_cast<double>(out.base<const float>()[i + j]),
                (b[j] & 0x7fffffu) / 8388608.0);
    }
  }
}

// TensorFlow documents tf.random.Generator.from_seed(1234).normal([2, 3]):
// its Philox state is counter [1234, 0] and key 0, and its first draw runs
// the same normal distribution on that stream (values from the
// tf.random.Generator docstring and TensorFlow's stateful_random_ops_test).
TEST_F(StatelessRandomOpsV2Test, NormalMatchesTensorFlowsDocumentedValues) {
  Make("StatelessRandomNormalV2");
  MF_ASSERT_OK(Feed({2, 3}, {0}, {1234, 0}, kPhilox));
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({0.9356609f, 1.0854305f, -0.93788373f, -0.50615472f,
                             1.31697023f, 0.71375787f},
                            TensorShape({2, 3})));
  // TensorFlow's second draw: the stream moved on by 6 outputs * 256 blocks.
  // TensorFlow's test writes these to 7-8 digits and compares with
  // rtol = atol = 1e-5, so compare the same way.
  MF_ASSERT_OK(Feed({2, 3}, {0}, {1234 + 6 * 256, 0}, kPhilox));
  test::ExpectTensorNear<float>(
      *GetOutput(0),
      test::AsTensor<float>({-0.3964749f, 0.8369565f, -0.30946946f, 1.1206646f,
                             1.00852597f, -0.10185789f},
                            TensorShape({2, 3})),
      1e-5, 1e-5);
}

// The same generator's uniform([3]) after that first normal draw, as printed
// by TensorFlow in a public example.
TEST_F(StatelessRandomOpsV2Test, UniformMatchesTensorFlowsPrintedValues) {
  Make("StatelessRandomUniformV2");
  MF_ASSERT_OK(Feed({3}, {0}, {1234 + 6 * 256, 0}, kPhilox));
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({0.6512613f, 0.9295906f, 0.50873387f}));
}

// TensorFlow's seeding puts seed in the key and seed2 in counter word 1, so
// the stateless op at (seed, [0, seed2]) repeats the stateful op's first run.
TEST_F(StatelessRandomOpsV2Test, MatchesTheStatefulOpsFirstRun) {
  for (const char* pair : {"Uniform", "Normal", "Truncated"}) {
    SCOPED_TRACE(pair);
    const std::string p = pair;
    const std::string stateless = p == "Uniform" ? "StatelessRandomUniformV2"
                                  : p == "Normal"
                                      ? "StatelessRandomNormalV2"
                                      : "StatelessTruncatedNormalV2";
    const std::string stateful = p == "Uniform"  ? "RandomUniform"
                                 : p == "Normal" ? "RandomStandardNormal"
                                                 : "TruncatedNormal";
    StatelessRunner a;
    a.Make(stateless);
    MF_ASSERT_OK(a.Feed({1000}, {77}, {0, 88}, kPhilox));
    StatelessRunner b;
    b.MakeNode(stateful)
        .Input(DT_INT32)
        .Attr("dtype", DT_FLOAT)
        .Attr("seed", 77)
        .Attr("seed2", 88);
    MF_ASSERT_OK(b.MakeOp());
    b.AddInputFromArray<int32_t>(TensorShape({1}), {1000});
    MF_ASSERT_OK(b.RunOpKernel());
    test::ExpectTensorEqual<float>(*a.GetOutput(0), *b.GetOutput(0));
  }
}

TEST_F(StatelessRandomOpsV2Test, SameInputsSameOutputsAndAutoSelectIsPhilox) {
  Make("StatelessTruncatedNormalV2", DT_DOUBLE);
  MF_ASSERT_OK(Feed({100000}, {5}, {6, 7}, kPhilox));
  const Tensor first = *GetOutput(0);
  MF_ASSERT_OK(Feed({100000}, {5}, {6, 7}, /*auto_select=*/3));
  test::ExpectTensorEqual<double>(first, *GetOutput(0));
  MF_ASSERT_OK(Feed({100000}, {5}, {6, 8}, kPhilox));
  EXPECT_NE(first.base<const double>()[0],
            GetOutput(0)->base<const double>()[0]);
  double mean = 0, var = 0, max_abs = 0;
  for (int i = 0; i < 100000; ++i) mean += first.base<const double>()[i];
  mean /= 100000;
  for (int i = 0; i < 100000; ++i) {
    const double v = first.base<const double>()[i];
    var += (v - mean) * (v - mean);
    max_abs = std::max(max_abs, std::fabs(v));
  }
  var /= 100000;
  EXPECT_LT(max_abs, 2.0);
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(var, 0.7737413, 0.015);
}

TEST_F(StatelessRandomOpsV2Test, NormalHasSaneMomentsInEveryDtype) {
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    SCOPED_TRACE(DataTypeString(dtype));
    StatelessRunner r;
    r.Make("StatelessRandomNormalV2", dtype);
    MF_ASSERT_OK(r.Feed({100000}, {1}, {2, 3}, kPhilox));
    const Tensor& out = *r.GetOutput(0);
    double mean = 0, sq = 0;
    for (int i = 0; i < 100000; ++i) {
      double v = 0;
      if (dtype == DT_FLOAT) v = out.base<const float>()[i];
      if (dtype == DT_DOUBLE) v = out.base<const double>()[i];
      if (dtype == DT_HALF) v = static_cast<double>(out.base<const half>()[i]);
      if (dtype == DT_BFLOAT16) {
        v = static_cast<double>(out.base<const bfloat16>()[i]);
      }
      mean += v;
      sq += v * v;
    }
    mean /= 100000;
    EXPECT_NEAR(mean, 0.0, 0.01);
    EXPECT_NEAR(sq / 100000 - mean * mean, 1.0, 0.03);
  }
}

TEST_F(StatelessRandomOpsV2Test, ShapeFunctionAgreesWithTheKernel) {
  Make("StatelessRandomUniformV2", DT_HALF);
  MF_ASSERT_OK(Feed({4, 0, 2}, {1}, {2, 3}, kPhilox));
  ShapeInferenceTestOp infer("StatelessRandomUniformV2");
  infer.SetInputTensor(0, test::AsTensor<int32_t>({4, 0, 2}));
  auto inferred = ShapeInferenceTestutil::Infer(infer, "[3];[1];[2];[]");
  ASSERT_TRUE(inferred.ok());
  EXPECT_EQ(*inferred, GetOutput(0)->shape().DebugString());
}

TEST_F(StatelessRandomOpsV2Test, RejectsUnsupportedAlgorithms) {
  Make("StatelessRandomNormalV2");
  EXPECT_THAT(Feed({2}, {1}, {2, 3}, 2),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Unsupported algorithm id: 2")));
  EXPECT_THAT(Feed({2}, {1}, {2, 3}, 7),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Unsupported algorithm id: 7")));
  // An empty output never reaches the algorithm, as in TensorFlow.
  MF_ASSERT_OK(Feed({0}, {1}, {2, 3}, 7));
  EXPECT_EQ(GetOutput(0)->NumElements(), 0);
}

TEST_F(StatelessRandomOpsV2Test, RejectsBadKeyCounterAlgAndShape) {
  Make("StatelessRandomUniformV2");
  EXPECT_THAT(Feed({2}, {1}, {2, 3}, kPhilox, /*alg_scalar=*/false),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("input 3 (0-based) must have shape [], not "
                                 "[1]")));
  EXPECT_THAT(Feed({2}, {1, 2}, {2, 3}, kPhilox),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("key must have shape [1], not [2]. (Note that "
                                 "batched keys are not supported yet.)")));
  EXPECT_THAT(Feed({2}, {1}, {2}, kPhilox),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("counter must be a vector with length at "
                                 "least 2; got shape: [1]")));
  EXPECT_THAT(Feed({2, -1}, {1}, {2, 3}, kPhilox),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be >= 0, but got -1")));
  ClearInputs();
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  AddInputFromArray<uint64_t>(TensorShape({1}), {1});
  AddInputFromArray<uint64_t>(TensorShape({2}), {2, 3});
  AddInputFromArray<int32_t>(TensorShape({}), {kPhilox});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("shape must be a vector of {int32,int64}, "
                                 "got shape []")));
}

TEST_F(StatelessRandomOpsV2Test, Int64ShapeAndScalarOutput) {
  Make("StatelessRandomUniformV2", DT_DOUBLE, DT_INT64);
  ClearInputs();
  AddInputFromArray<int64_t>(TensorShape({0}), {});
  AddInputFromArray<uint64_t>(TensorShape({1}), {1});
  AddInputFromArray<uint64_t>(TensorShape({2}), {0, 0});
  AddInputFromArray<int32_t>(TensorShape({}), {kPhilox});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({}));
  const double v = GetOutput(0)->base<const double>()[0];
  EXPECT_GE(v, 0.0);
  EXPECT_LT(v, 1.0);
}

}  // namespace
}  // namespace minflow
