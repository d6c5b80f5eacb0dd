// What the optimisation-pass tests share: a signature prepared through the
// graph pipeline as a session prepares it, and the pipeline's record of one
// pass.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "minflow/core/logging.h"
#include "minflow/framework/device.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/runtime/device_factory.h"
#include "minflow/runtime/session.h"

namespace minflow {
namespace test {

struct PreparedSignature {
  std::unique_ptr<GraphPipeline> pipeline;
  PreparedGraph graph;
};

// Imports and refines `graph`, then prepares the signature (feeds, fetches,
// targets) with the passes `passes` selects. CHECK-fails on an error: the
// tests' graphs are valid.
inline PreparedSignature PrepareSignature(
    const GraphDef& graph, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, const PassSelection& passes) {
  PreparedSignature p;
  MF_CHECK_OK(
      GraphPipeline::Prepare(graph, GraphPipelineOptions(), &p.pipeline));
  SignatureOptions options;
  options.passes = passes;
  MF_CHECK_OK(p.pipeline->PrepareForSignature(feeds, fetches, targets, options,
                                              &p.graph));
  return p;
}

// As PrepareSignature, placed on the devices a default session has, so that
// the post-placement passes run too.
struct PlacedSignature {
  std::vector<std::unique_ptr<Device>> devices;
  PreparedSignature prepared;
};
inline PlacedSignature PrepareSignatureOnDevices(
    const GraphDef& graph, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches, const PassSelection& passes) {
  PlacedSignature p;
  MF_CHECK_OK(CreateDevices(SessionOptions(), &p.devices));
  MF_CHECK_OK(GraphPipeline::Prepare(graph, GraphPipelineOptions(),
                                     &p.prepared.pipeline));
  SignatureOptions options;
  options.passes = passes;
  for (const auto& d : p.devices) options.devices.push_back(d.get());
  MF_CHECK_OK(p.prepared.pipeline->PrepareForSignature(
      feeds, fetches, {}, options, &p.prepared.graph));
  return p;
}

// The pipeline's record of the pass named `name`, or nullptr.
inline const GraphPassRecord* FindPassRecord(
    const std::vector<GraphPassRecord>& records, const std::string& name) {
  for (const GraphPassRecord& r : records) {
    if (r.name() == name) return &r;
  }
  return nullptr;
}

}  // namespace test
}  // namespace minflow
