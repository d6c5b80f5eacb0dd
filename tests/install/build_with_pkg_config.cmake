# Compiles and runs consumer/main.cc with nothing but the flags
# `pkg-config --cflags --libs minflow` gives, against an installed minflow.
#   -DPREFIX=<dir> -DLIBDIR=<lib dir under it> -DCXX=<compiler>
#   -DSOURCE=<main.cc> -DBINARY=<output program> -DEXPECT=<regex>
find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} ${PREFIX}/${LIBDIR}/pkgconfig)
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs minflow
                RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config minflow failed (exit ${rc}):\n${err}")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
execute_process(COMMAND ${CXX} -std=c++17 ${SOURCE} ${flags}
                        -Wl,-rpath,${PREFIX}/${LIBDIR} -o ${BINARY}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling with pkg-config's flags failed:\n${err}")
endif()
execute_process(COMMAND ${BINARY} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "${BINARY}: exit ${rc}\n${out}${err}")
endif()
