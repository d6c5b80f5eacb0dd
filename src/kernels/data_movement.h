// Byte-level data movement shared by the array kernels (Concat, Split,
// Slice, StridedSlice, Transpose, Fill, ...). Kernels hand over a DataType
// and untyped pointers; the work is done by one instantiation per element
// *size* (1, 2, 4, 8, 16 bytes) plus one for strings, so registering a
// kernel for TF_CALL_ALL_TYPES costs registrations, not code. See Note
// [Type lists] in register_types.h.
//
// Every function shards its work over `workers` (a device's intra-op
// threads; null or one thread runs inline) and is safe to call
// concurrently on disjoint outputs. Pointers address elements of `dtype`;
// sizes, strides and offsets count elements, not bytes. The caller has
// validated every shape and index: these functions only move memory.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "minflow/core/dtype_dispatch.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "minflow/framework/device.h"

namespace minflow {

using CpuWorkerThreads = DeviceBase::CpuWorkerThreads;

// The element type for 16-byte values (complex128).
struct alignas(8) Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

// True for the dtypes the functions below accept: every type with a fixed
// element size, and DT_STRING.
bool IsMovableDataType(DataType dtype);

// Calls fn(TypeTag<E>{}) where E is an unsigned integer (or Bytes16) of the
// size of `dtype`'s elements, or std::string for DT_STRING; returns false
// (calling nothing) for any other dtype.
template <typename Fn>
bool VisitElementSize(DataType dtype, Fn&& fn) {
  if (dtype == DT_STRING) {
    fn(TypeTag<std::string>{});
    return true;
  }
  switch (DataTypeSize(dtype)) {
    case 1:
      fn(TypeTag<uint8_t>{});
      return true;
    case 2:
      fn(TypeTag<uint16_t>{});
      return true;
    case 4:
      fn(TypeTag<uint32_t>{});
      return true;
    case 8:
      fn(TypeTag<uint64_t>{});
      return true;
    case 16:
      fn(TypeTag<Bytes16>{});
      return true;
    default:
      return false;
  }
}

// dst[0, n) = src[0, n): memcpy for plain bytes, assignment for strings.
template <typename E>
inline void CopyElements(E* dst, const E* src, int64_t n) {
  if constexpr (std::is_trivially_copyable<E>::value) {
    if (n == 1) {
      *dst = *src;
    } else if (n > 0) {
      std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(E));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  }
}

// Cost, in Shard()'s cycles, of moving `bytes` bytes of memory: copies run
// at roughly 8 bytes per cycle, so a shard holds at least ~80 KB.
inline int64_t MoveCost(int64_t bytes) { return bytes / 8 + 1; }

// dst[i_0, ..., i_{r-1}] = src[sum_d i_d * src_strides[d]] for every index
// of `sizes`, with dst dense and row-major. `src` points at the element of
// index (0, ..., 0); strides may be negative or zero. Adjacent dimensions
// that are contiguous in src are merged, and rows with unit stride move by
// memcpy.
void CopyStridedBox(const CpuWorkerThreads* workers, DataType dtype,
                    const void* src, absl::Span<const int64_t> sizes,
                    absl::Span<const int64_t> src_strides, void* dst);

// Row r of out is row r of inputs[0], then row r of inputs[1], ...: out has
// `rows` rows of sum(widths) elements, inputs[i] has `rows` rows of
// widths[i] elements. Inputs with width 0 may be null.
void ConcatRows(const CpuWorkerThreads* workers, DataType dtype,
                absl::Span<const void* const> inputs,
                absl::Span<const int64_t> widths, int64_t rows, void* out);

// dst[0, n) = *value.
void FillWithValue(const CpuWorkerThreads* workers, DataType dtype,
                   const void* value, int64_t n, void* dst);

// The address of element `offset` (row-major) of `t`, for any dtype that
// IsMovableDataType accepts.
inline const void* ElementAt(const Tensor& t, int64_t offset) {
  if (t.dtype() == DT_STRING) return t.base<const std::string>() + offset;
  return static_cast<const char*>(t.data()) + offset * DataTypeSize(t.dtype());
}

// Strides, in elements, of a dense row-major array of `sizes` (meaningful
// only when the array is not empty).
absl::InlinedVector<int64_t, 8> DenseStrides(absl::Span<const int64_t> sizes);

}  // namespace minflow
