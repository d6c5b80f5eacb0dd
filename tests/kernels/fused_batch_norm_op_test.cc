// FusedBatchNorm, V2 and V3 against a reference computed here in double:
// training and inference, the running averages with exponential_avg_factor,
// NHWC, NCHW and the 5-D layouts, half and bfloat16 inputs, empty inputs,
// the shape function against every output, and every error path. Then
// FusedBatchNormGrad, V2 and V3 in both modes against their formulas.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"
#include "tests/kernels/nn_test_util.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

struct Case {
  std::vector<int64_t> x;
  const char* format;
  bool training;
  float factor;
};

class FusedBatchNormOpTest : public test::ArrayOpTest {
 protected:
  void Make(const char* op, DataType t, bool training, float factor,
            const char* format, float epsilon = 0.001f) {
    auto& b = MakeNode(op).Input(t);
    const DataType u = std::string(op) == "FusedBatchNorm" ? t : DT_FLOAT;
    b.Input(u).Input(u).Input(u).Input(u);
    b.Attr("epsilon", epsilon)
        .Attr("exponential_avg_factor", factor)
        .Attr("data_format", format)
        .Attr("is_training", training);
    MF_ASSERT_OK(MakeOp());
  }

  template <typename T>
  void Check(const char* op, const Case& k) {
    SCOPED_TRACE(::testing::Message()
                 << op << " " << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << TensorShape(k.x).DebugString() << " " << k.format
                 << " training " << k.training << " factor " << k.factor);
    const float eps = 0.001f;
    Make(op, DataTypeToEnum<T>::v(), k.training, k.factor, k.format, eps);
    const TensorShape shape(k.x);
    const bool nchw = k.format[1] == 'C';
    const int cdim = nchw ? 1 : shape.dims() - 1;
    const int64_t channels = shape.dim_size(cdim);
    const Tensor x = test::RandomTensor<T>(shape, 1);
    const Tensor scale = test::RandomTensor<float>(TensorShape({channels}), 2);
    const Tensor offset = test::RandomTensor<float>(TensorShape({channels}), 3);
    const Tensor mean = test::RandomTensor<float>(TensorShape({channels}), 4);
    Tensor var = test::RandomTensor<float>(TensorShape({channels}), 5);
    for (int64_t c = 0; c < channels; ++c) {
      var.base<float>()[c] = std::abs(var.base<float>()[c]) + 0.5f;
    }
    AddInputTensor(x);
    AddInputTensor(scale);
    AddInputTensor(offset);
    AddInputTensor(mean);
    AddInputTensor(var);
    RunAndCheckShapes();

    // Reference in double.
    const auto channel_of = [&](int64_t e) {
      return test::Unravel(e, shape)[cdim];
    };
    const int64_t n = shape.num_elements();
    std::vector<double> bm(channels, 0), bv(channels, 0);
    const int64_t per_channel = channels == 0 ? 0 : n / channels;
    for (int64_t e = 0; e < n; ++e) {
      bm[channel_of(e)] += test::ValueAt<T>(x, e) / per_channel;
    }
    for (int64_t e = 0; e < n; ++e) {
      const double d = test::ValueAt<T>(x, e) - bm[channel_of(e)];
      bv[channel_of(e)] += d * d / per_channel;
    }
    const auto f = [](const Tensor& t, int64_t c) {
      return static_cast<double>(t.base<const float>()[c]);
    };
    std::vector<double> y(n);
    for (int64_t e = 0; e < n; ++e) {
      const int64_t c = channel_of(e);
      const double m = k.training ? bm[c] : f(mean, c);
      const double v = k.training ? bv[c] : f(var, c);
      y[e] = (test::ValueAt<T>(x, e) - m) / std::sqrt(v + eps) * f(scale, c) +
             f(offset, c);
    }
    std::vector<double> out_mean(channels), out_var(channels);
    std::vector<double> saved_mean(channels), saved_var(channels);
    const double bessel =
        per_channel > 1 ? per_channel / (per_channel - 1.0) : 1.0;
    for (int64_t c = 0; c < channels; ++c) {
      if (!k.training) {
        out_mean[c] = saved_mean[c] = f(mean, c);
        out_var[c] = saved_var[c] = f(var, c);
        continue;
      }
      saved_mean[c] = bm[c];
      saved_var[c] = bv[c];
      const double a = k.factor;
      out_mean[c] = (1 - a) * f(mean, c) + a * bm[c];
      out_var[c] = (1 - a) * f(var, c) + a * bessel * bv[c];
    }
    // y is rounded to T once; the statistics are float.
    double y_tol = 1e-5;
    if (std::is_same<T, half>::value) y_tol = 5e-3;
    if (std::is_same<T, bfloat16>::value) y_tol = 3e-2;
    test::ExpectNearReference<T>(*GetOutput(0), shape, y, y_tol);
    const TensorShape vec({channels});
    test::ExpectNearReference<float>(*GetOutput(1), vec, out_mean, 1e-5);
    test::ExpectNearReference<float>(*GetOutput(2), vec, out_var, 1e-5);
    test::ExpectNearReference<float>(*GetOutput(3), vec, saved_mean, 1e-5);
    test::ExpectNearReference<float>(*GetOutput(4), vec, saved_var, 1e-5);
    if (std::string(op) == "FusedBatchNormV3") {
      EXPECT_EQ(GetOutput(5)->shape(), TensorShape({}));
    }
  }
};

