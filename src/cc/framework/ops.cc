#include "minflow/cc/framework/ops.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "minflow/graph/graph.h"

namespace minflow {

const std::string& Operation::name() const { return node_->name(); }
int Operation::num_inputs() const { return node_->num_inputs(); }
DataType Operation::input_type(int i) const { return node_->input_type(i); }
int Operation::num_outputs() const { return node_->num_outputs(); }
DataType Operation::output_type(int i) const { return node_->output_type(i); }
Output Operation::output(int i) const { return Output(node_, i); }

Output Operation::input(int i) const {
  const Edge* edge = nullptr;
  if (!node_->input_edge(i, &edge).ok() || edge == nullptr) return Output();
  return Output(edge->src, edge->src_output);
}

DataType Output::type() const { return node()->output_type(index_); }
PartialTensorShape Output::shape() const {
  return node()->output_shape(index_);
}
std::string Output::name() const {
  return absl::StrCat(node()->name(), ":", index_);
}
size_t Output::hash() const {
  return std::hash<const Node*>()(node()) * 31 + std::hash<int>()(index_);
}

Input::Initializer::Initializer(const char* v) : Initializer(std::string(v)) {}

Input::Initializer::Initializer(const std::string& v)
    : tensor(DT_STRING, TensorShape()) {
  tensor.flat<std::string>()(0) = v;
}

Tensor Input::Initializer::MakeTensor(DataType dtype,
                                      absl::Span<const int64_t> dims,
                                      const void* values, size_t count) {
  Tensor t(dtype, TensorShape(dims));
  if (count > 0) std::memcpy(t.data(), values, t.TotalBytes());
  return t;
}

// Stacks equal-shaped elements along a new first dimension.
Input::Initializer::Initializer(std::initializer_list<Initializer> v) {
  if (v.size() == 0) {
    tensor = Tensor(DT_FLOAT, TensorShape({0}));
    return;
  }
  const Initializer& first = *v.begin();
  std::vector<int64_t> dims = {static_cast<int64_t>(v.size())};
  for (int d = 0; d < first.tensor.shape().dims(); ++d) {
    dims.push_back(first.tensor.shape().dim_size(d));
  }
  for (const Initializer& element : v) {
    if (!element.status.ok()) {
      status = element.status;
      return;
    }
    if (element.tensor.dtype() != first.tensor.dtype()) {
      status = errors::InvalidArgument(
          "Initializer list elements must have one dtype, but got ",
          DataTypeString(first.tensor.dtype()), " and ",
          DataTypeString(element.tensor.dtype()));
      return;
    }
    if (element.tensor.shape() != first.tensor.shape()) {
      status = errors::InvalidArgument(
          "Initializer list elements must have one shape, but got ",
          first.tensor.shape().DebugString(), " and ",
          element.tensor.shape().DebugString());
      return;
    }
  }
  tensor = Tensor(first.tensor.dtype(), TensorShape(dims));
  const int64_t per_element = first.tensor.NumElements();
  int64_t offset = 0;      // in elements, for strings
  size_t byte_offset = 0;  // for plain values
  for (const Initializer& element : v) {
    if (tensor.dtype() == DT_STRING) {
      auto out = tensor.flat<std::string>();
      auto in = element.tensor.flat<std::string>();
      for (int64_t i = 0; i < per_element; ++i) out(offset + i) = in(i);
    } else {
      const size_t bytes = element.tensor.TotalBytes();
      std::memcpy(static_cast<char*>(tensor.data()) + byte_offset,
                  element.tensor.data(), bytes);
      byte_offset += bytes;
    }
    offset += per_element;
  }
}

}  // namespace minflow
