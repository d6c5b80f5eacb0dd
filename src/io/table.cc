#include "minflow/io/table.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "minflow/core/file_util.h"
#include "minflow/io/crc32c.h"
#include "src/io/coding.h"
#include "src/io/snappy.h"

namespace minflow {
namespace table {
namespace {

using io::DecodeFixed32;
using io::DecodeFixed64;
using io::GetVarint32;
using io::GetVarint64;
using io::PutFixed32;
using io::PutVarint32;
using io::PutVarint64;

// A varint64 takes at most 10 bytes, so a handle at most 20.
constexpr size_t kMaxEncodedHandleLength = 20;

void EncodeHandle(std::string* dst, uint64_t offset, uint64_t size) {
  PutVarint64(dst, offset);
  PutVarint64(dst, size);
}

template <typename... Args>
Status Corrupt(const std::string& filename, const Args&... args) {
  return errors::DataLoss("corrupted table ", filename, ": ", args...);
}

// Bytewise comparator's shortening of index keys, as LevelDB does it: a key
// k with start <= k < limit, as short as a one-byte bump allows.
void ShortenSeparator(std::string* start, absl::string_view limit) {
  const size_t min_length = std::min(start->size(), limit.size());
  size_t diff = 0;
  while (diff < min_length && (*start)[diff] == limit[diff]) ++diff;
  if (diff >= min_length) return;  // one is a prefix of the other
  const uint8_t byte = static_cast<uint8_t>((*start)[diff]);
  if (byte < 0xff && byte + 1 < static_cast<uint8_t>(limit[diff])) {
    (*start)[diff] = static_cast<char>(byte + 1);
    start->resize(diff + 1);
  }
}

// A short key >= `key`: the first byte that can be bumped, bumped.
void ShortSuccessor(std::string* key) {
  for (size_t i = 0; i < key->size(); ++i) {
    const uint8_t byte = static_cast<uint8_t>((*key)[i]);
    if (byte != 0xff) {
      (*key)[i] = static_cast<char>(byte + 1);
      key->resize(i + 1);
      return;
    }
  }
}

// Whether `prefix_part + suffix` > `prev`, where prefix_part is prev's first
// `shared` bytes: only the bytes after the shared prefix decide, so the cost
// is bounded by the suffix, never by the key's length.
bool SuffixIsGreater(absl::string_view prev, size_t shared,
                     absl::string_view suffix) {
  return suffix > prev.substr(shared);
}

// One entry's header: shared key bytes, unshared key bytes, value bytes.
struct EntryHeader {
  uint32_t shared = 0;
  uint32_t non_shared = 0;
  uint32_t value_length = 0;
  const char* key_delta = nullptr;  // non_shared bytes, then the value
};

// Decodes the entry at [p, limit). False when it does not fit.
bool DecodeEntry(const char* p, const char* limit, EntryHeader* e) {
  if (!GetVarint32(&p, limit, &e->shared) ||
      !GetVarint32(&p, limit, &e->non_shared) ||
      !GetVarint32(&p, limit, &e->value_length)) {
    return false;
  }
  const uint64_t need = static_cast<uint64_t>(e->non_shared) +
                        static_cast<uint64_t>(e->value_length);
  if (need > static_cast<uint64_t>(limit - p)) return false;
  e->key_delta = p;
  return true;
}

// A block whose structure has been checked entirely (see Block::Parse).
struct Block {
  absl::string_view data;
  size_t restarts_offset = 0;  // where the restart array starts
  uint32_t num_restarts = 0;

  uint32_t Restart(uint32_t i) const {
    return DecodeFixed32(data.data() + restarts_offset + 4 * size_t{i});
  }

