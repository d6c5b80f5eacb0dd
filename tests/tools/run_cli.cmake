# Runs the minflow command line once and checks its exit code and output.
#   -DCLI=<path>        the binary
#   -DARGS=a|b|c        its arguments, separated by '|'
#   -DRC=<n>            the exit code expected
#   -DSTDOUT=<regex>    optional: stdout must match
#   -DSTDERR=<regex>    optional: stderr must match
#   -DNOT_STDOUT=<regex> optional: stdout must not match
string(REPLACE "|" ";" args "${ARGS}")
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
