#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/tensor.h"
#include "minflow/io/tensor_bundle.h"
#include "tests/testlib/op_kernel_test_base.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

namespace fs = std::filesystem;
using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

class SaveRestoreOpTest : public test::OpsTestBase {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(
        ::testing::TempDir(), "/save_restore_op_test_",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    prefix_ = dir_ + "/model/ckpt";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs SaveV2 of `tensors` under `names` with the given slice specs.
  Status RunSave(const std::string& prefix,
                 const std::vector<std::string>& names,
                 const std::vector<std::string>& slices,
                 const std::vector<Tensor>& tensors) {
    DataTypeVector dtypes;
    for (const Tensor& t : tensors) dtypes.push_back(t.dtype());
    MakeNode("SaveV2").Input(DT_STRING).Input(DT_STRING).Input(DT_STRING).Input(
        DataTypeSlice(dtypes));
    MF_RETURN_IF_ERROR(MakeOp());
    AddInputTensor(Tensor(prefix));
    AddInputTensor(test::AsTensor<tstring>(names));
    AddInputTensor(test::AsTensor<tstring>(slices));
    for (const Tensor& t : tensors) AddInputTensor(t);
    return RunOpKernel();
  }

  Status RunRestore(const std::string& prefix,
                    const std::vector<std::string>& names,
                    const std::vector<std::string>& slices,
                    const DataTypeVector& dtypes) {
    ClearInputs();
    MakeNode("RestoreV2")
        .Input(DT_STRING)
        .Input(DT_STRING)
        .Input(DT_STRING)
        .Attr("dtypes", DataTypeSlice(dtypes));
    MF_RETURN_IF_ERROR(MakeOp());
    AddInputTensor(Tensor(prefix));
    AddInputTensor(test::AsTensor<tstring>(names));
    AddInputTensor(test::AsTensor<tstring>(slices));
    return RunOpKernel();
  }

  std::string dir_;
  std::string prefix_;
};

TEST_F(SaveRestoreOpTest, RestoreV2ReadsWhatSaveV2Wrote) {
  const Tensor w = test::AsTensor<float>({1.5f, -2, 3, 4}, {2, 2});
  const Tensor step = test::AsScalar<int64_t>(42);
  const Tensor vocab = test::AsTensor<tstring>({"a", "", "ccc"});
  MF_ASSERT_OK(
      RunSave(prefix_, {"w", "step", "vocab"}, {"", "", ""}, {w, step, vocab}));
  EXPECT_TRUE(fs::exists(prefix_ + ".index"));
  EXPECT_TRUE(fs::exists(prefix_ + ".data-00000-of-00001"));

  // In another order, and a subset.
  MF_ASSERT_OK(
      RunRestore(prefix_, {"vocab", "w"}, {"", ""}, {DT_STRING, DT_FLOAT}));
  test::ExpectTensorEqual<tstring>(*GetOutput(0), vocab);
  test::ExpectTensorEqual<float>(*GetOutput(1), w);
  MF_ASSERT_OK(RunRestore(prefix_, {"step"}, {""}, {DT_INT64}));
  test::ExpectTensorEqual<int64_t>(*GetOutput(0), step);
}

TEST_F(SaveRestoreOpTest, SaveV2RejectsSliceSpecsAndMismatchedInputs) {
  EXPECT_THAT(RunSave(prefix_, {"w"}, {"4 0,2"}, {Tensor(1.0f)}),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("slice spec \"4 0,2\"")));
  EXPECT_THAT(RunSave(prefix_, {"w", "v"}, {"", ""}, {Tensor(1.0f)}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must both have 1 elements")));
  EXPECT_THAT(RunSave(prefix_, {"w"}, {"", ""}, {Tensor(1.0f)}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      RunSave(prefix_, {"w", "w"}, {"", ""}, {Tensor(1.0f), Tensor(2.0f)}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("duplicate key: w")));
  EXPECT_FALSE(fs::exists(prefix_ + ".index"));

  // A prefix that is not a scalar.
  MakeNode("SaveV2").Input(DT_STRING).Input(DT_STRING).Input(DT_STRING).Input(
      {DT_FLOAT});
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::AsTensor<tstring>({prefix_, prefix_}));
  AddInputTensor(test::AsTensor<tstring>({"w"}));
  AddInputTensor(test::AsTensor<tstring>({""}));
  AddInputTensor(Tensor(1.0f));
  EXPECT_THAT(RunOpKernel(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("prefix must be a scalar")));
}

TEST_F(SaveRestoreOpTest, RestoreV2ErrorsNameThePrefixAndTensor) {
  MF_ASSERT_OK(RunSave(prefix_, {"w"}, {""}, {Tensor(1.0f)}));
  EXPECT_THAT(RunRestore(prefix_, {"w"}, {""}, {DT_INT32}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tensor_name = w; expected dtype int32 does "
                                 "not equal restored dtype float")));
  EXPECT_THAT(
      RunRestore(prefix_, {"nope"}, {""}, {DT_FLOAT}),
      StatusIs(absl::StatusCode::kNotFound,
               HasSubstr("Key nope not found in checkpoint " + prefix_)));
  EXPECT_THAT(RunRestore(dir_ + "/missing", {"w"}, {""}, {DT_FLOAT}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("missing")));
  EXPECT_THAT(
      RunRestore(prefix_, {"w"}, {"1 0,1"}, {DT_FLOAT}),
      StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("tensor w")));
  EXPECT_THAT(RunRestore(prefix_, {"w", "w"}, {"", ""}, {DT_FLOAT}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("(one per tensor)")));
}

