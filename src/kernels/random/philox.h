// Philox4x32-10 (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2,
// 3", SC11): a counter-based generator whose output block is a pure function
// of a 128-bit counter and a 64-bit key, as TensorFlow's random ops use it.
// Value type, no state beyond the counter; nvcc-safe (MF_HOST_DEVICE, no std
// calls).
#pragma once

#include <cstdint>

#include "src/kernels/gpu_host_device.h"

namespace minflow {
namespace random {

// A 4 x uint32 block; the generator's output, counter, and what a
// distribution consumes.
template <typename T, int N>
struct Array {
  T values[N];
  MF_HOST_DEVICE T& operator[](int i) { return values[i]; }
  MF_HOST_DEVICE const T& operator[](int i) const { return values[i]; }
};

class PhiloxRandom {
 public:
  using ResultType = Array<uint32_t, 4>;
  using ResultElementType = uint32_t;
  using Key = Array<uint32_t, 2>;
  // Outputs per call of operator().
  static constexpr int kResultElementCount = 4;
  // Cycles per call (for Shard cost estimates).
  static constexpr int kElementCost = 10;

  MF_HOST_DEVICE PhiloxRandom() : counter_{{0, 0, 0, 0}}, key_{{0, 0}} {}

  // TensorFlow's seeding: `seed_lo` is the key, `seed_hi` the upper half of
  // the counter (so seed pairs that differ only in seed_hi are independent
  // streams).
  MF_HOST_DEVICE PhiloxRandom(uint64_t seed_lo, uint64_t seed_hi)
      : counter_{{0, 0, static_cast<uint32_t>(seed_hi),
                  static_cast<uint32_t>(seed_hi >> 32)}},
        key_{{static_cast<uint32_t>(seed_lo),
              static_cast<uint32_t>(seed_lo >> 32)}} {}

  MF_HOST_DEVICE PhiloxRandom(const ResultType& counter, const Key& key)
      : counter_(counter), key_(key) {}

  MF_HOST_DEVICE const ResultType& counter() const { return counter_; }
  MF_HOST_DEVICE const Key& key() const { return key_; }

  // Advances the 128-bit counter by `count` blocks (of 4 outputs).
  MF_HOST_DEVICE void Skip(uint64_t count) {
    const uint32_t count_lo = static_cast<uint32_t>(count);
    uint32_t count_hi = static_cast<uint32_t>(count >> 32);
    counter_[0] += count_lo;
    if (counter_[0] < count_lo) ++count_hi;  // carry out of word 0
    counter_[1] += count_hi;
    if (counter_[1] < count_hi) {  // carry out of word 1
      if (++counter_[2] == 0) ++counter_[3];
    }
  }

  // The block at the current counter, then advances the counter by one.
  MF_HOST_DEVICE ResultType operator()() {
    const ResultType out = Compute(counter_, key_);
    SkipOne();
    return out;
  }

  // Ten Philox rounds of `counter` under `key` (the Random123 function).
  static MF_HOST_DEVICE ResultType Compute(ResultType counter, Key key) {
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        key[0] += kW0;
        key[1] += kW1;
      }
      counter = Round(counter, key);
    }
    return counter;
  }

 private:
  static constexpr uint32_t kW0 = 0x9E3779B9;  // Weyl key increments
  static constexpr uint32_t kW1 = 0xBB67AE85;
  static constexpr uint32_t kM0 = 0xD2511F53;  // round multipliers
  static constexpr uint32_t kM1 = 0xCD9E8D57;

  static MF_HOST_DEVICE ResultType Round(const ResultType& ctr,
                                         const Key& key) {
    const uint64_t p0 = static_cast<uint64_t>(kM0) * ctr[0];
    const uint64_t p1 = static_cast<uint64_t>(kM1) * ctr[2];
    ResultType out;
    out[0] = static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ key[0];
    out[1] = static_cast<uint32_t>(p1);
    out[2] = static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ key[1];
    out[3] = static_cast<uint32_t>(p0);
    return out;
  }

  MF_HOST_DEVICE void SkipOne() {
    if (++counter_[0] == 0 && ++counter_[1] == 0 && ++counter_[2] == 0) {
      ++counter_[3];
    }
  }

  ResultType counter_;
  Key key_;
};

// Hands out a PhiloxRandom's block one uint32 at a time (what the
// rejection-sampling distributions consume).
class SingleSampleAdapter {
 public:
  MF_HOST_DEVICE explicit SingleSampleAdapter(PhiloxRandom* gen) : gen_(gen) {}

  MF_HOST_DEVICE uint32_t operator()() {
    if (used_ == PhiloxRandom::kResultElementCount) {
      block_ = (*gen_)();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  PhiloxRandom* gen_;
  PhiloxRandom::ResultType block_{};
  int used_ = PhiloxRandom::kResultElementCount;
};

}  // namespace random
}  // namespace minflow