  // Checks the restart array and walks every entry: each decodes inside
  // the block, shares no more than the previous key holds, keys strictly
  // increase, restart points are exactly entry starts with no shared
  // prefix, and the entries end where the restart array begins.
  static Status Parse(absl::string_view data, const std::string& filename,
                      uint64_t offset, Block* block) {
    if (data.size() < 4) {
      return Corrupt(filename, "block at offset ", offset, " is only ",
                     data.size(), " bytes");
    }
    const uint32_t num_restarts = DecodeFixed32(data.data() + data.size() - 4);
    const uint64_t max_restarts = (data.size() - 4) / 4;
    if (num_restarts == 0 || num_restarts > max_restarts) {
      return Corrupt(filename, "block at offset ", offset, " claims ",
                     num_restarts, " restart points, but ", data.size(),
                     " bytes hold between 1 and ", max_restarts);
    }
    block->data = data;
    block->num_restarts = num_restarts;
    block->restarts_offset = data.size() - 4 - 4 * size_t{num_restarts};
    const size_t end = block->restarts_offset;
    for (uint32_t i = 0; i < num_restarts; ++i) {
      const uint32_t r = block->Restart(i);
      const bool ok =
          (i == 0) ? r == 0 : (r > block->Restart(i - 1) && r < end);
      if (!ok) {
        return Corrupt(filename, "block at offset ", offset,
                       " has a bad restart point ", r, " (index ", i, ")");
      }
    }
    if (end == 0) {
      if (num_restarts != 1) {
        return Corrupt(filename, "empty block at offset ", offset, " has ",
                       num_restarts, " restart points");
      }
      return OkStatus();
    }
    std::string key;
    size_t pos = 0;
    uint32_t next_restart = 0;
    const char* const base = data.data();
    while (pos < end) {
      EntryHeader e;
      if (!DecodeEntry(base + pos, base + end, &e)) {
        return Corrupt(filename, "bad entry at byte ", pos,
                       " of block at offset ", offset);
      }
      const bool at_restart =
          next_restart < num_restarts && block->Restart(next_restart) == pos;
      if (at_restart) ++next_restart;
      if ((at_restart && e.shared != 0) || e.shared > key.size()) {
        return Corrupt(filename, "entry at byte ", pos, " of block at offset ",
                       offset, " shares ", e.shared, " key bytes");
      }
      const absl::string_view suffix(e.key_delta, e.non_shared);
      if (pos != 0 && !SuffixIsGreater(key, e.shared, suffix)) {
        return Corrupt(filename, "keys out of order in block at offset ",
                       offset);
      }
      key.resize(e.shared);
      key.append(suffix.data(), suffix.size());
      pos = static_cast<size_t>(e.key_delta - base) + e.non_shared +
            e.value_length;
    }
    if (pos != end || next_restart != num_restarts) {
      return Corrupt(filename, "restart points of block at offset ", offset,
                     " do not match its entries");
    }
    return OkStatus();
  }
};

// A cursor over one checked Block.
class BlockIter {
 public:
  void Reset(const Block* block) {
    block_ = block;
    valid_ = false;
    key_.clear();
  }
  bool Valid() const { return valid_; }
  absl::string_view key() const { return key_; }
  absl::string_view value() const { return value_; }

  void SeekToFirst() {
    key_.clear();
    ParseAt(0);
  }
  void Next() { ParseAt(next_); }

  void Seek(absl::string_view target) {
    // The last restart point whose key is < target, by binary search; then
    // forward from there.
    uint32_t left = 0;
    uint32_t right = block_->num_restarts - 1;
    while (left < right) {
      const uint32_t mid = left + (right - left + 1) / 2;
      key_.clear();
      ParseAt(block_->Restart(mid));
      if (valid_ && key_ < target) {
        left = mid;
      } else {
        right = mid - 1;
      }
    }
    key_.clear();
    ParseAt(block_->Restart(left));
    while (valid_ && key_ < target) Next();
  }

 private:
  // Entry at `pos`, decoded against key_ (the previous key).
  void ParseAt(size_t pos) {
    valid_ = false;
    if (block_ == nullptr || pos >= block_->restarts_offset) return;
    const char* base = block_->data.data();
    EntryHeader e;
    // Parse() walked every entry, so these hold; checked again rather than
    // trusted.
    if (!DecodeEntry(base + pos, base + block_->restarts_offset, &e) ||
        e.shared > key_.size()) {
      return;
    }
    key_.resize(e.shared);
    key_.append(e.key_delta, e.non_shared);
    value_ = absl::string_view(e.key_delta + e.non_shared, e.value_length);
    next_ =
        static_cast<size_t>(e.key_delta - base) + e.non_shared + e.value_length;
    valid_ = true;
  }

  const Block* block_ = nullptr;
  bool valid_ = false;
  std::string key_;
  absl::string_view value_;
  size_t next_ = 0;
};

}  // namespace

// ---- Writing ----------------------------------------------------------------

class TableBuilder::BlockBuilder {
 public:
  explicit BlockBuilder(int restart_interval)
      : restart_interval_(std::max(restart_interval, 1)) {
    restarts_.push_back(0);
  }