const Case kCases[] = {
    {{2, 3, 4, 5}, "NHWC", true, 1.0f},  {{2, 3, 4, 5}, "NCHW", true, 1.0f},
    {{2, 3, 4, 5}, "NHWC", true, 0.25f}, {{3, 4, 2, 3}, "NCHW", true, 0.5f},
    {{2, 3, 4, 5}, "NHWC", false, 1.0f}, {{2, 3, 4, 5}, "NCHW", false, 1.0f},
    {{1, 1, 1, 3}, "NHWC", true, 1.0f},  // one value per channel
};

TEST_F(FusedBatchNormOpTest, FloatMatchesReferenceInEveryMode) {
  for (const Case& k : kCases) {
    Check<float>("FusedBatchNorm", k);
    Check<float>("FusedBatchNormV2", k);
    Check<float>("FusedBatchNormV3", k);
  }
}

TEST_F(FusedBatchNormOpTest, HalfAndBfloat16MatchReference) {
  for (const Case& k : kCases) {
    Check<half>("FusedBatchNormV2", k);
    Check<bfloat16>("FusedBatchNormV3", k);
  }
}

TEST_F(FusedBatchNormOpTest, FiveDimensionalLayouts) {
  Check<float>("FusedBatchNormV3", {{2, 2, 3, 4, 3}, "NDHWC", true, 1.0f});
  Check<float>("FusedBatchNormV3", {{2, 3, 2, 3, 4}, "NCDHW", true, 0.5f});
  Check<float>("FusedBatchNormV3", {{2, 3, 2, 3, 4}, "NCDHW", false, 1.0f});
}

TEST_F(FusedBatchNormOpTest, LargeNhwcUsesEveryShard) {
  Check<float>("FusedBatchNormV3", {{4, 32, 32, 16}, "NHWC", true, 1.0f});
  Check<float>("FusedBatchNormV3", {{4, 16, 32, 32}, "NCHW", false, 1.0f});
}

TEST_F(FusedBatchNormOpTest, EmptyInputGivesNanStatistics) {
  for (const bool training : {true, false}) {
    Make("FusedBatchNormV3", DT_FLOAT, training, 1.0f, "NHWC");
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 2, 2, 3})));
    for (int i = 0; i < 4; ++i) {
      AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
    }
    RunAndCheckShapes();
    EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 2, 2, 3}));
    for (int o = 1; o <= 4; ++o) {
      ASSERT_EQ(GetOutput(o)->shape(), TensorShape({3}));
      for (int c = 0; c < 3; ++c) {
        EXPECT_TRUE(std::isnan(GetOutput(o)->base<float>()[c])) << o;
      }
    }
  }
  // No channels: every output is empty.
  Make("FusedBatchNorm", DT_FLOAT, true, 1.0f, "NCHW");
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({2, 0, 2, 3})));
  for (int i = 0; i < 4; ++i)
    AddInputTensor(Tensor(DT_FLOAT, TensorShape({0})));
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(1)->shape(), TensorShape({0}));
}

