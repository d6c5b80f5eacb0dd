// Built as a plain shared module, without minflow_add_op_library's ABI mark.
#include "minflow/framework/op.h"

namespace minflow {
namespace {

REGISTER_OP("LoadTest>Unmarked").Output("y: float");

}  // namespace
}  // namespace minflow
