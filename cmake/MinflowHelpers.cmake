# minflow_add_test(name src...): a GoogleTest binary linked to libminflow and
# the shared test helpers, registered with ctest under its own name.
function(minflow_add_test name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE minflow minflow_testlib
                        GTest::gmock GTest::gtest_main minflow_build_flags)
  if(TARGET minflow_test_pch)
    target_precompile_headers(${name} REUSE_FROM minflow_test_pch)
    # The shared header is C++; a test's C sources compile without it.
    foreach(source IN LISTS ARGN)
      if(source MATCHES "\\.c$")
        set_source_files_properties(${source} PROPERTIES
                                    SKIP_PRECOMPILE_HEADERS ON)
      endif()
    endforeach()
  endif()
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT 600)
endfunction()

# minflow_add_bench(name src...): a Google Benchmark binary.
function(minflow_add_bench name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE minflow benchmark::benchmark
                        minflow_build_flags)
endfunction()

# minflow_add_fuzzer(name src...): a libFuzzer target (clang only).
function(minflow_add_fuzzer name)
  add_executable(${name} ${ARGN})
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_libraries(${name} PRIVATE minflow minflow_build_flags)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
endfunction()