TEST_F(SaveRestoreOpTest, MergeV2CheckpointsJoinsShardsAndRemovesOldDirs) {
  const std::string part0 = dir_ + "/tmp0/part";
  const std::string part1 = dir_ + "/tmp1/part";
  MF_ASSERT_OK(RunSave(part0, {"a"}, {""}, {Tensor(1.0f)}));
  ClearInputs();
  MF_ASSERT_OK(RunSave(part1, {"b"}, {""}, {Tensor(2.0f)}));
  ClearInputs();
  MakeNode("MergeV2Checkpoints").Input(DT_STRING).Input(DT_STRING);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(test::AsTensor<tstring>({part0, part1}));
  AddInputTensor(Tensor(prefix_));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_FALSE(fs::exists(dir_ + "/tmp0"));
  EXPECT_FALSE(fs::exists(dir_ + "/tmp1"));
  MF_ASSERT_OK(RunRestore(prefix_, {"a", "b"}, {"", ""}, {DT_FLOAT, DT_FLOAT}));
  EXPECT_EQ(GetOutput(0)->scalar<float>()(), 1.0f);
  EXPECT_EQ(GetOutput(1)->scalar<float>()(), 2.0f);
}

TEST_F(SaveRestoreOpTest, ShardedFilenameNamesAShardAsTensorFlowDoes) {
  MakeNode("ShardedFilename").Input(DT_STRING).Input(DT_INT32).Input(DT_INT32);
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor("ckpt_temp/part"));
  AddInputTensor(Tensor(int32_t{3}));
  AddInputTensor(Tensor(int32_t{12}));
  MF_ASSERT_OK(RunOpKernel());
  EXPECT_EQ(GetOutput(0)->scalar<tstring>()(), "ckpt_temp/part-00003-of-00012");

  ClearInputs();
  MF_ASSERT_OK(MakeOp());
  AddInputTensor(Tensor("p"));
  AddInputTensor(Tensor(int32_t{2}));
  AddInputTensor(Tensor(int32_t{2}));
  EXPECT_THAT(RunOpKernel(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("shard must be in [0, num_shards)")));
}

}  // namespace
}  // namespace minflow
