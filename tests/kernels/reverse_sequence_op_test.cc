#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class ReverseSequenceOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, int64_t seq_dim, int64_t batch_dim,
            DataType tlen = DT_INT64) {
    MakeNode("ReverseSequence")
        .Input(dtype)
        .Input(tlen)
        .Attr("seq_dim", seq_dim)
        .Attr("batch_dim", batch_dim);
    MF_ASSERT_OK(MakeOp());
  }
  void AddLens(const std::vector<int64_t>& lens, DataType tlen = DT_INT64) {
    const TensorShape s({static_cast<int64_t>(lens.size())});
    if (tlen == DT_INT32) {
      AddInputFromArray<int32_t>(
          s, std::vector<int32_t>(lens.begin(), lens.end()));
    } else {
      AddInputFromArray<int64_t>(s, lens);
    }
  }
  void Check(DataType dtype, const TensorShape& shape, int seq_dim,
             int batch_dim, const std::vector<int64_t>& lens,
             DataType tlen = DT_INT64) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << shape.DebugString()
                 << " seq_dim " << seq_dim << " batch_dim " << batch_dim);
    Make(dtype, seq_dim, batch_dim, tlen);
    const Tensor in = test::MakeTestTensor(dtype, shape);
    AddInputTensor(in);
    AddLens(lens, tlen);
    RunAndCheckShapes();
    const auto strides = test::Strides(shape);
    std::vector<int64_t> src;
    for (int64_t e = 0; e < shape.num_elements(); ++e) {
      auto o = test::Unravel(e, shape);
      const int64_t len = lens[o[batch_dim]];
      if (o[seq_dim] < len) o[seq_dim] = len - 1 - o[seq_dim];
      int64_t s = 0;
      for (int d = 0; d < shape.dims(); ++d) s += o[d] * strides[d];
      src.push_back(s);
    }
    test::ExpectEqual(*GetOutput(0), test::GatherReference(in, shape, src));
  }
};

TEST_F(ReverseSequenceOpTest, ReversesPrefixesOfEveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, TensorShape({4, 5}), 1, 0, {0, 1, 3, 5});
    Check(dtype, TensorShape({5, 3, 2}), 0, 1, {5, 2, 4}, DT_INT32);
  }
  Check(DT_FLOAT, TensorShape({2, 3, 6, 4}), 2, 0, {6, 3});
  Check(DT_FLOAT, TensorShape({3, 2, 4, 5}), 0, 3, {0, 1, 2, 3, 3});
}

TEST_F(ReverseSequenceOpTest, RowsReverseOnlyTheirPrefix) {
  // TF's documented case: input [4, 8] (seq_dim 1, batch_dim 0),
  // seq_lengths [7, 2, 3, 5].
  std::vector<int64_t> lens = {7, 2, 3, 5};
  Check(DT_INT32, TensorShape({4, 8}), 1, 0, lens);
  const Tensor& out = *GetOutput(0);
  const Tensor in = test::MakeTestTensor(DT_INT32, TensorShape({4, 8}));
  // Row 1 reverses its first two entries and keeps the rest.
  EXPECT_EQ(out.base<int32_t>()[8], in.base<int32_t>()[9]);
  EXPECT_EQ(out.base<int32_t>()[9], in.base<int32_t>()[8]);
  EXPECT_EQ(out.base<int32_t>()[10], in.base<int32_t>()[10]);
}

TEST_F(ReverseSequenceOpTest, Empty) {
  Check(DT_FLOAT, TensorShape({3, 0}), 1, 0, {0, 0, 0});
  Check(DT_FLOAT, TensorShape({0, 4}), 1, 0, {});
}

TEST_F(ReverseSequenceOpTest, RejectsBadAttrsAndLengths) {
  const auto run = [&](int64_t seq_dim, int64_t batch_dim,
                       const TensorShape& shape,
                       const std::vector<int64_t>& lens) {
    Make(DT_FLOAT, seq_dim, batch_dim);
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, shape));
    AddLens(lens);
  };
  MakeNode("ReverseSequence")
      .Input(DT_FLOAT)
      .Input(DT_INT64)
      .Attr("seq_dim", int64_t{1});
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputFromArray<int64_t>(TensorShape({}), {1});
  ExpectInvalid("seq_lengths must be 1-dim, not 0");
  run(-1, 0, TensorShape({2, 3}), {1, 1});
  ExpectInvalid("seq_dim must be >=0, got -1");
  run(1, -1, TensorShape({2, 3}), {1, 1});
  ExpectInvalid("batch_dim must be >=0, got -1");
  run(1, 1, TensorShape({2, 3}), {1, 1, 1});
  ExpectInvalid("batch_dim == seq_dim == 1");
  run(2, 0, TensorShape({2, 3}), {1, 1});
  ExpectInvalid("seq_dim must be < input rank ( 2 vs. 2)");
  run(0, 2, TensorShape({2, 3}), {1, 1});
  ExpectInvalid("batch_dim must be < input rank ( 2 vs. 2)");
  run(1, 0, TensorShape({2, 3}), {1, 1, 1});
  ExpectInvalid("Length of seq_lengths != input.dims(0), (3 vs. 2)");
  run(1, 0, TensorShape({2, 3}), {1, -1});
  ExpectInvalid("seq_lens(1) < 0");
  run(1, 0, TensorShape({2, 3}), {4, 1});
  ExpectInvalid("seq_lens(0) > input.dims(1)");
}

}  // namespace
}  // namespace minflow
