// The unit that owns the tests' precompiled header (minflow_test_pch in
// tests/testlib/CMakeLists.txt); every test reuses what it builds.
#include "tests/testlib/precompiled_headers.h"
