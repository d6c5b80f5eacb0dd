#include "minflow/framework/tensor_literal.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"

namespace minflow {
namespace {

enum class Kind { kInt, kReal, kBool, kString };

struct Leaf {
  Kind kind;
  std::string text;  // the token, or the unescaped string
  size_t pos;
};

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kInt:
      return "an integer";
    case Kind::kReal:
      return "a real number";
    case Kind::kBool:
      return "a bool";
    default:
      return "a string";
  }
}

class LiteralParser {
 public:
  explicit LiteralParser(absl::string_view text) : s_(text) {}

  // Parses the whole value; fills leaves_ and *shape.
  Status Parse(std::vector<int64_t>* shape) {
    MF_RETURN_IF_ERROR(ParseValue(0, shape));
    SkipSpaces();
    if (pos_ != s_.size()) return Error("unexpected text after the value");
    return OkStatus();
  }

  const std::vector<Leaf>& leaves() const { return leaves_; }

 private:
  Status Error(absl::string_view what) const {
    return errors::InvalidArgument("Invalid tensor literal '", s_, "': ", what,
                                   " at offset ", pos_);
  }

  void SkipSpaces() {
    while (pos_ < s_.size() && absl::ascii_isspace(s_[pos_])) ++pos_;
  }

  Status ParseValue(int depth, std::vector<int64_t>* shape) {
    SkipSpaces();
    if (pos_ >= s_.size()) return Error("expected a value");
    if (s_[pos_] == '[') return ParseList(depth, shape);
    shape->clear();
    if (s_[pos_] == '"') return ParseString();
    return ParseToken();
  }

  Status ParseList(int depth, std::vector<int64_t>* shape) {
    if (depth >= kMaxTensorRank) return Error("nesting too deep");
    ++pos_;  // '['
    std::vector<int64_t> element_shape;
    bool first = true;
    int64_t count = 0;
    SkipSpaces();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      *shape = {0};
      return OkStatus();
    }
    while (true) {
      std::vector<int64_t> child;
      MF_RETURN_IF_ERROR(ParseValue(depth + 1, &child));
      if (first) {
        element_shape = child;
        first = false;
      } else if (child != element_shape) {
        return Error("ragged list (elements of different shapes)");
      }
      ++count;
      SkipSpaces();
      if (pos_ >= s_.size()) return Error("expected ',' or ']'");
      if (s_[pos_] == ']') {
        ++pos_;
        break;
      }
      if (s_[pos_] != ',') return Error("expected ',' or ']'");
      ++pos_;
    }
    shape->assign(1, count);
    shape->insert(shape->end(), element_shape.begin(), element_shape.end());
    return OkStatus();
  }

  Status ParseString() {
    const size_t start = pos_++;
    std::string value;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char ch = s_[pos_++];
      if (ch == '\\') {
        if (pos_ >= s_.size()) break;
        const char esc = s_[pos_++];
        ch = esc == 'n' ? '\n' : esc == 't' ? '\t' : esc;
      }
      value.push_back(ch);
    }
    if (pos_ >= s_.size()) return Error("unterminated string");
    ++pos_;  // closing quote
    leaves_.push_back({Kind::kString, std::move(value), start});
    return OkStatus();
  }

  Status ParseToken() {
    const size_t start = pos_;
    while (pos_ < s_.size() &&
           (absl::ascii_isalnum(s_[pos_]) || s_[pos_] == '.' ||
            s_[pos_] == '+' || s_[pos_] == '-' || s_[pos_] == '_')) {
      ++pos_;
    }
    if (pos_ == start)
      return Error("expected a number, true, false or \"string\"");
    const std::string token(s_.substr(start, pos_ - start));
    const std::string lower = absl::AsciiStrToLower(token);
    Kind kind;
    if (token == "true" || token == "false") {
      kind = Kind::kBool;
    } else if (lower == "inf" || lower == "+inf" || lower == "-inf" ||
               lower == "nan" || lower == "+nan" || lower == "-nan" ||
               lower == "infinity" || lower == "-infinity") {
      kind = Kind::kReal;
    } else if (token.find_first_of(".eE") != std::string::npos) {
      double unused;
      if (!absl::SimpleAtod(token, &unused)) {
        pos_ = start;
        return Error(absl::StrCat("'", token, "' is not a number"));
      }
      kind = Kind::kReal;
    } else {
      const size_t digits = token[0] == '-' || token[0] == '+' ? 1 : 0;
      if (digits >= token.size() ||
          token.find_first_not_of("0123456789", digits) != std::string::npos) {
        pos_ = start;
        return Error(absl::StrCat("'", token, "' is not a number"));
      }
      kind = Kind::kInt;
    }
    leaves_.push_back({kind, token, start});
    return OkStatus();
  }

  absl::string_view s_;
  size_t pos_ = 0;
  std::vector<Leaf> leaves_;
};

