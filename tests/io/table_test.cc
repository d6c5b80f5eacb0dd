#include "minflow/io/table.h"

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/io/crc32c.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace table {
namespace {

using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

// ---- Raw encodings, for hand-made (hostile) tables --------------------------

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

std::string Fixed32(uint32_t v) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(v >> (8 * i));
  return out;
}

std::string Entry(uint32_t shared, const std::string& delta,
                  const std::string& value) {
  return Varint(shared) + Varint(delta.size()) + Varint(value.size()) + delta +
         value;
}

// A block's bytes plus its trailer with a correct checksum.
std::string WithTrailer(const std::string& block, uint8_t type) {
  const char t = static_cast<char>(type);
  const uint32_t crc =
      crc32c::Extend(crc32c::Value(block.data(), block.size()), &t, 1);
  return block + t + Fixed32(crc32c::Mask(crc));
}

std::string Handle(uint64_t offset, uint64_t size) {
  return Varint(offset) + Varint(size);
}

// A table holding one data block with the given contents and type, correctly
// checksummed, so the checks behind the checksum are what is tested.
std::string MakeTable(const std::string& data_block, uint8_t type = 0,
                      const std::string& index_value = "") {
  std::string out = WithTrailer(data_block, type);
  const uint64_t meta_offset = out.size();
  const std::string meta = Fixed32(0) + Fixed32(1);
  out += WithTrailer(meta, 0);
  const uint64_t index_offset = out.size();
  const std::string handle =
      index_value.empty() ? Handle(0, data_block.size()) : index_value;
  const std::string index = Entry(0, "\xff", handle) + Fixed32(0) + Fixed32(1);
  out += WithTrailer(index, 0);
  std::string footer =
      Handle(meta_offset, meta.size()) + Handle(index_offset, index.size());
  footer.resize(40, '\0');
  footer += Fixed32(0x8b80fb57u) + Fixed32(0xdb477524u);
  return out + footer;
}

// ---- Helpers
// ------------------------------------------------------------------

std::map<std::string, std::string> ManyPairs(int n) {
  std::map<std::string, std::string> pairs;
  for (int i = 0; i < n; ++i) {
    pairs[absl::StrFormat("key/%06d", i * 7)] = std::string(
        static_cast<size_t>(i % 50), static_cast<char>('a' + i % 26));
  }
  return pairs;
}

std::string Build(const std::map<std::string, std::string>& pairs,
                  size_t block_size = 262144) {
  TableBuilder::Options options;
  options.block_size = block_size;
  TableBuilder builder(options);
  for (const auto& [k, v] : pairs) EXPECT_TRUE(builder.Add(k, v).ok());
  return builder.Finish();
}

// Every pair of the table in order, or the first error.
Status ReadAll(const std::string& bytes,
               std::vector<std::pair<std::string, std::string>>* out) {
  out->clear();
  MF_ASSIGN_OR_RETURN(auto table, Table::Open("t.index", bytes));
  auto it = table->NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out->emplace_back(std::string(it->key()), std::string(it->value()));
  }
  return it->status();
}

// ---- Tests
// ----------------------------------------------------------------------

TEST(TableTest, RoundTripsManyKeysOverManyBlocks) {
  const auto pairs = ManyPairs(3000);
  const std::string bytes = Build(pairs, /*block_size=*/1024);
  std::vector<std::pair<std::string, std::string>> read;
  MF_ASSERT_OK(ReadAll(bytes, &read));
  ASSERT_EQ(read.size(), pairs.size());
  auto expected = pairs.begin();
  for (const auto& [k, v] : read) {
    EXPECT_EQ(k, expected->first);
    EXPECT_EQ(v, expected->second);
    ++expected;
  }
}

