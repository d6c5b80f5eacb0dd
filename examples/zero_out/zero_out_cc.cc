// Examples>ZeroOut through the C++ graph API: its class,
// minflow::ops::Examples::ZeroOut, was generated from libzero_out.so at
// build time (minflow_add_cc_op_wrappers in CMakeLists.txt).
//
// Usage: zero_out_cc path/to/libzero_out.so
#include <cstdio>
#include <string>
#include <vector>

#include "minflow/cc/framework/client_session.h"
#include "minflow/framework/load_library.h"
#include "zero_out_cc_ops.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "Usage: %s path/to/libzero_out.so\n", argv[0]);
    return 2;
  }
  // The op must be registered before its class can make it.
  minflow::Status s = minflow::LoadOpLibrary(argv[1], nullptr);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  minflow::Scope root = minflow::Scope::NewRootScope();
  auto zeroed = minflow::ops::Examples::ZeroOut(root, {5.f, 3.f, 2.f});
  minflow::ClientSession session(root);
  std::vector<minflow::Tensor> out;
  s = session.Run({zeroed}, &out);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  std::printf("zeroed:");
  for (int64_t i = 0; i < out[0].NumElements(); ++i) {
    std::printf(" %g", out[0].flat<float>()(i));
  }
  std::printf("\n");
  return 0;
}
