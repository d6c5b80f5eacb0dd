// Stateless random ops taking an explicit Philox key and counter:
// StatelessRandomUniformV2, StatelessRandomNormalV2 and
// StatelessTruncatedNormalV2. Interfaces match TensorFlow's.
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

namespace {

// Philox's key is one uint64.
constexpr int kRngKeySize = 1;

// key [1], counter a vector, alg a scalar; the output's shape is the value
// of input 0.
Status StatelessShapeV2(InferenceContext* c) {
  ShapeHandle key;
  ShapeHandle counter;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &key));
  MF_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &counter));
  ShapeHandle unused_shape;
  MF_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused_shape));
  DimensionHandle unused;
  MF_RETURN_IF_ERROR(c->WithValue(c->Dim(key, 0), kRngKeySize, &unused));
  ShapeHandle out;
  MF_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return OkStatus();
}

}  // namespace

// The inputs and attrs every stateless V2 op shares.
#define MF_STATELESS_ARGS_DOC                                                \
  "The output is a pure function of the inputs: the same key, counter and\n" \
  "shape give the same values.\n\n"                                          \
  "shape: A vector, the output's shape.\n"                                   \
  "key: A vector of one, the Philox key.\n"                                  \
  "counter: A vector of at least two, the Philox counter to start from.\n"   \
  "alg: A scalar: 1 (Philox) or 3 (automatic, Philox on the CPU).\n"

#define REGISTER_STATELESS_OP_V2(name, doc)                   \
  REGISTER_OP(name)                                           \
      .Input("shape: Tshape")                                 \
      .Input("key: uint64")                                   \
      .Input("counter: uint64")                               \
      .Input("alg: int32")                                    \
      .Output("output: dtype")                                \
      .Attr("dtype: {half,bfloat16,float,double} = DT_FLOAT") \
      .Attr("Tshape: {int32, int64} = DT_INT32")              \
      .SetShapeFn(StatelessShapeV2)                           \
      .Doc(doc "\n\n" MF_STATELESS_ARGS_DOC)

REGISTER_STATELESS_OP_V2(
    "StatelessRandomUniformV2",
    "Uniform random values in [0, 1) from an explicit Philox key and counter.");
REGISTER_STATELESS_OP_V2(
    "StatelessRandomNormalV2",
    "Standard normal random values from an explicit Philox key and counter.");
REGISTER_STATELESS_OP_V2("StatelessTruncatedNormalV2",
                         "Standard normal random values within two standard "
                         "deviations, from a key and counter.");
#undef REGISTER_STATELESS_OP_V2
#undef MF_STATELESS_ARGS_DOC

}  // namespace minflow
