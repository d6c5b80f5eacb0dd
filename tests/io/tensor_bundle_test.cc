#include "minflow/io/tensor_bundle.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/io/crc32c.h"
#include "minflow/io/table.h"
#include "minflow/tensor_bundle.pb.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"

namespace minflow {
namespace {

namespace fs = std::filesystem;
using ::minflow::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string Testdata(const std::string& name) {
  return absl::StrCat(MINFLOW_CHECKPOINT_TESTDATA, "/", name,
                      "/variables/variables");
}

class TensorBundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(
        ::testing::TempDir(), "/tensor_bundle_test_",
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Prefix(const std::string& name = "ckpt") const {
    return absl::StrCat(dir_, "/", name);
  }

  // A tensor of `dtype` whose bytes are a pattern (bools 0/1).
  static Tensor Patterned(DataType dtype, const TensorShape& shape) {
    Tensor t(dtype, shape);
    char* p = static_cast<char*>(t.data());
    for (size_t i = 0; i < t.TotalBytes(); ++i) {
      p[i] = dtype == DT_BOOL ? static_cast<char>(i % 3 == 0)
                              : static_cast<char>(i * 41 + 7);
    }
    return t;
  }

  // Writes one bundle of `key` -> `tensor` pairs.
  void Save(const std::string& prefix,
            const std::vector<std::pair<std::string, Tensor>>& tensors) {
    BundleWriter writer(prefix);
    for (const auto& [key, t] : tensors) MF_ASSERT_OK(writer.Add(key, t));
    MF_ASSERT_OK(writer.Finish());
  }

  // Rewrites the bundle's index with a header and entries given by hand.
  void WriteIndex(
      const std::string& prefix, const BundleHeaderProto& header,
      const std::vector<std::pair<std::string, BundleEntryProto>>& entries) {
    table::TableBuilder builder;
    MF_ASSERT_OK(builder.Add("", header.SerializeAsString()));
    for (const auto& [k, e] : entries) {
      MF_ASSERT_OK(builder.Add(k, e.SerializeAsString()));
    }
    WriteFile(MetaFilename(prefix), builder.Finish());
  }

  static BundleHeaderProto GoodHeader() {
    BundleHeaderProto h;
    h.set_num_shards(1);
    h.mutable_version()->set_producer(1);
    return h;
  }

  std::string dir_;
};

TEST_F(TensorBundleTest, FileNamesAreTensorFlows) {
  EXPECT_EQ(MetaFilename("/a/b"), "/a/b.index");
  EXPECT_EQ(DataFilename("/a/b", 0, 1), "/a/b.data-00000-of-00001");
  EXPECT_EQ(DataFilename("p", 12, 345), "p.data-00012-of-00345");
}

TEST_F(TensorBundleTest, RoundTripsEveryDtypeBitForBit) {
  const DataType dtypes[] = {DT_FLOAT,      DT_DOUBLE, DT_INT32,     DT_UINT8,
                             DT_INT16,      DT_INT8,   DT_COMPLEX64, DT_INT64,
                             DT_BOOL,       DT_QINT8,  DT_QUINT8,    DT_QINT32,
                             DT_BFLOAT16,   DT_QINT16, DT_QUINT16,   DT_UINT16,
                             DT_COMPLEX128, DT_HALF,   DT_UINT32,    DT_UINT64};
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (DataType dtype : dtypes) {
    tensors.emplace_back(absl::StrCat("t/", DataTypeString(dtype)),
                         Patterned(dtype, TensorShape({2, 3})));
  }
  tensors.emplace_back("scalar", Tensor(3.5f));
  tensors.emplace_back("empty", Tensor(DT_INT64, TensorShape({0, 4})));
  tensors.emplace_back("strings",
                       test::AsTensor<tstring>({"", "a", std::string(300, 'x'),
                                                std::string("\0\xff\n", 3)},
                                               {2, 2}));
  tensors.emplace_back("no_strings", Tensor(DT_STRING, TensorShape({0})));
  tensors.emplace_back("string_scalar", Tensor("hello"));
  Save(Prefix(), tensors);

  auto reader = BundleReader::Open(Prefix());
  MF_ASSERT_OK(reader.status());
  for (const auto& [key, expected] : tensors) {
    SCOPED_TRACE(key);
    Tensor got;
    MF_ASSERT_OK((*reader)->Lookup(key, &got));
    EXPECT_EQ(got.dtype(), expected.dtype());
    EXPECT_EQ(got.shape(), expected.shape());
    if (expected.dtype() == DT_STRING) {
      test::ExpectTensorEqual<tstring>(got, expected);
    } else {
      EXPECT_EQ(got.tensor_data(), expected.tensor_data());
    }
    DataType dtype;
    TensorShape shape;
    MF_ASSERT_OK((*reader)->LookupDtypeAndShape(key, &dtype, &shape));
    EXPECT_EQ(dtype, expected.dtype());
    EXPECT_EQ(shape, expected.shape());
    EXPECT_TRUE((*reader)->Contains(key));
  }
  std::vector<std::string> keys;
  MF_ASSERT_OK((*reader)->ListKeys(&keys));
  EXPECT_EQ(keys.size(), tensors.size());
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  EXPECT_EQ((*reader)->num_shards(), 1);
}

TEST_F(TensorBundleTest, WriterRejectsEmptyAndDuplicateKeysAndLeavesNoFiles) {
  {
    BundleWriter writer(Prefix());
    EXPECT_THAT(writer.Add("", Tensor(1.0f)),
                StatusIs(absl::StatusCode::kInvalidArgument));
    MF_ASSERT_OK(writer.Add("x", Tensor(1.0f)));
    EXPECT_THAT(writer.Add("x", Tensor(2.0f)),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("duplicate key: x")));
    EXPECT_FALSE(writer.Finish().ok());
  }
  // The failed writer's temporary files are gone; nothing was published.
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(TensorBundleTest, MissingKeyIsNotFoundNamingKeyAndPrefix) {
  Save(Prefix(), {{"a", Tensor(1.0f)}, {"c", Tensor(2.0f)}});
  auto reader = BundleReader::Open(Prefix());
  MF_ASSERT_OK(reader.status());
  Tensor t;
  EXPECT_THAT((*reader)->Lookup("b", &t),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr(absl::StrCat("Key b not found in checkpoint ",
                                              Prefix()))));
  EXPECT_FALSE((*reader)->Contains("zz"));
  EXPECT_FALSE((*reader)->Contains(""));
  EXPECT_THAT(BundleReader::Open(Prefix("nothing")).status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("nothing")));
}

