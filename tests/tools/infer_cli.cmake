# run_cli.cmake for arguments that hold ';' (the shape notation's input
# separator), which CMake lists cannot carry: write it %SEMI% in ARGS.
string(REPLACE "%SEMI%" "\\;" ARGS "${ARGS}")
string(REPLACE "%SEMI%" ";" STDOUT "${STDOUT}")
include(${CMAKE_CURRENT_LIST_DIR}/run_cli.cmake)
