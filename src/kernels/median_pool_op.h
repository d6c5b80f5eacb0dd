// MedianPool2D's attr and input checks, shared by the CPU kernel and its
// GPU twin (median_pool_op_gpu.cu), and the selection networks behind the
// CPU kernel: which compare-exchanges find the lower median of a `rows` x
// `cols` window whose columns arrive sorted. Type-independent, built once
// per kernel; exposed so tests can prove each network correct exhaustively
// (0-1 principle). See Note [Median selection networks] in
// median_pool_op.cc.
#pragma once

#include <cstdint>
#include <vector>

#include "minflow/core/status.h"
#include "minflow/core/tensor_shape.h"
#include "src/kernels/conv_ops_common.h"
#include "src/kernels/median_pool_functor.h"

namespace minflow {

class OpKernelConstruction;

// Reads and checks MedianPool2D's attrs: ksize and strides 1 on batch and
// depth (the shape function's wording, checked first), then the shared
// pooling attrs (InitPoolParameters), and the NHWC data format.
Status InitMedianPoolParameters(const OpKernelConstruction* ctx,
                                PoolParameters* params);

// Checks `input` (4-D NHWC) against `params`; the pooling geometry and the
// output shape [batch, out_rows, out_cols, depth].
Status ComputeMedianPoolDimensions(const PoolParameters& params,
                                   const TensorShape& input,
                                   PoolDimensions* dimensions,
                                   TensorShape* out_shape);

namespace internal {

// The part of `d` a per-output-value median needs (median_pool_functor.h).
MedianPoolShape ToMedianPoolShape(const PoolDimensions& d);

// One step of a network: afterwards wire `lo` holds min(lo, hi) and wire
// `hi` holds max(lo, hi). A step whose other output is dead still writes
// both (the dead write is harmless and keeps the inner loop branch-free).
struct CompareExchange {
  uint16_t lo;
  uint16_t hi;
};

// The networks for one window shape. Wires: column c, row j is wire
// c * rows + j; the same `column_sort` runs on the rows of every column.
struct MedianNetwork {
  int rows = 0;
  int cols = 0;
  // Sorts wires [0, rows) ascending: rank k lands on wire column_order[k].
  std::vector<CompareExchange> column_sort;
  std::vector<int> column_order;
  // Given every column sorted by `column_sort`, leaves the element of rank
  // (rows * cols - 1) / 2 (the lower median) on wire `output`. Clobbers
  // other wires.
  std::vector<CompareExchange> select;
  int output = 0;
};

// The largest window (rows * cols) the networks serve; larger windows use
// a sliding sorted window instead. 64 keeps wire numbers and the per-thread
// work buffer small.
inline constexpr int kMaxMedianNetworkWires = 64;

// Builds the networks for a rows x cols window; 1 <= rows, cols and
// rows * cols <= kMaxMedianNetworkWires (callers check).
MedianNetwork BuildMedianNetwork(int rows, int cols);

}  // namespace internal
}  // namespace minflow
