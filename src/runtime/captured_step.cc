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

// The first chunk of a recording's host buffers (Note [Captured steps]),
// which hold what the step copies out; more is made while recording if
// needed.
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
  for (const Tensor& feed : feeds) {
    if (!DataTypeCanUseMemcpy(feed.dtype())) {
      return errors::FailedPrecondition("Not captured: a ",
                                        DataTypeString(feed.dtype()), " feed");
    }
  }
  AcceleratorStream* stream = device->stream();
  made->host_arena_ = stream->NewCaptureHostArena(kFetchRoomBytes);
  if (made->host_arena_ == nullptr) {
    return errors::ResourceExhausted("Cannot allocate a capture's host memory");
  }
  Allocator* device_memory = device->GetAllocator(AllocatorAttributes());
  for (const Tensor& feed : feeds) {
    // Only its address matters: the recording reads the device buffer.
    Tensor staged(feed.dtype(), feed.shape());
    MF_ASSIGN_OR_RETURN(
        Tensor on_device,
        Tensor::Allocate(device_memory, feed.dtype(), feed.shape()));
    made->staged_feeds_.push_back(std::move(staged));
    made->device_feeds_.push_back(std::move(on_device));
  }
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (feeds[i].TotalBytes() == 0) continue;
    stream->BindCaptureSource(made->staged_feeds_[i].tensor_data().data(),
                              made->device_feeds_[i].tensor_data().data());
  }
  Status began = stream->BeginCapture(made->host_arena_.get());
  std::vector<Tensor> fetched;
  Status ran, ended;
  std::unique_ptr<CapturedStreamWork> work;
  if (began.ok()) {
    ran = run(made->staged_feeds_, &fetched);
    ended = stream->EndCapture(&work);
  }
  stream->ClearCaptureSources();
  MF_RETURN_IF_ERROR(began);
  MF_RETURN_IF_ERROR(ran);
  MF_RETURN_IF_ERROR(ended);
  made->work_ = std::move(work);
  made->staged_fetches_ = std::move(fetched);
  // Nothing ran while recording: the first launch makes this run's results.
  MF_RETURN_IF_ERROR(made->Launch(feeds, outputs));
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
  return Launch(feeds, outputs);
}

Status CapturedStep::Launch(const std::vector<Tensor>& feeds,
                            std::vector<Tensor>* outputs) {
  AcceleratorStream* stream = device_->stream();
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (feeds[i].TotalBytes() == 0) continue;
    MF_RETURN_IF_ERROR(stream->CopyHostToDevice(
        feeds[i].tensor_data().data(),
        const_cast<char*>(device_feeds_[i].tensor_data().data()),
        feeds[i].TotalBytes()));
  }
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
