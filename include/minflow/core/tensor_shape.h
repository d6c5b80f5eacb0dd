// TensorShape (fully known, int64 dims) and PartialTensorShape (unknown dims
// as -1, possibly unknown rank), with TensorFlow's names and notation.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "minflow/core/status.h"

namespace minflow {

class TensorShapeProto;

// The largest rank minflow accepts anywhere (TensorFlow's limit).
inline constexpr int kMaxTensorRank = 254;

// A fully known shape. Element counts are overflow-checked: every
// constructor from user data goes through BuildTensorShape, which returns
// InvalidArgument instead of overflowing. Value type, not thread-safe to
// mutate concurrently.
class TensorShape {
 public:
  TensorShape() = default;  // a scalar
  // For shapes written in code; aborts on negative dims or overflow. Use
  // BuildTensorShape for anything that comes from outside.
  TensorShape(std::initializer_list<int64_t> dims);
  explicit TensorShape(absl::Span<const int64_t> dims);

  // Returns InvalidArgument for negative dims, rank > kMaxTensorRank, or an
  // element count past int64.
  static Status BuildTensorShape(absl::Span<const int64_t> dims,
                                 TensorShape* out);
  static Status BuildTensorShape(const TensorShapeProto& proto,
                                 TensorShape* out);
  // True when `proto` is a valid, fully known shape.
  static bool IsValid(const TensorShapeProto& proto);
  static Status IsValidShape(const TensorShapeProto& proto);

  int dims() const { return static_cast<int>(dims_.size()); }
  int64_t dim_size(int d) const;
  absl::Span<const int64_t> dim_sizes() const { return dims_; }
  int64_t num_elements() const { return num_elements_; }

  // Mutators for code-built shapes; they abort on invalid values. The Safe
  // forms return InvalidArgument instead.
  void AddDim(int64_t size);
  Status AddDimWithStatus(int64_t size);
  void InsertDim(int d, int64_t size);
  void RemoveDim(int d);
  void RemoveLastDims(int n);
  void set_dim(int d, int64_t size);
  Status SetDimWithStatus(int d, int64_t size);
  void AppendShape(const TensorShape& other);
  void Clear();

  bool IsSameSize(const TensorShape& other) const {
    return dims_ == other.dims_;
  }
  bool operator==(const TensorShape& other) const { return IsSameSize(other); }
  bool operator!=(const TensorShape& other) const { return !IsSameSize(other); }

  void AsProto(TensorShapeProto* proto) const;
  // "[2,3]"; "[]" for a scalar.
  std::string DebugString() const;

 private:
  void Recount();

  absl::InlinedVector<int64_t, 4> dims_;
  int64_t num_elements_ = 1;
};

// A shape that may have unknown dims (-1) or an unknown rank.
class PartialTensorShape {
 public:
  PartialTensorShape() = default;  // unknown rank
  PartialTensorShape(std::initializer_list<int64_t> dims);
  explicit PartialTensorShape(absl::Span<const int64_t> dims);
  PartialTensorShape(const TensorShape& shape);  // NOLINT: implicit like TF

  // Accepts -1 for unknown dims; other negatives and rank > kMaxTensorRank
  // are InvalidArgument.
  static Status BuildPartialTensorShape(absl::Span<const int64_t> dims,
                                        PartialTensorShape* out);
  static Status BuildPartialTensorShape(const TensorShapeProto& proto,
                                        PartialTensorShape* out);

  bool unknown_rank() const { return unknown_rank_; }
  // -1 when the rank is unknown.
  int dims() const {
    return unknown_rank_ ? -1 : static_cast<int>(dims_.size());
  }
  int64_t dim_size(int d) const;
  absl::Span<const int64_t> dim_sizes() const { return dims_; }
  // -1 unless fully defined.
  int64_t num_elements() const;
  bool IsFullyDefined() const;
  bool AsTensorShape(TensorShape* out) const;

  // True when some fully known shape could match both.
  bool IsCompatibleWith(const PartialTensorShape& other) const;
  // True when `shape` is one of the shapes this one describes.
  bool IsCompatibleWith(const TensorShape& shape) const;
  // Narrows both into one; InvalidArgument when they disagree.
  Status MergeWith(const PartialTensorShape& other,
                   PartialTensorShape* result) const;
  PartialTensorShape Concatenate(const PartialTensorShape& other) const;
  // Identical, including unknown dims and unknown rank.
  bool IsIdenticalTo(const PartialTensorShape& other) const;

  void AsProto(TensorShapeProto* proto) const;
  // "[2,?]", "?" for unknown rank, "[]" for a scalar.
  std::string DebugString() const;

 private:
  bool unknown_rank_ = true;
  absl::InlinedVector<int64_t, 4> dims_;
};

// Helpers named as TensorFlow's TensorShapeUtils.
class TensorShapeUtils {
 public:
  static bool IsScalar(const TensorShape& s) { return s.dims() == 0; }
  static bool IsVector(const TensorShape& s) { return s.dims() == 1; }
  static bool IsVectorOrHigher(const TensorShape& s) { return s.dims() >= 1; }
  static bool IsMatrix(const TensorShape& s) { return s.dims() == 2; }
  static bool IsSquareMatrix(const TensorShape& s) {
    return s.dims() == 2 && s.dim_size(0) == s.dim_size(1);
  }
  static bool IsMatrixOrHigher(const TensorShape& s) { return s.dims() >= 2; }
  // Shape from a list of sizes held in an int32 or int64 vector.
  static Status MakeShape(absl::Span<const int32_t> dims, TensorShape* out);
  static Status MakeShape(absl::Span<const int64_t> dims, TensorShape* out);
  static std::string ShapeListString(absl::Span<const TensorShape> shapes);
};

}  // namespace minflow
