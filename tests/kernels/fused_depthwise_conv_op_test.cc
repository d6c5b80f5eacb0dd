// _FusedDepthwiseConv2dNative against the unfused chain
// DepthwiseConv2dNative -> BiasAdd (or inference FusedBatchNormV3) ->
// activation, each run as its own kernel here.
#include <cmath>
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
using Ints = std::vector<int64_t>;
using Strings = std::vector<std::string>;

struct Geometry {
  Ints input;   // N, H, W, C
  Ints filter;  // R, S, C, multiplier
  Ints strides = {1, 1, 1, 1};
  std::string padding = "SAME";
};

class FusedDepthwiseConvOpTest : public test::OpsTestBase {
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

  void MakeFused(DataType dtype, const Geometry& g, const Strings& fused_ops,
                 int num_args, float alpha = 0.2f, float epsilon = 0.001f,
                 const std::string& data_format = "NHWC") {
    MakeNode("_FusedDepthwiseConv2dNative")
        .Input(dtype)
        .Input(dtype)
        .Input(num_args, dtype)
        .Attr("num_args", num_args)
        .Attr("strides", g.strides)
        .Attr("padding", g.padding)
        .Attr("data_format", data_format)
        .Attr("fused_ops", fused_ops)
        .Attr("epsilon", epsilon)
        .Attr("leakyrelu_alpha", alpha);
  }

  template <typename T>
  void Check(const Geometry& g, const Strings& fused_ops, float alpha = 0.2f) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << absl::StrJoin(fused_ops, ",") << " input "
                 << TensorShape(g.input).DebugString() << " filter "
                 << TensorShape(g.filter).DebugString());
    const DataType dt = DataTypeToEnum<T>::v();
    const float eps = 0.001f;
    const int64_t k = g.filter[2] * g.filter[3];
    const Tensor input = test::RandomTensor<T>(TensorShape(g.input), 1);
    const Tensor filter = test::RandomTensor<T>(TensorShape(g.filter), 2);
    std::vector<Tensor> args;
    const bool bn = fused_ops[0] == "FusedBatchNorm";
    for (int i = 0; i < (bn ? 4 : 1); ++i) {
      args.push_back(test::RandomTensor<T>(TensorShape({k}), 3 + i));
    }
    if (bn) {
      T* var = args[3].base<T>();
      for (int64_t c = 0; c < k; ++c) var[c] = std::abs(var[c]) + T(0.1);
    }
    Tensor expected = RunNode(
        [&] {
          MakeNode("DepthwiseConv2dNative")
              .Input(dt)
              .Input(dt)
              .Attr("strides", g.strides)
              .Attr("padding", g.padding);
        },
        {input, filter});
    if (bn) {
      expected = RunNode(
          [&] {
            MakeNode("FusedBatchNormV3")
                .Input(dt)
                .Input(dt)
                .Input(dt)
                .Input(dt)
                .Input(dt)
                .Attr("U", dt)
                .Attr("epsilon", eps)
                .Attr("is_training", false);
          },
          {expected, args[0], args[1], args[2], args[3]});
    } else {
      expected = RunNode([&] { MakeNode("BiasAdd").Input(dt).Input(dt); },
                         {expected, args[0]});
    }
    if (fused_ops.size() == 2) {
      expected = RunNode(
          [&] {
            auto& b = MakeNode(fused_ops[1]).Input(dt);
            if (fused_ops[1] == "LeakyRelu") b.Attr("alpha", alpha);
          },
          {expected});
    }
    MakeFused(dt, g, fused_ops, static_cast<int>(args.size()), alpha, eps);
    MF_ASSERT_OK(MakeOp());
    ClearInputs();
    AddInputTensor(input);
    AddInputTensor(filter);
    for (const Tensor& a : args) AddInputTensor(a);
    MF_ASSERT_OK(RunOpKernel());
    std::vector<TensorShape> shapes = {input.shape(), filter.shape()};
    for (const Tensor& a : args) shapes.push_back(a.shape());
    EXPECT_EQ(test::PredictedOutputShape(*node_def(), shapes),
              GetOutput(0)->shape().DebugString());
    const double tol = std::is_same<T, float>::value ? 1e-5 : 1e-12;
    test::ExpectTensorNear<T>(*GetOutput(0), expected, tol, tol);
  }

  static std::vector<Strings> AllFusions() {
    std::vector<Strings> out;
    for (const char* first : {"BiasAdd", "FusedBatchNorm"}) {
      out.push_back({first});
      for (const char* act : {"Relu", "Relu6", "Elu", "LeakyRelu"}) {
        out.push_back({first, act});
      }
    }
    return out;
  }

  static std::vector<Geometry> Geometries() {
    return {
        {{1, 7, 9, 5}, {3, 3, 5, 1}},
        // Multiplier 2, stride 2 VALID.
        {{2, 11, 13, 3}, {3, 5, 3, 2}, {1, 2, 2, 1}, "VALID"},
        // 2 * 12 * 13 pixels: several chunks, the last one ragged.
        {{2, 12, 13, 8}, {3, 3, 8, 1}},
    };
  }
};

