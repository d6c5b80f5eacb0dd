#include "minflow/core/types.h"

#include "gtest/gtest.h"

namespace minflow {
namespace {

TEST(TypesTest, CppTypesMapToTensorFlowEnums) {
  EXPECT_EQ(DataTypeToEnum<float>::v(), DT_FLOAT);
  EXPECT_EQ(DataTypeToEnum<double>::v(), DT_DOUBLE);
  EXPECT_EQ(DataTypeToEnum<int32_t>::v(), DT_INT32);
  EXPECT_EQ(DataTypeToEnum<int64_t>::v(), DT_INT64);
  EXPECT_EQ(DataTypeToEnum<bool>::v(), DT_BOOL);
  EXPECT_EQ(DataTypeToEnum<half>::v(), DT_HALF);
  EXPECT_EQ(DataTypeToEnum<bfloat16>::v(), DT_BFLOAT16);
  EXPECT_EQ(DataTypeToEnum<std::string>::v(), DT_STRING);
  EXPECT_EQ(DataTypeToEnum<complex64>::v(), DT_COMPLEX64);
  EXPECT_EQ(DataTypeToEnum<qint8>::v(), DT_QINT8);
  EXPECT_EQ(DataTypeToEnum<float>::ref(), DT_FLOAT_REF);
  static_assert(std::is_same_v<EnumToDataType<DT_UINT16>::Type, uint16_t>);
  static_assert(std::is_same_v<EnumToDataType<DT_HALF>::Type, Eigen::half>);
}

TEST(TypesTest, SizesMatchElementTypes) {
  EXPECT_EQ(DataTypeSize(DT_FLOAT), 4);
  EXPECT_EQ(DataTypeSize(DT_HALF), 2);
  EXPECT_EQ(DataTypeSize(DT_BFLOAT16), 2);
  EXPECT_EQ(DataTypeSize(DT_COMPLEX128), 16);
  EXPECT_EQ(DataTypeSize(DT_BOOL), 1);
  EXPECT_EQ(DataTypeSize(DT_STRING), 0);
  EXPECT_EQ(DataTypeSize(DT_INVALID), 0);
  EXPECT_EQ(DataTypeSize(static_cast<DataType>(999)), 0);
  EXPECT_EQ(DataTypeSize(DT_QINT32), sizeof(qint32));
}

TEST(TypesTest, NamesRoundTripIncludingRefs) {
  for (DataType dt : AllTypes()) {
    DataType parsed;
    ASSERT_TRUE(DataTypeFromString(DataTypeString(dt), &parsed))
        << DataTypeString(dt);
    EXPECT_EQ(parsed, dt);
    ASSERT_TRUE(DataTypeFromString(DataTypeString(MakeRefType(dt)), &parsed));
    EXPECT_EQ(parsed, MakeRefType(dt));
  }
  EXPECT_EQ(DataTypeString(DT_FLOAT_REF), "float_ref");
  DataType dt;
  EXPECT_TRUE(DataTypeFromString("DT_INT64", &dt));
  EXPECT_EQ(dt, DT_INT64);
  EXPECT_TRUE(DataTypeFromString("float32", &dt));
  EXPECT_EQ(dt, DT_FLOAT);
  EXPECT_FALSE(DataTypeFromString("floaty", &dt));
  EXPECT_FALSE(DataTypeFromString("", &dt));
  EXPECT_EQ(DataTypeString(static_cast<DataType>(77)),
            "unknown dtype enum (77)");
}

TEST(TypesTest, RefHelpers) {
  EXPECT_TRUE(IsRefType(DT_INT32_REF));
  EXPECT_FALSE(IsRefType(DT_INT32));
  EXPECT_EQ(BaseType(DT_INT32_REF), DT_INT32);
  EXPECT_EQ(RemoveRefType(DT_FLOAT), DT_FLOAT);
  EXPECT_EQ(MakeRefType(DT_FLOAT_REF), DT_FLOAT_REF);
}

TEST(TypesTest, TypeSetsHaveTensorFlowMembers) {
  auto has = [](DataTypeSlice s, DataType t) {
    return std::find(s.begin(), s.end(), t) != s.end();
  };
  EXPECT_EQ(NumberTypes().size(), 19u);
  EXPECT_EQ(RealNumberTypes().size(), 12u);
  EXPECT_EQ(QuantizedTypes().size(), 5u);
  EXPECT_TRUE(has(NumberTypes(), DT_COMPLEX64));
  EXPECT_FALSE(has(NumberTypes(), DT_BOOL));
  EXPECT_FALSE(has(RealNumberTypes(), DT_COMPLEX64));
  EXPECT_TRUE(has(RealNumberTypes(), DT_BFLOAT16));
  EXPECT_TRUE(has(AllTypes(), DT_STRING));
  // Every set is in enum order, as TensorFlow expands constraints.
  for (DataTypeSlice s : {AllTypes(), NumberTypes(), RealNumberTypes(),
                          QuantizedTypes(), RealAndQuantizedTypes()}) {
    EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
  }
}

TEST(TypesTest, Predicates) {
  EXPECT_TRUE(DataTypeIsFloating(DT_HALF));
  EXPECT_FALSE(DataTypeIsFloating(DT_INT32));
  EXPECT_TRUE(DataTypeIsInteger(DT_UINT64));
  EXPECT_TRUE(DataTypeIsUnsigned(DT_UINT8));
  EXPECT_FALSE(DataTypeIsUnsigned(DT_INT8));
  EXPECT_TRUE(DataTypeIsComplex(DT_COMPLEX128));
  EXPECT_TRUE(DataTypeIsQuantized(DT_QUINT16));
  EXPECT_TRUE(DataTypeIsValid(DT_FLOAT_REF));
  EXPECT_FALSE(DataTypeIsValid(DT_INVALID));
}

}  // namespace
}  // namespace minflow
