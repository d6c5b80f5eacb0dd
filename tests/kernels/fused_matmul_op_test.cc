// _FusedMatMul against the unfused chain MatMul -> BiasAdd -> activation,
// each run as its own kernel here.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/core/types.h"
#include "tests/kernels/nn_test_util.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;
using Strings = std::vector<std::string>;

class FusedMatMulOpTest : public test::OpsTestBase {
 protected:
  Tensor RunNode(const std::function<void()>& build,
                 const std::vector<Tensor>& inputs) {
    build();
    Status s = MakeOp();
    EXPECT_TRUE(s.ok()) << s;
    ClearInputs();
    for (const Tensor& t : inputs) AddInputTensor(t);
    s = RunOpKernel();
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? *GetOutput(0) : Tensor();
  }

  // `b_is_const`: marked as the constant_filters pass marks a product
  // whose b is a Const (Note [Packed GEMV panels]).
  void MakeFused(const Strings& fused_ops, int num_args, bool ta = false,
                 bool tb = false, float alpha = 0.2f, bool b_is_const = false) {
    auto& node = MakeNode("_FusedMatMul")
                     .Input(DT_FLOAT)
                     .Input(DT_FLOAT)
                     .Input(num_args, DT_FLOAT)
                     .Attr("num_args", num_args)
                     .Attr("transpose_a", ta)
                     .Attr("transpose_b", tb)
                     .Attr("fused_ops", fused_ops)
                     .Attr("leakyrelu_alpha", alpha);
    if (b_is_const) node.Attr("_is_filter_const", true);
  }

  // a is [m, k] (or [k, m] with ta), b [k, n] (or [n, k] with tb).
  void Check(int64_t m, int64_t k, int64_t n, bool ta, bool tb,
             const Strings& fused_ops, float alpha = 0.2f) {
    SCOPED_TRACE(::testing::Message()
                 << absl::StrJoin(fused_ops, ",") << " m=" << m << " k=" << k
                 << " n=" << n << " ta=" << ta << " tb=" << tb);
    const Tensor a = test::RandomTensor<float>(
        ta ? TensorShape({k, m}) : TensorShape({m, k}), 1);
    const Tensor b = test::RandomTensor<float>(
        tb ? TensorShape({n, k}) : TensorShape({k, n}), 2);
    const Tensor bias = test::RandomTensor<float>(TensorShape({n}), 3);
    Tensor expected = RunNode(
        [&] {
          MakeNode("MatMul")
              .Input(DT_FLOAT)
              .Input(DT_FLOAT)
              .Attr("transpose_a", ta)
              .Attr("transpose_b", tb);
        },
        {a, b});
    expected =
        RunNode([&] { MakeNode("BiasAdd").Input(DT_FLOAT).Input(DT_FLOAT); },
                {expected, bias});
    if (fused_ops.size() == 2) {
      expected = RunNode(
          [&] {
            auto& nb = MakeNode(fused_ops[1]).Input(DT_FLOAT);
            if (fused_ops[1] == "LeakyRelu") nb.Attr("alpha", alpha);
          },
          {expected});
    }
    MakeFused(fused_ops, 1, ta, tb, alpha);
    MF_ASSERT_OK(MakeOp());
    ClearInputs();
    AddInputTensor(a);
    AddInputTensor(b);
    AddInputTensor(bias);
    MF_ASSERT_OK(RunOpKernel());
    EXPECT_EQ(test::PredictedOutputShape(*node_def(),
                                         {a.shape(), b.shape(), bias.shape()}),
              GetOutput(0)->shape().DebugString());
    test::ExpectTensorNear<float>(*GetOutput(0), expected, 1e-5, 1e-5);
  }

  static std::vector<Strings> AllFusions() {
    return {{"BiasAdd"},
            {"BiasAdd", "Relu"},
            {"BiasAdd", "Relu6"},
            {"BiasAdd", "Elu"},
            {"BiasAdd", "LeakyRelu"}};
  }
};

