#include "minflow/core/close_names.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minflow {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const std::vector<absl::string_view> kNames = {"digit", "probs", "x",
                                               "dense1/MatMul", "Digits"};

TEST(CloseNamesTest, NearestFirstIgnoringCase) {
  EXPECT_THAT(CloseNames("digits", kNames), ElementsAre("Digits", "digit"));
  EXPECT_THAT(CloseNames("digt", kNames), ElementsAre("digit"));
  EXPECT_THAT(CloseNames("X", kNames), ElementsAre("x"));
}

TEST(CloseNamesTest, FarNamesAreNotSuggested) {
  EXPECT_THAT(CloseNames("logits", kNames), IsEmpty());
  EXPECT_THAT(CloseNames("", {}), IsEmpty());
}

TEST(CloseNamesTest, LongerNamesAllowMoreEdits) {
  EXPECT_THAT(CloseNames("dense1/matmull", kNames),
              ElementsAre("dense1/MatMul"));
}

TEST(CloseNamesTest, AtMostFive) {
  const std::vector<absl::string_view> many = {"a1", "a2", "a3",
                                               "a4", "a5", "a6"};
  EXPECT_EQ(CloseNames("a", many).size(), 5);
}

TEST(DidYouMeanTest, SentenceOrNothing) {
  EXPECT_EQ(DidYouMean("prob", kNames), " Did you mean 'probs'?");
  EXPECT_EQ(DidYouMean("digits", kNames), " Did you mean 'Digits', 'digit'?");
  EXPECT_EQ(DidYouMean("nothing_like_it", kNames), "");
}

}  // namespace
}  // namespace minflow