TEST_F(TensorBundleTest, CorruptDataIsAChecksumError) {
  Save(Prefix(), {{"v", Patterned(DT_FLOAT, TensorShape({8}))},
                  {"s", test::AsTensor<tstring>({"abc", "de"})}});
  const std::string data_path = DataFilename(Prefix(), 0, 1);
  const std::string good = ReadFile(data_path);
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] ^= 0x20;
    WriteFile(data_path, bad);
    auto reader = BundleReader::Open(Prefix());
    MF_ASSERT_OK(reader.status());
    Tensor t;
    const Status sv = (*reader)->Lookup("v", &t);
    const Status ss = (*reader)->Lookup("s", &t);
    EXPECT_TRUE(!sv.ok() || !ss.ok()) << "byte " << i;
    for (const Status& s : {sv, ss}) {
      if (!s.ok()) {
        EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
        EXPECT_THAT(s.message(), HasSubstr(data_path));
      }
    }
  }
  WriteFile(data_path, good.substr(0, good.size() - 1));
  auto reader = BundleReader::Open(Prefix());
  MF_ASSERT_OK(reader.status());
  Tensor t;
  // "s" was written last, so it is the one cut short.
  EXPECT_THAT((*reader)->Lookup("s", &t),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("lies outside")));
}

TEST_F(TensorBundleTest, TruncatedIndexIsAnError) {
  Save(Prefix(), {{"a", Tensor(1.0f)}, {"b", Tensor(2.0)}});
  const std::string index = ReadFile(MetaFilename(Prefix()));
  for (size_t len = 0; len < index.size(); ++len) {
    WriteFile(MetaFilename(Prefix()), index.substr(0, len));
    EXPECT_THAT(BundleReader::Open(Prefix()).status(),
                StatusIs(absl::StatusCode::kDataLoss,
                         HasSubstr(MetaFilename(Prefix()))))
        << len;
  }
}

