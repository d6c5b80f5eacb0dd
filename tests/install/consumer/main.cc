// Runs y = Neg(x) on x = [1, 2, 3] through an installed minflow and prints
// y: the smallest program that embeds minflow.
#include <iostream>
#include <memory>
#include <vector>

#include "google/protobuf/text_format.h"
#include "minflow/core/tensor.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "minflow/version.h"

int main() {
  minflow::GraphDef graph;
  if (!google::protobuf::TextFormat::ParseFromString(
          R"pb(
            node {
              name: "x"
              op: "Placeholder"
              attr {
                key: "dtype"
                value { type: DT_FLOAT }
              }
            }
            node {
              name: "y"
              op: "Neg"
              input: "x"
              attr {
                key: "T"
                value { type: DT_FLOAT }
              }
            }
          )pb",
          &graph)) {
    std::cerr << "consumer: cannot parse the graph\n";
    return 1;
  }
  auto session = minflow::Session::Create(graph, minflow::SessionOptions());
  if (!session.ok()) {
    std::cerr << "consumer: " << session.status().message() << "\n";
    return 1;
  }
  minflow::Tensor x(minflow::DT_FLOAT, minflow::TensorShape({3}));
  auto values = x.flat<float>();
  for (int i = 0; i < 3; ++i) values(i) = static_cast<float>(i + 1);
  std::vector<minflow::Tensor> outputs;
  const minflow::Status s = (*session)->Run({{"x", x}}, {"y"}, {}, &outputs);
  if (!s.ok()) {
    std::cerr << "consumer: " << s.message() << "\n";
    return 1;
  }
  std::cout << "minflow " << MINFLOW_VERSION_STRING << ": y =";
  const auto y = outputs[0].flat<float>();
  for (int i = 0; i < y.size(); ++i) std::cout << " " << y(i);
  std::cout << "\n";
  return 0;
}
