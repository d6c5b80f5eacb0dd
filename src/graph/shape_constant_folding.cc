#include "src/graph/shape_constant_folding.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "minflow/framework/node_def_util.h"
#include "minflow/node_def.pb.h"

namespace minflow {
namespace internal {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

bool IsIntType(DataType t) { return t == DT_INT32 || t == DT_INT64; }

bool Values(const Tensor& t, std::vector<int64_t>* out) {
  out->clear();
  if (t.dtype() == DT_INT32) {
    auto flat = t.flat<int32_t>();
    out->assign(flat.data(), flat.data() + flat.size());
  } else if (t.dtype() == DT_INT64) {
    auto flat = t.flat<int64_t>();
    out->assign(flat.data(), flat.data() + flat.size());
  } else {
    return false;
  }
  return true;
}

// A tensor of `dtype` and `shape` holding `values`; false when a value does
// not fit or the shape is not the values' count.
bool MakeTensor(DataType dtype, const TensorShape& shape,
                const std::vector<int64_t>& values, int64_t max_elements,
                FoldedValue* out) {
  if (!IsIntType(dtype) ||
      shape.num_elements() != static_cast<int64_t>(values.size()) ||
      shape.num_elements() > max_elements) {
    return false;
  }
  Tensor t(dtype, shape);
  if (dtype == DT_INT32) {
    auto flat = t.flat<int32_t>();
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i] < std::numeric_limits<int32_t>::min() ||
          values[i] > std::numeric_limits<int32_t>::max()) {
        return false;
      }
      flat(i) = static_cast<int32_t>(values[i]);
    }
  } else {
    auto flat = t.flat<int64_t>();
    for (size_t i = 0; i < values.size(); ++i) flat(i) = values[i];
  }
  out->has_tensor = true;
  out->tensor = std::move(t);
  return true;
}

// The fully known shape of output `idx`, if it is.
bool OutputShape(InferenceContext* c, int idx, TensorShape* shape) {
  const PartialTensorShape p = c->AsPartialTensorShape(c->output(idx));
  return p.AsTensorShape(shape);
}

// The elements of a rank-1 input as dims (tensor or partial); false if not
// known as such.
bool VectorDims(InferenceContext* c, const KnownValue& v,
                std::vector<DimensionHandle>* dims) {
  dims->clear();
  if (v.tensor != nullptr) {
    std::vector<int64_t> values;
    if (v.tensor->dims() != 1 || !Values(*v.tensor, &values)) return false;
    for (int64_t x : values) {
      if (x < -1) return false;
      dims->push_back(c->MakeDim(x));
    }
    return true;
  }
  if (!v.partial.IsSet() || v.scalar || !c->RankKnown(v.partial)) return false;
  for (int i = 0; i < c->Rank(v.partial); ++i) {
    dims->push_back(c->Dim(v.partial, i));
  }
  return true;
}

// A scalar input as a dim: known value, or the dim a partial scalar holds.
bool ScalarDim(InferenceContext* c, const KnownValue& v, DimensionHandle* d) {
  if (v.tensor != nullptr) {
    std::vector<int64_t> values;
    if (v.tensor->dims() != 0 || !Values(*v.tensor, &values) ||
        values[0] < -1) {
      return false;
    }
    *d = c->MakeDim(values[0]);
    return true;
  }
  if (!v.partial.IsSet() || !v.scalar) return false;
  *d = c->Dim(v.partial, 0);
  return true;
}

bool ScalarValue(const KnownValue& v, int64_t* value) {
  std::vector<int64_t> values;
  if (v.tensor == nullptr || v.tensor->NumElements() != 1 ||
      !Values(*v.tensor, &values)) {
    return false;
  }
  *value = values[0];
  return true;
}