  bool empty() const { return buffer_.empty(); }
  size_t SizeEstimate() const {
    return buffer_.size() + 4 * restarts_.size() + 4;
  }

  void Add(absl::string_view key, absl::string_view value) {
    size_t shared = 0;
    if (counter_ < restart_interval_) {
      const size_t n = std::min(last_key_.size(), key.size());
      while (shared < n && last_key_[shared] == key[shared]) ++shared;
    } else {
      restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
      counter_ = 0;
    }
    PutVarint32(&buffer_, static_cast<uint32_t>(shared));
    PutVarint32(&buffer_, static_cast<uint32_t>(key.size() - shared));
    PutVarint32(&buffer_, static_cast<uint32_t>(value.size()));
    buffer_.append(key.data() + shared, key.size() - shared);
    buffer_.append(value.data(), value.size());
    last_key_.assign(key.data(), key.size());
    ++counter_;
  }

  // The block's bytes; the builder is then empty again.
  std::string Finish() {
    for (uint32_t r : restarts_) PutFixed32(&buffer_, r);
    PutFixed32(&buffer_, static_cast<uint32_t>(restarts_.size()));
    std::string out = std::move(buffer_);
    buffer_.clear();
    restarts_.assign(1, 0);
    counter_ = 0;
    last_key_.clear();
    return out;
  }

 private:
  const int restart_interval_;
  std::string buffer_;
  std::vector<uint32_t> restarts_;
  int counter_ = 0;
  std::string last_key_;
};

TableBuilder::TableBuilder() : TableBuilder(Options()) {}

TableBuilder::TableBuilder(const Options& options)
    : options_(options),
      data_block_(
          std::make_unique<BlockBuilder>(options.block_restart_interval)),
      // Index keys are few and looked up by binary search: store each whole.
      index_block_(std::make_unique<BlockBuilder>(1)) {}

TableBuilder::~TableBuilder() = default;

Status TableBuilder::Add(absl::string_view key, absl::string_view value) {
  if (finished_) return errors::FailedPrecondition("table already finished");
  if (num_entries_ > 0 && !(key > absl::string_view(last_key_))) {
    return errors::InvalidArgument("table keys must be strictly increasing, ",
                                   "but got \"", key, "\" after \"", last_key_,
                                   "\"");
  }
  if (pending_index_entry_) {
    ShortenSeparator(&last_key_, key);
    std::string handle;
    EncodeHandle(&handle, pending_offset_, pending_size_);
    index_block_->Add(last_key_, handle);
    pending_index_entry_ = false;
  }
  data_block_->Add(key, value);
  last_key_.assign(key.data(), key.size());
  ++num_entries_;
  if (data_block_->SizeEstimate() >= options_.block_size) FlushDataBlock();
  return OkStatus();
}

void TableBuilder::FlushDataBlock() {
  if (data_block_->empty()) return;
  WriteBlock(data_block_.get(), &pending_offset_, &pending_size_);
  pending_index_entry_ = true;
}

void TableBuilder::WriteBlock(BlockBuilder* block, uint64_t* offset,
                              uint64_t* size) {
  const std::string contents = block->Finish();
  *offset = out_.size();
  *size = contents.size();
  out_.append(contents);
  const char type = static_cast<char>(kNoCompression);
  out_.push_back(type);
  const uint32_t crc =
      crc32c::Extend(crc32c::Value(contents.data(), contents.size()), &type, 1);
  PutFixed32(&out_, crc32c::Mask(crc));
}

std::string TableBuilder::Finish() {
  if (finished_) return std::string();
  finished_ = true;
  FlushDataBlock();
  // TensorFlow writes no filters or statistics: the metaindex is empty.
  BlockBuilder metaindex(1);
  uint64_t meta_offset = 0;
  uint64_t meta_size = 0;
  WriteBlock(&metaindex, &meta_offset, &meta_size);
  if (pending_index_entry_) {
    ShortSuccessor(&last_key_);
    std::string handle;
    EncodeHandle(&handle, pending_offset_, pending_size_);
    index_block_->Add(last_key_, handle);
    pending_index_entry_ = false;
  }
  uint64_t index_offset = 0;
  uint64_t index_size = 0;
  WriteBlock(index_block_.get(), &index_offset, &index_size);
  std::string footer;
  EncodeHandle(&footer, meta_offset, meta_size);
  EncodeHandle(&footer, index_offset, index_size);
  footer.resize(2 * kMaxEncodedHandleLength, '\0');
  io::PutFixed64(&footer, kTableMagicNumber);
  out_.append(footer);
  return std::move(out_);
}

// ---- Reading ----------------------------------------------------------------

struct Table::Rep {
  std::string filename;
  std::string contents;
  // The index block, checked; its bytes are in `contents` or, when it was
  // compressed, in `index_storage`.
  std::string index_storage;
  Block index;

