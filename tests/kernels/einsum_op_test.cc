#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "tests/kernels/nn_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// Reference einsum in double over an equation of letters only (ellipses
// written out as letters by the test): every label ranges over its largest
// size, a size-1 input dim broadcasting; each output element sums the
// products over all labels missing from the output.
template <typename T>
std::vector<double> ReferenceEinsum(const std::string& letters,
                                    const std::vector<Tensor>& ins,
                                    TensorShape* out_shape) {
  const std::vector<std::string> sides = absl::StrSplit(letters, "->");
  const std::vector<std::string> subs = absl::StrSplit(sides[0], ',');
  std::map<char, int64_t> size;
  for (size_t i = 0; i < subs.size(); ++i) {
    for (size_t a = 0; a < subs[i].size(); ++a) {
      size[subs[i][a]] = std::max(size[subs[i][a]], ins[i].dim_size(a));
    }
  }
  // Zero-sized labels win over broadcast 1s.
  for (size_t i = 0; i < subs.size(); ++i) {
    for (size_t a = 0; a < subs[i].size(); ++a) {
      if (ins[i].dim_size(a) == 0) size[subs[i][a]] = 0;
    }
  }
  std::vector<int64_t> out_dims;
  for (char c : sides[1]) out_dims.push_back(size[c]);
  *out_shape = TensorShape(out_dims);
  std::vector<double> out(out_shape->num_elements(), 0.0);
  std::vector<char> all;
  for (const auto& [c, s] : size) all.push_back(c);
  std::map<char, int64_t> idx;
  int64_t total = 1;
  for (char c : all) total *= size[c];
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t rem = flat;
    for (int i = static_cast<int>(all.size()) - 1; i >= 0; --i) {
      idx[all[i]] = rem % size[all[i]];
      rem /= size[all[i]];
    }
    double prod = 1;
    for (size_t i = 0; i < subs.size(); ++i) {
      int64_t off = 0;
      for (size_t a = 0; a < subs[i].size(); ++a) {
        const int64_t d = ins[i].dim_size(a);
        off = off * d + (d == 1 ? 0 : idx[subs[i][a]]);
      }
      prod *= test::ValueAt<T>(ins[i], off);
    }
    int64_t o = 0;
    for (char c : sides[1]) o = o * size[c] + idx[c];
    out[o] += prod;
  }
  return out;
}

class EinsumOpTest : public test::OpsTestBase {
 protected:
  Status Make(const std::string& equation, int n, DataType dtype) {
    MakeNode("Einsum").Input(n, dtype).Attr("equation", equation);
    return MakeOp();
  }

  // `letters`: the same equation with every ellipsis written as letters.
  template <typename T>
  void Check(const std::string& equation, const std::string& letters,
             const std::vector<TensorShape>& shapes) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " " << equation);
    MF_ASSERT_OK(Make(equation, static_cast<int>(shapes.size()),
                      DataTypeToEnum<T>::v()));
    std::vector<Tensor> ins;
    for (size_t i = 0; i < shapes.size(); ++i) {
      ins.push_back(test::RandomTensor<T>(shapes[i], 7 + i));
      AddInputTensor(ins.back());
    }
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(test::PredictedOutputShape(*node_def(), shapes),
              GetOutput(0)->shape().DebugString());
    TensorShape want_shape;
    const std::vector<double> ref =
        ReferenceEinsum<T>(letters, ins, &want_shape);
    int64_t terms = 1;
    for (const TensorShape& s : shapes) terms += s.num_elements();
    test::ExpectNearReference<T>(*GetOutput(0), want_shape, ref,
                                 test::SumTolerance<T>(terms));
  }

  template <typename T>
  void Sweep() {
    struct Case {
      std::string equation, letters;
      std::vector<TensorShape> shapes;
    };
    const Case cases[] = {
        {"ij,jk->ik", "ij,jk->ik", {TensorShape({3, 4}), TensorShape({4, 5})}},
        {"ij,kj->ik", "ij,kj->ik", {TensorShape({3, 4}), TensorShape({5, 4})}},
        {"ij,jk->ki", "ij,jk->ki", {TensorShape({3, 4}), TensorShape({4, 5})}},
        {"bij,bjk->bik",
         "bij,bjk->bik",
         {TensorShape({2, 3, 4}), TensorShape({2, 4, 5})}},
        {"bij,bkj->bki",
         "bij,bkj->bki",
         {TensorShape({2, 3, 4}), TensorShape({2, 5, 4})}},
        {"bhqd,bhkd->bhqk",
         "bhqd,bhkd->bhqk",
         {TensorShape({2, 3, 4, 5}), TensorShape({2, 3, 6, 5})}},
        {"aij,jk->aik",
         "aij,jk->aik",
         {TensorShape({2, 3, 4}), TensorShape({4, 5})}},
        {"ijk,kl->ijl",
         "ijk,kl->ijl",
         {TensorShape({2, 3, 4}), TensorShape({4, 5})}},
        {"i,i->", "i,i->", {TensorShape({7}), TensorShape({7})}},
        {"i,j->ij", "i,j->ij", {TensorShape({3}), TensorShape({4})}},
        {"ab,cd->", "ab,cd->", {TensorShape({2, 3}), TensorShape({4, 5})}},
        {"abc,cd->da",
         "abc,cd->da",
         {TensorShape({2, 3, 4}), TensorShape({4, 5})}},
        {"iij,jk->ik",
         "iij,jk->ik",
         {TensorShape({3, 3, 4}), TensorShape({4, 2})}},
        {"ij->ji", "ij->ji", {TensorShape({3, 4})}},
        {"ii->i", "ii->i", {TensorShape({4, 4})}},
        {"ii->", "ii->", {TensorShape({4, 4})}},
        {"ij->", "ij->", {TensorShape({3, 4})}},
        {"ijk->kj", "ijk->kj", {TensorShape({2, 3, 4})}},
        {"...ij->...ji", "xyij->xyji", {TensorShape({2, 3, 4, 5})}},
        {"...ij,...jk->...ik",
         "xyij,yjk->xyik",
         {TensorShape({2, 1, 3, 4}), TensorShape({5, 4, 2})}},
        {"...ij,...jk->...ik",
         "ij,xjk->xik",
         {TensorShape({3, 4}), TensorShape({2, 4, 5})}},
        {"...i,...i->...",
         "xi,xi->x",
         {TensorShape({3, 4}), TensorShape({1, 4})}},
        {"...i,...i->i",
         "yi,xyi->i",
         {TensorShape({3, 4}), TensorShape({2, 1, 4})}},
        {"ij...,jk->ik...",
         "ijx,jk->ikx",
         {TensorShape({2, 3, 6}), TensorShape({3, 4})}},
    };
    for (const Case& c : cases) Check<T>(c.equation, c.letters, c.shapes);
  }
};