TEST_F(FusedBatchNormOpTest, RejectsBadShapes) {
  const auto run = [&](bool training, float factor, const TensorShape& x,
                       const std::vector<TensorShape>& vecs,
                       const std::string& substr) {
    Make("FusedBatchNormV3", DT_FLOAT, training, factor, "NHWC");
    AddInputTensor(test::RandomTensor<float>(x, 1));
    for (const TensorShape& s : vecs) {
      AddInputTensor(test::RandomTensor<float>(s, 2));
    }
    ExpectInvalid(substr);
  };
  const TensorShape c3({3});
  run(true, 1, TensorShape({2, 3, 3}), {c3, c3, c3, c3},
      "input must be 4 or 5-dimensional");
  run(true, 1, TensorShape({1, 2, 2, 3}), {TensorShape({3, 1}), c3, c3, c3},
      "scale must be 1-dimensional");
  run(true, 1, TensorShape({1, 2, 2, 3}), {c3, TensorShape({}), c3, c3},
      "offset must be 1-dimensional");
  run(true, 1, TensorShape({1, 2, 2, 3}), {c3, c3, TensorShape({}), c3},
      "estimated_mean must be 1-dimensional");
  run(true, 1, TensorShape({1, 2, 2, 3}), {c3, c3, c3, TensorShape({1, 3})},
      "estimated_variance must be 1-dimensional");
  run(true, 1, TensorShape({1, 2, 2, 3}), {TensorShape({4}), c3, c3, c3},
      "scale must have the same number of elements as the channels of x, got "
      "4 and 3");
  run(true, 1, TensorShape({1, 2, 2, 3}), {c3, TensorShape({2}), c3, c3},
      "offset must have the same number of elements as the channels of x, "
      "got 2 and 3");
  run(false, 1, TensorShape({1, 2, 2, 3}), {c3, c3, TensorShape({2}), c3},
      "When is_training=false, mean must have the same number of elements "
      "as the channels of x, got 2 and 3");
  run(true, 0.5f, TensorShape({1, 2, 2, 3}), {c3, c3, c3, TensorShape({4})},
      "When exponential_avg_factor != 1, variance must have the same number "
      "of elements as the channels of x, got 4 and 3");
}

TEST_F(FusedBatchNormOpTest, TrainingIgnoresMeanAndVarianceSizes) {
  // As TensorFlow: with factor 1 the running statistics are not read.
  Make("FusedBatchNormV2", DT_FLOAT, true, 1.0f, "NHWC");
  AddInputFromArray<float>(TensorShape({1, 1, 2, 1}), {1, 3});
  AddInputFromArray<float>(TensorShape({1}), {2});
  AddInputFromArray<float>(TensorShape({1}), {1});
  AddInputFromArray<float>(TensorShape({0}), {});
  AddInputFromArray<float>(TensorShape({0}), {});
  MF_ASSERT_OK(RunOpKernel());
  // mean 2, variance 1: y = (x - 2) / sqrt(1 + 0.001) * 2 + 1.
  const double y0 = -2 / std::sqrt(1.001) + 1;
  test::ExpectNearReference<float>(*GetOutput(0), TensorShape({1, 1, 2, 1}),
                                   {y0, 2 - y0}, 1e-6);
  test::ExpectNearReference<float>(*GetOutput(2), TensorShape({1}), {2.0},
                                   1e-6);  // Bessel-corrected
}

// ---- _FusedBatchNormEx: FusedBatchNormV3, + side_input, Relu

class FusedBatchNormExOpTest : public test::ArrayOpTest {
 protected:
  void MakeEx(bool training, const char* format, int num_side_inputs,
              const std::string& activation) {
    MakeNode("_FusedBatchNormEx")
        .Input(DT_FLOAT)
        .Input(DT_FLOAT)
        .Input(DT_FLOAT)
        .Input(DT_FLOAT)
        .Input(DT_FLOAT)
        .Input(num_side_inputs, DT_FLOAT)
        .Attr("epsilon", 0.001f)
        .Attr("data_format", format)
        .Attr("is_training", training)
        .Attr("activation_mode", activation);
  }

  // Output `index` of the kernel `build` makes, run on `inputs`.
  Tensor RunNode(const std::function<void()>& build,
                 const std::vector<Tensor>& inputs, int index = 0) {
    build();
    Status s = MakeOp();
    EXPECT_TRUE(s.ok()) << s;
    ClearInputs();
    for (const Tensor& t : inputs) AddInputTensor(t);
    s = RunOpKernel();
    EXPECT_TRUE(s.ok()) << s;
    return s.ok() ? *GetOutput(index) : Tensor();
  }