TEST_F(FusedMatMulOpTest, EveryFusionMatchesUnfusedChain) {
  for (const Strings& f : AllFusions()) {
    Check(3, 5, 4, false, false, f);
    Check(3, 5, 4, true, false, f);
    Check(3, 5, 4, false, true, f);
    Check(3, 5, 4, true, true, f);
    Check(1, 17, 33, false, false, f);
    // Large enough for Eigen to split the output into many blocks over
    // the pool, and odd so blocks are ragged.
    Check(257, 131, 199, false, true, f);
    // A long inner dimension with a small output: Eigen may split the sum
    // itself over the pool and apply the output kernel once at the end.
    Check(4, 8192, 8, false, false, f);
    // One output row, sharded over its columns with the epilogue per slice
    // (Note [GEMV over the intra-op pool]).
    Check(1, 300, 517, false, false, f);
    Check(1, 300, 517, true, true, f);
    Check(1, 1100, 1000, false, true, f);  // large enough to be split
  }
}

// One-row products whose b is marked a Const read it from kept column
// panels, the epilogue applied to each panel's columns as they are written
// (Note [Packed GEMV panels]): the same values as the unmarked kernel,
// on the first run (which packs) and the second (which finds the panels),
// whole or split over the test device's two threads, with a last panel
// narrower than the rest.
TEST_F(FusedMatMulOpTest, MarkedConstBMatchesUnmarked) {
  const int64_t shapes[][2] = {{300, 517}, {1100, 1000}, {64, 130}};
  for (const Strings& f : AllFusions()) {
    for (const auto& s : shapes) {
      for (bool tb : {false, true}) {
        const int64_t k = s[0], n = s[1];
        SCOPED_TRACE(::testing::Message() << absl::StrJoin(f, ",") << " k=" << k
                                          << " n=" << n << " tb=" << tb);
        const Tensor a = test::RandomTensor<float>(TensorShape({1, k}), 1);
        const Tensor b = test::RandomTensor<float>(
            tb ? TensorShape({n, k}) : TensorShape({k, n}), 2);
        const Tensor bias = test::RandomTensor<float>(TensorShape({n}), 3);
        const Tensor expected =
            RunNode([&] { MakeFused(f, 1, false, tb); }, {a, b, bias});
        MakeFused(f, 1, false, tb, 0.2f, /*b_is_const=*/true);
        MF_ASSERT_OK(MakeOp());
        ClearInputs();
        AddInputTensor(a);
        AddInputTensor(b);
        AddInputTensor(bias);
        // The same input buffers both times.
        for (int run = 0; run < 2; ++run) {
          SCOPED_TRACE(run);
          MF_ASSERT_OK(RunOpKernel());
          test::ExpectTensorNear<float>(*GetOutput(0), expected, 1e-5, 1e-5);
        }
      }
    }
  }
}

// Float products through the GEMM library (Note [CPU GEMM library]), run
// whole on one thread (below kMinShardedGemmWork) or split by rows over the
// test device's two threads with the epilogue per block, against a
// double-precision reference with the epilogue applied by hand.
TEST_F(FusedMatMulOpTest, LibraryProductsMatchReference) {
  const int64_t shapes[][3] = {{64, 96, 200}, {301, 160, 100}, {2, 300, 517}};
  for (const auto& s : shapes) {
    const int64_t m = s[0], k = s[1], n = s[2];
    for (bool tb : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << "m=" << m << " k=" << k << " n=" << n << " tb=" << tb);
      const Tensor a = test::RandomTensor<float>(TensorShape({m, k}), 1);
      const Tensor b = test::RandomTensor<float>(
          tb ? TensorShape({n, k}) : TensorShape({k, n}), 2);
      const Tensor bias = test::RandomTensor<float>(TensorShape({n}), 3);
      Tensor expected(DT_FLOAT, TensorShape({m, n}));
      const float* av = a.base<const float>();
      const float* bv = b.base<const float>();
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double sum = bias.base<const float>()[j];
          for (int64_t p = 0; p < k; ++p) {
            sum += static_cast<double>(av[i * k + p]) *
                   (tb ? bv[j * k + p] : bv[p * n + j]);
          }
          expected.base<float>()[i * n + j] =
              static_cast<float>(sum < 0 ? 0 : sum);
        }
      }
      MakeFused({"BiasAdd", "Relu"}, 1, false, tb);
      MF_ASSERT_OK(MakeOp());
      ClearInputs();
      AddInputTensor(a);
      AddInputTensor(b);
      AddInputTensor(bias);
      MF_ASSERT_OK(RunOpKernel());
      test::ExpectTensorNear<float>(*GetOutput(0), expected, 1e-4, 1e-5);
    }
  }
}

