// The kernel API, with TensorFlow's names: OpKernel (an op's implementation
// on one device for one set of attrs), OpKernelConstruction (what its
// constructor may read) and OpKernelContext (one call of Compute: inputs,
// outputs, allocation, device, status). Kernel files include this header,
// define EIGEN_USE_THREADS first when they use Eigen's ThreadPoolDevice,
// and register with REGISTER_KERNEL_BUILDER (kernel_registry.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "minflow/core/allocator.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/threadpool.h"
#include "minflow/core/types.h"
#include "minflow/framework/cancellation.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_requires.h"
#include "minflow/framework/resource_mgr.h"

namespace minflow {

class AsyncOpKernel;
class NodeDef;
class OpDef;
class OpKernelConstruction;
class OpKernelContext;

// An op's implementation for one node on one device. Made once per node
// (the constructor reads and validates attrs), then Compute runs once per
// step — possibly from several threads at once, so kernels keep no mutable
// state outside the context (use a ResourceMgr, or a mutex, for state).
class OpKernel {
 public:
  // Reads everything from `context`; derived constructors validate attrs
  // with OP_REQUIRES_OK(context, context->GetAttr(...)).
  explicit OpKernel(OpKernelConstruction* context);
  virtual ~OpKernel();
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  // Reads inputs and writes outputs through `context`; errors through
  // OP_REQUIRES / context->SetStatus. Must be safe to call concurrently.
  virtual void Compute(OpKernelContext* context) = 0;

  // Non-null for kernels that complete asynchronously.
  virtual AsyncOpKernel* AsAsync() { return nullptr; }

  // False for kernels cheap enough that the executor runs them inline
  // rather than scheduling them (Const, Identity, NoOp, shape ops).
  virtual bool IsExpensive() { return expensive_; }

  // The value of a constant-producing kernel (Const), for constant folding;
  // null otherwise.
  virtual const Tensor* const_tensor() const { return nullptr; }

  // The node this kernel was made for (attr defaults filled in).
  const NodeDef& def() const { return *def_; }
  const OpDef& op_def() const { return *op_def_; }
  const std::string& name() const;
  absl::string_view name_view() const { return name(); }
  const std::string& type_string() const;
  absl::string_view type_string_view() const { return type_string(); }
  const std::string& requested_device() const;
  int graph_def_version() const { return graph_def_version_; }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  const DataTypeVector& input_types() const { return input_types_; }
  const MemoryTypeVector& input_memory_types() const {
    return input_memory_types_;
  }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType output_type(int o) const { return output_types_[o]; }
  const DataTypeVector& output_types() const { return output_types_; }
  const MemoryTypeVector& output_memory_types() const {
    return output_memory_types_;
  }

  // [*start, *stop) of the inputs (outputs) that arg `name` expands to.
  // InvalidArgument "Unknown input name: x" when the op has no such arg.
  Status InputRange(absl::string_view input_name, int* start, int* stop) const;
  Status OutputRange(absl::string_view output_name, int* start,
                     int* stop) const;

 private:
  friend class OpKernelContext;  // name maps

  std::shared_ptr<const NodeDef> def_;
  const OpDef* op_def_;
  const DataTypeVector input_types_;
  const MemoryTypeVector input_memory_types_;
  const DataTypeVector output_types_;
  const MemoryTypeVector output_memory_types_;
  NameRangeMap input_name_map_;
  NameRangeMap output_name_map_;
  const int graph_def_version_;
  const bool expensive_;
};

// A kernel that finishes later (waits on I/O, another device, a queue). The
// executor calls ComputeAsync, which must call `done` exactly once, after
// the outputs are set or an error recorded — also on every error path
// (OP_REQUIRES_ASYNC does that).
class AsyncOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using DoneCallback = std::function<void()>;

  virtual void ComputeAsync(OpKernelContext* context, DoneCallback done) = 0;

  AsyncOpKernel* AsAsync() override { return this; }
  // Runs ComputeAsync and blocks until it is done.
  void Compute(OpKernelContext* context) override;
};

