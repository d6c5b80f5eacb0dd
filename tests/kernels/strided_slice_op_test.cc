#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

struct Spec {
  std::vector<int64_t> begin, end, strides;
  int32_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0,
          shrink_axis_mask = 0;
};

std::string SpecString(const Spec& s) {
  return ::testing::PrintToString(s.begin) + " " +
         ::testing::PrintToString(s.end) + " " +
         ::testing::PrintToString(s.strides) + " masks b" +
         std::to_string(s.begin_mask) + " e" + std::to_string(s.end_mask) +
         " ell" + std::to_string(s.ellipsis_mask) + " new" +
         std::to_string(s.new_axis_mask) + " shrink" +
         std::to_string(s.shrink_axis_mask);
}

// numpy's basic indexing, written from its definition rather than from
// TF's dense-spec construction: each entry of the spec is an ellipsis, a
// new axis, an index (shrink) or a slice (python's slice.indices()).
// Returns false where TF reports an error.
bool ReferenceStridedSlice(const TensorShape& in, const Spec& spec,
                           TensorShape* out, std::vector<int64_t>* src) {
  const int n = static_cast<int>(spec.strides.size());
  auto bit = [](int32_t mask, int i) { return ((mask >> i) & 1) != 0; };
  if (spec.ellipsis_mask & (spec.ellipsis_mask - 1)) return false;
  int consumed = 0;
  bool has_ellipsis = false;
  for (int i = 0; i < n; ++i) {
    if (bit(spec.ellipsis_mask, i)) {
      has_ellipsis = true;
    } else if (!bit(spec.new_axis_mask, i)) {
      ++consumed;
    }
  }
  if (consumed > in.dims()) return false;
  // Per input dim: start, step, count; per output dim: the input dim it
  // walks (-1 for a new axis).
  std::vector<int64_t> start(in.dims(), 0), step(in.dims(), 1),
      count(in.dims(), 0);
  std::vector<int> out_from;
  int d = 0;
  auto full = [&](int dim) {
    start[dim] = 0;
    step[dim] = 1;
    count[dim] = in.dim_size(dim);
    out_from.push_back(dim);
  };
  for (int i = 0; i < n; ++i) {
    if (bit(spec.ellipsis_mask, i)) {
      for (int k = 0; k < in.dims() - consumed; ++k) full(d++);
      continue;
    }
    if (bit(spec.new_axis_mask, i)) {
      out_from.push_back(-1);
      continue;
    }
    const int64_t dim = in.dim_size(d);
    const int64_t st = spec.strides[i];
    if (st == 0) return false;
    if (bit(spec.shrink_axis_mask, i)) {
      if (st < 0) return false;
      int64_t b = spec.begin[i];
      if (b < 0) b += dim;
      if (b < 0 || b >= dim) return false;
      start[d] = b;
      step[d] = 1;
      count[d] = 1;
      ++d;
      continue;
    }
    const int64_t lower = st > 0 ? 0 : -1;
    const int64_t upper = st > 0 ? dim : dim - 1;
    auto resolve = [&](int64_t v, bool masked, bool is_begin) {
      if (masked) return (is_begin == (st > 0)) ? lower : upper;
      if (v < 0) v += dim;
      return std::min(std::max(v, lower), upper);
    };
    const int64_t b = resolve(spec.begin[i], bit(spec.begin_mask, i), true);
    const int64_t e = resolve(spec.end[i], bit(spec.end_mask, i), false);
    int64_t c = 0;
    if (st > 0 && e > b) c = (e - b + st - 1) / st;
    if (st < 0 && b > e) c = (b - e + (-st) - 1) / (-st);
    start[d] = b;
    step[d] = st;
    count[d] = c;
    out_from.push_back(d);
    ++d;
  }
  if (!has_ellipsis) {
    while (d < in.dims()) full(d++);
  }
  if (static_cast<int>(out_from.size()) > kMaxTensorRank) return false;
  std::vector<int64_t> out_dims;
  for (int from : out_from) out_dims.push_back(from < 0 ? 1 : count[from]);
  *out = TensorShape(out_dims);
  // Shrunk dims contribute their fixed start.
  const auto strides = test::Strides(in);
  int64_t base = 0;
  std::vector<bool> walked(in.dims(), false);
  for (int from : out_from) {
    if (from >= 0) walked[from] = true;
  }
  for (int k = 0; k < in.dims(); ++k) {
    if (!walked[k]) base += start[k] * strides[k];
  }
  src->clear();
  for (int64_t e = 0; e < out->num_elements(); ++e) {
    const auto idx = test::Unravel(e, *out);
    int64_t s = base;
    for (size_t o = 0; o < out_from.size(); ++o) {
      const int from = out_from[o];
      if (from >= 0) s += (start[from] + idx[o] * step[from]) * strides[from];
    }
    src->push_back(s);
  }
  return true;
}

