// ConstantLayoutCache (Note [Kept constant layouts]): what it finds, what
// it keeps, and its bound. The kernels that use it are covered by
// conv_2d_op_test, matmul_op_test and constant_filters_test.
#include "src/kernels/constant_layout_cache.h"

#include <vector>

#include "gtest/gtest.h"
#include "minflow/core/tensor.h"

namespace minflow {
namespace internal {
namespace {

Tensor Floats(float value, int64_t n = 4) {
  Tensor t(DT_FLOAT, TensorShape({n}));
  t.flat<float>().setConstant(value);
  return t;
}

int kLayoutA, kLayoutB;  // two distinct layout keys

TEST(ConstantLayoutCacheTest, FindsWhatWasKeptForTheSameBufferAndLayout) {
  ConstantLayoutCache cache;
  const Tensor constant = Floats(1);
  EXPECT_EQ(cache.Find(constant, &kLayoutA), nullptr);
  Tensor copy = Floats(2, 8);
  const float* kept = cache.Keep(constant, &kLayoutA, &copy);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept[7], 2);
  // Another reference to the same buffer finds it.
  const Tensor same = constant;
  EXPECT_EQ(cache.Find(same, &kLayoutA), kept);
  // Another layout, or another buffer with equal contents, does not.
  EXPECT_EQ(cache.Find(constant, &kLayoutB), nullptr);
  EXPECT_EQ(cache.Find(Floats(1), &kLayoutA), nullptr);
}

TEST(ConstantLayoutCacheTest, HoldsTheConstantsBufferWhileItKeepsItsCopy) {
  ConstantLayoutCache cache;
  const Tensor constant = Floats(1);
  ASSERT_TRUE(constant.RefCountIsOne());
  Tensor copy = Floats(2);
  ASSERT_NE(cache.Keep(constant, &kLayoutA, &copy), nullptr);
  // So the address cannot be handed out again with other contents.
  EXPECT_FALSE(constant.RefCountIsOne());
}

TEST(ConstantLayoutCacheTest, SecondKeepReturnsTheFirstCopy) {
  ConstantLayoutCache cache;
  const Tensor constant = Floats(1);
  Tensor first = Floats(2);
  Tensor second = Floats(3);
  const float* kept = cache.Keep(constant, &kLayoutA, &first);
  EXPECT_EQ(cache.Keep(constant, &kLayoutA, &second), kept);
  EXPECT_EQ(kept[0], 2);
}

TEST(ConstantLayoutCacheTest, KeepsAtMostMaxEntries) {
  ConstantLayoutCache cache;
  std::vector<Tensor> constants;
  for (size_t i = 0; i < ConstantLayoutCache::kMaxEntries; ++i) {
    EXPECT_FALSE(cache.Full()) << i;
    constants.push_back(Floats(static_cast<float>(i)));
    Tensor copy = Floats(static_cast<float>(i));
    ASSERT_NE(cache.Keep(constants.back(), &kLayoutA, &copy), nullptr);
  }
  EXPECT_TRUE(cache.Full());
  const Tensor one_more = Floats(-1);
  Tensor copy = Floats(-1);
  EXPECT_EQ(cache.Keep(one_more, &kLayoutA, &copy), nullptr);
  // Left to the caller, who still uses it for this call.
  ASSERT_TRUE(copy.IsInitialized());
  EXPECT_EQ(copy.flat<float>()(0), -1);
  EXPECT_EQ(cache.Find(one_more, &kLayoutA), nullptr);
  // The earlier ones are still there.
  for (size_t i = 0; i < constants.size(); ++i) {
    const float* kept = cache.Find(constants[i], &kLayoutA);
    ASSERT_NE(kept, nullptr);
    EXPECT_EQ(kept[0], static_cast<float>(i));
  }
}

}  // namespace
}  // namespace internal
}  // namespace minflow
