// RandomUniform, RandomStandardNormal, TruncatedNormal and RandomUniformInt
// (src/kernels/random_op.cc): values against references computed here from
// the Philox stream in double precision, determinism across runs and
// intra-op thread counts, distribution sanity and every error path.
#include "src/kernels/random_op.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/threadpool.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/shape_inference_testutil.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using random::PhiloxRandom;
using ::testing::HasSubstr;

// Word i of the stream that starts at `gen`.
std::vector<uint32_t> Words(PhiloxRandom gen, int64_t n) {
  std::vector<uint32_t> words;
  while (static_cast<int64_t>(words.size()) < n) {
    const PhiloxRandom::ResultType b = gen();
    for (int i = 0; i < 4; ++i) words.push_back(b[i]);
  }
  words.resize(n);
  return words;
}

double RefUniform(uint32_t x) { return (x & 0x7fffffu) / 8388608.0; }
double RefUniform64(uint32_t hi, uint32_t lo) {
  return ((static_cast<uint64_t>(hi & 0xfffffu) << 32) | lo) /
         4503599627370496.0;
}
void RefBoxMuller(double u1, double u2, double* z0, double* z1) {
  u1 = std::max(u1, 1e-7);
  const double r = std::sqrt(-2.0 * std::log(u1));
  *z0 = r * std::sin(2 * M_PI * u2);
  *z1 = r * std::cos(2 * M_PI * u2);
}

struct Moments {
  double mean = 0, var = 0, max_abs = 0;
};
template <typename T>
Moments MomentsOf(const Tensor& t) {
  Moments m;
  const T* p = t.base<const T>();
  const int64_t n = t.NumElements();
  for (int64_t i = 0; i < n; ++i) m.mean += static_cast<double>(p[i]);
  m.mean /= n;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(p[i]) - m.mean;
    m.var += d * d;
    m.max_abs = std::max(m.max_abs, std::fabs(static_cast<double>(p[i])));
  }
  m.var /= n;
  return m;
}

// Also usable outside a TEST_F body, to run a second kernel beside the
// fixture's.
class RandomRunner : public test::OpsTestBase {
 public:
  void TestBody() override {}
  // Builds `op` with dtype and seeds, then runs it on `shape`.
  Tensor Run(const std::string& op, DataType dtype, int64_t seed, int64_t seed2,
             const std::vector<int32_t>& shape) {
    MakeNode(op)
        .Input(DT_INT32)
        .Attr("dtype", dtype)
        .Attr("seed", seed)
        .Attr("seed2", seed2);
    EXPECT_TRUE(MakeOp().ok());
    return RunAgain(shape);
  }
  Tensor RunAgain(const std::vector<int32_t>& shape) {
    ClearInputs();
    AddInputFromArray<int32_t>(
        TensorShape({static_cast<int64_t>(shape.size())}), shape);
    const Status s = RunOpKernel();
    EXPECT_TRUE(s.ok()) << s;
    return *GetOutput(0);
  }
};
using RandomOpTest = RandomRunner;

TEST_F(RandomOpTest, UniformFloatIsTheMantissaOfEachWord) {
  const int64_t n = 100003;  // not a multiple of the group size
  const Tensor out =
      Run("RandomUniform", DT_FLOAT, 87654321, 17, {static_cast<int32_t>(n)});
  const std::vector<uint32_t> w = Words(PhiloxRandom(87654321, 17), n);
  const float* p = out.base<const float>();
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(static_cast<double>(p[i]), RefUniform(w[i])) << i;
  }
  const Moments m = MomentsOf<float>(out);
  EXPECT_NEAR(m.mean, 0.5, 0.005);
  EXPECT_NEAR(m.var, 1.0 / 12, 0.002);
}

TEST_F(RandomOpTest, SecondRunContinuesPastTheReservedWindow) {
  Run("RandomUniform", DT_FLOAT, 3, 4, {10});
  const Tensor second = RunAgain({5});
  // The first run reserved 10 * 256 blocks.
  PhiloxRandom gen(3, 4);
  gen.Skip(10 * 256);
  const std::vector<uint32_t> w = Words(gen, 5);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(static_cast<double>(second.base<const float>()[i]),
              RefUniform(w[i]));
  }
}

