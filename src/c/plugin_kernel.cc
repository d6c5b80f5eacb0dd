// The OpKernel that runs a plugin operator's C callbacks, and the shape
// function that runs its Prepare (see Note [Plugin kernel ABI]).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "minflow/framework/kernel_def_builder.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/framework/shape_inference.h"
#include "minflow/kernel_def.pb.h"
#include "minflow/node_def.pb.h"
#include "src/c/plugin_internal.h"

namespace minflow {
namespace c_plugin {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;
using Phase = MF_KernelContext::Phase;

// Runs Init (when the operator has one) and returns the kernel state;
// errors stay in `ctx`.
void* RunInit(const OperatorSpec& spec, MF_KernelInitContext* ctx) {
  if (spec.init == nullptr) return spec.user_data;
  CallScope scope(HandleKind::kInit, ctx, ctx);
  return spec.init(ctx, spec.user_data);
}

// Frees what RunInit returned (only states Init made).
void RunFree(const OperatorSpec& spec, void* state) {
  if (spec.init != nullptr && spec.free != nullptr && state != nullptr) {
    spec.free(state, spec.user_data);
  }
}

// Runs Prepare or Invoke on `ctx` and returns its Status.
Status RunCallback(const OperatorSpec& spec, MF_KernelContext* ctx,
                   void* state) {
  MF_PluginPrepareFn fn =
      ctx->phase == Phase::kInvoke ? spec.invoke : spec.prepare;
  MF_Code code;
  {
    CallScope scope(HandleKind::kKernel, ctx, ctx);
    code = fn(ctx, state);
  }
  return CallbackStatus(*ctx, code, spec,
                        ctx->phase == Phase::kInvoke ? "Invoke" : "Prepare");
}

class PluginKernel : public OpKernel {
 public:
  PluginKernel(OpKernelConstruction* construction,
               std::shared_ptr<const OperatorSpec> spec)
      : OpKernel(construction), spec_(std::move(spec)) {
    MF_KernelInitContext init(*spec_, def(), input_types(), output_types());
    state_ = RunInit(*spec_, &init);
    OP_REQUIRES_OK(construction, CallbackStatus(init, MF_OK, *spec_, "Init"));
  }

  ~PluginKernel() override { RunFree(*spec_, state_); }

  void Compute(OpKernelContext* context) override {
    MF_KernelContext ctx(*spec_, name(), Phase::kPrepare, output_types());
    ctx.op_ctx = context;
    ctx.inputs.resize(context->num_inputs());
    for (int i = 0; i < context->num_inputs(); ++i) {
      OP_REQUIRES(context, context->has_input(i),
                  errors::Internal("input ", i, " of ", spec_->description,
                                   " is missing"));
      const Tensor& t = context->input(i);
      MF_KernelContext::Input& in = ctx.inputs[i];
      in.dtype = t.dtype();
      in.dims = t.shape().dim_sizes();
      in.num_elements = t.NumElements();
      in.tensor = &t;
    }
    if (spec_->prepare != nullptr) {
      OP_REQUIRES_OK(context, RunCallback(*spec_, &ctx, state_));
    }
    ctx.phase = Phase::kInvoke;
    OP_REQUIRES_OK(context, RunCallback(*spec_, &ctx, state_));
    for (int o = 0; o < num_outputs(); ++o) {
      OP_REQUIRES(
          context, context->has_output(o),
          errors::Internal(
              "Invoke of ", spec_->description, " returned success without ",
              "producing output ", o, " ('", OutputArgName(o),
              "'); allocate it with KernelContext_AllocateOutput or "
              "KernelContext_OutputData"));
    }
  }

 private:
  // The OpDef name of output `o` (the arg a list output belongs to).
  std::string OutputArgName(int o) const {
    for (const OpDef::ArgDef& arg : op_def().output_arg()) {
      int start = 0;
      int stop = 0;
      if (OutputRange(arg.name(), &start, &stop).ok() && o >= start &&
          o < stop) {
        return arg.name();
      }
    }
    return "?";
  }

