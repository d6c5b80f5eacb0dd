// Executor: runs every node of a placed graph once per call, in dependency
// order, on the inter-op pool. Kernels are created once, in Create, and
// shared by concurrent calls.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/runtime/memory_plan.h"

namespace minflow {

class CancellationManager;
class Device;
class Graph;
class Node;
class OpKernel;
class StepStats;
namespace thread {
class ThreadPool;
}

// A call's tensors by position: `_Arg` node i reads args[i]; `_Retval` node
// j writes retvals[j].
struct CallFrame {
  std::vector<Tensor> args;
  std::vector<Tensor> retvals;
  // Optional, by retval: buffers the caller wants the fetches in.
  //
  // Note [Fetch buffers]
  // ~~~~~~~~~~~~~~~~~~~~
  // When the host kernel producing fetch j allocates that output and
  // retval_buffers[j] holds a tensor of its dtype and element count that
  // nothing else shares, the output is written over that buffer (Note
  // [Recycled outputs] in op_kernel.cc; the kernel then does not forward an
  // input there instead), and the entry is left empty. Otherwise the entry
  // is left as it was, and Session::RunCallableInto copies the fetch in.
  // Either way no new output buffer is needed.
  std::vector<Tensor> retval_buffers;
};

// Makes the kernel of `node` for `device`. `input_shapes` are what shape
// inference gave the node's inputs (empty when the graph was not refined).
using CreateKernelFn = std::function<Status(
    const Node& node, Device* device, int graph_def_version,
    absl::Span<const PartialTensorShape> input_shapes,
    std::shared_ptr<OpKernel>* kernel)>;

// The default CreateKernelFn: a new kernel through CreateOpKernelForNode,
// sharing the node's NodeDef.
Status CreateKernelForNode(const Node& node, Device* device,
                           int graph_def_version,
                           absl::Span<const PartialTensorShape> input_shapes,
                           std::shared_ptr<OpKernel>* kernel);

struct ExecutorOptions {
  // Every device a node may be assigned to (by name).
  std::vector<Device*> devices;
  // Runs expensive kernels; null runs every node on the calling thread.
  thread::ThreadPool* inter_op_pool = nullptr;
  // Null means CreateKernelForNode. A session passes one that shares
  // kernels between its signatures (a kernel is immutable once made).
  CreateKernelFn create_kernel;
  // Lay out the host device's allocations from the first complete step
  // and serve later steps from that arena (Note [Memory plan] in
  // src/runtime/memory_planner.h).
  bool plan_memory = false;
};

// Thread-safe after Create: Run may be called concurrently.
class Executor {
 public:
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Takes a graph whose nodes all have assigned devices among
  // options.devices; creates every kernel. Errors from kernel lookup or a
  // kernel's constructor name the node and op.
  static Status Create(const ExecutorOptions& options,
                       std::unique_ptr<Graph> graph,
                       std::unique_ptr<Executor>* executor);

  struct Args {
    int64_t step_id = 0;
    CallFrame* call_frame = nullptr;
    // Optional: cancelling it aborts the step with Cancelled.
    CancellationManager* cancellation_manager = nullptr;
    // 0: no limit. Past it the step is cancelled and DeadlineExceeded
    // returned once running kernels have stopped.
    int64_t timeout_ms = 0;
    // Optional: receives one NodeExecStats per node run, per device.
    StepStats* step_stats = nullptr;
    // Every node runs on the calling thread, none on the inter-op pool
    // (TensorFlow's RunOptions.inter_op_thread_pool = -1): no thread hop,
    // for small graphs run once.
    bool run_inline = false;
  };

  // Runs one step. Returns the first error, with the failing node and op
  // attached ("[[{{node n}} = Op]]"); nodes not yet started are skipped.
  Status Run(const Args& args) const;

  const Graph& graph() const;
  int num_nodes() const;
  // The memory plan so far (or why there is none).
  MemoryPlanStats memory_plan_stats() const;

  // Opaque: defined in executor.cc.
  struct Impl;

 private:
  Executor();
  std::unique_ptr<Impl> impl_;
};

}  // namespace minflow