TEST_F(RandomOpTest, UniformDoubleHalfAndBfloat16UseTheirMantissaBits) {
  const Tensor d = Run("RandomUniform", DT_DOUBLE, 5, 6, {7});
  const std::vector<uint32_t> w = Words(PhiloxRandom(5, 6), 14);
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(d.base<const double>()[i], RefUniform64(w[2 * i], w[2 * i + 1]));
  }
  RandomRunner half_test;
  const Tensor h = half_test.Run("RandomUniform", DT_HALF, 5, 6, {7});
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(static_cast<double>(h.base<const half>()[i]),
              (w[i] & 0x3ffu) / 1024.0);
  }
  RandomRunner bf16_test;
  const Tensor b = bf16_test.Run("RandomUniform", DT_BFLOAT16, 5, 6, {7});
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(static_cast<double>(b.base<const bfloat16>()[i]),
              (w[i] & 0x7fu) / 128.0);
  }
}

TEST_F(RandomOpTest, StandardNormalIsBoxMullerOfWordPairs) {
  const int64_t n = 100000;
  const Tensor out =
      Run("RandomStandardNormal", DT_FLOAT, 1, 2, {static_cast<int32_t>(n)});
  const std::vector<uint32_t> w = Words(PhiloxRandom(1, 2), n);
  const float* p = out.base<const float>();
  for (int64_t i = 0; i < n; i += 2) {
    double z0, z1;
    RefBoxMuller(RefUniform(w[i]), RefUniform(w[i + 1]), &z0, &z1);
    ASSERT_NEAR(p[i], z0, 2e-5 * (1 + std::fabs(z0))) << i;
    ASSERT_NEAR(p[i + 1], z1, 2e-5 * (1 + std::fabs(z1))) << i;
  }
  const Moments m = MomentsOf<float>(out);
  EXPECT_NEAR(m.mean, 0.0, 0.01);
  EXPECT_NEAR(m.var, 1.0, 0.02);
}

TEST_F(RandomOpTest, StandardNormalDoubleUsesFourWordsPerPair) {
  const Tensor out = Run("RandomStandardNormal", DT_DOUBLE, 8, 9, {100000});
  const std::vector<uint32_t> w = Words(PhiloxRandom(8, 9), 8);
  double z0, z1;
  RefBoxMuller(RefUniform64(w[0], w[1]), RefUniform64(w[2], w[3]), &z0, &z1);
  EXPECT_NEAR(out.base<const double>()[0], z0, 1e-12);
  EXPECT_NEAR(out.base<const double>()[1], z1, 1e-12);
  const Moments m = MomentsOf<double>(out);
  EXPECT_NEAR(m.mean, 0.0, 0.01);
  EXPECT_NEAR(m.var, 1.0, 0.02);
}

// Group g (4 floats) rejection-samples from the window at block g * 256.
TEST_F(RandomOpTest, TruncatedNormalMatchesAWindowedRejectionReference) {
  const int64_t n = 100000;
  const Tensor out =
      Run("TruncatedNormal", DT_FLOAT, 11, 12, {static_cast<int32_t>(n)});
  const float* p = out.base<const float>();
  for (int64_t g = 0; g < n / 4; g += 97) {
    PhiloxRandom gen(11, 12);
    gen.Skip(g * 256);
    const std::vector<uint32_t> w = Words(gen, 256 * 4);
    std::vector<double> accepted;
    for (size_t i = 0; accepted.size() < 4; i += 2) {
      double z[2];
      RefBoxMuller(RefUniform(w[i]), RefUniform(w[i + 1]), &z[0], &z[1]);
      for (double v : z) {
        if (std::fabs(v) < 2.0 && accepted.size() < 4) accepted.push_back(v);
      }
    }
    for (int i = 0; i < 4; ++i) {
      ASSERT_NEAR(p[4 * g + i], accepted[i], 2e-5) << g;
    }
  }
  const Moments m = MomentsOf<float>(out);
  EXPECT_LT(m.max_abs, 2.0);
  EXPECT_NEAR(m.mean, 0.0, 0.01);
  // Variance of N(0,1) truncated to (-2, 2).
  EXPECT_NEAR(m.var, 0.7737413, 0.015);
}

