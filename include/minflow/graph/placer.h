// Placement: gives every node of a graph a device, honouring requests in any
// TensorFlow form, kernel availability, colocation (`_class: loc:@node`)
// and soft placement, then inserts copies where a tensor crosses between
// host and device memory.
#pragma once

#include <ostream>
#include <vector>

#include "minflow/core/status.h"

namespace minflow {

class Device;
class Graph;

// Ops the placer inserts at memory boundaries; a device other than the CPU
// registers kernels for them (the CUDA layer does for GPU).
inline constexpr char kCopyFromHostOp[] = "_CopyFromHost";
inline constexpr char kCopyToHostOp[] = "_CopyToHost";

struct PlacerOptions {
  // When a requested device does not exist or has no kernel for the node,
  // place the node elsewhere instead of failing (ConfigProto's
  // allow_soft_placement).
  bool allow_soft_placement = false;
  // Writes one line per node, "name (Op): /job:.../device:CPU:0", here.
  std::ostream* log_device_placement = nullptr;
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
