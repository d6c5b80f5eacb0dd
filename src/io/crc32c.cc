#include "minflow/io/crc32c.h"

#include <array>
#include <cstring>

#if defined(__SSE4_2__)
#include <nmmintrin.h>
#endif

namespace minflow {
namespace crc32c {
namespace {

// Reflected Castagnoli polynomial.
constexpr uint32_t kPoly = 0x82f63b78u;

// Slicing-by-8: table[k][b] is the CRC of byte b followed by k zero bytes,
// so eight input bytes fold in with eight lookups and no serial dependency
// between them.
struct Tables {
  std::array<std::array<uint32_t, 256>, 8> t;
  Tables() {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t crc = b;
      for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ ((crc & 1) ? kPoly : 0);
      t[0][b] = crc;
    }
    for (uint32_t b = 0; b < 256; ++b) {
      for (int k = 1; k < 8; ++k) {
        t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
      }
    }
  }
};

const Tables& GetTables() {
  static const Tables* tables = new Tables();
  return *tables;
}

inline uint32_t LoadLE32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}

}  // namespace

uint32_t Extend(uint32_t init_crc, const char* data, size_t n) {
#if defined(__SSE4_2__)
  // The CRC32 instruction computes this very polynomial, 8 bytes at a time:
  // several times the tables' speed on a restore's megabytes of weights.
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  uint64_t crc64 = ~init_crc;
  for (; n >= 8; n -= 8, bytes += 8) {
    uint64_t word;
    std::memcpy(&word, bytes, sizeof(word));
    crc64 = _mm_crc32_u64(crc64, word);
  }
  uint32_t crc32 = static_cast<uint32_t>(crc64);
  for (; n > 0; --n, ++bytes) crc32 = _mm_crc32_u8(crc32, *bytes);
  return ~crc32;
#else
  return ExtendPortable(init_crc, data, n);
#endif
}

uint32_t ExtendPortable(uint32_t init_crc, const char* data, size_t n) {
  const auto& t = GetTables().t;
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  uint32_t crc = ~init_crc;
  while (n >= 8) {
    const uint32_t lo = LoadLE32(p) ^ crc;
    const uint32_t hi = LoadLE32(p + 4);
    crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^
          t[4][lo >> 24] ^ t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
          t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    crc = (crc >> 8) ^ t[0][(crc ^ *p) & 0xff];
    ++p;
    --n;
  }
  return ~crc;
}

}  // namespace crc32c
}  // namespace minflow
