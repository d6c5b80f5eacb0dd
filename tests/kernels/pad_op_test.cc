#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "tests/kernels/array_op_test_util.h"

namespace minflow {
namespace {

enum class Mode { kConstant, kReflect, kSymmetric };

// For output index o of a dim of `size` padded by `before`: the input
// index, or -1 for the constant border.
int64_t MapIndex(int64_t o, int64_t size, int64_t before, Mode mode) {
  int64_t i = o - before;
  if (i >= 0 && i < size) return i;
  if (mode == Mode::kConstant) return -1;
  // Reflect around the edge element (REFLECT) or the edge (SYMMETRIC).
  if (i < 0) return mode == Mode::kReflect ? -i : -i - 1;
  return mode == Mode::kReflect ? 2 * (size - 1) - i : 2 * size - 1 - i;
}

class PadOpTest : public test::ArrayOpTest {
 protected:
  void AddPaddings(const std::vector<int64_t>& pads, DataType tpad) {
    const TensorShape shape({static_cast<int64_t>(pads.size() / 2), 2});
    if (tpad == DT_INT32) {
      AddInputFromArray<int32_t>(
          shape, std::vector<int32_t>(pads.begin(), pads.end()));
    } else {
      AddInputFromArray<int64_t>(shape, pads);
    }
  }

  // `pads` holds before, after per dim. PadV2 when `value` is given.
  void Check(Mode mode, DataType dtype, const TensorShape& in,
             const std::vector<int64_t>& pads, DataType tpad = DT_INT32,
             const Tensor* value = nullptr) {
    SCOPED_TRACE(::testing::Message()
                 << DataTypeString(dtype) << " " << in.DebugString() << " pads "
                 << ::testing::PrintToString(pads) << " mode "
                 << static_cast<int>(mode));
    if (mode == Mode::kConstant && value == nullptr) {
      MakeNode("Pad").Input(dtype).Input(tpad);
    } else if (mode == Mode::kConstant) {
      MakeNode("PadV2").Input(dtype).Input(tpad).Input(dtype);
    } else {
      MakeNode("MirrorPad")
          .Input(dtype)
          .Input(tpad)
          .Attr("mode", mode == Mode::kReflect ? "REFLECT" : "SYMMETRIC");
    }
    MF_ASSERT_OK(MakeOp());
    const Tensor input = test::MakeTestTensor(dtype, in);
    AddInputTensor(input);
    AddPaddings(pads, tpad);
    if (value != nullptr) AddInputTensor(*value);
    RunAndCheckShapes();

    std::vector<int64_t> out_dims;
    for (int d = 0; d < in.dims(); ++d) {
      out_dims.push_back(pads[2 * d] + in.dim_size(d) + pads[2 * d + 1]);
    }
    const TensorShape out(out_dims);
    const auto strides = test::Strides(in);
    std::vector<int64_t> src;
    for (int64_t e = 0; e < out.num_elements(); ++e) {
      const auto idx = test::Unravel(e, out);
      int64_t s = 0;
      for (int d = 0; d < in.dims() && s >= 0; ++d) {
        const int64_t i = MapIndex(idx[d], in.dim_size(d), pads[2 * d], mode);
        s = i < 0 ? -1 : s + i * strides[d];
      }
      src.push_back(s);
    }
    Tensor fill = value != nullptr ? *value : Tensor(dtype, TensorShape({}));
    if (value == nullptr) {
      // Pad's border is T's zero ("" for strings).
      VisitDataType(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        fill.base<T>()[0] = T();
      });
    }
    test::ExpectEqual(*GetOutput(0),
                      test::GatherReference(input, out, src, &fill));
  }

  void MakeFloat(const std::string& op, const TensorShape& in,
                 const std::vector<int64_t>& pads,
                 const std::string& mode = "REFLECT") {
    auto& node = MakeNode(op).Input(DT_FLOAT).Input(DT_INT32);
    if (op == "MirrorPad") node.Attr("mode", mode);
    if (op == "PadV2") node.Input(DT_FLOAT);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, in));
    AddPaddings(pads, DT_INT32);
  }
};

TEST_F(PadOpTest, ConstantPadEveryElementSize) {
  for (DataType dtype : test::MovementTypes()) {
    Check(Mode::kConstant, dtype, TensorShape({2, 3}), {1, 2, 0, 3});
    Check(Mode::kConstant, dtype, TensorShape({2, 3, 2}), {0, 0, 2, 1, 1, 1},
          DT_INT64);
  }
}

TEST_F(PadOpTest, PadV2UsesTheConstant) {
  for (DataType dtype : test::MovementTypes()) {
    const Tensor value = test::MakeTestTensor(dtype, TensorShape({}), 1000);
    Check(Mode::kConstant, dtype, TensorShape({3, 2}), {1, 1, 2, 0}, DT_INT32,
          &value);
  }
}

