#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

enum class Kind { kSum, kMax, kMin };

const char* UnsortedName(Kind k) {
  switch (k) {
    case Kind::kSum:
      return "UnsortedSegmentSum";
    case Kind::kMax:
      return "UnsortedSegmentMax";
    case Kind::kMin:
      return "UnsortedSegmentMin";
  }
  return "";
}

// Data with row-distinct values as doubles (exact in every tested dtype,
// non-negative for unsigned ones).
template <typename T>
std::vector<double> DataValues(int64_t n) {
  const double shift = std::is_unsigned<T>::value ? 0 : 4;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) {
    v[i] = static_cast<double>((i * 7) % 11) - shift;
  }
  return v;
}

// NaN stands for `empty`.
template <typename T>
Tensor FromDoubles(const TensorShape& shape, const std::vector<double>& v,
                   T empty = T(0)) {
  std::vector<T> t;
  for (double x : v) t.push_back(std::isnan(x) ? empty : static_cast<T>(x));
  return test::AsTensor<T>(t, shape);
}

// The reference, in double; empty Max/Min segments are NaN.
std::vector<double> Reference(Kind k, const std::vector<double>& data,
                              const std::vector<int64_t>& ids, int64_t rows,
                              int64_t inner) {
  std::vector<double> out(rows * inner, k == Kind::kSum ? 0.0 : NAN);
  std::vector<bool> seen(rows, false);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0) continue;
    for (int64_t c = 0; c < inner; ++c) {
      double& o = out[ids[i] * inner + c];
      const double x = data[i * inner + c];
      if (k == Kind::kSum) {
        o += x;
      } else if (!seen[ids[i]]) {
        o = x;
      } else {
        o = k == Kind::kMax ? std::max(o, x) : std::min(o, x);
      }
    }
    seen[ids[i]] = true;
  }
  return out;
}

class SegmentReductionOpsTest : public test::ArrayOpTest {
 protected:
  template <typename T>
  void CheckUnsorted(Kind k, const TensorShape& data_shape,
                     const TensorShape& ids_shape,
                     const std::vector<int64_t>& ids, int64_t rows,
                     DataType tindices = DT_INT32, DataType tnum = DT_INT32) {
    const DataType dtype = DataTypeToEnum<T>::v();
    SCOPED_TRACE(::testing::Message()
                 << UnsortedName(k) << " " << DataTypeString(dtype) << " data "
                 << data_shape.DebugString());
    MakeNode(UnsortedName(k)).Input(dtype).Input(tindices).Input(tnum);
    MF_ASSERT_OK(MakeOp());
    const std::vector<double> data = DataValues<T>(data_shape.num_elements());
    AddInputTensor(FromDoubles<T>(data_shape, data));
    AddIds(ids_shape, ids, tindices);
    if (tnum == DT_INT32) {
      AddInputFromArray<int32_t>(TensorShape({}), {static_cast<int32_t>(rows)});
    } else {
      AddInputFromArray<int64_t>(TensorShape({}), {rows});
    }
    RunAndCheckShapes();
    std::vector<int64_t> dims = {rows};
    int64_t inner = 1;
    for (int d = ids_shape.dims(); d < data_shape.dims(); ++d) {
      dims.push_back(data_shape.dim_size(d));
      inner *= data_shape.dim_size(d);
    }
    const T empty = k == Kind::kMax ? Eigen::NumTraits<T>::lowest()
                                    : Eigen::NumTraits<T>::highest();
    test::ExpectEqual(
        *GetOutput(0),
        FromDoubles<T>(TensorShape(dims), Reference(k, data, ids, rows, inner),
                       empty));
  }

  template <typename T>
  void CheckSorted(const TensorShape& data_shape,
                   const std::vector<int64_t>& ids,
                   DataType tindices = DT_INT32) {
    SCOPED_TRACE(data_shape.DebugString());
    MakeNode("SegmentSum").Input(DataTypeToEnum<T>::v()).Input(tindices);
    MF_ASSERT_OK(MakeOp());
    const std::vector<double> data = DataValues<T>(data_shape.num_elements());
    AddInputTensor(FromDoubles<T>(data_shape, data));
    AddIds(TensorShape({static_cast<int64_t>(ids.size())}), ids, tindices);
    RunAndCheckShapes();
    const int64_t rows = ids.empty() ? 0 : ids.back() + 1;
    TensorShape out_shape = data_shape;
    out_shape.set_dim(0, rows);
    const int64_t inner = rows == 0 ? 0 : out_shape.num_elements() / rows;
    test::ExpectEqual(*GetOutput(0),
                      FromDoubles<T>(out_shape, Reference(Kind::kSum, data, ids,
                                                          rows, inner)));
  }

