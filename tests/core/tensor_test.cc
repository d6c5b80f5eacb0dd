#include "minflow/core/tensor.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

TEST(TensorTest, DefaultIsEmptyFloatVector) {
  Tensor t;
  EXPECT_EQ(t.dtype(), DT_FLOAT);
  EXPECT_EQ(t.shape(), TensorShape({0}));
  EXPECT_TRUE(t.IsInitialized());
  EXPECT_EQ(t.data(), nullptr);
}

TEST(TensorTest, BuffersAre64ByteAligned) {
  for (int n : {1, 3, 17, 1000}) {
    Tensor t(DT_FLOAT, TensorShape({n}));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
    EXPECT_TRUE(t.IsAligned());
  }
}

TEST(TensorTest, EigenViewsSeeRowMajorLayout) {
  Tensor t(DT_INT32, TensorShape({2, 3}));
  auto flat = t.flat<int32_t>();
  for (int i = 0; i < 6; ++i) flat(i) = i;
  auto m = t.matrix<int32_t>();
  EXPECT_EQ(m(1, 0), 3);
  EXPECT_EQ(m(0, 2), 2);
  auto t3 = t.tensor<int32_t, 2>();
  EXPECT_EQ(t3.dimension(1), 3);
  auto reshaped = t.shaped<int32_t, 3>({3, 1, 2});
  EXPECT_EQ(reshaped(2, 0, 1), 5);
  auto inner =
      Tensor(DT_FLOAT, TensorShape({2, 3, 4})).flat_inner_dims<float>();
  EXPECT_EQ(inner.dimension(0), 6);
  EXPECT_EQ(inner.dimension(1), 4);
  auto outer =
      Tensor(DT_FLOAT, TensorShape({2, 3, 4})).flat_outer_dims<float>();
  EXPECT_EQ(outer.dimension(0), 2);
  EXPECT_EQ(outer.dimension(1), 12);
  auto inner3 = Tensor(DT_FLOAT, TensorShape({5})).flat_inner_dims<float, 3>();
  EXPECT_EQ(inner3.dimension(0), 1);
  EXPECT_EQ(inner3.dimension(2), 5);
}

TEST(TensorTest, ScalarConstructors) {
  EXPECT_EQ(Tensor(2.5f).scalar<float>()(), 2.5f);
  EXPECT_EQ(Tensor(int64_t{7}).scalar<int64_t>()(), 7);
  EXPECT_EQ(Tensor(true).scalar<bool>()(), true);
  EXPECT_EQ(Tensor("hi").scalar<std::string>()(), "hi");
  EXPECT_EQ(Tensor(2.5f).dims(), 0);
}

TEST(TensorDeathTest, WrongTypeAccessIsAProgrammerError) {
  Tensor t(DT_FLOAT, TensorShape({2}));
  EXPECT_DEATH(t.flat<int32_t>(), "accessed as int32");
  EXPECT_DEATH(t.matrix<float>(), "internal error");
}

TEST(TensorTest, CopiesShareTheBufferAndRefcount) {
  Tensor a(DT_FLOAT, TensorShape({4}));
  EXPECT_TRUE(a.RefCountIsOne());
  {
    Tensor b = a;
    EXPECT_TRUE(b.SharesBufferWith(a));
    EXPECT_FALSE(a.RefCountIsOne());
  }
  EXPECT_TRUE(a.RefCountIsOne());
  Tensor moved = std::move(a);
  EXPECT_TRUE(moved.RefCountIsOne());
}

TEST(TensorTest, SliceSharesMemoryAndKeepsRootAlive) {
  Tensor slice;
  {
    Tensor t(DT_INT64, TensorShape({4, 2}));
    auto f = t.flat<int64_t>();
    for (int i = 0; i < 8; ++i) f(i) = i * 10;
    slice = t.Slice(1, 3);
    EXPECT_TRUE(slice.SharesBufferWith(t));
    EXPECT_FALSE(t.RefCountIsOne());
  }
  EXPECT_EQ(slice.shape(), TensorShape({2, 2}));
  auto f = slice.unaligned_flat<int64_t>();
  EXPECT_EQ(f(0), 20);
  EXPECT_EQ(f(3), 50);
  // The slice holds the only reference to the root, so it may be forwarded.
  EXPECT_TRUE(slice.RefCountIsOne());
  Tensor empty = slice.Slice(1, 1);
  EXPECT_EQ(empty.NumElements(), 0);
}

TEST(TensorTest, CopyFromReshapesWithoutCopying) {
  Tensor t(DT_FLOAT, TensorShape({6}));
  Tensor r;
  EXPECT_TRUE(r.CopyFrom(t, TensorShape({2, 3})));
  EXPECT_TRUE(r.SharesBufferWith(t));
  EXPECT_FALSE(r.CopyFrom(t, TensorShape({4})));
  EXPECT_TRUE(t.CopyFrom(t, TensorShape({3, 2})));  // self-reshape
  EXPECT_EQ(t.shape(), TensorShape({3, 2}));
}

TEST(TensorTest, StringTensorsConstructAndDestroyElements) {
  Tensor t(DT_STRING, TensorShape({3}));
  auto f = t.flat<std::string>();
  EXPECT_EQ(f(0), "");
  f(1) = std::string(1000, 'x');  // heap storage: leaks would show under ASan
  Tensor copy = t.DeepCopy();
  EXPECT_FALSE(copy.SharesBufferWith(t));
  EXPECT_EQ(copy.flat<std::string>()(1).size(), 1000u);
}

TEST(TensorTest, AllocateReportsOutOfMemory) {
  CpuAllocator small(1024);
  EXPECT_THAT(
      Tensor::Allocate(&small, DT_FLOAT, TensorShape({1000})),
      StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("4000 bytes")));
  Tensor t(&small, DT_FLOAT, TensorShape({1000}));
  EXPECT_FALSE(t.IsInitialized());
  MF_EXPECT_OK(Tensor::Allocate(&small, DT_FLOAT, TensorShape({10})).status());
  EXPECT_THAT(
      Tensor::Allocate(&small, DT_FLOAT_REF, TensorShape({1})),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("float_ref")));
}

TEST(TensorTest, ExternalMemoryIsReleasedOnce) {
  alignas(64) static float storage[4] = {1, 2, 3, 4};
  int releases = 0;
  {
    Tensor t(DT_FLOAT, TensorShape({2, 2}), storage,
             [&releases](void*) { ++releases; });
    Tensor copy = t;
    EXPECT_EQ(copy.matrix<float>()(1, 1), 4.0f);
  }
  EXPECT_EQ(releases, 1);
}

TEST(TensorTest, SummaryAndDebugString) {
  Tensor t(DT_FLOAT, TensorShape({2, 2}));
  auto f = t.flat<float>();
  f(0) = 1;
  f(1) = 2;
  f(2) = 3;
  f(3) = 4.5;
  EXPECT_EQ(t.SummarizeValue(10), "[[1 2]\n [3 4.5]]");
  EXPECT_EQ(t.SummarizeValue(3, false), "1 2 3...");
  EXPECT_EQ(t.DebugString(),
            "Tensor<type: float shape: [2,2] values: 1 2 3...>");
  Tensor big(DT_INT32, TensorShape({100}));
  big.flat<int32_t>().setZero();
  EXPECT_THAT(big.SummarizeValue(3), HasSubstr("..."));
  EXPECT_EQ(Tensor(true).SummarizeValue(1), "True");
  EXPECT_EQ(Tensor(DT_FLOAT, TensorShape({0})).SummarizeValue(3), "[]");
}

}  // namespace
}  // namespace minflow
