#include <cstdint>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class SnapshotOpTest : public test::ArrayOpTest {};

TEST_F(SnapshotOpTest, CopiesOrForwardsEveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    MakeNode("Snapshot").Input(dtype);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(dtype, TensorShape({3, 5})));
    RunAndCheckShapes();
    test::ExpectEqual(*GetOutput(0),
                      test::MakeTestTensor(dtype, TensorShape({3, 5})));
  }
  MakeNode("Snapshot").Input(DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 2})));
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 2}));
}

TEST_F(SnapshotOpTest, ForwardsAnUnsharedInputAndCopiesAHeldOne) {
  MakeNode("Snapshot").Input(DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4})));
  RunAndCheckShapes();
  test::ExpectSharesBuffer(*GetOutput(0), GetInput(0));

  MakeNode("Snapshot").Input(DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4})));
  const Tensor held = GetInput(0);  // a second reference: no forwarding
  RunAndCheckShapes();
  EXPECT_FALSE(GetOutput(0)->SharesBufferWith(held));
  test::ExpectEqual(*GetOutput(0), held);
}

}  // namespace
}  // namespace minflow
