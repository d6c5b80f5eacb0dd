#include "minflow/core/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace minflow {

Status ReadFileToString(const std::string& path, std::string* contents,
                        absl::string_view what) {
  const std::string named = what.empty() ? absl::StrCat("'", path, "'")
                                         : absl::StrCat(what, " '", path, "'");
  // POSIX rather than a stream: one allocation sized by fstat, no locale or
  // per-character iteration, and errno to say why.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return errors::NotFound("Cannot open ", named, ": ", std::strerror(errno));
  }
  auto read_error = [&](int error) {
    close(fd);
    return errors::DataLoss("Error reading ", named, ": ",
                            std::strerror(error));
  };
  // Straight into the string for the size fstat gives, then whatever else
  // the file holds (one that grew, or one that is not regular).
  struct stat info;
  std::string data;
  size_t done = 0;
  if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
    data.resize(static_cast<size_t>(info.st_size));
    while (done < data.size()) {
      const ssize_t n = read(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return read_error(errno);
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    data.resize(done);
  }
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return read_error(errno);
    if (n == 0) break;
    data.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  *contents = std::move(data);
  return OkStatus();
}

}  // namespace minflow