TEST(TableTest, SeekFindsEveryKeyAndTheNextKeyBetweenKeys) {
  const auto pairs = ManyPairs(1000);
  const std::string bytes = Build(pairs, /*block_size=*/512);
  auto table = Table::Open("t.index", bytes);
  MF_ASSERT_OK(table.status());
  auto it = (*table)->NewIterator();
  for (const auto& [k, v] : pairs) {
    it->Seek(k);
    ASSERT_TRUE(it->Valid()) << k;
    EXPECT_EQ(it->key(), k);
    EXPECT_EQ(it->value(), v);
    std::string value;
    MF_EXPECT_OK((*table)->Get(k, &value));
    EXPECT_EQ(value, v);
    // Just after k (k + "\0") lands on the next key.
    it->Seek(k + std::string(1, '\0'));
    auto next = pairs.upper_bound(k);
    if (next == pairs.end()) {
      EXPECT_FALSE(it->Valid());
      MF_EXPECT_OK(it->status());
    } else {
      ASSERT_TRUE(it->Valid());
      EXPECT_EQ(it->key(), next->first);
    }
  }
  it->Seek("");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), pairs.begin()->first);
  it->Seek("zzz");
  EXPECT_FALSE(it->Valid());
  std::string value;
  EXPECT_THAT((*table)->Get("key/000001", &value),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("t.index")));
}

TEST(TableTest, EmptyTableHasNoEntries) {
  TableBuilder builder;
  const std::string bytes = builder.Finish();
  std::vector<std::pair<std::string, std::string>> read;
  MF_ASSERT_OK(ReadAll(bytes, &read));
  EXPECT_TRUE(read.empty());
}

TEST(TableTest, RejectsKeysThatDoNotIncrease) {
  TableBuilder builder;
  MF_ASSERT_OK(builder.Add("b", "1"));
  EXPECT_THAT(builder.Add("b", "2"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("strictly increasing")));
  EXPECT_THAT(builder.Add("a", "2"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  MF_EXPECT_OK(builder.Add("c", "3"));
}

// TensorFlow wrote this index (uncompressed); rebuilding it from its own
// pairs gives the same bytes.
TEST(TableTest, RebuildsTensorFlowsIndexByteForByte) {
  const std::string path =
      std::string(MINFLOW_CHECKPOINT_TESTDATA) +
      "/saved_model_half_plus_three/variables/variables.index";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  const std::string original((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  std::vector<std::pair<std::string, std::string>> read;
  MF_ASSERT_OK(ReadAll(original, &read));
  ASSERT_EQ(read.size(), 4u);  // header, a, b, c
  TableBuilder builder;
  for (const auto& [k, v] : read) MF_ASSERT_OK(builder.Add(k, v));
  EXPECT_EQ(builder.Finish(), original);
}

TEST(TableTest, EveryTruncationIsAnError) {
  const std::string bytes = Build(ManyPairs(40), /*block_size=*/128);
  for (size_t len = 0; len < bytes.size(); ++len) {
    std::vector<std::pair<std::string, std::string>> read;
    EXPECT_FALSE(ReadAll(bytes.substr(0, len), &read).ok()) << len;
  }
}

TEST(TableTest, EveryFlippedByteIsDetected) {
  const auto pairs = ManyPairs(30);
  const std::string bytes = Build(pairs, /*block_size=*/128);
  std::vector<std::pair<std::string, std::string>> good;
  MF_ASSERT_OK(ReadAll(bytes, &good));
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (char mask : {'\x01', '\x80'}) {
      std::string bad = bytes;
      bad[i] ^= mask;
      std::vector<std::pair<std::string, std::string>> read;
      const Status s = ReadAll(bad, &read);
      EXPECT_FALSE(s.ok()) << "byte " << i << " of " << bytes.size();
      if (!s.ok()) {
        EXPECT_THAT(s.message(), HasSubstr("t.index")) << i;
      }
    }
  }
}

TEST(TableTest, HandMadeTableReads) {
  const std::string block = Entry(0, "apple", "1") + Entry(1, "vocado", "22") +
                            Fixed32(0) + Fixed32(1);
  std::vector<std::pair<std::string, std::string>> read;
  MF_ASSERT_OK(ReadAll(MakeTable(block), &read));
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[1].first, "avocado");
  EXPECT_EQ(read[1].second, "22");
}

TEST(TableTest, UnknownCompressionIsUnimplemented) {
  const std::string block = Entry(0, "a", "1") + Fixed32(0) + Fixed32(1);
  std::vector<std::pair<std::string, std::string>> read;
  EXPECT_THAT(ReadAll(MakeTable(block, 7), &read),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("compression type 7")));
}

TEST(TableTest, SnappyBlocksAreDecompressed) {
  const std::string block =
      Entry(0, "abcd", "abcdabcdabcd") + Fixed32(0) + Fixed32(1);
  // Snappy: length, a literal of the first 10 bytes, then the rest as
  // copies where the bytes repeat would do; a plain literal is valid too.
  std::string snappy = Varint(block.size());
  snappy.push_back(static_cast<char>((block.size() - 1) << 2));
  snappy += block;
  std::vector<std::pair<std::string, std::string>> read;
  MF_ASSERT_OK(ReadAll(MakeTable(snappy, 1), &read));
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].second, "abcdabcdabcd");

  // A copy reaching before the start of the output.
  std::string bad = Varint(8) + std::string(1, '\x01' | (0 << 2)) + "\x09";
  EXPECT_THAT(ReadAll(MakeTable(bad, 1), &read),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("snappy")));
  // A declared length no stream of this size can produce.
  EXPECT_THAT(ReadAll(MakeTable(Varint(1u << 30) + "\x00"
                                                   "a",
                                1),
                      &read),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("impossible")));
}

