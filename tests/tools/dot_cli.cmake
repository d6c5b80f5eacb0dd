# Pipes `minflow ARGS` (a `minflow dot` command) through Graphviz's
# `dot -Tsvg` and checks that both succeed and an SVG comes out.
#   -DCLI=<path>   the minflow binary
#   -DDOT=<path>   Graphviz's dot
#   -DARGS=a|b|c   minflow's arguments, separated by '|'
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND "${CLI}" ${args}
                COMMAND "${DOT}" -Tsvg
                RESULTS_VARIABLE rcs OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(report "command: ${CLI} ${args} | ${DOT} -Tsvg\nexit codes: ${rcs}\nstderr:\n${err}")
if(NOT "${rcs}" STREQUAL "0;0")
  message(FATAL_ERROR "expected exit codes 0;0\n${report}")
endif()
if(NOT out MATCHES "<svg" OR NOT out MATCHES "</svg>")
  message(FATAL_ERROR "no SVG on stdout\n${report}\nstdout:\n${out}")
endif()
