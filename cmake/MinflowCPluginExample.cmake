# Builds examples/c_plugin (the C plugin ABI's Examples>Atan) as part of the
# minflow build, compiled as C by clang when there is one:
#   - the project's C compiler is clang: add_subdirectory;
#   - else, if `clang` is on PATH: its own CMake project (ExternalProject)
#     configured with CMAKE_C_COMPILER=clang, as an outside user would;
#   - else: add_subdirectory with the C compiler CMake has.
# Defines the target `atan_plugin` (build it to get the library) and
# MINFLOW_ATAN_PLUGIN, the path of libatan.so.
find_program(MINFLOW_CLANG NAMES clang)
set(_atan_src "${PROJECT_SOURCE_DIR}/examples/c_plugin")
set(_atan_bin "${PROJECT_BINARY_DIR}/examples/c_plugin")

if(CMAKE_C_COMPILER_ID STREQUAL "Clang" OR NOT MINFLOW_CLANG)
  if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
    message(STATUS "minflow: no clang; examples/c_plugin uses "
                   "${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER}")
  endif()
  add_subdirectory("${_atan_src}" "${_atan_bin}")
  add_custom_target(atan_plugin DEPENDS atan)
  set(MINFLOW_ATAN_PLUGIN "$<TARGET_FILE:atan>")
else()
  include(ExternalProject)
  set(_atan_args
    -DCMAKE_C_COMPILER=${MINFLOW_CLANG}
    -DCMAKE_BUILD_TYPE=Release
    -DMINFLOW_INCLUDE_DIR=${PROJECT_SOURCE_DIR}/include)
  if(MINFLOW_CCACHE)
    list(APPEND _atan_args -DCMAKE_C_COMPILER_LAUNCHER=${MINFLOW_CCACHE})
  endif()
  ExternalProject_Add(atan_plugin
    SOURCE_DIR "${_atan_src}"
    BINARY_DIR "${_atan_bin}"
    CMAKE_ARGS ${_atan_args}
    BUILD_ALWAYS ON
    BUILD_BYPRODUCTS "${_atan_bin}/libatan.so"
    INSTALL_COMMAND "")
  set(MINFLOW_ATAN_PLUGIN "${_atan_bin}/libatan.so")
endif()
