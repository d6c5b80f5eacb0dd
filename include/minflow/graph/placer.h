// Placement: gives every node of a graph a device, honouring requests in any
// TensorFlow form, kernel availability, colocation (`_class: loc:@node`)
// and soft placement, then inserts copies where a tensor crosses between
// host and device memory.
#pragma once

#include <memory>
#include <ostream>
#include <vector>

#include "minflow/core/status.h"

namespace minflow {

class Device;
class Graph;
class NodeDef;

// Ops the placer inserts at memory boundaries; a device other than the CPU
// registers kernels for them (the CUDA layer does for GPU).
inline constexpr char kCopyFromHostOp[] = "_CopyFromHost";
inline constexpr char kCopyToHostOp[] = "_CopyToHost";

// Remembers each node's candidate devices (those its request and kernels
// allow) by NodeDef: the same NodeDef placed again on the same devices with
// the same options has the same candidates. A session keeps one for all
// its signatures, whose graphs share the NodeDefs of one base graph.
// Holds the NodeDefs it has seen. Not thread-safe: one placement at a time
// (a session prepares its signatures under its lock).
class PlacementCache {
 public:
  PlacementCache();
  ~PlacementCache();
  PlacementCache(const PlacementCache&) = delete;
  PlacementCache& operator=(const PlacementCache&) = delete;

  // Null when `def` was not seen yet.
  const std::vector<Device*>* Find(const NodeDef* def) const;
  const std::vector<Device*>* Insert(std::shared_ptr<const NodeDef> def,
                                     std::vector<Device*> candidates);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct PlacerOptions {
  // When a requested device does not exist or has no kernel for the node,
  // place the node elsewhere instead of failing (ConfigProto's
  // allow_soft_placement).
  bool allow_soft_placement = false;
  // Writes one line per node, "name (Op): /job:.../device:CPU:0", here.
  std::ostream* log_device_placement = nullptr;
  // Optional; must be used with the same devices and options every time.
  PlacementCache* cache = nullptr;
};

// `devices` in order of preference (the session lists accelerators first, as
// TensorFlow does); devices[i]->device_type() "CPU" is the host. Nodes
// without a request go to the most preferred device with a kernel. `_Arg`
// and `_Retval` (the Run call's endpoints) stay on the host.
// InvalidArgument naming the node and op, the request, and the devices
// that exist, when a request cannot be met.
Status PlaceGraph(const std::vector<Device*>& devices,
                  const PlacerOptions& options, Graph* graph);

}  // namespace minflow
