#include "minflow/core/npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "minflow/core/file_util.h"

namespace minflow {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct DescrEntry {
  const char* code;  // without the byte-order character
  DataType dtype;
};

constexpr DescrEntry kDescrs[] = {
    {"b1", DT_BOOL},      {"i1", DT_INT8},        {"u1", DT_UINT8},
    {"i2", DT_INT16},     {"u2", DT_UINT16},      {"i4", DT_INT32},
    {"u4", DT_UINT32},    {"i8", DT_INT64},       {"u8", DT_UINT64},
    {"f2", DT_HALF},      {"f4", DT_FLOAT},       {"f8", DT_DOUBLE},
    {"c8", DT_COMPLEX64}, {"c16", DT_COMPLEX128},
};

Status ParseDescr(absl::string_view descr, DataType* dtype) {
  absl::string_view code = descr;
  if (!code.empty() && (code[0] == '<' || code[0] == '|' || code[0] == '=')) {
    code.remove_prefix(1);
  } else if (!code.empty() && code[0] == '>') {
    // One-byte types have no byte order, whatever the prefix says.
    if (code != ">b1" && code != ">i1" && code != ">u1") {
      return errors::InvalidArgument("NPY data is big-endian ('", descr,
                                     "'); only little-endian is supported");
    }
    code.remove_prefix(1);
  }
  for (const DescrEntry& e : kDescrs) {
    if (code == e.code) {
      *dtype = e.dtype;
      return OkStatus();
    }
  }
  return errors::InvalidArgument("NPY dtype '", descr,
                                 "' is not supported (numeric and bool only)");
}

// Finds `'key':` in the header dict and returns what follows, trimmed.
Status FindValue(absl::string_view header, absl::string_view key,
                 absl::string_view* value) {
  for (const char quote : {'\'', '"'}) {
    const std::string needle =
        absl::StrCat(std::string(1, quote), key, std::string(1, quote));
    const size_t at = header.find(needle);
    if (at == absl::string_view::npos) continue;
    absl::string_view rest = header.substr(at + needle.size());
    rest = absl::StripLeadingAsciiWhitespace(rest);
    if (!absl::ConsumePrefix(&rest, ":")) break;
    *value = absl::StripLeadingAsciiWhitespace(rest);
    return OkStatus();
  }
  return errors::InvalidArgument("NPY header has no '", key,
                                 "' entry: ", header);
}

Status ParseHeader(absl::string_view header, DataType* dtype,
                   bool* fortran_order, TensorShape* shape) {
  absl::string_view value;
  MF_RETURN_IF_ERROR(FindValue(header, "descr", &value));
  if (value.empty() || (value[0] != '\'' && value[0] != '"')) {
    return errors::InvalidArgument("NPY 'descr' must be a string, got: ",
                                   value.substr(0, 20));
  }
  const size_t end = value.find(value[0], 1);
  if (end == absl::string_view::npos) {
    return errors::InvalidArgument("NPY 'descr' string is not terminated");
  }
  MF_RETURN_IF_ERROR(ParseDescr(value.substr(1, end - 1), dtype));

  MF_RETURN_IF_ERROR(FindValue(header, "fortran_order", &value));
  if (absl::StartsWith(value, "True")) {
    *fortran_order = true;
  } else if (absl::StartsWith(value, "False")) {
    *fortran_order = false;
  } else {
    return errors::InvalidArgument("NPY 'fortran_order' must be True or False");
  }

  MF_RETURN_IF_ERROR(FindValue(header, "shape", &value));
  if (!absl::ConsumePrefix(&value, "(")) {
    return errors::InvalidArgument("NPY 'shape' must be a tuple");
  }
  const size_t close = value.find(')');
  if (close == absl::string_view::npos) {
    return errors::InvalidArgument("NPY 'shape' tuple is not closed");
  }
  std::vector<int64_t> dims;
  for (absl::string_view part : absl::StrSplit(value.substr(0, close), ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;  // "(3,)" and "()"
    int64_t d;
    if (!absl::SimpleAtoi(part, &d)) {
      return errors::InvalidArgument("NPY shape entry '", part,
                                     "' is not an integer");
    }
    dims.push_back(d);
  }
  return TensorShape::BuildTensorShape(dims, shape);
}

const char* DescrFor(DataType dtype) {
  switch (dtype) {
    case DT_BOOL:
      return "|b1";
    case DT_INT8:
      return "|i1";
    case DT_UINT8:
      return "|u1";
    case DT_INT16:
      return "<i2";
    case DT_UINT16:
      return "<u2";
    case DT_INT32:
      return "<i4";
    case DT_UINT32:
      return "<u4";
    case DT_INT64:
      return "<i8";
    case DT_UINT64:
      return "<u8";
    case DT_HALF:
      return "<f2";
    case DT_FLOAT:
      return "<f4";
    case DT_DOUBLE:
      return "<f8";
    case DT_COMPLEX64:
      return "<c8";
    case DT_COMPLEX128:
      return "<c16";
    default:
      return nullptr;
  }
}

}  // namespace

Status NpyToTensor(absl::string_view bytes, Tensor* tensor) {
  if (bytes.size() < kMagicSize + 4 ||
      std::memcmp(bytes.data(), kMagic, kMagicSize) != 0) {
    return errors::InvalidArgument("Not an NPY file: bad magic bytes");
  }
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0;
  size_t offset = 0;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) |
                 (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      return errors::DataLoss("NPY file is truncated inside its preamble");
    }
    for (int i = 0; i < 4; ++i) {
      header_len |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i]))
                    << (8 * i);
    }
    offset = 12;
  } else {
    return errors::InvalidArgument("NPY format version ", int{major},
                                   " is not supported (1, 2 or 3)");
  }
  if (header_len > bytes.size() - offset) {
    return errors::DataLoss("NPY file is truncated: header says ", header_len,
                            " bytes, file has ", bytes.size() - offset);
  }
  DataType dtype;
  bool fortran = false;
  TensorShape shape;
  MF_RETURN_IF_ERROR(
      ParseHeader(bytes.substr(offset, header_len), &dtype, &fortran, &shape));
  if (fortran && shape.dims() > 1) {
    return errors::InvalidArgument(
        "NPY array is in Fortran order; save it in C order "
        "(numpy.ascontiguousarray)");
  }
  absl::string_view data = bytes.substr(offset + header_len);
  const uint64_t need =
      static_cast<uint64_t>(shape.num_elements()) * DataTypeSize(dtype);
  if (data.size() != need) {
    return errors::DataLoss("NPY data holds ", data.size(), " bytes, but ",
                            shape.DebugString(), " ", DataTypeString(dtype),
                            " needs ", need);
  }
  MF_ASSIGN_OR_RETURN(Tensor t,
                      Tensor::Allocate(cpu_allocator(), dtype, shape));
  if (dtype == DT_BOOL) {
    bool* out = t.base<bool>();
    for (size_t i = 0; i < data.size(); ++i) out[i] = data[i] != 0;
  } else if (need > 0) {
    std::memcpy(t.data(), data.data(), need);
  }
  *tensor = std::move(t);
  return OkStatus();
}

