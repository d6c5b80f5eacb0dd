#include <cstdint>
#include <functional>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

class LogicalReductionTest : public test::ArrayOpTest {
 protected:
  // Reduces a pseudo-random bool tensor (true with probability ~ density)
  // over `axes`, against a reference loop.
  void Check(const char* op, const TensorShape& shape,
             const std::vector<int32_t>& axes, bool keep_dims, int density,
             DataType tidx = DT_INT32) {
    SCOPED_TRACE(::testing::Message() << op << " " << shape.DebugString()
                                      << " keep_dims " << keep_dims);
    const bool is_all = std::string(op) == "All";
    MakeNode(op).Input(DT_BOOL).Input(tidx).Attr("keep_dims", keep_dims);
    MF_ASSERT_OK(MakeOp());
    Tensor data(DT_BOOL, shape);
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      data.flat<bool>()(i) = (i * 7919 + 13) % 100 < density;
    }
    AddInputTensor(data);
    if (tidx == DT_INT32) {
      AddInputFromArray<int32_t>(
          TensorShape({static_cast<int64_t>(axes.size())}), axes);
    } else {
      AddInputFromArray<int64_t>(
          TensorShape({static_cast<int64_t>(axes.size())}),
          std::vector<int64_t>(axes.begin(), axes.end()));
    }
    RunAndCheckShapes();

    std::set<int> reduced;
    for (int32_t a : axes) reduced.insert(a < 0 ? a + shape.dims() : a);
    std::vector<int64_t> out_dims;
    for (int d = 0; d < shape.dims(); ++d) {
      if (!reduced.count(d)) {
        out_dims.push_back(shape.dim_size(d));
      } else if (keep_dims) {
        out_dims.push_back(1);
      }
    }
    const TensorShape out_shape(out_dims);
    std::vector<bool> ref(out_shape.num_elements(), is_all);
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      const auto idx = test::Unravel(i, shape);
      int64_t o = 0;
      for (int d = 0; d < shape.dims(); ++d) {
        if (reduced.count(d)) continue;
        o = o * shape.dim_size(d) + idx[d];
      }
      const bool v = data.flat<bool>()(i);
      ref[o] = is_all ? (ref[o] && v) : (ref[o] || v);
    }
    Tensor expected(DT_BOOL, out_shape);
    for (size_t i = 0; i < ref.size(); ++i) expected.flat<bool>()(i) = ref[i];
    test::ExpectTensorEqual<bool>(*GetOutput(0), expected);
  }
};

TEST_F(LogicalReductionTest, DocumentedExamples) {
  // TensorFlow's: x = [[True, True], [False, False]]; all -> False,
  // all(axis 0) -> [False, False], all(axis 1) -> [True, False]; any ->
  // True, any(axis 0) -> [True, True], any(axis 1) -> [True, False].
  struct Case {
    const char* op;
    std::vector<int32_t> axes;
    std::vector<bool> out;
  };
  for (const Case& c : std::vector<Case>{{"All", {0, 1}, {false}},
                                         {"All", {0}, {false, false}},
                                         {"All", {1}, {true, false}},
                                         {"Any", {0, 1}, {true}},
                                         {"Any", {0}, {true, true}},
                                         {"Any", {1}, {true, false}}}) {
    MakeNode(c.op).Input(DT_BOOL).Input(DT_INT32);
    MF_ASSERT_OK(MakeOp());
    AddInputFromArray<bool>(TensorShape({2, 2}), {true, true, false, false});
    AddInputFromArray<int32_t>(
        TensorShape({static_cast<int64_t>(c.axes.size())}), c.axes);
    RunAndCheckShapes();
    const Tensor* out = GetOutput(0);
    ASSERT_EQ(out->NumElements(), static_cast<int64_t>(c.out.size()));
    for (size_t i = 0; i < c.out.size(); ++i) {
      EXPECT_EQ(out->flat<bool>()(i), c.out[i]) << c.op << " " << i;
    }
  }
}

TEST_F(LogicalReductionTest, AxesKeepDimsAndHighRanks) {
  for (const char* op : {"All", "Any"}) {
    for (bool keep : {false, true}) {
      for (int density : {5, 50, 95}) {
        Check(op, TensorShape({3, 4, 5}), {1}, keep, density);
        Check(op, TensorShape({3, 4, 5}), {0, 2}, keep, density, DT_INT64);
        Check(op, TensorShape({3, 4, 5}), {-1}, keep, density);
        Check(op, TensorShape({2, 3, 2, 3, 2}), {0, 2, 4}, keep, density);
        Check(op, TensorShape({2, 3, 2, 3, 2}), {1, 3}, keep, density);
        Check(op, TensorShape({7}), {0}, keep, density);
      }
    }
  }
}

TEST_F(LogicalReductionTest, EmptyAndNothingReduced) {
  for (const char* op : {"All", "Any"}) {
    Check(op, TensorShape({0, 3}), {0}, false, 50);
    Check(op, TensorShape({3, 0}), {0}, true, 50);
    Check(op, TensorShape({0}), {0}, false, 50);
    Check(op, TensorShape({3, 4}), {}, false, 50);
    Check(op, TensorShape({1, 4}), {0}, false, 50);
  }
}

TEST_F(LogicalReductionTest, RejectsBadAxes) {
  MakeNode("All").Input(DT_BOOL).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<bool>(TensorShape({2}), {true, false});
  AddInputFromArray<int32_t>(TensorShape({1}), {2});
  ExpectInvalid("Invalid reduction dimension (2 for input with 1 dimension(s)");
  MakeNode("Any").Input(DT_BOOL).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<bool>(TensorShape({2, 2}), {true, false, true, true});
  AddInputFromArray<int32_t>(TensorShape({2}), {1, -1});
  ExpectInvalid("Axes contains duplicate dimension: 1");
}

}  // namespace
}  // namespace minflow
