#include "tools/output_files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace minflow {
namespace tools {

Status CreateOutputDirectory(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return errors::PermissionDenied("Cannot create directory '", dir,
                                    "': ", error.message());
  }
  return OkStatus();
}

Status WriteOutputFile(const std::string& path, absl::string_view contents) {
  // stdio rather than a stream: errno then says why a write failed.
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return errors::PermissionDenied("Cannot write '", path,
                                    "': ", std::strerror(errno));
  }
  const bool written =
      std::fwrite(contents.data(), 1, contents.size(), file) == contents.size();
  const int write_errno = errno;
  if (std::fclose(file) != 0 || !written) {
    return errors::DataLoss("Error writing '", path, "': ",
                            std::strerror(written ? errno : write_errno));
  }
  return OkStatus();
}

}  // namespace tools
}  // namespace minflow
