// Element-wise Eigen assignments and index loops on the CPU intra-op pool,
// with the calling thread taking blocks beside the pool's helpers (Note
// [Caller-joined parallel loops] in src/core/parallel_for_workers.h).
// Eigen's own ThreadPoolDevice::parallelFor hands the whole range to the
// pool when it cuts more blocks than the pool has threads, and the caller
// only waits: with N-1 helpers, that would leave a core idle.
#pragma once

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "minflow/core/threadpool.h"
#include "minflow/core/work_sharder.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {
namespace internal {

// Cycles per element under Eigen's cost model, as Shard's cost_per_unit.
inline int64_t CyclesPerElement(const Eigen::TensorOpCost& cost) {
  const double cycles =
      Eigen::TensorCostModel<Eigen::ThreadPoolDevice>::totalCost(1, cost);
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(cycles)));
}

// Runs fn(first, last) over [0, total) in blocks whose sizes are multiples
// of `align`, on `d`'s pool and the calling thread; like
// d.parallelFor(total, cost, fn). Small work runs inline.
template <typename Fn>
void CpuParallelFor(const Eigen::ThreadPoolDevice& d, int64_t total,
                    const Eigen::TensorOpCost& cost, int64_t align, Fn&& fn) {
  if (total <= 0) return;
  if (d.numThreads() <= 1) {
    fn(0, total);
    return;
  }
  const int64_t cycles = CyclesPerElement(cost);
  // Up to four blocks a thread, taken as threads come free: a thread that
  // the machine slows (these VMs share their cores) then holds the others
  // up by at most a quarter of its share.
  int64_t block = ShardBlockSize(4 * d.numThreads(), total, cycles);
  thread::ThreadPool* pool =
      block < total ? thread::ThreadPool::FromEigenDevice(d) : nullptr;
  if (pool == nullptr) {
    if (block < total) {
      // Not a minflow pool: Eigen's loop is the next best.
      d.parallelFor(total, cost, std::forward<Fn>(fn));
    } else {
      fn(0, total);
    }
    return;
  }
  block = (block + align - 1) / align * align;
  pool->RunBlocks(total, block, d.numThreads(),
                  [&fn](int64_t first, int64_t last) { fn(first, last); });
}

// Note [Streaming stores for large outputs]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A store to a line that is not in the cache first reads the line from
// memory (to own it), so an element-wise op writing a fresh output moves
// its output bytes twice. Non-temporal ("streaming") stores write whole
// lines without that read and without filling the cache: c = a + b over 16
// Mi floats took 5.4 ms instead of 8.5 on one thread here, 3.9 instead of
// 6.3 on two. An output of kStreamingStoreBytes or more (half the L3 of
// this machine's 32 MiB) is gone from the cache by the time the next op
// reads it anyway, so it is written with streaming stores; smaller ones
// keep ordinary stores, which leave them in cache for their consumer. Each
// block ends with a store fence, so the pool's hand-back (a release)
// publishes the values to whichever thread reads them next.
constexpr int64_t kStreamingStoreBytes = int64_t{16} << 20;

#if defined(__SSE2__)
// Writes `x`, a packet of sizeof(Packet) bytes, to `p` (aligned to that
// size) with a streaming store; CanStream admits only these sizes.
template <typename Packet>
inline void StreamPacket(void* p, const Packet& x) {
#if defined(__AVX512F__)
  if constexpr (sizeof(Packet) == 64) {
    __m512i bits;
    std::memcpy(&bits, &x, 64);
    _mm512_stream_si512(static_cast<__m512i*>(p), bits);
    return;
  }
#endif
#if defined(__AVX__)
  if constexpr (sizeof(Packet) == 32) {
    __m256i bits;
    std::memcpy(&bits, &x, 32);
    _mm256_stream_si256(static_cast<__m256i*>(p), bits);
    return;
  }
#endif
  static_assert(
      sizeof(Packet) == 16 || sizeof(Packet) == 32 || sizeof(Packet) == 64,
      "no streaming store for this packet size");
  if constexpr (sizeof(Packet) == 16) {
    __m128i bits;
    std::memcpy(&bits, &x, 16);
    _mm_stream_si128(static_cast<__m128i*>(p), bits);
  }
}

