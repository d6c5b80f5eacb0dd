#define EIGEN_USE_THREADS
#include "minflow/framework/op_kernel.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "minflow/core/logging.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minflow {
namespace {

const char* Basename(const char* path) {
  const char* base = path;
  for (const char* p = path; *p != '\0'; ++p) {
    if (*p == '/') base = p + 1;
  }
  return base;
}

Status RangeOf(const NameRangeMap& map, absl::string_view name,
               const char* kind, int* start, int* stop) {
  auto it = map.find(name);
  if (it == map.end()) {
    return errors::InvalidArgument("Unknown ", kind, " name: ", name);
  }
  *start = it->second.first;
  *stop = it->second.second;
  return OkStatus();
}

// Single-valued access to an arg that expands to several tensors is a
// kernel bug worth a clear message.
Status SingleIndex(const NameRangeMap& map, absl::string_view name,
                   const char* kind, int* index) {
  int start = 0;
  int stop = 0;
  MF_RETURN_IF_ERROR(RangeOf(map, name, kind, &start, &stop));
  if (stop != start + 1) {
    return errors::InvalidArgument("OpKernel used list-valued ", kind,
                                   " name '", name, "' when single-valued ",
                                   kind, " was expected");
  }
  *index = start;
  return OkStatus();
}

void LogFailure(const char* file, int line, const Status& s, bool warning) {
  if (warning) {
    MF_LOG(WARNING) << "OP_REQUIRES failed at " << Basename(file) << ":" << line
                    << " : " << s;
  }
}

}  // namespace

namespace internal {

void CheckNotInComputeAsync(OpKernelContext* ctx, const char* correct_macro) {
  MF_CHECK(ctx->params().op_kernel == nullptr ||
           ctx->params().op_kernel->AsAsync() == nullptr)
      << "Use " << correct_macro << " in AsyncOpKernel implementations.";
}

}  // namespace internal

// --- OpKernel

OpKernel::OpKernel(OpKernelConstruction* context)
    : def_(context->def_),
      op_def_(context->op_def_),
      input_types_(context->input_types().begin(),
                   context->input_types().end()),
      input_memory_types_(context->input_memory_types().begin(),
                          context->input_memory_types().end()),
      output_types_(context->output_types().begin(),
                    context->output_types().end()),
      output_memory_types_(context->output_memory_types().begin(),
                           context->output_memory_types().end()),
      graph_def_version_(context->graph_def_version()),
      // Off the host, launching is cheap and the work is asynchronous.
      expensive_(context->device_type() == DEVICE_CPU) {
  OP_REQUIRES_OK(context,
                 NameRangesForNode(AttrSlice(*def_), *op_def_, &input_name_map_,
                                   &output_name_map_));
}

OpKernel::~OpKernel() = default;

const std::string& OpKernel::name() const { return def_->name(); }
const std::string& OpKernel::type_string() const { return def_->op(); }
const std::string& OpKernel::requested_device() const { return def_->device(); }

Status OpKernel::InputRange(absl::string_view input_name, int* start,
                            int* stop) const {
  return RangeOf(input_name_map_, input_name, "input", start, stop);
}

Status OpKernel::OutputRange(absl::string_view output_name, int* start,
                             int* stop) const {
  return RangeOf(output_name_map_, output_name, "output", start, stop);
}

void AsyncOpKernel::Compute(OpKernelContext* context) {
  absl::Notification n;
  ComputeAsync(context, [&n]() { n.Notify(); });
  n.WaitForNotification();
}

// --- OpKernelConstruction

OpKernelConstruction::OpKernelConstruction(
    DeviceType device_type, DeviceBase* device, Allocator* allocator,
    std::shared_ptr<const NodeDef> node_def, const OpDef* op_def,
    DataTypeSlice input_types, MemoryTypeSlice input_memory_types,
    DataTypeSlice output_types, MemoryTypeSlice output_memory_types,
    int graph_def_version, Status* status,
    absl::Span<const PartialTensorShape> input_shapes,
    absl::Span<const PartialTensorShape> output_shapes)
    : device_type_(std::move(device_type)),
      device_(device),
      allocator_(allocator),
      def_(std::move(node_def)),
      op_def_(op_def),
      input_types_(input_types),
      input_memory_types_(input_memory_types),
      output_types_(output_types),
      output_memory_types_(output_memory_types),
      graph_def_version_(graph_def_version),
      status_(status),
      input_shapes_(input_shapes),
      output_shapes_(output_shapes) {}