class StridedSliceOpTest : public test::ArrayOpTest {
 protected:
  void Make(DataType dtype, const TensorShape& in, const Spec& spec,
            DataType index = DT_INT32) {
    MakeNode("StridedSlice")
        .Input(dtype)
        .Input(index)
        .Input(index)
        .Input(index)
        .Attr("begin_mask", spec.begin_mask)
        .Attr("end_mask", spec.end_mask)
        .Attr("ellipsis_mask", spec.ellipsis_mask)
        .Attr("new_axis_mask", spec.new_axis_mask)
        .Attr("shrink_axis_mask", spec.shrink_axis_mask);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(dtype, in));
    for (const auto* v : {&spec.begin, &spec.end, &spec.strides}) {
      const TensorShape shape({static_cast<int64_t>(v->size())});
      switch (index) {
        case DT_INT16:
          AddInputFromArray<int16_t>(
              shape, std::vector<int16_t>(v->begin(), v->end()));
          break;
        case DT_INT32:
          AddInputFromArray<int32_t>(
              shape, std::vector<int32_t>(v->begin(), v->end()));
          break;
        default:
          AddInputFromArray<int64_t>(shape, *v);
      }
    }
  }

  // Runs and compares with the reference, including whether it fails.
  void Check(DataType dtype, const TensorShape& in, const Spec& spec,
             DataType index = DT_INT32) {
    SCOPED_TRACE(DataTypeString(dtype) + " " + in.DebugString() + " " +
                 SpecString(spec));
    Make(dtype, in, spec, index);
    TensorShape out;
    std::vector<int64_t> src;
    if (!ReferenceStridedSlice(in, spec, &out, &src)) {
      ExpectRunError(absl::StatusCode::kInvalidArgument, "");
      return;
    }
    RunAndCheckShapes();
    test::ExpectEqual(*GetOutput(0),
                      test::GatherReference(GetInput(0), out, src));
  }
};

Spec Range(std::vector<int64_t> b, std::vector<int64_t> e,
           std::vector<int64_t> s) {
  Spec spec;
  spec.begin = std::move(b);
  spec.end = std::move(e);
  spec.strides = std::move(s);
  return spec;
}

TEST_F(StridedSliceOpTest, RangesWithPositiveAndNegativeStrides) {
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, TensorShape({5, 6}), Range({1, 0}, {4, 6}, {1, 2}));
    Check(dtype, TensorShape({5, 6}), Range({4, 5}, {0, -7}, {-1, -2}),
          DT_INT64);
    Check(dtype, TensorShape({5, 6, 3}),
          Range({-1, -2, 0}, {-6, 1, 3}, {-2, -3, 1}));
  }
}

TEST_F(StridedSliceOpTest, OutOfRangeBoundsClampAndEmptyRanges) {
  Check(DT_FLOAT, TensorShape({5}), Range({-100}, {100}, {1}));
  Check(DT_FLOAT, TensorShape({5}), Range({100}, {-100}, {-2}));
  Check(DT_FLOAT, TensorShape({5}), Range({3}, {1}, {1}));   // empty
  Check(DT_FLOAT, TensorShape({5}), Range({1}, {3}, {-1}));  // empty
  Check(DT_FLOAT, TensorShape({0, 3}), Range({0, 0}, {2, 3}, {1, 1}));
}

TEST_F(StridedSliceOpTest, BeginAndEndMasks) {
  Spec s = Range({3, 3}, {1, 1}, {-1, 1});
  s.begin_mask = 1;  // dim 0 from the end (negative stride)
  s.end_mask = 3;    // both to their far end
  Check(DT_FLOAT, TensorShape({4, 5}), s);
  s = Range({0, 2}, {0, 0}, {1, -1});
  s.end_mask = 2;
  Check(DT_INT32, TensorShape({4, 5}), s, DT_INT16);
}

TEST_F(StridedSliceOpTest, ShrinkAxis) {
  Spec s = Range({1, -1}, {2, 0}, {1, 1});
  s.shrink_axis_mask = 3;  // foo[1, -1]: a scalar
  Check(DT_FLOAT, TensorShape({3, 4}), s);
  s = Range({-2, 0}, {0, 4}, {1, 2});
  s.shrink_axis_mask = 1;
  Check(DT_STRING, TensorShape({3, 4}), s);
}