Status LeafError(absl::string_view text, const Leaf& leaf,
                 absl::string_view what) {
  return errors::InvalidArgument("Invalid tensor literal '", text, "': ", what,
                                 " at offset ", leaf.pos);
}

template <typename T>
Status FillIntegers(absl::string_view text, const std::vector<Leaf>& leaves,
                    Tensor* t) {
  auto flat = t->flat<T>();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Leaf& leaf = leaves[i];
    if (leaf.kind != Kind::kInt) {
      return LeafError(
          text, leaf,
          absl::StrCat("expected an integer for ", DataTypeString(t->dtype()),
                       ", got ", KindName(leaf.kind), " '", leaf.text, "'"));
    }
    bool fits;
    T value{};
    if (std::is_signed<T>::value) {
      int64_t v;
      fits = absl::SimpleAtoi(leaf.text, &v) &&
             v >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
             v <= static_cast<int64_t>(std::numeric_limits<T>::max());
      value = static_cast<T>(v);
    } else {
      uint64_t v;
      fits = leaf.text[0] != '-' && absl::SimpleAtoi(leaf.text, &v) &&
             v <= static_cast<uint64_t>(std::numeric_limits<T>::max());
      value = static_cast<T>(v);
    }
    if (!fits) {
      return LeafError(
          text, leaf,
          absl::StrCat(leaf.text, " does not fit ", DataTypeString(t->dtype()),
                       t->dtype() == DT_INT32 ? " (write int64:[...] for wider "
                                                "integers)"
                                              : ""));
    }
    flat(i) = value;
  }
  return OkStatus();
}

template <typename T>
Status FillReals(absl::string_view text, const std::vector<Leaf>& leaves,
                 Tensor* t) {
  auto flat = t->flat<T>();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Leaf& leaf = leaves[i];
    if (leaf.kind != Kind::kInt && leaf.kind != Kind::kReal) {
      return LeafError(
          text, leaf,
          absl::StrCat("expected a number for ", DataTypeString(t->dtype()),
                       ", got ", KindName(leaf.kind)));
    }
    double v;
    if (!absl::SimpleAtod(leaf.text, &v)) {
      return LeafError(text, leaf,
                       absl::StrCat("'", leaf.text, "' is not a number"));
    }
    if constexpr (std::is_same<T, double>::value) {
      flat(i) = v;
    } else {
      flat(i) = static_cast<T>(static_cast<float>(v));
    }
  }
  return OkStatus();
}

}  // namespace

Status ParseTensorLiteral(absl::string_view text, Tensor* out) {
  return ParseTensorLiteral(text, DT_INVALID, out);
}

