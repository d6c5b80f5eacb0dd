// Turns CUDA runtime and cuBLAS error codes into Status values that carry
// the failing call, the code's name and the file and line.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "minflow/core/status.h"

namespace minflow {
namespace internal {

Status CudaErrorToStatus(cudaError_t error, const char* expr, const char* file,
                         int line);
Status CublasErrorToStatus(cublasStatus_t error, const char* expr,
                           const char* file, int line);

}  // namespace internal
}  // namespace minflow

#define MF_CUDA_RETURN_IF_ERROR(expr)                                      \
  do {                                                                     \
    const cudaError_t _mf_cuda_error = (expr);                             \
    if (_mf_cuda_error != cudaSuccess) {                                   \
      return ::minflow::internal::CudaErrorToStatus(_mf_cuda_error, #expr, \
                                                    __FILE__, __LINE__);   \
    }                                                                      \
  } while (0)

#define MF_CUBLAS_RETURN_IF_ERROR(expr)                                        \
  do {                                                                         \
    const cublasStatus_t _mf_cublas_error = (expr);                            \
    if (_mf_cublas_error != CUBLAS_STATUS_SUCCESS) {                           \
      return ::minflow::internal::CublasErrorToStatus(_mf_cublas_error, #expr, \
                                                      __FILE__, __LINE__);     \
    }                                                                          \
  } while (0)
