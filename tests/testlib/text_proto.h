// Protos written as text in tests: ParseTextProtoOrDie<NodeDef>("name: 'a'")
// and ProtoToText for readable comparisons.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace minflow {
namespace testing {

// Parses `text` (protobuf text format) into a T; a parse error fails the
// current test with the parser's message and returns what was parsed.
template <typename T>
T ParseTextProtoOrDie(absl::string_view text) {
  class Collector : public google::protobuf::io::ErrorCollector {
   public:
    void AddError(int line, int column, const std::string& message) override {
      ADD_FAILURE() << "text proto " << line + 1 << ":" << column + 1 << ": "
                    << message;
    }
  };
  Collector collector;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  T proto;
  parser.ParseFromString(std::string(text), &proto);
  return proto;
}

// The canonical multi-line text form, for EXPECT_EQ on protos.
inline std::string ProtoToText(const google::protobuf::Message& proto) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(proto, &text);
  return text;
}

}  // namespace testing
}  // namespace minflow
