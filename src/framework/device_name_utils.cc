#include "minflow/framework/device_name_utils.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace minflow {
namespace {

bool ParseId(absl::string_view s, bool* has, int* id) {
  if (s == "*") {
    *has = false;
    return true;
  }
  if (!absl::SimpleAtoi(s, id) || *id < 0) return false;
  *has = true;
  return true;
}

// "CPU"/"cpu"/"GPU"... -> upper case; names are letters, digits, '_'.
bool ParseType(absl::string_view s, std::string* type) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  *type = absl::AsciiStrToUpper(s);
  return true;
}

}  // namespace

bool DeviceNameUtils::ParsedName::operator==(const ParsedName& o) const {
  return has_job == o.has_job && job == o.job && has_replica == o.has_replica &&
         replica == o.replica && has_task == o.has_task && task == o.task &&
         has_type == o.has_type && type == o.type && has_id == o.has_id &&
         id == o.id;
}

Status DeviceNameUtils::ParseFullName(absl::string_view fullname,
                                      ParsedName* p) {
  *p = ParsedName();
  const Status bad = errors::InvalidArgument(
      "Malformed device name '", fullname,
      "': expected a form such as /device:CPU:0, /gpu:0 or "
      "/job:localhost/replica:0/task:0/device:GPU:0");
  if (fullname.empty() || fullname == "/") return OkStatus();
  absl::string_view rest = fullname;
  absl::ConsumePrefix(&rest, "/");
  std::vector<absl::string_view> parts = absl::StrSplit(rest, '/');
  for (absl::string_view part : parts) {
    std::vector<absl::string_view> fields = absl::StrSplit(part, ':');
    if (fields.size() < 2) return bad;
    const std::string key = absl::AsciiStrToLower(fields[0]);
    if (key == "job" && fields.size() == 2) {
      if (fields[1] != "*") {
        p->has_job = true;
        p->job = std::string(fields[1]);
      }
    } else if (key == "replica" && fields.size() == 2) {
      if (!ParseId(fields[1], &p->has_replica, &p->replica)) return bad;
    } else if (key == "task" && fields.size() == 2) {
      if (!ParseId(fields[1], &p->has_task, &p->task)) return bad;
    } else if (key == "device" && fields.size() == 3) {
      if (fields[1] != "*") {
        if (!ParseType(fields[1], &p->type)) return bad;
        p->has_type = true;
      }
      if (!ParseId(fields[2], &p->has_id, &p->id)) return bad;
    } else if (fields.size() == 2 && key != "job" && key != "replica" &&
               key != "task" && key != "device") {
      // Legacy "/cpu:0", "/gpu:1", and the bare "GPU:1".
      if (!ParseType(fields[0], &p->type)) return bad;
      p->has_type = true;
      if (!ParseId(fields[1], &p->has_id, &p->id)) return bad;
    } else {
      return bad;
    }
  }
  return OkStatus();
}

std::string DeviceNameUtils::FullName(absl::string_view job, int replica,
                                      int task, absl::string_view type,
                                      int id) {
  return absl::StrCat("/job:", job, "/replica:", replica, "/task:", task,
                      "/device:", type, ":", id);
}

std::string DeviceNameUtils::LocalName(absl::string_view type, int id) {
  return FullName("localhost", 0, 0, type, id);
}

std::string DeviceNameUtils::ParsedNameToString(const ParsedName& p) {
  std::string out;
  if (p.has_job) absl::StrAppend(&out, "/job:", p.job);
  if (p.has_replica) absl::StrAppend(&out, "/replica:", p.replica);
  if (p.has_task) absl::StrAppend(&out, "/task:", p.task);
  if (p.has_type || p.has_id) {
    absl::StrAppend(&out, "/device:", p.has_type ? p.type : "*", ":");
    if (p.has_id) {
      absl::StrAppend(&out, p.id);
    } else {
      out += "*";
    }
  }
  return out;
}

bool DeviceNameUtils::IsSpecification(const ParsedName& spec,
                                      const ParsedName& name) {
  if (spec.has_job && (!name.has_job || spec.job != name.job)) return false;
  if (spec.has_replica && (!name.has_replica || spec.replica != name.replica)) {
    return false;
  }
  if (spec.has_task && (!name.has_task || spec.task != name.task)) return false;
  if (spec.has_type && (!name.has_type || spec.type != name.type)) return false;
  if (spec.has_id && (!name.has_id || spec.id != name.id)) return false;
  return true;
}

bool DeviceNameUtils::AreCompatibleDevNames(const ParsedName& a,
                                            const ParsedName& b) {
  if (a.has_job && b.has_job && a.job != b.job) return false;
  if (a.has_replica && b.has_replica && a.replica != b.replica) return false;
  if (a.has_task && b.has_task && a.task != b.task) return false;
  if (a.has_type && b.has_type && a.type != b.type) return false;
  if (a.has_id && b.has_id && a.id != b.id) return false;
  return true;
}

}  // namespace minflow
