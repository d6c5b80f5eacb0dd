#include "minflow/io/tensor_bundle.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>
#include <utility>

#include "absl/strings/str_format.h"
#include "minflow/io/crc32c.h"
#include "minflow/io/table.h"
#include "minflow/tensor_bundle.pb.h"
#include "minflow/tensor_shape.pb.h"
#include "src/io/coding.h"

namespace minflow {
namespace {

namespace fs = std::filesystem;

// The header's key: the empty string sorts before every tensor's key.
constexpr absl::string_view kHeaderEntryKey = "";

std::string TempSuffix() {
  std::random_device rd;
  const uint64_t r = (static_cast<uint64_t>(rd()) << 32) | rd();
  return absl::StrFormat(".tempstate%016x", r);
}

Status OsError(absl::string_view what, const std::string& path) {
  return errors::Unknown(what, " ", path, ": ", std::strerror(errno));
}

// TensorFlow checksums the string lengths as fixed-width integers (uint32
// when it fits, for compatibility with older checkpoints), not as the
// varints stored.
uint32_t ExtendWithLength(uint32_t crc, uint64_t length) {
  std::string bytes;
  if (length <= UINT32_MAX) {
    io::PutFixed32(&bytes, static_cast<uint32_t>(length));
  } else {
    io::PutFixed64(&bytes, length);
  }
  return crc32c::Extend(crc, bytes.data(), bytes.size());
}

// The on-disk form of a string tensor and the unmasked checksum the entry
// records for it (over the lengths as integers, the lengths' checksum and
// the bytes: see ExtendWithLength).
void EncodeStrings(const Tensor& t, std::string* out, uint32_t* crc) {
  const auto flat = t.flat<tstring>();
  uint32_t c = 0;
  for (int64_t i = 0; i < flat.size(); ++i) {
    io::PutVarint64(out, flat(i).size());
    c = ExtendWithLength(c, flat(i).size());
  }
  std::string masked;
  io::PutFixed32(&masked, crc32c::Mask(c));
  out->append(masked);
  c = crc32c::Extend(c, masked.data(), masked.size());
  for (int64_t i = 0; i < flat.size(); ++i) {
    out->append(flat(i));
    c = crc32c::Extend(c, flat(i).data(), flat(i).size());
  }
  *crc = c;
}

Status ParseHeader(table::Table& table, BundleHeaderProto* header) {
  const std::string& file = table.filename();
  auto it = table.NewIterator();
  it->Seek(kHeaderEntryKey);
  MF_RETURN_IF_ERROR(it->status());
  if (!it->Valid() || it->key() != kHeaderEntryKey) {
    return errors::DataLoss("checkpoint index ", file,
                            " has no header entry (the empty key)");
  }
  if (!header->ParseFromArray(it->value().data(),
                              static_cast<int>(it->value().size()))) {
    return errors::DataLoss("checkpoint index ", file,
                            ": header is not a BundleHeaderProto");
  }
  if (header->num_shards() <= 0) {
    return errors::DataLoss("checkpoint index ", file, ": num_shards must be ",
                            "positive, but got ", header->num_shards());
  }
  if (header->endianness() == BundleHeaderProto::BIG) {
    return errors::Unimplemented("checkpoint ", file,
                                 " is big-endian; minflow reads only "
                                 "little-endian bundles");
  }
  if (header->endianness() != BundleHeaderProto::LITTLE) {
    return errors::DataLoss("checkpoint index ", file, ": unknown endianness ",
                            static_cast<int>(header->endianness()));
  }
  const VersionDef& v = header->version();
  if (v.producer() < 0) {
    return errors::FailedPrecondition("checkpoint ", file, " has producer ",
                                      "version ", v.producer(),
                                      ", older than any this reader supports");
  }
  if (kTensorBundleVersion < v.min_consumer()) {
    return errors::FailedPrecondition(
        "checkpoint ", file, " needs a reader of version >= ", v.min_consumer(),
        ", but this reader is version ", kTensorBundleVersion,
        "; it was written by a newer TensorFlow");
  }
  for (int bad : v.bad_consumers()) {
    if (bad == kTensorBundleVersion) {
      return errors::FailedPrecondition("checkpoint ", file,
                                        " disallows reader version ",
                                        kTensorBundleVersion);
    }
  }
  return OkStatus();
}

}  // namespace

std::string MetaFilename(absl::string_view prefix) {
  return absl::StrCat(prefix, ".index");
}

std::string DataFilename(absl::string_view prefix, int32_t shard_id,
                         int32_t num_shards) {
  return absl::StrFormat("%s.data-%05d-of-%05d", prefix, shard_id, num_shards);
}

// ---- BundleWriter -----------------------------------------------------------

BundleWriter::BundleWriter(std::string prefix) : prefix_(std::move(prefix)) {
  const fs::path dir = fs::path(prefix_).parent_path();
  if (!dir.empty()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
      status_ =
          errors::Unknown("cannot create directory ", dir.string(),
                          " for checkpoint ", prefix_, ": ", ec.message());
      return;
    }
  }
  const std::string suffix = TempSuffix();
  data_tmp_ = DataFilename(prefix_, 0, 1) + suffix;
  index_tmp_ = MetaFilename(prefix_) + suffix;
  data_.open(data_tmp_, std::ios::binary | std::ios::trunc);
  if (!data_) status_ = OsError("cannot open for writing", data_tmp_);
}

