// Bitwise ops on integers: Invert and the broadcasting BitwiseAnd,
// BitwiseOr, BitwiseXor, LeftShift and RightShift. Interfaces match
// TensorFlow's.
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/op.h"
#include "minflow/framework/shape_inference.h"

namespace minflow {

#define MF_BITWISE_TYPES \
  "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}"

REGISTER_OP("Invert")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: " MF_BITWISE_TYPES)
    .SetShapeFn(shape_inference::UnchangedShape);

#define MF_BITWISE_BINARY_OP(name)  \
  REGISTER_OP(name)                 \
      .Input("x: T")                \
      .Input("y: T")                \
      .Output("z: T")               \
      .Attr("T: " MF_BITWISE_TYPES) \
      .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn)

MF_BITWISE_BINARY_OP("BitwiseAnd").SetIsCommutative();
MF_BITWISE_BINARY_OP("BitwiseOr").SetIsCommutative();
MF_BITWISE_BINARY_OP("BitwiseXor").SetIsCommutative();
MF_BITWISE_BINARY_OP("LeftShift");
MF_BITWISE_BINARY_OP("RightShift");

#undef MF_BITWISE_BINARY_OP
#undef MF_BITWISE_TYPES

}  // namespace minflow