// What a kernel constructor may see. Lives only during the constructor.
// Not thread-safe.
class OpKernelConstruction {
 public:
  // Made by CreateOpKernel; the spans must outlive this object. `status`
  // collects what the constructor reports. `input_shapes`/`output_shapes`
  // are what shape inference found for the node (empty when the graph was
  // not refined).
  OpKernelConstruction(DeviceType device_type, DeviceBase* device,
                       Allocator* allocator,
                       std::shared_ptr<const NodeDef> node_def,
                       const OpDef* op_def, DataTypeSlice input_types,
                       MemoryTypeSlice input_memory_types,
                       DataTypeSlice output_types,
                       MemoryTypeSlice output_memory_types,
                       int graph_def_version, Status* status,
                       absl::Span<const PartialTensorShape> input_shapes = {},
                       absl::Span<const PartialTensorShape> output_shapes = {});
  OpKernelConstruction(const OpKernelConstruction&) = delete;
  OpKernelConstruction& operator=(const OpKernelConstruction&) = delete;

  const NodeDef& def() const { return *def_; }
  const OpDef& op_def() const { return *op_def_; }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataTypeSlice input_types() const { return input_types_; }
  MemoryTypeSlice input_memory_types() const { return input_memory_types_; }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType output_type(int i) const { return output_types_[i]; }
  DataTypeSlice output_types() const { return output_types_; }
  MemoryTypeSlice output_memory_types() const { return output_memory_types_; }

  // The shapes the graph's shape inference gave this node's inputs and
  // outputs, one per input (output), possibly partly or wholly unknown; both
  // empty when the kernel is made outside a refined graph. A kernel may use
  // them to prepare work before its first Compute, but must still check
  // every input it is given there.
  absl::Span<const PartialTensorShape> input_shapes() const {
    return input_shapes_;
  }
  absl::Span<const PartialTensorShape> output_shapes() const {
    return output_shapes_;
  }

  // InvalidArgument "Signature mismatch, have: float->float expected:
  // int32->int32" unless the node's types are exactly these.
  Status MatchSignature(DataTypeSlice expected_inputs,
                        DataTypeSlice expected_outputs);

  // A tensor for the kernel to keep (a decoded constant, a lookup table).
  // ResourceExhausted naming the node and bytes when memory runs out.
  Status allocate_temp(DataType type, const TensorShape& shape,
                       Tensor* out_temp);
  Status allocate_temp(DataType type, const TensorShape& shape,
                       Tensor* out_temp, AllocatorAttributes allocator_attr);

  // The node's attr `attr_name` as T: every type GetNodeAttr knows (string,
  // int64_t, int32_t, float, bool, DataType, TensorShape,
  // PartialTensorShape, Tensor, TensorProto, NameAttrList and vectors of
  // them). NotFound when absent; InvalidArgument naming the attr and both
  // types when it holds another type.
  template <class T>
  Status GetAttr(absl::string_view attr_name, T* value) const {
    return GetNodeAttr(AttrSlice(def()), attr_name, value);
  }
  bool HasAttr(absl::string_view attr_name) const;

  const DeviceType& device_type() const { return device_type_; }
  DeviceBase* device() const { return device_; }
  ResourceMgr* resource_manager() const;
  int graph_def_version() const { return graph_def_version_; }

  void SetStatus(const Status& status);
  const Status& status() const { return *status_; }

  // Used by OP_REQUIRES: records `s` (the first error wins).
  void CtxFailure(const Status& s);
  void CtxFailureWithWarning(const Status& s);
  void CtxFailure(const char* file, int line, const Status& s);
  void CtxFailureWithWarning(const char* file, int line, const Status& s);

 private:
  friend class OpKernel;

  const DeviceType device_type_;
  DeviceBase* const device_;
  Allocator* const allocator_;
  std::shared_ptr<const NodeDef> def_;
  const OpDef* const op_def_;
  DataTypeSlice input_types_;
  MemoryTypeSlice input_memory_types_;
  DataTypeSlice output_types_;
  MemoryTypeSlice output_memory_types_;
  const int graph_def_version_;
  Status* const status_;
  absl::Span<const PartialTensorShape> input_shapes_;
  absl::Span<const PartialTensorShape> output_shapes_;
};

