# The Python package (python/minflow, on the C API through cffi): installed
# next to libminflow, and the interpreter its tests and examples run with.
#
# MINFLOW_PYTHON: a python3 that has numpy and cffi (checked); by default the
# first of CMake's Python3, /usr/bin/python3 and python3 on the PATH that
# does. MINFLOW_PYTHON_PYTEST is TRUE when it also has pytest.
include(GNUInstallDirs)

function(_minflow_python_has python modules result)
  execute_process(COMMAND ${python} -c "import ${modules}"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(${result} TRUE PARENT_SCOPE)
  else()
    set(${result} FALSE PARENT_SCOPE)
  endif()
endfunction()

if(NOT MINFLOW_PYTHON)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  find_program(_minflow_path_python3 python3)
  foreach(candidate IN ITEMS ${Python3_EXECUTABLE} /usr/bin/python3
                             ${_minflow_path_python3})
    if(EXISTS "${candidate}")
      _minflow_python_has(${candidate} "numpy, cffi" ok)
      if(ok)
        set(MINFLOW_PYTHON ${candidate} CACHE FILEPATH
            "python3 with numpy and cffi, for the minflow Python package")
        break()
      endif()
    endif()
  endforeach()
endif()
set(MINFLOW_PYTHON_PYTEST FALSE)
if(MINFLOW_PYTHON)
  _minflow_python_has(${MINFLOW_PYTHON} "numpy, cffi, pytest"
                      MINFLOW_PYTHON_PYTEST)
  message(STATUS "minflow Python package: ${MINFLOW_PYTHON} "
                 "(pytest: ${MINFLOW_PYTHON_PYTEST})")
else()
  message(STATUS "minflow Python package: no python3 with numpy and cffi "
                 "found (scripts/setup.sh installs them); its tests are "
                 "skipped")
endif()

# In a sanitized build the interpreter loads an instrumented libminflow,
# and ASan insists on coming first in the process ("ASan runtime does not
# come first in initial library list"): tests that run Python preload the
# compiler's sanitizer runtimes, MINFLOW_PYTHON_SANITIZER_ENV, and leave
# LeakSanitizer off (the interpreter keeps its objects at exit by design).
set(MINFLOW_PYTHON_SANITIZER_ENV "")
if(MINFLOW_SANITIZE MATCHES "address")
  set(_minflow_preload "")
  foreach(runtime IN ITEMS asan ubsan)
    if(runtime STREQUAL "asan" OR MINFLOW_SANITIZE MATCHES "undefined")
      execute_process(
        COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=lib${runtime}.so
        OUTPUT_VARIABLE _minflow_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(IS_ABSOLUTE "${_minflow_runtime}" AND EXISTS "${_minflow_runtime}")
        list(APPEND _minflow_preload "${_minflow_runtime}")
      endif()
    endif()
  endforeach()
  list(JOIN _minflow_preload ":" _minflow_preload)
  set(MINFLOW_PYTHON_SANITIZER_ENV
      "LD_PRELOAD=${_minflow_preload}"
      "ASAN_OPTIONS=intercept_tls_get_addr=0:detect_leaks=0")
endif()

# Installed as <prefix>/<libdir>/python/minflow, with _install_paths.py
# naming the library relative to the package, so the prefix can move.
set(MINFLOW_PYTHON_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/python)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/minflow
        DESTINATION ${MINFLOW_PYTHON_INSTALL_DIR}
        FILES_MATCHING PATTERN "*.py"
        PATTERN "__pycache__" EXCLUDE)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/python/_install_paths.py
     CONTENT "# Written by cmake --install: libminflow, relative to this \
package.\nLIBRARY = \"../../$<TARGET_SONAME_FILE_NAME:minflow>\"\n")
install(FILES ${PROJECT_BINARY_DIR}/python/_install_paths.py
        DESTINATION ${MINFLOW_PYTHON_INSTALL_DIR}/minflow)
