// The gradient registry of the C++ API (TensorFlow's
// cc/framework/grad_op_registry.h): one gradient function per op type,
// which adds the op's backward subgraph to a Scope.
//
//   Status MatMulGrad(const Scope& scope, const Operation& op,
//                     const std::vector<Output>& grad_inputs,
//                     std::vector<Output>* grad_outputs);
//   REGISTER_GRADIENT_OP("MatMul", MatMulGrad);
//   REGISTER_NO_GRADIENT_OP("Shape");
//
// The registry lives in libminflow_cc, so a custom-op library linked to it
// registers the gradients of its own ops with the same static registrar.
#pragma once

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "minflow/cc/framework/ops.h"
#include "minflow/cc/framework/scope.h"
#include "minflow/core/status.h"

namespace minflow {
namespace ops {

// Adds to `scope` the gradients of `op`'s inputs: `grad_inputs` holds one
// gradient per output of `op` (the gradient flowing into it from the
// ops that consume it), and the function appends one Output per input of
// `op` to `grad_outputs`, NoGradient() where an input has none.
using GradFunc = Status (*)(const Scope& scope, const Operation& op,
                            const std::vector<Output>& grad_inputs,
                            std::vector<Output>* grad_outputs);

// Op type -> gradient function. A null function declares an op that has no
// gradient (TensorFlow's NotDifferentiable): gradients stop there. Thread-
// safe: a library may register while another thread looks up.
class GradOpRegistry {
 public:
  GradOpRegistry() = default;
  GradOpRegistry(const GradOpRegistry&) = delete;
  GradOpRegistry& operator=(const GradOpRegistry&) = delete;

  // The process-wide registry, in libminflow_cc.
  static GradOpRegistry* Global();

  // Registers `func` (or null: no gradient) for `op`. The first
  // registration wins: a second one for the same op is refused, logged and
  // returns false (a library cannot replace a built-in gradient).
  bool Register(absl::string_view op, GradFunc func);

  // The function for `op` (null for an op declared without gradient).
  // NotFound naming the op when nothing is registered for it.
  Status Lookup(absl::string_view op, GradFunc* func) const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, GradFunc> registry_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ops

// TensorFlow's name for the absent gradient: a null Output that
// AddSymbolicGradients and gradient functions treat as "no gradient".
Output NoGradient();

}  // namespace minflow

#define REGISTER_GRADIENT_OP(name, fn) \
  MF_REGISTER_GRADIENT_OP_UNIQ_HELPER(__COUNTER__, name, fn)
#define REGISTER_NO_GRADIENT_OP(name) \
  MF_REGISTER_GRADIENT_OP_UNIQ_HELPER(__COUNTER__, name, nullptr)
#define MF_REGISTER_GRADIENT_OP_UNIQ_HELPER(ctr, name, fn) \
  MF_REGISTER_GRADIENT_OP_UNIQ(ctr, name, fn)
#define MF_REGISTER_GRADIENT_OP_UNIQ(ctr, name, fn)                \
  [[maybe_unused]] static const bool mf_grad_op_registered_##ctr = \
      ::minflow::ops::GradOpRegistry::Global()->Register(name, fn)
