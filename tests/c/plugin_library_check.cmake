# Checks that a plugin library stands alone (Note [Plugin kernel ABI]):
# it exports MF_PluginInit and nothing else, and does not link libminflow;
# with -DCOMPILER=<name>, that <name> compiled it (the ELF .comment).
#   cmake -DLIB=libatan.so -DNM=nm -DREADELF=readelf [-DCOMPILER=clang] -P ...
execute_process(COMMAND "${NM}" -D --defined-only "${LIB}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE symbols ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIB}: ${err}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${symbols}")
foreach(line IN LISTS lines)
  if(NOT line MATCHES " MF_PluginInit$")
    message(FATAL_ERROR "${LIB} exports more than MF_PluginInit: ${line}")
  endif()
endforeach()
if(NOT symbols MATCHES " T MF_PluginInit")
  message(FATAL_ERROR "${LIB} does not export MF_PluginInit:\n${symbols}")
endif()

execute_process(COMMAND "${READELF}" -d -p .comment "${LIB}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE elf ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${READELF} failed on ${LIB}: ${err}")
endif()
if(elf MATCHES "NEEDED[^\n]*minflow")
  message(FATAL_ERROR "${LIB} links against libminflow:\n${elf}")
endif()
if(COMPILER AND NOT elf MATCHES "${COMPILER}")
  message(FATAL_ERROR "${LIB} was not compiled by ${COMPILER}:\n${elf}")
endif()