// Python slicing of a length-`n` axis by one begin/end/stride triple with
// begin/end/shrink masks; false for anything unusual.
bool SliceIndices(int64_t n, int64_t begin, int64_t end, int64_t stride,
                  bool begin_masked, bool end_masked, bool shrink,
                  std::vector<int64_t>* indices) {
  indices->clear();
  if (stride == 0) return false;
  if (shrink) {
    const int64_t i = begin < 0 ? begin + n : begin;
    if (i < 0 || i >= n) return false;
    indices->push_back(i);
    return true;
  }
  auto clamp = [n, stride](int64_t x) {
    if (x < 0) x += n;
    const int64_t lo = stride > 0 ? 0 : -1;
    const int64_t hi = stride > 0 ? n : n - 1;
    return std::min(std::max(x, lo), hi);
  };
  const int64_t b = begin_masked ? (stride > 0 ? 0 : n - 1) : clamp(begin);
  const int64_t e = end_masked ? (stride > 0 ? n : -1) : clamp(end);
  for (int64_t i = b; stride > 0 ? i < e : i > e; i += stride) {
    indices->push_back(i);
    if (static_cast<int64_t>(indices->size()) > n) return false;
  }
  return true;
}

void FoldStridedSlice(const NodeDef& node_def, absl::Span<const KnownValue> in,
                      DataType out_type, int64_t max_elements,
                      InferenceContext* c, FoldedValue* out) {
  int64_t masks[5] = {0, 0, 0, 0, 0};
  const char* const names[5] = {"begin_mask", "end_mask", "ellipsis_mask",
                                "new_axis_mask", "shrink_axis_mask"};
  for (int i = 0; i < 5; ++i) {
    if (!TryGetNodeAttr(AttrSlice(node_def), names[i], &masks[i])) return;
  }
  if (masks[2] != 0 || masks[3] != 0) return;
  int64_t begin, end, stride;
  if (!ScalarValue(in[1], &begin) || !ScalarValue(in[2], &end) ||
      !ScalarValue(in[3], &stride)) {
    return;
  }
  std::vector<DimensionHandle> dims;
  std::vector<int64_t> values;
  const bool have_values = in[0].tensor != nullptr &&
                           in[0].tensor->dims() == 1 &&
                           Values(*in[0].tensor, &values);
  if (!have_values && !VectorDims(c, in[0], &dims)) return;
  const int64_t n = have_values ? static_cast<int64_t>(values.size())
                                : static_cast<int64_t>(dims.size());
  const bool shrink = masks[4] & 1;
  std::vector<int64_t> indices;
  if (!SliceIndices(n, begin, end, stride, masks[0] & 1, masks[1] & 1, shrink,
                    &indices)) {
    return;
  }
  if (have_values) {
    std::vector<int64_t> picked;
    for (int64_t i : indices) picked.push_back(values[i]);
    TensorShape shape;
    if (!shrink) shape.AddDim(static_cast<int64_t>(picked.size()));
    MakeTensor(out_type, shape, picked, max_elements, out);
    return;
  }
  std::vector<DimensionHandle> picked;
  for (int64_t i : indices) picked.push_back(dims[i]);
  out->partial = c->MakeShape(picked);
  out->scalar = shrink;
}

