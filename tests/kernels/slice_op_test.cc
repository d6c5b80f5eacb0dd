#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class SliceOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, const TensorShape& in,
            const std::vector<int64_t>& begin, const std::vector<int64_t>& size,
            DataType index = DT_INT32) {
    MakeNode("Slice").Input(dtype).Input(index).Input(index);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(dtype, in));
    for (const auto* v : {&begin, &size}) {
      const TensorShape shape({static_cast<int64_t>(v->size())});
      if (index == DT_INT32) {
        AddInputFromArray<int32_t>(shape,
                                   std::vector<int32_t>(v->begin(), v->end()));
      } else {
        AddInputFromArray<int64_t>(shape, *v);
      }
    }
  }

  // `size` entries of -1 are resolved by the reference too.
  void Check(DataType dtype, const TensorShape& in,
             const std::vector<int64_t>& begin, std::vector<int64_t> size,
             DataType index = DT_INT32) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << in.DebugString()
                 << " begin " << ::testing::PrintToString(begin) << " size "
                 << ::testing::PrintToString(size));
    Make(dtype, in, begin, size, index);
    RunAndCheckShapes();
    for (int d = 0; d < in.dims(); ++d) {
      if (size[d] == -1) size[d] = in.dim_size(d) - begin[d];
    }
    const TensorShape out(size);
    const auto strides = test::Strides(in);
    std::vector<int64_t> src;
    for (int64_t e = 0; e < out.num_elements(); ++e) {
      const auto idx = test::Unravel(e, out);
      int64_t s = 0;
      for (int d = 0; d < in.dims(); ++d) s += (idx[d] + begin[d]) * strides[d];
      src.push_back(s);
    }
    test::ExpectEqual(*GetOutput(0),
                      test::GatherReference(GetInput(0), out, src));
  }
};

TEST_F(SliceOpTest, SlicesEveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, TensorShape({4, 5, 6}), {1, 2, 3}, {2, 3, 2});
    Check(dtype, TensorShape({4, 5, 6}), {0, 0, 1}, {-1, -1, -1}, DT_INT64);
  }
}

TEST_F(SliceOpTest, Rank1To5AndScalars) {
  Check(DT_FLOAT, TensorShape({}), {}, {});
  Check(DT_FLOAT, TensorShape({10}), {3}, {4});
  Check(DT_INT32, TensorShape({3, 4}), {1, 0}, {2, 4});
  Check(DT_INT64, TensorShape({2, 3, 4, 5, 6}), {1, 1, 0, 2, 3},
        {1, 2, 4, 3, 2});
}

TEST_F(SliceOpTest, EmptyResultsAndEmptyInputs) {
  Check(DT_FLOAT, TensorShape({4, 5}), {2, 5}, {2, 0});
  Check(DT_FLOAT, TensorShape({0, 5}), {0, 1}, {0, 3});
  Check(DT_STRING, TensorShape({0, 5}), {0, 1}, {-1, 2});
}

TEST_F(SliceOpTest, IdentitySharesTheBuffer) {
  Check(DT_FLOAT, TensorShape({4, 5}), {0, 0}, {-1, 5});
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
}

TEST_F(SliceOpTest, AlignedDim0SliceSharesTheBuffer) {
  // Rows of 16 floats: rows 2..5 start 128 bytes in, aligned.
  Check(DT_FLOAT, TensorShape({8, 16}), {2, 0}, {3, 16});
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  // Rows of 3 floats: row 1 starts 12 bytes in, so the slice is copied.
  Check(DT_FLOAT, TensorShape({8, 3}), {1, 0}, {3, 3});
  EXPECT_FALSE(GetOutput(0)->SharesBufferWith(GetInput(0)));
}

TEST_F(SliceOpTest, LargeEnoughToShard) {
  Check(DT_FLOAT, TensorShape({1024, 600}), {10, 3}, {1000, 590});
  Check(DT_INT8, TensorShape({64, 64, 64}), {1, 2, 3}, {60, 60, 60});
}

TEST_F(SliceOpTest, RejectsBadIndexShapes) {
  Make(DT_FLOAT, TensorShape({4, 5}), {0}, {1, 1});
  ExpectInvalid(
      "Expected begin and size arguments to be 1-D tensors of size 2, but "
      "got shapes [1] and [2] instead.");
}

TEST_F(SliceOpTest, RejectsOutOfRangeBegin) {
  Make(DT_FLOAT, TensorShape({4, 5}), {0, 6}, {1, 0});
  ExpectInvalid("Expected begin[1] in [0, 5], but got 6");
  Make(DT_FLOAT, TensorShape({4, 5}), {-1, 0}, {1, 1}, DT_INT64);
  ExpectInvalid("Expected begin[0] in [0, 4], but got -1");
}

TEST_F(SliceOpTest, RejectsOutOfRangeSize) {
  Make(DT_FLOAT, TensorShape({4, 5}), {1, 2}, {1, 4});
  ExpectInvalid("Expected size[1] in [0, 3], but got 4");
  Make(DT_FLOAT, TensorShape({4, 5}), {1, 2}, {-2, 1});
  ExpectInvalid("Expected size[0] in [0, 3], but got -2");
  // begin + size would overflow int64.
  Make(DT_FLOAT, TensorShape({4, 5}), {1, 2},
       {1, std::numeric_limits<int64_t>::max()}, DT_INT64);
  ExpectInvalid("Expected size[1] in [0, 3]");
}

TEST_F(SliceOpTest, RejectsNonZeroSliceOfEmptyDim) {
  Make(DT_FLOAT, TensorShape({0, 5}), {1, 0}, {0, 5});
  ExpectInvalid(
      "Expected begin[0] == 0 (got 1) and size[0] == 0 (got 0) when "
      "input.dim_size(0) == 0");
}

}  // namespace
}  // namespace minflow
