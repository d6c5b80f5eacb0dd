// _SequentialLoop: a TF1 while loop's frame, run one iteration after
// another by one kernel (Note [Sequential loops] in
// graph/passes/sequential_loops.cc says which loops the pass gives it).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/cancellation.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/op_requires.h"
#include "minflow/node_def.pb.h"

namespace minflow {
namespace {

// "node:3" as ("node", 3); "node" as ("node", 0). False for a control input
// or a malformed index.
bool SplitTensorName(absl::string_view name, absl::string_view* node,
                     int* port) {
  if (name.empty() || name[0] == '^') return false;
  const size_t colon = name.rfind(':');
  if (colon == absl::string_view::npos) {
    *node = name;
    *port = 0;
    return true;
  }
  *node = name.substr(0, colon);
  return absl::SimpleAtoi(name.substr(colon + 1), port) && *port >= 0;
}

// Identity passes its input on unchanged: in a loop run in order it is the
// same value, so it gets no step of its own.
bool IsAlias(const NodeDef& def) {
  return def.op() == "Identity" || def.op() == "StopGradient" ||
         def.op() == "PreventGradient";
}

// Note [Loop slots]
// Every tensor of the frame has a slot: the variables, then the
// invariants, then each node's outputs (a constant's is filled once, an
// Identity shares its input's). A kernel may reuse an input's buffer for an
// output when it holds the only reference (OpKernelContext::CanForward), so
// a slot still needed later in the iteration is passed as a copy, which
// shares the buffer. The last reader of a node's output takes the slot's
// tensor instead, and may reuse it. Invariants and constants are passed as
// they are: another reference to each (the loop's input, constants_)
// outlives the loop, so no kernel can take their buffers. The copies stay
// until the next step overwrites them; that only ever keeps a kernel from
// reusing a buffer, and saves clearing them every step.
class SequentialLoopOp : public OpKernel {
 public:
  static constexpr int kMaxNesting = 64;

  explicit SequentialLoopOp(OpKernelConstruction* c) : OpKernel(c) {
    // A body may hold a loop of its own (an inner loop the pass handed over
    // first), built recursively here: a hand-written nest too deep for the
    // stack is refused instead.
    thread_local int depth = 0;
    if (depth >= kMaxNesting) {
      c->CtxFailure(errors::InvalidArgument("Sequential loops nest more than ",
                                            kMaxNesting, " deep"));
      return;
    }
    ++depth;
    const Status built = Build(c);
    --depth;
    OP_REQUIRES_OK(c, built);
  }

  void Compute(OpKernelContext* ctx) override;

 private:
  // One body node with a kernel of its own.
  struct Step {
    std::string name;
    std::string op;
    std::unique_ptr<OpKernel> kernel;
    std::vector<int> input_slots;
    // How input i reaches the kernel (Note [Loop slots]).
    enum class Pass : uint8_t { kCopy, kMove, kBorrow };
    std::vector<Pass> pass;
    int first_output_slot = 0;
  };

  // Where a tensor of the frame lives while the loop runs.
  struct SlotRef {
    int slot = 0;
    bool after_switch = false;  // only computed in iterations that go on
  };

  // What the body's names stand for, needed only while the kernel is built.
  struct Names {
    absl::flat_hash_map<std::string, SlotRef> tensors;  // "node:port"
    absl::flat_hash_map<std::string, bool> node_after_switch;
  };

  Status Build(OpKernelConstruction* c);
  Status AddBodyNode(OpKernelConstruction* c, const std::string& serialized,
                     Names* names, std::vector<Step>* steps,
                     std::vector<bool>* step_after_switch);
  // What one Compute works with.
  struct RunState {
    std::vector<Tensor> slots;
    std::vector<Tensor> inputs;  // the running step's, by copy or move
    std::vector<TensorValue> values;
    OpKernelContext::Params params;
    Device* device = nullptr;  // null: call kernels directly
  };
  Status RunSteps(const std::vector<Step>& steps, RunState* run) const;

