// Graph optimisation passes and their registry. A pass rewrites a Graph in
// place between the feed/fetch rewrite and the executor; passes are grouped
// in phases (before placement, after placement) and run in a fixed order
// within each. Every registered pass has a name (what --disable and
// RewriterConfig.optimizers use), a switch in RewriterConfig where
// TensorFlow has one, and a statement of what it preserves. The graph
// pipeline (graph_pipeline.h) runs them and records what each changed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "minflow/config.pb.h"
#include "minflow/core/status.h"
#include "minflow/rewriter_config.pb.h"

namespace minflow {

class Device;
class Graph;

enum class OptimizationPhase {
  kPrePlacement = 0,   // nodes have no devices yet
  kPostPlacement = 1,  // every node has its device; copies are inserted
};
const char* OptimizationPhaseName(OptimizationPhase phase);

// What a pass may read besides the graph.
struct GraphOptimizationContext {
  // Nodes the pass must keep, by name: the signature's _Arg and _Retval
  // nodes and its targets.
  absl::flat_hash_set<std::string> preserved_nodes;
  // The devices nodes are placed on (post-placement passes), in order of
  // preference; empty before placement or when the graph is not placed.
  std::vector<Device*> devices;
  RewriterConfig rewriter;
};

// The nodes a pass must not remove: `context.preserved_nodes`, and every
// node another node names in its colocation attr (`_class: loc:@name`),
// which placement looks up.
absl::flat_hash_set<std::string> NodesToKeep(
    const GraphOptimizationContext& context, const Graph& graph);

class GraphOptimizationPass {
 public:
  virtual ~GraphOptimizationPass() = default;
  // Lower-case with underscores, as RewriterConfig spells its options
  // ("constant_folding").
  virtual absl::string_view name() const = 0;
  // One sentence: what every run of the pass leaves unchanged.
  virtual absl::string_view preserves() const = 0;
  // Whether `config` turns the pass on (TensorFlow's toggle for it, where
  // it has one; DEFAULT means on).
  virtual bool EnabledBy(const RewriterConfig& config) const { return true; }
  // Rewrites `graph`. An error fails the signature being prepared, so a
  // pass that cannot handle a node leaves it alone instead.
  virtual Status Run(const GraphOptimizationContext& context,
                     Graph* graph) const = 0;
};

// Which passes run: RewriterConfig (disable_meta_optimizer, optimizers, the
// toggles), then the names in `disabled`.
struct PassSelection {
  RewriterConfig rewriter;
  std::vector<std::string> disabled;
};

class OptimizationPassRegistry {
 public:
  struct Entry {
    OptimizationPhase phase;
    int order;  // within the phase, lower first
    std::unique_ptr<GraphOptimizationPass> pass;
  };

  // Holds the passes REGISTER_GRAPH_OPTIMIZATION registers.
  static OptimizationPassRegistry* Global();

  // A second pass with a name already registered is refused (CHECKed:
  // registrations are minflow's own code).
  void Register(OptimizationPhase phase, int order,
                std::unique_ptr<GraphOptimizationPass> pass);

  // Every pass, in the order they run (phase, order, name).
  std::vector<const Entry*> Passes() const;
  const Entry* Find(absl::string_view name) const;

  // Whether `entry` runs under `selection`. InvalidArgument, listing the
  // registered names, when the selection names a pass that does not exist.
  Status CheckSelection(const PassSelection& selection) const;
  static bool Selected(const Entry& entry, const PassSelection& selection);

  // Runs the selected passes of `phase` in order on `graph`, appending one
  // record per pass of the phase (run or switched off). Errors name the
  // pass.
  Status RunPhase(OptimizationPhase phase,
                  const GraphOptimizationContext& context,
                  const PassSelection& selection, Graph* graph,
                  std::vector<GraphPassRecord>* records) const;

 private:
  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
};

namespace internal {
struct PassRegistrar {
  PassRegistrar(OptimizationPhase phase, int order,
                std::unique_ptr<GraphOptimizationPass> pass) {
    OptimizationPassRegistry::Global()->Register(phase, order, std::move(pass));
  }
};
}  // namespace internal

// REGISTER_GRAPH_OPTIMIZATION(kPrePlacement, 10, ConstantFoldingPass);
#define REGISTER_GRAPH_OPTIMIZATION(phase, order, PassClass) \
  MF_REGISTER_GRAPH_OPTIMIZATION_UNIQ(__COUNTER__, phase, order, PassClass)
#define MF_REGISTER_GRAPH_OPTIMIZATION_UNIQ(ctr, phase, order, PassClass) \
  MF_REGISTER_GRAPH_OPTIMIZATION_IMPL(ctr, phase, order, PassClass)
#define MF_REGISTER_GRAPH_OPTIMIZATION_IMPL(ctr, phase, order, PassClass) \
  static ::minflow::internal::PassRegistrar mf_graph_pass_##ctr(          \
      ::minflow::OptimizationPhase::phase, order,                         \
      std::make_unique<PassClass>())

}  // namespace minflow
