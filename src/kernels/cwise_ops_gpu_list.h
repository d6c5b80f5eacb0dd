// The element-wise ops that have GPU kernels, as X-macro lists shared by the
// instantiations (cwise_ops_gpu.cu) and the registrations (cwise_ops_gpu.cc),
// so the two cannot drift apart. float only: int32 tensors stay in host
// memory on GPUs (kernel_registry.cc), and other types can join when a model
// needs them.
#pragma once

// X(op name, functor template)
#define MF_GPU_BINARY_OPS(X)                 \
  X("Add", add)                              \
  X("AddV2", add)                            \
  X("Sub", sub)                              \
  X("Mul", mul)                              \
  X("RealDiv", div)                          \
  X("Div", div)                              \
  X("Maximum", maximum)                      \
  X("Minimum", minimum)                      \
  X("SquaredDifference", squared_difference) \
  X("Pow", pow_real)

#define MF_GPU_UNARY_OPS(X)   \
  X("Neg", neg)               \
  X("Abs", abs)               \
  X("Square", square)         \
  X("Sqrt", sqrt)             \
  X("Rsqrt", rsqrt)           \
  X("Exp", exp)               \
  X("Log", log)               \
  X("Tanh", tanh)             \
  X("Sigmoid", sigmoid)       \
  X("Reciprocal", reciprocal) \
  X("Floor", floor)           \
  X("Relu", relu)             \
  X("Relu6", relu6)           \
  X("Elu", elu)
