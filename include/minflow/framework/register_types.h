// TF_CALL_<type>(m) and TF_CALL_<LIST>(m): call the macro `m` once per C++
// element type, to stamp out kernel registrations and explicit template
// instantiations. Names and contents follow TensorFlow's register_types.h
// so ported kernels compile unchanged. See Note [Type lists].
#pragma once

#include <cstdint>

#include "minflow/core/types.h"

// Note [Type lists]
// ~~~~~~~~~~~~~~~~~
// Every type a list names is one more instantiation of the kernel's Eigen
// expressions, and CI compiles on two cores, so pick the narrowest list that
// covers what the op's users feed it:
//
//   MF_CALL_CORE_REAL_TYPES      float double int32 int64 half bfloat16
//       The default for math kernels built on Eigen expressions (cwise,
//       reductions, matmul, conv, pooling, softmax): the "sensible real
//       types" of issue #5. Add small ints only where TensorFlow models use
//       them (e.g. uint8 images into Cast/Resize).
//   TF_CALL_REAL_NUMBER_TYPES    the above plus int8 int16 uint8 uint16
//       uint32 uint64 — TensorFlow's full list, matching the `realnumbertype`
//       attr shortcut. Use it for kernels that must accept every type their
//       op allows (ZeroOut, the guide's examples) or whose per-type code is
//       small (a loop, no heavy Eigen tensor expressions).
//   TF_CALL_ALL_TYPES / TF_CALL_POD_TYPES
//       For data-movement kernels (Identity, Reshape, Concat, Transpose,
//       Gather, Slice ...). Write them over bytes (memcpy by DataTypeSize, or
//       one instantiation per element size) so the list costs registrations,
//       not code.
//   TF_CALL_GPU_NUMBER_TYPES     half bfloat16 float double; GPU twins only.
//
// Registration blocks define a local macro, stamp it, and #undef it at once:
//
//   #define REGISTER_CPU(T) REGISTER_KERNEL_BUILDER(
//         Name("Relu").Device(DEVICE_CPU).TypeConstraint<T>("T"),
//         ReluOp<CPUDevice, T>);   (one line, or continued with '\')
//   MF_CALL_CORE_REAL_TYPES(REGISTER_CPU)
//   #undef REGISTER_CPU
//
// minflow has no resource or variant element types yet, so the ALL lists
// stop at strings; quantized types are storage only (TF_CALL_QUANTIZED_TYPES
// is there for data-movement kernels).

// One macro per element type.
#define TF_CALL_float(m) m(float)
#define TF_CALL_double(m) m(double)
#define TF_CALL_int32(m) m(int32_t)
#define TF_CALL_uint32(m) m(uint32_t)
#define TF_CALL_int64(m) m(int64_t)
#define TF_CALL_uint64(m) m(uint64_t)
#define TF_CALL_int16(m) m(int16_t)
#define TF_CALL_uint16(m) m(uint16_t)
#define TF_CALL_int8(m) m(int8_t)
#define TF_CALL_uint8(m) m(uint8_t)
#define TF_CALL_half(m) m(::minflow::half)
#define TF_CALL_bfloat16(m) m(::minflow::bfloat16)
#define TF_CALL_bool(m) m(bool)
#define TF_CALL_complex64(m) m(::minflow::complex64)
#define TF_CALL_complex128(m) m(::minflow::complex128)
#define TF_CALL_tstring(m) m(::minflow::tstring)
// TensorFlow renamed `string` to `tstring`; both spellings are accepted.
#define TF_CALL_string(m) TF_CALL_tstring(m)
#define TF_CALL_qint8(m) m(::minflow::qint8)
#define TF_CALL_quint8(m) m(::minflow::quint8)
#define TF_CALL_qint16(m) m(::minflow::qint16)
#define TF_CALL_quint16(m) m(::minflow::quint16)
#define TF_CALL_qint32(m) m(::minflow::qint32)

// Lists, in TensorFlow's order.
#define TF_CALL_INTEGRAL_TYPES_NO_INT32(m)                               \
  TF_CALL_uint64(m) TF_CALL_int64(m) TF_CALL_uint32(m) TF_CALL_uint16(m) \
      TF_CALL_int16(m) TF_CALL_uint8(m) TF_CALL_int8(m)
#define TF_CALL_INTEGRAL_TYPES(m) \
  TF_CALL_INTEGRAL_TYPES_NO_INT32(m) TF_CALL_int32(m)

#define TF_CALL_FLOAT_TYPES(m) \
  TF_CALL_half(m) TF_CALL_bfloat16(m) TF_CALL_float(m) TF_CALL_double(m)

#define TF_CALL_REAL_NUMBER_TYPES(m) \
  TF_CALL_INTEGRAL_TYPES(m) TF_CALL_FLOAT_TYPES(m)
#define TF_CALL_REAL_NUMBER_TYPES_NO_INT32(m) \
  TF_CALL_INTEGRAL_TYPES_NO_INT32(m) TF_CALL_FLOAT_TYPES(m)

#define TF_CALL_COMPLEX_TYPES(m) TF_CALL_complex64(m) TF_CALL_complex128(m)

#define TF_CALL_NUMBER_TYPES(m) \
  TF_CALL_REAL_NUMBER_TYPES(m) TF_CALL_COMPLEX_TYPES(m)
#define TF_CALL_NUMBER_TYPES_NO_INT32(m) \
  TF_CALL_REAL_NUMBER_TYPES_NO_INT32(m) TF_CALL_COMPLEX_TYPES(m)

#define TF_CALL_POD_TYPES(m) TF_CALL_NUMBER_TYPES(m) TF_CALL_bool(m)
#define TF_CALL_POD_STRING_TYPES(m) TF_CALL_POD_TYPES(m) TF_CALL_tstring(m)
#define TF_CALL_ALL_TYPES(m) TF_CALL_POD_TYPES(m) TF_CALL_tstring(m)

#define TF_CALL_QUANTIZED_TYPES(m)                                       \
  TF_CALL_qint8(m) TF_CALL_quint8(m) TF_CALL_qint32(m) TF_CALL_qint16(m) \
      TF_CALL_quint16(m)

#define TF_CALL_GPU_NUMBER_TYPES(m) \
  TF_CALL_half(m) TF_CALL_bfloat16(m) TF_CALL_float(m) TF_CALL_double(m)
#define TF_CALL_GPU_ALL_TYPES(m) \
  TF_CALL_GPU_NUMBER_TYPES(m) TF_CALL_COMPLEX_TYPES(m) TF_CALL_bool(m)

// minflow's default list for math kernels; see Note [Type lists].
#define MF_CALL_CORE_REAL_TYPES(m)                                     \
  TF_CALL_float(m) TF_CALL_double(m) TF_CALL_int32(m) TF_CALL_int64(m) \
      TF_CALL_half(m) TF_CALL_bfloat16(m)
// The floating members of it, for kernels meaningless on integers
// (Sqrt, Exp, Tanh, Softmax ...).
#define MF_CALL_CORE_FLOAT_TYPES(m) TF_CALL_FLOAT_TYPES(m)