TEST_F(RandomOpTest, AllDtypesHaveSaneMoments) {
  for (DataType dtype : {DT_HALF, DT_BFLOAT16, DT_DOUBLE}) {
    SCOPED_TRACE(DataTypeString(dtype));
    for (const char* op :
         {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
      SCOPED_TRACE(op);
      RandomRunner t;
      const Tensor out = t.Run(op, dtype, 21, 22, {100000});
      Moments m;
      if (dtype == DT_HALF) m = MomentsOf<half>(out);
      if (dtype == DT_BFLOAT16) m = MomentsOf<bfloat16>(out);
      if (dtype == DT_DOUBLE) m = MomentsOf<double>(out);
      const std::string name = op;
      if (name == "RandomUniform") {
        EXPECT_NEAR(m.mean, 0.5, 0.01);
        EXPECT_LT(m.max_abs, 1.0);
      } else if (name == "RandomStandardNormal") {
        EXPECT_NEAR(m.mean, 0.0, 0.01);
        EXPECT_NEAR(m.var, 1.0, 0.03);
      } else {
        EXPECT_NEAR(m.mean, 0.0, 0.01);
        EXPECT_NEAR(m.var, 0.7737, 0.03);
        EXPECT_LE(m.max_abs, 2.0);
      }
    }
  }
}

TEST_F(RandomOpTest, SameSeedsGiveTheSameValuesInEveryKernel) {
  const Tensor a = Run("TruncatedNormal", DT_FLOAT, 7, 0, {3, 5});
  RandomRunner other;
  const Tensor b = other.Run("TruncatedNormal", DT_FLOAT, 7, 0, {3, 5});
  test::ExpectTensorEqual<float>(a, b);
  RandomRunner different;
  const Tensor c = different.Run("TruncatedNormal", DT_FLOAT, 0, 7, {3, 5});
  EXPECT_NE(a.base<const float>()[0], c.base<const float>()[0]);
}

TEST_F(RandomOpTest, ZeroSeedsAreNondeterministic) {
  const Tensor a = Run("RandomUniform", DT_FLOAT, 0, 0, {64});
  RandomRunner other;
  const Tensor b = other.Run("RandomUniform", DT_FLOAT, 0, 0, {64});
  int same = 0;
  for (int i = 0; i < 64; ++i) {
    same += a.base<const float>()[i] == b.base<const float>()[i];
  }
  EXPECT_LT(same, 4);
}

template <typename Distribution, typename T>
void ExpectSameOnOneAndTwoThreads(int64_t size,
                                  const Distribution& dist = Distribution()) {
  thread::ThreadPool pool("random_test", 2);
  const DeviceBase::CpuWorkerThreads one{1, nullptr};
  const DeviceBase::CpuWorkerThreads two{2, &pool};
  std::vector<T> a(size), b(size);
  const PhiloxRandom gen(123, 456);
  functor::FillPhiloxRandom(one, gen, a.data(), size, dist);
  functor::FillPhiloxRandom(two, gen, b.data(), size, dist);
  for (int64_t i = 0; i < size; ++i) {
    ASSERT_EQ(static_cast<double>(a[i]), static_cast<double>(b[i])) << i;
  }
}

TEST_F(RandomOpTest, FillIsIndependentOfTheThreadCount) {
  ExpectSameOnOneAndTwoThreads<random::UniformDistribution<float>, float>(
      100001);
  ExpectSameOnOneAndTwoThreads<random::NormalDistribution<double>, double>(
      100001);
  ExpectSameOnOneAndTwoThreads<random::TruncatedNormalDistribution<float>,
                               float>(100001);
  ExpectSameOnOneAndTwoThreads<random::TruncatedNormalDistribution<half>, half>(
      20001);
  ExpectSameOnOneAndTwoThreads<random::UniformIntDistribution<int64_t>,
                               int64_t>(
      100001, random::UniformIntDistribution<int64_t>(-7, 1000));
}

TEST_F(RandomOpTest, EmptyAndScalarShapes) {
  const Tensor empty = Run("RandomStandardNormal", DT_FLOAT, 1, 1, {0, 3});
  EXPECT_EQ(empty.shape(), TensorShape({0, 3}));
  const Tensor scalar = RunAgain({});
  EXPECT_EQ(scalar.shape(), TensorShape({}));
}

TEST_F(RandomOpTest, ShapeFunctionAgreesWithTheKernel) {
  for (const char* op :
       {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    RandomRunner t;
    const Tensor out = t.Run(op, DT_FLOAT, 1, 2, {2, 0, 3});
    ShapeInferenceTestOp infer(op);
    infer.Attr("dtype", DT_FLOAT);
    infer.SetInputTensor(0, test::AsTensor<int32_t>({2, 0, 3}));
    auto inferred = ShapeInferenceTestutil::Infer(infer, "[3]");
    ASSERT_TRUE(inferred.ok());
    EXPECT_EQ(*inferred, out.shape().DebugString());
  }
}

TEST_F(RandomOpTest, RejectsBadShapes) {
  MakeNode("RandomUniform").Input(DT_INT64).Attr("dtype", DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int64_t>(TensorShape({2, 1}), {2, 3});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("shape must be a vector of {int32,int64}, "
                                 "got shape [2,1]")));
  ClearInputs();
  AddInputFromArray<int64_t>(TensorShape({2}), {2, -3});
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("must be >= 0, but got -3")));
}

