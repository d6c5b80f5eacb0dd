// A session step recorded on an accelerator's stream and launched again
// instead of running the executor: Note [Captured steps] in
// framework/accelerator_device.h. DirectSession owns one per signature that
// qualifies; nothing here knows about CUDA.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "minflow/core/allocator.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/accelerator_device.h"

namespace minflow {

class Device;
class Graph;

// The accelerator a step may be captured on, or an error saying why it
// cannot be: every node must be a stateless, non-control-flow kernel of one
// accelerator whose stream can capture, except feeds (`_Arg`) consumed only
// by copies to that device, fetches (`_Retval`) of copies from it, and
// NoOps. `devices` are the session's devices, by name.
StatusOr<AcceleratorDevice*> FindCaptureDevice(
    const Graph& graph, const std::vector<Device*>& devices);

class CapturedStep {
 public:
  // Runs the executor on the staged feeds, filling the fetched tensors.
  using RunExecutor = std::function<Status(const std::vector<Tensor>& feeds,
                                           std::vector<Tensor>* fetched)>;

  // Records one run of `run` on `device`'s stream, then launches the
  // recording once so that `outputs` get this run's results. On error
  // nothing was recorded or launched, and the caller runs the step
  // uncaptured.
  static Status Capture(AcceleratorDevice* device, const RunExecutor& run,
                        const std::vector<Tensor>& feeds,
                        std::unique_ptr<CapturedStep>* step,
                        std::vector<Tensor>* outputs);

  // Whether `feeds` have the dtypes and shapes the step was recorded with
  // (the only feeds a launch may take).
  bool Matches(const std::vector<Tensor>& feeds) const;
  // Copies `feeds` into the recording's device buffers, launches the
  // recording, waits, and copies the fetched tensors out. Not concurrent
  // with itself.
  Status Replay(const std::vector<Tensor>& feeds, std::vector<Tensor>* outputs);

 private:
  explicit CapturedStep(AcceleratorDevice* device) : device_(device) {}
  Status Launch(const std::vector<Tensor>& feeds, std::vector<Tensor>* outputs);

  AcceleratorDevice* const device_;
  // Declared first, destroyed last: the recording's host buffers and the
  // device buffers its copies in read, the recording, then the tensors that
  // live in the host buffers.
  std::unique_ptr<Allocator> host_arena_;
  std::vector<Tensor> device_feeds_;
  std::unique_ptr<CapturedStreamWork> work_;
  // What the executor was given as feeds while recording (never read).
  std::vector<Tensor> staged_feeds_;
  std::vector<Tensor> staged_fetches_;
};

}  // namespace minflow
