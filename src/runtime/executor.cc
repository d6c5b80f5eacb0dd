#include "minflow/runtime/executor.h"

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "minflow/core/threadpool.h"
#include "minflow/framework/cancellation.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/subgraph.h"
#include "minflow/step_stats.pb.h"
#include "minflow/tensor_description.pb.h"

namespace minflow {
namespace {

enum class ItemKind { kKernel, kArg, kRetval };

// One consumer of a node: a data edge into input slot `dst_slot` (global
// index into the step's slot array) or a control edge (dst_slot < 0).
struct OutEdge {
  int dst_item;
  int dst_slot;
  int src_port;
  // The last data edge reading this port moves the tensor instead of
  // copying it, so the producer's reference goes away at once.
  bool last_use_of_port;
};

// Note [Executor items]
// The graph is flattened into arrays at Create: items indexed densely, each
// with its kernel, device, first input slot and out-edge range. A step owns
// only an array of input slots (Tensors) and an array of pending counts; a
// node becomes ready when its count reaches zero, and its inputs are moved
// out of the slots when it runs, so a tensor is freed as soon as its last
// consumer has run (and may then be forwarded in place: it has one owner).
struct NodeItem {
  const Node* node = nullptr;
  ItemKind kind = ItemKind::kKernel;
  int index = 0;  // for _Arg / _Retval
  std::shared_ptr<OpKernel> kernel;
  Device* device = nullptr;
  int input_start = 0;
  int num_inputs = 0;
  int num_outputs = 0;
  int out_start = 0;
  int out_count = 0;
  int initial_pending = 0;
  bool expensive = false;
  DataType arg_type = DT_INVALID;
};

}  // namespace

// The per-step arrays. A successful step leaves every slot empty (each
// input is released by the node that read it), so the arrays go back to a
// small cache and the next step skips allocating, zeroing and freeing
// O(nodes) memory.
struct StepBuffers {
  std::unique_ptr<std::atomic<int>[]> pending;
  std::vector<Tensor> slots;
};

struct Executor::Impl {
  ExecutorOptions options;
  std::unique_ptr<Graph> graph;
  std::vector<NodeItem> items;
  std::vector<OutEdge> out_edges;
  std::vector<int> roots;
  int num_slots = 0;
  int num_args = 0;
  int num_retvals = 0;

  static constexpr size_t kMaxCachedBuffers = 4;
  mutable absl::Mutex buffers_mu;
  mutable std::vector<StepBuffers> free_buffers ABSL_GUARDED_BY(buffers_mu);

  StepBuffers TakeBuffers() const {
    {
      absl::MutexLock lock(&buffers_mu);
      if (!free_buffers.empty()) {
        StepBuffers b = std::move(free_buffers.back());
        free_buffers.pop_back();
        return b;
      }
    }
    StepBuffers b;
    b.pending = std::make_unique<std::atomic<int>[]>(items.size());
    b.slots.resize(num_slots);
    return b;
  }
  void ReturnBuffers(StepBuffers b) const {
    absl::MutexLock lock(&buffers_mu);
    if (free_buffers.size() < kMaxCachedBuffers) {
      free_buffers.push_back(std::move(b));
    }
  }
};

namespace {

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Everything one step owns. Shared by the closures scheduled on the pool, so
// it outlives Run() if a timeout returns before stragglers finish.
struct StepState {
  const Executor::Impl* impl;
  Executor::Args args;
  std::atomic<int>* pending = nullptr;  // buffers.pending
  Tensor* slots = nullptr;              // buffers.slots
  StepBuffers buffers;
  std::atomic<int64_t> outstanding{0};
  std::atomic<bool> aborted{false};
  CancellationManager local_cancellation;
  CancellationManager* cancellation = nullptr;
  OpKernelContext::Runner runner;
  absl::Notification done;

  absl::Mutex mu;
  Status status ABSL_GUARDED_BY(mu);
  std::vector<Tensor> retvals ABSL_GUARDED_BY(mu);
  absl::flat_hash_map<const Device*, DeviceStepStats*> stats_by_device
      ABSL_GUARDED_BY(mu);

