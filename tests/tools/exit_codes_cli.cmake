# Checks that `minflow --help` prints the README's table of exit codes: every
# row of README.md's "| code | meaning |" table, whitespace aside, and no
# other code.
#   cmake -DCLI=<path> -DREADME=<README.md> -P exit_codes_cli.cmake
execute_process(COMMAND "${CLI}" --help RESULT_VARIABLE rc OUTPUT_VARIABLE help)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "minflow --help exited with ${rc}")
endif()
string(FIND "${help}" "Exit codes" start)
if(start EQUAL -1)
  message(FATAL_ERROR "minflow --help prints no exit codes:\n${help}")
endif()
string(SUBSTRING "${help}" ${start} -1 help_codes)
string(FIND "${help_codes}" "\n\n" end)
string(SUBSTRING "${help_codes}" 0 ${end} help_codes)
string(REGEX REPLACE "[ \n]+" " " help_flat "${help_codes}")
# ';' would split CMake lists.
string(REPLACE ";" "<semicolon>" help_flat "${help_flat}")

file(READ "${README}" readme)
string(REPLACE ";" "<semicolon>" readme "${readme}")
string(REGEX MATCHALL "\n\\| [0-9]+ \\| [^\n]*\\|" rows "${readme}")
list(LENGTH rows num_rows)
if(num_rows LESS 4)
  message(FATAL_ERROR "README.md's exit-code table has ${num_rows} rows")
endif()
foreach(row IN LISTS rows)
  string(REGEX REPLACE "^\n\\| ([0-9]+) \\| (.*) \\|$" "\\1 \\2" expected "${row}")
  string(FIND "${help_flat}" " ${expected}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "README.md's exit-code row '${expected}' is not in "
                        "minflow --help:\n${help_codes}")
  endif()
endforeach()
string(REGEX MATCHALL "\n  [0-9]+  " help_rows "${help_codes}")
list(LENGTH help_rows num_help_rows)
if(NOT num_help_rows EQUAL num_rows)
  message(FATAL_ERROR "minflow --help lists ${num_help_rows} exit codes, "
                      "README.md ${num_rows}:\n${help_codes}")
endif()