  void Check(const TensorShape& shape, const char* format, bool training,
             bool side_input, const std::string& activation) {
    SCOPED_TRACE(::testing::Message()
                 << shape.DebugString() << " " << format << " training "
                 << training << " side " << side_input << " " << activation);
    const int64_t channels = shape.dim_size(format[1] == 'C' ? 1 : 3);
    std::vector<Tensor> in = {test::RandomTensor<float>(shape, 1)};
    for (int i = 0; i < 4; ++i) {
      in.push_back(test::RandomTensor<float>(TensorShape({channels}), 2 + i));
    }
    for (int64_t c = 0; c < channels; ++c) {
      in[4].base<float>()[c] = std::abs(in[4].base<float>()[c]) + 0.5f;
    }
    const Tensor side = test::RandomTensor<float>(shape, 9);
    // The unfused chain.
    const auto bn = [&] {
      MakeNode("FusedBatchNormV3")
          .Input(DT_FLOAT)
          .Input(DT_FLOAT)
          .Input(DT_FLOAT)
          .Input(DT_FLOAT)
          .Input(DT_FLOAT)
          .Attr("epsilon", 0.001f)
          .Attr("data_format", format)
          .Attr("is_training", training);
    };
    Tensor expected = RunNode(bn, in);
    std::vector<Tensor> expected_stats;
    for (int i = 1; i <= 4; ++i) expected_stats.push_back(*GetOutput(i));
    if (side_input) {
      expected =
          RunNode([&] { MakeNode("AddV2").Input(DT_FLOAT).Input(DT_FLOAT); },
                  {expected, side});
    }
    if (activation == "Relu") {
      expected = RunNode([&] { MakeNode("Relu").Input(DT_FLOAT); }, {expected});
    }
    MakeEx(training, format, side_input ? 1 : 0, activation);
    MF_ASSERT_OK(MakeOp());
    ClearInputs();
    for (const Tensor& t : in) AddInputTensor(t);
    if (side_input) AddInputTensor(side);
    MF_ASSERT_OK(RunOpKernel());
    test::ExpectTensorNear<float>(*GetOutput(0), expected, 1e-5, 1e-5);
    for (int i = 1; i <= 4; ++i) {
      test::ExpectTensorNear<float>(*GetOutput(i), expected_stats[i - 1], 1e-6,
                                    1e-6);
    }
    std::vector<TensorShape> shapes;
    for (const Tensor& t : in) shapes.push_back(t.shape());
    if (side_input) shapes.push_back(side.shape());
    const std::string predicted =
        test::PredictedOutputShape(*node_def(), shapes);
    EXPECT_EQ(predicted.substr(0, predicted.find(';')),
              GetOutput(0)->shape().DebugString());
  }
};

TEST_F(FusedBatchNormExOpTest, MatchesUnfusedChain) {
  for (bool training : {false, true}) {
    for (bool side : {false, true}) {
      for (const char* act : {"Identity", "Relu"}) {
        Check(TensorShape({2, 5, 3, 8}), "NHWC", training, side, act);
        Check(TensorShape({2, 8, 5, 3}), "NCHW", training, side, act);
      }
    }
  }
  // Large enough to use every shard.
  Check(TensorShape({4, 28, 28, 16}), "NHWC", false, true, "Relu");
}

TEST_F(FusedBatchNormExOpTest, EmptyInputGivesEmptyOutput) {
  MakeEx(false, "NHWC", 1, "Relu");
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 2, 2, 4})));
  for (int i = 0; i < 4; ++i) {
    AddInputTensor(test::RandomTensor<float>(TensorShape({4}), i));
  }
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 2, 2, 4})));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 2, 2, 4}));
}

TEST_F(FusedBatchNormExOpTest, RejectsBadAttrsAndSideInput) {
  MakeEx(false, "NHWC", 0, "Elu");
  EXPECT_THAT(MakeOp(), testing::StatusIs(
                            absl::StatusCode::kInvalidArgument,
                            ::testing::HasSubstr("supports only Identity and "
                                                 "Relu activations, but got "
                                                 "Elu")));
  MakeEx(false, "NHWC", 2, "Relu");
  EXPECT_THAT(MakeOp(),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr(
                                    "supports at most one side input, but got "
                                    "num_side_inputs = 2")));
  MakeEx(false, "NHWC", 1, "Relu");
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 2, 2, 4}), 1));
  for (int i = 0; i < 4; ++i) {
    AddInputTensor(test::RandomTensor<float>(TensorShape({4}), i));
  }
  AddInputTensor(test::RandomTensor<float>(TensorShape({1, 2, 4, 2}), 1));
  EXPECT_THAT(RunOpKernel(),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                ::testing::HasSubstr(
                                    "side_input shape must be equal to input "
                                    "shape: [1,2,4,2] != [1,2,2,4]")));
}

