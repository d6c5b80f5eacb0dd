// AttrValue helpers: type checks, TensorFlow's text syntax for attr values
// (op defaults, `--attr k=v`), setters from C++ values, equality, summaries.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/types.h"

namespace minflow {

class AttrValue;
class NameAttrList;
class PartialTensorShape;
class Tensor;
class TensorProto;
class TensorShape;
class TensorShapeProto;

// A short, human-readable rendering for error messages: `"foo"`, `3`,
// `DT_FLOAT`, `[2,?]`, `[1, 2, 3]`, `Tensor<type: int32 shape: [] values: 5>`,
// `f[T=DT_FLOAT]`. Long strings and lists are elided in the middle.
std::string SummarizeAttrValue(const AttrValue& attr_value);

// OK when `attr_value` holds a value of attr type `type` ("int",
// "list(shape)", ...). An empty list matches every list type. InvalidArgument
// otherwise, in TensorFlow's words: "AttrValue had value with type 'int' when
// 'string' expected". "type" values must be valid, non-ref, non-invalid.
Status AttrValueHasType(const AttrValue& attr_value, absl::string_view type);

// Parses `text` as a value of attr type `type` in TensorFlow's syntax: the
// body of the AttrValue field in protobuf text format (`'foo'`, `3`, `1.5`,
// `true`, `DT_INT32`, `{ dim { size: 2 } }`, `{ dtype: DT_INT32 int_val: 5 }`)
// and `[...]` for lists (`[]`, `[2, 3]`). Returns false on any error; `*out`
// is then unspecified.
bool ParseAttrValue(absl::string_view type, absl::string_view text,
                    AttrValue* out);
// As above, but an InvalidArgument error says what went wrong, e.g.
// "Could not parse '\"foo\"' as a value of type 'int': ...".
Status ParseAttrValueOrError(absl::string_view type, absl::string_view text,
                             AttrValue* out);

// Structural equality. Tensors of up to 32 MiB compare by value (int_val: 5
// equals the same tensor in tensor_content); larger ones, which are not
// decoded, are equal only when their protos are identical, whatever
// `allow_false_negatives` (kept for TensorFlow's signature) says. Function
// attrs compare their attr maps regardless of order.
bool AreAttrValuesEqual(const AttrValue& a, const AttrValue& b,
                        bool allow_false_negatives = false);

// Setters: each replaces `*out` with the value (list setters always produce
// a list value, even when empty).
void SetAttrValue(const AttrValue& value, AttrValue* out);
void SetAttrValue(const std::string& value, AttrValue* out);
void SetAttrValue(const char* value, AttrValue* out);
void SetAttrValue(absl::string_view value, AttrValue* out);
void SetAttrValue(int64_t value, AttrValue* out);
void SetAttrValue(int32_t value, AttrValue* out);
void SetAttrValue(float value, AttrValue* out);
void SetAttrValue(double value, AttrValue* out);
void SetAttrValue(bool value, AttrValue* out);
void SetAttrValue(DataType value, AttrValue* out);
void SetAttrValue(const TensorShape& value, AttrValue* out);
void SetAttrValue(const PartialTensorShape& value, AttrValue* out);
void SetAttrValue(const TensorShapeProto& value, AttrValue* out);
void SetAttrValue(const Tensor& value, AttrValue* out);
void SetAttrValue(const TensorProto& value, AttrValue* out);
void SetAttrValue(const NameAttrList& value, AttrValue* out);

void SetAttrValue(absl::Span<const std::string> value, AttrValue* out);
void SetAttrValue(absl::Span<const char* const> value, AttrValue* out);
void SetAttrValue(absl::Span<const absl::string_view> value, AttrValue* out);
void SetAttrValue(absl::Span<const int64_t> value, AttrValue* out);
void SetAttrValue(absl::Span<const int32_t> value, AttrValue* out);
void SetAttrValue(absl::Span<const float> value, AttrValue* out);
void SetAttrValue(absl::Span<const double> value, AttrValue* out);
void SetAttrValue(const std::vector<bool>& value, AttrValue* out);
void SetAttrValue(std::initializer_list<bool> value, AttrValue* out);
void SetAttrValue(absl::Span<const DataType> value, AttrValue* out);
void SetAttrValue(absl::Span<const TensorShape> value, AttrValue* out);
void SetAttrValue(absl::Span<const PartialTensorShape> value, AttrValue* out);
void SetAttrValue(absl::Span<const TensorShapeProto> value, AttrValue* out);
void SetAttrValue(absl::Span<const Tensor> value, AttrValue* out);
void SetAttrValue(absl::Span<const TensorProto> value, AttrValue* out);
void SetAttrValue(absl::Span<const NameAttrList> value, AttrValue* out);

}  // namespace minflow
