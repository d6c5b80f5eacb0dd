// ShapeRefiner's evaluator for the small integer computations graphs do on
// shapes (Shape -> StridedSlice -> Pack -> Reshape, ...). Kernels are not
// used: these ops are evaluated directly on int32/int64 values. Private to
// src/graph.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

class NodeDef;

namespace internal {

// What is known of the value on one edge.
struct KnownValue {
  // The whole value (int32 or int64, at most the refiner's element limit).
  const Tensor* tensor = nullptr;
  // Otherwise, part of it: a vector's elements as a shape's dims (rank
  // known; unknown dims are unknown elements), or for an integer scalar a
  // one-dim shape holding it.
  shape_inference::ShapeHandle partial;
  bool scalar = false;
};

struct FoldedValue {
  bool has_tensor = false;
  Tensor tensor;
  shape_inference::ShapeHandle partial;
  bool scalar = false;
};

// Evaluates the node whose shapes `c` has just inferred when its op is one
// of the shape-computing ops and enough of its inputs are known; `outputs`
// gets one entry per output (left empty where nothing is known). Never
// fails: anything it cannot evaluate exactly stays unknown, and errors are
// left to the shape functions and kernels.
void FoldShapeComputation(const NodeDef& node_def,
                          absl::Span<const KnownValue> inputs,
                          absl::Span<const DataType> output_types,
                          int64_t max_elements,
                          shape_inference::InferenceContext* c,
                          std::vector<FoldedValue>* outputs);

}  // namespace internal
}  // namespace minflow
