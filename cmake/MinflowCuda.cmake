# Decides, before project(), whether the CUDA layer is built.
# MINFLOW_CUDA: AUTO (default: on when nvcc is found), ON (required), OFF.
set(MINFLOW_CUDA "AUTO" CACHE STRING "Build the CUDA layer: AUTO, ON or OFF")
set_property(CACHE MINFLOW_CUDA PROPERTY STRINGS AUTO ON OFF)

set(MINFLOW_CUDA_ENABLED OFF)
if(NOT MINFLOW_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "")
  endif()
  if(CMAKE_CUDA_COMPILER AND EXISTS "${CMAKE_CUDA_COMPILER}")
    set(MINFLOW_CUDA_ENABLED ON)
  elseif(MINFLOW_CUDA STREQUAL "ON")
    message(FATAL_ERROR "MINFLOW_CUDA=ON but no nvcc was found")
  endif()
endif()

if(MINFLOW_CUDA_ENABLED)
  # Hopper (H100/H200) code plus its PTX, which newer GPUs can JIT.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "")
  endif()
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
endif()
