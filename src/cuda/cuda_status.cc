#include "src/cuda/cuda_status.h"

namespace minflow {
namespace internal {

Status CudaErrorToStatus(cudaError_t error, const char* expr, const char* file,
                         int line) {
  const std::string where =
      absl::StrCat(" (", expr, " at ", file, ":", line, ")");
  if (error == cudaErrorMemoryAllocation) {
    return errors::ResourceExhausted(
        "CUDA out of memory: ", cudaGetErrorString(error), where);
  }
  return errors::Internal("CUDA error ", cudaGetErrorName(error), ": ",
                          cudaGetErrorString(error), where);
}

Status CublasErrorToStatus(cublasStatus_t error, const char* expr,
                           const char* file, int line) {
  const std::string where =
      absl::StrCat(" (", expr, " at ", file, ":", line, ")");
  if (error == CUBLAS_STATUS_ALLOC_FAILED) {
    return errors::ResourceExhausted("cuBLAS could not allocate memory", where);
  }
  return errors::Internal("cuBLAS error ", cublasGetStatusName(error), ": ",
                          cublasGetStatusString(error), where);
}

}  // namespace internal
}  // namespace minflow
