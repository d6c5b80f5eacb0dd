# Runs the minflow command line once and checks its exit code and output.
#   -DCLI=<path>        the binary
#   -DARGS=a|b|c        its arguments, separated by '|'
#   -DRC=<n>            the exit code expected
#   -DSTDOUT=<regex>    optional: stdout must match
#   -DSTDERR=<regex>    optional: stderr must match
#   -DNOT_STDOUT=<regex> optional: stdout must not match
#   -DFILE=<path>       optional: a file the command must write (removed first)
#   -DFILE_MATCHES=<regex> optional: the start of FILE must match
string(REPLACE "|" ";" args "${ARGS}")
if(DEFINED FILE AND NOT "${FILE}" STREQUAL "")
  file(REMOVE "${FILE}")
endif()
execute_process(COMMAND "${CLI}" ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(report "command: ${CLI} ${args}\nexit code: ${rc}\nstdout:\n${out}\nstderr:\n${err}")
if(NOT "${rc}" STREQUAL "${RC}")
  message(FATAL_ERROR "expected exit code ${RC}\n${report}")
endif()
if(DEFINED STDOUT AND NOT "${STDOUT}" STREQUAL "" AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "stdout does not match '${STDOUT}'\n${report}")
endif()
if(DEFINED STDERR AND NOT "${STDERR}" STREQUAL "" AND NOT err MATCHES "${STDERR}")
  message(FATAL_ERROR "stderr does not match '${STDERR}'\n${report}")
endif()
if(DEFINED NOT_STDOUT AND NOT "${NOT_STDOUT}" STREQUAL "" AND out MATCHES "${NOT_STDOUT}")
  message(FATAL_ERROR "stdout matches '${NOT_STDOUT}'\n${report}")
endif()
if(DEFINED FILE AND NOT "${FILE}" STREQUAL "")
  if(NOT EXISTS "${FILE}")
    message(FATAL_ERROR "the command did not write ${FILE}\n${report}")
  endif()
  # The first 64 KiB: a header, or text up to any NUL byte.
  file(READ "${FILE}" head LIMIT 65536)
  if(NOT head MATCHES "${FILE_MATCHES}")
    message(FATAL_ERROR "${FILE} does not match '${FILE_MATCHES}':\n${head}")
  endif()
endif()
