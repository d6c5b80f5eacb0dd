// Tensor bundles: TensorFlow's V2 checkpoint format. A bundle with prefix P
// is two kinds of files:
//   P.index                  a table (minflow/io/table.h) mapping each
//                            tensor's key to a BundleEntryProto, with a
//                            BundleHeaderProto under the empty key;
//   P.data-00000-of-0000N    the tensors' bytes, back to back.
// Numeric tensors are stored as their raw little-endian bytes; strings as
// the varint64 lengths of all elements, a masked CRC32C of those lengths,
// then the elements' bytes. Each entry carries a masked CRC32C of its data.
// Files written here are byte-identical to TensorFlow's, and TensorFlow's
// checkpoints read here (sliced entries and variants excepted).
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "minflow/core/status.h"
#include "minflow/core/tensor.h"
#include "minflow/core/tensor_shape.h"
#include "minflow/core/types.h"

namespace minflow {

class BundleEntryProto;
namespace table {
class Table;
}

// The format version written in the header (TensorFlow's).
constexpr int kTensorBundleVersion = 1;
constexpr int kTensorBundleMinConsumer = 0;

// "P.index".
std::string MetaFilename(absl::string_view prefix);
// "P.data-00000-of-00001".
std::string DataFilename(absl::string_view prefix, int32_t shard_id,
                         int32_t num_shards);

// Writes one bundle of one shard. Files are written under temporary names
// and renamed into place by Finish, so a failed save leaves no partial
// bundle. Not thread-safe.
class BundleWriter {
 public:
  // Creates the prefix's directory if needed and opens the data file; a
  // failure shows in status() and in every later call.
  explicit BundleWriter(std::string prefix);
  // Removes the temporary files when Finish was not reached.
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  // Appends `tensor`'s bytes to the data file. InvalidArgument for the
  // empty key (the header's) or a key added before; Unimplemented for
  // dtypes without a byte encoding (variant, resource). An error sticks.
  Status Add(absl::string_view key, const Tensor& tensor);

  // Writes the index and renames both files into place. Call once.
  Status Finish();

  Status status() const { return status_; }
  const std::string& prefix() const { return prefix_; }

 private:
  std::string prefix_;
  std::string data_tmp_;
  std::string index_tmp_;
  std::ofstream data_;
  int64_t size_ = 0;
  std::map<std::string, std::string> entries_;  // key -> BundleEntryProto
  Status status_;
  bool finished_ = false;
};

// Reads a bundle. Every read is checked against the files: the header
// (shards, endianness, version), each entry's dtype, shape, shard, offset
// and size against the data file's size, and its checksum. A corrupt or
// hostile bundle is an error naming the file and the key, never a crash or
// an allocation larger than the files. Thread-safe after Open.
class BundleReader {
 public:
  // Opens `prefix`.index and checks its header. NotFound when it does not
  // exist; DataLoss when it is corrupt; Unimplemented for big-endian
  // bundles; FailedPrecondition for a version this reader cannot read.
  static StatusOr<std::unique_ptr<BundleReader>> Open(
      const std::string& prefix);
  ~BundleReader();
  BundleReader(const BundleReader&) = delete;
  BundleReader& operator=(const BundleReader&) = delete;

  // The tensor saved under `key`. NotFound when absent; DataLoss when its
  // entry or bytes are corrupt; Unimplemented for sliced or variant
  // entries.
  Status Lookup(absl::string_view key, Tensor* tensor) const;
  // The dtype and shape of `key`, from the index only.
  Status LookupDtypeAndShape(absl::string_view key, DataType* dtype,
                             TensorShape* shape) const;
  bool Contains(absl::string_view key) const;
  // The keys of all tensors, sorted (the header's key excluded).
  Status ListKeys(std::vector<std::string>* keys) const;

  const std::string& prefix() const { return prefix_; }
  int32_t num_shards() const { return num_shards_; }

 private:
  BundleReader(std::string prefix, std::unique_ptr<table::Table> table,
               int32_t num_shards);
  // The parsed and checked entry of `key`, with its shape.
  Status GetEntry(absl::string_view key, BundleEntryProto* entry,
                  TensorShape* shape) const;

  // A data shard's descriptor and size, opened at its first lookup and kept
  // for the reader's life: a restore reads many tensors from one shard.
  struct DataFile {
    int fd = -1;
    int64_t size = 0;
  };
  Status GetDataFile(int32_t shard, const std::string& path,
                     DataFile* file) const;

  std::string prefix_;
  std::unique_ptr<table::Table> table_;
  int32_t num_shards_ = 1;
  // Lookup is const and may be called from several threads.
  mutable absl::Mutex files_mu_;
  mutable std::vector<DataFile> files_ ABSL_GUARDED_BY(files_mu_);
};

// Merges the bundles at `prefixes` into one at `merged_prefix`: their data
// files are renamed to the merged bundle's shards and one index is written;
// the source index files are removed. With `allow_missing_files`, prefixes
// without an index are skipped (at least one must exist). InvalidArgument
// for a key in two bundles; Unimplemented for sliced entries.
Status MergeBundles(absl::Span<const std::string> prefixes,
                    absl::string_view merged_prefix,
                    bool allow_missing_files = false);

}  // namespace minflow
