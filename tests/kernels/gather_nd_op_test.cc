#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class GatherNdOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, DataType tindices, const std::string& policy = "") {
    MakeNode("GatherNd")
        .Input(dtype)
        .Input(tindices)
        .Attr("bad_indices_policy", policy);
    MF_ASSERT_OK(MakeOp());
  }
  void AddIndices(const TensorShape& shape, const std::vector<int64_t>& v,
                  DataType t) {
    if (t == DT_INT16) {
      AddInputFromArray<int16_t>(shape,
                                 std::vector<int16_t>(v.begin(), v.end()));
    } else if (t == DT_INT32) {
      AddInputFromArray<int32_t>(shape,
                                 std::vector<int32_t>(v.begin(), v.end()));
    } else {
      AddInputFromArray<int64_t>(shape, v);
    }
  }

  // out[i, rest] = params[indices[i, :], rest] with -1 (zeros) for a tuple
  // outside params, computed element by element.
  void Check(DataType dtype, const TensorShape& params,
             const TensorShape& indices_shape,
             const std::vector<int64_t>& indices, DataType tindices = DT_INT32,
             const std::string& policy = "") {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " params " << params.DebugString()
                 << " indices " << indices_shape.DebugString());
    Make(dtype, tindices, policy);
    const Tensor p = test::MakeTestTensor(dtype, params);
    AddInputTensor(p);
    AddIndices(indices_shape, indices, tindices);
    RunAndCheckShapes();
    const int depth =
        static_cast<int>(indices_shape.dim_size(indices_shape.dims() - 1));
    std::vector<int64_t> dims;
    for (int d = 0; d + 1 < indices_shape.dims(); ++d) {
      dims.push_back(indices_shape.dim_size(d));
    }
    for (int d = depth; d < params.dims(); ++d) {
      dims.push_back(params.dim_size(d));
    }
    const TensorShape out(dims);
    const auto strides = test::Strides(params);
    const int outer_rank = indices_shape.dims() - 1;
    std::vector<int64_t> src;
    for (int64_t e = 0; e < out.num_elements(); ++e) {
      const auto o = test::Unravel(e, out);
      int64_t tuple = 0;
      for (int d = 0; d < outer_rank; ++d) {
        tuple = tuple * indices_shape.dim_size(d) + o[d];
      }
      int64_t s = 0;
      for (int d = 0; d < depth && s >= 0; ++d) {
        const int64_t v = indices[tuple * depth + d];
        s = v < 0 || v >= params.dim_size(d) ? -1 : s + v * strides[d];
      }
      for (int d = depth; d < params.dims() && s >= 0; ++d) {
        s += o[outer_rank + d - depth] * strides[d];
      }
      src.push_back(s);
    }
    Tensor fill(dtype, TensorShape({1}));
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      fill.base<T>()[0] = T{};
    });
    test::ExpectEqual(*GetOutput(0), test::GatherReference(p, out, src, &fill));
  }
};

TEST_F(GatherNdOpTest, GathersElementsAndSlicesOfEveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    // Full tuples pick elements; shorter ones pick rows or blocks.
    Check(dtype, TensorShape({3, 4}), TensorShape({3, 2}), {2, 3, 0, 0, 1, 2});
    Check(dtype, TensorShape({3, 4}), TensorShape({2, 1}), {2, 0});
    Check(dtype, TensorShape({2, 3, 4}), TensorShape({2, 2, 2}),
          {1, 2, 0, 0, 1, 1, 0, 2}, DT_INT64);
  }
}

TEST_F(GatherNdOpTest, IndexTypesAndShapes) {
  for (DataType t : {DT_INT16, DT_INT32, DT_INT64}) {
    Check(DT_FLOAT, TensorShape({5}), TensorShape({1}), {4}, t);  // scalar out
    Check(DT_INT32, TensorShape({2, 3}), TensorShape({2}), {1, 2}, t);
  }
  // Depth 0: every tuple picks the whole of params.
  Check(DT_FLOAT, TensorShape({2, 3}), TensorShape({2, 0}), {});
}

