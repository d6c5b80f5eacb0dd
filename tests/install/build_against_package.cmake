# Configures and builds an out-of-tree CMake project against an installed
# minflow, then runs its tests and a command, checking the command's output.
#   -DPREFIX=<dir>        where minflow is installed
#   -DSOURCE=<dir>        the project
#   -DBINARY=<dir>        its build folder (kept between runs: incremental)
#   -DGENERATOR=<name>    -DCXX=<compiler>  -DLAUNCHER=<ccache or empty>
#   -DCUDA_COMPILER=<nvcc> -DCUDA_ARCHITECTURES=<a,b>  optional
#   -DCTEST=ON            optional: run the project's own ctest
#   -DRUN=a|b|c           optional: a command to run afterwards ...
#   -DEXPECT=<regex>      ... whose stdout must match
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "${what} failed (exit ${rc}): ${command}\n"
                        "stdout:\n${out}\nstderr:\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

set(cuda)
if(CUDA_COMPILER)
  # A list cannot cross execute_process intact: pass it in a cache script.
  string(REPLACE "," ";" CUDA_ARCHITECTURES "${CUDA_ARCHITECTURES}")
  file(WRITE ${BINARY}-cuda.cmake "set(CMAKE_CUDA_ARCHITECTURES "
       "\"${CUDA_ARCHITECTURES}\" CACHE STRING \"\" FORCE)\n")
  set(cuda -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER} -C ${BINARY}-cuda.cmake)
endif()
run("configure" ${CMAKE_COMMAND} -S ${SOURCE} -B ${BINARY} -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${PREFIX}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}
    ${cuda})
run("build" ${CMAKE_COMMAND} --build ${BINARY})
if(CTEST)
  run("the project's tests" ${CMAKE_CTEST_COMMAND} --test-dir ${BINARY}
      --output-on-failure)
endif()
if(RUN)
  string(REPLACE "|" ";" command "${RUN}")
  run("the check" ${command})
  if(NOT out MATCHES "${EXPECT}")
    message(FATAL_ERROR "output does not match '${EXPECT}':\n${out}")
  endif()
  message(STATUS "${out}")
endif()