TEST_F(PadOpTest, ScalarsEmptyAndNoPadding) {
  Check(Mode::kConstant, DT_FLOAT, TensorShape({}), {});
  Check(Mode::kConstant, DT_FLOAT, TensorShape({0, 3}), {1, 1, 0, 0});
  Check(Mode::kConstant, DT_FLOAT, TensorShape({0, 3}), {0, 0, 5, 5});
  Check(Mode::kConstant, DT_STRING, TensorShape({2, 0}), {1, 0, 1, 2});
  Check(Mode::kConstant, DT_FLOAT, TensorShape({2, 3}), {0, 0, 0, 0});
  EXPECT_TRUE(GetOutput(0)->SharesBufferWith(GetInput(0)));
}

TEST_F(PadOpTest, Rank5AndLarge) {
  Check(Mode::kConstant, DT_INT32, TensorShape({2, 1, 2, 3, 2}),
        {1, 0, 0, 2, 1, 1, 0, 0, 2, 1});
  Check(Mode::kConstant, DT_FLOAT, TensorShape({1, 256, 256, 8}),
        {0, 0, 3, 3, 3, 3, 0, 0});  // NHWC border, sharded
}

TEST_F(PadOpTest, MirrorPadReflectAndSymmetric) {
  for (DataType dtype : test::MovementTypes()) {
    Check(Mode::kReflect, dtype, TensorShape({3, 4}), {2, 1, 3, 3});
    Check(Mode::kSymmetric, dtype, TensorShape({3, 4}), {3, 0, 4, 4}, DT_INT64);
  }
  Check(Mode::kReflect, DT_FLOAT, TensorShape({2, 3, 4, 2}),
        {1, 1, 2, 2, 0, 3, 1, 0});
  Check(Mode::kSymmetric, DT_FLOAT, TensorShape({1}), {1, 1});
  Check(Mode::kReflect, DT_FLOAT, TensorShape({}), {});
  Check(Mode::kSymmetric, DT_FLOAT, TensorShape({0, 2}), {0, 0, 1, 1});
  Check(Mode::kSymmetric, DT_FLOAT, TensorShape({1, 300, 300, 3}),
        {0, 0, 5, 5, 5, 5, 0, 0});  // sharded
}

TEST_F(PadOpTest, RejectsBadPaddingsShape) {
  MakeNode("Pad").Input(DT_FLOAT).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2, 3})));
  AddInputFromArray<int32_t>(TensorShape({4}), {1, 1, 1, 1});
  ExpectInvalid("paddings must be a matrix with 2 columns: [4]");
}

TEST_F(PadOpTest, RejectsPaddingsOfWrongRank) {
  MakeFloat("Pad", TensorShape({2, 3}), {1, 1});
  ExpectInvalid(
      "The first dimension of paddings must be the rank of inputs[1,2], "
      "[2,3]");
}

TEST_F(PadOpTest, RejectsNegativePaddings) {
  MakeFloat("Pad", TensorShape({2, 3}), {1, 1, -1, 0});
  ExpectInvalid("Paddings must be non-negative: -1 0");
  MakeFloat("MirrorPad", TensorShape({2, 3}), {0, -2, 0, 0});
  ExpectInvalid("paddings must be non-negative: 0 -2");
  MakeFloat("MirrorPad", TensorShape({2, 3}), {-1, 0, 0, 0}, "SYMMETRIC");
  ExpectInvalid("paddings must be non-negative: -1 0");
}

TEST_F(PadOpTest, RejectsNonScalarConstant) {
  MakeFloat("PadV2", TensorShape({2, 3}), {1, 1, 1, 1});
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({1})));
  ExpectInvalid("constant_values must be a scalar. Found: [1]");
}

TEST_F(PadOpTest, RejectsOverflowingPaddedSize) {
  MakeNode("Pad").Input(DT_FLOAT).Input(DT_INT64);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({2})));
  AddPaddings({std::numeric_limits<int64_t>::max() - 1, 1}, DT_INT64);
  ExpectInvalid("Padded size of dimension 0 overflows int64");
  // Each dim fits, their product does not.
  MakeNode("Pad").Input(DT_FLOAT).Input(DT_INT64);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::MakeTestTensor(DT_FLOAT, TensorShape({1, 1})));
  AddPaddings({int64_t{1} << 40, 0, int64_t{1} << 40, 0}, DT_INT64);
  ExpectInvalid("too many elements");
}

TEST_F(PadOpTest, MirrorPadRejectsPaddingsPastTheEdge) {
  MakeFloat("MirrorPad", TensorShape({2, 3}), {0, 0, 3, 0}, "REFLECT");
  ExpectInvalid(
      "paddings must be less than the dimension size: 3, 0 not less than 3");
  MakeFloat("MirrorPad", TensorShape({2, 3}), {0, 3, 0, 0}, "SYMMETRIC");
  ExpectInvalid(
      "paddings must be no greater than the dimension size: 0, 3 greater "
      "than 2");
}

