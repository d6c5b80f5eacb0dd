// _FusedConv2D against the unfused chain Conv2D -> BiasAdd (or inference
// FusedBatchNormV3) -> activation, each run as its own kernel here.
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
  Ints filter;  // R, S, C, K
  Ints strides = {1, 1, 1, 1};
  std::string padding = "SAME";
};

class FusedConv2DOpTest : public test::OpsTestBase {
 protected:
  // Runs the kernel NodeDef `build` makes on `inputs`; output 0.
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
                 int num_args, float leakyrelu_alpha = 0.2f,
                 float epsilon = 0.001f) {
    MakeNode("_FusedConv2D")
        .Input(dtype)
        .Input(dtype)
        .Input(std::vector<DataType>(num_args, dtype))
        .Input(0, DT_FLOAT)
        .Attr("T", dtype)
        .Attr("TArgs", std::vector<DataType>(num_args, dtype))
        .Attr("num_args", num_args)
        .Attr("strides", g.strides)
        .Attr("padding", g.padding)
        .Attr("fused_ops", fused_ops)
        .Attr("epsilon", epsilon)
        .Attr("leakyrelu_alpha", leakyrelu_alpha);
  }

  // The unfused chain's output.
  template <typename T>
  Tensor Unfused(const Geometry& g, const Strings& fused_ops,
                 const Tensor& input, const Tensor& filter,
                 const std::vector<Tensor>& args, float alpha, float eps) {
    const DataType dt = DataTypeToEnum<T>::v();
    Tensor y = RunNode(
        [&] {
          MakeNode("Conv2D")
              .Input(dt)
              .Input(dt)
              .Attr("strides", g.strides)
              .Attr("padding", g.padding);
        },
        {input, filter});
    if (fused_ops[0] == "BiasAdd") {
      y = RunNode([&] { MakeNode("BiasAdd").Input(dt).Input(dt); },
                  {y, args[0]});
    } else {
      y = RunNode(
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
          {y, args[0], args[1], args[2], args[3]});
    }
    if (fused_ops.size() == 2) {
      const std::string act = fused_ops[1];
      y = RunNode(
          [&] {
            auto& b = MakeNode(act).Input(dt);
            if (act == "LeakyRelu") b.Attr("alpha", alpha);
          },
          {y});
    }
    return y;
  }

  template <typename T>
  void Check(const Geometry& g, const Strings& fused_ops, float alpha = 0.2f) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << absl::StrJoin(fused_ops, ",") << " input "
                 << TensorShape(g.input).DebugString() << " filter "
                 << TensorShape(g.filter).DebugString());
    const float eps = 0.001f;
    const int64_t k = g.filter[3];
    const Tensor input = test::RandomTensor<T>(TensorShape(g.input), 1);
    const Tensor filter = test::RandomTensor<T>(TensorShape(g.filter), 2);
    std::vector<Tensor> args;
    if (fused_ops[0] == "BiasAdd") {
      args.push_back(test::RandomTensor<T>(TensorShape({k}), 3));
    } else {
      for (int i = 0; i < 4; ++i) {
        args.push_back(test::RandomTensor<T>(TensorShape({k}), 3 + i));
      }
      // Variances are positive.
      T* var = args[3].base<T>();
      for (int64_t c = 0; c < k; ++c) var[c] = std::abs(var[c]) + T(0.1);
    }
    const Tensor expected =
        Unfused<T>(g, fused_ops, input, filter, args, alpha, eps);
    const int num_args = static_cast<int>(args.size());
    MakeFused(DataTypeToEnum<T>::v(), g, fused_ops, num_args, alpha, eps);
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
        // 3x3 SAME: im2col with padding.
        {{1, 7, 9, 5}, {3, 3, 5, 6}},
        // Stride 2 VALID.
        {{2, 11, 13, 3}, {3, 5, 3, 7}, {1, 2, 2, 1}, "VALID"},
        // 1x1 stride 1: the input is the patch matrix.
        {{2, 5, 7, 3}, {1, 1, 3, 4}, {1, 1, 1, 1}, "VALID"},
        // Grouped: the output is written per group before the epilogue.
        {{2, 6, 6, 4}, {3, 3, 2, 6}},
        // Several tiles per shard.
        {{2, 32, 32, 16}, {3, 3, 16, 32}},
        // Many output channels: the epilogue's cap on a tile's output
        // (kEpilogueTileBytes) makes the 1x1 tiles ~100 pixels.
        {{1, 24, 24, 8}, {1, 1, 8, 600}, {1, 1, 1, 1}, "VALID"},
        // One image in two row slices through oneDNN's convolution, the
        // epilogue per slice (Note [CPU convolution library]).
        {{1, 40, 33, 16}, {3, 3, 16, 32}},
        // Shallow inputs, computed directly with the bias and a Relu or
        // Relu6 in registers, other activations after each row (Note
        // [Shallow-input convolutions]); the second has single pixels
        // after its blocks.
        {{1, 20, 19, 3}, {3, 3, 3, 32}},
        {{2, 15, 17, 1}, {5, 5, 1, 16}, {1, 2, 2, 1}, "SAME"},
    };
  }
};