BundleWriter::~BundleWriter() {
  if (finished_) return;
  if (data_.is_open()) data_.close();
  std::error_code ec;
  if (!data_tmp_.empty()) fs::remove(data_tmp_, ec);
  if (!index_tmp_.empty()) fs::remove(index_tmp_, ec);
}

Status BundleWriter::Add(absl::string_view key, const Tensor& tensor) {
  if (!status_.ok()) return status_;
  if (finished_) return errors::FailedPrecondition("BundleWriter is closed");
  if (key == kHeaderEntryKey) {
    return errors::InvalidArgument("checkpoint ", prefix_,
                                   ": a tensor's key must not be empty");
  }
  const std::string key_string(key);
  if (entries_.count(key_string) > 0) {
    status_ = errors::InvalidArgument("Adding duplicate key: ", key,
                                      " to checkpoint ", prefix_);
    return status_;
  }
  if (tensor.NumElements() > 0 && !tensor.IsInitialized()) {
    return errors::InvalidArgument("checkpoint ", prefix_, ": tensor ", key,
                                   " is not initialized");
  }
  BundleEntryProto entry;
  entry.set_dtype(tensor.dtype());
  tensor.shape().AsProto(entry.mutable_shape());
  entry.set_shard_id(0);
  entry.set_offset(size_);
  uint32_t crc = 0;
  std::string encoded;
  absl::string_view bytes;
  if (tensor.dtype() == DT_STRING) {
    EncodeStrings(tensor, &encoded, &crc);
    bytes = encoded;
  } else if (DataTypeCanUseMemcpy(tensor.dtype())) {
    // Raw bytes in host order: minflow runs on little-endian hosts only.
    bytes =
        tensor.NumElements() > 0 ? tensor.tensor_data() : absl::string_view();
    crc = crc32c::Value(bytes.data(), bytes.size());
  } else {
    return errors::Unimplemented("checkpoint ", prefix_, ": tensor ", key,
                                 " has dtype ", DataTypeString(tensor.dtype()),
                                 ", which minflow cannot save");
  }
  data_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!data_) {
    status_ = OsError("cannot write", data_tmp_);
    return status_;
  }
  entry.set_size(static_cast<int64_t>(bytes.size()));
  entry.set_crc32c(crc32c::Mask(crc));
  size_ += static_cast<int64_t>(bytes.size());
  entry.SerializeToString(&entries_[key_string]);
  return OkStatus();
}

