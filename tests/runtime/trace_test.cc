#include "minflow/runtime/trace.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/step_stats.pb.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::testing::HasSubstr;

TEST(TraceTest, EmitsCompleteEventsRelativeToFirstNode) {
  const StepStats stats = testing::ParseTextProtoOrDie<StepStats>(R"pb(
    dev_stats {
      device: "/job:localhost/replica:0/task:0/device:CPU:0"
      thread_names { key: 7 value: "inter_op_0" }
      node_stats {
        node_name: "mm"
        timeline_label: "MatMul"
        thread_id: 7
        all_start_nanos: 5000000
        all_end_rel_nanos: 2500
        output {
          slot: 0
          tensor_description {
            shape {
              dim { size: 2 }
              dim { size: -1 }
            }
          }
        }
        memory { allocator_name: "cpu" total_bytes: 64 }
      }
      node_stats {
        node_name: "quote\"d"
        thread_id: 7
        all_start_nanos: 5001000
        all_end_rel_nanos: 0
      }
    }
  )pb");
  const std::string json = StepStatsToChromeTrace(stats);
  EXPECT_THAT(
      json,
      HasSubstr(
          R"("name":"mm","cat":"MatMul","ph":"X","pid":0,"tid":7,"ts":0,"dur":2.5)"));
  EXPECT_THAT(json,
              HasSubstr(R"("output_shapes":"[2,?]","bytes_allocated":64)"));
  EXPECT_THAT(json, HasSubstr(R"("ts":1,"dur":0.001)"));
  EXPECT_THAT(json, HasSubstr(R"(quote\"d)"));
  EXPECT_THAT(json, HasSubstr(R"("args":{"name":"inter_op_0"})"));
  EXPECT_THAT(json, HasSubstr("\"traceEvents\":["));
}

TEST(TraceTest, EmptyStepStatsIsValidEmptyTrace) {
  EXPECT_EQ(StepStatsToChromeTrace(StepStats()),
            "{\"traceEvents\":[\n\n],\"displayTimeUnit\":\"ns\"}\n");
}

TEST(TraceTest, JsonQuoteEscapesQuotesBackslashesAndControlBytes) {
  EXPECT_EQ(JsonQuote("plain/name:0"), "\"plain/name:0\"");
  EXPECT_EQ(JsonQuote("a\"b\\c\nd\te\x01"), "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
  EXPECT_EQ(JsonQuote(""), "\"\"");
}

}  // namespace
}  // namespace minflow
