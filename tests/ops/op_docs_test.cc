// Every registered op carries the documentation that the generated C++
// wrappers (tools/cc_op_gen) and the Python op functions
// (python/minflow/op_gen.py) turn into doc comments and docstrings.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/framework/op.h"
#include "minflow/op_def.pb.h"

namespace minflow {
namespace {

constexpr size_t kMaxSummaryLength = 120;

// One line per problem of `op`, each naming the op.
std::vector<std::string> DocProblems(const OpDef& op) {
  std::vector<std::string> problems;
  const std::string& summary = op.summary();
  if (summary.empty()) {
    problems.push_back(absl::StrCat(op.name(), ": no summary (add a Doc())"));
    return problems;
  }
  if (summary.back() != '.') {
    problems.push_back(
        absl::StrCat(op.name(), ": summary does not end in '.': ", summary));
  }
  if (summary.size() > kMaxSummaryLength) {
    problems.push_back(absl::StrCat(op.name(), ": summary has ", summary.size(),
                                    " chars (at most ", kMaxSummaryLength,
                                    "): ", summary));
  }
  return problems;
}

TEST(OpDocsTest, EveryOpHasAOneSentenceSummary) {
  std::vector<OpDef> ops;
  OpRegistry::Global()->GetRegisteredOps(&ops);
  ASSERT_GT(ops.size(), 200u);
  std::vector<std::string> problems;
  for (const OpDef& op : ops) {
    for (std::string& p : DocProblems(op)) problems.push_back(std::move(p));
  }
  EXPECT_TRUE(problems.empty()) << problems.size() << " problems:\n"
                                << absl::StrJoin(problems, "\n");
}

// Internal ops (_Arg, _FusedMatMul, ...) count too: GetRegisteredOps lists
// them, and this pins that it does.
TEST(OpDocsTest, InternalOpsAreChecked) {
  const OpRegistrationData* data = OpRegistry::Global()->LookUp("_Retval");
  ASSERT_NE(data, nullptr);
  EXPECT_THAT(DocProblems(data->op_def), ::testing::IsEmpty());
}

// A Doc() entry "name: text" whose name is no input, output or attr fails
// the op's registration (OpDefBuilder's parser rejects it), so a typo shows
// up here as a registration error rather than as a silently lost line.
TEST(OpDocsTest, NoRegistrationFailed) {
  std::vector<std::string> errors;
  for (const auto& e : OpRegistry::Global()->registration_errors()) {
    errors.push_back(e.status.ToString());
  }
  EXPECT_THAT(errors, ::testing::IsEmpty());
}

// The checker itself: each rule fires, and names the op.
TEST(OpDocsTest, CheckerFlagsEachRule) {
  OpDef op;
  op.set_name("Foo");
  EXPECT_THAT(DocProblems(op),
              ::testing::ElementsAre(::testing::HasSubstr("Foo: no summary")));
  op.set_summary("Adds things");
  EXPECT_THAT(
      DocProblems(op),
      ::testing::ElementsAre(::testing::HasSubstr("does not end in '.'")));
  op.set_summary(std::string(121, 'a') + ".");
  EXPECT_THAT(DocProblems(op),
              ::testing::ElementsAre(::testing::HasSubstr("122 chars")));
  op.set_summary("Adds things.");
  EXPECT_THAT(DocProblems(op), ::testing::IsEmpty());
}

}  // namespace
}  // namespace minflow