  void AddIds(const TensorShape& shape, const std::vector<int64_t>& ids,
              DataType t) {
    if (t == DT_INT32) {
      AddInputFromArray<int32_t>(shape,
                                 std::vector<int32_t>(ids.begin(), ids.end()));
    } else {
      AddInputFromArray<int64_t>(shape, ids);
    }
  }

  void MakeUnsorted(Kind k, DataType dtype = DT_FLOAT) {
    MakeNode(UnsortedName(k)).Input(dtype).Input(DT_INT32).Input(DT_INT32);
    MF_ASSERT_OK(MakeOp());
  }
};

TEST_F(SegmentReductionOpsTest, UnsortedReducesRowsOfEveryKind) {
  for (Kind k : {Kind::kSum, Kind::kMax, Kind::kMin}) {
    // TensorFlow's documented example for the sum: rows 0 and 2 add up.
    CheckUnsorted<float>(k, TensorShape({3, 4}), TensorShape({3}), {0, 1, 0},
                         2);
    // Segment 1 and 4 stay empty; a negative id drops its row.
    CheckUnsorted<int32_t>(k, TensorShape({6, 2, 3}), TensorShape({6}),
                           {3, 0, -1, 3, 2, 0}, 5, DT_INT64);
    // Multi-dimensional ids cover the leading data dims.
    CheckUnsorted<double>(k, TensorShape({2, 3, 2}), TensorShape({2, 3}),
                          {1, 0, 1, 2, 2, 0}, 3, DT_INT32, DT_INT64);
    CheckUnsorted<int64_t>(k, TensorShape({4}), TensorShape({4}), {1, 1, 1, 1},
                           2);
    CheckUnsorted<uint8_t>(k, TensorShape({4, 2}), TensorShape({4}),
                           {1, 0, 1, 0}, 2);
    CheckUnsorted<Eigen::half>(k, TensorShape({4, 2}), TensorShape({4}),
                               {1, 0, 1, 0}, 3);
  }
}

TEST_F(SegmentReductionOpsTest, UnsortedEmptyInputs) {
  for (Kind k : {Kind::kSum, Kind::kMax, Kind::kMin}) {
    CheckUnsorted<float>(k, TensorShape({0, 3}), TensorShape({0}), {}, 4);
    CheckUnsorted<float>(k, TensorShape({3, 0}), TensorShape({3}), {0, 1, 2},
                         3);
    CheckUnsorted<float>(k, TensorShape({3, 2}), TensorShape({3}), {-1, -1, -1},
                         0);
  }
}

TEST_F(SegmentReductionOpsTest, UnsortedIntegerSumWraps) {
  MakeUnsorted(Kind::kSum, DT_INT32);
  AddInputFromArray<int32_t>(TensorShape({2}),
                             {std::numeric_limits<int32_t>::max(), 1});
  AddInputFromArray<int32_t>(TensorShape({2}), {0, 0});
  AddInputFromArray<int32_t>(TensorShape({}), {1});
  RunAndCheckShapes();
  test::ExpectTensorEqual<int32_t>(
      *GetOutput(0),
      test::AsTensor<int32_t>({std::numeric_limits<int32_t>::min()}));
}

TEST_F(SegmentReductionOpsTest, UnsortedRejectsOutOfRangeIds) {
  MakeUnsorted(Kind::kSum);
  AddInputFromArray<float>(TensorShape({5}), {1, 2, 3, 4, 5});
  AddInputFromArray<int32_t>(TensorShape({5}), {0, 1, 2, 7, 4});
  AddInputFromArray<int32_t>(TensorShape({}), {5});
  ExpectInvalid("segment_ids[3] = 7 is out of range [0, 5)");
  MakeUnsorted(Kind::kMax);
  AddInputFromArray<float>(TensorShape({2, 2}), {1, 2, 3, 4});
  AddInputFromArray<int32_t>(TensorShape({2, 2}), {0, 1, 2, 3});
  AddInputFromArray<int32_t>(TensorShape({}), {3});
  ExpectInvalid("segment_ids[1,1] = 3 is out of range [0, 3)");
}

