# `cmake --install`: headers (include/minflow/**, the generated *.pb.h,
# version.h and C++ op classes, the .proto files), libminflow, libminflow_cc,
# the `minflow` and `minflow_cc_op_gen` commands, a CMake package
# (find_package(minflow): minflow::minflow, minflow::<layer>, minflow::cc,
# minflow::cli, minflow::cc_op_gen, minflow_add_op_library,
# minflow_add_cc_op_wrappers) and a pkg-config file (minflow.pc).
# Prefixes are relative: the installed tree can be moved.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MINFLOW_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/minflow)

# The packages the public headers include, from the layers' own usage
# requirements. (The CUDA layer is not a layer of libminflow: it is
# libminflow_gpu, below.)
set(minflow_public_deps)
foreach(layer IN ITEMS proto ${MINFLOW_LAYERS} c_api c_plugin)
  get_target_property(deps minflow_${layer} INTERFACE_LINK_LIBRARIES)
  foreach(dep IN LISTS deps)
    if(NOT dep MATCHES "minflow_|LINK_ONLY")
      list(APPEND minflow_public_deps ${dep})
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES minflow_public_deps)

target_include_directories(minflow INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
foreach(dep IN LISTS minflow_public_deps)
  target_link_libraries(minflow INTERFACE $<INSTALL_INTERFACE:${dep}>)
endforeach()

# A sanitized minflow needs sanitized consumers (the runtime must come
# first): the installed package says so itself.
if(MINFLOW_SANITIZE)
  target_compile_options(minflow INTERFACE
    $<INSTALL_INTERFACE:-fsanitize=${MINFLOW_SANITIZE}>)
  target_link_options(minflow INTERFACE
    $<INSTALL_INTERFACE:-fsanitize=${MINFLOW_SANITIZE}>)
endif()

set_target_properties(minflow_cli PROPERTIES
  EXPORT_NAME cli
  INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")

# The C++ graph API: libminflow_cc beside libminflow, and the generator
# that minflow_add_cc_op_wrappers runs on custom-op libraries.
set_target_properties(minflow_cc PROPERTIES
  EXPORT_NAME cc
  INSTALL_RPATH "$ORIGIN")
set_target_properties(minflow_cc_op_gen PROPERTIES
  EXPORT_NAME cc_op_gen
  INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")

set(minflow_layer_targets)
foreach(layer IN ITEMS proto ${MINFLOW_LAYERS} c_api)
  list(APPEND minflow_layer_targets minflow_${layer}_layer)
endforeach()
install(TARGETS minflow minflow_cli minflow_cc minflow_cc_op_gen
                ${minflow_layer_targets}
        EXPORT minflowTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# libminflow_gpu sits beside libminflow, which loads it at run time; nothing
# links it, so it is not part of the exported package.
if(TARGET minflow_gpu)
  set_target_properties(minflow_gpu PROPERTIES INSTALL_RPATH "$ORIGIN")
  install(TARGETS minflow_gpu LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/minflow
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_BINARY_DIR}/proto/minflow
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
# The generated op classes (src/cc/CMakeLists.txt); the hand-written
# headers of minflow/cc come with include/minflow above.
install(FILES ${MINFLOW_CC_GENERATED_DIR}/standard_ops.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/minflow/cc/ops)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/proto/minflow
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.proto")

install(EXPORT minflowTargets
        NAMESPACE minflow::
        DESTINATION ${MINFLOW_INSTALL_CMAKEDIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/minflowConfig.cmake.in
  ${PROJECT_BINARY_DIR}/minflowConfig.cmake
  INSTALL_DESTINATION ${MINFLOW_INSTALL_CMAKEDIR})
# Before 1.0 a minor release may break the API (semantic versioning's 0.x).
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/minflowConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/minflowConfig.cmake
              ${PROJECT_BINARY_DIR}/minflowConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/MinflowOpLibrary.cmake
        DESTINATION ${MINFLOW_INSTALL_CMAKEDIR})

# pkg-config: the same dependencies under their .pc names.
set(MINFLOW_PC_REQUIRES)
set(MINFLOW_PC_LIBS_EXTRA)
set(MINFLOW_PC_CFLAGS_EXTRA)
if(MINFLOW_SANITIZE)
  set(MINFLOW_PC_CFLAGS_EXTRA "-fsanitize=${MINFLOW_SANITIZE}")
endif()
foreach(dep IN LISTS minflow_public_deps)
  if(dep MATCHES "^absl::(.+)$")
    list(APPEND MINFLOW_PC_REQUIRES "absl_${CMAKE_MATCH_1}")
  elseif(dep STREQUAL "protobuf::libprotobuf")
    list(APPEND MINFLOW_PC_REQUIRES protobuf)
  elseif(dep STREQUAL "Eigen3::Eigen")
    list(APPEND MINFLOW_PC_REQUIRES eigen3)
  elseif(dep STREQUAL "Threads::Threads")
    set(MINFLOW_PC_LIBS_EXTRA "-pthread ${MINFLOW_PC_CFLAGS_EXTRA}")
  else()
    message(FATAL_ERROR "minflow.pc: no pkg-config name for '${dep}'")
  endif()
endforeach()
list(JOIN MINFLOW_PC_REQUIRES ", " MINFLOW_PC_REQUIRES)
file(RELATIVE_PATH MINFLOW_PC_TO_PREFIX
     /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" MINFLOW_PC_TO_PREFIX "${MINFLOW_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/minflow.pc.in
               ${PROJECT_BINARY_DIR}/minflow.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/minflow.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
