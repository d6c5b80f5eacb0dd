// Registers, at test start, the TensorFlow OpDefs of ops whose kernels are
// tested here but which src/ops does not register yet. Ops already
// registered are left alone, so this turns into a no-op as src/ops grows.
// TODO(#4): delete once src/ops registers Const, Placeholder,
// PlaceholderWithDefault, Identity, IdentityN, StopGradient and NoOp.
#pragma once

namespace minflow {
namespace test {

// Idempotent and thread-safe; kernel test fixtures call it first.
void RegisterMissingKernelTestOps();

}  // namespace test
}  // namespace minflow