Status OpKernelConstruction::MatchSignature(DataTypeSlice expected_inputs,
                                            DataTypeSlice expected_outputs) {
  if (input_types_ == expected_inputs && output_types_ == expected_outputs) {
    return OkStatus();
  }
  return errors::InvalidArgument(
      "Signature mismatch, have: ", DataTypeSliceString(input_types_), "->",
      DataTypeSliceString(output_types_),
      " expected: ", DataTypeSliceString(expected_inputs), "->",
      DataTypeSliceString(expected_outputs));
}

Status OpKernelConstruction::allocate_temp(DataType type,
                                           const TensorShape& shape,
                                           Tensor* out_temp) {
  return allocate_temp(type, shape, out_temp, AllocatorAttributes());
}

Status OpKernelConstruction::allocate_temp(DataType type,
                                           const TensorShape& shape,
                                           Tensor* out_temp,
                                           AllocatorAttributes allocator_attr) {
  Allocator* a = allocator_;
  if (a == nullptr || allocator_attr.on_host()) {
    a = device_ != nullptr ? device_->GetAllocator(allocator_attr)
                           : cpu_allocator();
  }
  StatusOr<Tensor> t = Tensor::Allocate(a, type, shape);
  if (!t.ok()) {
    return Status(t.status().code(), absl::StrCat(t.status().message(),
                                                  ", for a temporary of node '",
                                                  def_->name(), "'"));
  }
  *out_temp = std::move(t).value();
  return OkStatus();
}

bool OpKernelConstruction::HasAttr(absl::string_view attr_name) const {
  return AttrSlice(def()).Find(attr_name) != nullptr;
}

ResourceMgr* OpKernelConstruction::resource_manager() const {
  return device_ != nullptr ? device_->resource_manager() : nullptr;
}

void OpKernelConstruction::SetStatus(const Status& status) {
  if (status_->ok()) *status_ = status;
}

void OpKernelConstruction::CtxFailure(const Status& s) { SetStatus(s); }

void OpKernelConstruction::CtxFailureWithWarning(const Status& s) {
  MF_LOG(WARNING) << s;
  SetStatus(s);
}

void OpKernelConstruction::CtxFailure(const char* file, int line,
                                      const Status& s) {
  LogFailure(file, line, s, /*warning=*/false);
  SetStatus(s);
}

void OpKernelConstruction::CtxFailureWithWarning(const char* file, int line,
                                                 const Status& s) {
  LogFailure(file, line, s, /*warning=*/true);
  SetStatus(s);
}

// --- OpKernelContext

OpKernelContext::OpKernelContext(Params* params) : params_(params) {
  MF_CHECK(params_->op_kernel != nullptr);
  MF_CHECK(params_->device != nullptr);
  MF_CHECK_EQ(static_cast<int>(params_->inputs.size()),
              params_->op_kernel->num_inputs());
  const int n = params_->op_kernel->num_outputs();
  outputs_.resize(n);
  output_set_.assign(n, false);
  output_bytes_.assign(n, 0);
}

OpKernelContext::~OpKernelContext() = default;

DataType OpKernelContext::input_dtype(int index) const {
  MF_CHECK(index >= 0 && index < num_inputs());
  const TensorValue& v = params_->inputs[index];
  if (v.tensor == nullptr) return op_kernel().input_type(index);
  return v.dtype();
}

Status OpKernelContext::input_dtype(absl::string_view name,
                                    DataType* dtype) const {
  int index = 0;
  MF_RETURN_IF_ERROR(
      SingleIndex(op_kernel().input_name_map_, name, "input", &index));
  *dtype = input_dtype(index);
  return OkStatus();
}

MemoryType OpKernelContext::input_memory_type(int index) const {
  return op_kernel().input_memory_types()[index];
}

