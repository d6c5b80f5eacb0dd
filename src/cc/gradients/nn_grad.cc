// Gradients of the neural-network ops: Relu (ReluGrad) and BiasAdd
// (BiasAddGrad).
#include <string>
#include <vector>

#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/ops/standard_ops.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/graph/graph.h"

namespace minflow {
namespace ops {
namespace {

// ReluGrad from Relu's input, as TensorFlow does: at 0 the gradient is 0.
Status ReluGradient(const Scope& scope, const Operation& op,
                    const std::vector<Output>& grad_inputs,
                    std::vector<Output>* grad_outputs) {
  grad_outputs->push_back(ReluGrad(scope, grad_inputs[0], op.input(0)));
  return scope.status();
}
REGISTER_GRADIENT_OP("Relu", ReluGradient);

// The value's gradient passes through; the bias's is summed over all but
// the channel dimension.
Status BiasAddGradient(const Scope& scope, const Operation& op,
                       const std::vector<Output>& grad_inputs,
                       std::vector<Output>* grad_outputs) {
  std::string data_format;
  MF_RETURN_IF_ERROR(
      GetNodeAttr(op.node()->def(), "data_format", &data_format));
  grad_outputs->push_back(Identity(scope, grad_inputs[0]));
  grad_outputs->push_back(
      BiasAddGrad(scope, grad_inputs[0], BiasAddGrad::DataFormat(data_format)));
  return scope.status();
}
REGISTER_GRADIENT_OP("BiasAdd", BiasAddGradient);

}  // namespace
}  // namespace ops
}  // namespace minflow
