# Installs a minflow build into a fresh prefix and checks what it holds:
# the files a user needs, a pkg-config file that resolves, a `minflow`
# command that runs from its new place.
#   -DBUILD=<dir> -DPREFIX=<dir> -DLIBDIR=<lib dir under the prefix>
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (exit ${rc}):\n${err}")
endif()

foreach(file bin/minflow ${LIBDIR}/libminflow.so
        bin/minflow_cc_op_gen ${LIBDIR}/libminflow_cc.so
        include/minflow/cc/framework/scope.h
        include/minflow/cc/ops/standard_ops.h
        include/minflow/framework/op.h include/minflow/framework/load_library.h
        include/minflow/c/c_api.h
        include/minflow/graph.pb.h include/minflow/graph.proto
        include/minflow/version.h
        ${LIBDIR}/cmake/minflow/minflowConfig.cmake
        ${LIBDIR}/cmake/minflow/minflowConfigVersion.cmake
        ${LIBDIR}/cmake/minflow/minflowTargets.cmake
        ${LIBDIR}/cmake/minflow/MinflowOpLibrary.cmake
        ${LIBDIR}/pkgconfig/minflow.pc
        ${LIBDIR}/python/minflow/__init__.py
        ${LIBDIR}/python/minflow/_install_paths.py)
  if(NOT EXISTS ${PREFIX}/${file})
    message(FATAL_ERROR "the installed package lacks ${file}")
  endif()
endforeach()

execute_process(COMMAND ${PREFIX}/bin/minflow --version
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^minflow [0-9]+\\.[0-9]+\\.[0-9]+")
  message(FATAL_ERROR "installed minflow --version: exit ${rc}\n${out}${err}")
endif()

find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} ${PREFIX}/${LIBDIR}/pkgconfig)
  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs minflow
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "-I[^ ]*/include .*-lminflow")
    message(FATAL_ERROR "pkg-config minflow: exit ${rc}\n${out}${err}")
  endif()
else()
  message(STATUS "pkg-config not found: minflow.pc not checked")
endif()
