#include "tests/kernels/testing_ops.h"

#include <mutex>

#include "minflow/framework/op.h"
#include "minflow/framework/op_def_builder.h"

namespace minflow {
namespace test {
namespace {

void RegisterIfMissing(const OpDefBuilder& builder) {
  if (OpRegistry::Global()->LookUp(builder.op_name()) != nullptr) return;
  OpRegistry::Global()->Register(
      [builder](OpRegistrationData* data) { return builder.Finalize(data); });
}

// The signatures of TensorFlow's ops (shape functions are src/ops' job).
void RegisterAll() {
  RegisterIfMissing(OpDefBuilder("Const")
                        .Output("output: dtype")
                        .Attr("value: tensor")
                        .Attr("dtype: type"));
  RegisterIfMissing(OpDefBuilder("Placeholder")
                        .Output("output: dtype")
                        .Attr("dtype: type")
                        .Attr("shape: shape = { unknown_rank: true }"));
  RegisterIfMissing(OpDefBuilder("PlaceholderWithDefault")
                        .Input("input: dtype")
                        .Output("output: dtype")
                        .Attr("dtype: type")
                        .Attr("shape: shape"));
  RegisterIfMissing(OpDefBuilder("Identity")
                        .Input("input: T")
                        .Output("output: T")
                        .Attr("T: type"));
  RegisterIfMissing(OpDefBuilder("StopGradient")
                        .Input("input: T")
                        .Output("output: T")
                        .Attr("T: type"));
  RegisterIfMissing(OpDefBuilder("IdentityN")
                        .Input("input: T")
                        .Output("output: T")
                        .Attr("T: list(type)"));
  RegisterIfMissing(OpDefBuilder("NoOp"));
}

}  // namespace

void RegisterMissingKernelTestOps() {
  static std::once_flag once;
  std::call_once(once, RegisterAll);
}

}  // namespace test
}  // namespace minflow
