// What the GPU tests share: skipping, with the reason, on machines without
// a GPU (the build machines compile the GPU code; scripts/gpu_check.sh runs
// it on a GPU machine).
#pragma once

#include "gtest/gtest.h"
#include "minflow/cuda/gpu_info.h"
#include "tests/testlib/status_matchers.h"

// In a test body: skips it unless this machine has a GPU. A failing GPU
// query fails the test.
#define MF_SKIP_WITHOUT_GPU()                                        \
  do {                                                               \
    int gpus = 0;                                                    \
    MF_ASSERT_OK(::minflow::GetGpuCount(&gpus));                     \
    if (gpus == 0) {                                                 \
      GTEST_SKIP() << "no GPU on this machine: the GPU kernels are " \
                      "compiled here and run on a GPU machine "      \
                      "(scripts/gpu_check.sh)";                      \
    }                                                                \
  } while (0)
