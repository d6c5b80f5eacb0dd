// Multinomial (src/kernels/multinomial_op.cc): samples against a reference
// computed here from the Philox stream, class frequencies, determinism and
// every error path.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
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

class MultinomialRunner : public test::OpsTestBase {
 public:
  void TestBody() override {}
  void Make(DataType t = DT_FLOAT, DataType out = DT_INT64, int64_t seed = 3,
            int64_t seed2 = 4) {
    MakeNode("Multinomial")
        .Input(t)
        .Input(DT_INT32)
        .Attr("output_dtype", out)
        .Attr("seed", seed)
        .Attr("seed2", seed2);
    MF_ASSERT_OK(MakeOp());
  }
};
using MultinomialOpTest = MultinomialRunner;

// Sample s of row b uses words 2k, 2k+1 (k = b * num_samples + s) of the
// stream: a double u in [0, 1), then the first class whose running sum of
// exp(logit - max) exceeds u * total.
std::vector<int64_t> Reference(const std::vector<double>& logits, int batch,
                               int classes, int num_samples, int64_t seed,
                               int64_t seed2) {
  std::vector<uint32_t> words;
  PhiloxRandom gen(seed, seed2);
  while (words.size() < static_cast<size_t>(2 * batch * num_samples)) {
    const PhiloxRandom::ResultType b = gen();
    for (int i = 0; i < 4; ++i) words.push_back(b[i]);
  }
  std::vector<int64_t> out;
  for (int b = 0; b < batch; ++b) {
    double max_logit = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < classes; ++j) {
      if (std::isfinite(logits[b * classes + j])) {
        max_logit = std::max(max_logit, logits[b * classes + j]);
      }
    }
    std::vector<double> cdf(classes);
    double total = 0;
    for (int j = 0; j < classes; ++j) {
      const double l = logits[b * classes + j];
      if (std::isfinite(l)) total += std::exp(l - max_logit);
      cdf[j] = total;
    }
    for (int s = 0; s < num_samples; ++s) {
      const size_t k = 2 * (static_cast<size_t>(b) * num_samples + s);
      const uint64_t mantissa =
          (static_cast<uint64_t>(words[k] & 0xfffffu) << 32) | words[k + 1];
      const double u = mantissa / 4503599627370496.0;
      out.push_back(std::upper_bound(cdf.begin(), cdf.end(), u * total) -
                    cdf.begin());
    }
  }
  return out;
}

TEST_F(MultinomialOpTest, MatchesTheReferenceForOddSampleCounts) {
  // 3 samples per row: rows start mid-block, and 4000 rows shard over the
  // two intra-op threads.
  const int batch = 4000, classes = 5, num_samples = 3;
  std::vector<double> logits(batch * classes);
  for (int i = 0; i < batch * classes; ++i) logits[i] = std::sin(i * 0.37) * 3;
  Make(DT_DOUBLE, DT_INT32);
  AddInputFromArray<double>(TensorShape({batch, classes}), logits);
  AddInputFromArray<int32_t>(TensorShape({}), {num_samples});
  MF_ASSERT_OK(RunOpKernel());
  const Tensor& out = *GetOutput(0);
  ASSERT_EQ(out.shape(), TensorShape({batch, num_samples}));
  const std::vector<int64_t> ref =
      Reference(logits, batch, classes, num_samples, 3, 4);
  for (int i = 0; i < batch * num_samples; ++i) {
    ASSERT_EQ(out.base<const int32_t>()[i], ref[i]) << i;
  }
}

TEST_F(MultinomialOpTest, FrequenciesFollowSoftmax) {
  Make(DT_FLOAT);
  const std::vector<float> logits = {std::log(0.1f), std::log(0.2f),
                                     std::log(0.7f)};
  AddInputFromArray<float>(TensorShape({1, 3}), logits);
  AddInputFromArray<int32_t>(TensorShape({}), {100000});
  MF_ASSERT_OK(RunOpKernel());
  const Tensor& out = *GetOutput(0);
  int counts[3] = {};
  for (int i = 0; i < 100000; ++i) ++counts[out.base<const int64_t>()[i]];
  EXPECT_NEAR(counts[0] / 1e5, 0.1, 0.005);
  EXPECT_NEAR(counts[1] / 1e5, 0.2, 0.005);
  EXPECT_NEAR(counts[2] / 1e5, 0.7, 0.005);
}