const Tensor& OpKernelContext::input(int index) const {
  MF_CHECK(index >= 0 && index < num_inputs())
      << "input index " << index << " of " << num_inputs();
  const TensorValue& v = params_->inputs[index];
  MF_CHECK(v.tensor != nullptr) << "input " << index << " is not available";
  MF_CHECK(!v.is_ref()) << "input " << index << " is a ref";
  return *v.tensor;
}

Status OpKernelContext::input(absl::string_view name,
                              const Tensor** tensor) const {
  int index = 0;
  MF_RETURN_IF_ERROR(
      SingleIndex(op_kernel().input_name_map_, name, "input", &index));
  if (input_is_ref(index)) {
    return errors::InvalidArgument("OpKernel used ref input name '", name,
                                   "' when non-ref input was expected");
  }
  *tensor = &input(index);
  return OkStatus();
}

Status OpKernelContext::input_list(absl::string_view name,
                                   OpInputList* list) const {
  int start = 0;
  int stop = 0;
  MF_RETURN_IF_ERROR(input_range(name, &start, &stop));
  *list = OpInputList(this, start, stop);
  return OkStatus();
}

bool OpKernelContext::input_is_ref(int index) const {
  return params_->inputs[index].is_ref();
}

bool OpKernelContext::has_input(int index) const {
  return params_->inputs[index].tensor != nullptr;
}

Tensor OpKernelContext::mutable_input(int index, bool lock_held) {
  MF_CHECK(index >= 0 && index < num_inputs())
      << "input index " << index << " of " << num_inputs();
  const TensorValue& v = params_->inputs[index];
  MF_CHECK(v.tensor != nullptr) << "input " << index << " is not available";
  if (!v.is_ref() || lock_held) return *v.tensor;
  absl::ReaderMutexLock lock(v.mutex_if_ref);
  return *v.tensor;
}

Status OpKernelContext::mutable_input(absl::string_view name, Tensor* tensor,
                                      bool lock_held) {
  int index = 0;
  MF_RETURN_IF_ERROR(
      SingleIndex(op_kernel().input_name_map_, name, "input", &index));
  if (!input_is_ref(index)) {
    return errors::InvalidArgument("OpKernel used non-ref input name '", name,
                                   "' when ref input was expected");
  }
  *tensor = mutable_input(index, lock_held);
  return OkStatus();
}

absl::Mutex* OpKernelContext::input_ref_mutex(int index) {
  return params_->inputs[index].mutex_if_ref;
}

void OpKernelContext::replace_ref_input(int index, const Tensor& tensor,
                                        bool lock_held) {
  const TensorValue& v = params_->inputs[index];
  MF_CHECK(v.is_ref()) << "replace_ref_input of non-ref input " << index;
  if (lock_held) {
    *v.tensor = tensor;
    return;
  }
  absl::MutexLock lock(v.mutex_if_ref);
  *v.tensor = tensor;
}

void OpKernelContext::forward_ref_input_to_ref_output(int input_index,
                                                      int output_index) {
  const TensorValue& v = params_->inputs[input_index];
  MF_CHECK(v.is_ref() && v.ref != nullptr)
      << "forward_ref_input_to_ref_output of non-ref input " << input_index;
  set_output(output_index, *v.ref);
}

void OpKernelContext::set_output_ref(int index, absl::Mutex* mu,
                                     Tensor* tensor_for_ref,
                                     const core::RefCounted* owner) {
  set_output(index, Tensor::MakeRef(tensor_for_ref, mu, owner));
}

Status OpKernelContext::input_range(absl::string_view name, int* start,
                                    int* stop) const {
  return op_kernel().InputRange(name, start, stop);
}

DataType OpKernelContext::expected_output_dtype(int index) const {
  return op_kernel().output_type(index);
}

MemoryType OpKernelContext::output_memory_type(int index) const {
  return op_kernel().output_memory_types()[index];
}

Status OpKernelContext::output_range(absl::string_view name, int* start,
                                     int* stop) const {
  return op_kernel().OutputRange(name, start, stop);
}