// An input handed to a kernel: a tensor the executor owns, and for ref
// inputs (variables) the mutex guarding it.
struct TensorValue {
  TensorValue() = default;
  explicit TensorValue(Tensor* t) : tensor(t) {}
  TensorValue(absl::Mutex* mu, Tensor* t) : mutex_if_ref(mu), tensor(t) {}
  Tensor* operator->() const { return tensor; }
  bool is_ref() const { return mutex_if_ref != nullptr; }
  DataType dtype() const {
    return is_ref() ? MakeRefType(tensor->dtype()) : tensor->dtype();
  }

  absl::Mutex* mutex_if_ref = nullptr;  // not owned
  Tensor* tensor = nullptr;             // not owned
  // For a ref input: the reference itself (Tensor::MakeRef), which
  // forward_ref_input_to_ref_output hands on. Not owned.
  const Tensor* ref = nullptr;
};

class OpInputList;
class OpOutputList;
class ScopedStepContainer;

// One call of a kernel's Compute: created by the executor per node per
// step. Not thread-safe except where noted (allocate_temp and IsCancelled
// may be called from Shard() workers).
class OpKernelContext {
 public:
  using DoneCallback = std::function<void()>;
  using Runner = std::function<void(std::function<void()>)>;

  // Everything the executor supplies. Pointers are not owned and must
  // outlive the context.
  struct Params {
    int64_t step_id = 0;
    OpKernel* op_kernel = nullptr;
    DeviceBase* device = nullptr;
    // One per kernel input, in order; a null tensor is an input the kernel
    // must not read (a dead branch).
    absl::Span<const TensorValue> inputs;
    // Null means the device's.
    ResourceMgr* resource_manager = nullptr;
    // The step's own container (TensorArrays); may be null outside an
    // executor.
    ScopedStepContainer* step_container = nullptr;
    // May be null: the step cannot be cancelled.
    CancellationManager* cancellation_manager = nullptr;
    // Schedules closures for async kernels; null runs them inline.
    Runner* runner = nullptr;
    // Where outputs and temporaries come from; null means
    // device->GetAllocator().
    Allocator* allocator = nullptr;
    // Null, or one tensor per output that the caller no longer needs
    // (this kernel's output from an earlier run, say). allocate_output may
    // take the buffer of entry i for output i, leaving the entry empty,
    // when nothing else holds it and its dtype (one memcpy can copy) and
    // element count match: Note [Recycled outputs].
    Tensor* recycled_outputs = nullptr;
  };

  explicit OpKernelContext(Params* params);
  ~OpKernelContext();
  OpKernelContext(const OpKernelContext&) = delete;
  OpKernelContext& operator=(const OpKernelContext&) = delete;

  int64_t step_id() const { return params_->step_id; }
  const OpKernel& op_kernel() const { return *params_->op_kernel; }
  const Params& params() const { return *params_; }

  // --- inputs
  int num_inputs() const { return static_cast<int>(params_->inputs.size()); }
  DataType input_dtype(int index) const;
  Status input_dtype(absl::string_view name, DataType* dtype) const;
  MemoryType input_memory_type(int index) const;
  // The index-th input; the index must be valid and the input not a ref
  // (checked: a violation is a kernel bug).
  const Tensor& input(int index) const;
  // InvalidArgument for an unknown name or a list-valued arg.
  Status input(absl::string_view name, const Tensor** tensor) const;
  // The tensors of a list (or single) input arg.
  Status input_list(absl::string_view name, OpInputList* list) const;
  bool input_is_ref(int index) const;
  bool has_input(int index) const;
  // Ref inputs (TF1 variables; Note [Ref edges] in core/tensor.h). The
  // value behind ref input `index`, sharing its buffer; with `lock_held`
  // false it is read under input_ref_mutex(index). For a non-ref input,
  // the input itself.
  Tensor mutable_input(int index, bool lock_held);
  Status mutable_input(absl::string_view name, Tensor* tensor, bool lock_held);
  // The mutex guarding ref input `index`; null for a non-ref input.
  absl::Mutex* input_ref_mutex(int index);
  // Makes ref input `index` refer to `tensor` from now on (the variable's
  // storage is replaced, as Assign does when the shape changes).
  void replace_ref_input(int index, const Tensor& tensor, bool lock_held);
  // Output `output_index` (a ref) becomes ref input `input_index`.
  void forward_ref_input_to_ref_output(int input_index, int output_index);
  // Output `index` (a ref) refers to `*tensor_for_ref`, guarded by `mu`;
  // `owner` (if given) is kept alive as long as the reference is, else the
  // caller guarantees that the tensor and mutex outlive the step.
  void set_output_ref(int index, absl::Mutex* mu, Tensor* tensor_for_ref,
                      const core::RefCounted* owner = nullptr);
  Status input_range(absl::string_view name, int* start, int* stop) const;

