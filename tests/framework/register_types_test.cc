#include "minflow/framework/register_types.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minflow {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAreArray;

#define MF_PUSH_TYPE(T) types.push_back(DataTypeToEnum<T>::v());

TEST(RegisterTypesTest, RealNumberTypesMatchTheRealNumberTypeAttr) {
  std::vector<DataType> types;
  TF_CALL_REAL_NUMBER_TYPES(MF_PUSH_TYPE)
  const DataTypeSlice expected = RealNumberTypes();
  EXPECT_THAT(types,
              UnorderedElementsAreArray(expected.begin(), expected.end()));
}

TEST(RegisterTypesTest, NumberTypesAreTheNumberTypeAttrWithoutQuantized) {
  std::vector<DataType> types;
  TF_CALL_NUMBER_TYPES(MF_PUSH_TYPE)
  // As in TensorFlow, quantized types are storage only: no math kernels.
  std::vector<DataType> expected;
  for (DataType dt : NumberTypes()) {
    if (!DataTypeIsQuantized(dt)) expected.push_back(dt);
  }
  EXPECT_THAT(types, UnorderedElementsAreArray(expected));
}

TEST(RegisterTypesTest, ListsHoldWhatTheirNamesSay) {
  std::vector<DataType> types;
  TF_CALL_FLOAT_TYPES(MF_PUSH_TYPE)
  EXPECT_THAT(types, ElementsAre(DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE));
  types.clear();
  TF_CALL_GPU_NUMBER_TYPES(MF_PUSH_TYPE)
  EXPECT_THAT(types, ElementsAre(DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE));
  types.clear();
  MF_CALL_CORE_REAL_TYPES(MF_PUSH_TYPE)
  EXPECT_THAT(types, ElementsAre(DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64,
                                 DT_HALF, DT_BFLOAT16));
  types.clear();
  TF_CALL_INTEGRAL_TYPES(MF_PUSH_TYPE)
  EXPECT_EQ(types.size(), 8u);
  types.clear();
  TF_CALL_POD_TYPES(MF_PUSH_TYPE)
  EXPECT_EQ(types.size(), 15u);
  EXPECT_EQ(types.back(), DT_BOOL);
  types.clear();
  TF_CALL_ALL_TYPES(MF_PUSH_TYPE)
  EXPECT_EQ(types.size(), 16u);
  EXPECT_EQ(types.back(), DT_STRING);
  types.clear();
  TF_CALL_string(MF_PUSH_TYPE) TF_CALL_QUANTIZED_TYPES(MF_PUSH_TYPE)
      EXPECT_THAT(types, ElementsAre(DT_STRING, DT_QINT8, DT_QUINT8, DT_QINT32,
                                     DT_QINT16, DT_QUINT16));
}

#undef MF_PUSH_TYPE

}  // namespace
}  // namespace minflow
