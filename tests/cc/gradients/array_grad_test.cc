// The array gradients against central differences, in float and double,
// and the array ops declared without gradient. Tolerance, every op: float
// 2e-3, double 1e-7. These ops only move (or add up) values, so the
// Jacobian's entries are small integers and the differences' error is
// rounding alone; where a test squares the result, to tell positions
// apart, the inputs stay in [-1, 1].
#include <vector>

#include "gtest/gtest.h"
#include "minflow/cc/framework/client_session.h"
#include "minflow/cc/framework/grad_op_registry.h"
#include "minflow/cc/framework/gradients.h"
#include "minflow/cc/ops/standard_ops.h"
#include "tests/cc/gradients/grad_test_util.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using test::GradTolerance;

template <typename T>
class ArrayGradTest : public test::GradCheckTest<T> {};
TYPED_TEST_SUITE(ArrayGradTest, test::GradTypes);

constexpr GradTolerance kTol = {2e-3, 1e-7};

TYPED_TEST(ArrayGradTest, Identity) {
  this->Check(
      {{TensorShape({2, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        // Squared, so the Jacobian is not the identity itself.
        return ops::Square(s, ops::Identity(s, x[0])).y;
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, Reshape) {
  this->Check(
      {{TensorShape({2, 3, 2})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto r = ops::Reshape(s, x[0], {3, -1});
        // Mixes positions so a wrongly ordered gradient shows.
        return ops::MatMul(
                   s, r,
                   ops::Cast(s,
                             {{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}, {7.0, 8.0}},
                             x[0].type()))
            .product;
      },
      kTol);
}

// An int64 constant (index inputs default to int32).
Output Int64(const Scope& s, const std::vector<int64_t>& values,
             const TensorShape& shape) {
  return ops::Const(s, test::AsTensor<int64_t>(values, shape));
}

// A position-dependent weighting, so a gradient that lands in the wrong
// place shows: y = x * w with w = 1, 2, 3, ... in x's shape.
Output Weighted(const Scope& s, const Output& x) {
  auto shape = ops::Shape(s, x);
  auto n = ops::Size(s, x);
  auto w = ops::Reshape(s, ops::Range(s, 1, ops::Add(s, n, 1), 1), shape);
  return ops::Mul(s, x, ops::Cast(s, w, x.type()));
}

TYPED_TEST(ArrayGradTest, ExpandDimsAndSqueeze) {
  this->Check(
      {{TensorShape({2, 1, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto e = ops::ExpandDims(s, Weighted(s, x[0]), -1);
        return ops::Squeeze(s, e, ops::Squeeze::SqueezeDims({1}));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, Transpose) {
  this->Check(
      {{TensorShape({2, 3, 4})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s, ops::Transpose(s, x[0], {2, 0, 1}));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, ReverseV2) {
  this->Check(
      {{TensorShape({2, 3, 2})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s, ops::ReverseV2(s, x[0], {0, -1}));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, ConcatV2) {
  this->Check(
      {{TensorShape({2, 3})}, {TensorShape({2, 1})}, {TensorShape({2, 2})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s, ops::ConcatV2(s, {x[0], x[1], x[2]}, 1));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, ConcatV2NegativeInt64Axis) {
  this->Check(
      {{TensorShape({1, 2, 2})}, {TensorShape({3, 2, 2})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s, ops::ConcatV2(s, {x[0], x[1]}, Int64(s, {-3}, {})));
      },
      kTol);
}

// Part 1 unused: it gets zeros.
TYPED_TEST(ArrayGradTest, SplitWithAnUnusedPart) {
  this->Check(
      {{TensorShape({2, 6})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto parts = ops::Split(s, 1, x[0], 3);
        return ops::ConcatV2(s, {ops::Square(s, parts[0]).y, parts[2]}, 0);
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, SplitV) {
  this->Check(
      {{TensorShape({6, 2})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto parts = ops::SplitV(s, x[0], {1, -1, 2}, 0, 3);
        return ops::ConcatV2(
            s, {Weighted(s, parts[2]), ops::Square(s, parts[0]).y}, 0);
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, Pack) {
  this->Check(
      {{TensorShape({2, 3})}, {TensorShape({2, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s,
                        ops::Pack(s, {x[0], x[1], x[0]}, ops::Pack::Axis(-1)));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, UnpackWithAnUnusedPart) {
  this->Check(
      {{TensorShape({2, 3, 2})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto parts = ops::Unpack(s, x[0], 3, ops::Unpack::Axis(1));
        return ops::Mul(s, parts[0], Weighted(s, parts[2]));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, Slice) {
  this->Check(
      {{TensorShape({3, 4, 2})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s, ops::Slice(s, x[0], {1, 0, 1}, {2, -1, 1}));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, SliceInt64) {
  this->Check(
      {{TensorShape({5})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(
            s, ops::Slice(s, x[0], Int64(s, {2}, {1}), Int64(s, {2}, {1})));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, StridedSliceStrides) {
  // x[3:0:-2, ::2, 1:]
  this->Check(
      {{TensorShape({4, 5, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(
            s, ops::StridedSlice(s, x[0], {3, 0, 1}, {0, 0, 0}, {-2, 2, 1},
                                 ops::StridedSlice::EndMask(6)));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, StridedSliceEveryMask) {
  // x[newaxis, 1, ..., :2] with begin_mask on the last entry.
  this->Check(
      {{TensorShape({3, 2, 4})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto attrs = ops::StridedSlice::NewAxisMask(1)
                         .ShrinkAxisMask(2)
                         .EllipsisMask(4)
                         .BeginMask(8);
        return Weighted(s,
                        ops::StridedSlice(s, x[0], {0, 1, 0, 0}, {0, 2, 0, 2},
                                          {1, 1, 1, 1}, attrs));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, StridedSliceInt64AndRepeatedUse) {
  // Two overlapping slices of one x: their gradients add up.
  this->Check(
      {{TensorShape({6})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto a = ops::StridedSlice(s, x[0], Int64(s, {-1}, {1}),
                                   Int64(s, {0}, {1}), Int64(s, {-1}, {1}),
                                   ops::StridedSlice::EndMask(1));
        auto b = ops::StridedSlice(s, x[0], {1}, {4}, {1});
        return ops::ConcatV2(s, {Weighted(s, a), ops::Square(s, b).y}, 0);
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, StridedSliceGradIsLinearInDy) {
  this->Check(
      {{TensorShape({2, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(
            s, ops::StridedSliceGrad(
                   s, {4, 3, 2}, {1, 0, 1}, {0, 3, 2}, {2, 1, 1}, x[0],
                   ops::StridedSliceGrad::EndMask(1).ShrinkAxisMask(4)));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, GatherV2RepeatedIndices) {
  this->Check(
      {{TensorShape({4, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s, ops::GatherV2(s, x[0], {2, 0, 2, 3}, 0));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, GatherV2InnerAxisInt16MatrixIndices) {
  this->Check(
      {{TensorShape({2, 4, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto indices = ops::Cast(s, {{1, 3}, {1, 0}}, DT_INT16);
        return Weighted(s, ops::GatherV2(s, x[0], indices, 1));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, GatherV2NegativeAxis) {
  this->Check(
      {{TensorShape({2, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s,
                        ops::GatherV2(s, x[0], {2, 2, 0}, Int64(s, {-1}, {})));
      },
      kTol);
}

// batch_dims = 1, gathering the axis right after the batch, with a repeated
// index in one batch entry.
TYPED_TEST(ArrayGradTest, GatherV2BatchDims) {
  this->Check(
      {{TensorShape({2, 4, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s, ops::GatherV2(s, x[0], {{1, 3, 1}, {0, 2, 3}}, 1,
                                         ops::GatherV2::BatchDims(1)));
      },
      kTol);
}

// batch_dims = 1 with an outer axis between the batch and the gathered one,
// int64 matrix indices, a negative axis and a negative batch_dims (-2 of
// the indices' 3 dims).
TYPED_TEST(ArrayGradTest, GatherV2BatchDimsOuterAxisNegative) {
  this->Check(
      {{TensorShape({2, 3, 4, 2})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto indices = Int64(s, {3, 0, 0, 2, 1, 1, 3, 3}, {2, 2, 2});
        return Weighted(s, ops::GatherV2(s, x[0], indices, Int64(s, {-2}, {}),
                                         ops::GatherV2::BatchDims(-2)));
      },
      kTol);
}

// Two batch dims.
TYPED_TEST(ArrayGradTest, GatherV2TwoBatchDims) {
  this->Check(
      {{TensorShape({2, 2, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(
            s, ops::GatherV2(s, x[0], {{{2, 2}, {0, 1}}, {{1, 0}, {2, 2}}}, 2,
                             ops::GatherV2::BatchDims(2)));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, Pad) {
  this->Check(
      {{TensorShape({2, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s, ops::Pad(s, x[0], {{1, 0}, {2, 1}}));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, PadV2Int64Paddings) {
  this->Check(
      {{TensorShape({3, 1, 2})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto paddings = Int64(s, {0, 1, 1, 1, 0, 0}, {3, 2});
        auto value = ops::Cast(s, 0.5, x[0].type());
        return Weighted(s, ops::PadV2(s, x[0], paddings, value));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, MirrorPadReflect) {
  this->Check(
      {{TensorShape({3, 4})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s,
                        ops::MirrorPad(s, x[0], {{2, 1}, {1, 3}}, "REFLECT"));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, MirrorPadSymmetric) {
  this->Check(
      {{TensorShape({2, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto paddings = Int64(s, {2, 1, 0, 3}, {2, 2});
        return Weighted(s, ops::MirrorPad(s, x[0], paddings, "SYMMETRIC"));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, MirrorPadGradIsLinear) {
  this->Check(
      {{TensorShape({5, 6})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(
            s, ops::MirrorPadGrad(s, x[0], {{1, 1}, {2, 1}}, "REFLECT"));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, Tile) {
  this->Check(
      {{TensorShape({2, 1, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s, ops::Tile(s, x[0], {2, 3, 1}));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, TileInt64Multiples) {
  this->Check(
      {{TensorShape({3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s, ops::Tile(s, x[0], Int64(s, {3}, {1})));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, BroadcastTo) {
  this->Check(
      {{TensorShape({3, 1})}},
      [](const Scope& s, const std::vector<Output>& x) {
        return Weighted(s, ops::BroadcastTo(s, x[0], {2, 3, 4}));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, IdentityN) {
  this->Check(
      {{TensorShape({2, 2})}, {TensorShape({2, 2})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto ids = ops::IdentityN(s, {x[0], x[1]});
        return ops::Mul(s, ids[0], Weighted(s, ids[1]));
      },
      kTol);
}

TYPED_TEST(ArrayGradTest, PassThroughOps) {
  this->Check(
      {{TensorShape({2, 3})}},
      [](const Scope& s, const std::vector<Output>& x) {
        auto a =
            ops::PlaceholderWithDefault(s, x[0], PartialTensorShape({-1, 3}));
        auto b = ops::Snapshot(s, a);
        auto c = ops::EnsureShape(s, b, PartialTensorShape({2, 3}));
        return ops::Square(s, Weighted(s, c)).y;
      },
      kTol);
}

// The guide's ZeroOut: only element preserve_index receives a gradient.
TYPED_TEST(ArrayGradTest, ZeroOut) {
  for (int64_t preserve : {0, 3}) {
    SCOPED_TRACE(preserve);
    this->Check(
        {{TensorShape({5})}},
        [preserve](const Scope& s, const std::vector<Output>& x) {
          auto z = ops::ZeroOut(s, Weighted(s, x[0]),
                                ops::ZeroOut::PreserveIndex(preserve));
          return ops::Square(s, z).y;
        },
        kTol);
  }
}

// Beyond the checker: the gradient ZeroOut's is, with index 0 as the
// guide's, holds dy[0] at 0 and zeros elsewhere.
TEST(ArrayGradValueTest, ZeroOutGradientKeepsTheFirstElement) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT);
  auto y = ops::ZeroOut(root, x);
  auto dy = ops::Const(root, {5.f, 6.f, 7.f});
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root, {y}, {x}, {dy}, &grads));
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(
      session.Run({{x, test::AsTensor<float>({1, 2, 3})}}, grads, &out));
  test::ExpectTensorEqual<float>(out[0], test::AsTensor<float>({5, 0, 0}));
}

// A ref Variable read through RefIdentity and Identity: d(v^2)/dv = 2v.
TEST(ArrayGradValueTest, RefVariableReads) {
  Scope root = Scope::NewRootScope();
  auto v = ops::Variable(root, {3}, DT_FLOAT);
  auto init = ops::Assign(root, v, ops::Const(root, {1.f, -2.f, 3.f}));
  auto read = ops::Identity(root, ops::RefIdentity(root, v));
  auto y = ops::Square(root, read);
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root, {y}, {v}, &grads));
  ASSERT_NE(grads[0].node(), nullptr);
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({init}, &out));
  MF_ASSERT_OK(session.Run(grads, &out));
  test::ExpectTensorNear<float>(out[0], test::AsTensor<float>({2, -4, 6}),
                                1e-6);
}

// ReadVariableOp's gradient passes dy on to the handle unchanged.
TEST(ArrayGradValueTest, ReadVariableOpPassesThrough) {
  ops::GradFunc fn = nullptr;
  MF_ASSERT_OK(ops::GradOpRegistry::Global()->Lookup("ReadVariableOp", &fn));
  ASSERT_NE(fn, nullptr);
  Scope root = Scope::NewRootScope();
  auto handle = ops::VarHandleOp(root, DT_FLOAT, TensorShape({2}));
  auto read = ops::ReadVariableOp(root, handle, DT_FLOAT);
  auto dy = ops::Const(root, {4.f, -1.f});
  std::vector<Output> dx;
  MF_ASSERT_OK(fn(root, read.operation, {dy}, &dx));
  ASSERT_EQ(dx.size(), 1u);
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run(dx, &out));
  test::ExpectTensorEqual<float>(out[0], test::AsTensor<float>({4, -1}));
}

// ResourceGather's gradient is the variable's, dense: rows of dy summed
// into the rows they were gathered from, per batch entry (batch_dims = 1).
TEST(ArrayGradValueTest, ResourceGatherGivesTheVariablesDenseGradient) {
  ops::GradFunc fn = nullptr;
  MF_ASSERT_OK(ops::GradOpRegistry::Global()->Lookup("ResourceGather", &fn));
  Scope root = Scope::NewRootScope();
  auto handle = ops::VarHandleOp(root, DT_FLOAT, TensorShape({2, 3}));
  auto init = ops::AssignVariableOp(
      root, handle, ops::Const(root, {{0.f, 0.f, 0.f}, {0.f, 0.f, 0.f}}));
  auto gather = ops::ResourceGather(root, handle, {{2, 2}, {0, 1}}, DT_FLOAT,
                                    ops::ResourceGather::BatchDims(1));
  auto dy = ops::Const(root, {{1.f, 2.f}, {3.f, 4.f}});
  std::vector<Output> dx;
  MF_ASSERT_OK(fn(root, gather.operation, {dy}, &dx));
  ASSERT_EQ(dx.size(), 2u);
  EXPECT_EQ(dx[1].node(), nullptr);  // the indices
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({}, {}, {init.operation}, &out));
  MF_ASSERT_OK(session.Run({dx[0]}, &out));
  test::ExpectTensorEqual<float>(
      out[0], test::AsTensor<float>({0, 0, 3, 3, 4, 0}, TensorShape({2, 3})));
}

// The integer and shape ops TensorFlow declares NotDifferentiable.
TEST(ArrayNoGradientTest, IntegerOpsAreDeclared) {
  for (const char* op :
       {"ConcatOffset", "InvertPermutation", "ShapeN", "OneHot", "Where",
        "Unique", "BroadcastArgs", "BroadcastGradientArgs"}) {
    ops::GradFunc fn = reinterpret_cast<ops::GradFunc>(1);
    SCOPED_TRACE(op);
    MF_EXPECT_OK(ops::GradOpRegistry::Global()->Lookup(op, &fn));
    EXPECT_EQ(fn, nullptr) << op;
  }
}

// Shape, Size and Rank: y = x * rank(x) * size(x) / shape(x)[0] has the
// gradient of x times a constant; the integer ops pass nothing back.
TEST(ArrayNoGradientTest, ShapeSizeRankAreConstants) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root, DT_FLOAT);
  auto as_float = [&](const Output& i) { return ops::Cast(root, i, DT_FLOAT); };
  auto first = ops::Slice(root, ops::Shape(root, x), {0}, {1});
  auto factor = ops::RealDiv(root,
                             ops::Mul(root, as_float(ops::Rank(root, x)),
                                      as_float(ops::Size(root, x))),
                             as_float(first));
  auto y = ops::Mul(root, x, factor);
  std::vector<Output> grads;
  MF_ASSERT_OK(AddSymbolicGradients(root, {y}, {x}, &grads));
  ClientSession session(root);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session.Run({{x, test::AsTensor<float>({1, 2, 3, 4}, {2, 2})}},
                           grads, &out));
  // rank 2 * size 4 / 2 = 4 for every element.
  test::ExpectTensorNear<float>(
      out[0], test::AsTensor<float>({4, 4, 4, 4}, {2, 2}), 1e-6);
}

}  // namespace
}  // namespace minflow
