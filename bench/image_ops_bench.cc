// Image resizing next to memcpy of the same bytes, in the same binary:
// ResizeBilinear, ResizeNearestNeighbor and ResizeBicubic of a
// [1,256,256,32] float image to 512x512 (32 MiB out), each through a
// Session with one intra-op and one inter-op thread. Bytes processed count
// the input read and the output written once each, as memcpy's do; the
// reference copies the output's bytes (one thread). A resize that ran at
// the reference's speed would be bound by memory alone.
#include <cstring>
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

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
