# `minflow ops show` succeeds for every op `minflow ops list` names (there
# may be none yet), printing a text OpDef.  -DCLI=<path>
execute_process(COMMAND "${CLI}" ops list --internal
                RESULT_VARIABLE rc OUTPUT_VARIABLE names ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ops list failed (${rc}): ${err}")
endif()
string(REPLACE "\n" ";" names "${names}")
list(FILTER names EXCLUDE REGEX "^$")
list(LENGTH names count)
message(STATUS "${count} registered ops")
foreach(name IN LISTS names)
  execute_process(COMMAND "${CLI}" ops show ${name}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "op {\n  name: \"${name}\"")
    message(FATAL_ERROR "ops show ${name} failed (${rc}):\n${out}\n${err}")
  endif()
endforeach()