Status BundleWriter::Finish() {
  if (finished_) return errors::FailedPrecondition("BundleWriter is closed");
  if (!status_.ok()) return status_;
  data_.close();
  if (!data_) {
    status_ = OsError("cannot write", data_tmp_);
    return status_;
  }
  table::TableBuilder builder;
  BundleHeaderProto header;
  header.set_num_shards(1);
  header.set_endianness(BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(kTensorBundleVersion);
  header.mutable_version()->set_min_consumer(kTensorBundleMinConsumer);
  MF_RETURN_IF_ERROR(builder.Add(kHeaderEntryKey, header.SerializeAsString()));
  for (const auto& [key, entry] : entries_) {
    MF_RETURN_IF_ERROR(builder.Add(key, entry));
  }
  const std::string index = builder.Finish();
  {
    std::ofstream out(index_tmp_, std::ios::binary | std::ios::trunc);
    out.write(index.data(), static_cast<std::streamsize>(index.size()));
    out.close();
    if (!out) {
      status_ = OsError("cannot write", index_tmp_);
      return status_;
    }
  }
  std::error_code ec;
  fs::rename(data_tmp_, DataFilename(prefix_, 0, 1), ec);
  if (!ec) fs::rename(index_tmp_, MetaFilename(prefix_), ec);
  if (ec) {
    status_ = errors::Unknown("cannot move checkpoint ", prefix_,
                              " into place: ", ec.message());
    return status_;
  }
  finished_ = true;
  return OkStatus();
}

// ---- BundleReader -----------------------------------------------------------

BundleReader::BundleReader(std::string prefix,
                           std::unique_ptr<table::Table> table,
                           int32_t num_shards)
    : prefix_(std::move(prefix)),
      table_(std::move(table)),
      num_shards_(num_shards) {}

BundleReader::~BundleReader() {
  absl::MutexLock lock(&files_mu_);
  for (const DataFile& file : files_) {
    if (file.fd >= 0) close(file.fd);
  }
}

Status BundleReader::GetDataFile(int32_t shard, const std::string& path,
                                 DataFile* file) const {
  absl::MutexLock lock(&files_mu_);
  if (files_.empty()) files_.resize(num_shards_);
  DataFile& cached = files_[shard];
  if (cached.fd < 0) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return errors::NotFound("cannot open checkpoint data file ", path, ": ",
                              std::strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
      const int error = errno;
      close(fd);
      return errors::NotFound("cannot read the size of ", path, ": ",
                              std::strerror(error));
    }
    cached.fd = fd;
    cached.size = static_cast<int64_t>(st.st_size);
  }
  *file = cached;
  return OkStatus();
}

StatusOr<std::unique_ptr<BundleReader>> BundleReader::Open(
    const std::string& prefix) {
  const std::string index = MetaFilename(prefix);
  std::error_code ec;
  if (!fs::exists(index, ec)) {
    return errors::NotFound("checkpoint index ", index, " not found");
  }
  MF_ASSIGN_OR_RETURN(std::unique_ptr<table::Table> table,
                      table::Table::OpenFile(index));
  BundleHeaderProto header;
  MF_RETURN_IF_ERROR(ParseHeader(*table, &header));
  return std::unique_ptr<BundleReader>(
      new BundleReader(prefix, std::move(table), header.num_shards()));
}

Status BundleReader::GetEntry(absl::string_view key, BundleEntryProto* entry,
                              TensorShape* shape) const {
  const std::string& file = table_->filename();
  if (key == kHeaderEntryKey) {
    return errors::InvalidArgument("checkpoint ", prefix_,
                                   ": the empty key is the header's");
  }
  auto it = table_->NewIterator();
  it->Seek(key);
  if (!it->Valid() || it->key() != key) {
    MF_RETURN_IF_ERROR(
        errors::AppendToMessage(it->status(), "looking up ", key));
    return errors::NotFound("Key ", key, " not found in checkpoint ", prefix_);
  }
  if (!entry->ParseFromArray(it->value().data(),
                             static_cast<int>(it->value().size()))) {
    return errors::DataLoss("checkpoint index ", file, ": entry for key ", key,
                            " is not a BundleEntryProto");
  }
  const DataType dtype = entry->dtype();
  if (!DataTypeIsValid(dtype) || IsRefType(dtype)) {
    return errors::DataLoss("checkpoint index ", file, ": key ", key,
                            " has invalid dtype ", static_cast<int>(dtype));
  }
  const Status s = TensorShape::BuildTensorShape(entry->shape(), shape);
  if (!s.ok()) {
    return errors::DataLoss("checkpoint index ", file, ": key ", key,
                            " has a bad shape: ", s.message());
  }
  return OkStatus();
}

