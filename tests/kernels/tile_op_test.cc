#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class TileOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, const TensorShape& in,
            const std::vector<int64_t>& multiples, DataType tm = DT_INT32) {
    MakeNode("Tile").Input(dtype).Input(tm);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(dtype, in));
    const TensorShape shape({static_cast<int64_t>(multiples.size())});
    if (tm == DT_INT32) {
      AddInputFromArray<int32_t>(
          shape, std::vector<int32_t>(multiples.begin(), multiples.end()));
    } else {
      AddInputFromArray<int64_t>(shape, multiples);
    }
  }

  void Check(DataType dtype, const TensorShape& in,
             const std::vector<int64_t>& multiples, DataType tm = DT_INT32) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << in.DebugString() << " x "
                 << ::testing::PrintToString(multiples));
    Make(dtype, in, multiples, tm);
    RunAndCheckShapes();
    std::vector<int64_t> out_dims;
    for (int d = 0; d < in.dims(); ++d) {
      out_dims.push_back(in.dim_size(d) * multiples[d]);
    }
    const TensorShape out(out_dims);
    const auto strides = test::Strides(in);
    std::vector<int64_t> src;
    for (int64_t e = 0; e < out.num_elements(); ++e) {
      const auto idx = test::Unravel(e, out);
      int64_t s = 0;
      for (int d = 0; d < in.dims(); ++d) {
        s += (idx[d] % in.dim_size(d)) * strides[d];
      }
      src.push_back(s);
    }
    test::ExpectEqual(*GetOutput(0),
                      test::GatherReference(GetInput(0), out, src));
  }
};

TEST_F(TileOpTest, TilesEveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, TensorShape({2, 3}), {2, 3});
    Check(dtype, TensorShape({2, 1, 3}), {1, 4, 1}, DT_INT64);
    Check(dtype, TensorShape({1}), {7});
  }
}

TEST_F(TileOpTest, ScalarsEmptyAndZeroMultiples) {
  Check(DT_FLOAT, TensorShape({}), {});
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  Check(DT_FLOAT, TensorShape({2, 3}), {1, 1});
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  Check(DT_FLOAT, TensorShape({2, 3}), {0, 2});
  Check(DT_STRING, TensorShape({0, 3}), {5, 2});
}

TEST_F(TileOpTest, Rank5AndLarge) {
  Check(DT_INT32, TensorShape({2, 1, 2, 3, 1}), {1, 2, 2, 1, 3});
  Check(DT_FLOAT, TensorShape({16, 64}), {64, 4});  // 1 MiB, sharded
  Check(DT_INT8, TensorShape({1}), {1 << 20});      // a row built by doubling
}

TEST_F(TileOpTest, RejectsMultiplesOfWrongShape) {
  Make(DT_FLOAT, TensorShape({2, 3}), {2});
  ExpectInvalid(
      "Expected multiples argument to be a vector of length 2 but got shape "
      "[1]");
  MakeNode("Tile").Input(DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2})));
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  ExpectInvalid("but got shape []");
}

TEST_F(TileOpTest, RejectsNegativeMultiples) {
  Make(DT_FLOAT, TensorShape({2, 3}), {2, -1});
  ExpectInvalid("Expected multiples[1] >= 0, but got -1");
}

TEST_F(TileOpTest, RejectsOverflowingSizes) {
  Make(DT_FLOAT, TensorShape({4}), {int64_t{1} << 62}, DT_INT64);
  ExpectInvalid("Tiled size of dimension 0 overflows int64");
  Make(DT_FLOAT, TensorShape({2, 2}), {int64_t{1} << 40, int64_t{1} << 40},
       DT_INT64);
  ExpectInvalid("too many elements");
}

}  // namespace
}  // namespace minflow