class RandomUniformIntTest : public test::OpsTestBase {
 protected:
  void Make(DataType tout, int64_t seed = 5, int64_t seed2 = 6) {
    MakeNode("RandomUniformInt")
        .Input(DT_INT32)
        .Input(tout)
        .Input(tout)
        .Attr("seed", seed)
        .Attr("seed2", seed2);
    MF_ASSERT_OK(MakeOp());
  }
};

TEST_F(RandomUniformIntTest, Int32IsLoPlusWordModRange) {
  Make(DT_INT32);
  AddInputFromArray<int32_t>(TensorShape({1}), {100000});
  AddInputFromArray<int32_t>(TensorShape({}), {-10});
  AddInputFromArray<int32_t>(TensorShape({}), {7});
  MF_ASSERT_OK(RunOpKernel());
  const Tensor& out = *GetOutput(0);
  const std::vector<uint32_t> w = Words(PhiloxRandom(5, 6), 100000);
  const int32_t* p = out.base<const int32_t>();
  for (int i = 0; i < 100000; ++i) {
    ASSERT_GE(p[i], -10);
    ASSERT_LT(p[i], 7);
    ASSERT_EQ(p[i], -10 + static_cast<int64_t>(w[i] % 17));
  }
  const Moments m = MomentsOf<int32_t>(out);
  EXPECT_NEAR(m.mean, -2.0, 0.05);  // (-10 + 6) / 2
  EXPECT_NEAR(m.var, (17.0 * 17 - 1) / 12, 0.5);
}

TEST_F(RandomUniformIntTest, Int64UsesTwoWordsPerValue) {
  Make(DT_INT64);
  AddInputFromArray<int32_t>(TensorShape({2}), {3, 3});
  AddInputFromArray<int64_t>(TensorShape({}), {int64_t{1} << 40});
  AddInputFromArray<int64_t>(TensorShape({}), {(int64_t{1} << 40) + 1000});
  MF_ASSERT_OK(RunOpKernel());
  const Tensor& out = *GetOutput(0);
  EXPECT_EQ(out.shape(), TensorShape({3, 3}));
  const std::vector<uint32_t> w = Words(PhiloxRandom(5, 6), 18);
  for (int i = 0; i < 9; ++i) {
    const uint64_t bits =
        w[2 * i] | (static_cast<uint64_t>(w[2 * i + 1]) << 32);
    EXPECT_EQ(out.base<const int64_t>()[i],
              (int64_t{1} << 40) + static_cast<int64_t>(bits % 1000));
  }
}

TEST_F(RandomUniformIntTest, RejectsAnEmptyRange) {
  Make(DT_INT32);
  AddInputFromArray<int32_t>(TensorShape({1}), {4});
  AddInputFromArray<int32_t>(TensorShape({}), {3});
  AddInputFromArray<int32_t>(TensorShape({}), {3});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Need minval < maxval, got 3 >= 3")));
  ClearInputs();
  AddInputFromArray<int32_t>(TensorShape({1}), {4});
  AddInputFromArray<int32_t>(TensorShape({}), {5});
  AddInputFromArray<int32_t>(TensorShape({}), {-1});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Need minval < maxval, got 5 >= -1")));
}

TEST_F(RandomUniformIntTest, EmptyOutputSkipsTheRangeCheck) {
  Make(DT_INT64);
  AddInputFromArray<int32_t>(TensorShape({2}), {0, 4});
  AddInputFromArray<int64_t>(TensorShape({}), {3});
  AddInputFromArray<int64_t>(TensorShape({}), {3});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 4}));
}

TEST_F(RandomUniformIntTest, RejectsNonScalarBounds) {
  Make(DT_INT32);
  AddInputFromArray<int32_t>(TensorShape({1}), {4});
  AddInputFromArray<int32_t>(TensorShape({1}), {0});
  AddInputFromArray<int32_t>(TensorShape({}), {3});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("minval must be 0-D, got shape [1]")));
  ClearInputs();
  AddInputFromArray<int32_t>(TensorShape({1}), {4});
  AddInputFromArray<int32_t>(TensorShape({}), {0});
  AddInputFromArray<int32_t>(TensorShape({2}), {3, 4});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("maxval must be 0-D, got shape [2]")));
  ClearInputs();
  AddInputFromArray<int32_t>(TensorShape({}), {4});
  AddInputFromArray<int32_t>(TensorShape({}), {0});
  AddInputFromArray<int32_t>(TensorShape({}), {3});
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("shape must be a vector")));
}

}  // namespace
}  // namespace minflow
