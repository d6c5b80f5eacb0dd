// Tests libzero_out.so the way a user meets it: load it by path, then run
// Examples>ZeroOut in a session. Usage: zero_out_test path/to/libzero_out.so
#include <iostream>
#include <string>
#include <vector>

#include "google/protobuf/text_format.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/load_library.h"
#include "minflow/graph.pb.h"
#include "minflow/kernel_def.pb.h"
#include "minflow/op_def.pb.h"
#include "minflow/runtime/session.h"

namespace {

int failures = 0;

void Expect(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "FAILED: " << what << "\n";
    ++failures;
  }
}

// One Examples>ZeroOut node "z" over a Placeholder "x" of `dtype`.
minflow::GraphDef ZeroOutGraph(const std::string& dtype, int preserve_index) {
  const std::string text =
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: " +
      dtype +
      " } } }"
      "node { name: 'z' op: 'Examples>ZeroOut' input: 'x'"
      "  attr { key: 'T' value { type: " +
      dtype +
      " } }"
      "  attr { key: 'preserve_index' value { i: " +
      std::to_string(preserve_index) + " } } }";
  minflow::GraphDef graph;
  google::protobuf::TextFormat::ParseFromString(text, &graph);
  return graph;
}

// Runs the graph on `x` and returns z, or the error's message in *error.
template <typename T>
std::vector<T> Run(const minflow::GraphDef& graph, const minflow::Tensor& x,
                   std::string* error) {
  auto session = minflow::Session::Create(graph, minflow::SessionOptions());
  if (!session.ok()) {
    *error = std::string(session.status().message());
    return {};
  }
  std::vector<minflow::Tensor> outputs;
  const minflow::Status s = (*session)->Run({{"x", x}}, {"z"}, {}, &outputs);
  if (!s.ok()) {
    *error = std::string(s.message());
    return {};
  }
  const auto z = outputs[0].flat<T>();
  return std::vector<T>(z.data(), z.data() + z.size());
}

template <typename T>
minflow::Tensor Vector(minflow::DataType dtype, const std::vector<T>& values) {
  minflow::Tensor t(
      dtype, minflow::TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<T>()(i) = values[i];
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: zero_out_test path/to/libzero_out.so\n";
    return 2;
  }
  minflow::OpList ops;
  minflow::KernelList kernels;
  minflow::Status s = minflow::LoadOpLibrary(argv[1], &ops, &kernels);
  if (!s.ok()) {
    std::cerr << s.message() << "\n";
    return 1;
  }
  Expect(ops.op_size() == 1 && ops.op(0).name() == "Examples>ZeroOut",
         "the library adds exactly Examples>ZeroOut");
  Expect(kernels.kernel_size() == 4, "one CPU kernel per type (4)");
  // Loading again is a no-op that returns the same ops.
  minflow::OpList again;
  s = minflow::LoadOpLibrary(argv[1], &again, nullptr);
  Expect(s.ok() && again.op_size() == 1, "a second load returns the same ops");

  std::string error;
  Expect(Run<float>(ZeroOutGraph("DT_FLOAT", 0),
                    Vector<float>(minflow::DT_FLOAT, {5, 4, 3, 2, 1}),
                    &error) == std::vector<float>({5, 0, 0, 0, 0}),
         "float, preserve_index 0: " + error);
  Expect(Run<int32_t>(ZeroOutGraph("DT_INT32", 2),
                      Vector<int32_t>(minflow::DT_INT32, {1, 2, 7, 4}),
                      &error) == std::vector<int32_t>({0, 0, 7, 0}),
         "int32, preserve_index 2: " + error);
  error.clear();
  Run<float>(ZeroOutGraph("DT_FLOAT", 9),
             Vector<float>(minflow::DT_FLOAT, {1, 2}), &error);
  Expect(error.find("preserve_index must be less than the input's length 2, "
                    "but got 9") != std::string::npos,
         "an index past the end is refused, got: " + error);
  if (failures > 0) return 1;
  std::cout << "zero_out_test: all checks passed\n";
  return 0;
}
