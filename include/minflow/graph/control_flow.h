// The TensorFlow 1 control-flow ops by role. Stages that must treat them
// specially (the executor, shape refinement, constant folding) ask here, so
// each op name is spelled once.
#ifndef MINFLOW_GRAPH_CONTROL_FLOW_H_
#define MINFLOW_GRAPH_CONTROL_FLOW_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"

namespace minflow {

class Graph;

inline bool IsSwitchOp(absl::string_view op) {
  return op == "Switch" || op == "RefSwitch";
}
inline bool IsMergeOp(absl::string_view op) {
  return op == "Merge" || op == "RefMerge";
}
inline bool IsEnterOp(absl::string_view op) {
  return op == "Enter" || op == "RefEnter";
}
inline bool IsExitOp(absl::string_view op) {
  return op == "Exit" || op == "RefExit";
}
inline bool IsNextIterationOp(absl::string_view op) {
  return op == "NextIteration" || op == "RefNextIteration";
}
inline bool IsLoopCondOp(absl::string_view op) { return op == "LoopCond"; }
inline bool IsControlTriggerOp(absl::string_view op) {
  return op == "ControlTrigger";
}

// Any of the above: ops whose meaning is in the executor (dead tensors,
// frames, iterations), never to be evaluated ahead of time.
inline bool IsControlFlowOp(absl::string_view op) {
  return IsSwitchOp(op) || IsMergeOp(op) || IsEnterOp(op) || IsExitOp(op) ||
         IsNextIterationOp(op) || IsLoopCondOp(op) || IsControlTriggerOp(op);
}

// Note [Frames]
// A TF1 loop is a frame: Enter nodes lead into it (their `frame_name`
// names it), Exit nodes lead out to the frame it is in, and every other
// node is in the frame of its inputs. Frames nest: a loop inside a loop's
// body is a child frame. The executor runs each frame once per iteration
// of the frame around it, with its own iterations.
struct FrameDesc {
  std::string name;  // "" for the root frame
  int parent = -1;   // index in ControlFlowInfo::frames; -1 for the root
  int parallel_iterations = 1;  // the first Enter's attr
  int num_enters = 0;           // Enter nodes that lead into it
};

struct ControlFlowInfo {
  std::vector<FrameDesc> frames;   // [0] is the root frame
  std::vector<int> frame_of_node;  // by node id; -1 for removed ids
  // The frame a node's outputs go to: an Enter's child frame, an Exit's
  // parent frame, otherwise the node's own.
  std::vector<int> output_frame_of_node;
};

// Finds every node's frame. InvalidArgument naming the node and op for a
// node whose inputs come from different frames, an Exit outside any loop,
// a NextIteration whose Merge is in another frame, or an Enter without a
// frame name.
Status BuildControlFlowInfo(const Graph& graph, ControlFlowInfo* info);

}  // namespace minflow

#endif  // MINFLOW_GRAPH_CONTROL_FLOW_H_