TEST_F(StridedSliceOpTest, NewAxisAndEllipsis) {
  // foo[..., newaxis, 1:3]
  Spec s = Range({0, 0, 1}, {0, 0, 3}, {1, 1, 1});
  s.ellipsis_mask = 1;
  s.new_axis_mask = 2;
  Check(DT_FLOAT, TensorShape({2, 3, 4}), s);
  // foo[newaxis, ..., 2]
  s = Range({0, 0, 2}, {0, 0, 3}, {1, 1, 1});
  s.new_axis_mask = 1;
  s.ellipsis_mask = 2;
  s.shrink_axis_mask = 4;
  Check(DT_INT64, TensorShape({2, 3, 4}), s);
  // foo[1, ..., newaxis] on a rank-4 tensor
  s = Range({1, 0, 0}, {2, 0, 0}, {1, 1, 1});
  s.shrink_axis_mask = 1;
  s.ellipsis_mask = 2;
  s.new_axis_mask = 4;
  Check(DT_HALF, TensorShape({2, 3, 4, 5}), s);
  // An ellipsis covering no dim, and a lone new axis on a scalar.
  s = Range({0, 0, 0}, {1, 2, 0}, {1, 1, 1});
  s.ellipsis_mask = 4;
  Check(DT_FLOAT, TensorShape({2, 3}), s);
  s = Range({0}, {0}, {1});
  s.new_axis_mask = 1;
  Check(DT_FLOAT, TensorShape({}), s);
}

TEST_F(StridedSliceOpTest, IdentityAndAlignedDim0ShareTheBuffer) {
  Spec s = Range({0, 0}, {0, 0}, {1, 1});
  s.begin_mask = s.end_mask = 3;
  Check(DT_FLOAT, TensorShape({4, 16}), s);
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  Check(DT_FLOAT, TensorShape({8, 16}), Range({2}, {6}, {1}));
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
  // foo[3] of rows of 16 floats: shrinks dim 0, still one aligned run.
  s = Range({3}, {4}, {1});
  s.shrink_axis_mask = 1;
  Check(DT_FLOAT, TensorShape({8, 16}), s);
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
}

TEST_F(StridedSliceOpTest, HighRankAndLarge) {
  // Ten dims: past the eight TF's kernel handles.
  TensorShape ten(std::vector<int64_t>(10, 2));
  Spec s = Range(std::vector<int64_t>(10, 1), std::vector<int64_t>(10, -3),
                 std::vector<int64_t>(10, -1));
  Check(DT_INT8, ten, s);
  Check(DT_FLOAT, TensorShape({512, 512}), Range({1, 511}, {511, 0}, {1, -1}));
  Check(DT_FLOAT, TensorShape({256, 1024}), Range({0, 1}, {256, 1024}, {2, 3}));
}

TEST_F(StridedSliceOpTest, MatchesTheReferenceOnRandomSpecs) {
  std::mt19937 rng(1234);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  int ran = 0;
  for (int iter = 0; iter < 600; ++iter) {
    const int rank = pick(0, 4);
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(pick(0, 5));
    const int n = pick(0, 5);
    Spec s;
    for (int i = 0; i < n; ++i) {
      s.begin.push_back(pick(-7, 7));
      s.end.push_back(pick(-7, 7));
      int st = pick(-3, 3);
      if (st == 0 && pick(0, 9) != 0) st = 1;  // keep a few zero strides
      s.strides.push_back(st);
    }
    const int32_t all = (1 << n) - 1;
    s.begin_mask = pick(0, all);
    s.end_mask = pick(0, all);
    s.new_axis_mask = pick(0, 3) == 0 ? pick(0, all) : 0;
    s.shrink_axis_mask = pick(0, 2) == 0 ? pick(0, all) : 0;
    s.ellipsis_mask = n > 0 && pick(0, 2) == 0 ? (1 << pick(0, n - 1)) : 0;
    if (pick(0, 30) == 0) s.ellipsis_mask = all;  // often several
    Check(DT_INT32, TensorShape(dims), s);
    if (HasFatalFailure()) return;
    ++ran;
  }
  EXPECT_EQ(ran, 600);
}

TEST_F(StridedSliceOpTest, RejectsMismatchedIndexTensors) {
  Spec s = Range({0, 0}, {1}, {1, 1});
  Make(DT_FLOAT, TensorShape({3, 3}), s);
  ExpectInvalid(
      "Expected begin, end, and strides to be 1D equal size tensors, but got "
      "shapes [2], [1], and [2] instead.");
}

