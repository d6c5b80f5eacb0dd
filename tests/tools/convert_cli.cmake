# `minflow convert` round trip on a bundled graph: text -> binary -> text
# gives the same text as text -> text, the binary form is binary, and the
# converted graph runs to the same result as the original.
#   cmake -DCLI=<path> -DGRAPH=<.pbtxt> -DFEED=<x=@...> -DFETCH=<name>
#         -DOUT_DIR=<dir> -P convert_cli.cmake
function(minflow)
  execute_process(COMMAND "${CLI}" ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "minflow ${ARGN} exited ${rc}:\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")
minflow(convert "${GRAPH}" "${OUT_DIR}/g.pb")
if(NOT out MATCHES "^wrote [^\n]*g.pb: [0-9]+ nodes, binary, [0-9]+ bytes\n$")
  message(FATAL_ERROR "unexpected report: ${out}")
endif()
minflow(convert "${OUT_DIR}/g.pb" "${OUT_DIR}/back.pbtxt")
minflow(convert "${GRAPH}" "${OUT_DIR}/direct.txt" --to pbtxt)
file(READ "${OUT_DIR}/back.pbtxt" back)
file(READ "${OUT_DIR}/direct.txt" direct)
if(NOT back STREQUAL direct OR NOT back MATCHES "^node {\n  name: ")
  message(FATAL_ERROR "text -> binary -> text differs from text -> text")
endif()
# Binary: protobuf's wire format starts with node's tag, 0x0a.
file(READ "${OUT_DIR}/g.pb" head LIMIT 1 HEX)
if(NOT head STREQUAL "0a")
  message(FATAL_ERROR "g.pb does not start as a binary GraphDef: ${head}")
endif()
minflow(run "${GRAPH}" --feed "${FEED}" --fetch "${FETCH}")
set(original "${out}")
minflow(run "${OUT_DIR}/g.pb" --feed "${FEED}" --fetch "${FETCH}")
if(NOT out STREQUAL original)
  message(FATAL_ERROR "the converted graph gives\n${out}\nthe original\n${original}")
endif()
