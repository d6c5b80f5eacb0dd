#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class BroadcastToOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, DataType tidx = DT_INT32) {
    MakeNode("BroadcastTo").Input(dtype).Input(tidx);
    MF_ASSERT_OK(MakeOp());
  }
  void AddShape(const std::vector<int64_t>& dims, DataType tidx = DT_INT32) {
    const TensorShape s({static_cast<int64_t>(dims.size())});
    if (tidx == DT_INT32) {
      AddInputFromArray<int32_t>(
          s, std::vector<int32_t>(dims.begin(), dims.end()));
    } else {
      AddInputFromArray<int64_t>(s, dims);
    }
  }
  // out[i] = in[i with broadcast dims set to 0], right-aligned.
  void Check(DataType dtype, const TensorShape& in_shape,
             const std::vector<int64_t>& dims, DataType tidx = DT_INT32) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << in_shape.DebugString());
    Make(dtype, tidx);
    const Tensor in = test::MakeTestTensor(dtype, in_shape);
    AddInputTensor(in);
    AddShape(dims, tidx);
    RunAndCheckShapes();
    const TensorShape out(dims);
    const auto strides = test::Strides(in_shape);
    const int offset = out.dims() - in_shape.dims();
    std::vector<int64_t> src;
    for (int64_t e = 0; e < out.num_elements(); ++e) {
      const auto o = test::Unravel(e, out);
      int64_t s = 0;
      for (int d = 0; d < in_shape.dims(); ++d) {
        if (in_shape.dim_size(d) != 1) s += o[d + offset] * strides[d];
      }
      src.push_back(s);
    }
    test::ExpectEqual(*GetOutput(0), test::GatherReference(in, out, src));
  }
};

TEST_F(BroadcastToOpTest, BroadcastsEveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, TensorShape({3}), {2, 3});
    Check(dtype, TensorShape({3, 1}), {2, 3, 4}, DT_INT64);
    Check(dtype, TensorShape({}), {2, 2});
  }
}

TEST_F(BroadcastToOpTest, TfDocumentedExample) {
  // tf.broadcast_to([1, 2, 3], [3, 3])
  Make(DT_INT32);
  AddInputFromArray<int32_t>(TensorShape({3}), {1, 2, 3});
  AddShape({3, 3});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(
      *GetOutput(0), test::AsTensor<int32_t>({1, 2, 3, 1, 2, 3, 1, 2, 3},
                                             TensorShape({3, 3})));
}

TEST_F(BroadcastToOpTest, SameShapeSharesAndEmptyWorks) {
  Make(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3})));
  AddShape({2, 3});
  RunAndCheckShapes();
  test::ExpectSharesBuffer(*GetOutput(0), GetInput(0));
  Check(DT_FLOAT, TensorShape({1, 3}), {0, 3});
  Check(DT_FLOAT, TensorShape({0, 1}), {2, 0, 4});
  Check(DT_FLOAT, TensorShape({5, 1, 7}), {5, 300, 7});
}

TEST_F(BroadcastToOpTest, RejectsBadShapes) {
  Make(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({3})));
  AddInputFromArray<int32_t>(TensorShape({1, 1}), {3});
  ExpectInvalid("shape must be a vector of {int32,int64}, got shape [1,1]");
  Make(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({3})));
  AddShape({-2, 3});
  ExpectInvalid("Dimension 0 must be >= 0, but got -2");
  Make(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({1, 3})));
  AddShape({3});
  ExpectInvalid(
      "Rank of input (2) must be no greater than rank of output shape (1).");
  Make(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({3})));
  AddShape({2, 4});
  ExpectInvalid("Incompatible shapes: [3] vs. [2,4]");
  Make(DT_FLOAT);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({3})));
  AddShape({2, 1});
  ExpectInvalid(
      "Unable to broadcast tensor of shape [3] to tensor of shape "
      "[2,1]");
}

TEST_F(BroadcastToOpTest, BroadcastArgs) {
  for (DataType t : {DT_INT32, DT_INT64}) {
    MakeNode("BroadcastArgs").Input(t).Input(t);
    MF_ASSERT_OK(MakeOp());
    AddShape({2, 1, 3}, t);
    AddShape({4, 1}, t);
    RunAndCheckShapes();
    const Tensor& out = *GetOutput(0);
    ASSERT_EQ(out.shape(), TensorShape({3}));
    for (int i = 0; i < 3; ++i) {
      const int64_t v =
          t == DT_INT32 ? out.base<int32_t>()[i] : out.base<int64_t>()[i];
      EXPECT_EQ(v, (std::vector<int64_t>{2, 4, 3})[i]);
    }
  }
  MakeNode("BroadcastArgs").Input(DT_INT32).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddShape({0, 1});
  AddShape({});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(*GetOutput(0),
                                   test::AsTensor<int32_t>({0, 1}));
  MakeNode("BroadcastArgs").Input(DT_INT32).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddShape({2, 3});
  AddShape({4});
  ExpectInvalid("Incompatible shapes: [2,3] vs. [4]");
  MakeNode("BroadcastArgs").Input(DT_INT32).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddShape({2, 3});
  AddInputFromArray<int32_t>(TensorShape({}), {4});
  ExpectInvalid("In[1] must be a vector.[]");
}

}  // namespace
}  // namespace minflow
