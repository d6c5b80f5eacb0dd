// Variant: a copyable value of any type, and DT_VARIANT tensors of them.
#include "minflow/core/variant.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"

namespace minflow {
namespace {

struct Named {
  int value = 0;
  std::string TypeName() const { return "Named"; }
  std::string DebugString() const {
    return "Named(" + std::to_string(value) + ")";
  }
};

struct Plain {
  std::vector<int> values;
};

// Counts live instances, to check that tensors destroy their elements.
struct Counted {
  static int live;
  Counted() { ++live; }
  Counted(const Counted&) { ++live; }
  ~Counted() { --live; }
};
int Counted::live = 0;

TEST(VariantTest, HoldsAValueAndSaysItsType) {
  Variant empty;
  EXPECT_TRUE(empty.is_empty());
  EXPECT_EQ(empty.TypeName(), "<empty>");
  EXPECT_EQ(empty.get<int>(), nullptr);

  Variant named = Named{7};
  ASSERT_NE(named.get<Named>(), nullptr);
  EXPECT_EQ(named.get<Named>()->value, 7);
  EXPECT_EQ(named.get<Plain>(), nullptr);  // another type: no value
  EXPECT_EQ(named.TypeName(), "Named");
  EXPECT_EQ(named.DebugString(), "Named(7)");

  Variant plain = Plain{{1, 2}};
  EXPECT_THAT(plain.TypeName(), ::testing::HasSubstr("Plain"));
  EXPECT_THAT(plain.DebugString(), ::testing::HasSubstr("Variant<type:"));
}

TEST(VariantTest, CopiesAreIndependent) {
  Variant a = Plain{{1, 2}};
  Variant b = a;
  b.get<Plain>()->values.push_back(3);
  EXPECT_EQ(a.get<Plain>()->values.size(), 2u);
  EXPECT_EQ(b.get<Plain>()->values.size(), 3u);
  Variant c = std::move(b);
  EXPECT_TRUE(b.is_empty());  // NOLINT: moved-from is empty by contract
  EXPECT_EQ(c.get<Plain>()->values.size(), 3u);
  c = Named{1};
  EXPECT_EQ(c.get<Plain>(), nullptr);
  EXPECT_EQ(c.get<Named>()->value, 1);
}

TEST(VariantTest, TensorsOfVariantsConstructCopyAndDestroyTheirElements) {
  {
    Tensor t(DT_VARIANT, TensorShape({3}));
    ASSERT_TRUE(t.IsInitialized());
    for (int i = 0; i < 3; ++i) {
      EXPECT_TRUE(t.flat<Variant>()(i).is_empty());
      t.flat<Variant>()(i) = Counted();
    }
    EXPECT_EQ(Counted::live, 3);
    Tensor copy = t.DeepCopy();
    EXPECT_EQ(Counted::live, 6);
    Tensor row = t.Slice(1, 2);
    EXPECT_EQ(row.NumElements(), 1);
    EXPECT_NE(row.unaligned_flat<Variant>()(0).get<Counted>(), nullptr);
    EXPECT_EQ(t.tensor_data().size(), 0u);  // no raw bytes for objects
  }
  EXPECT_EQ(Counted::live, 0);
}

TEST(VariantTest, SummarizeValuePrintsEachElement) {
  Tensor t(DT_VARIANT, TensorShape({2}));
  t.flat<Variant>()(0) = Named{1};
  EXPECT_EQ(t.SummarizeValue(5), "Named(1) Variant<empty>");
}

}  // namespace
}  // namespace minflow
