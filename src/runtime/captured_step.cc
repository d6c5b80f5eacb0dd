#include "src/runtime/captured_step.h"

#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "minflow/framework/device.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/subgraph.h"

namespace minflow {
namespace {

constexpr char kCopyFromHost[] = "_CopyFromHost";
constexpr char kCopyToHost[] = "_CopyToHost";

bool DataOutputsAllAre(const Node& node, absl::string_view op) {
  for (const Edge* e : node.out_edges()) {
    if (!e->IsControlEdge() && !e->dst->IsOp(op)) return false;
  }
  return true;
}

Status NotCapturable(const Node& node, absl::string_view why) {
  return errors::FailedPrecondition("Not captured: node '", node.name(), "' (",
                                    node.type_string(), ") ", why);
}

// The host buffers of a recording (Note [Captured steps]): the feeds'
// bytes, and room for what the step copies out.
constexpr size_t kFetchRoomBytes = size_t{1} << 20;

}  // namespace

StatusOr<AcceleratorDevice*> FindCaptureDevice(
    const Graph& graph, const std::vector<Device*>& devices) {
  AcceleratorDevice* accelerator = nullptr;
  for (const Node* node : graph.nodes()) {
    Device* device = nullptr;
    for (Device* d : devices) {
      if (d->name() == node->assigned_device_name()) device = d;
    }
    auto* on_accelerator = dynamic_cast<AcceleratorDevice*>(device);
    if (on_accelerator == nullptr) {
      // Host nodes run once, at capture: only those that touch no value.
      if (node->IsOp(kArgOp)) {
        if (!DataOutputsAllAre(*node, kCopyFromHost)) {
          return NotCapturable(*node, "is a feed used on the host");
        }
      } else if (node->IsOp(kRetvalOp)) {
        for (const Edge* e : node->in_edges()) {
          if (!e->IsControlEdge() && !e->src->IsOp(kCopyToHost)) {
            return NotCapturable(*node, "fetches a value made on the host");
          }
        }
      } else if (!node->IsOp("NoOp")) {
        return NotCapturable(*node, "runs on the host");
      }
      continue;
    }
    if (accelerator != nullptr && accelerator != on_accelerator) {
      return NotCapturable(*node, "is on a second accelerator");
    }
    accelerator = on_accelerator;
    if (node->IsControlFlow() || node->op_def().is_stateful()) {
      return NotCapturable(*node, "is stateful or control flow");
    }
    if (node->IsOp(kCopyToHost) && !DataOutputsAllAre(*node, kRetvalOp)) {
      return NotCapturable(*node, "copies a value the host uses in the step");
    }
  }
  if (accelerator == nullptr) {
    return errors::FailedPrecondition(
        "Not captured: no node on an accelerator");
  }
  if (!accelerator->stream()->SupportsCapture()) {
    return errors::FailedPrecondition("Not captured: ", accelerator->name(),
                                      " cannot capture");
  }
  return accelerator;
}

Status CapturedStep::Capture(AcceleratorDevice* device, const RunExecutor& run,
                             const std::vector<Tensor>& feeds,
                             std::unique_ptr<CapturedStep>* step,
                             std::vector<Tensor>* outputs) {
  std::unique_ptr<CapturedStep> made(new CapturedStep(device));
  size_t feed_bytes = 0;
  for (const Tensor& feed : feeds) {
    if (!DataTypeCanUseMemcpy(feed.dtype())) {
      return errors::FailedPrecondition("Not captured: a ",
                                        DataTypeString(feed.dtype()), " feed");
    }
    feed_bytes += feed.TotalBytes() + kAllocatorAlignment;
  }
  AcceleratorStream* stream = device->stream();
  made->host_arena_ = stream->NewCaptureHostArena(feed_bytes + kFetchRoomBytes);
  if (made->host_arena_ == nullptr) {
    return errors::ResourceExhausted("Cannot allocate a capture's host memory");
  }
  for (const Tensor& feed : feeds) {
    MF_ASSIGN_OR_RETURN(
        Tensor staged,
        Tensor::Allocate(made->host_arena_.get(), feed.dtype(), feed.shape()));
    if (feed.TotalBytes() > 0) {
      std::memcpy(const_cast<char*>(staged.tensor_data().data()),
                  feed.tensor_data().data(), feed.TotalBytes());
    }
    made->staged_feeds_.push_back(std::move(staged));
  }
  MF_RETURN_IF_ERROR(stream->BeginCapture(made->host_arena_.get()));
  std::vector<Tensor> fetched;
  const Status ran = run(made->staged_feeds_, &fetched);
  std::unique_ptr<CapturedStreamWork> work;
  const Status ended = stream->EndCapture(&work);
  MF_RETURN_IF_ERROR(ran);
  MF_RETURN_IF_ERROR(ended);
  made->work_ = std::move(work);
  made->staged_fetches_ = std::move(fetched);
  // Nothing ran while recording: the first launch makes this run's results.
  MF_RETURN_IF_ERROR(made->LaunchAndCopyOut(outputs));
  *step = std::move(made);
  return OkStatus();
}

bool CapturedStep::Matches(const std::vector<Tensor>& feeds) const {
  if (feeds.size() != staged_feeds_.size()) return false;
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (feeds[i].dtype() != staged_feeds_[i].dtype() ||
        !feeds[i].shape().IsSameSize(staged_feeds_[i].shape())) {
      return false;
    }
  }
  return true;
}

Status CapturedStep::Replay(const std::vector<Tensor>& feeds,
                            std::vector<Tensor>* outputs) {
  if (!Matches(feeds)) {
    return errors::Internal("A captured step was launched with other feeds");
  }
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (feeds[i].TotalBytes() == 0) continue;
    std::memcpy(const_cast<char*>(staged_feeds_[i].tensor_data().data()),
                feeds[i].tensor_data().data(), feeds[i].TotalBytes());
  }
  return LaunchAndCopyOut(outputs);
}

Status CapturedStep::LaunchAndCopyOut(std::vector<Tensor>* outputs) {
  MF_RETURN_IF_ERROR(work_->Launch());
  MF_RETURN_IF_ERROR(device_->Sync());
  if (outputs == nullptr) return OkStatus();
  outputs->clear();
  outputs->reserve(staged_fetches_.size());
  for (const Tensor& staged : staged_fetches_) {
    // The caller's copy: the next launch writes over the staged one.
    Tensor out(staged.dtype(), staged.shape());
    if (staged.TotalBytes() > 0) {
      std::memcpy(const_cast<char*>(out.tensor_data().data()),
                  staged.tensor_data().data(), staged.TotalBytes());
    }
    outputs->push_back(std::move(out));
  }
  return OkStatus();
}

}  // namespace minflow
