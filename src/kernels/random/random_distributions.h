// TensorFlow's conversions from Philox bits to numbers: uniform floats built
// from random mantissa bits, integers by modulo, normals by Box-Muller and
// truncated normals by rejection at two standard deviations. Each
// distribution turns one generator call into kResultElementCount outputs,
// so a tensor is filled group by group (see random_op_functor.h). The
// arithmetic follows TensorFlow's step by step (same float/double rounding,
// sincosf/sincos on Linux) so results are bit-identical for the same
// counter and key. nvcc-safe: Eigen's scalar types and C math only.
#pragma once

#include <math.h>

#include <cstdint>
#include <cstring>

#include "Eigen/Core"
#include "src/kernels/gpu_host_device.h"
#include "src/kernels/random/philox.h"

namespace minflow {
namespace random {

// 2*pi as TensorFlow writes it (2 * M_PI, a double).
constexpr double kTwoPi = 6.283185307179586476925286766559;

// [0, 1) from the low 23 bits of x: 1.mantissa - 1.
MF_HOST_DEVICE inline float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}

// [0, 1) from 20 bits of x0 and all of x1.
MF_HOST_DEVICE inline double Uint64ToDouble(uint32_t x0, uint32_t x1) {
  const uint64_t bits = (uint64_t{1023} << 52) |
                        (static_cast<uint64_t>(x0 & 0xfffffu) << 32) | x1;
  double d;
  memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

// [0, 1) from the low 10 bits of x.
MF_HOST_DEVICE inline Eigen::half Uint16ToHalf(uint16_t x) {
  const uint16_t bits = static_cast<uint16_t>((15u << 10) | (x & 0x3ffu));
  return Eigen::numext::bit_cast<Eigen::half>(bits) - Eigen::half(1.0f);
}

// [0, 1) from the low 7 bits of x.
MF_HOST_DEVICE inline Eigen::bfloat16 Uint16ToBfloat16(uint16_t x) {
  const uint16_t bits = static_cast<uint16_t>((127u << 7) | (x & 0x7fu));
  return Eigen::numext::bit_cast<Eigen::bfloat16>(bits) - Eigen::bfloat16(1.0f);
}

// Two independent standard normals from two uniform words. u1 is clamped
// away from 0 so log stays finite.
MF_HOST_DEVICE inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0,
                                          float* f1) {
  const float epsilon = 1.0e-7f;
  float u1 = Uint32ToFloat(x0);
  if (u1 < epsilon) u1 = epsilon;
  // The product is formed in double and rounded once, as in TensorFlow.
  const float v1 = static_cast<float>(kTwoPi * Uint32ToFloat(x1));
  const float u2 = sqrtf(-2.0f * logf(u1));
  sincosf(v1, f0, f1);
  *f0 *= u2;
  *f1 *= u2;
}

MF_HOST_DEVICE inline void BoxMullerDouble(uint32_t x0, uint32_t x1,
                                           uint32_t x2, uint32_t x3, double* d0,
                                           double* d1) {
  const double epsilon = 1.0e-7;
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < epsilon) u1 = epsilon;
  const double v1 = kTwoPi * Uint64ToDouble(x2, x3);
  const double u2 = sqrt(-2.0 * log(u1));
  sincos(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}

// ---- Distributions: operator()(PhiloxRandom*) fills one group. ---------

template <typename T>
struct UniformDistribution;

template <>
struct UniformDistribution<float> {
  static constexpr int kResultElementCount = 4;
  static constexpr bool kVariableSamplesPerOutput = false;
  static constexpr int kElementCost = 3;
  MF_HOST_DEVICE void operator()(PhiloxRandom* gen, float* out) const {
    const PhiloxRandom::ResultType s = (*gen)();
    for (int i = 0; i < 4; ++i) out[i] = Uint32ToFloat(s[i]);
  }
};

template <>
struct UniformDistribution<double> {
  static constexpr int kResultElementCount = 2;
  static constexpr bool kVariableSamplesPerOutput = false;
  static constexpr int kElementCost = 3;
  MF_HOST_DEVICE void operator()(PhiloxRandom* gen, double* out) const {
    const PhiloxRandom::ResultType s = (*gen)();
    for (int i = 0; i < 2; ++i) out[i] = Uint64ToDouble(s[2 * i], s[2 * i + 1]);
  }
};

// The 16-bit types use the low half of each word.
template <>
struct UniformDistribution<Eigen::half> {
  static constexpr int kResultElementCount = 4;
  static constexpr bool kVariableSamplesPerOutput = false;
  static constexpr int kElementCost = 3;
  MF_HOST_DEVICE void operator()(PhiloxRandom* gen, Eigen::half* out) const {
    const PhiloxRandom::ResultType s = (*gen)();
    for (int i = 0; i < 4; ++i)
      out[i] = Uint16ToHalf(static_cast<uint16_t>(s[i]));
  }
};

template <>
struct UniformDistribution<Eigen::bfloat16> {
  static constexpr int kResultElementCount = 4;
  static constexpr bool kVariableSamplesPerOutput = false;
  static constexpr int kElementCost = 3;
  MF_HOST_DEVICE void operator()(PhiloxRandom* gen,
                                 Eigen::bfloat16* out) const {
    const PhiloxRandom::ResultType s = (*gen)();
    for (int i = 0; i < 4; ++i) {
      out[i] = Uint16ToBfloat16(static_cast<uint16_t>(s[i]));
    }
  }
};

// Integers in [lo, hi): lo + bits % (hi - lo), TensorFlow's (slightly
// biased for ranges that do not divide 2^32 / 2^64) mapping. Requires
// lo < hi.
template <typename T>
struct UniformIntDistribution;

template <>
struct UniformIntDistribution<int32_t> {
  static constexpr int kResultElementCount = 4;
  static constexpr bool kVariableSamplesPerOutput = false;
  static constexpr int kElementCost = 3;
  MF_HOST_DEVICE UniformIntDistribution(int32_t lo, int32_t hi)
      : lo_(lo),
        range_(static_cast<uint32_t>(hi) - static_cast<uint32_t>(lo)) {}
  MF_HOST_DEVICE void operator()(PhiloxRandom* gen, int32_t* out) const {
    const PhiloxRandom::ResultType s = (*gen)();
    for (int i = 0; i < 4; ++i) {
      // Wrapping add in uint32: lo + offset stays below hi.
      out[i] = static_cast<int32_t>(static_cast<uint32_t>(lo_) + s[i] % range_);
    }
  }
  int32_t lo_;
  uint32_t range_;
};

template <>
struct UniformIntDistribution<int64_t> {
  static constexpr int kResultElementCount = 2;
  static constexpr bool kVariableSamplesPerOutput = false;
  static constexpr int kElementCost = 3;
  MF_HOST_DEVICE UniformIntDistribution(int64_t lo, int64_t hi)
      : lo_(lo),
        range_(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) {}
  MF_HOST_DEVICE void operator()(PhiloxRandom* gen, int64_t* out) const {
    const PhiloxRandom::ResultType s = (*gen)();
    for (int i = 0; i < 2; ++i) {
      const uint64_t bits =
          s[2 * i] | (static_cast<uint64_t>(s[2 * i + 1]) << 32);
      out[i] = static_cast<int64_t>(static_cast<uint64_t>(lo_) + bits % range_);
    }
  }
  int64_t lo_;
  uint64_t range_;
};

// Standard normals; half and bfloat16 are computed in float and rounded.
template <typename T>
struct NormalDistribution {
  static constexpr int kResultElementCount = 4;
  static constexpr bool kVariableSamplesPerOutput = false;
  static constexpr int kElementCost = 70;
  MF_HOST_DEVICE void operator()(PhiloxRandom* gen, T* out) const {
    const PhiloxRandom::ResultType s = (*gen)();
    for (int i = 0; i < 4; i += 2) {
      float f0, f1;
      BoxMullerFloat(s[i], s[i + 1], &f0, &f1);
      out[i] = static_cast<T>(f0);
      out[i + 1] = static_cast<T>(f1);
    }
  }
};

template <>
struct NormalDistribution<double> {
  static constexpr int kResultElementCount = 2;
  static constexpr bool kVariableSamplesPerOutput = false;
  static constexpr int kElementCost = 70;
  MF_HOST_DEVICE void operator()(PhiloxRandom* gen, double* out) const {
    const PhiloxRandom::ResultType s = (*gen)();
    BoxMullerDouble(s[0], s[1], s[2], s[3], &out[0], &out[1]);
  }
};

// Standard normals with |x| < 2, by rejection: Box-Muller pairs are drawn
// from a SingleSampleAdapter until the group is full. The number of words
// used varies, so each group owns a fixed window of the counter space (see
// kReservedSamplesPerOutput in random_op_functor.h).
template <typename T>
struct TruncatedNormalDistribution {
  static constexpr int kResultElementCount = 4;
  static constexpr bool kVariableSamplesPerOutput = true;
  static constexpr int kElementCost = 90;
  MF_HOST_DEVICE void operator()(SingleSampleAdapter* gen, T* out) const {
    const float kTruncateValue = 2.0f;
    int index = 0;
    while (true) {
      const uint32_t x0 = (*gen)();
      const uint32_t x1 = (*gen)();
      float f[2];
      BoxMullerFloat(x0, x1, &f[0], &f[1]);
      for (int i = 0; i < 2; ++i) {
        if (fabsf(f[i]) < kTruncateValue) {
          out[index++] = static_cast<T>(f[i]);
          if (index >= kResultElementCount) return;
        }
      }
    }
  }
};

template <>
struct TruncatedNormalDistribution<double> {
  static constexpr int kResultElementCount = 2;
  static constexpr bool kVariableSamplesPerOutput = true;
  static constexpr int kElementCost = 90;
  MF_HOST_DEVICE void operator()(SingleSampleAdapter* gen, double* out) const {
    const double kTruncateValue = 2.0;
    int index = 0;
    while (true) {
      const uint32_t x0 = (*gen)();
      const uint32_t x1 = (*gen)();
      const uint32_t x2 = (*gen)();
      const uint32_t x3 = (*gen)();
      double d[2];
      BoxMullerDouble(x0, x1, x2, x3, &d[0], &d[1]);
      for (int i = 0; i < 2; ++i) {
        if (fabs(d[i]) < kTruncateValue) {
          out[index++] = d[i];
          if (index >= kResultElementCount) return;
        }
      }
    }
  }
};

}  // namespace random
}  // namespace minflow
