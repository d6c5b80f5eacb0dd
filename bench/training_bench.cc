// One training step of the digits MLP (examples/train_digits: 35-32-10,
// ReLU, sparse softmax cross-entropy, Adam) at batch 64, against the
// forward pass alone on the same graph and batch.
//
//   TrainStepOverForward   a training step (forward, AddSymbolicGradients'
//                          backward pass and four ResourceApplyAdam) and a
//                          forward run of the loss, alternately in every
//                          benchmark iteration so both see the same
//                          machine: x_forward is their ratio (goal <= 3.5).
#include <chrono>
#include <vector>

#include "benchmark/benchmark.h"
#include "examples/train_digits/digits_training.h"
#include "minflow/cc/framework/client_session.h"

namespace minflow {
namespace {

void BM_TrainStepOverForward(benchmark::State& state) {
  Scope root = Scope::NewRootScope();
  digits::Model model;
  Status built = digits::BuildModel(root, /*seed=*/7, &model);
  if (built.ok()) built = digits::AddTraining(root, 0.001f, &model);
  if (!built.ok())
    return state.SkipWithError(std::string(built.message()).c_str());
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(1);
  options.config.set_intra_op_parallelism_threads(1);
  ClientSession session(root, options);
  std::vector<Tensor> out;
  Tensor images, labels;
  digits::GlyphSource data(1);
  data.Batch(64, &images, &labels);
  const ClientSession::FeedType none;
  if (!session.Run(none, {}, model.init, &out).ok() ||
      !session.Run(none, {}, model.train_init, &out).ok()) {
    return state.SkipWithError("init");
  }
  const ClientSession::FeedType feeds = {{model.images, images},
                                         {model.labels, labels}};
  // Warm both signatures up (the session builds one executor per
  // signature on its first run).
  if (!session.Run(feeds, {}, {model.train}, &out).ok() ||
      !session.Run(feeds, {model.loss}, &out).ok()) {
    return state.SkipWithError("run");
  }
  using Clock = std::chrono::steady_clock;
  double train_seconds = 0;
  double forward_seconds = 0;
  for (auto _ : state) {
    const Clock::time_point start = Clock::now();
    if (!session.Run(feeds, {}, {model.train}, &out).ok()) {
      return state.SkipWithError("train");
    }
    const Clock::time_point middle = Clock::now();
    if (!session.Run(feeds, {model.loss}, &out).ok()) {
      return state.SkipWithError("forward");
    }
    train_seconds += std::chrono::duration<double>(middle - start).count();
    forward_seconds +=
        std::chrono::duration<double>(Clock::now() - middle).count();
  }
  state.counters["train_step"] = benchmark::Counter(
      train_seconds / state.iterations(), benchmark::Counter::kDefaults);
  state.counters["forward"] = benchmark::Counter(
      forward_seconds / state.iterations(), benchmark::Counter::kDefaults);
  state.counters["x_forward"] = train_seconds / forward_seconds;
}
BENCHMARK(BM_TrainStepOverForward)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace minflow
BENCHMARK_MAIN();