TEST_F(TensorBundleTest, HeaderIsChecked) {
  Save(Prefix(), {{"a", Tensor(1.0f)}});
  const struct {
    const char* what;
    std::function<void(BundleHeaderProto*)> change;
    absl::StatusCode code;
    const char* message;
  } cases[] = {
      {"no shards", [](BundleHeaderProto* h) { h->set_num_shards(0); },
       absl::StatusCode::kDataLoss, "num_shards"},
      {"big endian",
       [](BundleHeaderProto* h) { h->set_endianness(BundleHeaderProto::BIG); },
       absl::StatusCode::kUnimplemented, "big-endian"},
      {"newer format",
       [](BundleHeaderProto* h) { h->mutable_version()->set_min_consumer(2); },
       absl::StatusCode::kFailedPrecondition, "version >= 2"},
      {"bad consumer",
       [](BundleHeaderProto* h) { h->mutable_version()->add_bad_consumers(1); },
       absl::StatusCode::kFailedPrecondition, "disallows"},
  };
  for (const auto& c : cases) {
    BundleHeaderProto header = GoodHeader();
    c.change(&header);
    WriteIndex(Prefix(), header, {});
    EXPECT_THAT(BundleReader::Open(Prefix()).status(),
                StatusIs(c.code, HasSubstr(c.message)))
        << c.what;
  }
  // No header at all.
  table::TableBuilder builder;
  MF_ASSERT_OK(builder.Add("a", "x"));
  WriteFile(MetaFilename(Prefix()), builder.Finish());
  EXPECT_THAT(BundleReader::Open(Prefix()).status(),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("header")));
}

TEST_F(TensorBundleTest, EntriesAreCheckedAgainstTheData) {
  Save(Prefix(), {{"a", Patterned(DT_FLOAT, TensorShape({4}))}});
  const std::string data = ReadFile(DataFilename(Prefix(), 0, 1));
  BundleEntryProto good;
  good.set_dtype(DT_FLOAT);
  good.mutable_shape()->add_dim()->set_size(4);
  good.set_size(16);
  good.set_crc32c(crc32c::Mask(crc32c::Value(data.data(), data.size())));
  const struct {
    const char* what;
    std::function<void(BundleEntryProto*)> change;
    absl::StatusCode code;
    const char* message;
  } cases[] = {
      {"shard", [](BundleEntryProto* e) { e->set_shard_id(3); },
       absl::StatusCode::kDataLoss, "shard 3"},
      {"offset", [](BundleEntryProto* e) { e->set_offset(10); },
       absl::StatusCode::kDataLoss, "lies outside"},
      {"negative size", [](BundleEntryProto* e) { e->set_size(-1); },
       absl::StatusCode::kDataLoss, "lies outside"},
      {"shape vs size",
       [](BundleEntryProto* e) {
         e->mutable_shape()->mutable_dim(0)->set_size(3);
       },
       absl::StatusCode::kDataLoss, "holds 16 bytes"},
      {"huge shape",
       [](BundleEntryProto* e) {
         e->mutable_shape()->mutable_dim(0)->set_size(int64_t{1} << 62);
       },
       absl::StatusCode::kDataLoss, "holds 16 bytes"},
      {"bad dim",
       [](BundleEntryProto* e) {
         e->mutable_shape()->mutable_dim(0)->set_size(-7);
       },
       absl::StatusCode::kDataLoss, "bad shape"},
      {"bad dtype",
       [](BundleEntryProto* e) { e->set_dtype(static_cast<DataType>(77)); },
       absl::StatusCode::kDataLoss, "invalid dtype"},
      {"crc", [](BundleEntryProto* e) { e->set_crc32c(e->crc32c() + 1); },
       absl::StatusCode::kDataLoss, "Checksum does not match"},
      {"slices", [](BundleEntryProto* e) { e->add_slices(); },
       absl::StatusCode::kUnimplemented, "slices"},
      {"variant", [](BundleEntryProto* e) { e->set_dtype(DT_VARIANT); },
       absl::StatusCode::kUnimplemented, "variant"},
      {"bool",
       [](BundleEntryProto* e) {
         e->set_dtype(DT_BOOL);
         e->mutable_shape()->mutable_dim(0)->set_size(16);
       },
       absl::StatusCode::kDataLoss, "neither 0 nor 1"},
  };
  for (const auto& c : cases) {
    BundleEntryProto entry = good;
    c.change(&entry);
    WriteIndex(Prefix(), GoodHeader(), {{"a", entry}});
    auto reader = BundleReader::Open(Prefix());
    MF_ASSERT_OK(reader.status());
    Tensor t;
    const Status s = (*reader)->Lookup("a", &t);
    EXPECT_THAT(s, StatusIs(c.code, HasSubstr(c.message))) << c.what;
    EXPECT_THAT(s.message(), HasSubstr("a")) << c.what;
  }
  WriteIndex(Prefix(), GoodHeader(), {{"a", good}});
  auto reader = BundleReader::Open(Prefix());
  MF_ASSERT_OK(reader.status());
  Tensor t;
  MF_EXPECT_OK((*reader)->Lookup("a", &t));
}

