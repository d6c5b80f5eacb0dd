// CPU kernels of the binary arithmetic ops, with numpy broadcasting: Add,
// AddV2, Sub, Mul, Div, RealDiv, FloorDiv, FloorMod, Maximum, Minimum, Pow,
// SquaredDifference. Integer forms follow Note [Integer overflow in
// kernels]; integer division by zero and negative integer exponents are
// InvalidArgument, with TensorFlow's messages.
#define EIGEN_USE_THREADS

#include <type_traits>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cwise_op_functor.h"
#include "src/kernels/cwise_ops_common.h"

namespace minflow {
namespace {

template <typename T, typename IntFunctor, typename FloatFunctor>
using ByKind = typename std::conditional<functor::internal::IsInt<T>::value,
                                         IntFunctor, FloatFunctor>::type;

// Div truncates on integers, as TensorFlow's (and C++'s) division.
template <typename T>
using DivFunctor = ByKind<T, functor::safe_div<T>, functor::div<T>>;
template <typename T>
using FloorDivFunctor =
    ByKind<T, functor::floor_div_int<T>, functor::floor_div_real<T>>;
template <typename T>
using FloorModFunctor =
    ByKind<T, functor::floor_mod_int<T>, functor::floor_fmod<T>>;
template <typename T>
using PowFunctor = ByKind<T, functor::safe_pow_int<T>, functor::pow_real<T>>;

#define MF_REGISTER_BINARY(NAME, FUNCTOR, T)                \
  REGISTER_KERNEL_BUILDER(                                  \
      Name(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      BinaryOp<CPUDevice, FUNCTOR<T>>);

#define REGISTER_REAL(T)                             \
  MF_REGISTER_BINARY("Add", functor::add, T)         \
  MF_REGISTER_BINARY("AddV2", functor::add, T)       \
  MF_REGISTER_BINARY("Sub", functor::sub, T)         \
  MF_REGISTER_BINARY("Mul", functor::mul, T)         \
  MF_REGISTER_BINARY("Div", DivFunctor, T)           \
  MF_REGISTER_BINARY("FloorDiv", FloorDivFunctor, T) \
  MF_REGISTER_BINARY("FloorMod", FloorModFunctor, T) \
  MF_REGISTER_BINARY("Maximum", functor::maximum, T) \
  MF_REGISTER_BINARY("Minimum", functor::minimum, T) \
  MF_REGISTER_BINARY("Pow", PowFunctor, T)           \
  MF_REGISTER_BINARY("SquaredDifference", functor::squared_difference, T)
MF_CALL_CORE_REAL_TYPES(REGISTER_REAL)
#undef REGISTER_REAL

// TensorFlow registers RealDiv on the CPU for floating types only.
#define REGISTER_FLOAT(T) MF_REGISTER_BINARY("RealDiv", functor::div, T)
MF_CALL_CORE_FLOAT_TYPES(REGISTER_FLOAT)
#undef REGISTER_FLOAT

#undef MF_REGISTER_BINARY

}  // namespace
}  // namespace minflow
