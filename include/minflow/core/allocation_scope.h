// A per-thread note of whose allocations a thread is making, which work
// handed to other threads carries along: see Note [Allocation scopes].
#pragma once

namespace minflow {

// Note [Allocation scopes]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// An allocator that serves several clients through one interface (the
// executor's memory planner serves every node) needs to know which client
// is asking; AllocateRaw has no room for that. So the client installs an
// AllocationScope on its thread while it runs, and the allocator reads
// AllocationScope::Current(). Shard() installs its caller's scope on the
// threads that run the caller's blocks, so a kernel's sharded scratch
// allocations are its own too. `owner` tells allocators apart: each reads
// only scopes it made.
class AllocationScope {
 public:
  explicit AllocationScope(const void* owner) : owner_(owner) {}
  AllocationScope(const AllocationScope&) = delete;
  AllocationScope& operator=(const AllocationScope&) = delete;

  const void* owner() const { return owner_; }

  // The scope installed on this thread, or null.
  static AllocationScope* Current();

  // Installs `scope` (null: none) on this thread until destroyed, then
  // puts back the one before.
  class Installed {
   public:
    explicit Installed(AllocationScope* scope);
    ~Installed();
    Installed(const Installed&) = delete;
    Installed& operator=(const Installed&) = delete;

   private:
    AllocationScope* const saved_;
  };

 private:
  const void* const owner_;
};

}  // namespace minflow