TEST_F(FusedDepthwiseConvOpTest, EveryFusionMatchesUnfusedChainFloat) {
  for (const Geometry& g : Geometries()) {
    for (const Strings& f : AllFusions()) Check<float>(g, f);
  }
}

TEST_F(FusedDepthwiseConvOpTest, BiasAddFusionsMatchUnfusedChainDouble) {
  for (const Geometry& g : Geometries()) {
    for (const Strings& f : AllFusions()) {
      if (f[0] == "BiasAdd") Check<double>(g, f);
    }
  }
}

TEST_F(FusedDepthwiseConvOpTest, LeakyReluUsesItsAlpha) {
  Check<float>({{1, 5, 5, 2}, {3, 3, 2, 2}}, {"BiasAdd", "LeakyRelu"}, 0.6f);
}

TEST_F(FusedDepthwiseConvOpTest, EmptyBatchGivesEmptyOutput) {
  MakeFused(DT_FLOAT, {{0, 4, 4, 2}, {3, 3, 2, 1}}, {"BiasAdd", "Relu"}, 1);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 4, 4, 2})));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3, 3, 2, 1}), 1));
  AddInputTensor(test::RandomTensor<float>(TensorShape({2}), 2));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 4, 4, 2}));
}

TEST_F(FusedDepthwiseConvOpTest, ErrorsAreReported) {
  const Geometry g = {{1, 4, 4, 2}, {3, 3, 2, 1}};
  MakeFused(DT_FLOAT, g, {"BiasAdd", "Softmax"}, 1);
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kUnimplemented,
                                 HasSubstr("Fusion is not implemented: "
                                           "[BiasAdd,Softmax]")));
  MakeFused(DT_FLOAT, g, {"FusedBatchNorm"}, 1);
  EXPECT_THAT(MakeOp(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Fused DepthwiseConv2dNative with batch norm "
                                 "must have four extra arguments")));
  MakeFused(DT_FLOAT, g, {"BiasAdd"}, 1, 0.2f, 0.001f, "NCHW");
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kUnimplemented,
                                 HasSubstr("only supported for NHWC")));
  MakeFused(DT_FLOAT, g, {"BiasAdd"}, 1);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 4, 4, 2}), 1));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3, 3, 2, 1}), 2));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3}), 3));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("bias must have as many elements as the "
                                 "output has channels (2), but got [3]")));
  ClearInputs();
  // Filter channels 3 against input channels 2.
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 4, 4, 2}), 1));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3, 3, 3, 1}), 2));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3}), 3));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument));
  ClearInputs();
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 4, 4, 2}), 1));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 0, 2, 1})));
  AddInputTensor(test::RandomTensor<float>(TensorShape({2}), 3));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("filter must not have zero elements")));
}

}  // namespace
}  // namespace minflow