Status OpKernelContext::output_list(absl::string_view name,
                                    OpOutputList* list) {
  int start = 0;
  int stop = 0;
  MF_RETURN_IF_ERROR(output_range(name, &start, &stop));
  *list = OpOutputList(this, start, stop);
  return OkStatus();
}

Status OpKernelContext::CheckOutputIndex(int index) const {
  if (index < 0 || index >= num_outputs()) {
    return errors::InvalidArgument("Requested output index ", index,
                                   " is out of range. Number of outputs is ",
                                   num_outputs(), ".");
  }
  if (IsRefType(expected_output_dtype(index))) {
    return errors::Internal("Output ", index, " of node '", op_kernel().name(),
                            "' is a ref; it cannot be allocated");
  }
  return OkStatus();
}

Allocator* OpKernelContext::allocator_for(AllocatorAttributes attr) const {
  if (params_->allocator != nullptr && !attr.on_host()) {
    return params_->allocator;
  }
  return params_->device->GetAllocator(attr);
}

Allocator* OpKernelContext::get_allocator(AllocatorAttributes attr) const {
  return allocator_for(attr);
}

ResourceMgr* OpKernelContext::resource_manager() const {
  if (params_->resource_manager != nullptr) return params_->resource_manager;
  return params_->device->resource_manager();
}

Status OpKernelContext::AllocateTensor(DataType type, const TensorShape& shape,
                                       AllocatorAttributes attr,
                                       const char* what, int index,
                                       Tensor* out) {
  StatusOr<Tensor> t = Tensor::Allocate(allocator_for(attr), type, shape);
  if (!t.ok()) {
    // An OOM must say which node asked, or it cannot be acted on.
    std::string where =
        index >= 0 ? absl::StrCat(what, " ", index) : std::string(what);
    return Status(t.status().code(),
                  absl::StrCat(t.status().message(), ", for ", where,
                               " of node '", op_kernel().name(), "' (op ",
                               op_kernel().type_string(), ")"));
  }
  *out = std::move(t).value();
  return OkStatus();
}

Status OpKernelContext::allocate_output(int index, const TensorShape& shape,
                                        Tensor** tensor) {
  return allocate_output(index, shape, tensor, AllocatorAttributes());
}

Status OpKernelContext::allocate_output(absl::string_view name,
                                        const TensorShape& shape,
                                        Tensor** tensor) {
  int index = 0;
  MF_RETURN_IF_ERROR(
      SingleIndex(op_kernel().output_name_map_, name, "output", &index));
  return allocate_output(index, shape, tensor);
}

Status OpKernelContext::allocate_output(int index, const TensorShape& shape,
                                        Tensor** tensor,
                                        AllocatorAttributes attr) {
  MF_RETURN_IF_ERROR(CheckOutputIndex(index));
  if (output_memory_type(index) == HOST_MEMORY) attr.set_on_host(true);
  const DataType dtype = expected_output_dtype(index);
  if (params_->recycled_outputs != nullptr &&
      TakeRecycledOutput(index, dtype, shape, attr)) {
    *tensor = &outputs_[index];
    return OkStatus();
  }
  Tensor t;
  MF_RETURN_IF_ERROR(AllocateTensor(dtype, shape, attr, "output", index, &t));
  output_bytes_[index] += static_cast<int64_t>(t.AllocatedBytes());
  outputs_[index] = std::move(t);
  output_set_[index] = true;
  *tensor = &outputs_[index];
  return OkStatus();
}

// Note [Recycled outputs]
// A caller that runs the same kernel over and over (the _SequentialLoop
// kernel, once per iteration) can hand back the kernel's previous outputs
// once it is done with them, and an output of the same dtype and size is
// then written over the old buffer instead of a new allocation: a loop's
// scalar condition, say, costs no allocation per iteration. Only a buffer
// no one else holds is taken, only with default allocator attributes (the
// memory is then of the same kind), and only for dtypes that hold plain
// bytes (a string buffer's elements would need resetting).
bool OpKernelContext::TakeRecycledOutput(int index, DataType dtype,
                                         const TensorShape& shape,
                                         AllocatorAttributes attr) {
  Tensor& old = params_->recycled_outputs[index];
  if (attr != AllocatorAttributes() || old.dtype() != dtype ||
      !DataTypeCanUseMemcpy(dtype) ||
      old.NumElements() != shape.num_elements() || !old.RefCountIsOne()) {
    return false;
  }
  outputs_[index].CopyFrom(old, shape);
  old = Tensor(dtype);
  output_set_[index] = true;
  return true;
}