void FoldArithmetic(const std::string& op, absl::Span<const KnownValue> in,
                    DataType out_type, int64_t max_elements, FoldedValue* out) {
  if (in[0].tensor == nullptr || in[1].tensor == nullptr) return;
  std::vector<int64_t> x;
  std::vector<int64_t> y;
  if (!Values(*in[0].tensor, &x) || !Values(*in[1].tensor, &y)) return;
  const TensorShape& sx = in[0].tensor->shape();
  const TensorShape& sy = in[1].tensor->shape();
  TensorShape shape;
  if (sx == sy) {
    shape = sx;
  } else if (x.size() == 1 && sx.dims() == 0) {
    shape = sy;
  } else if (y.size() == 1 && sy.dims() == 0) {
    shape = sx;
  } else {
    return;  // general broadcasting is not needed for shape arithmetic
  }
  const size_t n = static_cast<size_t>(shape.num_elements());
  std::vector<int64_t> z(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t a = x.size() == 1 ? x[0] : x[i];
    const int64_t b = y.size() == 1 ? y[0] : y[i];
    bool overflow = false;
    if (op == "Add" || op == "AddV2") {
      overflow = __builtin_add_overflow(a, b, &z[i]);
    } else if (op == "Sub") {
      overflow = __builtin_sub_overflow(a, b, &z[i]);
    } else if (op == "Mul") {
      overflow = __builtin_mul_overflow(a, b, &z[i]);
    } else if (op == "Maximum") {
      z[i] = std::max(a, b);
    } else if (op == "Minimum") {
      z[i] = std::min(a, b);
    } else {  // FloorDiv
      if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) {
        return;
      }
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      z[i] = q;
    }
    if (overflow) return;
  }
  MakeTensor(out_type, shape, z, max_elements, out);
}

}  // namespace

