// MedianPool2D (NHWC, CPU): the lower median of the in-image values of each
// ksize window. Padding positions are not values (as MaxPool ignores them):
// a SAME window at the border takes the median of the fewer values it
// covers. Small windows run comparator networks vectorised across channels
// and output columns; larger ones slide a sorted window along each row.
// See Note [Median order] and Note [Median selection networks].
#define EIGEN_USE_THREADS

#include "src/kernels/median_pool_op.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "minflow/core/allocator.h"
#include "minflow/core/logging.h"
#include "minflow/core/work_sharder.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/conv_ops_common.h"

namespace minflow {

// Note [Median order]
// ~~~~~~~~~~~~~~~~~~~
// The median of a window of n in-image values is the element at index
// (n - 1) / 2 of the values sorted ascending: for an even n, the LOWER of
// the two middle values (never their mean, so the output is always one of
// the inputs and integers need no rounding rule). This is exactly what
// ExtractImagePatches -> TopKV2(k = n, sorted) -> element n / 2 gives,
// TopK's descending index n / 2 being ascending index n - 1 - n / 2 =
// (n - 1) / 2.
//
// Floating-point values are ordered by a key that is a total order: -0
// sorts just below +0, and every NaN (either sign, any payload) sorts above
// +inf, as TopK ranks NaN above every number. So the median is NaN exactly
// when a window holds at least n - (n - 1) / 2 NaNs, and then it is the
// canonical quiet NaN. The only bits that can differ from the TopK
// composite are a zero's sign (TopK breaks the -0/+0 tie by position) and
// a NaN's payload.
//
// Floats are turned into integer keys once per load (flip the magnitude
// bits of negatives; map NaN to the quiet NaN's bits), so the networks below
// run on plain integer min/max, the cheapest vector instructions there are.

// Note [Median selection networks]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A rows x cols window (rows * cols <= kMaxMedianNetworkWires) is reduced
// to its median by a fixed sequence of compare-exchanges, run on a block
// of lanes at once: each lane is one (output column, channel) pair, so
// NHWC's contiguous channels and, at stride 1, contiguous output columns
// fill whole vector registers with no shuffling.
//  1. For one output row, each input column's `rows` values are sorted
//     (an odd-even merge sort) once, in a small per-thread buffer, and
//     shared by every window that covers the column (kw of them at stride
//     1).
//  2. Each window then merges its sorted columns pairwise with Batcher's
//     odd-even merge (any lengths). After every merge, elements that
//     cannot be the median are dropped: in a sorted run of m values from
//     the window, the one at index i has i values at or below it, so with
//     target rank r it can go if i > r; from the bottom, if m - 1 - i >=
//     n - r (then r and n shrink). Finally every compare-exchange that
//     cannot reach the median's wire is deleted.
// A 3x3 window costs 12 compare-exchanges per lane after its 3 column
// sorts, 5x5 61; tests check every network up to 6x6 exhaustively with the
// 0-1 principle. Border windows (SAME) with fewer rows or cols use the
// network of their own shape; there is one per shape up to ksize.

namespace internal {
namespace {

// Records compare-exchanges while building odd-even merge networks over
// wire lists; each list is the wires of a sorted run, smallest first.
class NetworkBuilder {
 public:
  // Merges the sorted runs `a` and `b`; returns the merged run.
  std::vector<int> Merge(const std::vector<int>& a, const std::vector<int>& b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    if (a.size() == 1 && b.size() == 1) {
      Add(a[0], b[0]);
      return {a[0], b[0]};
    }
    // Merge the even- and odd-indexed halves; the result interleaves them
    // (v0 w0 v1 w1 ...) with at most adjacent pairs (w_i, v_i+1) out of
    // order, since v holds 0, 1 or 2 more of any prefix than w.
    const std::vector<int> v = Merge(Every(a, 0), Every(b, 0));
    const std::vector<int> w = Merge(Every(a, 1), Every(b, 1));
    std::vector<int> out;
    out.reserve(a.size() + b.size());
    out.push_back(v[0]);
    for (size_t i = 0; i < w.size(); ++i) {
      out.push_back(w[i]);
      if (i + 1 < v.size()) {
        Add(w[i], v[i + 1]);
        out.push_back(v[i + 1]);
      }
    }
    for (size_t i = w.size() + 1; i < v.size(); ++i) out.push_back(v[i]);
    return out;
  }

