// A library whose static initialiser tries to load another library: refused
// (it would wait for itself), and the outcome is left in the environment.
#include <cstdlib>
#include <string>

#include "minflow/framework/load_library.h"
#include "minflow/framework/op.h"

namespace minflow {
namespace {

const int kTried = [] {
  const Status s = LoadOpLibrary("/nonexistent/libother.so", nullptr);
  return setenv("MF_LOAD_TEST_REENTRANT", std::string(s.message()).c_str(), 1);
}();

REGISTER_OP("LoadTest>Reentrant").Output("y: float");

}  // namespace
}  // namespace minflow
