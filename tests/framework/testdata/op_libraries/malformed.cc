// A library with a malformed op spec (an attr of an unknown type) next to a
// fine op: the library must be refused as a whole.
#include "minflow/framework/op.h"

namespace minflow {
namespace {

REGISTER_OP("LoadTest>Fine").Output("y: float");
REGISTER_OP("LoadTest>Malformed").Attr("T: typo").Input("x: T");

}  // namespace
}  // namespace minflow