  // Sorts the wires of `list`; returns them in ascending order of value.
  std::vector<int> Sort(const std::vector<int>& list) {
    if (list.size() <= 1) return list;
    const size_t half = list.size() / 2;
    return Merge(Sort({list.begin(), list.begin() + half}),
                 Sort({list.begin() + half, list.end()}));
  }

  const std::vector<CompareExchange>& ops() const { return ops_; }

 private:
  static std::vector<int> Every(const std::vector<int>& list, size_t first) {
    std::vector<int> out;
    for (size_t i = first; i < list.size(); i += 2) out.push_back(list[i]);
    return out;
  }
  void Add(int lo, int hi) {
    ops_.push_back({static_cast<uint16_t>(lo), static_cast<uint16_t>(hi)});
  }

  std::vector<CompareExchange> ops_;
};

// The ops of `ops` whose results can reach wire `output`.
std::vector<CompareExchange> PruneDead(const std::vector<CompareExchange>& ops,
                                       int output) {
  std::vector<bool> live(kMaxMedianNetworkWires, false);
  live[output] = true;
  std::vector<CompareExchange> kept;
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    if (!live[it->lo] && !live[it->hi]) continue;
    live[it->lo] = live[it->hi] = true;
    kept.push_back(*it);
  }
  std::reverse(kept.begin(), kept.end());
  return kept;
}

}  // namespace

MedianNetwork BuildMedianNetwork(int rows, int cols) {
  MF_CHECK(rows >= 1 && cols >= 1 && rows * cols <= kMaxMedianNetworkWires)
      << "median network of " << rows << "x" << cols;
  MedianNetwork net;
  net.rows = rows;
  net.cols = cols;
  NetworkBuilder sorter;
  std::vector<int> column(rows);
  std::iota(column.begin(), column.end(), 0);
  net.column_order = sorter.Sort(column);
  net.column_sort = sorter.ops();

  // See Note [Median selection networks]: n values remain in play and the
  // median is the one of rank r among them.
  int n = rows * cols;
  int r = (n - 1) / 2;
  auto drop = [&n, &r](std::vector<int> run) {
    const int m = static_cast<int>(run.size());
    const int below = std::max(0, m - (n - r));
    run.erase(run.begin(), run.begin() + below);
    n -= below;
    r -= below;
    const int above = std::max(0, static_cast<int>(run.size()) - (r + 1));
    run.resize(run.size() - above);
    n -= above;
    return run;
  };
  std::vector<std::vector<int>> runs;
  for (int c = 0; c < cols; ++c) {
    std::vector<int> run;
    for (int k = 0; k < rows; ++k)
      run.push_back(c * rows + net.column_order[k]);
    runs.push_back(drop(std::move(run)));
  }
  NetworkBuilder merger;
  while (runs.size() > 1) {
    std::vector<std::vector<int>> merged;
    for (size_t i = 0; i + 1 < runs.size(); i += 2) {
      merged.push_back(drop(merger.Merge(runs[i], runs[i + 1])));
    }
    if (runs.size() % 2 == 1) merged.push_back(std::move(runs.back()));
    runs = std::move(merged);
  }
  MF_CHECK_EQ(static_cast<int>(runs[0].size()), n);
  net.output = runs[0][r];
  net.select = PruneDead(merger.ops(), net.output);
  return net;
}

// Keys of the half types (Note [Median order]); the integer, float and
// double keys are in median_pool_functor.h, shared with the GPU kernel.
template <>
struct OrderKey<half> : FloatOrderKey<half, uint16_t, 0x7C00, 0x7E00> {};
template <>
struct OrderKey<bfloat16> : FloatOrderKey<bfloat16, uint16_t, 0x7F80, 0x7FC0> {
};

}  // namespace internal

