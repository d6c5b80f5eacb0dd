// Gradients of TF1 conditionals: Switch and Merge (and their Ref twins).
// The functional If and Case are in functional_grad.cc; loops have no
// gradient (AddSymbolicGradients says so before it gets here).
#include <vector>

#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/ops/standard_ops.h"

namespace minflow {
namespace ops {
namespace {

// Note [Gradients of conditionals]
// At run time exactly one output of a forward Switch is live, and a Merge
// forwards whichever input is live. The backward pass mirrors that with
// dead tensors instead of a cond context:
// - Merge's gradient routes its output's gradient to input i through a
//   Switch on `value_index == i`, so only the input the forward Merge took
//   gets a live gradient; everything computed from the others is dead.
// - Switch's gradient merges the gradients of its two outputs: the one
//   belonging to the untaken branch is dead, so Merge picks the live one.
//   An output that received nothing gets ZerosLike(output) from the
//   builder, which is live exactly when that branch was taken, so a branch
//   that does not use its input still gives zeros.
// This needs every tensor from outside a branch to enter it through a
// Switch, which is how tf.cond builds graphs (and how the lowering pass
// lowers If and Case); a branch that reads an outside tensor directly would
// send a dead gradient to it when the branch is not taken.

Status SwitchGrad(const Scope& scope, const Operation& op,
                  const std::vector<Output>& grad_inputs,
                  std::vector<Output>* grad_outputs) {
  Merge merged(scope, {grad_inputs[0], grad_inputs[1]});
  grad_outputs->push_back(merged.output);
  grad_outputs->push_back(NoGradient());  // pred
  return scope.status();
}
REGISTER_GRADIENT_OP("Switch", SwitchGrad);
REGISTER_GRADIENT_OP("RefSwitch", SwitchGrad);

Status MergeGrad(const Scope& scope, const Operation& op,
                 const std::vector<Output>& grad_inputs,
                 std::vector<Output>* grad_outputs) {
  const Output value_index(op.node(), 1);
  for (int i = 0; i < op.num_inputs(); ++i) {
    Output taken = Equal(scope, value_index, Const(scope, i));
    grad_outputs->push_back(Switch(scope, grad_inputs[0], taken).output_true);
  }
  return scope.status();
}
REGISTER_GRADIENT_OP("Merge", MergeGrad);
REGISTER_GRADIENT_OP("RefMerge", MergeGrad);

}  // namespace
}  // namespace ops
}  // namespace minflow
