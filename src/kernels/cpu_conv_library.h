// Float NHWC Conv2D through oneDNN's convolution primitive when the GEMM
// library (cpu_gemm.h) is loaded; Conv2D and _FusedConv2D fall back to their
// im2col tiles when it is not. See Note [CPU convolution library].
#pragma once

#include <cstdint>
#include <functional>

#include "minflow/framework/op_kernel.h"
#include "src/kernels/constant_layout_cache.h"
#include "src/kernels/conv_ops_common.h"

namespace minflow {
namespace internal {

// Note [CPU convolution library]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// im2col + sgemm spent a third of cnn_small's convolutions outside the
// GEMM (copying patches; a 27-deep patch makes a poor GEMM), while
// oneDNN's direct convolution reads the NHWC input in place: 3x3x3->32 on
// 64x64 took 75 us against 179 us, 3x3x32->64 on 32x32 329 us against 437
// us (one thread, bias and Relu included; bench/README.md). So an ungrouped
// float convolution goes to the primitive when the library is loaded, with
// a fused bias and Relu or Relu6 applied by the primitive as it writes
// each value (other fusions run minflow's epilogue after each slice).
//
// The primitive wants its weights in a blocked layout of its choosing; they
// are reordered from HWIO on every call (about 1 us for 32x64 3x3 filters;
// one pass over the filter, as sgemm's packing of it on every call was), so
// no cached copy can go stale when a filter changes, unless the filter is
// a Const's (Note [Reordered constant filters]). Primitives are
// cached by geometry for the process. As with the GEMMs, each primitive
// runs on one thread: the output rows of each image are split into as
// many slices as the intra-op pool has threads (each slice a convolution of
// its own, padded only where it meets the image's edge), and the slices
// are sharded over the pool.

// A bias and an activation that oneDNN applies to each output value as it
// writes it, in place of an epilogue pass over the output afterwards.
enum class LibraryActivation { kNone, kRelu, kRelu6 };
struct LibraryConvEpilogue {
  const float* bias = nullptr;  // out_depth values; null: nothing fused
  LibraryActivation activation = LibraryActivation::kNone;
};

// Note [Reordered constant filters]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Reordering on every call costs what reading and writing the filter once
// costs: little for cnn_small's 73 KiB (1-4 us), but 0.13-0.24 ms against
// 2 ms of convolution for a 3x3x256x256 filter on 14x14 at batch 1, and
// relatively more for deeper layers on smaller images. So a convolution
// whose filter is a Const on its device keeps the reordered copy, one per
// oneDNN weights layout (Note [Kept constant layouts]).

// Computes output = conv2d(input, filter) for `d` (NHWC input and output,
// HWIO filter), then `fused` where it has a bias, and calls
// `after_pixels(rows, count)`, when given, on the thread that wrote them
// for every slice of `count` output pixels starting at `rows`. Sets
// `*done` to false, with nothing written, when the library is absent, the
// convolution is grouped, or the library declines it; the caller then
// computes it. `constant`, when set, is `filter`'s tensor and the cache
// that keeps its reordered copies. Errors: the allocation of the reordered
// filter or of a scratchpad failing.
Status LibraryConv2D(OpKernelContext* ctx, const Conv2DDimensions& d,
                     const float* input, const float* filter,
                     const LibraryConvEpilogue& fused, float* output,
                     const std::function<void(float*, int64_t)>& after_pixels,
                     const ConstantOperand& constant, bool* done);

}  // namespace internal
}  // namespace minflow