  // Where blocks may lie: before the footer.
  uint64_t data_end() const { return contents.size() - kFooterSize; }

  // Decodes a handle that must be all of `value` and lie before the footer.
  Status DecodeBlockHandle(absl::string_view value, const char* what,
                           uint64_t* offset, uint64_t* size) const {
    const char* p = value.data();
    const char* limit = p + value.size();
    if (!GetVarint64(&p, limit, offset) || !GetVarint64(&p, limit, size) ||
        p != limit) {
      return Corrupt(filename, "bad ", what, " block handle");
    }
    const uint64_t end = data_end();
    if (*size > end || end - *size < kBlockTrailerSize ||
        *offset > end - *size - kBlockTrailerSize) {
      return Corrupt(filename, what, " block (offset ", *offset, ", size ",
                     *size, ") lies outside the ", end, " bytes before the ",
                     "footer");
    }
    return OkStatus();
  }

  // Checks the trailer of the block at [offset, offset + size) and gives
  // its uncompressed bytes (a view into `contents` or into *storage).
  Status ReadBlock(uint64_t offset, uint64_t size, std::string* storage,
                   absl::string_view* out) const {
    const char* data = contents.data() + offset;
    const char type = data[size];
    const uint32_t expected = crc32c::Unmask(DecodeFixed32(data + size + 1));
    const uint32_t actual = crc32c::Extend(crc32c::Value(data, size), &type, 1);
    if (actual != expected) {
      return Corrupt(filename, "checksum mismatch in block at offset ", offset);
    }
    switch (static_cast<uint8_t>(type)) {
      case kNoCompression:
        *out = absl::string_view(data, size);
        return OkStatus();
      case kSnappyCompression: {
        const Status s =
            io::SnappyUncompress(absl::string_view(data, size), storage);
        if (!s.ok()) {
          return Corrupt(filename, "block at offset ", offset, ": ",
                         s.message());
        }
        *out = *storage;
        return OkStatus();
      }
      default:
        return errors::Unimplemented(
            "table ", filename, ": block at offset ", offset,
            " uses compression type ",
            static_cast<int>(static_cast<uint8_t>(type)),
            "; only uncompressed (0) and snappy (1) blocks can be read");
    }
  }

  Status LoadBlock(absl::string_view handle_value, const char* what,
                   std::string* storage, Block* block) const {
    uint64_t offset = 0;
    uint64_t size = 0;
    MF_RETURN_IF_ERROR(DecodeBlockHandle(handle_value, what, &offset, &size));
    absl::string_view data;
    MF_RETURN_IF_ERROR(ReadBlock(offset, size, storage, &data));
    return Block::Parse(data, filename, offset, block);
  }
};

namespace {

// Two levels: the index block's entries name data blocks, read and checked
// when the cursor reaches them.
class TableIterator : public Table::Iterator {
 public:
  TableIterator(const Table::Rep* rep, const Block* index) : rep_(rep) {
    index_iter_.Reset(index);
  }

  bool Valid() const override {
    return status_.ok() && data_loaded_ && data_iter_.Valid();
  }
  absl::string_view key() const override { return data_iter_.key(); }
  absl::string_view value() const override { return data_iter_.value(); }
  Status status() const override { return status_; }

  void SeekToFirst() override {
    status_ = OkStatus();
    index_iter_.SeekToFirst();
    LoadDataBlock();
    if (data_loaded_) data_iter_.SeekToFirst();
    SkipEmptyBlocks();
  }

  void Seek(absl::string_view target) override {
    status_ = OkStatus();
    index_iter_.Seek(target);
    LoadDataBlock();
    if (data_loaded_) data_iter_.Seek(target);
    SkipEmptyBlocks();
  }

  void Next() override {
    if (!Valid()) return;
    prev_key_.assign(data_iter_.key().data(), data_iter_.key().size());
    data_iter_.Next();
    SkipEmptyBlocks();
    // Within a block Parse() checked the order; across blocks it is checked
    // here.
    if (Valid() && !(data_iter_.key() > absl::string_view(prev_key_))) {
      status_ = Corrupt(rep_->filename, "keys out of order across blocks");
    }
  }

