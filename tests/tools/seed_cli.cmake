# --seed: the same seed gives the same random feed on every run, another
# seed other data, and no --seed is the default seed.
#   cmake -DCLI=<path> -DGRAPH=<graph> -DFEED=<x=random:...> -DFETCH=<name>
#         -P seed_cli.cmake
function(run_with out_var)
  execute_process(COMMAND "${CLI}" run "${GRAPH}" "--feed=${FEED}"
                          --fetch "${FETCH}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "minflow run ${ARGN} exited ${rc}: ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
run_with(seven_a --seed 7)
run_with(seven_b --seed=7)
run_with(eight --seed 8)
run_with(no_seed)
run_with(default_seed --seed 1234)
if(NOT seven_a STREQUAL seven_b)
  message(FATAL_ERROR "--seed 7 gave different data on two runs:\n${seven_a}\n${seven_b}")
endif()
if(seven_a STREQUAL eight)
  message(FATAL_ERROR "--seed 7 and --seed 8 gave the same data:\n${eight}")
endif()
if(NOT no_seed STREQUAL default_seed)
  message(FATAL_ERROR "no --seed is not --seed 1234:\n${no_seed}\n${default_seed}")
endif()