// Whether AssignOnCpu may stream a plain arithmetic type's packets.
template <typename Scalar>
constexpr bool CanStream() {
  using Packet = typename Eigen::internal::packet_traits<Scalar>::type;
  constexpr size_t kBytes = sizeof(Packet);
  return std::is_arithmetic_v<Scalar> &&
         Eigen::internal::packet_traits<Scalar>::Vectorizable &&
         (kBytes == 16
#if defined(__AVX__)
          || kBytes == 32
#endif
#if defined(__AVX512F__)
          || kBytes == 64
#endif
         );
}

// Whether `expr` may read the memory at `out`: a TensorMap over it, or any
// expression not listed here (so an unknown one never streams). An output
// written over its own input (a forwarded buffer) is already in cache when
// it is written, and streaming stores to it were 20% slower than ordinary
// ones (cwise_bench AddV2 in place).
// (Declared first, so that each overload's body sees all the others.)
template <typename Op, typename Xpr>
bool MayRead(const Eigen::TensorCwiseUnaryOp<Op, Xpr>& e, const void* out);
template <typename Op, typename Lhs, typename Rhs>
bool MayRead(const Eigen::TensorCwiseBinaryOp<Op, Lhs, Rhs>& e,
             const void* out);
template <typename Op, typename A1, typename A2, typename A3>
bool MayRead(const Eigen::TensorCwiseTernaryOp<Op, A1, A2, A3>& e,
             const void* out);
template <typename If, typename Then, typename Else>
bool MayRead(const Eigen::TensorSelectOp<If, Then, Else>& e, const void* out);
template <typename To, typename Xpr>
bool MayRead(const Eigen::TensorConversionOp<To, Xpr>& e, const void* out);

template <typename Xpr>
bool MayRead(const Xpr& /*any other expression*/, const void*) {
  return true;
}
template <typename PlainObject, int Options, template <class> class MakePointer>
bool MayRead(const Eigen::TensorMap<PlainObject, Options, MakePointer>& map,
             const void* out) {
  return static_cast<const void*>(map.data()) == out;
}
template <typename Op, typename Xpr>
bool MayRead(const Eigen::TensorCwiseNullaryOp<Op, Xpr>&, const void*) {
  return false;
}
template <typename Op, typename Xpr>
bool MayRead(const Eigen::TensorCwiseUnaryOp<Op, Xpr>& e, const void* out) {
  return MayRead(e.nestedExpression(), out);
}
template <typename Op, typename Lhs, typename Rhs>
bool MayRead(const Eigen::TensorCwiseBinaryOp<Op, Lhs, Rhs>& e,
             const void* out) {
  return MayRead(e.lhsExpression(), out) || MayRead(e.rhsExpression(), out);
}
template <typename Op, typename A1, typename A2, typename A3>
bool MayRead(const Eigen::TensorCwiseTernaryOp<Op, A1, A2, A3>& e,
             const void* out) {
  return MayRead(e.arg1Expression(), out) || MayRead(e.arg2Expression(), out) ||
         MayRead(e.arg3Expression(), out);
}
template <typename If, typename Then, typename Else>
bool MayRead(const Eigen::TensorSelectOp<If, Then, Else>& e, const void* out) {
  return MayRead(e.ifExpression(), out) || MayRead(e.thenExpression(), out) ||
         MayRead(e.elseExpression(), out);
}
template <typename To, typename Xpr>
bool MayRead(const Eigen::TensorConversionOp<To, Xpr>& e, const void* out) {
  return MayRead(e.expression(), out);
}

