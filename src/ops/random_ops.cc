// Seeded random ops: RandomUniform, RandomStandardNormal, TruncatedNormal,
// RandomUniformInt and Multinomial. Interfaces match TensorFlow's; all are
// stateful (each kernel advances its own Philox stream).
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// The output's shape is the value of input 0 (a shape vector).
Status RandomShape(InferenceContext* c) {
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return OkStatus();
}

Status RandomUniformIntShape(InferenceContext* c) {
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  return RandomShape(c);
}

// logits [batch, classes], num_samples scalar -> [batch, num_samples].
Status MultinomialShape(InferenceContext* c) {
  ShapeHandle logits;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &logits));
  ShapeHandle unused;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  DimensionHandle num_samples;
  MF_RETURN_IF_ERROR(c->MakeDimForScalarInput(1, &num_samples));
  c->set_output(0, c->Matrix(c->Dim(logits, 0), num_samples));
  return OkStatus();
}

}  // namespace

REGISTER_OP("RandomUniform")
    .Input("shape: T")
    .SetIsStateful()
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half,bfloat16,float,double}")
    .Attr("T: {int32, int64}")
    .SetShapeFn(RandomShape)
    .Doc(R"doc(
Uniform random values in [0, 1) of the given shape.

shape: A vector, the output's shape.
seed: With seed2, seeds the op's own random stream; both 0 seeds it
  nondeterministically.
seed2: The second half of the seed.
dtype: The type of the output.
)doc");

REGISTER_OP("RandomStandardNormal")
    .Input("shape: T")
    .SetIsStateful()
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half,bfloat16,float,double}")
    .Attr("T: {int32, int64}")
    .SetShapeFn(RandomShape)
    .Doc(R"doc(
Random values of the given shape from the normal distribution N(0, 1).

shape: A vector, the output's shape.
seed: With seed2, seeds the op's own random stream; both 0 seeds it
  nondeterministically.
seed2: The second half of the seed.
dtype: The type of the output.
)doc");

REGISTER_OP("TruncatedNormal")
    .Input("shape: T")
    .SetIsStateful()
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half,bfloat16,float,double}")
    .Attr("T: {int32, int64}")
    .SetShapeFn(RandomShape)
    .Doc(R"doc(
Random values from N(0, 1) that lie within two standard deviations of 0.

Values further out are drawn again.

shape: A vector, the output's shape.
seed: With seed2, seeds the op's own random stream; both 0 seeds it
  nondeterministically.
seed2: The second half of the seed.
dtype: The type of the output.
)doc");

REGISTER_OP("RandomUniformInt")
    .Input("shape: T")
    .Input("minval: Tout")
    .Input("maxval: Tout")
    .SetIsStateful()
    .Output("output: Tout")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("Tout: {int32, int64}")
    .Attr("T: {int32, int64}")
    .SetShapeFn(RandomUniformIntShape)
    .Doc(R"doc(
Uniform random integers in [minval, maxval) of the given shape.

shape: A vector, the output's shape.
minval: A scalar, the lowest possible value.
maxval: A scalar above minval, excluded.
seed: With seed2, seeds the op's own random stream; both 0 seeds it
  nondeterministically.
seed2: The second half of the seed.
)doc");

REGISTER_OP("Multinomial")
    .SetIsStateful()
    .Input("logits: T")
    .Input("num_samples: int32")
    .Output("output: output_dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("T: realnumbertype")
    .Attr("output_dtype: {int32, int64} = DT_INT64")
    .SetShapeFn(MultinomialShape)
    .Doc(R"doc(
Draws num_samples class indices per row from the softmax of its logits.

Non-finite logits are never drawn.

logits: [batch, num_classes], unnormalised log-probabilities.
num_samples: A scalar.
output: [batch, num_samples].
seed: With seed2, seeds the op's own random stream; both 0 seeds it
  nondeterministically.
seed2: The second half of the seed.
)doc");

}  // namespace minflow
