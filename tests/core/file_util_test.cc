#include "minflow/core/file_util.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  return absl::StrCat(::testing::TempDir(), "/file_util_test_", name);
}

TEST(ReadFileToStringTest, ReadsEveryByteOfALargeFile) {
  // Larger than the read buffer, with NULs and every byte value.
  std::string bytes(200000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>((i * 7919) % 256);
  }
  const std::string path = TempPath("large");
  std::ofstream(path, std::ios::binary) << bytes;
  std::string read = "previous contents";
  MF_ASSERT_OK(ReadFileToString(path, &read));
  EXPECT_EQ(read, bytes);
  std::filesystem::remove(path);
}

TEST(ReadFileToStringTest, EmptyFileGivesEmptyString) {
  const std::string path = TempPath("empty");
  std::ofstream(path, std::ios::binary).flush();
  std::string read = "previous contents";
  MF_ASSERT_OK(ReadFileToString(path, &read));
  EXPECT_EQ(read, "");
  std::filesystem::remove(path);
}

TEST(ReadFileToStringTest, ErrorsNameThePathAndTheReason) {
  std::string read = "kept";
  EXPECT_THAT(ReadFileToString("/nonexistent/dir/file", &read),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("Cannot open '/nonexistent/dir/file'"),
                             HasSubstr("No such file or directory"))));
  EXPECT_THAT(
      ReadFileToString(::testing::TempDir(), &read),
      StatusIs(absl::StatusCode::kDataLoss,
               AllOf(HasSubstr("Error reading"), HasSubstr("Is a directory"))));
  EXPECT_THAT(ReadFileToString("/nonexistent/g.pb", &read, "graph file"),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("Cannot open graph file '/nonexistent/g.pb': "
                                 "No such file or directory")));
  EXPECT_EQ(read, "kept");
}

}  // namespace
}  // namespace minflow