  // --- outputs
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  DataType expected_output_dtype(int index) const;
  MemoryType output_memory_type(int index) const;
  Status output_range(absl::string_view name, int* start, int* stop) const;
  Status output_list(absl::string_view name, OpOutputList* list);

  // Allocates output `index` with `shape` and the node's output dtype and
  // sets *tensor to it (owned by the context). InvalidArgument for a bad
  // index; ResourceExhausted naming the node, the output and the bytes
  // when the allocator refuses.
  Status allocate_output(int index, const TensorShape& shape, Tensor** tensor);
  Status allocate_output(absl::string_view name, const TensorShape& shape,
                         Tensor** tensor);
  Status allocate_output(int index, const TensorShape& shape, Tensor** tensor,
                         AllocatorAttributes attr);

  // A scratch tensor for this call (freed when the caller drops it).
  Status allocate_temp(DataType type, const TensorShape& shape,
                       Tensor* out_temp);
  Status allocate_temp(DataType type, const TensorShape& shape,
                       Tensor* out_temp, AllocatorAttributes allocator_attr);

  // Makes output `output_index` share the buffer of the first candidate
  // input that may be overwritten (see Note [Forwarding]), reshaped to
  // `output_shape`, or else allocates it. `*forwarded_input` (if given) is
  // the input used, or -1.
  Status forward_input_or_allocate_output(
      absl::Span<const int> candidate_input_indices, int output_index,
      const TensorShape& output_shape, Tensor** output,
      int* forwarded_input = nullptr);
  Status forward_input_or_allocate_output(
      absl::Span<const absl::string_view> candidate_input_names,
      absl::string_view output_name, const TensorShape& output_shape,
      Tensor** output);
  // As above for a temporary of `type`.
  Status forward_input_or_allocate_temp(
      absl::Span<const int> candidate_input_indices, DataType type,
      const TensorShape& shape, Tensor* out_temp);
  // Forwards input `input_index` to `output_index` with `output_shape` when
  // Note [Forwarding] allows; returns false (and sets nothing) otherwise.
  bool forward_input_to_output_with_shape(int input_index, int output_index,
                                          const TensorShape& output_shape,
                                          Tensor** output);
  Status forward_input_to_output_with_shape(absl::string_view input_name,
                                            absl::string_view output_name,
                                            const TensorShape& output_shape,
                                            Tensor** output);

  // Sets output `index` to share `tensor`'s buffer. A dtype other than the
  // node's output dtype, or a bad index, is recorded as an Internal error.
  void set_output(int index, const Tensor& tensor);
  void set_output(int index, Tensor&& tensor);
  Status set_output(absl::string_view name, const Tensor& tensor);
  // The output set so far, or null.
  Tensor* mutable_output(int index);
  Status mutable_output(absl::string_view name, Tensor** tensor);
  bool has_output(int index) const;

  // --- status
  void SetStatus(const Status& status);
  const Status& status() const { return status_; }
  void CtxFailure(const Status& s);
  void CtxFailureWithWarning(const Status& s);
  void CtxFailure(const char* file, int line, const Status& s);
  void CtxFailureWithWarning(const char* file, int line, const Status& s);

