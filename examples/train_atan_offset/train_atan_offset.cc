// The LiteRT custom-op guide's model, y = atan(x + offset), trained: data
// made with offset 1.0, a resource variable `offset` starting at 0, the
// mean squared error, gradient descent (GradientDescentOptimizer). It stops
// when the offset is within 0.01 of 1.0 (or gives up after --max-steps steps
// and fails).
//
// With --plugin PATH it uses the C plugin's `Examples>Atan`
// (examples/c_plugin) instead of the built-in Atan. The plugin knows
// nothing of gradients; this program registers its gradient,
// d atan(x)/dx = 1 / (1 + x^2), with REGISTER_GRADIENT_OP, as a program
// or a custom-op library registers the gradients of its own ops.
//
// Usage: train_atan_offset [--plugin libatan.so] [--max-steps N]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "minflow/cc/framework/client_session.h"
#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/framework/op_builder.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/cc/training/optimizer.h"
#include "minflow/framework/load_library.h"
#include "minflow/op_def.pb.h"

namespace minflow {
namespace ops {
namespace {

// The plugin op's gradient: grad / (1 + x^2).
Status PluginAtanGrad(const Scope& scope, const Operation& op,
                      const std::vector<Output>& grad_inputs,
                      std::vector<Output>* grad_outputs) {
  const Output x = op.input(0);
  auto one = Cast(scope, Const(scope, 1.0f), x.type());
  grad_outputs->push_back(
      Div(scope, grad_inputs[0], AddV2(scope, one, Square(scope, x))));
  return scope.status();
}
REGISTER_GRADIENT_OP("Examples>Atan", PluginAtanGrad);

}  // namespace
}  // namespace ops
}  // namespace minflow

namespace {

namespace ops = minflow::ops;
using minflow::ClientSession;
using minflow::Output;
using minflow::Scope;
using minflow::Status;
using minflow::Tensor;

constexpr float kTrueOffset = 1.0f;
constexpr float kLearningRate = 0.5f;

Output Atan(const Scope& scope, const Output& x, bool plugin) {
  if (!plugin) return ops::Atan(scope, x);
  minflow::OpBuilder atan(scope, "Examples>Atan");
  atan.Input(x);
  atan.Finish();
  return atan.GetOutput("y");
}

Status Main(const char* plugin_path, int max_steps) {
  const bool plugin = plugin_path != nullptr;
  if (plugin) {
    minflow::OpList added;
    MF_RETURN_IF_ERROR(minflow::LoadOpLibrary(plugin_path, &added));
  }
  // 101 points in [-2, 2] and their targets atan(x + 1).
  Tensor xs(minflow::DT_FLOAT, minflow::TensorShape({101}));
  Tensor ys(minflow::DT_FLOAT, minflow::TensorShape({101}));
  for (int i = 0; i < 101; ++i) {
    const float x = -2.0f + 0.04f * i;
    xs.flat<float>()(i) = x;
    ys.flat<float>()(i) = std::atan(x + kTrueOffset);
  }

  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), minflow::DT_FLOAT);
  auto y = ops::Placeholder(root.WithOpName("y"), minflow::DT_FLOAT);
  auto offset = ops::VarHandleOp(root.WithOpName("offset"), minflow::DT_FLOAT,
                                 minflow::PartialTensorShape({}));
  auto init = ops::AssignVariableOp(root.WithOpName("init"), offset, 0.0f);
  auto read =
      ops::ReadVariableOp(root.WithOpName("read"), offset, minflow::DT_FLOAT);
  Output prediction =
      Atan(root.WithOpName("atan"), ops::AddV2(root, x, read), plugin);
  auto loss = ops::Mean(root.WithOpName("loss"),
                        ops::Square(root, ops::Sub(root, prediction, y)), {0});
  // offset -= lr * d loss / d offset, each step.
  minflow::GradientDescentOptimizer sgd(kLearningRate);
  minflow::Operation train;
  MF_RETURN_IF_ERROR(sgd.Minimize(root, loss, {offset}, &train));

  ClientSession session(root);
  std::vector<Tensor> out;
  MF_RETURN_IF_ERROR(session.Run(ClientSession::FeedType{},
                                 std::vector<Output>{}, {init.operation},
                                 &out));
  for (int step = 1; step <= max_steps; ++step) {
    MF_RETURN_IF_ERROR(session.Run({{x, xs}, {y, ys}}, {}, {train}, &out));
    MF_RETURN_IF_ERROR(session.Run({{x, xs}, {y, ys}}, {read, loss}, &out));
    const float learned = out[0].scalar<float>()();
    if (step % 20 == 0 || std::fabs(learned - kTrueOffset) < 0.01f) {
      std::printf("step %3d: offset %.4f, loss %.6f\n", step, learned,
                  out[1].scalar<float>()());
    }
    if (std::fabs(learned - kTrueOffset) < 0.01f) {
      std::printf("learned offset %.4f (true %.1f) with %s in %d steps\n",
                  learned, kTrueOffset,
                  plugin ? "the plugin's Examples>Atan" : "the built-in Atan",
                  step);
      return minflow::OkStatus();
    }
  }
  return minflow::errors::FailedPrecondition(
      "the offset did not come within 0.01 of 1.0 in ", max_steps, " steps");
}

}  // namespace

int main(int argc, char** argv) {
  const char* plugin = nullptr;
  int max_steps = 500;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--plugin") == 0 && i + 1 < argc) {
      plugin = argv[++i];
    } else if (std::strcmp(argv[i], "--max-steps") == 0 && i + 1 < argc) {
      max_steps = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "Usage: %s [--plugin libatan.so] [--max-steps N]\n",
                   argv[0]);
      return 2;
    }
  }
  Status s = Main(plugin, max_steps);
  if (!s.ok()) {
    std::fprintf(stderr, "train_atan_offset: %s\n",
                 std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}
