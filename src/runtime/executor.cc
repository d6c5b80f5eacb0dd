#include "minflow/runtime/executor.h"

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "minflow/core/threadpool.h"
#include "minflow/framework/cancellation.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/step_container.h"
#include "minflow/graph/control_flow.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/subgraph.h"
#include "minflow/step_stats.pb.h"
#include "minflow/tensor_description.pb.h"
#include "src/runtime/memory_planner.h"

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
  // A Const's value: handed out without running the kernel (Note
  // [Constants without a context]).
  const Tensor* const_value = nullptr;
  DataType arg_type = DT_INVALID;
  // Control flow (Note [Control flow]): unused when the graph has none.
  int frame = 0;         // the node's static frame
  int local_id = 0;      // index among its frame's items
  int enter_frame = -1;  // the frame an Enter leads into
  bool is_merge = false;
  bool is_switch = false;
  bool is_enter = false;
  bool is_constant_enter = false;
  bool is_exit = false;
  bool is_next_iteration = false;
  bool is_control_trigger = false;
  std::string fetch_name;  // a _Retval's fetched tensor, for errors
  // (output port, retval index) of each output fetched as it is: a caller's
  // buffer for that fetch may become the output (Note [Fetch buffers]).
  std::vector<std::pair<int, int>> fetched_ports;
};

// A static frame: what each of its dynamic instances starts from.
struct FrameInfo {
  FrameDesc desc;
  std::vector<int> initial_pending;  // by local id
  int num_slots = 0;
  std::vector<int> exits;  // items of its Exit nodes
};

struct IterationState;

// A node that is ready to run. `iter` is null when the graph has no
// control flow (the step's own arrays hold its inputs); `dead` only
// arises with control flow.
struct TaggedNode {
  int item;
  bool dead;
  IterationState* iter;
};
using ReadyList = absl::InlinedVector<TaggedNode, 8>;

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
  ~Impl() {
    if (planner != nullptr) planner->Unref();
  }
  ExecutorOptions options;
  std::unique_ptr<Graph> graph;
  std::vector<NodeItem> items;
  std::vector<OutEdge> out_edges;
  std::vector<int> roots;
  bool has_control_flow = false;
  std::vector<FrameInfo> frames;  // [0] is the root frame
  int num_slots = 0;
  int num_args = 0;
  int num_retvals = 0;
  // Host memory planned from a recorded step (Note [Memory plan]): for the
  // nodes on `planned_device`. Null when off or the graph has control flow.
  MemoryPlanner* planner = nullptr;
  const Device* planned_device = nullptr;
  std::string no_plan_reason;

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

// Note [Control flow]
// With TF1 control flow a tensor may be dead: Switch produces only the
// output its predicate picks, and the other is dead. A node with a dead
// input (data or control) does not run and its outputs are dead, except a
// Merge, which runs on its first live data input and is dead only when all
// of them are; ControlTrigger's outputs are never dead. Loops are frames
// (Note [Frames] in graph/control_flow.h): every instance of a frame has
// its own iterations, each with its own pending counts and input slots, so
// one node runs once per iteration. Enter starts the child frame's
// instance (iteration 0; an is_constant Enter's value reaches every
// iteration), NextIteration hands its value to the next iteration, making
// it if needed (at most parallel_iterations are alive: the rest wait), and
// Exit hands its value out to the parent. Iterations end in order, when
// nothing of theirs is ready or running and no child frame of theirs is
// alive; a frame ends when all Enters have arrived and its last iteration
// has ended. An Exit that never received a live value then passes a dead
// one out. Dead NextIterations stop the loop. All of this state is under
// one lock per step (StepState::cf_mu); kernels run outside it. A dead
// tensor, and an empty slot, is a tensor of DT_INVALID: no live tensor has
// that type.

// Made once: slots are reset to these after every node, and a bufferless
// tensor is cheaper to copy than to construct.
const Tensor& DeadTensor() {
  static const Tensor* const dead = new Tensor(DT_INVALID);
  return *dead;
}
const Tensor& EmptySlot(bool control_flow) {
  static const Tensor* const empty = new Tensor();
  return control_flow ? DeadTensor() : *empty;
}
bool IsDead(const Tensor& t) { return t.dtype() == DT_INVALID; }