TEST_F(FusedMatMulOpTest, LeakyReluUsesItsAlpha) {
  Check(7, 9, 5, false, false, {"BiasAdd", "LeakyRelu"}, 0.7f);
  Check(7, 9, 5, false, false, {"BiasAdd", "LeakyRelu"}, -2.0f);
}

TEST_F(FusedMatMulOpTest, KnownValues) {
  // [[1,2],[3,4]] * [[1,0],[0,1]] + [-2, 1], Relu6: [[0,3],[1,5]].
  MakeFused({"BiasAdd", "Relu6"}, 1);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({2, 2}), {1, 2, 3, 4});
  AddInputFromArray<float>(TensorShape({2, 2}), {1, 0, 0, 1});
  AddInputFromArray<float>(TensorShape({2}), {-2, 1});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0), test::AsTensor<float>({0, 3, 1, 5}, TensorShape({2, 2})));
}

TEST_F(FusedMatMulOpTest, EmptyInnerDimensionGivesEpilogueOfZeros) {
  // The product is zeros; BiasAdd + Relu gives relu(bias) per row.
  MakeFused({"BiasAdd", "Relu"}, 1);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 0})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 3})));
  AddInputFromArray<float>(TensorShape({3}), {-1, 2, 0.5});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({0, 2, 0.5, 0, 2, 0.5}, TensorShape({2, 3})));
}

TEST_F(FusedMatMulOpTest, EmptyOutputIsEmpty) {
  MakeFused({"BiasAdd"}, 1);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 4})));
  AddInputTensor(test::RandomTensor<float>(TensorShape({4, 3}), 1));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3}), 2));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 3}));
}

TEST_F(FusedMatMulOpTest, UnsupportedFusionsAreUnimplemented) {
  for (const Strings& f : {Strings{"BiasAdd", "Sigmoid"},
                           Strings{"FusedBatchNorm"}, Strings{"Relu"}}) {
    MakeFused(f, 1);
    EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kUnimplemented,
                                   HasSubstr("Fusion is not implemented: [" +
                                             absl::StrJoin(f, ",") + "]")));
  }
  MakeFused({}, 0);
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kInvalidArgument,
                                 HasSubstr("must have at least one fused op")));
}

TEST_F(FusedMatMulOpTest, BiasAddNeedsOneArg) {
  MakeFused({"BiasAdd"}, 2);
  EXPECT_THAT(MakeOp(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Fused MatMul with BiasAdd must have one "
                                 "extra argument: bias.")));
}

TEST_F(FusedMatMulOpTest, BadInputsAreInvalid) {
  MakeFused({"BiasAdd"}, 1);
  MF_ASSERT_OK(MakeOp());
  auto run = [&](const TensorShape& a, const TensorShape& b,
                 const TensorShape& bias) {
    ClearInputs();
    AddInputTensor(test::RandomTensor<float>(a, 1));
    AddInputTensor(test::RandomTensor<float>(b, 2));
    AddInputTensor(test::RandomTensor<float>(bias, 3));
    return RunOpKernel();
  };
  EXPECT_THAT(run(TensorShape({2}), TensorShape({2, 3}), TensorShape({3})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("In[0] is not a matrix")));
  EXPECT_THAT(
      run(TensorShape({2, 2}), TensorShape({2, 3, 1}), TensorShape({3})),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("In[1] is not a matrix")));
  EXPECT_THAT(run(TensorShape({2, 2}), TensorShape({3, 3}), TensorShape({3})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Matrix size-incompatible")));
  EXPECT_THAT(run(TensorShape({2, 2}), TensorShape({2, 3}), TensorShape({})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("bias must be 1-dimensional, but got []")));
  EXPECT_THAT(run(TensorShape({2, 2}), TensorShape({2, 3}), TensorShape({2})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("bias must have as many elements as the "
                                 "output has channels (3), but got [2]")));
}

}  // namespace
}  // namespace minflow
