// The host half of a library with device code: the op, and a function the
// .cu defines (linked into the same module).
#include "minflow/framework/op.h"

namespace cuda_op_library {

// Defined in add_one_gpu.cu.
void LaunchAddOne(const float* in, float* out, int n);

REGISTER_OP("CudaTest>AddOne").Input("x: float").Output("y: float");

}  // namespace cuda_op_library