TEST_F(GatherNdOpTest, TfDocumentedExamples) {
  // tf.gather_nd([['a', 'b'], ['c', 'd']], [[1], [0]]) = [['c','d'],['a','b']]
  Make(DT_STRING, DT_INT32);
  AddInputFromArray<std::string>(TensorShape({2, 2}), {"a", "b", "c", "d"});
  AddInputFromArray<int32_t>(TensorShape({2, 1}), {1, 0});
  RunAndCheckShapes();
  test::ExpectTensorEqual<std::string>(
      *GetOutput(0),
      test::AsTensor<std::string>({"c", "d", "a", "b"}, TensorShape({2, 2})));
  // tf.gather_nd([[1., 2.], [3., 4.]], [[0, 0], [1, 1]]) = [1., 4.]
  Make(DT_FLOAT, DT_INT64);
  AddInputFromArray<float>(TensorShape({2, 2}), {1, 2, 3, 4});
  AddInputFromArray<int64_t>(TensorShape({2, 2}), {0, 0, 1, 1});
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(*GetOutput(0), test::AsTensor<float>({1, 4}));
}

TEST_F(GatherNdOpTest, EmptyAndLarge) {
  Check(DT_FLOAT, TensorShape({3, 4}), TensorShape({0, 2}), {});
  Check(DT_FLOAT, TensorShape({3, 0}), TensorShape({0, 1}), {});
  Check(DT_FLOAT, TensorShape({3, 4}), TensorShape({2, 0, 1}), {});
  std::vector<int64_t> many;
  for (int64_t i = 0; i < 30000; ++i) {
    many.push_back((i * 7919) % 500);
    many.push_back(i % 7);
  }
  Check(DT_FLOAT, TensorShape({500, 7, 3}), TensorShape({30000, 2}), many);
}

TEST_F(GatherNdOpTest, IgnorePolicyZeroFillsBadTuples) {
  for (DataType dtype : {DT_FLOAT, DT_STRING, DT_COMPLEX128}) {
    Check(dtype, TensorShape({3, 4}), TensorShape({3, 1}), {2, 3, -1}, DT_INT32,
          "IGNORE");
  }
}

TEST_F(GatherNdOpTest, RejectsOutOfRangeIndicesNamingThem) {
  Make(DT_FLOAT, DT_INT32);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({3, 2})));
  AddIndices(TensorShape({2, 1}), {0, 5}, DT_INT32);
  ExpectInvalid("indices[1] = [5] does not index into param shape [3,2]");
  Make(DT_FLOAT, DT_INT64, "ERROR");
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({3, 2})));
  AddIndices(TensorShape({2, 2, 2}), {0, 0, 1, 1, 2, -1, 0, 0}, DT_INT64);
  ExpectInvalid("indices[1,0] = [2, -1] does not index into param shape [3,2]");
  // Tuples are checked while gathering, shard by shard: the message still
  // names the first bad one.
  Make(DT_FLOAT, DT_INT32);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({4, 64})));
  std::vector<int64_t> many(40000, 3);
  many[39000] = 4;
  many[21000] = -7;
  AddIndices(TensorShape({40000, 1}), many, DT_INT32);
  ExpectInvalid("indices[21000] = [-7] does not index into param shape [4,64]");
}

TEST_F(GatherNdOpTest, RejectsBadShapesAndPolicy) {
  Make(DT_FLOAT, DT_INT32);
  AddInputFromArray<float>(TensorShape({}), {1});
  AddIndices(TensorShape({1}), {0}, DT_INT32);
  ExpectInvalid("params must be at least a vector");
  Make(DT_FLOAT, DT_INT32);
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddIndices(TensorShape({}), {0}, DT_INT32);
  ExpectInvalid("indices must be at least a vector");
  Make(DT_FLOAT, DT_INT32);
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddIndices(TensorShape({1, 2}), {0, 0}, DT_INT32);
  ExpectInvalid(
      "index innermost dimension length must be <= params rank; saw: 2 vs. 1");
  Make(DT_FLOAT, DT_INT32);
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({0, 2})));
  AddIndices(TensorShape({1, 1}), {0}, DT_INT32);
  ExpectInvalid(
      "Requested more than 0 entries, but params is empty.  Params shape: "
      "[0,2]");
  MakeNode("GatherNd")
      .Input(DT_FLOAT)
      .Input(DT_INT32)
      .Attr("bad_indices_policy", "SOMETIMES");
  EXPECT_THAT(MakeOp(),
              ::minflow::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  ::testing::HasSubstr(
                      "Unknown bad indices handling attribute: SOMETIMES")));
}

}  // namespace
}  // namespace minflow
