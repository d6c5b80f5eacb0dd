#include "src/io/snappy.h"

#include <cstdint>

#include "src/io/coding.h"

namespace minflow {
namespace io {
namespace {

// The most output one input byte can produce: a 3-byte copy element emits
// at most 64 bytes.
constexpr uint64_t kMaxExpansion = 22;

}  // namespace

Status SnappyUncompress(absl::string_view compressed, std::string* out) {
  const char* p = compressed.data();
  const char* const limit = p + compressed.size();
  uint32_t length = 0;
  if (!GetVarint32(&p, limit, &length)) {
    return errors::DataLoss("snappy: bad uncompressed length");
  }
  if (static_cast<uint64_t>(length) >
      kMaxExpansion * static_cast<uint64_t>(compressed.size())) {
    return errors::DataLoss("snappy: uncompressed length ", length,
                            " is impossible for ", compressed.size(),
                            " compressed bytes");
  }
  out->clear();
  out->reserve(length);
  while (p < limit) {
    const uint8_t tag = static_cast<uint8_t>(*p++);
    uint64_t len = 0;
    uint64_t offset = 0;
    switch (tag & 3) {
      case 0: {  // literal
        len = tag >> 2;
        if (len >= 60) {
          const int extra = static_cast<int>(len) - 59;
          if (limit - p < extra) return errors::DataLoss("snappy: truncated");
          len = 0;
          for (int i = 0; i < extra; ++i) {
            len |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
          }
          p += extra;
        }
        len += 1;
        if (static_cast<uint64_t>(limit - p) < len) {
          return errors::DataLoss("snappy: literal runs past the input");
        }
        if (len > length - out->size()) {
          return errors::DataLoss("snappy: output longer than declared");
        }
        out->append(p, len);
        p += len;
        continue;
      }
      case 1:
        if (limit - p < 1) return errors::DataLoss("snappy: truncated");
        len = 4 + ((tag >> 2) & 7);
        offset =
            (static_cast<uint64_t>(tag >> 5) << 8) | static_cast<uint8_t>(*p++);
        break;
      case 2:
        if (limit - p < 2) return errors::DataLoss("snappy: truncated");
        len = (tag >> 2) + 1;
        offset = static_cast<uint8_t>(p[0]) |
                 (static_cast<uint64_t>(static_cast<uint8_t>(p[1])) << 8);
        p += 2;
        break;
      default:
        if (limit - p < 4) return errors::DataLoss("snappy: truncated");
        len = (tag >> 2) + 1;
        offset = DecodeFixed32(p);
        p += 4;
        break;
    }
    if (offset == 0 || offset > out->size()) {
      return errors::DataLoss("snappy: copy offset ", offset,
                              " outside the output so far");
    }
    if (len > length - out->size()) {
      return errors::DataLoss("snappy: output longer than declared");
    }
    // Copies may overlap their own output (a run), so go byte by byte.
    size_t from = out->size() - offset;
    for (uint64_t i = 0; i < len; ++i) {
      const char c = (*out)[from + i];
      out->push_back(c);
    }
  }
  if (out->size() != length) {
    return errors::DataLoss("snappy: output is ", out->size(),
                            " bytes, but the header says ", length);
  }
  return OkStatus();
}

}  // namespace io
}  // namespace minflow
