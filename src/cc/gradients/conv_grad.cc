// Gradients of the convolution and pooling ops: Conv2D
// (Conv2DBackpropInput, Conv2DBackpropFilter), DepthwiseConv2dNative (its
// two backprops), MaxPool and MaxPoolV2 (MaxPoolGrad, MaxPoolGradV2) and
// AvgPool (AvgPoolGrad). Each backprop op takes the forward op's attrs
// unchanged.
#include <string>
#include <vector>

#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"

namespace minflow {
namespace ops {
namespace {

// The window attrs the forward convolutions share.
struct ConvAttrs {
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> explicit_paddings;
  std::string padding;
  std::string data_format;
};

Status ReadConvAttrs(const Operation& op, ConvAttrs* a) {
  const NodeDef& def = op.node()->def();
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "strides", &a->strides));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "dilations", &a->dilations));
  MF_RETURN_IF_ERROR(
      GetNodeAttr(def, "explicit_paddings", &a->explicit_paddings));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "padding", &a->padding));
  return GetNodeAttr(def, "data_format", &a->data_format);
}

// dx = Conv2DBackpropInput(shape(x), w, dy), dw = Conv2DBackpropFilter(x,
// shape(w), dy).
Status Conv2DGrad(const Scope& scope, const Operation& op,
                  const std::vector<Output>& grad_inputs,
                  std::vector<Output>* grad_outputs) {
  ConvAttrs a;
  MF_RETURN_IF_ERROR(ReadConvAttrs(op, &a));
  bool use_cudnn_on_gpu = true;
  MF_RETURN_IF_ERROR(
      GetNodeAttr(op.node()->def(), "use_cudnn_on_gpu", &use_cudnn_on_gpu));
  const Output x = op.input(0);
  const Output w = op.input(1);
  grad_outputs->push_back(Conv2DBackpropInput(
      scope, Shape(scope, x), w, grad_inputs[0], a.strides, a.padding,
      Conv2DBackpropInput::Dilations(a.dilations)
          .ExplicitPaddings(a.explicit_paddings)
          .DataFormat(a.data_format)
          .UseCudnnOnGpu(use_cudnn_on_gpu)));
  grad_outputs->push_back(Conv2DBackpropFilter(
      scope, x, Shape(scope, w), grad_inputs[0], a.strides, a.padding,
      Conv2DBackpropFilter::Dilations(a.dilations)
          .ExplicitPaddings(a.explicit_paddings)
          .DataFormat(a.data_format)
          .UseCudnnOnGpu(use_cudnn_on_gpu)));
  return scope.status();
}
REGISTER_GRADIENT_OP("Conv2D", Conv2DGrad);

Status DepthwiseConv2dNativeGrad(const Scope& scope, const Operation& op,
                                 const std::vector<Output>& grad_inputs,
                                 std::vector<Output>* grad_outputs) {
  ConvAttrs a;
  MF_RETURN_IF_ERROR(ReadConvAttrs(op, &a));
  const Output x = op.input(0);
  const Output w = op.input(1);
  grad_outputs->push_back(DepthwiseConv2dNativeBackpropInput(
      scope, Shape(scope, x), w, grad_inputs[0], a.strides, a.padding,
      DepthwiseConv2dNativeBackpropInput::Dilations(a.dilations)
          .ExplicitPaddings(a.explicit_paddings)
          .DataFormat(a.data_format)));
  grad_outputs->push_back(DepthwiseConv2dNativeBackpropFilter(
      scope, x, Shape(scope, w), grad_inputs[0], a.strides, a.padding,
      DepthwiseConv2dNativeBackpropFilter::Dilations(a.dilations)
          .ExplicitPaddings(a.explicit_paddings)
          .DataFormat(a.data_format)));
  return scope.status();
}
REGISTER_GRADIENT_OP("DepthwiseConv2dNative", DepthwiseConv2dNativeGrad);

// MaxPoolGrad from the forward input and output (the first maximum of a
// window takes its gradient).
Status MaxPoolGradHelper(const Scope& scope, const Operation& op,
                         const std::vector<Output>& grad_inputs,
                         std::vector<Output>* grad_outputs) {
  const NodeDef& def = op.node()->def();
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  std::vector<int64_t> explicit_paddings;
  std::string padding;
  std::string data_format;
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "ksize", &ksize));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "strides", &strides));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "explicit_paddings", &explicit_paddings));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "padding", &padding));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "data_format", &data_format));
  grad_outputs->push_back(MaxPoolGrad(
      scope, op.input(0), op.output(0), grad_inputs[0], ksize, strides, padding,
      MaxPoolGrad::ExplicitPaddings(explicit_paddings)
          .DataFormat(data_format)));
  return scope.status();
}
REGISTER_GRADIENT_OP("MaxPool", MaxPoolGradHelper);

// The window inputs (ksize, strides) get no gradient.
Status MaxPoolV2GradHelper(const Scope& scope, const Operation& op,
                           const std::vector<Output>& grad_inputs,
                           std::vector<Output>* grad_outputs) {
  const NodeDef& def = op.node()->def();
  std::string padding;
  std::string data_format;
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "padding", &padding));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "data_format", &data_format));
  grad_outputs->push_back(MaxPoolGradV2(
      scope, op.input(0), op.output(0), grad_inputs[0], op.input(1),
      op.input(2), padding, MaxPoolGradV2::DataFormat(data_format)));
  grad_outputs->push_back(NoGradient());
  grad_outputs->push_back(NoGradient());
  return scope.status();
}
REGISTER_GRADIENT_OP("MaxPoolV2", MaxPoolV2GradHelper);

Status AvgPoolGradHelper(const Scope& scope, const Operation& op,
                         const std::vector<Output>& grad_inputs,
                         std::vector<Output>* grad_outputs) {
  const NodeDef& def = op.node()->def();
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  std::string padding;
  std::string data_format;
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "ksize", &ksize));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "strides", &strides));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "padding", &padding));
  MF_RETURN_IF_ERROR(GetNodeAttr(def, "data_format", &data_format));
  grad_outputs->push_back(AvgPoolGrad(scope, Shape(scope, op.input(0)),
                                      grad_inputs[0], ksize, strides, padding,
                                      AvgPoolGrad::DataFormat(data_format)));
  return scope.status();
}
REGISTER_GRADIENT_OP("AvgPool", AvgPoolGradHelper);

}  // namespace
}  // namespace ops
}  // namespace minflow