TEST_F(EinsumOpTest, FloatMatchesReference) { Sweep<float>(); }
TEST_F(EinsumOpTest, DoubleMatchesReference) { Sweep<double>(); }
TEST_F(EinsumOpTest, HalfMatchesReference) { Sweep<half>(); }

TEST_F(EinsumOpTest, DocumentedMatMulExample) {
  MF_ASSERT_OK(Make("ij,jk->ik", 2, DT_FLOAT));
  AddInputFromArray<float>(TensorShape({2, 2}), {1, 2, 3, 4});
  AddInputFromArray<float>(TensorShape({2, 2}), {5, 6, 7, 8});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({19, 22, 43, 50}, TensorShape({2, 2})));
}

TEST_F(EinsumOpTest, ManyAndBigProducts) {
  Check<float>("bij,bjk->bik", "bij,bjk->bik",
               {TensorShape({64, 16, 24}), TensorShape({64, 24, 16})});
  Check<float>("ik,kj->ij", "ik,kj->ij",
               {TensorShape({200, 150}), TensorShape({150, 170})});
  Check<float>("bqhd,bkhd->bhqk", "bqhd,bkhd->bhqk",
               {TensorShape({2, 9, 3, 8}), TensorShape({2, 7, 3, 8})});
}

TEST_F(EinsumOpTest, EmptyContractionGivesZeros) {
  Check<float>("ij,jk->ik", "ij,jk->ik",
               {TensorShape({2, 0}), TensorShape({0, 3})});
}

TEST_F(EinsumOpTest, EmptyOperandsGiveEmptyOutputs) {
  Check<float>("ij,jk->ik", "ij,jk->ik",
               {TensorShape({0, 3}), TensorShape({3, 4})});
  Check<float>("ii->i", "ii->i", {TensorShape({0, 0})});
  Check<float>("...ij,...jk->...ik", "xij,xjk->xik",
               {TensorShape({0, 2, 3}), TensorShape({1, 3, 4})});
}

TEST_F(EinsumOpTest, RejectsBadEquationAtConstruction) {
  EXPECT_THAT(Make("ij,jk", 2, DT_FLOAT),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Expecting exactly one '->'")));
  EXPECT_THAT(Make("ij->ji", 2, DT_FLOAT),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Expected 1 inputs for equation ij->ji but "
                                 "got: 2")));
}

TEST_F(EinsumOpTest, RejectsWrongRank) {
  MF_ASSERT_OK(Make("ij,jk->ik", 2, DT_FLOAT));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 4})));
  EXPECT_THAT(
      RunOpKernel(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("Expected input 0 to have rank 2 but got: 3")));
}

TEST_F(EinsumOpTest, RejectsMismatchedLabelSizes) {
  MF_ASSERT_OK(Make("ij,jk->ik", 2, DT_FLOAT));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({4, 5})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Expected dimension 3 at axis 0 of the input "
                                 "shaped [4,5] but got dimension 4")));
}

TEST_F(EinsumOpTest, RejectsNonSquareDiagonal) {
  MF_ASSERT_OK(Make("ii->i", 1, DT_FLOAT));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Expected dimension 2 at axis 1")));
}

TEST_F(EinsumOpTest, RejectsEllipsisDimsThatDoNotBroadcast) {
  MF_ASSERT_OK(Make("...ij,...jk->...ik", 2, DT_FLOAT));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 3, 4})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({5, 4, 6})));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Expected dimension 2 at axis 0 of the input "
                                 "shaped [5,4,6] but got dimension 5")));
}

TEST_F(EinsumOpTest, RejectsOutputWhoseSizeOverflows) {
  MF_ASSERT_OK(Make("ij,jk->ik", 2, DT_FLOAT));
  const int64_t huge = int64_t{1} << 40;
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({huge, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, huge})));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace minflow
