// The digits MLP of examples/graphs/digits_mlp.pbtxt, built with the C++
// graph API instead of read from the file: ops::MatMul, ops::BiasAdd and
// friends in named sub-scopes, run by a ClientSession. The trained weights
// are the Consts of the bundled graph; the program checks that the graph it
// builds gives the bundled graph's probabilities, and also reads the glyphs
// after the guide's MedianPool2D.
//
// Usage: digits_mlp GRAPH.pbtxt SAMPLE.npy
//   (examples/graphs/digits_mlp.pbtxt and examples/graphs/digits_sample.npy)
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "minflow/cc/framework/client_session.h"
#include "minflow/cc/framework/scope.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/core/npy.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/node_def.pb.h"
#include "minflow/runtime/session.h"

namespace {

using minflow::ClientSession;
using minflow::Output;
using minflow::Scope;
using minflow::Status;
using minflow::Tensor;
namespace ops = minflow::ops;

// x * w + b, then Relu when `relu`: one layer, its nodes named in `scope`
// ("dense1/MatMul", "dense1/BiasAdd", "dense1/Relu" as in the bundled graph).
Output Dense(const Scope& scope, Output x, const Tensor& w, const Tensor& b,
             bool relu) {
  auto product = ops::MatMul(scope, x, ops::Const(scope.WithOpName("w"), w));
  auto biased =
      ops::BiasAdd(scope, product, ops::Const(scope.WithOpName("b"), b));
  if (!relu) return biased;
  return ops::Relu(scope, biased);
}

void PrintDigits(const char* label, const Tensor& digits) {
  std::printf("%s: [", label);
  for (int64_t i = 0; i < digits.NumElements(); ++i) {
    std::printf(i == 0 ? "%lld" : " %lld",
                static_cast<long long>(digits.flat<int64_t>()(i)));
  }
  std::printf("]\n");
}

Status Main(const std::string& graph_path, const std::string& sample_path) {
  // The trained weights, by name, from the bundled graph's Consts.
  minflow::GraphDef trained;
  MF_RETURN_IF_ERROR(minflow::ReadGraphDefFile(graph_path, &trained));
  std::map<std::string, Tensor> weights;
  for (const minflow::NodeDef& node : trained.node()) {
    if (node.op() != "Const") continue;
    MF_RETURN_IF_ERROR(minflow::TensorFromProto(
        node.attr().at("value").tensor(), &weights[node.name()]));
  }
  for (const char* name : {"w1", "b1", "w2", "b2"}) {
    if (weights.count(name) == 0) {
      return minflow::errors::NotFound(graph_path, " has no Const '", name,
                                       "'");
    }
  }
  Tensor glyphs;  // float [10,35]: the digits 0..9, two pixels flipped each
  MF_RETURN_IF_ERROR(minflow::ReadNpyFile(sample_path, &glyphs));

  // The network. A mistake here (a wrong shape, a wrong dtype) would be
  // recorded in root's status, naming the op that made it.
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), minflow::DT_FLOAT,
                            ops::Placeholder::Shape({-1, 35}));
  Output hidden = Dense(root.NewSubScope("dense1"), x, weights["w1"],
                        weights["b1"], /*relu=*/true);
  Output logits = Dense(root.NewSubScope("dense2"), hidden, weights["w2"],
                        weights["b2"], /*relu=*/false);
  auto probs = ops::Softmax(root.WithOpName("probs"), logits);
  auto digit = ops::ArgMax(root.WithOpName("digit"), probs, 1);

  // The guide's MedianPool2D, a generated class like any other: each glyph
  // as a 7x5 image, every pixel the median of its 3x3 neighbourhood, read
  // by the same network. The median removes flipped pixels but also the
  // one-pixel strokes, so the network (trained on unfiltered glyphs) misreads
  // most of them: a filter has to suit its data.
  Scope denoise = root.NewSubScope("denoise");
  auto images = ops::Reshape(denoise, x, {-1, 7, 5, 1});
  auto median =
      ops::MedianPool2D(denoise, images, {1, 3, 3, 1}, {1, 1, 1, 1}, "SAME");
  auto flat = ops::Reshape(denoise, median, {-1, 35});
  Output hidden2 = Dense(denoise.NewSubScope("dense1"), flat, weights["w1"],
                         weights["b1"], true);
  Output logits2 = Dense(denoise.NewSubScope("dense2"), hidden2, weights["w2"],
                         weights["b2"], false);
  auto digit2 = ops::ArgMax(denoise.WithOpName("digit"),
                            ops::Softmax(denoise, logits2), 1);
  MF_RETURN_IF_ERROR(root.status());

  ClientSession session(root);
  std::vector<Tensor> out;
  MF_RETURN_IF_ERROR(session.Run({{x, glyphs}}, {digit, probs, digit2}, &out));
  PrintDigits("digit", out[0]);
  PrintDigits("median-filtered digit", out[2]);

  // The bundled graph, run as a GraphDef, must give the same probabilities.
  MF_ASSIGN_OR_RETURN(auto bundled, minflow::Session::Create(
                                        trained, minflow::SessionOptions()));
  std::vector<Tensor> expected;
  MF_RETURN_IF_ERROR(bundled->Run({{"x", glyphs}}, {"probs"}, {}, &expected));
  float max_diff = 0;
  for (int64_t i = 0; i < expected[0].NumElements(); ++i) {
    max_diff = std::fmax(max_diff, std::fabs(expected[0].flat<float>()(i) -
                                             out[1].flat<float>()(i)));
  }
  std::printf("max |probs - bundled graph's probs| = %g\n", max_diff);
  if (max_diff > 1e-6f) {
    return minflow::errors::Internal(
        "the graph built with the C++ API disagrees with ", graph_path);
  }
  std::printf("matches %s\n", graph_path.c_str());
  return minflow::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "Usage: %s GRAPH.pbtxt SAMPLE.npy\n", argv[0]);
    return 2;
  }
  Status s = Main(argv[1], argv[2]);
  if (!s.ok()) {
    std::fprintf(stderr, "digits_mlp: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}
