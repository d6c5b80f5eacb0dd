// ReorderedFilterCache (Note [Reordered constant filters]): what it finds,
// what it keeps, and its bound. The convolutions that use it are covered
// by conv_2d_op_test and constant_filters_test.
#include "src/kernels/cpu_conv_library.h"

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

TEST(ReorderedFilterCacheTest, FindsWhatWasKeptForTheSameBufferAndLayout) {
  ReorderedFilterCache cache;
  const Tensor filter = Floats(1);
  EXPECT_EQ(cache.Find(filter, &kLayoutA), nullptr);
  Tensor reordered = Floats(2, 8);
  const float* kept = cache.Keep(filter, &kLayoutA, &reordered);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept[7], 2);
  // Another reference to the same buffer finds it.
  const Tensor same = filter;
  EXPECT_EQ(cache.Find(same, &kLayoutA), kept);
  // Another layout, or another buffer with equal contents, does not.
  EXPECT_EQ(cache.Find(filter, &kLayoutB), nullptr);
  EXPECT_EQ(cache.Find(Floats(1), &kLayoutA), nullptr);
}

TEST(ReorderedFilterCacheTest, HoldsTheFilterBufferWhileItKeepsItsCopy) {
  ReorderedFilterCache cache;
  const Tensor filter = Floats(1);
  ASSERT_TRUE(filter.RefCountIsOne());
  Tensor reordered = Floats(2);
  ASSERT_NE(cache.Keep(filter, &kLayoutA, &reordered), nullptr);
  // So the address cannot be handed out again with other contents.
  EXPECT_FALSE(filter.RefCountIsOne());
}

TEST(ReorderedFilterCacheTest, SecondKeepReturnsTheFirstCopy) {
  ReorderedFilterCache cache;
  const Tensor filter = Floats(1);
  Tensor first = Floats(2);
  Tensor second = Floats(3);
  const float* kept = cache.Keep(filter, &kLayoutA, &first);
  EXPECT_EQ(cache.Keep(filter, &kLayoutA, &second), kept);
  EXPECT_EQ(kept[0], 2);
}

TEST(ReorderedFilterCacheTest, KeepsAtMostMaxEntries) {
  ReorderedFilterCache cache;
  std::vector<Tensor> filters;
  for (size_t i = 0; i < ReorderedFilterCache::kMaxEntries; ++i) {
    filters.push_back(Floats(static_cast<float>(i)));
    Tensor reordered = Floats(static_cast<float>(i));
    ASSERT_NE(cache.Keep(filters.back(), &kLayoutA, &reordered), nullptr);
  }
  const Tensor one_more = Floats(-1);
  Tensor reordered = Floats(-1);
  EXPECT_EQ(cache.Keep(one_more, &kLayoutA, &reordered), nullptr);
  // Left to the caller, who still uses it for this call.
  ASSERT_TRUE(reordered.IsInitialized());
  EXPECT_EQ(reordered.flat<float>()(0), -1);
  EXPECT_EQ(cache.Find(one_more, &kLayoutA), nullptr);
  // The earlier ones are still there.
  for (size_t i = 0; i < filters.size(); ++i) {
    const float* kept = cache.Find(filters[i], &kLayoutA);
    ASSERT_NE(kept, nullptr);
    EXPECT_EQ(kept[0], static_cast<float>(i));
  }
}

}  // namespace
}  // namespace internal
}  // namespace minflow
