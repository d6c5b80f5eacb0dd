// Device names in every form TensorFlow accepts: "/device:GPU:0", "/gpu:0",
// "/cpu:0", "GPU:1", "/job:localhost/replica:0/task:0/device:CPU:0",
// "/device:GPU:*", and "" (no constraint).
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"

namespace minflow {

class DeviceNameUtils {
 public:
  // A parsed name; each part is optional (has_* false means "any").
  struct ParsedName {
    bool has_job = false;
    std::string job;
    bool has_replica = false;
    int replica = 0;
    bool has_task = false;
    int task = 0;
    bool has_type = false;
    std::string type;  // upper case: "CPU", "GPU"
    bool has_id = false;
    int id = 0;

    bool operator==(const ParsedName& other) const;
  };

  // InvalidArgument naming the string when it is not a device name.
  static Status ParseFullName(absl::string_view fullname, ParsedName* parsed);
  // "/job:localhost/replica:0/task:0/device:CPU:0" for the local device.
  static std::string FullName(absl::string_view job, int replica, int task,
                              absl::string_view type, int id);
  static std::string LocalName(absl::string_view type, int id);
  // The canonical form of what is specified ("/job:x/device:GPU:*", ...).
  static std::string ParsedNameToString(const ParsedName& parsed);
  // True when every part `spec` specifies matches `name`.
  static bool IsSpecification(const ParsedName& spec, const ParsedName& name);
  // True when some device could match both.
  static bool AreCompatibleDevNames(const ParsedName& a, const ParsedName& b);
};

}  // namespace minflow
