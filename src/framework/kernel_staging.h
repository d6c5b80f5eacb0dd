// Staged kernel registrations: how LoadOpLibrary adds a library's kernels
// all at once, or not at all. Private to the framework layer.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"

namespace minflow {

class KernelList;
class OpDef;

namespace internal {

// Note [Staged kernel registrations]
// Between StageKernelRegistrations() and Commit/Discard, every kernel
// registration (REGISTER_KERNEL_BUILDER, from any thread) is held aside
// instead of entering the registry, recording the op registry's
// CurrentOwner() at the time (the library being loaded). The loader checks
// the staged ones, then commits or drops them together, so a library that
// fails to load leaves no kernel behind: in particular none that would tie
// with a built-in kernel and break lookups for it. One stage at a time:
// the caller serialises loads.

// Starts holding kernel registrations aside.
void StageKernelRegistrations();

// Checks the staged registrations for `op_def`'s op: each must fit the op
// (Note [Lazy kernel validation]) and must not tie with a registered or
// another staged kernel (same op, device, label and priority, and
// constraints some node satisfies at once), which would make lookups fail.
// InvalidArgument naming the kernel classes and their owners. Does not call
// the op registry, so an op-registry watcher may call it.
Status CheckStagedKernelRegistrations(const OpDef& op_def);

// The ops that staged registrations are for, in registration order, without
// repeats.
std::vector<std::string> StagedKernelOps();

// Moves the staged registrations into the registry, stops staging, and
// returns their KernelDefs in registration order.
KernelList CommitStagedKernelRegistrations();

// Drops the staged registrations and stops staging.
void DiscardStagedKernelRegistrations();

}  // namespace internal
}  // namespace minflow
