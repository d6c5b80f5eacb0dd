// Limits on decoding untrusted protos (see Note [Untrusted protos] in
// ARCHITECTURE.md): how deep messages may nest, and a way to tell that
// nesting is why a binary parse failed. Pure functions; thread-safe.
#pragma once

#include "absl/strings/string_view.h"

namespace google::protobuf {
class Descriptor;
}  // namespace google::protobuf

namespace minflow {

// How many levels of messages may nest below the top-level message in any
// proto minflow reads, binary or text. Protobuf's own default for binary
// input, applied to text input too (whose parser has no limit unless given
// one): each level is a stack frame of the recursive parser, so a crafted
// file nesting 100,000 levels must fail to parse, not overflow the stack.
inline constexpr int kProtoRecursionLimit = 100;

// Whether serialized `bytes` of message type `descriptor` nest messages more
// than `limit` levels below the top-level message. Iterative (bounded stack
// whatever the input), linear in the size of `bytes`; false for bytes that
// are malformed before they get that deep. For error messages, after a
// parse with `limit` failed.
bool ProtoNestsDeeperThan(absl::string_view bytes,
                          const google::protobuf::Descriptor& descriptor,
                          int limit);

}  // namespace minflow
