# `pip install ./python` offline: a copy of python/ is installed with pip
# (no index, no build isolation: Debian's setuptools) into a target folder,
# and the installed package imports and runs a graph against this build's
# libminflow (MINFLOW_LIBRARY).
# -DPYTHON=... -DSOURCE_DIR=... -DWORK_DIR=... -DLIBRARY=...
file(REMOVE_RECURSE ${WORK_DIR})
file(COPY ${SOURCE_DIR}/python/ DESTINATION ${WORK_DIR}/src
     PATTERN "__pycache__" EXCLUDE PATTERN "build" EXCLUDE
     PATTERN "*.egg-info" EXCLUDE)
execute_process(
  COMMAND ${PYTHON} -m pip install --no-deps --no-index --disable-pip-version-check
          --target ${WORK_DIR}/site ${WORK_DIR}/src
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pip install failed (${rc}):\n${out}\n${err}")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${WORK_DIR}/site
          MINFLOW_LIBRARY=${LIBRARY} PYTHONDONTWRITEBYTECODE=1
          ${PYTHON} -c "import minflow as mf, os; \
assert os.path.dirname(mf.__file__) == os.path.join('${WORK_DIR}', 'site', 'minflow'), mf.__file__; \
y = mf.constant([1.0, 2.0]) * 3.0; \
print('pip-installed minflow', mf.__version__, mf.Session().run(y))"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "pip-installed minflow [0-9.]+ \\[3\\. 6\\.\\]")
  message(FATAL_ERROR "the installed package failed (${rc}):\n${out}\n${err}")
endif()
message(STATUS "${out}")
