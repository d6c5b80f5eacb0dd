// CPU kernels of the binary arithmetic ops, with numpy broadcasting: Add,
// AddV2, Sub, Mul, Div, RealDiv, FloorDiv, FloorMod, Mod, TruncateDiv,
// TruncateMod, Maximum, Minimum, Pow, SquaredDifference, Atan2, Xlogy,
// Xdivy, DivNoNan, MulNoNan. Integer forms follow Note [Integer overflow in
// kernels]; integer division by zero and negative integer exponents are
// InvalidArgument, with TensorFlow's messages.
#define EIGEN_USE_THREADS

#include <type_traits>

#include "minflow/framework/op_kernel.h"
#include "minflow/framework/register_types.h"
#include "src/kernels/cpu_parallel_eval.h"
#include "src/kernels/cwise_op_functor.h"
#include "src/kernels/cwise_op_math_functor.h"
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
// Mod and TruncateMod: C++'s % on integers, fmod on floating types (both
// keep the sign of the dividend).
template <typename T>
using TruncateModFunctor = ByKind<T, functor::safe_mod<T>, functor::fmod<T>>;
template <typename T>
using TruncateDivFunctor =
    ByKind<T, functor::safe_div<T>, functor::truncate_div_real<T>>;
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

// The wider op set, on float and double only (no half or bfloat16: see
// cwise_op_unary.cc), and on int32 and int64 where TensorFlow has them.
#define MF_CALL_FLOAT_DOUBLE(m) TF_CALL_float(m) TF_CALL_double(m)
#define MF_CALL_INT32_INT64(m) TF_CALL_int32(m) TF_CALL_int64(m)
#define REGISTER_TRUNCATING(T)                             \
  MF_REGISTER_BINARY("Mod", TruncateModFunctor, T)         \
  MF_REGISTER_BINARY("TruncateDiv", TruncateDivFunctor, T) \
  MF_REGISTER_BINARY("TruncateMod", TruncateModFunctor, T)
MF_CALL_FLOAT_DOUBLE(REGISTER_TRUNCATING)
MF_CALL_INT32_INT64(REGISTER_TRUNCATING)
#undef REGISTER_TRUNCATING

#define REGISTER_FLOAT_MATH(T)                           \
  MF_REGISTER_BINARY("Atan2", functor::atan2, T)         \
  MF_REGISTER_BINARY("Xlogy", functor::xlogy, T)         \
  MF_REGISTER_BINARY("Xdivy", functor::xdivy, T)         \
  MF_REGISTER_BINARY("DivNoNan", functor::div_no_nan, T) \
  MF_REGISTER_BINARY("MulNoNan", functor::mul_no_nan, T)
MF_CALL_FLOAT_DOUBLE(REGISTER_FLOAT_MATH)
#undef REGISTER_FLOAT_MATH
#undef MF_CALL_FLOAT_DOUBLE
#undef MF_CALL_INT32_INT64

#undef MF_REGISTER_BINARY

}  // namespace
}  // namespace minflow
