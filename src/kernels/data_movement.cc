#include "src/kernels/data_movement.h"

#include <algorithm>

#include "minflow/core/logging.h"
#include "minflow/core/work_sharder.h"

namespace minflow {
namespace {

void RunSharded(const CpuWorkerThreads* workers, int64_t total,
                int64_t cost_per_unit,
                const std::function<void(int64_t, int64_t)>& work) {
  if (workers == nullptr) {
    if (total > 0) work(0, total);
    return;
  }
  Shard(workers->num_threads, workers->workers, total, cost_per_unit, work);
}

template <typename E>
void CopyStridedBoxImpl(const CpuWorkerThreads* workers, const E* src,
                        absl::Span<const int64_t> sizes,
                        absl::Span<const int64_t> src_strides, E* dst) {
  // Drop unit dimensions and merge a dimension into its outer neighbour
  // when the two are contiguous in src (dst is always dense).
  for (int64_t s : sizes) {
    if (s == 0) return;
  }
  absl::InlinedVector<int64_t, 8> sz;
  absl::InlinedVector<int64_t, 8> st;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    if (!sz.empty() && st.back() == src_strides[d] * sizes[d]) {
      sz.back() *= sizes[d];
      st.back() = src_strides[d];
    } else {
      sz.push_back(sizes[d]);
      st.push_back(src_strides[d]);
    }
  }
  if (sz.empty()) {
    dst[0] = src[0];
    return;
  }
  const int64_t inner_n = sz.back();
  const int64_t inner_s = st.back();
  sz.pop_back();
  st.pop_back();
  const int outer_rank = static_cast<int>(sz.size());
  int64_t rows = 1;
  for (int64_t s : sz) rows *= s;

  const int64_t cost = inner_s == 1
                           ? MoveCost(inner_n * static_cast<int64_t>(sizeof(E)))
                           : inner_n + 1;
  RunSharded(workers, rows, cost, [&](int64_t begin, int64_t end) {
    absl::InlinedVector<int64_t, 8> idx(outer_rank);
    int64_t rem = begin;
    int64_t src_off = 0;
    for (int d = outer_rank - 1; d >= 0; --d) {
      idx[d] = rem % sz[d];
      rem /= sz[d];
      src_off += idx[d] * st[d];
    }
    E* out = dst + begin * inner_n;
    for (int64_t r = begin; r < end; ++r) {
      const E* in = src + src_off;
      if (inner_s == 1) {
        CopyElements(out, in, inner_n);
      } else {
        for (int64_t i = 0; i < inner_n; ++i) out[i] = in[i * inner_s];
      }
      out += inner_n;
      for (int d = outer_rank - 1; d >= 0; --d) {
        src_off += st[d];
        if (++idx[d] < sz[d]) break;
        src_off -= st[d] * sz[d];
        idx[d] = 0;
      }
    }
  });
}

template <typename E>
void ConcatRowsImpl(const CpuWorkerThreads* workers,
                    absl::Span<const void* const> inputs,
                    absl::Span<const int64_t> widths, int64_t rows, E* out) {
  const size_t n = inputs.size();
  absl::InlinedVector<int64_t, 16> prefix(n + 1, 0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + widths[i];
  const int64_t row_width = prefix[n];
  if (rows == 0 || row_width == 0) return;
  // Work in blocks of ~4 KB of output, whatever the row structure, so one
  // huge row (axis 0) and many tiny rows (last axis) both spread evenly.
  const int64_t block = std::max<int64_t>(1, 4096 / sizeof(E));
  const int64_t total = rows * row_width;
  const int64_t num_blocks = (total + block - 1) / block;
  RunSharded(workers, num_blocks, MoveCost(4096),
             [&](int64_t first_block, int64_t end_block) {
               int64_t pos = first_block * block;
               const int64_t end = std::min(total, end_block * block);
               int64_t row = pos / row_width;
               int64_t col = pos % row_width;
               size_t i = std::upper_bound(prefix.begin(), prefix.end(), col) -
                          prefix.begin() - 1;
               while (pos < end) {
                 const int64_t take = std::min(prefix[i + 1] - col, end - pos);
                 const E* in = static_cast<const E*>(inputs[i]) +
                               row * widths[i] + (col - prefix[i]);
                 CopyElements(out + pos, in, take);
                 pos += take;
                 col += take;
                 // Move to the next non-empty piece, wrapping to the next row.
                 while (col == prefix[i + 1] && pos < end) {
                   if (++i == n) {
                     i = 0;
                     col = 0;
                     ++row;
                   }
                 }
               }
             });
}

template <typename E>
void FillImpl(const CpuWorkerThreads* workers, const E& value, int64_t n,
              E* dst) {
  if constexpr (std::is_trivially_copyable<E>::value) {
    unsigned char bytes[sizeof(E)];
    std::memcpy(bytes, &value, sizeof(E));
    const bool uniform =
        std::all_of(bytes, bytes + sizeof(E),
                    [&](unsigned char b) { return b == bytes[0]; });
    RunSharded(workers, n, MoveCost(sizeof(E)), [&](int64_t b, int64_t e) {
      if (uniform) {
        std::memset(dst + b, bytes[0], (e - b) * sizeof(E));
      } else {
        std::fill(dst + b, dst + e, value);
      }
    });
  } else {
    RunSharded(
        workers, n, 8 + static_cast<int64_t>(value.size()),
        [&](int64_t b, int64_t e) { std::fill(dst + b, dst + e, value); });
  }
}

}  // namespace

bool IsMovableDataType(DataType dtype) {
  return VisitElementSize(dtype, [](auto) {});
}

void CopyStridedBox(const CpuWorkerThreads* workers, DataType dtype,
                    const void* src, absl::Span<const int64_t> sizes,
                    absl::Span<const int64_t> src_strides, void* dst) {
  MF_CHECK_EQ(sizes.size(), src_strides.size());
  const bool ok = VisitElementSize(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    CopyStridedBoxImpl<E>(workers, static_cast<const E*>(src), sizes,
                          src_strides, static_cast<E*>(dst));
  });
  MF_CHECK(ok) << "CopyStridedBox: unsupported dtype " << DataTypeString(dtype);
}

void ConcatRows(const CpuWorkerThreads* workers, DataType dtype,
                absl::Span<const void* const> inputs,
                absl::Span<const int64_t> widths, int64_t rows, void* out) {
  MF_CHECK_EQ(inputs.size(), widths.size());
  const bool ok = VisitElementSize(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    ConcatRowsImpl<E>(workers, inputs, widths, rows, static_cast<E*>(out));
  });
  MF_CHECK(ok) << "ConcatRows: unsupported dtype " << DataTypeString(dtype);
}

void FillWithValue(const CpuWorkerThreads* workers, DataType dtype,
                   const void* value, int64_t n, void* dst) {
  const bool ok = VisitElementSize(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    FillImpl<E>(workers, *static_cast<const E*>(value), n,
                static_cast<E*>(dst));
  });
  MF_CHECK(ok) << "FillWithValue: unsupported dtype " << DataTypeString(dtype);
}

absl::InlinedVector<int64_t, 8> DenseStrides(absl::Span<const int64_t> sizes) {
  absl::InlinedVector<int64_t, 8> strides(sizes.size());
  // Unsigned, so the products of an empty shape such as [0, 2^62, 4] wrap
  // instead of overflowing; they are never used to address memory.
  uint64_t s = 1;
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    strides[d] = static_cast<int64_t>(s);
    s *= static_cast<uint64_t>(sizes[d]);
  }
  return strides;
}

}  // namespace minflow