Status InitMedianPoolParameters(const OpKernelConstruction* ctx,
                                PoolParameters* params) {
  // The shape function's wording; checked first because the shared
  // pooling attrs would call some of these cases Unimplemented.
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  MF_RETURN_IF_ERROR(ctx->GetAttr("ksize", &ksize));
  MF_RETURN_IF_ERROR(ctx->GetAttr("strides", &strides));
  if (ksize.size() == 4 && strides.size() == 4 &&
      !(ksize[0] == 1 && ksize[3] == 1 && strides[0] == 1 && strides[3] == 1)) {
    return errors::InvalidArgument(
        "MedianPool2D does not pool over the batch or depth "
        "dimensions: ksize and strides must be 1 there");
  }
  MF_RETURN_IF_ERROR(InitPoolParameters(ctx, params));
  if (params->data_format != FORMAT_NHWC) {
    return errors::InvalidArgument(
        "MedianPool2D supports only the NHWC data format, got ",
        ToString(params->data_format));
  }
  return OkStatus();
}

Status ComputeMedianPoolDimensions(const PoolParameters& params,
                                   const TensorShape& input,
                                   PoolDimensions* dimensions,
                                   TensorShape* out_shape) {
  MF_RETURN_IF_ERROR(ComputePoolDimensions(params, input, dimensions));
  const PoolDimensions& d = *dimensions;
  return TensorShape::BuildTensorShape(
      {d.batch, d.out_rows, d.out_cols, d.out_depth}, out_shape);
}

namespace internal {

MedianPoolShape ToMedianPoolShape(const PoolDimensions& d) {
  MedianPoolShape s;
  s.input_rows = d.input_rows;
  s.input_cols = d.input_cols;
  s.depth = d.in_depth;
  s.out_rows = d.out_rows;
  s.out_cols = d.out_cols;
  s.filter_rows = d.filter_rows;
  s.filter_cols = d.filter_cols;
  s.stride_rows = d.stride_rows;
  s.stride_cols = d.stride_cols;
  s.pad_rows_before = d.pad_rows_before;
  s.pad_cols_before = d.pad_cols_before;
  return s;
}

}  // namespace internal

namespace {

using internal::CompareExchange;
using internal::MedianNetwork;
using internal::OrderKey;

template <typename T, typename Key>
void ToKeys(const T* src, int64_t n, Key* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = OrderKey<T>::To(src[i]);
}
template <typename T, typename Key>
void FromKeys(const Key* src, int64_t n, T* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = OrderKey<T>::From(src[i]);
}

// One compare-exchange on a block of kLanes lanes: lo[i], hi[i] = min, max.
// Written with GCC/Clang vector types because, as a plain loop, GCC turns
// lo[i] = min(lo[i], hi[i]) into "store only where hi[i] < lo[i]": masked
// stores behind a data-dependent branch that mispredicts constantly.
template <int kLanes, typename Key>
inline void CompareExchangeBlock(Key* __restrict lo, Key* __restrict hi) {
  constexpr int kVectorBytes = 64;
  typedef Key Vector __attribute__((vector_size(kVectorBytes)));
  constexpr int kPerVector = kVectorBytes / static_cast<int>(sizeof(Key));
  static_assert(kLanes % kPerVector == 0, "whole vectors per block");
  for (int i = 0; i < kLanes; i += kPerVector) {
    Vector a;
    Vector b;
    std::memcpy(&a, lo + i, kVectorBytes);
    std::memcpy(&b, hi + i, kVectorBytes);
    const auto a_first = a < b;  // all ones where a < b
    const Vector min = a_first ? a : b;
    const Vector max = a_first ? b : a;
    std::memcpy(lo + i, &min, kVectorBytes);
    std::memcpy(hi + i, &max, kVectorBytes);
  }
}

// CompareExchangeBlock over a row of any length.
template <typename Key>
void CompareExchangeRow(Key* __restrict lo, Key* __restrict hi, int64_t n) {
  constexpr int kStep = static_cast<int>(64 / sizeof(Key));
  int64_t i = 0;
  for (; i + kStep <= n; i += kStep) {
    CompareExchangeBlock<kStep>(lo + i, hi + i);
  }
  for (; i < n; ++i) {
    const Key a = lo[i];
    const Key b = hi[i];
    lo[i] = std::min(a, b);
    hi[i] = std::max(a, b);
  }
}

// Scratch memory for the windows and for the tiling of one output row;
// each block of rows Shard hands out gets its own.
constexpr int64_t kScratchBudgetBytes = 64 * 1024;

struct MedianPoolGeometry {
  PoolDimensions d;
  int64_t channel_tile = 1;  // channels per pass over a row
  int64_t col_tile = 1;      // output columns per network pass
  bool use_networks = false;
  // Most in-image values a window can hold; bounded by the input's size
  // even when ksize is huge.
  int64_t max_window = 1;
};

template <typename T>
class MedianPoolRows {
 public:
  using Key = typename OrderKey<T>::Key;
  // 128 bytes of lanes: two AVX-512 or four AVX2 registers per wire.
  static constexpr int kLanes = static_cast<int>(128 / sizeof(Key));

