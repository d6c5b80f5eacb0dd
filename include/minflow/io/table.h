// LevelDB's sorted-string table, as TensorFlow uses it for the index of a
// checkpoint: sorted (key, value) pairs in checksummed blocks with
// prefix-compressed keys, an index block, and a 48-byte footer.
//
// TableBuilder writes uncompressed tables byte for byte as TensorFlow does.
// Table reads them (and snappy-compressed ones, which TensorFlow also
// writes) from untrusted bytes: every varint, offset, length, restart point
// and checksum is checked, and bad input is a DataLoss naming the file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "minflow/core/status.h"

namespace minflow {
namespace table {

// The footer's magic number (little endian on disk).
constexpr uint64_t kTableMagicNumber = 0xdb4775248b80fb57ull;
// Two BlockHandles padded to 40 bytes, then the magic number.
constexpr size_t kFooterSize = 48;
// Each block is followed by its compression type and a masked CRC32C.
constexpr size_t kBlockTrailerSize = 5;

enum CompressionType : uint8_t {
  kNoCompression = 0,
  kSnappyCompression = 1,
};

// Builds a table in memory. Not thread-safe.
class TableBuilder {
 public:
  struct Options {
    // A data block is closed once it holds about this many bytes
    // (TensorFlow's default).
    size_t block_size = 262144;
    // A key is stored whole (a restart point) every this many keys.
    int block_restart_interval = 16;
  };

  TableBuilder();
  explicit TableBuilder(const Options& options);
  ~TableBuilder();
  TableBuilder(const TableBuilder&) = delete;
  TableBuilder& operator=(const TableBuilder&) = delete;

  // Appends a pair. Keys must be strictly increasing (bytewise):
  // InvalidArgument otherwise, and the pair is not added.
  Status Add(absl::string_view key, absl::string_view value);

  // The finished table's bytes. Call once; the builder is spent after.
  std::string Finish();

  uint64_t NumEntries() const { return num_entries_; }

 private:
  class BlockBuilder;
  void FlushDataBlock();
  void WriteBlock(BlockBuilder* block, uint64_t* offset, uint64_t* size);

  Options options_;
  std::unique_ptr<BlockBuilder> data_block_;
  std::unique_ptr<BlockBuilder> index_block_;
  std::string out_;
  std::string last_key_;
  uint64_t num_entries_ = 0;
  // Set after a data block is written until its index entry is added: the
  // entry's key is chosen once the next block's first key is known.
  bool pending_index_entry_ = false;
  uint64_t pending_offset_ = 0;
  uint64_t pending_size_ = 0;
  bool finished_ = false;
};

// A table read from its bytes, which it owns. Thread-safe: iterators are
// independent, each used by one thread at a time.
class Table {
 public:
  // Checks the footer and the index block. `filename` names the table in
  // errors. DataLoss for a corrupt or truncated table.
  static StatusOr<std::unique_ptr<Table>> Open(std::string filename,
                                               std::string contents);
  // Reads the file at `path`, then Open.
  static StatusOr<std::unique_ptr<Table>> OpenFile(const std::string& path);

  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;
  ~Table();

  // A cursor over the pairs in key order. Blocks are read and checked as
  // the cursor reaches them; a problem makes the cursor invalid with a
  // non-OK status() (DataLoss, or Unimplemented for an unknown
  // compression), naming the file.
  class Iterator {
   public:
    virtual ~Iterator() = default;
    virtual bool Valid() const = 0;
    virtual void SeekToFirst() = 0;
    // To the first key >= target.
    virtual void Seek(absl::string_view target) = 0;
    // Requires Valid().
    virtual void Next() = 0;
    // Views valid until the cursor moves.
    virtual absl::string_view key() const = 0;
    virtual absl::string_view value() const = 0;
    virtual Status status() const = 0;
  };
  std::unique_ptr<Iterator> NewIterator() const;

  // The value of `key`: NotFound if absent, or the iterator's error.
  Status Get(absl::string_view key, std::string* value) const;

  const std::string& filename() const;

  // The table's state; defined in table.cc only.
  struct Rep;

 private:
  explicit Table(std::unique_ptr<Rep> rep);

  std::unique_ptr<Rep> rep_;
};

}  // namespace table
}  // namespace minflow
