// Serialized protos that nest messages very deep, built without ever
// holding the nested messages as objects (whose destructors would recurse):
// for the tests of the parsers' depth limits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace minflow {
namespace test {

// The wire bytes of a message whose only field is field fields[0] (length
// delimited), holding a message whose only field is fields[1], and so on;
// the innermost message is empty. Linear in the result's size.
inline std::string NestedMessageBytes(const std::vector<int>& fields) {
  auto varint_size = [](uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) v >>= 7, ++n;
    return n;
  };
  auto append_varint = [](uint64_t v, std::string* out) {
    while (v >= 0x80) {
      out->push_back(static_cast<char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    out->push_back(static_cast<char>(v));
  };
  // content[i]: the size of the message that fields[i] holds.
  std::vector<uint64_t> content(fields.size() + 1, 0);
  for (size_t i = fields.size(); i-- > 0;) {
    const uint64_t tag = (static_cast<uint64_t>(fields[i]) << 3) | 2;
    content[i] =
        varint_size(tag) + varint_size(content[i + 1]) + content[i + 1];
  }
  std::string out;
  out.reserve(content[0]);
  for (size_t i = 0; i < fields.size(); ++i) {
    append_varint((static_cast<uint64_t>(fields[i]) << 3) | 2, &out);
    append_varint(content[i + 1], &out);
  }
  return out;
}

// Field numbers of a GraphDef holding one node whose attr's tensor nests
// `pairs` (variant_val, tensors) pairs: 4 + 2 * pairs levels below the
// GraphDef (node, attr entry, AttrValue, TensorProto, then the pairs).
inline std::vector<int> DeepGraphDefFields(int pairs) {
  // GraphDef.node, NodeDef.attr, the map entry's value, AttrValue.tensor.
  std::vector<int> fields = {1, 5, 2, 8};
  for (int i = 0; i < pairs; ++i) {
    fields.push_back(15);  // TensorProto.variant_val
    fields.push_back(3);   // VariantTensorDataProto.tensors
  }
  return fields;
}

// The same GraphDef in text format.
inline std::string DeepGraphDefText(int pairs) {
  std::string text = "node { attr { key: 'value' value { tensor { ";
  for (int i = 0; i < pairs; ++i) text += "variant_val { tensors { ";
  for (int i = 0; i < pairs; ++i) text += "} } ";
  text += "} } } }";
  return text;
}

}  // namespace test
}  // namespace minflow