Status ParseTensorLiteral(absl::string_view text, DataType default_dtype,
                          Tensor* out) {
  absl::string_view body = absl::StripAsciiWhitespace(text);
  DataType dtype = default_dtype;
  // A prefix is letters/digits/underscores before a ':' that starts no
  // string or list.
  const size_t colon = body.find(':');
  if (colon != absl::string_view::npos && body.find_first_of("[\"") > colon) {
    const absl::string_view name =
        absl::StripAsciiWhitespace(body.substr(0, colon));
    if (!DataTypeFromString(name, &dtype) || IsRefType(dtype)) {
      return errors::InvalidArgument("Invalid tensor literal '", text,
                                     "': unknown dtype '", name, "'");
    }
    body = body.substr(colon + 1);
  }
  LiteralParser parser(body);
  std::vector<int64_t> dims;
  MF_RETURN_IF_ERROR(parser.Parse(&dims));
  const std::vector<Leaf>& leaves = parser.leaves();

  if (dtype == DT_INVALID) {
    bool any_real = false;
    for (const Leaf& leaf : leaves) {
      if (leaf.kind != leaves[0].kind &&
          !(leaf.kind == Kind::kReal && leaves[0].kind == Kind::kInt) &&
          !(leaf.kind == Kind::kInt && leaves[0].kind == Kind::kReal)) {
        return LeafError(text, leaf,
                         absl::StrCat("mixed kinds: ", KindName(leaves[0].kind),
                                      " and ", KindName(leaf.kind)));
      }
      any_real = any_real || leaf.kind == Kind::kReal;
    }
    if (leaves.empty()) {
      dtype = DT_INT32;
    } else if (leaves[0].kind == Kind::kBool) {
      dtype = DT_BOOL;
    } else if (leaves[0].kind == Kind::kString) {
      dtype = DT_STRING;
    } else {
      dtype = any_real ? DT_FLOAT : DT_INT32;
    }
  }

  TensorShape shape;
  MF_RETURN_IF_ERROR(TensorShape::BuildTensorShape(dims, &shape));
  Tensor t(dtype, shape);
  switch (dtype) {
    case DT_INT8:
      MF_RETURN_IF_ERROR(FillIntegers<int8_t>(text, leaves, &t));
      break;
    case DT_INT16:
      MF_RETURN_IF_ERROR(FillIntegers<int16_t>(text, leaves, &t));
      break;
    case DT_INT32:
      MF_RETURN_IF_ERROR(FillIntegers<int32_t>(text, leaves, &t));
      break;
    case DT_INT64:
      MF_RETURN_IF_ERROR(FillIntegers<int64_t>(text, leaves, &t));
      break;
    case DT_UINT8:
      MF_RETURN_IF_ERROR(FillIntegers<uint8_t>(text, leaves, &t));
      break;
    case DT_UINT16:
      MF_RETURN_IF_ERROR(FillIntegers<uint16_t>(text, leaves, &t));
      break;
    case DT_UINT32:
      MF_RETURN_IF_ERROR(FillIntegers<uint32_t>(text, leaves, &t));
      break;
    case DT_UINT64:
      MF_RETURN_IF_ERROR(FillIntegers<uint64_t>(text, leaves, &t));
      break;
    case DT_FLOAT:
      MF_RETURN_IF_ERROR(FillReals<float>(text, leaves, &t));
      break;
    case DT_DOUBLE:
      MF_RETURN_IF_ERROR(FillReals<double>(text, leaves, &t));
      break;
    case DT_HALF:
      MF_RETURN_IF_ERROR(FillReals<half>(text, leaves, &t));
      break;
    case DT_BFLOAT16:
      MF_RETURN_IF_ERROR(FillReals<bfloat16>(text, leaves, &t));
      break;
    case DT_BOOL: {
      auto flat = t.flat<bool>();
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (leaves[i].kind != Kind::kBool) {
          return LeafError(text, leaves[i],
                           absl::StrCat("expected true or false, got ",
                                        KindName(leaves[i].kind)));
        }
        flat(i) = leaves[i].text == "true";
      }
      break;
    }
    case DT_STRING: {
      auto flat = t.flat<std::string>();
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (leaves[i].kind != Kind::kString) {
          return LeafError(text, leaves[i],
                           absl::StrCat("expected a \"string\", got ",
                                        KindName(leaves[i].kind)));
        }
        flat(i) = leaves[i].text;
      }
      break;
    }
    default:
      return errors::InvalidArgument("Invalid tensor literal '", text,
                                     "': dtype ", DataTypeString(dtype),
                                     " cannot be written as a literal");
  }
  *out = std::move(t);
  return OkStatus();
}

}  // namespace minflow
