// TensorProto <-> Tensor. A TensorProto is untrusted: every size is checked
// against the shape before any memory is written.
#include <cstring>

#include "minflow/core/dtype_dispatch.h"
#include "minflow/core/tensor.h"
#include "minflow/tensor.pb.h"
#include "minflow/tensor_shape.pb.h"

namespace minflow {
namespace {

// Where each element type lives among TensorProto's typed fields, and how to
// convert one stored value (or two, for complex) to the element.
template <typename T>
struct ProtoField;

#define MF_PROTO_FIELD(T, FIELD, STORE_AS)                             \
  template <>                                                          \
  struct ProtoField<T> {                                               \
    static int Size(const TensorProto& p) { return p.FIELD##_size(); } \
    static T Get(const TensorProto& p, int i) {                        \
      return static_cast<T>(p.FIELD(i));                               \
    }                                                                  \
    static void Add(TensorProto* p, const T& v) {                      \
      p->add_##FIELD(static_cast<STORE_AS>(v));                        \
    }                                                                  \
  }

MF_PROTO_FIELD(float, float_val, float);
MF_PROTO_FIELD(double, double_val, double);
MF_PROTO_FIELD(int32_t, int_val, int32_t);
MF_PROTO_FIELD(int16_t, int_val, int32_t);
MF_PROTO_FIELD(int8_t, int_val, int32_t);
MF_PROTO_FIELD(uint8_t, int_val, int32_t);
MF_PROTO_FIELD(uint16_t, int_val, int32_t);
MF_PROTO_FIELD(int64_t, int64_val, int64_t);
MF_PROTO_FIELD(uint32_t, uint32_val, uint32_t);
MF_PROTO_FIELD(uint64_t, uint64_val, uint64_t);
MF_PROTO_FIELD(bool, bool_val, bool);
MF_PROTO_FIELD(std::string, string_val, std::string);
#undef MF_PROTO_FIELD

// half and bfloat16 travel as their 16 raw bits in half_val.
template <typename T>
struct HalfField {
  static int Size(const TensorProto& p) { return p.half_val_size(); }
  static T Get(const TensorProto& p, int i) {
    return Eigen::numext::bit_cast<T>(static_cast<uint16_t>(p.half_val(i)));
  }
  static void Add(TensorProto* p, const T& v) {
    p->add_half_val(Eigen::numext::bit_cast<uint16_t>(v));
  }
};
template <>
struct ProtoField<half> : HalfField<half> {};
template <>
struct ProtoField<bfloat16> : HalfField<bfloat16> {};

template <typename Q, typename Storage>
struct QuantizedField {
  static int Size(const TensorProto& p) { return p.int_val_size(); }
  static Q Get(const TensorProto& p, int i) {
    return Q{static_cast<Storage>(p.int_val(i))};
  }
  static void Add(TensorProto* p, const Q& v) {
    p->add_int_val(static_cast<int32_t>(v.value));
  }
};
template <>
struct ProtoField<qint8> : QuantizedField<qint8, int8_t> {};
template <>
struct ProtoField<quint8> : QuantizedField<quint8, uint8_t> {};
template <>
struct ProtoField<qint16> : QuantizedField<qint16, int16_t> {};
template <>
struct ProtoField<quint16> : QuantizedField<quint16, uint16_t> {};
template <>
struct ProtoField<qint32> : QuantizedField<qint32, int32_t> {};

// Complex values take two stored numbers each; Size counts elements, and an
// odd count of numbers is rejected before Get is called.
template <>
struct ProtoField<complex64> {
  static int Size(const TensorProto& p) { return p.scomplex_val_size() / 2; }
  static bool Odd(const TensorProto& p) { return p.scomplex_val_size() % 2; }
  static complex64 Get(const TensorProto& p, int i) {
    return complex64(p.scomplex_val(2 * i), p.scomplex_val(2 * i + 1));
  }
  static void Add(TensorProto* p, const complex64& v) {
    p->add_scomplex_val(v.real());
    p->add_scomplex_val(v.imag());
  }
};
template <>
struct ProtoField<complex128> {
  static int Size(const TensorProto& p) { return p.dcomplex_val_size() / 2; }
  static bool Odd(const TensorProto& p) { return p.dcomplex_val_size() % 2; }
  static complex128 Get(const TensorProto& p, int i) {
    return complex128(p.dcomplex_val(2 * i), p.dcomplex_val(2 * i + 1));
  }
  static void Add(TensorProto* p, const complex128& v) {
    p->add_dcomplex_val(v.real());
    p->add_dcomplex_val(v.imag());
  }
};

template <typename T, typename = void>
struct HasOdd : std::false_type {};
template <typename T>
struct HasOdd<T, std::void_t<decltype(ProtoField<T>::Odd)>> : std::true_type {};

// Reads a base-128 varint (at most 5 bytes for 32 bits); false if truncated
// or too long.
bool ReadVarint32(absl::string_view* in, uint32_t* value) {
  uint32_t result = 0;
  for (int shift = 0; shift <= 28; shift += 7) {
    if (in->empty()) return false;
    const uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    if (shift == 28 && (byte & 0xF0) != 0) return false;
    result |= static_cast<uint32_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

void AppendVarint32(std::string* out, uint32_t value) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

// TensorFlow's string list encoding in tensor_content: every length as a
// varint32, then every string's bytes.
Status DecodeStringContent(absl::string_view content, int64_t n,
                           std::string* out) {
  std::vector<uint32_t> sizes(n);
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!ReadVarint32(&content, &sizes[i])) {
      return errors::InvalidArgument(
          "String tensor content has a truncated or invalid length prefix "
          "for element ",
          i);
    }
    total += sizes[i];
  }
  if (total != content.size()) {
    return errors::InvalidArgument("String tensor content lengths add up to ",
                                   total, " bytes, but ", content.size(),
                                   " bytes of data follow them");
  }
  for (int64_t i = 0; i < n; ++i) {
    out[i].assign(content.data(), sizes[i]);
    content.remove_prefix(sizes[i]);
  }
  return OkStatus();
}

template <typename T>
Status FillFromTypedField(const TensorProto& proto, int64_t n, T* out) {
  if constexpr (HasOdd<T>::value) {
    if (ProtoField<T>::Odd(proto)) {
      return errors::InvalidArgument(
          "Complex tensor proto holds an odd number of real values");
    }
  }
  const int64_t given = ProtoField<T>::Size(proto);
  if (given > n) {
    return errors::InvalidArgument("Tensor proto holds ", given,
                                   " values, but its shape has only ", n,
                                   " elements");
  }
  for (int64_t i = 0; i < given; ++i) {
    out[i] = ProtoField<T>::Get(proto, static_cast<int>(i));
  }
  // TensorFlow's shorthand: the last value repeats; no value means zeros.
  const T fill = given > 0 ? out[given - 1] : T();
  for (int64_t i = given; i < n; ++i) out[i] = fill;
  return OkStatus();
}

}  // namespace

Status TensorFromProto(const TensorProto& proto, Tensor* out,
                       const TensorProtoOptions& options) {
  const DataType dtype = proto.dtype();
  if (IsRefType(dtype) || !DataTypeIsValid(dtype) || dtype == DT_RESOURCE ||
      dtype == DT_VARIANT) {
    return errors::InvalidArgument("Tensor proto has unsupported dtype ",
                                   DataTypeString(dtype));
  }
  TensorShape shape;
  MF_RETURN_IF_ERROR(
      TensorShape::BuildTensorShape(proto.tensor_shape(), &shape));
  const int64_t n = shape.num_elements();
  const int64_t elem =
      dtype == DT_STRING ? sizeof(std::string) : DataTypeSize(dtype);
  if (n > options.max_bytes / elem) {
    return errors::ResourceExhausted(
        "Tensor proto of shape ", shape.DebugString(), " and type ",
        DataTypeString(dtype), " needs more than the allowed ",
        options.max_bytes, " bytes");
  }
  const std::string& content = proto.tensor_content();
  if (!content.empty() && dtype != DT_STRING &&
      static_cast<int64_t>(content.size()) != n * DataTypeSize(dtype)) {
    return errors::InvalidArgument("Tensor proto content has ", content.size(),
                                   " bytes, but shape ", shape.DebugString(),
                                   " of type ", DataTypeString(dtype),
                                   " needs ", n * DataTypeSize(dtype));
  }
  Allocator* a = options.allocator ? options.allocator : cpu_allocator();
  MF_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(a, dtype, shape));
  Status status;
  if (n > 0) {
    VisitDataType(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* data = t.base<T>();
      if constexpr (std::is_same_v<T, std::string>) {
        status = content.empty() ? FillFromTypedField<T>(proto, n, data)
                                 : DecodeStringContent(content, n, data);
      } else {
        if (content.empty()) {
          status = FillFromTypedField<T>(proto, n, data);
        } else if constexpr (std::is_same_v<T, bool>) {
          // Reading any other byte as a bool is undefined behaviour.
          for (int64_t i = 0; i < n; ++i) {
            const auto byte = static_cast<unsigned char>(content[i]);
            if (byte > 1) {
              status = errors::InvalidArgument(
                  "Tensor proto of type bool has byte ", int{byte},
                  " at element ", i,
                  " of its tensor_content; a bool must be 0 or 1");
              return;
            }
            data[i] = byte == 1;
          }
        } else {
          std::memcpy(data, content.data(), content.size());
        }
      }
    });
  } else if (!content.empty() && dtype == DT_STRING) {
    status = errors::InvalidArgument("Empty string tensor carries ",
                                     content.size(), " bytes of content");
  }
  MF_RETURN_IF_ERROR(status);
  *out = std::move(t);
  return OkStatus();
}

bool Tensor::FromProto(const TensorProto& proto) {
  return FromProto(cpu_allocator(), proto);
}

bool Tensor::FromProto(Allocator* a, const TensorProto& proto) {
  TensorProtoOptions options;
  options.allocator = a;
  return TensorFromProto(proto, this, options).ok();
}

void Tensor::AsProtoField(TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  if (buf_ == nullptr) return;
  VisitDataType(dtype_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* data = base<const T>();
    for (int64_t i = 0; i < NumElements(); ++i) {
      ProtoField<T>::Add(proto, data[i]);
    }
  });
}

void Tensor::AsProtoTensorContent(TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  if (buf_ == nullptr) return;
  if (dtype_ == DT_STRING) {
    std::string encoded;
    const auto* strings = base<const std::string>();
    for (int64_t i = 0; i < NumElements(); ++i) {
      AppendVarint32(&encoded, static_cast<uint32_t>(strings[i].size()));
    }
    for (int64_t i = 0; i < NumElements(); ++i) encoded += strings[i];
    proto->set_tensor_content(std::move(encoded));
    return;
  }
  proto->set_tensor_content(std::string(tensor_data()));
}

}  // namespace minflow
