#include "minflow/core/npy.h"

#include <cstdio>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/dtype_dispatch.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// Bytes numpy 1.26 writes for np.save(f, np.arange(6, dtype='<i4').reshape(2,
// 3)).
std::string NumpyInt32Matrix() {
  std::string header =
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes.push_back(static_cast<char>(header.size()));
  bytes.push_back('\0');
  bytes += header;
  for (int32_t v = 0; v < 6; ++v) bytes.append(reinterpret_cast<char*>(&v), 4);
  return bytes;
}

TEST(NpyTest, ReadsWhatNumpyWrites) {
  Tensor t;
  MF_ASSERT_OK(NpyToTensor(NumpyInt32Matrix(), &t));
  EXPECT_EQ(t.dtype(), DT_INT32);
  EXPECT_EQ(t.shape(), TensorShape({2, 3}));
  EXPECT_EQ(t.matrix<int32_t>()(1, 2), 5);
}

TEST(NpyTest, EveryNumericDtypeAndBoolRoundTrips) {
  for (DataType dtype : {DT_BOOL, DT_INT8, DT_UINT8, DT_INT16, DT_UINT16,
                         DT_INT32, DT_UINT32, DT_INT64, DT_UINT64, DT_HALF,
                         DT_FLOAT, DT_DOUBLE, DT_COMPLEX64, DT_COMPLEX128}) {
    for (const TensorShape& shape :
         {TensorShape({}), TensorShape({5}), TensorShape({2, 0, 3}),
          TensorShape({3, 4})}) {
      Tensor t(dtype, shape);
      if (t.TotalBytes() > 0) std::memset(t.data(), 0, t.TotalBytes());
      for (size_t i = 0; i < t.TotalBytes(); i += 3) {
        static_cast<uint8_t*>(t.data())[i] = dtype == DT_BOOL ? 1 : i + 1;
      }
      std::string bytes;
      MF_ASSERT_OK(TensorToNpy(t, &bytes));
      EXPECT_EQ(bytes.size() % 64, t.TotalBytes() % 64);  // data 64-aligned
      Tensor back;
      MF_ASSERT_OK(NpyToTensor(bytes, &back));
      EXPECT_EQ(back.dtype(), dtype);
      EXPECT_EQ(back.shape(), shape) << DataTypeString(dtype);
      EXPECT_EQ(back.tensor_data(), t.tensor_data()) << DataTypeString(dtype);
    }
  }
}

TEST(NpyTest, ScalarAndVectorShapesUseNumpyTupleSyntax) {
  std::string bytes;
  MF_ASSERT_OK(TensorToNpy(Tensor(1.5f), &bytes));
  EXPECT_THAT(bytes, HasSubstr("'shape': (), }"));
  MF_ASSERT_OK(TensorToNpy(Tensor(DT_INT64, TensorShape({3})), &bytes));
  EXPECT_THAT(bytes, HasSubstr("'shape': (3,), }"));
}

TEST(NpyTest, RejectsBadAndTruncatedFiles) {
  Tensor t;
  const std::string good = NumpyInt32Matrix();
  EXPECT_THAT(
      NpyToTensor("hello world", &t),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("bad magic")));
  EXPECT_THAT(NpyToTensor(good.substr(0, good.size() - 1), &t),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("needs 24")));
  EXPECT_THAT(NpyToTensor(good.substr(0, 20), &t),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("truncated")));
  std::string big_endian = good;
  big_endian.replace(big_endian.find("<i4"), 3, ">i4");
  EXPECT_THAT(
      NpyToTensor(big_endian, &t),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("big-endian")));
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_THAT(
      NpyToTensor(fortran, &t),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Fortran order")));
  std::string object = good;
  object.replace(object.find("<i4"), 3, "|O8");
  EXPECT_THAT(
      NpyToTensor(object, &t),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not supported")));
  std::string negative = good;
  negative.replace(negative.find("(2, 3)"), 6, "(-2,3)");
  EXPECT_THAT(NpyToTensor(negative, &t),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(">= 0")));
  std::string no_shape = good;
  no_shape.replace(no_shape.find("'shape'"), 7, "'shope'");
  EXPECT_THAT(NpyToTensor(no_shape, &t),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("no 'shape' entry")));
  std::string version = good;
  version[6] = 9;
  EXPECT_THAT(
      NpyToTensor(version, &t),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("version 9")));
}

TEST(NpyTest, StringsHaveNoNpyForm) {
  std::string bytes;
  EXPECT_THAT(TensorToNpy(Tensor("x"), &bytes),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("string tensor has no NPY")));
}

TEST(NpyTest, FilesRoundTrip) {
  const std::string path = ::testing::TempDir() + "/npy_test.npy";
  Tensor t(DT_FLOAT, TensorShape({2}));
  t.flat<float>()(0) = 1;
  t.flat<float>()(1) = -2;
  MF_ASSERT_OK(WriteNpyFile(path, t));
  Tensor back;
  MF_ASSERT_OK(ReadNpyFile(path, &back));
  EXPECT_EQ(back.flat<float>()(1), -2.0f);
  std::remove(path.c_str());
  EXPECT_THAT(ReadNpyFile(path, &back),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("Cannot open")));
}

TEST(NpyTest, WriteFailureGivesTheReason) {
  Tensor t(DT_FLOAT, TensorShape({1}));
  t.flat<float>()(0) = 1;
  EXPECT_THAT(WriteNpyFile("/nonexistent/dir/x.npy", t),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("Cannot write '/nonexistent/dir/x.npy': No "
                                 "such file or directory")));
}

}  // namespace
}  // namespace minflow
