// Calls of functions from a graph's library: PartitionedCall and
// StatefulPartitionedCall, and the functional control flow that takes
// functions as attrs (If, Case, While and their Stateless twins). The shape
// refiner looks into the functions' bodies (Note [Shapes through functions]
// in graph/shape_refiner.cc); the lower_functional_ops pass inlines calls
// and lowers If, Case and While into TF1 control flow before they run.
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"

namespace minflow {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;
using shape_inference::UnknownShape;

// `output_shapes` when the attr gives one shape per output, else unknown
// shapes (the refiner then infers them from the functions).
Status OutputShapesAttr(InferenceContext* c) {
  std::vector<PartialTensorShape> shapes;
  MF_RETURN_IF_ERROR(c->GetAttr("output_shapes", &shapes));
  if (shapes.empty()) return UnknownShape(c);
  if (static_cast<int>(shapes.size()) != c->num_outputs()) {
    return errors::InvalidArgument("output_shapes has ", shapes.size(),
                                   " shapes but the op has ", c->num_outputs(),
                                   " outputs");
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    ShapeHandle s;
    MF_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shapes[i], &s));
    c->set_output(i, s);
  }
  return OkStatus();
}

Status CaseShape(InferenceContext* c) {
  ShapeHandle index;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &index));
  return OutputShapesAttr(c);
}

}  // namespace

REGISTER_OP("PartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''")
    .SetShapeFn(UnknownShape)
    .Doc("Calls function `f` on `args` and returns what it returns.");

REGISTER_OP("StatefulPartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''")
    .SetIsStateful()
    .SetIsDistributedCommunication()
    .SetShapeFn(UnknownShape)
    .Doc("PartitionedCall of a function that may have side effects.");

REGISTER_OP("If")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn(OutputShapesAttr)
    .Doc("then_branch(input) when cond is true, else else_branch(input).");

REGISTER_OP("StatelessIf")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetShapeFn(OutputShapesAttr)
    .Doc("If whose branches have no side effects.");

REGISTER_OP("Case")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn(CaseShape)
    .Doc(
        "branches[branch_index](input); the last branch when the index is "
        "out of range.");

REGISTER_OP("StatelessCase")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetShapeFn(CaseShape)
    .Doc("Case whose branches have no side effects.");

REGISTER_OP("While")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetIsStateful()
    .SetShapeFn(OutputShapesAttr)
    .Doc(
        "Runs body on the loop variables while cond(loop variables) is "
        "true; returns the last loop variables.");

REGISTER_OP("StatelessWhile")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(OutputShapesAttr)
    .Doc("While whose cond and body have no side effects.");

}  // namespace minflow
