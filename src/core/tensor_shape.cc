#include "minflow/core/tensor_shape.h"

#include <limits>

#include "absl/strings/str_join.h"
#include "minflow/core/logging.h"
#include "minflow/tensor_shape.pb.h"

namespace minflow {
namespace {

// Multiplies two non-negative counts; false on int64 overflow.
bool MultiplyWithoutOverflow(int64_t a, int64_t b, int64_t* out) {
  if (a == 0 || b == 0) {
    *out = 0;
    return true;
  }
  if (a > std::numeric_limits<int64_t>::max() / b) return false;
  *out = a * b;
  return true;
}

std::string DimsString(absl::Span<const int64_t> dims) {
  return absl::StrCat("[",
                      absl::StrJoin(dims, ",",
                                    [](std::string* out, int64_t d) {
                                      if (d < 0) {
                                        out->append("?");
                                      } else {
                                        absl::StrAppend(out, d);
                                      }
                                    }),
                      "]");
}

}  // namespace

TensorShape::TensorShape(std::initializer_list<int64_t> dims)
    : TensorShape(absl::Span<const int64_t>(dims.begin(), dims.size())) {}

TensorShape::TensorShape(absl::Span<const int64_t> dims) {
  MF_CHECK_OK(BuildTensorShape(dims, this));
}

Status TensorShape::BuildTensorShape(absl::Span<const int64_t> dims,
                                     TensorShape* out) {
  if (dims.size() > static_cast<size_t>(kMaxTensorRank)) {
    return errors::InvalidArgument("Shape ", DimsString(dims),
                                   " has too many dimensions: ", dims.size(),
                                   " > ", kMaxTensorRank);
  }
  int64_t count = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return errors::InvalidArgument("Dimension ", i, " must be >= 0, but got ",
                                     dims[i], " in shape ", DimsString(dims));
    }
    if (!MultiplyWithoutOverflow(count, dims[i], &count)) {
      return errors::InvalidArgument("Shape ", DimsString(dims),
                                     " has too many elements: the count "
                                     "overflows int64");
    }
  }
  out->dims_.assign(dims.begin(), dims.end());
  out->num_elements_ = count;
  return OkStatus();
}

Status TensorShape::IsValidShape(const TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    return errors::InvalidArgument(
        "Shape must be fully defined, but got unknown rank");
  }
  TensorShape ignored;
  return BuildTensorShape(proto, &ignored);
}

bool TensorShape::IsValid(const TensorShapeProto& proto) {
  return IsValidShape(proto).ok();
}

Status TensorShape::BuildTensorShape(const TensorShapeProto& proto,
                                     TensorShape* out) {
  if (proto.unknown_rank()) {
    return errors::InvalidArgument(
        "Shape must be fully defined, but got unknown rank");
  }
  if (proto.dim_size() > kMaxTensorRank) {
    return errors::InvalidArgument("Shape has too many dimensions: ",
                                   proto.dim_size(), " > ", kMaxTensorRank);
  }
  absl::InlinedVector<int64_t, 4> dims;
  for (const auto& d : proto.dim()) dims.push_back(d.size());
  return BuildTensorShape(dims, out);
}

int64_t TensorShape::dim_size(int d) const {
  MF_CHECK(d >= 0 && d < dims()) << "dim " << d << " of rank " << dims();
  return dims_[d];
}

void TensorShape::Recount() {
  int64_t count = 1;
  for (int64_t d : dims_) {
    MF_CHECK(MultiplyWithoutOverflow(count, d, &count))
        << "shape element count overflows int64";
  }
  num_elements_ = count;
}

void TensorShape::AddDim(int64_t size) { MF_CHECK_OK(AddDimWithStatus(size)); }