TEST_F(SegmentReductionOpsTest, UnsortedRejectsBadShapes) {
  MakeUnsorted(Kind::kMin);
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddInputFromArray<int32_t>(TensorShape({2}), {0, 1});
  AddInputFromArray<int32_t>(TensorShape({1}), {2});
  ExpectInvalid("num_segments should be a scalar, not shape [1]");
  MakeUnsorted(Kind::kMin);
  AddInputFromArray<float>(TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  AddInputFromArray<int32_t>(TensorShape({3}), {0, 1, 1});
  AddInputFromArray<int32_t>(TensorShape({}), {2});
  ExpectInvalid(
      "data.shape = [2,3] does not start with segment_ids.shape = [3]");
  MakeUnsorted(Kind::kSum);
  AddInputFromArray<float>(TensorShape({2}), {1, 2});
  AddInputFromArray<int32_t>(TensorShape({2}), {0, 1});
  AddInputFromArray<int32_t>(TensorShape({}), {-2});
  ExpectInvalid("Input num_segments == -2 must not be negative.");
}

TEST_F(SegmentReductionOpsTest, UnsortedRejectsAnOverflowingOutputShape) {
  MakeNode("UnsortedSegmentSum")
      .Input(DT_FLOAT)
      .Input(DT_INT32)
      .Input(DT_INT64);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({1, 4}), {1, 2, 3, 4});
  AddInputFromArray<int32_t>(TensorShape({1}), {0});
  AddInputFromArray<int64_t>(TensorShape({}),
                             {std::numeric_limits<int64_t>::max()});
  ExpectInvalid("overflows int64");
}

TEST_F(SegmentReductionOpsTest, SegmentSumAddsSortedRuns) {
  // TensorFlow's documented example: c = [[1,2,3,4],[4,3,2,1],[5,6,7,8]],
  // ids [0, 0, 1] -> [[5,5,5,5],[5,6,7,8]].
  MakeNode("SegmentSum").Input(DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({3, 4}),
                           {1, 2, 3, 4, 4, 3, 2, 1, 5, 6, 7, 8});
  AddInputFromArray<int32_t>(TensorShape({3}), {0, 0, 1});
  RunAndCheckShapes();
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({5, 5, 5, 5, 5, 6, 7, 8}, TensorShape({2, 4})));
  // Skipped ids leave zero rows.
  CheckSorted<float>(TensorShape({4, 2}), {1, 1, 3, 3});
  CheckSorted<int32_t>(TensorShape({5}), {0, 2, 2, 2, 4}, DT_INT64);
  CheckSorted<double>(TensorShape({3, 2, 2}), {0, 1, 2});
  CheckSorted<int8_t>(TensorShape({3, 2}), {0, 0, 0});
  CheckSorted<Eigen::bfloat16>(TensorShape({3, 2}), {1, 1, 2});
  // Empty inputs.
  CheckSorted<float>(TensorShape({0, 3}), {});
  CheckSorted<float>(TensorShape({2, 0}), {0, 4});
}

TEST_F(SegmentReductionOpsTest, SegmentSumRejectsBadIds) {
  auto make = [&] {
    MakeNode("SegmentSum").Input(DT_FLOAT).Input(DT_INT32);
    MF_ASSERT_OK(MakeOp());
  };
  make();
  AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
  AddInputFromArray<int32_t>(TensorShape({3}), {0, 2, 1});
  ExpectInvalid("segment ids are not increasing: segment_ids[2] = 1 follows 2");
  make();
  AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
  AddInputFromArray<int32_t>(TensorShape({3}), {-1, 0, 1});
  ExpectInvalid("segment ids must be >= 0, but got segment_ids[0] = -1");
  make();
  AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
  AddInputFromArray<int32_t>(TensorShape({2}), {0, 1});
  ExpectInvalid("segment_ids should be the same size as dimension 0 of input.");
  make();
  AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
  AddInputFromArray<int32_t>(TensorShape({3, 1}), {0, 1, 1});
  ExpectInvalid("segment_ids should be a vector.");
  make();
  AddInputFromArray<float>(TensorShape({}), {1});
  AddInputFromArray<int32_t>(TensorShape({1}), {0});
  ExpectInvalid("input must be at least rank 1");
}

}  // namespace
}  // namespace minflow
