// CRC32C (Castagnoli), the checksum of LevelDB tables and TensorFlow
// checkpoints, with LevelDB's masking for checksums stored next to the data
// they cover. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace minflow {
namespace crc32c {

// The CRC32C of data[0, n) appended to a stream whose CRC32C so far is
// `init_crc` (0 for an empty stream).
// Uses the SSE4.2 CRC32 instruction where the build targets it.
uint32_t Extend(uint32_t init_crc, const char* data, size_t n);

// Extend without special instructions (slicing-by-8 tables): what Extend is
// on CPUs without SSE4.2, and the reference it is tested against.
uint32_t ExtendPortable(uint32_t init_crc, const char* data, size_t n);

// The CRC32C of data[0, n).
inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

// A stored CRC is masked so that the CRC of a string holding CRCs is not
// degenerate: rotate right by 15 bits and add a constant (LevelDB's scheme,
// kept by TensorFlow).
constexpr uint32_t kMaskDelta = 0xa282ead8u;

inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

// The inverse of Mask.
inline uint32_t Unmask(uint32_t masked_crc) {
  const uint32_t rot = masked_crc - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace crc32c
}  // namespace minflow