  std::string frame_name_;
  int num_vars_ = 0;
  int num_slots_ = 0;
  DataTypeVector slot_types_;
  std::vector<std::pair<int, Tensor>> constants_;
  // Steps run every iteration, before the condition is read; then the
  // steps of iterations that go on.
  std::vector<Step> pre_steps_;
  std::vector<Step> body_steps_;
  int cond_slot_ = 0;
  std::vector<int> next_slots_;
  std::vector<bool> next_movable_;
  size_t max_inputs_ = 0;
};

Status SequentialLoopOp::Build(OpKernelConstruction* c) {
  DataTypeVector var_types, invariant_types;
  std::vector<std::string> body_nodes, var_merges, var_switches,
      invariant_enters, next_values;
  std::string cond;
  MF_RETURN_IF_ERROR(c->GetAttr("T", &var_types));
  MF_RETURN_IF_ERROR(c->GetAttr("Tinvariant", &invariant_types));
  MF_RETURN_IF_ERROR(c->GetAttr("frame_name", &frame_name_));
  MF_RETURN_IF_ERROR(c->GetAttr("body_nodes", &body_nodes));
  MF_RETURN_IF_ERROR(c->GetAttr("var_merges", &var_merges));
  MF_RETURN_IF_ERROR(c->GetAttr("var_switches", &var_switches));
  MF_RETURN_IF_ERROR(c->GetAttr("invariant_enters", &invariant_enters));
  MF_RETURN_IF_ERROR(c->GetAttr("cond", &cond));
  MF_RETURN_IF_ERROR(c->GetAttr("next_values", &next_values));
  num_vars_ = static_cast<int>(var_types.size());
  if (var_merges.size() != var_types.size() ||
      var_switches.size() != var_types.size() ||
      next_values.size() != var_types.size() ||
      invariant_enters.size() != invariant_types.size()) {
    return errors::InvalidArgument(
        "Loop frame '", frame_name_, "' has ", var_types.size(),
        " variables and ", invariant_types.size(), " invariants, but ",
        var_merges.size(), " var_merges, ", var_switches.size(),
        " var_switches, ", next_values.size(), " next_values and ",
        invariant_enters.size(), " invariant_enters");
  }
  slot_types_ = var_types;
  slot_types_.insert(slot_types_.end(), invariant_types.begin(),
                     invariant_types.end());
  num_slots_ = static_cast<int>(slot_types_.size());
  Names names;
  auto& tensors = names.tensors;
  for (int k = 0; k < num_vars_; ++k) {
    tensors[absl::StrCat(var_merges[k], ":0")] = {k, false};
    tensors[absl::StrCat(var_switches[k], ":1")] = {k, true};
  }
  for (size_t j = 0; j < invariant_enters.size(); ++j) {
    tensors[absl::StrCat(invariant_enters[j], ":0")] = {
        num_vars_ + static_cast<int>(j), false};
  }

  std::vector<Step> steps;
  std::vector<bool> step_after_switch;
  for (const std::string& serialized : body_nodes) {
    MF_RETURN_IF_ERROR(
        AddBodyNode(c, serialized, &names, &steps, &step_after_switch));
  }

  auto find = [&](const std::string& name, const char* what,
                  SlotRef* ref) -> Status {
    absl::string_view node;
    int port = 0;
    if (!SplitTensorName(name, &node, &port)) {
      return errors::InvalidArgument("Loop frame '", frame_name_, "': ", what,
                                     " '", name, "' is not a tensor name");
    }
    auto it = tensors.find(absl::StrCat(node, ":", port));
    if (it == tensors.end()) {
      return errors::InvalidArgument("Loop frame '", frame_name_, "': ", what,
                                     " '", name, "' is not a tensor of it");
    }
    *ref = it->second;
    return OkStatus();
  };
  SlotRef cond_ref;
  MF_RETURN_IF_ERROR(find(cond, "the condition", &cond_ref));
  if (cond_ref.after_switch || slot_types_[cond_ref.slot] != DT_BOOL) {
    return errors::InvalidArgument(
        "Loop frame '", frame_name_, "': the condition '", cond,
        "' must be a bool computed before the loop's Switches");
  }
  cond_slot_ = cond_ref.slot;
  for (int k = 0; k < num_vars_; ++k) {
    SlotRef next;
    MF_RETURN_IF_ERROR(find(next_values[k], "the next value", &next));
    if (slot_types_[next.slot] != var_types[k]) {
      return errors::InvalidArgument(
          "Loop frame '", frame_name_, "': loop variable ", k, " is ",
          DataTypeString(var_types[k]), " but its next value '", next_values[k],
          "' is ", DataTypeString(slot_types_[next.slot]));
    }
    next_slots_.push_back(next.slot);
  }

  // Pre steps only read pre steps, so running them all before the body
  // keeps every step after its inputs.
  for (size_t s = 0; s < steps.size(); ++s) {
    (step_after_switch[s] ? body_steps_ : pre_steps_)
        .push_back(std::move(steps[s]));
  }
  // A value is read for the last time in an iteration by its last reader
  // in the order steps run; that reader takes it, and its kernel may reuse
  // the buffer for an output. Kept (never taken): invariants, constants,
  // the condition and the next values. A variable is taken only by a body
  // step: when the condition is false its value is the loop's result.
  std::vector<int> reads_left(num_slots_, 0);
  std::vector<bool> kept(num_slots_, false);
  const int num_fixed = num_vars_ + static_cast<int>(invariant_types.size());
  for (int slot = num_vars_; slot < num_fixed; ++slot) kept[slot] = true;
  for (const auto& constant : constants_) kept[constant.first] = true;
  kept[cond_slot_] = true;
  for (int slot : next_slots_) kept[slot] = true;
  for (std::vector<Step>* part : {&pre_steps_, &body_steps_}) {
    for (const Step& step : *part) {
      for (int slot : step.input_slots) ++reads_left[slot];
    }
  }
  // Invariants and constants are never written while the loop runs, and
  // another reference to each (the loop's input, constants_) outlives it.
  std::vector<bool> borrowed(num_slots_, false);
  for (int slot = num_vars_; slot < num_fixed; ++slot) borrowed[slot] = true;
  for (const auto& constant : constants_) borrowed[constant.first] = true;
  for (std::vector<Step>* part : {&pre_steps_, &body_steps_}) {
    const bool in_body = part == &body_steps_;
    for (Step& step : *part) {
      step.pass.assign(step.input_slots.size(), Step::Pass::kCopy);
      for (size_t i = 0; i < step.input_slots.size(); ++i) {
        const int slot = step.input_slots[i];
        // A slot read twice by one step is never taken: the second read
        // would see an empty tensor.
        int same = 0;
        for (int other : step.input_slots) same += other == slot;
        if (--reads_left[slot] == 0 && !kept[slot] && same == 1 &&
            (in_body || slot >= num_vars_)) {
          step.pass[i] = Step::Pass::kMove;
        } else if (borrowed[slot]) {
          step.pass[i] = Step::Pass::kBorrow;
        }
      }
    }
  }
  // A next value that is a node's output, and no other variable's next
  // value, moves into its variable; the others are copied.
  for (int k = 0; k < num_vars_; ++k) {
    const int slot = next_slots_[k];
    bool movable = slot >= num_fixed;
    for (const auto& constant : constants_) movable &= constant.first != slot;
    for (int j = 0; j < num_vars_; ++j) {
      movable &= j == k || next_slots_[j] != slot;
    }
    next_movable_.push_back(movable);
  }
  for (const Step& step : pre_steps_) {
    max_inputs_ = std::max(max_inputs_, step.input_slots.size());
  }
  for (const Step& step : body_steps_) {
    max_inputs_ = std::max(max_inputs_, step.input_slots.size());
  }
  return OkStatus();
}

Status SequentialLoopOp::AddBodyNode(OpKernelConstruction* c,
                                     const std::string& serialized,
                                     Names* names, std::vector<Step>* steps,
                                     std::vector<bool>* step_after_switch) {
  NodeDef def;
  if (!def.ParseFromString(serialized)) {
    return errors::InvalidArgument("Loop frame '", frame_name_,
                                   "': a body node is not a NodeDef");
  }
  std::vector<int> input_slots;
  bool after_switch = false;
  for (const std::string& input : def.input()) {
    if (!input.empty() && input[0] == '^') {
      auto it = names->node_after_switch.find(input.substr(1));
      if (it == names->node_after_switch.end()) {
        return errors::AttachNodeContext(
            errors::InvalidArgument("Control input '", input,
                                    "' is not an earlier node of loop frame '",
                                    frame_name_, "'"),
            def.name(), def.op());
      }
      after_switch |= it->second;
      continue;
    }
    absl::string_view node;
    int port = 0;
    auto it = SplitTensorName(input, &node, &port)
                  ? names->tensors.find(absl::StrCat(node, ":", port))
                  : names->tensors.end();
    if (it == names->tensors.end()) {
      return errors::AttachNodeContext(
          errors::InvalidArgument("Input '", input,
                                  "' is not a loop variable, invariant or "
                                  "earlier node of loop frame '",
                                  frame_name_, "'"),
          def.name(), def.op());
    }
    input_slots.push_back(it->second.slot);
    after_switch |= it->second.after_switch;
  }
  if (IsAlias(def) && input_slots.size() == 1) {
    names->tensors[absl::StrCat(def.name(), ":0")] = {input_slots[0],
                                                      after_switch};
    names->node_after_switch[def.name()] = after_switch;
    return OkStatus();
  }
  // A NoOp only orders nodes, and the steps already run in an order that
  // respects every edge.
  if (def.op() == "NoOp") {
    names->node_after_switch[def.name()] = after_switch;
    return OkStatus();
  }

  // The pass never puts these in a body; a hand-written node might.
  static const auto* const kRefused =
      new absl::flat_hash_set<std::string>{"Switch",
                                           "RefSwitch",
                                           "Merge",
                                           "RefMerge",
                                           "Enter",
                                           "RefEnter",
                                           "Exit",
                                           "RefExit",
                                           "NextIteration",
                                           "RefNextIteration",
                                           "LoopCond",
                                           "ControlTrigger",
                                           "_Arg",
                                           "_Retval",
                                           "_Send",
                                           "_Recv",
                                           "_HostSend",
                                           "_HostRecv",
                                           "Placeholder",
                                           "PlaceholderV2",
                                           "PlaceholderWithDefault"};
  if (kRefused->contains(def.op())) {
    return errors::AttachNodeContext(
        errors::InvalidArgument("A ", def.op(),
                                " cannot run inside the sequential loop of "
                                "frame '",
                                frame_name_, "'"),
        def.name(), def.op());
  }

  Step step;
  step.name = def.name();
  step.op = def.op();
  MF_RETURN_IF_ERROR(errors::AttachNodeContext(
      CreateOpKernel(c->device_type(), c->device(), nullptr, def,
                     c->graph_def_version(), &step.kernel),
      def.name(), def.op()));
  if (step.kernel->num_inputs() != static_cast<int>(input_slots.size())) {
    return errors::AttachNodeContext(
        errors::InvalidArgument(
            "Has ", input_slots.size(), " inputs in loop frame '", frame_name_,
            "' but its kernel takes ", step.kernel->num_inputs()),
        def.name(), def.op());
  }
  for (size_t i = 0; i < input_slots.size(); ++i) {
    const DataType want = step.kernel->input_type(static_cast<int>(i));
    if (want != slot_types_[input_slots[i]]) {
      return errors::AttachNodeContext(
          errors::InvalidArgument(
              "Input ", i, " is ", DataTypeString(slot_types_[input_slots[i]]),
              " but the kernel takes ", DataTypeString(want)),
          def.name(), def.op());
    }
  }
  names->node_after_switch[def.name()] = after_switch;
  const int first = num_slots_;
  for (int o = 0; o < step.kernel->num_outputs(); ++o) {
    slot_types_.push_back(step.kernel->output_type(o));
    names->tensors[absl::StrCat(def.name(), ":", o)] = {num_slots_++,
                                                        after_switch};
  }
  // A constant has its value from the start; its slot is never written.
  if (const Tensor* value = step.kernel->const_tensor()) {
    constants_.emplace_back(first, *value);
    for (int o = first; o < num_slots_; ++o) {
      names->tensors[absl::StrCat(def.name(), ":", o - first)].after_switch =
          false;
    }
    return OkStatus();
  }
  step.input_slots = std::move(input_slots);
  step.first_output_slot = first;
  steps->push_back(std::move(step));
  step_after_switch->push_back(after_switch);
  return OkStatus();
}

Status SequentialLoopOp::RunSteps(const std::vector<Step>& steps,
                                  RunState* run) const {
  std::vector<Tensor>& slots = run->slots;
  for (const Step& step : steps) {
    const size_t n = step.input_slots.size();
    for (size_t i = 0; i < n; ++i) {
      Tensor& slot = slots[step.input_slots[i]];
      switch (step.pass[i]) {
        case Step::Pass::kBorrow:
          run->values[i] = TensorValue(&slot);
          continue;
        case Step::Pass::kMove:
          run->inputs[i] = std::move(slot);
          break;
        case Step::Pass::kCopy:
          run->inputs[i] = slot;
          break;
      }
      run->values[i] = TensorValue(&run->inputs[i]);
    }
    run->params.op_kernel = step.kernel.get();
    run->params.inputs = absl::MakeConstSpan(run->values.data(), n);
    // The outputs' slots still hold the previous iteration's values, which
    // nothing reads any more (values cross iterations only through the
    // variables' own slots): the kernel may write over them.
    run->params.recycled_outputs = &slots[step.first_output_slot];
    OpKernelContext ctx(&run->params);
    if (run->device != nullptr) {
      run->device->Compute(step.kernel.get(), &ctx);
    } else {
      step.kernel->Compute(&ctx);
    }
    if (!ctx.status().ok()) {
      return errors::AttachNodeContext(ctx.status(), step.name, step.op);
    }
    const int num_outputs = step.kernel->num_outputs();
    for (int o = 0; o < num_outputs; ++o) {
      if (!ctx.has_output(o)) {
        return errors::AttachNodeContext(
            errors::Internal("Kernel did not produce output ", o), step.name,
            step.op);
      }
      slots[step.first_output_slot + o] = std::move(*ctx.mutable_output(o));
    }
  }
  return OkStatus();
}

void SequentialLoopOp::Compute(OpKernelContext* ctx) {
  RunState run;
  run.slots.resize(num_slots_);
  std::vector<Tensor>& slots = run.slots;
  const int num_inputs = ctx->num_inputs();
  for (int i = 0; i < num_inputs; ++i) slots[i] = ctx->input(i);
  for (const auto& constant : constants_) {
    slots[constant.first] = constant.second;
  }
  run.inputs.resize(max_inputs_);
  run.values.resize(max_inputs_);
  run.params = ctx->params();
  // Devices may wrap a kernel's Compute (Device::Compute); a bare
  // DeviceBase runs it directly.
  run.device = dynamic_cast<Device*>(run.params.device);
  std::vector<Tensor> next(num_vars_);
  CancellationManager* cancellation = ctx->cancellation_manager();
  for (;;) {
    // A loop that never ends stops when the step is cancelled (a run's
    // timeout cancels it too).
    if (cancellation != nullptr && cancellation->IsCancelled()) {
      ctx->SetStatus(errors::Cancelled("Loop frame '", frame_name_,
                                       "' stopped: the step was cancelled"));
      return;
    }
    OP_REQUIRES_OK(ctx, RunSteps(pre_steps_, &run));
    const Tensor& cond = slots[cond_slot_];
    OP_REQUIRES(
        ctx, cond.dims() == 0,
        errors::InvalidArgument("The condition of loop frame '", frame_name_,
                                "' must be a scalar, got shape ",
                                cond.shape().DebugString()));
    if (!cond.scalar<bool>()()) break;
    OP_REQUIRES_OK(ctx, RunSteps(body_steps_, &run));
    // A next value may be another variable's current one: those are read
    // before any variable changes. A movable next value is a node's output
    // that no other variable takes, so it moves straight in.
    for (int k = 0; k < num_vars_; ++k) {
      if (!next_movable_[k]) next[k] = slots[next_slots_[k]];
    }
    for (int k = 0; k < num_vars_; ++k) {
      slots[k] = next_movable_[k] ? std::move(slots[next_slots_[k]])
                                  : std::move(next[k]);
    }
  }
  for (int k = 0; k < num_vars_; ++k) ctx->set_output(k, slots[k]);
}

REGISTER_KERNEL_BUILDER(Name("_SequentialLoop").Device(DEVICE_CPU),
                        SequentialLoopOp);

}  // namespace
}  // namespace minflow
