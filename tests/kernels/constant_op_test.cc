#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/tensor.pb.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

class ConstantOpTest : public test::OpsTestBaseP {
 protected:
  Status MakeConst(const Tensor& value, DataType dtype) {
    MakeNode("Const", "c").Attr("value", value).Attr("dtype", dtype);
    return MakeOp();
  }
};

TEST_P(ConstantOpTest, OutputsTheDecodedValue) {
  const Tensor value = test::AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  MF_ASSERT_OK(MakeConst(value, DT_FLOAT));
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<float>(*GetOutput(0), value);
  EXPECT_FALSE(op_kernel()->IsExpensive());
  ASSERT_NE(op_kernel()->const_tensor(), nullptr);
  test::ExpectTensorEqual<float>(*op_kernel()->const_tensor(), value);
}

TEST_P(ConstantOpTest, EveryRunSharesTheKernelsBufferSoNoneCanWriteIt) {
  MF_ASSERT_OK(MakeConst(test::AsTensor<int64_t>({7, 8}), DT_INT64));
  MF_ASSERT_OK(RunOpKernel());
  const Tensor first = *context()->mutable_output(0);
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_TRUE(context()->mutable_output(0)->SharesBufferWith(first));
  EXPECT_FALSE(context()->mutable_output(0)->RefCountIsOne());
}

TEST_P(ConstantOpTest, HandlesScalarsEmptyTensorsAndStrings) {
  MF_ASSERT_OK(MakeConst(Tensor(true), DT_BOOL));
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<bool>(*GetOutput(0), Tensor(true));

  MF_ASSERT_OK(MakeConst(Tensor(DT_HALF, TensorShape({0, 3})), DT_HALF));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->shape(), TensorShape({0, 3}));

  MF_ASSERT_OK(MakeConst(test::AsTensor<tstring>({"a", "bc"}), DT_STRING));
  MF_ASSERT_OK(RunOpKernel());
  test::ExpectTensorEqual<tstring>(*GetOutput(0),
                                   test::AsTensor<tstring>({"a", "bc"}));
}

TEST_P(ConstantOpTest, ValueDtypeMustMatchTheDtypeAttr) {
  EXPECT_THAT(MakeConst(test::AsTensor<int32_t>({1}), DT_FLOAT),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Type mismatch between value (int32) and "
                                 "dtype (float)")));
}

TEST_P(ConstantOpTest, MalformedValueIsAnErrorNotACrash) {
  TensorProto proto;
  proto.set_dtype(DT_FLOAT);
  proto.mutable_tensor_shape()->add_dim()->set_size(4);
  proto.set_tensor_content(std::string(3, '\0'));  // 3 bytes for 16
  MakeNode("Const", "c").Attr("value", proto).Attr("dtype", DT_FLOAT);
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kInvalidArgument,
                                 HasSubstr("{{node c}}")));

  proto.set_tensor_content("");
  proto.mutable_tensor_shape()->mutable_dim(0)->set_size(-5);
  MakeNode("Const", "c").Attr("value", proto).Attr("dtype", DT_FLOAT);
  EXPECT_THAT(MakeOp(), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_P(ConstantOpTest, ConcurrentRunsAllSeeTheValue) {
  MF_ASSERT_OK(MakeConst(test::AsTensor<int32_t>({42}), DT_INT32));
  OpKernel* kernel = op_kernel();
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < 200; ++r) {
        OpKernelContext::Params params;
        params.device = device();
        params.op_kernel = kernel;
        OpKernelContext ctx(&params);
        kernel->Compute(&ctx);
        if (!ctx.status().ok() ||
            ctx.mutable_output(0)->flat<int32_t>()(0) != 42) {
          bad.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
}

MF_INSTANTIATE_KERNEL_TEST_DEVICES(ConstantOpTest);

}  // namespace
}  // namespace minflow
