// MF_HOST_DEVICE marks the per-element work that a CPU kernel, a GPU kernel
// and a host test all call: `__host__ __device__` under nvcc, nothing under
// a host compiler. Headers that use it must stay compilable by both (no
// CUDA includes, no Eigen, no std functions that are host-only).
#pragma once

#if defined(__CUDACC__)
#define MF_HOST_DEVICE __host__ __device__
#else
#define MF_HOST_DEVICE
#endif