  // --- device and environment
  DeviceBase* device() const { return params_->device; }
  // The Eigen device kernels evaluate expressions on:
  //   functor(ctx->eigen_device<Eigen::ThreadPoolDevice>(), ...);
  // Specialised for Eigen::ThreadPoolDevice here and for Eigen::GpuDevice
  // in the GPU-only op_kernel_gpu.h.
  template <typename EigenDeviceType>
  const EigenDeviceType& eigen_device() const;
  const Eigen::ThreadPoolDevice& eigen_cpu_device() const {
    return *device()->eigen_cpu_device();
  }
  Allocator* get_allocator(AllocatorAttributes attr) const;
  ResourceMgr* resource_manager() const;
  ScopedStepContainer* step_container() const {
    return params_->step_container;
  }
  CancellationManager* cancellation_manager() const {
    return params_->cancellation_manager;
  }
  // True once the step is cancelled; long loops poll it and stop with
  // errors::Cancelled. Thread-safe.
  bool IsCancelled() const {
    return params_->cancellation_manager != nullptr &&
           params_->cancellation_manager->IsCancelled();
  }
  Runner* runner() const { return params_->runner; }

  // --- step stats: bytes allocated through this context.
  int64_t output_allocated_bytes(int index) const;
  int64_t temp_memory_allocated() const {
    return temp_bytes_.load(std::memory_order_relaxed);
  }

 private:
  Allocator* allocator_for(AllocatorAttributes attr) const;
  Status CheckOutputIndex(int index) const;
  // Output `index` over params_->recycled_outputs[index]'s buffer, when it
  // may be taken (Note [Recycled outputs]); false leaves both alone.
  bool TakeRecycledOutput(int index, DataType dtype, const TensorShape& shape,
                          AllocatorAttributes attr);
  Status AllocateTensor(DataType type, const TensorShape& shape,
                        AllocatorAttributes attr, const char* what, int index,
                        Tensor* out);
  bool CanForward(int input_index, DataType dtype, MemoryType memory_type,
                  const TensorShape& shape) const;

  Params* const params_;
  Status status_;
  absl::InlinedVector<Tensor, 4> outputs_;
  absl::InlinedVector<bool, 4> output_set_;
  absl::InlinedVector<int64_t, 4> output_bytes_;
  std::atomic<int64_t> temp_bytes_{0};
};

// Note [Forwarding]
// ~~~~~~~~~~~~~~~~~
// An output may reuse an input's buffer (element-wise kernels write in
// place) only when nothing else can observe it: the input is not a ref, its
// buffer has exactly one reference (the executor's, which is about to drop
// it), it is aligned, has the output's dtype and element count, and sits in
// the same memory type (host vs device) as the output. Anything else
// allocates. Kernels that forward must read each input element before
// writing the matching output element.

template <>
const Eigen::ThreadPoolDevice& OpKernelContext::eigen_device() const;

// The tensors of one input arg, indexable and iterable.
class OpInputList {
 public:
  OpInputList() = default;
  OpInputList(const OpKernelContext* ctx, int start, int stop)
      : ctx_(ctx), start_(start), stop_(stop) {}
  const Tensor& operator[](int i) const { return ctx_->input(start_ + i); }
  int size() const { return stop_ - start_; }

  class Iterator {
   public:
    Iterator(const OpInputList* list, int i) : list_(list), i_(i) {}
    const Tensor& operator*() const { return (*list_)[i_]; }
    const Tensor* operator->() const { return &(*list_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }
    bool operator!=(const Iterator& o) const { return i_ != o.i_; }

   private:
    const OpInputList* list_;
    int i_;
  };
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size()); }

 private:
  const OpKernelContext* ctx_ = nullptr;
  int start_ = 0;
  int stop_ = 0;
};

// The outputs of one output arg.
class OpOutputList {
 public:
  OpOutputList() = default;
  OpOutputList(OpKernelContext* ctx, int start, int stop)
      : ctx_(ctx), start_(start), stop_(stop) {}
  Tensor* operator[](int i) { return ctx_->mutable_output(start_ + i); }
  int size() const { return stop_ - start_; }
  DataType expected_output_dtype(int i) const {
    return ctx_->expected_output_dtype(start_ + i);
  }
  Status allocate(int i, const TensorShape& shape, Tensor** output) {
    return ctx_->allocate_output(start_ + i, shape, output);
  }
  void set(int i, const Tensor& tensor) {
    ctx_->set_output(start_ + i, tensor);
  }
  void set(int i, Tensor&& tensor) {
    ctx_->set_output(start_ + i, std::move(tensor));
  }

 private:
  OpKernelContext* ctx_ = nullptr;
  int start_ = 0;
  int stop_ = 0;
};

}  // namespace minflow
