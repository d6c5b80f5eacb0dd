// See Note [Memory plan] in memory_planner.h.
#include "src/runtime/memory_planner.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"

namespace minflow {
namespace {

// Recorded steps with more buffers than this are not planned: placing is
// quadratic in the buffers alive at once.
constexpr size_t kMaxPlannedBuffers = 16384;

int64_t RoundUp(int64_t bytes) {
  const int64_t a = static_cast<int64_t>(kAllocatorAlignment);
  return (bytes + a - 1) / a * a;
}

}  // namespace

std::string MemoryPlanner::NodeAllocator::Name() const {
  return planner_->base_->Name();
}
void* MemoryPlanner::NodeAllocator::AllocateRaw(size_t alignment,
                                                size_t num_bytes) {
  return planner_->Allocate(this, alignment, num_bytes);
}
void MemoryPlanner::NodeAllocator::DeallocateRaw(void* ptr, size_t num_bytes) {
  planner_->Deallocate(ptr, num_bytes);
}
AllocatorStats MemoryPlanner::NodeAllocator::GetStats() const {
  return planner_->base_->GetStats();
}
void MemoryPlanner::NodeAllocator::ResetPeak() { planner_->base_->ResetPeak(); }

MemoryPlanner::MemoryPlanner(Allocator* base, int num_items)
    : base_(base), num_items_(num_items) {
  absl::MutexLock lock(&mu_);
  MakeNodeAllocators(-1);
}

void MemoryPlanner::MakeNodeAllocators(int arena) {
  auto made =
      std::make_unique<NodeAllocator[]>(static_cast<size_t>(num_items_));
  for (int i = 0; i < num_items_; ++i) {
    made[i].planner_ = this;
    made[i].arena_ = arena;
    made[i].item_ = i;
  }
  node_allocators_[arena + 1] = std::move(made);
}

Allocator* MemoryPlanner::ForNode(const StepPlan& step, int item) {
  // The slot was made before the step could claim its arena.
  NodeAllocator& node = node_allocators_[step.arena + 1][item];
  node.next_.store(0, std::memory_order_relaxed);
  return &node;
}

MemoryPlanner::~MemoryPlanner() {
  for (std::atomic<char*>& memory : arena_memory_) {
    if (char* base = memory.load(std::memory_order_acquire)) {
      base_->DeallocateRaw(base, static_cast<size_t>(arena_bytes_));
    }
  }
}

void MemoryPlanner::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

MemoryPlanner::StepPlan MemoryPlanner::BeginStep() {
  State state = state_.load(std::memory_order_acquire);
  if (state == State::kPlanned) return {Role::kPlanned, ClaimArena()};
  // The first step does the kernels' lazy set-up, and its caller may not
  // have its fetch buffers yet: the second is the one to record.
  if (steps_begun_.fetch_add(1, std::memory_order_relaxed) == 0) return {};
  if (state == State::kUnplanned &&
      state_.compare_exchange_strong(state, State::kRecording,
                                     std::memory_order_acq_rel)) {
    absl::MutexLock lock(&mu_);
    records_.clear();
    recording_.clear();
    clock_ = 0;
    return {Role::kRecord, -1};
  }
  return {};
}

void MemoryPlanner::EndStep(const StepPlan& step, bool step_succeeded) {
  if (step.role == Role::kNone) return;
  absl::MutexLock lock(&mu_);
  if (step.role == Role::kPlanned) {
    if (step.arena >= 0) arenas_[step.arena].claimed = false;
    return;
  }
  if (!step_succeeded) {
    records_.clear();
    recording_.clear();
    state_.store(State::kUnplanned, std::memory_order_release);
    return;
  }
  BuildPlan();
}

int MemoryPlanner::ClaimArena() {
  if (arena_bytes_ == 0) return -1;
  absl::MutexLock lock(&mu_);
  for (int i = 0; i < kMaxArenas; ++i) {
    if (arenas_[i].claimed) continue;
    if (arena_memory_[i].load(std::memory_order_relaxed) == nullptr) {
      void* memory = base_->AllocateRaw(kAllocatorAlignment,
                                        static_cast<size_t>(arena_bytes_));
      if (memory == nullptr) return -1;
      MakeNodeAllocators(i);
      arena_memory_[i].store(static_cast<char*>(memory),
                             std::memory_order_release);
    }
    arenas_[i].claimed = true;
    return i;
  }
  return -1;
}

int MemoryPlanner::ArenaOf(const char* p) const {
  for (int i = 0; i < kMaxArenas; ++i) {
    const char* base = arena_memory_[i].load(std::memory_order_acquire);
    if (base == nullptr) return -1;  // arenas are made in order
    if (p >= base && p < base + arena_bytes_) return i;
  }
  return -1;
}

void MemoryPlanner::BuildPlan() {
  std::vector<Record> kept;
  for (const Record& r : records_) {
    if (r.lifetime.end >= 0) kept.push_back(r);
  }
  unplanned_buffers_ = static_cast<int64_t>(records_.size() - kept.size());
  records_.clear();
  recording_.clear();
  auto off = [&](std::string why) {
    reason_ = std::move(why);
    state_.store(State::kOff, std::memory_order_release);
  };
  if (kept.size() > kMaxPlannedBuffers) {
    return off(absl::StrCat("the step allocated ", kept.size(),
                            " buffers, more than the ", kMaxPlannedBuffers,
                            " a plan takes"));
  }
  std::sort(kept.begin(), kept.end(), [](const Record& a, const Record& b) {
    return a.item != b.item ? a.item < b.item : a.seq < b.seq;
  });
  // A node's buffers may be alive together in later steps even where the
  // recorded one freed one before making the next: its Shard blocks run on
  // whichever threads are free, one after another in one step, at once in
  // the next. So each of a node's buffers lives at least until the node's
  // last allocation, and none of them shares a place with another.
  for (size_t first = 0; first < kept.size();) {
    size_t last = first;
    int64_t latest_start = kept[first].lifetime.start;
    while (last + 1 < kept.size() && kept[last + 1].item == kept[first].item) {
      ++last;
      latest_start = std::max(latest_start, kept[last].lifetime.start);
    }
    for (size_t i = first; i <= last; ++i) {
      kept[i].lifetime.end = std::max(kept[i].lifetime.end, latest_start + 1);
    }
    first = last + 1;
  }
  std::vector<Lifetime> lifetimes;
  lifetimes.reserve(kept.size());
  for (const Record& r : kept) lifetimes.push_back(r.lifetime);
  std::vector<int64_t> offsets;
  arena_bytes_ = PlaceBuffers(lifetimes, &offsets);
  liveness_bound_ = LivenessBound(lifetimes);
  // The first arena now, so that the next step already runs without
  // allocator calls; more are made when steps overlap.
  if (arena_bytes_ > 0) {
    void* memory = base_->AllocateRaw(kAllocatorAlignment,
                                      static_cast<size_t>(arena_bytes_));
    if (memory == nullptr) {
      return off(absl::StrCat("its arena of ", arena_bytes_,
                              " bytes could not be allocated"));
    }
    MakeNodeAllocators(0);
    arena_memory_[0].store(static_cast<char*>(memory),
                           std::memory_order_release);
  }
  first_place_.assign(static_cast<size_t>(num_items_) + 1, 0);
  places_.reserve(kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    places_.push_back(
        {kept[i].seq, RoundUp(kept[i].lifetime.bytes), offsets[i]});
    ++first_place_[static_cast<size_t>(kept[i].item) + 1];
  }
  std::partial_sum(first_place_.begin(), first_place_.end(),
                   first_place_.begin());
  state_.store(State::kPlanned, std::memory_order_release);
}

bool MemoryPlanner::TakeRange(int arena, int64_t offset, int64_t bytes) {
  absl::btree_map<int64_t, int64_t>& occupied = arenas_[arena].occupied;
  // Occupied ranges never overlap, so only the last one starting before
  // this range's end can reach into it.
  auto it = occupied.lower_bound(offset + bytes);
  if (it != occupied.begin() && std::prev(it)->second > offset) return false;
  occupied.emplace(offset, offset + bytes);
  return true;
}

void* MemoryPlanner::AllocatePlanned(int arena, int item, int seq,
                                     size_t num_bytes) {
  if (item < 0 || item >= num_items_ ||
      first_place_[item] == first_place_[item + 1]) {
    unplanned_allocations_.fetch_add(1, std::memory_order_relaxed);
    return nullptr;
  }
  const int64_t bytes = RoundUp(static_cast<int64_t>(num_bytes));
  if (arena >= 0) {  // else every arena is claimed by other steps
    absl::MutexLock lock(&mu_);
    // The place recorded for this request first, then any other of the
    // node's places that fits (its requests may arrive in another order).
    const Place* chosen = nullptr;
    for (int pass = 0; pass < 2 && chosen == nullptr; ++pass) {
      for (int i = first_place_[item]; i < first_place_[item + 1]; ++i) {
        const Place& place = places_[static_cast<size_t>(i)];
        if ((place.seq == seq) == (pass == 0) && place.bytes >= bytes &&
            TakeRange(arena, place.offset, place.bytes)) {
          chosen = &place;
          break;
        }
      }
    }
    if (chosen != nullptr) {
      hits_.fetch_add(1, std::memory_order_relaxed);
      return arena_memory_[arena].load(std::memory_order_relaxed) +
             chosen->offset;
    }
  }
  misses_.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

void* MemoryPlanner::Allocate(NodeAllocator* node, size_t alignment,
                              size_t num_bytes) {
  if (num_bytes > 0 && alignment <= kAllocatorAlignment) {
    const int seq = node->next_.fetch_add(1, std::memory_order_relaxed);
    const State state = state_.load(std::memory_order_acquire);
    if (state == State::kPlanned) {
      if (void* ptr =
              AllocatePlanned(node->arena_, node->item_, seq, num_bytes)) {
        refs_.fetch_add(1, std::memory_order_relaxed);
        return ptr;
      }
    } else if (state == State::kRecording) {
      void* ptr = base_->AllocateRaw(alignment, num_bytes);
      if (ptr == nullptr) return nullptr;
      refs_.fetch_add(1, std::memory_order_relaxed);
      absl::MutexLock lock(&mu_);
      recording_[ptr] = static_cast<int>(records_.size());
      records_.push_back(
          {node->item_, seq, {static_cast<int64_t>(num_bytes), clock_++, -1}});
      return ptr;
    }
  }
  void* ptr = base_->AllocateRaw(alignment, num_bytes);
  if (ptr != nullptr) refs_.fetch_add(1, std::memory_order_relaxed);
  return ptr;
}

void MemoryPlanner::Deallocate(void* ptr, size_t num_bytes) {
  const State state = state_.load(std::memory_order_acquire);
  const char* p = static_cast<const char*>(ptr);
  const int arena = state == State::kPlanned ? ArenaOf(p) : -1;
  if (arena >= 0) {
    absl::MutexLock lock(&mu_);
    arenas_[arena].occupied.erase(
        p - arena_memory_[arena].load(std::memory_order_relaxed));
  } else {
    if (state == State::kRecording) {
      absl::MutexLock lock(&mu_);
      auto it = recording_.find(ptr);
      if (it != recording_.end()) {
        records_[static_cast<size_t>(it->second)].lifetime.end = clock_++;
        recording_.erase(it);
      }
    }
    base_->DeallocateRaw(ptr, num_bytes);
  }
  Unref();
}

MemoryPlanStats MemoryPlanner::Stats() const {
  MemoryPlanStats stats;
  const State state = state_.load(std::memory_order_acquire);
  {
    absl::MutexLock lock(&mu_);
    stats.reason = reason_;
  }
  if (state == State::kPlanned) {
    stats.planned = true;
    stats.arena_bytes = arena_bytes_;
    stats.liveness_bound_bytes = liveness_bound_;
    stats.planned_buffers = static_cast<int64_t>(places_.size());
    stats.unplanned_buffers = unplanned_buffers_;
  } else if (state != State::kOff) {
    stats.reason = "it is made from the second step, not run yet";
  }
  stats.arena_hits = hits_.load(std::memory_order_relaxed);
  stats.arena_misses = misses_.load(std::memory_order_relaxed);
  stats.unplanned_allocations =
      unplanned_allocations_.load(std::memory_order_relaxed);
  return stats;
}

int64_t MemoryPlanner::PlaceBuffers(const std::vector<Lifetime>& buffers,
                                    std::vector<int64_t>* offsets) {
  const size_t n = buffers.size();
  offsets->assign(n, 0);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return buffers[a].bytes > buffers[b].bytes;
  });
  std::vector<size_t> placed;
  placed.reserve(n);
  std::vector<std::pair<int64_t, int64_t>> busy;
  int64_t arena = 0;
  for (size_t i : order) {
    const Lifetime& b = buffers[i];
    const int64_t size = RoundUp(b.bytes);
    busy.clear();
    for (size_t p : placed) {
      const Lifetime& q = buffers[p];
      if (q.start < b.end && b.start < q.end) {
        busy.emplace_back((*offsets)[p], (*offsets)[p] + RoundUp(q.bytes));
      }
    }
    std::sort(busy.begin(), busy.end());
    // The lowest gap that fits, among the ranges of buffers alive with it.
    int64_t offset = 0;
    for (const auto& [lo, hi] : busy) {
      if (lo >= offset + size) break;
      offset = std::max(offset, hi);
    }
    (*offsets)[i] = offset;
    arena = std::max(arena, offset + size);
    placed.push_back(i);
  }
  return arena;
}

int64_t MemoryPlanner::LivenessBound(const std::vector<Lifetime>& buffers) {
  std::vector<std::pair<int64_t, int64_t>> events;  // (time, +-bytes)
  events.reserve(buffers.size() * 2);
  for (const Lifetime& b : buffers) {
    events.emplace_back(b.start, RoundUp(b.bytes));
    events.emplace_back(b.end, -RoundUp(b.bytes));
  }
  // At one time a buffer's end comes before another's start.
  std::sort(events.begin(), events.end());
  int64_t alive = 0;
  int64_t bound = 0;
  for (const auto& [time, delta] : events) {
    alive += delta;
    bound = std::max(bound, alive);
  }
  return bound;
}

}  // namespace minflow