TEST_F(FusedConv2DOpTest, EveryFusionMatchesUnfusedChainFloat) {
  for (const Geometry& g : Geometries()) {
    for (const Strings& f : AllFusions()) Check<float>(g, f);
  }
}

TEST_F(FusedConv2DOpTest, BiasAddFusionsMatchUnfusedChainDouble) {
  // FusedBatchNormV3 has no double kernel, so only the BiasAdd chains.
  for (const Geometry& g : Geometries()) {
    for (const Strings& f : AllFusions()) {
      if (f[0] == "BiasAdd") Check<double>(g, f);
    }
  }
}

TEST_F(FusedConv2DOpTest, LeakyReluUsesItsAlpha) {
  Check<float>({{1, 5, 5, 2}, {3, 3, 2, 3}}, {"BiasAdd", "LeakyRelu"}, 0.5f);
  Check<float>({{1, 5, 5, 2}, {3, 3, 2, 3}}, {"FusedBatchNorm", "LeakyRelu"},
               -1.5f);
}

TEST_F(FusedConv2DOpTest, KnownValues) {
  // 1x3x3x1 of 1..9, 2x2 filter of ones: window sums 12 16 24 28; bias -20,
  // Relu: 0 0 4 8.
  MakeFused(DT_FLOAT, {{1, 3, 3, 1}, {2, 2, 1, 1}, {1, 1, 1, 1}, "VALID"},
            {"BiasAdd", "Relu"}, 1);
  MF_ASSERT_OK(MakeOp());
  AddInputFromArray<float>(TensorShape({1, 3, 3, 1}),
                           {1, 2, 3, 4, 5, 6, 7, 8, 9});
  AddInputFromArray<float>(TensorShape({2, 2, 1, 1}), {1, 1, 1, 1});
  AddInputFromArray<float>(TensorShape({1}), {-20});
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(
      *GetOutput(0),
      test::AsTensor<float>({0, 0, 4, 8}, TensorShape({1, 2, 2, 1})));
}

TEST_F(FusedConv2DOpTest, EmptyBatchGivesEmptyOutput) {
  MakeFused(DT_FLOAT, {{0, 4, 4, 2}, {3, 3, 2, 3}}, {"BiasAdd", "Relu"}, 1);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 4, 4, 2})));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3, 3, 2, 3}), 1));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3}), 2));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 4, 4, 3}));
}

// ---- Errors

class FusedConv2DOpErrorTest : public FusedConv2DOpTest {
 protected:
  const Geometry g_ = {{1, 4, 4, 2}, {3, 3, 2, 3}};
};

TEST_F(FusedConv2DOpErrorTest, UnsupportedFusionIsUnimplemented) {
  MakeFused(DT_FLOAT, g_, {"BiasAdd", "Softmax"}, 1);
  EXPECT_THAT(
      MakeOp(),
      StatusIs(absl::StatusCode::kUnimplemented,
               HasSubstr("Fusion is not implemented: [BiasAdd,Softmax]")));
  MakeFused(DT_FLOAT, g_, {"Relu"}, 1);
  EXPECT_THAT(MakeOp(),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("Fusion is not implemented: [Relu]")));
}

TEST_F(FusedConv2DOpErrorTest, NoFusedOpsIsInvalid) {
  MakeFused(DT_FLOAT, g_, {}, 1);
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kInvalidArgument,
                                 HasSubstr("must have at least one fused op")));
}

TEST_F(FusedConv2DOpErrorTest, WrongNumArgsIsInvalid) {
  MakeFused(DT_FLOAT, g_, {"BiasAdd"}, 2);
  EXPECT_THAT(MakeOp(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Fused Conv2D with BiasAdd must have one "
                                 "extra argument: bias.")));
  MakeFused(DT_FLOAT, g_, {"FusedBatchNorm", "Relu"}, 1);
  EXPECT_THAT(MakeOp(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("with batch norm must have four extra "
                                 "arguments: scale, offset, mean, variance.")));
}

TEST_F(FusedConv2DOpErrorTest, NumArgsMustMatchTArgs) {
  MakeNode("_FusedConv2D")
      .Input(DT_FLOAT)
      .Input(DT_FLOAT)
      .Input(std::vector<DataType>{DT_FLOAT})
      .Input(0, DT_FLOAT)
      .Attr("TArgs", std::vector<DataType>{DT_FLOAT})
      .Attr("num_args", 4)
      .Attr("strides", Ints{1, 1, 1, 1})
      .Attr("padding", "SAME")
      .Attr("fused_ops", Strings{"BiasAdd"});
  EXPECT_THAT(MakeOp(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("num_args must equal the length of TArgs")));
}

