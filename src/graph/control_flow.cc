#include "minflow/graph/control_flow.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"

namespace minflow {
namespace {

Status FrameError(const Node& node, absl::string_view message) {
  return errors::AttachNodeContext(errors::InvalidArgument(message),
                                   node.name(), node.type_string());
}

std::string FrameLabel(const ControlFlowInfo& info, int frame) {
  return frame == 0 ? std::string("the root frame")
                    : absl::StrCat("frame '", info.frames[frame].name, "'");
}

}  // namespace

Status BuildControlFlowInfo(const Graph& graph, ControlFlowInfo* info) {
  info->frames.assign(1, FrameDesc());
  info->frame_of_node.assign(graph.num_node_ids(), -1);
  // (parent frame, name) -> child frame.
  std::map<std::pair<int, std::string>, int> children;
  std::vector<Node*> order;
  MF_RETURN_IF_ERROR(TopologicalOrder(graph, &order));
  // The frame a node's outputs are in: Enter's lead into its child frame,
  // Exit's out to the parent, the rest stay.
  std::vector<int>& output_frame = info->output_frame_of_node;
  output_frame.assign(graph.num_node_ids(), -1);
  for (const Node* node : order) {
    int frame = -1;
    const Node* first_source = nullptr;
    for (const Edge* e : node->in_edges()) {
      if (e->IsBackEdge()) continue;
      const int from = output_frame[e->src->id()];
      if (frame < 0) {
        frame = from;
        first_source = e->src;
      } else if (from != frame) {
        return FrameError(
            *node,
            absl::StrCat(
                "Node '", node->name(), "' has inputs from different frames: '",
                first_source->name(), "' in ", FrameLabel(*info, frame),
                " and '", e->src->name(), "' in ", FrameLabel(*info, from)));
      }
    }
    if (frame < 0) frame = 0;  // no inputs: the root frame
    info->frame_of_node[node->id()] = frame;
    const std::string& op = node->type_string();
    int out = frame;
    if (IsEnterOp(op)) {
      std::string name;
      int64_t parallel = 10;
      MF_RETURN_IF_ERROR(
          GetNodeAttr(AttrSlice(node->def()), "frame_name", &name));
      MF_RETURN_IF_ERROR(GetNodeAttr(AttrSlice(node->def()),
                                     "parallel_iterations", &parallel));
      if (name.empty()) {
        return FrameError(*node, "Enter has an empty frame_name");
      }
      if (parallel < 1) {
        return FrameError(
            *node, absl::StrCat("Enter has parallel_iterations ", parallel,
                                "; it must be at least 1"));
      }
      auto [it, added] = children.try_emplace({frame, name}, 0);
      if (added) {
        it->second = static_cast<int>(info->frames.size());
        FrameDesc child;
        child.name = name;
        child.parent = frame;
        child.parallel_iterations =
            static_cast<int>(std::min<int64_t>(parallel, 1 << 20));
        info->frames.push_back(child);
      }
      out = it->second;
      ++info->frames[out].num_enters;
    } else if (IsExitOp(op)) {
      if (frame == 0) {
        return FrameError(
            *node,
            absl::StrCat("Exit node '", node->name(),
                         "' is not inside a loop: no Enter leads to it"));
      }
      out = info->frames[frame].parent;
    }
    output_frame[node->id()] = out;
  }
  // A loop's back edge stays in its frame.
  for (const Node* node : order) {
    if (!node->IsNextIteration()) continue;
    for (const Edge* e : node->out_edges()) {
      const int from = info->frame_of_node[node->id()];
      const int to = info->frame_of_node[e->dst->id()];
      if (from != to) {
        return FrameError(
            *node, absl::StrCat("NextIteration '", node->name(), "' in ",
                                FrameLabel(*info, from), " feeds '",
                                e->dst->name(), "' in ", FrameLabel(*info, to),
                                "; a loop's back edge must stay in its frame"));
      }
    }
  }
  return OkStatus();
}

}  // namespace minflow
