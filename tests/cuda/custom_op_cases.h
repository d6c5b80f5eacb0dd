// The cases both custom-op test files run: custom_op_functors_test.cc runs
// each op's per-element functor on the host against the CPU kernel, and
// custom_op_gpu_test.cc runs the op in a GPU session against a CPU session.
// Sizes are odd, some tensors empty, and values mix ties, signed zeros,
// infinities, denormals and NaNs of both signs and several payloads.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace minflow {
namespace test {

// Deterministic values: mostly small integers (so windows hold ties), some
// reals, and a share `special_share` of specials (signed zeros, infinities,
// denormals, the largest floats and NaNs).
inline std::vector<float> CustomOpValues(int64_t n, uint32_t seed,
                                         double special_share = 0.1) {
  static const uint32_t kSpecialBits[] = {
      0x00000000u,  // +0
      0x80000000u,  // -0
      0x7F800000u,  // +inf
      0xFF800000u,  // -inf
      0x7FC00000u,  // the quiet NaN
      0xFFC00000u,  // a negative quiet NaN
      0x7FC01234u,  // a quiet NaN with a payload
      0x7F800001u,  // a signalling NaN
      0xFF812345u,  // a negative signalling NaN with a payload
      0x00000001u,  // the smallest denormal
      0x80000003u,  // a negative denormal
      0x7F7FFFFFu,  // the largest float
      0xFF7FFFFFu,  // its negative
  };
  constexpr int kSpecials = sizeof(kSpecialBits) / sizeof(kSpecialBits[0]);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<float> values(n);
  for (float& v : values) {
    const double u = unit(rng);
    if (u < special_share) {
      const uint32_t bits = kSpecialBits[rng() % kSpecials];
      std::memcpy(&v, &bits, sizeof(v));
    } else if (u < special_share + (1 - special_share) * 0.7) {
      v = static_cast<float>(static_cast<int>(rng() % 17) - 8);
    } else {
      v = static_cast<float>(unit(rng) * 200.0 - 100.0);
    }
  }
  return values;
}

struct ExampleCase {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

inline std::vector<ExampleCase> ExampleCases() {
  return {
      {"scalar", {}, {3.5f}},
      {"empty", {0, 4}, {}},
      {"odd_vector", {1031}, CustomOpValues(1031, 1, 0.3)},
      {"odd_3d", {3, 5, 7}, CustomOpValues(105, 2, 0.3)},
      // Several waves of a full device's threads: the grid-stride loop.
      {"large", {3, 333337}, CustomOpValues(3 * 333337, 3)},
  };
}

struct ZeroOutCase {
  std::string name;
  std::vector<float> values;
  int64_t preserve_index;
};

inline std::vector<ZeroOutCase> ZeroOutCases() {
  std::vector<float> nan_at_7 = CustomOpValues(9, 4);
  const uint32_t nan_bits = 0xFFC01234u;
  std::memcpy(&nan_at_7[7], &nan_bits, sizeof(float));
  std::vector<float> negative_zero_at_0 = {-0.0f, 1, 2};
  return {
      {"one", {7.5f}, 0},
      {"first", CustomOpValues(1001, 5), 0},
      {"middle", CustomOpValues(1001, 6), 500},
      {"last", CustomOpValues(1001, 7), 1000},
      {"nan_kept_bit_for_bit", nan_at_7, 7},
      {"negative_zero_kept", negative_zero_at_0, 0},
      {"large", CustomOpValues((1 << 20) + 3, 8), 777777},
  };
}

// Inputs both kernels must reject the same way.
struct ZeroOutErrorCase {
  std::string name;
  std::vector<int64_t> shape;
  int64_t preserve_index;
  std::string message;  // a substring of the error
};

inline std::vector<ZeroOutErrorCase> ZeroOutErrorCases() {
  return {
      {"empty_vector", {0}, 0, "preserve_index out of range"},
      {"index_past_the_end", {5}, 5, "preserve_index out of range"},
      {"matrix", {2, 3}, 0, "ZeroOut expects a 1-D vector"},
      {"scalar", {}, 0, "ZeroOut expects a 1-D vector"},
  };
}

struct MedianPoolCase {
  std::string name;
  std::vector<int64_t> shape;  // NHWC
  int64_t ksize_rows, ksize_cols;
  int64_t stride_rows, stride_cols;
  std::string padding;
  double special_share;
  uint32_t seed;
  bool signed_zeros_only = false;  // every value -0 or +0

