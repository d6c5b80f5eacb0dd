#include <cstdint>
#include <vector>

#include "absl/strings/str_join.h"
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

class BroadcastGradientArgsTest : public BroadcastToOpTest {
 protected:
  // Runs BroadcastGradientArgs on s0, s1 in `t` and checks r0, r1.
  void Check(DataType t, const std::vector<int64_t>& s0,
             const std::vector<int64_t>& s1, const std::vector<int64_t>& r0,
             const std::vector<int64_t>& r1) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(t) << " [" << absl::StrJoin(s0, ",")
                 << "] vs [" << absl::StrJoin(s1, ",") << "]");
    MakeNode("BroadcastGradientArgs").Input(t).Input(t);
    MF_ASSERT_OK(MakeOp());
    for (const auto* s : {&s0, &s1}) {
      const TensorShape shape({static_cast<int64_t>(s->size())});
      if (t == DT_INT32) {
        AddInputFromArray<int32_t>(shape,
                                   std::vector<int32_t>(s->begin(), s->end()));
      } else {
        AddInputFromArray<int64_t>(shape, *s);
      }
    }
    RunAndCheckShapes();
    for (int i = 0; i < 2; ++i) {
      const std::vector<int64_t>& want = i == 0 ? r0 : r1;
      const Tensor& out = *GetOutput(i);
      ASSERT_EQ(out.dtype(), t);
      ASSERT_EQ(out.shape(), TensorShape({static_cast<int64_t>(want.size())}));
      for (size_t k = 0; k < want.size(); ++k) {
        const int64_t v =
            t == DT_INT32 ? out.base<int32_t>()[k] : out.base<int64_t>()[k];
        EXPECT_EQ(v, want[k]) << "r" << i << "[" << k << "]";
      }
    }
  }
};

TEST_F(BroadcastGradientArgsTest, ReducesBroadcastAxes) {
  for (DataType t : {DT_INT32, DT_INT64}) {
    // x [2,3,5] + y [5]: y is summed over the two leading axes.
    Check(t, {2, 3, 5}, {5}, {}, {0, 1});
    // Both sides broadcast: [2,1,5] vs [3,1].
    Check(t, {2, 1, 5}, {3, 1}, {1}, {0, 2});
    // A scalar against a matrix.
    Check(t, {}, {4, 2}, {0, 1}, {});
    // Equal shapes reduce nothing, except size-1 axes, which both sum over
    // harmlessly.
    Check(t, {4, 1}, {4, 1}, {1}, {1});
    // A 0-sized axis against 1.
    Check(t, {0, 3}, {1, 3}, {}, {0});
  }
}

TEST_F(BroadcastGradientArgsTest, RejectsBadShapes) {
  MakeNode("BroadcastGradientArgs").Input(DT_INT32).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddShape({2, 3});
  AddShape({4});
  ExpectInvalid("Incompatible shapes: [2,3] vs. [4]");
  MakeNode("BroadcastGradientArgs").Input(DT_INT32).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddShape({2, 3});
  AddInputFromArray<int32_t>(TensorShape({}), {4});
  ExpectInvalid("s1 must be a vector, but got []");
  MakeNode("BroadcastGradientArgs").Input(DT_INT64).Input(DT_INT64);
  MF_ASSERT_OK(MakeOp());
  AddShape({2, -1}, DT_INT64);
  AddShape({2}, DT_INT64);
  ExpectInvalid("s0 must hold no negative dimension, but got [2,-1]");
}

}  // namespace
}  // namespace minflow
