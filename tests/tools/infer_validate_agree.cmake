# `minflow infer` and `minflow validate` agree on which graphs are valid:
# for every graph in GRAPHS, both exit 0, or both exit with the same error
# code. Checked on the bundled graphs and on every bad graph of the tests.
#   cmake -DCLI=<path> -DGRAPHS=a|b|c -P infer_validate_agree.cmake
string(REPLACE "|" ";" graphs "${GRAPHS}")
set(valid 0)
set(invalid 0)
foreach(graph IN LISTS graphs)
  execute_process(COMMAND "${CLI}" infer "${graph}"
                  RESULT_VARIABLE infer_rc OUTPUT_QUIET ERROR_VARIABLE infer_err)
  execute_process(COMMAND "${CLI}" validate "${graph}"
                  RESULT_VARIABLE validate_rc OUTPUT_QUIET
                  ERROR_VARIABLE validate_err)
  if(NOT infer_rc STREQUAL validate_rc)
    message(FATAL_ERROR "${graph}: minflow infer exits ${infer_rc}, minflow "
                        "validate ${validate_rc}\ninfer:\n${infer_err}\n"
                        "validate:\n${validate_err}")
  endif()
  if(infer_rc EQUAL 0)
    math(EXPR valid "${valid} + 1")
  else()
    math(EXPR invalid "${invalid} + 1")
  endif()
endforeach()
# Both kinds must be among them, or the check says little.
if(valid EQUAL 0 OR invalid EQUAL 0)
  message(FATAL_ERROR "${valid} valid and ${invalid} invalid graphs: the list "
                      "needs both")
endif()
message(STATUS "${valid} valid and ${invalid} invalid graphs, same verdicts")
