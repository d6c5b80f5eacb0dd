#include "gtest/gtest.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/node_def.pb.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

class NoOpTest : public test::OpsTestBaseP {};

TEST_P(NoOpTest, RunsWithNoInputsOrOutputs) {
  MakeNode("NoOp");
  MF_ASSERT_OK(MakeOp());
  EXPECT_FALSE(op_kernel()->IsExpensive());
  EXPECT_EQ(op_kernel()->num_inputs(), 0);
  EXPECT_EQ(op_kernel()->num_outputs(), 0);
  MF_ASSERT_OK(RunOpKernel());
}

TEST(NoOpRegistrationTest, RunsOnAnyDeviceThroughTheDefaultKernel) {
  NodeDef node;
  node.set_name("n");
  node.set_op("NoOp");
  EXPECT_TRUE(KernelDefAvailable(DEVICE_CPU, node));
  EXPECT_TRUE(KernelDefAvailable(DEVICE_GPU, node));
}

MF_INSTANTIATE_KERNEL_TEST_DEVICES(NoOpTest);

}  // namespace
}  // namespace minflow
