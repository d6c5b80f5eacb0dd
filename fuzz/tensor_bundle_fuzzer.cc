// Feeds arbitrary bytes to BundleReader as a checkpoint: the input is
// [4-byte little-endian n][n bytes of <prefix>.index][the rest: the data
// file <prefix>.data-00000-of-00001]. Every key is looked up; each must
// give a tensor or an error, never a crash, an out-of-bounds read or an
// allocation larger than the files.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "minflow/io/tensor_bundle.h"

namespace {

std::string* prefix = nullptr;

void WriteFile(const std::string& path, const char* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data, static_cast<std::streamsize>(size));
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
  if (size < 4) return 0;
  uint32_t n = static_cast<uint32_t>(data[0]) |
               (static_cast<uint32_t>(data[1]) << 8) |
               (static_cast<uint32_t>(data[2]) << 16) |
               (static_cast<uint32_t>(data[3]) << 24);
  const char* rest = reinterpret_cast<const char*>(data + 4);
  const size_t rest_size = size - 4;
  if (n > rest_size) n = static_cast<uint32_t>(rest_size);
  WriteFile(minflow::MetaFilename(*prefix), rest, n);
  WriteFile(minflow::DataFilename(*prefix, 0, 1), rest + n, rest_size - n);

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