struct FrameState;

struct IterationState {
  FrameState* frame = nullptr;
  int64_t iter = 0;
  std::vector<int> pending;     // by local id; see Activate for a Merge's
  std::vector<int> dead_count;  // dead inputs so far, by local id
  std::vector<Tensor> slots;    // input slots, by local slot
  int outstanding_ops = 0;      // nodes ready or running
  int outstanding_frames = 0;   // child frame instances alive
  // Child frame instances this iteration started, by static frame.
  absl::flat_hash_map<int, std::unique_ptr<FrameState>> children;
};

struct FrameState {
  int frame_id = 0;
  const FrameInfo* info = nullptr;
  FrameState* parent = nullptr;
  IterationState* parent_iter = nullptr;
  int num_pending_inputs = 0;   // Enters still to arrive
  int64_t iteration_count = 0;  // the newest iteration started
  int num_outstanding_iterations = 0;
  int64_t first_iter = 0;  // the oldest iteration alive
  std::deque<std::unique_ptr<IterationState>> iterations;
  std::vector<std::unique_ptr<IterationState>> spare;  // for reuse
  // is_constant Enters' values (uninitialized when dead), by Enter item.
  std::vector<std::pair<int, Tensor>> invariants;
  // NextIteration values waiting for an iteration to end.
  std::vector<std::pair<int, Tensor>> deferred;
  absl::flat_hash_set<int> live_exits;  // Exit items that passed a value out

  IterationState* Iteration(int64_t i) {
    return iterations[static_cast<size_t>(i - first_iter)].get();
  }
};

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
  // Created in Run, which drops it (cleaning its container from the
  // devices' managers) once every kernel has finished.
  std::unique_ptr<ScopedStepContainer> step_container;
  CancellationManager local_cancellation;
  CancellationManager* cancellation = nullptr;
  OpKernelContext::Runner runner;
  MemoryPlanner::StepPlan plan;
  // The inter-op pool of this step: null when the executor has none or the
  // step runs on the caller's thread (Args::run_inline).
  thread::ThreadPool* pool = nullptr;
  absl::Notification done;
  // Control flow only (Note [Control flow]).
  absl::Mutex cf_mu;
  std::unique_ptr<FrameState> root_frame;

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

void RunReady(std::shared_ptr<StepState> s, ReadyList ready);

// Hands out a node's results to its consumers and collects the nodes that
// became ready (graphs without control flow). `output(port)` returns the
// node's Tensor& for that port; the tensors are consumed.
template <typename OutputFn>
void Propagate(StepState* s, const NodeItem& item, OutputFn output,
               ReadyList* ready) {
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
      ready->push_back({e.dst_item, false, nullptr});
    }
  }
}

// ---- Control flow: all under s->cf_mu (Note [Control flow]).

// Hands `item`'s outputs (or deadness) to its consumers in iteration
// `into`. A Merge's pending count is (control inputs << 1) | 1: the low bit
// goes with its first live data input, so it runs once, on that input.
void Activate(StepState* s, const NodeItem& item, absl::Span<Tensor> outs,
              bool dead, IterationState* into, ReadyList* ready) {
  const Executor::Impl* impl = s->impl;
  const OutEdge* edges = impl->out_edges.data() + item.out_start;
  for (int i = 0; i < item.out_count; ++i) {
    const OutEdge& e = edges[i];
    const NodeItem& dst = impl->items[e.dst_item];
    const int id = dst.local_id;
    const bool control = e.dst_slot < 0;
    const bool live = !dead && (control || !IsDead(outs[e.src_port]));
    auto put = [&] {
      Tensor& out = outs[e.src_port];
      into->slots[e.dst_slot] = e.last_use_of_port ? std::move(out) : out;
    };
    bool now_ready = false;
    bool dst_dead = false;
    int& pending = into->pending[id];
    int& dead_count = into->dead_count[id];
    if (dst.is_merge) {
      if (control) {
        pending -= 2;
        dst_dead = dead_count == dst.num_inputs;
        now_ready = pending == 0 || (pending == 1 && dst_dead);
      } else if (live) {
        const int before = pending;
        pending &= ~1;
        if (before & 1) put();  // its first live input: the one it forwards
        now_ready = before == 1;
      } else {
        ++dead_count;
        dst_dead = dead_count == dst.num_inputs;
        now_ready = pending == 1 && dst_dead;
      }
    } else {
      if (!live) {
        ++dead_count;
      } else if (!control) {
        put();
      }
      now_ready = --pending == 0;
      dst_dead = dead_count > 0;
    }
    if (now_ready) {
      ++into->outstanding_ops;
      ready->push_back({e.dst_item, dst_dead, into});
    }
  }
}