void FoldShapeComputation(const NodeDef& node_def,
                          absl::Span<const KnownValue> inputs,
                          absl::Span<const DataType> output_types,
                          int64_t max_elements, InferenceContext* c,
                          std::vector<FoldedValue>* outputs) {
  outputs->assign(output_types.size(), FoldedValue());
  if (output_types.empty() || !IsIntType(output_types[0])) return;
  const std::string& op = node_def.op();
  const DataType out_type = output_types[0];
  FoldedValue* out = &(*outputs)[0];

  if (op == "Shape") {
    const ShapeHandle s = c->input(0);
    TensorShape shape;
    if (OutputShape(c, 0, &shape) && c->FullyDefined(s)) {
      std::vector<int64_t> dims;
      for (int i = 0; i < c->Rank(s); ++i)
        dims.push_back(c->Value(c->Dim(s, i)));
      MakeTensor(out_type, shape, dims, max_elements, out);
    }
    // The value is the input's shape itself, dim objects included.
    if (c->RankKnown(s)) out->partial = s;
  } else if (op == "Size") {
    const ShapeHandle s = c->input(0);
    if (!c->FullyDefined(s)) return;
    int64_t n = 1;
    for (int i = 0; i < c->Rank(s); ++i) {
      if (__builtin_mul_overflow(n, c->Value(c->Dim(s, i)), &n)) return;
    }
    MakeTensor(out_type, TensorShape(), {n}, max_elements, out);
  } else if (op == "Rank") {
    if (c->RankKnown(c->input(0))) {
      MakeTensor(out_type, TensorShape(), {c->Rank(c->input(0))}, max_elements,
                 out);
    }
  } else if (op == "Identity" || op == "StopGradient" || op == "Cast" ||
             op == "Reshape" || op == "ExpandDims" || op == "Squeeze") {
    const KnownValue& v = inputs[0];
    std::vector<int64_t> values;
    TensorShape shape;
    if (v.tensor != nullptr && Values(*v.tensor, &values) &&
        OutputShape(c, 0, &shape)) {
      MakeTensor(out_type, shape, values, max_elements, out);
    }
    if (op == "Identity" || op == "StopGradient" || op == "Cast") {
      out->partial = v.partial;
      out->scalar = v.scalar;
    } else if (op == "ExpandDims" && v.scalar && v.partial.IsSet() &&
               c->Rank(c->output(0)) == 1) {
      out->partial = v.partial;  // [d] as a vector
    }
  } else if (op == "Pack") {
    TensorShape shape;
    std::vector<int64_t> all;
    bool known = OutputShape(c, 0, &shape);
    int64_t axis = 0;
    TryGetNodeAttr(AttrSlice(node_def), "axis", &axis);
    bool scalars = true;
    for (const KnownValue& v : inputs) {
      std::vector<int64_t> values;
      scalars = scalars && (v.scalar || (v.tensor && v.tensor->dims() == 0));
      if (v.tensor == nullptr || !Values(*v.tensor, &values)) {
        known = false;
      } else {
        all.insert(all.end(), values.begin(), values.end());
      }
    }
    // Stacking along axis 0 keeps the elements in order.
    if (known && (axis == 0 || scalars)) {
      MakeTensor(out_type, shape, all, max_elements, out);
    }
    if (scalars) {
      std::vector<DimensionHandle> dims;
      for (const KnownValue& v : inputs) {
        DimensionHandle d;
        if (!ScalarDim(c, v, &d)) {
          d = c->UnknownDim();
        }
        dims.push_back(d);
      }
      out->partial = c->MakeShape(dims);
    }
  } else if (op == "ConcatV2") {
    const int n = static_cast<int>(inputs.size()) - 1;
    int64_t axis;
    if (n < 1 || !ScalarValue(inputs[n], &axis) || (axis != 0 && axis != -1)) {
      return;
    }
    std::vector<int64_t> all;
    bool known = true;
    std::vector<DimensionHandle> dims;
    bool partial = true;
    for (int i = 0; i < n; ++i) {
      std::vector<int64_t> values;
      const KnownValue& v = inputs[i];
      if (v.tensor == nullptr || v.tensor->dims() != 1 ||
          !Values(*v.tensor, &values)) {
        known = false;
      } else {
        all.insert(all.end(), values.begin(), values.end());
      }
      std::vector<DimensionHandle> part;
      if (partial && VectorDims(c, v, &part)) {
        dims.insert(dims.end(), part.begin(), part.end());
      } else {
        partial = false;
      }
    }
    if (known) {
      MakeTensor(out_type, TensorShape({static_cast<int64_t>(all.size())}), all,
                 max_elements, out);
    }
    if (partial && dims.size() <= static_cast<size_t>(kMaxTensorRank)) {
      out->partial = c->MakeShape(dims);
    }
  } else if (op == "StridedSlice") {
    FoldStridedSlice(node_def, inputs, out_type, max_elements, c, out);
  } else if (op == "Slice") {
    int64_t begin, size;
    if (!ScalarValue(inputs[1], &begin) || !ScalarValue(inputs[2], &size)) {
      return;
    }
    std::vector<int64_t> values;
    std::vector<DimensionHandle> dims;
    const bool have_values = inputs[0].tensor != nullptr &&
                             inputs[0].tensor->dims() == 1 &&
                             Values(*inputs[0].tensor, &values);
    if (!have_values && !VectorDims(c, inputs[0], &dims)) return;
    const int64_t n = have_values ? static_cast<int64_t>(values.size())
                                  : static_cast<int64_t>(dims.size());
    const int64_t len = size == -1 ? n - begin : size;
    if (begin < 0 || len < 0 || begin > n || len > n - begin) return;
    if (have_values) {
      std::vector<int64_t> picked(values.begin() + begin,
                                  values.begin() + begin + len);
      MakeTensor(out_type, TensorShape({len}), picked, max_elements, out);
    } else {
      out->partial = c->MakeShape(std::vector<DimensionHandle>(
          dims.begin() + begin, dims.begin() + begin + len));
    }
  } else if (op == "Add" || op == "AddV2" || op == "Sub" || op == "Mul" ||
             op == "FloorDiv" || op == "Maximum" || op == "Minimum") {
    FoldArithmetic(op, inputs, out_type, max_elements, out);
  } else if (op == "Fill") {
    std::vector<int64_t> dims;
    int64_t value;
    if (inputs[0].tensor == nullptr || !Values(*inputs[0].tensor, &dims) ||
        !ScalarValue(inputs[1], &value)) {
      return;
    }
    TensorShape shape;
    if (!TensorShape::BuildTensorShape(dims, &shape).ok() ||
        shape.num_elements() > max_elements) {
      return;
    }
    MakeTensor(out_type, shape,
               std::vector<int64_t>(shape.num_elements(), value), max_elements,
               out);
  }
}

}  // namespace internal
}  // namespace minflow