Status OpKernelContext::allocate_temp(DataType type, const TensorShape& shape,
                                      Tensor* out_temp) {
  return allocate_temp(type, shape, out_temp, AllocatorAttributes());
}

Status OpKernelContext::allocate_temp(DataType type, const TensorShape& shape,
                                      Tensor* out_temp,
                                      AllocatorAttributes allocator_attr) {
  MF_RETURN_IF_ERROR(
      AllocateTensor(type, shape, allocator_attr, "a temporary", -1, out_temp));
  temp_bytes_.fetch_add(static_cast<int64_t>(out_temp->AllocatedBytes()),
                        std::memory_order_relaxed);
  return OkStatus();
}

bool OpKernelContext::CanForward(int input_index, DataType dtype,
                                 MemoryType memory_type,
                                 const TensorShape& shape) const {
  if (input_index < 0 || input_index >= num_inputs()) return false;
  const TensorValue& v = params_->inputs[input_index];
  if (v.tensor == nullptr || v.is_ref()) return false;
  if (input_memory_type(input_index) != memory_type) return false;
  const Tensor& in = *v.tensor;
  return in.dtype() == dtype && in.NumElements() == shape.num_elements() &&
         in.IsAligned() && in.RefCountIsOne();
}

bool OpKernelContext::forward_input_to_output_with_shape(
    int input_index, int output_index, const TensorShape& output_shape,
    Tensor** output) {
  if (!CheckOutputIndex(output_index).ok()) return false;
  // A buffer handed back for this output is where the caller wants it
  // (Note [Fetch buffers] in runtime/executor.h): allocate_output takes it.
  if (params_->recycled_outputs != nullptr) {
    const Tensor& recycled = params_->recycled_outputs[output_index];
    if (recycled.IsInitialized() && recycled.RefCountIsOne() &&
        recycled.NumElements() == output_shape.num_elements() &&
        recycled.dtype() == expected_output_dtype(output_index)) {
      return false;
    }
  }
  if (!CanForward(input_index, expected_output_dtype(output_index),
                  output_memory_type(output_index), output_shape)) {
    return false;
  }
  Tensor forwarded;
  const bool ok =
      forwarded.CopyFrom(*params_->inputs[input_index].tensor, output_shape);
  MF_CHECK(ok);  // CanForward compared the element counts
  outputs_[output_index] = std::move(forwarded);
  output_set_[output_index] = true;
  *output = &outputs_[output_index];
  return true;
}

Status OpKernelContext::forward_input_to_output_with_shape(
    absl::string_view input_name, absl::string_view output_name,
    const TensorShape& output_shape, Tensor** output) {
  int input_index = 0;
  int output_index = 0;
  MF_RETURN_IF_ERROR(SingleIndex(op_kernel().input_name_map_, input_name,
                                 "input", &input_index));
  MF_RETURN_IF_ERROR(SingleIndex(op_kernel().output_name_map_, output_name,
                                 "output", &output_index));
  if (!forward_input_to_output_with_shape(input_index, output_index,
                                          output_shape, output)) {
    return errors::FailedPrecondition("OpKernel could not forward input '",
                                      input_name, "' to output '", output_name,
                                      "'");
  }
  return OkStatus();
}

Status OpKernelContext::forward_input_or_allocate_output(
    absl::Span<const int> candidate_input_indices, int output_index,
    const TensorShape& output_shape, Tensor** output, int* forwarded_input) {
  MF_RETURN_IF_ERROR(CheckOutputIndex(output_index));
  for (int input_index : candidate_input_indices) {
    if (forward_input_to_output_with_shape(input_index, output_index,
                                           output_shape, output)) {
      if (forwarded_input != nullptr) *forwarded_input = input_index;
      return OkStatus();
    }
  }
  if (forwarded_input != nullptr) *forwarded_input = -1;
  return allocate_output(output_index, output_shape, output);
}

