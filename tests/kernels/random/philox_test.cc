// The generator of src/kernels/random/philox.h and the conversions of
// src/kernels/random/random_distributions.h.
#include "src/kernels/random/philox.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "src/kernels/random/random_distributions.h"

namespace minflow {
namespace random {
namespace {

using Block = PhiloxRandom::ResultType;

void ExpectBlock(const Block& got, uint32_t a, uint32_t b, uint32_t c,
                 uint32_t d) {
  EXPECT_EQ(got[0], a);
  EXPECT_EQ(got[1], b);
  EXPECT_EQ(got[2], c);
  EXPECT_EQ(got[3], d);
}

// Random123's published known-answer vectors (tests/kat_vectors).
TEST(PhiloxTest, MatchesRandom123KnownAnswers) {
  ExpectBlock(PhiloxRandom::Compute({{0, 0, 0, 0}}, {{0, 0}}), 0x6627e8d5,
              0xe169c58d, 0xbc57ac4c, 0x9b00dbd8);
  ExpectBlock(
      PhiloxRandom::Compute({{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
                            {{0xffffffff, 0xffffffff}}),
      0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd);
  ExpectBlock(
      PhiloxRandom::Compute({{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
                            {{0xa4093822, 0x299f31d0}}),
      0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1);
}

TEST(PhiloxTest, SeedsFillKeyAndUpperCounterAsTensorFlow) {
  const PhiloxRandom gen(0x1111111122222222ull, 0x3333333344444444ull);
  ExpectBlock(gen.counter(), 0, 0, 0x44444444, 0x33333333);
  EXPECT_EQ(gen.key()[0], 0x22222222u);
  EXPECT_EQ(gen.key()[1], 0x11111111u);
}

TEST(PhiloxTest, CallReturnsTheCounterBlockThenAdvances) {
  PhiloxRandom gen({{7, 0, 0, 0}}, {{1, 2}});
  const Block first = gen();
  const Block expected = PhiloxRandom::Compute({{7, 0, 0, 0}}, {{1, 2}});
  ExpectBlock(first, expected[0], expected[1], expected[2], expected[3]);
  ExpectBlock(gen.counter(), 8, 0, 0, 0);
}

TEST(PhiloxTest, SkipEqualsRepeatedCalls) {
  PhiloxRandom a(42, 7);
  PhiloxRandom b(42, 7);
  for (int i = 0; i < 13; ++i) a();
  b.Skip(13);
  const Block x = a();
  const Block y = b();
  ExpectBlock(x, y[0], y[1], y[2], y[3]);
}

TEST(PhiloxTest, SkipAndIncrementCarryAcrossAllWords) {
  PhiloxRandom gen({{0xffffffff, 0xffffffff, 0xffffffff, 5}}, {{0, 0}});
  gen();
  ExpectBlock(gen.counter(), 0, 0, 0, 6);

  PhiloxRandom skip({{0xfffffffe, 0xffffffff, 3, 0}}, {{0, 0}});
  skip.Skip(2);
  ExpectBlock(skip.counter(), 0, 0, 4, 0);

  PhiloxRandom high({{5, 0xffffffff, 0xffffffff, 0}}, {{0, 0}});
  high.Skip(uint64_t{1} << 32);
  ExpectBlock(high.counter(), 5, 0, 0, 1);

  PhiloxRandom both({{0xffffffff, 1, 0, 0}}, {{0, 0}});
  both.Skip((uint64_t{2} << 32) | 1);
  ExpectBlock(both.counter(), 0, 4, 0, 0);
}

TEST(PhiloxTest, SingleSampleAdapterHandsOutBlocksWordByWord) {
  PhiloxRandom blocks(3, 4);
  const Block b0 = blocks();
  const Block b1 = blocks();
  PhiloxRandom gen(3, 4);
  SingleSampleAdapter single(&gen);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(single(), b0[i]);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(single(), b1[i]);
}

TEST(RandomDistributionsTest, MantissaConversionsSpanZeroToOne) {
  EXPECT_EQ(Uint32ToFloat(0), 0.0f);
  EXPECT_EQ(Uint32ToFloat(0xff800000u), 0.0f);  // only the low 23 bits count
  EXPECT_EQ(Uint32ToFloat(0x7fffffu), 1.0f - std::ldexp(1.0f, -23));
  EXPECT_EQ(Uint32ToFloat(0x400000u), 0.5f);
  EXPECT_EQ(Uint64ToDouble(0, 0), 0.0);
  EXPECT_EQ(Uint64ToDouble(0xfffffu, 0xffffffffu), 1.0 - std::ldexp(1.0, -52));
  EXPECT_EQ(Uint64ToDouble(0xfff80000u, 0), 0.5);
  EXPECT_EQ(static_cast<float>(Uint16ToHalf(0)), 0.0f);
  EXPECT_EQ(static_cast<float>(Uint16ToHalf(0x3ff)),
            1.0f - std::ldexp(1.0f, -10));
  EXPECT_EQ(static_cast<float>(Uint16ToHalf(0xfe00)), 0.5f);
  EXPECT_EQ(static_cast<float>(Uint16ToBfloat16(0)), 0.0f);
  EXPECT_EQ(static_cast<float>(Uint16ToBfloat16(0x7f)),
            1.0f - std::ldexp(1.0f, -7));
}

// Box-Muller in double from the same uniforms.
void ReferenceBoxMuller(double u1, double u2, double* z0, double* z1) {
  u1 = std::max(u1, 1e-7);
  const double r = std::sqrt(-2.0 * std::log(u1));
  *z0 = r * std::sin(2 * M_PI * u2);
  *z1 = r * std::cos(2 * M_PI * u2);
}

TEST(RandomDistributionsTest, BoxMullerMatchesADoubleReference) {
  PhiloxRandom gen(1234, 5678);
  for (int i = 0; i < 1000; ++i) {
    const Block s = gen();
    float f0, f1;
    BoxMullerFloat(s[0], s[1], &f0, &f1);
    double r0, r1;
    ReferenceBoxMuller(Uint32ToFloat(s[0]), Uint32ToFloat(s[1]), &r0, &r1);
    EXPECT_NEAR(f0, r0, 1e-5 * (1 + std::fabs(r0)));
    EXPECT_NEAR(f1, r1, 1e-5 * (1 + std::fabs(r1)));
    double d0, d1;
    BoxMullerDouble(s[0], s[1], s[2], s[3], &d0, &d1);
    ReferenceBoxMuller(Uint64ToDouble(s[0], s[1]), Uint64ToDouble(s[2], s[3]),
                       &r0, &r1);
    EXPECT_NEAR(d0, r0, 1e-12 * (1 + std::fabs(r0)));
    EXPECT_NEAR(d1, r1, 1e-12 * (1 + std::fabs(r1)));
  }
}

TEST(RandomDistributionsTest, BoxMullerClampsAZeroUniform) {
  float f0, f1;
  BoxMullerFloat(0, 0, &f0, &f1);
  EXPECT_TRUE(std::isfinite(f0));
  EXPECT_TRUE(std::isfinite(f1));
  // sin(0) = 0, cos(0) = 1: f1 is the clamped radius sqrt(-2 ln 1e-7).
  EXPECT_EQ(f0, 0.0f);
  EXPECT_NEAR(f1, std::sqrt(-2.0 * std::log(1e-7)), 1e-4);
}

TEST(RandomDistributionsTest, UniformIntStaysInRangeIncludingExtremes) {
  PhiloxRandom gen(9, 9);
  const UniformIntDistribution<int32_t> small(-3, 4);
  const UniformIntDistribution<int32_t> full(
      std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  const UniformIntDistribution<int64_t> wide(
      std::numeric_limits<int64_t>::min() + 1, 7);
  bool seen[7] = {};
  for (int i = 0; i < 1000; ++i) {
    int32_t v[4];
    small(&gen, v);
    for (int32_t x : v) {
      ASSERT_GE(x, -3);
      ASSERT_LT(x, 4);
      seen[x + 3] = true;
    }
    full(&gen, v);
    for (int32_t x : v) ASSERT_LT(x, std::numeric_limits<int32_t>::max());
    int64_t w[2];
    wide(&gen, w);
    for (int64_t x : w) {
      ASSERT_GT(x, std::numeric_limits<int64_t>::min());
      ASSERT_LT(x, 7);
    }
  }
  for (bool s : seen) EXPECT_TRUE(s);
}

TEST(RandomDistributionsTest, UniformIntIsLoPlusBitsModRange) {
  PhiloxRandom a(5, 6);
  PhiloxRandom b(5, 6);
  int32_t v[4];
  UniformIntDistribution<int32_t>(10, 17)(&a, v);
  const Block s = b();
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(v[i], 10 + static_cast<int32_t>(s[i] % 7));
  int64_t w[2];
  UniformIntDistribution<int64_t>(-5, 1000003)(&a, w);
  const Block t = b();
  const uint64_t bits0 = t[0] | (static_cast<uint64_t>(t[1]) << 32);
  EXPECT_EQ(w[0], -5 + static_cast<int64_t>(bits0 % 1000008));
}

TEST(RandomDistributionsTest, TruncatedNormalRejectsBeyondTwoSigma) {
  PhiloxRandom gen(77, 0);
  SingleSampleAdapter single(&gen);
  int near_edge = 0;
  for (int i = 0; i < 5000; ++i) {
    float f[4];
    TruncatedNormalDistribution<float>()(&single, f);
    double d[2];
    TruncatedNormalDistribution<double>()(&single, d);
    for (float x : f) {
      ASSERT_LT(std::fabs(x), 2.0f);
      if (std::fabs(x) > 1.9f) ++near_edge;
    }
    for (double x : d) ASSERT_LT(std::fabs(x), 2.0);
  }
  EXPECT_GT(near_edge, 0);
}

}  // namespace
}  // namespace random
}  // namespace minflow