Status TensorShape::AddDimWithStatus(int64_t size) {
  if (size < 0) {
    return errors::InvalidArgument("Dimension must be >= 0, but got ", size);
  }
  if (dims() >= kMaxTensorRank) {
    return errors::InvalidArgument(
        "Shape has too many dimensions: ", dims() + 1, " > ", kMaxTensorRank);
  }
  int64_t count;
  if (!MultiplyWithoutOverflow(num_elements_, size, &count)) {
    return errors::InvalidArgument("Adding dimension ", size, " to ",
                                   DebugString(),
                                   " overflows the element count");
  }
  dims_.push_back(size);
  num_elements_ = count;
  return OkStatus();
}

void TensorShape::InsertDim(int d, int64_t size) {
  MF_CHECK(d >= 0 && d <= dims() && size >= 0 && dims() < kMaxTensorRank);
  dims_.insert(dims_.begin() + d, size);
  Recount();
}

void TensorShape::RemoveDim(int d) {
  MF_CHECK(d >= 0 && d < dims());
  dims_.erase(dims_.begin() + d);
  Recount();
}

void TensorShape::RemoveLastDims(int n) {
  MF_CHECK(n >= 0 && n <= dims());
  dims_.resize(dims_.size() - n);
  Recount();
}

void TensorShape::set_dim(int d, int64_t size) {
  MF_CHECK_OK(SetDimWithStatus(d, size));
}

Status TensorShape::SetDimWithStatus(int d, int64_t size) {
  if (d < 0 || d >= dims()) {
    return errors::InvalidArgument("Dimension index ", d, " must be in [0, ",
                                   dims(), ")");
  }
  absl::InlinedVector<int64_t, 4> dims = dims_;
  dims[d] = size;
  return BuildTensorShape(dims, this);
}

void TensorShape::AppendShape(const TensorShape& other) {
  for (int64_t d : other.dims_) AddDim(d);
}

void TensorShape::Clear() {
  dims_.clear();
  num_elements_ = 1;
}

void TensorShape::AsProto(TensorShapeProto* proto) const {
  proto->Clear();
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

std::string TensorShape::DebugString() const { return DimsString(dims_); }

PartialTensorShape::PartialTensorShape(std::initializer_list<int64_t> dims)
    : PartialTensorShape(absl::Span<const int64_t>(dims.begin(), dims.size())) {
}

PartialTensorShape::PartialTensorShape(absl::Span<const int64_t> dims) {
  MF_CHECK_OK(BuildPartialTensorShape(dims, this));
}

PartialTensorShape::PartialTensorShape(const TensorShape& shape)
    : unknown_rank_(false),
      dims_(shape.dim_sizes().begin(), shape.dim_sizes().end()) {}

Status PartialTensorShape::BuildPartialTensorShape(
    absl::Span<const int64_t> dims, PartialTensorShape* out) {
  if (dims.size() > static_cast<size_t>(kMaxTensorRank)) {
    return errors::InvalidArgument(
        "Shape has too many dimensions: ", dims.size(), " > ", kMaxTensorRank);
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < -1) {
      return errors::InvalidArgument("Dimension ", i,
                                     " must be >= -1, but got ", dims[i]);
    }
  }
  out->unknown_rank_ = false;
  out->dims_.assign(dims.begin(), dims.end());
  return OkStatus();
}

Status PartialTensorShape::BuildPartialTensorShape(
    const TensorShapeProto& proto, PartialTensorShape* out) {
  if (proto.unknown_rank()) {
    if (proto.dim_size() > 0) {
      return errors::InvalidArgument(
          "An unknown-rank shape must have no dimensions, but got ",
          proto.dim_size());
    }
    *out = PartialTensorShape();
    return OkStatus();
  }
  if (proto.dim_size() > kMaxTensorRank) {
    return errors::InvalidArgument("Shape has too many dimensions: ",
                                   proto.dim_size(), " > ", kMaxTensorRank);
  }
  absl::InlinedVector<int64_t, 4> dims;
  for (const auto& d : proto.dim()) dims.push_back(d.size());
  return BuildPartialTensorShape(dims, out);
}

