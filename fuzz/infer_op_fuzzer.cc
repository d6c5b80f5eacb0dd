// Random ops, attrs, input shapes and constant inputs through `minflow
// infer-op`'s code path (RunInferOpRequest): attr text parsing, tensor
// literals, the notation, InferenceContext and every registered shape
// function. Any status is fine; crashes, sanitizer reports and hangs are
// not.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_notation.h"
#include "minflow/op_def.pb.h"

namespace minflow {
namespace {

const std::vector<OpDef>& Ops() {
  static const std::vector<OpDef>* ops = [] {
    auto* v = new std::vector<OpDef>;
    OpRegistry::Global()->GetRegisteredOps(v);
    return v;
  }();
  return *ops;
}

int64_t PickInt(FuzzedDataProvider& fdp) {
  static constexpr int64_t kInteresting[] = {-1,
                                             0,
                                             1,
                                             2,
                                             3,
                                             4,
                                             5,
                                             7,
                                             8,
                                             16,
                                             -2,
                                             -3,
                                             31,
                                             32,
                                             255,
                                             256,
                                             int64_t{1} << 31,
                                             int64_t{1} << 40,
                                             int64_t{1} << 62,
                                             INT64_MAX,
                                             INT64_MIN};
  if (fdp.ConsumeBool()) {
    return kInteresting[fdp.ConsumeIntegralInRange<size_t>(
        0, sizeof(kInteresting) / sizeof(kInteresting[0]) - 1)];
  }
  return fdp.ConsumeIntegralInRange<int64_t>(-4, 12);
}

// A shape in the notation, and its dims (-1 unknown) when the rank is known.
std::string PickShape(FuzzedDataProvider& fdp, std::vector<int64_t>* dims,
                      bool* known_rank) {
  dims->clear();
  *known_rank = fdp.ConsumeIntegralInRange<int>(0, 9) != 0;
  if (!*known_rank) return "?";
  const int rank = fdp.ConsumeIntegralInRange<int>(0, 5);
  std::vector<std::string> parts;
  for (int i = 0; i < rank; ++i) {
    int64_t d = fdp.ConsumeIntegralInRange<int>(0, 6) == 0
                    ? -1
                    : fdp.ConsumeIntegralInRange<int64_t>(0, 6);
    if (fdp.ConsumeIntegralInRange<int>(0, 30) == 0) d = int64_t{1} << 40;
    dims->push_back(d);
    parts.push_back(d < 0 ? "?" : absl::StrCat(d));
  }
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
}

// A literal whose shape fits `dims` (when known and small), else any.
std::string PickLiteral(FuzzedDataProvider& fdp,
                        const std::vector<int64_t>& dims, bool known_rank) {
  std::vector<int64_t> shape = dims;
  if (!known_rank || fdp.ConsumeIntegralInRange<int>(0, 9) == 0) {
    shape.assign(fdp.ConsumeIntegralInRange<int>(0, 2), 0);
  }
  int64_t count = 1;
  for (int64_t& d : shape) {
    if (d < 0 || d > 8) d = fdp.ConsumeIntegralInRange<int64_t>(0, 4);
    count *= d;
  }
  if (count > 64) return "[1]";
  const int kind = fdp.ConsumeIntegralInRange<int>(0, 5);
  const char* prefix = kind == 0 ? "int64:" : kind == 1 ? "float:" : "";
  // Row-major nested lists.
  std::function<std::string(size_t)> build = [&](size_t level) -> std::string {
    if (level == shape.size()) {
      return absl::StrCat(kind == 2 ? fdp.ConsumeIntegralInRange<int64_t>(-3, 3)
                                    : PickInt(fdp) %
                                          (kind == 0 ? INT64_MAX : 100000));
    }
    std::vector<std::string> items;
    for (int64_t i = 0; i < shape[level]; ++i)
      items.push_back(build(level + 1));
    return absl::StrCat("[", absl::StrJoin(items, ","), "]");
  };
  return absl::StrCat(prefix, build(0));
}

std::string PickAttrValue(FuzzedDataProvider& fdp, const OpDef_AttrDef& attr) {
  static const char* const kTypes[] = {"float",  "int32", "int64",  "bool",
                                       "double", "half",  "string", "int8"};
  const std::string& type = attr.type();
  if (type == "type") {
    if (attr.has_allowed_values() && fdp.ConsumeBool() &&
        attr.allowed_values().list().type_size() > 0) {
      const auto& list = attr.allowed_values().list();
      return DataTypeString(
          list.type(fdp.ConsumeIntegralInRange<int>(0, list.type_size() - 1)));
    }
    return kTypes[fdp.ConsumeIntegralInRange<int>(0, 7)];
  }
  if (type == "int") return absl::StrCat(PickInt(fdp));
  if (type == "bool") return fdp.ConsumeBool() ? "true" : "false";
  if (type == "float") return "0.5";
  if (type == "string") {
    if (attr.has_allowed_values() && fdp.ConsumeBool() &&
        attr.allowed_values().list().s_size() > 0) {
      const auto& list = attr.allowed_values().list();
      return list.s(fdp.ConsumeIntegralInRange<int>(0, list.s_size() - 1));
    }
    static const char* const kStrings[] = {
        "SAME", "VALID", "EXPLICIT", "NHWC", "NCHW", "REFLECT", "x"};
    return kStrings[fdp.ConsumeIntegralInRange<int>(0, 6)];
  }
  if (type == "list(int)") {
    std::vector<std::string> items;
    const int n = fdp.ConsumeIntegralInRange<int>(0, 8);
    for (int i = 0; i < n; ++i) {
      items.push_back(absl::StrCat(
          fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<int64_t>(0, 3)
                            : PickInt(fdp)));
    }
    return absl::StrCat("[", absl::StrJoin(items, ","), "]");
  }
  if (type == "list(type)") {
    std::vector<std::string> items;
    const int n = fdp.ConsumeIntegralInRange<int>(0, 4);
    for (int i = 0; i < n; ++i) {
      items.push_back(kTypes[fdp.ConsumeIntegralInRange<int>(0, 7)]);
    }
    return absl::StrCat("[", absl::StrJoin(items, ","), "]");
  }
  if (type == "shape") {
    std::vector<int64_t> dims;
    bool known;
    return PickShape(fdp, &dims, &known);
  }
  if (type == "tensor") {
    std::vector<int64_t> dims;
    bool known;
    PickShape(fdp, &dims, &known);
    return PickLiteral(fdp, dims, known);
  }
  return fdp.ConsumeRandomLengthString(16);
}

}  // namespace
}  // namespace minflow

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace minflow;  // NOLINT: fuzzer entry point
  FuzzedDataProvider fdp(data, size);
  const std::vector<OpDef>& ops = Ops();
  if (ops.empty()) return 0;
  const OpDef& op = ops[fdp.ConsumeIntegralInRange<size_t>(0, ops.size() - 1)];

  shape_inference::InferOpRequest request;
  request.op = op.name();
  for (const OpDef_AttrDef& attr : op.attr()) {
    if (fdp.ConsumeIntegralInRange<int>(0, 3) == 0) continue;
    request.attrs.push_back(
        absl::StrCat(attr.name(), "=", PickAttrValue(fdp, attr)));
  }
  if (fdp.ConsumeIntegralInRange<int>(0, 15) == 0) {
    request.attrs.push_back(fdp.ConsumeRandomLengthString(24));
  }
  // Usually the op's own input count; sometimes any.
  int num_inputs = op.input_arg_size();
  for (const OpDef_ArgDef& arg : op.input_arg()) {
    if (!arg.number_attr().empty() || !arg.type_list_attr().empty()) {
      num_inputs += fdp.ConsumeIntegralInRange<int>(-1, 3);
    }
  }
  if (fdp.ConsumeIntegralInRange<int>(0, 9) == 0) {
    num_inputs = fdp.ConsumeIntegralInRange<int>(0, 6);
  }
  std::vector<std::string> shapes;
  for (int i = 0; i < num_inputs; ++i) {
    std::vector<int64_t> dims;
    bool known;
    shapes.push_back(PickShape(fdp, &dims, &known));
    if (fdp.ConsumeIntegralInRange<int>(0, 2) == 0) {
      request.tensors.push_back(
          absl::StrCat(i, "=", PickLiteral(fdp, dims, known)));
    }
  }
  request.inputs = absl::StrJoin(shapes, ";");
  if (fdp.ConsumeIntegralInRange<int>(0, 20) == 0) {
    request.inputs = fdp.ConsumeRandomLengthString(32);
  }
  std::string outputs;
  shape_inference::RunInferOpRequest(*OpRegistry::Global(), request, &outputs)
      .IgnoreError();
  return 0;
}
