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

#define REGISTER_STATELESS_OP_V2(name)                        \
  REGISTER_OP(name)                                           \
      .Input("shape: Tshape")                                 \
      .Input("key: uint64")                                   \
      .Input("counter: uint64")                               \
      .Input("alg: int32")                                    \
      .Output("output: dtype")                                \
      .Attr("dtype: {half,bfloat16,float,double} = DT_FLOAT") \
      .Attr("Tshape: {int32, int64} = DT_INT32")              \
      .SetShapeFn(StatelessShapeV2)

REGISTER_STATELESS_OP_V2("StatelessRandomUniformV2");
REGISTER_STATELESS_OP_V2("StatelessRandomNormalV2");
REGISTER_STATELESS_OP_V2("StatelessTruncatedNormalV2");
#undef REGISTER_STATELESS_OP_V2

}  // namespace minflow
