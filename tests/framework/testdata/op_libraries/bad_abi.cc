// Built with MINFLOW_OP_LIBRARY_ABI_OVERRIDE, as if against another minflow:
// LoadOpLibrary must refuse it before any of this code runs.
#include <cstdlib>

#include "minflow/framework/op.h"

namespace minflow {
namespace {

#ifndef MF_TEST_INIT_MARK
#define MF_TEST_INIT_MARK "MF_LOAD_TEST_BAD_ABI_RAN"
#endif
#ifndef MF_TEST_OP
#define MF_TEST_OP "LoadTest>OldAbi"
#endif

// Marks the environment if this library's static initialisers ever run.
const int kInitialised = setenv(MF_TEST_INIT_MARK, "1", 1);

REGISTER_OP(MF_TEST_OP).Output("y: float");

}  // namespace
}  // namespace minflow
