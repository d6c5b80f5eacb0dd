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
    .SetShapeFn(shape_inference::UnchangedShape)
    .Doc("Flips every bit of each element of x.");

#define MF_BITWISE_BINARY_OP(name, doc)                      \
  REGISTER_OP(name)                                          \
      .Input("x: T")                                         \
      .Input("y: T")                                         \
      .Output("z: T")                                        \
      .Attr("T: " MF_BITWISE_TYPES)                          \
      .SetShapeFn(shape_inference::BroadcastBinaryOpShapeFn) \
      .Doc(doc)

MF_BITWISE_BINARY_OP("BitwiseAnd",
                     "Element-wise bitwise AND of x and y, with "
                     "broadcasting.\n\nx and y broadcast as in numpy.")
    .SetIsCommutative();
MF_BITWISE_BINARY_OP("BitwiseOr",
                     "Element-wise bitwise OR of x and y, with "
                     "broadcasting.\n\nx and y broadcast as in numpy.")
    .SetIsCommutative();
MF_BITWISE_BINARY_OP("BitwiseXor",
                     "Element-wise bitwise XOR of x and y, with "
                     "broadcasting.\n\nx and y broadcast as in numpy.")
    .SetIsCommutative();
MF_BITWISE_BINARY_OP(
    "LeftShift",
    "Element-wise x shifted left by y bits, with broadcasting.\n\nx and y "
    "broadcast as in numpy. Shift amounts are clamped to [0, bits - 1]\nso "
    "none is undefined; bits shifted out are lost.");
MF_BITWISE_BINARY_OP(
    "RightShift",
    "Element-wise x shifted right by y bits, with broadcasting.\n\nx and y "
    "broadcast as in numpy. Shift amounts are clamped to [0, bits - "
    "1].\nSigned x shifts in copies of its sign bit.");

#undef MF_BITWISE_BINARY_OP
#undef MF_BITWISE_TYPES

}  // namespace minflow