  std::vector<int64_t> ksize() const { return {1, ksize_rows, ksize_cols, 1}; }
  std::vector<int64_t> strides() const {
    return {1, stride_rows, stride_cols, 1};
  }
  int64_t NumElements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  std::vector<float> Values() const;
};

inline std::vector<MedianPoolCase> MedianPoolCases() {
  return {
      {"k3x3_valid_s1", {2, 9, 11, 3}, 3, 3, 1, 1, "VALID", 0.1, 11},
      {"k3x3_same_s1", {2, 9, 11, 3}, 3, 3, 1, 1, "SAME", 0.1, 12},
      // Even windows take the lower middle value.
      {"k2x2_same_s2", {1, 8, 7, 5}, 2, 2, 2, 2, "SAME", 0.1, 13},
      {"k5x3_same_s2x1", {1, 10, 9, 2}, 5, 3, 2, 1, "SAME", 0.1, 14},
      {"k4x4_valid_s3", {1, 13, 14, 4}, 4, 4, 3, 3, "VALID", 0.1, 15},
      // The identity, but every NaN becomes the canonical quiet NaN.
      {"k1x1", {2, 4, 5, 3}, 1, 1, 1, 1, "VALID", 0.5, 16},
      {"k1x7_same_s1x2", {1, 3, 20, 2}, 1, 7, 1, 2, "SAME", 0.1, 17},
      {"k7x1_valid", {1, 20, 3, 2}, 7, 1, 1, 1, "VALID", 0.1, 18},
      // 64 values: the largest window of the per-thread path.
      {"k8x8_same", {1, 10, 10, 3}, 8, 8, 1, 1, "SAME", 0.1, 19},
      // Over 64 values: the radix selection (border windows: local).
      {"k9x9_same", {1, 12, 13, 2}, 9, 9, 1, 1, "SAME", 0.1, 20},
      {"k11x11_valid_s2", {1, 15, 14, 3}, 11, 11, 2, 2, "VALID", 0.1, 21},
      // Windows larger than the image clamp to it.
      {"huge_ksize_same_local", {1, 7, 9, 3}, 100, 100, 1, 1, "SAME", 0.1, 22},
      {"huge_ksize_same_radix", {2, 10, 10, 2}, 50, 60, 3, 4, "SAME", 0.1, 23},
      // Many channels (the CPU kernel tiles them).
      {"many_channels", {1, 5, 6, 67}, 3, 3, 1, 1, "SAME", 0.1, 24},
      // Windows full of NaNs and of signed zeros.
      {"nan_heavy", {1, 9, 9, 2}, 3, 3, 1, 1, "SAME", 0.7, 25},
      {"nan_heavy_radix", {1, 12, 12, 1}, 9, 9, 1, 1, "VALID", 0.7, 26},
      {"signed_zeros", {1, 7, 8, 2}, 3, 3, 1, 1, "SAME", 0, 31, true},
      {"signed_zeros_radix", {1, 9, 10, 1}, 9, 9, 1, 1, "SAME", 0, 32, true},
      // Empty outputs.
      {"window_larger_than_input_valid",
       {1, 3, 3, 2},
       4,
       4,
       1,
       1,
       "VALID",
       0.1,
       27},
      {"empty_batch", {0, 5, 5, 2}, 3, 3, 1, 1, "SAME", 0.1, 28},
      {"empty_depth", {1, 5, 5, 0}, 3, 3, 1, 1, "SAME", 0.1, 29},
      // Many output values: several waves of a full device's threads.
      {"large", {4, 96, 96, 32}, 3, 3, 1, 1, "SAME", 0.05, 30},
  };
}

inline std::vector<float> MedianPoolCase::Values() const {
  if (!signed_zeros_only) {
    return CustomOpValues(NumElements(), seed, special_share);
  }
  std::mt19937 rng(seed);
  std::vector<float> v(NumElements());
  for (float& x : v) x = rng() % 2 ? -0.0f : 0.0f;
  return v;
}

// Attrs or inputs both kernels must reject the same way.
struct MedianPoolErrorCase {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  std::string message;  // a substring of the error
};

inline std::vector<MedianPoolErrorCase> MedianPoolErrorCases() {
  return {
      {"input_not_4d", {5, 5, 2}, {1, 2, 2, 1}, {1, 1, 1, 1}, "4-dimensional"},
      {"pools_over_batch",
       {1, 5, 5, 2},
       {2, 2, 2, 1},
       {1, 1, 1, 1},
       "does not pool over the batch or depth"},
      {"strides_over_depth",
       {1, 5, 5, 2},
       {1, 2, 2, 1},
       {1, 1, 1, 2},
       "does not pool over the batch or depth"},
      {"zero_stride", {1, 5, 5, 2}, {1, 2, 2, 1}, {1, 0, 1, 1}, ""},
  };
}

}  // namespace test
}  // namespace minflow
