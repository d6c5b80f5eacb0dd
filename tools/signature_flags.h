// What `minflow optimize` and `minflow dot --optimized` share: the flags
// naming a signature (feeds, fetches, targets) and the passes to turn off,
// and preparing a graph for that signature through the graph pipeline
// exactly as a Session does.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "minflow/core/status.h"
#include "minflow/framework/device.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_pipeline.h"

namespace minflow {
namespace tools {

struct SignatureFlags {
  std::vector<std::string> feeds;  // tensor names; "NAME=VALUE" keeps NAME
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  std::vector<std::string> disabled_passes;
  bool allow_soft_placement = false;
};

// Consumes `arg` (and the value after it, advancing `*i`) when it is one of
// --feed, --fetch, --target, --disable (each "--flag V" or "--flag=V") or
// --allow-soft-placement. Returns false for any other argument;
// InvalidArgument for a flag without its value.
StatusOr<bool> ParseSignatureFlag(const std::vector<std::string>& args,
                                  size_t* i, SignatureFlags* flags);

// The help paragraph for those flags.
void PrintSignatureFlagsHelp(std::ostream& os);

// Imports and refines `graph_def`, then prepares it for the flags'
// signature (without fetches or targets: the outputs nothing consumes)
// with every optimisation pass not disabled, placed on this process's
// devices (created into `*devices`, which must outlive `*prepared`).
// `*pipeline` keeps the refined graph the prepared one came from.
Status PrepareSignature(GraphDef graph_def, const SignatureFlags& flags,
                        std::vector<std::unique_ptr<Device>>* devices,
                        std::unique_ptr<GraphPipeline>* pipeline,
                        PreparedGraph* prepared);

// One line per pass: "pass NAME (PHASE): N -> M nodes, T ms" or "... off".
void PrintPassRecords(const std::vector<GraphPassRecord>& records,
                      std::ostream& os);

}  // namespace tools
}  // namespace minflow
