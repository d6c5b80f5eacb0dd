// Trains the digits MLP (examples/graphs/digits_mlp.pbtxt's network) from
// random initialisation with Adam, with gradients from
// AddSymbolicGradients, and checks three things:
//   - it reads a held-out set of noisy glyphs at least as well as the
//     bundled, already trained graph does;
//   - a second run with the same seed gives bit-identical weights;
//   - a checkpoint saved halfway (SaveV2) restores (RestoreV2) into a fresh
//     session and gives the loss it had when saved.
//
// Usage: train_digits BUNDLED_GRAPH.pbtxt CHECKPOINT_DIR [--steps N]
//   (examples/graphs/digits_mlp.pbtxt; the directory must exist)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "examples/train_digits/digits_training.h"
#include "minflow/cc/framework/client_session.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/runtime/session.h"

namespace {

namespace ops = minflow::ops;
using minflow::ClientSession;
using minflow::Output;
using minflow::Scope;
using minflow::Status;
using minflow::Tensor;

constexpr uint64_t kModelSeed = 7;
constexpr uint64_t kDataSeed = 2026;
constexpr uint64_t kTestSeed = 12345;
constexpr int kBatch = 64;
constexpr int kTestSize = 2000;
constexpr float kLearningRate = 0.01f;

// A string vector tensor (the checkpoint's names and slice specs).
Tensor Strings(const std::vector<std::string>& values) {
  Tensor t(minflow::DT_STRING,
           minflow::TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) {
    t.flat<std::string>()(i) = values[i];
  }
  return t;
}

// Runs `ops` for their effects.
Status RunOps(const ClientSession& session,
              const std::vector<minflow::Operation>& ops) {
  std::vector<Tensor> out;
  return session.Run(ClientSession::FeedType{}, std::vector<Output>{}, ops,
                     &out);
}

// The share of `digits` (int64) equal to `labels` (int32).
double Accuracy(const Tensor& digits, const Tensor& labels) {
  int right = 0;
  for (int64_t i = 0; i < labels.NumElements(); ++i) {
    right += digits.flat<int64_t>()(i) == labels.flat<int32_t>()(i);
  }
  return static_cast<double>(right) / labels.NumElements();
}

struct Trained {
  std::vector<Tensor> weights;  // w1, b1, w2, b2 at the end
  double test_accuracy = 0;
  float saved_loss = 0;  // the probe batch's loss when the checkpoint was saved
};

// Trains for `steps` steps in a new graph and session, saving a checkpoint
// to `prefix` after half of them.
Status Train(int steps, const std::string& prefix, const Tensor& probe_images,
             const Tensor& probe_labels, const Tensor& test_images,
             const Tensor& test_labels, Trained* result) {
  Scope root = Scope::NewRootScope();
  digits::Model model;
  MF_RETURN_IF_ERROR(digits::BuildModel(root, kModelSeed, &model));
  MF_RETURN_IF_ERROR(digits::AddTraining(root, kLearningRate, &model));
  const Scope ckpt = root.NewSubScope("save");
  const Tensor names =
      Strings({digits::VariableNames().begin(), digits::VariableNames().end()});
  auto save =
      ops::SaveV2(ckpt, ops::Const(ckpt, prefix), ops::Const(ckpt, names),
                  ops::Const(ckpt, Strings({"", "", "", ""})),
                  minflow::InputList(model.reads));
  MF_RETURN_IF_ERROR(root.status());

  ClientSession session(root);
  std::vector<Tensor> out;
  MF_RETURN_IF_ERROR(RunOps(session, model.init));
  MF_RETURN_IF_ERROR(RunOps(session, model.train_init));
  digits::GlyphSource data(kDataSeed);
  Tensor images, labels;
  for (int step = 1; step <= steps; ++step) {
    data.Batch(kBatch, &images, &labels);
    MF_RETURN_IF_ERROR(
        session.Run({{model.images, images}, {model.labels, labels}}, {},
                    {model.train}, &out));
    if (step == steps / 2) {
      MF_RETURN_IF_ERROR(RunOps(session, {save.operation}));
      MF_RETURN_IF_ERROR(session.Run(
          {{model.images, probe_images}, {model.labels, probe_labels}},
          {model.loss}, &out));
      result->saved_loss = out[0].scalar<float>()();
    }
    if (step % 500 == 0 || step == steps) {
      MF_RETURN_IF_ERROR(session.Run(
          {{model.images, probe_images}, {model.labels, probe_labels}},
          {model.loss}, &out));
      std::printf("step %4d: loss %.4f\n", step, out[0].scalar<float>()());
    }
  }
  MF_RETURN_IF_ERROR(
      session.Run({{model.images, test_images}}, {model.digit}, &out));
  result->test_accuracy = Accuracy(out[0], test_labels);
  return session.Run({}, model.reads, &result->weights);
}

// The probe batch's loss after restoring `prefix` into a fresh graph and
// session.
Status RestoredLoss(const std::string& prefix, const Tensor& probe_images,
                    const Tensor& probe_labels, float* loss) {
  Scope root = Scope::NewRootScope();
  digits::Model model;
  MF_RETURN_IF_ERROR(digits::BuildModel(root, /*seed=*/999, &model));
  const Scope ckpt = root.NewSubScope("restore");
  const Tensor names =
      Strings({digits::VariableNames().begin(), digits::VariableNames().end()});
  auto restore =
      ops::RestoreV2(ckpt, ops::Const(ckpt, prefix), ops::Const(ckpt, names),
                     ops::Const(ckpt, Strings({"", "", "", ""})),
                     {minflow::DT_FLOAT, minflow::DT_FLOAT, minflow::DT_FLOAT,
                      minflow::DT_FLOAT});
  std::vector<minflow::Operation> assigns;
  for (size_t i = 0; i < model.handles.size(); ++i) {
    assigns.push_back(
        ops::AssignVariableOp(ckpt, model.handles[i], restore.tensors[i])
            .operation);
  }
  MF_RETURN_IF_ERROR(root.status());
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_RETURN_IF_ERROR(RunOps(session, assigns));
  MF_RETURN_IF_ERROR(
      session.Run({{model.images, probe_images}, {model.labels, probe_labels}},
                  {model.loss}, &out));
  *loss = out[0].scalar<float>()();
  return minflow::OkStatus();
}

// The largest difference between matching elements of `a` and `b`.
float MaxDifference(const std::vector<Tensor>& a,
                    const std::vector<Tensor>& b) {
  float most = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    for (int64_t k = 0; k < a[i].NumElements(); ++k) {
      most = std::max(most,
                      std::fabs(a[i].flat<float>()(k) - b[i].flat<float>()(k)));
    }
  }
  return most;
}