TEST_F(MultinomialOpTest, NonFiniteLogitsAreNeverDrawn) {
  Make(DT_HALF);
  const float inf = std::numeric_limits<float>::infinity();
  AddInputFromList<half>(TensorShape({2, 3}),
                         {-inf, 0.0f, std::nanf(""), 1.0f, -inf, 1.0f});
  AddInputFromArray<int32_t>(TensorShape({}), {1000});
  MF_ASSERT_OK(RunOpKernel());
  const Tensor& out = *GetOutput(0);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(out.base<const int64_t>()[i], 1);
  int last = 0;
  for (int i = 1000; i < 2000; ++i) {
    const int64_t c = out.base<const int64_t>()[i];
    EXPECT_TRUE(c == 0 || c == 2);
    last += c == 2;
  }
  EXPECT_NEAR(last / 1000.0, 0.5, 0.06);
}

TEST_F(MultinomialOpTest, SameSeedsSameSamplesAndTheStreamAdvances) {
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({2, 4}), {0, 1, 2, 3, 3, 2, 1, 0});
  AddInputFromArray<int32_t>(TensorShape({}), {64});
  MF_ASSERT_OK(RunOpKernel());
  const Tensor first = *GetOutput(0);
  MultinomialRunner other;
  other.Make(DT_FLOAT);
  other.AddInputFromArray<float>(TensorShape({2, 4}), {0, 1, 2, 3, 3, 2, 1, 0});
  other.AddInputFromArray<int32_t>(TensorShape({}), {64});
  MF_ASSERT_OK(other.RunOpKernel());
  test::ExpectTensorEqual<int64_t>(first, *other.GetOutput(0));
  // A second run starts past the window the first reserved:
  // 2 rows * 64 (rounded up to 4) * 2 words * 256 blocks.
  MF_ASSERT_OK(RunOpKernel());
  const std::vector<double> logits = {0, 1, 2, 3, 3, 2, 1, 0};
  PhiloxRandom skipped(3, 4);
  skipped.Skip(2 * 64 * 2 * 256);
  // The first sample of the second run, drawn by hand from there.
  const PhiloxRandom::ResultType b = skipped();
  const uint64_t mantissa =
      (static_cast<uint64_t>(b[0] & 0xfffffu) << 32) | b[1];
  const double u = mantissa / 4503599627370496.0;
  double total = 0, cdf[4];
  for (int j = 0; j < 4; ++j) cdf[j] = total += std::exp(logits[j] - 3);
  EXPECT_EQ(GetOutput(0)->base<const int64_t>()[0],
            std::upper_bound(cdf, cdf + 4, u * total) - cdf);
}

TEST_F(MultinomialOpTest, EmptyOutputsAndShapeFunction) {
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({0, 3}), {});
  AddInputFromArray<int32_t>(TensorShape({}), {5});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 5}));
  ClearInputs();
  AddInputFromArray<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  AddInputFromArray<int32_t>(TensorShape({}), {0});
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({2, 0}));
  ShapeInferenceTestOp infer("Multinomial");
  infer.SetInputTensor(1, test::AsScalar<int32_t>(0));
  auto inferred = ShapeInferenceTestutil::Infer(infer, "[2,3];[]");
  ASSERT_TRUE(inferred.ok());
  // d0_0 is the logits' batch dim, 2 here.
  EXPECT_EQ(*inferred, "[d0_0,0]");
}

TEST_F(MultinomialOpTest, RejectsBadInputs) {
  Make(DT_FLOAT);
  AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
  AddInputFromArray<int32_t>(TensorShape({}), {1});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("logits should be a matrix, got shape [3]")));
  ClearInputs();
  AddInputFromArray<float>(TensorShape({1, 3}), {1, 2, 3});
  AddInputFromArray<int32_t>(TensorShape({1}), {1});
  EXPECT_THAT(
      RunOpKernel(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("num_samples should be a scalar, got shape [1]")));
  ClearInputs();
  AddInputFromArray<float>(TensorShape({1, 3}), {1, 2, 3});
  AddInputFromArray<int32_t>(TensorShape({}), {-1});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("num_samples should be nonnegative, got -1")));
  ClearInputs();
  AddInputFromArray<float>(TensorShape({2, 0}), {});
  AddInputFromArray<int32_t>(TensorShape({}), {1});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("num_classes should be positive, got 0")));
  // Empty, so cheap, but a dim past int32 (TensorFlow indexes with int).
  ClearInputs();
  AddInputFromArray<float>(TensorShape({int64_t{1} << 31, 0}), {});
  AddInputFromArray<int32_t>(TensorShape({}), {1});
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("logits.shape = [2147483648,0] too large "
                                 "for int")));
}

}  // namespace
}  // namespace minflow
