#include "minflow/cc/ops/const_op.h"

#include "minflow/cc/framework/op_builder.h"

namespace minflow {
namespace ops {

Output Const(const Scope& scope, const Input::Initializer& value) {
  if (!scope.ok()) return Output();
  if (!value.status.ok()) {
    scope.UpdateStatus(value.status);
    return Output();
  }
  OpBuilder builder(scope, "Const");
  builder.Attr("value", value.tensor).Attr("dtype", value.tensor.dtype());
  return Output(builder.Finish().node(), 0);
}

}  // namespace ops
}  // namespace minflow
