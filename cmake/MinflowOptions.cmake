# Build options shared by every target.
option(MINFLOW_BUILD_TESTS "Build the GoogleTest suite" ON)
option(MINFLOW_BUILD_BENCHMARKS "Build the Google Benchmark suite" ON)
option(MINFLOW_BUILD_FUZZERS "Build libFuzzer targets (clang only)" OFF)
option(MINFLOW_PRECOMPILED_HEADERS
       "Precompile the headers every kernel and every test includes" ON)
set(MINFLOW_SELECTED_OPS "" CACHE FILEPATH
    "Also build libminflow_selected with only the ops in this file (one per line, as `minflow ops required --list` prints)")
set(MINFLOW_SANITIZE "" CACHE STRING
    "Sanitizers for every target: '', 'address,undefined' or 'thread'")
# Eigen's speed depends on the ISA five-fold (README.md, MINFLOW_CPU_ARCH):
# target the building machine by default; use a portable level such as
# x86-64-v3 for binaries carried to another machine, or 'none' for the
# compiler's default.
set(MINFLOW_CPU_ARCH "native" CACHE STRING
    "-march= value for host code: native, x86-64-v3, x86-64-v4, none")

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "" FORCE)
endif()

find_program(MINFLOW_CCACHE ccache)
if(MINFLOW_CCACHE)
  # ccache caches a unit that uses a precompiled header only with these
  # sloppinesses (its manual, "Precompiled headers"); without them it runs
  # the compiler every time.
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CMAKE_COMMAND}" -E env
      "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
      "${MINFLOW_CCACHE}")
  set(CMAKE_C_COMPILER_LAUNCHER "${MINFLOW_CCACHE}")
  if(MINFLOW_CUDA_ENABLED)
    set(CMAKE_CUDA_COMPILER_LAUNCHER "${MINFLOW_CCACHE}")
  endif()
endif()

add_library(minflow_build_flags INTERFACE)
target_compile_options(minflow_build_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter
    -Werror=unused-result -Werror=return-type>
  # GCC 12 reports false positives inside Abseil's InlinedVector.
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-maybe-uninitialized>)
# Every C++ unit sees Eigen's ThreadPoolDevice, as the precompiled headers
# (which include Eigen's Tensor module) must be the same for all of them.
# Defined empty, so a source's own `#define EIGEN_USE_THREADS` (as TensorFlow
# kernels have) is an identical redefinition, not a conflicting one.
target_compile_definitions(minflow_build_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:EIGEN_USE_THREADS=>)
if(NOT MINFLOW_CPU_ARCH STREQUAL "none")
  target_compile_options(minflow_build_flags INTERFACE
    $<$<COMPILE_LANGUAGE:CXX,C>:-march=${MINFLOW_CPU_ARCH}>)
endif()
if(MINFLOW_SANITIZE)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=${MINFLOW_SANITIZE}>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-omit-frame-pointer>
                      $<$<COMPILE_LANGUAGE:CXX,C>:-fno-sanitize-recover=undefined>)
  add_link_options(-fsanitize=${MINFLOW_SANITIZE})
endif()
# ThreadSanitizer against Debian's uninstrumented protobuf and Abseil:
# - protobuf's headers give MapFieldBase two extra fields when
#   __SANITIZE_THREAD__ is defined, which libprotobuf.so was built without;
#   code compiled with it crashes on the first map field, so undefine it.
# - absl::Mutex / Notification / BlockingCounter and absl::Status's
#   reference count live in uninstrumented code
#   that TSan cannot see; their calls are wrapped and annotated by
#   src/core/tsan_absl_sync.cc (the symbols below).
set(MINFLOW_TSAN OFF)
if(MINFLOW_SANITIZE MATCHES "thread")
  set(MINFLOW_TSAN ON)
  add_compile_options($<$<COMPILE_LANGUAGE:CXX,C>:-U__SANITIZE_THREAD__>)
  foreach(symbol
      _ZN4absl7debian35Mutex4LockEv
      _ZN4absl7debian35Mutex6UnlockEv
      _ZN4absl7debian35Mutex10ReaderLockEv
      _ZN4absl7debian35Mutex12ReaderUnlockEv
      _ZN4absl7debian312Notification6NotifyEv
      _ZNK4absl7debian312Notification19WaitForNotificationEv
      _ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE
      _ZN4absl7debian315BlockingCounter14DecrementCountEv
      _ZN4absl7debian315BlockingCounter4WaitEv
      _ZN4absl7debian36Status15UnrefNonInlinedEm)
    add_link_options(-Wl,--wrap=${symbol})
  endforeach()
endif()
