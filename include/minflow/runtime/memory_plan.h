// What a signature's memory plan is (Note [Memory plan] in
// src/runtime/memory_planner.h): reported by Session::GetCallableMemoryPlan
// for `minflow bench` and tests.
#pragma once

#include <cstdint>
#include <string>

namespace minflow {

struct MemoryPlanStats {
  // A plan exists: made from the signature's first complete run.
  bool planned = false;
  // Why there is none yet, or never will be (control flow, switched off).
  std::string reason;
  // The arena's size: the planned peak of the buffers it holds.
  int64_t arena_bytes = 0;
  // The largest sum of the bytes of those buffers alive at once in the run
  // the plan was made from: no layout can take less.
  int64_t liveness_bound_bytes = 0;
  // Host allocations of that run given a place in the arena, and those left
  // to the allocator because they outlived the run (fetches, state).
  int64_t planned_buffers = 0;
  int64_t unplanned_buffers = 0;
  // Since the plan was made: allocations served from the arena; those that
  // had a place but went to the allocator (the place still occupied, or a
  // larger request than planned); and those the plan had no place for.
  int64_t arena_hits = 0;
  int64_t arena_misses = 0;
  int64_t unplanned_allocations = 0;
};

}  // namespace minflow