TEST_F(FusedConv2DOpErrorTest, OnlyNhwcAndHwioOnCpu) {
  MakeNode("_FusedConv2D")
      .Input(DT_FLOAT)
      .Input(DT_FLOAT)
      .Input(std::vector<DataType>{DT_FLOAT})
      .Input(0, DT_FLOAT)
      .Attr("TArgs", std::vector<DataType>{DT_FLOAT})
      .Attr("num_args", 1)
      .Attr("strides", Ints{1, 1, 1, 1})
      .Attr("padding", "SAME")
      .Attr("data_format", "NCHW")
      .Attr("fused_ops", Strings{"BiasAdd"});
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kUnimplemented,
                                 HasSubstr("only supports the NHWC")));
  MakeNode("_FusedConv2D")
      .Input(DT_FLOAT)
      .Input(DT_FLOAT)
      .Input(std::vector<DataType>{DT_FLOAT})
      .Input(0, DT_FLOAT)
      .Attr("TArgs", std::vector<DataType>{DT_FLOAT})
      .Attr("num_args", 1)
      .Attr("strides", Ints{1, 1, 1, 1})
      .Attr("padding", "SAME")
      .Attr("filter_format", "OIHW")
      .Attr("fused_ops", Strings{"BiasAdd"});
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kUnimplemented,
                                 HasSubstr("only supports the HWIO")));
}

TEST_F(FusedConv2DOpErrorTest, HostArgsAreUnimplemented) {
  MakeNode("_FusedConv2D")
      .Input(DT_FLOAT)
      .Input(DT_FLOAT)
      .Input(std::vector<DataType>{DT_FLOAT})
      .Input(1, DT_FLOAT)
      .Attr("TArgs", std::vector<DataType>{DT_FLOAT})
      .Attr("num_args", 1)
      .Attr("num_host_args", 1)
      .Attr("strides", Ints{1, 1, 1, 1})
      .Attr("padding", "SAME")
      .Attr("fused_ops", Strings{"BiasAdd"});
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kUnimplemented,
                                 HasSubstr("takes no host_args")));
}

TEST_F(FusedConv2DOpErrorTest, ArgOfAnotherTypeIsInvalid) {
  MakeNode("_FusedConv2D")
      .Input(DT_FLOAT)
      .Input(DT_FLOAT)
      .Input(std::vector<DataType>{DT_DOUBLE})
      .Input(0, DT_FLOAT)
      .Attr("TArgs", std::vector<DataType>{DT_DOUBLE})
      .Attr("num_args", 1)
      .Attr("strides", Ints{1, 1, 1, 1})
      .Attr("padding", "SAME")
      .Attr("fused_ops", Strings{"BiasAdd"});
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 4, 4, 2}), 1));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3, 3, 2, 3}), 2));
  AddInputTensor(test::RandomTensor<double>(TensorShape({3}), 3));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("bias must have the type of the input, float, "
                                 "but got double")));
}

TEST_F(FusedConv2DOpErrorTest, BadArgShapesAreInvalid) {
  MakeFused(DT_FLOAT, g_, {"BiasAdd", "Relu"}, 1);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 4, 4, 2}), 1));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3, 3, 2, 3}), 2));
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 3}), 3));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("bias must be 1-dimensional, but got [1,3]")));
  ClearInputs();
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 4, 4, 2}), 1));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3, 3, 2, 3}), 2));
  AddInputTensor(test::RandomTensor<float>(TensorShape({4}), 3));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("bias must have as many elements as the "
                                 "output has channels (3), but got [4]")));
  MakeFused(DT_FLOAT, g_, {"FusedBatchNorm"}, 4);
  MF_ASSERT_OK(MakeOp());
  ClearInputs();
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 4, 4, 2}), 1));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3, 3, 2, 3}), 2));
  for (int i = 0; i < 3; ++i) {
    AddInputTensor(test::RandomTensor<float>(TensorShape({3}), 3));
  }
  AddInputTensor(test::RandomTensor<float>(TensorShape({2}), 3));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("variance must have as many elements")));
}

TEST_F(FusedConv2DOpErrorTest, BadConvolutionIsInvalid) {
  MakeFused(DT_FLOAT, g_, {"BiasAdd"}, 1);
  MF_ASSERT_OK(MakeOp());
  // Filter depth 3 against input depth 2.
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 4, 4, 2}), 1));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3, 3, 3, 3}), 2));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3}), 3));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument));
  ClearInputs();
  // An empty window with a non-empty output.
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 4, 4, 0}), 1));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({3, 3, 0, 3})));
  AddInputTensor(test::RandomTensor<float>(TensorShape({3}), 3));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("filter must not have zero elements")));
}

}  // namespace
}  // namespace minflow
