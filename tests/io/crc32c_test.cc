#include "minflow/io/crc32c.h"

#include <string>

#include "gtest/gtest.h"

namespace minflow {
namespace crc32c {
namespace {

TEST(Crc32cTest, MatchesKnownVectors) {
  EXPECT_EQ(Value("123456789", 9), 0xE3069283u);
  EXPECT_EQ(Value("", 0), 0u);

  // RFC 3720 (iSCSI), appendix B.4.
  std::string buf(32, '\0');
  EXPECT_EQ(Value(buf.data(), buf.size()), 0x8A9136AAu);
  buf.assign(32, '\xff');
  EXPECT_EQ(Value(buf.data(), buf.size()), 0x62A8AB43u);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(i);
  EXPECT_EQ(Value(buf.data(), buf.size()), 0x46DD794Eu);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(31 - i);
  EXPECT_EQ(Value(buf.data(), buf.size()), 0x113FDB5Cu);
}

TEST(Crc32cTest, ExtendEqualsValueOfTheConcatenationAtEverySplit) {
  std::string data;
  for (int i = 0; i < 100; ++i) data.push_back(static_cast<char>(i * 37 + 11));
  const uint32_t whole = Value(data.data(), data.size());
  for (size_t split = 0; split <= data.size(); ++split) {
    EXPECT_EQ(Extend(Value(data.data(), split), data.data() + split,
                     data.size() - split),
              whole)
        << "split at " << split;
  }
}

TEST(Crc32cTest, UnalignedStartsGiveTheSameValue) {
  std::string data(64, 'q');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 3);
  std::string shifted = "x" + data;
  EXPECT_EQ(Value(shifted.data() + 1, data.size()),
            Value(data.data(), data.size()));
}

TEST(Crc32cTest, ExtendAgreesWithThePortableTablesAtEveryLengthAndOffset) {
  // Past 3 x 4 KiB the SSE4.2 path runs three streams and joins them.
  std::string data(40000, '\0');
  uint32_t state = 12345;
  for (char& c : data) {
    state = state * 1664525u + 1013904223u;
    c = static_cast<char>(state >> 24);
  }
  EXPECT_EQ(ExtendPortable(0, "123456789", 9), 0xE3069283u);
  for (size_t offset = 0; offset < 9; ++offset) {
    for (size_t n : {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 500, 991, 12287,
                     12288, 12289, 24576, 30001, 39990}) {
      EXPECT_EQ(Extend(0x1234u, data.data() + offset, n),
                ExtendPortable(0x1234u, data.data() + offset, n))
          << "offset " << offset << ", length " << n;
    }
  }
}

TEST(Crc32cTest, MaskIsInvertibleAndChangesTheValue) {
  const uint32_t crc = Value("foo", 3);
  EXPECT_NE(Mask(crc), crc);
  EXPECT_NE(Mask(Mask(crc)), crc);
  EXPECT_EQ(Unmask(Mask(crc)), crc);
  EXPECT_EQ(Unmask(Unmask(Mask(Mask(crc)))), crc);
  EXPECT_EQ(Mask(0), 0xa282ead8u);
}

}  // namespace
}  // namespace crc32c
}  // namespace minflow
