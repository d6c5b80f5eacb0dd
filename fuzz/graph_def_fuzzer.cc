// Arbitrary bytes as a GraphDef (binary or text, told apart as `minflow run`
// does) through `minflow validate`'s collecting import and refinement, then
// import, shape refinement, placement and a small run:
// Placeholders are fed tensors of their declared dtype and shape (unknown
// dims 1), and every node nothing consumes is fetched. Any Status is fine;
// crashes, sanitizer reports, hangs and leaks are not, and neither is the
// collecting pipeline (import and refinement) disagreeing with the
// fail-fast one about whether the graph has an error.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "fuzz/fuzz_session.h"
#include "minflow/attr_value.pb.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/framework/op.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/graph/tensor_id.h"
#include "minflow/node_def.pb.h"

namespace minflow {
namespace {

constexpr int kMaxNodes = 256;
constexpr int64_t kMaxFeedElements = 4096;

// A zero tensor for a Placeholder, or nothing when its attrs make no sense
// (then the session reports the missing feed).
bool FeedFor(const NodeDef& node, Tensor* out) {
  const auto dtype = node.attr().find("dtype");
  if (dtype == node.attr().end()) return false;
  const DataType type = dtype->second.type();
  if (!DataTypeCanUseMemcpy(type) || type == DT_INVALID) return false;
  std::vector<int64_t> dims;
  const auto shape = node.attr().find("shape");
  if (shape != node.attr().end() && !shape->second.shape().unknown_rank()) {
    for (const auto& d : shape->second.shape().dim()) {
      dims.push_back(d.size() < 0 ? 1 : d.size());
    }
  }
  TensorShape tensor_shape;
  if (!TensorShape::BuildTensorShape(dims, &tensor_shape).ok() ||
      tensor_shape.num_elements() > kMaxFeedElements) {
    return false;
  }
  auto t = Tensor::Allocate(cpu_allocator(), type, tensor_shape);
  if (!t.ok()) return false;
  if (t->TotalBytes() > 0) std::memset(t->data(), 0, t->TotalBytes());
  *out = std::move(*t);
  return true;
}

}  // namespace
}  // namespace minflow

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  minflow::fuzzing::LimitHostMemory();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace minflow;
  GraphDef graph;
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (!ParseGraphDef(bytes, &graph).ok()) return 0;
  if (graph.node_size() > kMaxNodes) return 0;

  // What `minflow validate` does, checked against the fail-fast pipeline
  // Session::Create uses: one fails exactly when the other finds an error.
  {
    std::vector<Status> errors;
    GraphPipelineOptions collecting;
    collecting.errors = &errors;
    std::unique_ptr<GraphPipeline> collected;
    (void)GraphPipeline::Prepare(graph, collecting, &collected);
    std::unique_ptr<GraphPipeline> strict;
    const bool strict_ok =
        GraphPipeline::Prepare(graph, GraphPipelineOptions(), &strict).ok();
    if (strict_ok != errors.empty()) __builtin_trap();
  }

  absl::flat_hash_set<std::string> consumed;
  for (const NodeDef& n : graph.node()) {
    for (const std::string& in : n.input()) {
      TensorIdView id;
      if (ParseNodeInput(in, &id).ok() && !id.IsControl()) {
        consumed.insert(std::string(id.node));
      }
    }
  }
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
  for (const NodeDef& n : graph.node()) {
    Tensor t;
    if (n.op() == "Placeholder" && FeedFor(n, &t)) {
      feeds.emplace_back(n.name(), std::move(t));
    }
    if (!consumed.contains(n.name())) fetches.push_back(n.name());
  }
  std::vector<Tensor> outputs;
  (void)fuzzing::RunGraph(graph, feeds, fetches, &outputs);
  return 0;
}
