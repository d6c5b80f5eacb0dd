// Image ops next to a same-run reference, in the same binary:
// - ResizeBilinear, ResizeNearestNeighbor and ResizeBicubic of a
//   [1,256,256,32] float image to 512x512 (32 MiB out) against memcpy of
//   the output's bytes;
// - FusedBatchNormV3 inference on [1,128,128,64] float (4 MiB in, 4 MiB
//   out) against memcpy of the 4 MiB;
// - NonMaxSuppressionV5 over 10,000 boxes (hard and soft) against sorting
//   their 10,000 scores (the cost of ordering every candidate fully).
// Each op runs through a Session with one intra-op and one inter-op thread.
// Bytes processed count the input read and the output written once each,
// as memcpy's do. An op that ran at the reference's speed would be bound by
// memory alone.
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/substitute.h"
#include "benchmark/benchmark.h"
#include "google/protobuf/text_format.h"
#include "minflow/config.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"

namespace minflow {
namespace {

constexpr int kIn = 256;
constexpr int kOut = 512;
constexpr int kChannels = 32;
constexpr int64_t kInBytes = int64_t{kIn} * kIn * kChannels * 4;
constexpr int64_t kOutBytes = int64_t{kOut} * kOut * kChannels * 4;

GraphDef ResizeGraph(const std::string& op) {
  GraphDef graph;
  google::protobuf::TextFormat::ParseFromString(absl::Substitute(R"txt(
        node { name: "images" op: "Placeholder"
               attr { key: "dtype" value { type: DT_FLOAT } } }
        node { name: "size" op: "Const"
          attr { key: "dtype" value { type: DT_INT32 } }
          attr { key: "value" value { tensor { dtype: DT_INT32
            tensor_shape { dim { size: 2 } } int_val: $1 int_val: $1 } } } }
        node { name: "resized" op: "$0" input: "images" input: "size"
               attr { key: "T" value { type: DT_FLOAT } } })txt",
                                                                 op, kOut),
                                                &graph);
  return graph;
}

void BM_Resize(benchmark::State& state, const std::string& op) {
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(1);
  options.config.set_intra_op_parallelism_threads(1);
  auto session = Session::Create(ResizeGraph(op), options);
  if (!session.ok()) {
    return state.SkipWithError(std::string(session.status().message()).c_str());
  }
  Tensor images(DT_FLOAT, TensorShape({1, kIn, kIn, kChannels}));
  float* p = images.base<float>();
  for (int64_t i = 0; i < images.NumElements(); ++i) p[i] = (i % 251) * 0.5f;
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!(*session)->Run({{"images", images}}, {"resized"}, {}, &out).ok()) {
      return state.SkipWithError("run");
    }
    benchmark::DoNotOptimize(out[0].base<float>());
  }
  state.SetBytesProcessed(state.iterations() * (kInBytes + kOutBytes));
}
BENCHMARK_CAPTURE(BM_Resize, bilinear, std::string("ResizeBilinear"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Resize, nearest, std::string("ResizeNearestNeighbor"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Resize, bicubic, std::string("ResizeBicubic"))
    ->Unit(benchmark::kMillisecond);

// Reference: memcpy of the output's bytes.
void BM_Reference_Memcpy32MiB(benchmark::State& state) {
  std::vector<char> from(kOutBytes, 1);
  std::vector<char> to(kOutBytes, 0);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), from.size());
    benchmark::DoNotOptimize(to.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * kOutBytes);
}
BENCHMARK(BM_Reference_Memcpy32MiB)->Unit(benchmark::kMillisecond);

// ---- FusedBatchNormV3, inference

constexpr int kBnSide = 128;
constexpr int kBnChannels = 64;
constexpr int64_t kBnBytes = int64_t{kBnSide} * kBnSide * kBnChannels * 4;

GraphDef BatchNormGraph() {
  GraphDef graph;
  std::string text;
  for (const char* name : {"x", "scale", "offset", "mean", "variance"}) {
    text += absl::Substitute(
        R"txt(node { name: "$0" op: "Placeholder"
                     attr { key: "dtype" value { type: DT_FLOAT } } })txt",
        name);
  }
  text += R"txt(
      node { name: "bn" op: "FusedBatchNormV3"
             input: "x" input: "scale" input: "offset" input: "mean"
             input: "variance"
             attr { key: "T" value { type: DT_FLOAT } }
             attr { key: "U" value { type: DT_FLOAT } }
             attr { key: "is_training" value { b: false } } })txt";
  google::protobuf::TextFormat::ParseFromString(text, &graph);
  return graph;
}

void BM_FusedBatchNormV3_Inference(benchmark::State& state) {
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(1);
  options.config.set_intra_op_parallelism_threads(1);
  auto session = Session::Create(BatchNormGraph(), options);
  if (!session.ok()) {
    return state.SkipWithError(std::string(session.status().message()).c_str());
  }
  Tensor x(DT_FLOAT, TensorShape({1, kBnSide, kBnSide, kBnChannels}));
  float* p = x.base<float>();
  for (int64_t i = 0; i < x.NumElements(); ++i) p[i] = (i % 251) * 0.01f;
  std::vector<std::pair<std::string, Tensor>> feeds = {{"x", x}};
  for (const char* name : {"scale", "offset", "mean", "variance"}) {
    Tensor v(DT_FLOAT, TensorShape({kBnChannels}));
    for (int c = 0; c < kBnChannels; ++c) v.base<float>()[c] = 0.5f + c * 0.01f;
    feeds.emplace_back(name, v);
  }
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!(*session)->Run(feeds, {"bn:0"}, {}, &out).ok()) {
      return state.SkipWithError("run");
    }
    benchmark::DoNotOptimize(out[0].base<float>());
  }
  state.SetBytesProcessed(state.iterations() * 2 * kBnBytes);
}
BENCHMARK(BM_FusedBatchNormV3_Inference)->Unit(benchmark::kMicrosecond);

