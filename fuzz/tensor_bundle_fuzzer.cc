// Feeds arbitrary bytes to BundleReader as a checkpoint. The first byte
// picks how the rest becomes the two files:
//   even: [4-byte little-endian n][n bytes of <prefix>.index][the rest: the
//         data file <prefix>.data-00000-of-00001], as raw bytes;
//   odd:  [1 byte block size][4-byte n][n bytes of records][data file],
//         where records are (varint length, key, varint length, value)
//         pairs written into a valid table by TableBuilder (with a good
//         header under "" unless a record gives one), and the CRC32C of every
//         non-string entry that parses and lies inside the data is made
//         right. Checksums would otherwise stop the fuzzer at the table and
//         entry checks; this mode reaches the checks behind them.
// Every key is looked up; each must give a tensor or an error, never a
// crash, an out-of-bounds read or an allocation larger than the files.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "minflow/io/crc32c.h"
#include "minflow/io/table.h"
#include "minflow/io/tensor_bundle.h"
#include "minflow/tensor_bundle.pb.h"

namespace {

std::string* prefix = nullptr;

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

uint32_t TakeFixed32(const uint8_t** p, const uint8_t* limit) {
  uint32_t v = 0;
  for (int i = 0; i < 4 && *p < limit; ++i, ++*p) {
    v |= static_cast<uint32_t>(**p) << (8 * i);
  }
  return v;
}

bool TakeVarint(const uint8_t** p, const uint8_t* limit, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *p < limit; shift += 7) {
    const uint8_t b = *(*p)++;
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

// The structured mode's index: see the file comment.
std::string BuildIndex(const uint8_t* p, const uint8_t* limit,
                       size_t block_size, const std::string& data) {
  std::map<std::string, std::string> records;
  while (p < limit) {
    uint64_t klen = 0;
    uint64_t vlen = 0;
    if (!TakeVarint(&p, limit, &klen) ||
        klen > static_cast<uint64_t>(limit - p)) {
      break;
    }
    std::string key(reinterpret_cast<const char*>(p), klen);
    p += klen;
    if (!TakeVarint(&p, limit, &vlen) ||
        vlen > static_cast<uint64_t>(limit - p)) {
      break;
    }
    std::string value(reinterpret_cast<const char*>(p), vlen);
    p += vlen;
    minflow::BundleEntryProto entry;
    if (!key.empty() && entry.ParseFromString(value) &&
        entry.dtype() != minflow::DT_STRING && entry.offset() >= 0 &&
        entry.size() >= 0 &&
        static_cast<uint64_t>(entry.offset()) <= data.size() &&
        static_cast<uint64_t>(entry.size()) <= data.size() - entry.offset()) {
      entry.set_crc32c(minflow::crc32c::Mask(minflow::crc32c::Value(
          data.data() + entry.offset(), static_cast<size_t>(entry.size()))));
      value = entry.SerializeAsString();
    }
    records.emplace(std::move(key), std::move(value));
  }
  if (records.count("") == 0) {
    minflow::BundleHeaderProto header;
    header.set_num_shards(1);
    header.mutable_version()->set_producer(1);
    records.emplace("", header.SerializeAsString());
  }
  minflow::table::TableBuilder::Options options;
  options.block_size = block_size;
  minflow::table::TableBuilder builder(options);
  for (const auto& [k, v] : records) (void)builder.Add(k, v);
  return builder.Finish();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp != nullptr ? tmp : "/tmp") +
                      "/tensor_bundle_fuzzer.XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) std::abort();
  prefix = new std::string(templ + "/bundle");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t* p = data;
  const uint8_t* const limit = data + size;
  const bool structured = (*p++ & 1) != 0;
  size_t block_size = 0;
  if (structured) {
    if (p == limit) return 0;
    block_size = 16 + 8 * static_cast<size_t>(*p++);
  }
  uint32_t n = TakeFixed32(&p, limit);
  if (n > static_cast<uint64_t>(limit - p)) {
    n = static_cast<uint32_t>(limit - p);
  }
  const std::string data_file(reinterpret_cast<const char*>(p + n),
                              limit - (p + n));
  const std::string index =
      structured ? BuildIndex(p, p + n, block_size, data_file)
                 : std::string(reinterpret_cast<const char*>(p), n);
  WriteFile(minflow::MetaFilename(*prefix), index);
  WriteFile(minflow::DataFilename(*prefix, 0, 1), data_file);

  auto reader = minflow::BundleReader::Open(*prefix);
  if (!reader.ok()) return 0;
  std::vector<std::string> keys;
  (void)(*reader)->ListKeys(&keys);
  keys.push_back("");
  keys.push_back("not there");
  // Bounded, so a table of many tiny keys cannot time out.
  if (keys.size() > 4096) keys.resize(4096);
  for (const std::string& key : keys) {
    minflow::Tensor tensor;
    if ((*reader)->Lookup(key, &tensor).ok()) {
      (void)tensor.SummarizeValue(4);
    }
    minflow::DataType dtype;
    minflow::TensorShape shape;
    (void)(*reader)->LookupDtypeAndShape(key, &dtype, &shape);
    (void)(*reader)->Contains(key);
  }
  return 0;
}