// ---- FusedBatchNormGrad, V2 and V3 (Note [FusedBatchNormGrad])

class FusedBatchNormGradOpTest : public test::ArrayOpTest {
 protected:
  void Make(const char* op, DataType t, bool training, const char* format,
            float epsilon = 0.001f) {
    const bool v1 = std::string(op) == "FusedBatchNormGrad";
    auto& b = MakeNode(op).Input(t).Input(t);
    const DataType u = v1 ? t : DT_FLOAT;
    b.Input(u).Input(u).Input(u);
    if (std::string(op) == "FusedBatchNormGradV3") b.Input(u);
    b.Attr("epsilon", epsilon)
        .Attr("data_format", format)
        .Attr("is_training", training);
    MF_ASSERT_OK(MakeOp());
  }

  // Random inputs (a positive variance); the outputs against the formulas
  // worked out per element in double.
  template <typename T>
  void Check(const char* op, const std::vector<int64_t>& dims,
             const char* format, bool training) {
    SCOPED_TRACE(::testing::Message()
                 << op << " " << DataTypeString(DataTypeToEnum<T>::v()) << " "
                 << TensorShape(dims).DebugString() << " " << format
                 << " training " << training);
    const float eps = 0.001f;
    Make(op, DataTypeToEnum<T>::v(), training, format, eps);
    const TensorShape shape(dims);
    const int cdim = format[1] == 'C' ? 1 : shape.dims() - 1;
    const int64_t channels = shape.dim_size(cdim);
    const TensorShape vec({channels});
    const Tensor dy = test::RandomTensor<T>(shape, 11);
    const Tensor x = test::RandomTensor<T>(shape, 12);
    const Tensor scale = test::RandomTensor<float>(vec, 13);
    const Tensor mean = test::RandomTensor<float>(vec, 14);
    Tensor var = test::RandomTensor<float>(vec, 15);
    for (int64_t c = 0; c < channels; ++c) {
      var.base<float>()[c] = std::abs(var.base<float>()[c]) + 0.25f;
    }
    for (const Tensor* t :
         {&dy, &x, &scale, &mean, static_cast<const Tensor*>(&var)}) {
      AddInputTensor(*t);
    }
    if (std::string(op) == "FusedBatchNormGradV3") {
      AddInputTensor(test::AsScalar<float>(0));
    }
    RunAndCheckShapes();

    const auto channel_of = [&](int64_t e) {
      return test::Unravel(e, shape)[cdim];
    };
    const auto f = [](const Tensor& t, int64_t c) {
      return static_cast<double>(t.base<const float>()[c]);
    };
    const int64_t n = shape.num_elements();
    const double per_channel = static_cast<double>(n / channels);
    std::vector<double> sum_dy(channels, 0), sum_dy_xhat(channels, 0);
    const auto xhat = [&](int64_t e) {
      const int64_t c = channel_of(e);
      return (test::ValueAt<T>(x, e) - f(mean, c)) / std::sqrt(f(var, c) + eps);
    };
    for (int64_t e = 0; e < n; ++e) {
      sum_dy[channel_of(e)] += test::ValueAt<T>(dy, e);
      sum_dy_xhat[channel_of(e)] += test::ValueAt<T>(dy, e) * xhat(e);
    }
    std::vector<double> dx(n);
    for (int64_t e = 0; e < n; ++e) {
      const int64_t c = channel_of(e);
      const double k = f(scale, c) / std::sqrt(f(var, c) + eps);
      const double g = test::ValueAt<T>(dy, e);
      dx[e] = training ? k * (g - sum_dy[c] / per_channel -
                              xhat(e) * sum_dy_xhat[c] / per_channel)
                       : k * g;
    }
    double tol = 1e-5;
    if (std::is_same<T, half>::value) tol = 5e-3;
    if (std::is_same<T, bfloat16>::value) tol = 3e-2;
    test::ExpectNearReference<T>(*GetOutput(0), shape, dx, tol);
    test::ExpectNearReference<float>(*GetOutput(1), vec, sum_dy_xhat,
                                     1e-5 * per_channel);
    test::ExpectNearReference<float>(*GetOutput(2), vec, sum_dy,
                                     1e-5 * per_channel);
    EXPECT_EQ(GetOutput(3)->shape(), TensorShape({0}));
    EXPECT_EQ(GetOutput(4)->shape(), TensorShape({0}));
  }
};

