// The in-process Session: imports and refines the GraphDef once (a
// GraphPipeline), and for every distinct (feeds, fetches, targets)
// signature builds and caches an executor over a rewritten, pruned,
// optimised and placed copy of that graph.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "minflow/config.pb.h"
#include "minflow/core/threadpool.h"
#include "minflow/framework/device.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/graph/placer.h"
#include "minflow/graph/subgraph.h"
#include "minflow/runtime/device_factory.h"
#include "minflow/runtime/executor.h"
#include "minflow/runtime/session.h"
#include "minflow/step_stats.pb.h"
#include "src/runtime/captured_step.h"

namespace minflow {
namespace {

bool MemoryPlanningOn() {
  const char* value = std::getenv("MINFLOW_MEMORY_PLAN");
  return value == nullptr || std::string(value) != "0";
}

class DirectSession final : public Session {
 public:
  explicit DirectSession(const SessionOptions& options)
      : options_(options), plan_memory_(MemoryPlanningOn()) {}
  ~DirectSession() override = default;

  Status Create(const GraphDef& graph) override;
  Status Run(const std::vector<std::pair<std::string, Tensor>>& inputs,
             const std::vector<std::string>& output_tensor_names,
             const std::vector<std::string>& target_node_names,
             std::vector<Tensor>* outputs) override;
  Status Run(const RunOptions& run_options,
             const std::vector<std::pair<std::string, Tensor>>& inputs,
             const std::vector<std::string>& output_tensor_names,
             const std::vector<std::string>& target_node_names,
             std::vector<Tensor>* outputs, RunMetadata* run_metadata) override;
  Status MakeCallable(const CallableOptions& callable_options,
                      CallableHandle* out_handle) override;
  Status RunCallable(CallableHandle handle,
                     const std::vector<Tensor>& feed_tensors,
                     std::vector<Tensor>* fetch_tensors,
                     RunMetadata* run_metadata) override;
  Status RunCallableInto(CallableHandle handle,
                         const std::vector<Tensor>& feed_tensors,
                         std::vector<Tensor>* fetch_buffers,
                         RunMetadata* run_metadata) override;
  Status ReleaseCallable(CallableHandle handle) override;
  Status GetCallableMemoryPlan(CallableHandle handle,
                               MemoryPlanStats* stats) override;
  Status ListDevices(std::vector<DeviceInfo>* devices) override;
  Status Close() override;

 private:
  // A capturable signature's recording, made on its second run.
  struct CaptureState {
    AcceleratorDevice* device = nullptr;
    absl::Mutex mu;
    int64_t runs ABSL_GUARDED_BY(mu) = 0;
    // The capture failed (the run went through the executor): never again.
    bool failed ABSL_GUARDED_BY(mu) = false;
    std::unique_ptr<CapturedStep> step ABSL_GUARDED_BY(mu);
  };
  // What one signature needs, built once.
  struct CallSignature {
    std::unique_ptr<Executor> executor;
    // Per feed, the node and port fed (in the pipeline's graph), to check
    // dtype and shape.
    std::vector<const Node*> feed_nodes;
    std::vector<int> feed_ports;
    // What the optimisation passes did to this signature's graph.
    std::vector<GraphPassRecord> passes;
    // Set when the session captures steps and this signature's graph may be
    // captured (Note [Captured steps]).
    std::unique_ptr<CaptureState> capture;
  };

  Status GetOrCreateSignature(const std::vector<std::string>& feeds,
                              const std::vector<std::string>& fetches,
                              const std::vector<std::string>& targets,
                              const CallSignature** signature);
  Status CheckFeed(const std::string& name, const Node* node, int port,
                   const Tensor& value) const;
  Status CheckRunnable() const;
  // Runs the signature through its recording where it has one, or makes
  // one; `*ran` says whether it did (else the executor must run the step).
  Status RunCaptured(const CallSignature& sig,
                     const std::vector<Tensor>& feed_tensors,
                     std::vector<Tensor>* outputs, bool* ran);
  Status RunExecutor(const CallSignature& sig, const RunOptions& run_options,
                     CallFrame* frame, StepStats* stats);
  // Checks the feeds and runs the signature's executor: what Run and
  // RunCallable share. `fetch_buffers`, when given, go to the executor as
  // CallFrame::retval_buffers and come back with those it did not use.
  Status RunSignature(const CallSignature& sig, const RunOptions& run_options,
                      const std::vector<std::string>& feed_names,
                      const std::vector<Tensor>& feed_tensors,
                      std::vector<Tensor>* outputs, RunMetadata* run_metadata,
                      std::vector<Tensor>* fetch_buffers = nullptr);

