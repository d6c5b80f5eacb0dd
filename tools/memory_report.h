// What a step's tensors need at least: the liveness bound that `minflow
// bench` prints next to the memory a run really took.
#pragma once

#include <cstdint>

#include "minflow/graph.pb.h"
#include "minflow/step_stats.pb.h"

namespace minflow {
namespace tools {

// The largest sum of the bytes of tensors alive at the same moment of the
// traced step `stats`, in the order and with the overlaps it ran. A tensor
// lives from its producer's start to the end of its last consumer in
// `partition` (the graph the step ran, with its edges), or of its producer
// when nothing consumes it. A kernel's scratch (an im2col buffer) is not
// counted: the stats give only its cumulative bytes, not its peak, so a run
// may also take more than this. Constants and fed tensors (Const, _Arg) are not
// counted: they exist before the step and after it. Two tensors sharing a
// buffer (an output that reuses an input) count twice, so a run can take
// less than this.
int64_t LivenessBoundBytes(const StepStats& stats, const GraphDef& partition);

}  // namespace tools
}  // namespace minflow