int64_t PartialTensorShape::dim_size(int d) const {
  MF_CHECK(!unknown_rank_ && d >= 0 && d < dims());
  return dims_[d];
}

bool PartialTensorShape::IsFullyDefined() const {
  if (unknown_rank_) return false;
  for (int64_t d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

int64_t PartialTensorShape::num_elements() const {
  if (!IsFullyDefined()) return -1;
  int64_t count = 1;
  for (int64_t d : dims_) {
    if (!MultiplyWithoutOverflow(count, d, &count)) return -1;
  }
  return count;
}

bool PartialTensorShape::AsTensorShape(TensorShape* out) const {
  if (!IsFullyDefined()) return false;
  return TensorShape::BuildTensorShape(dims_, out).ok();
}

bool PartialTensorShape::IsCompatibleWith(
    const PartialTensorShape& other) const {
  if (unknown_rank_ || other.unknown_rank_) return true;
  if (dims_.size() != other.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i] >= 0 && other.dims_[i] >= 0 && dims_[i] != other.dims_[i]) {
      return false;
    }
  }
  return true;
}

bool PartialTensorShape::IsCompatibleWith(const TensorShape& shape) const {
  return IsCompatibleWith(PartialTensorShape(shape));
}

Status PartialTensorShape::MergeWith(const PartialTensorShape& other,
                                     PartialTensorShape* result) const {
  if (unknown_rank_) {
    *result = other;
    return OkStatus();
  }
  if (other.unknown_rank_) {
    *result = *this;
    return OkStatus();
  }
  if (dims_.size() != other.dims_.size()) {
    return errors::InvalidArgument(
        "PartialTensorShape: Incompatible ranks during merge: ", dims(),
        " vs. ", other.dims());
  }
  PartialTensorShape merged = *this;
  for (size_t i = 0; i < dims_.size(); ++i) {
    const int64_t a = dims_[i], b = other.dims_[i];
    if (a >= 0 && b >= 0 && a != b) {
      return errors::InvalidArgument(
          "PartialTensorShape: Incompatible shapes during merge: ",
          DebugString(), " vs. ", other.DebugString());
    }
    merged.dims_[i] = a >= 0 ? a : b;
  }
  *result = std::move(merged);
  return OkStatus();
}

PartialTensorShape PartialTensorShape::Concatenate(
    const PartialTensorShape& other) const {
  if (unknown_rank_ || other.unknown_rank_ ||
      dims_.size() + other.dims_.size() > static_cast<size_t>(kMaxTensorRank)) {
    return PartialTensorShape();
  }
  PartialTensorShape result = *this;
  result.dims_.insert(result.dims_.end(), other.dims_.begin(),
                      other.dims_.end());
  return result;
}

bool PartialTensorShape::IsIdenticalTo(const PartialTensorShape& other) const {
  return unknown_rank_ == other.unknown_rank_ && dims_ == other.dims_;
}

void PartialTensorShape::AsProto(TensorShapeProto* proto) const {
  proto->Clear();
  if (unknown_rank_) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

std::string PartialTensorShape::DebugString() const {
  return unknown_rank_ ? "?" : DimsString(dims_);
}

Status TensorShapeUtils::MakeShape(absl::Span<const int32_t> dims,
                                   TensorShape* out) {
  absl::InlinedVector<int64_t, 4> wide(dims.begin(), dims.end());
  return TensorShape::BuildTensorShape(wide, out);
}

Status TensorShapeUtils::MakeShape(absl::Span<const int64_t> dims,
                                   TensorShape* out) {
  return TensorShape::BuildTensorShape(dims, out);
}

std::string TensorShapeUtils::ShapeListString(
    absl::Span<const TensorShape> shapes) {
  return absl::StrCat("[",
                      absl::StrJoin(shapes, ", ",
                                    [](std::string* out, const TensorShape& s) {
                                      out->append(s.DebugString());
                                    }),
                      "]");
}

}  // namespace minflow