  MedianPoolRows(const MedianPoolGeometry& g,
                 const std::vector<MedianNetwork>& networks, const T* input,
                 T* output)
      : g_(g), d_(g.d), networks_(networks), in_(input), out_(output) {}

  // Keys of per-block scratch Run needs.
  int64_t ScratchKeys() const {
    if (!g_.use_networks) return g_.channel_tile * g_.max_window;
    const int64_t span = (g_.col_tile - 1) * d_.stride_cols + d_.filter_cols;
    return d_.filter_rows * span * g_.channel_tile +
           int64_t{internal::kMaxMedianNetworkWires} * kLanes;
  }

  // Output rows [begin, end) of the flattened (batch, out_rows).
  void Run(int64_t begin, int64_t end, Key* scratch) const {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = row / d_.out_rows;
      const int64_t oh = row % d_.out_rows;
      const int64_t h_start = oh * d_.stride_rows - d_.pad_rows_before;
      const int64_t h0 = std::max<int64_t>(h_start, 0);
      const int64_t rows =
          std::min(h_start + d_.filter_rows, d_.input_rows) - h0;
      const T* in =
          in_ + (b * d_.input_rows + h0) * d_.input_cols * d_.in_depth;
      T* out = out_ + row * d_.out_cols * d_.in_depth;
      for (int64_t c0 = 0; c0 < d_.in_depth; c0 += g_.channel_tile) {
        const int64_t ct = std::min(g_.channel_tile, d_.in_depth - c0);
        if (g_.use_networks) {
          NetworkPass(in + c0, rows, ct, out + c0, scratch);
        } else {
          SlidingPass(in + c0, rows, ct, out + c0, scratch);
        }
      }
    }
  }

 private:
  const MedianNetwork& Network(int64_t rows, int64_t cols) const {
    return networks_[(rows - 1) * d_.filter_cols + (cols - 1)];
  }

  // First in-image input column and number of in-image columns of output
  // column ow's window.
  void WindowCols(int64_t ow, int64_t* w0, int64_t* cols) const {
    const int64_t w_start = ow * d_.stride_cols - d_.pad_cols_before;
    *w0 = std::max<int64_t>(w_start, 0);
    *cols = std::min(w_start + d_.filter_cols, d_.input_cols) - *w0;
  }