TEST_F(StridedSliceOpTest, RejectsThirtyTwoIndices) {
  Spec s = Range(std::vector<int64_t>(32, 0), std::vector<int64_t>(32, 1),
                 std::vector<int64_t>(32, 1));
  Make(DT_FLOAT, TensorShape(std::vector<int64_t>(32, 1)), s);
  ExpectInvalid("Expected begin, end, and strides to be 1D equal size tensors");
}

TEST_F(StridedSliceOpTest, RejectsMultipleEllipses) {
  Spec s = Range({0, 0}, {0, 0}, {1, 1});
  s.ellipsis_mask = 3;
  Make(DT_FLOAT, TensorShape({3, 3}), s);
  ExpectInvalid("Multiple ellipses in slice spec not allowed");
}

TEST_F(StridedSliceOpTest, RejectsZeroStride) {
  Make(DT_FLOAT, TensorShape({3, 3}), Range({0, 0}, {1, 1}, {1, 0}));
  ExpectInvalid("strides[1] must be non-zero");
}

TEST_F(StridedSliceOpTest, RejectsShrinkOutOfBounds) {
  Spec s = Range({5}, {6}, {1});
  s.shrink_axis_mask = 1;
  Make(DT_FLOAT, TensorShape({3}), s);
  ExpectInvalid("slice index 5 of dimension 0 out of bounds.");
  s = Range({-4}, {0}, {1});
  s.shrink_axis_mask = 1;
  Make(DT_FLOAT, TensorShape({3}), s);
  ExpectInvalid("slice index -4 of dimension 0 out of bounds.");
}

TEST_F(StridedSliceOpTest, RejectsShrinkWithNegativeStride) {
  Spec s = Range({1}, {0}, {-1});
  s.shrink_axis_mask = 1;
  Make(DT_FLOAT, TensorShape({3}), s);
  ExpectInvalid("only stride 1 allowed on non-range indexing.");
}

TEST_F(StridedSliceOpTest, RejectsSlicingAScalar) {
  Make(DT_FLOAT, TensorShape({}), Range({0}, {1}, {1}));
  ExpectInvalid("Attempting to slice scalar input.");
}

TEST_F(StridedSliceOpTest, RejectsMoreIndicesThanDims) {
  Make(DT_FLOAT, TensorShape({3, 3}), Range({0, 0, 0}, {1, 1, 1}, {1, 1, 1}));
  ExpectInvalid("Index out of range using input dim 2; input has only 2 dims");
}

// StridedSliceGrad against the same reference: zeros of the input's shape
// with dy[j] at the element the slice read for output j.
class StridedSliceGradOpTest : public test::ArrayOpTest {
 protected:
  template <typename I>
  void AddIndex(const std::vector<int64_t>& v) {
    AddInputFromArray<I>(TensorShape({static_cast<int64_t>(v.size())}),
                         std::vector<I>(v.begin(), v.end()));
  }

  void Make(DataType dtype, const std::vector<int64_t>& shape,
            const TensorShape& dy, const Spec& spec,
            DataType index = DT_INT32) {
    MakeNode("StridedSliceGrad")
        .Input(index)
        .Input(index)
        .Input(index)
        .Input(index)
        .Input(dtype)
        .Attr("begin_mask", spec.begin_mask)
        .Attr("end_mask", spec.end_mask)
        .Attr("ellipsis_mask", spec.ellipsis_mask)
        .Attr("new_axis_mask", spec.new_axis_mask)
        .Attr("shrink_axis_mask", spec.shrink_axis_mask);
    MF_ASSERT_OK(MakeOp());
    for (const auto* v : {&shape, &spec.begin, &spec.end, &spec.strides}) {
      if (index == DT_INT32) {
        AddIndex<int32_t>(*v);
      } else {
        AddIndex<int64_t>(*v);
      }
    }
    AddInputTensor(test::MakeTestTensor(dtype, dy, 1));
  }

  void Check(DataType dtype, const TensorShape& in, const Spec& spec,
             DataType index = DT_INT32) {
    SCOPED_TRACE(DataTypeString(dtype) + " " + in.DebugString() + " " +
                 SpecString(spec));
    TensorShape out;
    std::vector<int64_t> src;
    const bool valid = ReferenceStridedSlice(in, spec, &out, &src);
    const auto dims = in.dim_sizes();
    Make(dtype, std::vector<int64_t>(dims.begin(), dims.end()),
         valid ? out : TensorShape({1}), spec, index);
    if (!valid) {
      ExpectRunError(absl::StatusCode::kInvalidArgument, "");
      return;
    }
    RunAndCheckShapes();
    // Element e of the result reads dy[j] where src[j] == e, else zero.
    std::vector<int64_t> from(in.num_elements(), -1);
    for (size_t j = 0; j < src.size(); ++j) {
      EXPECT_EQ(from[src[j]], -1) << "element " << src[j] << " read twice";
      from[src[j]] = static_cast<int64_t>(j);
    }
    Tensor zero(dtype, TensorShape({}));
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      zero.base<T>()[0] = T();
    });
    test::ExpectEqual(*GetOutput(0),
                      test::GatherReference(GetInput(4), in, from, &zero));
  }
};