Status Main(const std::string& bundled_path, const std::string& dir,
            int steps) {
  Tensor probe_images, probe_labels, test_images, test_labels;
  digits::GlyphSource probe(1);
  probe.Batch(256, &probe_images, &probe_labels);
  digits::GlyphSource test(kTestSeed);
  test.Batch(kTestSize, &test_images, &test_labels);

  // The bundled graph's accuracy on the same held-out glyphs.
  minflow::GraphDef bundled;
  MF_RETURN_IF_ERROR(minflow::ReadGraphDefFile(bundled_path, &bundled));
  MF_ASSIGN_OR_RETURN(auto reference, minflow::Session::Create(
                                          bundled, minflow::SessionOptions()));
  std::vector<Tensor> out;
  MF_RETURN_IF_ERROR(reference->Run({{"x", test_images}}, {"digit"}, {}, &out));
  const double bundled_accuracy = Accuracy(out[0], test_labels);

  const std::string prefix = dir + "/digits";
  Trained first, second;
  MF_RETURN_IF_ERROR(Train(steps, prefix, probe_images, probe_labels,
                           test_images, test_labels, &first));
  std::printf("held-out accuracy: trained %.4f, bundled graph %.4f\n",
              first.test_accuracy, bundled_accuracy);
  if (first.test_accuracy < bundled_accuracy) {
    return minflow::errors::FailedPrecondition(
        "training did not reach the bundled graph's accuracy");
  }
  MF_RETURN_IF_ERROR(Train(steps, prefix + "_again", probe_images, probe_labels,
                           test_images, test_labels, &second));
  // Bit for bit: every kernel on the path adds in the same order each run
  // (the thread count and shard boundaries are fixed, and buffers that a
  // vectorised sum reads are aligned the same way every time).
  const float drift = MaxDifference(first.weights, second.weights);
  if (drift != 0 || second.test_accuracy != first.test_accuracy) {
    return minflow::errors::Internal(
        "two runs with the same seed gave different weights (by up to ", drift,
        ")");
  }
  std::printf("a second run gives bit-identical weights\n");
  float restored = 0;
  MF_RETURN_IF_ERROR(
      RestoredLoss(prefix, probe_images, probe_labels, &restored));
  std::printf("loss at the checkpoint %.6f, after restoring it %.6f\n",
              first.saved_loss, restored);
  if (restored != first.saved_loss) {
    return minflow::errors::Internal(
        "the restored checkpoint gives another loss");
  }
  std::printf("trained, reproducible and restored\n");
  return minflow::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 2000;
  if (argc == 5 && std::strcmp(argv[3], "--steps") == 0) {
    steps = std::atoi(argv[4]);
  }
  if ((argc != 3 && argc != 5) || steps < 2) {
    std::fprintf(stderr,
                 "Usage: %s BUNDLED_GRAPH.pbtxt CHECKPOINT_DIR [--steps N]\n",
                 argv[0]);
    return 2;
  }
  Status s = Main(argv[1], argv[2], steps);
  if (!s.ok()) {
    std::fprintf(stderr, "train_digits: %s\n",
                 std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}
