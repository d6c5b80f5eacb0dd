// String ops TensorFlow's savers put in SavedModels: StringJoin and
// StaticRegexFullMatch build checkpoint file names. Interfaces match
// TensorFlow's.
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// Scalars broadcast; every other input must have the output's shape.
Status StringJoinShape(InferenceContext* c) {
  ShapeHandle out = c->Scalar();
  bool all_scalars = true;
  for (int i = 0; i < c->num_inputs(); ++i) {
    const ShapeHandle input = c->input(i);
    if (c->RankKnown(input) && c->Rank(input) == 0) continue;
    if (all_scalars) {
      out = input;
      all_scalars = false;
      continue;
    }
    MF_RETURN_IF_ERROR(c->Merge(out, input, &out));
  }
  c->set_output(0, out);
  return OkStatus();
}

}  // namespace

REGISTER_OP("StringJoin")
    .Input("inputs: N * string")
    .Attr("N: int >= 0")
    .Attr("separator: string = ''")
    .Output("output: string")
    .SetShapeFn(StringJoinShape)
    .Doc(R"doc(
Joins the strings of the inputs element-wise, with separator between them.

Scalar inputs broadcast; the others must all have the same shape.

separator: Put between consecutive inputs.
)doc");

REGISTER_OP("StaticRegexFullMatch")
    .Input("input: string")
    .Attr("pattern: string")
    .Output("output: bool")
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc(R"doc(
Whether each string of input matches pattern as a whole.

minflow uses std::regex's ECMAScript grammar where TensorFlow uses RE2: the
two agree on simple patterns such as those TensorFlow's savers write. A
pattern std::regex rejects is an error.

pattern: The regular expression.
)doc");

}  // namespace minflow