IterationState* NewIteration(FrameState* frame, int64_t number) {
  std::unique_ptr<IterationState> it;
  if (!frame->spare.empty()) {
    it = std::move(frame->spare.back());
    frame->spare.pop_back();
  } else {
    it = std::make_unique<IterationState>();
  }
  // Slots of nodes that never became ready may still hold tensors.
  it->slots.assign(frame->info->num_slots, DeadTensor());
  it->frame = frame;
  it->iter = number;
  it->pending = frame->info->initial_pending;
  it->dead_count.assign(frame->info->initial_pending.size(), 0);
  it->outstanding_ops = 0;
  it->outstanding_frames = 0;
  frame->iterations.push_back(std::move(it));
  ++frame->num_outstanding_iterations;
  return frame->iterations.back().get();
}

// A constant Enter's value, into one iteration.
void ActivateInvariant(StepState* s, int enter_item, const Tensor& value,
                       IterationState* into, ReadyList* ready) {
  Tensor copy = value;
  Activate(s, s->impl->items[enter_item], absl::MakeSpan(&copy, 1),
           IsDead(value), into, ready);
}

// The next iteration of `frame`, with the loop invariants in it.
IterationState* StartIteration(StepState* s, FrameState* frame,
                               ReadyList* ready) {
  ++frame->iteration_count;
  IterationState* it = NewIteration(frame, frame->iteration_count);
  for (const auto& [enter, value] : frame->invariants) {
    ActivateInvariant(s, enter, value, it, ready);
  }
  return it;
}

FrameState* FindOrStartChild(StepState* s, IterationState* iter, int frame_id) {
  std::unique_ptr<FrameState>& child = iter->children[frame_id];
  if (child == nullptr) {
    child = std::make_unique<FrameState>();
    child->frame_id = frame_id;
    child->info = &s->impl->frames[frame_id];
    child->parent = iter->frame;
    child->parent_iter = iter;
    child->num_pending_inputs = child->info->desc.num_enters;
    NewIteration(child.get(), 0);
    ++iter->outstanding_frames;
  }
  return child.get();
}

void CleanupIterations(StepState* s, FrameState* frame, int64_t from,
                       ReadyList* ready);

// `frame` is done: Exits that passed nothing out pass a dead tensor, and
// the parent iteration may end in turn.
void FinishFrame(StepState* s, FrameState* frame, ReadyList* ready) {
  IterationState* parent_iter = frame->parent_iter;
  for (int exit : frame->info->exits) {
    if (frame->live_exits.contains(exit)) continue;
    Activate(s, s->impl->items[exit], {}, /*dead=*/true, parent_iter, ready);
  }
  FrameState* parent = frame->parent;
  --parent_iter->outstanding_frames;
  parent_iter->children.erase(frame->frame_id);  // deletes `frame`
  CleanupIterations(s, parent, parent_iter->iter, ready);
}

// Ends iterations of `frame` from `from` on while they are done, oldest
// first; starts a deferred iteration when one ends; finishes the frame
// when its last iteration has ended.
void CleanupIterations(StepState* s, FrameState* frame, int64_t from,
                       ReadyList* ready) {
  if (frame->parent == nullptr) return;  // the root frame lives the step
  for (int64_t i = from; i == frame->first_iter && i <= frame->iteration_count;
       ++i) {
    IterationState* it = frame->Iteration(i);
    if (it->outstanding_ops != 0 || it->outstanding_frames != 0 ||
        (i == 0 && frame->num_pending_inputs != 0)) {
      break;
    }
    frame->spare.push_back(std::move(frame->iterations.front()));
    frame->iterations.pop_front();
    ++frame->first_iter;
    --frame->num_outstanding_iterations;
    if (!frame->deferred.empty()) {
      IterationState* next = StartIteration(s, frame, ready);
      for (auto& [item, value] : frame->deferred) {
        Activate(s, s->impl->items[item], absl::MakeSpan(&value, 1), false,
                 next, ready);
      }
      frame->deferred.clear();
    }
  }
  if (frame->num_pending_inputs == 0 &&
      frame->num_outstanding_iterations == 0) {
    FinishFrame(s, frame, ready);
  }
}