  // One output row's channels [c0, c0 + ct) (`in` and `out` already point
  // at channel c0 of the window's first input row and of the output row).
  void NetworkPass(const T* in, int64_t rows, int64_t ct, T* out,
                   Key* scratch) const {
    const int64_t depth = d_.in_depth;
    const int64_t row_stride = d_.input_cols * depth;
    Key* work = scratch;
    Key* columns = scratch + int64_t{internal::kMaxMedianNetworkWires} * kLanes;
    const MedianNetwork& column_net = Network(rows, 1);
    for (int64_t a = 0; a < d_.out_cols; a += g_.col_tile) {
      const int64_t e = std::min(a + g_.col_tile, d_.out_cols);
      const int64_t x_lo =
          std::max<int64_t>(a * d_.stride_cols - d_.pad_cols_before, 0);
      const int64_t x_hi = std::min(
          (e - 1) * d_.stride_cols - d_.pad_cols_before + d_.filter_cols,
          d_.input_cols);
      // columns[j][x - x_lo][c]: input row j of the window, as keys.
      const int64_t pitch = (x_hi - x_lo) * ct;
      for (int64_t j = 0; j < rows; ++j) {
        const T* src = in + j * row_stride + x_lo * depth;
        Key* dst = columns + j * pitch;
        if (ct == depth) {
          ToKeys(src, pitch, dst);
        } else {
          for (int64_t x = 0; x < x_hi - x_lo; ++x) {
            ToKeys(src + x * depth, ct, dst + x * ct);
          }
        }
      }
      for (const CompareExchange& op : column_net.column_sort) {
        CompareExchangeRow(columns + op.lo * pitch, columns + op.hi * pitch,
                           pitch);
      }
      // Whole windows come in one run, which shares a network; border
      // windows (SAME) go one by one with the network of their own shape.
      int64_t ow = a;
      while (ow < e) {
        int64_t w0;
        int64_t cols;
        WindowCols(ow, &w0, &cols);
        int64_t count = 1;
        if (cols == d_.filter_cols) {
          const int64_t last_whole =
              (d_.input_cols + d_.pad_cols_before - d_.filter_cols) /
              d_.stride_cols;
          count = std::min(e, last_whole + 1) - ow;
        }
        Windows(Network(rows, cols), columns + (w0 - x_lo) * ct, pitch, ct,
                count, out + ow * depth, work);
        ow += count;
      }
    }
  }

  // `count` consecutive output columns whose windows all have net's shape;
  // `columns` points at the first window's first column. Lane l of the
  // flattened (output column q, channel c) pairs is q * ct + c.
  void Windows(const MedianNetwork& net, const Key* columns, int64_t pitch,
               int64_t ct, int64_t count, T* out, Key* work) const {
    const int64_t total = count * ct;
    const int64_t q_stride = d_.stride_cols * ct;  // between output columns
    for (int64_t l0 = 0; l0 < total; l0 += kLanes) {
      const int64_t len = std::min<int64_t>(kLanes, total - l0);
      for (int i = 0; i < net.cols; ++i) {
        for (int j = 0; j < net.rows; ++j) {
          Gather(columns + j * pitch + i * ct, l0, len, ct, q_stride,
                 work + (i * net.rows + j) * kLanes);
        }
      }
      for (const CompareExchange& op : net.select) {
        CompareExchangeBlock<kLanes>(work + op.lo * kLanes,
                                     work + op.hi * kLanes);
      }
      Scatter(work + net.output * kLanes, l0, len, ct, out);
    }
  }

  // dst[l] = lane l0 + l of a window wire: src[q * q_stride + c].
  static void Gather(const Key* src, int64_t l0, int64_t len, int64_t ct,
                     int64_t q_stride, Key* dst) {
    if (q_stride == ct) {  // stride 1: the lanes are contiguous
      if (len == kLanes) {
        std::memcpy(dst, src + l0, kLanes * sizeof(Key));
      } else {
        std::copy_n(src + l0, len, dst);
      }
      return;
    }
    for (int64_t l = 0; l < len;) {
      const int64_t q = (l0 + l) / ct;
      const int64_t c = (l0 + l) % ct;
      const int64_t n = std::min(ct - c, len - l);
      std::copy_n(src + q * q_stride + c, n, dst + l);
      l += n;
    }
  }

  // Lanes [l0, l0 + len) of the medians into the output row.
  void Scatter(const Key* src, int64_t l0, int64_t len, int64_t ct,
               T* out) const {
    const int64_t depth = d_.in_depth;
    if (ct == depth) {
      FromKeys(src, len, out + l0);
      return;
    }
    for (int64_t l = 0; l < len;) {
      const int64_t q = (l0 + l) / ct;
      const int64_t c = (l0 + l) % ct;
      const int64_t n = std::min(ct - c, len - l);
      FromKeys(src + l, n, out + q * depth + c);
      l += n;
    }
  }