TEST_F(FusedBatchNormGradOpTest, FloatMatchesFormulasInBothModes) {
  for (const char* op :
       {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
    for (const bool training : {true, false}) {
      Check<float>(op, {2, 3, 4, 5}, "NHWC", training);
      Check<float>(op, {2, 3, 4, 5}, "NCHW", training);
      Check<float>(op, {1, 1, 1, 3}, "NHWC", training);
    }
  }
}

TEST_F(FusedBatchNormGradOpTest, FiveDimensionalLargeAndNarrowTypes) {
  Check<float>("FusedBatchNormGradV3", {2, 2, 3, 4, 3}, "NDHWC", true);
  Check<float>("FusedBatchNormGradV3", {2, 3, 2, 3, 4}, "NCDHW", false);
  Check<float>("FusedBatchNormGradV3", {4, 32, 32, 16}, "NHWC", true);
  Check<float>("FusedBatchNormGradV3", {4, 16, 32, 32}, "NCHW", true);
  Check<half>("FusedBatchNormGradV2", {2, 3, 4, 5}, "NHWC", true);
  Check<bfloat16>("FusedBatchNormGradV3", {2, 3, 4, 5}, "NCHW", false);
}

TEST_F(FusedBatchNormGradOpTest, EmptyInputGivesZeroScaleAndOffsetGradients) {
  Make("FusedBatchNormGradV3", DT_FLOAT, true, "NHWC");
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 2, 2, 3})));
  AddInputTensor(Tensor(DT_FLOAT, TensorShape({0, 2, 2, 3})));
  for (int i = 0; i < 3; ++i) {
    AddInputFromArray<float>(TensorShape({3}), {1, 2, 3});
  }
  AddInputTensor(test::AsScalar<float>(0));
  RunAndCheckShapes();
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 2, 2, 3}));
  test::ExpectTensorEqual<float>(*GetOutput(1),
                                 test::AsTensor<float>({0, 0, 0}));
  test::ExpectTensorEqual<float>(*GetOutput(2),
                                 test::AsTensor<float>({0, 0, 0}));
}

TEST_F(FusedBatchNormGradOpTest, RejectsBadShapes) {
  const auto run = [&](const TensorShape& dy, const TensorShape& x,
                       const std::vector<TensorShape>& vecs,
                       const std::string& substr) {
    Make("FusedBatchNormGradV2", DT_FLOAT, true, "NHWC");
    AddInputTensor(test::RandomTensor<float>(dy, 1));
    AddInputTensor(test::RandomTensor<float>(x, 2));
    for (const TensorShape& s : vecs) {
      AddInputTensor(test::RandomTensor<float>(s, 3));
    }
    ExpectInvalid(substr);
  };
  const TensorShape x({1, 2, 2, 3});
  const TensorShape c3({3});
  run(TensorShape({2, 3, 3}), TensorShape({2, 3, 3}), {c3, c3, c3},
      "FusedBatchNormGradV2: y_backprop must be 4 or 5-dimensional, but got "
      "[2,3,3]");
  run(x, TensorShape({1, 2, 2, 4}), {c3, c3, c3},
      "x and y_backprop must have the same shape, but x has shape [1,2,2,4] "
      "and y_backprop has shape [1,2,2,3]");
  run(x, x, {TensorShape({1, 3}), c3, c3},
      "scale must be 1-dimensional, but got [1,3]");
  run(x, x, {c3, TensorShape({}), c3},
      "reserve_space_1 must be 1-dimensional, but got []");
  run(x, x, {c3, c3, TensorShape({4})},
      "reserve_space_2 must have as many elements as the channels of x (3), "
      "but got 4");
  run(x, x, {TensorShape({2}), c3, c3},
      "scale must have as many elements as the channels of x (3), but got 2");
}

}  // namespace
}  // namespace minflow
