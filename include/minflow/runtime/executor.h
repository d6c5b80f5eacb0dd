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

  // Opaque: defined in executor.cc.
  struct Impl;

 private:
  Executor();
  std::unique_ptr<Impl> impl_;
};

}  // namespace minflow