  // Windows too large for a network: per channel, a sorted array of the
  // window's keys, updated as the window slides right (the columns it
  // leaves removed, those it enters inserted; binary search + memmove).
  void SlidingPass(const T* in, int64_t rows, int64_t ct, T* out,
                   Key* sorted) const {
    const int64_t depth = d_.in_depth;
    const int64_t row_stride = d_.input_cols * depth;
    const int64_t cap = g_.max_window;
    int64_t x0 = 0;  // the current window's columns are [x0, x1)
    int64_t x1 = 0;
    int64_t size = 0;
    for (int64_t ow = 0; ow < d_.out_cols; ++ow) {
      int64_t w0;
      int64_t cols;
      WindowCols(ow, &w0, &cols);
      if (w0 >= x1) {  // no overlap: start over
        x0 = x1 = w0;
        size = 0;
      }
      const int64_t w1 = w0 + cols;
      int64_t n = size;
      for (int64_t c = 0; c < ct; ++c) {
        Key* keys = sorted + c * cap;
        n = size;
        for (int64_t x = x0; x < w0; ++x) {
          for (int64_t j = 0; j < rows; ++j) {
            const Key k = OrderKey<T>::To(in[j * row_stride + x * depth + c]);
            Key* at = std::lower_bound(keys, keys + n, k);
            std::memmove(at, at + 1, (keys + n - at - 1) * sizeof(Key));
            --n;
          }
        }
        for (int64_t x = x1; x < w1; ++x) {
          for (int64_t j = 0; j < rows; ++j) {
            const Key k = OrderKey<T>::To(in[j * row_stride + x * depth + c]);
            Key* at = std::upper_bound(keys, keys + n, k);
            std::memmove(at + 1, at, (keys + n - at) * sizeof(Key));
            *at = k;
            ++n;
          }
        }
        out[ow * depth + c] = OrderKey<T>::From(keys[(n - 1) / 2]);
      }
      size = n;
      x0 = w0;
      x1 = w1;
    }
  }

  const MedianPoolGeometry& g_;
  const PoolDimensions& d_;
  const std::vector<MedianNetwork>& networks_;
  const T* in_;
  T* out_;
};

// Per-block scratch from the device's allocator, so the kernel's temporary
// memory shows in its stats.
class ScratchBuffer {
 public:
  ScratchBuffer(Allocator* allocator, size_t bytes)
      : allocator_(allocator),
        bytes_(bytes),
        data_(allocator->AllocateRaw(kAllocatorAlignment, bytes)) {}
  ~ScratchBuffer() {
    if (data_ != nullptr) allocator_->DeallocateRaw(data_, bytes_);
  }
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  void* data() const { return data_; }

 private:
  Allocator* allocator_;
  size_t bytes_;
  void* data_;
};

template <typename T>
class MedianPool2DOp : public OpKernel {
 public:
  using Key = typename OrderKey<T>::Key;

