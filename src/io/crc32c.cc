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

#if defined(__SSE4_2__)
namespace {

// Bytes per stream in a three-stream step; see Extend.
constexpr size_t kStreamBytes = 4096;

// The raw (uninverted) CRC register after `n` zero bytes starting from
// `crc`: how a CRC moves past data that follows it.
uint32_t ShiftSlow(uint32_t crc, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc >> 1) ^ ((crc & 1) ? kPoly : 0);
    }
  }
  return crc;
}

// ShiftSlow(crc, kStreamBytes) is linear in crc over GF(2): four tables of
// the images of each byte position make it four lookups.
struct ShiftTables {
  std::array<std::array<uint32_t, 256>, 4> t;
  ShiftTables() {
    std::array<uint32_t, 32> basis;
    for (int bit = 0; bit < 32; ++bit) {
      basis[bit] = ShiftSlow(uint32_t{1} << bit, kStreamBytes);
    }
    for (int k = 0; k < 4; ++k) {
      for (uint32_t b = 0; b < 256; ++b) {
        uint32_t image = 0;
        for (int bit = 0; bit < 8; ++bit) {
          if (b & (1u << bit)) image ^= basis[8 * k + bit];
        }
        t[k][b] = image;
      }
    }
  }
  uint32_t Shift(uint32_t crc) const {
    return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^
           t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
  }
};

const ShiftTables& GetShiftTables() {
  static const ShiftTables* tables = new ShiftTables();
  return *tables;
}

inline uint64_t Load64(const unsigned char* p) {
  uint64_t word;
  std::memcpy(&word, p, sizeof(word));
  return word;
}

}  // namespace
#endif

uint32_t Extend(uint32_t init_crc, const char* data, size_t n) {
#if defined(__SSE4_2__)
  // The CRC32 instruction computes this very polynomial, 8 bytes at a time.
  // One chain of them waits on each result (3 cycles), so large inputs run
  // three streams over consecutive 4 KiB blocks at once and join them: the
  // raw CRC is linear, so CRC(a|b|c) = shift(shift(A) ^ B) ^ C.
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  uint64_t crc64 = static_cast<uint32_t>(~init_crc);
  if (n >= 3 * kStreamBytes) {
    const ShiftTables& shift = GetShiftTables();
    do {
      uint64_t a = crc64, b = 0, c = 0;
      for (size_t i = 0; i < kStreamBytes; i += 8) {
        a = _mm_crc32_u64(a, Load64(bytes + i));
        b = _mm_crc32_u64(b, Load64(bytes + kStreamBytes + i));
        c = _mm_crc32_u64(c, Load64(bytes + 2 * kStreamBytes + i));
      }
      const uint32_t ab =
          shift.Shift(static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b);
      crc64 = shift.Shift(ab) ^ static_cast<uint32_t>(c);
      bytes += 3 * kStreamBytes;
      n -= 3 * kStreamBytes;
    } while (n >= 3 * kStreamBytes);
  }
  for (; n >= 8; n -= 8, bytes += 8) {
    crc64 = _mm_crc32_u64(crc64, Load64(bytes));
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