Status TensorToNpy(const Tensor& tensor, std::string* bytes) {
  const char* descr = DescrFor(tensor.dtype());
  if (descr == nullptr) {
    return errors::InvalidArgument("A ", DataTypeString(tensor.dtype()),
                                   " tensor has no NPY equivalent");
  }
  std::string shape;
  for (int64_t d : tensor.shape().dim_sizes()) absl::StrAppend(&shape, d, ",");
  if (tensor.dims() > 1) shape.pop_back();  // "(3,)" keeps its comma
  std::string header =
      absl::StrCat("{'descr': '", descr,
                   "', 'fortran_order': False, 'shape': (", shape, "), }");
  // Pad with spaces so the data starts on a 64-byte boundary, ending in \n.
  const size_t unpadded = kMagicSize + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  bytes->assign(kMagic, kMagicSize);
  bytes->push_back('\x01');
  bytes->push_back('\x00');
  bytes->push_back(static_cast<char>(header.size() & 0xff));
  bytes->push_back(static_cast<char>(header.size() >> 8));
  bytes->append(header);
  bytes->append(tensor.tensor_data().data(), tensor.tensor_data().size());
  return OkStatus();
}

Status ReadNpyFile(const std::string& path, Tensor* tensor) {
  std::string contents;
  MF_RETURN_IF_ERROR(ReadFileToString(path, &contents, "NPY file"));
  return errors::Prefix(NpyToTensor(contents, tensor), path, ": ");
}

Status WriteNpyFile(const std::string& path, const Tensor& tensor) {
  std::string bytes;
  MF_RETURN_IF_ERROR(TensorToNpy(tensor, &bytes));
  // stdio rather than a stream: errno then says why a write failed.
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return errors::PermissionDenied("Cannot write '", path,
                                    "': ", std::strerror(errno));
  }
  const bool written =
      std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const int write_errno = errno;
  if (std::fclose(file) != 0 || !written) {
    return errors::DataLoss("Error writing '", path, "': ",
                            std::strerror(written ? errno : write_errno));
  }
  return OkStatus();
}

}  // namespace minflow