// Reference: memcpy of the 4 MiB the batch norm reads (and writes).
void BM_Reference_Memcpy4MiB(benchmark::State& state) {
  std::vector<char> from(kBnBytes, 1);
  std::vector<char> to(kBnBytes, 0);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), from.size());
    benchmark::DoNotOptimize(to.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * kBnBytes);
}
BENCHMARK(BM_Reference_Memcpy4MiB)->Unit(benchmark::kMicrosecond);

// ---- NonMaxSuppressionV5 over 10,000 boxes

constexpr int kNmsBoxes = 10000;

// Boxes in clusters of ten overlapping ones over a 100x100 field, with
// pseudo-random scores: most candidates are suppressed by a neighbour.
void NmsInputs(Tensor* boxes, Tensor* scores) {
  *boxes = Tensor(DT_FLOAT, TensorShape({kNmsBoxes, 4}));
  *scores = Tensor(DT_FLOAT, TensorShape({kNmsBoxes}));
  uint32_t r = 1;
  const auto next = [&r]() {
    r = r * 1664525u + 1013904223u;
    return static_cast<float>(r >> 8) / (1 << 24);
  };
  for (int i = 0; i < kNmsBoxes; ++i) {
    const int cluster = i / 10;
    const float y = (cluster % 32) * 3.0f + next() * 0.3f;
    const float x = (cluster / 32) * 3.0f + next() * 0.3f;
    float* b = boxes->base<float>() + 4 * i;
    b[0] = y;
    b[1] = x;
    b[2] = y + 2;
    b[3] = x + 2;
    scores->base<float>()[i] = next();
  }
}

GraphDef NmsGraph(int max_output, float sigma) {
  GraphDef graph;
  google::protobuf::TextFormat::ParseFromString(
      absl::Substitute(R"txt(
        node { name: "boxes" op: "Placeholder"
               attr { key: "dtype" value { type: DT_FLOAT } } }
        node { name: "scores" op: "Placeholder"
               attr { key: "dtype" value { type: DT_FLOAT } } }
        node { name: "max" op: "Const"
          attr { key: "dtype" value { type: DT_INT32 } }
          attr { key: "value" value { tensor { dtype: DT_INT32
            tensor_shape { } int_val: $0 } } } }
        node { name: "iou" op: "Const"
          attr { key: "dtype" value { type: DT_FLOAT } }
          attr { key: "value" value { tensor { dtype: DT_FLOAT
            tensor_shape { } float_val: 0.5 } } } }
        node { name: "score" op: "Const"
          attr { key: "dtype" value { type: DT_FLOAT } }
          attr { key: "value" value { tensor { dtype: DT_FLOAT
            tensor_shape { } float_val: 0.01 } } } }
        node { name: "sigma" op: "Const"
          attr { key: "dtype" value { type: DT_FLOAT } }
          attr { key: "value" value { tensor { dtype: DT_FLOAT
            tensor_shape { } float_val: $1 } } } }
        node { name: "nms" op: "NonMaxSuppressionV5"
               input: "boxes" input: "scores" input: "max" input: "iou"
               input: "score" input: "sigma"
               attr { key: "T" value { type: DT_FLOAT } } })txt",
                       max_output, sigma),
      &graph);
  return graph;
}

// Args: max_output_size, soft_nms_sigma * 10.
void BM_NonMaxSuppressionV5(benchmark::State& state) {
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(1);
  options.config.set_intra_op_parallelism_threads(1);
  auto session = Session::Create(
      NmsGraph(static_cast<int>(state.range(0)), state.range(1) / 10.0f),
      options);
  if (!session.ok()) {
    return state.SkipWithError(std::string(session.status().message()).c_str());
  }
  Tensor boxes;
  Tensor scores;
  NmsInputs(&boxes, &scores);
  std::vector<Tensor> out;
  for (auto _ : state) {
    if (!(*session)
             ->Run({{"boxes", boxes}, {"scores", scores}}, {"nms:0"}, {}, &out)
             .ok()) {
      return state.SkipWithError("run");
    }
    benchmark::DoNotOptimize(out[0].base<int32_t>());
  }
  state.counters["selected"] = static_cast<double>(out[0].NumElements());
  state.SetItemsProcessed(state.iterations() * kNmsBoxes);
}
BENCHMARK(BM_NonMaxSuppressionV5)
    ->ArgNames({"max_output", "sigma_x10"})
    ->Args({100, 0})
    ->Args({1000, 0})
    ->Args({100, 5})
    ->Args({1000, 5})
    ->Unit(benchmark::kMicrosecond);

// Reference: sorting the 10,000 scores (copied fresh each iteration).
void BM_Reference_SortScores(benchmark::State& state) {
  Tensor boxes;
  Tensor scores;
  NmsInputs(&boxes, &scores);
  const float* s = scores.base<const float>();
  std::vector<float> v;
  for (auto _ : state) {
    v.assign(s, s + kNmsBoxes);
    std::sort(v.begin(), v.end(), std::greater<float>());
    benchmark::DoNotOptimize(v.data());
  }
  state.SetItemsProcessed(state.iterations() * kNmsBoxes);
}
BENCHMARK(BM_Reference_SortScores)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
