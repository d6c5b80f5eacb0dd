// A library that registers a gradient at load time, as a custom-op plugin
// does for its own op (grad_op_registry_test dlopens it).
#include <vector>

#include "minflow/cc/framework/grad_op_registry.h"

namespace {

minflow::Status PluginTestGrad(const minflow::Scope& scope,
                               const minflow::Operation& op,
                               const std::vector<minflow::Output>& grad_inputs,
                               std::vector<minflow::Output>* grad_outputs) {
  grad_outputs->push_back(grad_inputs[0]);
  return minflow::OkStatus();
}

}  // namespace

REGISTER_GRADIENT_OP("GradPluginTestOp", PluginTestGrad);
