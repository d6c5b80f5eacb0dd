# Builds and runs the example of include/minflow/c/README.md with the
# README's own command lines, in a folder laid out like the repository root
# (`include` and `build/release` are links to this source and build tree), so
# that the documented commands are tested exactly as a reader types them.
#   cmake -DSOURCE_DIR=... -DBINARY_DIR=... -DWORK_DIR=... [-DSANITIZE=...]
#         -P readme_example.cmake
# In a sanitizer build (SANITIZE set) the program is compiled with the same
# -fsanitize flags: a sanitized libminflow needs its runtime loaded first.
file(READ "${SOURCE_DIR}/include/minflow/c/README.md" readme)

# The first ```c block is the program; the first ```sh block after it holds
# the build line and the run line.
if(NOT readme MATCHES "```c\n(.*)")
  message(FATAL_ERROR "README.md has no ```c block")
endif()
string(FIND "${CMAKE_MATCH_1}" "```" end)
string(SUBSTRING "${CMAKE_MATCH_1}" 0 ${end} program)
string(SUBSTRING "${CMAKE_MATCH_1}" ${end} -1 after_program)
if(NOT after_program MATCHES "```sh\n([^\n]+)\n([^\n]+)\n```")
  message(FATAL_ERROR "README.md has no ```sh block with a build and a run line after the example")
endif()
set(build_line "${CMAKE_MATCH_1}")
if(SANITIZE)
  string(APPEND build_line " -fsanitize=${SANITIZE}")
endif()
set(run_comment "${CMAKE_MATCH_2}")
string(REGEX REPLACE " *#.*" "" run_line "${run_comment}")
if(NOT run_comment MATCHES "# prints (.+)$")
  message(FATAL_ERROR "The run line does not say what it prints: ${run_comment}")
endif()
set(expected "${CMAKE_MATCH_1}")

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/build")
file(CREATE_LINK "${SOURCE_DIR}/include" "${WORK_DIR}/include" SYMBOLIC)
file(CREATE_LINK "${BINARY_DIR}" "${WORK_DIR}/build/release" SYMBOLIC)
file(WRITE "${WORK_DIR}/example.c" "${program}")

# No LD_LIBRARY_PATH: the program must find libminflow as documented.
unset(ENV{LD_LIBRARY_PATH})
foreach(step build run)
  execute_process(COMMAND sh -c "${${step}_line}" WORKING_DIRECTORY "${WORK_DIR}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "The README's ${step} line failed (${rc}):\n"
                        "  ${${step}_line}\n${out}${err}")
  endif()
endforeach()
string(STRIP "${out}" out)
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "The README says the example prints '${expected}', "
                      "but it printed '${out}'")
endif()