// What follows a node's run (or its skipping, when dead) with control
// flow: its outputs go where its kind sends them, and its iteration (and
// frame) may end.
void PropagateControlFlow(StepState* s, const TaggedNode& t,
                          absl::Span<Tensor> outs, bool dead,
                          ReadyList* ready) {
  const NodeItem& item = s->impl->items[t.item];
  absl::MutexLock lock(&s->cf_mu);
  IterationState* iter = t.iter;
  FrameState* frame = iter->frame;
  if (item.is_enter) {
    FrameState* child = FindOrStartChild(s, iter, item.enter_frame);
    if (item.is_constant_enter) {
      Tensor value = dead ? DeadTensor() : std::move(outs[0]);
      for (auto& it : child->iterations) {
        ActivateInvariant(s, t.item, value, it.get(), ready);
      }
      child->invariants.emplace_back(t.item, std::move(value));
    } else {
      Activate(s, item, outs, dead, child->Iteration(0), ready);
    }
    --child->num_pending_inputs;
    CleanupIterations(s, child, child->first_iter, ready);
  } else if (item.is_exit) {
    if (!dead) {
      frame->live_exits.insert(t.item);
      Activate(s, item, outs, false, frame->parent_iter, ready);
    }
  } else if (item.is_next_iteration) {
    if (!dead) {  // a dead NextIteration ends its loop
      if (iter->iter < frame->iteration_count) {
        Activate(s, item, outs, false, frame->Iteration(iter->iter + 1), ready);
      } else if (frame->num_outstanding_iterations >=
                 frame->info->desc.parallel_iterations) {
        frame->deferred.emplace_back(t.item, std::move(outs[0]));
      } else {
        Activate(s, item, outs, false, StartIteration(s, frame, ready), ready);
      }
    }
  } else {
    Activate(s, item, outs, dead, iter, ready);
  }
  --iter->outstanding_ops;
  CleanupIterations(s, frame, iter->iter, ready);
}

// Replaces the reference in `*value` (input `input` of `item`) by the
// variable's current value; FailedPrecondition when it was never assigned.
Status ReadRef(const NodeItem& item, int input, Tensor* value) {
  Tensor current;
  {
    absl::ReaderMutexLock lock(value->RefMutex());
    current = *value->RefTarget();
  }
  if (!current.IsInitialized()) {
    const NodeDef& def = item.node->def();
    const std::string source =
        input < def.input_size() ? def.input(input) : "a variable";
    return errors::AttachNodeContext(
        errors::FailedPrecondition("Attempting to use uninitialized value ",
                                   source),
        item.node->name(), item.node->type_string());
  }
  *value = std::move(current);
  return OkStatus();
}

