// Feeds and fetches as TensorFlow's Session rewrites them, on the built-in
// ops a converted graph uses: a fed Placeholder hands its control edges to
// the feed, feeding a tensor cuts what only it needed, a fetched feed is the
// fed value, and PlaceholderWithDefault yields its feed or its default.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::unique_ptr<Session> MakeSession(const std::string& graph_text) {
  auto session = Session::Create(ParseTextProtoOrDie<GraphDef>(graph_text),
                                 SessionOptions());
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(session).value() : nullptr;
}

Tensor Floats(std::vector<float> values) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<float>()(i) = values[i];
  return t;
}

std::vector<float> ValuesOf(const Tensor& t) {
  std::vector<float> v(t.NumElements());
  for (size_t i = 0; i < v.size(); ++i) v[i] = t.flat<float>()(i);
  return v;
}

// What every Keras model converted to a frozen graph looks like: the
// Consts wait for the input through "^input" control edges.
constexpr char kConvertedGraph[] = R"pb(
  node {
    name: "input"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value { shape { dim { size: 2 } } }
    }
  }
  node {
    name: "one"
    op: "Const"
    input: "^input"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {}
          float_val: 1
        }
      }
    }
  }
  node {
    name: "hidden"
    op: "Identity"
    input: "input"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "waits_for_hidden"
    op: "Const"
    input: "^hidden"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {}
          float_val: 10
        }
      }
    }
  }
  node {
    name: "out"
    op: "AddV2"
    input: "hidden"
    input: "one"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "out2"
    op: "AddV2"
    input: "out"
    input: "waits_for_hidden"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

TEST(FeedSemanticsTest, FedPlaceholderHandsItsControlEdgesToTheFeed) {
  auto session = MakeSession(kConvertedGraph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(
      session->Run({{"input", Floats({1, 2})}}, {"out", "one"}, {}, &out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(ValuesOf(out[0]), (std::vector<float>{2, 3}));
  EXPECT_EQ(ValuesOf(out[1]), (std::vector<float>{1}));
}

TEST(FeedSemanticsTest, UnfedPlaceholderIsStillAnErrorNamingIt) {
  auto session = MakeSession(kConvertedGraph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({}, {"one"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("must feed"), HasSubstr("'input'"))));
}

TEST(FeedSemanticsTest, FeedingATensorCutsWhatOnlyItNeeded) {
  auto session = MakeSession(kConvertedGraph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  // "hidden" is fed, so "input" is not needed for its value; but "one"
  // still waits for "input", which nobody fed.
  EXPECT_THAT(
      session->Run({{"hidden", Floats({5, 6})}}, {"out"}, {}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'input'")));
  // Feeding both: the fed value of "hidden" is used, not input's.
  MF_ASSERT_OK(
      session->Run({{"input", Floats({1, 2})}, {"hidden", Floats({5, 6})}},
                   {"out"}, {}, &out));
  EXPECT_EQ(ValuesOf(out[0]), (std::vector<float>{6, 7}));
}

TEST(FeedSemanticsTest, FedNonPlaceholderKeepsItsControlEdges) {
  auto session = MakeSession(kConvertedGraph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  // TensorFlow moves control edges only off a fed Placeholder: a fed
  // Identity still runs for "waits_for_hidden", so it still needs its input.
  EXPECT_THAT(session->Run({{"hidden", Floats({5, 6})}}, {"waits_for_hidden"},
                           {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("must feed"), HasSubstr("'input'"))));
  MF_ASSERT_OK(
      session->Run({{"input", Floats({1, 2})}, {"hidden", Floats({5, 6})}},
                   {"out2"}, {}, &out));
  EXPECT_EQ(ValuesOf(out[0]), (std::vector<float>{16, 17}));
}

TEST(FeedSemanticsTest, FetchingAFedTensorReturnsTheFedValue) {
  auto session = MakeSession(kConvertedGraph);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(
      session->Run({{"input", Floats({1, 2})}, {"hidden", Floats({5, 6})}},
                   {"hidden", "input", "out"}, {}, &out));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(ValuesOf(out[0]), (std::vector<float>{5, 6}));
  EXPECT_EQ(ValuesOf(out[1]), (std::vector<float>{1, 2}));
  EXPECT_EQ(ValuesOf(out[2]), (std::vector<float>{6, 7}));
}

constexpr char kWithDefault[] = R"pb(
  node {
    name: "default"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 2 } }
          float_val: 3
          float_val: 4
        }
      }
    }
  }
  node {
    name: "maybe_fed"
    op: "PlaceholderWithDefault"
    input: "default"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value { shape { dim { size: -1 } } }
    }
  }
  node {
    name: "neg"
    op: "Neg"
    input: "maybe_fed"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

TEST(FeedSemanticsTest, PlaceholderWithDefaultYieldsItsFeedOrItsDefault) {
  auto session = MakeSession(kWithDefault);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {"neg", "maybe_fed"}, {}, &out));
  EXPECT_EQ(ValuesOf(out[0]), (std::vector<float>{-3, -4}));
  EXPECT_EQ(ValuesOf(out[1]), (std::vector<float>{3, 4}));
  // A feed of another length: the attr's shape [-1] allows it.
  MF_ASSERT_OK(session->Run({{"maybe_fed", Floats({7, 8, 9})}},
                            {"neg", "maybe_fed"}, {}, &out));
  EXPECT_EQ(ValuesOf(out[0]), (std::vector<float>{-7, -8, -9}));
  EXPECT_EQ(ValuesOf(out[1]), (std::vector<float>{7, 8, 9}));
}

}  // namespace
}  // namespace minflow
