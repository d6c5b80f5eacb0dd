// Little-endian fixed-width and varint encodings of LevelDB tables and
// tensor bundles. Decoders take untrusted input: they read only inside
// [*p, limit) and return false on a truncated or overlong encoding.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/string_view.h"

namespace minflow {
namespace io {

inline void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  dst->append(buf, 4);
}

inline void PutFixed64(std::string* dst, uint64_t v) {
  PutFixed32(dst, static_cast<uint32_t>(v));
  PutFixed32(dst, static_cast<uint32_t>(v >> 32));
}

inline uint32_t DecodeFixed32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(u[0]) | (static_cast<uint32_t>(u[1]) << 8) |
         (static_cast<uint32_t>(u[2]) << 16) |
         (static_cast<uint32_t>(u[3]) << 24);
}

inline uint64_t DecodeFixed64(const char* p) {
  return static_cast<uint64_t>(DecodeFixed32(p)) |
         (static_cast<uint64_t>(DecodeFixed32(p + 4)) << 32);
}

inline void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

inline void PutVarint32(std::string* dst, uint32_t v) { PutVarint64(dst, v); }

// Decodes a varint of at most `max_bytes` bytes whose value fits in
// `max_bits` bits, advancing *p.
inline bool GetVarintBounded(const char** p, const char* limit, int max_bytes,
                             int max_bits, uint64_t* value) {
  uint64_t result = 0;
  const char* q = *p;
  for (int i = 0; i < max_bytes && q < limit; ++i) {
    const uint64_t byte = static_cast<unsigned char>(*q++);
    const int shift = 7 * i;
    const uint64_t bits = byte & 0x7f;
    // Bits beyond max_bits would be lost: the encoding is not a valid
    // value of the requested width.
    if (shift + 7 > max_bits && (bits >> (max_bits - shift)) != 0) return false;
    result |= bits << shift;
    if ((byte & 0x80) == 0) {
      *p = q;
      *value = result;
      return true;
    }
  }
  return false;
}

inline bool GetVarint32(const char** p, const char* limit, uint32_t* value) {
  uint64_t v = 0;
  if (!GetVarintBounded(p, limit, 5, 32, &v)) return false;
  *value = static_cast<uint32_t>(v);
  return true;
}

inline bool GetVarint64(const char** p, const char* limit, uint64_t* value) {
  return GetVarintBounded(p, limit, 10, 64, value);
}

}  // namespace io
}  // namespace minflow