  void RecordError(const Status& s) {
    {
      absl::MutexLock lock(&mu);
      if (status.ok()) status = s;
    }
    if (!aborted.exchange(true)) cancellation->StartCancel();
  }
};

uint32_t CurrentThreadIdFor(const Executor::Impl* impl) {
  if (impl->options.inter_op_pool != nullptr) {
    const int id = impl->options.inter_op_pool->CurrentThreadId();
    if (id >= 0) return static_cast<uint32_t>(id + 1);
  }
  return 0;  // the calling thread
}

void RecordStats(StepState* s, const NodeItem& item, int64_t start, int64_t end,
                 OpKernelContext* ctx) {
  NodeExecStats ns;
  ns.set_node_name(item.node->name());
  ns.set_timeline_label(item.node->type_string());
  ns.set_all_start_nanos(start);
  ns.set_all_start_micros(start / 1000);
  ns.set_op_end_rel_nanos(end - start);
  ns.set_all_end_rel_nanos(end - start);
  ns.set_all_end_rel_micros((end - start) / 1000);
  ns.set_thread_id(CurrentThreadIdFor(s->impl));
  if (ctx != nullptr) {
    int64_t bytes = ctx->temp_memory_allocated();
    for (int i = 0; i < ctx->num_outputs(); ++i) {
      bytes += ctx->output_allocated_bytes(i);
      if (!ctx->has_output(i)) continue;
      const Tensor* t = ctx->mutable_output(i);
      NodeOutput* out = ns.add_output();
      out->set_slot(i);
      out->mutable_tensor_description()->set_dtype(t->dtype());
      t->shape().AsProto(out->mutable_tensor_description()->mutable_shape());
    }
    AllocatorMemoryUsed* mem = ns.add_memory();
    mem->set_allocator_name(item.device->name());
    mem->set_total_bytes(bytes);
  }
  absl::MutexLock lock(&s->mu);
  DeviceStepStats*& dev = s->stats_by_device[item.device];
  if (dev == nullptr) {
    dev = s->args.step_stats->add_dev_stats();
    dev->set_device(item.device->name());
  }
  const uint32_t tid = ns.thread_id();
  if (!dev->thread_names().contains(tid)) {
    (*dev->mutable_thread_names())[tid] =
        tid == 0 ? "caller" : absl::StrCat("inter_op_", tid - 1);
  }
  *dev->add_node_stats() = std::move(ns);
}

void RunReady(std::shared_ptr<StepState> s, absl::InlinedVector<int, 8> ready);

// Hands out a node's results to its consumers and collects the nodes that
// became ready. `output(port)` returns the node's Tensor& for that port;
// the tensors are consumed.
template <typename OutputFn>
void Propagate(StepState* s, const NodeItem& item, OutputFn output,
               absl::InlinedVector<int, 8>* ready) {
  const OutEdge* edges = s->impl->out_edges.data() + item.out_start;
  for (int i = 0; i < item.out_count; ++i) {
    const OutEdge& e = edges[i];
    if (e.dst_slot >= 0) {
      Tensor& out = output(e.src_port);
      if (e.last_use_of_port) {
        s->slots[e.dst_slot] = std::move(out);
      } else {
        s->slots[e.dst_slot] = out;
      }
    }
    if (s->pending[e.dst_item].fetch_sub(1, std::memory_order_acq_rel) == 1) {
      ready->push_back(e.dst_item);
    }
  }
}

// Runs one node; returns false if the step failed at it. Fills `ready`
// with the consumers that became ready.
void ProcessNode(StepState* s, int id, absl::InlinedVector<int, 8>* ready) {
  const Executor::Impl* impl = s->impl;
  const NodeItem& item = impl->items[id];
  if (s->aborted.load(std::memory_order_relaxed)) return;
  if (s->cancellation->IsCancelled()) {
    s->RecordError(errors::Cancelled("Step was cancelled"));
    return;
  }
  switch (item.kind) {
    case ItemKind::kArg: {
      const Tensor& fed = s->args.call_frame->args[item.index];
      if (fed.dtype() != item.arg_type) {
        s->RecordError(errors::InvalidArgument(
            "Feed ", item.index, " must be ", DataTypeString(item.arg_type),
            ", but got ", DataTypeString(fed.dtype())));
        return;
      }
      // The call frame keeps its tensor; consumers get shares.
      Tensor share = fed;
      Propagate(
          s, item, [&](int) -> Tensor& { return share; }, ready);
      return;
    }
    case ItemKind::kRetval: {
      Tensor value = std::move(s->slots[item.input_start]);
      {
        absl::MutexLock lock(&s->mu);
        s->retvals[item.index] = std::move(value);
      }
      Propagate(
          s, item, [&](int) -> Tensor& { return value; }, ready);
      return;
    }
    case ItemKind::kKernel: {
      // The kernel reads its inputs in their slots; each slot is this
      // node's alone, so a kernel may forward an input in place, and the
      // slots are emptied when it is done (Note [Executor items]).
      Tensor* inputs = s->slots + item.input_start;
      absl::InlinedVector<TensorValue, 4> values(item.num_inputs);
      for (int i = 0; i < item.num_inputs; ++i) {
        values[i] = TensorValue(&inputs[i]);
      }
      OpKernelContext::Params params;
      params.step_id = s->args.step_id;
      params.op_kernel = item.kernel.get();
      params.device = item.device;
      params.inputs = absl::MakeConstSpan(values);
      params.resource_manager = item.device->resource_manager();
      params.cancellation_manager = s->cancellation;
      params.runner = &s->runner;
      OpKernelContext ctx(&params);
      const bool collect = s->args.step_stats != nullptr;
      const int64_t start = collect ? NowNanos() : 0;
      item.device->Compute(item.kernel.get(), &ctx);
      for (int i = 0; i < item.num_inputs; ++i) inputs[i] = Tensor();
      if (collect) RecordStats(s, item, start, NowNanos(), &ctx);
      if (!ctx.status().ok()) {
        s->RecordError(errors::AttachNodeContext(
            ctx.status(), item.node->name(), item.node->type_string()));
        return;
      }
      for (int i = 0; i < item.num_outputs; ++i) {
        if (!ctx.has_output(i)) {
          s->RecordError(errors::AttachNodeContext(
              errors::Internal("Kernel did not produce output ", i),
              item.node->name(), item.node->type_string()));
          return;
        }
      }
      // Straight from the context into the consumers' slots.
      Propagate(
          s, item,
          [&](int port) -> Tensor& { return *ctx.mutable_output(port); },
          ready);
      return;
    }
  }
}

// Finishes `count` nodes; the last one to finish signals the step done.
void FinishNodes(StepState* s, int64_t count) {
  if (s->outstanding.fetch_sub(count, std::memory_order_acq_rel) == count) {
    s->done.Notify();
  }
}

// Runs `ready` and everything that becomes ready after it: cheap nodes on
// this thread, expensive ones handed to the inter-op pool (but one is kept
// here when nothing cheap is left, to save a thread hop).
void RunReady(std::shared_ptr<StepState> s, absl::InlinedVector<int, 8> ready) {
  const Executor::Impl* impl = s->impl;
  thread::ThreadPool* pool = impl->options.inter_op_pool;
  std::deque<int> inline_queue;
  auto dispatch = [&](absl::InlinedVector<int, 8>& nodes) {
    int keep = -1;
    for (int id : nodes) {
      if (pool == nullptr || !impl->items[id].expensive) {
        inline_queue.push_back(id);
      } else if (keep < 0 && inline_queue.empty()) {
        keep = id;
      } else {
        pool->Schedule([s, id] { RunReady(s, {id}); });
      }
    }
    if (keep >= 0) inline_queue.push_back(keep);
  };
  dispatch(ready);
  absl::InlinedVector<int, 8> newly_ready;
  while (!inline_queue.empty()) {
    const int id = inline_queue.front();
    inline_queue.pop_front();
    newly_ready.clear();
    ProcessNode(s.get(), id, &newly_ready);
    // Count the new nodes before finishing this one, so the total cannot
    // touch zero in between.
    if (!newly_ready.empty()) {
      s->outstanding.fetch_add(static_cast<int64_t>(newly_ready.size()),
                               std::memory_order_relaxed);
      dispatch(newly_ready);
    }
    FinishNodes(s.get(), 1);
  }
}

}  // namespace

Status CreateKernelForNode(const Node& node, Device* device,
                           int graph_def_version,
                           absl::Span<const PartialTensorShape> input_shapes,
                           std::shared_ptr<OpKernel>* kernel) {
  std::unique_ptr<OpKernel> made;
  MF_RETURN_IF_ERROR(CreateOpKernelForNode(
      device->device_type(), device, /*allocator=*/nullptr, node.shared_def(),
      &node.op_def(), node.input_types(), node.output_types(),
      graph_def_version, input_shapes, node.output_shapes(), &made));
  *kernel = std::move(made);
  return OkStatus();
}

Executor::Executor() : impl_(std::make_unique<Impl>()) {}
Executor::~Executor() = default;

const Graph& Executor::graph() const { return *impl_->graph; }
int Executor::num_nodes() const {
  return static_cast<int>(impl_->items.size());
}

Status Executor::Create(const ExecutorOptions& options,
                        std::unique_ptr<Graph> graph,
                        std::unique_ptr<Executor>* executor) {
  std::unique_ptr<Executor> exec(new Executor());
  Impl& impl = *exec->impl_;
  impl.options = options;
  absl::flat_hash_map<std::string, Device*> devices;
  for (Device* d : options.devices) devices[d->name()] = d;

  std::vector<Node*> order;
  MF_RETURN_IF_ERROR(TopologicalOrder(*graph, &order));
  std::vector<int> item_of(graph->num_node_ids(), -1);
  impl.items.resize(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    Node* n = order[i];
    item_of[n->id()] = static_cast<int>(i);
    NodeItem& item = impl.items[i];
    item.node = n;
    item.num_inputs = n->num_inputs();
    item.num_outputs = n->num_outputs();
    item.input_start = impl.num_slots;
    impl.num_slots += item.num_inputs;
    auto it = devices.find(n->assigned_device_name());
    if (it == devices.end()) {
      return errors::AttachNodeContext(
          errors::Internal("Node is assigned to unknown device '",
                           n->assigned_device_name(), "'"),
          n->name(), n->type_string());
    }
    item.device = it->second;
    if (n->type_string() == kArgOp || n->type_string() == kRetvalOp) {
      int64_t index = 0;
      MF_RETURN_IF_ERROR(GetNodeAttr(AttrSlice(n->def()), "index", &index));
      item.index = static_cast<int>(index);
      if (n->type_string() == kArgOp) {
        item.kind = ItemKind::kArg;
        item.arg_type = n->output_type(0);
        impl.num_args = std::max(impl.num_args, item.index + 1);
      } else {
        item.kind = ItemKind::kRetval;
        impl.num_retvals = std::max(impl.num_retvals, item.index + 1);
      }
      continue;
    }
    // The shapes the graph pipeline inferred, for the kernel's constructor.
    std::vector<PartialTensorShape> input_shapes;
    if (!n->output_shapes().empty() || n->num_outputs() == 0) {
      input_shapes.resize(n->num_inputs());
      for (const Edge* e : n->in_edges()) {
        if (!e->IsControlEdge()) {
          input_shapes[e->dst_input] = e->src->output_shape(e->src_output);
        }
      }
    }
    const int version = graph->versions().producer();
    Status s = options.create_kernel
                   ? options.create_kernel(*n, item.device, version,
                                           input_shapes, &item.kernel)
                   : CreateKernelForNode(*n, item.device, version, input_shapes,
                                         &item.kernel);
    if (!s.ok()) {
      return errors::AttachNodeContext(s, n->name(), n->type_string());
    }
    item.expensive = item.kernel->IsExpensive();
  }

  for (size_t i = 0; i < order.size(); ++i) {
    NodeItem& item = impl.items[i];
    const Node* n = item.node;
    item.initial_pending = static_cast<int>(n->in_edges().size());
    if (item.initial_pending == 0) impl.roots.push_back(static_cast<int>(i));
    item.out_start = static_cast<int>(impl.out_edges.size());
    std::vector<int> last_edge_of_port(item.num_outputs, -1);
    for (const Edge* e : n->out_edges()) {
      const NodeItem& dst = impl.items[item_of[e->dst->id()]];
      OutEdge out;
      out.dst_item = item_of[e->dst->id()];
      out.dst_slot = e->IsControlEdge() ? -1 : dst.input_start + e->dst_input;
      out.src_port = e->src_output;
      out.last_use_of_port = false;
      if (!e->IsControlEdge()) {
        last_edge_of_port[e->src_output] =
            static_cast<int>(impl.out_edges.size());
      }
      impl.out_edges.push_back(out);
    }
    for (int edge : last_edge_of_port) {
      if (edge >= 0) impl.out_edges[edge].last_use_of_port = true;
    }
    item.out_count = static_cast<int>(impl.out_edges.size()) - item.out_start;
  }
  impl.graph = std::move(graph);
  *executor = std::move(exec);
  return OkStatus();
}

Status Executor::Run(const Args& args) const {
  const Impl& impl = *impl_;
  CallFrame* frame = args.call_frame;
  if (frame == nullptr && (impl.num_args > 0 || impl.num_retvals > 0)) {
    return errors::InvalidArgument("Executor::Run needs a call frame");
  }
  if (frame != nullptr &&
      static_cast<int>(frame->args.size()) < impl.num_args) {
    return errors::InvalidArgument("The graph reads ", impl.num_args,
                                   " feeds, but ", frame->args.size(),
                                   " were given");
  }
  if (impl.items.empty()) return OkStatus();

  auto s = std::make_shared<StepState>();
  s->impl = &impl;
  s->args = args;
  s->cancellation = args.cancellation_manager != nullptr
                        ? args.cancellation_manager
                        : &s->local_cancellation;
  s->buffers = impl.TakeBuffers();
  s->pending = s->buffers.pending.get();
  s->slots = s->buffers.slots.data();
  for (size_t i = 0; i < impl.items.size(); ++i) {
    s->pending[i].store(impl.items[i].initial_pending,
                        std::memory_order_relaxed);
  }
  {
    absl::MutexLock lock(&s->mu);
    s->retvals.resize(impl.num_retvals);
  }
  thread::ThreadPool* pool = impl.options.inter_op_pool;
  if (pool != nullptr) {
    s->runner = [pool](std::function<void()> fn) {
      pool->Schedule(std::move(fn));
    };
  } else {
    s->runner = [](std::function<void()> fn) { fn(); };
  }
  // A user cancellation reaches kernels through the step's manager; the
  // executor notices it before each node.
  s->outstanding.store(static_cast<int64_t>(impl.roots.size()));
  absl::InlinedVector<int, 8> roots(impl.roots.begin(), impl.roots.end());
  if (args.timeout_ms <= 0) {
    // The caller runs the first nodes itself: no hand-off for small graphs.
    RunReady(s, std::move(roots));
  } else if (pool != nullptr) {
    // With a deadline the caller must stay free to watch the clock.
    pool->Schedule([s, roots] { RunReady(s, roots); });
  } else {
    std::thread([s, roots] { RunReady(s, roots); }).detach();
  }

  if (args.timeout_ms > 0) {
    if (!s->done.WaitForNotificationWithTimeout(
            absl::Milliseconds(args.timeout_ms))) {
      s->RecordError(errors::DeadlineExceeded("Step timed out after ",
                                              args.timeout_ms, " ms"));
      // Kernels see the cancellation; wait for those running to stop so
      // nothing outlives the executor.
      s->done.WaitForNotification();
    }
  } else {
    s->done.WaitForNotification();
  }
  Status status;
  std::vector<Tensor> retvals;
  {
    absl::MutexLock lock(&s->mu);
    status = s->status;
    if (status.ok()) retvals = std::move(s->retvals);
  }
  if (!status.ok()) return status;
  // Every node has finished touching the step's arrays once `done` fired,
  // so they need no lock (and take none while holding the step's).
  impl.ReturnBuffers(std::move(s->buffers));
  if (frame != nullptr) frame->retvals = std::move(retvals);
  return OkStatus();
}

}  // namespace minflow
