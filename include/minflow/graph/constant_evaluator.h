// ConstantEvaluator: runs one node's registered CPU kernel on host tensors,
// outside any session. Shape inference uses it to compute the small integer
// values shape functions read (shapes, sizes, indices), and constant
// folding to replace a computation on constants by its result: so there is
// one implementation of every op's semantics, its kernel.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"

namespace minflow {

class CpuDevice;
class NodeDef;

// Not thread-safe: one evaluator per refiner or pass.
class ConstantEvaluator {
 public:
  // `graph_def_version` is passed to kernels as the graph's producer.
  explicit ConstantEvaluator(int graph_def_version);
  ~ConstantEvaluator();
  ConstantEvaluator(const ConstantEvaluator&) = delete;
  ConstantEvaluator& operator=(const ConstantEvaluator&) = delete;

  // Whether `node_def`'s op may be evaluated at all: registered, not
  // stateful (random numbers, variables, queues must run each step), with
  // a CPU kernel for these attrs.
  static bool CanEvaluate(const NodeDef& node_def);

  // Runs `node_def` (attr defaults are added) on `inputs`, one per input of
  // the node. Every output must have a fully known shape in
  // `output_shapes` (what shape inference found) of a numeric or bool
  // dtype, and all outputs together at most `max_output_bytes`; otherwise
  // nothing runs and the result is FailedPrecondition, so a small input
  // can never ask for a huge output. Then NotFound when there is no CPU
  // kernel, or the kernel's own error. `*outputs` gets one tensor per
  // output, each checked against its expected shape.
  Status Evaluate(const NodeDef& node_def, absl::Span<const Tensor> inputs,
                  absl::Span<const PartialTensorShape> output_shapes,
                  int64_t max_output_bytes, std::vector<Tensor>* outputs);

  // Number of kernels run so far (for tests and statistics).
  int64_t num_evaluated() const { return num_evaluated_; }

 private:
  const int graph_def_version_;
  std::unique_ptr<CpuDevice> device_;
  int64_t num_evaluated_ = 0;
};

}  // namespace minflow
