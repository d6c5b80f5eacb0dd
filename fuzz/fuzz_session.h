// Shared by the graph fuzzers: runs a GraphDef the way `minflow run` does,
// in a small single-threaded session with a step timeout, and checks only
// that whatever happens is a Status. Memory is capped through the host
// allocator's limit so that a fuzzed Fill or Range fails cleanly instead of
// exhausting libFuzzer's RSS limit.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "minflow/config.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "minflow/step_stats.pb.h"  // RunMetadata's step stats

namespace minflow {
namespace fuzzing {

// Call from LLVMFuzzerInitialize, before anything allocates a tensor.
inline void LimitHostMemory() {
  setenv("MINFLOW_CPU_MEMORY_LIMIT", "268435456", /*overwrite=*/1);  // 256 MiB
}

// Creates a session over `graph` and, when that succeeds, runs `fetches`
// with `feeds`. Returns the first error, or OK with the outputs in
// `*outputs`.
inline Status RunGraph(const GraphDef& graph,
                       const std::vector<std::pair<std::string, Tensor>>& feeds,
                       const std::vector<std::string>& fetches,
                       std::vector<Tensor>* outputs) {
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(1);
  options.config.set_intra_op_parallelism_threads(1);
  auto session = Session::Create(graph, options);
  if (!session.ok()) return session.status();
  RunOptions run_options;
  run_options.set_timeout_in_ms(2000);
  RunMetadata metadata;
  Status s =
      (*session)->Run(run_options, feeds, fetches, {}, outputs, &metadata);
  Status closed = (*session)->Close();
  return s.ok() ? closed : s;
}

}  // namespace fuzzing
}  // namespace minflow