TEST_F(StridedSliceGradOpTest, EveryElementSizeAndIndexType) {
  Spec s = Range({3, 0, 1}, {0, 0, 0}, {-2, 2, 1});
  s.end_mask = 6;
  for (DataType dtype : test::MovementTypes()) {
    Check(dtype, TensorShape({4, 5, 3}), s);
  }
  Check(DT_DOUBLE, TensorShape({4, 5, 3}), s, DT_INT64);
}

TEST_F(StridedSliceGradOpTest, MasksShrinkAndEmpty) {
  Spec s = Range({0, 1, 0, 0}, {0, 2, 0, 2}, {1, 1, 1, 1});
  s.new_axis_mask = 1;
  s.shrink_axis_mask = 2;
  s.ellipsis_mask = 4;
  s.begin_mask = 8;
  Check(DT_FLOAT, TensorShape({3, 2, 4}), s);
  Check(DT_FLOAT, TensorShape({3, 4}), Range({2}, {1}, {1}));  // empty dy
  Check(DT_FLOAT, TensorShape({0, 4}), Range({0}, {2}, {1}));  // empty input
  Check(DT_FLOAT, TensorShape({}), Range({}, {}, {}));         // scalar
}

TEST_F(StridedSliceGradOpTest, MatchesTheReferenceOnRandomSpecs) {
  std::mt19937 rng(4321);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (int iter = 0; iter < 300; ++iter) {
    const int rank = pick(0, 4);
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(pick(0, 5));
    const int n = pick(0, rank);
    Spec s;
    for (int i = 0; i < n; ++i) {
      s.begin.push_back(pick(-7, 7));
      s.end.push_back(pick(-7, 7));
      int st = pick(-3, 3);
      if (st == 0) st = 1;
      s.strides.push_back(st);
    }
    const int32_t all = (1 << n) - 1;
    s.begin_mask = pick(0, all);
    s.end_mask = pick(0, all);
    s.new_axis_mask = pick(0, 3) == 0 ? pick(0, all) : 0;
    s.shrink_axis_mask = pick(0, 2) == 0 ? pick(0, all) : 0;
    s.ellipsis_mask = n > 0 && pick(0, 2) == 0 ? (1 << pick(0, n - 1)) : 0;
    Check(DT_INT32, TensorShape(dims), s);
    if (HasFatalFailure()) return;
  }
}

TEST_F(StridedSliceGradOpTest, RejectsDyOfTheWrongShape) {
  Make(DT_FLOAT, {4, 3}, TensorShape({2, 2}), Range({0}, {2}, {1}));
  ExpectInvalid("shape of dy was [2,2] instead of [2,3]");
}

TEST_F(StridedSliceGradOpTest, RejectsABadShapeInput) {
  MakeNode("StridedSliceGrad")
      .Input(DT_INT32)
      .Input(DT_INT32)
      .Input(DT_INT32)
      .Input(DT_INT32)
      .Input(DT_FLOAT);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<int32_t>(TensorShape({1, 1}), {3});
  AddIndex<int32_t>({0});
  AddIndex<int32_t>({1});
  AddIndex<int32_t>({1});
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({1})));
  ExpectInvalid(
      "StridedSliceGrad: shape must be a vector, but got shape [1,1]");
  Make(DT_FLOAT, {3, -2}, TensorShape({1}), Range({0}, {1}, {1}));
  ExpectInvalid(
      "StridedSliceGrad: shape must not be negative, but got -2 in dimension "
      "1");
}

// The forward's validation, shared: its messages come through.
TEST_F(StridedSliceGradOpTest, RejectsWhatTheForwardRejects) {
  Make(DT_FLOAT, {3, 3}, TensorShape({1}), Range({0, 0}, {1, 1}, {1, 0}));
  ExpectInvalid("strides[1] must be non-zero");
  Make(DT_FLOAT, {3, 3}, TensorShape({1}), Range({0, 0}, {1}, {1, 1}));
  ExpectInvalid("Expected begin, end, and strides to be 1D equal size tensors");
}

}  // namespace
}  // namespace minflow
