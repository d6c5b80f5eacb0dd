#include "minflow/core/variant.h"

#include <cxxabi.h>

#include <cstdlib>

namespace minflow {
namespace internal {

std::string DemangleTypeName(const char* mangled) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return mangled;
  std::string result(demangled);
  std::free(demangled);
  return result;
}

}  // namespace internal
}  // namespace minflow