// MirrorPadGrad(grad, paddings): element i of the result adds up every
// element of grad that MirrorPad copied from i (MapIndex above).
class MirrorPadGradOpTest : public PadOpTest {
 protected:
  template <typename T>
  void CheckGrad(Mode mode, const TensorShape& padded,
                 const std::vector<int64_t>& pads, DataType tpad = DT_INT32) {
    SCOPED_TRACE(::testing::Message() << padded.DebugString() << " pads "
                                      << ::testing::PrintToString(pads)
                                      << " mode " << static_cast<int>(mode));
    const DataType dtype = DataTypeToEnum<T>::v();
    MakeNode("MirrorPadGrad")
        .Input(dtype)
        .Input(tpad)
        .Attr("mode", mode == Mode::kReflect ? "REFLECT" : "SYMMETRIC");
    MF_ASSERT_OK(MakeOp());
    const Tensor grad = test::MakeTestTensor(dtype, padded);
    AddInputTensor(grad);
    AddPaddings(pads, tpad);
    RunAndCheckShapes();

    std::vector<int64_t> out_dims;
    for (int d = 0; d < padded.dims(); ++d) {
      out_dims.push_back(padded.dim_size(d) - pads[2 * d] - pads[2 * d + 1]);
    }
    const TensorShape out(out_dims);
    const auto strides = test::Strides(out);
    Tensor expected(dtype, out);
    T* e = expected.base<T>();
    std::fill(e, e + out.num_elements(), T(0));
    for (int64_t g = 0; g < padded.num_elements(); ++g) {
      const auto idx = test::Unravel(g, padded);
      int64_t dst = 0;
      for (int d = 0; d < padded.dims(); ++d) {
        dst +=
            MapIndex(idx[d], out.dim_size(d), pads[2 * d], mode) * strides[d];
      }
      // Signed integers wrap around, as the kernel sums them (the random
      // int32 gradients here overflow).
      if constexpr (std::is_integral_v<T>) {
        using Unsigned = std::make_unsigned_t<T>;
        e[dst] = static_cast<T>(static_cast<Unsigned>(e[dst]) +
                                static_cast<Unsigned>(grad.base<const T>()[g]));
      } else {
        e[dst] += grad.base<const T>()[g];
      }
    }
    test::ExpectEqual(*GetOutput(0), expected);
  }

  void MakeGrad(const TensorShape& padded, const std::vector<int64_t>& pads,
                const std::string& mode) {
    MakeNode("MirrorPadGrad")
        .Input(DT_FLOAT)
        .Input(DT_INT32)
        .Attr("mode", mode);
    MF_ASSERT_OK(MakeOp());
    AddInputTensor(test::MakeTestTensor(DT_FLOAT, padded));
    AddPaddings(pads, DT_INT32);
  }
};

TEST_F(MirrorPadGradOpTest, ReflectAndSymmetric) {
  for (Mode mode : {Mode::kReflect, Mode::kSymmetric}) {
    CheckGrad<float>(mode, TensorShape({7}), {2, 2});
    CheckGrad<double>(mode, TensorShape({6, 7}), {2, 1, 0, 3}, DT_INT64);
    CheckGrad<int32_t>(mode, TensorShape({4, 5, 4}), {1, 1, 2, 0, 1, 1});
  }
  // SYMMETRIC pads as much as the whole dimension.
  CheckGrad<float>(Mode::kSymmetric, TensorShape({6, 3}), {2, 2, 1, 1});
}

TEST_F(MirrorPadGradOpTest, ScalarEmptyAndUnpadded) {
  CheckGrad<float>(Mode::kReflect, TensorShape({}), {});
  CheckGrad<float>(Mode::kSymmetric, TensorShape({0, 4}), {0, 0, 1, 1});
  CheckGrad<float>(Mode::kSymmetric, TensorShape({3, 2}), {0, 0, 0, 0});
}

TEST_F(MirrorPadGradOpTest, RejectsBadPaddingsShape) {
  MakeGrad(TensorShape({4, 4}), {1, 1}, "REFLECT");
  ExpectInvalid(
      "MirrorPadGrad: paddings must be a [2, 2] matrix for an input of rank "
      "2, but got [1,2]");
}

TEST_F(MirrorPadGradOpTest, RejectsNegativePaddings) {
  MakeGrad(TensorShape({4, 4}), {0, 0, -1, 1}, "REFLECT");
  ExpectInvalid(
      "MirrorPadGrad: paddings must be non-negative, but got -1, 1 in "
      "dimension 1");
}

TEST_F(MirrorPadGradOpTest, RejectsPaddingsLargerThanTheInput) {
  MakeGrad(TensorShape({4, 4}), {3, 2, 0, 0}, "SYMMETRIC");
  ExpectInvalid(
      "MirrorPadGrad: paddings must add up to at most the input's size, but "
      "got 3 + 2 for size 4 in dimension 0");
}

TEST_F(MirrorPadGradOpTest, RejectsPaddingsPastTheMirroredEdge) {
  // 5 = 2 + 1 + 2: REFLECT needs pads < 1.
  MakeGrad(TensorShape({5}), {2, 2}, "REFLECT");
  ExpectInvalid(
      "MirrorPadGrad: paddings must be less than the output's size, but got "
      "2, 2 for size 1 in dimension 0");
  MakeGrad(TensorShape({5}), {3, 1}, "SYMMETRIC");
  ExpectInvalid(
      "MirrorPadGrad: paddings must be no greater than the output's size, but "
      "got 3, 1 for size 1 in dimension 0");
}

}  // namespace
}  // namespace minflow