  struct Callable {
    const CallSignature* signature;
    std::vector<std::string> feed_names;
    std::vector<std::string> fetch_names;
    RunOptions run_options;
  };
  // The callable, and (when `feed_tensors` is given) a check of their
  // count.
  StatusOr<std::shared_ptr<const Callable>> FindCallable(
      CallableHandle handle, const std::vector<Tensor>* feed_tensors);

  const SessionOptions options_;
  // Note [Memory plan]; MINFLOW_MEMORY_PLAN=0 turns it off.
  const bool plan_memory_;
  std::vector<std::unique_ptr<Device>> devices_;
  // The devices whose kernels run asynchronously, synced after each step.
  std::vector<Device*> accelerator_devices_;
  std::vector<Device*> device_ptrs_;
  std::unique_ptr<thread::ThreadPool> inter_op_pool_;
  // The imported, refined graph every signature starts from.
  std::unique_ptr<GraphPipeline> pipeline_;
  // Placement shared by the signatures (their graphs share the pipeline
  // graph's NodeDefs); used under mu_.
  PlacementCache placement_cache_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> created_{false};
  std::atomic<bool> closed_{false};
  std::atomic<int64_t> step_id_{0};

  // Note [Kernels shared by signatures]
  // Every copy of the pipeline's graph shares its nodes' NodeDefs, so the
  // same node in two signatures has the same NodeDef object, and gets the
  // same kernel (kernels are immutable once made; TensorFlow shares its
  // stateful ones between executors the same way). A stateless node whose
  // inputs' shapes differ (a pass changed what feeds it) gets a kernel of
  // its own; a stateful one never does.
  // The entry holds the NodeDef, so its address is never reused.
  struct CachedKernel {
    std::shared_ptr<const NodeDef> def;
    std::vector<PartialTensorShape> input_shapes;
    std::shared_ptr<OpKernel> kernel;
  };
  Status GetOrCreateKernel(const Node& node, Device* device,
                           int graph_def_version,
                           absl::Span<const PartialTensorShape> input_shapes,
                           std::shared_ptr<OpKernel>* kernel)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Shared by every step that may enqueue on an accelerator's stream while
  // the session captures steps; exclusive while one is being recorded
  // (Note [Captured steps]).
  absl::Mutex capture_mu_;

  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<CallSignature>> signatures_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::pair<const NodeDef*, const Device*>, CachedKernel>
      kernels_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<CallableHandle, std::shared_ptr<const Callable>>
      callables_ ABSL_GUARDED_BY(mu_);
  CallableHandle next_callable_ ABSL_GUARDED_BY(mu_) = 0;
};

Status DirectSession::Create(const GraphDef& graph) {
  if (created_.exchange(true)) {
    return errors::AlreadyExists("Session::Create was already called");
  }
  const ConfigProto& config = options_.config;
  if (config.inter_op_parallelism_threads() < 0) {
    return errors::InvalidArgument(
        "inter_op_parallelism_threads must be >= 0, but got ",
        config.inter_op_parallelism_threads());
  }
  MF_RETURN_IF_ERROR(CreateDevices(options_, &devices_));
  for (auto& d : devices_) {
    device_ptrs_.push_back(d.get());
    if (d->device_type() != DEVICE_CPU) accelerator_devices_.push_back(d.get());
  }
  const int inter_op = config.inter_op_parallelism_threads() == 0
                           ? thread::DefaultNumThreads()
                           : config.inter_op_parallelism_threads();
  // With one inter-op thread every node runs on the caller: no hand-offs.
  if (inter_op > 1) {
    inter_op_pool_ = std::make_unique<thread::ThreadPool>("inter_op", inter_op);
  }
  // Shape errors surface at Create, naming the node, as in TensorFlow.
  return GraphPipeline::Prepare(graph, GraphPipelineOptions(), &pipeline_);
}

Status DirectSession::CheckFeed(const std::string& name, const Node* node,
                                int port, const Tensor& value) const {
  const DataType expected = BaseType(node->output_type(port));
  if (value.dtype() != expected) {
    return errors::InvalidArgument(
        "Feed '", name, "' must be ", DataTypeString(expected), ", but got ",
        DataTypeString(value.dtype()), " (node ", node->name(), ", op ",
        node->type_string(), ")");
  }
  PartialTensorShape shape;
  if (node->IsPlaceholder() &&
      GetNodeAttr(AttrSlice(node->def()), "shape", &shape).ok() &&
      !shape.IsCompatibleWith(value.shape())) {
    return errors::InvalidArgument(
        "Feed '", name, "' has shape ", value.shape().DebugString(),
        ", which is not compatible with the shape ", shape.DebugString(),
        " of Placeholder ", node->name());
  }
  // The passes and kernels were given the refined shape of every tensor
  // (TensorFlow's Python client refuses such a feed the same way).
  if (port < static_cast<int>(node->output_shapes().size()) &&
      !node->output_shapes()[port].IsCompatibleWith(value.shape())) {
    return errors::InvalidArgument(
        "Feed '", name, "' has shape ", value.shape().DebugString(),
        ", which is not compatible with the shape ",
        node->output_shapes()[port].DebugString(), " inferred for output ",
        port, " of node ", node->name(), " (op ", node->type_string(), ")");
  }
  return OkStatus();
}

Status DirectSession::GetOrCreateSignature(
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, const CallSignature** signature) {
  const std::string key =
      absl::StrCat(absl::StrJoin(feeds, ","), "|", absl::StrJoin(fetches, ","),
                   "|", absl::StrJoin(targets, ","));
  absl::MutexLock lock(&mu_);
  auto it = signatures_.find(key);
  if (it != signatures_.end()) {
    *signature = it->second.get();
    return OkStatus();
  }
  auto sig = std::make_unique<CallSignature>();
  SignatureOptions prepare;
  prepare.devices = device_ptrs_;
  prepare.allow_soft_placement = options_.config.allow_soft_placement();
  if (options_.config.log_device_placement()) {
    prepare.log_device_placement = &std::cerr;
  }
  prepare.passes.rewriter = options_.config.graph_options().rewrite_options();
  prepare.placement_cache = &placement_cache_;
  PreparedGraph prepared;
  MF_RETURN_IF_ERROR(pipeline_->PrepareForSignature(feeds, fetches, targets,
                                                    prepare, &prepared));
  sig->feed_nodes = std::move(prepared.feed_nodes);
  sig->feed_ports = std::move(prepared.feed_ports);
  sig->passes = std::move(prepared.passes);
  ExecutorOptions exec_options;
  exec_options.devices = device_ptrs_;
  exec_options.inter_op_pool = inter_op_pool_.get();
  exec_options.plan_memory = plan_memory_;
  exec_options.create_kernel =
      [this](const Node& node, Device* device, int graph_def_version,
             absl::Span<const PartialTensorShape> input_shapes,
             std::shared_ptr<OpKernel>* kernel) {
        return GetOrCreateKernel(node, device, graph_def_version, input_shapes,
                                 kernel);
      };
  MF_RETURN_IF_ERROR(Executor::Create(exec_options, std::move(prepared.graph),
                                      &sig->executor));
  if (options_.config.gpu_options().experimental().use_cuda_graphs()) {
    StatusOr<AcceleratorDevice*> device =
        FindCaptureDevice(sig->executor->graph(), device_ptrs_);
    if (device.ok()) {
      sig->capture = std::make_unique<CaptureState>();
      sig->capture->device = *device;
    } else if (options_.config.log_device_placement()) {
      std::cerr << device.status().message() << "\n";
    }
  }
  *signature = sig.get();
  signatures_[key] = std::move(sig);
  return OkStatus();
}

// See Note [Kernels shared by signatures].
Status DirectSession::GetOrCreateKernel(
    const Node& node, Device* device, int graph_def_version,
    absl::Span<const PartialTensorShape> input_shapes,
    std::shared_ptr<OpKernel>* kernel) {
  // Called by Executor::Create from GetOrCreateSignature, which holds mu_.
  mu_.AssertHeld();
  const auto key = std::make_pair(node.shared_def().get(),
                                  static_cast<const Device*>(device));
  // A stateful kernel (a seeded random op's generator, a queue) is one per
  // node whatever feeds it, or a second signature would restart its state;
  // it is built without input shapes, so it cannot depend on them.
  const bool stateful = node.op_def().is_stateful();
  std::vector<PartialTensorShape> unknown_shapes;
  if (stateful) {
    unknown_shapes.resize(input_shapes.size());
    input_shapes = unknown_shapes;
  }
  auto it = kernels_.find(key);
  if (it != kernels_.end() &&
      it->second.input_shapes.size() == input_shapes.size() &&
      std::equal(input_shapes.begin(), input_shapes.end(),
                 it->second.input_shapes.begin(),
                 [](const PartialTensorShape& a, const PartialTensorShape& b) {
                   return a.IsIdenticalTo(b);
                 })) {
    *kernel = it->second.kernel;
    return OkStatus();
  }
  MF_RETURN_IF_ERROR(CreateKernelForNode(node, device, graph_def_version,
                                         input_shapes, kernel));
  kernels_[key] = CachedKernel{
      node.shared_def(),
      std::vector<PartialTensorShape>(input_shapes.begin(), input_shapes.end()),
      *kernel};
  return OkStatus();
}

Status DirectSession::Run(
    const std::vector<std::pair<std::string, Tensor>>& inputs,
    const std::vector<std::string>& output_tensor_names,
    const std::vector<std::string>& target_node_names,
    std::vector<Tensor>* outputs) {
  return Run(RunOptions(), inputs, output_tensor_names, target_node_names,
             outputs, nullptr);
}

Status DirectSession::CheckRunnable() const {
  if (closed_.load()) return errors::Cancelled("Session has been closed");
  if (!created_.load() || pipeline_ == nullptr) {
    return errors::FailedPrecondition(
        "Session::Run called before a successful Session::Create");
  }
  return OkStatus();
}

Status DirectSession::Run(
    const RunOptions& run_options,
    const std::vector<std::pair<std::string, Tensor>>& inputs,
    const std::vector<std::string>& output_tensor_names,
    const std::vector<std::string>& target_node_names,
    std::vector<Tensor>* outputs, RunMetadata* run_metadata) {
  MF_RETURN_IF_ERROR(CheckRunnable());
  if (output_tensor_names.empty() && target_node_names.empty()) {
    return errors::InvalidArgument(
        "Must specify at least one target to fetch or execute.");
  }
  std::vector<std::string> feed_names;
  std::vector<Tensor> feed_tensors;
  feed_names.reserve(inputs.size());
  feed_tensors.reserve(inputs.size());
  for (const auto& [name, tensor] : inputs) {
    feed_names.push_back(name);
    feed_tensors.push_back(tensor);
  }
  const CallSignature* sig = nullptr;
  MF_RETURN_IF_ERROR(GetOrCreateSignature(feed_names, output_tensor_names,
                                          target_node_names, &sig));
  return RunSignature(*sig, run_options, feed_names, feed_tensors, outputs,
                      run_metadata);
}

Status DirectSession::RunSignature(const CallSignature& sig,
                                   const RunOptions& run_options,
                                   const std::vector<std::string>& feed_names,
                                   const std::vector<Tensor>& feed_tensors,
                                   std::vector<Tensor>* outputs,
                                   RunMetadata* run_metadata,
                                   std::vector<Tensor>* fetch_buffers) {
  CallFrame frame;
  if (fetch_buffers != nullptr)
    frame.retval_buffers = std::move(*fetch_buffers);
  frame.args.reserve(feed_tensors.size());
  for (size_t i = 0; i < feed_tensors.size(); ++i) {
    if (i < sig.feed_nodes.size()) {
      MF_RETURN_IF_ERROR(CheckFeed(feed_names[i], sig.feed_nodes[i],
                                   sig.feed_ports[i], feed_tensors[i]));
    }
    frame.args.push_back(feed_tensors[i]);
  }
  // As TensorFlow: -1 is the caller's thread; minflow has one inter-op pool
  // per session, index 0 (session_inter_op_thread_pool is not supported).
  const int32_t pool_index = run_options.inter_op_thread_pool();
  if (pool_index != 0 && pool_index != -1) {
    return errors::InvalidArgument(
        "Invalid inter_op_thread_pool: ", pool_index,
        " (minflow has the session's pool, 0, and the caller's thread, -1)");
  }
  StepStats stats;
  const bool trace = run_metadata != nullptr &&
                     run_options.trace_level() != RunOptions::NO_TRACE;
  bool captured = false;
  if (sig.capture != nullptr && !trace) {
    MF_RETURN_IF_ERROR(RunCaptured(sig, frame.args, outputs, &captured));
  }
  if (!captured) {
    MF_RETURN_IF_ERROR(
        RunExecutor(sig, run_options, &frame, trace ? &stats : nullptr));
    if (outputs != nullptr) *outputs = std::move(frame.retvals);
  }
  if (fetch_buffers != nullptr)
    *fetch_buffers = std::move(frame.retval_buffers);
  if (trace) *run_metadata->mutable_step_stats() = std::move(stats);
  if (run_metadata != nullptr) {
    run_metadata->mutable_graph_passes()->Assign(sig.passes.begin(),
                                                 sig.passes.end());
    // The graph the executor ran, with the shapes its kernels were given.
    if (run_options.output_partition_graphs()) {
      sig.executor->graph().ToGraphDef(run_metadata->add_partition_graphs(),
                                       /*add_shapes=*/true);
    }
  }
  return OkStatus();
}

Status DirectSession::RunExecutor(const CallSignature& sig,
                                  const RunOptions& run_options,
                                  CallFrame* frame, StepStats* stats) {
  const int32_t pool_index = run_options.inter_op_thread_pool();
  Executor::Args args;
  args.run_inline = pool_index == -1;
  args.step_id = step_id_.fetch_add(1);
  args.call_frame = frame;
  args.timeout_ms = run_options.timeout_in_ms() > 0
                        ? run_options.timeout_in_ms()
                        : options_.config.operation_timeout_in_ms();
  args.step_stats = stats;
  // While this session captures steps, none may enqueue during a capture.
  std::optional<absl::ReaderMutexLock> no_capture;
  if (options_.config.gpu_options().experimental().use_cuda_graphs()) {
    no_capture.emplace(&capture_mu_);
  }
  const Status ran = sig.executor->Run(args);
  // Accelerator kernels only enqueue work (Note [Accelerator streams]): the
  // step ends when their streams are drained, and an error raised on a
  // stream after its last copy to the host is reported here.
  Status synced;
  for (Device* device : accelerator_devices_) synced.Update(device->Sync());
  MF_RETURN_IF_ERROR(ran);
  return synced;
}

// See Note [Captured steps]. The first run of a signature goes through the
// executor (it does the lazy set-up, which capture must not record); the
// second is recorded; the rest launch the recording when their feeds have
// the recorded shapes, and run uncaptured otherwise.
Status DirectSession::RunCaptured(const CallSignature& sig,
                                  const std::vector<Tensor>& feed_tensors,
                                  std::vector<Tensor>* outputs, bool* ran) {
  CaptureState& capture = *sig.capture;
  *ran = false;
  // One captured run of a signature at a time: they share staging buffers.
  absl::MutexLock lock(&capture.mu);
  if (capture.step != nullptr) {
    if (!capture.step->Matches(feed_tensors)) return OkStatus();
    absl::ReaderMutexLock no_capture(&capture_mu_);
    *ran = true;
    return capture.step->Replay(feed_tensors, outputs);
  }
  if (capture.failed || capture.runs++ == 0) return OkStatus();
  absl::WriterMutexLock capturing(&capture_mu_);
  auto run = [&](const std::vector<Tensor>& staged_feeds,
                 std::vector<Tensor>* fetched) -> Status {
    CallFrame frame;
    frame.args = staged_feeds;
    Executor::Args args;
    args.step_id = step_id_.fetch_add(1);
    args.call_frame = &frame;
    MF_RETURN_IF_ERROR(sig.executor->Run(args));
    *fetched = std::move(frame.retvals);
    return OkStatus();
  };
  const Status made = CapturedStep::Capture(capture.device, run, feed_tensors,
                                            &capture.step, outputs);
  if (!made.ok()) {
    // Nothing ran: the caller runs this step through the executor, which
    // reports the error again if the step itself is wrong.
    capture.failed = true;
    capture.step.reset();
    if (options_.config.log_device_placement()) {
      std::cerr << "Step not captured on " << capture.device->name() << ": "
                << made.message() << "\n";
    }
    return OkStatus();
  }
  *ran = true;
  return OkStatus();
}

Status DirectSession::MakeCallable(const CallableOptions& callable_options,
                                   CallableHandle* out_handle) {
  MF_RETURN_IF_ERROR(CheckRunnable());
  if (out_handle == nullptr) {
    return errors::InvalidArgument("MakeCallable: out_handle is null");
  }
  if (callable_options.fetch().empty() && callable_options.target().empty()) {
    return errors::InvalidArgument(
        "Must specify at least one target to fetch or execute.");
  }
  if (callable_options.tensor_connection_size() > 0) {
    return errors::Unimplemented(
        "CallableOptions.tensor_connection is not supported");
  }
  auto callable = std::make_shared<Callable>();
  callable->feed_names.assign(callable_options.feed().begin(),
                              callable_options.feed().end());
  callable->fetch_names.assign(callable_options.fetch().begin(),
                               callable_options.fetch().end());
  const std::vector<std::string> fetches(callable_options.fetch().begin(),
                                         callable_options.fetch().end());
  const std::vector<std::string> targets(callable_options.target().begin(),
                                         callable_options.target().end());
  MF_RETURN_IF_ERROR(GetOrCreateSignature(callable->feed_names, fetches,
                                          targets, &callable->signature));
  callable->run_options = callable_options.run_options();
  absl::MutexLock lock(&mu_);
  *out_handle = next_callable_++;
  callables_[*out_handle] = std::move(callable);
  return OkStatus();
}

StatusOr<std::shared_ptr<const DirectSession::Callable>>
DirectSession::FindCallable(CallableHandle handle,
                            const std::vector<Tensor>* feed_tensors) {
  MF_RETURN_IF_ERROR(CheckRunnable());
  std::shared_ptr<const Callable> callable;
  {
    absl::MutexLock lock(&mu_);
    auto it = callables_.find(handle);
    if (it == callables_.end()) {
      return errors::InvalidArgument("No such callable handle: ", handle);
    }
    callable = it->second;
  }
  if (feed_tensors != nullptr &&
      feed_tensors->size() != callable->feed_names.size()) {
    return errors::InvalidArgument(
        "Callable expects ", callable->feed_names.size(), " feed tensors (",
        absl::StrJoin(callable->feed_names, ", "), "), but got ",
        feed_tensors->size());
  }
  return callable;
}

Status DirectSession::RunCallable(CallableHandle handle,
                                  const std::vector<Tensor>& feed_tensors,
                                  std::vector<Tensor>* fetch_tensors,
                                  RunMetadata* run_metadata) {
  MF_ASSIGN_OR_RETURN(std::shared_ptr<const Callable> callable,
                      FindCallable(handle, &feed_tensors));
  return RunSignature(*callable->signature, callable->run_options,
                      callable->feed_names, feed_tensors, fetch_tensors,
                      run_metadata);
}

// See Note [Fetch buffers] in runtime/executor.h: the executor hands back
// the buffers no kernel wrote into, and the fetches are copied into those.
Status DirectSession::RunCallableInto(CallableHandle handle,
                                      const std::vector<Tensor>& feed_tensors,
                                      std::vector<Tensor>* fetch_buffers,
                                      RunMetadata* run_metadata) {
  MF_ASSIGN_OR_RETURN(std::shared_ptr<const Callable> callable,
                      FindCallable(handle, &feed_tensors));
  if (fetch_buffers == nullptr ||
      fetch_buffers->size() != callable->fetch_names.size()) {
    return errors::InvalidArgument(
        "RunCallableInto needs one buffer per fetch (",
        callable->fetch_names.size(), "), but got ",
        fetch_buffers == nullptr ? 0 : fetch_buffers->size());
  }
  std::vector<Tensor> buffers = std::move(*fetch_buffers);
  std::vector<Tensor> fetched;
  MF_RETURN_IF_ERROR(RunSignature(*callable->signature, callable->run_options,
                                  callable->feed_names, feed_tensors, &fetched,
                                  run_metadata, &buffers));
  for (size_t i = 0; i < buffers.size(); ++i) {
    Tensor& buffer = buffers[i];
    if (buffer.data() == nullptr) continue;  // written in place, or none
    const Tensor& value = fetched[i];
    if (buffer.dtype() != value.dtype() ||
        buffer.NumElements() != value.NumElements()) {
      return errors::InvalidArgument(
          "The buffer for fetch '", callable->fetch_names[i], "' must be ",
          DataTypeString(value.dtype()), " with ", value.NumElements(),
          " elements to hold ", value.shape().DebugString(), ", but got ",
          DataTypeString(buffer.dtype()), " ", buffer.shape().DebugString());
    }
    if (DataTypeCanUseMemcpy(value.dtype())) {
      if (value.TotalBytes() > 0 && !buffer.SharesBufferWith(value)) {
        std::memcpy(buffer.data(), value.data(), value.TotalBytes());
      }
    } else {
      // Strings and other objects: element by element, through a flat
      // copy of the same dtype.
      Tensor copy = value.DeepCopy();
      buffer = std::move(copy);
    }
    Tensor reshaped;
    const bool same_count = reshaped.CopyFrom(buffer, value.shape());
    MF_CHECK(same_count);  // compared above
    fetched[i] = std::move(reshaped);
  }
  *fetch_buffers = std::move(fetched);
  return OkStatus();
}

Status DirectSession::GetCallableMemoryPlan(CallableHandle handle,
                                            MemoryPlanStats* stats) {
  if (stats == nullptr) {
    return errors::InvalidArgument("GetCallableMemoryPlan: stats is null");
  }
  MF_ASSIGN_OR_RETURN(std::shared_ptr<const Callable> callable,
                      FindCallable(handle, nullptr));
  *stats = callable->signature->executor->memory_plan_stats();
  return OkStatus();
}

Status DirectSession::ReleaseCallable(CallableHandle handle) {
  absl::MutexLock lock(&mu_);
  if (callables_.erase(handle) == 0) {
    return errors::InvalidArgument("No such callable handle: ", handle);
  }
  return OkStatus();
}

Status DirectSession::ListDevices(std::vector<DeviceInfo>* devices) {
  devices->clear();
  for (const Device* d : device_ptrs_) {
    devices->push_back({d->name(), d->device_type(), 0});
  }
  return OkStatus();
}

Status DirectSession::Close() {
  closed_.store(true);
  return OkStatus();
}

}  // namespace

Status Session::MakeCallable(const CallableOptions&, CallableHandle*) {
  return errors::Unimplemented("This session does not support callables");
}

Status Session::RunCallable(CallableHandle, const std::vector<Tensor>&,
                            std::vector<Tensor>*, RunMetadata*) {
  return errors::Unimplemented("This session does not support callables");
}

Status Session::RunCallableInto(CallableHandle, const std::vector<Tensor>&,
                                std::vector<Tensor>*, RunMetadata*) {
  return errors::Unimplemented("This session does not support callables");
}

Status Session::GetCallableMemoryPlan(CallableHandle, MemoryPlanStats*) {
  return errors::Unimplemented("This session has no memory plans");
}

Status Session::ReleaseCallable(CallableHandle) {
  return errors::Unimplemented("This session does not support callables");
}

std::unique_ptr<Session> NewSession(const SessionOptions& options) {
  return std::make_unique<DirectSession>(options);
}

StatusOr<std::unique_ptr<Session>> Session::Create(
    const GraphDef& graph, const SessionOptions& options) {
  std::unique_ptr<Session> session = NewSession(options);
  MF_RETURN_IF_ERROR(session->Create(graph));
  return session;
}

}  // namespace minflow