TEST(TableTest, HostileBlocksAreDataLoss) {
  const std::string entries = Entry(0, "a", "1") + Entry(1, "b", "2");
  const struct {
    const char* what;
    std::string block;
  } cases[] = {
      {"too short", "ab"},
      {"no restarts", entries + Fixed32(0)},
      {"huge restart count", entries + Fixed32(0) + Fixed32(0xffffffffu)},
      {"restart past entries",
       entries + Fixed32(0) + Fixed32(100) + Fixed32(2)},
      {"restart mid-entry", entries + Fixed32(0) + Fixed32(2) + Fixed32(2)},
      {"first restart not 0", entries + Fixed32(4) + Fixed32(1)},
      {"shares more than the key",
       Entry(0, "a", "1") + Entry(5, "b", "2") + Fixed32(0) + Fixed32(1)},
      {"restart entry shares", Entry(1, "a", "1") + Fixed32(0) + Fixed32(1)},
      {"value past the end",
       Varint(0) + Varint(1) + Varint(200) + "a" + Fixed32(0) + Fixed32(1)},
      {"overlong varint", std::string(12, '\xff') + Fixed32(0) + Fixed32(1)},
      {"keys out of order",
       Entry(0, "b", "1") + Entry(0, "a", "2") + Fixed32(0) + Fixed32(1)},
      {"duplicate keys",
       Entry(0, "a", "1") + Entry(1, "", "2") + Fixed32(0) + Fixed32(1)},
  };
  for (const auto& c : cases) {
    std::vector<std::pair<std::string, std::string>> read;
    EXPECT_THAT(ReadAll(MakeTable(c.block), &read),
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr("t.index")))
        << c.what;
  }
}

TEST(TableTest, IndexHandlesOutsideTheFileAreDataLoss) {
  const std::string block = Entry(0, "a", "1") + Fixed32(0) + Fixed32(1);
  for (const std::string& handle :
       {Handle(0, 1u << 20), Handle(1u << 20, 1), Handle(~0ull, ~0ull),
        Handle(0, block.size()) + "x", std::string("\x80")}) {
    EXPECT_THAT(Table::Open("t.index", MakeTable(block, 0, handle)).status(),
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr("t.index")));
  }
}

}  // namespace
}  // namespace table
}  // namespace minflow
