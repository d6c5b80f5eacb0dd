// Every kernel minflow ships must be in the registry of the shared library
// (static registrations survive linking), and every registration must be
// valid against its op. Kernel families add their (op, device) pairs to
// kExpectedKernels.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/op.h"
#include "minflow/kernel_def.pb.h"
#include "tests/kernels/testing_ops.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

struct ExpectedKernel {
  const char* op;
  const char* device;
};

// One line per (op, device); keep sorted by op.
constexpr ExpectedKernel kExpectedKernels[] = {
    {"Const", DEVICE_CPU},
    {"Identity", DEVICE_CPU},
    {"IdentityN", DEVICE_CPU},
    {"NoOp", DEVICE_CPU},
    {"NoOp", DEVICE_DEFAULT},
    {"Placeholder", DEVICE_CPU},
    {"PlaceholderWithDefault", DEVICE_CPU},
    {"StopGradient", DEVICE_CPU},
};

TEST(KernelRegistrationTest, EveryExpectedKernelIsRegistered) {
  std::set<std::pair<std::string, std::string>> registered;
  const KernelList all = GetAllRegisteredKernels();
  for (const KernelDef& def : all.kernel()) {
    registered.emplace(def.op(), def.device_type());
  }
  for (const ExpectedKernel& k : kExpectedKernels) {
    EXPECT_TRUE(registered.count({k.op, k.device}))
        << "no " << k.device << " kernel registered for " << k.op;
  }
}

TEST(KernelRegistrationTest, EveryRegistrationIsValidForItsOp) {
  test::RegisterMissingKernelTestOps();
  MF_EXPECT_OK(ValidateKernelRegistrations(*OpRegistry::Global()));
  EXPECT_THAT(KernelRegistrationErrors(), ::testing::IsEmpty());
}

}  // namespace
}  // namespace minflow