Status BundleReader::LookupDtypeAndShape(absl::string_view key, DataType* dtype,
                                         TensorShape* shape) const {
  BundleEntryProto entry;
  MF_RETURN_IF_ERROR(GetEntry(key, &entry, shape));
  *dtype = entry.dtype();
  return OkStatus();
}

bool BundleReader::Contains(absl::string_view key) const {
  BundleEntryProto entry;
  TensorShape shape;
  return GetEntry(key, &entry, &shape).ok();
}

Status BundleReader::ListKeys(std::vector<std::string>* keys) const {
  keys->clear();
  auto it = table_->NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (it->key() == kHeaderEntryKey) continue;
    keys->emplace_back(it->key());
  }
  return it->status();
}

Status BundleReader::Lookup(absl::string_view key, Tensor* tensor) const {
  BundleEntryProto entry;
  TensorShape shape;
  MF_RETURN_IF_ERROR(GetEntry(key, &entry, &shape));
  const std::string& index_file = table_->filename();
  const DataType dtype = entry.dtype();
  if (entry.slices_size() > 0) {
    return errors::Unimplemented("tensor ", key, " in checkpoint ", prefix_,
                                 " is saved as slices, which minflow cannot "
                                 "read yet");
  }
  if (dtype != DT_STRING && !DataTypeCanUseMemcpy(dtype)) {
    return errors::Unimplemented("tensor ", key, " in checkpoint ", prefix_,
                                 " has dtype ", DataTypeString(dtype),
                                 ", which minflow cannot read");
  }
  if (entry.shard_id() < 0 || entry.shard_id() >= num_shards_) {
    return errors::DataLoss("checkpoint index ", index_file, ": key ", key,
                            " is in shard ", entry.shard_id(), ", but there ",
                            "are ", num_shards_, " shards");
  }
  const std::string data_file =
      DataFilename(prefix_, entry.shard_id(), num_shards_);
  DataFile file;
  MF_RETURN_IF_ERROR(GetDataFile(entry.shard_id(), data_file, &file));
  const int64_t file_size = file.size;
  const int64_t offset = entry.offset();
  const int64_t size = entry.size();
  if (offset < 0 || size < 0 || offset > file_size ||
      size > file_size - offset) {
    return errors::DataLoss("checkpoint ", data_file, ": key ", key,
                            " (offset ", offset, ", size ", size,
                            ") lies outside the ", file_size, "-byte file");
  }
  const int64_t num_elements = shape.num_elements();
  if (dtype != DT_STRING) {
    const int64_t element_size = DataTypeSize(dtype);
    if (num_elements > size / element_size ||
        num_elements * element_size != size) {
      return errors::DataLoss("checkpoint ", data_file, ": key ", key,
                              " holds ", size, " bytes, but ",
                              DataTypeString(dtype), " ", shape.DebugString(),
                              " needs ",
                              num_elements > size / element_size
                                  ? std::string("more")
                                  : absl::StrCat(num_elements * element_size));
    }
  } else if (num_elements > size) {
    // Every element needs at least one byte for its length.
    return errors::DataLoss("checkpoint ", data_file, ": key ", key, " holds ",
                            size, " bytes, too few for ", num_elements,
                            " strings");
  }
  // pread: no shared file position, so lookups on several threads share
  // the descriptor.
  auto read_into = [&](char* dest) -> Status {
    for (int64_t done = 0; done < size;) {
      const ssize_t n = pread(file.fd, dest + done,
                              static_cast<size_t>(size - done), offset + done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        return errors::DataLoss("checkpoint ", data_file, ": cannot read ",
                                size, " bytes at offset ", offset, " for key ",
                                key,
                                n < 0 ? absl::StrCat(": ", std::strerror(errno))
                                      : std::string(": the file ends early"));
      }
      done += n;
    }
    return OkStatus();
  };
  auto checksum_error = [&](uint32_t actual) {
    return errors::DataLoss("Checksum does not match: stored ", entry.crc32c(),
                            " vs. calculated on the restored bytes ", actual,
                            " (checkpoint ", data_file, ", key ", key, ")");
  };
  if (dtype != DT_STRING) {
    // Straight into the tensor's buffer: a restore of megabytes of weights
    // touches them once to read and once to check.
    Tensor out(dtype, shape);
    char* bytes = size > 0 ? static_cast<char*>(out.data()) : nullptr;
    if (size > 0) MF_RETURN_IF_ERROR(read_into(bytes));
    const uint32_t actual =
        crc32c::Mask(crc32c::Value(bytes, static_cast<size_t>(size)));
    if (actual != entry.crc32c()) return checksum_error(actual);
    if (dtype == DT_BOOL) {
      for (int64_t i = 0; i < size; ++i) {
        if (bytes[i] != 0 && bytes[i] != 1) {
          return errors::DataLoss("checkpoint ", data_file, ": key ", key,
                                  " holds a bool that is neither 0 nor 1");
        }
      }
    }
    *tensor = std::move(out);
    return OkStatus();
  }
  std::string buf(static_cast<size_t>(size), '\0');
  MF_RETURN_IF_ERROR(read_into(buf.data()));
  // Strings: lengths, their checksum, then the bytes.
  const char* p = buf.data();
  const char* const limit = p + buf.size();
  std::vector<uint64_t> lengths(static_cast<size_t>(num_elements));
  uint32_t crc = 0;
  uint64_t total = 0;
  for (uint64_t& length : lengths) {
    // total stays <= size, so the sum cannot overflow.
    if (!io::GetVarint64(&p, limit, &length) ||
        length > static_cast<uint64_t>(size) - total) {
      return errors::DataLoss("checkpoint ", data_file, ": key ", key,
                              " has a bad string length");
    }
    total += length;
    crc = ExtendWithLength(crc, length);
  }
  if (limit - p < 4) {
    return errors::DataLoss("checkpoint ", data_file, ": key ", key,
                            " ends before its string lengths' checksum");
  }
  const uint32_t stored_lengths_crc = io::DecodeFixed32(p);
  if (stored_lengths_crc != crc32c::Mask(crc)) {
    return errors::DataLoss("checkpoint ", data_file, ": key ", key,
                            ": the checksum of the string lengths does not "
                            "match");
  }
  crc = crc32c::Extend(crc, p, 4);
  p += 4;
  if (total != static_cast<uint64_t>(limit - p)) {
    return errors::DataLoss("checkpoint ", data_file, ": key ", key,
                            " has strings of ", total, " bytes in ", limit - p,
                            " bytes");
  }
  crc = crc32c::Extend(crc, p, static_cast<size_t>(limit - p));
  if (crc32c::Mask(crc) != entry.crc32c()) {
    return checksum_error(crc32c::Mask(crc));
  }
  Tensor out(DT_STRING, shape);
  auto flat = out.flat<tstring>();
  for (int64_t i = 0; i < num_elements; ++i) {
    flat(i).assign(p, lengths[i]);
    p += lengths[i];
  }
  *tensor = std::move(out);
  return OkStatus();
}

