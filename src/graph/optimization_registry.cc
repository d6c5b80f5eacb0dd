#include "minflow/graph/optimization_registry.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "minflow/core/logging.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"

namespace minflow {

absl::flat_hash_set<std::string> NodesToKeep(
    const GraphOptimizationContext& context, const Graph& graph) {
  absl::flat_hash_set<std::string> keep = context.preserved_nodes;
  for (const Node* n : graph.nodes()) {
    std::vector<std::string> classes;
    if (!TryGetNodeAttr(AttrSlice(n->def()), kColocationAttrName, &classes)) {
      continue;
    }
    for (const std::string& c : classes) {
      if (absl::StartsWith(c, kColocationGroupPrefix)) {
        keep.insert(c.substr(sizeof(kColocationGroupPrefix) - 1));
      }
    }
  }
  return keep;
}

const char* OptimizationPhaseName(OptimizationPhase phase) {
  switch (phase) {
    case OptimizationPhase::kPrePlacement:
      return "pre_placement";
    case OptimizationPhase::kPostPlacement:
      return "post_placement";
  }
  return "unknown";
}

OptimizationPassRegistry* OptimizationPassRegistry::Global() {
  static auto* registry = new OptimizationPassRegistry;
  return registry;
}

void OptimizationPassRegistry::Register(
    OptimizationPhase phase, int order,
    std::unique_ptr<GraphOptimizationPass> pass) {
  MF_CHECK(pass != nullptr);
  absl::MutexLock lock(&mu_);
  for (const auto& e : entries_) {
    MF_CHECK(e->pass->name() != pass->name())
        << "graph optimisation pass '" << pass->name() << "' registered twice";
  }
  entries_.push_back(
      std::make_unique<Entry>(Entry{phase, order, std::move(pass)}));
}

std::vector<const OptimizationPassRegistry::Entry*>
OptimizationPassRegistry::Passes() const {
  std::vector<const Entry*> result;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& e : entries_) result.push_back(e.get());
  }
  std::sort(result.begin(), result.end(), [](const Entry* a, const Entry* b) {
    if (a->phase != b->phase) return a->phase < b->phase;
    if (a->order != b->order) return a->order < b->order;
    return a->pass->name() < b->pass->name();
  });
  return result;
}

const OptimizationPassRegistry::Entry* OptimizationPassRegistry::Find(
    absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  for (const auto& e : entries_) {
    if (e->pass->name() == name) return e.get();
  }
  return nullptr;
}

Status OptimizationPassRegistry::CheckSelection(
    const PassSelection& selection) const {
  std::vector<std::string> unknown;
  for (const std::string& name : selection.disabled) {
    if (Find(name) == nullptr) unknown.push_back(name);
  }
  for (const std::string& name : selection.rewriter.optimizers()) {
    if (Find(name) == nullptr) unknown.push_back(name);
  }
  if (unknown.empty()) return OkStatus();
  std::vector<std::string> known;
  for (const Entry* e : Passes()) known.emplace_back(e->pass->name());
  return errors::InvalidArgument(
      "Unknown graph optimisation pass", unknown.size() > 1 ? "es" : "", " '",
      absl::StrJoin(unknown, "', '"), "'; the passes are: ",
      known.empty() ? "(none)" : absl::StrJoin(known, ", "));
}

bool OptimizationPassRegistry::Selected(const Entry& entry,
                                        const PassSelection& selection) {
  const RewriterConfig& config = selection.rewriter;
  const absl::string_view name = entry.pass->name();
  if (config.disable_meta_optimizer()) return false;
  for (const std::string& off : selection.disabled) {
    if (off == name) return false;
  }
  if (!config.optimizers().empty()) {
    return std::find(config.optimizers().begin(), config.optimizers().end(),
                     name) != config.optimizers().end();
  }
  return entry.pass->EnabledBy(config);
}

Status OptimizationPassRegistry::RunPhase(
    OptimizationPhase phase, const GraphOptimizationContext& context,
    const PassSelection& selection, Graph* graph,
    std::vector<GraphPassRecord>* records) const {
  for (const Entry* entry : Passes()) {
    if (entry->phase != phase) continue;
    GraphPassRecord record;
    record.set_name(std::string(entry->pass->name()));
    record.set_phase(OptimizationPhaseName(phase));
    if (Selected(*entry, selection)) {
      record.set_ran(true);
      record.set_nodes_before(graph->num_nodes());
      record.set_edges_before(graph->num_edges());
      const auto start = std::chrono::steady_clock::now();
      const Status s = entry->pass->Run(context, graph);
      record.set_duration_us(
          std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::steady_clock::now() - start)
              .count());
      if (!s.ok()) {
        return errors::Prefix(s, "Graph optimisation pass '",
                              entry->pass->name(), "' failed: ");
      }
      record.set_nodes_after(graph->num_nodes());
      record.set_edges_after(graph->num_edges());
    }
    if (records != nullptr) records->push_back(std::move(record));
  }
  return OkStatus();
}

}  // namespace minflow