  const std::shared_ptr<const OperatorSpec> spec_;
  void* state_ = nullptr;
};

class PluginKernelFactory : public kernel_factory::OpKernelFactory {
 public:
  explicit PluginKernelFactory(std::shared_ptr<const OperatorSpec> spec)
      : spec_(std::move(spec)) {}
  OpKernel* Create(OpKernelConstruction* construction) override {
    return new PluginKernel(construction, spec_);
  }

 private:
  const std::shared_ptr<const OperatorSpec> spec_;
};

Status AllOutputsUnknown(InferenceContext* c) {
  for (int o = 0; o < c->num_outputs(); ++o)
    c->set_output(o, c->UnknownShape());
  return OkStatus();
}

// Note [Shapes from Prepare]
// Prepare sees real input shapes only, so it runs only for nodes whose
// inputs are fully known; with the same inputs and attrs the run-time
// Prepare sets the same shapes, which makes the inferred shapes exact.
// When Prepare needs what only a run has (an input's value that is not a
// known constant, scratch memory) its result says nothing, and the outputs
// stay unknown whatever it returned.
Status PrepareShapeFn(const OperatorSpec& spec, const OpDef& op_def,
                      InferenceContext* c) {
  std::vector<TensorShape> shapes(c->num_inputs());
  for (int i = 0; i < c->num_inputs(); ++i) {
    ShapeHandle s = c->input(i);
    if (!InferenceContext::FullyDefined(s)) return AllOutputsUnknown(c);
    std::vector<int64_t> dims;
    for (int d = 0; d < InferenceContext::Rank(s); ++d) {
      dims.push_back(InferenceContext::Value(c->Dim(s, d)));
    }
    // A shape no tensor can have (too many elements) cannot reach Prepare.
    if (!TensorShape::BuildTensorShape(dims, &shapes[i]).ok()) {
      return AllOutputsUnknown(c);
    }
  }
  DataTypeVector input_types;
  DataTypeVector output_types;
  MF_RETURN_IF_ERROR(
      InOutTypesForNode(c->node_def(), op_def, &input_types, &output_types));

  MF_KernelInitContext init(spec, c->node_def(), input_types, output_types);
  void* state = RunInit(spec, &init);
  Status s = CallbackStatus(init, MF_OK, spec, "Init");
  MF_KernelContext ctx(spec, c->node_def().name(), Phase::kShapeInference,
                       output_types);
  if (s.ok()) {
    ctx.infer_ctx = c;
    ctx.inputs.resize(c->num_inputs());
    for (int i = 0; i < c->num_inputs(); ++i) {
      MF_KernelContext::Input& in = ctx.inputs[i];
      in.dtype = i < static_cast<int>(input_types.size()) ? input_types[i]
                                                          : DT_INVALID;
      in.dims = shapes[i].dim_sizes();
      in.num_elements = shapes[i].num_elements();
    }
    s = RunCallback(spec, &ctx, state);
  }
  RunFree(spec, state);
  if (ctx.wanted_run_time_data) return AllOutputsUnknown(c);
  MF_RETURN_IF_ERROR(s);
  for (int o = 0; o < c->num_outputs(); ++o) {
    ShapeHandle out = c->UnknownShape();
    if (ctx.output_shapes[o].has_value()) {
      MF_RETURN_IF_ERROR(
          c->MakeShapeFromTensorShape(*ctx.output_shapes[o], &out));
    }
    c->set_output(o, out);
  }
  return OkStatus();
}

}  // namespace

void RegisterPluginKernel(std::shared_ptr<const OperatorSpec> spec) {
  const KernelDef* def =
      KernelDefBuilder(spec->name.c_str()).Device(DEVICE_CPU).Build();
  const std::string class_name =
      absl::StrCat("PluginKernel<", spec->description, ">");
  kernel_factory::OpKernelRegistrar registrar(
      def, class_name, std::make_unique<PluginKernelFactory>(std::move(spec)));
}

OpShapeInferenceFn MakePrepareShapeFn(std::shared_ptr<const OperatorSpec> spec,
                                      const OpDef& op_def) {
  auto def = std::make_shared<const OpDef>(op_def);
  return [spec = std::move(spec), def](InferenceContext* c) {
    return PrepareShapeFn(*spec, *def, c);
  };
}

}  // namespace c_plugin
}  // namespace minflow
