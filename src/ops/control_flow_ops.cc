// TensorFlow 1 control flow: Switch and Merge for conditionals; Enter, Exit,
// NextIteration and LoopCond for loops; ControlTrigger. The executor gives
// them their meaning (dead tensors, frames and iterations: see Note
// [Control flow] in runtime/executor.cc); their kernels only forward
// tensors. The Ref* twins take and give refs.
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"

namespace minflow {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// Both outputs have the data's shape; the predicate is a scalar.
Status SwitchShape(InferenceContext* c) {
  ShapeHandle pred;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &pred));
  c->set_output(0, c->input(0));
  c->set_output(1, c->input(0));
  // What a resource or variant holds passes through too.
  if (const auto* handle = c->input_handle_shapes_and_types(0)) {
    c->set_output_handle_shapes_and_types(0, *handle);
    c->set_output_handle_shapes_and_types(1, *handle);
  }
  return OkStatus();
}

// The most specific shape every input has (TensorFlow's Relax over the
// inputs: dims on which they disagree become unknown, different ranks an
// unknown shape). An input reached through a loop's back edge first has
// the entry's shape (Note [Loops] in graph/shape_refiner.cc).
Status MergeShape(InferenceContext* c) {
  ShapeHandle out = c->input(0);
  for (int i = 1; i < c->num_inputs(); ++i) c->Relax(out, c->input(i), &out);
  c->set_output(0, out);
  // What a resource or variant holds: as the first input that says.
  for (int i = 0; i < c->num_inputs(); ++i) {
    if (const auto* handle = c->input_handle_shapes_and_types(i)) {
      c->set_output_handle_shapes_and_types(0, *handle);
      break;
    }
  }
  c->set_output(1, c->Scalar());
  return OkStatus();
}

Status LoopCondShape(InferenceContext* c) {
  ShapeHandle pred;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 0, &pred));
  c->set_output(0, pred);
  return OkStatus();
}

}  // namespace

REGISTER_OP("Switch")
    .Input("data: T")
    .Input("pred: bool")
    .Output("output_false: T")
    .Output("output_true: T")
    .Attr("T: type")
    .SetShapeFn(SwitchShape)
    .Doc(R"doc(
Forwards data to output_true or output_false, as pred says.

The output not taken is dead: the ops that consume it do not run (until a
Merge), which is how TensorFlow 1 graphs express conditionals.

pred: A scalar.
)doc");

REGISTER_OP("RefSwitch")
    .Input("data: Ref(T)")
    .Input("pred: bool")
    .Output("output_false: Ref(T)")
    .Output("output_true: Ref(T)")
    .Attr("T: type")
    .SetAllowsUninitializedInput()
    .SetShapeFn(SwitchShape)
    .Doc(R"doc(
Switch for a reference input: forwards the reference to one output.

pred: A scalar.
)doc");

REGISTER_OP("Merge")
    .Input("inputs: N * T")
    .Output("output: T")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetShapeFn(MergeShape)
    .Doc(R"doc(
Forwards whichever of its inputs is alive, the first one to arrive.

Merge runs as soon as one input is available, ending the dead branches of a
Switch; in loops it joins the entering value with NextIteration's.

value_index: The index of the input that was forwarded.
)doc");

REGISTER_OP("RefMerge")
    .Input("inputs: Ref(N * T)")
    .Output("output: Ref(T)")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetShapeFn(MergeShape)
    .Doc(R"doc(
Merge for reference inputs.

value_index: The index of the input that was forwarded.
)doc");

REGISTER_OP("Enter")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Brings data into the loop frame frame_name.

frame_name: The loop that the value enters; every Enter of a loop uses the
  same name.
is_constant: The value stays the same in every iteration: it is visible to
  all of them instead of only the first.
parallel_iterations: How many iterations of the loop may run at once.
)doc");

REGISTER_OP("RefEnter")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Enter for a reference input.

frame_name: The loop that the value enters.
is_constant: The value is visible to every iteration, not only the first.
parallel_iterations: How many iterations of the loop may run at once.
)doc");

REGISTER_OP("Exit")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Takes data out of its loop frame to the frame around it when the loop ends.
)doc");

REGISTER_OP("RefExit")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("Exit for a reference input.");

REGISTER_OP("NextIteration")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("Passes data to the next iteration of its loop.");

REGISTER_OP("RefNextIteration")
    .Input("data: Ref(T)")
    .Output("output: Ref(T)")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("NextIteration for a reference input.");

REGISTER_OP("LoopCond")
    .Input("input: bool")
    .Output("output: bool")
    .SetShapeFn(LoopCondShape)
    .Doc(R"doc(
Marks the boolean that decides whether a loop runs another iteration.

input: A scalar; true continues the loop.
)doc");

REGISTER_OP("ControlTrigger")
    .SetShapeFn(shape_inference::NoOutputs)
    .Doc("Does nothing; runs even when its control inputs are dead.");

// Made only by the sequential_loops pass (Note [Sequential loops] in
// graph/passes/sequential_loops.cc); never in a user's graph.
REGISTER_OP("_SequentialLoop")
    .Input("initial: T")
    .Input("invariants: Tinvariant")
    .Output("final: T")
    .Attr("T: list(type) >= 1")
    .Attr("Tinvariant: list(type) >= 0")
    .Attr("frame_name: string")
    .Attr("body_nodes: list(string) >= 0")
    .Attr("var_merges: list(string)")
    .Attr("var_switches: list(string)")
    .Attr("invariant_enters: list(string)")
    .Attr("cond: string")
    .Attr("next_values: list(string)")
    .SetIsStateful()
    .SetShapeFn(shape_inference::UnknownShape)
    .Doc(R"doc(Runs a TF1 while loop's frame, one iteration after another.

The sequential_loops pass replaces a loop whose iterations cannot overlap
(or whose parallel_iterations is 1) by this node: the loop's cond and body
nodes run in order on the calling thread, without the executor's per-node
hand-offs. Its results are the values the loop's Exits would have had.
initial: the loop variables' values on entry (the Enters' inputs).
invariants: the values of the loop's constant Enters.
final: each loop variable's value when the condition turned false.
body_nodes: the frame's nodes as serialized NodeDefs, in an order where
  each node follows its inputs; their inputs name other body nodes or the
  names below.
var_merges: per loop variable, the Merge whose output 0 is its value.
var_switches: per loop variable, the Switch whose output 1 is its value
  in the body.
invariant_enters: per invariant, the Enter whose output 0 is its value.
cond: the tensor the loop's LoopCond reads, as "node:index".
next_values: per loop variable, the tensor its NextIteration reads.)doc");

}  // namespace minflow
