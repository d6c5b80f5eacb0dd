// One-row products over a Const matrix packed in column panels: see Note
// [Packed GEMV panels] in matmul_gemv.h.
#include "src/kernels/matmul_gemv.h"

#include <algorithm>

#include "Eigen/Core"

namespace minflow {
namespace internal {
namespace {

using Packet = Eigen::internal::packet_traits<float>::type;
constexpr int kPacketSize = Eigen::internal::packet_traits<float>::size;
constexpr int64_t kPanelWidth = kGemvPanelPackets * kPacketSize;

// Keys of the two ways b can be laid out before packing: the panels hold
// the same numbers, but a kernel's b is one or the other for its life.
const char kPanelsOfB = 'b';
const char kPanelsOfTransposedB = 't';

}  // namespace

int64_t GemvPanelWidth() { return kPanelWidth; }

int64_t GemvPanelsSize(int64_t k, int64_t n) {
  return (n + kPanelWidth - 1) / kPanelWidth * k * kPanelWidth;
}

void PackGemvPanels(const float* b, bool transpose_b, int64_t k, int64_t n,
                    float* panels) {
  for (int64_t start = 0; start < n; start += kPanelWidth) {
    const int64_t width = std::min(kPanelWidth, n - start);
    for (int64_t r = 0; r < k; ++r) {
      float* row = panels + (start / kPanelWidth * k + r) * kPanelWidth;
      if (transpose_b) {
        for (int64_t j = 0; j < width; ++j) row[j] = b[(start + j) * k + r];
      } else {
        std::copy_n(b + r * n + start, width, row);
      }
      std::fill(row + width, row + kPanelWidth, 0.0f);
    }
  }
}

void GemvOverPanels(const float* a, int64_t k, const float* panels, int64_t n,
                    int64_t first, int64_t last, float* out) {
  using Eigen::internal::pload;
  using Eigen::internal::pmadd;
  using Eigen::internal::pset1;
  using Eigen::internal::pstore;
  using Eigen::internal::pstoreu;
  for (int64_t p = first; p < last; ++p) {
    const float* row = panels + p * k * kPanelWidth;
    Packet sum[kGemvPanelPackets];
    for (Packet& s : sum) s = pset1<Packet>(0.0f);
    for (int64_t r = 0; r < k; ++r, row += kPanelWidth) {
      const Packet weight = pset1<Packet>(a[r]);
#pragma GCC unroll 8
      for (int v = 0; v < kGemvPanelPackets; ++v) {
        sum[v] = pmadd(weight, pload<Packet>(row + v * kPacketSize), sum[v]);
      }
    }
    const int64_t start = p * kPanelWidth;
    const int64_t width = std::min(kPanelWidth, n - start);
    if (width == kPanelWidth) {
      for (int v = 0; v < kGemvPanelPackets; ++v) {
        pstoreu(out + start + v * kPacketSize, sum[v]);
      }
    } else {
      alignas(EIGEN_MAX_ALIGN_BYTES) float last_panel[kPanelWidth];
      for (int v = 0; v < kGemvPanelPackets; ++v) {
        pstore(last_panel + v * kPacketSize, sum[v]);
      }
      std::copy_n(last_panel, width, out + start);
    }
  }
}

const float* FindOrPackGemvPanels(OpKernelContext* ctx,
                                  const ConstantOperand& constant,
                                  bool transpose_b, int64_t k, int64_t n) {
  const void* layout = transpose_b ? &kPanelsOfTransposedB : &kPanelsOfB;
  if (const float* kept = constant.cache->Find(*constant.tensor, layout)) {
    return kept;
  }
  // Packing costs a pass over b, more than reading it once: only worth it
  // for panels that are kept.
  if (constant.cache->Full()) return nullptr;
  Tensor panels;
  if (!AllocateKeptCopy(ctx, GemvPanelsSize(k, n), "a matrix's GEMV panels",
                        &panels)
           .ok()) {
    return nullptr;
  }
  PackGemvPanels(constant.tensor->base<const float>(), transpose_b, k, n,
                 panels.base<float>());
  return constant.cache->Keep(*constant.tensor, layout, &panels);
}

}  // namespace internal
}  // namespace minflow
