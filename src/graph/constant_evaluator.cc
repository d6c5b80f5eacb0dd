#include "minflow/graph/constant_evaluator.h"

#include <utility>

#include "minflow/core/threadpool.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/graph/control_flow.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"

namespace minflow {

ConstantEvaluator::ConstantEvaluator(int graph_def_version)
    : graph_def_version_(graph_def_version) {
  // Values evaluated here are small: one worker thread, shared by every
  // evaluator, instead of a pool per refiner or pass.
  static thread::ThreadPool* const pool =
      new thread::ThreadPool("constant_evaluator", 1);
  CpuDeviceOptions options;
  options.intra_op_pool = pool;
  device_ = std::make_unique<CpuDevice>(options);
}

ConstantEvaluator::~ConstantEvaluator() = default;

bool ConstantEvaluator::CanEvaluate(const NodeDef& node_def) {
  const OpRegistrationData* reg = nullptr;
  if (IsControlFlowOp(node_def.op()) ||
      !OpRegistry::Global()->LookUp(node_def.op(), &reg).ok() ||
      reg->op_def.is_stateful()) {
    return false;
  }
  return KernelDefAvailable(DEVICE_CPU, node_def);
}

Status ConstantEvaluator::Evaluate(
    const NodeDef& node_def, absl::Span<const Tensor> inputs,
    absl::Span<const PartialTensorShape> output_shapes,
    int64_t max_output_bytes, std::vector<Tensor>* outputs) {
  outputs->clear();
  std::vector<TensorShape> expected(output_shapes.size());
  for (size_t i = 0; i < output_shapes.size(); ++i) {
    if (!output_shapes[i].AsTensorShape(&expected[i])) {
      return errors::FailedPrecondition("Output ", i, " of ", node_def.name(),
                                        " has no known shape");
    }
  }
  std::unique_ptr<OpKernel> kernel;
  MF_RETURN_IF_ERROR(CreateOpKernel(DEVICE_CPU, device_.get(),
                                    /*allocator=*/nullptr, node_def,
                                    graph_def_version_, &kernel));
  if (kernel->op_def().is_stateful() || kernel->AsAsync() != nullptr) {
    return errors::FailedPrecondition(node_def.op(),
                                      " is stateful or asynchronous");
  }
  if (kernel->num_outputs() != static_cast<int>(output_shapes.size()) ||
      kernel->num_inputs() != static_cast<int>(inputs.size())) {
    return errors::InvalidArgument(
        "Evaluating ", node_def.name(), ": the kernel has ",
        kernel->num_inputs(), " inputs and ", kernel->num_outputs(),
        " outputs, given ", inputs.size(), " and ", output_shapes.size());
  }
  int64_t bytes = 0;
  for (int i = 0; i < kernel->num_outputs(); ++i) {
    const DataType type = kernel->output_type(i);
    const int size = DataTypeSize(type);
    if (size == 0 || IsRefType(type)) {
      return errors::FailedPrecondition("Output ", i, " of ", node_def.name(),
                                        " is ", DataTypeString(type),
                                        ", which is not folded");
    }
    bytes += expected[i].num_elements() * size;
    if (bytes > max_output_bytes) {
      return errors::FailedPrecondition("Outputs of ", node_def.name(),
                                        " exceed ", max_output_bytes, " bytes");
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype() != BaseType(kernel->input_type(i))) {
      return errors::InvalidArgument(
          "Evaluating ", node_def.name(), ": input ", i, " is ",
          DataTypeString(inputs[i].dtype()), ", the node expects ",
          DataTypeString(kernel->input_type(i)));
    }
  }

  std::vector<Tensor> input_copies(inputs.begin(), inputs.end());
  std::vector<TensorValue> values;
  values.reserve(input_copies.size());
  for (Tensor& t : input_copies) values.emplace_back(&t);
  OpKernelContext::Params params;
  params.op_kernel = kernel.get();
  params.device = device_.get();
  params.inputs = absl::MakeConstSpan(values);
  OpKernelContext ctx(&params);
  kernel->Compute(&ctx);
  ++num_evaluated_;
  MF_RETURN_IF_ERROR(ctx.status());
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    const Tensor* out = ctx.mutable_output(i);
    if (out == nullptr || out->dtype() != kernel->output_type(i) ||
        out->shape() != expected[i]) {
      return errors::Internal(
          "Evaluating ", node_def.name(), " (", node_def.op(), "): output ", i,
          " is ",
          out == nullptr ? std::string("missing")
                         : absl::StrCat(DataTypeString(out->dtype()), " ",
                                        out->shape().DebugString()),
          "; shape inference said ", DataTypeString(kernel->output_type(i)),
          " ", expected[i].DebugString());
    }
    outputs->push_back(*out);
  }
  return OkStatus();
}

}  // namespace minflow
