// Session: runs a GraphDef. Create once, then Run with feeds, fetches and
// targets as often as needed, from any number of threads.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "minflow/config.pb.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/runtime/memory_plan.h"

namespace minflow {

class CallableOptions;
class GraphDef;
class RunMetadata;
class RunOptions;

struct SessionOptions {
  // device_count, intra/inter-op threads, allow_soft_placement,
  // log_device_placement, operation_timeout_in_ms and
  // graph_options.rewrite_options (which optimisation passes run; see
  // graph/optimization_registry.h) are honoured.
  ConfigProto config;
};

// A device as Session::ListDevices reports it.
struct DeviceInfo {
  std::string name;         // "/job:localhost/replica:0/task:0/device:CPU:0"
  std::string device_type;  // "CPU", "GPU"
  int64_t memory_limit_bytes = 0;  // 0 when unknown or unlimited
};

// Thread-safe: Run may be called concurrently; Close waits for nothing and
// makes later calls fail with Cancelled.
class Session {
 public:
  virtual ~Session() = default;

  // Imports, validates and shape-checks `graph` (one GraphDef per session).
  virtual Status Create(const GraphDef& graph) = 0;

  // Feeds `inputs` ({"name:port", tensor}; "name" means port 0), evaluates
  // `output_tensor_names` into `*outputs` (same order; a name may repeat
  // and may name a feed) and runs `target_node_names` for their effects.
  // Only what the fetches and targets need runs. Errors name the node and
  // op that failed.
  virtual Status Run(const std::vector<std::pair<std::string, Tensor>>& inputs,
                     const std::vector<std::string>& output_tensor_names,
                     const std::vector<std::string>& target_node_names,
                     std::vector<Tensor>* outputs) = 0;

  // As above; `run_options` sets a timeout (timeout_in_ms) and a trace level
  // (FULL_TRACE or SOFTWARE_TRACE fill run_metadata->step_stats). A non-null
  // `run_metadata` also gets graph_passes (what each optimisation pass did
  // to this signature's graph) and, with output_partition_graphs, the graph
  // the executor ran, each node's inferred shapes in `_output_shapes`.
  virtual Status Run(const RunOptions& run_options,
                     const std::vector<std::pair<std::string, Tensor>>& inputs,
                     const std::vector<std::string>& output_tensor_names,
                     const std::vector<std::string>& target_node_names,
                     std::vector<Tensor>* outputs,
                     RunMetadata* run_metadata) = 0;

  // A callable is one (feeds, fetches, targets) signature prepared ahead of
  // time: pruning, placement and kernel creation happen in MakeCallable, so
  // RunCallable does none of the name handling Run does per call. As in
  // TensorFlow, `callable_options.run_options` applies to every call.
  using CallableHandle = int64_t;
  virtual Status MakeCallable(const CallableOptions& callable_options,
                              CallableHandle* out_handle);
  // `feed_tensors` in the order of callable_options.feed; `*fetch_tensors`
  // gets the fetches in the order of callable_options.fetch.
  // `run_metadata` may be null.
  virtual Status RunCallable(CallableHandle handle,
                             const std::vector<Tensor>& feed_tensors,
                             std::vector<Tensor>* fetch_tensors,
                             RunMetadata* run_metadata);
  // RunCallable writing the fetches into the caller's buffers, as ONNX
  // Runtime's IoBinding with bound outputs: on entry (*fetch_buffers)[i]
  // holds a tensor of fetch i's dtype and element count; on return it
  // holds fetch i (reshaped to its shape) in that same storage. Where the
  // buffer is shared with no other tensor, the host kernel producing the
  // fetch writes it there directly; otherwise it is copied in (Note [Fetch
  // buffers] in runtime/executor.h; a string fetch's buffer is replaced,
  // its elements being objects). A buffer of another dtype or element
  // count is an InvalidArgument error naming the fetch; after any error the
  // buffers' contents are unspecified. With a memory plan (Note [Memory
  // plan]) a static graph's run then makes no host allocator calls.
  virtual Status RunCallableInto(CallableHandle handle,
                                 const std::vector<Tensor>& feed_tensors,
                                 std::vector<Tensor>* fetch_buffers,
                                 RunMetadata* run_metadata);
  virtual Status ReleaseCallable(CallableHandle handle);
  // The memory plan of the callable's signature (Note [Memory plan] in
  // src/runtime/memory_planner.h): made from its first complete run and
  // used by every run after it. MINFLOW_MEMORY_PLAN=0 in the environment
  // turns planning off for sessions created after it is set.
  virtual Status GetCallableMemoryPlan(CallableHandle handle,
                                       MemoryPlanStats* stats);

  virtual Status ListDevices(std::vector<DeviceInfo>* devices) = 0;
  virtual Status Close() = 0;

  // NewSession(options) + Create(graph) in one call.
  static StatusOr<std::unique_ptr<Session>> Create(
      const GraphDef& graph, const SessionOptions& options);
};

// A session on this process's devices (TensorFlow's DirectSession).
std::unique_ptr<Session> NewSession(const SessionOptions& options);

}  // namespace minflow