 private:
  void LoadDataBlock() {
    data_loaded_ = false;
    if (!index_iter_.Valid()) return;
    status_ = rep_->LoadBlock(index_iter_.value(), "data", &storage_, &block_);
    if (!status_.ok()) return;
    data_iter_.Reset(&block_);
    data_loaded_ = true;
  }

  // Moves past exhausted (or empty) data blocks.
  void SkipEmptyBlocks() {
    while (status_.ok() && data_loaded_ && !data_iter_.Valid()) {
      index_iter_.Next();
      LoadDataBlock();
      if (data_loaded_) data_iter_.SeekToFirst();
    }
  }

  const Table::Rep* rep_;
  BlockIter index_iter_;
  std::string storage_;
  Block block_;
  BlockIter data_iter_;
  bool data_loaded_ = false;
  Status status_;
  std::string prev_key_;
};

}  // namespace

Table::Table(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
Table::~Table() = default;

const std::string& Table::filename() const { return rep_->filename; }

StatusOr<std::unique_ptr<Table>> Table::Open(std::string filename,
                                             std::string contents) {
  auto rep = std::make_unique<Rep>();
  rep->filename = std::move(filename);
  rep->contents = std::move(contents);
  const std::string& bytes = rep->contents;
  if (bytes.size() < kFooterSize) {
    return Corrupt(rep->filename, "file is ", bytes.size(),
                   " bytes, too short for a table footer (", kFooterSize,
                   " bytes)");
  }
  const char* footer = bytes.data() + bytes.size() - kFooterSize;
  if (DecodeFixed64(footer + 2 * kMaxEncodedHandleLength) !=
      kTableMagicNumber) {
    return Corrupt(rep->filename, "bad magic number (not a table)");
  }
  const char* p = footer;
  const char* limit = footer + 2 * kMaxEncodedHandleLength;
  uint64_t handles[4];
  for (uint64_t& h : handles) {
    if (!GetVarint64(&p, limit, &h)) {
      return Corrupt(rep->filename, "bad block handle in the footer");
    }
  }
  // LevelDB and TensorFlow pad the handles with zeros; anything else is
  // damage.
  for (; p < limit; ++p) {
    if (*p != 0) return Corrupt(rep->filename, "footer padding is not zero");
  }
  // Re-encode each handle so that the one bounds check serves both.
  std::string meta_handle;
  std::string index_handle;
  EncodeHandle(&meta_handle, handles[0], handles[1]);
  EncodeHandle(&index_handle, handles[2], handles[3]);
  // Varints have more than one encoding; a footer must hold the shortest,
  // as every writer produces, so that no byte of it goes unchecked.
  if (absl::string_view(footer, meta_handle.size() + index_handle.size()) !=
      meta_handle + index_handle) {
    return Corrupt(rep->filename, "footer handles are not canonical varints");
  }
  std::string meta_storage;
  Block meta;
  MF_RETURN_IF_ERROR(
      rep->LoadBlock(meta_handle, "metaindex", &meta_storage, &meta));
  MF_RETURN_IF_ERROR(
      rep->LoadBlock(index_handle, "index", &rep->index_storage, &rep->index));
  // Every index entry's value must be a handle of a block in the file.
  BlockIter it;
  it.Reset(&rep->index);
  for (it.SeekToFirst(); it.Valid(); it.Next()) {
    uint64_t offset = 0;
    uint64_t size = 0;
    MF_RETURN_IF_ERROR(
        rep->DecodeBlockHandle(it.value(), "data", &offset, &size));
  }
  return std::unique_ptr<Table>(new Table(std::move(rep)));
}

StatusOr<std::unique_ptr<Table>> Table::OpenFile(const std::string& path) {
  std::string contents;
  MF_RETURN_IF_ERROR(ReadFileToString(path, &contents));
  return Open(path, std::move(contents));
}

std::unique_ptr<Table::Iterator> Table::NewIterator() const {
  return std::make_unique<TableIterator>(rep_.get(), &rep_->index);
}

Status Table::Get(absl::string_view key, std::string* value) const {
  auto it = NewIterator();
  it->Seek(key);
  if (it->Valid() && it->key() == key) {
    value->assign(it->value().data(), it->value().size());
    return OkStatus();
  }
  MF_RETURN_IF_ERROR(it->status());
  return errors::NotFound("key \"", key, "\" not found in table ",
                          rep_->filename);
}

}  // namespace table
}  // namespace minflow
