// Float NHWC Conv2D of an input with few channels (an image's RGB in a
// network's first layer), computed directly from the input. Conv2D and
// _FusedConv2D take it before the convolution library (LaunchConv2D in
// conv_2d_op.h). See Note [Shallow-input convolutions].
#pragma once

#include <cstdint>
#include <functional>

#include "minflow/framework/op_kernel.h"
#include "src/kernels/conv_ops_common.h"
#include "src/kernels/cpu_conv_library.h"

namespace minflow {
namespace internal {

// Note [Shallow-input convolutions]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// With three input channels a 3x3 patch is 27 values, too short for a
// GEMM's inner loop, and oneDNN's direct convolution ran cnn_small's first
// layer ([1,64,64,3] x [3,3,3,32]) at 78-95 GFLOP/s, against 104-112 for
// its second. Here each output pixel's out_depth values are held in
// registers (out_depth / packet vectors) for a block of pixels of one row,
// and every tap broadcasts one input value into a multiply-add with the
// filter's vector for that tap: each filter vector loaded serves the whole
// block, and the loop is all multiply-adds. The bias and a Relu or Relu6
// are applied in the registers before the single store. The input rows a
// slice of output rows reads are first copied with their padding made
// explicit (zeros), so that no tap needs a bounds check; that copy is
// (stride-many) input rows, small beside the convolution.
//
// Taken for an ungrouped, undilated float convolution of at most
// kMaxShallowInDepth input channels whose out_depth is a multiple of the
// vector width, at most kMaxShallowOutPackets vectors, and whose filter
// stays in L1 while every block reads all of it. Measured against oneDNN
// on this machine (conv_bench, one thread): cnn_small's 3x3x3x32 in the
// graph 69-72 us against 76-80; but with 64 output channels (four vectors,
// blocks of four pixels) 218-220 us against 153-160, and a ResNet stem's
// 7x7x3x64 (37 KiB of filter) 3.05 ms against 2.2-2.5, so those stay with
// the library.
constexpr int64_t kMaxShallowInDepth = 4;
constexpr int kMaxShallowOutPackets = 2;
constexpr int64_t kMaxShallowFilterBytes = 16 * 1024;

// Whether ShallowInputConv2D computes `d`.
bool UseShallowInputConv2D(const Conv2DDimensions& d);

// Computes output = conv2d(input, filter) for `d` (NHWC input and output,
// HWIO filter), then `fused` where it has a bias, calling
// `after_pixels(rows, count)`, when given, on the thread that wrote them,
// for every run of `count` output pixels starting at `rows`.
// UseShallowInputConv2D(d) must hold. Errors: the padded input rows'
// scratch failing to allocate.
Status ShallowInputConv2D(
    OpKernelContext* ctx, const Conv2DDimensions& d, const float* input,
    const float* filter, const LibraryConvEpilogue& fused, float* output,
    const std::function<void(float*, int64_t)>& after_pixels);

}  // namespace internal
}  // namespace minflow