Status OpKernelContext::forward_input_or_allocate_output(
    absl::Span<const absl::string_view> candidate_input_names,
    absl::string_view output_name, const TensorShape& output_shape,
    Tensor** output) {
  absl::InlinedVector<int, 4> indices;
  for (absl::string_view name : candidate_input_names) {
    int index = 0;
    MF_RETURN_IF_ERROR(
        SingleIndex(op_kernel().input_name_map_, name, "input", &index));
    indices.push_back(index);
  }
  int output_index = 0;
  MF_RETURN_IF_ERROR(SingleIndex(op_kernel().output_name_map_, output_name,
                                 "output", &output_index));
  return forward_input_or_allocate_output(indices, output_index, output_shape,
                                          output);
}

Status OpKernelContext::forward_input_or_allocate_temp(
    absl::Span<const int> candidate_input_indices, DataType type,
    const TensorShape& shape, Tensor* out_temp) {
  for (int input_index : candidate_input_indices) {
    if (CanForward(input_index, type, DEVICE_MEMORY, shape)) {
      const bool ok =
          out_temp->CopyFrom(*params_->inputs[input_index].tensor, shape);
      MF_CHECK(ok);
      return OkStatus();
    }
  }
  return allocate_temp(type, shape, out_temp);
}

void OpKernelContext::set_output(int index, const Tensor& tensor) {
  set_output(index, Tensor(tensor));
}

void OpKernelContext::set_output(int index, Tensor&& tensor) {
  if (index < 0 || index >= num_outputs()) {
    SetStatus(errors::Internal("set_output: index ", index,
                               " out of range; node '", op_kernel().name(),
                               "' has ", num_outputs(), " outputs"));
    return;
  }
  if (tensor.dtype() != expected_output_dtype(index)) {
    SetStatus(errors::Internal("set_output: output ", index, " of node '",
                               op_kernel().name(), "' must be ",
                               DataTypeString(expected_output_dtype(index)),
                               ", but got ", DataTypeString(tensor.dtype())));
    return;
  }
  outputs_[index] = std::move(tensor);
  output_set_[index] = true;
}

Status OpKernelContext::set_output(absl::string_view name,
                                   const Tensor& tensor) {
  int index = 0;
  MF_RETURN_IF_ERROR(
      SingleIndex(op_kernel().output_name_map_, name, "output", &index));
  set_output(index, tensor);
  return OkStatus();
}

Tensor* OpKernelContext::mutable_output(int index) {
  if (index < 0 || index >= num_outputs() || !output_set_[index]) {
    return nullptr;
  }
  return &outputs_[index];
}

Status OpKernelContext::mutable_output(absl::string_view name,
                                       Tensor** tensor) {
  int index = 0;
  MF_RETURN_IF_ERROR(
      SingleIndex(op_kernel().output_name_map_, name, "output", &index));
  *tensor = mutable_output(index);
  return OkStatus();
}

bool OpKernelContext::has_output(int index) const {
  return index >= 0 && index < num_outputs() && output_set_[index];
}

int64_t OpKernelContext::output_allocated_bytes(int index) const {
  if (index < 0 || index >= num_outputs()) return 0;
  return output_bytes_[index];
}

void OpKernelContext::SetStatus(const Status& status) {
  if (status_.ok()) status_ = status;
}

void OpKernelContext::CtxFailure(const Status& s) { SetStatus(s); }

void OpKernelContext::CtxFailureWithWarning(const Status& s) {
  MF_LOG(WARNING) << s;
  SetStatus(s);
}

void OpKernelContext::CtxFailure(const char* file, int line, const Status& s) {
  LogFailure(file, line, s, /*warning=*/false);
  SetStatus(s);
}

void OpKernelContext::CtxFailureWithWarning(const char* file, int line,
                                            const Status& s) {
  LogFailure(file, line, s, /*warning=*/true);
  SetStatus(s);
}

template <>
const Eigen::ThreadPoolDevice& OpKernelContext::eigen_device() const {
  return eigen_cpu_device();
}

}  // namespace minflow
