#include "minflow/core/proto_limits.h"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "google/protobuf/descriptor.h"

namespace minflow {
namespace {

// Reads a base-128 varint of at most 10 bytes from bytes[*pos, end).
bool ReadVarint(absl::string_view bytes, size_t end, size_t* pos,
                uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64 && *pos < end; shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(bytes[(*pos)++]);
    result |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

}  // namespace

bool ProtoNestsDeeperThan(absl::string_view bytes,
                          const google::protobuf::Descriptor& descriptor,
                          int limit) {
  using google::protobuf::FieldDescriptor;
  // One frame per message being read: its type and where its bytes end.
  struct Frame {
    const google::protobuf::Descriptor* type;
    size_t end;
  };
  std::vector<Frame> stack = {{&descriptor, bytes.size()}};
  size_t pos = 0;
  while (!stack.empty()) {
    const Frame frame = stack.back();
    if (pos == frame.end) {
      stack.pop_back();
      continue;
    }
    uint64_t tag = 0;
    if (!ReadVarint(bytes, frame.end, &pos, &tag)) return false;
    uint64_t skip = 0;
    switch (tag & 7) {
      case 0:  // varint
        if (!ReadVarint(bytes, frame.end, &pos, &skip)) return false;
        skip = 0;
        break;
      case 1:  // fixed64
        skip = 8;
        break;
      case 5:  // fixed32
        skip = 4;
        break;
      case 2: {  // length-delimited: a nested message or bytes
        if (!ReadVarint(bytes, frame.end, &pos, &skip)) return false;
        if (skip > frame.end - pos) return false;
        const FieldDescriptor* field =
            frame.type->FindFieldByNumber(static_cast<int>(tag >> 3));
        if (field != nullptr &&
            field->type() == FieldDescriptor::TYPE_MESSAGE) {
          // The new message is stack.size() levels below the top one.
          if (stack.size() > static_cast<size_t>(limit)) return true;
          stack.push_back({field->message_type(), pos + skip});
          skip = 0;
        }
        break;
      }
      default:  // groups (no minflow proto has them) or malformed
        return false;
    }
    if (skip > frame.end - pos) return false;
    pos += skip;
  }
  return false;
}

}  // namespace minflow
