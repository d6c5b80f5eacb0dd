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
    .Doc(R"doc(
Calls the function f on args and returns its results.

minflow inlines the call into the graph before it runs.

args: The arguments of f.
output: The results of f.
f: A function of the graph's library.
config: Accepted for compatibility; minflow ignores it.
config_proto: Accepted for compatibility; minflow ignores it.
executor_type: Accepted for compatibility; minflow ignores it.
)doc");

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
    .Doc(R"doc(
PartitionedCall of a function that may have side effects.

args: The arguments of f.
output: The results of f.
f: A function of the graph's library.
config: Accepted for compatibility; minflow ignores it.
config_proto: Accepted for compatibility; minflow ignores it.
executor_type: Accepted for compatibility; minflow ignores it.
)doc");

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
    .Doc(R"doc(
Runs then_branch(input) when cond is true, else else_branch(input).

minflow lowers it to Switch and Merge before the graph runs, so only the
branch taken runs.

cond: A scalar; a non-bool cond is true when it is not zero.
input: The arguments of both branches.
output: The results of the branch taken.
then_branch: A function of the graph's library taking input's types and
  returning Tout.
else_branch: As then_branch.
output_shapes: The shapes of output, where known; empty when unknown.
)doc");

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
    .Doc(R"doc(
If whose branches have no side effects.

cond: A scalar; a non-bool cond is true when it is not zero.
input: The arguments of both branches.
output: The results of the branch taken.
then_branch: A function of the graph's library taking input's types and
  returning Tout.
else_branch: As then_branch.
output_shapes: The shapes of output, where known; empty when unknown.
)doc");

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
    .Doc(R"doc(
Runs branches[branch_index](input) and returns its results.

An index out of range runs the last branch. minflow lowers it to Switch and
Merge before the graph runs.

branch_index: A scalar.
input: The arguments of every branch.
output: The results of the branch taken.
branches: Functions of the graph's library, each taking input's types and
  returning Tout.
output_shapes: The shapes of output, where known; empty when unknown.
)doc");

REGISTER_OP("StatelessCase")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetShapeFn(CaseShape)
    .Doc(R"doc(
Case whose branches have no side effects.

branch_index: A scalar; out of range runs the last branch.
input: The arguments of every branch.
output: The results of the branch taken.
branches: Functions of the graph's library, each taking input's types and
  returning Tout.
output_shapes: The shapes of output, where known; empty when unknown.
)doc");

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
    .Doc(R"doc(
Runs body on the loop variables while cond of them is true; returns their last values.

minflow lowers it to a TensorFlow 1 loop (Enter, Merge, Switch, Exit,
NextIteration) before the graph runs.

input: The loop variables' initial values.
output: The loop variables' values when cond became false.
cond: A function from the loop variables to a scalar; non-bool results are
  true when not zero.
body: A function from the loop variables to their next values, of the same
  types.
output_shapes: The shapes of output, where known; empty when unknown.
parallel_iterations: How many iterations may run at once.
)doc");

REGISTER_OP("StatelessWhile")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(OutputShapesAttr)
    .Doc(R"doc(
While whose cond and body have no side effects.

input: The loop variables' initial values.
output: The loop variables' values when cond became false.
cond: A function from the loop variables to a scalar; non-bool results are
  true when not zero.
body: A function from the loop variables to their next values, of the same
  types.
output_shapes: The shapes of output, where known; empty when unknown.
parallel_iterations: How many iterations may run at once.
)doc");

}  // namespace minflow