// dst[i] = rhs(i) for i in [first, last) with streaming stores; `first` and
// `dst` are aligned to the packet.
template <typename Rhs, typename Scalar, typename Index>
void StreamRange(const Rhs& rhs, Scalar* dst, Index first, Index last) {
  using Packet = typename Eigen::internal::packet_traits<Scalar>::type;
  constexpr Index kSize = Eigen::internal::unpacket_traits<Packet>::size;
  Index i = first;
  for (; i + kSize <= last; i += kSize) {
    StreamPacket(dst + i, rhs.template packet<Eigen::Unaligned>(i));
  }
  for (; i < last; ++i) dst[i] = rhs.coeff(i);
  _mm_sfence();
}
#else
template <typename Scalar>
constexpr bool CanStream() {
  return false;
}
#endif  // __SSE2__

// dst.device(d) = expr, with the blocks evaluated by CpuParallelFor; large
// outputs are written with streaming stores (Note [Streaming stores for
// large outputs]). Expressions that Eigen evaluates tile by tile
// (broadcasts, shuffles) keep Eigen's executor.
template <typename Dst, typename Expr>
void AssignOnCpu(const Eigen::ThreadPoolDevice& d, Dst dst, const Expr& expr) {
  using Assign = const Eigen::TensorAssignOp<Dst, const Expr>;
  using Evaluator = Eigen::TensorEvaluator<Assign, Eigen::ThreadPoolDevice>;
  using Index = typename Assign::Index;
  using Scalar = std::remove_const_t<typename Assign::Scalar>;
  constexpr bool kVectorizable =
      Eigen::internal::IsVectorizable<Eigen::ThreadPoolDevice, Assign>::value;
  if constexpr (Eigen::internal::IsTileable<Eigen::ThreadPoolDevice,
                                            Assign>::value) {
    dst.device(d) = expr;
  } else {
#if defined(__SSE2__)
    if constexpr (kVectorizable && CanStream<Scalar>()) {
      using Packet = typename Eigen::internal::packet_traits<Scalar>::type;
      Scalar* out = dst.data();
      const int64_t size = dst.size();
      if (out != nullptr &&
          size * static_cast<int64_t>(sizeof(Scalar)) >= kStreamingStoreBytes &&
          reinterpret_cast<uintptr_t>(out) % sizeof(Packet) == 0 &&
          !MayRead(expr, out)) {
        Eigen::TensorEvaluator<const Expr, Eigen::ThreadPoolDevice> rhs(expr,
                                                                        d);
        // False when the expression wrote itself into `out`.
        if (rhs.evalSubExprsIfNeeded(out)) {
          const Eigen::TensorOpCost cost =
              rhs.costPerCoeff(true) +
              Eigen::TensorOpCost(
                  0, sizeof(Scalar), 0, true,
                  Eigen::internal::unpacket_traits<Packet>::size);
          // 64-element blocks start on a packet of any size.
          CpuParallelFor(d, size, cost, 64,
                         [&rhs, out](int64_t first, int64_t last) {
                           StreamRange(rhs, out, static_cast<Index>(first),
                                       static_cast<Index>(last));
                         });
        }
        rhs.cleanup();
        return;
      }
    }
#endif
    using Range = Eigen::internal::EvalRange<Evaluator, Index, kVectorizable>;
    Assign assign(dst, expr);
    Evaluator evaluator(assign, d);
    if (evaluator.evalSubExprsIfNeeded(nullptr)) {
      const int64_t size = Eigen::internal::array_prod(evaluator.dimensions());
      // Range::run wants every block to start on a packet; 64 elements is
      // a multiple of every packet size.
      CpuParallelFor(d, size, evaluator.costPerCoeff(kVectorizable), 64,
                     [&evaluator](int64_t first, int64_t last) {
                       Range::run(&evaluator, static_cast<Index>(first),
                                  static_cast<Index>(last));
                     });
    }
    evaluator.cleanup();
  }
}

}  // namespace internal
}  // namespace minflow
