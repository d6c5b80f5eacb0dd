// Copies of a Const operand rearranged into the layout a CPU kernel reads
// fastest, kept from one run to the next: oneDNN's blocked convolution
// filters (cpu_conv_library.cc) and the column panels of a one-row
// product's matrix (matmul_gemv.h). See Note [Kept constant layouts].
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/op_kernel.h"

namespace minflow {
namespace internal {

// Note [Kept constant layouts]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Some kernels read an operand faster in a layout of their own: oneDNN's
// convolution wants its filter blocked (Note [Reordered constant
// filters]), a one-row product wants its matrix in column panels (Note
// [Packed GEMV panels]). For an operand that changes from run to run that
// rearrangement is redone on every call. An operand that is a Const on the
// kernel's device (the constant_filters pass marks the node with
// _is_filter_const: Note [Marking constant filters]) arrives as the same
// buffer, with the same contents, on every run, so its kernel keeps the
// rearranged copy in a ConstantLayoutCache, one per layout, made on the
// first run from the device's allocator (not the step's memory plan) and
// freed with the kernel. That holds a second copy of each such operand, as
// TensorFlow's oneDNN kernels and ONNX Runtime's prepacked weights do. An
// entry holds a reference to the operand's buffer, so the buffer's address
// cannot be reused for other contents while the entry exists, and a
// wrongly marked operand that arrives in a new buffer is rearranged again;
// only one rewritten in place would be missed.
class ConstantLayoutCache {
 public:
  ConstantLayoutCache() = default;
  ConstantLayoutCache(const ConstantLayoutCache&) = delete;
  ConstantLayoutCache& operator=(const ConstantLayoutCache&) = delete;

  // The copy of `constant` kept for `layout` (an opaque key naming the
  // layout, such as the library's descriptor of it), or null.
  const float* Find(const Tensor& constant, const void* layout) const;
  // Keeps `*copy` (taking it) as `constant` in `layout` and returns it, or
  // the copy another thread kept first. Returns null, and leaves `*copy`
  // alone, when the cache already holds kMaxEntries.
  const float* Keep(const Tensor& constant, const void* layout, Tensor* copy);
  // Whether the cache holds kMaxEntries, so that Keep would refuse: a
  // caller whose copy is only worth making to keep it can skip the work.
  bool Full() const;

  // A kernel sees a few operand buffers (one per session that shares it)
  // and a few layouts (one per geometry); past this, operands are
  // rearranged on every call.
  static constexpr size_t kMaxEntries = 8;

 private:
  struct Entry {
    Tensor constant;  // holds the buffer whose address is the key
    const void* layout;
    Tensor copy;
  };
  const float* FindLocked(const Tensor& constant, const void* layout) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  // Entries are never removed, so a pointer handed out stays valid for
  // the cache's life.
  std::vector<std::unique_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
};

// An operand that is a Const's value, with the kernel's cache for it; both
// null for any other operand.
struct ConstantOperand {
  const Tensor* tensor = nullptr;
  ConstantLayoutCache* cache = nullptr;
};

// Whether the constant_filters pass marked the kernel's node: its filter
// (a convolution's input 1) or weights (a product's b) is a Const's value
// (Note [Marking constant filters]).
bool OperandIsMarkedConst(OpKernelConstruction* ctx);

// A buffer of `elements` floats that outlives the step, for a copy to
// keep: from the device's allocator, not the step's plan. `what` names it
// in the error when the allocation fails.
Status AllocateKeptCopy(OpKernelContext* ctx, int64_t elements,
                        const char* what, Tensor* copy);

}  // namespace internal
}  // namespace minflow
