// Checkpoint I/O building blocks: CRC32C over a restore's bytes, against a
// memcpy of the same bytes in the same run.
#include <cstring>
#include <vector>

#include "benchmark/benchmark.h"
#include "minflow/io/crc32c.h"

namespace minflow {
namespace {

std::vector<char> Bytes(size_t n) {
  std::vector<char> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>(i * 131 + 7);
  return bytes;
}

void BM_Crc32c(benchmark::State& state) {
  const std::vector<char> bytes = Bytes(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(crc32c::Value(bytes.data(), bytes.size()));
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Crc32c)->Arg(4 << 10)->Arg(4 << 20);

void BM_Crc32cPortable(benchmark::State& state) {
  const std::vector<char> bytes = Bytes(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        crc32c::ExtendPortable(0, bytes.data(), bytes.size()));
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Crc32cPortable)->Arg(4 << 10)->Arg(4 << 20);

void BM_Reference_Memcpy(benchmark::State& state) {
  const std::vector<char> bytes = Bytes(state.range(0));
  std::vector<char> copy(bytes.size());
  for (auto _ : state) {
    std::memcpy(copy.data(), bytes.data(), bytes.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Reference_Memcpy)->Arg(4 << 10)->Arg(4 << 20);

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
