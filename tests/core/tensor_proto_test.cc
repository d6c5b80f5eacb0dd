#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "minflow/core/dtype_dispatch.h"
#include "minflow/core/tensor.h"
#include "minflow/tensor.pb.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

TensorProto ParseProto(const std::string& text) {
  TensorProto proto;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &proto))
      << text;
  return proto;
}

TEST(TensorProtoTest, ShorthandRepeatsTheLastValue) {
  Tensor t;
  MF_ASSERT_OK(TensorFromProto(
      ParseProto(
          "dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 4 } }"
          " float_val: 1"),
      &t));
  EXPECT_EQ(t.shape(), TensorShape({3, 4}));
  for (int i = 0; i < 12; ++i) EXPECT_EQ(t.flat<float>()(i), 1.0f);

  MF_ASSERT_OK(TensorFromProto(
      ParseProto("dtype: DT_INT32 tensor_shape { dim { size: 4 } }"
                 " int_val: 5 int_val: 6"),
      &t));
  EXPECT_THAT(std::vector<int32_t>(t.flat<int32_t>().data(),
                                   t.flat<int32_t>().data() + 4),
              ::testing::ElementsAre(5, 6, 6, 6));
}

TEST(TensorProtoTest, NoValuesMeansZeros) {
  Tensor t;
  MF_ASSERT_OK(TensorFromProto(
      ParseProto("dtype: DT_DOUBLE tensor_shape { dim { size: 3 } }"), &t));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(t.flat<double>()(i), 0.0);
}

TEST(TensorProtoTest, HalfAndBfloat16TravelAsBitsInHalfVal) {
  Tensor t;
  // 0x3C00 is 1.0 in IEEE half; 0x3F80 is 1.0 in bfloat16.
  MF_ASSERT_OK(TensorFromProto(
      ParseProto("dtype: DT_HALF tensor_shape { dim { size: 2 } }"
                 " half_val: 15360 half_val: 0"),
      &t));
  EXPECT_EQ(static_cast<float>(t.flat<half>()(0)), 1.0f);
  MF_ASSERT_OK(TensorFromProto(
      ParseProto("dtype: DT_BFLOAT16 tensor_shape { } half_val: 16256"), &t));
  EXPECT_EQ(static_cast<float>(t.scalar<bfloat16>()()), 1.0f);
}

// Fills a tensor of each dtype with distinct values, then checks that both
// encodings decode back to the same elements.
template <typename T>
T ValueFor(int i) {
  if constexpr (std::is_same_v<T, std::string>) {
    return std::string(i, 'a' + i % 26);
  } else if constexpr (std::is_same_v<T, bool>) {
    return i % 2 == 1;
  } else if constexpr (std::is_same_v<T, complex64> ||
                       std::is_same_v<T, complex128>) {
    return T(i, -i);
  } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return T(static_cast<float>(i));
  } else if constexpr (std::is_class_v<T>) {
    return T{static_cast<decltype(T::value)>(i)};
  } else {
    return static_cast<T>(i);
  }
}

TEST(TensorProtoTest, EveryDtypeRoundTripsThroughBothEncodings) {
  int covered = 0;
  for (DataType dtype : AllTypes()) {
    if (dtype == DT_RESOURCE || dtype == DT_VARIANT) continue;
    Tensor t(dtype, TensorShape({2, 3}));
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int i = 0; i < 6; ++i) t.flat<T>()(i) = ValueFor<T>(i);
      for (bool content : {false, true}) {
        TensorProto proto;
        if (content) {
          t.AsProtoTensorContent(&proto);
        } else {
          t.AsProtoField(&proto);
        }
        Tensor back;
        MF_ASSERT_OK(TensorFromProto(proto, &back));
        ASSERT_EQ(back.dtype(), dtype);
        ASSERT_EQ(back.shape(), t.shape());
        for (int i = 0; i < 6; ++i) {
          EXPECT_TRUE(back.flat<T>()(i) == ValueFor<T>(i))
              << DataTypeString(dtype) << " element " << i
              << (content ? " (content)" : " (fields)");
        }
      }
      ++covered;
    });
  }
  EXPECT_EQ(covered, 21);
}

TEST(TensorProtoTest, ContentSizeMustMatchShape) {
  TensorProto proto =
      ParseProto("dtype: DT_FLOAT tensor_shape { dim { size: 2 } }");
  proto.set_tensor_content(std::string(12, '\0'));
  Tensor t;
  EXPECT_THAT(TensorFromProto(proto, &t),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("content has 12 bytes")));
}