  explicit MedianPool2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, InitMedianPoolParameters(ctx, &params_));
    const int64_t rows = params_.ksize[1];
    const int64_t cols = params_.ksize[2];
    if (rows * cols <= internal::kMaxMedianNetworkWires) {
      for (int64_t r = 1; r <= rows; ++r) {
        for (int64_t c = 1; c <= cols; ++c) {
          networks_.push_back(internal::BuildMedianNetwork(
              static_cast<int>(r), static_cast<int>(c)));
        }
      }
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    MedianPoolGeometry g;
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, ComputeMedianPoolDimensions(params_, input.shape(),
                                                    &g.d, &out_shape));
    const PoolDimensions& d = g.d;
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &output));
    if (out_shape.num_elements() == 0) return;

    const double cycles_per_value = Plan(&g);
    const MedianPoolRows<T> rows(g, networks_, input.base<const T>(),
                                 output->base<T>());
    const size_t scratch_bytes = rows.ScratchKeys() * sizeof(Key);
    Allocator* allocator = ctx->get_allocator(AllocatorAttributes());
    std::atomic<bool> out_of_memory{false};
    const double row_cost =
        cycles_per_value * static_cast<double>(d.out_cols * d.in_depth);
    const auto* workers = ctx->device()->tensorflow_cpu_worker_threads();
    Shard(workers->num_threads, workers->workers, d.batch * d.out_rows,
          static_cast<int64_t>(std::min(row_cost, 1e15)),
          [&](int64_t begin, int64_t end) {
            ScratchBuffer scratch(allocator, scratch_bytes);
            if (scratch.data() == nullptr) {
              out_of_memory = true;
              return;
            }
            // Lanes past a partial block are computed too: keep them
            // initialised.
            std::memset(scratch.data(), 0, scratch_bytes);
            rows.Run(begin, end, static_cast<Key*>(scratch.data()));
          });
    OP_REQUIRES(
        ctx, !out_of_memory,
        errors::ResourceExhausted("OOM when allocating ", scratch_bytes,
                                  " bytes of scratch for MedianPool2D"));
  }

 private:
  // Chooses the path and the tiling; returns the estimated cycles per
  // output value (Shard's cost model).
  double Plan(MedianPoolGeometry* g) const {
    const PoolDimensions& d = g->d;
    const int64_t key_bytes = sizeof(Key);
    const int64_t window = std::min(d.filter_rows, d.input_rows) *
                           std::min(d.filter_cols, d.input_cols);
    g->max_window = window;
    g->use_networks = !networks_.empty();
    if (!g->use_networks) {
      g->channel_tile = std::clamp<int64_t>(
          4 * kScratchBudgetBytes / (window * key_bytes), 1, d.in_depth);
      g->col_tile = d.out_cols;
      const double per_update = window / 16.0 + 20.0;
      // Each step removes and inserts up to stride columns of rows values.
      const double updates =
          static_cast<double>(std::min(d.filter_rows, d.input_rows)) *
          static_cast<double>(
              std::min({d.stride_cols, d.filter_cols, d.input_cols})) *
          2;
      return per_update * updates;
    }
    // All channels at once when a few windows of them fit the budget;
    // otherwise whole lane blocks of channels.
    constexpr int64_t kLanes = MedianPoolRows<T>::kLanes;
    const int64_t window_bytes = window * key_bytes;
    if (window_bytes * d.in_depth * 2 <= kScratchBudgetBytes) {
      g->channel_tile = d.in_depth;
    } else {
      g->channel_tile = std::min(
          d.in_depth,
          std::max<int64_t>(kLanes, kScratchBudgetBytes / (2 * window_bytes) /
                                        kLanes * kLanes));
    }
    const int64_t span = std::max(
        d.filter_cols,
        kScratchBudgetBytes / (d.filter_rows * g->channel_tile * key_bytes));
    g->col_tile =
        std::min(d.out_cols, (span - d.filter_cols) / d.stride_cols + 1);
    const MedianNetwork& full = networks_.back();
    // Measured: ~6 cycles per compare-exchange or wire copy of a block.
    const double per_block =
        6.0 * static_cast<double>(full.select.size() + window) +
        6.0 * static_cast<double>(full.column_sort.size()) *
            static_cast<double>(d.filter_cols) /
            static_cast<double>(d.stride_cols);
    return per_block / kLanes + 2.0;
  }

  PoolParameters params_;
  // For windows of up to kMaxMedianNetworkWires values: one network per
  // shape rows x cols <= ksize, at (rows - 1) * ksize_cols + cols - 1.
  // Empty for larger windows.
  std::vector<MedianNetwork> networks_;
};

#define REGISTER_CPU(T)                                               \
  REGISTER_KERNEL_BUILDER(                                            \
      Name("MedianPool2D").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      MedianPool2DOp<T>);
TF_CALL_REAL_NUMBER_TYPES(REGISTER_CPU)
#undef REGISTER_CPU

}  // namespace
}  // namespace minflow
