// ResourceHandle, DT_RESOURCE tensors, and the references TF1 variables
// hand through ref-typed edges (Tensor::MakeRef).
#include "minflow/core/resource_handle.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/resource_handle.pb.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

ResourceHandle SampleHandle() {
  ResourceHandle h;
  h.set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  h.set_container("localhost");
  h.set_name("weights");
  h.set_hash_code(42);
  h.set_maybe_type_name("Var");
  h.set_dtypes_and_shapes({{DT_FLOAT, PartialTensorShape({-1, 3})}});
  return h;
}

TEST(ResourceHandleTest, ProtoRoundTrip) {
  ResourceHandleProto proto;
  SampleHandle().AsProto(&proto);
  EXPECT_EQ(proto.name(), "weights");
  EXPECT_EQ(proto.dtypes_and_shapes(0).shape().dim(0).size(), -1);
  ResourceHandle back;
  MF_ASSERT_OK(back.FromProto(proto));
  EXPECT_EQ(back.DebugString(), SampleHandle().DebugString());
  EXPECT_EQ(back.hash_code(), 42u);
  EXPECT_THAT(back.DebugString(), HasSubstr("float [?,3]"));
}

TEST(ResourceHandleTest, FromProtoRefusesABadShapeOrDtype) {
  ResourceHandleProto proto;
  SampleHandle().AsProto(&proto);
  proto.mutable_dtypes_and_shapes(0)->mutable_shape()->mutable_dim(0)->set_size(
      -7);
  ResourceHandle h;
  EXPECT_THAT(h.FromProto(proto), StatusIs(absl::StatusCode::kInvalidArgument));
  SampleHandle().AsProto(&proto);
  proto.mutable_dtypes_and_shapes(0)->set_dtype(DT_FLOAT_REF);
  EXPECT_THAT(h.FromProto(proto), StatusIs(absl::StatusCode::kInvalidArgument,
                                           HasSubstr("invalid dtype")));
  EXPECT_EQ(h.name(), "");  // unchanged on error
}

TEST(ResourceHandleTest, ResourceTensorsHoldHandles) {
  Tensor t(DT_RESOURCE, TensorShape({2}));
  t.flat<ResourceHandle>()(1) = SampleHandle();
  Tensor copy = t.DeepCopy();
  t.flat<ResourceHandle>()(1).set_name("changed");
  EXPECT_EQ(copy.flat<ResourceHandle>()(1).name(), "weights");
  EXPECT_THAT(copy.SummarizeValue(2), HasSubstr("name=\"weights\""));
}

TEST(ResourceHandleTest, RefTensorsPointAtAVariableAndKeepItsOwnerAlive) {
  struct Owner : core::RefCounted {
    bool* destroyed;
    explicit Owner(bool* d) : destroyed(d) {}
    ~Owner() override { *destroyed = true; }
  };
  bool destroyed = false;
  auto* owner = new Owner(&destroyed);
  absl::Mutex mu;
  Tensor storage = Tensor::Unallocated(DT_FLOAT);
  EXPECT_FALSE(storage.IsInitialized());
  Tensor ref = Tensor::MakeRef(&storage, &mu, owner);
  owner->Unref();  // the reference keeps it
  EXPECT_FALSE(destroyed);
  EXPECT_TRUE(ref.IsRef());
  EXPECT_EQ(ref.dtype(), DT_FLOAT_REF);
  EXPECT_EQ(ref.RefTarget(), &storage);
  EXPECT_EQ(ref.RefMutex(), &mu);
  Tensor copy = ref;
  ref = Tensor();
  EXPECT_FALSE(destroyed);
  copy = Tensor();
  EXPECT_TRUE(destroyed);
}

}  // namespace
}  // namespace minflow
