// An executor's host memory laid out ahead of time from a recorded step:
// see Note [Memory plan].
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "minflow/core/allocator.h"
#include "minflow/runtime/memory_plan.h"

namespace minflow {

// Note [Memory plan]
// ~~~~~~~~~~~~~~~~~~
// A static graph asks for the same buffers in every step. The second step
// of an executor is recorded (the first does the kernels' lazy set-up, and
// a caller often has its fetch buffers only after it; a failed recording
// is retried by the next step): each host allocation a kernel
// makes while it runs on the executor's thread, keyed by (node, how many
// allocations that node made before it in this step), with its size and
// when it was made and freed on one clock of allocation events. The
// buffers freed within the step get fixed offsets in one arena, placed
// greedily by size (largest first, each at the lowest offset where it
// meets no placed buffer whose lifetime overlaps its own), as TensorFlow
// Lite's arena planner does; buffers that outlived the step (fetches, a
// variable's new value) are left to the allocator.
//
// Later steps ask the same (node, count) and get the planned offset in an
// arena of their own (concurrent steps claim one each, up to kMaxArenas)
// without an allocator call. Nothing assumes the later step runs in the
// recorded order: the arena tracks which ranges are occupied, and a
// request whose place is still occupied (another schedule, a buffer a
// kernel kept, a fetch the caller still holds), that finds no arena left,
// that is larger than planned, or that the plan does not know goes to the
// allocator instead. Correctness never depends on the plan; only speed
// does. Each node allocates through an allocator of its own (ForNode),
// which its Shard blocks use too, so a kernel's sharded scratch is
// planned; a node's requests count in the order they arrive, which may
// vary where its blocks allocate, so a request whose own place does not
// fit takes another free place of the same node that does. For the same
// reason no two buffers of one node share a place, even when the recorded
// step freed one before it made the other: blocks that ran in turn there
// may run at once later (cnn_small at 2 threads missed its place about
// once a run in half the sessions before this rule). Graphs with
// control flow are not planned: one node runs many times per step.
//
// Every buffer handed out holds a reference on the planner, so the arena
// outlives the executor while a tensor from it is alive.
class MemoryPlanner {
 public:
  // `base` is the device allocator everything unplanned comes from;
  // `num_items` the executor's node count. The executor owns one reference.
  MemoryPlanner(Allocator* base, int num_items);
  MemoryPlanner(const MemoryPlanner&) = delete;
  MemoryPlanner& operator=(const MemoryPlanner&) = delete;

  // Drops the executor's reference; the planner goes with the last buffer.
  void Unref();

  // What a step does with the planner: kRecord for the one step that
  // records, kPlanned once there is a plan (with the arena it claimed, or
  // -1 when every arena is claimed), kNone otherwise (the first step, a
  // step concurrent with the recording one, or no plan will ever be made).
  enum class Role { kNone, kRecord, kPlanned };
  struct StepPlan {
    Role role = Role::kNone;
    int arena = -1;
  };
  StepPlan BeginStep();
  // After the step: the recording step's allocations become the plan (or,
  // when it failed, a later step records again); a planned step's arena
  // goes back for the next step.
  void EndStep(const StepPlan& step, bool step_succeeded);

  // Node `item`'s allocator in a step planned as `step` (kRecord or
  // kPlanned), with its count of requests restarted: what the executor
  // hands the node's kernel. It forwards to the planner, which knows the
  // request by (node, count).
  class NodeAllocator final : public Allocator {
   public:
    std::string Name() const override;
    void* AllocateRaw(size_t alignment, size_t num_bytes) override;
    void DeallocateRaw(void* ptr, size_t num_bytes) override;
    AllocatorStats GetStats() const override;
    void ResetPeak() override;

   private:
    friend class MemoryPlanner;
    MemoryPlanner* planner_ = nullptr;
    int arena_ = -1;
    int item_ = 0;
    std::atomic<int> next_{0};
  };
  Allocator* ForNode(const StepPlan& step, int item);

  MemoryPlanStats Stats() const;

  // Greedy-by-size layout of buffers with lifetimes [start, end): offsets
  // (multiples of kAllocatorAlignment) and the arena size. Exposed for
  // tests.
  struct Lifetime {
    int64_t bytes = 0;
    int64_t start = 0;
    int64_t end = 0;
  };
  static int64_t PlaceBuffers(const std::vector<Lifetime>& buffers,
                              std::vector<int64_t>* offsets);
  // The largest sum of bytes alive at once.
  static int64_t LivenessBound(const std::vector<Lifetime>& buffers);

 private:
  ~MemoryPlanner();

  // One recorded allocation.
  struct Record {
    int item;
    int seq;
    Lifetime lifetime;
  };
  // A planned place, found by (item, seq).
  struct Place {
    int seq;
    int64_t bytes;
    int64_t offset;
  };
  enum class State { kUnplanned, kRecording, kPlanned, kOff };
  // One copy of the planned layout. Concurrent steps each claim one, up to
  // kMaxArenas; the ranges in use are tracked in every case, since a
  // buffer may outlive its step.
  static constexpr int kMaxArenas = 8;
  struct Arena {
    bool claimed = false;
    absl::btree_map<int64_t, int64_t> occupied;  // offset -> end
  };

  void* Allocate(NodeAllocator* node, size_t alignment, size_t num_bytes);
  void Deallocate(void* ptr, size_t num_bytes);
  void* AllocatePlanned(int arena, int item, int seq, size_t num_bytes);
  // Makes the node allocators of slot `arena + 1` (slot 0: steps without
  // an arena, the recording one among them).
  void MakeNodeAllocators(int arena);
  // Takes [offset, offset + bytes) of `arena` if no buffer holds any of it.
  bool TakeRange(int arena, int64_t offset, int64_t bytes)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void BuildPlan() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int ClaimArena();
  // The arena holding `p`, or -1.
  int ArenaOf(const char* p) const;

  Allocator* const base_;
  const int num_items_;
  std::atomic<int64_t> refs_{1};
  std::atomic<int64_t> steps_begun_{0};
  std::atomic<State> state_{State::kUnplanned};

  mutable absl::Mutex mu_;
  // Recording.
  std::vector<Record> records_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<void*, int> recording_ ABSL_GUARDED_BY(mu_);
  int64_t clock_ ABSL_GUARDED_BY(mu_) = 0;
  std::string reason_ ABSL_GUARDED_BY(mu_);
  Arena arenas_[kMaxArenas] ABSL_GUARDED_BY(mu_);
  // Each arena's memory, set once (under mu_) and read without it.
  std::atomic<char*> arena_memory_[kMaxArenas] = {};
  // Per slot (arena + 1), one allocator per node; made with the arena.
  std::unique_ptr<NodeAllocator[]> node_allocators_[kMaxArenas + 1];

  // The plan: immutable once state_ is kPlanned.
  std::vector<int> first_place_;  // by item, num_items_ + 1 entries
  std::vector<Place> places_;
  int64_t arena_bytes_ = 0;
  int64_t liveness_bound_ = 0;
  int64_t unplanned_buffers_ = 0;

  std::atomic<int64_t> hits_{0};
  std::atomic<int64_t> misses_{0};
  std::atomic<int64_t> unplanned_allocations_{0};
};

}  // namespace minflow