// Runs one node and hands out its results. Fills `ready` with the nodes
// that became ready.
void ProcessNode(StepState* s, const TaggedNode& t, ReadyList* ready) {
  const Executor::Impl* impl = s->impl;
  const NodeItem& item = impl->items[t.item];
  if (s->aborted.load(std::memory_order_relaxed)) return;
  if (s->cancellation->IsCancelled()) {
    s->RecordError(errors::Cancelled("Step was cancelled"));
    return;
  }
  const bool control_flow = t.iter != nullptr;
  Tensor* inputs =
      (control_flow ? t.iter->slots.data() : s->slots) + item.input_start;
  // With control flow, outputs are collected and handed out under the
  // step's lock; without, they go straight to the consumers.
  absl::InlinedVector<Tensor, 4> outs;
  if (control_flow) outs.assign(item.num_outputs, DeadTensor());
  const Tensor& empty_slot = EmptySlot(control_flow);
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
      if (control_flow) {
        outs[0] = share;
        PropagateControlFlow(s, t, absl::MakeSpan(outs), false, ready);
        return;
      }
      Propagate(
          s, item, [&](int) -> Tensor& { return share; }, ready);
      return;
    }
    case ItemKind::kRetval: {
      if (t.dead) {
        s->RecordError(errors::InvalidArgument(
            "Fetched tensor '", item.fetch_name,
            "' is dead: it depends on a Switch output that was not taken"));
        return;
      }
      Tensor value = std::move(inputs[0]);
      inputs[0] = empty_slot;
      if (value.IsRef()) {
        Status read = ReadRef(item, 0, &value);
        if (!read.ok()) {
          s->RecordError(read);
          return;
        }
      }
      {
        absl::MutexLock lock(&s->mu);
        s->retvals[item.index] = std::move(value);
      }
      if (control_flow) {
        PropagateControlFlow(s, t, absl::MakeSpan(outs), false, ready);
        return;
      }
      Propagate(
          s, item, [&](int) -> Tensor& { return value; }, ready);
      return;
    }
    case ItemKind::kKernel: {
      // ControlTrigger's outputs are never dead; other dead nodes do not run.
      if (t.dead && !item.is_control_trigger) {
        for (int i = 0; i < item.num_inputs; ++i) inputs[i] = empty_slot;
        PropagateControlFlow(s, t, absl::MakeSpan(outs), true, ready);
        return;
      }
      // Note [Constants without a context]
      // A Const's kernel only hands out the tensor it decoded when it was
      // made, so the executor hands it out itself: building a kernel
      // context for it cost as much as a cheap arithmetic node (a graph has
      // a Const per weight). Traced steps still run the kernel, so that
      // profiles list it.
      if (item.const_value != nullptr && s->args.step_stats == nullptr) {
        Tensor value = *item.const_value;
        if (control_flow) {
          outs[0] = std::move(value);
          PropagateControlFlow(s, t, absl::MakeSpan(outs), false, ready);
          return;
        }
        Propagate(
            s, item, [&](int) -> Tensor& { return value; }, ready);
        return;
      }
      // The kernel reads its inputs in their slots; each slot is this
      // node's alone, so a kernel may forward an input in place, and the
      // slots are emptied when it is done (Note [Executor items]). A
      // Merge's dead inputs are absent.
      absl::InlinedVector<TensorValue, 4> values(item.num_inputs);
      for (int i = 0; i < item.num_inputs; ++i) {
        if (item.is_merge && IsDead(inputs[i])) continue;
        if (inputs[i].IsRef()) {  // Note [Ref edges] in core/tensor.h
          if (IsRefType(item.kernel->input_type(i))) {
            values[i] =
                TensorValue(inputs[i].RefMutex(), inputs[i].RefTarget());
            values[i].ref = &inputs[i];
            continue;
          }
          Status read = ReadRef(item, i, &inputs[i]);
          if (!read.ok()) {
            for (int j = 0; j < item.num_inputs; ++j) inputs[j] = empty_slot;
            s->RecordError(read);
            return;
          }
        }
        values[i] = TensorValue(&inputs[i]);
      }
      OpKernelContext::Params params;
      params.step_id = s->args.step_id;
      params.op_kernel = item.kernel.get();
      params.device = item.device;
      params.inputs = absl::MakeConstSpan(values);
      params.resource_manager = item.device->resource_manager();
      params.step_container = s->step_container.get();
      params.cancellation_manager = s->cancellation;
      params.runner = &s->runner;
      // The node's host allocations follow the plan (Note [Memory plan]).
      if (s->plan.role != MemoryPlanner::Role::kNone &&
          item.device == impl->planned_device) {
        params.allocator = impl->planner->ForNode(s->plan, t.item);
      }
      // The caller's buffers for the outputs it fetches (Note [Fetch
      // buffers]): each may become its output, else goes back.
      std::vector<Tensor>* caller_buffers =
          s->args.call_frame != nullptr ? &s->args.call_frame->retval_buffers
                                        : nullptr;
      absl::InlinedVector<Tensor, 4> fetch_buffers;
      absl::InlinedVector<int, 4> buffer_retval;
      if (!item.fetched_ports.empty() && caller_buffers != nullptr &&
          !caller_buffers->empty() && !control_flow) {
        fetch_buffers.resize(item.num_outputs);
        buffer_retval.assign(item.num_outputs, -1);
        for (const auto& [port, retval] : item.fetched_ports) {
          if (static_cast<size_t>(retval) >= caller_buffers->size() ||
              buffer_retval[port] >= 0) {
            continue;
          }
          Tensor& buffer = (*caller_buffers)[retval];
          if (buffer.data() == nullptr) continue;  // none for this fetch
          fetch_buffers[port] = std::move(buffer);
          buffer = Tensor();
          buffer_retval[port] = retval;
        }
        params.recycled_outputs = fetch_buffers.data();
      }
      OpKernelContext ctx(&params);
      const bool collect = s->args.step_stats != nullptr;
      const int64_t start = collect ? NowNanos() : 0;
      item.device->Compute(item.kernel.get(), &ctx);
      for (int i = 0; i < item.num_inputs; ++i) inputs[i] = empty_slot;
      for (size_t port = 0; port < buffer_retval.size(); ++port) {
        if (buffer_retval[port] >= 0 && fetch_buffers[port].data() != nullptr) {
          (*caller_buffers)[buffer_retval[port]] =
              std::move(fetch_buffers[port]);
        }
      }
      if (collect) RecordStats(s, item, start, NowNanos(), &ctx);
      if (!ctx.status().ok()) {
        s->RecordError(errors::AttachNodeContext(
            ctx.status(), item.node->name(), item.node->type_string()));
        return;
      }
      for (int i = 0; i < item.num_outputs; ++i) {
        // A Switch produces only the output its predicate picks: the
        // other is dead.
        if (!ctx.has_output(i) && !item.is_switch) {
          s->RecordError(errors::AttachNodeContext(
              errors::Internal("Kernel did not produce output ", i),
              item.node->name(), item.node->type_string()));
          return;
        }
      }
      if (control_flow) {
        for (int i = 0; i < item.num_outputs; ++i) {
          if (ctx.has_output(i)) outs[i] = std::move(*ctx.mutable_output(i));
        }
        PropagateControlFlow(s, t, absl::MakeSpan(outs), false, ready);
        return;
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
void RunReady(std::shared_ptr<StepState> s, ReadyList ready) {
  const Executor::Impl* impl = s->impl;
  thread::ThreadPool* pool = s->pool;
  std::deque<TaggedNode> inline_queue;
  auto dispatch = [&](ReadyList& nodes) {
    const TaggedNode* keep = nullptr;
    for (const TaggedNode& t : nodes) {
      if (pool == nullptr || !impl->items[t.item].expensive) {
        inline_queue.push_back(t);
      } else if (keep == nullptr && inline_queue.empty()) {
        keep = &t;
      } else {
        pool->Schedule([s, t] { RunReady(s, {t}); });
      }
    }
    if (keep != nullptr) inline_queue.push_back(*keep);
  };
  dispatch(ready);
  ReadyList newly_ready;
  while (!inline_queue.empty()) {
    const TaggedNode t = inline_queue.front();
    inline_queue.pop_front();
    newly_ready.clear();
    ProcessNode(s.get(), t, &newly_ready);
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
  for (const Node* n : order) {
    impl.has_control_flow |= n->IsControlFlow();
  }
  ControlFlowInfo flow;
  if (impl.has_control_flow) {
    MF_RETURN_IF_ERROR(BuildControlFlowInfo(*graph, &flow));
  } else {
    flow.frames.resize(1);
  }
  impl.frames.resize(flow.frames.size());
  for (size_t f = 0; f < flow.frames.size(); ++f) {
    impl.frames[f].desc = flow.frames[f];
  }
  std::vector<int> item_of(graph->num_node_ids(), -1);
  std::vector<std::pair<const Node*, int>> fetches;  // _Retval, index
  impl.items.resize(order.size());
  const std::string* last_device_name = nullptr;
  Device* last_device = nullptr;
  for (size_t i = 0; i < order.size(); ++i) {
    Node* n = order[i];
    item_of[n->id()] = static_cast<int>(i);
    NodeItem& item = impl.items[i];
    item.node = n;
    item.num_inputs = n->num_inputs();
    item.num_outputs = n->num_outputs();
    // Slots and ids count within the node's frame: every iteration of a
    // frame has its own (Note [Control flow]).
    item.frame = impl.has_control_flow ? flow.frame_of_node[n->id()] : 0;
    FrameInfo& frame = impl.frames[item.frame];
    item.local_id = static_cast<int>(frame.initial_pending.size());
    frame.initial_pending.push_back(0);  // set below
    item.input_start = frame.num_slots;
    frame.num_slots += item.num_inputs;
    if (n->IsControlFlow()) {
      const std::string& op = n->type_string();
      item.is_merge = IsMergeOp(op);
      item.is_switch = IsSwitchOp(op);
      item.is_enter = IsEnterOp(op);
      item.is_exit = IsExitOp(op);
      item.is_next_iteration = IsNextIterationOp(op);
      item.is_control_trigger = IsControlTriggerOp(op);
    }
    if (item.is_enter) {
      item.enter_frame = flow.output_frame_of_node[n->id()];
      bool is_constant = false;
      MF_RETURN_IF_ERROR(
          GetNodeAttr(AttrSlice(n->def()), "is_constant", &is_constant));
      item.is_constant_enter = is_constant;
    }
    if (item.is_exit) frame.exits.push_back(static_cast<int>(i));
    // Device names are interned: most nodes share the previous one's.
    if (&n->assigned_device_name() != last_device_name) {
      auto it = devices.find(n->assigned_device_name());
      if (it == devices.end()) {
        return errors::AttachNodeContext(
            errors::Internal("Node is assigned to unknown device '",
                             n->assigned_device_name(), "'"),
            n->name(), n->type_string());
      }
      last_device_name = &n->assigned_device_name();
      last_device = it->second;
    }
    item.device = last_device;
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
        for (const Edge* e : n->in_edges()) {
          if (!e->IsControlEdge()) {
            item.fetch_name = absl::StrCat(e->src->name(), ":", e->src_output);
          }
        }
        fetches.emplace_back(n, item.index);
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
    if (item.kernel->num_outputs() == 1) {
      item.const_value = item.kernel->const_tensor();
    }
  }

  for (size_t i = 0; i < order.size(); ++i) {
    NodeItem& item = impl.items[i];
    const Node* n = item.node;
    item.initial_pending = static_cast<int>(n->in_edges().size());
    if (item.is_merge) {
      // (control inputs << 1) | 1: see Activate.
      int controls = 0;
      for (const Edge* e : n->in_edges()) controls += e->IsControlEdge();
      item.initial_pending = (controls << 1) | 1;
    }
    impl.frames[item.frame].initial_pending[item.local_id] =
        item.initial_pending;
    if (item.initial_pending == 0 && item.frame == 0) {
      impl.roots.push_back(static_cast<int>(i));
    }
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
  impl.num_slots = impl.frames[0].num_slots;
  // Host-memory outputs that are fetched as they are may be written into
  // the caller's buffers (Note [Fetch buffers]).
  for (const auto& [retval_node, index] : fetches) {
    const Edge* e = nullptr;
    for (const Edge* in : retval_node->in_edges()) {
      if (!in->IsControlEdge()) e = in;
    }
    // An Identity hands its input's buffer on, so the node before it can
    // write the fetch (a fetched Identity that the passes kept for its name).
    while (e != nullptr && e->src->type_string() == "Identity" &&
           !IsRefType(e->src->output_type(0))) {
      const Edge* before = nullptr;
      for (const Edge* in : e->src->in_edges()) {
        if (!in->IsControlEdge()) before = in;
      }
      if (before == nullptr || impl.items[item_of[before->src->id()]].device !=
                                   impl.items[item_of[e->src->id()]].device) {
        break;
      }
      e = before;
    }
    if (e == nullptr) continue;
    NodeItem& src = impl.items[item_of[e->src->id()]];
    if (src.kind == ItemKind::kKernel &&
        src.device->device_type() == DEVICE_CPU) {
      src.fetched_ports.emplace_back(e->src_output, index);
    }
  }
  // Note [Memory plan]: the host device's allocations, in graphs without
  // control flow.
  if (!options.plan_memory) {
    impl.no_plan_reason = "memory planning is off";
  } else if (impl.has_control_flow) {
    impl.no_plan_reason = "the graph has control flow";
  } else {
    for (const NodeItem& item : impl.items) {
      if (item.kind == ItemKind::kKernel &&
          item.device->device_type() == DEVICE_CPU) {
        impl.planned_device = item.device;
        impl.planner =
            new MemoryPlanner(item.device->GetAllocator(AllocatorAttributes()),
                              static_cast<int>(impl.items.size()));
        break;
      }
    }
    if (impl.planner == nullptr) {
      impl.no_plan_reason = "no kernel runs on the host";
    }
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
  s->step_container = std::make_unique<ScopedStepContainer>(
      args.step_id, [&impl](const std::string& name) {
        for (Device* device : impl.options.devices) {
          if (ResourceMgr* rm = device->resource_manager()) {
            rm->Cleanup(name).IgnoreError();
          }
        }
      });
  if (impl.planner != nullptr) s->plan = impl.planner->BeginStep();
  // Once the step is over, a recording becomes the plan (what outlived the
  // step left out), and a claimed arena goes back.
  struct EndPlannedStep {
    MemoryPlanner* planner;
    MemoryPlanner::StepPlan plan;
    bool succeeded = false;
    ~EndPlannedStep() {
      if (planner != nullptr) planner->EndStep(plan, succeeded);
    }
  } end_step{impl.planner, s->plan};
  ReadyList roots;
  if (impl.has_control_flow) {
    // The root frame: one iteration, never ended before the step is.
    s->root_frame = std::make_unique<FrameState>();
    s->root_frame->info = &impl.frames[0];
    IterationState* iter0 = NewIteration(s->root_frame.get(), 0);
    iter0->outstanding_ops = static_cast<int>(impl.roots.size());
    for (int root : impl.roots) roots.push_back({root, false, iter0});
  } else {
    s->buffers = impl.TakeBuffers();
    s->pending = s->buffers.pending.get();
    s->slots = s->buffers.slots.data();
    for (size_t i = 0; i < impl.items.size(); ++i) {
      s->pending[i].store(impl.items[i].initial_pending,
                          std::memory_order_relaxed);
    }
    for (int root : impl.roots) roots.push_back({root, false, nullptr});
  }
  {
    absl::MutexLock lock(&s->mu);
    // With control flow, a fetch may never be reached: see the end of Run.
    s->retvals.assign(impl.num_retvals, EmptySlot(impl.has_control_flow));
  }
  thread::ThreadPool* pool =
      args.run_inline ? nullptr : impl.options.inter_op_pool;
  s->pool = pool;
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
  // Every kernel has finished, so the step's resources go now, on the
  // caller's thread: a worker may hold the last reference to `s` a moment
  // after `done`, when the executor (whose devices the cleanup walks) and
  // the session may be gone already.
  s->step_container.reset();
  Status status;
  std::vector<Tensor> retvals;
  {
    absl::MutexLock lock(&s->mu);
    status = s->status;
    if (status.ok()) retvals = std::move(s->retvals);
  }
  if (!status.ok()) return status;
  if (impl.has_control_flow) {
    // A fetch whose node never became ready: a Merge that got no live
    // input, or a loop that never passed that value out.
    for (const NodeItem& item : impl.items) {
      if (item.kind == ItemKind::kRetval && IsDead(retvals[item.index])) {
        return errors::InvalidArgument(
            "Fetched tensor '", item.fetch_name,
            "' was never computed: control flow did not reach it");
      }
    }
    // Iterations still alive hold only tensors of nodes that never became
    // ready; they go with the step.
    if (frame != nullptr) frame->retvals = std::move(retvals);
    return OkStatus();
  }
  // Every node has finished touching the step's arrays once `done` fired,
  // so they need no lock (and take none while holding the step's).
  impl.ReturnBuffers(std::move(s->buffers));
  if (frame != nullptr) frame->retvals = std::move(retvals);
  end_step.succeeded = true;
  return OkStatus();
}

MemoryPlanStats Executor::memory_plan_stats() const {
  if (impl_->planner == nullptr) {
    MemoryPlanStats stats;
    stats.reason = impl_->no_plan_reason;
    return stats;
  }
  return impl_->planner->Stats();
}

}  // namespace minflow