TEST(TensorProtoTest, MoreValuesThanElementsIsAnError) {
  Tensor t;
  EXPECT_THAT(TensorFromProto(
                  ParseProto("dtype: DT_INT64 tensor_shape { dim { size: 1 } }"
                             " int64_val: 1 int64_val: 2"),
                  &t),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("holds 2 values, but its shape has only 1")));
}

TEST(TensorProtoTest, RejectsBadShapesAndDtypes) {
  Tensor t;
  EXPECT_THAT(
      TensorFromProto(ParseProto("dtype: DT_FLOAT tensor_shape { dim "
                                 "{ size: -4 } }"),
                      &t),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be >= 0")));
  EXPECT_THAT(
      TensorFromProto(
          ParseProto("dtype: DT_FLOAT tensor_shape { dim { size: 4294967296 } "
                     "dim { size: 4294967296 } }"),
          &t),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("overflows")));
  TensorProto unknown;
  unknown.set_dtype(static_cast<DataType>(42));
  EXPECT_THAT(TensorFromProto(unknown, &t),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unsupported dtype")));
  EXPECT_THAT(TensorFromProto(ParseProto("dtype: DT_FLOAT_REF"), &t),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(TensorFromProto(ParseProto("dtype: DT_INVALID"), &t),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      TensorFromProto(ParseProto("dtype: DT_COMPLEX64 scomplex_val: 1"), &t),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("odd")));
  EXPECT_THAT(TensorFromProto(ParseProto("dtype: DT_FLOAT tensor_shape { "
                                         "unknown_rank: true }"),
                              &t),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(TensorProtoTest, HugeShorthandTensorIsRefusedBeforeAllocating) {
  Tensor t;
  TensorProtoOptions options;
  options.max_bytes = 1 << 20;
  EXPECT_THAT(
      TensorFromProto(ParseProto("dtype: DT_FLOAT tensor_shape { dim { size: "
                                 "1000000 } } float_val: 1"),
                      &t, options),
      StatusIs(absl::StatusCode::kResourceExhausted,
               HasSubstr("allowed 1048576 bytes")));
  EXPECT_EQ(t.NumElements(), 0);  // untouched
}

TEST(TensorProtoTest, StringContentWithBadLengthPrefixIsAnError) {
  TensorProto proto =
      ParseProto("dtype: DT_STRING tensor_shape { dim { size: 2 } }");
  // Lengths 3 and 200, but only 3 bytes follow.
  proto.set_tensor_content(
      std::string("\x03\xc8\x01"
                  "abc",
                  6));
  Tensor t;
  EXPECT_THAT(TensorFromProto(proto, &t),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("lengths add up to 203")));
  // A varint that never ends.
  proto.set_tensor_content(std::string("\xff\xff\xff\xff\xff\xff", 6));
  EXPECT_THAT(
      TensorFromProto(proto, &t),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("length prefix")));
}

TEST(TensorProtoTest, BoolContentBytesOtherThanZeroOrOneAreRejected) {
  // Found by the fuzzer and in review: such bytes read as bool are undefined
  // behaviour.
  TensorProto proto =
      ParseProto("dtype: DT_BOOL tensor_shape { dim { size: 3 } }");
  proto.set_tensor_content(std::string("\x01\x00\x26", 3));
  Tensor t(int32_t{7});
  EXPECT_THAT(TensorFromProto(proto, &t),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Tensor proto of type bool has byte 38 at "
                                 "element 2 of its tensor_content; a bool "
                                 "must be 0 or 1")));
  // The output is left as it was.
  EXPECT_EQ(t.dtype(), DT_INT32);
  EXPECT_EQ(t.scalar<int32_t>()(), 7);
  proto.set_tensor_content(std::string("\xff\x01\x00", 3));
  EXPECT_THAT(TensorFromProto(proto, &t),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("has byte 255 at element 0")));
  EXPECT_FALSE(t.FromProto(proto));
}

TEST(TensorProtoTest, BoolContentOfZerosAndOnesDecodes) {
  TensorProto proto =
      ParseProto("dtype: DT_BOOL tensor_shape { dim { size: 3 } }");
  proto.set_tensor_content(std::string("\x01\x00\x01", 3));
  Tensor t;
  MF_ASSERT_OK(TensorFromProto(proto, &t));
  EXPECT_EQ(t.SummarizeValue(3), "[True False True]");
}

TEST(TensorProtoTest, BoolFromProtoFormMatchesStatusForm) {
  Tensor t;
  EXPECT_TRUE(t.FromProto(ParseProto("dtype: DT_BOOL bool_val: true")));
  EXPECT_TRUE(t.scalar<bool>()());
  EXPECT_FALSE(
      t.FromProto(ParseProto("dtype: DT_BOOL tensor_shape { dim { "
                             "size: -1 } }")));
}

}  // namespace
}  // namespace minflow