TEST_F(TensorBundleTest, StringLengthsAreChecked) {
  Save(Prefix(), {{"s", test::AsTensor<tstring>({"ab", "c"})}});
  const std::string path = DataFilename(Prefix(), 0, 1);
  const std::string good = ReadFile(path);
  // [2][1][4-byte crc of lengths]"abc"
  ASSERT_EQ(good.size(), 2u + 4u + 3u);
  std::string bad = good;
  bad[0] = 3;  // lengths no longer match their checksum
  WriteFile(path, bad);
  auto reader = BundleReader::Open(Prefix());
  MF_ASSERT_OK(reader.status());
  Tensor t;
  EXPECT_THAT((*reader)->Lookup("s", &t),
              StatusIs(absl::StatusCode::kDataLoss,
                       HasSubstr("checksum of the string lengths")));
  bad = good;
  bad[0] = '\x80';  // an unfinished varint
  WriteFile(path, bad);
  EXPECT_THAT((*reader)->Lookup("s", &t),
              StatusIs(absl::StatusCode::kDataLoss));
}

TEST_F(TensorBundleTest, MergesBundlesIntoOne) {
  Save(Prefix("part0/p"), {{"a", Tensor(1.0f)}, {"c", Tensor(int64_t{3})}});
  Save(Prefix("part1/p"), {{"b", test::AsTensor<tstring>({"bee"})}});
  const std::vector<std::string> parts = {Prefix("part0/p"), Prefix("part1/p")};
  MF_ASSERT_OK(MergeBundles(parts, Prefix("merged")));
  EXPECT_FALSE(fs::exists(MetaFilename(parts[0])));
  EXPECT_FALSE(fs::exists(MetaFilename(parts[1])));
  auto reader = BundleReader::Open(Prefix("merged"));
  MF_ASSERT_OK(reader.status());
  EXPECT_EQ((*reader)->num_shards(), 2);
  std::vector<std::string> keys;
  MF_ASSERT_OK((*reader)->ListKeys(&keys));
  EXPECT_THAT(keys, ElementsAre("a", "b", "c"));
  Tensor t;
  MF_ASSERT_OK((*reader)->Lookup("b", &t));
  EXPECT_EQ(t.flat<tstring>()(0), "bee");
  MF_ASSERT_OK((*reader)->Lookup("c", &t));
  EXPECT_EQ(t.scalar<int64_t>()(), 3);
}