// ---- Merging ----------------------------------------------------------------

Status MergeBundles(absl::Span<const std::string> prefixes,
                    absl::string_view merged_prefix, bool allow_missing_files) {
  std::map<std::string, BundleEntryProto> entries;
  // Source data file -> shard id in the merged bundle, by first use.
  std::map<std::string, int32_t> shard_ids;
  std::vector<std::string> shard_order;
  std::vector<std::string> merged_indexes;
  for (const std::string& prefix : prefixes) {
    const std::string index = MetaFilename(prefix);
    std::error_code ec;
    if (allow_missing_files && !fs::exists(index, ec)) continue;
    MF_ASSIGN_OR_RETURN(std::unique_ptr<table::Table> table,
                        table::Table::OpenFile(index));
    BundleHeaderProto header;
    MF_RETURN_IF_ERROR(ParseHeader(*table, &header));
    merged_indexes.push_back(index);
    auto it = table->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (it->key() == kHeaderEntryKey) continue;
      const std::string key(it->key());
      if (entries.count(key) > 0) {
        return errors::InvalidArgument(
            "Duplicate tensor keyed by ", key,
            " encountered, when merging prefix: ", prefix);
      }
      BundleEntryProto entry;
      if (!entry.ParseFromArray(it->value().data(),
                                static_cast<int>(it->value().size()))) {
        return errors::DataLoss("checkpoint index ", index, ": entry for key ",
                                key, " is not a BundleEntryProto");
      }
      if (entry.slices_size() > 0) {
        return errors::Unimplemented("tensor ", key, " in checkpoint ", prefix,
                                     " is saved as slices, which minflow "
                                     "cannot merge yet");
      }
      if (entry.shard_id() < 0 || entry.shard_id() >= header.num_shards()) {
        return errors::DataLoss("checkpoint index ", index, ": key ", key,
                                " is in shard ", entry.shard_id(), " of ",
                                header.num_shards());
      }
      const std::string source =
          DataFilename(prefix, entry.shard_id(), header.num_shards());
      auto [pos, inserted] =
          shard_ids.emplace(source, static_cast<int32_t>(shard_ids.size()));
      if (inserted) shard_order.push_back(source);
      entry.set_shard_id(pos->second);
      entries.emplace(key, std::move(entry));
    }
    MF_RETURN_IF_ERROR(it->status());
  }
  if (merged_indexes.empty()) {
    return errors::InvalidArgument(
        "MergeBundles: none of the checkpoints to merge exist");
  }
  const fs::path dir = fs::path(std::string(merged_prefix)).parent_path();
  std::error_code ec;
  if (!dir.empty()) fs::create_directories(dir, ec);
  // A merge of empty bundles is an empty bundle: one empty shard.
  const int32_t num_shards =
      std::max<int32_t>(1, static_cast<int32_t>(shard_order.size()));
  for (size_t i = 0; i < shard_order.size(); ++i) {
    const std::string target =
        DataFilename(merged_prefix, static_cast<int32_t>(i), num_shards);
    fs::rename(shard_order[i], target, ec);
    if (ec) {
      return errors::Unknown("cannot rename ", shard_order[i], " to ", target,
                             ": ", ec.message());
    }
  }
  if (shard_order.empty()) {
    std::ofstream(DataFilename(merged_prefix, 0, 1), std::ios::binary);
  }
  table::TableBuilder builder;
  BundleHeaderProto header;
  header.set_num_shards(num_shards);
  header.set_endianness(BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(kTensorBundleVersion);
  header.mutable_version()->set_min_consumer(kTensorBundleMinConsumer);
  MF_RETURN_IF_ERROR(builder.Add(kHeaderEntryKey, header.SerializeAsString()));
  for (const auto& [key, entry] : entries) {
    MF_RETURN_IF_ERROR(builder.Add(key, entry.SerializeAsString()));
  }
  const std::string bytes = builder.Finish();
  const std::string merged_index = MetaFilename(merged_prefix);
  const std::string tmp = merged_index + TempSuffix();
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) return OsError("cannot write", tmp);
  }
  for (const std::string& index : merged_indexes) {
    if (index != merged_index) fs::remove(index, ec);
  }
  fs::rename(tmp, merged_index, ec);
  if (ec) {
    return errors::Unknown("cannot rename ", tmp, " to ", merged_index, ": ",
                           ec.message());
  }
  return OkStatus();
}

}  // namespace minflow