TEST_F(TensorBundleTest, MergeRejectsDuplicatesAndMissingFiles) {
  Save(Prefix("x"), {{"a", Tensor(1.0f)}});
  Save(Prefix("y"), {{"a", Tensor(2.0f)}});
  const std::vector<std::string> both = {Prefix("x"), Prefix("y")};
  EXPECT_THAT(MergeBundles(both, Prefix("m")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Duplicate tensor keyed by a")));
  const std::vector<std::string> missing = {Prefix("x"), Prefix("gone")};
  EXPECT_THAT(MergeBundles(missing, Prefix("m")),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("gone")));
  MF_ASSERT_OK(
      MergeBundles(missing, Prefix("m"), /*allow_missing_files=*/true));
  auto reader = BundleReader::Open(Prefix("m"));
  MF_ASSERT_OK(reader.status());
  Tensor t;
  MF_ASSERT_OK((*reader)->Lookup("a", &t));
  EXPECT_EQ(t.scalar<float>()(), 1.0f);
}

// ---- TensorFlow's own checkpoints (tests/testdata/saved_models) ------------

float ReadFloat(const BundleReader& reader, const std::string& key) {
  Tensor t;
  const Status s = reader.Lookup(key, &t);
  EXPECT_TRUE(s.ok()) << s;
  if (!s.ok() || t.dtype() != DT_FLOAT || t.NumElements() != 1) return -1;
  return t.flat<float>()(0);
}

TEST_F(TensorBundleTest, ReadsTensorFlow1HalfPlusThree) {
  auto reader = BundleReader::Open(Testdata("saved_model_half_plus_three"));
  MF_ASSERT_OK(reader.status());
  std::vector<std::string> keys;
  MF_ASSERT_OK((*reader)->ListKeys(&keys));
  EXPECT_THAT(keys, ElementsAre("a", "b", "c"));
  EXPECT_EQ(ReadFloat(**reader, "a"), 0.5f);
  EXPECT_EQ(ReadFloat(**reader, "b"), 3.0f);
  EXPECT_EQ(ReadFloat(**reader, "c"), 3.0f);
}

// Written by TensorFlow with a snappy-compressed index.
TEST_F(TensorBundleTest, ReadsTensorFlow1HalfPlusTwoWithSnappyIndex) {
  auto reader = BundleReader::Open(Testdata("saved_model_half_plus_two_cpu"));
  MF_ASSERT_OK(reader.status());
  std::vector<std::string> keys;
  MF_ASSERT_OK((*reader)->ListKeys(&keys));
  EXPECT_THAT(keys, ElementsAre("a", "a2", "b", "c", "c2"));
  EXPECT_EQ(ReadFloat(**reader, "a"), 0.5f);
  EXPECT_EQ(ReadFloat(**reader, "a2"), 0.5f);
  EXPECT_EQ(ReadFloat(**reader, "c2"), 3.0f);
  EXPECT_EQ(ReadFloat(**reader, "b"), 2.0f);
  EXPECT_EQ(ReadFloat(**reader, "c"), 3.0f);
}

TEST_F(TensorBundleTest, ReadsTensorFlow2HalfPlusTwo) {
  auto reader =
      BundleReader::Open(Testdata("saved_model_half_plus_two_tf2_cpu"));
  MF_ASSERT_OK(reader.status());
  std::vector<std::string> keys;
  MF_ASSERT_OK((*reader)->ListKeys(&keys));
  EXPECT_THAT(keys, ElementsAre("_CHECKPOINTABLE_OBJECT_GRAPH",
                                "a/.ATTRIBUTES/VARIABLE_VALUE",
                                "b/.ATTRIBUTES/VARIABLE_VALUE",
                                "c/.ATTRIBUTES/VARIABLE_VALUE"));
  EXPECT_EQ(ReadFloat(**reader, "a/.ATTRIBUTES/VARIABLE_VALUE"), 0.5f);
  EXPECT_EQ(ReadFloat(**reader, "b/.ATTRIBUTES/VARIABLE_VALUE"), 2.0f);
  EXPECT_EQ(ReadFloat(**reader, "c/.ATTRIBUTES/VARIABLE_VALUE"), 3.0f);
  // The object graph is a serialized TrackableObjectGraph in a scalar
  // string: its children name the variables.
  Tensor graph;
  MF_ASSERT_OK((*reader)->Lookup("_CHECKPOINTABLE_OBJECT_GRAPH", &graph));
  ASSERT_EQ(graph.dtype(), DT_STRING);
  ASSERT_EQ(graph.dims(), 0);
  EXPECT_THAT(graph.scalar<tstring>()(),
              HasSubstr("a/.ATTRIBUTES/VARIABLE_VALUE"));
}

// Reading TensorFlow's tensors and saving them again gives TensorFlow's
// files, byte for byte.
TEST_F(TensorBundleTest, RewritesTensorFlowsCheckpointByteForByte) {
  const std::string original = Testdata("saved_model_half_plus_three");
  auto reader = BundleReader::Open(original);
  MF_ASSERT_OK(reader.status());
  std::vector<std::string> keys;
  MF_ASSERT_OK((*reader)->ListKeys(&keys));
  BundleWriter writer(Prefix());
  for (const std::string& key : keys) {
    Tensor t;
    MF_ASSERT_OK((*reader)->Lookup(key, &t));
    MF_ASSERT_OK(writer.Add(key, t));
  }
  MF_ASSERT_OK(writer.Finish());
  EXPECT_EQ(ReadFile(MetaFilename(Prefix())), ReadFile(MetaFilename(original)));
  EXPECT_EQ(ReadFile(DataFilename(Prefix(), 0, 1)),
            ReadFile(DataFilename(original, 0, 1)));
}

}  // namespace
}  // namespace minflow
